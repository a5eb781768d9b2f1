"""Code families of spec/error-codes.md §11, parsed from the text exactly as the Rust judge
parses it (vectors/src/families.rs): the tables there are the single source."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class Family:
    """One family with its scope."""

    name: str
    codes: list[str]
    ops: list[str] = field(default_factory=list)
    stages: list[str] = field(default_factory=list)
    only_flag: str | None = None

    def covers(self, op: str, stage: str | None, flags: list[str], expected: str, actual: str) -> bool:
        """True if this family makes `actual` a substitute for `expected` (Family::covers)."""
        stage_ok = not self.stages or (
            stage is not None and any(_stage_matches(p, stage) for p in self.stages)
        )
        flag_ok = self.only_flag is None or self.only_flag in flags
        return (
            expected != actual
            and expected in self.codes
            and actual in self.codes
            and op in self.ops
            and stage_ok
            and flag_ok
        )


def _backticked(cell: str) -> list[str]:
    return cell.split("`")[1::2]


def _trim_matches(s: str, ch: str) -> str:
    # Rust's str::trim_matches(char): strip every leading and trailing `ch`.
    return s.strip(ch)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in _trim_matches(line.strip(), "|").split("|")]


def _is_stage(token: str) -> bool:
    return token[:1] in tuple("0123456789")


def parse(text: str) -> list[Family]:
    """Parses the two tables of §11 of an error-codes.md text."""
    in_section = False
    families: list[Family] = []
    for line in text.splitlines():
        if line.startswith("## "):
            in_section = line.startswith("## 11.")
            continue
        if not in_section or not line.startswith("|"):
            continue
        c = _cells(line)
        if len(c) < 2:
            continue
        name, second = c[0], c[1]
        if name == "family" or name.startswith("---"):
            continue
        existing = next((f for f in families if f.name == name), None)
        if existing is not None:
            ops = []
            for s in second.split(","):
                words = s.split()
                if not words:
                    continue
                op = words[0].strip("`")
                if "." in op:
                    ops.append(op)
            existing.ops = ops
            stages = c[2] if len(c) > 2 else ""
            existing.stages = [
                t for t in (s.strip().strip("`") for s in re.split(r"[, ]", stages)) if _is_stage(t)
            ]
            parts = stages.split("only on")
            existing.only_flag = (_backticked(parts[1]) or [None])[0] if len(parts) > 1 else None
        else:
            families.append(
                Family(name=name, codes=[s.strip() for s in second.split(",") if s.strip()])
            )
    return families


def _stage_matches(pattern: str, stage: str) -> bool:
    if pattern.endswith("/*"):
        prefix = pattern[:-2]
        return stage == prefix or stage.startswith(prefix + "/")
    return stage == pattern


def family_for(
    families: list[Family], op: str, stage: str | None, flags: list[str], expected: str, actual: str
) -> Family | None:
    """The first family under which `actual` substitutes for `expected`."""
    return next((f for f in families if f.covers(op, stage, flags, expected, actual)), None)
