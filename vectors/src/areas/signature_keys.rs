//! Groups `attestation/signature-key` and `contract/signature-key`: signature verification
//! under a CALLER-GIVEN key, the shape of the spec's own functions
//! `verifyAttestationSignature(attestation, signerPublicKey)` (architecture §5.1) and
//! `verifyContractSignature(contract, issuerPublicKey)` (architecture §8) — decision D42.
//!
//! `attestation.verify` / `contract.verify_signature` always verify under the claimed
//! `principal` / `issuer`, so a library whose function accepts a signature under a key other
//! than the one passed cannot fail them. Here the key is an input: every case says which key
//! signed and which key is passed, and the expectation is "does the signature verify under the
//! passed key" (D42), read off the construction.
//!
//! Group `contract/bind-spec` (binding exactly as §5.2 states it, D43) is in
//! [`super::binding_spec`] and opened from [`contract`].

use serde_json::{json, Map, Value};

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::b64u_encode;

use super::contract::{set, sign_with, unsigned_contract};
use super::dct_support::{CONTRACT, DELEGATION};
use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};

/// The flag of the one ambiguous case class: a signature by Q over an object naming P,
/// verified under Q.
const SIGNER_NOT_PRINCIPAL: &str = "SignerKeyNotPrincipal";
/// The flag of malformed inputs to a boolean verification function.
const BOOLEAN_MALFORMED: &str = "BooleanVerifyMalformed";

fn define_flags(g: &mut Group) {
    g.define_flag(
        SIGNER_NOT_PRINCIPAL,
        "AMBIGUITY",
        "D42",
        "The signature was made by key Q over an object whose principal/issuer names P, and Q is the key passed: the spec function verifies under the key it is given (true); also requiring key = principal/issuer (false) is acceptable.",
        "A caller that passes the signer's key and then trusts the object's principal/issuer field misattributes the object; a caller comparing the key itself is unaffected.",
    );
    g.define_flag(
        BOOLEAN_MALFORMED,
        "AMBIGUITY",
        "D42",
        "A boolean verification function given a key that is not a principal id, or an object that cannot carry a signature: `valid: false` and a refusal with the domain's code are both acceptable.",
        "Only the way the failure is reported differs; nothing verifies.",
    );
}

fn valid(v: bool) -> Expectation {
    Expectation::valid(json!({ "valid": v }))
}

/// `valid: v` first, the other reading (`valid: !v`) acceptable (D42).
fn key_reading(v: bool) -> Expectation {
    Expectation::acceptable(
        "D42",
        vec![
            Expected::valid(json!({ "valid": v })),
            Expected::valid(json!({ "valid": !v })),
        ],
    )
}

/// A malformed key: `valid: false`, or a refusal as `invalid_signature` (D42).
fn bad_key() -> Expectation {
    Expectation::acceptable(
        "D42",
        vec![
            Expected::valid(json!({ "valid": false })),
            Expected::invalid("invalid_signature", "D42/key"),
        ],
    )
}

/// A malformed object: the domain's code, or `valid: false` (D42).
fn bad_object(code: &str, stage: &str) -> Expectation {
    Expectation::acceptable(
        "D42",
        vec![
            Expected::invalid(code, stage),
            Expected::valid(json!({ "valid": false })),
        ],
    )
}

/// Keys that are not principal ids of `k` (descriptions, values).
fn malformed_keys(k: &Key) -> Vec<(&'static str, Value)> {
    let hex_key = hex::encode(k.keypair().public_key());
    vec![
        ("the key is not base64url at all", json!("not a key")),
        (
            "the signer's principal id with `=` padding appended",
            json!(format!("{}=", k.principal)),
        ),
        (
            "the signer's public key as 64 hex characters instead of a principal id",
            json!(hex_key),
        ),
        (
            "the signer's principal id truncated to 42 characters",
            json!(k.principal.chars().take(42).collect::<String>()),
        ),
        ("the empty string", json!("")),
    ]
}

/// Copy of `v` with its members inserted in reverse order (the signature covers the canonical
/// form, so member order is irrelevant).
fn reordered(v: &Value) -> Value {
    let mut m = Map::new();
    if let Some(obj) = v.as_object() {
        for (k, x) in obj.iter().rev() {
            m.insert(k.clone(), x.clone());
        }
    }
    Value::Object(m)
}

fn output_hash(output: &Value) -> String {
    let text = canonicalize(output).unwrap_or_default();
    b64u_encode(&blake2b256(text.as_bytes()))
}

