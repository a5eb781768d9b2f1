"""delegateos-vectors: the DelegateOS conformance corpus and its judge, for Python.

The corpus files are the committed ``vectors/`` of the conformance kit, copied into the package
when it is built; ``DIGEST`` is the same BLAKE2b-256 as
``delegateos_vectors::corpus::embedded_digest()`` and the report header of
``delegateos-conform run``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import signal
import struct
import sys
import threading
import time
import traceback
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from . import _families
from ._judge import (
    FLOAT_TOLERANCE,
    fails,
    is_success,
    json_equal,
    judge_case,
    judge_expectation,
    judge_reference,
    outcomes_of,
)

__all__ = [
    "CORPUS_VERSION",
    "DEFAULT_TIMEOUT_MS",
    "DIGEST",
    "FLOAT_TOLERANCE",
    "MANIFEST",
    "OPTIONS",
    "DelegateosError",
    "answer",
    "case_by_id",
    "cases",
    "code_families",
    "error",
    "fails",
    "is_success",
    "json_equal",
    "judge",
    "judge_expectation",
    "judge_reference",
    "method_name",
    "ok",
    "outcomes_of",
    "run_cases",
    "status_of",
    "vector_files",
    "verify_digest",
]

DATA = Path(__file__).parent / "data"


def _read(rel: str) -> bytes:
    try:
        return (DATA / rel).read_bytes()
    except FileNotFoundError as e:
        raise RuntimeError(
            f"delegateos-vectors: {rel} is missing from {DATA}; a checkout must run "
            "packages/python/scripts/stage_corpus.py first (a wheel build does it)"
        ) from e


#: The build manifest: corpus version, digest, files and counts.
MANIFEST: dict = json.loads(_read("manifest.json"))
#: The corpus version (the kit's version, as ``delegateos-conform --version``).
CORPUS_VERSION: str = MANIFEST["corpusVersion"]
#: BLAKE2b-256 (hex) of the corpus, as ``delegateos_vectors::corpus::embedded_digest()``.
DIGEST: str = MANIFEST["digest"]


@lru_cache(maxsize=1)
def code_families() -> list[_families.Family]:
    """The code families of spec/error-codes.md §11 (spec/data/error-codes.json) shipped with the
    corpus."""
    return _families.from_data(json.loads(_read("spec/data/error-codes.json")))


@lru_cache(maxsize=1)
def vector_files() -> list[tuple[str, dict]]:
    """Every vector file (parsed), in the corpus's path order: ``[(path, file)]``."""
    return [(f["path"], json.loads(_read("vectors/" + f["path"]))) for f in MANIFEST["files"]]


@lru_cache(maxsize=1)
def _all_cases() -> dict[str, dict]:
    out: dict[str, dict] = {}
    for path, file in vector_files():
        for c in file["cases"]:
            advisory = file["area"] == "advisory" or any(f.lower() == "advisory" for f in c["flags"])
            out[c["id"]] = {
                **c,
                "area": file["area"],
                "group": file["group"],
                "file": path,
                "stateful": file.get("stateful") is True,
                "advisory": advisory,
            }
    return out


def _as_set(x: str | Iterable[str] | None) -> set[str] | None:
    if x is None:
        return None
    return {x} if isinstance(x, str) else set(x)


def cases(
    area: str | Iterable[str] | None = None,
    op: str | Iterable[str] | None = None,
    level: str | Iterable[str] | None = None,
    advisory: bool = False,
) -> list[dict]:
    """The cases (dicts as in the vector files, plus ``area``, ``group``, ``file``,
    ``stateful``, ``advisory``) in ``delegateos-conform run``'s order, filtered by area, op and
    level (each a value or a list). Advisory cases are left out unless ``advisory=True``, as
    ``run`` leaves them out unless ``--profile strict``."""
    areas, ops, levels = _as_set(area), _as_set(op), _as_set(level)
    return [
        c
        for c in _all_cases().values()
        if (advisory or not c["advisory"])
        and (areas is None or c["area"] in areas)
        and (ops is None or c["op"] in ops)
        and (levels is None or c["level"] in levels)
    ]


def case_by_id(case_id: str) -> dict | None:
    """One case by id (advisory included)."""
    return _all_cases().get(case_id)


