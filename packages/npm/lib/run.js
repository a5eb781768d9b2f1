// Running cases in-process: call an implementation's function for a case's op, judge the
// answer, and run stateful groups as `delegateos-conform run` does (file order on a fresh
// instance, then a replay on another; a case holds only if it holds both times).

const KINDS = new Set(['ok', 'error', 'skipped', 'errored']);

/**
 * What `impl` answers for case `c`: calls `impl[c.op](c.input)`, which must return
 * `{outcome: "ok", output}` or `{outcome: "error", code}` (or `skipped` / `errored`). A missing
 * function is `skipped`; a thrown exception is `errored`.
 */
export function answer(impl, c) {
  const fn = impl[c.op];
  if (typeof fn !== 'function') return { outcome: 'skipped', reason: `operation ${c.op} not implemented` };
  let a;
  try {
    a = fn.call(impl, c.input);
  } catch (e) {
    return { outcome: 'errored', message: `threw: ${e && e.stack ? e.stack : String(e)}` };
  }
  if (a === null || typeof a !== 'object' || !KINDS.has(a.outcome)) {
    return { outcome: 'errored', message: `returned ${JSON.stringify(a)}, not an outcome` };
  }
  if (a.outcome === 'error' && (typeof a.code !== 'string' || a.code === '')) {
    return { outcome: 'errored', message: 'an error outcome needs a non-empty code' };
  }
  return a;
}

/** The harness status of an answer and its verdict: passed, acceptable, failed, other_code, skipped, errored. */
export function statusOf(actual, verdict) {
  if (actual.outcome === 'skipped') return 'skipped';
  if (actual.outcome === 'errored') return 'errored';
  return verdict.verdict;
}

const holds = (s) => s === 'passed' || s === 'acceptable' || s === 'other_code' || s === 'skipped';

/**
 * Runs `list` (from `cases()`) against implementations made by `makeImpl()` — a fresh instance
 * for the stateless cases (and after every stateful group), and two per stateful group — and
 * returns `[{case, actual, verdict, status, replay}]` in order (`verdict` is null for skipped
 * and errored answers).
 */
export function runCases(judge, makeImpl, list) {
  const out = [];
  let shared = null;
  const one = (impl, c) => {
    const actual = answer(impl, c);
    const verdict = actual.outcome === 'skipped' || actual.outcome === 'errored' ? null : judge(c, actual);
    return { case: c, actual, verdict, status: statusOf(actual, verdict ?? {}), replay: false };
  };
  let i = 0;
  while (i < list.length) {
    const c = list[i];
    if (!c.stateful) {
      shared ??= makeImpl();
      out.push(one(shared, c));
      i++;
      continue;
    }
    let end = i;
    while (end < list.length && list[end].stateful && list[end].file === c.file) end++;
    const group = list.slice(i, end);
    const firstImpl = makeImpl();
    const first = group.map((x) => one(firstImpl, x));
    const replayImpl = makeImpl();
    const replay = group.map((x) => one(replayImpl, x));
    shared = null; // the next case gets a fresh instance too, as in `run`
    first.forEach((r, k) => {
      out.push(!holds(r.status) || holds(replay[k].status) ? r : { ...replay[k], replay: true });
    });
    i = end;
  }
  return out;
}
