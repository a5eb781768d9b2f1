//! The standard fixtures every session starts from: the mock's tool list and per-tool
//! behaviours, the launch config's tool map, the standard grant and token, response deadlines.

use std::time::Duration;

use serde_json::{json, Value};

use delegateos_reference::token::SignedJsonToken;

use crate::mcp::tokens::{self, cap, RootSpec};

/// Default wait for one response.
pub(super) const T: Duration = Duration::from_secs(5);
/// Wait for responses carrying many megabytes (debug builds parse slowly).
pub(super) const T_LARGE: Duration = Duration::from_secs(60);

/// Tools of the standard mock, in list order, with varied members so that filtering must keep
/// objects intact.
pub(super) fn tool_object(name: &str) -> Value {
    json!({
        "name": name,
        "title": format!("Tool {name}"),
        "description": format!("The {name} tool (ünïcødé \u{2028} text)"),
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
        "annotations": {"readOnlyHint": name == "read_file"},
        "_meta": {"vendor.example/rank": 7},
        "x-unknown-member": [1, 2.5, null, {"k": "v"}],
    })
}

pub(super) const STANDARD_TOOLS: &[&str] = &[
    "read_file",
    "write_file",
    "search",
    "nested",
    "slow",
    "fail_result",
    "fail_rpc",
    "crash",
    "hang",
    "ask",
    "big",
    "progress",
    "noisy",
    "d1",
    "d2",
    "d3",
    "d4",
    "unmapped_tool",
];

pub(super) fn standard_script() -> Value {
    json!({
        "tools": STANDARD_TOOLS.iter().map(|n| tool_object(n)).collect::<Vec<_>>(),
        "behaviors": {
            "slow": {"delayMs": 1500},
            "noisy": {"stdoutGarbage": true},
            "fail_result": {"isError": true},
            "fail_rpc": {"error": {"code": -32050, "message": "tool failed", "data": {"why": "scripted"}}},
            "crash": {"crash": true},
            "hang": {"hang": true},
            "ask": {"askClient": {"method": "roots/list", "params": {}}},
            "big": {"hugeBytes": 10 * 1024 * 1024},
            "progress": {"progress": 3, "delayMs": 50},
            "d1": {"delayMs": 400},
            "d2": {"delayMs": 300},
            "d3": {"delayMs": 200},
            "d4": {"delayMs": 100},
        },
        "resources": [{"uri": "file:///project/a.txt", "name": "a.txt"}],
        "prompts": [{"name": "greet", "description": "Say hi"}],
    })
}

pub(super) fn standard_tools() -> Value {
    let mut map = json!({
        "read_file": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}},
        "write_file": {"namespace": "docs", "action": "write", "resource": {"argument": "path"}},
        "search": {"namespace": "web", "action": "search"},
        "nested": {"namespace": "docs", "action": "read", "resource": {"argument": "target.path"}},
    });
    for t in [
        "slow",
        "fail_result",
        "fail_rpc",
        "crash",
        "hang",
        "ask",
        "big",
        "progress",
        "noisy",
        "d1",
        "d2",
        "d3",
        "d4",
    ] {
        map[t] =
            json!({"namespace": "compute", "action": "execute", "resource": {"constant": "*"}});
    }
    map
}

pub(super) fn standard_caps() -> Vec<delegateos_reference::token::Capability> {
    vec![
        cap("docs", "read", "/project/**"),
        cap("web", "search", "*"),
        cap("compute", "execute", "*"),
    ]
}

pub(super) fn good_token() -> SignedJsonToken {
    RootSpec::new(standard_caps()).sign(&tokens::root())
}

pub(super) fn read_args() -> Value {
    json!({"path": "/project/a.txt"})
}
