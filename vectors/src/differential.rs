//! How a mutated token is graded, for both token fuzzers (`delegateos-conform fuzz` and
//! `delegateos_inprocess::fuzz`). A mutated token is no case: its expectation is the
//! reference's answer, it cites the §10.1 requirement whose step gives that answer, it has no
//! flags and no stated stake, and the judge's kind comes from the two verdicts. Written once
//! here so that both fuzzers grade a finding alike, and alike with `run`
//! ([`crate::outcome::assess_fault`]).

use delegateos_reference::ops::Outcome;
use serde_json::Value;

use crate::format::Expectation;
use crate::judge::FailureKind;
use crate::outcome::{assess_fault, Fault, Subject};
use crate::severity::Assessment;

/// The reference's answer as a code: `ok`, the error code, or `skipped`.
pub fn reference_code(reference: &Outcome) -> String {
    match reference {
        Outcome::Ok { .. } => "ok".to_owned(),
        Outcome::Error { code, .. } => code.clone(),
        Outcome::Unsupported { .. } => "skipped".to_owned(),
    }
}

/// The class of an implementation's reply (`{"outcome": …}`): `accepted`, `refused`, the
/// reply kind, or `none`.
pub fn outcome_class(actual: Option<&Value>) -> String {
    match actual
        .and_then(|v| v.get("outcome"))
        .and_then(Value::as_str)
    {
        Some("ok") => "accepted".to_owned(),
        Some("error") => "refused".to_owned(),
        Some(o) => o.to_owned(),
        None => "none".to_owned(),
    }
}

/// The reference's answer as the expectation a mutated token is judged by (none for an
/// operation the reference does not support).
pub fn expectation_of(reference: &Outcome) -> Option<Expectation> {
    match reference {
        Outcome::Ok { output } => Some(Expectation::valid(output.clone())),
        Outcome::Error { code, .. } => Some(Expectation::Invalid {
            code: code.clone(),
            stage: None,
        }),
        Outcome::Unsupported { .. } => None,
    }
}

/// The §10.1 requirement whose step answers `code` (a mutated token cites it: the seed's own
/// requirements describe the valid token, not the mutation).
pub fn requirement_of(code: &str) -> &'static str {
    match code {
        "revoked" => "DCT-VERIFY-2-EVERY-BLOCK",
        "invalid_signature" => "DCT-VERIFY-3A-ROOT-SIG",
        "attenuation_violation" => "DCT-VERIFY-4B-CAPABILITIES",
        "chain_depth_exceeded" => "DCT-VERIFY-4E-EXCEEDED",
        "expired" => "DCT-VERIFY-5-EXPIRED",
        "budget_exceeded" => "DCT-VERIFY-6-BUDGET",
        "capability_not_granted" => "DCT-VERIFY-7-CAPABILITY",
        "ok" => "DCT-VERIFY-8-SCOPE",
        _ => "DCT-VERIFY-1-MALFORMED",
    }
}

/// The first code an expectation names (`None` for a valid outcome).
pub fn expected_code(expectation: &Expectation) -> Option<String> {
    match expectation.outcomes().into_iter().next() {
        Some(crate::format::Expected::Invalid { code, .. }) => Some(code),
        _ => None,
    }
}

/// What the reference answers to an input of `op`, as one word: `ok`; an error's code; for an
/// accepted output that refuses and names its denial (where, is the operation's `grants` row of
/// `spec/data/operations.json`: `mcp.call`'s `deny` names `capability_not_granted`, …), that
/// denial; `skipped` for an input it does not support. Two inputs with the same answer are
/// graded alike by the fuzzers ([`requirements_of_answer`]).
pub fn answer_of(op: &str, outcome: &Outcome) -> String {
    match outcome {
        Outcome::Ok { output } => output_answer(op, output),
        other => reference_code(other),
    }
}

/// The answer ([`answer_of`]) an expected outcome names.
pub fn answer_of_expected(op: &str, expected: &crate::format::Expected) -> String {
    match expected {
        crate::format::Expected::Valid { output } => output_answer(op, output),
        crate::format::Expected::Invalid { code, .. } => code.clone(),
    }
}

fn output_answer(op: &str, output: &Value) -> String {
    crate::operations::facts(op)
        .and_then(|f| f.grants.as_ref())
        .and_then(|g| g.denial_code(output))
        .unwrap_or_else(|| "ok".to_owned())
}

/// What the embedded corpus cites for an answer of `op` ([`requirements_of_answer`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerGround {
    /// The requirement ids most of the cases of `op` with that answer cite (on a tie, the
    /// first in corpus order).
    pub requirements: Vec<String>,
    /// The strongest level at which a case of `op` pins that answer (normative over decision
    /// over hardening): the answer is required at that level somewhere in the corpus.
    pub level: crate::format::Level,
}

