#!/usr/bin/env bash
# Step 1 of action.yml: install delegateos-conform into $RUNNER_TEMP and put it on the PATH of the
# following steps ($GITHUB_PATH). Default: build the action's own checkout (the version pinned in
# `uses: …@vX`); DELEGATEOS_VERSION=X.Y.Z installs that version from crates.io instead.
set -euo pipefail
: "${GITHUB_ACTION_PATH:?set by the runner: the checkout of the action}"
: "${GITHUB_PATH:?set by the runner: a file of directories to prepend to PATH}"
root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/delegateos-conform"
read -r -a flags <<< "${DELEGATEOS_CARGO_INSTALL_FLAGS:-}"
if ! command -v cargo >/dev/null 2>&1; then
    echo "::error::cargo not found: add a Rust toolchain step (e.g. dtolnay/rust-toolchain@stable) before this action"
    exit 2
fi
if [ -n "${DELEGATEOS_VERSION:-}" ]; then
    cargo install --locked --root "$root" "${flags[@]}" delegateos-conform --version "=${DELEGATEOS_VERSION}"
else
    cargo install --locked --root "$root" "${flags[@]}" --path "$GITHUB_ACTION_PATH/harness"
fi
echo "$root/bin" >> "$GITHUB_PATH"
"$root/bin/delegateos-conform" --version
