//! Seeds, candidates and expectations, for both fuzzers: the corpus cases a fuzzer mutates,
//! a candidate built from a seed and its edits (re-signed where signed), the reference's
//! answer on it, and what the implementation is held to — the reference's outcome as a vector
//! would pin it, with the outcomes a decision leaves open (`acceptable`).

use std::path::Path;

use delegateos_reference::ops::{self, Outcome};
use delegateos_reference::timestamp::Timestamp;
use serde_json::Value;

use super::entropy::Entropy;
use super::mutate::{self, Mutation, Seed};
use super::ops::edit::{self, Edit};
use super::ops::{build, random_edit, random_signing, view, Signing};
use crate::differential::expectation_of;
use crate::format::{self as vf, Expectation, Expected, Level, Stake};
use crate::keys::Keys;
use crate::load::LoadedFile;

/// Largest encoded input a candidate may have (bytes): bigger ones are not run.
pub const MAX_INPUT_BYTES: usize = 256 * 1024;
/// Mutations or edits per candidate: 1..=MAX_EDITS.
pub const MAX_EDITS: usize = 3;

/// Valid `dct.verify` cases of the corpus's `dct` area as seeds (the embedded corpus, or
/// `<dir>/dct/*.json` when a directory is given), after the builtin chains.
pub fn token_seeds(vectors: Option<&Path>, keys: &Keys) -> Vec<Seed> {
    let files = crate::CorpusSource::from_option(vectors)
        .load()
        .unwrap_or_default();
    token_seeds_in(&files, keys)
}

/// [`token_seeds`] of files already loaded.
pub fn token_seeds_in(files: &[LoadedFile], keys: &Keys) -> Vec<Seed> {
    let mut seeds = mutate::builtin_seeds(keys);
    for loaded in files {
        let file = &loaded.file;
        if file.area != "dct" {
            continue;
        }
        for case in &file.cases {
            let valid = matches!(case.expect.outcomes().first(), Some(Expected::Valid { .. }));
            if case.op == "dct.verify" && valid {
                let requirements = case.requirements.clone();
                if let Some(mut seed) = Seed::from_input(&case.id, requirements, &case.input) {
                    seed.flags = case.flags.clone();
                    seed.level = case.level;
                    if let Expectation::Acceptable { outcomes, decision } = &case.expect {
                        seed.alternatives = outcomes.iter().skip(1).cloned().collect();
                        seed.decision = Some(decision.clone());
                    }
                    seeds.push(seed);
                }
            }
        }
    }
    seeds
}

/// A corpus case of a fuzzed operation other than `dct.verify`.
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
    /// The case's input decoded into the mutator's view.
    pub view: Value,
    /// The case's expectation (its `acceptable` outcomes widen a candidate's expectation when
    /// the reference still answers one of them).
    pub expect: Expectation,
}

/// Every case of `op` in the corpus (the embedded one, or `vectors`), stateful groups
/// excepted, in corpus order.
pub fn op_seeds(op: &str, vectors: Option<&Path>) -> Vec<OpSeed> {
    let files = crate::CorpusSource::from_option(vectors)
        .load()
        .unwrap_or_default();
    op_seeds_in(&files, op)
}

/// [`op_seeds`] of files already loaded.
pub fn op_seeds_in(files: &[LoadedFile], op: &str) -> Vec<OpSeed> {
    let mut seeds = Vec::new();
    for loaded in files {
        if loaded.file.stateful {
            continue;
        }
        for case in &loaded.file.cases {
            if case.op == op {
                seeds.push(OpSeed {
                    origin: case.id.clone(),
                    requirements: case.requirements.clone(),
                    flags: case.flags.clone(),
                    level: case.level,
                    ground: case.ground.clone(),
                    stake: case.stake.clone(),
                    view: view(op, &case.input),
                    expect: case.expect.clone(),
                });
            }
        }
    }
    seeds
}

/// A mutated `dct.verify` case.
#[derive(Debug, Clone)]
pub struct TokenCandidate {
    /// Index of its seed.
    pub seed: usize,
    /// The mutations, in order.
    pub mutations: Vec<Mutation>,
    /// The input.
    pub input: Value,
    /// The reference's answer.
    pub reference: Outcome,
    /// The outcomes an implementation may give: the reference's first (`None`: not run).
    pub expectation: Option<Expectation>,
}

