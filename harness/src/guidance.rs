//! Guidance from a run: which operation to implement next.
//!
//! From the same data as the report's skip cost (`Coverage::skipped_operations`): per operation
//! with skipped cases, how many cases were skipped and which requirement ids they cite that no
//! executed case (passed, failed or acceptable) checked. The most valuable operation is the one
//! whose implementation would check the most requirement ids nothing else checked, then the one
//! with the most cases. An adapter that declares nothing (or whose every selected case was
//! skipped) is told where to start; every other run ends with the next most valuable operation.

use crate::runner::case::Case;
use crate::runner::CaseResult;
use delegateos_vectors::outcome;

pub use delegateos_vectors::outcome::NextOperation;

/// The skipped operations, most valuable first (the one ranking,
/// [`delegateos_vectors::outcome::next_operations`]).
pub fn ranking(cases: &[Case], results: &[CaseResult]) -> Vec<NextOperation> {
    outcome::next_operations(results.iter().filter_map(|r| {
        let case = cases.get(r.index)?;
        Some((case.op.as_str(), case.requirements.as_slice(), &r.outcome))
    }))
}

/// The line to print after a run, if any: `start with …` when the run could not fail because
/// nothing ran (`nothing_ran`), else `next most valuable operation: …` while some operation's
/// cases were skipped.
pub fn message(cases: &[Case], results: &[CaseResult], nothing_ran: bool) -> Option<String> {
    let best = ranking(cases, results).into_iter().next()?;
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    Some(if nothing_ran {
        format!(
            "start with `{}`: {} case{}, {} requirement{} (fill in its stub; \
             `delegateos-conform new-adapter --lang …` writes one per operation)",
            best.op,
            best.cases,
            plural(best.cases),
            best.requirements,
            plural(best.requirements)
        )
    } else {
        format!(
            "next most valuable operation: {} ({} case{}, {} requirement id{})",
            best.op,
            best.cases,
            plural(best.cases),
            best.requirements,
            plural(best.requirements)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::{Outcome, Status};
    use delegateos_vectors::CorpusSource;
    use std::collections::BTreeSet;
    use std::time::Duration;

    fn result(index: usize, status: Status) -> CaseResult {
        let outcome = match status {
            Status::Skipped => Outcome::Skipped,
            Status::Passed => Outcome::Passed,
            other => panic!("no outcome for {other:?} in these tests"),
        };
        CaseResult {
            index,
            status,
            outcome,
            actual: None,
            message: None,
            stderr_tail: None,
            expected_failure: None,
            duration: Duration::ZERO,
        }
    }

    #[test]
    fn an_adapter_that_declares_nothing_is_told_to_start_with_dct_verify() {
        let cases = crate::runner::case::load_corpus(&CorpusSource::Embedded).expect("corpus");
        let cases: Vec<Case> = cases.into_iter().filter(|c| !c.is_advisory()).collect();
        let results: Vec<CaseResult> = (0..cases.len())
            .map(|i| result(i, Status::Skipped))
            .collect();
        let verify = cases.iter().filter(|c| c.op == "dct.verify").count();
        let ids: BTreeSet<&str> = cases
            .iter()
            .filter(|c| c.op == "dct.verify")
            .flat_map(|c| c.requirements.iter().map(String::as_str))
            .collect();
        let line = message(&cases, &results, true).expect("a line");
        assert_eq!(
            line.split(" (fill").next(),
            Some(
                format!(
                    "start with `dct.verify`: {verify} cases, {} requirements",
                    ids.len()
                )
                .as_str()
            ),
            "{line}"
        );
    }

    #[test]
    fn the_next_operation_counts_only_requirements_nothing_executed_checked() {
        let mk = |id: &str, op: &str, reqs: &[&str]| {
            Case::fuzzed(delegateos_vectors::format::Case {
                id: id.to_owned(),
                description: String::new(),
                requirements: reqs.iter().map(|s| (*s).to_owned()).collect(),
                flags: Vec::new(),
                level: delegateos_vectors::format::Level::Normative,
                ground: delegateos_vectors::format::Ground::Hardening {
                    reason: "a test case".to_owned(),
                },
                stake: delegateos_vectors::format::Stake {
                    granted: "forgery".to_owned(),
                    refused: "valid-input-refused".to_owned(),
                    wrong_output: "wrong-output".to_owned(),
                    crash_or_hang: "crash-or-hang".to_owned(),
                },
                op: op.to_owned(),
                options: Vec::new(),
                input: serde_json::Value::Null,
                expect: serde_json::from_value(
                    serde_json::json!({"result": "valid", "output": {}}),
                )
                .expect("expectation"),
            })
        };
        let cases = vec![
            mk("a-1", "glob.match", &["R1"]),
            mk("b-1", "hash.blake2b256", &["R1", "R2"]),
            mk("b-2", "hash.blake2b256", &["R1"]),
            mk("c-1", "json.canonicalize", &["R3", "R4"]),
        ];
        let results = vec![
            result(0, Status::Passed),
            result(1, Status::Skipped),
            result(2, Status::Skipped),
            result(3, Status::Skipped),
        ];
        let r = ranking(&cases, &results);
        // R1 is checked by the executed glob.match case: hash.blake2b256 adds only R2.
        assert_eq!(
            r,
            vec![
                NextOperation {
                    op: "json.canonicalize".into(),
                    cases: 1,
                    requirements: 2
                },
                NextOperation {
                    op: "hash.blake2b256".into(),
                    cases: 2,
                    requirements: 1
                },
            ]
        );
        assert_eq!(
            message(&cases, &results, false).as_deref(),
            Some("next most valuable operation: json.canonicalize (1 case, 2 requirement ids)")
        );
        let all_ran: Vec<CaseResult> = (0..4).map(|i| result(i, Status::Passed)).collect();
        assert_eq!(message(&cases, &all_ran, false), None);
    }
}
