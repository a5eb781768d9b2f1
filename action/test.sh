#!/usr/bin/env bash
# Local test of the composite action (action.yml): executes its steps as the GitHub runner would,
# with the runner's environment variables, in three scenarios (the reference passes, a defective
# implementation fails after its reports are written, an adapter that cannot start is a setup
# error). Installs its one dependency (PyYAML, pinned) into a throwaway venv.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(mktemp -d)/venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check 'PyYAML==6.0.2'
"$venv/bin/python" action/test_action.py
rm -rf "$(dirname "$venv")"
