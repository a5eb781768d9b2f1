//! Issue 46: the `mcp` text report reads like `run`'s. Its first line is the verdict with the
//! exit status (`… — <proxy>: PASSED (exit 0)`), the totals follow at once, and the last line
//! repeats verdict and totals; the exit status the first line states is the one `mcp` returns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use delegateos_conform::report::mcp::{render, McpCase, McpFormat, McpReport};
use delegateos_conform::runner::Status;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn case(id: &str, status: Status) -> McpCase {
    McpCase {
        id: id.to_owned(),
        description: String::new(),
        requirements: vec![],
        status,
        message: (status != Status::Passed).then(|| "the proxy forwarded it".to_owned()),
        stderr_tail: None,
        duration_ms: 1.0,
        record: Value::Null,
    }
}

fn report(cases: Vec<McpCase>, stale: Vec<String>, interrupted: Option<&str>) -> McpReport {
    McpReport {
        proxy: "my-proxy --config {config}".to_owned(),
        duration_ms: 10.0,
        cases,
        stale,
        findings: vec![],
        interrupted: interrupted.map(str::to_owned),
    }
}

#[test]
fn mcp_text_report_opens_with_the_verdict() {
    let failed = report(
        vec![case("mcp-a", Status::Passed), case("mcp-b", Status::Failed)],
        vec![],
        None,
    );
    let text = render(&failed, McpFormat::Text);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("DelegateOS MCP proxy conformance — my-proxy --config {config}: FAILED (exit 1)"),
        "{text}"
    );
    assert_eq!(
        lines.next(),
        Some("1 passed, 1 failed, 0 errored, 0 skipped, 0 xfail"),
        "{text}"
    );
    assert!(
        text.trim_end().ends_with(
            "FAILED (exit 1): 1 passed, 1 failed, 0 errored, 0 skipped, 0 xfail (0.0 s)"
        ),
        "{text}"
    );
    let stale = report(
        vec![case("mcp-a", Status::Passed)],
        vec!["mcp-a".into()],
        None,
    );
    assert!(render(&stale, McpFormat::Text)
        .lines()
        .next()
        .unwrap()
        .ends_with(": STALE BASELINE (exit 2)"));
    let cut = report(vec![case("mcp-a", Status::Errored)], vec![], Some("SIGINT"));
    assert!(render(&cut, McpFormat::Text)
        .lines()
        .next()
        .unwrap()
        .ends_with(": INTERRUPTED by SIGINT, partial (exit 130)"));
}

/// The real command against the reference proxy: the first line says PASSED (exit 0) and the
/// process exits 0.
#[test]
fn mcp_reference_proxy_first_line_is_the_verdict() {
    let proxy = format!("'{BIN}' reference-proxy --config {{config}}");
    let out = Command::new(BIN)
        .args([
            "mcp",
            "--no-progress",
            "--id",
            "mcp-handshake",
            "--proxy",
            &proxy,
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let first = stdout.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        format!("DelegateOS MCP proxy conformance — {proxy}: PASSED (exit 0)"),
        "{stdout}"
    );
}
