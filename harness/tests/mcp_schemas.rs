//! The MCP schemas in `spec/schemas/mcp-*.schema.json` agree with what the harness writes and
//! the mock records: a launch config like the suite's, a script using every behaviour, and
//! every event of a real mock run validate.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use delegateos_conform::mcp::config::{
    HttpSettings, LaunchConfig, Transport, UpstreamCommand, LAUNCH_CONFIG_VERSION,
};
use delegateos_conform::mcp::mock::MockScript;
use delegateos_conform::mcp::tokens::{self, cap, RootSpec};
use serde_json::{json, Value};

fn schemas_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/schemas")
}

fn schema(name: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(schemas_dir().join(name)).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    jsonschema::validator_for(&value).unwrap()
}

fn assert_valid(v: &jsonschema::Validator, instance: &Value) {
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{instance}");
}

#[test]
fn launch_config_validates() {
    let token = RootSpec::new(vec![cap("docs", "read", "/p/**")]).sign(&tokens::root());
    let entry = tokens::revoke_authority(&token, &tokens::root());
    let config = LaunchConfig {
        version: LAUNCH_CONFIG_VERSION,
        trusted_roots: vec![tokens::root().principal_id()],
        tools: serde_json::from_value(json!({
            "a": {"namespace": "docs", "action": "read", "resource": {"argument": "x.y"}},
            "b": {"namespace": "web", "action": "search"},
            "c": {"namespace": "compute", "action": "execute", "resource": {"constant": "*"}, "spend": 5},
        }))
        .unwrap(),
        revocations: vec![serde_json::to_value(entry).unwrap()],
        spend_per_call: 100,
        strict: true,
        session_token: Some(serde_json::to_value(tokens::serialize(&token)).unwrap()),
        upstream: UpstreamCommand {
            command: "mock".into(),
            args: vec!["--script".into()],
            env: [("K".to_owned(), "V".to_owned())].into_iter().collect(),
        },
        transport: Transport::Http,
        http: Some(HttpSettings {
            listen: "127.0.0.1:0".into(),
            max_body_bytes: Some(1 << 20),
        }),
    };
    let v = schema("mcp-launch-config.schema.json");
    assert_valid(&v, &serde_json::to_value(&config).unwrap());
    assert!(!v.is_valid(&json!({"version": 1, "trustedRoots": [], "tools": {"a": {"namespace": "n"}}, "upstream": {"command": "x"}})));
    assert!(!v.is_valid(&json!({"version": 1, "trustedRoots": [], "tools": {}, "upstream": {"command": "x"}, "extra": 1})));
    assert!(v.is_valid(&json!({"version": 1, "trustedRoots": [], "tools": {}, "upstream": {"command": "x"}, "transport": "http"})));
    assert!(!v.is_valid(&json!({"version": 1, "trustedRoots": [], "tools": {}, "upstream": {"command": "x"}, "transport": "ws"})));
    assert!(!v.is_valid(&json!({"version": 1, "trustedRoots": [], "tools": {}, "upstream": {"command": "x"}, "http": {"listen": "127.0.0.1:0", "x": 1}})));
}

fn full_script() -> Value {
    json!({
        "tools": [{"name": "t", "inputSchema": {"type": "object"}}],
        "pageSize": 1,
        "behaviors": {"t": {"delayMs": 1, "isError": true, "error": {"code": 1, "message": "m"}, "crash": false,
            "hang": false, "hugeBytes": 3, "progress": 2, "notifications": [{"jsonrpc": "2.0", "method": "n"}],
            "askClient": {"method": "roots/list"}}},
        "onInitialized": [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}],
        "ignoreEof": false,
        "resources": [],
        "prompts": [],
    })
}

#[test]
fn mock_script_schema_matches_the_parser() {
    let v = schema("mcp-mock-script.schema.json");
    assert_valid(&v, &full_script());
    serde_json::from_value::<MockScript>(full_script()).unwrap();
}

#[test]
fn every_recorded_event_validates() {
    let dir = std::env::temp_dir().join(format!("mcp-schemas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("s.json");
    std::fs::write(&script, json!({"tools": [{"name": "t"}]}).to_string()).unwrap();
    let record = dir.join("r.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_delegateos-conform"))
        .arg("mock-upstream")
        .args([
            "--script",
            script.to_str().unwrap(),
            "--record",
            record.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\nnot json\n\xff\xfe\n",
        )
        .unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let v = schema("mcp-record-event.schema.json");
    let events: Vec<Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["start", "in", "out", "in", "unparsed", "in", "unparsed", "eof", "exit"]
    );
    assert_eq!(events[5]["rawHex"], "fffe");
    for e in &events {
        assert_valid(&v, e);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
