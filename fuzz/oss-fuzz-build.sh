#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script (regex-crate style): build every cargo-fuzz target
# with debug assertions, then copy binaries, seed corpora (zip), dictionary and options to $OUT.
cd "$(dirname "$0")"
cargo fuzz build -O --debug-assertions
python3 seeds.py >/dev/null || true
for target in $(cargo fuzz list); do
    cp "target/x86_64-unknown-linux-gnu/release/$target" "$OUT/"
    cp dict/token.dict "$OUT/$target.dict"
    printf '[libfuzzer]\nmax_len = 65536\ntimeout = 2\nrss_limit_mb = 2048\ndict = %s.dict\n' "$target" >"$OUT/$target.options"
    dirs=()
    [ -d "corpus/$target" ] && dirs+=("corpus/$target")
    [ -d "seeds/$target" ] && dirs+=("seeds/$target")
    if [ ${#dirs[@]} -gt 0 ]; then
        (zip -q -j -r "$OUT/${target}_seed_corpus.zip" "${dirs[@]}") || true
    fi
done
