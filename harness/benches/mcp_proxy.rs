//! Cost of the reference MCP proxy: added latency per forwarded `tools/call` (proxy → mock vs
//! the mock alone) and throughput with 32 concurrent requests.
//!
//! Run: `cargo bench -p delegateos-conform --bench mcp_proxy`.
//!
//! After criterion, a paired measurement (issue 17) alternates, round by round, a verified
//! `tools/call` through the proxy, the same call without `_delegateos` (pure relay), and one
//! in-process token verification (steps 1–6, cold: a fresh key cache, as a library call
//! without state) — so the proxy's added latency per verified call is compared with one
//! verify measured in the same rounds, under the same load. `DOS_BENCH_NO_PAIRED=1` skips it.

// A benchmark whose set-up fails should abort loudly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};
use serde_json::{json, Value};

use delegateos_conform::mcp::client::ProxyProcess;
use delegateos_conform::mcp::tokens::{self, cap, RootSpec};

const CONFORM: &str = env!("CARGO_BIN_EXE_delegateos-conform");
const T: Duration = Duration::from_secs(10);

fn setup() -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("delegateos-mcp-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        json!({"tools": [{"name": "read_file"}]}).to_string(),
    )
    .unwrap();
    let config = dir.join("config.json");
    let cfg = json!({
        "version": 1,
        "trustedRoots": [tokens::root().principal_id()],
        "tools": {"read_file": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}}},
        "spendPerCall": 0,
        "upstream": {"command": CONFORM, "args": ["mock-upstream", "--script", script.to_string_lossy()]},
    });
    std::fs::write(&config, cfg.to_string()).unwrap();
    (script, config)
}

fn handshake(p: &mut ProxyProcess) {
    p.send(&json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}))
        .unwrap();
    p.response(&json!("init"), T).unwrap();
    p.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .unwrap();
}

