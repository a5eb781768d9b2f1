//! Area `jsonrpc`: classification of the §9 JSON-RPC 2.0 messages (decision D31).
//!
//! Each valid message is the spec's §9 example with the `"..."` placeholders filled by a
//! well-formed, correctly signed TaskContract / Attestation / RevocationEntry built here (the
//! signature covers BLAKE2b-256 of the canonical JSON of every other member, §5.1, §7.2,
//! §4.1). Each negative case changes one thing of a valid message; all are `invalid_message`.

use serde_json::{json, Value};

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::{b64u_encode, decode_principal};
use delegateos_reference::ops::OPERATIONS;

use super::dct_support::{self as ds, Chain};
use super::Ids;
use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};

/// Cases left out because the reference disagrees with them (reported; never resolved by
/// rewriting the expectation). Re-enable a number by deleting it once the reference is fixed.
/// (None at present.)
const KNOWN_DISAGREEMENTS: &[u16] = &[];

/// Builds the `jsonrpc` area.
pub fn build(area: &mut Area) {
    let keys = area.keys().clone();
    if OPERATIONS.contains(&"jsonrpc.classify") {
        messages(
            area.group(
                "messages",
                "jsonrpc.classify: the five §9 messages and their faults (D31).",
            ),
            &keys,
        );
    }
}

/// Signs `object` (without `signature`) with `key` and adds the `signature` member.
fn signed(key: &Key, mut object: Value) -> Value {
    let text = canonicalize(&object).unwrap_or_default();
    let sig = b64u_encode(&key.keypair().sign_digest(&blake2b256(text.as_bytes())));
    if let Some(m) = object.as_object_mut() {
        m.insert("signature".to_owned(), json!(sig));
    }
    object
}

const DEL: &str = "del_f7e8d9c0b1a2";

fn contract(k: &Keys) -> Value {
    signed(
        &k.root,
        json!({
            "id": ds::CONTRACT,
            "version": "0.1",
            "issuer": k.root.principal,
            "createdAt": "2026-03-01T00:00:00Z",
            "task": {
                "title": "Summarize the project",
                "description": "Read the project documents and summarize them.",
                "inputs": { "path": "/project/README.md" },
                "outputSchema": {
                    "type": "object",
                    "properties": { "summary": { "type": "string" } },
                    "required": ["summary"]
                }
            },
            "verification": {
                "method": "schema_match",
                "schema": { "type": "object", "required": ["summary"] }
            },
            "constraints": {
                "maxBudgetMicrocents": 50000,
                "deadline": "2026-03-01T12:00:00Z",
                "maxChainDepth": 2,
                "requiredCapabilities": ["docs:read"]
            }
        }),
    )
}

fn attestation(k: &Keys, delegation_id: &str) -> Value {
    signed(
        &k.alice,
        json!({
            "id": "att_0000000000a1",
            "version": "0.1",
            "contractId": ds::CONTRACT,
            "delegationId": delegation_id,
            "principal": k.alice.principal,
            "createdAt": "2026-03-01T10:30:00Z",
            "type": "completion",
            "result": {
                "success": true,
                "output": { "summary": "ok" },
                "costMicrocents": 1200,
                "durationMs": 3000
            },
            "childAttestations": []
        }),
    )
}

fn entry(k: &Keys) -> Value {
    let id = b64u_encode(&blake2b256(b"jsonrpc-vector/revoked-block"));
    signed(
        &k.alice,
        json!({
            "revocationId": id,
            "revokedBy": k.alice.principal,
            "revokedAt": "2026-03-01T09:00:00Z",
            "scope": "chain"
        }),
    )
}

/// Sets `path` (dot-separated object keys) in `v` to `x`; `None` removes it.
fn edit(mut v: Value, path: &str, x: Option<Value>) -> Value {
    let keys: Vec<&str> = path.split('.').collect();
    let mut cur = &mut v;
    for key in &keys[..keys.len() - 1] {
        cur = &mut cur[*key];
    }
    if let Some(m) = cur.as_object_mut() {
        let last = keys[keys.len() - 1];
        match x {
            Some(x) => {
                m.insert(last.to_owned(), x);
            }
            None => {
                m.remove(last);
            }
        }
    }
    v
}

fn set(v: &Value, path: &str, x: Value) -> Value {
    edit(v.clone(), path, Some(x))
}

fn del(v: &Value, path: &str) -> Value {
    edit(v.clone(), path, None)
}

