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

/// The operations `fuzz --op` accepts (`dct.verify` is the token fuzzer of
/// [`crate::fuzz::diff`]; the others are this module's).
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

/// The view of `op`'s `input` that its mutator edits.
pub fn view(op: &str, input: &Value) -> Value {
    match op {
        "revocation.from_json" => revocation::view(input),
        "mcp.call" => mcp::view(input),
        _ => input.clone(),
    }
}

/// The part of `op`'s ok `output` an implementation is held to: what a vector of `op` would
/// pin. The reference's answer is the fuzzer's expectation, but its free text is not: for
/// `mcp.call` this drops the bodies that carry a `detail` (spec/mcp-proxy.md §6).
pub fn comparable(op: &str, output: &Value) -> Value {
    match op {
        "mcp.call" => mcp::comparable(output),
        _ => output.clone(),
    }
}

/// The input of `op` for an edited `view`.
pub fn encode(op: &str, view: &Value, signing: Signing, keys: &Keys) -> Value {
    match op {
        "revocation.from_json" => revocation::encode(view, signing, keys),
        "contract.verify_signature" | "attestation.verify" => signed::encode(view, signing, keys),
        "mcp.call" => mcp::encode(view, signing, keys),
        _ => view.clone(),
    }
}

/// How a new candidate of `op` treats signatures.
pub fn random_signing(op: &str, rng: &mut impl Entropy) -> Signing {
    match op {
        "revocation.from_json" | "contract.verify_signature" | "mcp.call" => {
            if rng.below(10) < 7 {
                Signing::Resign
            } else {
                Signing::Keep
            }
        }
        "attestation.verify" => match rng.below(10) {
            0..=2 => Signing::Keep,
            3..=5 => Signing::Resign,
            _ => Signing::Rehash,
        },
        _ => Signing::Keep,
    }
}

/// One structure-aware edit of `op`'s `view` (whose encoded input is `input`).
pub fn random_edit(op: &str, rng: &mut impl Entropy, view: &Value, input: &Value) -> Option<Edit> {
    match op {
        "json.canonicalize" => canonical::random_edit(rng, input),
        "revocation.from_json" => revocation::random_edit(rng, view, input),
        "glob.match" => glob::random_edit(rng, view),
        "check.run" | "output.verify" => checks::random_edit(rng, view),
        "contract.verify_signature" | "attestation.verify" => signed::random_edit(rng, view),
        "mcp.call" => mcp::random_edit(rng, view),
        _ => None,
    }
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
