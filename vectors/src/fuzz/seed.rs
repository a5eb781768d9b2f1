//! What a fuzzed case is held to, below the operations: a seed from the corpus ([`OpSeed`]),
//! the bounds of a candidate, and the expectation of a mutated `dct.verify` token. A leaf of
//! the fuzz core: the registry of operations (`super::ops`) and the candidates
//! (`super::expect`) build on it.

use delegateos_reference::ops::{self, Outcome};
use delegateos_reference::timestamp::Timestamp;
use serde_json::Value;

use crate::differential::expectation_of;
use crate::format::{self as vf, Expectation, Expected, Level, Stake};

/// Largest encoded input a candidate may have (bytes): bigger ones are not run.
pub const MAX_INPUT_BYTES: usize = 256 * 1024;

/// Mutations or edits per candidate: 1..=MAX_EDITS.
pub const MAX_EDITS: usize = 3;

/// A seed of a fuzzed operation: a corpus case (or, for `dct.verify`, a builtin chain).
#[derive(Debug, Clone)]
pub struct OpSeed {
    /// Case id.
    pub origin: String,
    /// Requirement ids.
    pub requirements: Vec<String>,
    /// Flags.
    pub flags: Vec<String>,
    /// Level.
    pub level: Level,
    /// The case's ground (an unmutated seed is its corpus case).
    pub ground: vf::Ground,
    /// The case's stated stake (an unmutated seed is graded with it).
    pub stake: Stake,
    /// The case's input decoded into the mutator's view (`dct.verify`: the decoded token and
    /// the context).
    pub view: Value,
    /// The case's expectation (its `acceptable` outcomes widen a candidate's expectation when
    /// the reference still answers one of them).
    pub expect: Expectation,
}

/// `outcome` as one expected outcome (none for an unsupported input).
pub fn expected_of(outcome: &Outcome) -> Option<Expected> {
    match outcome {
        Outcome::Ok { output } => Some(Expected::valid(output.clone())),
        Outcome::Error { code, .. } => Some(Expected::Invalid {
            code: code.clone(),
            stage: None,
        }),
        Outcome::Unsupported { .. } => None,
    }
}

/// Whether two expected outcomes are the same answer as the judge compares them: outputs by
/// its number rule (`score: 0` is the reference's `0.0`), codes without their stage (the
/// reference states none).
pub fn same_outcome(a: &Expected, b: &Expected) -> bool {
    match (a, b) {
        (Expected::Valid { output: a }, Expected::Valid { output: b }) => {
            crate::judge::json_equal(a, b)
        }
        (Expected::Invalid { code: a, .. }, Expected::Invalid { code: b, .. }) => a == b,
        _ => false,
    }
}

/// `outcomes` without repeats ([`same_outcome`]), the first of each kept.
pub(crate) fn unique(outcomes: Vec<Expected>) -> Vec<Expected> {
    let mut out: Vec<Expected> = Vec::new();
    for o in outcomes {
        if !out.iter().any(|k| same_outcome(k, &o)) {
            out.push(o);
        }
    }
    out
}

pub(crate) fn malformed(now: Option<&Value>) -> bool {
    now.and_then(Value::as_str)
        .is_some_and(|n| Timestamp::parse(n).is_err())
}

/// The expectation of a mutated token. The reference's outcome comes first. Two more readings
/// are allowed:
/// - if the reference still accepts, the seed's other `acceptable` outcomes (the mutation did
///   not settle the seed's decision);
/// - if the context's `now` is not a profile timestamp, which fault is reported first is
///   settled by no spec text (D7 orders the token's steps, not the context's validation):
///   `malformed_token` for `now` and the token fault the reference reports with the seed's
///   own `now` are both acceptable.
pub fn token_expectation(seed: &OpSeed, input: &Value, reference: &Outcome) -> Option<Expectation> {
    let first = expected_of(reference)?;
    let mut outcomes = vec![first.clone()];
    let mut decision = None;
    if let (
        Expected::Valid { .. },
        Expectation::Acceptable {
            outcomes: open,
            decision: d,
        },
    ) = (&first, &seed.expect)
    {
        if open.len() > 1 {
            outcomes.extend(open.iter().skip(1).cloned());
            decision = Some(d.clone());
        }
    }
    if malformed(input.get("context").and_then(|c| c.get("now"))) {
        if let Some(seed_now) = seed.view.get("context").and_then(|c| c.get("now")) {
            let mut fixed = input.clone();
            if let Some(ctx) = fixed.get_mut("context").and_then(Value::as_object_mut) {
                ctx.insert("now".to_owned(), seed_now.clone());
            }
            let token_fault = ops::run("dct.verify", &fixed);
            if let Some(e @ Expected::Invalid { .. }) = expected_of(&token_fault) {
                outcomes.push(e);
            }
        }
        outcomes.push(Expected::Invalid {
            code: "malformed_token".to_owned(),
            stage: None,
        });
        decision = decision.or_else(|| Some("D7".to_owned()));
    }
    let outcomes = unique(outcomes);
    if outcomes.len() == 1 {
        return expectation_of(reference);
    }
    Some(Expectation::Acceptable {
        outcomes,
        decision: decision.unwrap_or_else(|| "D7".to_owned()),
    })
}
