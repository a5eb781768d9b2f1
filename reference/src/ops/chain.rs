//! Delegation chains: the §8.2 invariants over a root-to-leaf list (decision D26).

use serde::Deserialize;
use serde_json::{json, Value};

use super::dct::revocation_list;
use super::input::Input;
use super::{OpError, OpResult};
use crate::chain::{verify_chain_lazy, ChainError, Delegation};
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
    let raw = input.array("delegations")?;
    let revocations = revocation_list(input.value("revocations")?)?;
    let root_public_key = input.str("rootPublicKey")?;
    let now = input.str("now")?;
    // A delegation that does not even deserialize is malformed (stage 8.1), like one whose
    // fields are present but ill-formed. Delegations are deserialized lazily, one at a time
    // (D26): delegation i+1's shape is only looked at once delegation i passed every check,
    // its DCT included.
    let delegations = raw.iter().enumerate().map(|(index, d)| {
        Delegation::deserialize(d).map_err(|e| ChainError::Malformed {
            index,
            detail: e.to_string(),
        })
    });
    verify_chain_lazy(delegations, root_public_key, now, &revocations)
        .map_err(|e| OpError::new(e.code(), e.to_string()))?;
    Ok(json!({ "valid": true }))
}
