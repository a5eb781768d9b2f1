//! Differential cases per second of `delegateos_inprocess::fuzz` (BENCHMARKS.md): the
//! reference against itself, over generated fuzzer inputs, for a fixed number of steps.
//!
//!     cargo run --release -p delegateos-inprocess --features fuzz --example fuzz_rate -- [STEPS] [OP,OP…]

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Instant;

use delegateos_inprocess::fuzz::{Fuzzer, Reference, Step, FUZZED_OPERATIONS};

fn main() {
    let mut args = std::env::args().skip(1);
    let steps: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let ops: Vec<String> = args.next().map_or_else(
        || FUZZED_OPERATIONS.iter().map(|s| (*s).to_owned()).collect(),
        |s| s.split(',').map(str::to_owned).collect(),
    );
    let ops: Vec<&str> = ops.iter().map(String::as_str).collect();
    let loading = Instant::now();
    let fuzzer = Fuzzer::for_operations(&ops).expect("seeds");
    let load = loading.elapsed();
    let started = Instant::now();
    let (mut agreed, mut not_run, mut findings) = (0u64, 0u64, 0u64);
    for i in 0..steps {
        let bytes: Vec<u8> = (0..16)
            .map(|k| (i.wrapping_mul(2_654_435_761) >> (k % 8 * 8)) as u8 ^ k as u8)
            .collect();
        match fuzzer.step(&Reference, &bytes) {
            Step::Agreed => agreed += 1,
            Step::NotRun | Step::Skipped => not_run += 1,
            Step::Finding(f) => {
                findings += 1;
                eprintln!("unexpected finding: {}", f.summary());
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "ops {}: {} seeds (corpus loaded in {:.2}s); {steps} steps in {secs:.2}s = {:.0} cases/s \
         ({agreed} agreed, {not_run} not run, {findings} findings)",
        ops.join(","),
        fuzzer.seeds(),
        load.as_secs_f64(),
        steps as f64 / secs
    );
}
