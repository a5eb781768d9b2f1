#!/usr/bin/env python3
"""llvm-cov over the profiles `cargo fuzz coverage` left in fuzz/coverage/<target>/ (coverage.sh).

Writes (committed, deterministic in the profiles):
  fuzz/coverage.tsv   scope (target, or `all` = union of the targets) × module of reference/src:
                      lines, covered (llvm-cov's line summary); module `TOTAL` = all of reference/src
  fuzz/uncovered.tsv  module, line, col, end_line, end_col, code: code regions of the key modules
                      that no input executed (union), with the source line they start on
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SRC = os.path.join(ROOT, "reference", "src") + os.sep
KEY_MODULES = ["token.rs", "verify.rs", "glob.rs", "canonical.rs", "json.rs", "revocation.rs"]
sys.path.insert(0, HERE)
from campaign import read_kept  # noqa: E402


def cov_binary(target):
    return os.path.join(HERE, "target", "x86_64-unknown-linux-gnu", "coverage",
                        "x86_64-unknown-linux-gnu", "release", target)


def summary(llvm_cov, profdata, binaries):
    cmd = [llvm_cov, "export", "-summary-only", "-instr-profile=" + profdata, binaries[0]]
    for b in binaries[1:]:
        cmd += ["-object", b]
    data = json.loads(subprocess.run(cmd, check=True, capture_output=True).stdout)
    out = {}
    for f in data["data"][0]["files"]:
        name = os.path.realpath(f["filename"])
        if name.startswith(SRC):
            lines = f["summary"]["lines"]
            out[name[len(SRC):]] = (lines["count"], lines["covered"])
    return out


def uncovered(llvm_cov, profdata, binaries, module):
    """Code regions of `module` never executed in the union: (line, col, end line, end col).

    A region counts as executed if any function record holding it (any binary, any
    instantiation) executed it. These are the regions behind llvm-cov's missed lines (a line is
    missed when a region starting on it never ran, e.g. an error-mapping closure)."""
    path = os.path.join(SRC, module)
    cmd = [llvm_cov, "export", "-instr-profile=" + profdata, "-skip-expansions", binaries[0]]
    for b in binaries[1:]:
        cmd += ["-object", b]
    cmd.append(path)
    data = json.loads(subprocess.run(cmd, check=True, capture_output=True).stdout)
    best = {}
    for fn in data["data"][0]["functions"]:
        names = [os.path.realpath(f) for f in fn["filenames"]]
        for r in fn["regions"]:
            line, col, eline, ecol, count, file_id, _exp, kind = r[:8]
            if kind != 0 or names[file_id] != os.path.realpath(path):
                continue
            key = (line, col, eline, ecol)
            best[key] = max(best.get(key, 0), count)
    return sorted(k for k, c in best.items() if c == 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llvm-cov", required=True)
    ap.add_argument("--llvm-profdata", required=True)
    ap.add_argument("--targets", required=True)
    a = ap.parse_args()
    targets = a.targets.split(",")
    rows = []
    profiles, binaries = [], []
    for t in targets:
        prof = os.path.join(HERE, "coverage", t, "coverage.profdata")
        b = cov_binary(t)
        if not (os.path.exists(prof) and os.path.exists(b)):
            raise SystemExit(f"no coverage profile/binary for {t}: run coverage.sh {t}")
        profiles.append(prof)
        binaries.append(b)
        per = summary(a.llvm_cov, prof, [b])
        for m in sorted(per):
            rows.append((t, m) + per[m])
        rows.append((t, "TOTAL", sum(v[0] for v in per.values()), sum(v[1] for v in per.values())))
    with tempfile.TemporaryDirectory() as tmp:
        merged = os.path.join(tmp, "all.profdata")
        subprocess.run([a.llvm_profdata, "merge", "-sparse", "-o", merged] + profiles, check=True)
        union = summary(a.llvm_cov, merged, binaries)
        for m in sorted(union):
            rows.append(("all", m) + union[m])
        rows.append(("all", "TOTAL", sum(v[0] for v in union.values()), sum(v[1] for v in union.values())))
        unc = [(m,) + r for m in KEY_MODULES for r in uncovered(a.llvm_cov, merged, binaries, m)]
    digest = hashlib.sha1()
    nfiles = 0
    for t in targets:
        for f in sorted(read_kept(t)):
            digest.update(f"{t}/{f}\n".encode())
            nfiles += 1
    version = subprocess.run([a.llvm_cov, "--version"], capture_output=True).stdout.decode()
    version = next((l.strip() for l in version.splitlines() if "version" in l.lower()), "?")
    with open(os.path.join(HERE, "coverage.tsv"), "w") as f:
        f.write(f"# kept corpora of {len(targets)} target(s): {nfiles} files, digest {digest.hexdigest()[:12]} "
                f"(SHA-1 of the sorted target/file names), plus fuzz/seeds; {version}\n")
        f.write("scope\tmodule\tlines\tcovered\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    with open(os.path.join(HERE, "uncovered.tsv"), "w") as f:
        f.write("module\tline\tcol\tend_line\tend_col\tcode\n")
        for m, line, col, eline, ecol in unc:
            src = open(os.path.join(SRC, m), encoding="utf-8").read().splitlines()
            code = " ".join(src[line - 1].split())[:70] if line <= len(src) else ""
            f.write(f"{m}\t{line}\t{col}\t{eline}\t{ecol}\t{code}\n")
    for r in rows:
        if r[0] == "all" and (r[1] in KEY_MODULES or r[1] == "TOTAL"):
            print(f"{r[1]}: {r[3]}/{r[2]} lines ({100.0 * r[3] / max(1, r[2]):.1f} %)")


if __name__ == "__main__":
    main()
