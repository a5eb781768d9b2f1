//! `contract.verify_signature` and `attestation.verify`: field changes of contracts and
//! attestations, re-signed under the signer's published key (or not), with an attestation's
//! `outputHash` recomputed when the candidate asks for it.

use serde_json::{json, Value};

use super::edit::{self, Edit};
use super::sign;
use super::Signing;
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::Seg;
use crate::keys::Keys;
use delegateos_reference::canonical::canonical_bytes;
use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::b64u_encode;

/// Re-signs the input's contract (under `issuer`) and attestation (under `principal`);
/// `Rehash` first sets the attestation's `result.outputHash` to its output's digest.
pub fn encode(view: &Value, signing: Signing, keys: &Keys) -> Value {
    let mut input = view.clone();
    if signing == Signing::Keep {
        return input;
    }
    if let Some(att) = input.get_mut("attestation") {
        if signing == Signing::Rehash {
            let hash = att
                .get("result")
                .and_then(|r| r.get("output"))
                .and_then(|o| canonical_bytes(o).ok())
                .map(|b| b64u_encode(&blake2b256(&b)));
            if let (Some(h), Some(r)) = (hash, att.get_mut("result").and_then(Value::as_object_mut))
            {
                r.insert("outputHash".to_owned(), Value::from(h));
            }
        }
        sign::sign_object(att, "principal", keys);
    }
    if let Some(c) = input.get_mut("contract") {
        sign::sign_object(c, "issuer", keys);
    }
    input
}

fn strings(items: &[&str]) -> Vec<Value> {
    items.iter().map(|s| Value::from(*s)).collect()
}

fn dictionary(key: &str) -> Vec<Value> {
    let keys = Keys::fixed();
    match key {
        "id" => strings(&[
            "ct_00000000c0de",
            "ct_00000000c0df",
            "CT_00000000C0DE",
            "ct_0000",
            "att_0000000000a1",
            "att_0000000000a2",
            "",
        ]),
        "contractId" => strings(&["ct_00000000c0de", "ct_00000000c0df", "ct_x", ""]),
        "delegationId" => strings(&["del_000000000001", "del_000000000002", "del_x"]),
        "version" => vec![json!("0.1"), json!("0.2"), json!("1"), json!(0.1)],
        "issuer" | "principal" => sign::principals(&keys),
        "createdAt" | "deadline" => sign::timestamps(),
        "costMicrocents" | "maxBudgetMicrocents" | "durationMs" | "maxChainDepth" => {
            sign::integers()
        }
        "success" => vec![json!(true), json!(false), json!(1), json!("true")],
        "type" => strings(&["completion", "delegation", "Completion", "object", "string"]),
        "method" => strings(&[
            "schema_match",
            "deterministic_check",
            "composite",
            "llm_judge",
            "",
        ]),
        "requiredCapabilities" => vec![
            json!(["docs:read"]),
            json!(["docs:read", "docs:read"]),
            json!(["docs"]),
            json!([":"]),
            json!(["docs:read:extra"]),
            json!([]),
        ],
        "outputHash" => vec![
            Value::from(b64u_encode(&blake2b256(b"{}"))),
            Value::from(""),
            Value::from(b64u_encode(&[0u8; 32])),
        ],
        "output" => vec![
            json!({"summary": "ok: three documents summarised"}),
            json!({"summary": "ok"}),
            json!({"summary": "no"}),
            json!({"summary": 1}),
            json!({}),
            json!("ok"),
            json!(null),
        ],
        "summary" => strings(&["ok", "ok\n", "", "no", "ok: x"]),
        "childAttestations" => vec![json!([]), json!(["att_0000000000a2"]), json!([{}])],
        "signature" => vec![
            json!(""),
            json!("AAAA"),
            Value::from(b64u_encode(&[0u8; 64])),
        ],
        "schema" | "outputSchema" => vec![
            json!({"type": "object"}),
            json!({"required": ["summary"]}),
            json!({"properties": {"summary": {"type": "integer"}}}),
            json!({"type": "nonsense"}),
            json!(true),
        ],
        "pattern" => strings(&["^ok", "^no", "[", "(?i)OK"]),
        "maxLength" | "minLength" => sign::integers(),
        _ => Vec::new(),
    }
}

