#!/bin/bash -eu
# ClusterFuzzLite build: delegate to the OSS-Fuzz style script shared with OSS-Fuzz.
set -euo pipefail
cd "$SRC/delegateos-conformance"
bash fuzz/oss-fuzz-build.sh
