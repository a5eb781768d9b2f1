//! `fuzz --op` beyond `dct.verify` (issue 29 part 4): for every fuzzable operation,
//! 1. the reference against itself (its own adapter) finds nothing;
//! 2. a red-team adapter with one seeded bug in that operation is caught: a fixed-seed,
//!    fixed-budget run (cases, never wall time) reports a finding of the expected kind and
//!    severity, and the same run on that adapter's careful path (`REDTEAM_BUGS=`) finds
//!    nothing — so the finding is the seeded bug's (`check.run` has no such bug: py-wrap's is
//!    a decision's reading);
//! 3. a red-team bug that is a decision's other reading is no finding (`READINGS`).
//!
//! Needs `python3` (stdlib only: py-hasty and py-wrap). Without it the red-team test prints a
//! message and returns.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use delegateos_conform::fuzz::drive::{DiffConfig, DiffReport};
use delegateos_conform::fuzz::ops::{engine, OPERATIONS};
use delegateos_vectors::format::Severity;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

fn config(command: String, seed: u64, max_cases: usize) -> DiffConfig {
    DiffConfig {
        command,
        // The budget is the case count; the duration only guards against a hung test.
        duration: Duration::from_secs(3600),
        seed,
        vectors: None,
        batch: 64,
        timeout: Duration::from_secs(20),
        max_findings: 20,
        max_cases: Some(max_cases),
        stop_on_first: false,
        jobs: 2,
        minimize_budget: delegateos_conform::fuzz::triage::DEFAULT_MINIMIZE_BUDGET,
    }
}

fn run(op: &str, command: String, seed: u64, max_cases: usize) -> DiffReport {
    engine::run(op, &config(command, seed, max_cases), &mut |line| {
        eprintln!("{line}")
    })
    .unwrap_or_else(|e| panic!("{op}: {e}"))
}

