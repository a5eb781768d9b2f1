//! The registry of fuzzed operations that take untrusted input (`fuzz --op`), `dct.verify`
//! among them: one module per concern.
//!
//! | module | concern |
//! |---|---|
//! | [`edit`] | replayable structure-aware edits of a JSON document |
//! | [`text`] | edits of JSON text (numbers, escapes, duplicate keys, nesting, unicode) |
//! | [`sign`] | re-signing with the published test keys |
//! | [`token`] | `dct.verify`: the token mutator of [`crate::fuzz::mutate`] as a registered operation |
//! | [`revocation`], [`canonical`], [`glob`], [`checks`], [`signed`], [`mcp`] | per operation: the decoded view a mutator edits, its dictionary, and the encoding back to an input |
//! | the harness's `fuzz::ops::engine`, `delegateos_inprocess::fuzz` | the loops: mutate, run both sides, compare, deduplicate, minimize, grade |
//!
//! Each operation's input is decoded into a *view* (e.g. a revocation list's JSON text parsed
//! into its entries, an MCP call's token decoded), edited, encoded back (re-signed when the
//! candidate says so), then text edits apply to the encoded input's JSON-text fields.
//! `dct.verify`'s view is the decoded token and its context, changed by token
//! [`Mutation`]s instead of edits and re-signed block by block ([`token`]).

pub mod canonical;
pub mod checks;
pub mod edit;
pub mod glob;
pub mod mcp;
pub mod revocation;
pub mod sign;
pub mod signed;
pub mod text;
pub mod token;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::differential::expectation_of;
use crate::format::Expectation;
use crate::format::Expected;
use crate::fuzz::entropy::{fnv, Entropy};
use crate::fuzz::mutate::Mutation;
use crate::fuzz::seed::{expected_of, malformed, same_outcome, unique, OpSeed, MAX_EDITS};
use crate::keys::Keys;
use crate::load::LoadedFile;
use delegateos_reference::ops::Outcome;
use edit::Edit;

/// The fuzzed operations, as `fuzz --op` and `delegateos_inprocess::fuzz` take them: the names
/// of [`REGISTRY`], in its order.
pub static OPERATIONS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| REGISTRY.iter().map(|o| o.name()).collect());

/// Whether (and how) a candidate's signed structures are made valid again after its edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Signing {
    /// Leave signatures as they are (edits of signed fields break them).
    Keep,
    /// Re-sign every signed structure whose signer is a published test key.
    Resign,
    /// Recompute derived digests (an attestation's `outputHash`), then re-sign.
    Rehash,
}

/// How a finding of an operation is graded, keyed and recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grading {
    /// By the reference's answer to the changed input (`fuzz::finding::ground_of`): a refusal
    /// (an error's code, or the denial an accepted output names, e.g. `mcp.call`'s
    /// `capability_not_granted`) by what the corpus cites for that answer; an acceptance as
    /// `run` grades its seed case where the seed is accepted too (the seed's requirements; an
    /// unmutated seed with its flags and stated stake); keyed `<op> kind: reference <answer>
    /// …`, with what the output does when both accepted; its changes recorded as edits and the
    /// signing mode.
    ByAnswer,
    /// By the §10.1 step the reference's answer names (`dct.verify`: a mutated token is
    /// judged by the step it breaks, never by its seed's requirements); keyed `kind: …`; its
    /// changes recorded as token mutations.
    ByStep,
}

impl Grading {
    /// What a fuzzer's progress lines call one change of a candidate.
    pub fn unit(self) -> &'static str {
        match self {
            Self::ByAnswer => "edit",
            Self::ByStep => "mutation",
        }
    }
}

/// A fuzzable operation: where its seeds come from, what its mutator changes (the view), how a
/// changed view becomes an input again (re-signed per the candidate's signing mode), what the
/// implementation is held to, and how a finding is graded. One implementation per operation,
/// in the module of its family; [`REGISTRY`] lists them. The defaults are those of an
/// operation whose corpus cases are edited structure-aware ([`Edit`]s); `dct.verify`
/// ([`token::Verify`]) overrides the seeds, changes, build, expectation and grading. Unwind
/// safe, so a fuzzer holding registry entries is (`delegateos_inprocess::fuzz::Fuzzer`).
pub trait Fuzzable: Sync + std::panic::RefUnwindSafe {
    /// The operation's catalogue name.
    fn name(&self) -> &'static str;

