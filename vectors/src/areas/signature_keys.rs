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

use serde_json::{json, Value};

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::b64u_encode;

use super::contract::{set, sign_with, unsigned_contract};
use super::dct_support::{CONTRACT, DELEGATION};
use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};
use crate::tables::Ids;

/// The flag of the one ambiguous case class: a signature by Q over an object naming P,
/// verified under Q.
const SIGNER_NOT_PRINCIPAL: &str = "SignerKeyNotPrincipal";
/// The flag of malformed inputs to a boolean verification function.
const BOOLEAN_MALFORMED: &str = "BooleanVerifyMalformed";

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

/// What the cases of one kind start from: alice's object signed by alice, the same object
/// signed by mallory, and bob's object signed by bob.
struct Fx<'a> {
    k: &'a Keys,
    s: &'a SignedKind,
    good: Value,
    forged: Value,
    bob_obj: Value,
}

impl Fx<'_> {
    /// The description for this kind: `{o}` the object, `{f}` the signer field, `{path}` the
    /// tampered member, `{malformed}` the domain's malformed code.
    fn describe(&self, template: &str) -> String {
        template
            .replace("{o}", self.s.object)
            .replace("{f}", self.s.signer_field)
            .replace("{path}", self.s.tamper.0)
            .replace("{malformed}", self.s.malformed)
    }

    /// The good object with `m` set to `v` (signature unchanged).
    fn with(&self, m: &str, v: Value) -> Value {
        set(&self.good, m, v)
    }
}

/// The good object carrying the signature of bob's object.
fn swapped(x: &Fx) -> Value {
    let mut swapped = x.good.clone();
    if let (Some(m), Some(sig)) = (swapped.as_object_mut(), x.bob_obj.get("signature")) {
        m.insert("signature".to_owned(), sig.clone());
    }
    swapped
}

/// The good object without `signature`.
fn no_signature(x: &Fx) -> Value {
    let mut v = x.good.clone();
    if let Some(m) = v.as_object_mut() {
        m.remove("signature");
    }
    v
}

/// What verification under the passed key gives: valid or not, valid or not with the other
/// reading acceptable (D42), or a malformed object.
#[derive(Clone, Copy)]
enum Verdict {
    Valid(bool),
    KeyReading(bool),
    BadObject,
}

const NOT_VALID: Verdict = Verdict::Valid(false);

/// A part of the fixture.
type Part = fn(&Fx) -> Value;
const ALICE: Part = |x| json!(x.k.alice.principal);
const BOB: Part = |x| json!(x.k.bob.principal);

