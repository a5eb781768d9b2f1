//! Issue 12's bar: the spec-literal variant of the Python example adapter
//! (`harness/adapters/python-literal/`: the spec text, none of our decisions) passes a default
//! run — exit 0, no normative or decision failure. Its other readings show as `acceptable`,
//! as "rejected with another code" of a family, or as hardening findings, all reported apart.
//!
//! Needs the example adapter's venv (`bash harness/adapters/python/setup.sh`, which `.ci/run`
//! runs); without it the test is skipped with a message.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

#[test]
fn spec_literal_adapter_has_no_normative_or_decision_failure() {
    let adapters = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters");
    let python = adapters.join("python/.venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED: {} is absent; run `bash harness/adapters/python/setup.sh` to run the \
             spec-literal adapter test",
            python.display()
        );
        return;
    }
    let command = format!(
        "'{}' '{}'",
        python.display(),
        adapters.join("python-literal/adapter.py").display()
    );
    let out = Command::new(BIN)
        .args([
            "run",
            "--no-progress",
            "--format",
            "json",
            "--impl",
            &command,
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let failing: Vec<String> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "failed" || c["status"] == "errored")
        .map(|c| format!("{} {}", c["id"], c["did"]))
        .collect();
    assert!(
        failing.is_empty(),
        "normative/decision failures: {failing:#?}"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Critical findings by effect may remain at the hardening level (a budget keyed by the
    // client's delegationId, D17): shown, marked not counted, never a counted one.
    let counted_critical: Vec<&Value> = report["critical"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["counted"] != false)
        .collect();
    assert!(counted_critical.is_empty(), "{counted_critical:#?}");
    // The other readings are visible, not hidden: acceptable outcomes, family codes and
    // hardening findings are all present and reported apart from the totals' failures.
    assert!(report["totals"]["acceptable"].as_u64().unwrap() > 0);
    assert!(report["totals"]["other_code"].as_u64().unwrap() > 0);
    assert!(report["hardening"]["totals"]["failed"].as_u64().unwrap() > 0);
    // Hardening findings do count when asked.
    let strict = Command::new(BIN)
        .args([
            "run",
            "--no-progress",
            "--fail-on",
            "hardening",
            "--impl",
            &command,
        ])
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(1));
    let text = String::from_utf8_lossy(&strict.stdout);
    // With hardening counted, its critical-by-effect findings are counted ones.
    assert!(text.contains("CRITICAL"), "{text}");
    assert!(!text.contains("[not counted in the exit code]"), "{text}");
    assert!(text.contains("Hardening findings ("), "{text}");
}

/// Issue 27: the same adapter with `DELEGATEOS_LITERAL_REGEX=re` runs Python's own `re` on every
/// `regex_match` pattern (the dialect mistake a Python implementation makes). It must fail, and
/// fail only on cases that run a `regex_match` check: nothing else depends on the regex engine.
#[test]
fn spec_literal_adapter_with_python_re_fails_only_regex_cases() {
    let adapters = Path::new(env!("CARGO_MANIFEST_DIR")).join("adapters");
    let python = adapters.join("python/.venv/bin/python");
    if !python.exists() {
        eprintln!("SKIPPED: {} is absent", python.display());
        return;
    }
    let command = format!(
        "'{}' '{}'",
        python.display(),
        adapters.join("python-literal/adapter.py").display()
    );
    let out = Command::new(BIN)
        .env("DELEGATEOS_LITERAL_REGEX", "re")
        .args([
            "run",
            "--no-progress",
            "--format",
            "json",
            "--impl",
            &command,
        ])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases = report["cases"].as_array().unwrap();
    let failing: Vec<&Value> = cases
        .iter()
        .filter(|c| c["status"] == "failed" || c["status"] == "errored")
        .collect();
    assert!(!failing.is_empty(), "Python re passed every regex case");
    let corpus = delegateos_vectors::corpus::load_embedded().unwrap();
    let input_of = |id: &str| {
        corpus
            .iter()
            .flat_map(|f| f.file.cases.iter())
            .find(|c| c.id == id)
            .map(|c| c.input.to_string())
            .unwrap_or_default()
    };
    let not_regex: Vec<String> = failing
        .iter()
        .map(|c| c["id"].as_str().unwrap_or_default().to_owned())
        .filter(|id| !input_of(id).contains("regex_match"))
        .collect();
    assert!(
        not_regex.is_empty(),
        "failures that run no regex_match: {not_regex:#?}"
    );
    assert_eq!(out.status.code(), Some(1));
}
