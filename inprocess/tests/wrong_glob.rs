//! A deliberately wrong `glob.match` (plain string equality, `*` matching everything) over the
//! reference for every other operation: exactly its cases fail, the filters select by id, and an
//! implementation of nothing fails the run with "start with `dct.verify`". (The failing cases
//! are checked through `run_corpus`, so this binary's own output shows no failure.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_inprocess::{run_tests, Answer, Implementation, Options, Status, Value};
use delegateos_reference::ops;
use delegateos_vectors::judge::ActualOutcome;
use libtest_mimic::{Arguments, Trial};
use serde_json::json;

struct WrongGlob;

impl Implementation for WrongGlob {
    fn glob_match(&self, input: &Value) -> Answer {
        let (Some(p), Some(r)) = (input["pattern"].as_str(), input["resource"].as_str()) else {
            return Answer::error("invalid_input", "pattern and resource must be strings");
        };
        Answer::ok(json!({ "matches": p == "*" || p == r }))
    }

    fn options(&self) -> &[&str] {
        &["strict-mode", "per-tool-spend"]
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        ActualOutcome::from(&ops::run(op, input)).into()
    }
}

struct Nothing;
impl Implementation for Nothing {}

/// A matcher that matches everything: on the hostile hardening cases (`glob-match-0083`,
/// `0084`, expected `false`) its grant is a scope widening, critical by their stake.
struct MatchAll;

impl Implementation for MatchAll {
    fn glob_match(&self, _: &Value) -> Answer {
        Answer::ok(json!({ "matches": true }))
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        ActualOutcome::from(&ops::run(op, input)).into()
    }
}

/// Issue 36: a failure the case's stake makes critical fails the run whatever the case's level
/// (as `run` does); `levels_only` (`DELEGATEOS_FAIL_ON=levels`) relaxes it explicitly.
fn a_critical_failure_fails_the_run_whatever_its_level() -> Result<(), libtest_mimic::Failed> {
    let verdicts = delegateos_inprocess::run_corpus(&MatchAll, &Options::default())?;
    let hostile: Vec<_> = verdicts
        .iter()
        .filter(|v| v.id == "glob-match-0083" || v.id == "glob-match-0084")
        .collect();
    let relaxed = Options {
        levels_only: true,
        ..Options::default()
    };
    let ok = hostile.len() == 2
        && hostile.iter().all(|v| {
            v.level == delegateos_vectors::format::Level::Hardening
                && matches!(v.status, Status::Failed(_))
                && v.critical
                && v.fails(&Options::default())
                && !v.fails(&relaxed)
        });
    // A non-critical hardening failure still needs `fail_on_hardening`.
    let lesser = verdicts.iter().find(|v| {
        v.level == delegateos_vectors::format::Level::Hardening
            && matches!(v.status, Status::Failed(_))
            && !v.critical
    });
    if !ok || lesser.is_some_and(|v| v.fails(&Options::default())) {
        return Err(format!("{hostile:#?} / {lesser:#?}").into());
    }
    Ok(())
}

fn quiet(filter: &str) -> Arguments {
    Arguments {
        filter: Some(filter.to_owned()),
        quiet: true,
        test_threads: Some(1),
        ..Arguments::default()
    }
}

fn wrong_glob_fails_exactly_its_cases() -> Result<(), libtest_mimic::Failed> {
    let verdicts = delegateos_inprocess::run_corpus(&WrongGlob, &Options::default())?;
    let failing: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.fails(&Options::default()))
        .map(|v| v.op.as_str())
        .collect();
    let glob_cases = verdicts.iter().filter(|v| v.op == "glob.match").count();
    if failing.len() < 10 || failing.iter().any(|op| *op != "glob.match") {
        return Err(format!("failing ops {failing:?} (of {glob_cases} glob.match cases)").into());
    }
    if verdicts
        .iter()
        .any(|v| v.op != "glob.match" && !matches!(v.status, Status::Passed | Status::Acceptable))
    {
        return Err("a case of another operation did not pass".into());
    }
    Ok(())
}

fn the_filter_selects_cases_by_id() -> Result<(), libtest_mimic::Failed> {
    let forged = run_tests(WrongGlob, Options::default(), &quiet("dct-forged"))?;
    let c = &forged.conclusion;
    let ids = forged.verdicts.iter().all(|v| v.id.contains("dct-forged"));
    if c.num_passed == 0
        || c.num_failed != 0
        || !ids
        || c.num_passed != forged.verdicts.len() as u64
    {
        return Err(format!("dct-forged: {c:?}").into());
    }
    // `--exact` selects one case by its full id.
    let mut exact = quiet("glob-match-0002");
    exact.exact = true;
    let one = run_tests(WrongGlob, Options::default(), &exact)?;
    if one.conclusion.num_passed + one.conclusion.num_failed != 1 || one.verdicts.len() != 1 {
        return Err(format!("--exact glob-match-0002: {:?}", one.conclusion).into());
    }
    Ok(())
}

fn an_implementation_of_nothing_is_told_where_to_start() -> Result<(), libtest_mimic::Failed> {
    let run = run_tests(Nothing, Options::default(), &quiet("dct-"))?;
    let line = run.guidance().unwrap_or_default();
    if !run.nothing_ran()
        || !line.contains("start with `dct.verify`")
        || run.conclusion.num_ignored == 0
    {
        return Err(format!("{line:?} {:?}", run.conclusion).into());
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let tests = vec![
        Trial::test(
            "wrong_glob_fails_exactly_its_cases",
            wrong_glob_fails_exactly_its_cases,
        ),
        Trial::test(
            "the_filter_selects_cases_by_id",
            the_filter_selects_cases_by_id,
        ),
        Trial::test(
            "an_implementation_of_nothing_is_told_where_to_start",
            an_implementation_of_nothing_is_told_where_to_start,
        ),
        Trial::test(
            "a_critical_failure_fails_the_run_whatever_its_level",
            a_critical_failure_fails_the_run_whatever_its_level,
        ),
    ];
    libtest_mimic::run(&args, tests).exit_code()
}
