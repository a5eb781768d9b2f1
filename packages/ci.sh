#!/usr/bin/env bash
# packages/ci.sh — the npm and PyPI packages, installed as a user installs them (issue 30).
#
# For each package: build the artifact (`npm pack`; a wheel through `pip wheel` with the pinned
# hatchling of packages/python/pyproject.toml), install it from the local file into a fresh
# temporary project, run the package's unit tests and its example test suite there (the corpus
# in-process against a small implementation: packages/npm/example/tiny-impl.js under node:test,
# packages/python/example/tiny_impl.py under the pytest plugin), then run
# `delegateos-conform run --impl <an adapter wrapping the same implementation>` and require the
# same verdicts: the same status for every case id (so the same counts and the same failing
# ids) and the same exit status (the tiny implementations fail normative cases, so both sides
# must fail).
#
# Needs node ≥ 18 with npm, python3 ≥ 3.9 with venv, network access to the npm/PyPI registries
# (pytest and hatchling only), and the harness binary: $DELEGATEOS_CONFORM, else
# target/debug/delegateos-conform (built with `cargo build -p delegateos-conform` when missing).
set -euo pipefail

PYTEST_VERSION=8.4.2 # hatchling is pinned in packages/python/pyproject.toml ([build-system])
TYPESCRIPT_VERSION=5.6.3

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
START=$(date +%s)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/delegateos-packages-ci.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
step() { printf '\n== %s (%ss)\n' "$*" "$(($(date +%s) - START))"; }

CONFORM=${DELEGATEOS_CONFORM:-$ROOT/target/debug/delegateos-conform}
if [ ! -x "$CONFORM" ]; then
  step "building delegateos-conform"
  (cd "$ROOT" && cargo build -q -p delegateos-conform)
fi

# compare NAME IN_PROCESS_STATUSES IN_PROCESS_EXIT HARNESS_REPORT HARNESS_EXIT
compare() {
  python3 - "$@" <<'EOF'
import collections, json, sys
name, inproc_path, inproc_exit, report_path, harness_exit = sys.argv[1:]
inproc = json.load(open(inproc_path))
report = json.load(open(report_path))
# The JSON report lists hardening (and, under --profile strict, advisory) cases in their own
# sections (spec/schemas/report.schema.json).
listed = list(report["cases"])
for section in ("hardening", "advisory"):
    if isinstance(report.get(section), dict):
        listed += report[section].get("cases", [])
harness = {c["id"]: c["status"] for c in listed}
problems = []
if set(inproc) != set(harness):
    only_in, only_h = sorted(set(inproc) - set(harness)), sorted(set(harness) - set(inproc))
    problems.append(f"case sets differ: only in-process {only_in[:10]}, only harness {only_h[:10]}")
differ = sorted(i for i in set(inproc) & set(harness) if inproc[i] != harness[i])
for i in differ[:20]:
    problems.append(f"{i}: in-process {inproc[i]}, harness {harness[i]}")
counts = lambda d: dict(sorted(collections.Counter(d.values()).items()))
failing = lambda d: sorted(i for i, s in d.items() if s in ("failed", "errored", "other_code"))
print(f"{name}: {len(inproc)} cases")
print(f"  in-process counts: {counts(inproc)}  exit {inproc_exit}")
print(f"  harness    counts: {counts(harness)}  exit {harness_exit}")
print(f"  failing ids: {len(failing(inproc))} in-process, {len(failing(harness))} harness, identical: {failing(inproc) == failing(harness)}")
if (inproc_exit == "0") != (harness_exit == "0"):
    problems.append(f"exit statuses disagree: in-process {inproc_exit}, harness {harness_exit}")
if harness_exit not in ("0", "1"):
    problems.append(f"harness exit {harness_exit}: not a conformance verdict")
if counts(inproc).get("passed", 0) == 0 or not failing(inproc):
    problems.append("the example must pass some cases and fail some (it checks nothing otherwise)")
if problems:
    print("\n".join(f"  MISMATCH {p}" for p in problems))
    sys.exit(1)
print("  identical verdicts")
EOF
}

# ---------------------------------------------------------------- npm
step "npm: types check, pack"
(cd "$ROOT/packages/npm" && node scripts/gen-types.mjs --check)
mkdir -p "$WORK/npm-dist"
(cd "$ROOT/packages/npm" && npm pack --silent --pack-destination "$WORK/npm-dist" >/dev/null)
TGZ=$(ls "$WORK"/npm-dist/delegateos-vectors-*.tgz)
echo "packed $(basename "$TGZ") ($(du -h "$TGZ" | cut -f1))"