    /// How its findings are graded ([`Grading::ByAnswer`] by default).
    fn grading(&self) -> Grading {
        Grading::ByAnswer
    }

    /// A constant mixed into the harness's seed of each batch, so `--op a,b` does not replay
    /// one random stream on every operation (default: the FNV-1a hash of the name).
    fn stream_salt(&self) -> u64 {
        fnv(self.name().as_bytes())
    }

    /// The seeds among loaded corpus `files` (default: every case of the operation outside
    /// stateful groups, its input in the mutator's view).
    fn seeds(&self, files: &[LoadedFile], _keys: &Keys) -> Vec<OpSeed> {
        op_seeds_of(self, files)
    }

    /// The view of `input` that the mutator edits (default: the input itself).
    fn view(&self, input: &Value) -> Value {
        input.clone()
    }

    /// The input for an edited `view` (default: the view itself).
    fn encode(&self, view: &Value, _signing: Signing, _keys: &Keys) -> Value {
        view.clone()
    }

    /// How a new candidate treats signatures (default: [`Signing::Keep`], drawing nothing).
    fn random_signing(&self, _rng: &mut dyn Entropy) -> Signing {
        Signing::Keep
    }

    /// One structure-aware edit of `view` (whose encoded input is `input`, built only for an
    /// operation that [`Fuzzable::edits_text`]; `null` otherwise). Default: none (an operation
    /// that changes its inputs otherwise overrides [`Fuzzable::random_changes`]).
    fn random_edit(&self, _rng: &mut dyn Entropy, _view: &Value, _input: &Value) -> Option<Edit> {
        None
    }

    /// The changes of a new candidate of `seed`: its signing mode ([`Fuzzable::random_signing`]),
    /// then 1..=[`MAX_EDITS`] edits, each drawn on the view the previous ones produced.
    fn random_changes(&self, rng: &mut dyn Entropy, seed: &OpSeed, keys: &Keys) -> Changes {
        let signing = self.random_signing(rng);
        let n = 1 + rng.below(MAX_EDITS);
        let mut edits: Vec<Edit> = Vec::new();
        let text = self.edits_text();
        for _ in 0..n {
            let mut v = seed.view.clone();
            for e in edits.iter().filter(|e| !e.is_text()) {
                edit::apply(&mut v, e);
            }
            let input = if text {
                self.build(&seed.view, &[], &edits, signing, keys)
            } else {
                Value::Null
            };
            if let Some(e) = self.random_edit(rng, &v, &input) {
                edits.push(e);
            }
        }
        Changes {
            signing,
            mutations: Vec::new(),
            edits,
        }
    }

    /// The input of a candidate: the seed's view, edited, encoded, then text-edited (default),
    /// or, for token `mutations`, mutated and re-signed.
    fn build(
        &self,
        seed_view: &Value,
        _mutations: &[Mutation],
        edits: &[Edit],
        signing: Signing,
        keys: &Keys,
    ) -> Value {
        let mut v = seed_view.clone();
        for e in edits.iter().filter(|e| !e.is_text()) {
            edit::apply(&mut v, e);
        }
        let mut input = self.encode(&v, signing, keys);
        for e in edits.iter().filter(|e| e.is_text()) {
            edit::apply_text(&mut input, e);
        }
        input
    }

    /// Whether a candidate above [`crate::fuzz::seed::MAX_INPUT_BYTES`] is not run (default: yes).
    fn bounded_input(&self) -> bool {
        true
    }

    /// What the implementation is held to on candidate `input` of `seed`, the reference having
    /// answered `reference` (`None`: not run). Default: [`op_expectation`].
    fn expectation(
        &self,
        seed: &OpSeed,
        input: &Value,
        reference: &Outcome,
    ) -> Option<Expectation> {
        op_expectation(self, seed, input, reference)
    }

    /// Whether [`Fuzzable::random_edit`] reads the encoded input (JSON-text edits): building
    /// it re-signs, so the others are spared it.
    fn edits_text(&self) -> bool {
        false
    }

    /// The part of an ok `output` an implementation is held to: what a vector of the
    /// operation would pin (default: all of it). The reference's answer is the fuzzer's
    /// expectation, but its free text is not.
    fn comparable(&self, output: &Value) -> Value {
        output.clone()
    }
}

