// Options (spec/adapter-protocol.md §2.1) and `threw` (§2.2), in-process as `delegateos-conform run`
// treats an adapter's hello.options and threw replies: a case that needs an option the
// implementation did not declare is skipped with "needs option X" (never a finding); a thrown
// exception is `threw`, status errored, graded as a crash on the input by the case's stake.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPTIONS, answer, cases, error, fails, runCorpus } from 'delegateos-vectors';

const OPTION_CASES = {
  'mcp-call-0004': ['per-tool-spend'],
  'mcp-call-0011': ['strict-mode'],
  'mcp-call-0021': ['strict-mode'],
  'mcp-call-0022': ['strict-mode'],
  'mcp-call-0023': ['strict-mode'],
  'mcp-call-0024': ['strict-mode'],
  'mcp-call-0025': ['strict-mode'],
  'mcp-session-0013': ['strict-mode'],
};

test('OPTIONS are exactly the options the corpus cases need', () => {
  const needed = Object.fromEntries(cases().filter((c) => c.options?.length).map((c) => [c.id, c.options]));
  assert.deepEqual(needed, OPTION_CASES);
  assert.deepEqual([...OPTIONS].sort(), [...new Set(Object.values(needed).flat())].sort());
});

// Every MCP answer is wrong, so a case that runs fails: what is skipped is what never ran.
const wrong = () => ({ 'mcp.call': () => error('internal'), 'mcp.session': () => error('internal') });
const mcp = () => cases({ area: 'mcp' }).filter((c) => c.op === 'mcp.call' || c.op === 'mcp.session');

test('a case needing an undeclared option is skipped, never a finding', () => {
  const results = runCorpus(wrong, mcp(), { quiet: true });
  const skipped = results.filter((r) => r.status === 'skipped');
  assert.deepEqual(skipped.map((r) => r.case.id).sort(), Object.keys(OPTION_CASES));
  for (const r of skipped) {
    assert.equal(r.actual.reason, `needs option ${OPTION_CASES[r.case.id][0]} (not in the implementation's options)`);
    assert.equal(fails(r.case, r, { failOnHardening: true }), false);
  }
  // Declared, they run (and fail, as every answer here is wrong); one declared, the other still skipped.
  const all = runCorpus(wrong, mcp(), { quiet: true, options: OPTIONS });
  assert.equal(all.filter((r) => r.status === 'skipped').length, 0);
  const strict = runCorpus(wrong, mcp(), { quiet: true, options: ['strict-mode'] });
  assert.deepEqual(strict.filter((r) => r.status === 'skipped').map((r) => r.case.id), ['mcp-call-0004']);
  // answer() alone applies the same rule.
  const c = mcp().find((x) => x.id === 'mcp-call-0021');
  assert.equal(answer(wrong(), c).outcome, 'skipped');
  assert.equal(answer(wrong(), c, { options: ['strict-mode'] }).outcome, 'error');
});

test('an unknown option name throws', () => {
  assert.throws(() => runCorpus(wrong, mcp(), { quiet: true, options: ['strict'] }), /unknown option\(s\) strict .*strict-mode, per-tool-spend/);
});

test('a thrown exception is threw: errored, a crash on the input graded by its stake', () => {
  const globs = cases({ op: 'glob.match' });
  const hardening = globs.find((c) => c.level === 'hardening' && c.stake.crashOrHang === 'crash-or-hang');
  assert.ok(hardening, 'a hardening glob.match case');
  const throws = () => ({
    'glob.match'(input) {
      return input.pattern.split.no.such(); // TypeError
    },
  });
  const [r] = runCorpus(throws, [hardening], { quiet: true });
  assert.equal(r.actual.outcome, 'threw');
  assert.match(r.actual.message, /TypeError/);
  assert.equal(r.status, 'errored');
  assert.equal(r.verdict, null);
  assert.equal(fails(hardening, r), true, 'a crash on untrusted input counts at every level');
  assert.equal(fails(hardening, r, { levelsOnly: true }), false);
  // A medium-staked crash (issuer-pattern-hang) on a hardening case does not count by default.
  assert.equal(fails({ ...hardening, stake: { ...hardening.stake, crashOrHang: 'issuer-pattern-hang' } }, r), false);
  // The adapter's own failure (errored) is not graded by the input.
  const [e] = runCorpus(() => ({ 'glob.match': () => ({ outcome: 'errored', message: 'adapter bug' }) }), [hardening], { quiet: true });
  assert.equal(e.status, 'errored');
  assert.equal(fails(hardening, e), false);
});
