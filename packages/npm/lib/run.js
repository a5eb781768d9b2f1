// Running cases in-process: call an implementation's function for a case's op, judge the
// answer, and run stateful groups as `delegateos-conform run` does (file order on a fresh
// instance, then a replay on another; a case holds only if it holds both times).
//
// Every call runs under a time budget (default 10 s; `timeoutMs`, or DELEGATEOS_TIMEOUT_MS):
// the call is made through `node:vm` with a `timeout`, whose watchdog thread terminates the
// JavaScript running on this thread when the budget runs out — a busy loop or a catastrophic
// regular expression included — so an implementation that hangs on a hostile case gets
// `errored` (kind `timeout`) naming the case, instead of hanging the run for ever. As in `run`
// (which restarts the adapter after a timeout), the next case gets a fresh instance.

import vm from 'node:vm';

const KINDS = new Set(['ok', 'error', 'skipped', 'errored', 'threw']);

/**
 * The options (spec/adapter-protocol.md §2.1, the names of `hello.options`): behaviours the
 * corpus tests beyond the text's required ones. A case lists those it needs (`c.options`); an
 * implementation declares those it has (`options.options` of `runCorpus` / `answer`), and a case
 * needing another is `skipped` with "needs option X", never a finding.
 */
export const OPTIONS = Object.freeze(['strict-mode', 'per-tool-spend']);

/** The declared options (`options.options`), checked: an unknown name throws a TypeError. */
export function declaredOptions(options = {}) {
  const declared = options.options ?? [];
  if (!Array.isArray(declared)) {
    throw new TypeError(`delegateos-vectors: options.options must be an array of option names, got ${JSON.stringify(declared)}`);
  }
  const unknown = declared.filter((o) => !OPTIONS.includes(o));
  if (unknown.length) {
    throw new TypeError(
      `delegateos-vectors: unknown option(s) ${unknown.join(', ')} in options.options (the options are: ${OPTIONS.join(', ')})`,
    );
  }
  return declared;
}

/** The `skipped` answer of a case that needs options the implementation did not declare, or null. */
export function optionsSkip(c, declared) {
  const missing = (c.options ?? []).filter((o) => !declared.includes(o));
  return missing.length
    ? { outcome: 'skipped', reason: `needs option ${missing.join(', ')} (not in the implementation's options)` }
    : null;
}

/** The default per-case budget in milliseconds (DELEGATEOS_TIMEOUT_MS overrides it). */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Progress lines go to stderr at most this often on long runs. */
const PROGRESS_EVERY_MS = 5_000;

const truthy = (v) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/** The per-case budget in ms: `options.timeoutMs`, else DELEGATEOS_TIMEOUT_MS, else 10 s; 0 = none. */
export function timeoutFrom(options = {}) {
  let t = options.timeoutMs;
  let from = 'timeoutMs';
  if (t === undefined || t === null) {
    const env = process.env.DELEGATEOS_TIMEOUT_MS;
    if (env === undefined || env.trim() === '') return DEFAULT_TIMEOUT_MS;
    t = Number(env);
    from = 'DELEGATEOS_TIMEOUT_MS';
  }
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0) {
    throw new TypeError(`delegateos-vectors: ${from} must be a number of milliseconds ≥ 0 (0: no budget), got ${JSON.stringify(t)}`);
  }
  return Math.ceil(t);
}

/** "10 s", "1.5 s", "0.2 s". */
export function seconds(ms) {
  return `${Number((ms / 1000).toFixed(ms < 1000 ? 3 : 1))} s`;
}

/** The errored answer for a case that did not answer within `ms`. */
export function timeoutAnswer(c, ms) {
  const hostile = (c.flags ?? []).some((f) => /hostile/i.test(f)) ? ' on hostile input' : '';
  const effect = c.stake?.crashOrHang ?? 'crash-or-hang';
  return {
    outcome: 'errored',
    kind: 'timeout',
    message: `${c.id}: no answer within ${seconds(ms)} — a hang${hostile} (${effect})`,
  };
}

let sandbox = null;
const CALL = new vm.Script('__delegateos.fn.call(__delegateos.impl, __delegateos.input)', {
  filename: 'delegateos-vectors:budget',
});

