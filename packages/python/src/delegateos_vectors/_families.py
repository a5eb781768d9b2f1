"""Code families of spec/error-codes.md §11, read from their data file spec/data/error-codes.json
(shipped in data/spec/data/), the same file the Rust judge (vectors/src/families.rs) and the npm
package read: no table is parsed from the Markdown."""

from __future__ import annotations

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


def from_data(doc: dict) -> list[Family]:
    """The families of an error-codes.json document (already parsed)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("families"), list):
        raise ValueError('error-codes.json: no "families" list')
    return [
        Family(
            name=f["name"],
            codes=list(f["codes"]),
            ops=list(f["ops"]),
            stages=list(f["stages"]),
            only_flag=f.get("onlyFlag"),
        )
        for f in doc["families"]
    ]


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
