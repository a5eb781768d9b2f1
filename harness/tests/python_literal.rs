//! Issue 12's bar: the spec-literal variant of the Python example adapter
//! (`implementations/python-literal/`: the spec text, none of our decisions) has no normative
//! or decision failure; its one critical finding (spend keyed by the client's delegationId,
//! which the text allows) fails a default run, and `--fail-on levels` passes it. Its other
//! readings show as `acceptable`, as "rejected with another code" of a family, or as
//! hardening findings, all reported apart.
//!
//! Needs the example adapter's venv (`bash implementations/python/setup.sh`, which `.ci/run`
//! runs); without it the test is skipped with a message.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

#[test]
fn spec_literal_adapter_has_no_normative_or_decision_failure() {
    let adapters = Path::new(env!("CARGO_MANIFEST_DIR")).join("../implementations");
    let python = adapters.join("python/.venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED: {} is absent; run `bash implementations/python/setup.sh` to run the \
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
    // Issue 36: a critical finding fails the run whatever its level. The spec text's own
    // exposure stays: the literal reading keys spend by the client's
    // `_delegateos.delegationId` (§11.1/§13.4 do not say it must be the token's; D17, a
    // hardening-level check), so a client escapes its budget by naming another delegation —
    // critical, counted, and the ONLY critical finding of the literal adapter.
    let critical: Vec<(String, bool)> = report["critical"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["key"].as_str().unwrap_or_default().to_owned(),
                f["counted"] == true,
            )
        })
        .collect();
    assert_eq!(
        critical,
        vec![("McpBinding/spend-misrouted".to_owned(), true)],
        "{critical:#?}"
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "the counted critical finding fails the run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `--fail-on levels` relaxes that explicitly: only the levels decide, and the literal
    // reading has no normative or decision failure.
    let relaxed = Command::new(BIN)
        .args([
            "run",
            "--no-progress",
            "--fail-on",
            "levels",
            "--impl",
            &command,
        ])
        .output()
        .unwrap();
    assert_eq!(
        relaxed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&relaxed.stdout)
    );
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
    let adapters = Path::new(env!("CARGO_MANIFEST_DIR")).join("../implementations");
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
