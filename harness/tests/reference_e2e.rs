//! The committed corpus against the built-in reference, through the real adapter protocol
//! path: `delegateos-conform run` with its default `--impl` (the `delegateos-reference-adapter`
//! binary next to it) and default `vectors/`. This is the README's first command.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[test]
fn reference_passes_the_corpus_through_the_adapter_protocol() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO_BIN_EXE_delegateos-conform"))
        .current_dir(&root)
        .args(["run", "--format", "json", "--timeout-ms", "30000"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(0),
        "reference did not pass its own corpus\nstderr: {stderr}\nstdout (head): {}",
        stdout.chars().take(20_000).collect::<String>()
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("spec/schemas/report.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&report));
    assert_eq!(report["implementation"]["name"], "delegateos-reference");
    assert!(report["totals"]["total"].as_u64().unwrap() > 0);
    assert_eq!(report["totals"]["errored"], 0);
    assert_eq!(report["incidents"], Value::Array(vec![]));
}
