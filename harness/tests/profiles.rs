//! Profiles: `run --profile` / `--fail-on-advisory` plumbing and the `lint` subcommand.
//! Golden-free: assertions name specific findings, counts and exit codes.

// Test helpers: a failed unwrap is the test failing, with the error in the message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn vectors() -> String {
    root().join("vectors").display().to_string()
}

fn json_run(extra: &[&str], dir: &str) -> (i32, Value) {
    let mut args = vec!["run", "--no-progress", "--format", "json", "--vectors", dir];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    let v: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {stderr}"));
    (code, v)
}

#[test]
fn default_profile_excludes_advisory_cases() {
    let v = vectors();
    let (code, _, stderr) = run(&[
        "run",
        "--no-progress",
        "--vectors",
        &v,
        "--area",
        "advisory",
    ]);
    assert_eq!(code, 64, "{stderr}");
    assert!(stderr.contains("--profile strict"), "{stderr}");
    let (code, report) = json_run(&["--area", "advisory", "--area", "glob"], &v);
    assert_eq!(code, 0);
    assert_eq!(report["profile"], "delegateos-v0.1");
    assert_eq!(report["advisory"]["totals"]["total"], 0);
    let cases = report["cases"].as_array().unwrap();
    assert!(!cases.is_empty());
    assert!(cases.iter().all(|c| c["area"] == "glob"));
}

#[test]
fn strict_profile_runs_advisory_cases_in_their_own_section() {
    let v = vectors();
    let (code, report) = json_run(
        &[
            "--profile",
            "strict",
            "--area",
            "advisory",
            "--area",
            "glob",
        ],
        &v,
    );
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["profile"], "strict");
    let adv = &report["advisory"];
    let n = adv["totals"]["total"].as_u64().unwrap();
    assert!(n >= 60, "{n}");
    assert_eq!(adv["totals"]["passed"].as_u64().unwrap(), n);
    // Normative totals and sections never contain advisory cases.
    assert!(report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["area"] != "advisory"));
    assert!(report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| !s["section"].as_str().unwrap().starts_with("§A")));
    assert_eq!(
        report["totals"]["total"].as_u64().unwrap() as usize,
        report["cases"].as_array().unwrap().len()
    );
    // The text, Markdown and JUnit views have the section too.
    for (format, marker) in [
        ("text", "Advisory (neighbour profiles"),
        ("markdown", "### Advisory (neighbour profiles"),
        ("junit", "advisory: advisory/vorion"),
    ] {
        let (code, out, _) = run(&[
            "run",
            "--no-progress",
            "--vectors",
            &v,
            "--profile",
            "strict",
            "--area",
            "advisory",
            "--format",
            format,
        ]);
        assert_eq!(code, 0);
        assert!(out.contains(marker), "{format}: {out}");
    }
}

/// A copy of one advisory file whose first expectation is broken.
fn broken_corpus() -> tempdir::Dir {
    let dir = tempdir::Dir::new();
    let src = root().join("vectors/advisory/vorion.json");
    let mut file: Value = serde_json::from_str(&std::fs::read_to_string(src).unwrap()).unwrap();
    file["cases"][0]["expect"]["output"]["findings"] = serde_json::json!([{
        "rule": "ADV-VORION-NO-SELF-DELEGATION", "neighbour": "vorion",
        "clause": "x", "severity": "warning"}]);
    std::fs::create_dir_all(dir.path.join("advisory")).unwrap();
    std::fs::write(
        dir.path.join("advisory/vorion.json"),
        serde_json::to_string_pretty(&file).unwrap(),
    )
    .unwrap();
    let glob = root().join("vectors/glob/match.json");
    std::fs::create_dir_all(dir.path.join("glob")).unwrap();
    std::fs::copy(glob, dir.path.join("glob/match.json")).unwrap();
    dir
}

