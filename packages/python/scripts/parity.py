#!/usr/bin/env python3
"""Judge-parity driver for harness/tests/judge_parity.rs: reads JSONL lines
{source, case_id, actual, rust} and prints, for each, this package's verdicts (judge and judge_reference) on
the same (case, actual) as one JSONL line {case, reference} after a header line {corpusVersion, digest, families}. Run with the
package importable (PYTHONPATH=packages/python/src after scripts/stage_corpus.py).

DELEGATEOS_PARITY_MUTANT=no-families|acceptable-is-passed breaks the judge on purpose."""

import json
import os
import sys

import delegateos_vectors as dv
from delegateos_vectors._judge import judge_case, judge_reference



def verdict_json(v):
    r = {"verdict": v["verdict"]}
    if v["verdict"] == "acceptable":
        r["matched"] = v["matched"]
    if v["verdict"] == "other_code":
        r.update(family=v["family"], expected_code=v["expected_code"], actual_code=v["actual_code"])
    if v["verdict"] == "failed":
        r["kind"] = v["kind"]
    return r


mutant = os.environ.get("DELEGATEOS_PARITY_MUTANT", "")
families = [
    {"name": f.name, "codes": f.codes, "ops": f.ops, "stages": f.stages, "only_flag": f.only_flag}
    for f in dv.code_families()
]
out = [json.dumps({"corpusVersion": dv.CORPUS_VERSION, "digest": dv.DIGEST, "families": families})]
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        if not line.strip():
            continue
        pair = json.loads(line)
        c = dv.case_by_id(pair["case_id"])
        if c is None:
            raise SystemExit(f"unknown case {pair['case_id']}")
        v = judge_case([], c, pair["actual"]) if mutant == "no-families" else dv.judge(c, pair["actual"])
        if mutant == "acceptable-is-passed" and v["verdict"] == "acceptable":
            v = {"verdict": "passed"}
        out.append(json.dumps({"case": verdict_json(v), "reference": verdict_json(judge_reference(c["expect"], pair["actual"]))}))
sys.stdout.write("\n".join(out) + "\n")
