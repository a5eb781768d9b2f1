//! The in-process runner diagnoses as `run` does (spec/faults.md): an implementation that is
//! the reference with one catalogued mistake (`delegateos_reference::faults`) is explained by
//! exactly that fault, every failure accounted for; the reference itself by none.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_inprocess::{corpus, diagnose, run_cases, Answer, Implementation, Options, Value};
use delegateos_reference::{faults, ops};
use delegateos_vectors::judge::ActualOutcome;

struct WithFault(Option<&'static str>);

impl Implementation for WithFault {
    // The reference's options, as its adapter declares them in `run`.
    fn options(&self) -> &[&str] {
        &["strict-mode", "per-tool-spend"]
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        let run = || ActualOutcome::from(&ops::run(op, input)).into();
        match self.0 {
            Some(id) => faults::with(id, run),
            None => run(),
        }
    }
}

#[test]
fn one_mistake_is_named_as_its_fault_and_the_reference_as_none() {
    let cases = corpus(&Options::default()).unwrap();
    let clean = diagnose(&cases, &run_cases(&WithFault(None), &cases));
    assert!(
        clean.faults.is_empty() && clean.unexplained.is_empty(),
        "{clean:?}"
    );
    for id in [
        "verify.5.expiry-inclusive",
        "glob.prefix-match",
        "verify.4c.zero-budget-ignored",
    ] {
        let d = diagnose(&cases, &run_cases(&WithFault(Some(id)), &cases));
        let named: Vec<&str> = d.faults.iter().map(|m| m.fault.as_str()).collect();
        assert_eq!(named, [id], "{d:?}");
        assert!(
            d.unexplained.is_empty(),
            "{id}: unexplained {:?}",
            d.unexplained
        );
    }
}
