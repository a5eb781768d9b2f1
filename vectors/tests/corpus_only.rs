//! The committed corpus against the in-process reference, judged exactly as `run` judges an
//! implementation: a normative or decision case that is not passed, acceptable or "rejected
//! with another code" of its family fails this test. Nothing else is checked here, and the
//! test depends only on this crate and the reference, so it rebuilds fast: it is the test
//! cargo-mutants runs for each mutant of `reference/src` (`.cargo/mutants.toml`), and a
//! mutant survives exactly when an implementation with that bug would pass the default run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_reference::ops;
use delegateos_vectors::corpus::load_embedded;
use delegateos_vectors::format::Level;
use delegateos_vectors::judge::{judge_case, ActualOutcome, Verdict};

#[test]
fn the_reference_passes_every_counted_case() {
    let files = load_embedded().unwrap_or_else(|e| panic!("corpus does not load: {e:?}"));
    let mut failed = Vec::new();
    let mut counted = 0usize;
    for file in &files {
        for case in &file.file.cases {
            if !matches!(case.level, Level::Normative | Level::Decision) {
                continue;
            }
            counted += 1;
            let outcome = ops::run(&case.op, &case.input);
            let actual = ActualOutcome::from(&outcome);
            match judge_case(&case.op, &case.flags, &case.expect, &actual) {
                Verdict::Passed | Verdict::Acceptable { .. } | Verdict::OtherCode { .. } => {}
                Verdict::Failed { diff, .. } => failed.push(format!("{}\n{diff}", case.id)),
            }
        }
    }
    assert!(counted > 2000, "only {counted} counted cases loaded");
    assert!(
        failed.is_empty(),
        "{} of {counted} counted cases fail:\n{}",
        failed.len(),
        failed
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