mod tempdir {
    use std::path::PathBuf;
    pub struct Dir {
        pub path: PathBuf,
    }
    impl Dir {
        pub fn new() -> Self {
            let path = std::env::temp_dir().join(format!(
                "dos-profiles-{}-{:?}",
                std::process::id(),
                std::thread::current().id()
            ));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Self { path }
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[test]
fn advisory_failures_change_the_exit_code_only_with_fail_on_advisory() {
    let dir = broken_corpus();
    let d = dir.path.display().to_string();
    let (code, report) = json_run(&["--profile", "strict"], &d);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["advisory"]["totals"]["failed"], 1);
    assert_eq!(report["totals"]["failed"], 0);
    assert_eq!(report["exit_code"], 0);
    let (code, report) = json_run(&["--profile", "strict", "--fail-on-advisory"], &d);
    assert_eq!(code, 1);
    assert_eq!(report["exit_code"], 1);
    assert_eq!(report["advisory"]["fail_on_advisory"], true);
    // The default profile does not even run it.
    let (code, report) = json_run(&["--fail-on-advisory"], &d);
    assert_eq!(code, 0);
    assert_eq!(report["advisory"]["totals"]["total"], 0);
}

fn case_input(group: &str, id: &str) -> Value {
    let path = root().join(format!("vectors/advisory/{group}.json"));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    file["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("{id}"))["input"]
        .clone()
}

fn lint_json(input: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![
        "lint",
        input,
        "--format",
        "json",
        "--now",
        "2026-03-01T10:00:00Z",
    ];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = run(&args);
    let v: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {stderr}"));
    (code, v)
}

fn rules(v: &Value) -> Vec<String> {
    v["advisory"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn lint_token_string_reports_normative_and_advisory_findings() {
    // Six hops (vorion 11): Vorion depth and OAP ceiling, nothing else; steps 1–4 pass.
    let input = case_input("vorion", "advisory-vorion-0011");
    let token = input["token"]["token"].as_str().unwrap();
    let (code, v) = lint_json(token, &[]);
    assert_eq!(code, 0);
    assert_eq!(v["normative"]["steps1to4"]["result"], "pass");
    assert_eq!(v["normative"]["summary"]["chainDepth"], 5);
    assert_eq!(v["normative"]["atNow"]["result"], "valid");
    let r = rules(&v);
    assert!(r.contains(&"ADV-VORION-MAX-DEPTH".to_owned()), "{r:?}");
    assert!(r.contains(&"ADV-OAP-DEPTH-CEILING".to_owned()), "{r:?}");
    assert!(
        !r.contains(&"ADV-VORION-NO-SELF-DELEGATION".to_owned()),
        "{r:?}"
    );
    // Warnings fail the lint only with --fail-on-advisory.
    let (code, _) = lint_json(token, &["--fail-on-advisory"]);
    assert_eq!(code, 1);
}

#[test]
fn lint_accepts_serialized_dct_json_files_and_chains() {
    let dir = tempdir::Dir::new();
    // SerializedDCT JSON in a file: self-delegation, nothing about cycles.
    let input = case_input("vorion", "advisory-vorion-0002");
    let f = dir.path.join("t.json");
    std::fs::write(&f, input["token"].to_string()).unwrap();
    let (code, v) = lint_json(f.to_str().unwrap(), &[]);
    assert_eq!(code, 0);
    let r = rules(&v);
    assert!(
        r.contains(&"ADV-VORION-NO-SELF-DELEGATION".to_owned()),
        "{r:?}"
    );
    assert!(
        !r.contains(&"ADV-VORION-NO-CIRCULAR-DELEGATION".to_owned()),
        "{r:?}"
    );
    // A clean chain: chain.verify valid, no finding.
    let chain = case_input("vorion", "advisory-vorion-0014");
    let (code, v) = lint_json(&chain.to_string(), &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["kind"], "chain");
    assert_eq!(v["normative"]["chain"]["result"], "valid");
    assert!(rules(&v).is_empty(), "{v}");
    // A chain with a missing receipt.
    let chain = case_input("openclaw", "advisory-openclaw-0008");
    let (_, v) = lint_json(&chain.to_string(), &[]);
    assert!(rules(&v).contains(&"ADV-OPENCLAW-RECEIPT-MISSING".to_owned()));
    // A token that is not base64url fails step 1 (exit 1).
    let (code, v) = lint_json("not a token", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        v["normative"]["steps1to4"]["denial"]["code"],
        "malformed_token"
    );
}
