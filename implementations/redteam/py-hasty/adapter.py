#!/usr/bin/env python3
"""RED TEAM — DELIBERATELY DEFECTIVE: the adapter of the hasty Python verifier (hasty_dos.py).

Bugs are switched by REDTEAM_BUGS (see hasty_dos.BUG_NAMES); `REDTEAM_BUGS=` is the careful
path. The protocol loop, input decoding and error mapping are the example adapter's
(implementations/python/adapter.py), run with `hasty_dos` as the library: every seeded bug
lives in the library, so a failing case points at a verifier defect, never at protocol glue.
"""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "python", "adapter.py")

sys.path.insert(0, HERE)
import hasty_dos  # noqa: E402

spec = importlib.util.spec_from_file_location("example_adapter", EXAMPLE)
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)



class Library:
    """hasty_dos as the example adapter's library: a function hasty_dos does not have (it
    implements tokens, globs, revocation and the primitives, not checks, contracts,
    attestations or the MCP proxy) is answered `skipped`, since the library cannot run that
    case; it is not the implementation throwing on the input (`threw`, a crash)."""

    def __getattr__(self, name):
        try:
            return getattr(hasty_dos, name)
        except AttributeError:
            raise example.Skip(f"hasty_dos has no {name}") from None


if __name__ == "__main__":
    example.main(
        Library(),
        {
            "name": "py-hasty (RED TEAM, deliberately defective)",
            "version": "0.1.0",
            "language": "python",
            "homepage": "implementations/redteam/README.md",
        },
    )
