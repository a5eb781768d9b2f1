#!/usr/bin/env bash
# Fuzz smoke test for CI: build every cargo-fuzz target once and run each for a short, bounded
# time starting from its kept corpus (fuzz/corpus/<target>.zip, committed; unpacked into a
# temporary directory). Fails on any crash, oracle violation, timeout or OOM, on a kept corpus
# that breaks its rules (canonical archive, names = SHA-1, size cap), if FUZZING.md is not what
# the ledgers render, and if the run changed a kept archive. Stable toolchain (RUSTC_BOOTSTRAP lets cargo-fuzz pass its -Z sanitizer flags).
#
#   bash fuzz/ci.sh            # 20 s per target (.ci/run passes FUZZ_SECONDS=10)
#   FUZZ_SECONDS=300 bash fuzz/ci.sh
#
# Corpus directories, in libFuzzer order: a fresh temporary directory (the only one libFuzzer
# writes new inputs into), then read-only: the kept corpus (unpacked), the curated seeds, and the inputs
# seeds.py extracts from ../vectors (so a vector added since the last campaign is fuzzed too).
# Growing the kept corpus is a campaign's job (campaign.sh), never CI's.
set -euo pipefail
cd "$(dirname "$0")"

SECONDS_PER_TARGET="${FUZZ_SECONDS:-20}"
export RUSTC_BOOTSTRAP=1

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

cargo fuzz build -O --debug-assertions

python3 campaign.py check
python3 render_fuzzing.py --check

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
kept_before="$(find corpus -type f -print0 | sort -z | xargs -0 sha1sum)"
unpack_start=$SECONDS
python3 campaign.py unpack all --to "$tmp/kept" >/dev/null
echo "kept corpora unpacked into $tmp/kept: $(find "$tmp/kept" -type f | wc -l) inputs, $((SECONDS - unpack_start)) s"

status=0
# The vector-derived seeds are part of the smoke test: a failure here fails it (it used to
# warn, and the seeds went missing unnoticed while manifest.json broke the extraction).
if ! python3 seeds.py --out "$tmp/vectors" >/dev/null; then
    echo "FAILED: seed extraction from the vectors (python3 fuzz/seeds.py)"
    status=1
fi
for target in $(cargo fuzz list); do
    dirs=("$tmp/kept/$target")
    [ -d "seeds/$target" ] && dirs+=("seeds/$target")
    [ -d "$tmp/vectors/$target" ] && dirs+=("$tmp/vectors/$target")
    mapfile -t flags < <(python3 campaign.py flags "$target")
    mkdir -p "$tmp/new/$target" "artifacts/$target"
    echo "== $target (${SECONDS_PER_TARGET}s)"
    if ! "target/x86_64-unknown-linux-gnu/release/$target" "$tmp/new/$target" "${dirs[@]}" \
        "${flags[@]}" -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 \
        -artifact_prefix="artifacts/$target/" 2>"$tmp/$target.log"; then
        echo "FAILED: $target (crash input under fuzz/artifacts/$target/)"
        tail -n 60 "$tmp/$target.log"
        status=1
    else
        grep -E "^(INFO: seed corpus|stat::number_of_executed_units|stat::average_exec_per_sec|#[0-9]+ *DONE)" \
            "$tmp/$target.log" || true
    fi
done

kept_after="$(find corpus -type f -print0 | sort -z | xargs -0 sha1sum)"
if [ "$kept_before" != "$kept_after" ]; then
    echo "FAILED: the run changed a kept corpus archive under fuzz/corpus/ (CI must only read it)"
    diff <(echo "$kept_before") <(echo "$kept_after") | head -n 20
    status=1
fi
exit $status
