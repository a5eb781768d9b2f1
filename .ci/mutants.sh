#!/usr/bin/env bash
# The corpus's teeth, with cargo-mutants (issue 14; MUTANTS.md):
#   (a) the curated, named mutants of .ci/teeth-mutants.txt, one entry per weakening the reference
#       once carried as a fault switch: every entry must select at least one viable mutant and
#       every selected mutant must be caught by the committed corpus alone, by a counted case
#       (.cargo/mutants.toml runs only vectors/tests/corpus_only.rs per mutant);
#   (b) when the branch differs from its merge base (BASE, else `git merge-base HEAD
#       origin/main`), `cargo mutants --in-diff` on the change to reference/src: no survivor
#       (caught by any judged case, hardening findings included, as MUTANTS.md scores);
#   (c) first, .cargo/mutants.toml excludes as equivalent exactly the mutants listed in
#       .ci/mutants-excluded.txt (.ci/mutants-lists.sh).
# Exit 0 when all three hold, 1 otherwise. Installs cargo-mutants if it is missing.
#
#   bash .ci/mutants.sh                 # curated set, plus the diff against origin/main if any
#   BASE=main bash .ci/mutants.sh       # diff against another base
#   SKIP_DIFF=1 bash .ci/mutants.sh     # curated set only
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"

MUTANTS_VERSION="27.1.0"
JOBS="${MUTANTS_JOBS:-2}"
# --baseline=skip: cargo-mutants 27 runs the unmutated baseline in the mutated package, where the
# corpus test does not live (see .cargo/mutants.toml); the unmutated corpus passes in `cargo test`.
# Each build directory starts cold (no --copy-target: target/ is many GB), so the first mutant of
# each job builds the corpus test's dependencies; on a loaded 2-core machine that can exceed 600 s.
BUILD_TIMEOUT="${MUTANTS_BUILD_TIMEOUT:-600}"
common=(--baseline=skip -j "$JOBS" --timeout 90 --build-timeout "$BUILD_TIMEOUT" -f 'reference/src/**/*.rs')

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "==> installing cargo-mutants $MUTANTS_VERSION"
    cargo install cargo-mutants --locked --version "$MUTANTS_VERSION"
fi
echo "==> $(cargo mutants --version)"

echo "==> the config's equivalent exclusions are exactly .ci/mutants-excluded.txt"
bash .ci/mutants-lists.sh "$root/target/mutants-lists"

# Judges an outcomes.json: prints every mutant with its outcome; with a list file (NAME REGEX per
# line), also each entry's mutants. Fails on any missed mutant, on a mutant whose build timed out
# (not judged), and on an entry without a viable mutant. A timeout of the corpus test counts as
# caught: an implementation that hangs fails its case.
judge() {
    python3 - "$@" <<'PY'
import json, re, sys

outcomes_path = sys.argv[1]
list_path = sys.argv[2] if len(sys.argv) > 2 else None
with open(outcomes_path, encoding="utf-8") as f:
    data = json.load(f)
summary = {}
for o in data.get("outcomes", []):
    sc = o.get("scenario")
    if isinstance(sc, dict) and "Mutant" in sc:
        s = o.get("summary")
        phases = [p.get("phase") for p in o.get("phase_results") or [] if isinstance(p, dict)]
        if s == "Timeout" and phases and phases[-1] != "Test":
            s = "BuildTimeout"
        summary[sc["Mutant"]["name"]] = s
CAUGHT = {"CaughtMutant", "Timeout"}
bad = []
if list_path:
    entries = []
    with open(list_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, regex = line.split(None, 1)
            entries.append((name, re.compile(regex)))
    for name, rx in entries:
        mine = sorted(m for m in summary if rx.search(m))
        viable = [m for m in mine if summary[m] != "Unviable"]
        verdicts = ", ".join(f"{m.split(': ', 1)[1]} [{summary[m]}]" for m in mine) or "no mutant"
        ok = bool(viable) and all(summary[m] in CAUGHT for m in viable)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {verdicts}")
        if not ok:
            bad.append(name)
    missed = [m for m, s in summary.items() if s == "MissedMutant"]
else:
    for m, s in sorted(summary.items()):
        print(f"{s:14} {m}")
    missed = [m for m, s in summary.items() if s == "MissedMutant"]
    bad.extend(missed)
unjudged = [m for m, s in summary.items() if s == "BuildTimeout"]
bad.extend(unjudged)
for m in unjudged:
    print("BUILD TIMED OUT (not judged; raise MUTANTS_BUILD_TIMEOUT):", m)
counts = {}
for s in summary.values():
    counts[s] = counts.get(s, 0) + 1
print("mutants:", len(summary), ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
for m in missed:
    print("MISSED:", m)
if bad:
    print("FAILED:", ", ".join(sorted(set(bad))))
    sys.exit(1)
PY
}

# cargo-mutants exits 0 (all caught), 2 (missed), 3 (timeouts); anything else is a failure to
# run, which must not pass as "nothing missed".
run_mutants() {
    local rc=0
    cargo mutants "${common[@]}" "$@" || rc=$?
    case "$rc" in
        0 | 2 | 3) return 0 ;;
        *)
            echo "cargo mutants failed to run (exit $rc)" >&2
            return 1
            ;;
    esac
}

