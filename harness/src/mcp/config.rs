//! The launch contract between `delegateos-conform mcp` and a proxy under test
//! (`spec/mcp-proxy.md`, schema `spec/schemas/mcp-launch-config.schema.json`).
//!
//! The harness writes one JSON file of this shape and runs the proxy command with `{config}`
//! replaced by the file's path.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use delegateos_reference::mcp::ToolCapabilityMap;

/// Launch-config format version.
pub const LAUNCH_CONFIG_VERSION: u32 = 1;

/// The proxy's launch configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LaunchConfig {
    /// Always [`LAUNCH_CONFIG_VERSION`].
    pub version: u32,
    /// Principal ids accepted as token issuers (roots).
    pub trusted_roots: Vec<String>,
    /// Tool name → `{namespace, action, resource?, spend?}`.
    pub tools: ToolCapabilityMap,
    /// Signed revocation entries (spec §4 shape).
    #[serde(default)]
    pub revocations: Vec<Value>,
    /// Microcents charged per allowed call unless the tool sets `spend`.
    #[serde(default)]
    pub spend_per_call: u64,
    /// Deny `tools/call` without `_delegateos` (decision D15).
    #[serde(default)]
    pub strict: bool,
    /// The session DCT (`{token, format}`) that drives `tools/list` filtering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_token: Option<Value>,
    /// The upstream MCP server to spawn.
    pub upstream: UpstreamCommand,
    /// How the client reaches the proxy: `stdio` (default) or `http` (MCP Streamable HTTP).
    #[serde(default, skip_serializing_if = "Transport::is_stdio")]
    pub transport: Transport,
    /// Streamable HTTP settings (used when `transport` is `http`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpSettings>,
}

/// The client-facing transport of the proxy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin/stdout.
    #[default]
    Stdio,
    /// MCP Streamable HTTP on a loopback address.
    Http,
}

impl Transport {
    fn is_stdio(&self) -> bool {
        *self == Transport::Stdio
    }
}

/// Default body limit of the HTTP transport (the stdio line limit).
pub const DEFAULT_MAX_BODY: u64 = 64 * 1024 * 1024;

/// Streamable HTTP settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HttpSettings {
    /// `host:port` to listen on; the host must be a loopback address; port 0 picks one.
    #[serde(default = "default_listen")]
    pub listen: String,
    /// Largest accepted request body in bytes (default 64 MiB); larger bodies get 413.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_body_bytes: Option<u64>,
}

fn default_listen() -> String {
    "127.0.0.1:0".to_owned()
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            listen: default_listen(),
            max_body_bytes: None,
        }
    }
}

/// How to start the upstream server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpstreamCommand {
    /// Program (looked up on `PATH` if not absolute).
    pub command: String,
    /// Arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment variables (added to the proxy's environment).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}