fn call(id: u64, envelope: Option<&Value>) -> Value {
    let mut params = json!({"name": "read_file", "arguments": {"path": "/project/a.txt"}});
    if let Some(e) = envelope {
        params["_delegateos"] = e.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The pure decision alone (what the proxy adds on top of relaying), and steps 1–6 alone.
fn bench_decision(c: &mut Criterion) {
    use delegateos_reference::mcp::{decide_call, BudgetTracker, McpConfig};
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let env = tokens::envelope(&token);
    let config = McpConfig {
        trusted_roots: vec![tokens::root().principal_id()],
        tools: serde_json::from_value(json!({"read_file": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}}})).unwrap(),
        revocations: delegateos_reference::revocation::RevocationList::new(),
        spend_per_call: 0,
        strict: false,
        session_token: None,
    };
    let request = call(1, Some(&env));
    let raw = serde_json::to_vec(&request).unwrap();
    let dct = tokens::serialize(&token);
    let mut g = c.benchmark_group("mcp_decision");
    g.bench_function("decide_call", |b| {
        let mut tracker = BudgetTracker::new();
        b.iter(|| decide_call(&request, &config, &mut tracker, "2030-01-01T00:00:00Z"))
    });
    g.bench_function("strip_delegateos_raw", |b| {
        b.iter(|| delegateos_conform::mcp::raw_line::strip_delegateos_raw(&raw).unwrap())
    });
    g.bench_function("verify_evaluate_steps_1_to_6", |b| {
        b.iter(|| {
            delegateos_reference::verify::evaluate(
                &dct,
                "2030-01-01T00:00:00Z",
                0,
                &tokens::root().principal_id(),
                &config.revocations,
            )
            .unwrap()
        })
    });
    g.bench_function("token_inspect", |b| {
        b.iter(|| delegateos_reference::token::inspect(&dct).unwrap())
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let (script, config) = setup();
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut direct = ProxyProcess::spawn(
        &format!("'{CONFORM}' mock-upstream --script {{config}}"),
        &script,
    )
    .unwrap();
    let mut proxy = ProxyProcess::spawn(
        &format!("'{CONFORM}' reference-proxy --config {{config}}"),
        &config,
    )
    .unwrap();
    handshake(&mut direct);
    handshake(&mut proxy);
    let mut id = 0u64;

    let mut g = c.benchmark_group("mcp_tools_call_latency");
    g.measurement_time(Duration::from_secs(4)).sample_size(40);
    g.bench_function("mock_direct", |b| {
        b.iter(|| {
            id += 1;
            direct.send(&call(id, None)).unwrap();
            direct.response(&json!(id), T).unwrap()
        })
    });
    g.bench_function("proxy_passthrough_no_dct", |b| {
        b.iter(|| {
            id += 1;
            proxy.send(&call(id, None)).unwrap();
            proxy.response(&json!(id), T).unwrap()
        })
    });
    g.bench_function("proxy_verified_call", |b| {
        b.iter(|| {
            id += 1;
            proxy.send(&call(id, Some(&env))).unwrap();
            proxy.response(&json!(id), T).unwrap()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("mcp_tools_call_32_concurrent");
    g.measurement_time(Duration::from_secs(5)).sample_size(20);
    g.throughput(Throughput::Elements(32));
    for (name, target, envelope) in [
        ("mock_direct", &mut direct, None),
        ("proxy_verified", &mut proxy, Some(&env)),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                let first = id + 1;
                for _ in 0..32 {
                    id += 1;
                    target.send(&call(id, envelope)).unwrap();
                }
                for k in first..=id {
                    target.response(&json!(k), T).unwrap();
                }
            })
        });
    }
    g.finish();
}

/// Median of `xs` (sorted in place).
fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Median wall time of `n` runs of `f`, in microseconds.
fn median_us(n: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..n)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    median(&mut t)
}

fn paired_added_latency() {
    const ROUNDS: usize = 15;
    const CALLS: usize = 200;
    let (_, config) = setup();
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let env = tokens::envelope(&token);
    let dct = tokens::serialize(&token);
    let root = tokens::root().principal_id();
    let empty = delegateos_reference::revocation::RevocationList::new();
    let mut proxy = ProxyProcess::spawn(
        &format!("'{CONFORM}' reference-proxy --config {{config}}"),
        &config,
    )
    .unwrap();
    handshake(&mut proxy);
    let mut id = 1_000_000u64;
    let mut ratios = Vec::new();
    let mut added = Vec::new();
    let mut verify_us = Vec::new();
    for _ in 0..ROUNDS {
        let relay = median_us(CALLS, || {
            id += 1;
            proxy.send(&call(id, None)).unwrap();
            proxy.response(&json!(id), T).unwrap();
        });
        let verified = median_us(CALLS, || {
            id += 1;
            proxy.send(&call(id, Some(&env))).unwrap();
            proxy.response(&json!(id), T).unwrap();
        });
        let verify = median_us(CALLS, || {
            delegateos_reference::verify::evaluate(&dct, "2030-01-01T00:00:00Z", 0, &root, &empty)
                .unwrap();
        });
        added.push(verified - relay);
        verify_us.push(verify);
        ratios.push((verified - relay) / verify);
    }
    println!(
        "\npaired (issue 17): proxy added latency per verified tools/call vs one in-process token \
         verify (steps 1-6, cold key cache), {ROUNDS} rounds x {CALLS} calls per side, medians"
    );
    println!(
        "  added latency {:.1} µs (verified minus relay), one verify {:.1} µs, ratio {:.3} \
         (median of per-round ratios; min {:.3}, max {:.3})",
        median(&mut added),
        median(&mut verify_us),
        median(&mut ratios.clone()),
        ratios.iter().copied().fold(f64::INFINITY, f64::min),
        ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
}

criterion_group!(benches, bench_decision, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    let bench_mode = std::env::args().any(|a| a == "--bench");
    if bench_mode && std::env::var_os("DOS_BENCH_NO_PAIRED").is_none() {
        paired_added_latency();
    }
}