/// The requirement ids the embedded corpus's cases of `op` cite when their first (reference)
/// outcome is `answer` ([`answer_of_expected`]), and the level the answer is pinned at: a
/// mutated input whose answer is not its seed's is graded by what the corpus says of that
/// answer, not by the seed's topic (an attestation made over budget and re-signed is a budget
/// finding, not the forgery its seed was written for; a tool renamed in a spend case that the
/// reference now denies `capability_not_granted` is an authorization finding). `None` when no
/// case of `op` has that answer.
pub fn requirements_of_answer(op: &str, answer: &str) -> Option<AnswerGround> {
    use crate::format::Level;
    type Key = (String, String);
    type Index = std::collections::BTreeMap<Key, AnswerGround>;
    type Counts = std::collections::BTreeMap<Key, (Vec<(Vec<String>, usize)>, Vec<Level>)>;
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut counts = Counts::new();
        for loaded in crate::corpus::load_embedded().unwrap_or_default() {
            for case in &loaded.file.cases {
                let Some(first) = case.expect.outcomes().into_iter().next() else {
                    continue;
                };
                let answer = answer_of_expected(&case.op, &first);
                let (sets, levels) = counts.entry((case.op.clone(), answer)).or_default();
                match sets.iter_mut().find(|(r, _)| *r == case.requirements) {
                    Some((_, n)) => *n += 1,
                    None => sets.push((case.requirements.clone(), 1)),
                }
                levels.push(case.level);
            }
        }
        counts
            .into_iter()
            .filter_map(|(key, (sets, levels))| {
                let best = sets.iter().map(|(_, n)| *n).max()?;
                let (requirements, _) = sets.into_iter().find(|(_, n)| *n == best)?;
                // `Level` orders normative first.
                let level = levels.into_iter().min()?;
                Some((
                    key,
                    AnswerGround {
                        requirements,
                        level,
                    },
                ))
            })
            .collect()
    });
    index.get(&(op.to_owned(), answer.to_owned())).cloned()
}

/// The requirement of the §10.1 step whose denial the reference answered on a mutated token:
/// [`requirement_of`] its code, refined for step 4 by the reference's own detail (which of
/// 4a–4e refused), so a finding is graded by what the mutation broke.
pub fn requirement_of_outcome(reference: &Outcome) -> &'static str {
    let Outcome::Error { code, detail } = reference else {
        return requirement_of(&reference_code(reference));
    };
    if code != "attenuation_violation" {
        return requirement_of(code);
    }
    // The reference's detail names the sub-step (`attenuation_violation (step 4d)`).
    [
        ("step 4a", "DCT-VERIFY-4A-ATTENUATOR"),
        ("step 4b", "DCT-VERIFY-4B-CAPABILITIES"),
        ("step 4c", "DCT-VERIFY-4C-BUDGET"),
        ("step 4d", "DCT-VERIFY-4D-EXPIRY"),
        ("step 4e", "DCT-VERIFY-4E-DEPTH-EXPANSION"),
    ]
    .iter()
    .find(|(step, _)| detail.contains(step))
    .map_or("DCT-VERIFY-4B-CAPABILITIES", |(_, r)| r)
}

/// The judge's kind of a disagreement, from the reference's verdict and the reply's class.
pub fn failure_kind(reference: &Outcome, actual: Option<&Value>) -> FailureKind {
    let accepted = outcome_class(actual) == "accepted";
    match (matches!(reference, Outcome::Ok { .. }), accepted) {
        (false, true) => FailureKind::AcceptedInvalid,
        (true, false) => FailureKind::RejectedValid,
        (true, true) => FailureKind::OutputMismatch,
        (false, false) => FailureKind::WrongCode,
    }
}

