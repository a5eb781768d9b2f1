#!/usr/bin/env bash
# Step 3 of action.yml: install delegateos-conform into DELEGATEOS_INSTALL_ROOT (from prepare.sh;
# default $RUNNER_TEMP/delegateos-conform) and put it on the PATH of the following steps
# ($GITHUB_PATH). When step 2 restored that directory from the cache (DELEGATEOS_CACHE_HIT=true)
# and the binary runs, nothing is built. Otherwise: build the action's own checkout (the version
# pinned in `uses: …@vX`); DELEGATEOS_VERSION=X.Y.Z installs that version from crates.io instead.
set -euo pipefail
: "${GITHUB_ACTION_PATH:?set by the runner: the checkout of the action}"
: "${GITHUB_PATH:?set by the runner: a file of directories to prepend to PATH}"
root="${DELEGATEOS_INSTALL_ROOT:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/delegateos-conform}"
bin="$root/bin/delegateos-conform"
if [ "${DELEGATEOS_CACHE_HIT:-}" = true ]; then
    if "$bin" --version >/dev/null 2>&1; then
        echo "delegateos-conform restored from the cache: nothing to build"
        echo "$root/bin" >> "$GITHUB_PATH"
        "$bin" --version
        exit 0
    fi
    echo "::warning::the cached delegateos-conform does not run here: building it"
fi
read -r -a flags <<< "${DELEGATEOS_CARGO_INSTALL_FLAGS:-}"
if ! command -v cargo >/dev/null 2>&1; then
    echo "::error::cargo not found: add a Rust toolchain step (e.g. dtolnay/rust-toolchain@stable) before this action"
    exit 2
fi
if [ -n "${DELEGATEOS_VERSION:-}" ]; then
    cargo install --locked --root "$root" ${flags[@]+"${flags[@]}"} delegateos-conform --version "=${DELEGATEOS_VERSION}"
else
    cargo install --locked --root "$root" ${flags[@]+"${flags[@]}"} --path "$GITHUB_ACTION_PATH/harness"
fi
echo "$root/bin" >> "$GITHUB_PATH"
"$bin" --version
