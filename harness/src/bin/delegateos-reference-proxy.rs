//! `delegateos-reference-proxy`: the reference DelegateOS MCP stdio proxy.
//!
//! ```text
//! delegateos-reference-proxy --config FILE [--strict]
//! ```
//! Behaviour is specified in `spec/mcp-proxy.md`; logic lives in
//! `delegateos_conform::mcp::proxy`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use delegateos_conform::mcp::proxy::{run_proxy, Fault, ProxyOptions};

#[derive(Debug, Parser)]
#[command(version, about = "Reference DelegateOS MCP stdio proxy")]
struct Args {
    /// Launch config (spec/mcp-proxy.md).
    #[arg(long)]
    config: PathBuf,
    /// Deny tools/call without _delegateos (decision D15), whatever the config says.
    #[arg(long)]
    strict: bool,
    /// Deliberate defect for suite self-tests: no-strip, forward-denied, no-filter.
    #[arg(long, hide = true)]
    fault: Option<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let fault = match args.fault.as_deref().map(|f| (f, Fault::parse(f))) {
        None => None,
        Some((_, Some(f))) => Some(f),
        Some((name, None)) => {
            eprintln!("delegateos-reference-proxy: unknown fault {name}");
            return ExitCode::from(64);
        }
    };
    let code = run_proxy(&ProxyOptions {
        config: args.config,
        strict: args.strict,
        fault,
    });
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