/// Number, description template (see [`Fx::describe`]), flags, object, key passed, verdict.
type KeyRow = (u16, &'static str, Ids, Part, Part, Verdict);

/// Who signed and which key is passed, and changes after signing.
#[rustfmt::skip]
const SIGNERS: &[KeyRow] = &[
    (1, "The {o} is signed by its {f} alice and alice's key is passed: valid.", &[], |x| x.good.clone(), ALICE, Verdict::Valid(true)),
    (2, "The {o} is signed by its {f} alice and bob's key is passed: not valid (the key passed decides, not the {f}).", &[], |x| x.good.clone(), BOB, NOT_VALID),
    (3, "The {o} is signed by its {f} alice and mallory's key is passed: not valid.", &[], |x| x.good.clone(), |x| json!(x.k.mallory.principal), NOT_VALID),
    (4, "The {o} is signed by its {f} alice and root's key is passed: not valid.", &[], |x| x.good.clone(), |x| json!(x.k.root.principal), NOT_VALID),
    (5, "The {o} is signed by its {f} alice and other_root's key is passed: not valid.", &[], |x| x.good.clone(), |x| json!(x.k.other_root.principal), NOT_VALID),
    // Signed by mallory while the signer field names alice.
    (10, "Signed by mallory while `{f}` names alice, alice's key passed: not valid.", &[], |x| x.forged.clone(), ALICE, NOT_VALID),
    (11, "Signed by mallory while `{f}` names alice, mallory's key passed: the signature verifies under the key given (D42); refusing because the key is not the {f}'s is acceptable.",
        &[SIGNER_NOT_PRINCIPAL], |x| x.forged.clone(), |x| json!(x.k.mallory.principal), Verdict::KeyReading(true)),
    (12, "Signed by mallory while `{f}` names alice, bob's key passed: not valid under either reading.", &[], |x| x.forged.clone(), BOB, NOT_VALID),
    // bob names himself and signs: the key passed, not a fixed one, decides.
    (13, "An {o} by bob, signed by bob, bob's key passed: valid.", &[], |x| x.bob_obj.clone(), BOB, Verdict::Valid(true)),
    (14, "An {o} by bob, signed by bob, alice's key passed: not valid.", &[], |x| x.bob_obj.clone(), ALICE, NOT_VALID),
    // Changed after signing.
    (20, "`{path}` changed after alice signed, alice's key passed: not valid.", &[], |x| x.with(x.s.tamper.0, x.s.tamper.1.clone()), ALICE, NOT_VALID),
    (21, "`{f}` changed from alice to bob after alice signed, bob's key passed: not valid (the {f} is signed).", &[],
        |x| x.with(x.s.signer_field, json!(x.k.bob.principal)), BOB, NOT_VALID),
    (22, "`{f}` changed from alice to bob after alice signed, alice's key passed: not valid (the payload changed).", &[],
        |x| x.with(x.s.signer_field, json!(x.k.bob.principal)), ALICE, NOT_VALID),
    (23, "alice's {o} carrying the signature of bob's {o}, bob's key passed: not valid (a signature over other content).", &[], swapped, BOB, NOT_VALID),
    // 24 retired (issue 48): member order is lost when the vector file is written.
];

/// Objects that cannot carry a signature.
#[rustfmt::skip]
const MALFORMED_OBJECTS: &[KeyRow] = &[
    (40, "alice's {o} without `signature`: {malformed} or `valid: false`.", &[BOOLEAN_MALFORMED], no_signature, ALICE, Verdict::BadObject),
    (41, "`signature` is not base64url: {malformed} or `valid: false`.", &[BOOLEAN_MALFORMED],
        |x| x.with("signature", json!("!!not base64url!!")), ALICE, Verdict::BadObject),
    (42, "`signature` decodes to 3 bytes, not 64: {malformed} or `valid: false`.", &[BOOLEAN_MALFORMED],
        |x| x.with("signature", json!("AAAA")), ALICE, Verdict::BadObject),
    (43, "The {o} is a JSON string, not an object: {malformed} or `valid: false`.", &[BOOLEAN_MALFORMED],
        |_| json!("not an object"), ALICE, Verdict::BadObject),
];

fn key_rows(g: &mut Group, x: &Fx, rows: &[KeyRow]) {
    let s = x.s;
    for &(n, template, flags, object, key, verdict) in rows {
        let expect = match verdict {
            Verdict::Valid(v) => valid(v),
            Verdict::KeyReading(v) => key_reading(v),
            Verdict::BadObject => bad_object(s.malformed, s.stage),
        };
        let input = json!({ s.object: object(x), "publicKey": key(x) });
        g.case(n, &x.describe(template), s.reqs, flags, s.op, input, expect);
    }
}

fn signature_key_cases(g: &mut Group, k: &Keys, s: &SignedKind) {
    // P = alice names herself and signs.
    let p = &k.alice;
    let x = Fx {
        k,
        s,
        good: sign_with(&(s.unsigned)(p), p),
        forged: sign_with(&(s.unsigned)(p), &k.mallory),
        bob_obj: sign_with(&(s.unsigned)(&k.bob), &k.bob),
    };
    key_rows(g, &x, SIGNERS);
    // Keys that are not principal ids.
    let o = s.object;
    for (i, (d, bad)) in malformed_keys(p).into_iter().enumerate() {
        let n = 30 + u16::try_from(i).unwrap_or(0);
        let desc = format!("alice's {o} with a key that is not a principal id ({d}): nothing verifies; `valid: false` or a refusal.");
        let input = json!({ s.object: x.good, "publicKey": bad });
        g.case(
            n,
            &desc,
            s.reqs,
            &[BOOLEAN_MALFORMED],
            s.op,
            input,
            bad_key(),
        );
    }
    key_rows(g, &x, MALFORMED_OBJECTS);
}
