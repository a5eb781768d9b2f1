//! Attestations: the §7.1 wire types, signing (§7.2), `outputHash` (D13), and one-level
//! verification against a contract (§7.3).
//!
//! This module owns the verdict "this attestation is a valid completion of this contract".
//! Output checks are delegated to [`crate::checks`]; the contract is taken as already
//! verified (see [`crate::contract::verify_contract_value`]).
//!
//! [`verify_attestation_value`] runs, in this order, and reports the first failure:
//! 0. structure (`malformed_attestation`): exactly the §7.1 fields, `version == "0.1"`, `id`
//!    `att_`, `contractId` `ct_`, `delegationId` `del_`, `childAttestations` entries `att_`
//!    (each + 12 lowercase hex), `principal` a principal id, `createdAt` in the D5 profile,
//!    `signature` 86 characters of strict base64url, numbers non-negative integers ≤ 2^53−1;
//! 1. D25 step 2: if `result.outputHash` is present together with `result.output`,
//!    `outputHash == output_hash(output)` (`output_hash_mismatch`); an `outputHash` without
//!    `output` is allowed and unchecked;
//! 2. §7.3 step 1: the signature verifies under `principal` over
//!    `BLAKE2b-256(canonicalize(attestation JSON as received, without "signature"))`
//!    (`invalid_signature`); then `contractId == contract.id` (`contract_mismatch`);
//! 3. §7.3 step 2: only when `contract.verification.method` is `schema_match`, the output is
//!    validated against `contract.task.outputSchema` (`schema_mismatch`);
//! 4. §7.3 step 3: [`crate::checks::verify_output`] of `contract.verification`; `passed: false`
//!    is `verification_failed`; a check error keeps its check code (`invalid_schema`, ...);
//! 5. §7.3 step 4: `costMicrocents ≤ contract.constraints.maxBudgetMicrocents`
//!    (`budget_exceeded`).
//!
//! An attestation without `result.output` cannot have its output verified: steps 3–4 fail
//! with `schema_mismatch` / `verification_failed` (an absent output is not `null`).
//! `result.success`, `verificationOutcome` and `childAttestations` are carried, not judged
//! (one-level verification, v0.1).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::canonical::{self, canonicalize};
use crate::checks::{self, CheckError, CheckResult, Registry, VerificationMethod};
use crate::contract::TaskContract;
use crate::crypto::{blake2b256, sign_canonical, verify_canonical_principal, Keypair};
use crate::encoding::{
    b64u_encode, decode_signature, is_attestation_id, is_contract_id, is_delegation_id,
    is_principal_id,
};
use crate::faults;
use crate::timestamp::Timestamp;

/// The only attestation version of v0.1.
pub const ATTESTATION_VERSION: &str = "0.1";

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// §7.1 `Attestation.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttestationType {
    /// A task completion.
    Completion,
    /// A verification of a delegate's work.
    DelegationVerification,
}

/// §7.1 `Attestation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Attestation {
    /// `att_` + 12 lowercase hex.
    pub id: String,
    /// Always `"0.1"`.
    pub version: String,
    /// The contract this attests.
    pub contract_id: String,
    /// The delegation this attests.
    pub delegation_id: String,
    /// The attesting principal; signs the attestation.
    pub principal: String,
    /// Creation time (D5 profile).
    pub created_at: String,
    /// Kind of attestation.
    #[serde(rename = "type")]
    pub kind: AttestationType,
    /// What happened.
    pub result: AttestationResult,
    /// Ids of child attestations (not followed in v0.1).
    pub child_attestations: Vec<String>,
    /// base64url Ed25519 signature.
    pub signature: String,
}

/// §7.1 `AttestationResult`. `output: null` is a present output (`Some(Value::Null)`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AttestationResult {
    /// Whether the principal claims success.
    pub success: bool,
    /// The output, if disclosed.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub output: Option<Value>,
    /// `output_hash(output)` (D13).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_hash: Option<String>,
    /// Cost in microcents.
    pub cost_microcents: u64,
    /// Duration in milliseconds.
    pub duration_ms: u64,
    /// The principal's own verification claim (not trusted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_outcome: Option<VerificationOutcome>,
}

/// §7.1 `verificationOutcome`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerificationOutcome {
    /// Verification method name.
    pub method: String,
    /// Claimed verdict.
    pub passed: bool,
    /// Claimed score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Claimed details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Everything of an attestation except `principal`, `version` and `signature`.
