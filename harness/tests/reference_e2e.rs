//! The committed corpus against the built-in reference, through the real adapter protocol
//! path: `delegateos-conform run` with its default `--impl` (the `delegateos-reference-adapter`
//! binary next to it) and default `vectors/`. This is the README's first command, and the last
//! line README.md quotes from it is checked against the line this run prints (issue 46).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[test]
fn reference_passes_the_corpus_through_the_adapter_protocol() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text_report = std::env::temp_dir().join(format!(
        "delegateos-reference-e2e-{}.txt",
        std::process::id()
    ));
    let mut report_arg = std::ffi::OsString::from("text=");
    report_arg.push(&text_report);
    let out = Command::new(env!("CARGO_BIN_EXE_delegateos-conform"))
        .current_dir(&root)
        .args([
            "run",
            "--format",
            "json",
            "--timeout-ms",
            "30000",
            "--report",
        ])
        .arg(&report_arg)
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
    let text = std::fs::read_to_string(&text_report).unwrap();
    let _ = std::fs::remove_file(&text_report);
    readme_quotes_the_last_line(&root, text.lines().last().unwrap_or_default());
}

/// README.md quotes the last line of README command 1 as
/// `PASSED (exit 0): N passed, 0 failed, … hardening: F of H failed (…)`: its numbers must be
/// the ones this run printed. The corpus changes often, so the line is shortened the same way
/// here and `DELEGATEOS_README_BLESS=1` rewrites it in README.md.
fn readme_quotes_the_last_line(root: &Path, last: &str) {
    let mut parts = last.split(", ");
    let (Some(head), Some(failed), Some(at)) =
        (parts.next(), parts.next(), last.find("hardening: "))
    else {
        panic!("the run's last line is not `VERDICT (exit N): N passed, N failed, … hardening: …`: {last}");
    };
    let tail = &last[at..];
    let want = format!("{head}, {failed}, … {tail}");
    let path = root.join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let quoted = readme
        .split('`')
        .find(|span| span.starts_with("PASSED (exit 0): ") && span.contains(" hardening: "))
        .unwrap_or_else(|| panic!("README.md quotes no `PASSED (exit 0): … hardening: …` line"));
    if quoted == want {
        return;
    }
    if std::env::var_os("DELEGATEOS_README_BLESS").is_some() {
        std::fs::write(&path, readme.replacen(quoted, &want, 1)).unwrap();
        return;
    }
    panic!(
        "README.md quotes the last line of `cargo run -p delegateos-conform -- run` as\n  {quoted}\n\
         but the run prints\n  {last}\nwhich README.md should quote as\n  {want}\n\
         Update it with: DELEGATEOS_README_BLESS=1 cargo test -p delegateos-conform --test reference_e2e"
    );
}
