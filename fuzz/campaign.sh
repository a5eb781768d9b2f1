#!/usr/bin/env bash
# Fuzz campaign over the kept corpora: TARGETS (comma-separated or `all`) × MINUTES each, one
# libFuzzer process per core (--jobs N), nice -n 19; then merge + minimize (cmin) into
# fuzz/corpus/<target>.zip (re-packed), enforce the size cap, append to fuzz/campaigns.tsv, render FUZZING.md.
#
#   bash fuzz/campaign.sh token_decode,verify_chain 30
#   bash fuzz/campaign.sh all 20 --jobs 1 --note "session 2026-11-26"
#
# Details: python3 fuzz/campaign.py --help.
set -euo pipefail
exec python3 "$(dirname "$0")/campaign.py" run "$@"
