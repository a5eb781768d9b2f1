#!/usr/bin/env python3
"""Scores cargo-mutants outcomes per module of reference/src (MUTANTS.md).

    python3 .ci/mutants-score.py DIR/mutants.out [...]   # several runs are merged, later wins

Per file: mutants, caught (split into "counted" — a normative or decision case fails, so the
default run exits non-zero — "hardening" — only hardening findings — and "advisory" — only
advisory findings of the strict profile; read from the corpus test's failure message in the
mutant's log), timeouts (the corpus test hung: caught), missed,
unviable, build timeouts (not judged), and the score caught / (caught + missed). With
--missed, every missed mutant is listed. Logs written before the test reported levels count as
"counted".
"""
import json
import os
import re
import sys
from collections import defaultdict


def load(dirs):
    merged = {}
    for d in dirs:
        with open(os.path.join(d, "outcomes.json"), encoding="utf-8") as f:
            data = json.load(f)
        for o in data.get("outcomes", []):
            sc = o.get("scenario")
            if not (isinstance(sc, dict) and "Mutant" in sc):
                continue
            m = sc["Mutant"]
            s = o.get("summary")
            phases = [p.get("phase") for p in o.get("phase_results") or []]
            if s == "Timeout" and phases and phases[-1] != "Test":
                s = "BuildTimeout"
            level = None
            if s == "CaughtMutant":
                level = "counted"
                log = os.path.join(d, o.get("log_path", ""))
                try:
                    text = open(log, encoding="utf-8", errors="replace").read()
                    n = {k: int(v) for k, v in re.findall(r"(counted|hardening|advisory) (?:failures|findings): (\d+)", text)}
                    if n and n.get("counted", 0) == 0:
                        level = "hardening" if n.get("hardening", 0) else "advisory"
                except OSError:
                    pass
            merged[m["name"]] = (m["file"], s, level)
    return merged


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_missed = "--missed" in sys.argv
    merged = load(args)
    rows = defaultdict(lambda: defaultdict(int))
    missed = []
    for name, (file, s, level) in sorted(merged.items()):
        r = rows[file]
        r["mutants"] += 1
        if s == "CaughtMutant":
            r[level] += 1
        elif s == "Timeout":
            r["timeout"] += 1
        elif s == "MissedMutant":
            r["missed"] += 1
            missed.append(name)
        elif s == "Unviable":
            r["unviable"] += 1
        else:
            r["not judged"] += 1
    print_table(rows, ["mutants", "counted", "hardening", "advisory", "timeout", "missed",
                       "unviable", "not judged"])
    if show_missed:
        print()
        for m in missed:
            print("MISSED", m)


def print_table(rows, cols, strict=False):
    """One markdown row per file of `rows` (file -> column -> count), then the total. With
    `strict`, a last column scores the mutants of the "excluded" column as missed."""
    extra = " score, exclusions as missed |" if strict else ""
    print("| module | " + " | ".join(cols) + " | score |" + extra)
    print("|---|" + "---:|" * (len(cols) + 1 + strict))
    tot = defaultdict(int)
    for file in sorted(rows):
        r = rows[file]
        for c in cols:
            tot[c] += r[c]
        name = file.removeprefix("reference/src/")
        last = f" {score(r, r['excluded'])} |" if strict else ""
        print(f"| `{name}` | " + " | ".join(str(r[c]) for c in cols) + f" | {score(r)} |" + last)
    last = f" **{score(tot, tot['excluded'])}** |" if strict else ""
    print("| **total** | " + " | ".join(f"**{tot[c]}**" for c in cols) + f" | **{score(tot)}** |"
          + last)


def score(r, also_missed=0):
    caught = r["counted"] + r["hardening"] + r["advisory"] + r["timeout"]
    judged = caught + r["missed"] + also_missed
    return f"{100 * caught / judged:.1f}%" if judged else "n/a"


if __name__ == "__main__":
    main()
