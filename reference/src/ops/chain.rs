//! Delegation chains: the §8.2 invariants over a root-to-leaf list (decision D26).

use serde_json::{json, Value};

use super::dct::revocation_list;
use super::input::Input;
use super::{OpError, OpResult};
use crate::chain::{verify_chain, Delegation};
use crate::faults::Faults;

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &["chain.verify"];

pub(crate) fn run(op: &str, input: &Value, _faults: &Faults) -> Option<OpResult> {
    Some(match op {
        "chain.verify" => verify(input),
        _ => return None,
    })
}

fn verify(input: &Value) -> OpResult {
    let input = Input::new(
        input,
        &["delegations", "rootPublicKey", "now", "revocations"],
        &[],
    )?;
    // A delegation that does not even deserialize is malformed (stage 8.1), like one whose
    // fields are present but ill-formed.
    let delegations = input
        .array("delegations")?
        .iter()
        .enumerate()
        .map(|(i, d)| {
            serde_json::from_value::<Delegation>(d.clone())
                .map_err(|e| OpError::new("malformed_delegation", format!("delegation {i}: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let revocations = revocation_list(input.value("revocations")?)?;
    verify_chain(
        &delegations,
        input.str("rootPublicKey")?,
        input.str("now")?,
        &revocations,
    )
    .map_err(|e| OpError::new(e.code(), e.to_string()))?;
    Ok(json!({ "valid": true }))
}
