#!/usr/bin/env python3
"""Renders the generated part of FUZZING.md from the committed ledgers.

    python3 fuzz/render_fuzzing.py           # rewrite FUZZING.md
    python3 fuzz/render_fuzzing.py --check   # exit 1 if FUZZING.md is not what the ledgers give

Inputs (all committed): fuzz/campaigns.tsv (one row per target per campaign, campaign.py),
fuzz/coverage.tsv and fuzz/uncovered.tsv (coverage.sh). The text between the
`<!-- generated:begin -->` and `<!-- generated:end -->` markers is replaced; everything else in
FUZZING.md is hand-written and kept. Deterministic: no clock, no environment, sorted output.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.join(ROOT, "FUZZING.md")
BEGIN, END = "<!-- generated:begin -->", "<!-- generated:end -->"
sys.path.insert(0, HERE)
from campaign import TARGETS, CAP_BYTES, CAPS  # noqa: E402

# Cumulative CPU goal per target (issue 29 part 3), seconds.
GOAL = {t: 3600 for t in ["token_decode", "verify_chain", "glob", "canonical", "checks", "revocation"]}
KEY_MODULES = ["token.rs", "verify.rs", "glob.rs", "canonical.rs", "json.rs", "revocation.rs"]


def read_tsv(path):
    if not os.path.exists(path):
        return []
    lines = [l.rstrip("\n") for l in open(path, encoding="utf-8") if l.strip() and not l.startswith("#")]
    if not lines:
        return []
    head = lines[0].split("\t")
    return [dict(zip(head, l.split("\t"))) for l in lines[1:]]


def meta(path):
    if not os.path.exists(path):
        return []
    return [l[1:].strip() for l in open(path, encoding="utf-8") if l.startswith("#")]


def hms(sec):
    sec = int(sec)
    return f"{sec // 3600}:{sec % 3600 // 60:02d}:{sec % 60:02d}"


def n(x):
    return f"{int(x):,}".replace(",", " ")


def pct(cov, tot):
    return "—" if int(tot) == 0 else f"{100.0 * int(cov) / int(tot):.1f} %"


def render():
    rows = read_tsv(os.path.join(HERE, "campaigns.tsv"))
    cov = read_tsv(os.path.join(HERE, "coverage.tsv"))
    unc = read_tsv(os.path.join(HERE, "uncovered.tsv"))
    out = [BEGIN, "", "<!-- rendered by fuzz/render_fuzzing.py from fuzz/campaigns.tsv, fuzz/coverage.tsv, fuzz/uncovered.tsv; do not edit by hand -->", ""]

    out += ["### Campaigns per target (fuzz/campaigns.tsv)", "",
            "CPU time is user+sys of the libFuzzer process (`wait4`), summed over every campaign; "
            "executions are summed; features (`ft:`) and edges (`cov:`) are libFuzzer's final "
            "counts of the **latest** campaign (each campaign starts from the kept corpus, so "
            "they ratchet); the corpus is the kept, minimized corpus after the latest campaign "
            f"(cap {CAP_BYTES // (1024 * 1024)} MiB per target, "
            + ", ".join(f"`{t}` {c // (1024 * 1024)} MiB" for t, c in sorted(CAPS.items()))
            + "); findings = crash, timeout, leak "
            "and OOM artifacts.", "",
            "| target | campaigns | CPU time | goal | executions | features | edges | corpus files | corpus bytes | findings | last campaign |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    total_cpu = 0
    for t in TARGETS:
        rs = [r for r in rows if r["target"] == t]
        goal = GOAL.get(t, 1200)
        if not rs:
            out.append(f"| `{t}` | 0 | 0:00:00 | {hms(goal)} (0 %) | 0 | — | — | — | — | 0 | — |")
            continue
        cpu = sum(int(r["cpu_seconds"]) for r in rs)
        total_cpu += cpu
        last = rs[-1]
        out.append(
            f"| `{t}` | {len(rs)} | {hms(cpu)} | {hms(goal)} ({min(100, 100 * cpu // goal)} %) | "
            f"{n(sum(int(r['executions']) for r in rs))} | {n(last['features'])} | {n(last['edges'])} | "
            f"{n(last['corpus_files'])} | {n(last['corpus_bytes'])} | {sum(int(r['crashes']) for r in rs)} | {last['date']} |")
    out += ["", f"Total CPU time: {hms(total_cpu)}.", ""]

    if cov:
        out += ["### Line coverage of `reference/src` by the kept corpora (fuzz/coverage.tsv)", ""]
        for m in meta(os.path.join(HERE, "coverage.tsv")):
            out.append(f"_{m}_")
            out.append("")
        modules = sorted({r["module"] for r in cov if r["module"] != "TOTAL"})
        union = {r["module"]: r for r in cov if r["scope"] == "all"}
        out += ["Per module, union of all targets (modules no target reaches show 0 %):", "",
                "| module | lines | covered | line coverage |", "|---|---:|---:|---:|"]
        for m in modules + ["TOTAL"]:
            r = union.get(m)
            if r:
                name = "**total**" if m == "TOTAL" else f"`{m}`"
                out.append(f"| {name} | {r['lines']} | {r['covered']} | {pct(r['covered'], r['lines'])} |")
        out += ["", "Per target (line coverage of all of `reference/src`, and of the key modules):", ""]
        out += ["| target | reference/src | " + " | ".join(f"`{m}`" for m in KEY_MODULES) + " |",
                "|---|---:|" + "---:|" * len(KEY_MODULES)]
        by = {(r["scope"], r["module"]): r for r in cov}
        for t in TARGETS:
            if (t, "TOTAL") not in by:
                continue
            cells = [pct(by[(t, "TOTAL")]["covered"], by[(t, "TOTAL")]["lines"])]
            for m in KEY_MODULES:
                r = by.get((t, m))
                cells.append(pct(r["covered"], r["lines"]) if r else "0.0 %")
            out.append(f"| `{t}` | " + " | ".join(cells) + " |")
        out.append("")
    if unc:
        out += ["### Uncovered code regions of the key modules (union of all targets; fuzz/uncovered.tsv)", "",
                "Regions with an execution count of 0 (llvm-cov; `line:col–line:col`, then the source "
                "line the region starts on). Explanations below.", ""]
        for m in KEY_MODULES:
            rs = [r for r in unc if r["module"] == m]
            rs.sort(key=lambda r: (int(r["line"]), int(r["col"]), int(r["end_line"]), int(r["end_col"])))
            if not rs:
                out.append(f"- `{m}`: none")
                continue
            out.append(f"- `{m}`:")
            for r in rs:
                out.append(f"  - {r['line']}:{r['col']}–{r['end_line']}:{r['end_col']} `{r['code']}`")
        out.append("")
    out.append(END)
    return "\n".join(out)


def main():
    check = "--check" in sys.argv[1:]
    text = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else f"# Fuzzing\n\n{BEGIN}\n{END}\n"
    if BEGIN not in text or END not in text:
        raise SystemExit("FUZZING.md lacks the generated:begin/end markers")
    pre, rest = text.split(BEGIN, 1)
    _, post = rest.split(END, 1)
    new = pre + render() + post
    if check:
        if new != text:
            print("FUZZING.md is stale: run python3 fuzz/render_fuzzing.py")
            return 1
        print("FUZZING.md matches the ledgers")
        return 0
    if new != text:
        with open(OUT, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
