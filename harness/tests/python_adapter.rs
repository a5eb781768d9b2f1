//! The example Python adapter (`implementations/python/`) runs the whole corpus through
//! `delegateos-conform run` with its expected-failures baseline and must exit 0: every case
//! of a declared operation passes (or is an accepted divergence, or is listed in
//! `expected-failures.txt`), and no baseline entry is stale.
//!
//! The adapter's virtualenv is created by `implementations/python/setup.sh` (idempotent;
//! `.ci/run` calls it too). It needs `python3` (3.11) and PyPI; without `python3` on PATH the
//! tests print SKIPPED and pass (README: python3 is optional), and a `setup.sh` that fails
//! (no PyPI, no `venv` module) fails them with its output.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn adapter_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../implementations/python")
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

/// Creates the venv (no-op when it is current; once per test process, since the tests run
/// in parallel threads) and returns the adapter command; `None` (SKIPPED printed) without
/// `python3`.
fn adapter_command() -> Option<String> {
    static SETUP: OnceLock<bool> = OnceLock::new();
    let dir = adapter_dir();
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    if !Command::new(&python)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        println!("SKIPPED: `{python} --version` failed; the Python example adapter needs python3");
        return None;
    }
    let ok = *SETUP.get_or_init(|| {
        Command::new("bash")
            .arg(dir.join("setup.sh"))
            .status()
            .is_ok_and(|s| s.success())
    });
    assert!(
        ok,
        "implementations/python/setup.sh failed (needs python3 and PyPI)"
    );
    Some(format!(
        "'{}' '{}'",
        dir.join(".venv/bin/python").display(),
        dir.join("adapter.py").display()
    ))
}

#[test]
fn python_adapter_passes_the_corpus_with_its_baseline() {
    let Some(command) = adapter_command() else {
        return;
    };
    let report = std::env::temp_dir().join(format!(
        "delegateos-python-adapter-{}.json",
        std::process::id()
    ));
    let out = Command::new(BIN)
        .current_dir(workspace_root())
        .args(["run", "--no-progress", "--format", "json", "--output"])
        .arg(&report)
        .arg("--impl")
        .arg(&command)
        .arg("--vectors")
        .arg(workspace_root().join("vectors"))
        .arg("--expected-failures")
        .arg(adapter_dir().join("expected-failures.txt"))
        .output()
        .expect("run delegateos-conform");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "no report ({e}); exit {:?}; stderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let _ = std::fs::remove_file(&report);
    let json: Value = serde_json::from_str(&text).expect("report is JSON");
    let totals = &json["totals"];
    println!("python adapter totals: {totals}");

    let problems: Vec<String> = json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|c| matches!(c["status"].as_str(), Some("failed" | "errored" | "stale")))
        .map(|c| {
            format!(
                "{} [{}] {}\n{}",
                c["id"].as_str().unwrap_or("?"),
                c["status"].as_str().unwrap_or("?"),
                c["description"].as_str().unwrap_or(""),
                c["diff"].as_str().or(c["message"].as_str()).unwrap_or("")
            )
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{} case(s) failed, errored or are stale baseline entries:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "exit code (unused baseline entries give 2); stdout:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // The adapter must actually run something: every declared operation had cases.
    assert!(
        totals["passed"].as_u64().unwrap_or(0) > 2000,
        "suspiciously few passes"
    );
}

#[test]
fn python_adapter_handshake_lists_its_operations() {
    let Some(command) = adapter_command() else {
        return;
    };
    let out = Command::new(BIN)
        .current_dir(workspace_root())
        .args(["list-ops", "--impl", &command])
        .output()
        .expect("run list-ops");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "list-ops failed: {stdout}");
    for op in [
        "json.canonicalize",
        "ed25519.verify",
        "glob.match",
        "dct.verify",
        "check.run",
        "output.verify",
        "contract.verify_signature",
        "attestation.verify",
        "mcp.call",
    ] {
        assert!(stdout.contains(op), "{op} not declared:\n{stdout}");
    }
}
