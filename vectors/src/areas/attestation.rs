//! Area `attestation`: creation (§7.1–7.2), `outputHash` (D13) and one-level verification
//! against a contract (§7.3 in the order of D25).
//!
//! Signed attestations are built here from the primitives (canonical JSON → BLAKE2b-256 →
//! Ed25519 with the fixed keys). Negative cases change ONE thing and re-sign with the
//! principal's key unless the case is about the signature; precedence cases combine two
//! faults and expect the one D25 checks first.

// A row of a data table naming a construction, key or message this file does not define is a
// bug in the table: the generator panics with the row and the name (run in CI, it fails at once).
#![allow(clippy::panic)]

use serde::Deserialize;
use serde_json::{json, Map, Value};

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::b64u_encode;

use super::contract::{remove, set, sign_with, sign_without, unsigned_contract};
use super::dct_support::{ct, CONTRACT, DELEGATION};
use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};
use crate::tables::Ids;

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

/// An `outputHash` case: an output, and the value whose D13 hash is expected (the output
/// itself unless `same_as` names another that must hash alike).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HashRow {
    id: String,
    description: String,
    output: Value,
    #[serde(default)]
    same_as: Option<Value>,
}

/// The `outputHash` of plain outputs: rows of `data/tables/attestation_output_hash.json`, each
/// expectation computed by the D13 formula ([`h`]).
fn build_hash(g: &mut Group) {
    for row in crate::tables::rows::<HashRow>("attestation_output_hash.json") {
        let hash = h(row.same_as.as_ref().unwrap_or(&row.output));
        let (op, reqs) = ("attestation.output_hash", &["ATT-OUTPUT-HASH"]);
        let input = json!({ "output": row.output });
        let expect = Expectation::valid(json!({ "outputHash": hash }));
        g.case(
            g.number_of("attestation_output_hash.json", &row.id),
            &row.description,
            reqs,
            &[],
            op,
            input,
            expect,
        );
    }
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

/// A verify case of `data/tables/attestation_verify.json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VerifyRow {
    id: String,
    description: String,
    requirements: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    attestation: AttestationOf,
    contract: ContractOf,
    expect: Expectation,
}

/// How a row's attestation is built.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum AttestationOf {
    /// Alice's signed (`good`) or unsigned (`base`) attestation, given this `output` (and its
    /// hash), these members set and removed by `/`-path, then signed by `sign` if present.
    Edit(Edit),
    /// See [`built_attestation`].
    Build(String),
}

/// The edits of [`AttestationOf::Edit`], applied in field order.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Edit {
    from: String,
    #[serde(default, deserialize_with = "present")]
    output: Option<Value>,
    #[serde(default)]
    set: Map<String, Value>,
    /// `result/outputHash` set to a hash the row describes (after `set`).
    #[serde(default)]
    output_hash: Option<HashOf>,
    #[serde(default)]
    remove: Vec<String>,
    #[serde(default)]
    sign: Option<String>,
}

/// An `outputHash` a row describes by how it is computed, not by its value.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum HashOf {
    /// D13's hash of this value ([`h`]).
    Of(Value),
    /// base64url of BLAKE2b-256 of this text's UTF-8 bytes (a hash over non-canonical text).
    Text(String),
    /// Lowercase hex of BLAKE2b-256 of this value's canonical text (the wrong encoding).
    Hex(Value),
}

impl HashOf {
    fn value(&self) -> String {
        let digest = |text: &str| blake2b256(text.as_bytes());
        match self {
            Self::Of(v) => h(v),
            Self::Text(t) => b64u_encode(&digest(t)),
            Self::Hex(v) => hex::encode(digest(&canonicalize(v).unwrap_or_default())),
        }
    }
}

/// A member that is present, even `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The contract of a row.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum ContractOf {
    /// [`schema_contract`].
    Schema,
    /// [`det_contract`].
    Det,
    /// The default contract with this verification spec, signed by root.
    Verification(Value),
    /// See [`built_contract`].
    Build(String),
}

impl Fx<'_> {
    fn key(&self, name: &str) -> &Key {
        match name {
            "alice" => &self.k.alice,
            "mallory" => &self.k.mallory,
            "root" => &self.k.root,
            _ => panic!("attestation_verify.json: no key {name}"),
        }
    }

    fn edited(&self, e: Edit) -> Value {
        let mut v = if e.from == "good" {
            self.good.clone()
        } else {
            self.base.clone()
        };
        if let Some(o) = e.output {
            v = with_output(&v, o);
        }
        v = e.set.into_iter().fold(v, |v, (p, x)| set(&v, &p, x));
        if let Some(hash) = e.output_hash {
            v = set(&v, "result/outputHash", json!(hash.value()));
        }
        v = e.remove.iter().fold(v, |v, p| remove(&v, p));
        match e.sign {
            Some(name) => sign_with(&v, self.key(&name)),
            None => v,
        }
    }
}

/// The attestations built by name.
fn built_attestation(f: &Fx, name: &str) -> Value {
    match name {
        // One-level verification does not authorise principals.
        "attested-by-mallory" => sign_with(&unsigned(&f.k.mallory), &f.k.mallory),
        "array-of-good" => json!([f.good.clone()]),
        // alice signs every member but `result`; the output (with a matching hash) is then
        // replaced where the signature does not reach.
        "signed-without-result-output-replaced" => with_output(
            &sign_without(&f.base, &f.k.alice, &["result"]),
            json!({"summary": "ok: something else"}),
        ),
        _ => panic!("attestation_verify.json: no attestation {name}"),
    }
}

/// The contracts built by name.
fn built_contract(f: &Fx, name: &str) -> Value {
    let root = &f.k.root;
    match name {
        "default-with-other-id" => {
            sign_with(&set(&unsigned_contract(root), "id", json!(ct(0x1))), root)
        }
        "schema-with-max-budget" => {
            let max_safe = json!(9_007_199_254_740_991_u64);
            sign_with(
                &set(&f.sc, "constraints/maxBudgetMicrocents", max_safe),
                root,
            )
        }
        _ => panic!("attestation_verify.json: no contract {name}"),
    }
}

fn build_verify(g: &mut Group, keys: &Keys) {
    let f = Fx::new(keys);
    for row in crate::tables::rows::<VerifyRow>("attestation_verify.json") {
        let n = g.number_of("attestation_verify.json", &row.id);
        let attestation = match row.attestation {
            AttestationOf::Edit(e) => f.edited(e),
            AttestationOf::Build(name) => built_attestation(&f, &name),
        };
        let contract = match row.contract {
            ContractOf::Schema => f.sc.clone(),
            ContractOf::Det => f.dc.clone(),
            ContractOf::Verification(spec) => f.verifying(spec),
            ContractOf::Build(name) => built_contract(&f, &name),
        };
        let reqs: Vec<&str> = row.requirements.iter().map(String::as_str).collect();
        let flags: Vec<&str> = row.flags.iter().map(String::as_str).collect();
        let input = json!({"attestation": attestation, "contract": contract});
        let (desc, op) = (&row.description, "attestation.verify");
        g.case(n, desc, &reqs, &flags, op, input, row.expect);
    }
}
