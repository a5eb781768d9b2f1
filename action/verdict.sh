#!/usr/bin/env bash
# Step 7 of action.yml: the job fails when the suite did (after the reports were uploaded), with
# the suite's own exit code. One arm per exit code of harness/src/exit.rs (ConformExitCode), each
# marked with its constant's name: action/test_action.py checks that the arms, the `exit-code`
# output in action.yml and the table in action/README.md list exactly those codes.
set -euo pipefail
code="${DELEGATEOS_EXIT_CODE:-}"
log="see the job summary, the report artifact and the run step's log"
case "$code" in
    0) # OK
        echo "DelegateOS conformance: passed (no normative or decision case failed)" ;;
    1) # FAILURES
        echo "::error::DelegateOS conformance: exit code 1, failures: a normative or decision case failed or errored (or, with --fail-on, a hardening or advisory finding); $log" ;;
    2) # STALE_EXPECTED_FAILURES
        echo "::error::DelegateOS conformance: exit code 2, stale expected-failures baseline: no failures, but a listed case passed or an entry matches no case; remove those entries from the --expected-failures file ($log)" ;;
    3) # SETUP_ERROR
        echo "::error::DelegateOS conformance: exit code 3, setup error: the adapter (the impl input) would not start or failed the handshake, the vectors or the baseline could not be read, or the run cannot fail (hello declares no or unknown operations, every selected case was skipped, or a vector names an unknown op); $log" ;;
    64) # USAGE
        echo "::error::DelegateOS conformance: exit code 64, usage error: check the args input; see the run step's log" ;;
    130) # INTERRUPTED
        echo "::error::DelegateOS conformance: exit code 130, interrupted (SIGINT, SIGTERM or SIGHUP): the adapters were killed and partial reports written; $log" ;;
    '')
        echo "::error::DelegateOS conformance: the run step wrote no exit code (setup error)"; code=3 ;;
    *[!0-9]*)
        echo "::error::DelegateOS conformance: the run step wrote a malformed exit code '$code'"; code=1 ;;
    *)
        echo "::error::DelegateOS conformance: exit code $code, not one delegateos-conform documents (harness/src/exit.rs): the harness crashed or was killed; see the run step's log" ;;
esac
exit "$code"
