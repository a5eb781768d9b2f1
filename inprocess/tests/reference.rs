//! The reference implements the trait (every method through `fallback` → the reference's own
//! operations): every case of the corpus, advisory included, passes or is acceptable, none is
//! skipped, and with hardening findings failing too, the per-case tests all pass. Run as one
//! test per case (`cargo test -p delegateos-inprocess --test reference -- dct-forged`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_inprocess::{Answer, Implementation, Options, Status, Value};
use delegateos_reference::ops;
use delegateos_vectors::judge::ActualOutcome;

struct Reference;

impl Implementation for Reference {
    // The reference has every option (spec/adapter-protocol.md §2.1), as its adapter declares.
    fn options(&self) -> &[&str] {
        &["strict-mode", "per-tool-spend"]
    }

    fn fallback(&self, op: &str, input: &Value) -> Answer {
        ActualOutcome::from(&ops::run(op, input)).into()
    }
}

fn main() -> std::process::ExitCode {
    let options = Options {
        strict: true,
        fail_on_hardening: true,
        levels_only: false,
    };
    let args = libtest_mimic::Arguments::from_args();
    if args.filter.is_none() && args.skip.is_empty() && !args.list {
        // The whole corpus, checked as a whole: nothing skipped, errored or failed.
        let verdicts = delegateos_inprocess::run_corpus(&Reference, &options).expect("corpus");
        assert!(verdicts.len() > 2500, "only {} cases", verdicts.len());
        let bad: Vec<String> = verdicts
            .iter()
            .filter(|v| !matches!(v.status, Status::Passed | Status::Acceptable))
            .map(|v| format!("{} {:?}\n{}", v.id, v.status, v.message))
            .take(10)
            .collect();
        assert!(
            bad.is_empty(),
            "the reference does not pass:\n{}",
            bad.join("\n")
        );
        // Every catalogued operation is reached through its own method.
        let ops: std::collections::BTreeSet<&str> =
            verdicts.iter().map(|v| v.op.as_str()).collect();
        assert_eq!(ops.len(), delegateos_inprocess::OPERATIONS.len(), "{ops:?}");
    }
    delegateos_inprocess::run_tests(Reference, options, &args)
        .expect("runs")
        .exit_code()
}
