//! Task contracts: the §5.1 wire types, signing, signature verification, and DCT binding
//! (§5.2, D11).
//!
//! This module owns what a contract *is* and whether a token may execute it. It does not
//! evaluate outputs (that is [`crate::checks`]) nor attestations ([`crate::attestation`]).
//!
//! - Signing: `signature = base64url(Ed25519(issuer, BLAKE2b-256(canonicalize(contract
//!   without "signature"))))`.
//! - [`verify_contract_value`] checks the signature over the canonical form of the JSON **as
//!   received** (minus `signature`), so a field the typed model would normalise cannot make a
//!   forged contract verify or a genuine one fail; the typed parse is used for structure only.
//! - Structure (`malformed_contract`): exactly the §5.1 fields (unknown fields rejected, at every
//!   level including `VerificationSpec`), `version == "0.1"`, `id` is `ct_` + 12 lowercase hex,
//!   `issuer` a principal id, `createdAt`/`deadline` in the D5 timestamp profile, numbers
//!   non-negative integers ≤ 2^53−1, every `requiredCapabilities` entry `ns:action` with both
//!   halves non-empty (split at the first `:`), `signature` 86 characters of strict base64url.
//! - [`bind`] (D11): the token must verify (§10.1 steps 1–6 at `now`, nothing spent); its last
//!   `contractId` must equal `contract.id` (`contract_mismatch`); every required capability must
//!   have an effective capability with that namespace and action, any resource
//!   (`capability_mismatch`). A token that does not verify fails with the verify denial's code.
//!   `bind` does not check the contract's own signature: callers verify it first.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::canonical;
use crate::checks::VerificationSpec;
use crate::crypto::{sign_canonical, verify_canonical_principal, Keypair};
use crate::encoding::{b64u_encode, decode_signature, is_contract_id, is_principal_id};
use crate::faults;
use crate::revocation::RevocationList;
use crate::timestamp::Timestamp;
use crate::token::SerializedDct;
use crate::verify::{evaluate, AuthorizedScope, Denial};

/// The only contract version of v0.1.
pub const CONTRACT_VERSION: &str = "0.1";

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// §5.1 `TaskContract`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskContract {
    /// `ct_` + 12 lowercase hex.
    pub id: String,
    /// Always `"0.1"`.
    pub version: String,
    /// Issuer principal id; signs the contract.
    pub issuer: String,
    /// Creation time (D5 profile).
    pub created_at: String,
    /// What to do.
    pub task: TaskSpec,
    /// How the output is verified.
    pub verification: VerificationSpec,
    /// Budget, deadline, depth, capabilities.
    pub constraints: TaskConstraints,
    /// base64url Ed25519 signature over the canonical contract without this field.
    pub signature: String,
}

/// §5.1 `TaskSpec`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskSpec {
    /// Short title.
    pub title: String,
    /// Description.
    pub description: String,
    /// Free-form inputs.
    pub inputs: Map<String, Value>,
    /// Draft-07 JSON Schema of the expected output.
    pub output_schema: Value,
}

/// §5.1 `TaskConstraints`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskConstraints {
    /// Budget in microcents.
    pub max_budget_microcents: u64,
    /// Deadline (D5 profile).
    pub deadline: String,
    /// Maximum delegation depth.
    pub max_chain_depth: u64,
    /// `"namespace:action"` entries.
    pub required_capabilities: Vec<String>,
}

/// Everything of a contract except `issuer` and `signature`, for [`create_contract`].
#[derive(Debug, Clone, PartialEq)]
pub struct ContractFields {
    /// `ct_` id.
    pub id: String,
    /// Creation time.
    pub created_at: String,
    /// Task.
    pub task: TaskSpec,
    /// Verification spec.
    pub verification: VerificationSpec,
    /// Constraints.
    pub constraints: TaskConstraints,
}

/// Why a contract is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContractError {
    /// Structure or field formats are wrong.
    #[error("malformed contract: {0}")]
    Malformed(String),
    /// The signature does not verify under `issuer`.
    #[error("invalid contract signature: {0}")]
    InvalidSignature(String),
}

impl ContractError {
    /// Stable code.
    pub fn code(&self) -> &'static str {
        match self {
            ContractError::Malformed(_) => "malformed_contract",
            ContractError::InvalidSignature(_) => "invalid_signature",
        }
    }
}

/// Why a token may not execute a contract (D11).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindingError {
    /// The token does not verify; the code is the denial's.
    #[error("token does not verify: {0}")]
    Denied(Denial),
    /// The token's last contractId is not the contract's id.
    #[error("token is bound to {actual}, not {expected}")]
    ContractMismatch {
        /// `contract.id`.
        expected: String,
        /// The token's effective contractId.
        actual: String,
    },
    /// Required capabilities without an effective capability of that namespace and action.
    #[error("required capabilities not granted: {}", missing.join(", "))]
    CapabilityMismatch {
        /// The uncovered `ns:action` entries, in contract order.
        missing: Vec<String>,
    },
}

