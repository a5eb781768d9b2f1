//! Issue 49 deliverable 1 in process: options are declared (`Implementation::options`, the
//! names of `hello.options`), never guessed. The reference without its options gets exactly the
//! option cases skipped with "needs option X" (no finding, nothing counted); with them declared
//! they pass; an unknown name is an error of the run. And `threw`: a panic or an
//! `Answer::Threw` is kind `threw`, graded as a crash on the input by the case's stake (on
//! untrusted input critical, counted at every level), unlike `Answer::Errored`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use delegateos_inprocess::{
    corpus, run_cases, run_corpus, Answer, CorpusCase, Implementation, Options, Status, Value,
};
use delegateos_reference::ops;
use delegateos_vectors::format::Level;
use delegateos_vectors::judge::ActualOutcome;
use delegateos_vectors::outcome::{ErrorKind, Outcome};

/// The reference, declaring the options it is given.
struct Reference(&'static [&'static str]);

impl Implementation for Reference {
    fn options(&self) -> &[&str] {
        self.0
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        ActualOutcome::from(&ops::run(op, input)).into()
    }
}

const BOTH: &[&str] = &["strict-mode", "per-tool-spend"];

/// The MCP cases (every option case is one), in corpus order.
fn mcp_cases() -> Vec<CorpusCase> {
    corpus(&Options::default())
        .unwrap()
        .into_iter()
        .filter(|c| c.case.op.starts_with("mcp."))
        .collect()
}

/// Every case needing an option, with its options, from the corpus itself.
fn option_cases(cases: &[CorpusCase]) -> BTreeMap<String, Vec<String>> {
    cases
        .iter()
        .filter(|c| !c.case.options.is_empty())
        .map(|c| (c.case.id.clone(), c.case.options.clone()))
        .collect()
}

#[test]
fn undeclared_options_skip_exactly_their_cases_and_declared_ones_pass() {
    let cases = mcp_cases();
    let needing = option_cases(&cases);
    let expected: BTreeMap<String, Vec<String>> = [
        ("mcp-call-0004", "per-tool-spend"),
        ("mcp-call-0011", "strict-mode"),
        ("mcp-call-0021", "strict-mode"),
        ("mcp-call-0022", "strict-mode"),
        ("mcp-call-0023", "strict-mode"),
        ("mcp-call-0024", "strict-mode"),
        ("mcp-call-0025", "strict-mode"),
        ("mcp-session-0013", "strict-mode"),
    ]
    .into_iter()
    .map(|(id, o)| (id.to_owned(), vec![o.to_owned()]))
    .collect();
    assert_eq!(needing, expected, "the option cases of the corpus");

    let strict = Options {
        fail_on_hardening: true,
        ..Options::default()
    };
    // Without options: exactly the option cases skipped, each naming its option; nothing fails.
    let none = run_cases(&Reference(&[]), &cases);
    for v in &none {
        match needing.get(&v.id) {
            Some(options) => {
                assert_eq!(v.status, Status::Skipped, "{}: {}", v.id, v.message);
                assert_eq!(
                    v.message,
                    format!(
                        "needs option {} (not in Implementation::options)",
                        options[0]
                    ),
                    "{}",
                    v.id
                );
                assert!(!v.fails(&strict) && !v.critical, "{}", v.id);
            }
            None => assert!(
                matches!(v.status, Status::Passed | Status::Acceptable),
                "{} {:?}: {}",
                v.id,
                v.status,
                v.message
            ),
        }
    }
    // Only strict mode declared: the per-tool-spend case alone stays skipped.
    let only_strict = run_cases(&Reference(&["strict-mode"]), &cases);
    let skipped: Vec<&str> = only_strict
        .iter()
        .filter(|v| v.status == Status::Skipped)
        .map(|v| v.id.as_str())
        .collect();
    assert_eq!(skipped, ["mcp-call-0004"]);
    // Both declared: every option case runs and passes.
    let both = run_cases(&Reference(BOTH), &cases);
    assert!(
        both.iter()
            .all(|v| matches!(v.status, Status::Passed | Status::Acceptable)),
        "{:?}",
        both.iter()
            .filter(|v| !matches!(v.status, Status::Passed | Status::Acceptable))
            .map(|v| (&v.id, &v.message))
            .collect::<Vec<_>>()
    );
}

#[test]
fn an_unknown_option_name_is_an_error_of_the_run() {
    let err = run_corpus(&Reference(&["strict"]), &Options::default()).unwrap_err();
    assert!(
        err.contains("unknown option(s) strict") && err.contains("strict-mode, per-tool-spend"),
        "{err}"
    );
    assert!(delegateos_inprocess::check_options(&Reference(BOTH)).is_ok());
}

/// `glob.match` panics (or answers `threw`, or `errored`) on every input; the rest is the
/// reference's.
struct Throws(&'static str);

impl Implementation for Throws {
    fn glob_match(&self, _: &Value) -> Answer {
        match self.0 {
            "panic" => panic!("TypeError: pattern.split is not a function"),
            "threw" => Answer::threw("TypeError: pattern.split is not a function"),
            _ => Answer::Errored("the adapter could not decode the input".to_owned()),
        }
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        ActualOutcome::from(&ops::run(op, input)).into()
    }
}

#[test]
fn a_panic_or_a_threw_answer_is_a_crash_on_the_input_graded_by_its_stake() {
    let cases: Vec<CorpusCase> = corpus(&Options::default())
        .unwrap()
        .into_iter()
        .filter(|c| c.case.op == "glob.match")
        .collect();
    // A hardening case whose stake makes a crash critical (crash-or-hang): counted even so.
    let hardening = cases
        .iter()
        .find(|c| c.case.level == Level::Hardening && c.case.stake.crash_or_hang == "crash-or-hang")
        .expect("a hardening glob.match case")
        .case
        .id
        .clone();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {})); // the panics are the point
    let panicked = run_cases(&Throws("panic"), &cases);
    std::panic::set_hook(hook);
    let threw = run_cases(&Throws("threw"), &cases);
    let errored = run_cases(&Throws("errored"), &cases);
    for verdicts in [&panicked, &threw] {
        let v = verdicts.iter().find(|v| v.id == hardening).unwrap();
        assert_eq!(v.status, Status::Errored);
        assert_eq!(v.outcome, Outcome::Errored(ErrorKind::Threw));
        assert!(v.message.contains("TypeError"), "{}", v.message);
        assert!(v.critical && v.fails(&Options::default()), "{v:#?}");
        assert!(verdicts
            .iter()
            .all(|v| v.outcome == Outcome::Errored(ErrorKind::Threw)));
    }
    // The adapter's own failure is not graded by the input: not critical, a hardening case
    // does not count by default.
    let v = errored.iter().find(|v| v.id == hardening).unwrap();
    assert_eq!(v.outcome, Outcome::Errored(ErrorKind::AdapterErrored));
    assert!(!v.critical && !v.fails(&Options::default()), "{v:#?}");
}