/// The assessment of `fault` on a mutated token the reference answered with `reference`
/// (`dct.verify`, by the rules: no flags, no stake).
pub fn assess_token(reference: &Outcome, fault: &Fault) -> Assessment {
    let expectation = expectation_of(reference);
    let requirements = vec![requirement_of_outcome(reference).to_owned()];
    let subject = Subject {
        op: "dct.verify",
        flags: &[],
        requirements: &requirements,
        expectation: expectation.as_ref(),
        stake: None,
    };
    assess_fault(&subject, fault)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_step_4_denial_cites_its_sub_step() {
        let denial = |detail: &str| Outcome::Error {
            code: "attenuation_violation".to_owned(),
            detail: detail.to_owned(),
        };
        assert_eq!(
            requirement_of_outcome(&denial("attenuation_violation (step 4d)")),
            "DCT-VERIFY-4D-EXPIRY"
        );
        assert_eq!(
            requirement_of_outcome(&denial("attenuation_violation (step 4a)")),
            "DCT-VERIFY-4A-ATTENUATOR"
        );
        assert_eq!(
            requirement_of_outcome(&Outcome::Error {
                code: "expired".to_owned(),
                detail: String::new()
            }),
            "DCT-VERIFY-5-EXPIRED"
        );
    }

    #[test]
    fn the_kind_comes_from_both_verdicts() {
        let ok = Outcome::Ok { output: json!({}) };
        let refused = Outcome::Error {
            code: "expired".to_owned(),
            detail: String::new(),
        };
        let accept = json!({"outcome": "ok", "output": {}});
        let refuse = json!({"outcome": "error", "code": "revoked"});
        assert_eq!(
            failure_kind(&refused, Some(&accept)),
            FailureKind::AcceptedInvalid
        );
        assert_eq!(failure_kind(&ok, Some(&refuse)), FailureKind::RejectedValid);
        assert_eq!(
            failure_kind(&ok, Some(&accept)),
            FailureKind::OutputMismatch
        );
        assert_eq!(
            failure_kind(&refused, Some(&refuse)),
            FailureKind::WrongCode
        );
        assert_eq!(failure_kind(&ok, None), FailureKind::RejectedValid);
    }

    /// The requirement a mutated token cites for each answer is one the corpus itself cites
    /// on a `dct.verify` case whose reference reading is that answer: the fuzzers ground a finding as the vectors
    /// do.
    #[test]
    fn every_answer_cites_a_requirement_the_corpus_cites_for_it() {
        let files = crate::corpus::load_embedded().unwrap_or_default();
        let mut cited: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
            Default::default();
        for case in files.iter().flat_map(|f| &f.file.cases) {
            if case.op != "dct.verify" {
                continue;
            }
            // The reference reading (a decision's other readings are other answers).
            if let Some(outcome) = case.expect.outcomes().into_iter().next() {
                let code = match outcome {
                    crate::format::Expected::Valid { .. } => "ok".to_owned(),
                    crate::format::Expected::Invalid { code, .. } => code,
                };
                cited
                    .entry(code)
                    .or_default()
                    .extend(case.requirements.iter().cloned());
            }
        }
        for code in [
            "revoked",
            "invalid_signature",
            "attenuation_violation",
            "chain_depth_exceeded",
            "expired",
            "budget_exceeded",
            "capability_not_granted",
            "ok",
            "malformed_token",
        ] {
            let req = requirement_of(code);
            assert!(
                cited.get(code).is_some_and(|ids| ids.contains(req)),
                "{code}: {req} is cited by no dct.verify case answering {code}"
            );
        }
    }

    #[test]
    fn the_expectation_is_the_reference_answer() {
        let output = json!({"scope": {}});
        let ok = Outcome::Ok {
            output: output.clone(),
        };
        assert_eq!(expectation_of(&ok), Some(Expectation::valid(output)));
        let revoked = Outcome::Error {
            code: "revoked".to_owned(),
            detail: String::new(),
        };
        assert_eq!(
            expectation_of(&revoked),
            Some(Expectation::Invalid {
                code: "revoked".to_owned(),
                stage: None
            })
        );
        assert_eq!(reference_code(&ok), "ok");
    }

    #[test]
    fn a_mutated_token_cites_the_step_that_answers() {
        let expired = Outcome::Error {
            code: "expired".to_owned(),
            detail: String::new(),
        };
        assert_eq!(reference_code(&expired), "expired");
        assert_eq!(requirement_of("expired"), "DCT-VERIFY-5-EXPIRED");
        assert_eq!(requirement_of("anything else"), "DCT-VERIFY-1-MALFORMED");
        let accepted = Fault::Failed {
            kind: FailureKind::AcceptedInvalid,
            output: Some(json!({})),
        };
        let a = assess_token(&expired, &accepted);
        assert_eq!(a.direction, crate::severity::Direction::Granted);
        // A valid token refused is keyed by the step that grants (§10.1 step 8), as `run`
        // keys the corpus's valid cases, not by the parse step.
        let ok = Outcome::Ok { output: json!({}) };
        let refused = Fault::Failed {
            kind: FailureKind::RejectedValid,
            output: None,
        };
        assert_eq!(
            assess_token(&ok, &refused).key,
            "capability-check/valid-input-refused"
        );
    }
}
