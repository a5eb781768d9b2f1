//! The corpus keeps its teeth: the deliberately defective red-team adapters
//! (`implementations/redteam/js-hasty`, `js-chain`, sharing `js-core/`) must FAIL the `dct`,
//! `glob`, `contract` and `attestation` areas, and every seeded bug must be caught by a named
//! case.
//!
//! For every (adapter, bug, case) row below the test checks three things:
//! 1. with the adapter's default bug list, the case is `failed` or `errored`;
//! 2. with ONLY that bug enabled (`REDTEAM_BUGS=<bug>`), the case still fails — so the case
//!    catches that bug, not another one;
//! 3. with no bug enabled (`REDTEAM_BUGS=`), the case passes — so the adapter's careful path
//!    is sound for it and the failure is the bug's.
//!
//! Needs `node` (≥ 18). Without it the tests print a message and return.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

/// (bug, case id that must fail because of it).
const JS_HASTY: &[(&str, &str)] = &[
    ("budget-falsy", "dct-redteam-0002"),
    ("budget-falsy", "dct-budget-0012"),
    ("depth-falsy", "dct-expanded-0110"),
    ("caps-empty-inherit", "dct-redteam-0008"),
    ("glob-regex-unescaped", "glob-redteam-0001"),
    ("glob-regex-unescaped", "glob-match-0052"),
    ("glob-replace-first", "glob-redteam-0040"),
    // `*` → `[^/]*` alone is D1's acceptable empty-segment reading; what the bug's regex
    // translation breaks is linear time, caught by a hostile case sized so that any
    // backtracking translation hangs on every machine (>10^60 steps), not by machine speed.
    ("glob-star-empty", "glob-match-0083"),
    // dct-expired-0080 (a lowercase `t`) became an acceptable reading of D5 in issue 36;
    // 0083 is one where `Date.parse` lets an expired token through.
    ("date-parse", "dct-expired-0083"),
    ("b64-lenient", "dct-malformed-0362"),
    ("json-lenient", "dct-malformed-0105"),
    ("request-as-pattern", "dct-capability-0045"),
    ("request-as-pattern", "dct-redteam-0050"),
    ("revid-blake2b512", "dct-revocation-ids-0001"),
    ("expiry-authority-only", "dct-expired-0010"),
    ("unsafe-integers", "dct-malformed-0320"),
    ("subset-via-match", "glob-subset-0032"),
    ("attenuator-vs-authority", "dct-redteam-0020"),
    ("resource-normalize", "glob-match-0014"),
    ("resource-normalize", "glob-redteam-0062"),
    ("resource-nfc", "glob-redteam-0050"),
    ("resource-nfc", "dct-redteam-0070"),
    ("revocation-ids-raw", "dct-revoked-0110"),
    ("revocation-ids-typed", "dct-revoked-0111"),
    // Keyed signature checks (D42): the padded key must not verify.
    ("key-padding-lenient", "contract-signature-key-0031"),
    ("key-padding-lenient", "attestation-signature-key-0031"),
];

