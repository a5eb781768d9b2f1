#!/usr/bin/env bash
# Parallel runs and fuzzing (issue 39): paired wall-time ratios with farm-bench, A and B run
# in turn so both see the same machine. Prints farm-bench's tables; BENCHMARKS.md quotes the
# medians. About 10 minutes on 2 cores.
#
#   bash harness/benches/jobs.sh            # all pairs
#   RUNS=3 bash harness/benches/jobs.sh     # fewer runs per command
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p delegateos-conform
B="$PWD/target/release/delegateos-conform"
HASTY="node $PWD/implementations/redteam/js-hasty/adapter.js"
RUNS="${RUNS:-5}"
out="$(mktemp -d)"
bench() { farm-bench -n "$RUNS" --timeout 1800 "$@"; }

echo "== 1. run, js-hasty red-team adapter (has hang cases): --jobs 2 (A) vs --jobs 1 (B)"
bench --vs "sh -c 'exec $B run --impl \"$HASTY\" --jobs 1 --no-progress --format json --output $out/h1.json'" \
  -- sh -c "exec $B run --impl \"$HASTY\" --jobs 2 --no-progress --format json --output $out/h2.json"

echo "== 2. run, built-in reference adapter (no hang case): --jobs 2 (A) vs --jobs 1 (B)"
bench --vs "sh -c 'exec $B run --jobs 1 --no-progress --format json --output $out/r1.json'" \
  -- sh -c "exec $B run --jobs 2 --no-progress --format json --output $out/r2.json"

echo "== 3. fuzz, reference adapter, 6000 cases: --jobs 2 (A) vs --jobs 1 (B) (time ratio = inverse cases/s ratio)"
bench --vs "sh -c 'exec $B fuzz --impl \"$B reference-adapter\" --seed 5 --max-cases 6000 --duration 600 --jobs 1 --out $out/f1'" \
  -- sh -c "exec $B fuzz --impl \"$B reference-adapter\" --seed 5 --max-cases 6000 --duration 600 --jobs 2 --out $out/f2"

echo "== 4. fuzz, js-hasty, 3000 cases, 2 jobs: every bug on (A) vs the careful path REDTEAM_BUGS= (B)"
bench --vs "sh -c 'exec env REDTEAM_BUGS= $B fuzz --impl \"$HASTY\" --seed 5 --max-cases 3000 --duration 600 --jobs 2 --out $out/c'" \
  -- sh -c "exec $B fuzz --impl \"$HASTY\" --seed 5 --max-cases 3000 --duration 600 --jobs 2 --out $out/b"

echo "== report equality: run --jobs 2 vs --jobs 1 (timings removed)"
python3 - "$out/h1.json" "$out/h2.json" <<'PY'
import json, re, sys
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if k != "duration_ms"}
    if isinstance(x, list): return [strip(v) for v in x]
    if isinstance(x, str): return re.sub(r" of the adapter's time \(\d+ ms more spent waiting for a CPU were not counted\)", "", x)
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
print("identical apart from timings" if a == b else "DIFFERENT")
sys.exit(0 if a == b else 1)
PY
rm -rf "$out"
