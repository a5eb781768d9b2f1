//! The MCP proxy suite's report (`delegateos-conform mcp`, `spec/schemas/mcp-report.schema.json`)
//! in text, JSON, JUnit, Markdown, HTML ([`html`]) and a shields.io badge, and the report of a suite that
//! could not be set up. The suite (`crate::mcp`) runs the cases and grades them; this module
//! only writes what it is given, with the report layer's escapers ([`super::escape`]).

use std::fmt::Write as _;

use serde_json::{json, Value};

pub mod html;

use super::escape::{markdown_cell, xml};
use super::findings_view;
use crate::findings::{self, Finding};
use crate::runner::Status;

/// Identifies the JSON report format (`spec/schemas/mcp-report.schema.json`).
pub const REPORT_SCHEMA: &str = "delegateos-mcp-report/1";

/// The formats of `mcp` are the one set ([`super::Format`], [`super::format::MCP`]).
pub use super::Format;

/// One proxy case as the report shows it.
#[derive(Debug, Clone)]
pub struct McpCase {
    /// Case id.
    pub id: String,
    /// What the case checks.
    pub description: String,
    /// Requirement ids.
    pub requirements: Vec<String>,
    /// Its status after the expected-failures baseline (`passed`, `failed`, `errored`,
    /// `skipped`, `xfail` or `stale`).
    pub status: Status,
    /// Why it failed, errored or was skipped.
    pub message: Option<String>,
    /// The proxy's stderr tail.
    pub stderr_tail: Option<String>,
    /// Wall time.
    pub duration_ms: f64,
    /// The suite's own record of the case: an entry of the JSON report's `cases`, to which the
    /// report adds `result` (the status).
    pub record: Value,
}

/// What the MCP report shows.
#[derive(Debug, Clone)]
pub struct McpReport {
    /// The proxy command template.
    pub proxy: String,
    /// Total wall time.
    pub duration_ms: f64,
    /// Every case, in suite order.
    pub cases: Vec<McpCase>,
    /// Baseline problems: expected failures that passed, entries that match no case.
    pub stale: Vec<String>,
    /// The failing cases grouped by root cause (`spec/severity.md`).
    pub findings: Vec<Finding>,
    /// The signal that interrupted the suite, by name.
    pub interrupted: Option<String>,
}

impl McpReport {
    /// Cases with `status`.
    pub fn count(&self, status: Status) -> usize {
        self.cases.iter().filter(|c| c.status == status).count()
    }

    /// The exit status `mcp` returns for this report (`crate::mcp::cli`): 130 interrupted, 1 a
    /// failed or errored case, 2 a stale baseline, 0 otherwise.
    pub fn exit_code(&self) -> u8 {
        if self.interrupted.is_some() {
            130
        } else if self.count(Status::Failed) + self.count(Status::Errored) > 0 {
            1
        } else if !self.stale.is_empty() {
            2
        } else {
            0
        }
    }

    /// The verdict `run` prints first, for the same exit status: `PASSED`, `FAILED`, `STALE
    /// BASELINE` or `INTERRUPTED by SIGINT, partial`.
    pub fn verdict(&self) -> String {
        match (&self.interrupted, self.exit_code()) {
            (Some(sig), _) => format!("INTERRUPTED by {sig}, partial"),
            (None, 0) => "PASSED".to_owned(),
            (None, 2) => "STALE BASELINE".to_owned(),
            (None, _) => "FAILED".to_owned(),
        }
    }

    /// The totals, as the first and last lines of the text report give them.
    fn totals_line(&self) -> String {
        format!(
            "{} passed, {} failed, {} errored, {} skipped, {} xfail",
            self.count(Status::Passed),
            self.count(Status::Failed),
            self.count(Status::Errored),
            self.count(Status::Skipped),
            self.count(Status::Xfail),
        )
    }
}