/// An unsigned completion attestation whose `principal` is `principal`.
fn unsigned_attestation(principal: &Key) -> Value {
    let output = json!({"summary": "ok: three documents summarised"});
    json!({
        "id": "att_0000000000a1",
        "version": "0.1",
        "contractId": CONTRACT,
        "delegationId": DELEGATION,
        "principal": principal.principal,
        "createdAt": "2026-03-01T11:00:00Z",
        "type": "completion",
        "result": {
            "success": true,
            "output": output,
            "outputHash": output_hash(&output),
            "costMicrocents": 1000,
            "durationMs": 1500
        },
        "childAttestations": []
    })
}

/// Adds group `signature-key` to area `attestation`.
pub fn attestation(area: &mut Area) {
    let k = area.keys().clone();
    let g = area.group(
        "signature-key",
        "attestation.verify_signature: verifyAttestationSignature(attestation, signerPublicKey) (architecture §5.1) — the signature verifies under the key passed, whatever `principal` says (§7.2, D42).",
    );
    define_flags(g);
    signature_key_cases(
        g,
        &k,
        &SignedKind {
            op: "attestation.verify_signature",
            object: "attestation",
            signer_field: "principal",
            reqs: &["ATT-VERIFY-SIGNATURE-KEY", "ATT-SIGN-PAYLOAD"],
            malformed: "malformed_attestation",
            stage: "7.3/shape",
            unsigned: unsigned_attestation,
            tamper: ("result/costMicrocents", json!(999)),
        },
    );
}

/// Adds groups `signature-key` and `bind-spec` to area `contract`.
pub fn contract(area: &mut Area) {
    let k = area.keys().clone();
    let g = area.group(
        "signature-key",
        "contract.verify_signature_with_key: verifyContractSignature(contract, issuerPublicKey) (architecture §8) — the signature verifies under the key passed, whatever `issuer` says (§5.1, D42).",
    );
    define_flags(g);
    signature_key_cases(
        g,
        &k,
        &SignedKind {
            op: "contract.verify_signature_with_key",
            object: "contract",
            signer_field: "issuer",
            reqs: &["CONTRACT-VERIFY-SIGNATURE-KEY", "CONTRACT-SIGN-PAYLOAD"],
            malformed: "malformed_contract",
            stage: "5.1",
            unsigned: unsigned_contract,
            tamper: ("constraints/maxBudgetMicrocents", json!(500_001)),
        },
    );
}

/// What differs between the attestation and the contract variant.
struct SignedKind {
    op: &'static str,
    object: &'static str,
    signer_field: &'static str,
    reqs: &'static [&'static str],
    malformed: &'static str,
    stage: &'static str,
    unsigned: fn(&Key) -> Value,
    /// A signed member and a different value for it (tampering after signing).
    tamper: (&'static str, Value),
}

