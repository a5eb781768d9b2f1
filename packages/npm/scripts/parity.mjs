#!/usr/bin/env node
// Judge-parity driver for harness/tests/judge_parity.rs: reads JSONL lines
// {source, case_id, actual, rust} and prints, for each, this package's verdicts on the same
// (case, actual) as one JSONL line {case, reference} (judge and judgeReference; each
// {verdict, matched?, family?, expected_code?, actual_code?, kind?}) after a header line {corpusVersion, digest, families}. The Rust test compares.
//
// DELEGATEOS_PARITY_MUTANT=no-families|acceptable-is-passed breaks the judge on purpose, so the
// parity test can show that it catches a wrong judge.

import { readFileSync } from 'node:fs';
import { caseById, codeFamilies, corpusVersion, digest, judge, parseJson } from '../lib/index.js';
import { judgeCase, judgeReference } from '../lib/judge.js';

const mutant = process.env.DELEGATEOS_PARITY_MUTANT ?? '';
const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l.trim() !== '');
const families = codeFamilies().map((f) => ({ name: f.name, codes: f.codes, ops: f.ops, stages: f.stages, only_flag: f.onlyFlag }));
const out = [JSON.stringify({ corpusVersion, digest, families })];
for (const line of lines) {
  const pair = parseJson(line);
  const c = caseById(pair.case_id);
  if (!c) throw new Error(`unknown case ${pair.case_id}`);
  const verdictJson = (v) => {
    const r = { verdict: v.verdict };
    if (v.verdict === 'acceptable') r.matched = v.matched;
    if (v.verdict === 'other_code') Object.assign(r, { family: v.family, expected_code: v.expectedCode, actual_code: v.actualCode });
    if (v.verdict === 'failed') r.kind = v.kind;
    return r;
  };
  let v = mutant === 'no-families' ? judgeCase([], c, pair.actual) : judge(c, pair.actual);
  if (mutant === 'acceptable-is-passed' && v.verdict === 'acceptable') v = { verdict: 'passed' };
  out.push(JSON.stringify({ case: verdictJson(v), reference: verdictJson(judgeReference(c.expect, pair.actual)) }));
}
process.stdout.write(`${out.join('\n')}\n`);
