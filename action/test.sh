#!/usr/bin/env bash
# Local test of the composite action (action.yml): executes its steps as the GitHub runner would,
# with the runner's environment variables. First checks that the exit codes action.yml,
# action/verdict.sh, action/README.md and README.md list are exactly harness/src/exit.rs's, and
# that default artifact names do not collide; then five scenarios as jobs of one workflow run
# sharing one emulated Actions cache (the reference passes and fills the cache, a defective
# implementation fails after its reports are uploaded and restores the binary from the cache, a
# stale baseline exits 2, a usage error 64, an adapter that cannot start is a setup error with
# the cache off). Installs its one dependency (PyYAML, pinned) into a throwaway venv.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(mktemp -d)/venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check 'PyYAML==6.0.2'
"$venv/bin/python" action/test_action.py
rm -rf "$(dirname "$venv")"