/// Renders the report in `format`.
pub fn render(r: &McpReport, format: Format) -> String {
    match format {
        Format::Json => json_report(r),
        Format::Junit => junit(r),
        Format::Markdown => markdown(r),
        Format::Html => html::render(r),
        Format::Text => text(r),
        Format::Badge => {
            let tally = super::badge::Tally {
                passed: r.count(Status::Passed),
                failing: r.count(Status::Failed) + r.count(Status::Errored),
                skipped: r.count(Status::Skipped),
                total: r.cases.len(),
            };
            let message = super::badge::message(tally);
            super::badge::render(super::badge::MCP_LABEL, &message, i32::from(r.exit_code()))
        }
    }
}

fn json_report(r: &McpReport) -> String {
    let count = |s| r.count(s);
    let cases: Vec<Value> = r
        .cases
        .iter()
        .map(|c| {
            let mut v = c.record.clone();
            v["result"] = json!(c.status.name());
            v
        })
        .collect();
    let mut doc = json!({
        "schema": REPORT_SCHEMA,
        "proxy": r.proxy,
        "durationMs": r.duration_ms,
        "counts": {"total": r.cases.len(), "passed": count(Status::Passed), "failed": count(Status::Failed),
            "errored": count(Status::Errored), "skipped": count(Status::Skipped), "xfail": count(Status::Xfail), "stale": count(Status::Stale)},
        "stale": r.stale,
        "cases": cases,
    });
    if let Some(signal) = &r.interrupted {
        doc["interrupted"] = json!(signal);
    }
    doc["severityModel"] = json!(findings::SEVERITY_MODEL);
    doc["findings"] = json!(r.findings);
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

fn junit(r: &McpReport) -> String {
    let count = |s| r.count(s);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuite name=\"delegateos-mcp\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
        r.cases.len(),
        count(Status::Failed) + count(Status::Stale),
        count(Status::Errored),
        count(Status::Skipped) + count(Status::Xfail),
        r.duration_ms / 1000.0
    );
    for c in &r.cases {
        let _ = write!(
            out,
            "  <testcase classname=\"mcp\" name=\"{}\" time=\"{:.3}\"",
            xml(&c.id),
            c.duration_ms / 1000.0
        );
        let msg = xml(c.message.as_deref().unwrap_or(""));
        let body = match c.status {
            Status::Failed | Status::Stale => format!("<failure message=\"{msg}\"/>"),
            Status::Errored => format!("<error message=\"{msg}\"/>"),
            Status::Skipped | Status::Xfail => format!("<skipped message=\"{msg}\"/>"),
            _ => String::new(),
        };
        if body.is_empty() {
            out.push_str("/>\n");
        } else {
            let _ = writeln!(out, ">{body}</testcase>");
        }
    }
    out.push_str("</testsuite>\n");
    out
}

fn markdown(r: &McpReport) -> String {
    let count = |s| r.count(s);
    // The findings as `run` shows them, first.
    let mut head = String::new();
    findings_view::markdown_table(&mut head, &r.findings, findings::SEVERITY_MODEL);
    let mut out = head + &format!(
        "## MCP proxy conformance\n\n`{}`: {} passed, {} failed, {} errored, {} skipped, {} xfail\n\n| case | result | requirements | message |\n|---|---|---|---|\n",
        r.proxy,
        count(Status::Passed),
        count(Status::Failed),
        count(Status::Errored),
        count(Status::Skipped),
        count(Status::Xfail)
    );
    for c in &r.cases {
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            c.id,
            c.status.name(),
            c.requirements.join(", "),
            markdown_cell(c.message.as_deref().unwrap_or(""))
        );
    }
    out
}