/// The five valid §9 messages every case starts from, and the DCT token they carry.
struct Fx<'a> {
    k: &'a Keys,
    token: String,
    request: Value,
    accept: Value,
    reject: Value,
    complete: Value,
    revoke: Value,
}

impl<'a> Fx<'a> {
    fn new(k: &'a Keys) -> Self {
        let token = Chain::root(k).token_string();
        let request = json!({
            "jsonrpc": "2.0",
            "method": "delegateos/delegate",
            "id": 1,
            "params": {
                "contract": contract(k),
                "dct": token,
                "dctFormat": "delegateos-sjt-v1",
                "delegationId": DEL,
                "parentDelegationId": "del_000000000000"
            }
        });
        let accept = json!({
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "accepted": true,
                "delegationId": DEL,
                "estimatedDurationMs": 30000,
                "estimatedCostMicrocents": 50000
            }
        });
        let reject = json!({
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "accepted": false,
                "reason": "capability_mismatch",
                "details": "Agent does not support web:search"
            }
        });
        let complete = json!({
            "jsonrpc": "2.0",
            "method": "delegateos/complete",
            "params": { "delegationId": DEL, "attestation": attestation(k, DEL) }
        });
        let revoke = json!({
            "jsonrpc": "2.0",
            "method": "delegateos/revoke",
            "params": { "revocation": entry(k) }
        });
        Fx {
            k,
            token,
            request,
            accept,
            reject,
            complete,
            revoke,
        }
    }
}

/// The attestation re-signed by alice after `change` (its `signature` removed first).
fn resigned_attestation(k: &Keys, change: impl FnOnce(Value) -> Value) -> Value {
    let mut a = attestation(k, DEL);
    if let Some(m) = a.as_object_mut() {
        m.remove("signature");
    }
    signed(&k.alice, change(a))
}

