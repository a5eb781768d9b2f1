//! Differential fuzzing of the operations beyond `dct.verify` that take untrusted input
//! (`fuzz --op`): one module per concern.
//!
//! | module | concern |
//! |---|---|
//! | [`edit`] | replayable structure-aware edits of a JSON document |
//! | [`text`] | edits of JSON text (numbers, escapes, duplicate keys, nesting, unicode) |
//! | [`sign`] | re-signing with the published test keys |
//! | [`revocation`], [`canonical`], [`glob`], [`checks`], [`signed`], [`mcp`] | per operation: the decoded view a mutator edits, its dictionary, and the encoding back to an input |
//! | the harness's `fuzz::ops::engine`, `delegateos_inprocess::fuzz` | the loops: mutate, run both sides, compare, deduplicate, minimize, grade |
//!
//! Each operation's input is decoded into a *view* (e.g. a revocation list's JSON text parsed
//! into its entries, an MCP call's token decoded), edited, encoded back (re-signed when the
//! candidate says so), then text edits apply to the encoded input's JSON-text fields.

pub mod canonical;
pub mod checks;
pub mod edit;
pub mod glob;
pub mod mcp;
pub mod revocation;
pub mod sign;
pub mod signed;
pub mod text;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::fuzz::entropy::Entropy;
use crate::keys::Keys;
use edit::Edit;

/// The fuzzed operations, as `fuzz --op` and `delegateos_inprocess::fuzz` take them:
/// `dct.verify`, whose mutator is [`crate::fuzz::mutate`], then [`REGISTRY`]'s.
pub const OPERATIONS: &[&str] = &[
    "dct.verify",
    "revocation.from_json",
    "json.canonicalize",
    "glob.match",
    "check.run",
    "output.verify",
    "contract.verify_signature",
    "attestation.verify",
    "mcp.call",
];

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

/// A fuzzable operation (other than `dct.verify`, whose token mutator is [`super::mutate`]):
/// what its mutator edits, how an edited view becomes an input again (re-signed per the
/// candidate's signing mode), how candidates treat signatures, and the part of the reference's
/// output an implementation is held to. One implementation per operation, in the module of
/// its family; [`REGISTRY`] lists them.
pub trait Fuzzable: Sync {
    /// The operation's catalogue name.
    fn name(&self) -> &'static str;

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
    /// operation that [`Fuzzable::edits_text`]; `null` otherwise).
    fn random_edit(&self, rng: &mut dyn Entropy, view: &Value, input: &Value) -> Option<Edit>;

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

/// Re-signed in 7 of 10 candidates, kept in the others.
pub(crate) fn mostly_resigned(rng: &mut dyn Entropy) -> Signing {
    if rng.below(10) < 7 {
        Signing::Resign
    } else {
        Signing::Keep
    }
}

/// Every fuzzable operation beyond `dct.verify`, in [`OPERATIONS`] order.
pub static REGISTRY: &[&dyn Fuzzable] = &[
    &revocation::FromJson,
    &canonical::Canonicalize,
    &glob::Match,
    &checks::Run,
    &checks::OutputVerify,
    &signed::ContractSignature,
    &signed::Attestation,
    &mcp::Call,
];

/// The registered operation named `op`.
pub fn operation(op: &str) -> Option<&'static dyn Fuzzable> {
    REGISTRY.iter().copied().find(|o| o.name() == op)
}

/// The view of `op`'s `input` that its mutator edits.
pub fn view(op: &str, input: &Value) -> Value {
    operation(op).map_or_else(|| input.clone(), |o| o.view(input))
}

/// The part of `op`'s ok `output` an implementation is held to ([`Fuzzable::comparable`]).
pub fn comparable(op: &str, output: &Value) -> Value {
    operation(op).map_or_else(|| output.clone(), |o| o.comparable(output))
}

/// The input of `op` for an edited `view`.
pub fn encode(op: &str, view: &Value, signing: Signing, keys: &Keys) -> Value {
    operation(op).map_or_else(|| view.clone(), |o| o.encode(view, signing, keys))
}

/// How a new candidate of `op` treats signatures.
pub fn random_signing(op: &str, rng: &mut impl Entropy) -> Signing {
    operation(op).map_or(Signing::Keep, |o| o.random_signing(rng))
}

/// Whether `op`'s mutator reads the encoded input ([`Fuzzable::edits_text`]).
pub fn edits_text(op: &str) -> bool {
    operation(op).is_some_and(|o| o.edits_text())
}

/// One structure-aware edit of `op`'s `view` (whose encoded input is `input`).
pub fn random_edit(op: &str, rng: &mut impl Entropy, view: &Value, input: &Value) -> Option<Edit> {
    operation(op).and_then(|o| o.random_edit(rng, view, input))
}

/// Builds the input of a candidate: the seed's view, edited, encoded, then text-edited.
pub fn build(op: &str, seed_view: &Value, edits: &[Edit], signing: Signing, keys: &Keys) -> Value {
    let mut v = seed_view.clone();
    for e in edits.iter().filter(|e| !e.is_text()) {
        edit::apply(&mut v, e);
    }
    let mut input = encode(op, &v, signing, keys);
    for e in edits.iter().filter(|e| e.is_text()) {
        edit::apply_text(&mut input, e);
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_every_fuzzed_operation_but_the_token_fuzzers() {
        let names: Vec<&str> = REGISTRY.iter().map(|o| o.name()).collect();
        assert_eq!(names, OPERATIONS[1..].to_vec());
        assert_eq!(OPERATIONS[0], "dct.verify");
    }
}
