"""Options (spec/adapter-protocol.md §2.1) and ``threw`` (§2.2), in process as
``delegateos-conform run`` treats an adapter's ``hello.options`` and ``threw`` replies: a case that
needs an option the implementation does not declare is skipped with "needs option X" (never a
finding); an exception is ``threw``, status errored, graded as a crash on the input by the
case's stake."""

import pytest

import delegateos_vectors as dv

OPTION_CASES = {
    "mcp-call-0004": ["per-tool-spend"],
    "mcp-call-0011": ["strict-mode"],
    "mcp-call-0021": ["strict-mode"],
    "mcp-call-0022": ["strict-mode"],
    "mcp-call-0023": ["strict-mode"],
    "mcp-call-0024": ["strict-mode"],
    "mcp-call-0025": ["strict-mode"],
    "mcp-session-0013": ["strict-mode"],
}


def test_options_are_exactly_what_the_corpus_cases_need():
    needed = {c["id"]: c["options"] for c in dv.cases() if c.get("options")}
    assert needed == OPTION_CASES
    assert sorted(dv.OPTIONS) == sorted({o for os in needed.values() for o in os})


class Wrong:
    """Every MCP answer is wrong, so a case that runs fails: what is skipped never ran."""

    def mcp_call(self, input):
        return dv.error("internal")

    def mcp_session(self, input):
        return dv.error("internal")


class WrongStrict(Wrong):
    options = ["strict-mode"]


def mcp():
    return dv.cases(op=["mcp.call", "mcp.session"])


def test_a_case_needing_an_undeclared_option_is_skipped_never_a_finding():
    results = dv.run_cases(Wrong, mcp(), quiet=True)
    skipped = [r for r in results if r["status"] == "skipped"]
    assert sorted(r["case"]["id"] for r in skipped) == sorted(OPTION_CASES)
    for r in skipped:
        option = OPTION_CASES[r["case"]["id"]][0]
        assert r["actual"]["reason"] == f"needs option {option} (not in the implementation's options)"
        assert not dv.fails(r["case"], r, fail_on_hardening=True)
    # Declared (the class attribute, or run_cases' options), they run — and fail here.
    declared = dv.run_cases(Wrong, mcp(), quiet=True, options=dv.OPTIONS)
    assert not [r for r in declared if r["status"] == "skipped"]
    strict = dv.run_cases(WrongStrict, mcp(), quiet=True)
    assert [r["case"]["id"] for r in strict if r["status"] == "skipped"] == ["mcp-call-0004"]
    c = dv.case_by_id("mcp-call-0021")
    assert dv.answer(Wrong(), c)["outcome"] == "skipped"
    assert dv.answer(WrongStrict(), c)["outcome"] == "error"


def test_an_unknown_option_name_is_an_error():
    class Typo(Wrong):
        options = ["strict"]

    with pytest.raises(ValueError, match=r"unknown option\(s\) strict .*strict-mode, per-tool-spend"):
        dv.run_cases(Typo, mcp(), quiet=True)
    with pytest.raises(ValueError, match="unknown option"):
        dv.run_cases(Wrong, mcp(), quiet=True, options=["strict"])


def test_an_exception_is_threw_a_crash_on_the_input_graded_by_its_stake():
    hardening = next(
        c for c in dv.cases(op="glob.match") if c["level"] == "hardening" and c["stake"]["crashOrHang"] == "crash-or-hang"
    )

    class Throws:
        def glob_match(self, input):
            return input["pattern"].no_such_method()  # AttributeError

    (r,) = dv.run_cases(Throws, [hardening], quiet=True)
    assert r["actual"]["outcome"] == "threw" and "AttributeError" in r["actual"]["message"]
    assert r["status"] == "errored" and r["verdict"] is None
    assert dv.fails(hardening, r), "a crash on untrusted input counts at every level"
    assert not dv.fails(hardening, r, levels_only=True)
    medium = {**hardening, "stake": {**hardening["stake"], "crashOrHang": "issuer-pattern-hang"}}
    assert not dv.fails(medium, r)

    class AdapterBug:
        def glob_match(self, input):
            return {"outcome": "errored", "message": "adapter bug"}

    (e,) = dv.run_cases(AdapterBug, [hardening], quiet=True)
    assert e["status"] == "errored" and not dv.fails(hardening, e)
