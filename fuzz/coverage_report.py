#!/usr/bin/env python3
"""llvm-cov over the profiles `cargo fuzz coverage` left in fuzz/coverage/<target>/ (coverage.sh).

Writes (committed, deterministic in the profiles):
  fuzz/coverage.tsv   scope (target, or `all` = union of the targets) × module of reference/src:
                      lines, covered (llvm-cov's line summary); module `TOTAL` = all of reference/src
  fuzz/uncovered.tsv  module, line: lines of the key modules with execution count 0 in the union
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
from campaign import CORPUS, corpus_files  # noqa: E402


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
    cmd = [llvm_cov, "show", "-instr-profile=" + profdata, "-show-instantiations=false",
           "-use-color=false", binaries[0]]
    for b in binaries[1:]:
        cmd += ["-object", b]
    cmd.append(os.path.join(SRC, module))
    text = subprocess.run(cmd, check=True, capture_output=True).stdout.decode(errors="replace")
    lines = []
    for row in text.splitlines():
        parts = row.split("|", 2)
        if len(parts) < 3:
            continue
        num, count = parts[0].strip(), parts[1].strip()
        if num.isdigit() and count == "0":
            lines.append(int(num))
    return sorted(set(lines))


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
        unc = [(m, line) for m in KEY_MODULES for line in uncovered(a.llvm_cov, merged, binaries, m)]
    digest = hashlib.sha1()
    nfiles = 0
    for t in targets:
        for f in corpus_files(os.path.join(CORPUS, t)):
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
        f.write("module\tline\n")
        for m, line in unc:
            f.write(f"{m}\t{line}\n")
    for r in rows:
        if r[0] == "all" and (r[1] in KEY_MODULES or r[1] == "TOTAL"):
            print(f"{r[1]}: {r[3]}/{r[2]} lines ({100.0 * r[3] / max(1, r[2]):.1f} %)")


if __name__ == "__main__":
    main()
