#!/usr/bin/env bash
# Container-free dry run of the ClusterFuzzLite build: runs .clusterfuzzlite/build.sh as the
# base image would (OUT, SRC, WORK set to fresh temporary directories, $SRC/delegateos-conformance
# = this checkout), then checks $OUT:
#   - every target of fuzz/Cargo.toml has an executable binary, a <target>.options with a
#     [libfuzzer] section whose dict exists in $OUT, and a <target>_seed_corpus.zip;
#   - each seed zip holds exactly the kept corpus + curated seeds (same names, same bytes),
#     with fixed timestamps (deterministic);
#   - each binary runs its unzipped seed corpus once (-runs=0) without a crash; with
#     SANITIZER=coverage it must also write an LLVM profile (.profraw) doing so.
#
#   bash fuzz/cfl-dry-run.sh                    # SANITIZER=address (reuses fuzz/target)
#   SANITIZER=coverage bash fuzz/cfl-dry-run.sh # the coverage build (own target dir)
#   KEEP=1 bash fuzz/cfl-dry-run.sh             # keep the temporary OUT/SRC/WORK
#
# Not covered by a dry run: the base image itself (its `cargo` wrapper, compiler flags) and the
# ClusterFuzzLite actions; see docs/clusterfuzzlite.md.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd -P)"
SANITIZER="${SANITIZER:-address}"
tmp="$(mktemp -d)"
if [ "${KEEP:-0}" = 1 ]; then echo "temporary dirs kept in $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi
export OUT="$tmp/out" SRC="$tmp/src" WORK="$tmp/work" SANITIZER
export DELEGATEOS_FUZZ_NO_WRAPPER=1 RUSTC_BOOTSTRAP=1
mkdir -p "$OUT" "$SRC" "$WORK"
ln -s "$repo" "$SRC/delegateos-conformance"
cp "$repo/.clusterfuzzlite/build.sh" "$SRC/build.sh"

start=$(date +%s)
(cd "$SRC" && bash "$SRC/build.sh")
echo "build.sh ($SANITIZER): $(($(date +%s) - start)) s"

python3 - "$repo" "$OUT" "$WORK" "$SANITIZER" <<'EOF'
import configparser, glob, os, subprocess, sys, zipfile
repo, out, work, sanitizer = sys.argv[1:]
sys.path.insert(0, os.path.join(repo, "fuzz"))
from campaign import TARGETS, corpus_files, read_kept
errors = []
for t in TARGETS:
    exe = os.path.join(out, t)
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        errors.append(f"{t}: no executable $OUT/{t}")
        continue
    if open(exe, "rb").read(4) != b"\x7fELF":
        errors.append(f"{t}: $OUT/{t} is not an ELF binary")
    opts = configparser.ConfigParser()
    try:
        opts.read(os.path.join(out, t + ".options"))
        d = opts["libfuzzer"]["dict"]
        if not os.path.isfile(os.path.join(out, d)):
            errors.append(f"{t}: options name dict {d}, missing in $OUT")
        for k in ("timeout", "rss_limit_mb", "max_len"):
            int(opts["libfuzzer"][k])
    except Exception as e:
        errors.append(f"{t}: bad {t}.options ({e!r})")
    z = os.path.join(out, t + "_seed_corpus.zip")
    if not os.path.isfile(z):
        errors.append(f"{t}: no {t}_seed_corpus.zip")
        continue
    want = dict(read_kept(t))
    d = os.path.join(repo, "fuzz", "seeds", t)
    for f in corpus_files(d):
        want.setdefault(f, open(os.path.join(d, f), "rb").read())
    with zipfile.ZipFile(z) as zf:
        got = {i.filename: zf.read(i) for i in zf.infolist()}
        if any(i.date_time != (1980, 1, 1, 0, 0, 0) for i in zf.infolist()):
            errors.append(f"{t}: seed zip entries without the fixed timestamp")
        if got != want:
            errors.append(f"{t}: seed zip has {len(got)} files, kept corpus + seeds {len(want)} (or contents differ)")
        unz = os.path.join(work, "seed", t)
        zf.extractall(unz)
    env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(work, "prof", t + "-%p.profraw"))
    r = subprocess.run([exe, "-runs=0", "-rss_limit_mb=2048", "-timeout=10", unz],
                       capture_output=True, env=env)
    if r.returncode != 0:
        errors.append(f"{t}: running the seed corpus failed (exit {r.returncode}): "
                      + r.stderr.decode(errors="replace")[-600:])
    if sanitizer == "coverage" and not glob.glob(os.path.join(work, "prof", t + "-*.profraw")):
        errors.append(f"{t}: coverage build wrote no .profraw")
    print(f"{t}: binary, options, dict, seed zip ({len(got)} inputs) ok" if r.returncode == 0 else f"{t}: FAILED")
for e in errors:
    print("dry run: " + e)
sys.exit(1 if errors else 0)
EOF
echo "cfl dry run ($SANITIZER): ok"