def judge(case: dict, actual: dict) -> dict:
    """Judges ``actual`` for ``case`` exactly as ``delegateos-conform run`` does (the Rust
    ``judge_case``). Returns ``{"verdict": "passed"}``, ``{"verdict": "acceptable",
    "matched": i}``, ``{"verdict": "other_code", "family": …}`` or ``{"verdict": "failed",
    "kind": …}``."""
    return judge_case(code_families(), case, actual)


def ok(output: Any) -> dict:
    """``{"outcome": "ok", "output": output}``."""
    return {"outcome": "ok", "output": output}


def error(code: str, detail: str | None = None) -> dict:
    """``{"outcome": "error", "code": code}`` (``detail`` is never compared)."""
    out = {"outcome": "error", "code": code}
    if detail is not None:
        out["detail"] = detail
    return out


class DelegateosError(Exception):
    """Raise from an operation method to answer ``error`` with a spec code."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


def method_name(op: str) -> str:
    """The method an implementation class defines for ``op``: ``glob.match`` → ``glob_match``."""
    return op.replace(".", "_")


#: The default per-case budget in milliseconds (``DELEGATEOS_TIMEOUT_MS`` overrides it).
DEFAULT_TIMEOUT_MS = 10_000
_PROGRESS_EVERY_MS = 5_000


def timeout_from(timeout_ms: float | None = None) -> float:
    """The per-case budget in ms: ``timeout_ms``, else ``DELEGATEOS_TIMEOUT_MS``, else 10 s; 0 = none."""
    source = "timeout_ms"
    t: Any = timeout_ms
    if t is None:
        env = os.environ.get("DELEGATEOS_TIMEOUT_MS", "").strip()
        if not env:
            return DEFAULT_TIMEOUT_MS
        source = "DELEGATEOS_TIMEOUT_MS"
        try:
            t = float(env)
        except ValueError:
            t = env
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
        raise ValueError(f"delegateos-vectors: {source} must be a number of milliseconds >= 0 (0: no budget), got {t!r}")
    return t


def _seconds(ms: float) -> str:
    """``10 s``, ``1.5 s``, ``0.2 s``."""
    return f"{round(ms / 1000, 3 if ms < 1000 else 1):g} s"


def timeout_answer(case: dict, ms: float) -> dict:
    """The ``errored`` answer (``kind: timeout``) of a case with no answer within ``ms``."""
    hostile = " on hostile input" if any(re.search("hostile", f, re.I) for f in case.get("flags", [])) else ""
    effect = (case.get("stake") or {}).get("crashOrHang", "crash-or-hang")
    return {
        "outcome": "errored",
        "kind": "timeout",
        "message": f"{case['id']}: no answer within {_seconds(ms)} — a hang{hostile} ({effect})",
    }


class _TimedOut(BaseException):
    """Raised in the main thread by SIGALRM when a call's budget runs out (a BaseException, so
    an implementation's ``except Exception`` does not swallow it)."""


def budget_enforced() -> bool:
    """Whether a budget can be enforced here: POSIX ``SIGALRM``, in the main thread."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _budget(ms: float) -> Iterator[None]:
    """Raises ``_TimedOut`` in the code of the block when it runs longer than ``ms``. Python
    delivers the signal between bytecodes (and ``re`` checks for it while backtracking), so a
    busy loop or a catastrophic regular expression is cut; a C extension that never returns to
    Python is not. A timer set by someone else (pytest-timeout's signal method) is restored."""
    if not ms or not budget_enforced():
        yield
        return

    def on_alarm(signum: int, frame: Any) -> None:
        raise _TimedOut()

    started = time.monotonic()
    old_handler = signal.signal(signal.SIGALRM, on_alarm)
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, ms / 1000)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        if old_delay:
            left = old_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-6), old_interval)


#: The options (spec/adapter-protocol.md §2.1, the names of ``hello.options``): behaviours the
#: corpus tests beyond the text's required ones. A case lists those it needs (``case["options"]``);
#: an implementation declares those it has as its ``options`` attribute (a list of names), and a
#: case needing another is ``skipped`` with "needs option X", never a finding.
OPTIONS: tuple[str, ...] = ("strict-mode", "per-tool-spend")


