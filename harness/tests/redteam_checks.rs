//! The stateful groups keep their teeth against state kept between requests by real check
//! libraries: the red-team adapter `implementations/redteam/js-checks` (ajv 8 and RegExp, the
//! way many services write them) must fail, and each seeded bug must be caught by a named
//! case of `vectors/stateful/` that fails with that bug alone and passes with none.
//!
//! Needs node and ajv (`npm ci --prefix harness/mcp-smoke`); without them the test prints
//! SKIPPED and returns (CI installs both before running it).

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

/// (seeded bug, stateful case that fails because of it).
const JS_CHECKS: &[(&str, &str)] = &[
    // One Ajv instance: the identical schema's second compilation is refused.
    ("shared-instance", "stateful-schema-id-0002"),
    // Validators looked up by `$id`: the second schema under that `$id` is judged by the first.
    ("cache-by-id", "stateful-schema-id-0004"),
    // Compiled regexes cached by check name: the second pattern is judged by the first.
    ("regex-by-name", "stateful-registry-0002"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

fn ready() -> bool {
    let node = Command::new("node").arg("--version").output();
    node.is_ok_and(|o| o.status.success())
        && root()
            .join("harness/mcp-smoke/node_modules/ajv/package.json")
            .is_file()
}

/// `run --area stateful` of js-checks; returns (exit code, status per case id).
fn run(bugs: Option<&str>) -> (i32, BTreeMap<String, String>) {
    let script = root().join("implementations/redteam/js-checks/adapter.js");
    let mut cmd = Command::new(BIN);
    cmd.current_dir(root())
        .arg("run")
        .arg("--impl")
        .arg(format!("node '{}'", script.display()))
        .args(["--area", "stateful", "--format", "json", "--no-progress"]);
    match bugs {
        Some(b) => cmd.env("REDTEAM_BUGS", b),
        None => cmd.env_remove("REDTEAM_BUGS"),
    };
    let out = cmd.output().expect("runs delegateos-conform");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON report ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let statuses = json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or_default().to_owned(),
                c["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    (out.status.code().unwrap_or(-1), statuses)
}

#[test]
fn js_checks_fails_with_every_seeded_bug_caught_by_a_stateful_case() {
    if !ready() {
        eprintln!(
            "SKIPPED: node or ajv missing (npm ci --prefix harness/mcp-smoke); js-checks cannot run"
        );
        return;
    }
    let mut problems = Vec::new();
    let (code, _) = run(None);
    if code != 1 {
        problems.push(format!("every bug on: expected exit 1, got {code}"));
    }
    let (code, clean) = run(Some(""));
    if code != 0 {
        problems.push(format!(
            "careful path: expected exit 0, got {code}: {clean:?}"
        ));
    }
    for (bug, id) in JS_CHECKS {
        if clean.get(*id).map(String::as_str) != Some("passed") {
            problems.push(format!("careful path: {id} is {:?}", clean.get(*id)));
        }
        let (code, alone) = run(Some(bug));
        if code != 1 || alone.get(*id).map(String::as_str) != Some("failed") {
            problems.push(format!(
                "{bug} alone: {id} is {:?}, exit {code} (the stateful group no longer catches it)",
                alone.get(*id)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