/// The expected outcome: the message kind, or `invalid_message`.
#[derive(Clone, Copy)]
enum Out {
    Kind(&'static str),
    Bad,
}

const BAD: Out = Out::Bad;
const REQUEST: Out = Out::Kind("delegate_request");
const ACCEPT: Out = Out::Kind("delegate_accept");
const REJECT: Out = Out::Kind("delegate_reject");
const COMPLETE: Out = Out::Kind("complete");

const ENV: &[&str] = &["RPC-ENVELOPE"];
const ID: &[&str] = &["RPC-ID-TYPE"];
const NOID: &[&str] = &["RPC-NOTIFICATION-NO-ID"];
const UF: &[&str] = &["RPC-UNKNOWN-FIELDS"];
const DP: &[&str] = &["RPC-DELEGATE-PARAMS"];
const DP_B64: &[&str] = &["RPC-DELEGATE-PARAMS", "PRIM-B64-STRICT-DECODE"];
const AC: &[&str] = &["RPC-ACCEPT"];
const AC_INT: &[&str] = &["RPC-ACCEPT", "PRIM-INT-RANGE"];
const RJ: &[&str] = &["RPC-REJECT"];
const CO: &[&str] = &["RPC-COMPLETE"];
const RV: &[&str] = &["RPC-REVOKE"];

/// Number, description, requirements, message, expectation.
type Row = (u16, &'static str, Ids, fn(&Fx) -> Value, Out);

/// The five messages, valid variants, envelope, ids and mixed members.
#[rustfmt::skip]
const ENVELOPE_ROWS: &[Row] = &[
    // The five messages (§9.1–9.5).
    (1, "§9.1 delegation request", &["RPC-DELEGATE-REQUEST", "RPC-DELEGATE-PARAMS", "RPC-ENVELOPE"], |f| f.request.clone(), REQUEST),
    (2, "§9.2 delegation accept", &["RPC-ACCEPT", "RPC-ENVELOPE"], |f| f.accept.clone(), ACCEPT),
    (3, "§9.3 delegation reject", &["RPC-REJECT", "RPC-ENVELOPE"], |f| f.reject.clone(), REJECT),
    (4, "§9.4 completion notification", &["RPC-COMPLETE", "RPC-ENVELOPE"], |f| f.complete.clone(), COMPLETE),
    (5, "§9.5 revocation notification", &["RPC-REVOKE", "RPC-ENVELOPE"], |f| f.revoke.clone(), Out::Kind("revoke")),
    // Valid variants.
    (10, "a request with a string id", &["RPC-ID-TYPE", "RPC-DELEGATE-REQUEST"], |f| set(&f.request, "id", json!("req-1")), REQUEST),
    (11, "a request with id 0", &["RPC-ID-TYPE", "RPC-DELEGATE-REQUEST"], |f| set(&f.request, "id", json!(0)), REQUEST),
    (12, "an accept without the optional estimates", AC,
        |f| del(&del(&f.accept, "result.estimatedDurationMs"), "result.estimatedCostMicrocents"), ACCEPT),
    (13, "an accept with a string id", &["RPC-ACCEPT", "RPC-ID-TYPE"], |f| set(&f.accept, "id", json!("req-1")), ACCEPT),
    (14, "a reject without details", RJ, |f| del(&f.reject, "result.details"), REJECT),
    (15, "a reject whose reason is not a registered code (SHOULD, not MUST)", RJ, |f| set(&f.reject, "result.reason", json!("busy")), REJECT),
    (16, "a request for a child delegation (parentDelegationId not the root's)", DP,
        |f| set(&f.request, "params.parentDelegationId", json!("del_000000000001")), REQUEST),
    (17, "an accept with estimates of 0", AC_INT,
        |f| set(&set(&f.accept, "result.estimatedDurationMs", json!(0)), "result.estimatedCostMicrocents", json!(0)), ACCEPT),
    (18, "a completion whose attestation has no output (outputs are optional)", CO,
        |f| set(&f.complete, "params.attestation", resigned_attestation(f.k, |a| del(&a, "result.output"))), COMPLETE),
    // Envelope (RPC-ENVELOPE).
    (20, "jsonrpc \"1.0\"", ENV, |f| set(&f.request, "jsonrpc", json!("1.0")), BAD),
    (21, "jsonrpc missing", ENV, |f| del(&f.request, "jsonrpc"), BAD),
    (22, "jsonrpc as the number 2.0", ENV, |f| set(&f.accept, "jsonrpc", json!(2.0)), BAD),
    (23, "jsonrpc \"2.0 \" with a trailing space", ENV, |f| set(&f.revoke, "jsonrpc", json!("2.0 ")), BAD),
    (24, "the message is an array (a batch)", ENV, |f| json!([f.request.clone()]), BAD),
    (25, "the message is a string", ENV, |_| json!("delegateos/delegate"), BAD),
    (26, "the message is null", ENV, |_| Value::Null, BAD),
    (27, "an unknown method", ENV, |f| set(&f.request, "method", json!("delegateos/unknown")), BAD),
    (28, "a method differing in case", ENV, |f| set(&f.request, "method", json!("delegateos/Delegate")), BAD),
    (29, "a JSON-RPC error response is not a §9 message", ENV,
        |_| json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32001, "message": "DCT verification failed" } }), BAD),
    // Ids (RPC-ID-TYPE, RPC-NOTIFICATION-NO-ID).
    (30, "a delegate request without id", &["RPC-NOTIFICATION-NO-ID", "RPC-DELEGATE-REQUEST"], |f| del(&f.request, "id"), BAD),
    (31, "a delegate request with id null", ID, |f| set(&f.request, "id", Value::Null), BAD),
    (32, "a delegate request with a fractional id", ID, |f| set(&f.request, "id", json!(1.5)), BAD),
    (33, "a delegate request with an object id", ID, |f| set(&f.request, "id", json!({ "n": 1 })), BAD),
    (34, "a delegate request with a boolean id", ID, |f| set(&f.request, "id", json!(true)), BAD),
    (35, "a delegate request with an array id", ID, |f| set(&f.request, "id", json!([1])), BAD),
    (36, "an accept with id null", ID, |f| set(&f.accept, "id", Value::Null), BAD),
    (37, "an accept without id", ID, |f| del(&f.accept, "id"), BAD),
    (38, "a completion carrying an id", NOID, |f| set(&f.complete, "id", json!(2)), BAD),
    (39, "a revocation carrying an id", NOID, |f| set(&f.revoke, "id", json!("r-1")), BAD),
    (40, "a completion carrying id null", NOID, |f| set(&f.complete, "id", Value::Null), BAD),
    // Mixed members (RPC-UNKNOWN-FIELDS).
    (41, "an accept that also has a method", UF, |f| set(&f.accept, "method", json!("delegateos/delegate")), BAD),
    (42, "a reject that also has an error", UF, |f| set(&f.reject, "error", json!({ "code": -32000, "message": "x" })), BAD),
    (43, "a request that also has a result", UF, |f| set(&f.request, "result", json!({ "accepted": true, "delegationId": DEL })), BAD),
];

