//! Area `jsonrpc`: classification of the §9 JSON-RPC 2.0 messages (decision D31).
//!
//! Each valid message is the spec's §9 example with the `"..."` placeholders filled by a
//! well-formed, correctly signed TaskContract / Attestation / RevocationEntry built here (the
//! signature covers BLAKE2b-256 of the canonical JSON of every other member, §5.1, §7.2,
//! §4.1). Each negative case changes one thing of a valid message; all are `invalid_message`.
//! The cases are the rows of `data/tables/jsonrpc.json`: a valid message with members set or
//! removed, a literal JSON value, or a construction named in [`build_message`].

// A row of a data table naming a construction, key or message this file does not define is a
// bug in the table: the generator panics with the row and the name (run in CI, it fails at once).
#![allow(clippy::panic)]

use serde::Deserialize;
use serde_json::{json, Map, Value};

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::{b64u_encode, decode_principal};
use delegateos_reference::ops::OPERATIONS;

use super::dct_support::{self as ds, Chain};
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

/// A case of `data/tables/jsonrpc.json`: the message is built as `message` says.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    id: String,
    description: String,
    requirements: Vec<String>,
    message: Message,
    expect: Expectation,
}

/// How a row's message is built.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum Message {
    /// One of the five valid messages (`request`, `accept`, `reject`, `complete`, `revoke`)
    /// with members set and removed by dot-path.
    Edit {
        from: String,
        #[serde(default)]
        set: Map<String, Value>,
        #[serde(default)]
        del: Vec<String>,
    },
    /// This JSON value, as written.
    Value(Value),
    /// A message that needs the token, a signature or a re-encoding: see [`build_message`].
    Build(String),
}

impl Fx<'_> {
    /// The valid message `name`.
    fn message(&self, name: &str) -> Value {
        match name {
            "request" => self.request.clone(),
            "accept" => self.accept.clone(),
            "reject" => self.reject.clone(),
            "complete" => self.complete.clone(),
            "revoke" => self.revoke.clone(),
            _ => panic!("jsonrpc.json: no message {name}"),
        }
    }
}

/// The messages built by name.
fn build_message(f: &Fx, name: &str) -> Value {
    let dct = |v: Value| set(&f.request, "params.dct", v);
    let token = &f.token;
    match name {
        // Outputs are optional: the attestation re-signed without its output.
        "complete-attestation-without-output" => {
            let att = resigned_attestation(f.k, |a| del(&a, "result.output"));
            set(&f.complete, "params.attestation", att)
        }
        "batch-of-request" => json!([f.request.clone()]),
        "request-dct-padded" => dct(json!(format!("{token}="))),
        "request-dct-standard-alphabet" => dct(json!(format!(
            "{}+/",
            &token[..token.len() - token.len() % 4]
        ))),
        "request-dct-as-object" => dct(Chain::root(f.k).serialized()),
        // A nested object whose only fault is a principal id of the wrong shape (classification
        // verifies no signature, so nothing else can refuse it): the attestation is re-signed by
        // alice with `principal` = alice's public key in hex.
        "complete-attestation-hex-principal" => {
            let hex_key = json!(hex_principal(f.k));
            let att = resigned_attestation(f.k, |a| set(&a, "principal", hex_key));
            set(&f.complete, "params.attestation", att)
        }
        _ => panic!("jsonrpc.json: no construction {name}"),
    }
}

/// Alice's public key in hex.
fn hex_principal(k: &Keys) -> String {
    hex::encode(decode_principal(&k.alice.principal).unwrap_or_default())
}

fn messages(g: &mut Group, k: &Keys) {
    let f = Fx::new(k);
    for row in crate::tables::rows::<Row>("jsonrpc.json") {
        let n = g.number_of("jsonrpc.json", &row.id);
        if KNOWN_DISAGREEMENTS.contains(&n) {
            continue;
        }
        let message = match row.message {
            Message::Edit { from, set, del } => {
                let mut m = f.message(&from);
                for (path, x) in set {
                    m = edit(m, &path, Some(x));
                }
                del.iter().fold(m, |m, path| edit(m, path, None))
            }
            Message::Value(v) => v,
            Message::Build(name) => build_message(&f, &name),
        };
        let reqs: Vec<&str> = row.requirements.iter().map(String::as_str).collect();
        let input = json!({ "message": message });
        let (desc, op) = (&row.description, "jsonrpc.classify");
        g.case(n, desc, &reqs, &[], op, input, row.expect);
    }
}
