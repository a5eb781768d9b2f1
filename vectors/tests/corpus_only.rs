//! The committed corpus against the in-process reference, judged exactly as `run` judges an
//! implementation. The test depends only on this crate and the reference, so it rebuilds fast:
//! it is the test cargo-mutants runs for each mutant of `reference/src` (`.cargo/mutants.toml`),
//! and a mutant survives exactly when an implementation with that bug would pass every case
//! the test judges.
//!
//! Which cases it judges (`DELEGATEOS_CORPUS_LEVELS`):
//! - unset or `all`: normative, decision, hardening *and* advisory cases — a mutant is caught
//!   when `run` would report it at all: as a failure, as a hardening finding (a hardening
//!   case failed, or any case rejected with another code of its family), or (under
//!   `--profile strict`) as an advisory finding (MUTANTS.md's score);
//! - `counted`: normative and decision cases of the default profile only — a mutant is caught
//!   when the default `run` would exit non-zero (the curated teeth set, `.ci/mutants.sh`,
//!   demands this).
//!
//! A second test checks the reference's hello: `run` skips every case of an operation the
//! implementation does not declare, and refuses to judge one that declares an operation
//! `spec/operations.md` does not list, so the reference must declare exactly that catalogue.
//!
//! A failure message starts with one line per level (`counted failures: N`, `hardening
//! findings: M`, `advisory findings: K`), so a mutant's log in `mutants.out/log/` says which level caught it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_reference::ops;
use delegateos_vectors::corpus::load_embedded;
use delegateos_vectors::format::Level;
use delegateos_vectors::judge::{judge_case, ActualOutcome, Verdict};
use delegateos_vectors::operations;

/// Whether hardening cases are judged too (see the module doc).
fn judge_hardening() -> bool {
    match std::env::var("DELEGATEOS_CORPUS_LEVELS").as_deref() {
        Err(_) | Ok("all") => true,
        Ok("counted") => false,
        Ok(other) => panic!("DELEGATEOS_CORPUS_LEVELS must be `all` or `counted`, not {other:?}"),
    }
}

#[test]
fn the_reference_passes_every_judged_case() {
    let hardening = judge_hardening();
    let files = load_embedded().unwrap_or_else(|e| panic!("corpus does not load: {e:?}"));
    let (mut counted_failed, mut hardening_failed, mut advisory_failed) =
        (Vec::new(), Vec::new(), Vec::new());
    let mut judged = 0usize;
    for file in &files {
        // Advisory cases (neighbour profiles, `profile.lint`) run only under `--profile
        // strict`, where `run` reports them in their own section.
        let advisory = file.file.area == "advisory";
        for case in &file.file.cases {
            let failures = match case.level {
                _ if advisory && hardening => &mut advisory_failed,
                _ if advisory => continue,
                Level::Normative | Level::Decision => &mut counted_failed,
                Level::Hardening if hardening => &mut hardening_failed,
                Level::Hardening => continue,
            };
            judged += 1;
            let outcome = ops::run(&case.op, &case.input);
            let actual = ActualOutcome::from(&outcome);
            match judge_case(&case.op, &case.flags, &case.expect, &actual) {
                Verdict::Passed | Verdict::Acceptable { .. } => {}
                Verdict::Failed { diff, .. } => failures.push(format!("{}\n{diff}", case.id)),
                // "Rejected with another code of the family": `run` reports it as a hardening
                // finding (spec/error-codes.md §11), never as a failure.
                Verdict::OtherCode { .. } if !hardening => {}
                Verdict::OtherCode { diff, .. } => {
                    let to = if advisory {
                        &mut advisory_failed
                    } else {
                        &mut hardening_failed
                    };
                    to.push(format!("{} (another code of the family)\n{diff}", case.id));
                }
            }
        }
    }
    assert!(judged > 2000, "only {judged} judged cases loaded");
    assert!(
        counted_failed.is_empty() && hardening_failed.is_empty() && advisory_failed.is_empty(),
        "counted failures: {}\nhardening findings: {}\nadvisory findings: {}\n{}",
        counted_failed.len(),
        hardening_failed.len(),
        advisory_failed.len(),
        counted_failed
            .iter()
            .chain(&hardening_failed)
            .chain(&advisory_failed)
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_reference_declares_exactly_the_catalogued_operations() {
    let mut declared: Vec<&str> = ops::OPERATIONS.to_vec();
    declared.sort_unstable();
    let mut catalogue = operations::names();
    catalogue.sort_unstable();
    assert_eq!(declared, catalogue, "ops::OPERATIONS vs spec/operations.md");
}
