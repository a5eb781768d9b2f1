//! Delegation capability tokens: create, attenuate, verify, inspect, revocation ids (spec §3,
//! §10.1; decisions D4–D9, D16, D23, D24).

use serde_json::{json, Map, Value};

use super::glob::capability;
use super::input::{as_str, as_uint, check_keys, invalid, Input};
use super::{to_output, OpError, OpResult};
use crate::attenuate::{self, AttenuateParams, CreateParams};
use std::collections::HashMap;

use crate::crypto::{KeyStore, Keypair, SignatureError, ValidatedKey};
use crate::revocation::{entry_from_value, RevocationList};
use crate::token::{self, Capability, SerializedDct};
use crate::verify::{self, VerificationContext};

thread_local! {
    /// The signer keys `dct.verify` validated on this thread ([`RecentKeys`]).
    static RECENT_KEYS: std::cell::RefCell<RecentKeys> =
        std::cell::RefCell::new(RecentKeys::default());
}

/// The keys `dct.verify` validated on this thread, so an operation called over and over (a
/// fuzzer runs it twice per case, on a handful of signer keys) validates each key once: the
/// key half of D10 depends only on the key, and a [`KeyStore`] changes how often a key is
/// validated, never a result. Bounded ([`RecentKeys::CAPACITY`], emptied when full), and
/// emptied when the fault switch that weakens key validation changes, so a key validated
/// under one switch is never used under the other.
#[derive(Default)]
struct RecentKeys {
    weak_keys_accepted: bool,
    keys: HashMap<[u8; 32], ValidatedKey>,
}

impl RecentKeys {
    /// At most this many keys are kept.
    const CAPACITY: usize = 256;
}

impl KeyStore for RecentKeys {
    fn validated(&mut self, public_key: &[u8; 32]) -> Result<&ValidatedKey, SignatureError> {
        let weak = crate::faults::on("ed25519.weak-keys-accepted");
        if weak != self.weak_keys_accepted || self.keys.len() >= Self::CAPACITY {
            self.keys.clear();
            self.weak_keys_accepted = weak;
        }
        self.keys.validated(public_key)
    }
}

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &[
    "dct.create",
    "dct.attenuate",
    "dct.verify",
    "dct.inspect",
    "dct.revocation_ids",
];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "dct.create" => create(input),
        "dct.attenuate" => attenuate_op(input),
        "dct.verify" => verify_op(input),
        "dct.inspect" => inspect(input),
        "dct.revocation_ids" => revocation_ids(input),
        _ => return None,
    })
}

/// A SerializedDCT passed as a JSON value: any shape fault is the token's, `malformed_token`.
pub(crate) fn serialized(value: &Value) -> Result<SerializedDct, OpError> {
    SerializedDct::from_value(value).map_err(|e| OpError::new("malformed_token", e.detail))
}

fn capabilities(value: &Value, what: &str) -> Result<Vec<Capability>, OpError> {
    value
        .as_array()
        .ok_or_else(|| invalid(format!("{what:?} must be an array")))?
        .iter()
        .map(|c| {
            c.as_object()
                .ok_or_else(|| invalid(format!("{what:?} entries must be objects")))
                .and_then(|m| capability(m, what))
        })
        .collect()
}

fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Result<&'a Value, OpError> {
    map.get(key)
        .ok_or_else(|| invalid(format!("missing field {key:?} in params")))
}

/// A string parameter of a token block; a present value of the wrong type is a token-format
/// fault (`malformed_token`), a missing one an input-shape fault.
fn string(map: &Map<String, Value>, key: &str) -> Result<String, OpError> {
    as_str(field(map, key)?, key)
        .map(str::to_owned)
        .map_err(token_fault)
}

/// Re-labels a value-level decoding error of token parameters as `malformed_token`.
fn token_fault(e: OpError) -> OpError {
    OpError::new("malformed_token", e.detail)
}

/// An integer parameter of a token block; a present value that is not a protocol integer
/// (negative, fractional, above 2^53−1, not a number) is a token-format fault (D19).
fn param_uint(value: &Value, key: &str) -> Result<u64, OpError> {
    as_uint(value, key)
        .or_else(|e| super::mistakes::unbounded_uint(value).ok_or(e))
        .map_err(token_fault)
}

fn create(input: &Value) -> OpResult {
    let input = Input::new(input, &["issuerSeed", "params"], &[])?;
    let issuer = Keypair::from_seed(&input.seed("issuerSeed")?);
    let p = input.object("params")?;
    check_keys(
        p,
        "params",
        &[
            "delegatee",
            "capabilities",
            "contractId",
            "delegationId",
            "parentDelegationId",
            "chainDepth",
            "maxChainDepth",
            "maxBudgetMicrocents",
            "expiresAt",
            "issuedAt",
        ],
        &[],
    )?;
    let params = CreateParams {
        delegatee: string(p, "delegatee")?,
        capabilities: capabilities(field(p, "capabilities")?, "capabilities")
            .map_err(token_fault)?,
        contract_id: string(p, "contractId")?,
        delegation_id: string(p, "delegationId")?,
        parent_delegation_id: string(p, "parentDelegationId")?,
        chain_depth: param_uint(field(p, "chainDepth")?, "chainDepth")?,
        max_chain_depth: param_uint(field(p, "maxChainDepth")?, "maxChainDepth")?,
        max_budget_microcents: param_uint(field(p, "maxBudgetMicrocents")?, "maxBudgetMicrocents")?,
        expires_at: string(p, "expiresAt")?,
        issued_at: string(p, "issuedAt")?,
    };
    let token =
        attenuate::create(&issuer, params).map_err(|e| OpError::new(e.code(), e.to_string()))?;
    Ok(json!({ "token": to_output(&token::encode(&token))? }))
}

