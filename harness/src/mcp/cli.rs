//! `delegateos-conform mcp`: arguments, reports and exit codes of the MCP proxy suite.
//!
//! Exit codes are those of `delegateos-conform run`: 0 all selected cases passed (skips and
//! expected failures allowed), 1 a case failed or errored, 2 the expected-failures baseline is
//! stale, 3 setup error (mock upstream missing, baseline unreadable), 64 usage.
//! The baseline format is the shared one (`crate::expected`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args as ClapArgs, ValueEnum};
use serde_json::json;

use super::suite::{
    run_suite, CaseResult, MockCommand, SmokeUpstream, Status, SuiteOptions, SuiteReport,
};
use crate::expected::ExpectedFailures;

/// Exit status: every selected case passed.
pub const EXIT_OK: u8 = 0;
/// Exit status: a case failed or errored.
pub const EXIT_FAILURES: u8 = 1;
/// Exit status: an expected failure passed, or a baseline entry matches no case.
pub const EXIT_STALE: u8 = 2;
/// Exit status: the suite could not be set up.
pub const EXIT_SETUP: u8 = 3;

/// Report formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum McpFormat {
    /// Human-readable summary.
    Text,
    /// Machine-readable JSON.
    Json,
    /// JUnit XML.
    Junit,
    /// Markdown table for CI pages.
    Markdown,
}

/// Arguments of `delegateos-conform mcp`.
#[derive(Debug, Clone, ClapArgs)]
pub struct Args {
    /// Proxy command; `{config}` is replaced by the launch-config path (spec/mcp-proxy.md).
    #[arg(long)]
    pub proxy: String,
    /// Also run the strict-mode cases (the proxy is launched with `"strict": true`).
    #[arg(long)]
    pub strict_mode_cases: bool,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: McpFormat,
    /// Expected-failures baseline (`<id-or-glob> <reason>` per line).
    #[arg(long)]
    pub expected_failures: Option<PathBuf>,
    /// Only cases whose id matches this glob.
    #[arg(long)]
    pub id: Option<String>,
    /// A `delegateos-conform` executable whose `mock-upstream` subcommand serves as the
    /// recording upstream (default: this executable).
    #[arg(long)]
    pub mock_upstream: Option<PathBuf>,
    /// Directory containing `node_modules/@modelcontextprotocol/server-everything` for the
    /// smoke cases (default: `harness/mcp-smoke` if present). Smoke cases skip without it.
    #[arg(long)]
    pub smoke_dir: Option<PathBuf>,
    /// Deadline of one case, in seconds.
    #[arg(long, default_value_t = 120)]
    pub case_timeout: u64,
}

/// Finds server-everything under `dir` and a `node` on PATH.
pub fn find_smoke(dir: Option<&Path>) -> Option<SmokeUpstream> {
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/mcp-smoke")),
    };
    let entry = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !entry.is_file() {
        return None;
    }
    let node_ok = std::process::Command::new("node")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    node_ok.then(|| SmokeUpstream {
        node: "node".into(),
        entry,
    })
}

