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

fn build_create(g: &mut Group, keys: &Keys) {
    let req = &["ATT-SIGN-PAYLOAD", "ATT-OUTPUT-HASH"];
    let base = unsigned(&keys.alice);
    let inp = |k: &Key, a: Value| json!({"principalSeed": k.seed_hex(), "attestation": a});
    let ok = |a: &Value, k: &Key| Expectation::valid(json!({"attestation": sign_with(a, k)}));
    g.case(1, "A completion attestation signed by alice: signature over BLAKE2b-256 of the canonical attestation without `signature` (exact bytes).", req, &[], "attestation.create", inp(&keys.alice, base.clone()), ok(&base, &keys.alice));
    g.case(
        2,
        "`principal` omitted: it is the seed's principal, and the signature covers it.",
        req,
        &[],
        "attestation.create",
        inp(&keys.alice, remove(&base, "principal")),
        ok(&base, &keys.alice),
    );
    g.case(
        3,
        "`principal` present but not the seed's principal → invalid_input.",
        &["ATT-SIGN-PAYLOAD"],
        &[],
        "attestation.create",
        inp(&keys.bob, base.clone()),
        Expectation::invalid("invalid_input", "ops"),
    );
    let variants: Vec<(u16, &str, Value)> = vec![
        (
            4,
            "Type `delegation_verification` with child attestation ids.",
            set(
                &set(&base, "type", json!("delegation_verification")),
                "childAttestations",
                json!(["att_0000000000b1", "att_0000000000b2"]),
            ),
        ),
        (
            5,
            "Result without `output` and `outputHash` (both optional).",
            remove(&remove(&base, "result/output"), "result/outputHash"),
        ),
        (
            6,
            "Result with `outputHash` but no `output` (hash only).",
            remove(&base, "result/output"),
        ),
        (
            7,
            "Result with `verificationOutcome` including a fractional score.",
            set(
                &base,
                "result/verificationOutcome",
                json!({"method": "composite", "passed": true, "score": 0.75, "details": "2 of 3"}),
            ),
        ),
        (
            8,
            "`success: false`, cost 0, duration 0.",
            set(
                &set(
                    &set(&base, "result/success", json!(false)),
                    "result/costMicrocents",
                    json!(0),
                ),
                "result/durationMs",
                json!(0),
            ),
        ),
        (
            9,
            "Output with non-ASCII text, nested arrays and numbers (1e21, 0.5, -3).",
            {
                let o = json!({"text": "Ünïcödé 要約 😀", "xs": [[1, 2], []], "big": 1e21, "half": 0.5, "neg": -3});
                set(
                    &set(&base, "result/output", o.clone()),
                    "result/outputHash",
                    json!(h(&o)),
                )
            },
        ),
        (
            10,
            "Output `null` with its hash.",
            set(
                &set(&base, "result/output", Value::Null),
                "result/outputHash",
                json!(h(&Value::Null)),
            ),
        ),
    ];
    for (n, d, a) in variants {
        g.case(
            n,
            d,
            req,
            &[],
            "attestation.create",
            inp(&keys.alice, a.clone()),
            ok(&a, &keys.alice),
        );
    }
    let bob = unsigned(&keys.bob);
    g.case(
        11,
        "Same content attested by bob: a different principal and signature.",
        req,
        &[],
        "attestation.create",
        inp(&keys.bob, bob.clone()),
        ok(&bob, &keys.bob),
    );
    let bad = Expectation::invalid("malformed_attestation", "7.3/shape");
    for (n, d, r, a) in [
        (
            20,
            "`type` `done` is not a §7.1 type.",
            &["ATT-SHAPE"][..],
            set(&base, "type", json!("done")),
        ),
        (
            21,
            "`id` with prefix `at_`.",
            &["ATT-ID"][..],
            set(&base, "id", json!("at_0000000000a1")),
        ),
        (
            22,
            "`delegationId` uppercase.",
            &["ATT-ID"][..],
            set(&base, "delegationId", json!("del_0000000000A1")),
        ),
        (
            23,
            "`result` without `durationMs`.",
            &["ATT-RESULT-SHAPE"][..],
            remove(&base, "result/durationMs"),
        ),
        (
            24,
            "An unknown top-level member.",
            &["ATT-SHAPE"][..],
            set(&base, "trust", json!(1)),
        ),
    ] {
        g.case(
            n,
            d,
            r,
            &[],
            "attestation.create",
            inp(&keys.alice, a),
            bad.clone(),
        );
    }
}

