//! Task contracts: create, verify the signature, bind a DCT (spec §5; decision D11).

use serde_json::{json, Map, Value};

use super::dct::{revocation_list, serialized};
use super::input::{invalid, Input};
use super::{to_output, OpError, OpResult};
use crate::contract::{
    bind as bind_contract, create_contract, parse_contract, verify_contract_value, ContractFields,
    TaskContract, CONTRACT_VERSION,
};
use crate::crypto::Keypair;
use crate::faults::Faults;

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &[
    "contract.create",
    "contract.verify_signature",
    "contract.bind",
];

pub(crate) fn run(op: &str, input: &Value, _faults: &Faults) -> Option<OpResult> {
    Some(match op {
        "contract.create" => create(input),
        "contract.verify_signature" => verify_signature(input),
        "contract.bind" => bind(input),
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
    verify_contract_value(input.value("contract")?).map_err(|e| code(&e))?;
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