#[derive(Debug, Clone, PartialEq)]
pub struct AttestationFields {
    /// `att_` id.
    pub id: String,
    /// Contract id.
    pub contract_id: String,
    /// Delegation id.
    pub delegation_id: String,
    /// Creation time.
    pub created_at: String,
    /// Kind.
    pub kind: AttestationType,
    /// Result.
    pub result: AttestationResult,
    /// Child attestation ids.
    pub child_attestations: Vec<String>,
}

/// What a successful verification established.
#[derive(Debug, Clone, PartialEq)]
pub struct AttestationVerdict {
    /// The result of running the contract's verification spec on the output.
    pub verification: CheckResult,
    /// `output_hash(output)`.
    pub output_hash: String,
}

/// Why an attestation is refused (first failing step of the module doc).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AttestationError {
    /// Step 0.
    #[error("malformed attestation: {0}")]
    Malformed(String),
    /// Step 1.
    #[error("invalid attestation signature: {0}")]
    InvalidSignature(String),
    /// Step 2: `contractId` differs from the contract's id.
    #[error("attestation is for {actual}, not {expected}")]
    ContractMismatch {
        /// `contract.id`.
        expected: String,
        /// `attestation.contractId`.
        actual: String,
    },
    /// Step 2: `outputHash` does not hash `output`.
    #[error("outputHash does not match the output")]
    OutputHashMismatch,
    /// Step 3.
    #[error("output does not match the contract's outputSchema: {0}")]
    SchemaMismatch(String),
    /// Step 4.
    #[error("output failed verification: {}", .0.details.as_deref().unwrap_or("no details"))]
    VerificationFailed(CheckResult),
    /// Step 3 or 4: the check could not be evaluated.
    #[error("verification could not run: {0}")]
    Check(CheckError),
    /// Step 5.
    #[error("cost {cost} exceeds budget {budget}")]
    BudgetExceeded {
        /// `result.costMicrocents`.
        cost: u64,
        /// `contract.constraints.maxBudgetMicrocents`.
        budget: u64,
    },
}

impl AttestationError {
    /// Stable code; [`AttestationError::Check`] keeps the check error's code.
    pub fn code(&self) -> &'static str {
        match self {
            AttestationError::Malformed(_) => "malformed_attestation",
            AttestationError::InvalidSignature(_) => "invalid_signature",
            AttestationError::ContractMismatch { .. } => "contract_mismatch",
            AttestationError::OutputHashMismatch => "output_hash_mismatch",
            AttestationError::SchemaMismatch(_) => "schema_mismatch",
            AttestationError::VerificationFailed(_) => "verification_failed",
            AttestationError::Check(e) => e.code(),
            AttestationError::BudgetExceeded { .. } => "budget_exceeded",
        }
    }
}

fn malformed(msg: impl Into<String>) -> AttestationError {
    AttestationError::Malformed(msg.into())
}

/// D13: `base64url(BLAKE2b-256(canonicalize(output)))`.
pub fn output_hash(output: &Value) -> Result<String, AttestationError> {
    let text = canonicalize(output).map_err(|e| malformed(e.to_string()))?;
    Ok(b64u_encode(&blake2b256(text.as_bytes())))
}

/// Checks the structural rules of step 0 (not the signature).
pub fn check_structure(a: &Attestation) -> Result<(), AttestationError> {
    if a.version != ATTESTATION_VERSION {
        return Err(malformed(format!("version {:?} is not \"0.1\"", a.version)));
    }
    if !is_attestation_id(&a.id) {
        return Err(malformed("id is not att_ + 12 lowercase hex"));
    }
    if !is_contract_id(&a.contract_id) {
        return Err(malformed("contractId is not ct_ + 12 lowercase hex"));
    }
    if !is_delegation_id(&a.delegation_id) {
        return Err(malformed("delegationId is not del_ + 12 lowercase hex"));
    }
    if !is_principal_id(&a.principal) {
        return Err(malformed("principal is not a principal id"));
    }
    if let Some(bad) = a.child_attestations.iter().find(|c| !is_attestation_id(c)) {
        return Err(malformed(format!(
            "childAttestations entry {bad:?} is not an att_ id"
        )));
    }
    Timestamp::parse(&a.created_at).map_err(|e| malformed(format!("createdAt: {e}")))?;
    if a.result.cost_microcents > MAX_SAFE_INTEGER || a.result.duration_ms > MAX_SAFE_INTEGER {
        return Err(malformed("result numbers must be ≤ 2^53−1"));
    }
    decode_signature(&a.signature).map_err(|e| malformed(format!("signature: {e}")))?;
    Ok(())
}

