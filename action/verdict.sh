#!/usr/bin/env bash
# Step 4 of action.yml: the job fails when the suite did (after the reports were uploaded).
set -euo pipefail
code="${DELEGATEOS_EXIT_CODE:-}"
case "$code" in
    0) echo "DelegateOS conformance: passed" ;;
    1) echo "::error::DelegateOS conformance: failures (see the job summary and the report artifact)" ;;
    '') echo "::error::DelegateOS conformance: the run step wrote no exit code"; code=3 ;;
    *) echo "::error::DelegateOS conformance: exit code $code (2 usage error, 3 setup error; see the run step's log)" ;;
esac
exit "$code"
