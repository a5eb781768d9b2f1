//! Seeds, candidates and expectations, for both fuzzers: the corpus cases a fuzzer mutates,
//! a candidate built from a seed and its edits (re-signed where signed), the reference's
//! answer on it, and what the implementation is held to — the reference's outcome as a vector
//! would pin it, with the outcomes a decision leaves open (`acceptable`).

use std::path::Path;

use delegateos_reference::ops::{self, Outcome};
use delegateos_reference::timestamp::Timestamp;
use serde_json::Value;

use super::entropy::Entropy;
use super::mutate::Mutation;
use super::ops::edit::Edit;
use super::ops::{Changes, Fuzzable, Signing};
use crate::differential::expectation_of;
use crate::format::{self as vf, Expectation, Expected, Level, Stake};
use crate::keys::Keys;
use crate::load::LoadedFile;

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

/// The seeds of `fz` in the corpus (the embedded one, or `vectors`) ([`Fuzzable::seeds`]).
pub fn seeds(fz: &dyn Fuzzable, vectors: Option<&Path>, keys: &Keys) -> Vec<OpSeed> {
    let files = crate::CorpusSource::from_option(vectors)
        .load()
        .unwrap_or_default();
    fz.seeds(&files, keys)
}

/// Every case of `fz`'s operation in `files`, stateful groups excepted, in corpus order (the
/// default [`Fuzzable::seeds`]).
pub fn op_seeds_of<F: Fuzzable + ?Sized>(fz: &F, files: &[LoadedFile]) -> Vec<OpSeed> {
    let op = fz.name();
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
                    view: fz.view(&case.input),
                    expect: case.expect.clone(),
                });
            }
        }
    }
    seeds
}

/// A candidate: a seed and its changes (token mutations for `dct.verify`, edits and a signing
/// mode for the others), the input they build, the reference's answer and the expectation.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Index of its seed.
    pub seed: usize,
    /// `dct.verify`'s token mutations, in order (empty for the others).
    pub mutations: Vec<Mutation>,
    /// Another operation's edits, in order (empty for `dct.verify`).
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

impl Candidate {
    /// How many changes (mutations, then edits) it has.
    pub fn changes(&self) -> usize {
        self.mutations.len() + self.edits.len()
    }