def declared_options(impl: Any, options: Iterable[str] | None = None) -> list[str]:
    """The options ``impl`` declares: ``options`` if given, else its ``options`` attribute (none
    by default; a callable ``options``, e.g. from a catch-all ``__getattr__``, declares none). An
    unknown name raises ``ValueError``."""
    if options is None:
        options = getattr(impl, "options", None)
        if options is None or callable(options):
            options = ()
    if isinstance(options, str):
        raise ValueError(f"delegateos-vectors: options must be a list of option names, got {options!r}")
    declared = list(options)
    if any(not isinstance(o, str) for o in declared):
        raise ValueError(f"delegateos-vectors: options must be option names, got {declared!r}")
    unknown = [o for o in declared if o not in OPTIONS]
    if unknown:
        raise ValueError(
            f"delegateos-vectors: unknown option(s) {', '.join(unknown)} (the options are: {', '.join(OPTIONS)})"
        )
    return declared


def answer(
    impl: Any, case: dict, *, timeout_ms: float | None = None, options: Iterable[str] | None = None
) -> dict:
    """What ``impl`` answers for ``case``: calls ``impl.<method_name(op)>(input)``, which returns
    an outcome dict (``ok(...)``, ``error(...)``) or raises ``DelegateosError``. A missing method
    is ``skipped``, and so is a case needing an option ``impl`` does not declare (its ``options``
    attribute, or ``options``): "needs option X". Any other exception is ``threw`` (the
    implementation threw on this input: status ``errored``, graded as a crash on the input, as
    ``run`` grades an adapter's ``threw``); no answer within the budget (``timeout_ms``, see
    ``timeout_from``; enforced in the main thread on POSIX) is ``errored`` with
    ``kind: "timeout"`` and a message naming the case."""
    fn = getattr(impl, method_name(case["op"]), None)
    if not callable(fn):
        return {"outcome": "skipped", "reason": f"operation {case['op']} not implemented"}
    declared = declared_options(impl, options)
    missing = [o for o in case.get("options") or [] if o not in declared]
    if missing:
        return {"outcome": "skipped", "reason": f"needs option {', '.join(missing)} (not in the implementation's options)"}
    ms = timeout_from(timeout_ms)
    try:
        with _budget(ms):
            a = fn(case["input"])
    except _TimedOut:
        return timeout_answer(case, ms)
    except DelegateosError as e:
        return error(e.code, e.detail or None)
    except Exception as e:  # noqa: BLE001 - any exception: the implementation threw on this input
        return {"outcome": "threw", "message": "".join(traceback.format_exception_only(type(e), e)).strip()}
    if not isinstance(a, dict) or a.get("outcome") not in ("ok", "error", "skipped", "errored", "threw"):
        return {"outcome": "errored", "message": f"returned {a!r}, not an outcome"}
    if a["outcome"] == "error" and (not isinstance(a.get("code"), str) or not a["code"]):
        return {"outcome": "errored", "message": "an error outcome needs a non-empty code"}
    return a


def status_of(actual: dict, verdict: dict | None) -> str:
    """``run``'s status: passed, acceptable, failed, other_code, skipped or errored (threw too)."""
    if actual["outcome"] in ("skipped", "errored"):
        return actual["outcome"]
    if actual["outcome"] == "threw":
        return "errored"
    assert verdict is not None
    return verdict["verdict"]


def _holds(status: str) -> bool:
    return status in ("passed", "acceptable", "other_code", "skipped")


def _timed_out(r: dict) -> bool:
    return r["actual"].get("kind") == "timeout"


def _progress(total: int, quiet: bool | None, progress: Callable[[str], None] | None, every_ms: float) -> Callable:
    if quiet is None:
        quiet = os.environ.get("DELEGATEOS_QUIET", "").strip().lower() not in ("", "0", "false")
    if quiet:
        return lambda done, case, counts: None
    write = progress or (lambda line: print(line, file=sys.stderr, flush=True))
    start = time.monotonic()
    state = {"next": start + every_ms / 1000}

    def report(done: int, case: dict, counts: dict) -> None:
        now = time.monotonic()
        if now < state["next"]:
            return
        state["next"] = now + every_ms / 1000
        failing = counts["failed"] + counts["errored"]
        write(
            f"delegateos-vectors: {done}/{total} cases in {round(now - start)} s"
            + (f", {failing} failed or errored" if failing else "")
            + (f", {counts['timeouts']} timed out" if counts["timeouts"] else "")
            + f" (last: {case['id']})"
        )

    return report


