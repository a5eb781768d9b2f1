#!/usr/bin/env bash
# Line coverage of reference/src by the kept corpora (fuzz/corpus/<target>.zip, unpacked into
# fuzz/target/corpus/<target>/) + the curated seeds (fuzz/seeds/<target>/).
#
#   bash fuzz/coverage.sh                 # every target
#   bash fuzz/coverage.sh glob,canonical  # some targets (the union then covers only those)
#
# Per target: `cargo fuzz coverage` (instrumented build, every corpus input run once, profile in
# fuzz/coverage/<target>/coverage.profdata, gitignored). Then coverage_report.py runs llvm-cov
# (per target, and the union over all targets: merged profiles + every binary as an -object) and
# writes fuzz/coverage.tsv (lines/covered per scope × module of reference/src) and
# fuzz/uncovered.tsv (the uncovered lines of the key modules), and re-renders FUZZING.md.
#
# llvm-cov/llvm-profdata must match rustc's LLVM: `rustup component add llvm-tools-preview`
# puts them in the sysroot (used by default); LLVM_COV / LLVM_PROFDATA override.
set -euo pipefail
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1

host="$(rustc -vV | sed -n 's/^host: //p')"
tools="$(rustc --print sysroot)/lib/rustlib/$host/bin"
LLVM_COV="${LLVM_COV:-$tools/llvm-cov}"
LLVM_PROFDATA="${LLVM_PROFDATA:-$tools/llvm-profdata}"
for t in "$LLVM_COV" "$LLVM_PROFDATA"; do
    if [ ! -x "$t" ]; then
        echo "missing $t: rustup component add llvm-tools-preview (or set LLVM_COV/LLVM_PROFDATA to LLVM $(rustc -vV | sed -n 's/^LLVM version: //p'))" >&2
        exit 2
    fi
done

if [ "${1:-all}" = all ]; then
    targets="$(python3 -c 'import campaign; print(",".join(campaign.TARGETS))')"
else
    targets="$1"
fi

for target in ${targets//,/ }; do
    dirs=("$(python3 campaign.py unpack "$target")")
    [ -d "seeds/$target" ] && dirs+=("seeds/$target")
    echo "== coverage: $target"
    nice -n 10 cargo fuzz coverage -O --debug-assertions --sanitizer none "$target" "${dirs[@]}" \
        -- -rss_limit_mb=2048 -timeout=10 >"coverage-$target.log" 2>&1 || {
        tail -n 30 "coverage-$target.log"
        rm -f "coverage-$target.log"
        exit 1
    }
    rm -f "coverage-$target.log"
done

python3 coverage_report.py --llvm-cov "$LLVM_COV" --llvm-profdata "$LLVM_PROFDATA" --targets "$targets"
python3 render_fuzzing.py