/** Calls `fn.call(impl, input)`, terminated after `ms` (0: no budget). Throws `{timeout: true}` on timeout. */
function callWithin(fn, impl, input, ms) {
  if (!ms) return fn.call(impl, input);
  sandbox ??= vm.createContext({ __delegateos: null });
  sandbox.__delegateos = { fn, impl, input };
  try {
    return CALL.runInContext(sandbox, { timeout: ms });
  } catch (e) {
    if (e && e.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw TIMED_OUT;
    throw e;
  } finally {
    sandbox.__delegateos = null;
  }
}
const TIMED_OUT = Object.freeze({ timeout: true });

/**
 * What `impl` answers for case `c`: calls `impl[c.op](c.input)`, which must return
 * `{outcome: "ok", output}` or `{outcome: "error", code}` (or `skipped` / `threw` / `errored`). A
 * missing function is `skipped`, and so is a case needing an option not in `options.options`
 * ("needs option X"); a thrown exception is `threw` (the implementation threw on this input:
 * status `errored`, graded as a crash on the input, as `run` grades an adapter's `threw`); no
 * answer within the budget (`options.timeoutMs`, see `timeoutFrom`) is `errored` with
 * `kind: 'timeout'`.
 */
export function answer(impl, c, options = {}) {
  const fn = impl[c.op];
  if (typeof fn !== 'function') return { outcome: 'skipped', reason: `operation ${c.op} not implemented` };
  const skip = optionsSkip(c, declaredOptions(options));
  if (skip) return skip;
  const ms = timeoutFrom(options);
  let a;
  try {
    a = callWithin(fn, impl, c.input, ms);
  } catch (e) {
    if (e === TIMED_OUT) return timeoutAnswer(c, ms);
    return { outcome: 'threw', message: e && e.stack ? String(e.stack) : String(e) };
  }
  if (a === null || typeof a !== 'object' || !KINDS.has(a.outcome)) {
    return { outcome: 'errored', message: `returned ${JSON.stringify(a)}, not an outcome` };
  }
  if (a.outcome === 'error' && (typeof a.code !== 'string' || a.code === '')) {
    return { outcome: 'errored', message: 'an error outcome needs a non-empty code' };
  }
  return a;
}

/** Whether an answer is judged (ok, error) rather than reported as it is (skipped, threw, errored). */
export const unjudged = (actual) => actual.outcome === 'skipped' || actual.outcome === 'errored' || actual.outcome === 'threw';

/** The harness status of an answer and its verdict: passed, acceptable, failed, other_code, skipped, errored (threw too). */
export function statusOf(actual, verdict) {
  if (actual.outcome === 'skipped') return 'skipped';
  if (actual.outcome === 'errored' || actual.outcome === 'threw') return 'errored';
  return verdict.verdict;
}

const holds = (s) => s === 'passed' || s === 'acceptable' || s === 'other_code' || s === 'skipped';

/** Progress on stderr for long runs: a line every 5 s (none for runs shorter than that). */
function progressReporter(total, options) {
  const quiet = options.quiet ?? truthy(process.env.DELEGATEOS_QUIET);
  if (quiet) return () => {};
  const write = options.progress ?? ((line) => process.stderr.write(`${line}\n`));
  const every = options.progressEveryMs ?? PROGRESS_EVERY_MS;
  const start = Date.now();
  let next = start + every;
  return (done, c, counts) => {
    const now = Date.now();
    if (now < next) return;
    next = now + every;
    const failing = counts.failed + counts.errored;
    write(
      `delegateos-vectors: ${done}/${total} cases in ${Math.round((now - start) / 1000)} s` +
        (failing ? `, ${failing} failed or errored` : '') +
        (counts.timeouts ? `, ${counts.timeouts} timed out` : '') +
        ` (last: ${c.id})`,
    );
  };
}

/**
 * Runs `list` (from `cases()`) against implementations made by `makeImpl()` — a fresh instance
 * for the stateless cases (and after every stateful group or timeout), and two per stateful
 * group — and returns `[{case, actual, verdict, status, replay}]` in order (`verdict` is null
 * for skipped, threw and errored answers). `options`: `options` (the implementation's options,
 * the names of `hello.options`; a case needing another is skipped), `timeoutMs` (per case; default 10 s,
 * DELEGATEOS_TIMEOUT_MS; 0 = none), `quiet` (no progress lines; DELEGATEOS_QUIET=1),
 * `progress(line)` (where progress lines go; default stderr), `progressEveryMs` (default 5000).
 */
export function runCases(judge, makeImpl, list, options = {}) {
  const timeoutMs = timeoutFrom(options);
  const declared = declaredOptions(options);
  const progress = progressReporter(list.length, options);
  const counts = { failed: 0, errored: 0, timeouts: 0 };
  const out = [];
  let shared = null;
  const one = (impl, c) => {
    const actual = answer(impl, c, { timeoutMs, options: declared });
    const verdict = unjudged(actual) ? null : judge(c, actual);
    return { case: c, actual, verdict, status: statusOf(actual, verdict ?? {}), replay: false };
  };
  const timedOut = (r) => r.actual.kind === 'timeout';
  const done = (r) => {
    out.push(r);
    if (r.status === 'failed') counts.failed++;
    if (r.status === 'errored') counts.errored++;
    if (timedOut(r)) counts.timeouts++;
    progress(out.length, r.case, counts);
  };
  let i = 0;
  while (i < list.length) {
    const c = list[i];
    if (!c.stateful) {
      shared ??= makeImpl();
      const r = one(shared, c);
      if (timedOut(r)) shared = null; // as `run` restarts the adapter after a timeout
      done(r);
      i++;
      continue;
    }
    let end = i;
    while (end < list.length && list[end].stateful && list[end].file === c.file) end++;
    const group = list.slice(i, end);
    const runGroup = () => {
      let impl = makeImpl();
      return group.map((x) => {
        const r = one(impl, x);
        if (timedOut(r)) impl = makeImpl();
        return r;
      });
    };
    const first = runGroup();
    const replay = runGroup();
    shared = null; // the next case gets a fresh instance too, as in `run`
    first.forEach((r, k) => {
      done(!holds(r.status) || holds(replay[k].status) ? r : { ...replay[k], replay: true });
    });
    i = end;
  }
  return out;
}
