// The judge's number rule (spec/adapter-protocol.md, "Numbers"), pinned by the cases of
// spec/data/number-equality.json (shipped in data/spec/data/): the Rust judge
// (vectors/tests/number_rule.rs) and the Python judge run the same cases. Each JSON text is
// parsed as the judge parses an adapter's reply and an expectation (parseJson: integers beyond
// 2^53 kept exactly as BigInt).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { jsonEqual, parseJson } from 'delegateos-vectors';

const pkg = dirname(createRequire(import.meta.url).resolve('delegateos-vectors/package.json'));
const { cases } = JSON.parse(readFileSync(join(pkg, 'data', 'spec', 'data', 'number-equality.json'), 'utf8'));

test('the number rule holds on every case of spec/data/number-equality.json', () => {
  assert.ok(cases.length >= 15);
  const wrong = [];
  for (const c of cases) {
    const a = parseJson(c.a);
    const b = parseJson(c.b);
    for (const [x, y, tx, ty] of [[a, b, c.a, c.b], [b, a, c.b, c.a]]) {
      if (jsonEqual(x, y) !== c.equal) wrong.push(`${tx} vs ${ty}: expected equal=${c.equal} (${c.why})`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('JSON.parse would lose the rule: 2^53 and 2^53+1 are one Number', () => {
  assert.equal(JSON.parse('9007199254740993'), JSON.parse('9007199254740992'));
  assert.equal(jsonEqual(parseJson('9007199254740993'), parseJson('9007199254740992')), false);
});