/// The canonical signing payload: the attestation JSON without `signature`.
pub fn signing_payload(attestation: &Value) -> Result<String, AttestationError> {
    canonical::signing_payload(attestation)
        .ok_or_else(|| malformed("attestation is not an object"))?
        .map_err(|e| malformed(e.to_string()))
}

/// Creates and signs an attestation by `signer` (§7.2). Fields are signed as given; use
/// [`output_hash`] to fill `result.outputHash`.
pub fn create_attestation(
    signer: &Keypair,
    fields: AttestationFields,
) -> Result<Attestation, AttestationError> {
    let mut att = Attestation {
        id: fields.id,
        version: ATTESTATION_VERSION.to_owned(),
        contract_id: fields.contract_id,
        delegation_id: fields.delegation_id,
        principal: signer.principal_id(),
        created_at: fields.created_at,
        kind: fields.kind,
        result: fields.result,
        child_attestations: fields.child_attestations,
        signature: String::new(),
    };
    let value = serde_json::to_value(&att).map_err(|e| malformed(e.to_string()))?;
    let payload = signing_payload(&value)?;
    att.signature = b64u_encode(&sign_canonical(signer, &payload));
    check_structure(&att)?;
    Ok(att)
}

/// Parses an attestation from JSON (step 0 only).
pub fn parse_attestation(value: &Value) -> Result<Attestation, AttestationError> {
    let a: Attestation =
        serde_json::from_value(value.clone()).map_err(|e| malformed(e.to_string()))?;
    check_structure(&a)?;
    Ok(a)
}

/// Step 1 on received JSON: the signature under `principal`.
pub fn verify_attestation_signature(value: &Value) -> Result<Attestation, AttestationError> {
    let a = parse_attestation(value)?;
    let payload = signing_payload(value)?;
    let sig = decode_signature(&a.signature).map_err(|e| malformed(format!("signature: {e}")))?;
    if faults::off("attestation.signature-unchecked") {
        verify_canonical_principal(&a.principal, &payload, &sig)
            .map_err(|e| AttestationError::InvalidSignature(e.to_string()))?;
    }
    Ok(a)
}

/// §7.3 one-level verification of a received attestation (steps in the module doc).
pub fn verify_attestation_value(
    value: &Value,
    contract: &TaskContract,
    registry: &Registry,
) -> Result<AttestationVerdict, AttestationError> {
    // D25 order: shape, outputHash (when present WITH output), signature, contractId, ...
    let parsed = parse_attestation(value)?;
    let output = parsed.result.output.as_ref();
    let hash = match output {
        Some(o) => Some(output_hash(o)?),
        None => None,
    };
    if let (Some(claimed), Some(actual)) = (&parsed.result.output_hash, &hash) {
        if claimed != actual && faults::off("attestation.output-hash-unchecked") {
            return Err(AttestationError::OutputHashMismatch);
        }
    }
    let a = verify_attestation_signature(value)?;
    if a.contract_id != contract.id {
        return Err(AttestationError::ContractMismatch {
            expected: contract.id.clone(),
            actual: a.contract_id,
        });
    }
    let (Some(output), Some(hash)) = (output, hash) else {
        return Err(
            if contract.verification.method == VerificationMethod::SchemaMatch {
                AttestationError::SchemaMismatch("no output to validate".into())
            } else {
                AttestationError::VerificationFailed(CheckResult::fail("no output to verify"))
            },
        );
    };
    if contract.verification.method == VerificationMethod::SchemaMatch {
        let r = checks::schema::validate(&contract.task.output_schema, output)
            .map_err(AttestationError::Check)?;
        if !r.passed {
            return Err(AttestationError::SchemaMismatch(
                r.details.unwrap_or_default(),
            ));
        }
    }
    let verification = checks::verify_output(&contract.verification, output, registry)
        .map_err(AttestationError::Check)?;
    if !verification.passed {
        return Err(AttestationError::VerificationFailed(verification));
    }
    let budget = contract.constraints.max_budget_microcents;
    if a.result.cost_microcents > budget && faults::off("attestation.budget-unchecked") {
        return Err(AttestationError::BudgetExceeded {
            cost: a.result.cost_microcents,
            budget,
        });
    }
    Ok(AttestationVerdict {
        verification,
        output_hash: hash,
    })
}