fn attenuate_op(input: &Value) -> OpResult {
    let input = Input::new(input, &["token", "attenuatorSeed", "params"], &[])?;
    let dct = serialized(input.value("token")?)?;
    let attenuator = Keypair::from_seed(&input.seed("attenuatorSeed")?);
    let p = input.object("params")?;
    check_keys(
        p,
        "params",
        &["delegatee", "delegationId", "contractId"],
        &[
            "allowedCapabilities",
            "maxBudgetMicrocents",
            "expiresAt",
            "maxChainDepth",
        ],
    )?;
    let params = AttenuateParams {
        delegatee: string(p, "delegatee")?,
        delegation_id: string(p, "delegationId")?,
        contract_id: string(p, "contractId")?,
        allowed_capabilities: p
            .get("allowedCapabilities")
            .map(|v| capabilities(v, "allowedCapabilities"))
            .transpose()
            .map_err(token_fault)?,
        max_budget_microcents: p
            .get("maxBudgetMicrocents")
            .map(|v| param_uint(v, "maxBudgetMicrocents"))
            .transpose()?,
        expires_at: p
            .get("expiresAt")
            .map(|v| as_str(v, "expiresAt").map(str::to_owned))
            .transpose()
            .map_err(token_fault)?,
        max_chain_depth: p
            .get("maxChainDepth")
            .map(|v| param_uint(v, "maxChainDepth"))
            .transpose()?,
    };
    let token = attenuate::attenuate_serialized(&dct, &attenuator, params)
        .map_err(|e| OpError::new(e.code(), e.to_string()))?;
    Ok(json!({ "token": to_output(&token)? }))
}

/// Builds a revocation list by `add`ing each entry in order; entries `add` refuses are
/// ignored (they must not revoke anything, D6).
pub(crate) fn revocation_list(value: &Value) -> Result<RevocationList, OpError> {
    let items = value
        .as_array()
        .ok_or_else(|| invalid("\"revocations\" must be an array"))?;
    let mut list = RevocationList::new();
    for item in items {
        if let Ok(entry) = entry_from_value(item) {
            // A refused entry is ignored by definition of this operation.
            let _ = list.add(entry);
        }
    }
    Ok(list)
}

fn verify_op(input: &Value) -> OpResult {
    let input = Input::new(input, &["token", "context"], &[])?;
    let ctx = input.object("context")?;
    check_keys(
        ctx,
        "context",
        &[
            "namespace",
            "action",
            "resource",
            "now",
            "spentMicrocents",
            "rootPublicKey",
            "revocations",
        ],
        &[],
    )?;
    let text = |key: &str| -> Result<String, OpError> {
        let value = ctx
            .get(key)
            .ok_or_else(|| invalid(format!("missing {key:?} in context")))?;
        as_str(value, key).map(str::to_owned)
    };
    let revocations = revocation_list(field(ctx, "revocations")?)?;
    let context = VerificationContext {
        namespace: text("namespace")?,
        operation: text("action")?,
        resource: text("resource")?,
        now: text("now")?,
        spent_microcents: as_uint(field(ctx, "spentMicrocents")?, "spentMicrocents")?,
        root_public_key: text("rootPublicKey")?,
        revocations: &revocations,
    };
    let dct = serialized(input.value("token")?)?;
    let scope = RECENT_KEYS
        .with(|keys| verify::verify_with_keys(&dct, &context, &mut *keys.borrow_mut()))
        .map_err(|d| OpError::new(d.code(), d.to_string()))?;
    Ok(json!({ "scope": to_output(&scope)? }))
}

fn inspect(input: &Value) -> OpResult {
    let input = Input::new(input, &["token"], &[])?;
    let dct = serialized(input.value("token")?)?;
    let inspection = token::inspect(&dct).map_err(|e| OpError::new("malformed_token", e.detail))?;
    to_output(&inspection)
}

fn revocation_ids(input: &Value) -> OpResult {
    let input = Input::new(input, &["token"], &[])?;
    let dct = serialized(input.value("token")?)?;
    let decoded =
        token::decode_blocks(&dct).map_err(|e| OpError::new("malformed_token", e.detail))?;
    let ids: Vec<String> = token::block_revocation_ids(&decoded).collect();
    Ok(json!({ "revocationIds": ids }))
}
