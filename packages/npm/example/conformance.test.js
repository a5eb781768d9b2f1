// The node:test example: the whole corpus in-process against example/tiny-impl.js, one test per
// case. Cases of ops the implementation lacks are skipped; a failing case fails its test
// unless it is a hardening finding, which `delegateos-conform run` does not count by default
// (DELEGATEOS_FAIL_ON=hardening counts it). A case with no answer within the budget (10 s;
// DELEGATEOS_TIMEOUT_MS) is a hang and fails whatever its level, as in `run`
// (DELEGATEOS_FAIL_ON=levels relaxes that). DELEGATEOS_VERDICTS_OUT=FILE writes
// {case id: status} for packages/ci.sh.
//
//   node --test example/

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { cases, fails, runCorpus } from 'delegateos-vectors';
import { makeTinyImpl } from './tiny-impl.js';

const failOn = process.env.DELEGATEOS_FAIL_ON ?? '';
const options = { failOnHardening: failOn.includes('hardening'), levelsOnly: failOn.includes('levels') };
const results = runCorpus(makeTinyImpl, cases());

if (process.env.DELEGATEOS_VERDICTS_OUT) {
  const statuses = Object.fromEntries(results.map((r) => [r.case.id, r.status]).sort(([a], [b]) => (a < b ? -1 : 1)));
  writeFileSync(process.env.DELEGATEOS_VERDICTS_OUT, `${JSON.stringify(statuses, null, 1)}\n`);
}

for (const r of results) {
  const c = r.case;
  const skip = r.status === 'skipped' ? r.actual.reason : false;
  const todo = !skip && r.status !== 'passed' && r.status !== 'acceptable' && !fails(c, r, options)
    ? `hardening finding (${r.status}), not counted by default`
    : false;
  test(`${c.id} [${c.level}] ${c.op}`, { skip, todo }, () => {
    assert.ok(
      r.status === 'passed' || r.status === 'acceptable',
      `${r.actual.kind === 'timeout' ? `${r.actual.message}\n` : ''}` +
        `${r.status}${r.verdict?.kind ? ` (${r.verdict.kind})` : ''}: ${c.description}\n` +
        `expected ${JSON.stringify(c.expect)}\nactual   ${JSON.stringify(r.actual, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
    );
  });
}