/// An edited case of another operation.
#[derive(Debug, Clone)]
pub struct OpCandidate {
    /// Index of its seed.
    pub seed: usize,
    /// The edits, in order.
    pub edits: Vec<Edit>,
    /// Whether signed structures are re-signed after the edits.
    pub signing: Signing,
    /// The input.
    pub input: Value,
    /// The reference's answer.
    pub reference: Outcome,
    /// What the implementation is held to (`None`: the reference does not support the input,
    /// or it is above the size bound; the case is not run).
    pub expectation: Option<Expectation>,
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

fn unique(outcomes: Vec<Expected>) -> Vec<Expected> {
    let mut out: Vec<Expected> = Vec::new();
    for o in outcomes {
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

fn malformed(now: Option<&Value>) -> bool {
    now.and_then(Value::as_str)
        .is_some_and(|n| Timestamp::parse(n).is_err())
}

/// The mutations of a new token candidate of `seed`: 1..=[`MAX_EDITS`], drawn from `rng`.
pub fn token_mutations(rng: &mut impl Entropy, seed: Option<&Seed>, keys: &Keys) -> Vec<Mutation> {
    let n = 1 + rng.below(MAX_EDITS);
    seed.map(|seed| (0..n).map(|_| mutate::random(rng, seed, keys)).collect())
        .unwrap_or_default()
}

/// The expectation of a mutated token. The reference's outcome comes first. Two more readings
/// are allowed:
/// - if the reference still accepts, the seed's other `acceptable` outcomes (the mutation did
///   not settle the seed's decision);
/// - if the context's `now` is not a profile timestamp, which fault is reported first is
///   settled by no spec text (D7 orders the token's steps, not the context's validation):
///   `malformed_token` for `now` and the token fault the reference reports with the seed's
///   own `now` are both acceptable.
pub fn token_expectation(seed: &Seed, input: &Value, reference: &Outcome) -> Option<Expectation> {
    let first = expected_of(reference)?;
    let mut outcomes = vec![first.clone()];
    let mut decision = None;
    if matches!(first, Expected::Valid { .. }) && !seed.alternatives.is_empty() {
        outcomes.extend(seed.alternatives.iter().cloned());
        decision = seed.decision.clone();
    }
    if malformed(input.get("context").and_then(|c| c.get("now"))) {
        if let Some(seed_now) = seed.context.get("now") {
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

/// The token candidate of seed `seed` with `mutations`: built, re-signed, answered by the
/// reference, and its expectation.
pub fn token_candidate(
    seeds: &[Seed],
    seed: usize,
    mutations: Vec<Mutation>,
    keys: &Keys,
) -> TokenCandidate {
    let input = seeds
        .get(seed)
        .map_or(Value::Null, |s| mutate::build(s, &mutations, keys));
    let reference = ops::run("dct.verify", &input);
    let expectation = seeds
        .get(seed)
        .and_then(|s| token_expectation(s, &input, &reference));
    TokenCandidate {
        seed,
        mutations,
        input,
        reference,
        expectation,
    }
}

/// The signing mode and edits of a new candidate of `op` on `seed`: 1..=[`MAX_EDITS`] edits,
/// each generated on the view the previous ones produced.
pub fn op_edits(
    op: &str,
    rng: &mut impl Entropy,
    seed: Option<&OpSeed>,
    keys: &Keys,
) -> (Signing, Vec<Edit>) {
    let signing = random_signing(op, rng);
    let n = 1 + rng.below(MAX_EDITS);
    let mut edits: Vec<Edit> = Vec::new();
    let text = super::ops::edits_text(op);
    if let Some(seed) = seed {
        for _ in 0..n {
            let mut v = seed.view.clone();
            for e in edits.iter().filter(|e| !e.is_text()) {
                edit::apply(&mut v, e);
            }
            let input = if text {
                build(op, &seed.view, &edits, signing, keys)
            } else {
                Value::Null
            };
            if let Some(e) = random_edit(op, rng, &v, &input) {
                edits.push(e);
            }
        }
    }
    (signing, edits)
}

/// The reference's outcome as an implementation is held to it ([`super::ops::comparable`]).
pub fn comparable_outcome(op: &str, outcome: &Outcome) -> Outcome {
    match outcome {
        Outcome::Ok { output } => Outcome::Ok {
            output: super::ops::comparable(op, output),
        },
        other => other.clone(),
    }
}

/// D7 and `spec/operations.md` §1 (issue 27): `now` is the caller's argument, and when an
/// edit made it something other than a profile timestamp, the text does not order that fault
/// before the token's own. So next to the reference's answer, `invalid_input` and the denial
/// the candidate gets at the seed's `now` are acceptable, as the token fuzzer allows.
fn malformed_now_outcomes(op: &str, input: &Value, seed: &OpSeed) -> Vec<Expected> {
    let Some(seed_now) = seed.view.get("now").filter(|_| malformed(input.get("now"))) else {
        return Vec::new();
    };
    let mut at_seed_now = input.clone();
    at_seed_now["now"] = seed_now.clone();
    let mut out = vec![Expected::Invalid {
        code: "invalid_input".to_owned(),
        stage: None,
    }];
    let denial = comparable_outcome(op, &ops::run(op, &at_seed_now));
    let denied = match &denial {
        Outcome::Ok { output } => output.get("decision").and_then(Value::as_str) == Some("deny"),
        Outcome::Error { .. } => true,
        Outcome::Unsupported { .. } => false,
    };
    if denied {
        out.extend(expected_of(&denial));
    }
    out
}

/// The reference's outcome; the seed's other `acceptable` outcomes too when the reference
/// still answers one of them (the edits left the seed's open question open); and the outcomes
/// a decision leaves open for this candidate (D7: a malformed caller `now`).
pub fn op_expectation(
    op: &str,
    seed: &OpSeed,
    input: &Value,
    reference: &Outcome,
) -> Option<Expectation> {
    let also = malformed_now_outcomes(op, input, seed);
    let reference = comparable_outcome(op, reference);
    let first = expected_of(&reference)?;
    let mut outcomes = vec![first.clone()];
    let mut decision = None;
    if let Expectation::Acceptable {
        outcomes: open,
        decision: d,
    } = &seed.expect
    {
        if open.contains(&first) {
            outcomes.extend(open.iter().cloned());
            decision = Some(d.clone());
        }
    }
    if !also.is_empty() {
        outcomes.extend(also);
        decision = decision.or_else(|| Some("D7".to_owned()));
    }
    let outcomes = unique(outcomes);
    match decision {
        Some(decision) if outcomes.len() > 1 => {
            Some(Expectation::Acceptable { outcomes, decision })
        }
        _ => expectation_of(&reference),
    }
}

/// The candidate of `op` on seed `seed` with `edits`: built (re-signed per `signing`),
/// answered by the reference (unless above [`MAX_INPUT_BYTES`]), and its expectation.
pub fn op_candidate(
    op: &str,
    seeds: &[OpSeed],
    seed: usize,
    edits: Vec<Edit>,
    signing: Signing,
    keys: &Keys,
) -> OpCandidate {
    let s = seeds.get(seed);
    let input = s.map_or(Value::Null, |s| build(op, &s.view, &edits, signing, keys));
    let too_big = input.to_string().len() > MAX_INPUT_BYTES;
    let reference = if too_big {
        Outcome::Unsupported {
            reason: "input above the fuzzer's size bound".to_owned(),
        }
    } else {
        ops::run(op, &input)
    };
    let expectation = s.and_then(|s| op_expectation(op, s, &input, &reference));
    OpCandidate {
        seed,
        edits,
        signing,
        input,
        reference,
        expectation,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A malformed `now` together with a token fault: no spec text orders them, so both
    /// `malformed_token` and the token fault's code are acceptable (D7, issue 12).
    #[test]
    fn malformed_now_with_a_token_fault_accepts_both_codes() {
        let keys = Keys::fixed();
        let seeds = mutate::builtin_seeds(&keys);
        let mutations = vec![
            Mutation::Set {
                stage: mutate::Stage::Context,
                path: vec![mutate::Seg::Key("now".to_owned())],
                value: json!("2026-02-30T00:00:00Z"),
            },
            Mutation::Forge {
                block: 0,
                key: "mallory".to_owned(),
            },
        ];
        let c = token_candidate(&seeds, 0, mutations, &keys);
        let Some(Expectation::Acceptable { outcomes, .. }) = &c.expectation else {
            panic!("expected acceptable, got {:?}", c.expectation);
        };
        let codes: Vec<&str> = outcomes
            .iter()
            .filter_map(|o| match o {
                Expected::Invalid { code, .. } => Some(code.as_str()),
                Expected::Valid { .. } => None,
            })
            .collect();
        assert!(codes.contains(&"malformed_token"), "{codes:?}");
        assert!(codes.contains(&"invalid_signature"), "{codes:?}");
    }

    /// D7: an `mcp.call` whose caller `now` is not a profile timestamp may be answered with
    /// the reference's denial, `invalid_input`, or the token's own denial at the seed's `now`;
    /// a well-formed `now` leaves the reference's answer alone.
    #[test]
    fn a_malformed_caller_now_leaves_the_order_open() {
        let keys = Keys::fixed();
        let seeds = op_seeds("mcp.call", None);
        let invalid_input = Expected::Invalid {
            code: "invalid_input".to_owned(),
            stage: None,
        };
        let mut widened = 0;
        for (i, s) in seeds.iter().enumerate() {
            let input = build("mcp.call", &s.view, &[], Signing::Keep, &keys);
            if input.get("now").is_none() {
                continue;
            }
            assert!(malformed_now_outcomes("mcp.call", &input, s).is_empty());
            let mut bad = input.clone();
            bad["now"] = Value::from("2026-02-30T00:00:00Z");
            let also = malformed_now_outcomes("mcp.call", &bad, s);
            assert!(also.contains(&invalid_input), "{}", s.origin);
            let edit = Edit::Set {
                path: vec![crate::fuzz::mutate::Seg::Key("now".to_owned())],
                value: Value::from("2026-02-30T00:00:00Z"),
            };
            let c = op_candidate("mcp.call", &seeds, i, vec![edit], Signing::Keep, &keys);
            match c.expectation {
                Some(Expectation::Acceptable { outcomes, decision }) => {
                    assert!(outcomes.contains(&invalid_input), "{}", s.origin);
                    assert!(!decision.is_empty());
                }
                other => panic!("{}: {other:?}", s.origin),
            }
            widened += 1;
        }
        assert!(widened > 10, "only {widened} mcp.call seeds carry a now");
    }
}
