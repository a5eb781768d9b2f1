//! "The corpus has teeth": for every fault the reference adapter can inject
//! (`delegateos-conform reference-adapter --list-faults`), running the whole vector corpus against the
//! weakened adapter must produce at least one failing (or errored) case.
//!
//! The harness is driven as a user drives it: the built `delegateos-conform` binary runs
//! `run --impl '<adapter> --fault NAME' --format json --output FILE` as a subprocess, and the
//! JSON report is read back. The test prints a table fault → failing cases (+ 3 example ids).
//!
//! The binaries are this package's own (`env!("CARGO_BIN_EXE_…")`), so Cargo builds them,
//! with the same profile and features, before this test runs: a stale binary is never tested
//! and no nested build is needed.
//!
//! Faults that *are* a documented other reading. Two faults weaken a check in exactly the way
//! a decision explicitly permits: D9 makes "accepts a non-canonical token" and "accepts
//! unknown fields" `acceptable` outcomes (flags `NonCanonicalToken`, `UnknownField`), so by
//! design no vector can *fail* them. For those (listed in [`ACCEPTABLE_READINGS`]) the test
//! requires at least one case judged `acceptable` instead — the report lists it as a
//! divergence under its decision. Every other fault must fail at least one case.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Faults that implement the other reading of a decision whose vectors are `acceptable`
/// (fault name, decision and flag).
const ACCEPTABLE_READINGS: &[(&str, &str)] = &[
    ("accept-non-canonical-token", "D9 NonCanonicalToken"),
    ("accept-unknown-fields", "D9 UnknownField"),
];

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

fn list_faults(adapter: &Path) -> Vec<String> {
    let out = Command::new(adapter)
        .arg("reference-adapter")
        .arg("--list-faults")
        .output()
        .expect("run --list-faults");
    assert!(out.status.success(), "--list-faults failed");
    let text = String::from_utf8(out.stdout).expect("utf-8 fault list");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

struct Outcome {
    exit: Option<i32>,
    /// Cases judged `failed` or `errored`.
    failing: Vec<String>,
    /// Cases judged `acceptable` (matched the other reading of a decision).
    acceptable: Vec<String>,
    total: u64,
}

/// Runs the corpus against `impl_cmd`; returns the exit code and the ids of failed/errored cases.
fn run_corpus(conform: &Path, impl_cmd: &str, report: &Path) -> Outcome {
    let _ = std::fs::remove_file(report);
    let out = Command::new(conform)
        .current_dir(workspace_root())
        .args(["run", "--no-progress", "--format", "json", "--output"])
        .arg(report)
        .arg("--impl")
        .arg(impl_cmd)
        .arg("--vectors")
        .arg(workspace_root().join("vectors"))
        .output()
        .expect("run delegateos-conform");
    let text = std::fs::read_to_string(report).unwrap_or_else(|e| {
        panic!(
            "no report from `{impl_cmd}` ({e}); exit {:?}; stderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let json: Value = serde_json::from_str(&text).expect("report is JSON");
    let cases = json["cases"].as_array().expect("cases array");
    let ids = |pred: &dyn Fn(&str) -> bool| -> Vec<String> {
        cases
            .iter()
            .filter(|c| pred(c["status"].as_str().unwrap_or("")))
            .map(|c| c["id"].as_str().unwrap_or("?").to_owned())
            .collect()
    };
    Outcome {
        exit: out.status.code(),
        failing: ids(&|s| matches!(s, "failed" | "errored")),
        acceptable: ids(&|s| s == "acceptable"),
        total: json["totals"]["total"].as_u64().unwrap_or(0),
    }
}

#[test]
fn every_injected_fault_is_caught_by_the_corpus() {
    let conform = PathBuf::from(env!("CARGO_BIN_EXE_delegateos-conform"));
    // The reference adapter is the harness binary's own `reference-adapter` subcommand.
    let adapter = conform.clone();
    assert!(conform.is_file(), "missing {}", conform.display());
    assert!(adapter.is_file(), "missing {}", adapter.display());

    let faults = list_faults(&adapter);
    assert!(!faults.is_empty(), "the reference adapter lists no faults");

    let scratch =
        std::env::temp_dir().join(format!("delegateos-fault-teeth-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");

    // Baseline: the unweakened reference. It must pass everything (the main CI job and
    // `tests/vectors.rs` enforce that); should it not, its failures are not credited to any
    // fault below, so this test measures exactly what each fault changes.
    let clean = run_corpus(
        &conform,
        &format!("'{}' reference-adapter", adapter.display()),
        &scratch.join("clean.json"),
    );
    if !clean.failing.is_empty() {
        eprintln!(
            "warning: the unweakened reference fails {} case(s), not credited to faults: {:?}",
            clean.failing.len(),
            clean.failing.iter().take(10).collect::<Vec<_>>()
        );
    }

    let mut rows = Vec::new();
    let mut toothless = Vec::new();
    for fault in &faults {
        let cmd = format!("'{}' reference-adapter --fault {fault}", adapter.display());
        let mut outcome = run_corpus(&conform, &cmd, &scratch.join(format!("{fault}.json")));
        outcome.failing.retain(|id| !clean.failing.contains(id));
        outcome
            .acceptable
            .retain(|id| !clean.acceptable.contains(id));
        let reading = ACCEPTABLE_READINGS
            .iter()
            .find(|(name, _)| name == fault)
            .map(|(_, decision)| *decision);
        let caught = match reading {
            Some(_) => !outcome.failing.is_empty() || !outcome.acceptable.is_empty(),
            None => !outcome.failing.is_empty(),
        };
        if !caught {
            toothless.push(fault.clone());
        }
        if !outcome.failing.is_empty() {
            assert_eq!(outcome.exit, Some(1), "fault {fault}: failures must exit 1");
        }
        rows.push((fault.clone(), reading, outcome));
    }

    let width = faults.iter().map(String::len).max().unwrap_or(5).max(5);
    println!("\ncorpus: {} cases", clean.total);
    println!(
        "{:<width$}  {:>7}  {:>10}  examples",
        "fault", "failing", "acceptable"
    );
    for (fault, reading, outcome) in &rows {
        let shown = if outcome.failing.is_empty() {
            &outcome.acceptable
        } else {
            &outcome.failing
        };
        let examples: Vec<&str> = shown.iter().take(3).map(String::as_str).collect();
        let note = reading.map_or(String::new(), |d| format!("  (other reading of {d})"));
        println!(
            "{fault:<width$}  {:>7}  {:>10}  {}{note}",
            outcome.failing.len(),
            outcome.acceptable.len(),
            examples.join(", ")
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);

    assert!(
        toothless.is_empty(),
        "no vector catches these injected faults: {toothless:?}"
    );
}