#[allow(clippy::too_many_lines)] // One case list.
fn signature_key_cases(g: &mut Group, k: &Keys, s: &SignedKind) {
    let inp = |obj: &Value, key: &Value| json!({ s.object: obj, "publicKey": key });
    let key = |x: &Key| json!(x.principal);
    let f = s.signer_field;
    let o = s.object;
    // P = alice names herself and signs.
    let p = &k.alice;
    let good = sign_with(&(s.unsigned)(p), p);
    let reqs = s.reqs;
    let case = |g: &mut Group, n: u16, d: String, flags: &[&str], input: Value, e: Expectation| {
        g.case(n, &d, reqs, flags, s.op, input, e);
    };

    case(
        g,
        1,
        format!("The {o} is signed by its {f} alice and alice's key is passed: valid."),
        &[],
        inp(&good, &key(p)),
        valid(true),
    );
    case(g, 2, format!("The {o} is signed by its {f} alice and bob's key is passed: not valid (the key passed decides, not the {f})."), &[], inp(&good, &key(&k.bob)), valid(false));
    case(
        g,
        3,
        format!("The {o} is signed by its {f} alice and mallory's key is passed: not valid."),
        &[],
        inp(&good, &key(&k.mallory)),
        valid(false),
    );
    case(
        g,
        4,
        format!("The {o} is signed by its {f} alice and root's key is passed: not valid."),
        &[],
        inp(&good, &key(&k.root)),
        valid(false),
    );
    case(
        g,
        5,
        format!("The {o} is signed by its {f} alice and other_root's key is passed: not valid."),
        &[],
        inp(&good, &key(&k.other_root)),
        valid(false),
    );

    // Signed by mallory while the signer field names alice.
    let forged = sign_with(&(s.unsigned)(p), &k.mallory);
    case(
        g,
        10,
        format!("Signed by mallory while `{f}` names alice, alice's key passed: not valid."),
        &[],
        inp(&forged, &key(p)),
        valid(false),
    );
    case(g, 11, format!("Signed by mallory while `{f}` names alice, mallory's key passed: the signature verifies under the key given (D42); refusing because the key is not the {f}'s is acceptable."), &[SIGNER_NOT_PRINCIPAL], inp(&forged, &key(&k.mallory)), key_reading(true));
    case(g, 12, format!("Signed by mallory while `{f}` names alice, bob's key passed: not valid under either reading."), &[], inp(&forged, &key(&k.bob)), valid(false));

    // bob names himself and signs: the key passed, not a fixed one, decides.
    let bob_obj = sign_with(&(s.unsigned)(&k.bob), &k.bob);
    case(
        g,
        13,
        format!("An {o} by bob, signed by bob, bob's key passed: valid."),
        &[],
        inp(&bob_obj, &key(&k.bob)),
        valid(true),
    );
    case(
        g,
        14,
        format!("An {o} by bob, signed by bob, alice's key passed: not valid."),
        &[],
        inp(&bob_obj, &key(p)),
        valid(false),
    );

    // Changed after signing.
    let (path, value) = &s.tamper;
    let tampered = set(&good, path, value.clone());
    case(
        g,
        20,
        format!("`{path}` changed after alice signed, alice's key passed: not valid."),
        &[],
        inp(&tampered, &key(p)),
        valid(false),
    );
    let renamed = set(&good, f, json!(k.bob.principal));
    case(g, 21, format!("`{f}` changed from alice to bob after alice signed, bob's key passed: not valid (the {f} is signed)."), &[], inp(&renamed, &key(&k.bob)), valid(false));
    case(g, 22, format!("`{f}` changed from alice to bob after alice signed, alice's key passed: not valid (the payload changed)."), &[], inp(&renamed, &key(p)), valid(false));
    let mut swapped = good.clone();
    if let (Some(m), Some(sig)) = (swapped.as_object_mut(), bob_obj.get("signature")) {
        m.insert("signature".to_owned(), sig.clone());
    }
    case(g, 23, format!("alice's {o} carrying the signature of bob's {o}, bob's key passed: not valid (a signature over other content)."), &[], inp(&swapped, &key(&k.bob)), valid(false));
    case(g, 24, format!("Members of the signed {o} in reverse order, alice's key passed: valid (the signature covers the canonical form)."), &[], inp(&reordered(&good), &key(p)), valid(true));

    // Keys that are not principal ids.
    for (i, (d, bad)) in malformed_keys(p).into_iter().enumerate() {
        let n = 30 + u16::try_from(i).unwrap_or(0);
        case(g, n, format!("alice's {o} with a key that is not a principal id ({d}): nothing verifies; `valid: false` or a refusal."), &[BOOLEAN_MALFORMED], inp(&good, &bad), bad_key());
    }

    // Objects that cannot carry a signature.
    let no_sig = {
        let mut v = good.clone();
        if let Some(m) = v.as_object_mut() {
            m.remove("signature");
        }
        v
    };
    case(
        g,
        40,
        format!(
            "alice's {o} without `signature`: {} or `valid: false`.",
            s.malformed
        ),
        &[BOOLEAN_MALFORMED],
        inp(&no_sig, &key(p)),
        bad_object(s.malformed, s.stage),
    );
    let bad_sig = set(&good, "signature", json!("!!not base64url!!"));
    case(
        g,
        41,
        format!(
            "`signature` is not base64url: {} or `valid: false`.",
            s.malformed
        ),
        &[BOOLEAN_MALFORMED],
        inp(&bad_sig, &key(p)),
        bad_object(s.malformed, s.stage),
    );
    let short_sig = set(&good, "signature", json!("AAAA"));
    case(
        g,
        42,
        format!(
            "`signature` decodes to 3 bytes, not 64: {} or `valid: false`.",
            s.malformed
        ),
        &[BOOLEAN_MALFORMED],
        inp(&short_sig, &key(p)),
        bad_object(s.malformed, s.stage),
    );
    case(
        g,
        43,
        format!(
            "The {o} is a JSON string, not an object: {} or `valid: false`.",
            s.malformed
        ),
        &[BOOLEAN_MALFORMED],
        inp(&json!("not an object"), &key(p)),
        bad_object(s.malformed, s.stage),
    );
}