fn build_hash(g: &mut Group) {
    let r = &["ATT-OUTPUT-HASH"];
    let cases: Vec<(u16, &str, Value)> = vec![
        (
            1,
            "An object: members sorted before hashing.",
            json!({"b": 2, "a": 1}),
        ),
        (2, "`null`.", Value::Null),
        (3, "The empty string.", json!("")),
        (4, "An empty object.", json!({})),
        (5, "An empty array.", json!([])),
        (6, "`true`.", json!(true)),
        (7, "Integer-valued double 1.0 hashes as `1`.", json!(1.0)),
        (8, "1e21 canonicalises to `1e+21`.", json!(1e21)),
        (9, "-0 canonicalises to `0`.", json!(-0.0)),
        (10, "0.1 (shortest round-trip form).", json!(0.1)),
        (
            11,
            "Non-ASCII and astral text is hashed as UTF-8.",
            json!("Ünïcödé 要約 😀"),
        ),
        (
            12,
            "Control characters and U+2028 escaping rules of RFC 8785.",
            json!("tab\there\u{1}\u{2028}\"\\/"),
        ),
        (
            13,
            "Nested structures with member order at every level.",
            json!({"z": [{"y": 1, "x": [3, {"b": null, "a": false}]}], "a": "first"}),
        ),
        (
            14,
            "Members sorted by UTF-16 code units (`é` U+00E9 before `😀` U+D83D, after `z`).",
            json!({"😀": 1, "é": 2, "z": 3, "A": 4}),
        ),
        (
            15,
            "A large integer 2^53−1.",
            json!(9_007_199_254_740_991_u64),
        ),
    ];
    for (n, d, v) in cases {
        g.case(
            n,
            d,
            r,
            &[],
            "attestation.output_hash",
            json!({"output": v}),
            Expectation::valid(json!({"outputHash": h(&v)})),
        );
    }
    g.case(
        20,
        "The same object with members in another order has the same hash as case 0001.",
        r,
        &[],
        "attestation.output_hash",
        json!({"output": {"a": 1, "b": 2}}),
        Expectation::valid(json!({"outputHash": h(&json!({"b": 2, "a": 1}))})),
    );
    g.case(
        21,
        "1 and 1.0 have the same hash.",
        r,
        &[],
        "attestation.output_hash",
        json!({"output": 1}),
        Expectation::valid(json!({"outputHash": h(&json!(1.0))})),
    );
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

fn build_verify(g: &mut Group, keys: &Keys) {
    let op = "attestation.verify";
    let a = &keys.alice;
    let base = unsigned(a);
    let good = sign_with(&base, a);
    let sc = schema_contract(keys);
    let dc = det_contract(keys);
    let inp = |att: Value, c: &Value| json!({"attestation": att, "contract": c});
    let ok = || Expectation::valid(json!({"valid": true}));
    let shape = || Expectation::invalid("malformed_attestation", "7.3/shape");
    let hashm = || Expectation::invalid("output_hash_mismatch", "7.3/hash");
    let sig = || Expectation::invalid("invalid_signature", "7.3/1");
    let cm = || Expectation::invalid("contract_mismatch", "7.3/contract");
    let sm = || Expectation::invalid("schema_mismatch", "7.3/2");
    let vf = || Expectation::invalid("verification_failed", "7.3/3");
    let be = || Expectation::invalid("budget_exceeded", "7.3/4");
    // Re-signed variant of `base` after `f`.
    let signed = |v: Value| sign_with(&v, a);
    let with_output = |v: &Value, o: Value| {
        set(
            &set(v, "result/output", o.clone()),
            "result/outputHash",
            json!(h(&o)),
        )
    };

    g.case(
        1,
        "A valid completion for the schema_match contract.",
        &[
            "ATT-VERIFY-SIGNATURE",
            "ATT-VERIFY-SCHEMA",
            "ATT-VERIFY-SPEC",
            "ATT-VERIFY-COST",
        ],
        &[],
        op,
        inp(good.clone(), &sc),
        ok(),
    );
    g.case(
        2,
        "The same attestation for the deterministic_check contract.",
        &["ATT-VERIFY-SPEC"],
        &[],
        op,
        inp(good.clone(), &dc),
        ok(),
    );
    g.case(
        3,
        "Without `outputHash` (optional): valid.",
        &["ATT-OUTPUT-HASH-MISMATCH", "ATT-RESULT-SHAPE"],
        &[],
        op,
        inp(signed(remove(&base, "result/outputHash")), &sc),
        ok(),
    );
    g.case(4, "Type `delegation_verification` with child attestation ids (ids checked for format only, not followed).", &["ATT-SHAPE", "ATT-ID"], &[], op,
        inp(signed(set(&set(&base, "type", json!("delegation_verification")), "childAttestations", json!(["att_0000000000b1"]))), &sc), ok());
    g.case(
        5,
        "`success: false` is carried, not judged: otherwise valid.",
        &["ATT-RESULT-SHAPE"],
        &[],
        op,
        inp(signed(set(&base, "result/success", json!(false))), &sc),
        ok(),
    );
    g.case(
        6,
        "A `verificationOutcome` claiming failure is not judged: valid.",
        &["ATT-RESULT-SHAPE"],
        &[],
        op,
        inp(
            signed(set(
                &base,
                "result/verificationOutcome",
                json!({"method": "schema_match", "passed": false, "score": 0}),
            )),
            &sc,
        ),
        ok(),
    );
    let mallory_att = sign_with(&unsigned(&keys.mallory), &keys.mallory);
    g.case(7, "Attested and signed by mallory (one-level verification does not authorise principals): valid.", &["ATT-VERIFY-SIGNATURE"], &[], op, inp(mallory_att, &sc), ok());

    // Tampered after signing.
    let tampered: Vec<(u16, &str, Value)> = vec![
        (10, "`id` changed after signing.", set(&good, "id", json!("att_0000000000ff"))),
        (11, "`delegationId` changed after signing.", set(&good, "delegationId", json!("del_0000000000ff"))),
        (12, "`principal` changed to bob after alice signed.", set(&good, "principal", json!(keys.bob.principal))),
        (13, "`createdAt` changed after signing.", set(&good, "createdAt", json!("2026-03-01T11:00:01Z"))),
        (14, "`type` changed after signing.", set(&good, "type", json!("delegation_verification"))),
        (15, "`result.success` flipped after signing.", set(&good, "result/success", json!(false))),
        (16, "`result.costMicrocents` lowered after signing.", set(&good, "result/costMicrocents", json!(1))),
        (17, "`result.durationMs` changed after signing.", set(&good, "result/durationMs", json!(1))),
        (18, "A child attestation id appended after signing.", set(&good, "childAttestations", json!(["att_0000000000b1"]))),
        (19, "`result.output` AND its `outputHash` replaced consistently after signing: the hash matches, the signature does not.", with_output(&good, json!({"summary": "ok: something else"}))),
        (20, "`outputHash` removed after signing.", remove(&good, "result/outputHash")),
        (21, "`verificationOutcome` added after signing.", set(&good, "result/verificationOutcome", json!({"method": "schema_match", "passed": true}))),
        (22, "`contractId` changed after signing (signature checked before the contract id).", set(&good, "contractId", json!(ct(0xbad)))),
    ];
    for (n, d, att) in tampered {
        g.case(
            n,
            d,
            &["ATT-VERIFY-SIGNATURE", "ATT-SIGN-PAYLOAD"],
            &[],
            op,
            inp(att, &sc),
            sig(),
        );
    }
    g.case(
        25,
        "Signed by mallory while `principal` names alice.",
        &["ATT-VERIFY-SIGNATURE"],
        &[],
        op,
        inp(sign_with(&base, &keys.mallory), &sc),
        sig(),
    );
    g.case(
        26,
        "Signed by root while `principal` names alice.",
        &["ATT-VERIFY-SIGNATURE"],
        &[],
        op,
        inp(sign_with(&base, &keys.root), &sc),
        sig(),
    );

    // Output hash.
    let oh = &["ATT-OUTPUT-HASH-MISMATCH", "ATT-OUTPUT-HASH"];
    g.case(
        30,
        "`outputHash` of a different output, signed: output_hash_mismatch.",
        oh,
        &[],
        op,
        inp(
            signed(set(
                &base,
                "result/outputHash",
                json!(h(&json!({"summary": "ok: other"}))),
            )),
            &sc,
        ),
        hashm(),
    );
    g.case(31, "`outputHash` computed over `JSON.stringify` text with members in insertion order instead of canonical JSON.", oh, &[], op, {
        let o = json!({"summary": "ok", "count": 2});
        let stringify = b64u_encode(&blake2b256(br#"{"summary":"ok","count":2}"#));
        inp(signed(set(&set(&base, "result/output", o), "result/outputHash", json!(stringify))), &sc)
    }, hashm());
    g.case(
        32,
        "`outputHash` as lowercase HEX of the right digest (D13 says base64url).",
        oh,
        &[],
        op,
        inp(
            signed(set(
                &base,
                "result/outputHash",
                json!(hex::encode(blake2b256(
                    canonicalize(&output()).unwrap_or_default().as_bytes()
                ))),
            )),
            &sc,
        ),
        hashm(),
    );
    g.case(33, "`outputHash` over output 1 when the output is 1.0: canonical forms are equal, so it matches (valid).", oh, &[], op,
        inp(signed(set(&set(&base, "result/output", json!({"summary": "ok", "n": 1.0})), "result/outputHash", json!(h(&json!({"summary": "ok", "n": 1}))))), &sc), ok());
    g.case(34, "Output changed after signing without updating the hash: output_hash_mismatch is checked BEFORE the signature (D25).", &["ATT-VERIFY-ORDER", "ATT-OUTPUT-HASH-MISMATCH"], &["Precedence"], op,
        inp(set(&good, "result/output", json!({"summary": "ok: forged"})), &sc), hashm());
    g.case(35, "`outputHash` without `output` is allowed and unchecked; the missing output then fails the verification spec (deterministic contract).", &["ATT-OUTPUT-HASH-MISMATCH", "ATT-VERIFY-SPEC"], &[], op,
        inp(signed(remove(&base, "result/output")), &dc), vf());

    // Contract id.
    g.case(
        40,
        "`contractId` of another contract (correctly signed): contract_mismatch.",
        &["ATT-VERIFY-CONTRACT-ID"],
        &[],
        op,
        inp(signed(set(&base, "contractId", json!(ct(0xbad)))), &sc),
        cm(),
    );
    g.case(
        41,
        "The contract's id differs from the attestation's.",
        &["ATT-VERIFY-CONTRACT-ID"],
        &[],
        op,
        inp(
            good.clone(),
            &sign_with(
                &set(&unsigned_contract(&keys.root), "id", json!(ct(0x1))),
                &keys.root,
            ),
        ),
        cm(),
    );

    // Schema (method schema_match only).
    let vs = &["ATT-VERIFY-SCHEMA"];
    g.case(50, "Output violating `task.outputSchema` (summary not a string) with a schema_match contract: schema_mismatch.", vs, &[], op, inp(signed(with_output(&base, json!({"summary": 5}))), &sc), sm());
    g.case(
        51,
        "Output missing the required `summary`: schema_mismatch.",
        vs,
        &[],
        op,
        inp(signed(with_output(&base, json!({"result": "ok"}))), &sc),
        sm(),
    );
    g.case(52, "The same schema-violating output under a deterministic_check contract: outputSchema is NOT checked (method is not schema_match); the regex check fails on a non-string → verification_failed.", &["ATT-VERIFY-SCHEMA", "ATT-VERIFY-SPEC"], &[], op, inp(signed(with_output(&base, json!({"summary": 5}))), &dc), vf());
    let fe_contract = sign_with(
        &set(
            &unsigned_contract(&keys.root),
            "verification",
            json!({"method": "deterministic_check", "checkName": "field_exists", "checkParams": {"fields": ["summary"]}}),
        ),
        &keys.root,
    );
    g.case(53, "Output violating outputSchema but passing a deterministic field_exists contract: valid (schema step only for schema_match).", vs, &[], op, inp(signed(with_output(&base, json!({"summary": 5}))), &fe_contract), ok());

    // Verification spec.
    let vsp = &["ATT-VERIFY-SPEC"];
    g.case(60, "Output valid under outputSchema but failing the verification schema (does not start with `ok`): verification_failed.", vsp, &[], op, inp(signed(with_output(&base, json!({"summary": "done"}))), &sc), vf());
    g.case(61, "Output valid under outputSchema but over the verification schema's maxLength 40: verification_failed.", vsp, &[], op, inp(signed(with_output(&base, json!({"summary": format!("ok{}", "x".repeat(40))}))), &sc), vf());
    g.case(
        62,
        "Deterministic contract, summary not starting with `ok`: verification_failed.",
        vsp,
        &[],
        op,
        inp(signed(with_output(&base, json!({"summary": "fail"}))), &dc),
        vf(),
    );
    g.case(
        63,
        "No `output` and no `outputHash`, deterministic contract: verification_failed.",
        vsp,
        &[],
        op,
        inp(
            signed(remove(&remove(&base, "result/output"), "result/outputHash")),
            &dc,
        ),
        vf(),
    );
    let null_contract = sign_with(
        &set(
            &unsigned_contract(&keys.root),
            "verification",
            json!({"method": "deterministic_check", "checkName": "output_equals", "checkParams": {"expected": null}}),
        ),
        &keys.root,
    );
    g.case(
        64,
        "`output: null` is present (not missing): output_equals null passes → valid.",
        vsp,
        &[],
        op,
        inp(signed(with_output(&base, Value::Null)), &null_contract),
        ok(),
    );
    let bad_re = sign_with(
        &set(
            &unsigned_contract(&keys.root),
            "verification",
            json!({"method": "deterministic_check", "checkName": "regex_match", "checkParams": {"pattern": "("}}),
        ),
        &keys.root,
    );
    g.case(65, "A check ERROR during verification is reported with its own code (invalid_params), not verification_failed.", vsp, &[], op, inp(good.clone(), &bad_re), Expectation::invalid("invalid_params", "7.3/3"));
    let comp = sign_with(
        &set(
            &unsigned_contract(&keys.root),
            "verification",
            json!({"method": "composite", "mode": "majority", "steps": [
        {"method": "deterministic_check", "checkName": "field_exists", "checkParams": {"fields": ["summary"]}},
        {"method": "deterministic_check", "checkName": "regex_match", "checkParams": {"pattern": "^no", "field": "summary"}},
        {"method": "deterministic_check", "checkName": "string_length", "checkParams": {"field": "summary", "max": 100}}]}),
        ),
        &keys.root,
    );
    g.case(
        66,
        "Composite majority contract (2 of 3 pass): valid.",
        vsp,
        &[],
        op,
        inp(good.clone(), &comp),
        ok(),
    );

    // Cost.
    let co = &["ATT-VERIFY-COST"];
    g.case(
        70,
        "costMicrocents equal to maxBudgetMicrocents (500000): allowed.",
        co,
        &[],
        op,
        inp(
            signed(set(&base, "result/costMicrocents", json!(500_000))),
            &sc,
        ),
        ok(),
    );
    g.case(
        71,
        "costMicrocents = max + 1: budget_exceeded.",
        co,
        &[],
        op,
        inp(
            signed(set(&base, "result/costMicrocents", json!(500_001))),
            &sc,
        ),
        be(),
    );
    g.case(
        72,
        "costMicrocents 2^53−1: budget_exceeded.",
        co,
        &[],
        op,
        inp(
            signed(set(
                &base,
                "result/costMicrocents",
                json!(9_007_199_254_740_991_u64),
            )),
            &sc,
        ),
        be(),
    );
    g.case(
        73,
        "costMicrocents 0: allowed.",
        co,
        &[],
        op,
        inp(signed(set(&base, "result/costMicrocents", json!(0))), &sc),
        ok(),
    );

    // Shape.
    let shapes: Vec<(u16, &str, &[&str], Value)> = vec![
        (
            80,
            "An unknown top-level member (signed).",
            &["ATT-SHAPE"],
            signed(set(&base, "trust", json!(0.9))),
        ),
        (
            81,
            "`version` `0.2`.",
            &["ATT-SHAPE"],
            signed(set(&base, "version", json!("0.2"))),
        ),
        (
            82,
            "`type` `done`.",
            &["ATT-SHAPE"],
            signed(set(&base, "type", json!("done"))),
        ),
        (
            83,
            "`childAttestations` missing.",
            &["ATT-SHAPE"],
            signed(remove(&base, "childAttestations")),
        ),
        (84, "`signature` missing.", &["ATT-SHAPE"], base.clone()),
        (
            85,
            "The attestation is an array.",
            &["ATT-SHAPE"],
            json!([good.clone()]),
        ),
        (
            86,
            "`principal` is not a principal id.",
            &["ATT-SHAPE"],
            signed(set(&base, "principal", json!("alice"))),
        ),
        (
            87,
            "`createdAt` outside the profile (offset-less).",
            &["ATT-SHAPE"],
            signed(set(&base, "createdAt", json!("2026-03-01T11:00:00"))),
        ),
        (
            88,
            "`id` with uppercase hex.",
            &["ATT-ID"],
            signed(set(&base, "id", json!("att_0000000000A1"))),
        ),
        (
            89,
            "`contractId` without the `ct_` prefix.",
            &["ATT-ID"],
            signed(set(&base, "contractId", json!("00000000c0de"))),
        ),
        (
            90,
            "`delegationId` with 11 hex characters.",
            &["ATT-ID"],
            signed(set(&base, "delegationId", json!("del_00000000001"))),
        ),
        (
            91,
            "`childAttestations` holding a `ct_` id.",
            &["ATT-ID"],
            signed(set(&base, "childAttestations", json!([CONTRACT]))),
        ),
        (
            92,
            "`childAttestations` holding a number.",
            &["ATT-ID"],
            signed(set(&base, "childAttestations", json!([1]))),
        ),
        (
            93,
            "`result.success` a string.",
            &["ATT-RESULT-SHAPE"],
            signed(set(&base, "result/success", json!("true"))),
        ),
        (
            94,
            "`result.costMicrocents` negative.",
            &["ATT-RESULT-SHAPE"],
            signed(set(&base, "result/costMicrocents", json!(-1))),
        ),
        (
            95,
            "`result.costMicrocents` fractional.",
            &["ATT-RESULT-SHAPE"],
            signed(set(&base, "result/costMicrocents", json!(1.5))),
        ),
        (
            96,
            "`result.durationMs` missing.",
            &["ATT-RESULT-SHAPE"],
            signed(remove(&base, "result/durationMs")),
        ),
        (
            97,
            "`result` with an unknown member.",
            &["ATT-RESULT-SHAPE"],
            signed(set(&base, "result/tokens", json!(12))),
        ),
        (
            98,
            "`result.outputHash` a number.",
            &["ATT-RESULT-SHAPE"],
            signed(set(&base, "result/outputHash", json!(7))),
        ),
        (
            99,
            "`result` is `null`.",
            &["ATT-RESULT-SHAPE"],
            signed(set(&base, "result", Value::Null)),
        ),
        (
            100,
            "`result.costMicrocents` 2^53 (outside the protocol integer range).",
            &["ATT-RESULT-SHAPE"],
            signed(set(
                &base,
                "result/costMicrocents",
                json!(9_007_199_254_740_992_u64),
            )),
        ),
    ];
    for (n, d, r, att) in shapes {
        g.case(n, d, r, &[], op, inp(att, &sc), shape());
    }

    // Precedence (D25).
    let ord = &["ATT-VERIFY-ORDER"];
    let p = &["Precedence"];
    g.case(110, "Malformed (`version` 0.2) AND badly signed AND wrong contract: malformed_attestation first.", ord, p, op,
        inp(set(&set(&good, "version", json!("0.2")), "contractId", json!(ct(0xbad))), &sc), shape());
    g.case(
        111,
        "outputHash mismatch AND signed by mallory: output_hash_mismatch (hash before signature).",
        ord,
        p,
        op,
        inp(
            sign_with(
                &set(&base, "result/outputHash", json!(h(&json!("other")))),
                &keys.mallory,
            ),
            &sc,
        ),
        hashm(),
    );
    g.case(
        112,
        "outputHash mismatch AND contract mismatch (signed): output_hash_mismatch.",
        ord,
        p,
        op,
        inp(
            signed(set(
                &set(&base, "result/outputHash", json!(h(&json!("other")))),
                "contractId",
                json!(ct(0xbad)),
            )),
            &sc,
        ),
        hashm(),
    );
    g.case(
        113,
        "Bad signature AND contract mismatch: invalid_signature.",
        ord,
        p,
        op,
        inp(
            sign_with(&set(&base, "contractId", json!(ct(0xbad))), &keys.mallory),
            &sc,
        ),
        sig(),
    );
    g.case(
        114,
        "Contract mismatch AND schema-violating output AND over budget: contract_mismatch.",
        ord,
        p,
        op,
        inp(
            signed(set(
                &set(
                    &with_output(&base, json!({"summary": 5})),
                    "contractId",
                    json!(ct(0xbad)),
                ),
                "result/costMicrocents",
                json!(999_999),
            )),
            &sc,
        ),
        cm(),
    );
    g.case(115, "Output violating both outputSchema and the verification schema: schema_mismatch (schema before spec).", ord, p, op,
        inp(signed(with_output(&base, json!({"other": 1}))), &sc), sm());
    g.case(
        116,
        "Schema-violating output AND over budget: schema_mismatch.",
        ord,
        p,
        op,
        inp(
            signed(set(
                &with_output(&base, json!({"summary": 5})),
                "result/costMicrocents",
                json!(500_001),
            )),
            &sc,
        ),
        sm(),
    );
    g.case(
        117,
        "Verification failure AND over budget: verification_failed (spec before cost).",
        ord,
        p,
        op,
        inp(
            signed(set(
                &with_output(&base, json!({"summary": "done"})),
                "result/costMicrocents",
                json!(500_001),
            )),
            &sc,
        ),
        vf(),
    );
    g.case(
        118,
        "Bad signature AND over budget: invalid_signature.",
        ord,
        p,
        op,
        inp(set(&good, "result/costMicrocents", json!(500_001)), &sc),
        sig(),
    );
    g.case(
        119,
        "Malformed result (`success` string) AND outputHash mismatch: malformed_attestation.",
        ord,
        p,
        op,
        inp(
            signed(set(
                &set(&base, "result/success", json!(1)),
                "result/outputHash",
                json!(h(&json!("x"))),
            )),
            &sc,
        ),
        shape(),
    );

    // Protocol integers at and beyond 2^53 − 1 (PRIM-INT-RANGE), one result number at a time,
    // each attestation signed by its principal so only the number can matter.
    const MAX_SAFE: u64 = 9_007_199_254_740_991;
    let big_budget = sign_with(
        &set(&sc, "constraints/maxBudgetMicrocents", json!(MAX_SAFE)),
        &keys.root,
    );
    g.case(
        120,
        "costMicrocents 2^53−1 against a contract budget of 2^53−1: the largest protocol integer, equal to the budget — valid.",
        &["ATT-RESULT-SHAPE", "ATT-VERIFY-COST", "PRIM-INT-RANGE"],
        &[],
        op,
        inp(
            signed(set(&base, "result/costMicrocents", json!(MAX_SAFE))),
            &big_budget,
        ),
        ok(),
    );
    g.case(
        121,
        "durationMs 2^53−1 (cost 1000): the largest protocol integer is a valid duration — valid.",
        &["ATT-RESULT-SHAPE", "PRIM-INT-RANGE"],
        &[],
        op,
        inp(
            signed(set(&base, "result/durationMs", json!(MAX_SAFE))),
            &sc,
        ),
        ok(),
    );
    g.case(
        122,
        "durationMs 2^53 (outside the protocol integer range) while costMicrocents is 1000: malformed_attestation.",
        &["ATT-RESULT-SHAPE", "PRIM-INT-RANGE"],
        &[],
        op,
        inp(
            signed(set(&base, "result/durationMs", json!(MAX_SAFE + 1))),
            &sc,
        ),
        shape(),
    );
    // D25: without `output` a schema_match contract has nothing to validate → schema_mismatch
    // (case 63 is the deterministic_check twin: verification_failed).
    g.case(
        123,
        "No `output` and no `outputHash`, schema_match contract: the outputSchema step has nothing to validate — schema_mismatch.",
        &["ATT-VERIFY-SCHEMA", "ATT-VERIFY-ORDER"],
        &[],
        op,
        inp(
            signed(remove(&remove(&base, "result/output"), "result/outputHash")),
            &sc,
        ),
        sm(),
    );
}
