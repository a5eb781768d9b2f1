#!/usr/bin/env bash
# Step 5 of action.yml: run the suite once, writing every report; the Markdown one goes to the job
# summary. Never fails the step itself: the exit code goes to $GITHUB_OUTPUT so that the reports
# are uploaded first and step 7 (verdict.sh) fails the job.
set -euo pipefail
: "${DELEGATEOS_IMPL:?the impl input: your adapter command}"
: "${GITHUB_OUTPUT:?set by the runner: a file of step outputs}"
dir="${DELEGATEOS_REPORT_DIR:-delegateos-conformance}"
mkdir -p "$dir"
read -r -a extra <<< "${DELEGATEOS_ARGS:-}"
set +e
delegateos-conform run --no-progress --impl "$DELEGATEOS_IMPL" ${extra[@]+"${extra[@]}"} \
    --report "markdown=$dir/report.md" --report "junit=$dir/junit.xml" \
    --report "html=$dir/report.html" --report "json=$dir/report.json"
code=$?
set -e
echo "delegateos-conform run exited with $code"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    if [ -s "$dir/report.md" ]; then
        # The job summary holds at most 1 MiB per step; the findings come first in the report.
        limit=$((1000 * 1024))
        if [ "$(wc -c < "$dir/report.md")" -gt "$limit" ]; then
            head -c "$limit" "$dir/report.md" >> "$GITHUB_STEP_SUMMARY"
            printf '\n\n… truncated: the whole report is report.md in the artifact.\n' >> "$GITHUB_STEP_SUMMARY"
        else
            cat "$dir/report.md" >> "$GITHUB_STEP_SUMMARY"
        fi
    else
        printf '## DelegateOS conformance\n\nNo report was written (exit code %s): see the step log.\n' \
            "$code" >> "$GITHUB_STEP_SUMMARY"
    fi
fi
echo "exit-code=$code" >> "$GITHUB_OUTPUT"
echo "report-dir=$dir" >> "$GITHUB_OUTPUT"
