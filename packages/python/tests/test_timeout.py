"""The per-case time budget of run_cases/answer and the pytest plugin (issue 38): an
implementation that hangs on one case (a busy loop, a catastrophic regular expression) gets that
case ``errored`` with kind ``timeout`` and a message naming it, the run goes on (on a fresh
instance), a timeout fails whatever the case's level, and long runs report progress. Also: a
``--delegateos-impl`` that cannot be loaded is a usage error, not an INTERNALERROR."""

import os
import re
import subprocess
import sys
import textwrap
import time
from importlib import metadata
from pathlib import Path

import pytest

import delegateos_vectors as dv

HOSTILE = "glob-match-0084"


def make_hanging(made):
    hostile = dv.case_by_id(HOSTILE)["input"]

    class Hanging:
        def __init__(self):
            made.append(self)

        def glob_match(self, input):
            if input == hostile:
                while True:
                    pass
            return dv.ok({"matches": False})

    return Hanging


def test_a_busy_loop_is_cut_at_the_budget_and_names_the_case():
    glob = dv.cases(op="glob.match")
    selected = glob[:5] + [dv.case_by_id(HOSTILE)] + glob[5:10]
    made = []
    started = time.monotonic()
    results = dv.run_cases(make_hanging(made), selected, timeout_ms=300, quiet=True)
    assert time.monotonic() - started < 5
    assert len(results) == len(selected)
    (hung,) = [r for r in results if r["case"]["id"] == HOSTILE]
    assert hung["status"] == "errored" and hung["verdict"] is None
    assert hung["actual"] == {
        "outcome": "errored",
        "kind": "timeout",
        "message": f"{HOSTILE}: no answer within 0.3 s — a hang on hostile input (crash-or-hang)",
    }
    assert all(r["actual"]["outcome"] == "ok" for r in results if r is not hung)
    assert len(made) == 2  # a fresh instance after the hang, as `run` restarts the adapter
    # A hang fails the run whatever the level (glob-match-0084 is a hardening case), as in `run`.
    assert hung["case"]["level"] == "hardening"
    assert dv.fails(hung["case"], hung)
    assert not dv.fails(hung["case"], hung, levels_only=True)
    assert not dv.fails(hung["case"], hung["status"])  # a bare status cannot tell a hang


def test_a_catastrophic_regular_expression_is_cut_too():
    # The first-hour report of issue 38: `**` → `.*`, `*` → `[^/]*`, one regular expression.
    class RegexGlob:
        def glob_match(self, input):
            src = re.sub(r"\\\*\\\*|\\\*", lambda m: ".*" if len(m.group()) == 4 else "[^/]*", re.escape(input["pattern"]))
            return dv.ok({"matches": re.fullmatch(src, input["resource"]) is not None})

    selected = [dv.case_by_id(i) for i in ("glob-match-0083", "glob-match-0084", "glob-match-0001")]
    started = time.monotonic()
    results = dv.run_cases(RegexGlob, selected, timeout_ms=500, quiet=True)
    assert time.monotonic() - started < 6
    timed_out = [r for r in results if r["actual"].get("kind") == "timeout"]
    assert timed_out, [r["status"] for r in results]
    for r in timed_out:
        assert r["actual"]["message"].startswith(f"{r['case']['id']}: no answer within 0.5 s — a hang on hostile input")
    assert results[2]["status"] != "errored"


def test_a_hang_in_a_stateful_group_is_cut_and_the_group_goes_on():
    stateful = [c for c in dv.cases() if c["stateful"]]
    first = stateful[0]
    group = [c for c in stateful if c["file"] == first["file"]]

    class Impl:
        def __getattr__(self, name):
            def op(input):
                if name == dv.method_name(first["op"]) and input == first["input"]:
                    while True:
                        pass
                return {"outcome": "errored", "message": "not really implemented"}

            return op

    results = dv.run_cases(Impl, group, timeout_ms=200, quiet=True)
    assert len(results) == len(group)
    assert results[0]["actual"]["kind"] == "timeout"
    assert results[0]["actual"]["message"].startswith(f"{first['id']}: no answer within 0.2 s — a hang")
    assert dv.fails(first, results[0])


def test_the_budget_option_env_default_and_none(monkeypatch):
    c = dv.case_by_id("glob-match-0001")

    class Slow:
        def glob_match(self, input):
            t = time.monotonic()
            while time.monotonic() - t < 0.15:
                pass
            return dv.ok({"matches": True})

    assert dv.DEFAULT_TIMEOUT_MS == 10_000
    monkeypatch.delenv("DELEGATEOS_TIMEOUT_MS", raising=False)
    assert dv.timeout_from() == 10_000
    monkeypatch.setenv("DELEGATEOS_TIMEOUT_MS", "50")
    assert dv.answer(Slow(), c)["kind"] == "timeout"
    assert dv.answer(Slow(), c, timeout_ms=0)["outcome"] == "ok"  # the argument wins; 0 = none
    monkeypatch.setenv("DELEGATEOS_TIMEOUT_MS", "0")
    assert dv.answer(Slow(), c)["outcome"] == "ok"
    monkeypatch.setenv("DELEGATEOS_TIMEOUT_MS", "ten")
    with pytest.raises(ValueError, match="DELEGATEOS_TIMEOUT_MS must be a number of milliseconds"):
        dv.answer(Slow(), c)
    with pytest.raises(ValueError, match="timeout_ms must be"):
        dv.run_cases(Slow, [c], timeout_ms=-1)

    class Boom:
        def glob_match(self, input):
            raise RuntimeError("boom")

    a = dv.answer(Boom(), c, timeout_ms=1000)  # an exception is `threw`, not a timeout
    assert a["outcome"] == "threw" and "kind" not in a and "boom" in a["message"]


