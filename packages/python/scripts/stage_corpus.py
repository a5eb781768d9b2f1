#!/usr/bin/env python3
"""Stages the committed corpus into src/delegateos_vectors/data/ (run by the wheel build's hook,
hatch_build.py, so a wheel always ships the corpus of the checkout it is built in). Nothing under
data/ is committed. Fails when pyproject's version is not the kit's (corpus) version.

The file set is vectors/build.rs's: every *.json below each top-level directory of vectors/
listed by the committed vectors/manifest.json, in component-wise path order; the digest is
vectors/src/corpus.rs::digest over it and must equal the manifest's."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import struct
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent


def kit_root() -> Path:
    return Path(os.environ.get("DELEGATEOS_KIT_ROOT", PKG.parent.parent))


def stage(root: Path | None = None) -> dict:
    root = root or kit_root()
    vectors = root / "vectors"
    # The file set is the committed manifest's (vectors/manifest.json, written by
    # `vectors generate`, the same file `delegateos-conform vectors export` writes); every file
    # and the digest are checked against it below.
    committed = json.loads((vectors / "manifest.json").read_text(encoding="utf-8"))
    files: list[str] = [f["path"] for f in committed["file_list"]]
    files.sort(key=lambda p: [c.encode("utf-8") for c in p.split("/")])
    if not files:
        raise SystemExit(f"no vector files under {vectors}")
    cargo = (root / "Cargo.toml").read_text(encoding="utf-8")
    m = re.search(r'\[workspace\.package\][^\[]*?\nversion\s*=\s*"([^"]+)"', cargo)
    if not m:
        raise SystemExit("no [workspace.package] version in Cargo.toml")
    version = m.group(1)
    pyproject = (PKG / "pyproject.toml").read_text(encoding="utf-8")
    pv = re.search(r'^version\s*=\s*"([^"]+)"', pyproject, re.M)
    if not pv or pv.group(1) != version:
        raise SystemExit(f"pyproject version {pv and pv.group(1)} is not the kit's (corpus) version {version}")

    data = PKG / "src" / "delegateos_vectors" / "data"
    shutil.rmtree(data, ignore_errors=True)
    (data / "spec" / "schemas").mkdir(parents=True)
    (data / "spec" / "data").mkdir(parents=True)
    buf = bytearray()
    entries, by_area, by_level, total = [], {}, {}, 0
    for rel in files:
        raw = (vectors / rel).read_bytes()
        own = next(f["blake2b-256"] for f in committed["file_list"] if f["path"] == rel)
        if hashlib.blake2b(raw, digest_size=32).hexdigest() != own:
            raise SystemExit(f"vectors/{rel} differs from vectors/manifest.json: run vectors generate")
        buf += rel.encode("utf-8") + b"\0" + struct.pack("<Q", len(raw)) + raw
        dest = data / "vectors" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(raw)
        f = json.loads(raw)
        entries.append({"path": rel, "cases": len(f["cases"])})
        total += len(f["cases"])
        area = by_area.setdefault(f["area"], {})
        for c in f["cases"]:
            area[c["level"]] = area.get(c["level"], 0) + 1
            by_level[c["level"]] = by_level.get(c["level"], 0) + 1
    # The spec's tables the judge reads, and the number rule's cases its tests read, as data
    # (spec/data/README.md).
    for name in ("error-codes.json", "number-equality.json", "exit-rule.json"):
        shutil.copyfile(root / "spec" / "data" / name, data / "spec" / "data" / name)
    shutil.copyfile(
        root / "spec" / "schemas" / "vector.schema.json", data / "spec" / "schemas" / "vector.schema.json"
    )
    manifest = {
        "corpusVersion": version,
        "digestAlgorithm": "blake2b-256",
        "digest": hashlib.blake2b(bytes(buf), digest_size=32).hexdigest(),
        "cases": total,
        "casesByArea": by_area,
        "casesByLevel": by_level,
        "files": entries,
    }
    if manifest["digest"] != committed["digest"]["hex"] or version != committed["version"]:
        raise SystemExit("the staged corpus is not the one vectors/manifest.json describes")
    (data / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    # The committed manifest and the published test keys, as `vectors export` writes them.
    for name in ("manifest.json", "keys.json"):
        shutil.copyfile(vectors / name, data / "vectors" / name)
    print(
        f"delegateos-vectors: staged {len(files)} files, {total} cases, blake2b-256 {manifest['digest']}",
        file=sys.stderr,
    )
    return manifest


if __name__ == "__main__":
    stage()
