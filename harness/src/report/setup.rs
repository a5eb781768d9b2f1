//! The report files of a run that could not start (a setup error, exit 3), or was interrupted
//! before its adapter answered `hello`: every file the command line asked for (`--output`,
//! `--report FORMAT=FILE`) is still written, with one errored entry giving the reason, so a CI
//! test tab shows the failure instead of nothing or the previous run.
//!
//! The contents are deliberately minimal and independent of the run report (`super::Report`,
//! which renders real runs): JSON valid against `spec/schemas/report.schema.json` (one `errored` case
//! `setup-error`, `exit_code` 3 as the process), JUnit XML with one `<error type="setup_error">`, Markdown, HTML (escaped,
//! no script, no network), a red shields.io badge ("setup error") and text.

use serde_json::{json, Value};

use super::escape::xml;
use super::Format;

/// The id of the one errored entry.
pub const SETUP_CASE_ID: &str = "setup-error";

/// The report of a failed setup in `format`.
pub fn render(format: Format, command: &str, vectors: &str, reason: &str) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&json_report(command, vectors, reason))
                .unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Junit => junit(reason),
        Format::Badge => super::badge::render(super::badge::RUN_LABEL, "setup error", 3),
        Format::Markdown => format!(
            "# DelegateOS conformance: setup error\n\n**Verdict: setup error (exit 3)**: no case \
             ran.\n\n- Adapter command: `{}`\n- Vectors: `{}`\n\n```text\n{}\n```\n",
            command.replace('`', "'"),
            vectors.replace('`', "'"),
            reason.replace("```", "'''")
        ),
        Format::Html => format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'\">\
             <title>DelegateOS conformance: setup error</title></head>\n<body>\
             <h1>DelegateOS conformance: setup error</h1>\n<p><strong>Verdict: setup error \
             (exit 3)</strong>: no case ran.</p>\n<p>Adapter command: <code>{}</code></p>\n\
             <pre>{}</pre>\n</body></html>\n",
            xml(command),
            xml(reason)
        ),
        Format::Text => format!(
            "DelegateOS conformance: setup error (exit 3), no case ran\nadapter command: \
             {command}\nvectors: {vectors}\n\n{reason}\n"
        ),
    }
}

/// The JSON report (schema `delegateos-conform-report/1`) of a failed setup.
pub fn json_report(command: &str, vectors: &str, reason: &str) -> Value {
    let counts = json!({
        "total": 1, "passed": 0, "failed": 0, "skipped": 0, "acceptable": 0, "xfail": 0,
        "stale": 0, "errored": 1, "other_code": 0
    });
    let empty = json!({
        "total": 0, "passed": 0, "failed": 0, "skipped": 0, "acceptable": 0, "xfail": 0,
        "stale": 0, "errored": 0, "other_code": 0
    });
    json!({
        "schema": "delegateos-conform-report/1",
        "critical": [],
        "severity_model": crate::findings::SEVERITY_MODEL,
        "findings": [],
        "hardening": {"fail_on_hardening": false, "totals": empty, "cases": []},
        "harness": {"name": "delegateos-conform", "version": env!("CARGO_PKG_VERSION")},
        "protocol": crate::protocol::PROTOCOL_VERSION,
        "implementation": {"name": "(not started)", "version": "(unknown)"},
        "operations": [],
        "command": command,
        "vectors": vectors,
        "filter": {"ids": [], "requirements": [], "areas": [], "groups": [], "flags": [], "ops": []},
        "profile": "delegateos-v0.1",
        "advisory": {"fail_on_advisory": false, "totals": empty, "cases": []},
        "duration_ms": 0,
        "interrupted": crate::runner::interrupt::interrupted().map(crate::runner::interrupt::signal_name),
        "restarts": 0,
        "totals": counts,
        "sections": [{"section": "(setup)", "counts": counts}],
        "cases": [{
            "id": SETUP_CASE_ID,
            "description": "the run could not start",
            "area": "setup",
            "group": "setup",
            "file": "",
            "op": "",
            "requirements": [],
            "flags": [],
            "section": "(setup)",
            "level": "normative",
            "status": "errored",
            "raw_status": "errored",
            "message": format!("setup error: {reason}"),
            "input_bytes": 0,
            "duration_ms": 0
        }],
        "incidents": [],
        "expected_failures": {"entries": 0, "unused": []},
        "coverage": {"total": 0, "executed": 0, "not_executed": [], "unknown": [], "skipped_operations": []},
        "exit_code": crate::exit::ConformExitCode::SETUP_ERROR
    })
}

fn junit(reason: &str) -> String {
    let first = reason.lines().next().unwrap_or_default();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"delegateos-conform\" \
         tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n  <testsuite name=\"setup\" \
         tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n    <testcase \
         classname=\"setup\" name=\"{SETUP_CASE_ID}\">\n      <error type=\"setup_error\" \
         message=\"setup error: {}\">{}</error>\n    </testcase>\n  </testsuite>\n\
         </testsuites>\n",
        xml(first),
        xml(reason)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_names_the_reason() {
        // The badge says `setup error` only: a badge has no room for the reason.
        for f in Format::ALL.into_iter().filter(|f| *f != Format::Badge) {
            assert!(render(f, "cmd", "v", "boom <x>").contains("boom"), "{f:?}");
        }
        let badge: Value = serde_json::from_str(&render(Format::Badge, "c", "v", "boom")).unwrap();
        assert_eq!(badge["schemaVersion"], 1);
        assert_eq!(badge["message"], "setup error");
        let html = render(
            Format::Html,
            "<script>x</script>",
            "v",
            "</pre><img src=x onerror=alert(1)>",
        );
        assert!(
            !html.contains("<script>x") && !html.contains("<img"),
            "{html}"
        );
    }
}
