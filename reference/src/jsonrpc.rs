//! JSON-RPC 2.0 messages of §9: structural validation and classification.
//!
//! This module owns "is this JSON one of the five DelegateOS messages". [`classify`] returns
//! the typed message or `invalid_message` with a detail. It validates embedded objects with
//! their own modules' structural rules (contract: [`crate::contract::parse_contract`];
//! attestation: [`crate::attestation::parse_attestation`]; revocation entry:
//! [`crate::revocation::entry_from_value`], which also checks its signature) but does not
//! verify contract or attestation signatures: that is the receiver's next step.
//!
//! Rules: a JSON object with `jsonrpc == "2.0"`; no keys beyond `jsonrpc`, `method`, `id`,
//! `params` (requests, notifications) or `jsonrpc`, `id`, `result` (responses); `id` a string
//! or an integer number. `delegateos/delegate` is a request (`id` required);
//! `delegateos/complete` and `delegateos/revoke` are notifications (`id` forbidden). Params
//! and results have exactly the §9 fields (unknown ones rejected): delegate `{contract, dct,
//! dctFormat: "delegateos-sjt-v1", delegationId, parentDelegationId}` with `del_` ids, `dct`
//! non-empty strict base64url; accept `{accepted: true, delegationId, estimatedDurationMs?,
//! estimatedCostMicrocents?}` (non-negative integers); reject `{accepted: false, reason,
//! details?}` (`reason` non-empty); complete `{delegationId, attestation}` where
//! `attestation.delegationId == delegationId`; revoke `{revocation}`. Error responses and other
//! methods are not §9 messages.

use serde_json::{Map, Value};

use crate::attestation::{parse_attestation, Attestation};
use crate::contract::{parse_contract, TaskContract};
use crate::encoding::is_delegation_id;
use crate::revocation::{entry_from_value, RevocationEntry};

/// The DCT format string.
pub const DCT_FORMAT: &str = "delegateos-sjt-v1";

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A JSON-RPC id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestId {
    /// String id.
    Str(String),
    /// Integer id.
    Num(i64),
}

/// A classified §9 message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum MessageKind {
    /// §9.1 `delegateos/delegate` request.
    Delegate {
        /// Request id.
        id: RequestId,
        /// The contract.
        contract: Box<TaskContract>,
        /// The base64url token.
        dct: String,
        /// New delegation id.
        delegation_id: String,
        /// Parent delegation id.
        parent_delegation_id: String,
    },
    /// §9.2 accept response.
    Accept {
        /// Request id.
        id: RequestId,
        /// Accepted delegation id.
        delegation_id: String,
        /// Estimated duration.
        estimated_duration_ms: Option<u64>,
        /// Estimated cost.
        estimated_cost_microcents: Option<u64>,
    },
    /// §9.3 reject response.
    Reject {
        /// Request id.
        id: RequestId,
        /// Reason code.
        reason: String,
        /// Details.
        details: Option<String>,
    },
    /// §9.4 `delegateos/complete` notification.
    Complete {
        /// Delegation id.
        delegation_id: String,
        /// The attestation.
        attestation: Box<Attestation>,
    },
    /// §9.5 `delegateos/revoke` notification.
    Revoke {
        /// The revocation entry.
        revocation: RevocationEntry,
    },
}

impl MessageKind {
    /// Short stable name: `delegate`, `accept`, `reject`, `complete`, `revoke`.
    pub fn name(&self) -> &'static str {
        match self {
            MessageKind::Delegate { .. } => "delegate",
            MessageKind::Accept { .. } => "accept",
            MessageKind::Reject { .. } => "reject",
            MessageKind::Complete { .. } => "complete",
            MessageKind::Revoke { .. } => "revoke",
        }
    }
}

/// The message is not a valid §9 message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid message: {detail}")]
pub struct JsonRpcError {
    /// Why.
    pub detail: String,
}

impl JsonRpcError {
    /// Stable code.
    pub fn code(&self) -> &'static str {
        "invalid_message"
    }
}

fn bad(detail: impl Into<String>) -> JsonRpcError {
    JsonRpcError {
        detail: detail.into(),
    }
}

fn only_keys(obj: &Map<String, Value>, allowed: &[&str], what: &str) -> Result<(), JsonRpcError> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(bad(format!("{what}: unknown member '{k}'"))),
        None => Ok(()),
    }
}

fn string<'a>(obj: &'a Map<String, Value>, key: &str, what: &str) -> Result<&'a str, JsonRpcError> {
    obj.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("{what}.{key} must be a string")))
}

fn del_id(obj: &Map<String, Value>, key: &str, what: &str) -> Result<String, JsonRpcError> {
    let s = string(obj, key, what)?;
    if !is_delegation_id(s) {
        return Err(bad(format!("{what}.{key} is not del_ + 12 lowercase hex")));
    }
    Ok(s.to_owned())
}

fn opt_uint(obj: &Map<String, Value>, key: &str, what: &str) -> Result<Option<u64>, JsonRpcError> {
    match obj.get(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= MAX_SAFE_INTEGER)
            .map(Some)
            .ok_or_else(|| bad(format!("{what}.{key} must be a non-negative integer"))),
    }
}

