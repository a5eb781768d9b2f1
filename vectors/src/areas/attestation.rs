//! Area `attestation`: creation (§7.1–7.2), `outputHash` (D13) and one-level verification
//! against a contract (§7.3 in the order of D25).
//!
//! Signed attestations are built here from the primitives (canonical JSON → BLAKE2b-256 →
//! Ed25519 with the fixed keys). Negative cases change ONE thing and re-sign with the
//! principal's key unless the case is about the signature; precedence cases combine two
//! faults and expect the one D25 checks first.

use serde_json::{json, Value};

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::b64u_encode;

use super::contract::{remove, set, sign_with, unsigned_contract};
use super::dct_support::{ct, CONTRACT, DELEGATION};
use super::Ids;
use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};

/// Builds the `attestation` area: groups `create`, `output-hash`, `verify`.
pub fn build(area: &mut Area) {
    let keys = area.keys().clone();
    build_create(
        area.group(
            "create",
            "attestation.create: exact signed bytes of an attestation (§7.1, §7.2, D13).",
        ),
        &keys,
    );
    build_hash(area.group(
        "output-hash",
        "attestation.output_hash: base64url(BLAKE2b-256(RFC 8785 canonical JSON of the output)) (D13).",
    ));
    build_verify(
        area.group(
            "verify",
            "attestation.verify: one-level verification against a contract, first failure in the order of D25 (shape, outputHash, signature, contractId, outputSchema, verification spec, cost).",
        ),
        &keys,
    );
}

/// D13 output hash, computed from the primitives.
fn h(output: &Value) -> String {
    let text = canonicalize(output).unwrap_or_default();
    b64u_encode(&blake2b256(text.as_bytes()))
}

fn output() -> Value {
    json!({"summary": "ok: three documents summarised"})
}

/// An unsigned attestation by `principal` for the default contract.
fn unsigned(principal: &Key) -> Value {
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
            "output": output(),
            "outputHash": h(&output()),
            "costMicrocents": 1000,
            "durationMs": 1500
        },
        "childAttestations": []
    })
}

/// What every case starts from: alice's unsigned attestation and the signed one.
struct Fx<'a> {
    k: &'a Keys,
    base: Value,
    good: Value,
    /// The schema_match contract ([`schema_contract`]).
    sc: Value,
    /// The deterministic_check contract ([`det_contract`]).
    dc: Value,
}

impl<'a> Fx<'a> {
    fn new(k: &'a Keys) -> Self {
        let base = unsigned(&k.alice);
        Fx {
            k,
            good: sign_with(&base, &k.alice),
            base,
            sc: schema_contract(k),
            dc: det_contract(k),
        }
    }

    /// `v` signed by alice.
    fn signed(&self, v: Value) -> Value {
        sign_with(&v, &self.k.alice)
    }

    /// The base with `path` set to `v`, re-signed by alice.
    fn re(&self, path: &str, v: Value) -> Value {
        self.signed(set(&self.base, path, v))
    }

    /// The base with this output and its hash, re-signed by alice.
    fn out(&self, o: Value) -> Value {
        self.signed(with_output(&self.base, o))
    }

    /// The default contract with this verification spec, signed by root.
    fn verifying(&self, spec: Value) -> Value {
        sign_with(
            &set(&unsigned_contract(&self.k.root), "verification", spec),
            &self.k.root,
        )
    }
}

/// `v` with `result.output` = `o` and the matching `outputHash`.
fn with_output(v: &Value, o: Value) -> Value {
    set(
        &set(v, "result/output", o.clone()),
        "result/outputHash",
        json!(h(&o)),
    )
}

/// The base without `output` and `outputHash`.
fn no_output(v: &Value) -> Value {
    remove(&remove(v, "result/output"), "result/outputHash")
}

/// A key of the fixture.
type KeyOf = for<'a> fn(&'a Keys) -> &'a Key;

/// What create returns: the input attestation signed by the seed's key, alice's base signed
/// (the input omits `principal`), or a refusal (code, stage).
#[derive(Clone, Copy)]
enum Created {
    Signed,
    SignedBase,
    Refused(&'static str, &'static str),
}

const MALFORMED_CREATE: Created = Created::Refused("malformed_attestation", "7.3/shape");
const CREATE_REQS: &[&str] = &["ATT-SIGN-PAYLOAD", "ATT-OUTPUT-HASH"];

