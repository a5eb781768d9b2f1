//! Issue 18: a bounded soak of the reference proxy in HTTP mode, small enough for every test
//! run — 2,000 verified `tools/call`s from 8 concurrent sessions, each answered exactly once in
//! its own session, none lost, none duplicated. Counts only: no timing is asserted (the
//! figures for 10,000 calls from 32 sessions come from `cargo bench --bench mcp_http_soak`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_conform::mcp::soak;
use delegateos_conform::mcp::tokens::{self, cap, RootSpec};

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

#[test]
fn two_thousand_calls_from_eight_sessions_are_each_answered_once() {
    let dir = std::env::temp_dir().join(format!("delegateos-soak-test-{}", std::process::id()));
    let config = soak::write_mock_http_config(&dir, BIN).unwrap();
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let report = soak::run(
        &format!("'{BIN}' reference-proxy --config {{config}}"),
        &config,
        &tokens::envelope(&token),
        8,
        2_000,
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(report.sent, 2_000);
    assert_eq!(
        (
            report.answered_once,
            report.lost,
            report.duplicated,
            report.wrong,
            report.http_errors
        ),
        (2_000, 0, 0, 0, 0),
        "{report:?}"
    );
}
