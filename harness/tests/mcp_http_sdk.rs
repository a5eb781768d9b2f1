//! Issue 18 smoke: a real MCP client over Streamable HTTP — the official TypeScript SDK's
//! `Client` + `StreamableHTTPClientTransport` (`harness/mcp-smoke/sdk-http-client.mjs`) —
//! through the reference proxy in HTTP mode to the real `@modelcontextprotocol/server-everything`
//! over stdio. The SDK initializes, lists the tools (filtered by the session token), makes a
//! call the token allows (answered by the real server, `_delegateos` stripped) and one it does
//! not (`-32001` with a `capability_not_granted` body), and ends the session with DELETE.
//!
//! Skips (printing `SKIPPED:`) only when node or `npm ci` in `harness/mcp-smoke` is missing;
//! `.ci/run` installs both.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use delegateos_conform::mcp::tokens::{self, cap, RootSpec};

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn smoke_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp-smoke")
}

/// Kills the proxy (its own process group: the proxy and its upstream) when dropped.
struct Proxy(Child);

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn typescript_sdk_over_streamable_http_through_the_reference_proxy() {
    let dir = smoke_dir();
    let everything = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let sdk = dir.join("node_modules/@modelcontextprotocol/sdk/package.json");
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node_ok || !everything.exists() || !sdk.exists() {
        println!("SKIPPED: node or `npm ci` in harness/mcp-smoke is missing");
        return;
    }
    let token = RootSpec::new(vec![cap("test", "echo", "*")]).sign(&tokens::root());
    let scratch = std::env::temp_dir().join(format!("delegateos-sdk-http-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let config = scratch.join("config.json");
    std::fs::write(
        &config,
        json!({
            "version": 1,
            "transport": "http",
            "http": {"listen": "127.0.0.1:0"},
            "trustedRoots": [tokens::root().principal_id()],
            "tools": {
                "echo": {"namespace": "test", "action": "echo", "resource": {"argument": "message"}},
                "get-sum": {"namespace": "math", "action": "add"},
            },
            "spendPerCall": 0,
            "sessionToken": tokens::serialize(&token),
            "upstream": {"command": "node", "args": [everything.to_string_lossy(), "stdio"]},
        })
        .to_string(),
    )
    .unwrap();
    let mut child = Command::new(BIN)
        .args(["reference-proxy", "--config"])
        .arg(&config)
        // The launch contract: the proxy lives while its stdin is open.
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let proxy = Proxy(child);
    let mut url = String::new();
    BufReader::new(stdout).read_line(&mut url).unwrap();
    let url = url.trim().to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "discovery line: {url:?}"
    );

    let envelope = tokens::envelope(&token);
    let out = Command::new("node")
        .arg(dir.join("sdk-http-client.mjs"))
        .arg(&url)
        .arg(envelope.to_string())
        .output()
        .unwrap();
    drop(proxy);
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        out.status.success(),
        "the SDK client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    // The session token grants test:echo only: the real server's other tools are filtered.
    assert_eq!(report["tools"], json!(["echo"]), "{report}");
    assert_eq!(
        report["allowed"]["result"]["content"][0]["text"], "Echo: hi over http",
        "{report}"
    );
    assert_eq!(report["denied"]["error"]["code"], -32001, "{report}");
    assert_eq!(
        report["denied"]["error"]["data"]["type"], "capability_not_granted",
        "{report}"
    );
    assert!(report["sessionId"].is_string(), "{report}");
}
