#!/usr/bin/env bash
# Step 1 of action.yml: names what the later steps share, as outputs of this step.
#   artifact-name  the `artifact-name` input, or a name unique per job:
#                  delegateos-conformance-<job id>[-<matrix job index>]-<impl slug>-<hash>
#                  (actions/upload-artifact@v4 rejects a second artifact of one name in a run);
#   install-root   where install.sh installs delegateos-conform (and the cache keeps it);
#   cache-key      the cache key of that installed binary: the runner's OS image and
#                  architecture, the cargo install flags, and either the crates.io version or a
#                  hash of the action's own sources (a new pinned ref is a new key).
set -euo pipefail
: "${GITHUB_ACTION_PATH:?set by the runner: the checkout of the action}"
: "${GITHUB_OUTPUT:?set by the runner: a file of step outputs}"

# sha256sum (Linux, Git Bash) or shasum (macOS): both print "<hex>  <path>".
if command -v sha256sum >/dev/null 2>&1; then sum=(sha256sum); else sum=(shasum -a 256); fi
sha256() { "${sum[@]}" | cut -c1-64; }

# The artifact name. GITHUB_JOB is the job's id; in a matrix the job index tells the jobs apart,
# and the hash of impl, args and report-dir tells apart two uses of the action in one job.
name="${DELEGATEOS_ARTIFACT_NAME:-}"
if [ -z "$name" ]; then
    job="${GITHUB_JOB:-job}"
    if [ "${DELEGATEOS_JOB_TOTAL:-1}" -gt 1 ] 2>/dev/null; then
        job="$job-${DELEGATEOS_JOB_INDEX:-0}"
    fi
    # Readable part: the impl command, every run of characters outside [A-Za-z0-9._-] one '-'.
    slug="$(printf '%s' "${DELEGATEOS_IMPL:-}" | LC_ALL=C tr -cs 'A-Za-z0-9._-' '-' | cut -c1-40)"
    slug="${slug#-}"
    slug="${slug%-}"
    hash="$(printf '%s\0%s\0%s' "${DELEGATEOS_IMPL:-}" "${DELEGATEOS_ARGS:-}" \
        "${DELEGATEOS_REPORT_DIR:-}" | sha256 | cut -c1-8)"
    name="delegateos-conformance-$job${slug:+-$slug}-$hash"
fi

root="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/delegateos-conform"

# The cache key. ImageOS (e.g. ubuntu24) is set on GitHub-hosted runners: a binary built on a
# newer image may need a newer glibc than an older image has.
os="${ImageOS:-${RUNNER_OS:-$(uname -s)}}"
arch="${RUNNER_ARCH:-$(uname -m)}"
flags="$(printf '%s' "${DELEGATEOS_CARGO_INSTALL_FLAGS:-}" | sha256 | cut -c1-8)"
if [ -n "${DELEGATEOS_VERSION:-}" ]; then
    source="crates-${DELEGATEOS_VERSION//,/_}"  # a cache key holds no comma
else
    # Every file of the action's checkout that cargo could build from (build outputs, the fuzz
    # workspace and VCS data excluded), by path and content.
    source="src-$(cd "$GITHUB_ACTION_PATH" && find . \
        \( -path ./target -o -path ./fuzz -o -name .git -o -name node_modules -o -name __pycache__ \) \
        -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 "${sum[@]}" | sha256 | cut -c1-16)"
fi
key="delegateos-conform-v1-$os-$arch-$source-$flags"

{
    echo "artifact-name=$name"
    echo "install-root=$root"
    echo "cache-key=$key"
} >> "$GITHUB_OUTPUT"
echo "artifact name: $name"
echo "cache key: $key"