impl BindingError {
    /// Stable code: `contract_mismatch`, `capability_mismatch`, or the verify denial's code.
    pub fn code(&self) -> &'static str {
        match self {
            BindingError::Denied(d) => d.code(),
            BindingError::ContractMismatch { .. } => "contract_mismatch",
            BindingError::CapabilityMismatch { .. } => "capability_mismatch",
        }
    }
}

fn malformed(msg: impl Into<String>) -> ContractError {
    ContractError::Malformed(msg.into())
}

/// Splits `"ns:action"` at the first `:`; both halves must be non-empty.
pub fn split_required(entry: &str) -> Option<(&str, &str)> {
    let (ns, action) = entry.split_once(':')?;
    (!ns.is_empty() && !action.is_empty()).then_some((ns, action))
}

/// Checks every format rule of the module doc except the signature itself.
pub fn check_structure(c: &TaskContract) -> Result<(), ContractError> {
    if c.version != CONTRACT_VERSION {
        return Err(malformed(format!("version {:?} is not \"0.1\"", c.version)));
    }
    if !is_contract_id(&c.id) {
        return Err(malformed("id is not ct_ + 12 lowercase hex"));
    }
    if !is_principal_id(&c.issuer) {
        return Err(malformed("issuer is not a principal id"));
    }
    if !c.task.output_schema.is_object() {
        return Err(malformed(
            "task.outputSchema must be an object (CONTRACT-TASK)",
        ));
    }
    Timestamp::parse(&c.created_at).map_err(|e| malformed(format!("createdAt: {e}")))?;
    Timestamp::parse(&c.constraints.deadline).map_err(|e| malformed(format!("deadline: {e}")))?;
    if c.constraints.max_budget_microcents > MAX_SAFE_INTEGER
        || c.constraints.max_chain_depth > MAX_SAFE_INTEGER
    {
        return Err(malformed("constraint numbers must be ≤ 2^53−1"));
    }
    if let Some(bad) = c
        .constraints
        .required_capabilities
        .iter()
        .find(|r| split_required(r).is_none())
    {
        return Err(malformed(format!(
            "requiredCapabilities entry {bad:?} is not ns:action"
        )));
    }
    decode_signature(&c.signature).map_err(|e| malformed(format!("signature: {e}")))?;
    Ok(())
}

/// The canonical signing payload: the contract JSON without `signature`.
pub fn signing_payload(contract: &Value) -> Result<String, ContractError> {
    canonical::signing_payload(contract)
        .ok_or_else(|| malformed("contract is not an object"))?
        .map_err(|e| malformed(e.to_string()))
}

/// Creates and signs a contract issued by `issuer`.
pub fn create_contract(
    issuer: &Keypair,
    fields: ContractFields,
) -> Result<TaskContract, ContractError> {
    let mut contract = TaskContract {
        id: fields.id,
        version: CONTRACT_VERSION.to_owned(),
        issuer: issuer.principal_id(),
        created_at: fields.created_at,
        task: fields.task,
        verification: fields.verification,
        constraints: fields.constraints,
        signature: String::new(),
    };
    let value = serde_json::to_value(&contract).map_err(|e| malformed(e.to_string()))?;
    let payload = signing_payload(&value)?;
    contract.signature = b64u_encode(&sign_canonical(issuer, &payload));
    check_structure(&contract)?;
    Ok(contract)
}

/// Parses a contract from JSON (structure only; see [`check_structure`]).
pub fn parse_contract(value: &Value) -> Result<TaskContract, ContractError> {
    let c: TaskContract =
        serde_json::from_value(value.clone()).map_err(|e| malformed(e.to_string()))?;
    check_structure(&c)?;
    Ok(c)
}

/// Verifies a contract given as received JSON: structure, then the signature over the
/// received fields. Returns the typed contract.
pub fn verify_contract_value(value: &Value) -> Result<TaskContract, ContractError> {
    let c = parse_contract(value)?;
    let payload = signing_payload(value)?;
    let sig = decode_signature(&c.signature).map_err(|e| malformed(format!("signature: {e}")))?;
    if faults::off("contract.signature-unchecked") {
        verify_canonical_principal(&c.issuer, &payload, &sig)
            .map_err(|e| ContractError::InvalidSignature(e.to_string()))?;
    }
    Ok(c)
}

/// D11 binding of `token` to `contract` at `now` under `root_public_key`.
pub fn bind(
    contract: &TaskContract,
    token: &SerializedDct,
    now: &str,
    root_public_key: &str,
    revocations: &RevocationList,
) -> Result<AuthorizedScope, BindingError> {
    let scope =
        evaluate(token, now, 0, root_public_key, revocations).map_err(BindingError::Denied)?;
    if scope.contract_id != contract.id && faults::off("contract.bind-contract-id-unchecked") {
        return Err(BindingError::ContractMismatch {
            expected: contract.id.clone(),
            actual: scope.contract_id,
        });
    }
    let missing: Vec<String> = contract
        .constraints
        .required_capabilities
        .iter()
        .filter(|req| match split_required(req) {
            Some((ns, action)) => !scope.capabilities.iter().any(|c| {
                c.namespace == ns
                    && (c.action == action || faults::on("contract.bind-action-ignored"))
            }),
            None => true,
        })
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(BindingError::CapabilityMismatch { missing });
    }
    Ok(scope)
}
