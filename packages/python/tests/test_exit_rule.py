"""The exit rule (vectors/src/outcome.rs fails_run), tabled in spec/data/exit-rule.json (shipped
in data/spec/data/): ``fails`` must give every row's answer. The npm package runs the same rows."""

import json

import delegateos_vectors as dv
from delegateos_vectors import fails


def test_fails_gives_the_answer_of_every_row_of_the_data_file():
    cases = json.loads((dv.DATA / "spec" / "data" / "exit-rule.json").read_text("utf-8"))["cases"]
    assert len(cases) == 576
    wrong = [
        r
        for r in cases
        if fails(
            {"level": r["level"], "advisory": r["advisory"]},
            r["status"],
            critical=r["critical"],
            fail_on_hardening=r["failOnHardening"],
            fail_on_advisory=r["failOnAdvisory"],
            levels_only=r["levelsOnly"],
        )
        != r["fails"]
    ]
    assert wrong == []


def test_a_timed_out_result_counts_as_critical_when_the_caller_does_not_say():
    hardening = {"level": "hardening", "advisory": False}
    hang = {"status": "errored", "actual": {"kind": "timeout"}}
    assert fails(hardening, hang)
    assert not fails(hardening, hang, levels_only=True)
    assert not fails(hardening, {"status": "errored", "actual": {"kind": "crash"}})