/// A candidate's changes: its signing mode, then token mutations (`dct.verify`) or edits.
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    /// How signed structures are treated.
    pub signing: Signing,
    /// Token mutations ([`Grading::ByStep`]).
    pub mutations: Vec<Mutation>,
    /// Edits (the others).
    pub edits: Vec<Edit>,
}

/// Re-signed in 7 of 10 candidates, kept in the others.
pub(crate) fn mostly_resigned(rng: &mut dyn Entropy) -> Signing {
    if rng.below(10) < 7 {
        Signing::Resign
    } else {
        Signing::Keep
    }
}

/// The fuzz families, one module each, in registry order, with the operations each module
/// implements: what is fuzzed is what the catalogue says (`spec/data/operations.json`, a
/// row's `fuzz`), so an operation is fuzzed when its row names its family and the family's
/// module lists its [`Fuzzable`].
pub static FAMILIES: &[(&str, &[&dyn Fuzzable])] = &[
    ("token", token::FUZZABLE),
    ("revocation", revocation::FUZZABLE),
    ("canonical", canonical::FUZZABLE),
    ("glob", glob::FUZZABLE),
    ("checks", checks::FUZZABLE),
    ("signed", signed::FUZZABLE),
    ("mcp", mcp::FUZZABLE),
];

/// Every fuzzable operation: family by family in [`FAMILIES`] order, each family's operations
/// in catalogue order — the catalogued operations whose row names the family, found in its
/// module's list by name.
pub static REGISTRY: std::sync::LazyLock<Vec<&'static dyn Fuzzable>> =
    std::sync::LazyLock::new(|| {
        let docs = crate::operations::docs();
        FAMILIES
            .iter()
            .flat_map(|&(family, fuzzable)| {
                docs.iter()
                    .filter(move |d| d.facts.fuzz.as_deref() == Some(family))
                    .filter_map(move |d| fuzzable.iter().copied().find(|o| o.name() == d.name))
            })
            .collect()
    });

/// The registered operation named `op`.
pub fn operation(op: &str) -> Option<&'static dyn Fuzzable> {
    REGISTRY.iter().copied().find(|o| o.name() == op)
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
pub(crate) fn malformed_now_outcomes<F: Fuzzable + ?Sized>(
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
    let denial = comparable_outcome(fz, &delegateos_reference::ops::run(fz.name(), &at_seed_now));
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
        // As the judge compares (a corpus case's `score: 0` is the reference's `0.0`, its code
        // carries a stage the reference's does not).
        if open.iter().any(|o| same_outcome(o, &first)) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_every_fuzzed_operation() {
        let names: Vec<&str> = REGISTRY.iter().map(|o| o.name()).collect();
        assert_eq!(
            names,
            [
                "dct.verify",
                "revocation.from_json",
                "json.canonicalize",
                "glob.match",
                "check.run",
                "output.verify",
                "contract.verify_signature",
                "attestation.verify",
                "mcp.call",
            ]
        );
        assert_eq!(*OPERATIONS, names);
        assert_eq!(
            operation("dct.verify").map(|o| o.grading()),
            Some(Grading::ByStep)
        );
        assert!(REGISTRY[1..]
            .iter()
            .all(|o| o.grading() == Grading::ByAnswer));
    }

    /// A catalogue row's fuzz family is a module of [`FAMILIES`] that implements the
    /// operation, and every implementation is named by its row.
    #[test]
    fn the_catalogue_and_the_families_agree() {
        for d in crate::operations::docs() {
            let Some(family) = d.facts.fuzz.as_deref() else {
                continue;
            };
            let module = FAMILIES.iter().find(|(f, _)| *f == family);
            assert!(
                module.is_some_and(|(_, ops)| ops.iter().any(|o| o.name() == d.name)),
                "{}: its family {family} has no Fuzzable of that name",
                d.name
            );
        }
        for (family, ops) in FAMILIES {
            for o in *ops {
                assert_eq!(
                    crate::operations::facts(o.name()).and_then(|f| f.fuzz.as_deref()),
                    Some(*family),
                    "{}: its catalogue row does not name the family {family}",
                    o.name()
                );
            }
        }
    }
}