def run_cases(
    make_impl: Callable[[], Any],
    selected: list[dict],
    *,
    timeout_ms: float | None = None,
    quiet: bool | None = None,
    progress: Callable[[str], None] | None = None,
    progress_every_ms: float = _PROGRESS_EVERY_MS,
    options: Iterable[str] | None = None,
) -> list[dict]:
    """Runs ``selected`` (from ``cases()``) against instances from ``make_impl()`` — one for the
    stateless cases (and a fresh one after every stateful group or timeout), two per stateful
    group (file order, then the replay after a restart; a case holds only if it holds both
    times) — and returns ``[{"case", "actual", "verdict", "status", "replay"}]`` in order
    (``verdict`` is None for skipped, threw and errored answers).

    ``options``: the options the implementation has (the names of ``hello.options``; default:
    each instance's ``options`` attribute); a case that needs another is ``skipped`` with "needs
    option X", never a finding, and an unknown name raises ``ValueError``.

    ``timeout_ms``: the budget of each call (default 10 s, or ``DELEGATEOS_TIMEOUT_MS``; 0 =
    none); a case with no answer by then is ``errored`` with ``actual["kind"] == "timeout"`` and
    a message naming it, and ``fails(case, result)`` counts it whatever its level, as ``run``
    counts a hang. Long runs write a progress line to stderr every 5 s
    (``progress_every_ms``) unless ``quiet`` (or ``DELEGATEOS_QUIET=1``); ``progress(line)``
    takes them instead."""
    ms = timeout_from(timeout_ms)
    if options is not None:
        options = declared_options(None, options)
    report = _progress(len(selected), quiet, progress, progress_every_ms)
    counts = {"failed": 0, "errored": 0, "timeouts": 0}

    def one(impl: Any, c: dict) -> dict:
        a = answer(impl, c, timeout_ms=ms, options=options)
        v = None if a["outcome"] in ("skipped", "errored", "threw") else judge(c, a)
        return {"case": c, "actual": a, "verdict": v, "status": status_of(a, v), "replay": False}

    out: list[dict] = []

    def done(r: dict) -> None:
        out.append(r)
        if r["status"] in ("failed", "errored"):
            counts[r["status"]] += 1
        if _timed_out(r):
            counts["timeouts"] += 1
        report(len(out), r["case"], counts)

    def run_group(group: list[dict]) -> list[dict]:
        impl = make_impl()
        rs = []
        for x in group:
            rs.append(one(impl, x))
            if _timed_out(rs[-1]):
                impl = make_impl()  # as `run` restarts the adapter after a timeout
        return rs

    shared = None
    i = 0
    while i < len(selected):
        c = selected[i]
        if not c["stateful"]:
            if shared is None:
                shared = make_impl()
            r = one(shared, c)
            if _timed_out(r):
                shared = None  # as `run` restarts the adapter after a timeout
            done(r)
            i += 1
            continue
        end = i
        while end < len(selected) and selected[end]["stateful"] and selected[end]["file"] == c["file"]:
            end += 1
        group = selected[i:end]
        first = run_group(group)
        replay = run_group(group)
        shared = None
        for r, s in zip(first, replay):
            done(r if not _holds(r["status"]) or _holds(s["status"]) else {**s, "replay": True})
        i = end
    return out


def verify_digest() -> bool:
    """Recomputes the digest over the shipped files; True if it equals ``DIGEST``."""
    paths = sorted((f["path"] for f in MANIFEST["files"]), key=_path_key)
    buf = bytearray()
    for p in paths:
        data = _read("vectors/" + p)
        buf += p.encode("utf-8") + b"\0" + struct.pack("<Q", len(data)) + data
    return hashlib.blake2b(bytes(buf), digest_size=32).hexdigest() == DIGEST


def _path_key(p: str) -> list[bytes]:
    # vectors/build.rs sorts PathBufs: component by component, bytewise.
    return [c.encode("utf-8") for c in p.split("/")]
