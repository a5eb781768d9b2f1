//! MCP stdio proxy conformance (`delegateos-conform mcp`): the launch contract, the
//! recording mock upstream, the reference proxy, the raw JSON-RPC client and the suite.
//!
//! Nothing here uses an MCP SDK: SDK types drop unknown members such as `_delegateos`, so the
//! suite speaks raw newline-delimited JSON-RPC and judges what the mock upstream recorded.

pub mod cli;
pub mod client;
pub mod config;
pub mod http_client;
pub mod http_proxy;
pub mod mock;
pub mod proxy;
pub mod suite;
pub mod tokens;
pub mod wire;
