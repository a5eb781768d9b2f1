#!/usr/bin/env bash
# Mutation adequacy of the code that decides verdicts and severities (issue 26): the judge and
# the code families (vectors/src/judge.rs, families.rs), the severity model
# (vectors/src/severity.rs), the outcome, its one assess and exit rule (vectors/src/outcome.rs), how a mutated token is graded (vectors/src/differential.rs) and the finding grouping (harness/src/findings.rs), each against its
# own tests — vectors/tests/judge_rules.rs, vectors/tests/severity_model.rs and the unit tests.
# Not run by CI (about 40 minutes on two cores); results in MUTANTS.md.
#
#   bash .ci/mutants-verdicts.sh               # every mutant
#   bash .ci/mutants-verdicts.sh --shard 1/3   # a round-robin third (add --sharding round-robin)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked
out="${MUTANTS_OUT:-target/mutants-verdicts}"
mkdir -p "$out"
cargo mutants --no-config --baseline=skip --timeout 120 --build-timeout 900 \
    -f vectors/src/judge.rs -f vectors/src/families.rs -f vectors/src/severity.rs \
    -f vectors/src/outcome.rs -f vectors/src/differential.rs \
    -o "$out/vectors" "$@" -- --lib --test judge_rules --test severity_model --test number_rule
cargo mutants --no-config --baseline=skip --timeout 120 --build-timeout 900 \
    -f harness/src/findings.rs -o "$out/harness" "$@" -- --lib findings
