"""delegateos-vectors: the DelegateOS conformance corpus and its judge, for Python.

The corpus files are the committed ``vectors/`` of the conformance kit, copied into the package
when it is built; ``DIGEST`` is the same BLAKE2b-256 as
``delegateos_vectors::corpus::embedded_digest()`` and the report header of
``delegateos-conform run``.
"""

from __future__ import annotations

import hashlib
import json
import struct
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable

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
    "DIGEST",
    "FLOAT_TOLERANCE",
    "MANIFEST",
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
    """The code families of spec/error-codes.md §11 shipped with the corpus."""
    return _families.parse(_read("spec/error-codes.md").decode("utf-8"))


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


def answer(impl: Any, case: dict) -> dict:
    """What ``impl`` answers for ``case``: calls ``impl.<method_name(op)>(input)``, which returns
    an outcome dict (``ok(...)``, ``error(...)``) or raises ``DelegateosError``. A missing method
    is ``skipped``; any other exception is ``errored``."""
    fn = getattr(impl, method_name(case["op"]), None)
    if not callable(fn):
        return {"outcome": "skipped", "reason": f"operation {case['op']} not implemented"}
    try:
        a = fn(case["input"])
    except DelegateosError as e:
        return error(e.code, e.detail or None)
    except Exception as e:  # noqa: BLE001 - any exception is the case's `errored`
        return {"outcome": "errored", "message": f"raised {type(e).__name__}: {e}"}
    if not isinstance(a, dict) or a.get("outcome") not in ("ok", "error", "skipped", "errored"):
        return {"outcome": "errored", "message": f"returned {a!r}, not an outcome"}
    if a["outcome"] == "error" and (not isinstance(a.get("code"), str) or not a["code"]):
        return {"outcome": "errored", "message": "an error outcome needs a non-empty code"}
    return a


def status_of(actual: dict, verdict: dict | None) -> str:
    """``run``'s status: passed, acceptable, failed, other_code, skipped or errored."""
    if actual["outcome"] in ("skipped", "errored"):
        return actual["outcome"]
    assert verdict is not None
    return verdict["verdict"]


def _holds(status: str) -> bool:
    return status in ("passed", "acceptable", "other_code", "skipped")


def run_cases(make_impl: Callable[[], Any], selected: list[dict]) -> list[dict]:
    """Runs ``selected`` (from ``cases()``) against instances from ``make_impl()`` — one for the
    stateless cases (and a fresh one after every stateful group), two per stateful group (file
    order, then the replay after a restart; a case holds only if it holds both times) — and
    returns ``[{"case", "actual", "verdict", "status", "replay"}]`` in order (``verdict`` is
    None for skipped and errored answers)."""

    def one(impl: Any, c: dict) -> dict:
        a = answer(impl, c)
        v = None if a["outcome"] in ("skipped", "errored") else judge(c, a)
        return {"case": c, "actual": a, "verdict": v, "status": status_of(a, v), "replay": False}

    out: list[dict] = []
    shared = None
    i = 0
    while i < len(selected):
        c = selected[i]
        if not c["stateful"]:
            if shared is None:
                shared = make_impl()
            out.append(one(shared, c))
            i += 1
            continue
        end = i
        while end < len(selected) and selected[end]["stateful"] and selected[end]["file"] == c["file"]:
            end += 1
        group = selected[i:end]
        first_impl = make_impl()
        first = [one(first_impl, x) for x in group]
        replay_impl = make_impl()
        replay = [one(replay_impl, x) for x in group]
        shared = None
        for r, s in zip(first, replay):
            out.append(r if not _holds(r["status"]) or _holds(s["status"]) else {**s, "replay": True})
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
