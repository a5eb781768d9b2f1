// Unit tests of the port (mirroring vectors/src/judge.rs's tests); harness/tests/judge_parity.rs
// holds it to the Rust judge on recorded outcomes of the whole corpus.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { caseById, cases, corpusVersion, digest, error, judge, judgeExpectation, jsonEqual, ok, parseJson, verifyDigest } from 'delegateos-vectors';

const valid = (output) => ({ result: 'valid', output });
const invalid = (code, stage) => ({ result: 'invalid', code, stage });

test('valid ignores extra keys and compares numbers as numbers', () => {
  const e = valid({ passed: true, score: 1 });
  assert.deepEqual(judgeExpectation(e, ok({ passed: true, score: 1.0, details: 'x' })), { verdict: 'passed' });
  assert.equal(judgeExpectation(e, ok({ passed: true, score: 1 + 1e-10 })).verdict, 'passed');
  assert.equal(judgeExpectation(e, ok({ passed: true })).kind, 'output_mismatch');
  assert.equal(judgeExpectation(e, error('x')).kind, 'rejected_valid');
});

test('invalid compares the code only; acceptable tells the reference reading apart', () => {
  assert.equal(judgeExpectation(invalid('revoked', '10.1/2'), error('revoked', 'whatever')).verdict, 'passed');
  assert.equal(judgeExpectation(invalid('revoked'), error('expired')).kind, 'wrong_code');
  assert.equal(judgeExpectation(invalid('revoked'), ok({})).kind, 'accepted_invalid');
  const acc = { result: 'acceptable', decision: 'D2', outcomes: [valid({ matches: true }), valid({ matches: false })] };
  assert.deepEqual(judgeExpectation(acc, ok({ matches: false })), { verdict: 'acceptable', matched: 1 });
  assert.equal(judgeExpectation(valid({}), { outcome: 'skipped', reason: 'n/a' }).kind, 'no_answer');
});

test('integers beyond 2^53 are compared exactly, as serde_json does', () => {
  const big = parseJson('{"n": 9007199254740993, "m": 9007199254740992}');
  assert.equal(typeof big.n, 'bigint');
  assert.equal(jsonEqual(big.n, big.m), false);
  assert.equal(jsonEqual(parseJson('9007199254740993.0'), big.n), true); // a float compares as f64
  assert.equal(jsonEqual(1, true), false);
  assert.equal(jsonEqual({ a: [1, { b: null }] }, { a: [1.0, { b: null }] }), true);
});

test('code families: another code of the family is other_code, outside its scope failed', () => {
  const chain = cases({ op: 'chain.verify' }).find((c) => c.expect.result === 'invalid' && c.expect.code === 'from_mismatch');
  assert.ok(chain, 'a chain.verify case expecting from_mismatch');
  const v = judge(chain, error('root_invalid'));
  assert.equal(v.verdict, chain.expect.stage?.startsWith('8.') ? 'other_code' : 'failed');
  const revoked = cases({ op: 'dct.verify' }).find((c) => c.expect.result === 'invalid' && c.expect.code === 'revoked');
  assert.equal(judge(revoked, error('expired')).kind, 'wrong_code');
});

test('corpus: version, digest over the shipped files, filters', () => {
  assert.match(corpusVersion, /^\d+\.\d+\.\d+/);
  assert.match(digest, /^[0-9a-f]{64}$/);
  assert.equal(verifyDigest(), true);
  const glob = cases({ area: 'glob', level: 'normative' });
  assert.ok(glob.length > 0 && glob.every((c) => c.area === 'glob' && c.level === 'normative'));
  assert.ok(cases().every((c) => !c.advisory));
  assert.ok(cases({ advisory: true }).some((c) => c.advisory));
  assert.equal(caseById(glob[0].id).id, glob[0].id);
});
