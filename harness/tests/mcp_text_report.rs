//! Issue 46: the `mcp` text report reads like `run`'s. Its first line is the verdict with the
//! exit status (`… — <proxy>: PASSED (exit 0)`), the totals follow at once, and the last line
//! repeats verdict and totals; the exit status the first line states is the one `mcp` returns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

use delegateos_conform::report::mcp::{render, Format, McpCase, McpReport};
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
    let text = render(&failed, Format::Text);
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
    assert!(render(&stale, Format::Text)
        .lines()
        .next()
        .unwrap()
        .ends_with(": STALE BASELINE (exit 2)"));
    let cut = report(vec![case("mcp-a", Status::Errored)], vec![], Some("SIGINT"));
    assert!(render(&cut, Format::Text)
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

/// Issue 50: `mcp` writes every format of the one set, a badge too, coloured by its exit
/// status like `run`'s; and each command names the formats it writes when given another.
#[test]
fn mcp_writes_a_badge_and_commands_refuse_formats_they_do_not_write() {
    let badge =
        |r: &McpReport| -> Value { serde_json::from_str(&render(r, Format::Badge)).unwrap() };
    let failed = report(
        vec![
            case("mcp-a", Status::Passed),
            case("mcp-b", Status::Failed),
            case("mcp-c", Status::Skipped),
        ],
        vec![],
        None,
    );
    let b = badge(&failed);
    assert_eq!(b["schemaVersion"], 1);
    assert_eq!(b["message"], "1/2 passed, 1 failing (2 of 3 run)");
    assert_eq!(b["color"], "red");
    let passed = report(vec![case("mcp-a", Status::Passed)], vec![], None);
    assert_eq!(badge(&passed)["color"], "brightgreen");
    assert_eq!(badge(&passed)["message"], "1/1 passed");
    for (args, names) in [
        (
            &["compare", "--format", "junit", "a.json"][..],
            "[possible values: text, markdown, json, html]",
        ),
        (
            &["lint", "--format", "html", "x"][..],
            "[possible values: text, json]",
        ),
    ] {
        let out = Command::new(BIN).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(64), "{args:?}: {err}");
        assert!(err.contains(names), "{args:?}: {err}");
    }
    let out = Command::new(BIN)
        .args(["compare", "--format", "md", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success(), "md is markdown for every command");
}

/// Issue 50: `mcp` shows its findings in `run`'s vocabulary — the ranked index (`C1 CRITICAL …`),
/// then each finding in detail — and names no `explain` command for a proxy case (`explain`
/// knows corpus cases only).
#[test]
fn mcp_findings_read_as_run_findings() {
    let out = Command::new(BIN)
        .args([
            "mcp",
            "--proxy",
            &format!("{BIN} reference-proxy --fault forward-denied --config {{config}}"),
            "--id",
            "mcp-deny-capability-resource",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let index = text
        .find("\nC1   CRITICAL authorization-bypass")
        .expect(&text);
    let detail = text.find("\nFindings in detail").expect(&text);
    let case_list = text
        .find("  failed   mcp-deny-capability-resource")
        .expect(&text);
    assert!(index < detail && detail < case_list, "{text}");
    // The case's failures are each violation it observed (`case#tag`): the denied call's
    // result reached the client, no denial came, the call reached the upstream.
    for tag in ["answered", "no-denial", "forwarded"] {
        assert!(
            text.contains(&format!("mcp-deny-capability-resource#{tag}")),
            "{tag}: {text}"
        );
    }
    assert!(
        text.contains("    case: mcp-deny-capability-resource#answered — "),
        "{text}"
    );
    assert!(!text.contains("explain mcp-"), "{text}");
}
