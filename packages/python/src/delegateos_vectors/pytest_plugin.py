"""pytest plugin: ``pytest --delegateos-impl module:Class`` runs the corpus against ``Class``.

One test per case (``test_case[<case id>]``), marked with its level (``normative``,
``decision``, ``hardening``) and ``delegateos``; select with ``-m``, ``-k`` or the
``--delegateos-area/op/level`` options. ``Class()`` is instantiated once for the stateless
cases and twice per stateful group (file order, then the replay after a restart), as
``delegateos-conform run`` does. A case whose op has no method on ``Class`` (``glob.match`` →
``glob_match``) is skipped. A failure counts as ``run``'s exit code counts it: a hardening
finding (a hardening-level case, or a rejection with another code of the expected code's
family) is reported as ``xfail`` unless ``--delegateos-fail-on-hardening`` (or
``--delegateos-strict``, which also runs the advisory cases, whose findings never fail).

Options (spec/adapter-protocol.md §2.1, the names of ``hello.options``: ``strict-mode``,
``per-tool-spend``; ``delegateos_vectors.OPTIONS``): the class lists those it has in an
``options`` attribute (``options = ["strict-mode"]``); a case that needs another is skipped with
"needs option X", never a finding; an unknown name is a usage error. An exception a method
raises (other than ``DelegateosError``) is ``threw``: the implementation threw on the input, a
crash on it graded by the case's stake (counted at every level when that is ``crash-or-hang``).

``--delegateos-verdicts FILE`` writes ``{case id: status}`` (``run``'s status names) as JSON.

Each call has a time budget, ``--delegateos-timeout-ms`` (default 10 000, or the
``DELEGATEOS_TIMEOUT_MS`` environment variable; 0 = none), enforced with ``SIGALRM`` (POSIX, main
thread): a case with no answer by then fails — whatever its level, as ``run`` counts a hang —
with ``<case id>: no answer within 10 s — a hang … (crash-or-hang)``, and the next case gets a
fresh instance. (Python delivers the signal between bytecodes, and ``re`` while backtracking; a
C extension that never returns to Python cannot be cut.)

For your own test functions, ``parametrize(area=, op=, level=)`` gives one parameter per case,
with the case id as test id and the level as marker::

    from delegateos_vectors.pytest_plugin import parametrize

    @parametrize(op="glob.match")
    def test_glob(case):
        assert not dv.fails(case, dv.judge(case, dv.ok({"matches": my_glob(**case["input"])})))
"""

from __future__ import annotations

import importlib
import json
import traceback
from typing import Any

import pytest

import delegateos_vectors as dv

LEVELS = ("normative", "decision", "hardening")


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("delegateos", "DelegateOS conformance vectors")
    g.addoption("--delegateos-impl", metavar="MODULE:CLASS", help="run the corpus against this class")
    g.addoption("--delegateos-area", action="append", default=None, help="only this area (repeatable)")
    g.addoption("--delegateos-op", action="append", default=None, help="only this op (repeatable)")
    g.addoption("--delegateos-level", action="append", default=None, choices=LEVELS, help="only this level")
    g.addoption("--delegateos-fail-on-hardening", action="store_true", help="hardening findings fail")
    g.addoption("--delegateos-strict", action="store_true", help="advisory cases too; hardening findings fail")
    g.addoption("--delegateos-verdicts", metavar="FILE", help="write {case id: status} JSON here")
    g.addoption(
        "--delegateos-timeout-ms",
        metavar="MS",
        type=float,
        default=None,
        help="budget of each case in ms; a case with no answer by then fails as a hang "
        "(default 10000, or $DELEGATEOS_TIMEOUT_MS; 0: none)",
    )


def pytest_configure(config: pytest.Config) -> None:
    for level in LEVELS:
        config.addinivalue_line("markers", f"{level}: a DelegateOS case of level {level}")
    config.addinivalue_line("markers", "delegateos: a DelegateOS conformance case")
    config.addinivalue_line("markers", "stateful: a case of a stateful group")


def parametrize(argname: str = "case", **filter: Any) -> Any:
    """``pytest.mark.parametrize`` over ``cases(**filter)``: ids are case ids, marks the levels."""
    return pytest.mark.parametrize(
        argname,
        [
            pytest.param(c, id=c["id"], marks=[getattr(pytest.mark, c["level"]), pytest.mark.delegateos])
            for c in dv.cases(**filter)
        ],
    )


def load_impl(spec: str) -> type:
    """``module:Class`` → the class; a usage error (not a traceback) when it cannot be had."""
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise pytest.UsageError(f"--delegateos-impl expects module:Class, got {spec!r}")
    try:
        obj: Any = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and (module == e.name or module.startswith(e.name + ".")):
            raise pytest.UsageError(
                f"--delegateos-impl {spec}: no module named {e.name!r} — is it on sys.path? "
                "(run pytest from the directory that holds it, use `python -m pytest`, or set "
                "PYTHONPATH or `pythonpath` in the pytest configuration)"
            ) from None
        raise pytest.UsageError(f"--delegateos-impl {spec}: importing {module!r} failed: {_where(e)}") from None
    except Exception as e:  # noqa: BLE001 - an error in the user's module is a usage error too
        raise pytest.UsageError(f"--delegateos-impl {spec}: importing {module!r} failed: {_where(e)}") from None
    for i, part in enumerate(name.split(".")):
        if not hasattr(obj, part):
            have = sorted(n for n in vars(obj) if not n.startswith("_") and isinstance(vars(obj)[n], type))
            where = module if i == 0 else f"{module}:{'.'.join(name.split('.')[:i])}"
            hint = f"; classes there: {', '.join(have[:10])}" if have else ""
            raise pytest.UsageError(f"--delegateos-impl {spec}: {where} has no attribute {part!r}{hint}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise pytest.UsageError(
            f"--delegateos-impl {spec}: {name} is a {type(obj).__name__}, not a class (or factory) to instantiate"
        )
    return obj