const JS_CHAIN: &[(&str, &str)] = &[
    ("expiry-inclusive", "dct-expired-0001"),
    ("budget-gt", "dct-budget-0002"),
    ("revocation-last-block", "dct-revoked-0001"),
    ("revocation-unsigned", "dct-revoked-0040"),
    ("subset-startswith", "dct-expanded-0013"),
    ("attenuator-first-only", "dct-expanded-0121"),
    ("attenuator-first-only", "dct-redteam-0022"),
    ("last-signature-only", "dct-forged-0092"),
    ("covers-ignored", "dct-forged-0080"),
    ("depth-ignores-chaindepth", "dct-expanded-0111"),
    ("case-insensitive", "dct-capability-0012"),
    ("depth-no-count", "dct-expanded-0107"),
    ("caps-union", "dct-capability-0001"),
    ("glob-doublestar-dotstar", "glob-match-0044"),
    ("narrow-vs-authority", "dct-expanded-0060"),
    ("narrow-vs-authority", "dct-redteam-0009"),
    ("cap-cross-product", "dct-redteam-0030"),
    ("subset-cross-product", "dct-redteam-0040"),
    // `leap-year-simple` (2100-02-29 accepted) was retired in issue 36 and `ts-days-31` (every
    // month has 31 days) in issue 48: accepting an impossible calendar date is an acceptable
    // reading of D5 (V8's `Date` rolls it over and accepts it too), and no case tells the bug
    // apart from that reading (`dct-malformed-0423` caught it only by listing an `expired` no
    // reading gives, which sample 9203 found).
    ("offset-sign", "dct-expired-0020"),
    ("depth-le", "dct-expanded-0100"),
    ("issuedat-notbefore", "dct-expired-0070"),
    ("format-unchecked", "dct-malformed-0100"),
    ("root-signer-key", "dct-forged-0020"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs the suite on `ids` (or the dct, glob, contract and attestation areas when empty) with `REDTEAM_BUGS=bugs`
/// (unset when `None`); returns (exit code, status per case id).
fn run(
    adapter: &str,
    bugs: Option<&str>,
    ids: &[&str],
    tag: &str,
) -> (i32, BTreeMap<String, String>) {
    let script = root().join(format!("implementations/redteam/{adapter}/adapter.js"));
    let report = std::env::temp_dir().join(format!(
        "delegateos-redteam-{adapter}-{tag}-{}.json",
        std::process::id()
    ));
    let mut cmd = Command::new(BIN);
    cmd.current_dir(root())
        .arg("run")
        .arg("--impl")
        .arg(format!("node '{}'", script.display()))
        // Hardening findings (hostile globs, …) count: the bugs must be caught.
        .args(["--fail-on", "hardening", "--format", "json", "--output"])
        .arg(&report);
    if ids.is_empty() {
        // contract and attestation: the keyed signature checks (D42) of js-core.
        for area in ["dct", "glob", "contract", "attestation"] {
            cmd.args(["--area", area]);
        }
    }
    for id in ids {
        cmd.args(["--id", id]);
    }
    match bugs {
        Some(b) => cmd.env("REDTEAM_BUGS", b),
        None => cmd.env_remove("REDTEAM_BUGS"),
    };
    let out = cmd.output().expect("runs delegateos-conform");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| {
        panic!(
            "no report from {adapter} ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let _ = std::fs::remove_file(&report);
    let json: Value = serde_json::from_str(&text).expect("report is JSON");
    // Hardening-level cases are reported in their own section (issue 12).
    let statuses = json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .chain(json["hardening"]["cases"].as_array().into_iter().flatten())
        .map(|c| {
            (
                c["id"].as_str().unwrap_or_default().to_owned(),
                c["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    (out.status.code().unwrap_or(-1), statuses)
}

fn is_failure(status: Option<&String>) -> bool {
    matches!(status.map(String::as_str), Some("failed" | "errored"))
}

fn check(adapter: &str, table: &[(&str, &str)]) {
    if !node_available() {
        eprintln!("SKIPPED: `node` is not on PATH; the red-team adapter {adapter} cannot run");
        return;
    }
    let mut problems = Vec::new();

    // 1. Default bug list: the run fails, and every mapped case fails.
    let (code, statuses) = run(adapter, None, &[], "all");
    if code != 1 {
        problems.push(format!(
            "{adapter}: expected exit 1 with all bugs, got {code}"
        ));
    }
    for (bug, id) in table {
        if !statuses.contains_key(*id) {
            problems.push(format!("{adapter}/{bug}: case {id} is not in the corpus"));
        } else if !is_failure(statuses.get(*id)) {
            problems.push(format!(
                "{adapter}/{bug}: case {id} is {:?} with all bugs enabled (must fail)",
                statuses.get(*id)
            ));
        }
    }

    // 3. Careful path: every mapped case passes without bugs.
    let ids: Vec<&str> = table
        .iter()
        .map(|(_, id)| *id)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let (_, clean) = run(adapter, Some(""), &ids, "clean");
    for id in &ids {
        if is_failure(clean.get(*id)) || !clean.contains_key(*id) {
            problems.push(format!(
                "{adapter}: case {id} is {:?} with NO bug enabled (the careful path must pass it)",
                clean.get(*id)
            ));
        }
    }

    // 2. Attribution: each bug alone fails its cases.
    let mut by_bug: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (bug, id) in table {
        by_bug.entry(bug).or_default().push(id);
    }
    for (bug, ids) in by_bug {
        let (code, st) = run(adapter, Some(bug), &ids, bug);
        if code != 1 {
            problems.push(format!(
                "{adapter}/{bug} alone: expected exit 1, got {code}"
            ));
        }
        for id in ids {
            if !is_failure(st.get(id)) {
                problems.push(format!(
                    "{adapter}/{bug} alone: case {id} is {:?} (the corpus no longer catches this bug with it)",
                    st.get(id)
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn js_hasty_fails_with_every_seeded_bug_caught() {
    check("js-hasty", JS_HASTY);
}

#[test]
fn js_chain_fails_with_every_seeded_bug_caught() {
    check("js-chain", JS_CHAIN);
}

#[test]
fn every_seeded_bug_is_mapped() {
    // Each adapter's default bug list (global.DEFAULT_BUGS) must appear in its table.
    for (adapter, table) in [("js-hasty", JS_HASTY), ("js-chain", JS_CHAIN)] {
        let src = std::fs::read_to_string(
            root().join(format!("implementations/redteam/{adapter}/adapter.js")),
        )
        .expect("adapter source");
        let list = src
            .split("global.DEFAULT_BUGS = [")
            .nth(1)
            .and_then(|s| s.split("];").next())
            .expect("DEFAULT_BUGS list");
        let mapped: BTreeSet<&str> = table.iter().map(|(b, _)| *b).collect();
        for bug in list
            .split(',')
            .map(|s| s.trim().trim_matches('\''))
            .filter(|s| !s.is_empty())
        {
            assert!(
                mapped.contains(bug),
                "{adapter}: seeded bug {bug} has no catching case in tests/redteam.rs"
            );
        }
    }
}