status=0

# (a) The curated set.
list=".ci/teeth-mutants.txt"
res=()
while read -r name regex; do
    case "$name" in '' | '#'*) continue ;; esac
    if [ -z "$regex" ]; then
        echo "$list: entry $name has no regex" >&2
        exit 1
    fi
    res+=(--re "$regex")
done <"$list"
out_a="$root/target/mutants-teeth"
rm -rf "$out_a"
mkdir -p "$out_a"
echo "==> curated teeth mutants ($((${#res[@]} / 2)) entries)"
start=$(date +%s)
# Each former fault made the default run fail, so its mutants must be caught by a counted
# (normative or decision) case, not only by a hardening finding (vectors/tests/corpus_only.rs).
DELEGATEOS_CORPUS_LEVELS=counted run_mutants "${res[@]}" --output "$out_a"
echo "curated set: $(($(date +%s) - start)) s"
judge "$out_a/mutants.out/outcomes.json" "$list" || status=1

# (b) The change against its merge base, restricted to reference/src.
base="${BASE:-}"
if [ -z "$base" ] && git rev-parse --verify -q origin/main >/dev/null; then
    base="$(git merge-base HEAD origin/main)"
fi
if [ -n "${SKIP_DIFF:-}" ]; then
    echo "==> diff mutants: skipped (SKIP_DIFF)"
elif [ -z "$base" ]; then
    echo "==> diff mutants: skipped (no BASE and no origin/main)"
elif [ "$(git rev-parse "$base^{commit}")" = "$(git rev-parse HEAD)" ] && git diff --quiet HEAD -- reference/src; then
    echo "==> diff mutants: skipped (HEAD is the merge base $base)"
else
    out_b="$root/target/mutants-diff"
    rm -rf "$out_b"
    mkdir -p "$out_b"
    git diff "$base" -- reference/src >"$out_b/change.diff"
    if [ ! -s "$out_b/change.diff" ]; then
        echo "==> diff mutants: reference/src unchanged since $base"
    else
        echo "==> diff mutants: reference/src changes since $base"
        start=$(date +%s)
        run_mutants --in-diff "$out_b/change.diff" --output "$out_b"
        echo "diff set: $(($(date +%s) - start)) s"
        if [ -f "$out_b/mutants.out/outcomes.json" ]; then
            judge "$out_b/mutants.out/outcomes.json" || status=1
        else
            echo "no mutant in the changed lines"
        fi
    fi
fi

exit "$status"
