#!/usr/bin/env bash
# Creates implementations/python/.venv with the pinned dependencies (idempotent).
# Used by .ci/run and by harness/tests/python_adapter.rs; run it by hand before trying the
# adapter: `bash implementations/python/setup.sh`.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    exit 0
fi
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    -r "$here/requirements.txt"
echo "$want" > "$stamp"
echo "python adapter: venv ready at $venv" >&2
