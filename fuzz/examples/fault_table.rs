//! Time to the first disagreement of the differential fuzzer against every fault of the
//! fault-injecting reference adapter (the table in fuzz/README.md).
//!
//!     cargo build -p delegateos-conform --bins          # in the root workspace
//!     cd fuzz && cargo run --release --example fault_table -- [SECONDS_PER_FAULT] [SEED]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use delegateos_conform::fuzz::diff::{self, DiffConfig};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(60);
    let seed: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let adapter = root.join("target/debug/delegateos-conform");
    let vectors = root.join("vectors");
    let out = Command::new(&adapter)
        .args(["reference-adapter", "--list-faults"]).output();
    let faults: Vec<String> = match out {
        Ok(o) => String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        Err(e) => {
            eprintln!("cannot run {}: {e}", adapter.display());
            std::process::exit(3);
        }
    };
    println!("| fault | first finding after | cases | kind | reference → implementation |");
    println!("|---|---|---|---|---|");
    for fault in std::iter::once("(none)".to_owned()).chain(faults) {
        let command = if fault == "(none)" {
            format!("{} reference-adapter", adapter.display())
        } else {
            format!("{} reference-adapter --fault {fault}", adapter.display())
        };
        let config = DiffConfig {
            command,
            duration: Duration::from_secs(limit),
            seed,
            vectors: Some(vectors.clone()),
            batch: 32,
            timeout: Duration::from_secs(5),
            max_findings: 1,
            max_cases: None,
            stop_on_first: true,
        };
        match diff::run(&config, &mut |_| {}) {
            Ok(r) => match r.findings.first() {
                Some(f) => {
                    let file =
                        diff::finding_file(f, 1, &delegateos_vectors::keys::Keys::fixed());
                    println!(
                        "| `{fault}` | {:.2} s | {} | {} | {} |",
                        f.found_after.as_secs_f64(),
                        f.cases_before,
                        f.kind.name(),
                        file.description.split(": ").nth(1).unwrap_or("")
                    );
                }
                None => println!(
                    "| `{fault}` | not found in {:.0} s | {} | — | — |",
                    r.duration.as_secs_f64(),
                    r.cases
                ),
            },
            Err(e) => println!("| `{fault}` | setup error: {e} | | | |"),
        }
    }
}
