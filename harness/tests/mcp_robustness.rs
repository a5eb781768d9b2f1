//! The reference proxy survives hostile client input: a deterministic stream of garbage,
//! truncated JSON, odd JSON-RPC shapes and mangled `_delegateos` envelopes never kills it,
//! never makes it write non-JSON, and it keeps answering `ping` throughout.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::time::Duration;

use delegateos_conform::mcp::client::ProxyProcess;
use delegateos_conform::mcp::tokens::{self, cap, RootSpec};
use serde_json::{json, Value};

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

fn hostile_line(rng: &mut Rng, env: &Value) -> Vec<u8> {
    let mut dct = env["dct"].as_str().unwrap_or("").to_owned();
    let shapes: Vec<Value> = vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_file", "arguments": {"path": "/p"}, "_delegateos": env}}),
        json!({"jsonrpc": "2.0", "id": [1], "method": "tools/call", "params": {"_delegateos": env}}),
        json!({"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": {"name": 5, "_delegateos": {"dct": 5}}}),
        json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "read_file", "_delegateos": env}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": "not an object"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "read_file", "arguments": [1, 2], "_delegateos": env}}),
        json!({"jsonrpc": "2.0", "id": 5, "result": {}}),
        json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}),
        json!({"method": 7}),
        json!([]),
        json!("tools/call"),
    ];
    let mut text = serde_json::to_string(rng.pick(&shapes)).unwrap_or_default();
    match rng.next() % 6 {
        // Mangle the token text.
        0 if !dct.is_empty() => {
            let i = (rng.next() % dct.len() as u64) as usize;
            let with: &&str = rng.pick(&["A", "-", "_", "=", "+", "é"]);
            dct.replace_range(i..=i, with);
            text = text.replace(env["dct"].as_str().unwrap_or(""), &dct);
        }
        1 => text.truncate((rng.next() % (text.len() as u64 + 1)) as usize),
        2 => {
            let cut = (rng.next() % (text.len() as u64 + 1)) as usize;
            let mut b = text.into_bytes();
            b.insert(
                cut.min(b.len()),
                *rng.pick(&[b'{', b'"', b'\\', 0xff, b']', b'\r']),
            );
            return b;
        }
        _ => {}
    }
    text.into_bytes()
}

#[test]
fn hostile_input_never_kills_the_proxy() {
    let dir = std::env::temp_dir().join(format!("mcp-robust-{}", std::process::id()));
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
        "spendPerCall": 1,
        "upstream": {"command": env!("CARGO_BIN_EXE_delegateos-conform"), "args": ["mock-upstream", "--script", script.to_string_lossy()]},
    });
    std::fs::write(&config, cfg.to_string()).unwrap();
    let proxy = PathBuf::from(env!("CARGO_BIN_EXE_delegateos-conform"));
    let mut p = ProxyProcess::spawn(
        &format!("'{}' reference-proxy --config {{config}}", proxy.display()),
        &config,
    )
    .unwrap();
    let token = RootSpec::new(vec![cap("docs", "read", "/**")]).sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for round in 0..60 {
        for _ in 0..25 {
            p.send_raw(&hostile_line(&mut rng, &env)).unwrap();
        }
        let id = json!(format!("alive-{round}"));
        p.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .unwrap();
        let resp = p
            .response(&id, Duration::from_secs(10))
            .unwrap_or_else(|e| panic!("round {round}: {e}\n{}", p.stderr_text()));
        assert!(resp.get("result").is_some(), "{resp}");
    }
    assert!(p.garbage.is_empty(), "non-JSON on stdout: {:?}", p.garbage);
    p.close_stdin();
    assert!(p.wait_exit(Duration::from_secs(5)).is_some());
    let _ = std::fs::remove_dir_all(&dir);
}
