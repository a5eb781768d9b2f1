"""Hatchling build hook: stages the kit's committed corpus into the package before a wheel or
sdist is built (scripts/stage_corpus.py). Outside a kit checkout (building from an sdist) the
already-staged data is used."""

from __future__ import annotations

import sys
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class StageCorpus(BuildHookInterface):
    PLUGIN_NAME = "stage-corpus"

    def initialize(self, version, build_data):  # noqa: ANN001 - hatchling's signature
        root = Path(self.root)
        sys.path.insert(0, str(root / "scripts"))
        try:
            import stage_corpus
        finally:
            sys.path.pop(0)
        kit = stage_corpus.kit_root()
        if (kit / "vectors").is_dir() and (kit / "Cargo.toml").is_file():
            stage_corpus.stage(kit)
        elif not (root / "src" / "delegateos_vectors" / "data" / "manifest.json").is_file():
            raise RuntimeError("no kit checkout to stage the corpus from, and no staged corpus")
