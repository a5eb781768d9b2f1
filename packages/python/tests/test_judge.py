"""Unit tests of the port (mirroring vectors/src/judge.rs's tests); harness/tests/judge_parity.rs
holds it to the Rust judge on recorded outcomes of the whole corpus."""

import delegateos_vectors as dv
from delegateos_vectors import error, judge, judge_expectation, json_equal, ok


def valid(output):
    return {"result": "valid", "output": output}


def invalid(code, stage=None):
    e = {"result": "invalid", "code": code}
    if stage:
        e["stage"] = stage
    return e


def test_valid_ignores_extra_keys_and_compares_numbers_as_numbers():
    e = valid({"passed": True, "score": 1})
    assert judge_expectation(e, ok({"passed": True, "score": 1.0, "details": "x"})) == {"verdict": "passed"}
    assert judge_expectation(e, ok({"passed": True, "score": 1 + 1e-10}))["verdict"] == "passed"
    assert judge_expectation(e, ok({"passed": True}))["kind"] == "output_mismatch"
    assert judge_expectation(e, error("x"))["kind"] == "rejected_valid"


def test_invalid_and_acceptable():
    assert judge_expectation(invalid("revoked", "10.1/2"), error("revoked", "whatever"))["verdict"] == "passed"
    assert judge_expectation(invalid("revoked"), error("expired"))["kind"] == "wrong_code"
    assert judge_expectation(invalid("revoked"), ok({}))["kind"] == "accepted_invalid"
    acc = {"result": "acceptable", "decision": "D2", "outcomes": [valid({"matches": True}), valid({"matches": False})]}
    assert judge_expectation(acc, ok({"matches": False})) == {"verdict": "acceptable", "matched": 1}
    assert judge_expectation(valid({}), {"outcome": "skipped", "reason": "n/a"})["kind"] == "no_answer"


def test_bool_is_not_a_number_and_integers_are_exact():
    assert not json_equal(1, True)
    assert not json_equal(0, False)
    assert not json_equal(9007199254740993, 9007199254740992)
    assert json_equal(9007199254740993.0, 9007199254740993)  # a float compares as f64
    assert json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]})


def test_code_families():
    revoked = next(c for c in dv.cases(op="dct.verify") if c["expect"] == {**c["expect"], "result": "invalid", "code": "revoked"})
    assert judge(revoked, error("expired"))["kind"] == "wrong_code"
    chain = next(
        c for c in dv.cases(op="chain.verify")
        if c["expect"]["result"] == "invalid" and c["expect"]["code"] == "from_mismatch"
    )
    v = judge(chain, error("root_invalid"))
    assert v["verdict"] == ("other_code" if chain["expect"].get("stage", "").startswith("8.") else "failed")


def test_corpus():
    assert dv.verify_digest()
    assert len(dv.DIGEST) == 64
    sel = dv.cases(area="glob", level="normative")
    assert sel and all(c["area"] == "glob" and c["level"] == "normative" for c in sel)
    assert not any(c["advisory"] for c in dv.cases())
    assert any(c["advisory"] for c in dv.cases(advisory=True))
