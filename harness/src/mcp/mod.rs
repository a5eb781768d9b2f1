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
pub mod key_cache;
pub mod mock;
pub mod proxy;
pub mod puppet;
pub mod raw_line;
pub mod soak;
pub mod suite;
pub mod tokens;
pub mod wire;

/// Runs the reference proxy (`delegateos-conform reference-proxy`): reads the launch config and
/// serves stdio, or MCP Streamable HTTP when the config says `"transport": "http"` or `--http`
/// is given. Both transports decide through [`proxy::Decider`].
pub fn run_reference_proxy(opts: &proxy::ProxyOptions) -> i32 {
    let (config, launch) = match proxy::load_config(&opts.config, opts.strict) {
        Ok(c) => c,
        Err(e) => {
            proxy::log(&e);
            return proxy::EXIT_CONFIG;
        }
    };
    if launch.transport == config::Transport::Http || opts.http {
        http_proxy::run_http_proxy(config, launch, opts)
    } else {
        proxy::run_stdio_proxy(config, launch, opts)
    }
}
