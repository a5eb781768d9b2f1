//! The built-in reference implementation behind the adapter protocol (stdio, JSON lines).
//!
//! Usage: `delegateos-reference-adapter [--fault NAME]... | --list-faults`.
//! `--fault` injects a named weakening (see `delegateos_reference::faults`) so the suite can
//! prove that its vectors catch it. Exit codes: 0 after `bye` or end of input, 1 on an I/O
//! error, 2 on a usage error.

use std::io::{self, BufReader};
use std::process::ExitCode;

use delegateos_conform::adapter_server::serve;
use delegateos_reference::faults::{Fault, Faults};

const USAGE: &str = "usage: delegateos-reference-adapter [--fault NAME]... | --list-faults";

fn main() -> ExitCode {
    let mut faults = Faults::none();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list-faults" => {
                for fault in Fault::ALL {
                    println!("{}", fault.name());
                }
                return ExitCode::SUCCESS;
            }
            "--fault" => match args.next().as_deref().map(Fault::from_name) {
                Some(Some(fault)) => faults.insert(fault),
                Some(None) => {
                    eprintln!("unknown fault (see --list-faults)\n{USAGE}");
                    return ExitCode::from(2);
                }
                None => {
                    eprintln!("--fault needs a name\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let stdin = io::stdin();
    let stdout = io::stdout();
    match serve(BufReader::new(stdin.lock()), stdout.lock(), &faults) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("delegateos-reference-adapter: {e}");
            ExitCode::from(1)
        }
    }
}