    /// Its changes at `keep` (indices into mutations, then edits), in order; same signing.
    pub fn keeping(&self, keep: &[usize]) -> Changes {
        let m = self.mutations.len();
        Changes {
            signing: self.signing,
            mutations: keep
                .iter()
                .filter_map(|&i| self.mutations.get(i).cloned())
                .collect(),
            edits: keep
                .iter()
                .filter_map(|&i| i.checked_sub(m).and_then(|i| self.edits.get(i)).cloned())
                .collect(),
        }
    }
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

/// The changes of a new candidate of `seed` ([`Fuzzable::random_changes`]; none without a
/// seed).
pub fn changes(
    fz: &dyn Fuzzable,
    rng: &mut dyn Entropy,
    seed: Option<&OpSeed>,
    keys: &Keys,
) -> Changes {
    seed.map_or(
        Changes {
            signing: Signing::Keep,
            mutations: Vec::new(),
            edits: Vec::new(),
        },
        |s| fz.random_changes(rng, s, keys),
    )
}

/// The reference's outcome as an implementation is held to it ([`super::ops::comparable`]).
pub fn comparable_outcome<F: Fuzzable + ?Sized>(fz: &F, outcome: &Outcome) -> Outcome {
    match outcome {
        Outcome::Ok { output } => Outcome::Ok {
            output: fz.comparable(output),
        },
        other => other.clone(),
    }
}

/// D7 and `spec/operations.md` §1 (issue 27): `now` is the caller's argument, and when an
/// edit made it something other than a profile timestamp, the text does not order that fault
/// before the token's own. So next to the reference's answer, `invalid_input` and the denial
/// the candidate gets at the seed's `now` are acceptable, as the token fuzzer allows.
fn malformed_now_outcomes<F: Fuzzable + ?Sized>(
    fz: &F,
    input: &Value,
    seed: &OpSeed,
) -> Vec<Expected> {
    let Some(seed_now) = seed.view.get("now").filter(|_| malformed(input.get("now"))) else {
        return Vec::new();
    };
    let mut at_seed_now = input.clone();
    at_seed_now["now"] = seed_now.clone();
    let mut out = vec![Expected::Invalid {
        code: "invalid_input".to_owned(),
        stage: None,
    }];
    let denial = comparable_outcome(fz, &ops::run(fz.name(), &at_seed_now));
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
pub fn op_expectation<F: Fuzzable + ?Sized>(
    fz: &F,
    seed: &OpSeed,
    input: &Value,
    reference: &Outcome,
) -> Option<Expectation> {
    let also = malformed_now_outcomes(fz, input, seed);
    let reference = comparable_outcome(fz, reference);
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

/// Whether `input` as compact JSON text is longer than `limit` bytes (counted, not built).
fn longer_than(input: &Value, limit: usize) -> bool {
    struct Count(usize, usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            if self.0 > self.1 {
                Err(std::io::ErrorKind::WriteZero.into())
            } else {
                Ok(bytes.len())
            }
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    serde_json::to_writer(&mut Count(0, limit), input).is_err()
}

/// The candidate of `fz` on seed `seed` with `changes`: built (mutated or edited, re-signed
/// per its signing), answered by the reference (unless the operation's inputs are bounded and
/// it is above [`MAX_INPUT_BYTES`]), and its expectation ([`Fuzzable::expectation`]).
pub fn candidate(
    fz: &dyn Fuzzable,
    seeds: &[OpSeed],
    seed: usize,
    changes: Changes,
    keys: &Keys,
) -> Candidate {
    let Changes {
        signing,
        mutations,
        edits,
    } = changes;
    let s = seeds.get(seed);
    let input = s.map_or(Value::Null, |s| {
        fz.build(&s.view, &mutations, &edits, signing, keys)
    });
    let reference = if fz.bounded_input() && longer_than(&input, MAX_INPUT_BYTES) {
        Outcome::Unsupported {
            reason: "input above the fuzzer's size bound".to_owned(),
        }
    } else {
        ops::run(fz.name(), &input)
    };
    let expectation = s.and_then(|s| fz.expectation(s, &input, &reference));
    Candidate {
        seed,
        mutations,
        edits,
        signing,
        input,
        reference,
        expectation,
    }
}

/// Candidate `c` of `fz` on `seed` as a case (id `id`) for a runner to judge (`None`: not run).
/// An unmutated seed is its corpus case, with its ground and stated stake; a changed one is
/// differential: no case states it, so the severity model's rules grade it.
pub fn fuzzed_case(
    fz: &dyn Fuzzable,
    id: String,
    c: &Candidate,
    seed: Option<&OpSeed>,
) -> Option<vf::Case> {
    let e = c.expectation.as_ref()?;
    let op = fz.name();
    let requirements = seed.map(|s| s.requirements.clone()).unwrap_or_default();
    let flags = seed.map(|s| s.flags.clone()).unwrap_or_default();
    let level = seed.map_or(Level::Normative, |s| s.level);
    let (ground, stake) = match seed {
        Some(s) if c.changes() == 0 => (s.ground.clone(), s.stake.clone()),
        _ => (
            vf::Ground::Differential {
                level,
                reason: format!(
                    "a mutation of {}",
                    seed.map_or("no case", |s| s.origin.as_str())
                ),
            },
            crate::severity::model().rule_stake(op, &flags, &requirements, e),
        ),
    };
    Some(vf::Case {
        id,
        description: String::new(),
        requirements,
        flags,
        level,
        ground,
        stake,
        op: op.to_owned(),
        options: crate::options::needed_by(&c.input),
        input: c.input.clone(),
        expect: e.clone(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::fuzz::mutate;
    use crate::fuzz::ops::{operation, token::Verify};
    use serde_json::json;

    fn changes(mutations: Vec<Mutation>, edits: Vec<Edit>) -> Changes {
        Changes {
            signing: Signing::Keep,
            mutations,
            edits,
        }
    }

    /// A malformed `now` together with a token fault: no spec text orders them, so both
    /// `malformed_token` and the token fault's code are acceptable (D7, issue 12).
    #[test]
    fn malformed_now_with_a_token_fault_accepts_both_codes() {
        let keys = Keys::fixed();
        let seeds = Verify.seeds(&[], &keys);
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
        let c = candidate(&Verify, &seeds, 0, changes(mutations, Vec::new()), &keys);
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
        let call = operation("mcp.call").unwrap();
        let seeds = super::seeds(call, None, &keys);
        let invalid_input = Expected::Invalid {
            code: "invalid_input".to_owned(),
            stage: None,
        };
        let mut widened = 0;
        for (i, s) in seeds.iter().enumerate() {
            let input = call.build(&s.view, &[], &[], Signing::Keep, &keys);
            if input.get("now").is_none() {
                continue;
            }
            assert!(malformed_now_outcomes(call, &input, s).is_empty());
            let mut bad = input.clone();
            bad["now"] = Value::from("2026-02-30T00:00:00Z");
            let also = malformed_now_outcomes(call, &bad, s);
            assert!(also.contains(&invalid_input), "{}", s.origin);
            let edit = Edit::Set {
                path: vec![crate::fuzz::mutate::Seg::Key("now".to_owned())],
                value: Value::from("2026-02-30T00:00:00Z"),
            };
            let c = candidate(call, &seeds, i, changes(Vec::new(), vec![edit]), &keys);
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
