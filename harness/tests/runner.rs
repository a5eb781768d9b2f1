//! End-to-end tests of `delegateos-conform run` against misbehaving fake adapters
//! (`tests/fixtures/fake_adapter.py`): every fault is recorded as the right status, the run
//! always finishes, no process outlives it, and the exit codes are the documented ones.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn fake(args: &str) -> String {
    format!("python3 '{}' {args}", fixture("fake_adapter.py").display())
}

/// A scratch directory with a one-file vector corpus and a requirements file.
struct Corpus {
    dir: PathBuf,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

impl Corpus {
    /// `cases`: (op, input, expect, requirement).
    fn new(cases: &[(&str, Value, Value, &str)]) -> Self {
        Self::with_groups(cases, &[])
    }

    /// Like [`Corpus::new`], plus `stateful` cases in a second file `fake/state.json` marked
    /// `"stateful": true` (ids `fake-state-NNNN`; it sorts after `echo.json`).
    fn with_groups(
        cases: &[(&str, Value, Value, &str)],
        stateful: &[(&str, Value, Value, &str)],
    ) -> Self {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "delegateos-conform-test-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("vectors/fake")).unwrap();
        let cases: Vec<Value> = cases
            .iter()
            .enumerate()
            .map(|(i, (op, input, expect, req))| {
                json!({
                    "id": format!("fake-echo-{:04}", i + 1),
                    "description": format!("case {} ({})", i + 1, input["mode"].as_str().unwrap_or("ok")),
                    "requirements": [req],
                    "flags": [],
                    "level": "normative",
                    "ground": {"kind": "text", "source": "spec", "section": "§10.1 step 1", "quote": "1. DESERIALIZE: base64url decode → parse JSON → validate structure"},
                    "stake": {"granted": "lenient-input", "refused": "valid-input-refused", "wrongOutput": "wrong-output", "crashOrHang": "crash-or-hang"},
                    "op": op,
                    "input": input,
                    "expect": expect,
                })
            })
            .collect();
        let file = json!({
            "schema": "delegateos-vectors/1",
            "specVersion": "0.2",
            "generator": {"name": "test", "version": "0"},
            "area": "fake",
            "group": "echo",
            "description": "fake cases",
            "keys": [],
            "notes": {},
            "numberOfCases": cases.len(),
            "cases": cases,
        });
        std::fs::write(
            dir.join("vectors/fake/echo.json"),
            serde_json::to_string_pretty(&file).unwrap(),
        )
        .unwrap();
        if !stateful.is_empty() {
            let cases: Vec<Value> = stateful
                .iter()
                .enumerate()
                .map(|(i, (op, input, expect, req))| {
                    json!({
                        "id": format!("fake-state-{:04}", i + 1),
                        "description": format!("stateful case {}", i + 1),
                        "requirements": [req], "flags": [], "level": "normative",
                        "ground": {"kind": "text", "source": "spec", "section": "§10.1 step 1", "quote": "1. DESERIALIZE: base64url decode → parse JSON → validate structure"},
                    "stake": {"granted": "lenient-input", "refused": "valid-input-refused", "wrongOutput": "wrong-output", "crashOrHang": "crash-or-hang"},
                        "op": op, "input": input, "expect": expect,
                    })
                })
                .collect();
            let file = json!({
                "schema": "delegateos-vectors/1", "specVersion": "0.2",
                "generator": {"name": "test", "version": "0"},
                "area": "fake", "group": "state", "description": "stateful fake cases",
                "stateful": true, "keys": [], "notes": {},
                "numberOfCases": cases.len(), "cases": cases,
            });
            std::fs::write(
                dir.join("vectors/fake/state.json"),
                serde_json::to_string_pretty(&file).unwrap(),
            )
            .unwrap();
        }
        std::fs::write(
            dir.join("requirements.json"),
            r#"{"sections": [
  {"section": "§1", "title": "Fake one", "requirements": [
    {"id": "FAKE-ONE", "level": "MUST", "text": "echo."}]},
  {"section": "§2", "title": "Fake two", "requirements": [
    {"id": "FAKE-TWO", "level": "MUST", "text": "also echo."},
    {"id": "FAKE-UNTESTED", "level": "MAY", "text": "do nothing."}]}]}
"#,
        )
        .unwrap();
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Runs `run` with this corpus plus `extra` args.
    fn run(&self, implementation: &str, extra: &[&str]) -> Outcome {
        let vectors = self.path("vectors");
        let reqs = self.path("requirements.json");
        let mut args: Vec<String> = vec![
            "run".into(),
            "--impl".into(),
            implementation.into(),
            "--vectors".into(),
            vectors.display().to_string(),
            "--requirements".into(),
            reqs.display().to_string(),
            "--extra-ops".into(),
            "fake.echo,fake.other".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        run_bin(&args)
    }

    /// Runs with `--format json` and returns the parsed report.
    fn run_json(&self, implementation: &str, extra: &[&str]) -> (Outcome, Value) {
        let mut args = vec!["--format", "json"];
        args.extend_from_slice(extra);
        let out = self.run(implementation, &args);
        let report: Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", out.stdout, out.stderr));
        validate_report(&report);
        assert!(
            report["interrupted"].is_null(),
            "a finished run says interrupted: null"
        );
        (out, report)
    }
}

impl Drop for Corpus {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct Outcome {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

fn run_bin(args: &[String]) -> Outcome {
    let start = Instant::now();
    let out = Command::new(BIN).args(args).output().unwrap();
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: start.elapsed(),
    }
}

fn validate_report(report: &Value) {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/schemas/report.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "report violates its schema: {errors:#?}");
}

fn ok(output: Value) -> (Value, Value) {
    (
        json!({"mode": "ok", "output": output}),
        json!({"result": "valid", "output": output}),
    )
}

fn mode(m: &str) -> Value {
    json!({"mode": m})
}

fn valid_empty() -> Value {
    json!({"result": "valid", "output": {}})
}

fn statuses(report: &Value) -> Vec<String> {
    report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = c["status"].as_str().unwrap().to_owned();
            match c.get("error_kind").and_then(Value::as_str) {
                Some(k) => format!("{s}:{k}"),
                None => s,
            }
        })
        .collect()
}

fn standard_cases() -> Vec<(&'static str, Value, Value, &'static str)> {
    let (i1, e1) = ok(json!({"a": 1}));
    vec![
        ("fake.echo", i1, e1, "FAKE-ONE"),
        (
            "fake.echo",
            json!({"mode": "error", "code": "revoked"}),
            json!({"result": "invalid", "code": "revoked", "stage": "10.1/2"}),
            "FAKE-TWO",
        ),
        (
            "fake.echo",
            json!({"mode": "ok", "output": {"v": false}}),
            json!({"result": "acceptable", "decision": "D1", "outcomes": [
                {"result": "valid", "output": {"v": true}},
                {"result": "valid", "output": {"v": false}}]}),
            "FAKE-ONE",
        ),
    ]
}

#[test]
fn all_pass_exits_0_and_json_report_validates() {
    let corpus = Corpus::new(&standard_cases());
    let (out, report) = corpus.run_json(&fake(""), &[]);
    assert_eq!(out.code, 0, "stderr: {}", out.stderr);
    assert_eq!(statuses(&report), ["passed", "passed", "acceptable"]);
    assert_eq!(report["implementation"]["name"], "fake");
    assert_eq!(report["totals"]["acceptable"], 1);
    assert_eq!(report["coverage"]["total"], 3);
    assert_eq!(report["coverage"]["executed"], 2);
    assert_eq!(report["coverage"]["not_executed"], json!(["FAKE-UNTESTED"]));
    assert_eq!(report["sections"][0]["section"], "§1 Fake one");
    assert_eq!(report["exit_code"], 0);
}

#[test]
fn failure_exits_1_with_a_diff_in_the_text_report() {
    let mut cases = standard_cases();
    cases.push((
        "fake.echo",
        json!({"mode": "error", "code": "expired"}),
        json!({"result": "invalid", "code": "revoked"}),
        "FAKE-TWO",
    ));
    let corpus = Corpus::new(&cases);
    let out = corpus.run(&fake(""), &[]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains("Critical findings: none"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("0 critical, 0 high, 1 medium, 0 low — 1 failing case(s)"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("fake-echo-0004"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("wrong code: invalid expired where invalid revoked expected"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("-  \"code\": \"revoked\""),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("+  \"code\": \"expired\""),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("Acceptable divergences (1)"));
    assert!(out.stdout.contains("§2 Fake two"));
    // No terminal: no progress bar escape codes on stderr.
    assert!(!out.stderr.contains('\x1b'));
}

#[test]
fn crash_mid_run_is_errored_and_the_adapter_restarted() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.echo", mode("crash"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.echo", i, e, "FAKE-TWO"),
    ]);
    let (out, report) = corpus.run_json(&fake(""), &[]);
    assert_eq!(out.code, 1);
    assert_eq!(
        statuses(&report),
        ["passed", "errored:crash", "passed", "passed"]
    );
    assert_eq!(report["restarts"], 1);
    let crashed = &report["cases"][1];
    assert!(crashed["stderr_tail"]
        .as_str()
        .unwrap()
        .contains("simulated crash <&>"));
    assert_eq!(report["incidents"][0]["kind"], "crash");
    assert_eq!(report["incidents"][0]["case_id"], "fake-echo-0002");
    // A crash among answers is a crash on that input: critical.
    assert_eq!(report["critical"][0]["effect"], "crash-or-hang");
}