def test_the_budget_restores_an_outer_timer():
    import signal

    fired = []
    old = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 1.0)
        dv.answer(make_hanging([])(), dv.case_by_id("glob-match-0001"), timeout_ms=100)
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < left < 1.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_progress_lines_on_long_runs_none_when_quiet():
    selected = [dv.case_by_id(HOSTILE)] + dv.cases(op="glob.match")[:3]
    lines = []
    dv.run_cases(make_hanging([]), selected, timeout_ms=100, progress=lines.append, progress_every_ms=50)
    assert lines, "a progress line after the slow case"
    assert re.fullmatch(
        rf"delegateos-vectors: 1/4 cases in \d+ s, 1 failed or errored, 1 timed out \(last: {HOSTILE}\)", lines[0]
    ), lines[0]
    quiet = []
    dv.run_cases(make_hanging([]), selected, timeout_ms=100, progress=quiet.append, progress_every_ms=50, quiet=True)
    assert quiet == []


# ---------------------------------------------------------------- the pytest plugin


def _plugin_installed():
    """Whether pytest loads the plugin by itself (the package is installed, not on PYTHONPATH)."""
    eps = metadata.entry_points()
    group = eps.select(group="pytest11") if hasattr(eps, "select") else eps.get("pytest11", [])
    return any(ep.value.startswith("delegateos_vectors") for ep in group)


def run_pytest(tmp_path, *args, env=None):
    """``python -m pytest ARGS`` in tmp_path (with the package's plugin loaded)."""
    src = str(Path(dv.__file__).resolve().parent.parent)
    e = {**os.environ, **(env or {})}
    e["PYTHONPATH"] = os.pathsep.join([str(tmp_path), src] + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
    e.pop("PYTEST_ADDOPTS", None)
    plugin = [] if _plugin_installed() else ["-p", "delegateos_vectors.pytest_plugin"]
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin, *args],
        cwd=tmp_path, env=e, capture_output=True, text=True, timeout=120,
    )
    return p.returncode, p.stdout + p.stderr


HANG_IMPL = '''
import delegateos_vectors as dv

HOSTILE = dv.case_by_id("glob-match-0084")["input"]
NOT_A_CLASS = 42


class HangImpl:
    def glob_match(self, input):
        if input == HOSTILE:
            while True:
                pass
        return dv.ok({"matches": False})
'''


@pytest.fixture
def project(tmp_path):
    (tmp_path / "hang_impl.py").write_text(HANG_IMPL)
    (tmp_path / "broken_impl.py").write_text("import json\nraise ValueError('broken at import')\n")
    return tmp_path


def test_plugin_a_hanging_case_fails_within_the_budget_and_is_named(project):
    # One case HangImpl answers right (`false`), and the one it hangs on.
    fine = next(
        c["id"] for c in dv.cases(op="glob.match", level="normative")
        if c["expect"] == {"result": "valid", "output": {"matches": False}}
    )
    started = time.monotonic()
    code, out = run_pytest(
        project, "--delegateos-impl", "hang_impl:HangImpl", "--delegateos-op", "glob.match",
        "--delegateos-timeout-ms", "300", "-k", f"{HOSTILE} or {fine}", "-rf",
    )
    assert time.monotonic() - started < 60
    assert code == 1, out
    assert f"{HOSTILE}: no answer within 0.3 s — a hang on hostile input (crash-or-hang)" in out
    assert f"FAILED delegateos::test_case[{HOSTILE}]" in out
    assert "1 failed, 1 passed" in out, out


def test_plugin_budget_from_the_environment(project):
    code, out = run_pytest(
        project, "--delegateos-impl", "hang_impl:HangImpl", "-k", HOSTILE,
        env={"DELEGATEOS_TIMEOUT_MS": "200"},
    )
    assert code == 1, out
    assert f"{HOSTILE}: no answer within 0.2 s" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--delegateos-impl", "nosuch:Impl"], "--delegateos-impl nosuch:Impl: no module named 'nosuch' — is it on sys.path?"),
        (["--delegateos-impl", "hang_impl:Nope"], "--delegateos-impl hang_impl:Nope: hang_impl has no attribute 'Nope'; classes there: HangImpl"),
        (["--delegateos-impl", "hang_impl:NOT_A_CLASS"], "--delegateos-impl hang_impl:NOT_A_CLASS: NOT_A_CLASS is a int, not a class"),
        (["--delegateos-impl", "broken_impl:Impl"], "--delegateos-impl broken_impl:Impl: importing 'broken_impl' failed: ValueError: broken at import"),
        (["--delegateos-impl", "hang_impl"], "--delegateos-impl expects module:Class, got 'hang_impl'"),
        (["--delegateos-impl", "hang_impl:HangImpl", "--delegateos-timeout-ms", "-1"], "--delegateos-timeout-ms must be a number of milliseconds"),
    ],
)
def test_plugin_usage_errors(project, args, message):
    code, out = run_pytest(project, *args)
    assert code == pytest.ExitCode.USAGE_ERROR, out
    assert f"ERROR: {message}" in out, out
    assert "INTERNALERROR" not in out and "Traceback" not in out, out
