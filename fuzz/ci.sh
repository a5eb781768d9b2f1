#!/usr/bin/env bash
# Fuzz smoke test for CI: build every cargo-fuzz target and run each for a short, bounded time.
# Fails on any crash, oracle violation, timeout or OOM. Stable toolchain (RUSTC_BOOTSTRAP lets
# cargo-fuzz pass its -Z sanitizer flags); no nightly needed.
#
#   bash fuzz/ci.sh            # 20 s per target
#   FUZZ_SECONDS=300 bash fuzz/ci.sh
set -euo pipefail
cd "$(dirname "$0")"

SECONDS_PER_TARGET="${FUZZ_SECONDS:-20}"
export RUSTC_BOOTSTRAP=1

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi

cargo fuzz build -O --debug-assertions

# Seed corpora from the vectors (gitignored fuzz/corpus/), plus the curated seeds.
if command -v python3 >/dev/null 2>&1; then
    python3 seeds.py >/dev/null || echo "warning: seed extraction failed; fuzzing from curated seeds only"
fi

status=0
for target in $(cargo fuzz list); do
    mkdir -p "corpus/$target"
    seeds=()
    [ -d "seeds/$target" ] && seeds=("seeds/$target")
    echo "== $target (${SECONDS_PER_TARGET}s)"
    if ! cargo fuzz run -O --debug-assertions "$target" "corpus/$target" "${seeds[@]}" -- \
        -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=2048 -timeout=2 \
        -dict=dict/token.dict -print_final_stats=1 2>"artifacts-$target.log"; then
        echo "FAILED: $target (crash input under fuzz/artifacts/$target/)"
        tail -n 60 "artifacts-$target.log"
        status=1
    else
        grep -E "^(stat::number_of_executed_units|stat::average_exec_per_sec|#[0-9]+ *DONE)" \
            "artifacts-$target.log" || true
    fi
    rm -f "artifacts-$target.log"
done
exit $status