fn request_id(v: Option<&Value>) -> Result<RequestId, JsonRpcError> {
    match v {
        Some(Value::String(s)) => Ok(RequestId::Str(s.clone())),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(RequestId::Num)
            .ok_or_else(|| bad("id must be a string or an integer")),
        Some(_) => Err(bad("id must be a string or an integer")),
        None => Err(bad("id is required")),
    }
}

fn params(msg: &Map<String, Value>) -> Result<&Map<String, Value>, JsonRpcError> {
    msg.get("params")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("params must be an object"))
}

/// Classifies and validates a §9 message.
pub fn classify(value: &Value) -> Result<MessageKind, JsonRpcError> {
    let msg = value
        .as_object()
        .ok_or_else(|| bad("message is not an object"))?;
    if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(bad("jsonrpc must be \"2.0\""));
    }
    match msg.get("method") {
        Some(Value::String(m)) => {
            only_keys(msg, &["jsonrpc", "method", "id", "params"], "message")?;
            match m.as_str() {
                "delegateos/delegate" => delegate(msg),
                "delegateos/complete" | "delegateos/revoke" if msg.contains_key("id") => Err(bad(
                    format!("{m} is a notification and must not have an id"),
                )),
                "delegateos/complete" => complete(params(msg)?),
                "delegateos/revoke" => revoke(params(msg)?),
                other => Err(bad(format!("unknown method {other:?}"))),
            }
        }
        Some(_) => Err(bad("method must be a string")),
        None => response(msg),
    }
}

fn delegate(msg: &Map<String, Value>) -> Result<MessageKind, JsonRpcError> {
    let id = request_id(msg.get("id"))?;
    let p = params(msg)?;
    const W: &str = "params";
    only_keys(
        p,
        &[
            "contract",
            "dct",
            "dctFormat",
            "delegationId",
            "parentDelegationId",
        ],
        W,
    )?;
    let contract = parse_contract(
        p.get("contract")
            .ok_or_else(|| bad("params.contract is required"))?,
    )
    .map_err(|e| bad(format!("params.contract: {e}")))?;
    let dct = string(p, "dct", W)?;
    if dct.is_empty() {
        return Err(bad("params.dct is empty"));
    }
    // RPC-DELEGATE-PARAMS / D31: the token text is strict base64url (no padding, no `+`/`/`).
    if crate::encoding::b64u_decode(dct).is_err() {
        return Err(bad("params.dct is not strict base64url"));
    }
    if string(p, "dctFormat", W)? != DCT_FORMAT {
        return Err(bad("params.dctFormat must be delegateos-sjt-v1"));
    }
    Ok(MessageKind::Delegate {
        id,
        contract: Box::new(contract),
        dct: dct.to_owned(),
        delegation_id: del_id(p, "delegationId", W)?,
        parent_delegation_id: del_id(p, "parentDelegationId", W)?,
    })
}

fn complete(p: &Map<String, Value>) -> Result<MessageKind, JsonRpcError> {
    only_keys(p, &["delegationId", "attestation"], "params")?;
    let delegation_id = del_id(p, "delegationId", "params")?;
    let attestation = parse_attestation(
        p.get("attestation")
            .ok_or_else(|| bad("params.attestation is required"))?,
    )
    .map_err(|e| bad(format!("params.attestation: {e}")))?;
    if attestation.delegation_id != delegation_id {
        return Err(bad(
            "params.attestation.delegationId differs from params.delegationId",
        ));
    }
    Ok(MessageKind::Complete {
        delegation_id,
        attestation: Box::new(attestation),
    })
}

fn revoke(p: &Map<String, Value>) -> Result<MessageKind, JsonRpcError> {
    only_keys(p, &["revocation"], "params")?;
    let entry = p
        .get("revocation")
        .ok_or_else(|| bad("params.revocation is required"))?;
    let revocation = entry_from_value(entry).map_err(|e| bad(format!("params.revocation: {e}")))?;
    Ok(MessageKind::Revoke { revocation })
}

fn response(msg: &Map<String, Value>) -> Result<MessageKind, JsonRpcError> {
    if msg.contains_key("error") {
        return Err(bad("error responses are not DelegateOS messages"));
    }
    only_keys(msg, &["jsonrpc", "id", "result"], "message")?;
    let id = request_id(msg.get("id"))?;
    let r = msg
        .get("result")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("result must be an object"))?;
    const W: &str = "result";
    match r.get("accepted") {
        Some(Value::Bool(true)) => {
            only_keys(
                r,
                &[
                    "accepted",
                    "delegationId",
                    "estimatedDurationMs",
                    "estimatedCostMicrocents",
                ],
                W,
            )?;
            Ok(MessageKind::Accept {
                id,
                delegation_id: del_id(r, "delegationId", W)?,
                estimated_duration_ms: opt_uint(r, "estimatedDurationMs", W)?,
                estimated_cost_microcents: opt_uint(r, "estimatedCostMicrocents", W)?,
            })
        }
        Some(Value::Bool(false)) => {
            only_keys(r, &["accepted", "reason", "details"], W)?;
            let reason = string(r, "reason", W)?;
            if reason.is_empty() {
                return Err(bad("result.reason is empty"));
            }
            let details = match r.get("details") {
                None => None,
                Some(_) => Some(string(r, "details", W)?.to_owned()),
            };
            Ok(MessageKind::Reject {
                id,
                reason: reason.to_owned(),
                details,
            })
        }
        _ => Err(bad("result.accepted must be a boolean")),
    }
}
