#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script (regex-crate style), called by .clusterfuzzlite/build.sh.
#
# Builds every cargo-fuzz target and puts into $OUT, per target:
#   <target>                  the libFuzzer binary
#   <target>.options          libFuzzer options (campaign.py options: timeout, rss_limit_mb,
#                             max_len, dict; verify_chain's len_control/max_len)
#   <target>.dict             its dictionary (fuzz/dict/<target>.dict, else token.dict)
#   <target>_seed_corpus.zip  the kept corpus fuzz/corpus/<target>.zip + the curated seeds
#                             fuzz/seeds/<target>/ (deterministic zip: sorted, fixed timestamps,
#                             deflated)
#
# $SANITIZER selects the build, as the OSS-Fuzz/ClusterFuzzLite base image sets it:
#   address (default), undefined, memory: `cargo fuzz build -O --debug-assertions`, ASan by
#     cargo-fuzz's default (the base image's RUSTFLAGS add the others);
#   coverage: `cargo fuzz build -O`, which the base-builder-rust image's `cargo` wrapper turns
#     into a source-based coverage build (-Cinstrument-coverage) in the same output directory;
#     this is what ClusterFuzzLite's `coverage` mode and the coverage reports of batch runs use.
#     Outside the image (no wrapper: DELEGATEOS_FUZZ_NO_WRAPPER=1, as in cfl-dry-run.sh), the
#     script builds the coverage binaries with `cargo fuzz coverage` (the build coverage.sh
#     uses, so it is shared; each target runs one empty input, which overwrites the
#     intermediate fuzz/coverage/<target>/ profiles) and ships those.
set -euo pipefail # also when run as `bash oss-fuzz-build.sh` (the shebang's -eu is then ignored)
cd "$(dirname "$0")"
: "${OUT:?OUT must be set (the OSS-Fuzz/ClusterFuzzLite output directory)}"
SANITIZER="${SANITIZER:-address}"
triple=x86_64-unknown-linux-gnu
bin_dir="target/$triple/release"

if [ "$SANITIZER" = coverage ]; then
    if [ "${DELEGATEOS_FUZZ_NO_WRAPPER:-0}" = 1 ]; then
        empty="$(mktemp -d)"
        : >"$empty/empty-input" # cargo fuzz coverage refuses an empty corpus directory
        for target in $(cargo fuzz list); do
            cargo fuzz coverage -O --debug-assertions --sanitizer none "$target" "$empty" >/dev/null
        done
        rm -rf "$empty"
        bin_dir="target/$triple/coverage/$triple/release"
    else
        cargo fuzz build -O
    fi
else
    cargo fuzz build -O --debug-assertions
fi

for target in $(cargo fuzz list); do
    cp "$bin_dir/$target" "$OUT/"
    cp "$(python3 campaign.py dict "$target")" "$OUT/$target.dict"
    python3 campaign.py options "$target" >"$OUT/$target.options"
    python3 - "$OUT/${target}_seed_corpus.zip" "$target" "seeds/$target" <<'EOF'
import os, sys, zipfile
sys.path.insert(0, os.getcwd())
from campaign import read_kept
out, target, seeds = sys.argv[1:]
files = dict(read_kept(target))
if os.path.isdir(seeds):
    for f in os.listdir(seeds):
        p = os.path.join(seeds, f)
        if os.path.isfile(p):
            files.setdefault(f, open(p, "rb").read())
if files:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, files[name])
EOF
done
