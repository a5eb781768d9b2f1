//! Seeds, candidates and expectations, for both fuzzers: the corpus cases a fuzzer mutates,
//! a candidate built from a seed and its edits (re-signed where signed), the reference's
//! answer on it, and what the implementation is held to — the reference's outcome as a vector
//! would pin it, with the outcomes a decision leaves open (`acceptable`).

use std::path::Path;

use delegateos_reference::ops::{self, Outcome};
use serde_json::Value;

use super::entropy::Entropy;
use super::mutate::Mutation;
use super::ops::edit::Edit;
use super::ops::{Changes, Fuzzable, Signing};
use super::seed::{OpSeed, MAX_INPUT_BYTES};
use crate::format::{self as vf, Expectation};
use crate::keys::Keys;

/// The seeds of `fz` in the corpus (the embedded one, or `vectors`) ([`Fuzzable::seeds`]).
pub fn seeds(fz: &dyn Fuzzable, vectors: Option<&Path>, keys: &Keys) -> Vec<OpSeed> {
    let files = crate::CorpusSource::from_option(vectors)
        .load()
        .unwrap_or_default();
    fz.seeds(&files, keys)
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
    /// Whether it kept signatures ([`Signing::Keep`]) that no longer cover its edited content
    /// (re-signing would change them): the input then also carries a signature that does not
    /// verify, whichever fault the reference names first (`fuzz::finding::ground_of`).
    pub stale_signatures: bool,
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
    let stale_signatures = signing == Signing::Keep
        && !edits.is_empty()
        && s.is_some_and(|s| fz.build(&s.view, &mutations, &edits, Signing::Resign, keys) != input);
    Candidate {
        seed,
        mutations,
        edits,
        signing,
        input,
        reference,
        expectation,
        stale_signatures,
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
    // What its finding would be graded by (`finding::ground_of`: the seed's, unless the
    // reference's answer is not the seed's own); `dct.verify`'s step is the grader's alone.
    let (requirements, level) = match fz.grading() {
        super::ops::Grading::ByAnswer => {
            let ground = super::finding::ground_of(op, seed, c);
            (ground.requirements, ground.level)
        }
        super::ops::Grading::ByStep => (
            seed.map(|s| s.requirements.clone()).unwrap_or_default(),
            seed.map_or(vf::Level::Normative, |s| s.level),
        ),
    };
    let flags = seed.map(|s| s.flags.clone()).unwrap_or_default();
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
    use crate::format::Expected;
    use crate::fuzz::mutate;
    use crate::fuzz::ops::{malformed_now_outcomes, operation, token::Verify};
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