/// Issue 38 item 9: an adapter that exits on every request has a broken loop; its crashes are
/// one medium adapter finding, not a critical crash on untrusted input — while one crash among
/// answers stays critical (`crash_mid_run_is_errored_and_the_adapter_restarted`). Issue 46: it
/// is an adapter error (exit 3, `ADAPTER ERROR`), the finding's title leads with the cause and
/// quotes no requirement; the same for an adapter whose every reply is not JSON.
#[test]
fn an_adapter_that_exits_on_every_request_is_an_adapter_bug_not_a_security_finding() {
    for (bad, cause) in [
        ("crash", "it exits on every request"),
        ("garbage", "no reply is a protocol reply: reply is not JSON"),
    ] {
        let corpus = Corpus::new(&[
            ("fake.echo", mode(bad), valid_empty(), "FAKE-ONE"),
            ("fake.echo", mode(bad), valid_empty(), "FAKE-ONE"),
            ("fake.echo", mode(bad), valid_empty(), "FAKE-TWO"),
        ]);
        let (out, report) = corpus.run_json(&fake(""), &[]);
        assert_eq!(out.code, 3, "{bad}: {}", report["findings"]);
        assert_eq!(report["exit_code"], 3, "{bad}");
        assert_eq!(report["critical"], json!([]), "{}", report["findings"]);
        let findings = report["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "{bad}: {findings:#?}");
        assert_eq!(
            findings[0]["key"],
            "errored adapter-exits-on-every-request/adapter-error"
        );
        assert_eq!(findings[0]["severity"], "medium");
        let title = findings[0]["title"].as_str().unwrap();
        assert!(
            title.starts_with(&format!("the adapter is broken, {cause}")),
            "{bad}: {title}"
        );
        assert!(
            !findings[0].to_string().contains("FAKE-ONE"),
            "{bad}: a broken adapter's finding quotes no requirement: {}",
            findings[0]
        );
        let text = corpus.run(&fake(""), &[]);
        let first = text.stdout.lines().next().unwrap_or_default();
        assert!(
            first.ends_with(": ADAPTER ERROR (exit 3)"),
            "{bad}: {first}"
        );
    }
}

/// Issue 46: a broken adapter (garbage or an exit on every request) once restarted 144 times
/// (28 s): the consecutive-errors rule started over after every operation it does not declare.
/// An adapter that answered none of its first N requests (`--max-consecutive-errors`, default
/// 20) is given up on: no later case is sent, so it restarts exactly N times, whatever the
/// number of cases, of undeclared operations between them, or of jobs — counted, never timed.
#[test]
fn a_broken_adapter_is_given_up_after_n_faults_with_no_reply_not_restarted_per_operation() {
    for bad in ["garbage", "crash"] {
        // 40 cases of the declared operation, one of an undeclared one after every fourth:
        // each undeclared case used to reset the count.
        let mut cases = Vec::new();
        for i in 0..40 {
            cases.push(("fake.echo", mode(bad), valid_empty(), "FAKE-ONE"));
            if i % 4 == 3 {
                cases.push(("fake.other", mode(bad), valid_empty(), "FAKE-TWO"));
            }
        }
        let corpus = Corpus::new(&cases);
        for (extra, n) in [
            (vec!["--jobs", "1"], 20),
            (vec!["--jobs", "3"], 20),
            (vec!["--jobs", "2", "--max-consecutive-errors", "5"], 5),
        ] {
            let (out, report) = corpus.run_json(&fake(""), &extra);
            assert_eq!(out.code, 3, "{bad} {extra:?}: {}", report["findings"]);
            assert_eq!(report["restarts"], n, "{bad} {extra:?}");
            let incidents = report["incidents"].as_array().unwrap();
            assert_eq!(incidents.len(), n, "{bad} {extra:?}: {incidents:#?}");
            let findings = report["findings"].as_array().unwrap();
            assert_eq!(findings.len(), 1, "{bad} {extra:?}: {findings:#?}");
            assert!(
                findings[0]["title"]
                    .as_str()
                    .unwrap()
                    .starts_with("the adapter is broken, "),
                "{bad}: {}",
                findings[0]["title"]
            );
            let unsent: Vec<&Value> = report["cases"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| {
                    c["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("answered none of the first"))
                })
                .collect();
            assert_eq!(unsent.len(), 40 - n, "{bad} {extra:?}");
        }
        // The verdict counts what was sent, not what was given up on.
        let text = corpus.run(&fake(""), &["--jobs", "1"]).stdout;
        let first = text.lines().next().unwrap_or_default();
        assert!(
            first.ends_with(
                ": ADAPTER ERROR (20 of 50 counted cases run; 1 of 2 operations) (exit 3)"
            ),
            "{bad}: {first}"
        );
    }
}

#[test]
fn hang_on_one_case_times_out_and_the_run_continues() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", mode("hang"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i, e, "FAKE-ONE"),
    ]);
    let (out, report) = corpus.run_json(&fake(""), &["--timeout-ms", "700"]);
    assert_eq!(out.code, 1);
    assert_eq!(statuses(&report), ["errored:timeout", "passed"]);
    assert!(out.elapsed < Duration::from_secs(20));
    assert_eq!(report["incidents"][0]["kind"], "timeout");
}

#[test]
fn garbage_wrong_seq_and_unknown_outcome_are_protocol_errors() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", mode("garbage"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("wrongseq"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("badoutcome"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i, e, "FAKE-ONE"),
    ]);
    let (out, report) = corpus.run_json(&fake(""), &[]);
    assert_eq!(out.code, 1);
    assert_eq!(
        statuses(&report),
        [
            "errored:protocol_error",
            "errored:protocol_error",
            "errored:protocol_error",
            "passed"
        ]
    );
    let kinds: Vec<&str> = report["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "protocol_error/not_json",
            "protocol_error/wrong_seq",
            "protocol_error/unknown_outcome"
        ]
    );
    assert_eq!(report["restarts"], 3);
}

#[test]
fn a_100_mb_line_is_cut_off_not_buffered() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", mode("huge"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i, e, "FAKE-ONE"),
    ]);
    let (out, report) = corpus.run_json(&fake(""), &["--timeout-ms", "30000"]);
    assert_eq!(out.code, 1);
    assert_eq!(statuses(&report), ["errored:protocol_error", "passed"]);
    assert_eq!(
        report["incidents"][0]["kind"],
        "protocol_error/line_too_long"
    );
}

#[test]
fn unsupported_ops_and_adapter_skips_are_skipped_not_failed() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.other", i, e, "FAKE-ONE"),
        ("fake.echo", mode("skip"), valid_empty(), "FAKE-TWO"),
    ]);
    let (out, report) = corpus.run_json(&fake("--ops fake.echo"), &[]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(statuses(&report), ["passed", "skipped", "skipped"]);
    assert!(report["cases"][1]["message"]
        .as_str()
        .unwrap()
        .contains("hello.operations"));
    assert_eq!(report["cases"][2]["message"], "not implemented here");
    // What the skips cost (issue 19): FAKE-ONE is also checked by the case that ran, so the
    // skipped `fake.other` case leaves nothing unchecked; FAKE-TWO is cited only by a skip.
    assert_eq!(
        report["coverage"]["skipped_operations"],
        json!([
            {"op": "fake.echo", "cases": 1, "unchecked_requirements": ["FAKE-TWO"]},
            {"op": "fake.other", "cases": 1, "unchecked_requirements": []},
        ])
    );
    let text = corpus.run(&fake("--ops fake.echo"), &[]);
    assert!(
        text.stdout
            .contains("- fake.echo: 1 case(s) skipped; 1 unchecked: FAKE-TWO"),
        "{}",
        text.stdout
    );
    // Issue 38 item 8: a pass that skipped cases says how much it covers, first and last.
    let covered = "PASSED (1 of 3 counted cases run; 1 of 2 operations)";
    assert!(
        text.stdout.lines().next().unwrap_or("").contains(covered),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout
            .trim_end()
            .lines()
            .last()
            .unwrap_or("")
            .starts_with(covered),
        "{}",
        text.stdout
    );
    let badge = corpus.run(&fake("--ops fake.echo"), &["--format", "badge"]);
    assert!(badge.stdout.contains("(1 of 3 run)"), "{}", badge.stdout);
    let md = corpus.run(&fake("--ops fake.echo"), &["--format", "markdown"]);
    assert!(
        md.stdout.contains("| `fake.echo` | 1 | FAKE-TWO |"),
        "{}",
        md.stdout
    );
    let html = corpus.run(&fake("--ops fake.echo"), &["--format", "html"]);
    assert!(
        html.stdout.contains("id=\"skip-cost\"")
            && html
                .stdout
                .contains("<td><code>fake.echo</code></td><td class=\"n\">1</td><td><code>FAKE-TWO</code></td>"),
        "{}",
        html.stdout
    );
}

#[test]
fn adapter_reported_errored_counts_as_errored() {
    let corpus = Corpus::new(&[("fake.echo", mode("errored"), valid_empty(), "FAKE-ONE")]);
    let (out, report) = corpus.run_json(&fake(""), &[]);
    assert_eq!(out.code, 1);
    assert_eq!(statuses(&report), ["errored:adapter_errored"]);
    assert_eq!(report["restarts"], 0);
}