fn have_python() -> bool {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_reference_against_itself_finds_nothing_on_any_operation() {
    let reference = format!("'{BIN}' reference-adapter");
    for op in OPERATIONS.iter() {
        let report = run(op, reference.clone(), 7, 192);
        assert_eq!(report.cases, 192, "{op}: the whole budget ran");
        assert_eq!(report.skipped, 0, "{op}: the reference declares it");
        let keys: Vec<&str> = report.findings.iter().map(|f| f.key.as_str()).collect();
        assert!(
            keys.is_empty(),
            "{op}: the reference disagrees with itself: {keys:?}"
        );
        assert!(report.seeds > 0, "{op}: seeded from the corpus");
    }
}

/// (op, adapter, seeded bug, budget, expected severity, a substring of the finding kind, a
/// substring of the run report's finding key).
struct Row {
    op: &'static str,
    adapter: &'static str,
    bug: &'static str,
    budget: usize,
    /// The fuzzer's `--seed` for both paths. Seed 1, except where the careful path of the
    /// red-team adapter disagrees with the reference within the budget on seed 1
    /// (py-hasty's revocation lists: another refusal code for a list with two faults).
    seed: u64,
    severity: Severity,
    kind: &'static str,
    report_key: &'static str,
}

const ROWS: &[Row] = &[
    Row {
        op: "json.canonicalize",
        adapter: "py-hasty",
        bug: "json-dupes-last",
        budget: 256,
        seed: 1,
        severity: Severity::Medium,
        kind: "reference invalid_json / implementation accepted",
        report_key: "json-parsing/lenient-input",
    },
    Row {
        op: "glob.match",
        adapter: "py-hasty",
        bug: "fnmatch-glob",
        budget: 256,
        seed: 1,
        severity: Severity::Critical,
        kind: "reference ok / implementation accepted (grants more)",
        report_key: "glob/scope-widening",
    },
    Row {
        op: "revocation.from_json",
        adapter: "py-hasty",
        bug: "json-dupes-last",
        budget: 256,
        seed: 2,
        // A duplicate member accepted (the reference refuses `invalid_json`, the seed another
        // code): graded by the refusal the mutation caused, lenient input (the entry's
        // signature is still checked over what was parsed), not by the seed's revocation rule.
        severity: Severity::Medium,
        kind: "reference invalid_json / implementation accepted",
        report_key: "revocation-list/lenient-input",
    },
    Row {
        op: "output.verify",
        adapter: "py-wrap",
        bug: "composite-all-pass-as-majority",
        budget: 512,
        seed: 1,
        severity: Severity::High,
        kind: "reference ok / implementation accepted (grants more)",
        report_key: "output-checks/integrity-check-missing",
    },
    Row {
        op: "contract.verify_signature",
        adapter: "py-wrap",
        bug: "contract-unknown-members-stripped",
        budget: 1024,
        seed: 1,
        // A member added after signing is accepted, because the signature is checked over the
        // contract with unknown members stripped: the signed contents are not what is used
        // (issue 48, signatures over less than the text names). The reference names the
        // unknown member first (`malformed_contract`, lenient input by itself), but the edit
        // kept a signature it broke, so the finding is graded by that signature fault.
        severity: Severity::Critical,
        kind: "reference malformed_contract / implementation accepted",
        report_key: "contract-signature/forgery",
    },
    Row {
        op: "attestation.verify",
        adapter: "py-wrap",
        bug: "attestation-budget-unchecked",
        budget: 256,
        seed: 1,
        severity: Severity::High,
        kind: "reference budget_exceeded / implementation accepted",
        report_key: "attestation-checks/integrity-check-missing",
    },
    Row {
        op: "mcp.call",
        adapter: "py-wrap",
        bug: "mcp-tool-name-casefold",
        budget: 512,
        seed: 1,
        severity: Severity::Critical,
        kind: "reference capability_not_granted / implementation accepted (grants more) / request.params.name",
        // The renamed tool is first found in a spend case (mcp-call-0092 among the seeds), but
        // the reference denies the renamed call `capability_not_granted`: the finding is graded
        // by that denial (what the corpus cites for it, MCP-CALL-VERIFY), an authorization
        // bypass, not by the seed's spend rule.
        report_key: "mcp-authorization/authorization-bypass",
    },
];

/// Red-team bugs that are a decision's other reading, not a defect: the same fixed-seed,
/// fixed-budget run that caught them as findings before the fuzzer held an edited input to the
/// decision's readings finds nothing. (op, adapter, bug, budget, seed, why.)
const READINGS: &[(&str, &str, &str, usize, u64, &str)] = &[(
    "check.run",
    "py-wrap",
    "regex-coerces-to-string",
    512,
    1,
    // Reported as a high `regex/integrity-check-missing` finding while the fuzzer held an
    // edited `regex_match` to the reference's one answer. D12: §6.2's `RegExp.test`
    // stringifies a non-string subject, and py-wrap stringifies numbers and booleans as
    // JavaScript's `String` does (for these inputs); the corpus accepts that reading
    // (checks-regex_match-0122–0134) and the fuzzer now computes it for the edited input
    // (`fuzz::ops::checks::d12_reading`). That the fuzzer does meet and accept this reading
    // is `inprocess/tests/fuzz.rs`'s `the_stringified_regex_reading_is_no_finding`.
    "D12",
)];

#[test]
fn a_decision_reading_is_no_finding() {
    if !have_python() {
        eprintln!("python3 not found: skipping the red-team readings");
        return;
    }
    for (op, adapter, bug, budget, seed, why) in READINGS {
        let report = run(op, adapter_command(adapter, bug), *seed, *budget);
        assert_eq!(report.cases, *budget, "{op}: the whole budget ran");
        let keys: Vec<String> = report
            .findings
            .iter()
            .map(|f| format!("{} {} [{}]", f.severity.as_str(), f.key, f.report_key))
            .collect();
        assert!(
            keys.is_empty(),
            "{op} with {adapter}={bug} ({why}): {keys:?}"
        );
    }
}

fn adapter_command(adapter: &str, bugs: &str) -> String {
    match adapter {
        "py-hasty" => format!(
            "REDTEAM_BUGS='{bugs}' python3 '{ROOT}/implementations/redteam/py-hasty/adapter.py'"
        ),
        _ => format!(
            "REDTEAM_BUGS='{bugs}' python3 '{ROOT}/implementations/redteam/py-wrap/adapter.py' \
             '{BIN}' reference-adapter"
        ),
    }
}

#[test]
fn a_seeded_bug_in_each_operation_is_found_with_its_severity() {
    if !have_python() {
        eprintln!("python3 not found: skipping the red-team fuzz rows");
        return;
    }
    let mut failures = Vec::new();
    for row in ROWS {
        let buggy = run(
            row.op,
            adapter_command(row.adapter, row.bug),
            row.seed,
            row.budget,
        );
        let found = buggy.findings.iter().find(|f| {
            f.key.contains(row.kind)
                && f.severity == row.severity
                && f.report_key.contains(row.report_key)
        });
        let summary: Vec<String> = buggy
            .findings
            .iter()
            .map(|f| format!("{} {} [{}]", f.severity.as_str(), f.key, f.report_key))
            .collect();
        if found.is_none() {
            failures.push(format!(
                "{} with {}={}: no {:?} finding containing {:?}; found {summary:?}",
                row.op, row.adapter, row.bug, row.severity, row.kind
            ));
        }
        let careful = run(
            row.op,
            adapter_command(row.adapter, ""),
            row.seed,
            row.budget,
        );
        if !careful.findings.is_empty() {
            let keys: Vec<&str> = careful.findings.iter().map(|f| f.key.as_str()).collect();
            failures.push(format!(
                "{} on the careful path of {}: {keys:?}",
                row.op, row.adapter
            ));
        }
        eprintln!("{} / {}: {summary:?}", row.op, row.bug);
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn an_unknown_op_is_a_usage_error() {
    let out = std::process::Command::new(BIN)
        .args([
            "fuzz",
            "--impl",
            "true",
            "--op",
            "glob.match,nope.op",
            "--max-cases",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.op"));
}

/// py-wrap's seeded bugs over the corpus (issue 47): each bug alone adds exactly one finding to
/// the careful path's report, and it names the bug's fault of the catalogue
/// (`spec/data/faults.json`); `None` is a bug the corpus accepts as a reading, with why.
const PY_WRAP_SEEDED: &[(&str, Option<&str>, &str)] = &[
    (
        "contract-unknown-members-stripped",
        Some("contract.unknown-members-stripped"),
        "",
    ),
    (
        "attestation-budget-unchecked",
        Some("attestation.budget-unchecked"),
        "",
    ),
    (
        "regex-coerces-to-string",
        None,
        "D12: ECMAScript's RegExp.test stringifies a non-string subject, and py-wrap stringifies \
         only numbers and booleans, as JavaScript's String does; the corpus accepts that reading \
         (checks-regex_match-0122–0134), and so does `fuzz --op check.run` (READINGS)",
    ),
    (
        "composite-all-pass-as-majority",
        Some("composite.all-pass-as-majority"),
        "",
    ),
    ("mcp-tool-name-casefold", Some("mcp.tool-name-casefold"), ""),
];

/// The findings of a `run` of the corpus against py-wrap with `bugs`: key → its cases.
fn py_wrap_findings(bugs: &str) -> std::collections::BTreeMap<String, serde_json::Value> {
    let out = std::process::Command::new(BIN)
        .args(["run", "--no-progress", "--format", "json", "--impl"])
        .arg(format!(
            "python3 '{ROOT}/implementations/redteam/py-wrap/adapter.py' '{BIN}' reference-adapter"
        ))
        .env("REDTEAM_BUGS", bugs)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{bugs}: no JSON report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["key"].as_str().unwrap().to_owned(), f["ids"].clone()))
        .collect()
}

#[test]
fn py_wrap_bugs_over_the_corpus_name_their_faults() {
    if !have_python() {
        eprintln!("python3 not found: skipping py-wrap's diagnosis");
        return;
    }
    let source =
        std::fs::read_to_string(format!("{ROOT}/implementations/redteam/py-wrap/adapter.py"))
            .unwrap();
    let names = source
        .split("BUG_NAMES = [")
        .nth(1)
        .unwrap()
        .split("\n]")
        .next()
        .unwrap();
    for line in names.lines().filter(|l| l.trim_start().starts_with('"')) {
        let bug = line
            .trim_start()
            .trim_start_matches('"')
            .split('"')
            .next()
            .unwrap();
        assert!(
            PY_WRAP_SEEDED.iter().any(|s| s.0 == bug),
            "py-wrap's bug {bug} is not in PY_WRAP_SEEDED"
        );
    }
    let careful = py_wrap_findings("");
    let mut failures = Vec::new();
    for (bug, fault, why) in PY_WRAP_SEEDED {
        let added: Vec<String> = py_wrap_findings(bug)
            .into_iter()
            .filter(|(k, ids)| careful.get(k) != Some(ids))
            .map(|(k, _)| k)
            .collect();
        eprintln!("py-wrap {bug}: {added:?}");
        let expected: Vec<String> = fault.iter().map(|f| format!("fault:{f}")).collect();
        if added != expected {
            failures.push(format!(
                "{bug}: added {added:?}, expected {expected:?} {why}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