/// The params and results of each message kind.
#[rustfmt::skip]
const MEMBER_ROWS: &[Row] = &[
    // Delegate params (RPC-DELEGATE-PARAMS, D31).
    (50, "params missing", DP, |f| del(&f.request, "params"), BAD),
    (51, "params is an array", DP, |f| set(&f.request, "params", json!([])), BAD),
    (52, "contract missing", DP, |f| del(&f.request, "params.contract"), BAD),
    (53, "an unknown params member `priority`", &["RPC-DELEGATE-PARAMS", "RPC-UNKNOWN-FIELDS"], |f| set(&f.request, "params.priority", json!("high")), BAD),
    (54, "dct with `=` padding (not strict base64url)", DP_B64, |f| set(&f.request, "params.dct", json!(format!("{}=", f.token))), BAD),
    (55, "dct in the standard base64 alphabet", DP_B64,
        |f| set(&f.request, "params.dct", json!(format!("{}+/", &f.token[..f.token.len() - f.token.len() % 4]))), BAD),
    (56, "dct as a SerializedDCT object instead of its token string", DP, |f| set(&f.request, "params.dct", Chain::root(f.k).serialized()), BAD),
    (57, "dctFormat `delegateos-sjt-v2`", DP, |f| set(&f.request, "params.dctFormat", json!("delegateos-sjt-v2")), BAD),
    (58, "dctFormat missing", DP, |f| del(&f.request, "params.dctFormat"), BAD),
    (59, "delegationId `del_123` (too short)", DP, |f| set(&f.request, "params.delegationId", json!("del_123")), BAD),
    (60, "parentDelegationId with uppercase hex", DP, |f| set(&f.request, "params.parentDelegationId", json!("del_F7E8D9C0B1A2")), BAD),
    (61, "the contract lacks its signature", DP, |f| del(&f.request, "params.contract.signature"), BAD),
    (62, "the contract has an unknown member", DP, |f| set(&f.request, "params.contract.priority", json!(1)), BAD),
    (63, "the contract's version is `0.2`", DP, |f| set(&f.request, "params.contract.version", json!("0.2")), BAD),
    (64, "the contract is a string", DP, |f| set(&f.request, "params.contract", json!("ct_00000000c0de")), BAD),
    (65, "the contract's id has no `ct_` prefix", DP, |f| set(&f.request, "params.contract.id", json!("00000000c0de")), BAD),
    (66, "empty dct", DP, |f| set(&f.request, "params.dct", json!("")), BAD),
    // Accept / reject results (RPC-ACCEPT, RPC-REJECT, D31).
    (70, "an accept with an unknown result member", &["RPC-ACCEPT", "RPC-UNKNOWN-FIELDS"], |f| set(&f.accept, "result.note", json!("x")), BAD),
    (71, "an accept with a fractional estimatedDurationMs", AC_INT, |f| set(&f.accept, "result.estimatedDurationMs", json!(1.5)), BAD),
    (72, "an accept with a negative estimatedCostMicrocents", AC_INT, |f| set(&f.accept, "result.estimatedCostMicrocents", json!(-1)), BAD),
    (73, "an accept with estimatedDurationMs as a string", AC_INT, |f| set(&f.accept, "result.estimatedDurationMs", json!("30000")), BAD),
    (74, "an accept with estimatedCostMicrocents above 2^53 − 1", AC_INT,
        |f| set(&f.accept, "result.estimatedCostMicrocents", json!(9_007_199_254_740_992u64)), BAD),
    (75, "an accept without delegationId", AC, |f| del(&f.accept, "result.delegationId"), BAD),
    (76, "an accept with a malformed delegationId", AC, |f| set(&f.accept, "result.delegationId", json!("f7e8d9c0b1a2")), BAD),
    (77, "accepted is the string \"true\"", AC, |f| set(&f.accept, "result.accepted", json!("true")), BAD),
    (78, "accepted: true with reject members", AC, |f| set(&set(&f.accept, "result.reason", json!("x")), "result.accepted", json!(true)), BAD),
    (79, "a result that is not an object", AC, |f| set(&f.accept, "result", json!(true)), BAD),
    (80, "a reject with an empty reason", RJ, |f| set(&f.reject, "result.reason", json!("")), BAD),
    (81, "a reject without reason", RJ, |f| del(&f.reject, "result.reason"), BAD),
    (82, "a reject whose reason is a number", RJ, |f| set(&f.reject, "result.reason", json!(403)), BAD),
    (83, "a reject whose details is an object", RJ, |f| set(&f.reject, "result.details", json!({ "missing": "web:search" })), BAD),
    (84, "a reject carrying a delegationId (unknown member for a reject)", &["RPC-REJECT", "RPC-UNKNOWN-FIELDS"],
        |f| set(&f.reject, "result.delegationId", json!(DEL)), BAD),
    (85, "a reject with accepted missing", RJ, |f| del(&f.reject, "result.accepted"), BAD),
    // Completion (RPC-COMPLETE, D31).
    (90, "params.delegationId differs from attestation.delegationId", CO, |f| set(&f.complete, "params.delegationId", json!("del_000000000001")), BAD),
    (91, "the attestation is missing", CO, |f| del(&f.complete, "params.attestation"), BAD),
    (92, "the attestation's type is unknown", CO, |f| set(&f.complete, "params.attestation.type", json!("receipt")), BAD),
    (93, "the attestation lacks its signature", CO, |f| del(&f.complete, "params.attestation.signature"), BAD),
    (94, "the attestation's id has no `att_` prefix", CO, |f| set(&f.complete, "params.attestation.id", json!("0000000000a1")), BAD),
    (95, "an unknown params member", &["RPC-COMPLETE", "RPC-UNKNOWN-FIELDS"], |f| set(&f.complete, "params.extra", json!(true)), BAD),
    (96, "params.delegationId missing", CO, |f| del(&f.complete, "params.delegationId"), BAD),
    // Revocation (RPC-REVOKE, D31).
    (100, "the revocation entry lacks its signature", RV, |f| del(&f.revoke, "params.revocation.signature"), BAD),
    (101, "the revocation entry has an unknown member", RV, |f| set(&f.revoke, "params.revocation.reason", json!("x")), BAD),
    (102, "the revocation member is missing", RV, |f| del(&f.revoke, "params.revocation"), BAD),
    (103, "an unknown params member", &["RPC-REVOKE", "RPC-UNKNOWN-FIELDS"], |f| set(&f.revoke, "params.entries", json!([])), BAD),
    (104, "the revocation's revokedAt is not a profile timestamp", RV, |f| set(&f.revoke, "params.revocation.revokedAt", json!("2026-03-01")), BAD),
    // Unknown top-level members (D31: a closed member set per message kind).
    (105, "a request with an unknown top-level member `meta`", &["RPC-UNKNOWN-FIELDS", "RPC-DELEGATE-REQUEST"],
        |f| set(&f.request, "meta", json!({ "trace": "t-1" })), BAD),
    (106, "an accept with an unknown top-level member `meta`", &["RPC-UNKNOWN-FIELDS", "RPC-ACCEPT"], |f| set(&f.accept, "meta", json!({ "trace": "t-1" })), BAD),
    // A nested object whose only fault is a principal id of the wrong shape (classification
    // verifies no signature, so nothing else can refuse it): the attestation is re-signed by
    // alice with `principal` = alice's public key in hex.
    (107, "the attestation's principal is alice's key in hex (64 characters), not a principal id", &["RPC-COMPLETE", "ATT-SHAPE", "PRIM-ID-PRINCIPAL"],
        |f| set(&f.complete, "params.attestation", resigned_attestation(f.k, |a| set(&a, "principal", json!(hex_principal(f.k))))), BAD),
];

/// Alice's public key in hex.
fn hex_principal(k: &Keys) -> String {
    hex::encode(decode_principal(&k.alice.principal).unwrap_or_default())
}

fn messages(g: &mut Group, k: &Keys) {
    let f = Fx::new(k);
    for &(n, desc, reqs, message, out) in ENVELOPE_ROWS.iter().chain(MEMBER_ROWS) {
        if KNOWN_DISAGREEMENTS.contains(&n) {
            continue;
        }
        let expect = match out {
            Out::Kind(kind) => Expectation::valid(json!({ "kind": kind })),
            // error-codes.md §9 defines no stage for `invalid_message`.
            Out::Bad => Expectation::Invalid {
                code: "invalid_message".to_owned(),
                stage: None,
            },
        };
        let input = json!({ "message": message(&f) });
        g.case(n, desc, reqs, &[], "jsonrpc.classify", input, expect);
    }
}