/// Number, description, requirements, seed's key, attestation, outcome.
type CreateRow = (u16, &'static str, Ids, KeyOf, fn(&Fx) -> Value, Created);

#[rustfmt::skip]
const CREATES: &[CreateRow] = &[
    (1, "A completion attestation signed by alice: signature over BLAKE2b-256 of the canonical attestation without `signature` (exact bytes).",
        CREATE_REQS, |k| &k.alice, |f| f.base.clone(), Created::Signed),
    (2, "`principal` omitted: it is the seed's principal, and the signature covers it.", CREATE_REQS, |k| &k.alice,
        |f| remove(&f.base, "principal"), Created::SignedBase),
    (3, "`principal` present but not the seed's principal → invalid_input.", &["ATT-SIGN-PAYLOAD"], |k| &k.bob,
        |f| f.base.clone(), Created::Refused("invalid_input", "ops")),
    (4, "Type `delegation_verification` with child attestation ids.", CREATE_REQS, |k| &k.alice,
        |f| set(&set(&f.base, "type", json!("delegation_verification")), "childAttestations", json!(["att_0000000000b1", "att_0000000000b2"])),
        Created::Signed),
    (5, "Result without `output` and `outputHash` (both optional).", CREATE_REQS, |k| &k.alice, |f| no_output(&f.base), Created::Signed),
    (6, "Result with `outputHash` but no `output` (hash only).", CREATE_REQS, |k| &k.alice, |f| remove(&f.base, "result/output"), Created::Signed),
    (7, "Result with `verificationOutcome` including a fractional score.", CREATE_REQS, |k| &k.alice,
        |f| set(&f.base, "result/verificationOutcome", json!({"method": "composite", "passed": true, "score": 0.75, "details": "2 of 3"})), Created::Signed),
    (8, "`success: false`, cost 0, duration 0.", CREATE_REQS, |k| &k.alice,
        |f| set(&set(&set(&f.base, "result/success", json!(false)), "result/costMicrocents", json!(0)), "result/durationMs", json!(0)), Created::Signed),
    (9, "Output with non-ASCII text, nested arrays and numbers (1e21, 0.5, -3).", CREATE_REQS, |k| &k.alice,
        |f| with_output(&f.base, json!({"text": "Ünïcödé 要約 😀", "xs": [[1, 2], []], "big": 1e21, "half": 0.5, "neg": -3})), Created::Signed),
    (10, "Output `null` with its hash.", CREATE_REQS, |k| &k.alice, |f| with_output(&f.base, Value::Null), Created::Signed),
    (11, "Same content attested by bob: a different principal and signature.", CREATE_REQS, |k| &k.bob, |f| unsigned(&f.k.bob), Created::Signed),
    (20, "`type` `done` is not a §7.1 type.", &["ATT-SHAPE"], |k| &k.alice, |f| set(&f.base, "type", json!("done")), MALFORMED_CREATE),
    (21, "`id` with prefix `at_`.", &["ATT-ID"], |k| &k.alice, |f| set(&f.base, "id", json!("at_0000000000a1")), MALFORMED_CREATE),
    (22, "`delegationId` uppercase.", &["ATT-ID"], |k| &k.alice, |f| set(&f.base, "delegationId", json!("del_0000000000A1")), MALFORMED_CREATE),
    (23, "`result` without `durationMs`.", &["ATT-RESULT-SHAPE"], |k| &k.alice, |f| remove(&f.base, "result/durationMs"), MALFORMED_CREATE),
    (24, "An unknown top-level member.", &["ATT-SHAPE"], |k| &k.alice, |f| set(&f.base, "trust", json!(1)), MALFORMED_CREATE),
];

fn build_create(g: &mut Group, keys: &Keys) {
    let f = Fx::new(keys);
    for &(n, desc, reqs, key, att, created) in CREATES {
        let (key, att) = (key(keys), att(&f));
        let expect = match created {
            Created::Signed => Expectation::valid(json!({"attestation": sign_with(&att, key)})),
            Created::SignedBase => {
                Expectation::valid(json!({"attestation": sign_with(&f.base, key)}))
            }
            Created::Refused(code, stage) => Expectation::invalid(code, stage),
        };
        let input = json!({"principalSeed": key.seed_hex(), "attestation": att});
        g.case(n, desc, reqs, &[], "attestation.create", input, expect);
    }
}

/// The `outputHash` of plain outputs: rows of `data/tables/attestation.json`, each hash
/// written out (base64url of BLAKE2b-256 of the RFC 8785 text, as [`h`] computes it).
fn build_hash(g: &mut Group) {
    let text = include_str!("data/tables/attestation.json");
    super::checks::case_rows(g, "attestation", "output-hash", "attestation.json", text);
}

/// The contract attestations are verified against: outputSchema requires a string
/// `summary`; verification is schema_match of a schema that additionally bounds it to 40
/// characters and requires it to start with `ok` (via `pattern`).
fn schema_contract(keys: &Keys) -> Value {
    let c = unsigned_contract(&keys.root);
    let c = set(
        &c,
        "verification",
        json!({"method": "schema_match", "schema": {"type": "object", "required": ["summary"], "properties": {"summary": {"type": "string", "maxLength": 40, "pattern": "^ok"}}}}),
    );
    sign_with(&c, &keys.root)
}

/// A contract verified by deterministic_check `regex_match` `^ok` on `summary`.
fn det_contract(keys: &Keys) -> Value {
    let c = unsigned_contract(&keys.root);
    let c = set(
        &c,
        "verification",
        json!({"method": "deterministic_check", "checkName": "regex_match", "checkParams": {"pattern": "^ok", "field": "summary"}}),
    );
    sign_with(&c, &keys.root)
}

/// verify: valid (`None`) or (code, stage).
type Verdict = Option<(&'static str, &'static str)>;
const VALID: Verdict = None;
const SHAPE: Verdict = Some(("malformed_attestation", "7.3/shape"));
const HASH: Verdict = Some(("output_hash_mismatch", "7.3/hash"));
const SIG: Verdict = Some(("invalid_signature", "7.3/1"));
const CONTRACT_ID: Verdict = Some(("contract_mismatch", "7.3/contract"));
const SCHEMA: Verdict = Some(("schema_mismatch", "7.3/2"));
const SPEC: Verdict = Some(("verification_failed", "7.3/3"));
const COST: Verdict = Some(("budget_exceeded", "7.3/4"));

/// The contract of a case.
type ContractOf = fn(&Fx) -> Value;
const SC: ContractOf = |f| f.sc.clone();
const DC: ContractOf = |f| f.dc.clone();

const TAMPER: &[&str] = &["ATT-VERIFY-SIGNATURE", "ATT-SIGN-PAYLOAD"];
const OH: &[&str] = &["ATT-OUTPUT-HASH-MISMATCH", "ATT-OUTPUT-HASH"];
const VS: &[&str] = &["ATT-VERIFY-SCHEMA"];
const VSP: &[&str] = &["ATT-VERIFY-SPEC"];
const CO: &[&str] = &["ATT-VERIFY-COST"];
const ORD: &[&str] = &["ATT-VERIFY-ORDER"];
const PREC: &[&str] = &["Precedence"];
const RS: &[&str] = &["ATT-RESULT-SHAPE"];
const RS_INT: &[&str] = &["ATT-RESULT-SHAPE", "PRIM-INT-RANGE"];
const MAX_SAFE: u64 = 9_007_199_254_740_991;

/// Number, description, requirements, flags, attestation, contract, verdict.
type VerifyRow = (
    u16,
    &'static str,
    Ids,
    Ids,
    fn(&Fx) -> Value,
    ContractOf,
    Verdict,
);

/// Valid attestations, tampering, the output hash and the contract id.
#[rustfmt::skip]
const VERIFY_SIGNED: &[VerifyRow] = &[
    (1, "A valid completion for the schema_match contract.", &["ATT-VERIFY-SIGNATURE", "ATT-VERIFY-SCHEMA", "ATT-VERIFY-SPEC", "ATT-VERIFY-COST"], &[],
        |f| f.good.clone(), SC, VALID),
    (2, "The same attestation for the deterministic_check contract.", VSP, &[], |f| f.good.clone(), DC, VALID),
    (3, "Without `outputHash` (optional): valid.", &["ATT-OUTPUT-HASH-MISMATCH", "ATT-RESULT-SHAPE"], &[], |f| f.signed(remove(&f.base, "result/outputHash")), SC, VALID),
    (4, "Type `delegation_verification` with child attestation ids (ids checked for format only, not followed).", &["ATT-SHAPE", "ATT-ID"], &[],
        |f| f.signed(set(&set(&f.base, "type", json!("delegation_verification")), "childAttestations", json!(["att_0000000000b1"]))), SC, VALID),
    (5, "`success: false` is carried, not judged: otherwise valid.", RS, &[], |f| f.re("result/success", json!(false)), SC, VALID),
    (6, "A `verificationOutcome` claiming failure is not judged: valid.", RS, &[],
        |f| f.re("result/verificationOutcome", json!({"method": "schema_match", "passed": false, "score": 0})), SC, VALID),
    (7, "Attested and signed by mallory (one-level verification does not authorise principals): valid.", &["ATT-VERIFY-SIGNATURE"], &[],
        |f| sign_with(&unsigned(&f.k.mallory), &f.k.mallory), SC, VALID),
    // Tampered after signing.
    (10, "`id` changed after signing.", TAMPER, &[], |f| set(&f.good, "id", json!("att_0000000000ff")), SC, SIG),
    (11, "`delegationId` changed after signing.", TAMPER, &[], |f| set(&f.good, "delegationId", json!("del_0000000000ff")), SC, SIG),
    (12, "`principal` changed to bob after alice signed.", TAMPER, &[], |f| set(&f.good, "principal", json!(f.k.bob.principal)), SC, SIG),
    (13, "`createdAt` changed after signing.", TAMPER, &[], |f| set(&f.good, "createdAt", json!("2026-03-01T11:00:01Z")), SC, SIG),
    (14, "`type` changed after signing.", TAMPER, &[], |f| set(&f.good, "type", json!("delegation_verification")), SC, SIG),
    (15, "`result.success` flipped after signing.", TAMPER, &[], |f| set(&f.good, "result/success", json!(false)), SC, SIG),
    (16, "`result.costMicrocents` lowered after signing.", TAMPER, &[], |f| set(&f.good, "result/costMicrocents", json!(1)), SC, SIG),
    (17, "`result.durationMs` changed after signing.", TAMPER, &[], |f| set(&f.good, "result/durationMs", json!(1)), SC, SIG),
    (18, "A child attestation id appended after signing.", TAMPER, &[], |f| set(&f.good, "childAttestations", json!(["att_0000000000b1"])), SC, SIG),
    (19, "`result.output` AND its `outputHash` replaced consistently after signing: the hash matches, the signature does not.", TAMPER, &[],
        |f| with_output(&f.good, json!({"summary": "ok: something else"})), SC, SIG),
    (20, "`outputHash` removed after signing.", TAMPER, &[], |f| remove(&f.good, "result/outputHash"), SC, SIG),
    (21, "`verificationOutcome` added after signing.", TAMPER, &[],
        |f| set(&f.good, "result/verificationOutcome", json!({"method": "schema_match", "passed": true})), SC, SIG),
    (22, "`contractId` changed after signing (signature checked before the contract id).", TAMPER, &[],
        |f| set(&f.good, "contractId", json!(ct(0xbad))), SC, SIG),
    (25, "Signed by mallory while `principal` names alice.", &["ATT-VERIFY-SIGNATURE"], &[], |f| sign_with(&f.base, &f.k.mallory), SC, SIG),
    (26, "Signed by root while `principal` names alice.", &["ATT-VERIFY-SIGNATURE"], &[], |f| sign_with(&f.base, &f.k.root), SC, SIG),
    // Output hash.
    (30, "`outputHash` of a different output, signed: output_hash_mismatch.", OH, &[],
        |f| f.re("result/outputHash", json!(h(&json!({"summary": "ok: other"})))), SC, HASH),
    (31, "`outputHash` computed over `JSON.stringify` text with members in insertion order instead of canonical JSON.", OH, &[],
        |f| f.signed(set(&set(&f.base, "result/output", json!({"summary": "ok", "count": 2})), "result/outputHash",
            json!(b64u_encode(&blake2b256(br#"{"summary":"ok","count":2}"#))))), SC, HASH),
    (32, "`outputHash` as lowercase HEX of the right digest (D13 says base64url).", OH, &[],
        |f| f.re("result/outputHash", json!(hex::encode(blake2b256(canonicalize(&output()).unwrap_or_default().as_bytes())))), SC, HASH),
    (33, "`outputHash` over output 1 when the output is 1.0: canonical forms are equal, so it matches (valid).", OH, &[],
        |f| f.signed(set(&set(&f.base, "result/output", json!({"summary": "ok", "n": 1.0})), "result/outputHash", json!(h(&json!({"summary": "ok", "n": 1}))))),
        SC, VALID),
    (34, "Output changed after signing without updating the hash: output_hash_mismatch is checked BEFORE the signature (D25).",
        &["ATT-VERIFY-ORDER", "ATT-OUTPUT-HASH-MISMATCH"], PREC, |f| set(&f.good, "result/output", json!({"summary": "ok: forged"})), SC, HASH),
    (35, "`outputHash` without `output` is allowed and unchecked; the missing output then fails the verification spec (deterministic contract).",
        &["ATT-OUTPUT-HASH-MISMATCH", "ATT-VERIFY-SPEC"], &[], |f| f.signed(remove(&f.base, "result/output")), DC, SPEC),
    // Contract id.
    (40, "`contractId` of another contract (correctly signed): contract_mismatch.", &["ATT-VERIFY-CONTRACT-ID"], &[],
        |f| f.re("contractId", json!(ct(0xbad))), SC, CONTRACT_ID),
    (41, "The contract's id differs from the attestation's.", &["ATT-VERIFY-CONTRACT-ID"], &[], |f| f.good.clone(),
        |f| sign_with(&set(&unsigned_contract(&f.k.root), "id", json!(ct(0x1))), &f.k.root), CONTRACT_ID),
];

/// Schema, verification spec, cost.
#[rustfmt::skip]
const VERIFY_OUTPUT: &[VerifyRow] = &[
    // Schema (method schema_match only).
    (50, "Output violating `task.outputSchema` (summary not a string) with a schema_match contract: schema_mismatch.", VS, &[],
        |f| f.out(json!({"summary": 5})), SC, SCHEMA),
    (51, "Output missing the required `summary`: schema_mismatch.", VS, &[], |f| f.out(json!({"result": "ok"})), SC, SCHEMA),
    (52, "The same schema-violating output under a deterministic_check contract: outputSchema is NOT checked (method is not schema_match); the regex check fails on a non-string → verification_failed.",
        &["ATT-VERIFY-SCHEMA", "ATT-VERIFY-SPEC"], &[], |f| f.out(json!({"summary": 5})), DC, SPEC),
    (53, "Output violating outputSchema but passing a deterministic field_exists contract: valid (schema step only for schema_match).", VS, &[],
        |f| f.out(json!({"summary": 5})),
        |f| f.verifying(json!({"method": "deterministic_check", "checkName": "field_exists", "checkParams": {"fields": ["summary"]}})), VALID),
    // Verification spec.
    (60, "Output valid under outputSchema but failing the verification schema (does not start with `ok`): verification_failed.", VSP, &[],
        |f| f.out(json!({"summary": "done"})), SC, SPEC),
    (61, "Output valid under outputSchema but over the verification schema's maxLength 40: verification_failed.", VSP, &[],
        |f| f.out(json!({"summary": format!("ok{}", "x".repeat(40))})), SC, SPEC),
    (62, "Deterministic contract, summary not starting with `ok`: verification_failed.", VSP, &[], |f| f.out(json!({"summary": "fail"})), DC, SPEC),
    (63, "No `output` and no `outputHash`, deterministic contract: verification_failed.", VSP, &[], |f| f.signed(no_output(&f.base)), DC, SPEC),
    (64, "`output: null` is present (not missing): output_equals null passes → valid.", VSP, &[], |f| f.out(Value::Null),
        |f| f.verifying(json!({"method": "deterministic_check", "checkName": "output_equals", "checkParams": {"expected": null}})), VALID),
    (65, "A check ERROR during verification is reported with its own code (invalid_params), not verification_failed.", VSP, &[], |f| f.good.clone(),
        |f| f.verifying(json!({"method": "deterministic_check", "checkName": "regex_match", "checkParams": {"pattern": "("}})), Some(("invalid_params", "7.3/3"))),
    (66, "Composite majority contract (2 of 3 pass): valid.", VSP, &[], |f| f.good.clone(), majority_contract, VALID),
    // Cost.
    (70, "costMicrocents equal to maxBudgetMicrocents (500000): allowed.", CO, &[], |f| f.re("result/costMicrocents", json!(500_000)), SC, VALID),
    (71, "costMicrocents = max + 1: budget_exceeded.", CO, &[], |f| f.re("result/costMicrocents", json!(500_001)), SC, COST),
    (72, "costMicrocents 2^53−1: budget_exceeded.", CO, &[], |f| f.re("result/costMicrocents", json!(9_007_199_254_740_991_u64)), SC, COST),
    (73, "costMicrocents 0: allowed.", CO, &[], |f| f.re("result/costMicrocents", json!(0)), SC, VALID),
];

/// Shape, precedence (D25) and protocol integers.
#[rustfmt::skip]
const VERIFY_SHAPE: &[VerifyRow] = &[
    // Shape.
    (80, "An unknown top-level member (signed).", &["ATT-SHAPE"], &[], |f| f.re("trust", json!(0.9)), SC, SHAPE),
    (81, "`version` `0.2`.", &["ATT-SHAPE"], &[], |f| f.re("version", json!("0.2")), SC, SHAPE),
    (82, "`type` `done`.", &["ATT-SHAPE"], &[], |f| f.re("type", json!("done")), SC, SHAPE),
    (83, "`childAttestations` missing.", &["ATT-SHAPE"], &[], |f| f.signed(remove(&f.base, "childAttestations")), SC, SHAPE),
    (84, "`signature` missing.", &["ATT-SHAPE"], &[], |f| f.base.clone(), SC, SHAPE),
    (85, "The attestation is an array.", &["ATT-SHAPE"], &[], |f| json!([f.good.clone()]), SC, SHAPE),
    (86, "`principal` is not a principal id.", &["ATT-SHAPE"], &[], |f| f.re("principal", json!("alice")), SC, SHAPE),
    (87, "`createdAt` outside the profile (offset-less).", &["ATT-SHAPE"], &[], |f| f.re("createdAt", json!("2026-03-01T11:00:00")), SC, SHAPE),
    (88, "`id` with uppercase hex.", &["ATT-ID"], &[], |f| f.re("id", json!("att_0000000000A1")), SC, SHAPE),
    (89, "`contractId` without the `ct_` prefix.", &["ATT-ID"], &[], |f| f.re("contractId", json!("00000000c0de")), SC, SHAPE),
    (90, "`delegationId` with 11 hex characters.", &["ATT-ID"], &[], |f| f.re("delegationId", json!("del_00000000001")), SC, SHAPE),
    (91, "`childAttestations` holding a `ct_` id.", &["ATT-ID"], &[], |f| f.re("childAttestations", json!([CONTRACT])), SC, SHAPE),
    (92, "`childAttestations` holding a number.", &["ATT-ID"], &[], |f| f.re("childAttestations", json!([1])), SC, SHAPE),
    (93, "`result.success` a string.", RS, &[], |f| f.re("result/success", json!("true")), SC, SHAPE),
    (94, "`result.costMicrocents` negative.", RS, &[], |f| f.re("result/costMicrocents", json!(-1)), SC, SHAPE),
    (95, "`result.costMicrocents` fractional.", RS, &[], |f| f.re("result/costMicrocents", json!(1.5)), SC, SHAPE),
    (96, "`result.durationMs` missing.", RS, &[], |f| f.signed(remove(&f.base, "result/durationMs")), SC, SHAPE),
    (97, "`result` with an unknown member.", RS, &[], |f| f.re("result/tokens", json!(12)), SC, SHAPE),
    (98, "`result.outputHash` a number.", RS, &[], |f| f.re("result/outputHash", json!(7)), SC, SHAPE),
    (99, "`result` is `null`.", RS, &[], |f| f.re("result", Value::Null), SC, SHAPE),
    (100, "`result.costMicrocents` 2^53 (outside the protocol integer range).", RS, &[], |f| f.re("result/costMicrocents", json!(9_007_199_254_740_992_u64)), SC, SHAPE),
    // Precedence (D25).
    (110, "Malformed (`version` 0.2) AND badly signed AND wrong contract: malformed_attestation first.", ORD, PREC,
        |f| set(&set(&f.good, "version", json!("0.2")), "contractId", json!(ct(0xbad))), SC, SHAPE),
    (111, "outputHash mismatch AND signed by mallory: output_hash_mismatch (hash before signature).", ORD, PREC,
        |f| sign_with(&set(&f.base, "result/outputHash", json!(h(&json!("other")))), &f.k.mallory), SC, HASH),
    (112, "outputHash mismatch AND contract mismatch (signed): output_hash_mismatch.", ORD, PREC,
        |f| f.signed(set(&set(&f.base, "result/outputHash", json!(h(&json!("other")))), "contractId", json!(ct(0xbad)))), SC, HASH),
    (113, "Bad signature AND contract mismatch: invalid_signature.", ORD, PREC,
        |f| sign_with(&set(&f.base, "contractId", json!(ct(0xbad))), &f.k.mallory), SC, SIG),
    (114, "Contract mismatch AND schema-violating output AND over budget: contract_mismatch.", ORD, PREC,
        |f| f.signed(set(&set(&with_output(&f.base, json!({"summary": 5})), "contractId", json!(ct(0xbad))), "result/costMicrocents", json!(999_999))),
        SC, CONTRACT_ID),
    (115, "Output violating both outputSchema and the verification schema: schema_mismatch (schema before spec).", ORD, PREC,
        |f| f.out(json!({"other": 1})), SC, SCHEMA),
    (116, "Schema-violating output AND over budget: schema_mismatch.", ORD, PREC,
        |f| f.signed(set(&with_output(&f.base, json!({"summary": 5})), "result/costMicrocents", json!(500_001))), SC, SCHEMA),
    (117, "Verification failure AND over budget: verification_failed (spec before cost).", ORD, PREC,
        |f| f.signed(set(&with_output(&f.base, json!({"summary": "done"})), "result/costMicrocents", json!(500_001))), SC, SPEC),
    (118, "Bad signature AND over budget: invalid_signature.", ORD, PREC, |f| set(&f.good, "result/costMicrocents", json!(500_001)), SC, SIG),
    (119, "Malformed result (`success` string) AND outputHash mismatch: malformed_attestation.", ORD, PREC,
        |f| f.signed(set(&set(&f.base, "result/success", json!(1)), "result/outputHash", json!(h(&json!("x"))))), SC, SHAPE),
    // Protocol integers at and beyond 2^53 − 1 (PRIM-INT-RANGE), one result number at a time,
    // each attestation signed by its principal so only the number can matter.
    (120, "costMicrocents 2^53−1 against a contract budget of 2^53−1: the largest protocol integer, equal to the budget — valid.",
        &["ATT-RESULT-SHAPE", "ATT-VERIFY-COST", "PRIM-INT-RANGE"], &[], |f| f.re("result/costMicrocents", json!(MAX_SAFE)),
        |f| sign_with(&set(&f.sc, "constraints/maxBudgetMicrocents", json!(MAX_SAFE)), &f.k.root), VALID),
    (121, "durationMs 2^53−1 (cost 1000): the largest protocol integer is a valid duration — valid.", RS_INT, &[],
        |f| f.re("result/durationMs", json!(MAX_SAFE)), SC, VALID),
    (122, "durationMs 2^53 (outside the protocol integer range) while costMicrocents is 1000: malformed_attestation.", RS_INT, &[],
        |f| f.re("result/durationMs", json!(MAX_SAFE + 1)), SC, SHAPE),
    // D25: without `output` a schema_match contract has nothing to validate → schema_mismatch
    // (case 63 is the deterministic_check twin: verification_failed).
    (123, "No `output` and no `outputHash`, schema_match contract: the outputSchema step has nothing to validate — schema_mismatch.",
        &["ATT-VERIFY-SCHEMA", "ATT-VERIFY-ORDER"], &[], |f| f.signed(no_output(&f.base)), SC, SCHEMA),
];

/// A composite majority contract of three checks, two of which pass on the base output.
fn majority_contract(f: &Fx) -> Value {
    f.verifying(json!({"method": "composite", "mode": "majority", "steps": [
        {"method": "deterministic_check", "checkName": "field_exists", "checkParams": {"fields": ["summary"]}},
        {"method": "deterministic_check", "checkName": "regex_match", "checkParams": {"pattern": "^no", "field": "summary"}},
        {"method": "deterministic_check", "checkName": "string_length", "checkParams": {"field": "summary", "max": 100}}]}))
}

fn build_verify(g: &mut Group, keys: &Keys) {
    let f = Fx::new(keys);
    let rows = VERIFY_SIGNED
        .iter()
        .chain(VERIFY_OUTPUT)
        .chain(VERIFY_SHAPE);
    for &(n, desc, reqs, flags, att, contract, verdict) in rows {
        let expect = match verdict {
            None => Expectation::valid(json!({"valid": true})),
            Some((code, stage)) => Expectation::invalid(code, stage),
        };
        let input = json!({"attestation": att(&f), "contract": contract(&f)});
        g.case(n, desc, reqs, flags, "attestation.verify", input, expect);
    }
}
