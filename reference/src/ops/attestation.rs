//! Attestations: create, output hash, one-level verification (spec §7; decisions D13, D25).

use serde_json::{json, Value};

use super::contract::complete_unsigned;
use super::input::Input;
use super::{to_output, OpError, OpResult};
use crate::attestation::{
    create_attestation, output_hash, parse_attestation, signing_payload, verify_attestation_value,
    Attestation, AttestationFields, ATTESTATION_VERSION,
};
use crate::checks::default_registry;
use crate::contract::parse_contract;
use crate::crypto::{verify_canonical_principal, Keypair};
use crate::encoding::decode_signature;

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &[
    "attestation.create",
    "attestation.output_hash",
    "attestation.verify",
    "attestation.verify_signature",
];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "attestation.create" => create(input),
        "attestation.output_hash" => hash(input),
        "attestation.verify" => verify(input),
        "attestation.verify_signature" => verify_signature_with_key(input),
        _ => return None,
    })
}

fn code(e: &crate::attestation::AttestationError) -> OpError {
    OpError::new(e.code(), e.to_string())
}

fn create(input: &Value) -> OpResult {
    let input = Input::new(input, &["principalSeed", "attestation"], &[])?;
    let signer = Keypair::from_seed(&input.seed("principalSeed")?);
    let value = complete_unsigned(
        input.object("attestation")?,
        "principal",
        &signer.principal_id(),
        ATTESTATION_VERSION,
    )?;
    let malformed = |e: serde_json::Error| OpError::new("malformed_attestation", e.to_string());
    let typed: Attestation = serde_json::from_value(value).map_err(malformed)?;
    if typed.version != ATTESTATION_VERSION {
        return Err(OpError::new(
            "malformed_attestation",
            format!("version must be {ATTESTATION_VERSION:?}"),
        ));
    }
    let attestation = create_attestation(
        &signer,
        AttestationFields {
            id: typed.id,
            contract_id: typed.contract_id,
            delegation_id: typed.delegation_id,
            created_at: typed.created_at,
            kind: typed.kind,
            result: typed.result,
            child_attestations: typed.child_attestations,
        },
    )
    .map_err(|e| code(&e))?;
    Ok(json!({ "attestation": to_output(&attestation)? }))
}

fn hash(input: &Value) -> OpResult {
    let input = Input::new(input, &["output"], &[])?;
    let hash = output_hash(input.value("output")?).map_err(|e| code(&e))?;
    Ok(json!({ "outputHash": hash }))
}

fn verify(input: &Value) -> OpResult {
    let input = Input::new(input, &["attestation", "contract"], &[])?;
    let contract = parse_contract(input.value("contract")?)
        .map_err(|e| OpError::new(e.code(), e.to_string()))?;
    verify_attestation_value(input.value("attestation")?, &contract, &default_registry())
        .map_err(|e| code(&e))?;
    Ok(json!({ "valid": true }))
}

/// `verifyAttestationSignature(attestation, signerPublicKey)` (architecture §5.1): structure
/// (D25 step 1), then whether the signature verifies under the CALLER-GIVEN key (D42). The
/// key is not compared with `principal`; a key that is no principal id verifies nothing.
fn verify_signature_with_key(input: &Value) -> OpResult {
    let input = Input::new(input, &["attestation", "publicKey"], &[])?;
    let key = input.str("publicKey")?;
    let key = super::mistakes::lenient_key(key);
    let key = key.as_ref();
    let value = input.value("attestation")?;
    let parsed = parse_attestation(value).map_err(|e| code(&e))?;
    let payload = signing_payload(value).map_err(|e| code(&e))?;
    let sig = decode_signature(&parsed.signature)
        .map_err(|e| OpError::new("malformed_attestation", format!("signature: {e}")))?;
    let valid = verify_canonical_principal(key, &payload, &sig).is_ok()
        || super::mistakes::own_key_verifies(&parsed.principal, &payload, &sig);
    Ok(json!({ "valid": valid }))
}
