//! Task contracts: create, verify the signature, bind a DCT (spec §5; decision D11).

use serde_json::{json, Map, Value};

use super::dct::{revocation_list, serialized};
use super::input::{invalid, Input};
use super::{to_output, OpError, OpResult};
use crate::contract::{
    bind as bind_contract, create_contract, parse_contract, signing_payload, split_required,
    verify_contract_value, ContractFields, TaskContract, CONTRACT_VERSION,
};
use crate::crypto::{verify_canonical_principal, Keypair};
use crate::encoding::decode_signature;
use crate::token;

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &[
    "contract.create",
    "contract.verify_signature",
    "contract.bind",
    "contract.verify_signature_with_key",
    "contract.check_binding",
];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "contract.create" => create(input),
        "contract.verify_signature" => verify_signature(input),
        "contract.bind" => bind(input),
        "contract.verify_signature_with_key" => verify_signature_with_key(input),
        "contract.check_binding" => check_binding(input),
        _ => return None,
    })
}

fn code(e: &crate::contract::ContractError) -> OpError {
    OpError::new(e.code(), e.to_string())
}

/// Completes an unsigned object with the signer's id under `signer_key` (which, if present,
/// must already be that id), `version` (if absent) and a placeholder `signature`, so that it
/// deserializes into the signed type; the placeholder is replaced by the real signature.
pub(crate) fn complete_unsigned(
    fields: &Map<String, Value>,
    signer_key: &str,
    signer: &str,
    version: &str,
) -> Result<Value, OpError> {
    let mut obj = fields.clone();
    if obj.contains_key("signature") {
        return Err(invalid("the object to sign must not contain \"signature\""));
    }
    match obj.get(signer_key) {
        Some(Value::String(s)) if s == signer => {}
        Some(_) => {
            return Err(invalid(format!(
                "{signer_key:?} must be the principal of the signing seed"
            )))
        }
        None => {
            obj.insert(signer_key.to_owned(), Value::String(signer.to_owned()));
        }
    }
    if !obj.contains_key("version") {
        obj.insert("version".to_owned(), Value::String(version.to_owned()));
    }
    obj.insert("signature".to_owned(), Value::String(String::new()));
    Ok(Value::Object(obj))
}

fn create(input: &Value) -> OpResult {
    let input = Input::new(input, &["issuerSeed", "contract"], &[])?;
    let issuer = Keypair::from_seed(&input.seed("issuerSeed")?);
    let value = complete_unsigned(
        input.object("contract")?,
        "issuer",
        &issuer.principal_id(),
        CONTRACT_VERSION,
    )?;
    let malformed = |e: serde_json::Error| OpError::new("malformed_contract", e.to_string());
    let typed: TaskContract = serde_json::from_value(value).map_err(malformed)?;
    if typed.version != CONTRACT_VERSION {
        return Err(OpError::new(
            "malformed_contract",
            format!("version must be {CONTRACT_VERSION:?}"),
        ));
    }
    let contract = create_contract(
        &issuer,
        ContractFields {
            id: typed.id,
            created_at: typed.created_at,
            task: typed.task,
            verification: typed.verification,
            constraints: typed.constraints,
        },
    )
    .map_err(|e| code(&e))?;
    Ok(json!({ "contract": to_output(&contract)? }))
}

fn verify_signature(input: &Value) -> OpResult {
    let input = Input::new(input, &["contract"], &[])?;
    let contract = super::mistakes::contract_as_typed(input.value("contract")?);
    verify_contract_value(&contract).map_err(|e| code(&e))?;
    Ok(json!({ "valid": true }))
}

fn bind(input: &Value) -> OpResult {
    let input = Input::new(
        input,
        &["contract", "token", "now", "rootPublicKey", "revocations"],
        &[],
    )?;
    let contract = parse_contract(input.value("contract")?).map_err(|e| code(&e))?;
    let dct = serialized(input.value("token")?)?;
    let revocations = revocation_list(input.value("revocations")?)?;
    bind_contract(
        &contract,
        &dct,
        input.str("now")?,
        input.str("rootPublicKey")?,
        &revocations,
    )
    .map_err(|e| OpError::new(e.code(), e.to_string()))?;
    Ok(json!({ "bound": true }))
}

/// `verifyContractSignature(contract, issuerPublicKey)` (architecture §8): structure (D27),
/// then whether the signature verifies under the CALLER-GIVEN key (D42). The key is not
/// compared with `issuer`; a key that is no principal id verifies nothing.
fn verify_signature_with_key(input: &Value) -> OpResult {
    let input = Input::new(input, &["contract", "publicKey"], &[])?;
    let key = input.str("publicKey")?;
    let key = super::mistakes::lenient_key(key);
    let key = key.as_ref();
    let value = input.value("contract")?;
    let parsed = parse_contract(value).map_err(|e| code(&e))?;
    let payload = signing_payload(value).map_err(|e| code(&e))?;
    let sig = decode_signature(&parsed.signature)
        .map_err(|e| OpError::new("malformed_contract", format!("signature: {e}")))?;
    let valid = verify_canonical_principal(key, &payload, &sig).is_ok()
        || super::mistakes::own_key_verifies(&parsed.issuer, &payload, &sig);
    Ok(json!({ "valid": valid }))
}

/// §5.2 binding exactly as the spec states it (D11, D43): the token is decoded, not verified
/// (that is `dct.verify`'s job, and `contract.bind` is the combined check); its last
/// `contractId` must be `contract.id` (`contract_mismatch`) and its effective capabilities
/// must cover every `requiredCapabilities` entry (`capability_mismatch`).
fn check_binding(input: &Value) -> OpResult {
    let input = Input::new(input, &["contract", "token"], &[])?;
    let contract = parse_contract(input.value("contract")?).map_err(|e| code(&e))?;
    let dct = serialized(input.value("token")?)?;
    let inspection = token::inspect(&dct).map_err(|e| OpError::new("malformed_token", e.detail))?;
    if inspection.contract_id != contract.id {
        return Err(OpError::new(
            "contract_mismatch",
            format!(
                "token is bound to {}, not {}",
                inspection.contract_id, contract.id
            ),
        ));
    }
    let missing: Vec<&str> = contract
        .constraints
        .required_capabilities
        .iter()
        .filter(|req| match split_required(req) {
            Some((ns, action)) => !inspection
                .capabilities
                .iter()
                .any(|c| c.namespace == ns && c.action == action),
            None => true,
        })
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(OpError::new(
            "capability_mismatch",
            format!("required capabilities not granted: {}", missing.join(", ")),
        ));
    }
    Ok(json!({ "bound": true }))
}
