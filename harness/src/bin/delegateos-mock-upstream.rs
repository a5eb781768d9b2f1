//! `delegateos-mock-upstream`: the scripted, recording MCP server used by `delegateos-conform mcp`.
//!
//! ```text
//! delegateos-mock-upstream --script FILE [--record FILE]
//! delegateos-mock-upstream --tap [--record FILE] -- COMMAND [ARGS…]
//! ```
//! Logic lives in `delegateos_conform::mcp::mock`.

use std::process::ExitCode;

use clap::Parser;
use delegateos_conform::mcp::mock::{run_mock, run_tap, MockScript};

#[derive(Debug, Parser)]
#[command(
    version,
    about = "Scripted, recording MCP upstream for the DelegateOS proxy suite"
)]
struct Args {
    /// JSON script describing tools and behaviours (see spec/mcp-proxy.md).
    #[arg(long, conflicts_with = "tap")]
    script: Option<String>,
    /// JSONL file receiving every raw line and lifecycle event.
    #[arg(long)]
    record: Option<String>,
    /// Relay to COMMAND transparently, recording both directions.
    #[arg(long)]
    tap: bool,
    /// The real upstream command (tap mode).
    #[arg(last = true)]
    command: Vec<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let code = if args.tap {
        run_tap(&args.command, args.record.as_deref())
    } else {
        let script = match &args.script {
            None => MockScript::default(),
            Some(path) => match std::fs::read(path)
                .map_err(|e| e.to_string())
                .and_then(|b| serde_json::from_slice::<MockScript>(&b).map_err(|e| e.to_string()))
            {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("delegateos-mock-upstream: bad script {path}: {e}");
                    return ExitCode::from(64);
                }
            },
        };
        run_mock(script, args.record.as_deref())
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
