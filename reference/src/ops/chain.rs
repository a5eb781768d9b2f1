//! Delegation chains: the §8.2 invariants over a root-to-leaf list (decision D26).

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use super::dct::revocation_list;
use super::input::Input;
use super::{OpError, OpResult};
use crate::chain::{verify_chain, ChainError, Delegation};

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &["chain.verify", "chain.verify_store"];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "chain.verify" => verify(input),
        "chain.verify_store" => verify_store(input),
        _ => return None,
    })
}

fn verify(input: &Value) -> OpResult {
    let input = Input::new(
        input,
        &["delegations", "rootPublicKey", "now", "revocations"],
        &[],
    )?;
    let raw: Vec<&Value> = input.array("delegations")?.iter().collect();
    verify_list(&input, &raw)
}

/// The parent id of a root delegation (§8.1).
const ROOT_PARENT: &str = "del_000000000000";

/// `chain.verify_store` (D43): the chain ending at `leafId` in a store of delegations keyed by
/// `id` (architecture §7 `ChainStore`), independent of the order they are listed in. The path
/// is followed from the leaf through `parentId` while the parent is in the store and not yet
/// on the path; the path, root first, is then checked exactly like `chain.verify`'s list.
/// Two records with the same `id` are `malformed_delegation` (a store holds one per id);
/// records off the path are not looked at.
fn verify_store(input: &Value) -> OpResult {
    let input = Input::new(
        input,
        &[
            "delegations",
            "leafId",
            "rootPublicKey",
            "now",
            "revocations",
        ],
        &[],
    )?;
    let leaf = input.str("leafId")?;
    let mut store: BTreeMap<&str, &Value> = BTreeMap::new();
    for (index, d) in input.array("delegations")?.iter().enumerate() {
        if let Some(id) = d.get("id").and_then(Value::as_str) {
            if store.insert(id, d).is_some() {
                return Err(OpError::new(
                    ChainError::Malformed {
                        index,
                        detail: String::new(),
                    }
                    .code(),
                    format!("two delegations in the store have id {id:?}"),
                ));
            }
        }
    }
    let mut path: Vec<&Value> = Vec::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut next = store.get(leaf).map(|d| (leaf, *d));
    while let Some((id, d)) = next.take() {
        seen.insert(id);
        path.push(d);
        next = d
            .get("parentId")
            .and_then(Value::as_str)
            .filter(|p| *p != ROOT_PARENT && !seen.contains(p))
            .and_then(|p| store.get(p).map(|d| (p, *d)));
    }
    path.reverse();
    verify_list(&input, &path)
}

/// `chain.verify` over `raw`, root first.
fn verify_list(input: &Input<'_>, raw: &[&Value]) -> OpResult {
    let revocations = revocation_list(input.value("revocations")?)?;
    let root_public_key = input.str("rootPublicKey")?;
    let now = input.str("now")?;
    // A delegation that does not even deserialize is malformed (stage 8.1), like one whose
    // fields are present but ill-formed. Delegations are deserialized lazily, one at a time
    // (D26): delegation i+1's shape is only looked at once delegation i passed every check,
    // its DCT included.
    let delegations = raw.iter().enumerate().map(|(index, d)| {
        let d = super::mistakes::fractional_depth_read(d);
        Delegation::deserialize(d.as_ref()).map_err(|e| ChainError::Malformed {
            index,
            detail: e.to_string(),
        })
    });
    verify_chain(delegations, root_public_key, now, &revocations)
        .map_err(|e| OpError::new(e.code(), e.to_string()))?;
    Ok(json!({ "valid": true }))
}
