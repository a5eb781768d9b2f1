// The exit rule (vectors/src/outcome.rs fails_run), tabled in spec/data/exit-rule.json (shipped in
// data/spec/data/): `fails` must give every row's answer. The Python package runs the same rows.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fails } from 'delegateos-vectors';

const pkg = dirname(createRequire(import.meta.url).resolve('delegateos-vectors/package.json'));
const { cases } = JSON.parse(readFileSync(join(pkg, 'data', 'spec', 'data', 'exit-rule.json'), 'utf8'));

test('fails gives the answer of every row of spec/data/exit-rule.json', () => {
  assert.equal(cases.length, 576);
  const wrong = [];
  for (const r of cases) {
    const got = fails({ level: r.level, advisory: r.advisory }, r.status, {
      critical: r.critical,
      failOnHardening: r.failOnHardening,
      failOnAdvisory: r.failOnAdvisory,
      levelsOnly: r.levelsOnly,
    });
    if (got !== r.fails) wrong.push(JSON.stringify(r));
  }
  assert.deepEqual(wrong, []);
});

test('a timed-out result counts as critical when the caller does not say', () => {
  const hardening = { level: 'hardening', advisory: false };
  const hang = { status: 'errored', actual: { kind: 'timeout' } };
  assert.equal(fails(hardening, hang), true);
  assert.equal(fails(hardening, hang, { levelsOnly: true }), false);
  assert.equal(fails(hardening, { status: 'errored', actual: { kind: 'crash' } }), false);
});