#[test]
fn an_implementation_that_threw_is_graded_by_the_inputs_stake_not_as_an_adapter_error() {
    let corpus = Corpus::new(&[
        ("fake.echo", mode("threw"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("errored"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("threw"), valid_empty(), "FAKE-TWO"),
    ]);
    // The third case's stake says a crash on its input is an issuer-only hang (medium).
    let file = corpus.path("vectors/fake/echo.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    v["cases"][2]["stake"]["crashOrHang"] = "issuer-pattern-hang".into();
    std::fs::write(&file, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let (out, report) = corpus.run_json(&fake(""), &[]);
    assert_eq!(out.code, 1);
    assert_eq!(
        statuses(&report),
        ["errored:threw", "errored:adapter_errored", "errored:threw"]
    );
    let case = |i: usize| &report["cases"][i];
    assert_eq!(case(0)["effect"], "crash-or-hang");
    assert_eq!(case(0)["severity"], "critical");
    assert_eq!(case(1)["effect"], "adapter-error");
    assert_eq!(case(2)["effect"], "issuer-pattern-hang");
    assert_eq!(case(2)["severity"], "medium");
    assert!(
        case(0)["did"]
            .as_str()
            .unwrap()
            .contains("threw (TypeError: resource is not a string)"),
        "{}",
        case(0)["did"]
    );
    assert_eq!(report["critical"][0]["effect"], "crash-or-hang");
    assert_eq!(report["critical"][0]["counted"], true);
    // The adapter kept working: no restart, no incident.
    assert_eq!(report["restarts"], 0);
    assert_eq!(report["incidents"], json!([]));
}

/// Issue 46: a Python `TypeError` on input the implementation must reject is input it did not
/// validate; the fix says to validate it and answer the case's code (`malformed_token`), not the
/// generic crash or adapter hint. A case expected valid, or an error that names no exception,
/// keeps its generic fix.
#[test]
fn an_exception_on_input_to_reject_says_validate_it_and_answer_its_code() {
    let malformed = json!({"result": "invalid", "code": "malformed_token"});
    let corpus = Corpus::new(&[
        ("fake.echo", mode("threw"), malformed.clone(), "FAKE-ONE"),
        ("fake.other", mode("threw"), valid_empty(), "FAKE-TWO"),
        ("fake.echo", mode("errored"), malformed, "FAKE-ONE"),
    ]);
    let (_, report) = corpus.run_json(&fake("--ops fake.echo,fake.other"), &[]);
    let fix_of = |i: usize| -> String {
        let key = report["cases"][i]["finding"].as_str().unwrap_or_default();
        let f = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["key"] == key)
            .unwrap_or_else(|| panic!("case {i}'s finding {key:?}: {report:#}"));
        f["fix"].as_str().unwrap().to_owned()
    };
    let fix = fix_of(0);
    assert!(
        fix.contains("TypeError: resource is not a string")
            && fix.contains("validate the input")
            && fix.contains("`malformed_token`"),
        "{fix}"
    );
    // Expected valid: not input to reject.
    assert!(!fix_of(1).contains("validate the input"), "{}", fix_of(1));
    // `library threw` names no exception.
    assert!(!fix_of(2).contains("validate the input"), "{}", fix_of(2));
}

#[test]
fn a_case_needing_an_undeclared_option_is_skipped_never_a_finding() {
    let (i1, e1) = ok(json!({"a": 1}));
    let corpus = Corpus::new(&[
        ("fake.echo", i1, e1, "FAKE-ONE"),
        // Answered wrongly by the adapter: a finding whenever it is sent.
        (
            "fake.echo",
            json!({"mode": "ok", "output": {"strict": false}}),
            json!({"result": "valid", "output": {"strict": true}}),
            "FAKE-TWO",
        ),
    ]);
    let file = corpus.path("vectors/fake/echo.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    v["cases"][1]["options"] = json!(["strict-mode"]);
    std::fs::write(&file, serde_json::to_string_pretty(&v).unwrap()).unwrap();

    // Not declared: skipped with the option named, no finding, exit 0.
    let (out, report) = corpus.run_json(&fake(""), &[]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(statuses(&report), ["passed", "skipped"]);
    assert_eq!(
        report["cases"][1]["message"],
        "needs option strict-mode (not in the adapter's hello.options)"
    );
    assert_eq!(report["findings"], json!([]));
    assert_eq!(report["options"], json!([]));
    // Declared (with another): sent and judged.
    let (out, report) = corpus.run_json(&fake("--options per-tool-spend,strict-mode"), &[]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(statuses(&report), ["passed", "failed"]);
    assert_eq!(report["options"], json!(["per-tool-spend", "strict-mode"]));
    let text = corpus.run(&fake("--options strict-mode"), &[]).stdout;
    assert!(
        text.contains("options declared (hello.options): strict-mode\n"),
        "{text}"
    );
    // Issue 49: the Markdown summary says it too (the HTML: tests/html_report.rs).
    let md = corpus
        .run(&fake("--options strict-mode"), &["--format", "markdown"])
        .stdout;
    assert!(
        md.contains("options declared (hello.options): strict-mode\n"),
        "{md}"
    );
    // Another option only: still skipped.
    let (_, report) = corpus.run_json(&fake("--options per-tool-spend"), &[]);
    assert_eq!(statuses(&report), ["passed", "skipped"]);
    // An option nobody knows is a setup error naming the known ones.
    let out = corpus.run(&fake("--options strict"), &[]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("unknown option(s) strict") && out.stderr.contains("strict-mode"),
        "{}",
        out.stderr
    );
}

#[test]
fn each_adapter_process_gets_its_worker_index_and_own_temporary_directory() {
    let cases: Vec<_> = (0..4)
        .map(|_| ("fake.echo", mode("env"), valid_empty(), "FAKE-ONE"))
        .collect();
    let corpus = Corpus::new(&cases);
    let (out, report) = corpus.run_json(&fake(""), &["--jobs", "2"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(report["jobs"], 2);
    let answers: Vec<&Value> = report["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["actual"]["output"])
        .collect();
    // Dealt in turn: cases 1 and 3 to worker 0, 2 and 4 to worker 1.
    let workers: Vec<&str> = answers
        .iter()
        .map(|a| a["worker"].as_str().unwrap())
        .collect();
    assert_eq!(workers, ["0", "1", "0", "1"]);
    assert!(answers.iter().all(|a| a["jobs"] == "2"));
    let dirs: Vec<&str> = answers
        .iter()
        .map(|a| a["tmpdir"].as_str().unwrap())
        .collect();
    assert_ne!(dirs[0], dirs[1]);
    assert_eq!(dirs[0], dirs[2]);
    assert!(dirs[1].ends_with("worker-1"), "{}", dirs[1]);
    // Removed with the run.
    assert!(!Path::new(dirs[0]).exists() && !Path::new(dirs[1]).exists());
    let (_, report) = corpus.run_json(&fake(""), &["--jobs", "1"]);
    assert_eq!(report["jobs"], 1);
}

#[test]
fn an_adapter_not_safe_in_parallel_is_told_so_and_its_cases_are_not_findings() {
    let (i1, e1) = ok(json!({"a": 1}));
    let unsafe_case = (
        "fake.echo",
        json!({"mode": "parallel-unsafe", "output": {"a": 2}}),
        json!({"result": "valid", "output": {"a": 2}}),
        "FAKE-ONE",
    );
    let corpus = Corpus::new(&[
        ("fake.echo", i1, e1, "FAKE-ONE"),
        unsafe_case.clone(),
        unsafe_case,
        // A real failure: the same alone and in parallel, so still a finding.
        (
            "fake.echo",
            json!({"mode": "error", "code": "expired"}),
            json!({"result": "invalid", "code": "revoked"}),
            "FAKE-TWO",
        ),
    ]);
    let (out, report) = corpus.run_json(&fake(""), &["--jobs", "2"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(statuses(&report), ["passed", "passed", "passed", "failed"]);
    let unsafe_ids: Vec<&str> = report["parallel_unsafe"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(unsafe_ids, ["fake-echo-0002", "fake-echo-0003"]);
    assert_eq!(report["parallel_unsafe"][0]["parallel"], "failed");
    assert_eq!(report["parallel_unsafe"][0]["alone"], "passed");
    let finding_ids: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["ids"].as_array().unwrap())
        .map(|i| i.as_str().unwrap())
        .collect();
    assert_eq!(finding_ids, ["fake-echo-0004"]);
    let text = corpus.run(&fake(""), &["--jobs", "2"]).stdout;
    let screen: Vec<&str> = text.lines().take(4).collect();
    assert!(
        screen
            .iter()
            .any(|l| l.starts_with("The adapter is not safe to run in parallel: 2 case(s)")),
        "{text}"
    );
    // One job: nothing to re-run, nothing said.
    let (_, report) = corpus.run_json(&fake(""), &["--jobs", "1"]);
    assert_eq!(report["parallel_unsafe"], json!([]));
}

/// Issue 49 item 4: a crash (the adapter died) is run again alone too, not only a wrong answer:
/// an adapter that dies only beside other instances of itself is "not safe to run in
/// parallel", its cases are not findings; a crash alone as in parallel stays one.
#[test]
fn a_crash_only_in_parallel_is_run_again_alone_and_not_a_finding() {
    let (i1, e1) = ok(json!({"a": 1}));
    let crash_in_parallel = (
        "fake.echo",
        json!({"mode": "parallel-crash", "output": {"a": 2}}),
        json!({"result": "valid", "output": {"a": 2}}),
        "FAKE-ONE",
    );
    let corpus = Corpus::new(&[
        ("fake.echo", i1, e1, "FAKE-ONE"),
        crash_in_parallel.clone(),
        crash_in_parallel,
        // A crash whatever the jobs: still a finding after the re-run.
        (
            "fake.echo",
            json!({"mode": "crash"}),
            json!({"result": "valid", "output": {}}),
            "FAKE-TWO",
        ),
    ]);
    let (out, report) = corpus.run_json(&fake(""), &["--jobs", "2"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(
        statuses(&report),
        ["passed", "passed", "passed", "errored:crash"]
    );
    let unsafe_cases: Vec<(&str, &str, &str)> = report["parallel_unsafe"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap(),
                p["parallel"].as_str().unwrap(),
                p["alone"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        unsafe_cases,
        [
            ("fake-echo-0002", "errored:crash", "passed"),
            ("fake-echo-0003", "errored:crash", "passed")
        ]
    );
    let finding_ids: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["ids"].as_array().unwrap())
        .map(|i| i.as_str().unwrap())
        .collect();
    assert_eq!(finding_ids, ["fake-echo-0004"]);
    // One job: the mode never crashes, the real crash stays.
    let (_, report) = corpus.run_json(&fake(""), &["--jobs", "1"]);
    assert_eq!(report["parallel_unsafe"], json!([]));
    assert_eq!(
        statuses(&report),
        ["passed", "passed", "passed", "errored:crash"]
    );
}

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // Field 3 is the state; a zombie is dead for our purposes.
        Ok(stat) => !stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
        Err(_) => false,
    }
}

#[test]
fn no_orphans_after_crashes_timeouts_and_bye() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.echo", mode("crash"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("hang"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i, e, "FAKE-ONE"),
    ]);
    let pidfile = corpus.path("pids");
    // One job: the count of adapter starts is then exact (with more, a crash is also run
    // again alone in one more process).
    let out = corpus.run(
        &fake(&format!("--spawn-child '{}'", pidfile.display())),
        &["--timeout-ms", "700", "--jobs", "1"],
    );
    assert_eq!(out.code, 1);
    let pids: Vec<u32> = std::fs::read_to_string(&pidfile)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 3, "one grandchild per adapter start");
    std::thread::sleep(Duration::from_millis(200));
    for pid in pids {
        assert!(!alive(pid), "grandchild {pid} survived the run");
    }
}

#[test]
fn consecutive_failures_abandon_the_rest() {
    let (i, e) = ok(json!({}));
    let cases: Vec<_> = (0..6)
        .map(|_| ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"))
        .collect();
    let corpus = Corpus::new(&cases);
    let (out, report) =
        corpus.run_json(&fake("--crash-after 0"), &["--max-consecutive-errors", "2"]);
    // An adapter that exits on every request it is sent is an adapter error (issue 46).
    assert_eq!(out.code, 3);
    assert_eq!(
        statuses(&report),
        [
            "errored:crash",
            "errored:crash",
            "errored:abandoned",
            "errored:abandoned",
            "errored:abandoned",
            "errored:abandoned"
        ]
    );
}

#[test]
fn setup_errors_exit_3() {
    let corpus = Corpus::new(&standard_cases());
    for (imp, extra, needle) in [
        (
            fake("--hello hang"),
            vec!["--hello-timeout-ms", "500"],
            "no hello reply",
        ),
        (fake("--hello v2"), vec![], "unsupported_protocol"),
        (fake("--hello garbage"), vec![], "not JSON"),
        (
            fake("--hello exit"),
            vec![],
            "cannot initialise the library",
        ),
        ("exit 1".to_owned(), vec![], "exited before replying"),
    ] {
        let out = corpus.run(&imp, &extra);
        assert_eq!(out.code, 3, "{imp}: {}", out.stderr);
        assert!(
            out.stderr.contains(needle)
                || (needle == "unsupported_protocol" && out.stderr.contains("protocol 2")),
            "{imp}: {}",
            out.stderr
        );
    }
    let out = run_bin(&[
        "run".into(),
        "--impl".into(),
        fake(""),
        "--vectors".into(),
        corpus.path("missing").display().to_string(),
    ]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    std::fs::write(corpus.path("bad.txt"), "fake-echo-0001\n").unwrap();
    let bad = corpus.path("bad.txt").display().to_string();
    let out = corpus.run(&fake(""), &["--expected-failures", &bad]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("has no reason"));
}

/// A run that cannot fail is a setup error (exit 3) naming the problem (issue 12).
#[test]
fn a_run_that_cannot_fail_exits_3() {
    let corpus = Corpus::new(&standard_cases());
    for (imp, needle) in [
        (fake("--ops ''"), "declares no operations"),
        (
            fake("--ops fake.echo,dct.verfy"),
            "unknown operation(s) dct.verfy",
        ),
        (fake("--ops fake.other"), "were skipped"),
    ] {
        let out = corpus.run(&imp, &[]);
        assert_eq!(out.code, 3, "{imp}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{imp}: {}", out.stderr);
    }
    // Without --extra-ops, the vectors' `fake.echo` is not in spec/operations.md.
    let out = run_bin(&[
        "run".into(),
        "--impl".into(),
        fake(""),
        "--vectors".into(),
        corpus.path("vectors").display().to_string(),
        "--requirements".into(),
        corpus.path("requirements.json").display().to_string(),
    ]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("fake-echo-0001 uses unknown operation \"fake.echo\""),
        "{}",
        out.stderr
    );
}

#[test]
fn usage_errors_exit_64() {
    let corpus = Corpus::new(&standard_cases());
    assert_eq!(corpus.run(&fake(""), &["--id", "nothing-*"]).code, 64);
    assert_eq!(corpus.run(&fake(""), &["--bogus"]).code, 64);
    assert_eq!(corpus.run(&fake(""), &["--timeout-ms", "0"]).code, 64);
    assert_eq!(run_bin(&[]).code, 64);
    assert_eq!(run_bin(&["--help".into()]).code, 0);
    assert!(run_bin(&["run".into(), "--help".into()])
        .stdout
        .contains("64  usage error"));
}

#[test]
fn expected_failures_xfail_stale_and_unused() {
    let mut cases = standard_cases();
    cases.push((
        "fake.echo",
        json!({"mode": "error", "code": "expired"}),
        json!({"result": "invalid", "code": "revoked"}),
        "FAKE-TWO",
    ));
    cases.push(("fake.echo", mode("crash"), valid_empty(), "FAKE-TWO"));
    let corpus = Corpus::new(&cases);
    let write = |name: &str, text: &str| {
        let p = corpus.path(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    // Both not-passing cases baselined: exit 0.
    let xfail = write(
        "xfail.txt",
        "# baseline\nfake-echo-0004 wrong code, issue 1\nfake-echo-0005 crashes on this input\n",
    );
    let (out, report) = corpus.run_json(&fake(""), &["--expected-failures", &xfail]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        statuses(&report),
        ["passed", "passed", "acceptable", "xfail", "xfail:crash"]
    );
    assert_eq!(report["cases"][3]["raw_status"], "failed");
    assert_eq!(
        report["cases"][3]["expected_failure"],
        "wrong code, issue 1"
    );

    // A baselined case that passes is stale: exit 2.
    let stale = write(
        "stale.txt",
        "fake-echo-0001 fixed long ago\nfake-echo-000? everything else\nnever-0001 gone\n",
    );
    let out = corpus.run(&fake(""), &["--expected-failures", &stale]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("Stale expected failures"));
    assert!(out.stdout.contains("Unused expected-failure entries (1)"));

    // An entry matching no case at all: exit 2 even with everything else fine.
    let unused = write(
        "unused.txt",
        "fake-echo-0004 a\nfake-echo-0005 b\ngone-case-0001 removed case\n",
    );
    let (out, report) = corpus.run_json(&fake(""), &["--expected-failures", &unused]);
    assert_eq!(out.code, 2);
    assert_eq!(
        report["expected_failures"]["unused"][0]["pattern"],
        "gone-case-0001"
    );

    // Failures win over staleness: exit 1.
    let partial = write("partial.txt", "fake-echo-0001 fixed long ago\n");
    assert_eq!(
        corpus
            .run(&fake(""), &["--expected-failures", &partial])
            .code,
        1
    );
}

#[test]
fn filters_select_cases() {
    let corpus = Corpus::new(&standard_cases());
    let ids = |extra: &[&str]| -> Vec<String> {
        let (_, report) = corpus.run_json(&fake(""), extra);
        report["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&["--id", "*-0002"]), ["fake-echo-0002"]);
    assert_eq!(ids(&["--requirement", "FAKE-TWO"]), ["fake-echo-0002"]);
    assert_eq!(ids(&["--requirement", "FAKE"]).len(), 3);
    assert_eq!(
        ids(&["--op", "fake.*", "--id", "fake-echo-0001", "--id", "*-0003"]),
        ["fake-echo-0001", "fake-echo-0003"]
    );
    assert_eq!(ids(&["--area", "fake", "--group", "echo"]).len(), 3);
}

#[test]
fn junit_and_markdown_reports() {
    let mut cases = standard_cases();
    cases.push((
        "fake.echo",
        json!({"mode": "error", "code": "expired"}),
        json!({"result": "invalid", "code": "revoked"}),
        "FAKE-TWO",
    ));
    cases.push(("fake.echo", mode("crash"), valid_empty(), "FAKE-TWO"));
    cases.push(("fake.echo", mode("noise"), valid_empty(), "FAKE-TWO"));
    let corpus = Corpus::new(&cases);
    let junit = corpus.path("out.xml").display().to_string();
    let md = corpus.path("out.md").display().to_string();
    let json_file = corpus.path("out.json").display().to_string();
    let out = corpus.run(
        &fake(""),
        &[
            "--format",
            "junit",
            "--report",
            &format!("markdown={md}"),
            "--report",
            &format!("json={json_file}"),
            "--output",
            &junit,
        ],
    );
    assert_eq!(out.code, 1);
    assert!(out.stdout.is_empty(), "--output redirects the main report");
    // Parse it back with an independent XML parser.
    let check = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, xml.etree.ElementTree as E\n\
             r = E.parse(sys.argv[1]).getroot()\n\
             s = r.find('testsuite')\n\
             print(r.tag, r.get('tests'), r.get('failures'), r.get('errors'), s.get('name'),\n\
                   len(s.findall('testcase')), len(s.findall('testcase/failure')),\n\
                   len(s.findall('testcase/error')))\n\
             print(s.findall('testcase/error')[0].text)",
        )
        .arg(&junit)
        .output()
        .unwrap();
    let parsed = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(
        parsed.starts_with("testsuites 6 1 1 fake/echo 6 1 1"),
        "{parsed}"
    );
    assert!(parsed.contains("simulated crash <&>"), "{parsed}");
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("| §2 Fake two |"), "{markdown}");
    assert!(markdown.contains("```diff"));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    validate_report(&report);
}

#[test]
fn list_ops_prints_the_handshake() {
    let out = run_bin(&[
        "list-ops".into(),
        "--impl".into(),
        fake("--ops fake.echo,fake.other"),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "fake 0.0.1 (python)\nfake.echo\nfake.other\n");
}

/// `--requirements-md`, the option that read spec/requirements.md, is a hidden alias of
/// `--requirements`: it takes the JSON, and the Markdown is refused with a message naming the
/// data file (exit 3, no panic), by `run` and by `coverage`.
#[test]
fn requirements_md_alias_takes_the_json_and_refuses_markdown() {
    let corpus = Corpus::new(&standard_cases());
    let md = corpus.path("requirements.md");
    std::fs::write(
        &md,
        "# R\n\n## §1 Fake one\n\n- **`FAKE-ONE`** MUST echo.\n",
    )
    .unwrap();
    let vectors = corpus.path("vectors").display().to_string();
    let with = |command: &str, file: &Path| {
        let mut args: Vec<String> = vec![
            command.into(),
            "--vectors".into(),
            vectors.clone(),
            "--requirements-md".into(),
            file.display().to_string(),
        ];
        if command == "run" {
            args.extend(
                ["--impl", &fake(""), "--extra-ops", "fake.echo,fake.other"].map(String::from),
            );
        }
        run_bin(&args)
    };
    for command in ["run", "coverage"] {
        let out = with(command, &md);
        assert_eq!(out.code, 3, "{command}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("requirements are data now: pass spec/data/requirements.json"),
            "{command}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    }
    // The alias reads the JSON like `--requirements`.
    let out = with("coverage", &corpus.path("requirements.json"));
    assert!(
        out.stdout.contains("requirement FAKE-UNTESTED has no case"),
        "{}",
        out.stdout
    );
}

#[test]
fn coverage_reports_gaps_and_unknown_ids() {
    let corpus = Corpus::new(&standard_cases());
    let cov = |corpus: &Corpus| {
        run_bin(&[
            "coverage".into(),
            "--vectors".into(),
            corpus.path("vectors").display().to_string(),
            "--requirements".into(),
            corpus.path("requirements.json").display().to_string(),
        ])
    };
    let out = cov(&corpus);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("requirement FAKE-UNTESTED has no case"));
    assert!(out.stdout.contains("FAKE-ONE"));
    let (i, e) = ok(json!({}));
    let full = Corpus::new(&[
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.echo", i.clone(), e.clone(), "FAKE-TWO"),
        ("fake.echo", i.clone(), e.clone(), "FAKE-UNTESTED"),
    ]);
    assert_eq!(cov(&full).code, 0);
    let unknown = Corpus::new(&[
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.echo", i.clone(), e.clone(), "FAKE-TWO"),
        ("fake.echo", i.clone(), e.clone(), "FAKE-UNTESTED"),
        ("fake.echo", i, e, "FAKE-NOPE"),
    ]);
    let out = cov(&unknown);
    assert_eq!(out.code, 1);
    assert!(out
        .stdout
        .contains("case fake-echo-0004 cites unknown requirement FAKE-NOPE"));
}

// ---- issue 16: interrupts, crash detection, orphans, protocol quotes, list, baselines,
// ---- lint paths, diffs, setup reports.

fn pids_in(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().trim_start_matches("adapter ").parse().ok())
        .collect()
}

/// Waits (hang guard only: no duration is asserted) until `pred` holds.
fn wait_until(what: &str, mut pred: impl FnMut() -> bool) {
    let guard = Instant::now() + Duration::from_secs(120);
    while !pred() {
        assert!(Instant::now() < guard, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The exit code of `child` once it exits (killed, and the test failed, after 120 s).
fn exit_code_within(child: &mut std::process::Child, what: &str) -> Option<i32> {
    let guard = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s.code();
        }
        if Instant::now() > guard {
            let _ = child.kill();
            panic!("{what} did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn assert_all_dead(pids: &[u32]) {
    // Killed processes may take a moment to be reaped by whoever inherited them.
    for &pid in pids {
        wait_until(&format!("pid {pid} to die"), || !alive(pid));
    }
}

#[test]
fn signals_kill_every_adapter_write_partial_reports_and_exit_130() {
    for signal in ["INT", "TERM", "HUP"] {
        let (i, e) = ok(json!({}));
        let corpus = Corpus::new(&[
            ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
            ("fake.echo", mode("hang"), valid_empty(), "FAKE-ONE"),
            ("fake.echo", i, e, "FAKE-TWO"),
        ]);
        let mark = corpus.path("mark");
        let pids = corpus.path("pids");
        let report = corpus.path("partial.json");
        let junit = corpus.path("partial.xml");
        let mut child = Command::new(BIN)
            .args([
                "run",
                "--impl",
                &fake(&format!(
                    "--spawn-child '{p}' --spawn-setsid-child '{p}' --mark '{m}'",
                    p = pids.display(),
                    m = mark.display()
                )),
                "--vectors",
                &corpus.path("vectors").display().to_string(),
                "--requirements",
                &corpus.path("requirements.json").display().to_string(),
                "--extra-ops",
                "fake.echo,fake.other",
                "--timeout-ms",
                "600000",
                "--report",
                &format!("json={}", report.display()),
                "--report",
                &format!("junit={}", junit.display()),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        wait_until("the adapter to hang", || {
            std::fs::read_to_string(&mark).is_ok_and(|m| m.contains("hang"))
        });
        let status = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let code = exit_code_within(&mut child, &format!("SIG{signal}: the harness"));
        let mut stderr = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        assert_eq!(code, Some(130), "SIG{signal}: {stderr}");
        assert!(
            stderr.contains(&format!("interrupted by SIG{signal}")),
            "{stderr}"
        );
        let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        validate_report(&json);
        assert_eq!(
            json["interrupted"],
            format!("SIG{signal}"),
            "top-level field"
        );
        // Issue 38 item 6: the report says the exit code the process returns.
        assert_eq!(json["exit_code"], 130, "the JSON report's exit code");
        // The hanging case is abandoned; with one worker the first passed and the third was
        // never sent, with more (`--jobs`, default the number of cores) another worker may
        // have run either, or been starting its adapter for one when the signal came.
        let st = statuses(&json);
        assert_eq!(st[1], "errored:abandoned", "{st:?}");
        assert!(
            st.iter()
                .all(|s| ["passed", "errored:abandoned"].contains(&s.as_str())),
            "{st:?}"
        );
        assert!(json["cases"][1]["message"]
            .as_str()
            .unwrap()
            .contains("interrupted"));
        assert!(json["incidents"].as_array().unwrap().is_empty());
        assert!(std::fs::read_to_string(&junit)
            .unwrap()
            .contains("interrupted"));
        let mut all = pids_in(&pids);
        all.extend(pids_in(&mark));
        // Per adapter process (one per worker that started one): itself, a grandchild and a
        // setsid grandchild.
        assert!(
            !all.is_empty() && all.len().is_multiple_of(3),
            "adapter, grandchild, setsid grandchild: {all:?}"
        );
        assert_all_dead(&all);
    }
}

/// Issue 46: an interrupted run does not blame the adapter for what it never reached. The
/// cases of an operation the adapter does not declare are `skipped` (they were `errored`,
/// unfinished), and the unfinished ones make no finding (they made an `adapter-error` one,
/// "counted in the exit code").
/// Issue 46: `compare --impl a='nosuch-cmd' --impl b=…` once exited 0 with a setup-error row
/// and a spurious "different case sets" note. A setup error of one implementation is a setup
/// error of the comparison: exit 3, the cause named, no comparison written.
#[test]
fn compare_with_an_implementation_that_cannot_start_is_a_setup_error() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[("fake.echo", i, e, "FAKE-ONE")]);
    let out = Command::new(BIN)
        .args([
            "compare",
            "--impl",
            "a=nosuch-cmd-a46",
            "--impl",
            &format!("b={}", fake("")),
            "--",
            "--vectors",
            &corpus.path("vectors").display().to_string(),
            "--requirements",
            &corpus.path("requirements.json").display().to_string(),
            "--extra-ops",
            "fake.echo",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("setup error: a (run --impl nosuch-cmd-a46) could not be run:")
            && stderr.contains("nosuch-cmd-a46: not found"),
        "{stderr}"
    );
    assert!(!stdout.contains("different case sets"), "{stdout}");
    assert!(stdout.trim().is_empty(), "no comparison: {stdout}");
}

/// Issue 46: SIGINT during `compare --impl` once exited 130 with no message and no output.
/// Like `run` and `fuzz`: the message, then the comparison of the partial reports, exit 130.
#[test]
fn an_interrupted_compare_says_so_and_writes_the_partial_comparison() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", i, e, "FAKE-ONE"),
        ("fake.echo", mode("hang"), valid_empty(), "FAKE-ONE"),
    ]);
    let mark = corpus.path("mark");
    let output = corpus.path("compare.txt");
    let mut child = Command::new(BIN)
        .args([
            "compare",
            "--jobs",
            "2",
            "--output",
            &output.display().to_string(),
            "--impl",
            &format!("a={}", fake(&format!("--mark '{}'", mark.display()))),
            "--impl",
            &format!("b={}", fake(&format!("--mark '{}'", mark.display()))),
            "--",
            "--vectors",
            &corpus.path("vectors").display().to_string(),
            "--requirements",
            &corpus.path("requirements.json").display().to_string(),
            "--extra-ops",
            "fake.echo",
            "--timeout-ms",
            "600000",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("both adapters to hang", || {
        std::fs::read_to_string(&mark).is_ok_and(|m| m.matches("hang").count() == 2)
    });
    let status = Command::new("kill")
        .args(["-INT".to_owned(), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = exit_code_within(&mut child, "SIGINT: compare");
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        stderr.contains(
            "interrupted by SIGINT: the comparison below covers the cases each run \
             finished (partial: a, b;"
        ),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&output).expect("the partial comparison is written");
    assert!(text.contains("2 implementations compared"), "{text}");
    assert!(text.contains("INTERRUPTED"), "{text}");
    assert!(text.contains("note: interrupted by SIGINT"), "{text}");
}

#[test]
fn an_interrupt_leaves_undeclared_operations_skipped_and_makes_no_finding() {
    let corpus = Corpus::new(&[
        ("fake.echo", mode("hang"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("hang"), valid_empty(), "FAKE-ONE"),
        ("fake.other", mode("hang"), valid_empty(), "FAKE-TWO"),
        ("fake.other", mode("hang"), valid_empty(), "FAKE-TWO"),
    ]);
    let mark = corpus.path("mark");
    let report = corpus.path("partial.json");
    let mut child = Command::new(BIN)
        .args([
            "run",
            "--no-progress",
            "--jobs",
            "1",
            "--impl",
            &fake(&format!("--mark '{}'", mark.display())),
            "--vectors",
            &corpus.path("vectors").display().to_string(),
            "--requirements",
            &corpus.path("requirements.json").display().to_string(),
            "--extra-ops",
            "fake.echo,fake.other",
            "--timeout-ms",
            "600000",
            "--report",
            &format!("json={}", report.display()),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_until("the adapter to hang", || {
        std::fs::read_to_string(&mark).is_ok_and(|m| m.contains("hang"))
    });
    let status = Command::new("kill")
        .args(["-INT".to_owned(), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = exit_code_within(&mut child, "SIGINT: the harness");
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert_eq!(code, Some(130), "{stderr}");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let st = statuses(&json);
    assert_eq!(
        st,
        [
            "errored:abandoned",
            "errored:abandoned",
            "skipped",
            "skipped"
        ],
        "{stderr}"
    );
    assert_eq!(json["findings"], json!([]), "{stderr}");
    assert!(
        stderr.contains("the 2 unfinished of the 4 selected cases"),
        "{stderr}"
    );
}

#[test]
fn an_adapter_exiting_or_closing_stdout_is_a_crash_even_if_a_grandchild_holds_the_pipe() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", mode("crash"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("exit"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
    ]);
    let pids = corpus.path("pids");
    // The grandchild inherits stdout, so no end of file comes while it lives. The timeout is
    // only a hang guard: a crash must be reported as a crash, not as a timeout.
    let (out, report) = corpus.run_json(
        &fake(&format!("--spawn-child '{}'", pids.display())),
        &["--timeout-ms", "120000"],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        statuses(&report),
        ["errored:crash", "errored:crash", "passed"]
    );
    assert_all_dead(&pids_in(&pids));
    // An adapter that closes stdout and keeps running (no other process holds the pipe).
    let closing = Corpus::new(&[
        ("fake.echo", mode("closeout"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i, e, "FAKE-ONE"),
    ]);
    let (out, report) = closing.run_json(&fake(""), &["--timeout-ms", "120000"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(statuses(&report), ["errored:crash", "passed"]);
}

#[test]
fn a_grandchild_that_calls_setsid_does_not_outlive_the_run() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.echo", mode("crash"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i, e, "FAKE-ONE"),
    ]);
    let pids = corpus.path("pids");
    // One job, so the starts are exact (see no_orphans_after_crashes_timeouts_and_bye).
    let out = corpus.run(
        &fake(&format!("--spawn-setsid-child '{}'", pids.display())),
        &["--jobs", "1"],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let pids = pids_in(&pids);
    assert_eq!(pids.len(), 2, "one per adapter start");
    assert_all_dead(&pids);
}

#[test]
fn protocol_errors_quote_the_line_and_hello_timeouts_suggest_flushing() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", mode("garbage"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", i, e, "FAKE-ONE"),
    ]);
    let (_, report) = corpus.run_json(&fake(""), &[]);
    let message = report["incidents"][0]["message"].as_str().unwrap();
    assert!(
        message.contains(r#""this is not json at all""#),
        "{message}"
    );
    let out = corpus.run(&fake("--hello garbage"), &[]);
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("Welcome to my adapter!"),
        "{}",
        out.stderr
    );
    let out = corpus.run(&fake("--hello hang"), &["--hello-timeout-ms", "300"]);
    assert_eq!(out.code, 3);
    assert!(
        out.stderr.contains("flush") && out.stderr.contains("python3 -u"),
        "{}",
        out.stderr
    );
}

#[test]
fn list_shows_the_corpus_and_unknown_filter_values_get_suggestions() {
    let corpus = Corpus::new(&standard_cases());
    let vectors = corpus.path("vectors").display().to_string();
    let list = |args: &[&str]| {
        let mut a: Vec<String> = vec!["list".into()];
        a.extend(args.iter().map(|s| s.to_string()));
        run_bin(&a)
    };
    let out = list(&["areas", "--vectors", &vectors]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "fake  3 cases\n");
    let out = list(&["cases", "--vectors", &vectors, "--requirement", "FAKE-TWO"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("fake-echo-0002  fake.echo  fake/echo"),
        "{}",
        out.stdout
    );
    assert_eq!(out.stdout.lines().count(), 1);
    for topic in ["groups", "flags", "requirements", "ops"] {
        let out = list(&[topic, "--vectors", &vectors]);
        assert_eq!(out.code, 0, "{topic}: {}", out.stderr);
    }
    // The embedded corpus.
    let out = list(&["flags"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Precedence"), "{}", out.stdout);
    assert!(list(&["areas"]).stdout.contains("dct"));
    // Unknown values: named, with the nearest valid ones.
    let out = list(&["cases", "--flag", "precedence"]);
    assert_eq!(out.code, 64);
    assert!(
        out.stderr.contains("--flag \"precedence\"")
            && out.stderr.contains("did you mean `Precedence`"),
        "{}",
        out.stderr
    );
    let out = corpus.run(&fake(""), &["--area", "fak", "--op", "fake.echo"]);
    assert_eq!(out.code, 64);
    assert!(
        out.stderr
            .contains("--area \"fak\" matches no case; did you mean `fake`?"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("--op"), "{}", out.stderr);
}

/// The first `n` lines of a text.
fn head(text: &str, n: usize) -> String {
    text.lines().take(n).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_baselined_critical_finding_stays_on_the_first_screen_of_every_format() {
    let mut cases = standard_cases();
    // fake-echo-0004: a wrong code (not critical); fake-echo-0005: a crash (crash-or-hang,
    // critical).
    cases.push((
        "fake.echo",
        json!({"mode": "error", "code": "expired"}),
        json!({"result": "invalid", "code": "revoked"}),
        "FAKE-TWO",
    ));
    cases.push(("fake.echo", mode("crash"), valid_empty(), "FAKE-TWO"));
    let corpus = Corpus::new(&cases);
    let listed = |path: &Path| -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .collect()
    };

    // By default --write-baseline refuses the critical case, and says so.
    let plain = corpus.path("plain.txt");
    let p = plain.display().to_string();
    let out = corpus.run(&fake(""), &["--write-baseline", &p]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(listed(&plain), ["fake-echo-0004"]);
    assert!(
        out.stderr.contains("--baseline-critical") && out.stderr.contains("fake-echo-0005"),
        "{}",
        out.stderr
    );
    assert!(std::fs::read_to_string(&plain)
        .unwrap()
        .contains("fake-echo-0005 (crash-or-hang)"));
    // With that baseline the crash still fails the run.
    let (out, report) = corpus.run_json(&fake(""), &["--expected-failures", &p]);
    assert_eq!(out.code, 1);
    assert_eq!(report["critical"][0]["effect"], "crash-or-hang");
    assert_eq!(report["expected_critical"], json!([]));

    // Asked explicitly, it lists it; the rerun passes, and every format still names it.
    let all = corpus.path("all.txt");
    let a = all.display().to_string();
    let out = corpus.run(&fake(""), &["--write-baseline", &a, "--baseline-critical"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(listed(&all), ["fake-echo-0004", "fake-echo-0005"]);
    let md = corpus.path("out.md").display().to_string();
    let junit = corpus.path("out.xml").display().to_string();
    let html = corpus.path("out.html").display().to_string();
    let json_file = corpus.path("out.json").display().to_string();
    let out = corpus.run(
        &fake(""),
        &[
            "--expected-failures",
            &a,
            "--report",
            &format!("markdown={md}"),
            "--report",
            &format!("junit={junit}"),
            "--report",
            &format!("html={html}"),
            "--report",
            &format!("json={json_file}"),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stdout);
    let screen = head(&out.stdout, 5);
    assert!(
        screen.contains("Critical findings: 1 expected by the baseline: crash-or-hang"),
        "{screen}"
    );
    let line2 = out.stdout.lines().nth(1).unwrap();
    assert!(line2.contains(", 2 xfail;"), "{line2}");
    assert!(
        !out.stdout.contains("Critical findings: none"),
        "{}",
        out.stdout
    );
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(
        head(&markdown, 6).contains("Critical findings: 1 expected by the baseline: crash-or-hang"),
        "{markdown}"
    );
    assert!(head(&markdown, 2).contains("2 xfail"), "{markdown}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        head(&xml, 4).contains("Critical findings: 1 expected by the baseline: crash-or-hang"),
        "{xml}"
    );
    assert!(
        xml.contains("CRITICAL crash-or-hang, expected by the baseline"),
        "{xml}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("Critical findings: 1 expected by the baseline: crash-or-hang"),
        "html"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    validate_report(&report);
    assert_eq!(report["critical"], json!([]));
    assert_eq!(report["expected_critical"][0]["effect"], "crash-or-hang");
    assert_eq!(report["expected_critical"][0]["cases"], 1);
    assert_eq!(report["expected_critical"][0]["counted"], false);
}

#[test]
fn write_baseline_and_globs_apply_only_to_failing_cases() {
    let mut cases = standard_cases();
    cases.push((
        "fake.echo",
        json!({"mode": "error", "code": "expired"}),
        json!({"result": "invalid", "code": "revoked"}),
        "FAKE-TWO",
    ));
    cases.push(("fake.echo", mode("crash"), valid_empty(), "FAKE-TWO"));
    let corpus = Corpus::new(&cases);
    let written = corpus.path("written.txt");
    let w = written.display().to_string();
    let out = corpus.run(&fake(""), &["--write-baseline", &w, "--baseline-critical"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let text = std::fs::read_to_string(&written).unwrap();
    let ids: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids, ["fake-echo-0004", "fake-echo-0005"], "{text}");
    assert!(text.contains("errored (crash)"), "{text}");
    let (out, report) = corpus.run_json(&fake(""), &["--expected-failures", &w]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        statuses(&report),
        ["passed", "passed", "acceptable", "xfail", "xfail:crash"]
    );

    // A glob matching failing and passing cases: the passing ones are not stale.
    let glob = corpus.path("glob.txt");
    std::fs::write(&glob, "fake-echo-* known broken\n").unwrap();
    let g = glob.display().to_string();
    let (out, report) = corpus.run_json(&fake(""), &["--expected-failures", &g]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        statuses(&report),
        ["passed", "passed", "acceptable", "xfail", "xfail:crash"]
    );

    // A glob matching only passing cases: stale once, naming the entry as too broad.
    let passing = Corpus::new(&standard_cases());
    let broad = passing.path("broad.txt");
    std::fs::write(&broad, "# x\nfake-echo-000? flaky\n").unwrap();
    let b = broad.display().to_string();
    let out = passing.run(&fake(""), &["--expected-failures", &b]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("Stale expected failures: listed, but now passing (1)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("entry `fake-echo-000?` (line 2) is too broad"),
        "{}",
        out.stdout
    );
}

#[test]
fn lint_of_a_missing_file_says_so() {
    let out = run_bin(&["lint".into(), "./missing-file".into()]);
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("./missing-file: no such file"),
        "{}",
        out.stderr
    );
    let out = run_bin(&["lint".into(), "tokens/missing.json".into()]);
    assert_eq!(out.code, 3, "{}", out.stderr);
}

#[test]
fn a_diff_shows_keys_the_expectation_does_not_name() {
    let corpus = Corpus::new(&[(
        "fake.echo",
        json!({"mode": "ok", "output": {"unexpected": 2}}),
        json!({"result": "valid", "output": {"a": 1}}),
        "FAKE-ONE",
    )]);
    let (out, report) = corpus.run_json(&fake(""), &[]);
    assert_eq!(out.code, 1);
    let diff = report["cases"][0]["diff"].as_str().unwrap();
    assert!(diff.contains("\"unexpected\": 2"), "{diff}");
    assert!(!diff.contains("\"output\": {}"), "{diff}");
}

#[test]
fn setup_errors_write_every_requested_report_file() {
    let corpus = Corpus::new(&standard_cases());
    let junit = corpus.path("setup.xml");
    let json_file = corpus.path("setup.json");
    let md = corpus.path("setup.md");
    let out = corpus.run(
        &fake("--hello garbage"),
        &[
            "--report",
            &format!("junit={}", junit.display()),
            "--report",
            &format!("json={}", json_file.display()),
            "--format",
            "markdown",
            "--output",
            &md.display().to_string(),
        ],
    );
    assert_eq!(out.code, 3, "{}", out.stderr);
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_file).unwrap()).unwrap();
    validate_report(&report);
    assert_eq!(statuses(&report), ["errored"]);
    assert!(report["cases"][0]["message"]
        .as_str()
        .unwrap()
        .contains("Welcome to my adapter!"));
    let check = Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, xml.etree.ElementTree as E\n\
             r = E.parse(sys.argv[1]).getroot()\n\
             e = r.find('testsuite/testcase/error')\n\
             print(r.get('errors'), e.get('type'), e.text)",
        )
        .arg(&junit)
        .output()
        .unwrap();
    let parsed = String::from_utf8_lossy(&check.stdout);
    assert!(parsed.starts_with("1 setup_error "), "{parsed}");
    assert!(parsed.contains("Welcome to my adapter!"), "{parsed}");
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("setup error"), "{markdown}");
    // The vectors cannot be read: the same.
    let out = run_bin(&[
        "run".into(),
        "--vectors".into(),
        corpus.path("missing").display().to_string(),
        "--report".into(),
        format!("junit={}", junit.display()),
    ]);
    assert_eq!(out.code, 3);
    assert!(std::fs::read_to_string(&junit)
        .unwrap()
        .contains("not a directory"));
}

#[test]
fn stateful_groups_run_in_a_fresh_process_in_order_then_replay_after_a_restart() {
    let count = |n: u64| {
        (
            "fake.echo",
            json!({"mode": "count"}),
            json!({"result": "valid", "output": {"n": n}}),
            "FAKE-ONE",
        )
    };
    // Two ordinary cases first: without a fresh process the stateful group would count 3, 4, 5.
    let plain = [count(1), count(2)];
    let marker = std::env::temp_dir().join(format!(
        "delegateos-conform-once-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_file(&marker);
    let stateful = [
        count(1),
        count(2),
        count(3),
        (
            "fake.echo",
            json!({"mode": "once", "file": marker.display().to_string()}),
            json!({"result": "valid", "output": {"first": true}}),
            "FAKE-TWO",
        ),
    ];
    let corpus = Corpus::with_groups(&plain, &stateful);
    // One worker: the two plain cases count in one process (with more workers they may land in
    // two; independent cases must not depend on each other, and these do on purpose).
    let (out, report) = corpus.run_json(&fake(""), &["--jobs", "1"]);
    let _ = std::fs::remove_file(&marker);
    assert_eq!(
        out.code, 1,
        "the replay failure fails the run: {}",
        out.stderr
    );
    let st = statuses(&report);
    // echo 1–2 pass in the first process; the group's counts start again at 1 (fresh process)
    // in file order, and again on the replay; the `once` case holds the first time only.
    assert_eq!(
        st,
        ["passed", "passed", "passed", "passed", "passed", "failed"],
        "{report:#}"
    );
    let last = &report["cases"][5];
    assert_eq!(last["id"], "fake-state-0004");
    let message = last["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("replay after a restart"),
        "the failure names the replay: {last:#}"
    );
    assert_eq!(
        report["restarts"], 0,
        "deliberate fresh starts are not restarts: {report:#}"
    );
}

/// A JSON report with its timings removed: what `run --jobs N` must give identically for every
/// N (issue 39). Durations go, and so does the CPU-wait note of a timeout message (how long
/// the adapter waited for a CPU depends on what else ran beside it).
fn without_timings(report: &Value) -> Value {
    match report {
        Value::Object(m) => Value::Object(
            m.iter()
                // Timings, and the job count the report records (issue 49 item 4).
                .filter(|(k, _)| k.as_str() != "duration_ms" && k.as_str() != "jobs")
                .map(|(k, v)| (k.clone(), without_timings(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_timings).collect()),
        Value::String(s) => Value::String(match s.find(" of the adapter's time (") {
            Some(at) => {
                let rest = &s[at..];
                let close = rest
                    .find(" were not counted)")
                    .map_or(rest.len(), |e| e + 18);
                format!("{}{}", &s[..at], &rest[close..])
            }
            None => s.clone(),
        }),
        other => other.clone(),
    }
}

/// Issue 39: the report is the same for every number of jobs — passes, a crash, a hang, a
/// protocol violation, a skip, a stateful group with its replay — apart from timings.
#[test]
fn every_number_of_jobs_gives_the_same_report() {
    let (i, e) = ok(json!({}));
    let count = |n: u64| {
        (
            "fake.echo",
            json!({"mode": "count"}),
            json!({"result": "valid", "output": {"n": n}}),
            "FAKE-ONE",
        )
    };
    let mut cases = vec![
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.echo", mode("crash"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("hang"), valid_empty(), "FAKE-ONE"),
        ("fake.echo", mode("garbage"), valid_empty(), "FAKE-TWO"),
        ("fake.echo", mode("skip"), valid_empty(), "FAKE-TWO"),
        ("fake.other", i.clone(), e.clone(), "FAKE-TWO"),
    ];
    for _ in 0..6 {
        cases.push(("fake.echo", i.clone(), e.clone(), "FAKE-ONE"));
    }
    let corpus = Corpus::with_groups(&cases, &[count(1), count(2), count(3)]);
    let run = |jobs: &str| {
        let (out, report) = corpus.run_json(&fake(""), &["--jobs", jobs, "--timeout-ms", "1500"]);
        assert_eq!(out.code, 1, "--jobs {jobs}: {}", out.stderr);
        without_timings(&report)
    };
    let serial = run("1");
    assert_eq!(
        statuses(&serial)[..6],
        [
            "passed",
            "errored:crash",
            "errored:timeout",
            "errored:protocol_error",
            "skipped",
            "skipped"
        ]
    );
    assert_eq!(serial["restarts"], 3, "{:#}", serial["incidents"]);
    for jobs in ["2", "3"] {
        assert_eq!(run(jobs), serial, "--jobs {jobs} differs from --jobs 1");
    }
}

/// Which process answers which case is fixed by `--jobs` alone, never by timing: worker k of N
/// runs units k, k + N, … So an adapter that carries state from case to case (here `count`:
/// the number of cases its process answered) gives the same report on every run with the same
/// N, and that report differs from `--jobs 1`'s: the difference is the bug's sign.
#[test]
fn an_adapter_that_keeps_state_across_cases_is_dealt_the_same_cases_every_run() {
    // Six independent `count` cases; with two workers each answers three, alternately.
    let cases: Vec<_> = [1, 1, 2, 2, 3, 3]
        .iter()
        .map(|n| {
            (
                "fake.echo",
                json!({"mode": "count"}),
                json!({"result": "valid", "output": {"n": n}}),
                "FAKE-ONE",
            )
        })
        .collect();
    let corpus = Corpus::new(&cases);
    for _ in 0..3 {
        let (out, report) = corpus.run_json(&fake(""), &["--jobs", "2"]);
        assert_eq!(
            out.code, 0,
            "--jobs 2 deals cases 0,2,4 and 1,3,5: {report:#}"
        );
        assert_eq!(statuses(&report), ["passed"; 6]);
    }
    let (out, report) = corpus.run_json(&fake(""), &["--jobs", "1"]);
    assert_eq!(out.code, 1, "one process counts 1..6: {report:#}");
    assert_eq!(
        statuses(&report),
        ["passed", "failed", "failed", "failed", "failed", "failed"]
    );
}

/// The consecutive-errors rule is decided in case order, so which cases are abandoned does not
/// depend on how many workers ran ahead.
#[test]
fn abandoned_cases_are_the_same_for_every_number_of_jobs() {
    let (i, e) = ok(json!({}));
    let mut cases = vec![("fake.echo", i.clone(), e.clone(), "FAKE-ONE")];
    for _ in 0..8 {
        cases.push(("fake.echo", mode("crash"), valid_empty(), "FAKE-ONE"));
    }
    cases.push(("fake.other", i.clone(), e.clone(), "FAKE-TWO"));
    cases.push(("fake.echo", i.clone(), e.clone(), "FAKE-ONE"));
    cases.push(("fake.echo", mode("crash"), valid_empty(), "FAKE-ONE"));
    let corpus = Corpus::new(&cases);
    let run = |jobs: &str| {
        let (_, report) = corpus.run_json(
            &fake(""),
            &["--jobs", jobs, "--max-consecutive-errors", "3"],
        );
        without_timings(&report)
    };
    let serial = run("1");
    let st = statuses(&serial);
    assert_eq!(st[1..4], ["errored:crash"; 3]);
    assert_eq!(st[4..9], ["errored:abandoned"; 5], "{st:?}");
    // An operation the adapter does not support resets the count: the rest is sent again.
    assert_eq!(st[9..], ["skipped", "passed", "errored:crash"], "{st:?}");
    for jobs in ["2", "4"] {
        assert_eq!(run(jobs), serial, "--jobs {jobs} differs from --jobs 1");
    }
}

/// Issue 38 item 10: the next most valuable operation is in every report, not only the text.
#[test]
fn the_next_operation_is_in_every_report_format() {
    let (i, e) = ok(json!({}));
    let corpus = Corpus::new(&[
        ("fake.echo", i.clone(), e.clone(), "FAKE-ONE"),
        ("fake.other", i, e, "FAKE-TWO"),
    ]);
    let md = corpus.path("out.md");
    let html = corpus.path("out.html");
    let (out, report) = corpus.run_json(
        &fake(""),
        &[
            "--report",
            &format!("markdown={}", md.display()),
            "--report",
            &format!("html={}", html.display()),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let want = "next most valuable operation: fake.other (1 case, 1 requirement id)";
    assert_eq!(report["coverage"]["next_operation"], want);
    assert!(std::fs::read_to_string(&md).unwrap().contains(want));
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains(&format!("<p id=\"next-operation\">{want}</p>")));
}

/// Issue 39: against the js-hasty red-team adapter (wrong answers, `errored` replies and two
/// hang cases in `glob.match`), `--jobs 2` gives the serial report, timings removed. The
/// benchmark (`harness/benches/jobs.sh`) compares the whole corpus.
#[test]
fn js_hasty_gives_the_same_report_with_two_jobs() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("node not found: skipping");
        return;
    }
    let adapter = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../implementations/redteam/js-hasty/adapter.js");
    let run = |jobs: &str| {
        let out = run_bin(&[
            "run".into(),
            "--impl".into(),
            format!("node '{}'", adapter.display()),
            "--op".into(),
            "glob.match".into(),
            "--timeout-ms".into(),
            "1000".into(),
            "--jobs".into(),
            jobs.into(),
            "--format".into(),
            "json".into(),
        ]);
        assert_eq!(out.code, 1, "--jobs {jobs}: {}", out.stderr);
        without_timings(&serde_json::from_str(&out.stdout).unwrap())
    };
    let serial = run("1");
    let timeouts = serial["cases"]
        .as_array()
        .into_iter()
        .chain(serial["hardening"]["cases"].as_array())
        .flatten()
        .filter(|c| c["error_kind"] == "timeout")
        .count();
    assert!(timeouts >= 2, "the selection has its hang cases");
    assert_eq!(run("2"), serial, "--jobs 2 differs from --jobs 1");
}

/// Issue 39: an interrupted `fuzz --jobs 2` kills its adapters, writes the findings it had,
/// and exits 130.
#[test]
fn an_interrupted_fuzz_writes_its_findings_and_exits_130() {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("node not found: skipping");
        return;
    }
    let adapter = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../implementations/redteam/js-hasty/adapter.js");
    let corpus = Corpus::new(&[]);
    let out_dir = corpus.path("findings");
    let log = corpus.path("fuzz.log");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "exec '{BIN}' fuzz --impl \"node '{}'\" --duration 300 --seed 3 --jobs 2 --out '{}' > '{}' 2>&1",
            adapter.display(),
            out_dir.display(),
            log.display()
        ))
        .spawn()
        .unwrap();
    wait_until("a first finding", || {
        std::fs::read_to_string(&log).is_ok_and(|l| l.contains("new kind #1 ["))
    });
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = exit_code_within(&mut child, "the fuzzer");
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(code, Some(130), "{text}");
    let written = std::fs::read_dir(&out_dir).map_or(0, |d| d.count());
    assert!(written >= 1, "the findings so far are written: {text}");
}