/// Applies the baseline: returns (final statuses per case, stale messages).
fn apply_baseline(
    report: &SuiteReport,
    baseline: Option<&ExpectedFailures>,
) -> (Vec<(String, &'static str)>, Vec<String>) {
    let mut labels = Vec::new();
    let mut stale = Vec::new();
    for c in &report.cases {
        let entry = baseline.and_then(|b| b.lookup(&c.id));
        let label = match (c.status, entry) {
            (Status::Failed | Status::Errored, Some(_)) => "xfail",
            (Status::Passed, Some(e)) => {
                stale.push(format!(
                    "{} passed but is listed as expected to fail ({})",
                    c.id, e.reason
                ));
                "stale"
            }
            (Status::Passed, None) => "passed",
            (Status::Failed, None) => "failed",
            (Status::Errored, None) => "errored",
            (Status::Skipped, _) => "skipped",
        };
        labels.push((c.id.clone(), label));
    }
    if let Some(b) = baseline {
        let ids: Vec<&str> = report.cases.iter().map(|c| c.id.as_str()).collect();
        for e in b.unused(&ids) {
            stale.push(format!(
                "baseline entry `{}` (line {}) matches no case",
                e.pattern, e.line
            ));
        }
    }
    (labels, stale)
}

/// Renders the report.
pub fn render(
    report: &SuiteReport,
    labels: &[(String, &'static str)],
    stale: &[String],
    format: McpFormat,
) -> String {
    let label_of = |c: &CaseResult| {
        labels
            .iter()
            .find(|(id, _)| *id == c.id)
            .map_or("?", |(_, l)| *l)
    };
    let count = |l: &str| labels.iter().filter(|(_, x)| *x == l).count();
    match format {
        McpFormat::Json => {
            let cases: Vec<_> = report
                .cases
                .iter()
                .map(|c| {
                    let mut v = serde_json::to_value(c).unwrap_or_default();
                    v["result"] = json!(label_of(c));
                    v
                })
                .collect();
            let doc = json!({
                "schema": "delegateos-mcp-report/1",
                "proxy": report.proxy,
                "durationMs": report.duration_ms,
                "counts": {"total": labels.len(), "passed": count("passed"), "failed": count("failed"),
                    "errored": count("errored"), "skipped": count("skipped"), "xfail": count("xfail"), "stale": count("stale")},
                "stale": stale,
                "cases": cases,
            });
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        }
        McpFormat::Junit => {
            let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
            let _ = writeln!(
                out,
                "<testsuite name=\"delegateos-mcp\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
                labels.len(),
                count("failed") + count("stale"),
                count("errored"),
                count("skipped") + count("xfail"),
                report.duration_ms / 1000.0
            );
            for c in &report.cases {
                let _ = write!(
                    out,
                    "  <testcase classname=\"mcp\" name=\"{}\" time=\"{:.3}\"",
                    xml(&c.id),
                    c.duration_ms / 1000.0
                );
                let msg = xml(c.message.as_deref().unwrap_or(""));
                let body = match label_of(c) {
                    "failed" | "stale" => format!("<failure message=\"{msg}\"/>"),
                    "errored" => format!("<error message=\"{msg}\"/>"),
                    "skipped" | "xfail" => format!("<skipped message=\"{msg}\"/>"),
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
        McpFormat::Markdown => {
            let mut out = format!(
                "## MCP proxy conformance\n\n`{}`: {} passed, {} failed, {} errored, {} skipped, {} xfail\n\n| case | result | requirements | message |\n|---|---|---|---|\n",
                report.proxy,
                count("passed"),
                count("failed"),
                count("errored"),
                count("skipped"),
                count("xfail")
            );
            for c in &report.cases {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    c.id,
                    label_of(c),
                    c.requirements.join(", "),
                    c.message
                        .as_deref()
                        .unwrap_or("")
                        .replace('|', "\\|")
                        .replace('\n', " ")
                );
            }
            out
        }
        McpFormat::Text => {
            let mut out = format!("MCP proxy conformance: {}\n", report.proxy);
            for c in &report.cases {
                let _ = writeln!(
                    out,
                    "  {:<8} {:<40} {:>8.0} ms",
                    label_of(c),
                    c.id,
                    c.duration_ms
                );
                if let Some(m) = &c.message {
                    if label_of(c) != "passed" {
                        let _ = writeln!(out, "           {m}");
                    }
                }
                if let Some(t) = &c.stderr_tail {
                    let _ = writeln!(
                        out,
                        "           proxy stderr: {}",
                        t.trim_end().replace('\n', "\n             ")
                    );
                }
            }
            for s in stale {
                let _ = writeln!(out, "  STALE {s}");
            }
            let _ = writeln!(
                out,
                "{} passed, {} failed, {} errored, {} skipped, {} xfail ({:.1} s)",
                count("passed"),
                count("failed"),
                count("errored"),
                count("skipped"),
                count("xfail"),
                report.duration_ms / 1000.0
            );
            out
        }
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Runs the suite and returns the exit status (see the module docs).
pub fn run(args: &Args) -> (String, u8) {
    let mock = match &args.mock_upstream {
        Some(p) => MockCommand::subcommand_of(p.clone()),
        None => match MockCommand::own_executable() {
            Ok(m) => m,
            Err(e) => return (format!("delegateos-conform mcp: {e}\n"), EXIT_SETUP),
        },
    };
    let baseline = match &args.expected_failures {
        None => None,
        Some(p) => match ExpectedFailures::load(p) {
            Ok(b) => Some(b),
            Err(e) => return (format!("delegateos-conform mcp: {e}\n"), EXIT_SETUP),
        },
    };
    let opts = SuiteOptions {
        proxy: args.proxy.clone(),
        mock_upstream: mock,
        strict_mode_cases: args.strict_mode_cases,
        id_glob: args.id.clone(),
        case_timeout: Duration::from_secs(args.case_timeout.max(1)),
        smoke: find_smoke(args.smoke_dir.as_deref()),
    };
    let report = run_suite(&opts);
    let (labels, stale) = apply_baseline(&report, baseline.as_ref());
    let text = render(&report, &labels, &stale, args.format);
    let failed = labels
        .iter()
        .any(|(_, l)| *l == "failed" || *l == "errored");
    let code = if failed {
        EXIT_FAILURES
    } else if !stale.is_empty() {
        EXIT_STALE
    } else {
        EXIT_OK
    };
    (text, code)
}

/// Entry point for the `mcp` subcommand: prints the report to stdout.
pub fn main_mcp(args: &Args) -> ExitCode {
    let (text, code) = run(args);
    print!("{text}");
    ExitCode::from(code)
}
