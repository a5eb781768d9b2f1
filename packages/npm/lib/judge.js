// The comparison rule of spec/adapter-protocol.md, ported line by line from the Rust judge
// (vectors/src/judge.rs: judge_case, judge, satisfies, output_matches, output_matches_with,
// json_equal, failure_kind). harness/tests/judge_parity.rs holds this port to the Rust verdict
// on recorded (case, actual) pairs.

import { familyFor } from './families.js';

/** Absolute tolerance for comparing non-integer numbers (scores, decision D12). */
export const FLOAT_TOLERANCE = 1e-9;

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

const isNumber = (x) => typeof x === 'number' || typeof x === 'bigint';
const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// serde_json's integer view of a number: a BigInt when the number is an integer literal that
// serde_json keeps as i64/u64, else null (it is compared as f64).
function asInt(x) {
  if (typeof x === 'bigint') return x;
  return Number.isSafeInteger(x) ? BigInt(x) : null;
}

/**
 * JSON equality where numbers compare as numbers: integers exactly, other numbers within
 * FLOAT_TOLERANCE; objects by keys regardless of order; arrays element-wise.
 */
export function jsonEqual(a, b) {
  if (isNumber(a) && isNumber(b)) {
    const x = asInt(a);
    const y = asInt(b);
    if (x !== null && y !== null) {
      const bothI64 = x >= I64_MIN && x <= I64_MAX && y >= I64_MIN && y <= I64_MAX;
      const bothU64 = x >= 0n && x <= U64_MAX && y >= 0n && y <= U64_MAX;
      if (bothI64 || bothU64) return x === y;
    }
    return Math.abs(Number(a) - Number(b)) <= FLOAT_TOLERANCE;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => has(b, k) && jsonEqual(a[k], b[k]));
  }
  if (isNumber(a) || isNumber(b) || Array.isArray(a) || Array.isArray(b) || isObject(a) || isObject(b)) {
    return false;
  }
  return a === b;
}

/** Every key of `expected` is present in `actual` with a jsonEqual value. */
function outputMatches(expected, actual) {
  if (isObject(expected) && isObject(actual)) {
    return Object.keys(expected).every((k) => has(actual, k) && jsonEqual(expected[k], actual[k]));
  }
  return jsonEqual(expected, actual);
}

/** outputMatches, where two strings that are both codes of `family` compare equal. */
function outputMatchesWith(expected, actual, family) {
  const eq = (a, b) => {
    if (typeof a === 'string' && typeof b === 'string') {
      return a === b || (family.includes(a) && family.includes(b));
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      return a.length === b.length && a.every((v, i) => eq(v, b[i]));
    }
    if (isObject(a) && isObject(b)) {
      const ka = Object.keys(a);
      return ka.length === Object.keys(b).length && ka.every((k) => has(b, k) && eq(a[k], b[k]));
    }
    return jsonEqual(a, b);
  };
  if (isObject(expected) && isObject(actual)) {
    return Object.keys(expected).every((k) => has(actual, k) && eq(expected[k], actual[k]));
  }
  return eq(expected, actual);
}

/** The outcomes an expectation allows: one for valid/invalid, the list for acceptable. */
export function outcomesOf(expect) {
  if (expect.result === 'acceptable') return expect.outcomes;
  return [expect];
}

function checkActual(actual) {
  const kinds = ['ok', 'error', 'skipped', 'errored', 'threw'];
  if (!isObject(actual) || !kinds.includes(actual.outcome)) {
    throw new TypeError(
      `actual must be {outcome: "ok", output} | {outcome: "error", code} | {outcome: "skipped"} | {outcome: "threw"} | {outcome: "errored"}, got ${String(
        actual && actual.outcome,
      )}`,
    );
  }
  if (actual.outcome === 'error' && typeof actual.code !== 'string') {
    throw new TypeError('an error outcome needs a string code');
  }
}

function satisfies(expected, actual) {
  if (expected.result === 'valid' && actual.outcome === 'ok') return outputMatches(expected.output, actual.output);
  if (expected.result === 'invalid' && actual.outcome === 'error') return expected.code === actual.code;
  return false;
}

function failureKind(outcomes, actual) {
  const anyValid = outcomes.some((o) => o.result === 'valid');
  const anyInvalid = outcomes.some((o) => o.result === 'invalid');
  switch (actual.outcome) {
    case 'ok':
      return anyValid ? 'output_mismatch' : 'accepted_invalid';
    case 'error':
      return anyInvalid ? 'wrong_code' : 'rejected_valid';
    default:
      return 'no_answer';
  }
}

