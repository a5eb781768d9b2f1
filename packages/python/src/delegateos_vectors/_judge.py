"""The comparison rule of spec/adapter-protocol.md, ported line by line from the Rust judge
(vectors/src/judge.rs: judge_case, judge, satisfies, output_matches, output_matches_with,
json_equal, failure_kind). harness/tests/judge_parity.rs holds this port to the Rust verdict on
recorded (case, actual) pairs."""

from __future__ import annotations

from typing import Any

from ._families import Family, family_for

#: Absolute tolerance for comparing non-integer numbers (scores, decision D12).
FLOAT_TOLERANCE = 1e-9

_I64 = (-(2**63), 2**63 - 1)
_U64 = (0, 2**64 - 1)


def _is_num(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _in(r: tuple[int, int], *xs: int) -> bool:
    return all(r[0] <= x <= r[1] for x in xs)


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality where numbers compare as numbers: integers exactly (within 64 bits, as
    serde_json keeps them), other numbers within FLOAT_TOLERANCE; objects by keys regardless of
    order; arrays element-wise."""
    if _is_num(a) and _is_num(b):
        if isinstance(a, int) and isinstance(b, int) and (_in(_I64, a, b) or _in(_U64, a, b)):
            return a == b
        try:
            return abs(float(a) - float(b)) <= FLOAT_TOLERANCE
        except OverflowError:
            return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(k in b and json_equal(v, b[k]) for k, v in a.items())
    for kind in (str, bool):
        if isinstance(a, kind) and isinstance(b, kind):
            return a == b
    return a is None and b is None


def _output_matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and json_equal(v, actual[k]) for k, v in expected.items())
    return json_equal(expected, actual)


def _output_matches_with(expected: Any, actual: Any, family: list[str]) -> bool:
    def eq(a: Any, b: Any) -> bool:
        if isinstance(a, str) and isinstance(b, str):
            return a == b or (a in family and b in family)
        if isinstance(a, list) and isinstance(b, list):
            return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))
        if isinstance(a, dict) and isinstance(b, dict):
            return len(a) == len(b) and all(k in b and eq(v, b[k]) for k, v in a.items())
        return json_equal(a, b)

    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and eq(v, actual[k]) for k, v in expected.items())
    return eq(expected, actual)


def outcomes_of(expect: dict) -> list[dict]:
    """The outcomes an expectation allows: one for valid/invalid, the list for acceptable."""
    return expect["outcomes"] if expect["result"] == "acceptable" else [expect]


_KINDS = ("ok", "error", "skipped", "errored", "threw")


def _check_actual(actual: Any) -> None:
    if not isinstance(actual, dict) or actual.get("outcome") not in _KINDS:
        raise TypeError(
            'actual must be {"outcome": "ok", "output": …} | {"outcome": "error", "code": …} | '
            '{"outcome": "skipped"} | {"outcome": "threw"} | {"outcome": "errored"}'
        )
    if actual["outcome"] == "error" and not isinstance(actual.get("code"), str):
        raise TypeError("an error outcome needs a string code")


def _satisfies(expected: dict, actual: dict) -> bool:
    if expected["result"] == "valid" and actual["outcome"] == "ok":
        return _output_matches(expected["output"], actual.get("output"))
    if expected["result"] == "invalid" and actual["outcome"] == "error":
        return expected["code"] == actual["code"]
    return False


def _failure_kind(outcomes: list[dict], actual: dict) -> str:
    any_valid = any(o["result"] == "valid" for o in outcomes)
    any_invalid = any(o["result"] == "invalid" for o in outcomes)
    if actual["outcome"] == "ok":
        return "output_mismatch" if any_valid else "accepted_invalid"
    if actual["outcome"] == "error":
        return "wrong_code" if any_invalid else "rejected_valid"
    return "no_answer"


def judge_expectation(expect: dict, actual: dict) -> dict:
    """Judges `actual` against an expectation only (no code families): the Rust `judge`."""
    _check_actual(actual)
    outcomes = outcomes_of(expect)
    for i, o in enumerate(outcomes):
        if _satisfies(o, actual):
            return {"verdict": "passed"} if i == 0 else {"verdict": "acceptable", "matched": i}
    return {
        "verdict": "failed",
        "kind": _failure_kind(outcomes, actual),
        "expected": expect,
        "actual": actual,
    }


def judge_reference(expect: dict, actual: dict) -> dict:
    """Judges ``actual`` against the reference reading only (the Rust ``judge_reference``): for
    an acceptable expectation only its first outcome passes."""
    if expect["result"] == "acceptable" and expect["outcomes"]:
        return judge_expectation(expect["outcomes"][0], actual)
    return judge_expectation(expect, actual)


def judge_case(families: list[Family], case: dict, actual: dict) -> dict:
    """The Rust `judge_case`: `judge_expectation`, except that a rejection with another code of
    the expected code's family (spec/error-codes.md §11, within the family's operations and
    stages), or an output differing only in per-entry codes of one family, is `other_code`."""
    verdict = judge_expectation(case["expect"], actual)
    if verdict["verdict"] != "failed":
        return verdict
    outcomes = outcomes_of(case["expect"])
    flags = case.get("flags", [])
    op = case["op"]
    if verdict["kind"] == "output_mismatch" and actual["outcome"] == "ok":
        for o in outcomes:
            if o["result"] != "valid":
                continue
            for f in families:
                if op in f.ops and _output_matches_with(o["output"], actual.get("output"), f.codes):
                    return {
                        "verdict": "other_code",
                        "family": f.name,
                        "expected_code": "(in output)",
                        "actual_code": "(in output)",
                    }
        return verdict
    if verdict["kind"] != "wrong_code" or actual["outcome"] != "error":
        return verdict
    for o in outcomes:
        if o["result"] != "invalid":
            continue
        f = family_for(families, op, o.get("stage"), flags, o["code"], actual["code"])
        if f is not None:
            return {
                "verdict": "other_code",
                "family": f.name,
                "expected_code": o["code"],
                "actual_code": actual["code"],
            }
    return verdict


def is_success(verdict: dict) -> bool:
    """True for passed and acceptable."""
    return verdict["verdict"] in ("passed", "acceptable")


def fails(
    case: dict,
    verdict_or_status: dict | str,
    *,
    fail_on_hardening: bool = False,
    strict: bool = False,
    levels_only: bool = False,
    fail_on_advisory: bool = False,
    critical: bool | None = None,
) -> bool:
    """Whether a verdict (or a status name, or a result of ``run_cases``) fails a run as
    `delegateos-conform run`'s exit code counts it: the exit rule of vectors/src/outcome.rs
    ``fails_run``, tabled in spec/data/exit-rule.json (shipped in data/spec/data/; this function
    is tested against every row). Failed or errored on a normative or decision case fails;
    hardening findings (hardening-level cases, other_code) only with fail_on_hardening (implied
    by strict); a critical failure fails whatever the case's level unless levels_only
    (``run --fail-on levels``); advisory cases only with fail_on_advisory; passed, acceptable
    and skipped never fail. ``critical`` says the failure's effect is critical; without the
    severity model a result whose case timed out or whose implementation threw (a hang or a
    crash on the input) counts as critical when the case's stake grades a crash or hang
    ``crash-or-hang`` (the critical effect; ``issuer-pattern-hang`` is medium), as ``run``
    grades them."""
    result = None if isinstance(verdict_or_status, str) else verdict_or_status
    if result is None:
        status = verdict_or_status
    elif "status" in result:
        status = result["status"]
    else:
        status = result["verdict"]
    finding = status in ("failed", "errored")
    if case.get("advisory"):
        return fail_on_advisory and finding
    if critical is None:
        actual = (result or {}).get("actual") or {}
        crashed = (
            result is not None
            and "status" in result
            and (actual.get("kind") == "timeout" or actual.get("outcome") == "threw")
        )
        critical = crashed and ((case.get("stake") or {}).get("crashOrHang", "crash-or-hang") == "crash-or-hang")
    counts = fail_on_hardening or strict
    if finding:
        return case["level"] != "hardening" or counts or (critical and not levels_only)
    if status == "other_code":
        return counts
    return False
