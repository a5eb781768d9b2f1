#!/usr/bin/env python3
"""The per-module mutation table of MUTANTS.md, for today's reference, from several runs.

    bash .ci/mutants-lists.sh DIR      # DIR/current.json, and DIR/full.json (with equivalents)
    python3 .ci/mutants-table.py DIR/current.json RUN1/mutants.out RUN2/mutants.out ... \
        [--full DIR/full.json] [--missed]                                  # runs oldest first

Measuring every module at once takes hours on two cores, so the table is assembled: each
mutant of today's list (current.json) takes its outcome from the NEWEST run that tested a
mutant with the same identity — file plus the name without its line and column ("replace >
with >= in check_structure"; identical names in one file are matched in order). That is sound
when every later run re-tests (a) the lines changed since an older run measured them
(`cargo mutants --in-diff`) and (b) every mutant an older run did not catch (the corpus only
grows, so a caught mutant stays caught — except where a case was made more permissive, which
the re-test of (b) does not cover; MUTANTS.md lists those). A mutant no run tested is "not
measured" and counts against nothing; the table shows how many there are.

Columns as in .ci/mutants-score.py: caught by a counted case, only by a hardening finding, only
by an advisory finding (strict profile), timeouts (the corpus test hung: caught), missed,
unviable, build timeouts (not judged). Score = caught / (caught + missed).

With `--full`, a list made without the "Equivalent mutants" section of .cargo/mutants.toml,
the column "excluded" counts per module the mutants that section excludes, and a last column
scores them as if they were missed (nothing hidden: each one is argued in the config and in
MUTANTS.md).
"""
import json
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
score_mod = __import__("mutants-score")


def identity(name):
    m = re.match(r"^([^:]+):\d+:\d+: (.*)$", name)
    return (m.group(1), m.group(2)) if m else (name, "")


def main():
    argv = sys.argv[1:]
    full = None
    if "--full" in argv:
        i = argv.index("--full")
        full = json.load(open(argv[i + 1], encoding="utf-8"))
        del argv[i:i + 2]
    args = [a for a in argv if not a.startswith("--")]
    current = json.load(open(args[0], encoding="utf-8"))
    runs = args[1:]
    # identity -> list of (run index, outcome) in run order
    seen = defaultdict(list)
    for i, run in enumerate(runs):
        per_run = defaultdict(list)
        for name, (file, s, level) in score_mod.load([run]).items():
            per_run[identity(name)].append((s, level, name, run))
        for k, v in per_run.items():
            seen[k].append(v)
    rows = defaultdict(lambda: defaultdict(int))
    missed, unmeasured = [], []
    used = defaultdict(int)
    for m in current:
        k = identity(m["name"])
        r = rows[m["file"]]
        r["mutants"] += 1
        outcome = None
        if seen[k]:
            newest = seen[k][-1]
            j = used[k]
            used[k] += 1
            outcome = newest[min(j, len(newest) - 1)]
        if outcome is None:
            r["not measured"] += 1
            unmeasured.append(m["name"])
            continue
        s, level, _, run = outcome
        if s == "CaughtMutant":
            r[level] += 1
        elif s == "Timeout":
            r["timeout"] += 1
        elif s == "MissedMutant":
            r["missed"] += 1
            missed.append((m["name"], run))
        elif s == "Unviable":
            r["unviable"] += 1
        else:
            r["not judged"] += 1
    cols = ["mutants", "counted", "hardening", "advisory", "timeout", "missed", "unviable",
            "not judged", "not measured"]
    excluded = []
    if full is not None:
        left = defaultdict(int)
        for m in current:
            left[identity(m["name"])] += 1
        for m in full:
            k = identity(m["name"])
            if left[k]:
                left[k] -= 1
            else:
                rows[m["file"]]["excluded"] += 1
                excluded.append(m["name"])
        cols.append("excluded")
    score_mod.print_table(rows, cols, strict=full is not None)
    if "--missed" in sys.argv:
        print()
        for name, run in missed:
            print("MISSED", name, "   #", run)
        for name in unmeasured:
            print("NOT MEASURED", name)
        for name in excluded:
            print("EXCLUDED", name)


if __name__ == "__main__":
    main()