/// Reads like `run`'s: the verdict and exit status first, then the totals and what ran.
fn text(r: &McpReport) -> String {
    let mut out = format!(
        "DelegateOS MCP proxy conformance — {}: {} (exit {})\n{}\n",
        r.proxy,
        r.verdict(),
        r.exit_code(),
        r.totals_line()
    );
    // The findings as `run` shows them: an index, then each in detail.
    let [c, ..] = findings::tally(&r.findings);
    if c == 0 {
        out.push_str("Critical findings: none\n");
    }
    if !r.findings.is_empty() {
        findings_view::text_index(&mut out, &r.findings, findings::SEVERITY_MODEL);
        findings_view::text_detail(&mut out, &r.findings);
        out.push('\n');
    }
    for c in &r.cases {
        let _ = writeln!(
            out,
            "  {:<8} {:<40} {:>8.0} ms",
            c.status.name(),
            c.id,
            c.duration_ms
        );
        if let Some(m) = &c.message {
            if c.status != Status::Passed {
                let _ = writeln!(out, "           {m}");
            }
        }
        // Every violation the case observed and went on past, by its tag (`case#tag`); the
        // first is the case's message when it did not stop at a failure of its own.
        let observed = c.record["observed"].as_array().into_iter().flatten();
        for o in observed.filter(|o| o["message"].as_str() != c.message.as_deref()) {
            let _ = writeln!(
                out,
                "           #{}: {}",
                o["tag"].as_str().unwrap_or_default(),
                o["message"].as_str().unwrap_or_default()
            );
        }
        if let Some(t) = &c.stderr_tail {
            let _ = writeln!(
                out,
                "           proxy stderr: {}",
                t.trim_end().replace('\n', "\n             ")
            );
        }
    }
    for s in &r.stale {
        let _ = writeln!(out, "  STALE {s}");
    }
    if let Some(signal) = &r.interrupted {
        let _ = writeln!(out, "INTERRUPTED by {signal}: unfinished cases are errored");
    }
    let _ = writeln!(
        out,
        "\n{} (exit {}): {} ({:.1} s)",
        r.verdict(),
        r.exit_code(),
        r.totals_line(),
        r.duration_ms / 1000.0
    );
    out
}

/// A suite that could not be set up, as a report in `format`: one errored entry with the
/// reason (`text`), the proxy's stderr tail in the JSON report.
pub fn render_setup_error(
    proxy: &str,
    message: &str,
    stderr_tail: Option<&str>,
    text: &str,
    interrupted: Option<&str>,
    format: Format,
) -> String {
    match format {
        Format::Json => {
            let doc = json!({
                "schema": REPORT_SCHEMA,
                "proxy": proxy,
                "durationMs": 0.0,
                "setupError": {"message": message, "stderrTail": stderr_tail},
                "interrupted": interrupted,
                "counts": {"total": 0, "passed": 0, "failed": 0, "errored": 0, "skipped": 0, "xfail": 0, "stale": 0},
                "stale": [],
                "cases": [],
                "severityModel": findings::SEVERITY_MODEL,
                "findings": [],
            });
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        }
        Format::Junit => format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"delegateos-mcp\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n  <testcase classname=\"mcp\" name=\"setup\"><error message=\"{}\"/></testcase>\n</testsuite>\n",
            xml(text)
        ),
        Format::Markdown => format!(
            "## MCP proxy conformance\n\n`{proxy}`: **setup error**\n\n```\n{text}\n```\n"
        ),
        Format::Text => format!(
            "DelegateOS MCP proxy conformance — {proxy}: SETUP ERROR (exit 3)\n{text}\n"
        ),
        Format::Badge => super::badge::render(super::badge::MCP_LABEL, "setup error", 3),
        Format::Html => {
            use super::page::{esc, page_end, page_start};
            format!(
                "{}<h1>DelegateOS MCP proxy conformance</h1>\n<p><code>{}</code></p>\n\
                 <div id=\"verdict\" class=\"verdict fail\">SETUP ERROR</div>\n\
                 <pre id=\"setup-error\">{}</pre>\n{}",
                page_start("DelegateOS MCP proxy conformance"),
                esc(proxy),
                esc(text),
                page_end(&esc(env!("CARGO_PKG_NAME")))
            )
        }
    }
}