/// Members that decide a verdict: edited more often than the rest.
const SEMANTIC: &[&[&str]] = &[
    &["attestation", "result", "costMicrocents"],
    &["attestation", "result", "output"],
    &["attestation", "result", "success"],
    &["attestation", "contractId"],
    &["attestation", "principal"],
    &["contract", "constraints", "maxBudgetMicrocents"],
    &["contract", "issuer"],
    &["contract", "id"],
    &["contract", "verification", "method"],
];

/// One structure-aware edit of the contract or attestation: one in four adds an unknown
/// member to the signed object itself (a member its signature may or may not cover), one in
/// four sets a verdict-deciding member from the dictionary, the rest are generic.
pub fn random_edit(rng: &mut impl Entropy, view: &Value) -> Option<Edit> {
    if rng.below(4) == 0 {
        let present: Vec<&&[&str]> = SEMANTIC
            .iter()
            .filter(|p| {
                let path: Vec<Seg> = p.iter().map(|k| Seg::Key((*k).to_owned())).collect();
                edit::get(view, &path).is_some()
            })
            .collect();
        if let Some(p) = rng.pick(&present) {
            let key = p.last().copied().unwrap_or("");
            let dict = dictionary(key);
            if let Some(value) = rng.pick(&dict) {
                return Some(Edit::Set {
                    path: p.iter().map(|k| Seg::Key((*k).to_owned())).collect(),
                    value: value.clone(),
                });
            }
        }
    }
    if rng.below(3) == 0 {
        let objects: Vec<&str> = ["contract", "attestation"]
            .into_iter()
            .filter(|k| view.get(*k).is_some_and(Value::is_object))
            .collect();
        if let Some(obj) = rng.pick(&objects) {
            let name = rng
                .pick(&["note", "x-extension", "metadata", "signatures"])
                .copied()
                .unwrap_or("note");
            return Some(Edit::Set {
                path: vec![Seg::Key((*obj).to_owned()), Seg::Key(name.to_owned())],
                value: json!("unsigned"),
            });
        }
    }
    edit::random(rng, view, &[], &dictionary)
}

/// `contract.verify_signature`: the contract re-signed after its edits.
#[derive(Debug)]
pub struct ContractSignature;

impl super::Fuzzable for ContractSignature {
    fn name(&self) -> &'static str {
        "contract.verify_signature"
    }

    fn encode(&self, view: &Value, signing: Signing, keys: &Keys) -> Value {
        encode(view, signing, keys)
    }

    fn random_signing(&self, rng: &mut dyn Entropy) -> Signing {
        super::mostly_resigned(rng)
    }

    fn random_edit(&self, mut rng: &mut dyn Entropy, view: &Value, _input: &Value) -> Option<Edit> {
        random_edit(&mut rng, view)
    }
}

/// `attestation.verify`: the attestation kept, re-signed, or rehashed (its `outputHash`
/// recomputed) and re-signed, in 3, 3 and 4 of 10 candidates.
#[derive(Debug)]
pub struct Attestation;

impl super::Fuzzable for Attestation {
    fn name(&self) -> &'static str {
        "attestation.verify"
    }

    fn encode(&self, view: &Value, signing: Signing, keys: &Keys) -> Value {
        encode(view, signing, keys)
    }

    fn random_signing(&self, rng: &mut dyn Entropy) -> Signing {
        match rng.below(10) {
            0..=2 => Signing::Keep,
            3..=5 => Signing::Resign,
            _ => Signing::Rehash,
        }
    }

    fn random_edit(&self, mut rng: &mut dyn Entropy, view: &Value, _input: &Value) -> Option<Edit> {
        random_edit(&mut rng, view)
    }
}

/// The operations this family fuzzes (the registry takes those whose catalogue row names
/// `signed`).
pub static FUZZABLE: &[&dyn super::Fuzzable] = &[&ContractSignature, &Attestation];
