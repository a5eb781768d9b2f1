//! Issue 18 soak: 10,000 verified `tools/call`s from 32 concurrent Streamable HTTP sessions
//! through the reference proxy to the mock upstream on loopback. Prints what was lost,
//! duplicated or misrouted (all must be 0), the proxy's resident memory before and after, and
//! the throughput. `DOS_SOAK_CALLS` / `DOS_SOAK_SESSIONS` change the load.
//!
//! Run: `cargo bench -p delegateos-conform --bench mcp_http_soak`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use delegateos_conform::mcp::soak;
use delegateos_conform::mcp::tokens::{self, cap, RootSpec};

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo test --benches` runs bench targets without `--bench`: a small load only.
    let bench = std::env::args().any(|a| a == "--bench");
    let calls = if bench {
        env_or("DOS_SOAK_CALLS", 10_000)
    } else {
        200
    };
    let sessions = if bench {
        env_or("DOS_SOAK_SESSIONS", 32)
    } else {
        4
    };
    let dir = std::env::temp_dir().join(format!("delegateos-soak-{}", std::process::id()));
    let config = soak::write_mock_http_config(&dir, BIN).unwrap();
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let r = soak::run(
        &format!("'{BIN}' reference-proxy --config {{config}}"),
        &config,
        &tokens::envelope(&token),
        sessions,
        calls,
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "mcp_http_soak: {calls} verified tools/calls from {sessions} concurrent sessions: \
         answered once {}, lost {}, duplicated {}, misrouted or not a result {}, HTTP errors {}; \
         proxy RSS {} KiB -> {} KiB; {:.2} s ({:.0} calls/s)",
        r.answered_once,
        r.lost,
        r.duplicated,
        r.wrong,
        r.http_errors,
        r.rss_before_kib.map_or("?".into(), |v| v.to_string()),
        r.rss_after_kib.map_or("?".into(), |v| v.to_string()),
        r.elapsed.as_secs_f64(),
        calls as f64 / r.elapsed.as_secs_f64().max(1e-9),
    );
    if let Some(p) = &r.first_problem {
        println!("first problem: {p}");
    }
    assert_eq!(
        (
            r.answered_once,
            r.lost,
            r.duplicated,
            r.wrong,
            r.http_errors
        ),
        (usize::try_from(calls).unwrap(), 0, 0, 0, 0)
    );
}