def _where(e: BaseException) -> str:
    """``ValueError: boom (mylib.py:12)`` — the exception and its innermost frame."""
    text = "".join(traceback.format_exception_only(type(e), e)).strip()
    frames = traceback.extract_tb(e.__traceback__)
    if frames and not isinstance(e, SyntaxError):
        text += f" ({frames[-1].filename}:{frames[-1].lineno})"
    return text


class CaseFailed(Exception):
    """A case whose verdict fails the run."""


class _Runner:
    """Runs cases lazily; a stateful group runs whole (twice) when its first case is asked."""

    def __init__(self, factory: Any, selected: list[dict], timeout_ms: float | None = None) -> None:
        self.factory = factory
        self.selected = selected
        self.timeout_ms = timeout_ms
        self.results: dict[str, dict] = {}
        self.shared = None

    def result(self, case: dict) -> dict:
        if case["id"] not in self.results:
            if case["stateful"]:
                group = [c for c in self.selected if c["file"] == case["file"]]
                for r in dv.run_cases(self.factory, group, timeout_ms=self.timeout_ms, quiet=True):
                    self.results[r["case"]["id"]] = r
                self.shared = None  # the next case gets a fresh instance, as in `run`
            else:
                if self.shared is None:
                    self.shared = self.factory()
                (r,) = dv.run_cases(lambda: self.shared, [case], timeout_ms=self.timeout_ms, quiet=True)
                self.results[case["id"]] = r
                if r["actual"].get("kind") == "timeout":
                    self.shared = None  # as `run` restarts the adapter after a timeout
        return self.results[case["id"]]


class CaseItem(pytest.Item):
    """One vector case."""

    def __init__(self, *, case: dict, runner: _Runner, options: dict, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.runner = runner
        self.options = options
        self.add_marker("delegateos")
        self.add_marker(case["level"])
        if case["stateful"]:
            self.add_marker("stateful")

    def runtest(self) -> None:
        r = self.runner.result(self.case)
        status = r["status"]
        if status == "skipped":
            pytest.skip(r["actual"].get("reason") or "skipped")
        if status in ("passed", "acceptable"):
            return
        text = _explain(self.case, r)
        if dv.fails(self.case, r, **self.options):
            raise CaseFailed(text)
        pytest.xfail(f"finding not counted by default (hardening/advisory): {text}")

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[str, int | None, str]:
        return (f"vectors/{self.case['file']}", None, f"{self.case['id']} ({self.case['op']})")


def _explain(case: dict, r: dict) -> str:
    v = r["verdict"] or {}
    what = r["status"] if r["status"] != "failed" else f"failed ({v.get('kind')})"
    if r["status"] == "other_code":
        what = f"rejected with another code of the family {v.get('family')}"
    lines = [r["actual"]["message"]] if r["actual"].get("kind") == "timeout" else []
    lines += [
        f"{case['id']} [{case['level']}] {what}" + (" on the replay after a restart" if r["replay"] else ""),
        f"  {case['description']}",
        f"  expected: {json.dumps(case['expect'], sort_keys=True)}",
        f"  actual:   {json.dumps(r['actual'], sort_keys=True, default=str)}",
    ]
    return "\n".join(lines)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    spec = config.getoption("--delegateos-impl")
    if not spec:
        return
    factory = load_impl(spec)
    timeout_ms = config.getoption("--delegateos-timeout-ms")
    try:
        timeout_ms = dv.timeout_from(timeout_ms)
    except ValueError as e:
        raise pytest.UsageError(str(e).replace("delegateos-vectors: timeout_ms", "--delegateos-timeout-ms")) from None
    strict = config.getoption("--delegateos-strict")
    options = {"fail_on_hardening": config.getoption("--delegateos-fail-on-hardening"), "strict": strict}
    selected = dv.cases(
        area=config.getoption("--delegateos-area"),
        op=config.getoption("--delegateos-op"),
        level=config.getoption("--delegateos-level"),
        advisory=strict,
    )
    if selected and not any(callable(getattr(factory, dv.method_name(c["op"]), None)) for c in selected):
        ops = sorted({c["op"] for c in selected})
        raise pytest.UsageError(
            f"{spec} implements none of the {len(ops)} selected operations; define e.g. "
            f"{dv.method_name(ops[0])}(self, input) for {ops[0]}"
        )
    try:
        dv.declared_options(factory)  # its `options` attribute (spec/adapter-protocol.md §2.1)
    except ValueError as e:
        raise pytest.UsageError(f"{spec}.options: {e}") from None
    runner = _Runner(factory, selected, timeout_ms)
    config._delegateos_runner = runner  # type: ignore[attr-defined]
    for c in selected:
        items.append(
            CaseItem.from_parent(
                session,
                name=f"test_case[{c['id']}]",
                nodeid=f"delegateos::test_case[{c['id']}]",
                case=c,
                runner=runner,
                options=options,
            )
        )


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("--delegateos-verdicts")
    runner = getattr(session.config, "_delegateos_runner", None)
    if path and runner is not None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({k: r["status"] for k, r in sorted(runner.results.items())}, f, indent=1, sort_keys=True)
            f.write("\n")