step "npm: install into a fresh project, unit tests, node:test example"
JS="$WORK/js-project"
mkdir -p "$JS/test"
cat >"$JS/package.json" <<EOF
{ "name": "js-project", "private": true, "type": "module",
  "dependencies": { "delegateos-vectors": "file:$TGZ" },
  "devDependencies": { "typescript": "$TYPESCRIPT_VERSION" } }
EOF
(cd "$JS" && npm install --silent --no-audit --no-fund)
cp "$ROOT"/packages/npm/example/{tiny-impl.js,adapter.mjs,conformance.test.js,types-check.ts} "$JS/"
(cd "$JS" && npx tsc --noEmit --strict --module nodenext --moduleResolution nodenext --target es2022 types-check.ts)
echo "types-check.ts compiles against the packed types (typescript $TYPESCRIPT_VERSION)"
cp "$ROOT"/packages/npm/test/*.test.js "$JS/test/"
(cd "$JS" && node --test test/ >"$WORK/js-unit.log" 2>&1) || { cat "$WORK/js-unit.log"; exit 1; }
grep -E '^# (pass|fail)' "$WORK/js-unit.log" | tr '\n' ' '
echo
JS_EXIT=0
(cd "$JS" && DELEGATEOS_VERDICTS_OUT="$WORK/js-inprocess.json" node --test conformance.test.js \
  >"$WORK/js-example.log" 2>&1) || JS_EXIT=$?
grep -E '^# (tests|pass|fail|skipped|todo)' "$WORK/js-example.log" | tr '\n' ' '
echo

step "npm: delegateos-conform run --impl 'node adapter.mjs'"
H_EXIT=0
(cd "$JS" && "$CONFORM" run --impl "node $JS/adapter.mjs" --format json --output "$WORK/js-run.json" \
  >/dev/null 2>"$WORK/js-run.err") || H_EXIT=$?
compare npm "$WORK/js-inprocess.json" "$JS_EXIT" "$WORK/js-run.json" "$H_EXIT"

# ---------------------------------------------------------------- PyPI
step "python: venv (pytest $PYTEST_VERSION), wheel"
python3 -m venv "$WORK/venv"
PY="$WORK/venv/bin/python"
"$PY" -m pip install -q --disable-pip-version-check "pytest==$PYTEST_VERSION"
# Build from a copy, so the build leaves nothing in the checkout but the (gitignored) staged data.
cp -r "$ROOT/packages/python" "$WORK/python-src"
rm -rf "$WORK/python-src/src/delegateos_vectors/data"
DELEGATEOS_KIT_ROOT="$ROOT" "$PY" -m pip wheel -q --disable-pip-version-check --no-deps \
  -w "$WORK/py-dist" "$WORK/python-src"
WHL=$(ls "$WORK"/py-dist/delegateos_vectors-*.whl)
echo "built $(basename "$WHL") ($(du -h "$WHL" | cut -f1))"

step "python: install into a fresh project, unit tests, pytest plugin"
"$PY" -m pip install -q --disable-pip-version-check "$WHL"
PYP="$WORK/py-project"
mkdir -p "$PYP/tests"
cp "$ROOT"/packages/python/example/{tiny_impl.py,adapter.py} "$PYP/"
cp "$ROOT"/packages/python/tests/test_*.py "$PYP/tests/"
(cd "$PYP" && "$PY" -m pytest -q -p no:cacheprovider tests >"$WORK/py-unit.log" 2>&1) ||
  { cat "$WORK/py-unit.log"; exit 1; }
tail -1 "$WORK/py-unit.log"
PY_EXIT=0
(cd "$PYP" && "$PY" -m pytest -q -p no:cacheprovider --ignore=tests --delegateos-impl tiny_impl:TinyImpl \
  --delegateos-verdicts "$WORK/py-inprocess.json" >"$WORK/py-example.log" 2>&1) || PY_EXIT=$?
tail -1 "$WORK/py-example.log"

step "python: delegateos-conform run --impl 'python adapter.py'"
H_EXIT=0
(cd "$PYP" && "$CONFORM" run --impl "$PY $PYP/adapter.py" --format json --output "$WORK/py-run.json" \
  >/dev/null 2>"$WORK/py-run.err") || H_EXIT=$?
compare python "$WORK/py-inprocess.json" "$PY_EXIT" "$WORK/py-run.json" "$H_EXIT"

step "done"
echo "packages/ci.sh: OK in $(($(date +%s) - START)) s"
