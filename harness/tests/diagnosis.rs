//! Findings name the implementation's bug, not the case's (issue 47): a small JavaScript
//! verifier (`implementations/redteam/js-single`, the careful js-core path with one `BUG`
//! switched on) is run once per bug, and the report's findings are compared with those of the
//! same adapter without the bug. The bug must add exactly one finding — the catalogue fault
//! (`spec/data/faults.json`) written down here for it, from what the bug does — and that
//! finding must explain every failure the bug adds. Nothing else may change.
//!
//! The careful path is not bug-free (node's OpenSSL Ed25519 accepts small-order and
//! non-canonical keys); the test requires the diagnosis to name that too, as
//! `ed25519.weak-keys-accepted`, the defect it really is.
//! Needs `node` (≥ 18); without it the tests print SKIPPED and return.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

/// (BUG, the fault it is, what the bug does).
const BUGS: &[(&str, &str, &str)] = &[
    ("skip-4d", "verify.4d.expiry-unchecked", "step 4d skipped"),
    (
        "any-signature",
        "verify.3.signatures-unchecked",
        "no signature verified",
    ),
    (
        "any-action",
        "verify.7.action-ignored",
        "step 7 ignores the action",
    ),
    (
        "no-attenuator-check",
        "verify.4a.attenuator-unchecked",
        "step 4a skipped",
    ),
    (
        "depth-le",
        "verify.4e.depth-off-by-one",
        "4e compares > where >= is required",
    ),
    (
        "budget-gt",
        "verify.6.budget-strictly-greater",
        "step 6 denies only spent > budget",
    ),
    (
        "expiry-inclusive",
        "verify.5.expiry-inclusive",
        "expired at exactly expiresAt",
    ),
    (
        "no-revocation",
        "verify.2.revocations-ignored",
        "step 2 skipped",
    ),
    (
        "expiry-authority-only",
        "verify.5.authority-expiry-only",
        "step 5 ignores attenuation expiries",
    ),
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

/// Finding key → (severity, case ids) of a `run --area dct` against js-single with `bug`.
/// Finding key → (severity, case ids).
type Findings = BTreeMap<String, (String, Vec<String>)>;

fn findings(bug: &str) -> (Vec<String>, Findings) {
    let adapter = root().join("implementations/redteam/js-single/adapter.js");
    let out = Command::new(BIN)
        .args([
            "run",
            "--no-progress",
            "--format",
            "json",
            "--area",
            "dct",
            "--impl",
        ])
        .arg(format!("node {}", adapter.display()))
        .env("BUG", bug)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "BUG={bug}: no JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let list = report["findings"].as_array().expect("findings").clone();
    let order = list
        .iter()
        .map(|f| f["key"].as_str().unwrap().to_owned())
        .collect();
    let map = list
        .iter()
        .map(|f| {
            let ids = f["ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_str().unwrap().to_owned())
                .collect();
            (
                f["key"].as_str().unwrap().to_owned(),
                (f["severity"].as_str().unwrap().to_owned(), ids),
            )
        })
        .collect();
    (order, map)
}

#[test]
fn each_single_bug_is_named_as_its_own_fault_and_nothing_else_changes() {
    if !node_available() {
        println!("SKIPPED: node not found");
        return;
    }
    let (_, careful) = findings("");
    // The careful path's own defect is named for what it is.
    assert_eq!(
        careful.keys().collect::<Vec<_>>(),
        ["fault:ed25519.weak-keys-accepted"],
        "{careful:?}"
    );
    let mut wrong = Vec::new();
    let mut named = 0;
    for (bug, fault, what) in BUGS {
        let (order, found) = findings(bug);
        let want = format!("fault:{fault}");
        // Findings the bug adds: new keys, or a careful-path finding whose cases changed.
        let added: Vec<&String> = order
            .iter()
            .filter(|k| !careful.contains_key(*k) || careful.get(*k) != found.get(*k))
            .collect();
        // A careful-path finding the bug's fault absorbed (its cases fail for the bug too) is
        // gone, not added; everything the bug adds must be its own fault.
        let extra: Vec<&&String> = added.iter().filter(|k| ***k != want).collect();
        if added.first().map(|k| k.as_str()) != Some(want.as_str()) || !extra.is_empty() {
            wrong.push(format!(
                "BUG={bug} ({what}): expected {want} first and alone, got added {added:?}"
            ));
        } else {
            named += 1;
        }
    }
    println!(
        "diagnosis: {named} of {} single-bug runs named their own fault alone",
        BUGS.len()
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Runs `fuzz` (`fuzz_args`, then `--impl adapter --out DIR`, with `env`), then `run --vectors
/// DIR` on the same adapter, and requires every finding file to be graded by the replay with
/// the severity and effect the fuzzer reported for it. Returns the fuzzer's findings.
fn fuzz_and_replay(
    name: &str,
    fuzz_args: &[&str],
    adapter: &str,
    env: (&str, &str),
) -> BTreeMap<String, (String, String)> {
    let dir = std::env::temp_dir().join(format!(
        "delegateos-diagnosis-fuzz-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(BIN)
        .arg("fuzz")
        .args(fuzz_args)
        .arg("--impl")
        .arg(adapter)
        .arg("--out")
        .arg(&dir)
        .env(env.0, env.1)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // `  finding-0001  CRITICAL expiry-bypass  5 hit(s) …`: severity and effect per file.
    let fuzzed: BTreeMap<String, (String, String)> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let file = w.next()?.strip_prefix("finding-")?.to_owned();
            Some((
                format!("fuzz-finding-{file}-0001"),
                (w.next()?.to_lowercase(), w.next()?.to_owned()),
            ))
        })
        .collect();
    assert!(
        !fuzzed.is_empty(),
        "{name}: the fuzzer found nothing:\n{text}"
    );
    let out = Command::new(BIN)
        .args(["run", "--no-progress", "--format", "json", "--impl"])
        .arg(adapter)
        .arg("--vectors")
        .arg(&dir)
        .env(env.0, env.1)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let replayed: BTreeMap<String, (String, String)> = report["cases"]
        .as_array()
        .into_iter()
        .chain(report["hardening"]["cases"].as_array())
        .flatten()
        .filter_map(|c| {
            Some((
                c["id"].as_str()?.to_owned(),
                (
                    c["severity"].as_str()?.to_owned(),
                    c["effect"].as_str()?.to_owned(),
                ),
            ))
        })
        .collect();
    assert_eq!(
        fuzzed,
        replayed,
        "{name}: fuzz vs replay of {}",
        dir.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
    fuzzed
}

/// A fuzz run and the replay of its finding files agree (issue 47): each finding file, run
/// with `run --vectors`, is graded with the severity and effect the fuzzer reported for it,
/// because the file cites the step the mutation broke, not its seed's requirements.
#[test]
fn fuzz_findings_replay_to_the_same_severity_and_effect() {
    if !node_available() {
        println!("SKIPPED: node not found");
        return;
    }
    let adapter = format!(
        "node {}",
        root()
            .join("implementations/redteam/js-single/adapter.js")
            .display()
    );
    for bug in ["skip-4d", "budget-gt", "any-action"] {
        let args = ["--seed", "7", "--max-cases", "400", "--jobs", "1"];
        fuzz_and_replay(bug, &args, &adapter, ("BUG", bug));
    }
}

/// The same for operations graded by the reference's answer (issue 47, `fuzz --op`): each
/// finding file cites the requirements of the answer it was graded by (the denial a renamed
/// tool gets, not its spend seed's; the signature an unsigned edit broke), so the replay
/// grades it alike. py-wrap's bugs; needs `python3`.
#[test]
fn fuzz_op_findings_replay_to_the_same_severity_and_effect() {
    let python = Command::new("python3").arg("--version").output();
    if !python.is_ok_and(|o| o.status.success()) {
        println!("SKIPPED: python3 not found");
        return;
    }
    let adapter = format!(
        "python3 '{}' '{BIN}' reference-adapter",
        root()
            .join("implementations/redteam/py-wrap/adapter.py")
            .display()
    );
    for (op, bug, budget, expected) in [
        (
            "mcp.call",
            "mcp-tool-name-casefold",
            "512",
            "authorization-bypass",
        ),
        (
            "contract.verify_signature",
            "contract-unknown-members-stripped",
            "1024",
            "forgery",
        ),
        (
            "attestation.verify",
            "attestation-budget-unchecked",
            "256",
            "integrity-check-missing",
        ),
    ] {
        let args = [
            "--op",
            op,
            "--seed",
            "1",
            "--max-cases",
            budget,
            "--jobs",
            "1",
        ];
        let fuzzed = fuzz_and_replay(bug, &args, &adapter, ("REDTEAM_BUGS", bug));
        assert!(
            fuzzed.values().any(|(_, effect)| effect == expected),
            "{op} with {bug}: no {expected} finding: {fuzzed:?}"
        );
    }
}
