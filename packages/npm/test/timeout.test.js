// The per-case time budget of runCorpus/answer (issue 38): an implementation that hangs on one
// case (a busy loop, a catastrophic regular expression) gets that case `errored` with kind
// `timeout` and a message naming it, the run goes on (on a fresh instance), a timeout fails
// whatever the case's level, and long runs report progress.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answer, caseById, cases, DEFAULT_TIMEOUT_MS, fails, ok, runCorpus } from 'delegateos-vectors';

const HOSTILE = 'glob-match-0084';

/** glob.match that busy-loops on one case's input and answers `false` on every other. */
function makeHanging(made) {
  const hostile = caseById(HOSTILE).input;
  return () => {
    made.count++;
    return {
      'glob.match'({ pattern, resource }) {
        if (pattern === hostile.pattern && resource === hostile.resource) for (;;);
        return ok({ matches: false });
      },
    };
  };
}

test('a busy loop on one case is cut at the budget and names the case', () => {
  const list = cases({ op: 'glob.match' }).slice(0, 5).concat([caseById(HOSTILE)], cases({ op: 'glob.match' }).slice(5, 10));
  const made = { count: 0 };
  const started = Date.now();
  const results = runCorpus(makeHanging(made), list, { timeoutMs: 300, quiet: true });
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 5000, `finished in ${elapsed} ms`);
  assert.equal(results.length, list.length);
  const hung = results.find((r) => r.case.id === HOSTILE);
  assert.equal(hung.status, 'errored');
  assert.equal(hung.verdict, null);
  assert.equal(hung.actual.kind, 'timeout');
  assert.equal(hung.actual.message, `${HOSTILE}: no answer within 0.3 s — a hang on hostile input (crash-or-hang)`);
  // Every other case was answered, the ones after the hang on a fresh instance (as `run` restarts).
  assert.ok(results.filter((r) => r !== hung).every((r) => r.actual.outcome === 'ok'));
  assert.equal(made.count, 2);
  // A hang fails the run whatever the level (glob-match-0084 is a hardening case), as in `run`.
  assert.equal(hung.case.level, 'hardening');
  assert.equal(fails(hung.case, hung), true);
  assert.equal(fails(hung.case, hung, { levelsOnly: true }), false);
  assert.equal(fails(hung.case, hung.status), false); // a bare status cannot tell a hang
});

test('a catastrophic regular expression (a regex-translation glob) is cut too', () => {
  // The first-hour report of issue 38: `**` → `.*`, `*` → `[^/]*`, matched with one RegExp.
  const regexGlob = {
    'glob.match'({ pattern, resource }) {
      const src = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*|\*/g, (m) => (m === '**' ? '.*' : '[^/]*'));
      return ok({ matches: new RegExp(`^${src}$`).test(resource) });
    },
  };
  const list = ['glob-match-0083', 'glob-match-0084', 'glob-match-0001'].map(caseById);
  const started = Date.now();
  const results = runCorpus(() => regexGlob, list, { timeoutMs: 500, quiet: true });
  assert.ok(Date.now() - started < 6000);
  const timedOut = results.filter((r) => r.actual.kind === 'timeout').map((r) => r.case.id);
  assert.ok(timedOut.includes('glob-match-0083') || timedOut.includes('glob-match-0084'), `timed out: ${timedOut}`);
  for (const r of results.filter((x) => x.actual.kind === 'timeout')) {
    assert.match(r.actual.message, new RegExp(`^${r.case.id}: no answer within 0.5 s — a hang on hostile input`));
  }
  assert.notEqual(results[2].status, 'errored');
});

test('a hang in a stateful group is cut, and the group goes on', () => {
  const group = cases().filter((c) => c.stateful);
  assert.ok(group.length > 0);
  const first = group[0];
  const list = group.filter((c) => c.file === first.file);
  const impl = () =>
    new Proxy({}, {
      get: (_, op) => (input) => {
        if (op === first.op && JSON.stringify(input) === JSON.stringify(first.input)) for (;;);
        return { outcome: 'errored', message: 'not really implemented' };
      },
    });
  const results = runCorpus(impl, list, { timeoutMs: 200, quiet: true });
  assert.equal(results.length, list.length);
  assert.equal(results[0].actual.kind, 'timeout');
  assert.match(results[0].actual.message, new RegExp(`^${first.id}: no answer within 0.2 s — a hang`));
  assert.equal(fails(first, results[0]), !first.advisory);
});

test('the budget: an option, DELEGATEOS_TIMEOUT_MS, 10 s by default, 0 for none', () => {
  const c = caseById('glob-match-0001');
  const slow = { 'glob.match'() { const t = Date.now(); while (Date.now() - t < 150); return ok({ matches: true }); } };
  assert.equal(DEFAULT_TIMEOUT_MS, 10_000);
  const saved = process.env.DELEGATEOS_TIMEOUT_MS;
  try {
    process.env.DELEGATEOS_TIMEOUT_MS = '50';
    assert.equal(answer(slow, c).kind, 'timeout');
    assert.equal(answer(slow, c, { timeoutMs: 0 }).outcome, 'ok'); // the option wins; 0 = no budget
    process.env.DELEGATEOS_TIMEOUT_MS = '0';
    assert.equal(answer(slow, c).outcome, 'ok');
    process.env.DELEGATEOS_TIMEOUT_MS = 'ten';
    assert.throws(() => answer(slow, c), /DELEGATEOS_TIMEOUT_MS must be a number of milliseconds/);
    delete process.env.DELEGATEOS_TIMEOUT_MS;
    assert.equal(answer(slow, c).outcome, 'ok');
    assert.throws(() => runCorpus(slow, [c], { timeoutMs: -1 }), /timeoutMs must be/);
  } finally {
    if (saved === undefined) delete process.env.DELEGATEOS_TIMEOUT_MS;
    else process.env.DELEGATEOS_TIMEOUT_MS = saved;
  }
  // Exceptions are `threw` (the implementation threw on the input), not timeouts.
  const a = answer({ 'glob.match'() { throw new Error('boom'); } }, c, { timeoutMs: 1000 });
  assert.equal(a.outcome, 'threw');
  assert.equal(a.kind, undefined);
  assert.match(a.message, /boom/);
});

test('progress lines on long runs, none when quiet', () => {
  const list = [caseById(HOSTILE), ...cases({ op: 'glob.match' }).slice(0, 3)];
  const lines = [];
  runCorpus(makeHanging({ count: 0 }), list, { timeoutMs: 100, progress: (l) => lines.push(l), progressEveryMs: 50 });
  assert.ok(lines.length >= 1, 'a progress line after the slow case');
  assert.match(lines[0], new RegExp(`^delegateos-vectors: 1/4 cases in \\d+ s, 1 failed or errored, 1 timed out \\(last: ${HOSTILE}\\)$`));
  const quiet = [];
  runCorpus(makeHanging({ count: 0 }), list, { timeoutMs: 100, progress: (l) => quiet.push(l), progressEveryMs: 50, quiet: true });
  assert.deepEqual(quiet, []);
});