/** Judges `actual` against an expectation only (no code families): Rust `judge`. */
export function judgeExpectation(expect, actual) {
  checkActual(actual);
  const outcomes = outcomesOf(expect);
  const matched = outcomes.findIndex((o) => satisfies(o, actual));
  if (matched === 0) return { verdict: 'passed' };
  if (matched > 0) return { verdict: 'acceptable', matched };
  return { verdict: 'failed', kind: failureKind(outcomes, actual), expected: expect, actual };
}

/**
 * Judges `actual` against the reference reading only (Rust `judge_reference`): for an
 * acceptable expectation only its first outcome passes. The corpus holds the reference to it.
 */
export function judgeReference(expect, actual) {
  if (expect.result === 'acceptable' && expect.outcomes.length > 0) return judgeExpectation(expect.outcomes[0], actual);
  return judgeExpectation(expect, actual);
}

/**
 * Judges `actual` for a case (Rust `judge_case`): `judgeExpectation`, except that a rejection
 * with another code of the expected code's family (spec/error-codes.md §11, within the
 * family's operations and stages) — or an output differing only in per-entry codes of one
 * family — is `other_code`.
 */
export function judgeCase(families, c, actual) {
  const verdict = judgeExpectation(c.expect, actual);
  if (verdict.verdict !== 'failed') return verdict;
  const outcomes = outcomesOf(c.expect);
  const flags = c.flags ?? [];
  if (verdict.kind === 'output_mismatch' && actual.outcome === 'ok') {
    for (const o of outcomes) {
      if (o.result !== 'valid') continue;
      for (const f of families) {
        if (f.ops.includes(c.op) && outputMatchesWith(o.output, actual.output, f.codes)) {
          return { verdict: 'other_code', family: f.name, expectedCode: '(in output)', actualCode: '(in output)' };
        }
      }
    }
    return verdict;
  }
  if (verdict.kind !== 'wrong_code' || actual.outcome !== 'error') return verdict;
  for (const o of outcomes) {
    if (o.result !== 'invalid') continue;
    const f = familyFor(families, c.op, o.stage ?? null, flags, o.code, actual.code);
    if (f) return { verdict: 'other_code', family: f.name, expectedCode: o.code, actualCode: actual.code };
  }
  return verdict;
}

/** True for passed and acceptable. */
export const isSuccess = (v) => v.verdict === 'passed' || v.verdict === 'acceptable';

/**
 * Whether a verdict (or a status name, or a result of `runCorpus`) fails a run as
 * `delegateos-conform run`'s exit code counts it: the exit rule of vectors/src/outcome.rs
 * `fails_run`, tabled in spec/data/exit-rule.json (shipped in data/spec/data/, and this function
 * is tested against every row). Failed or errored on a normative or decision case fails;
 * hardening findings (hardening-level cases, other_code) only with failOnHardening (implied by
 * strict); a critical failure fails whatever the case's level unless `levelsOnly` (`run
 * --fail-on levels`); advisory cases only with failOnAdvisory; passed, acceptable and skipped
 * never fail. `options.critical` says the failure's effect is critical; without the severity
 * model a result whose case timed out or whose implementation threw (a hang or a crash on the
 * input) counts as critical when the case's stake grades a crash or hang `crash-or-hang` (the
 * critical effect; `issuer-pattern-hang` is medium), as `run` grades them.
 */
export function fails(c, verdictOrStatus, options = {}) {
  const result = typeof verdictOrStatus === 'string' ? null : verdictOrStatus;
  const status = result === null ? verdictOrStatus : 'status' in result ? result.status : result.verdict;
  const finding = status === 'failed' || status === 'errored';
  if (c.advisory) return Boolean(options.failOnAdvisory) && finding;
  const crashed = Boolean(result && 'status' in result && (result.actual?.kind === 'timeout' || result.actual?.outcome === 'threw'));
  const critical = options.critical ?? (crashed && (c.stake?.crashOrHang ?? 'crash-or-hang') === 'crash-or-hang');
  const hardeningCounts = Boolean(options.failOnHardening || options.strict);
  if (finding) return c.level !== 'hardening' || hardeningCounts || (critical && !options.levelsOnly);
  if (status === 'other_code') return hardeningCounts;
  return false;
}
