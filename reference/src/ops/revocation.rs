//! Revocation entries and the revocation list (spec §4; decisions D6, D22).

use serde_json::{json, Value};

use super::input::{as_str, Input};
use super::{to_output, OpError, OpResult};
use crate::crypto::Keypair;
use crate::revocation::{create_entry_checked, entry_from_value, RevocationList, Scope};

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &[
    "revocation.create_entry",
    "revocation.verify_entry",
    "revocation.list",
    "revocation.from_json",
];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "revocation.create_entry" => create_entry(input),
        "revocation.verify_entry" => verify_entry(input),
        "revocation.list" => list(input),
        "revocation.from_json" => from_json(input),
        _ => return None,
    })
}

fn code(e: &crate::revocation::RevocationError) -> OpError {
    OpError::new(e.code(), e.to_string())
}

fn create_entry(input: &Value) -> OpResult {
    let input = Input::new(
        input,
        &["revokerSeed", "revocationId", "revokedAt", "scope"],
        &[],
    )?;
    let revoker = Keypair::from_seed(&input.seed("revokerSeed")?);
    let scope = match input.str("scope")? {
        "block" => Scope::Block,
        "chain" => Scope::Chain,
        other => {
            return Err(OpError::new(
                "invalid_scope",
                format!("scope {other:?} is neither block nor chain"),
            ))
        }
    };
    let entry = create_entry_checked(
        &revoker,
        input.str("revocationId")?,
        input.str("revokedAt")?,
        scope,
    )
    .map_err(|e| code(&e))?;
    Ok(json!({ "entry": to_output(&entry)? }))
}

fn verify_entry(input: &Value) -> OpResult {
    let input = Input::new(input, &["entry"], &[])?;
    entry_from_value(input.value("entry")?).map_err(|e| code(&e))?;
    Ok(json!({ "valid": true }))
}

fn ids(list: &RevocationList) -> Vec<String> {
    list.list().into_iter().map(|e| e.revocation_id).collect()
}

fn list(input: &Value) -> OpResult {
    let input = Input::new(input, &["add", "query"], &[])?;
    let mut list = RevocationList::new();
    let mut added = Vec::new();
    for item in input.array("add")? {
        let result = entry_from_value(item).and_then(|entry| list.add(entry));
        added.push(match result {
            Ok(()) => "ok".to_owned(),
            Err(e) => e.code().to_owned(),
        });
    }
    let revoked = input
        .array("query")?
        .iter()
        .map(|q| as_str(q, "query").map(|id| list.is_revoked(id)))
        .collect::<Result<Vec<bool>, OpError>>()?;
    let roundtrip = RevocationList::from_json(&list.to_json()).map_err(|e| {
        OpError::new(
            e.code(),
            format!("fromJSON(toJSON()) failed on a list built by add: {e}"),
        )
    })?;
    Ok(json!({
        "added": added,
        "revoked": revoked,
        "listed": ids(&list),
        "roundtrip": ids(&roundtrip),
    }))
}

fn from_json(input: &Value) -> OpResult {
    let input = Input::new(input, &["json"], &[])?;
    let list = RevocationList::from_json(input.str("json")?).map_err(|e| code(&e))?;
    Ok(json!({ "revocationIds": ids(&list) }))
}
