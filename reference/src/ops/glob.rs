//! Resource glob matching and capability subset (spec §10.2; decisions D1–D3).

use serde_json::{json, Map, Value};

use super::input::{as_str, check_keys, invalid, Input};
use super::{OpError, OpResult};
use crate::glob;
use crate::token::Capability;

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &["glob.match", "capability.subset"];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "glob.match" => glob_match(input),
        "capability.subset" => capability_subset(input),
        _ => return None,
    })
}

fn glob_match(input: &Value) -> OpResult {
    let input = Input::new(input, &["pattern", "resource"], &[])?;
    let matches = glob::matches(input.str("pattern")?, input.str("resource")?);
    Ok(json!({ "matches": matches }))
}

fn capability_subset(input: &Value) -> OpResult {
    let input = Input::new(input, &["child", "parent"], &[])?;
    let child = capability(input.object("child")?, "child")?;
    let parent = capability(input.object("parent")?, "parent")?;
    let subset = glob::capability_subset(&child, &parent);
    Ok(json!({ "subset": subset }))
}

/// A Capability object: exactly `namespace`, `action`, `resource`, all strings.
pub(crate) fn capability(map: &Map<String, Value>, what: &str) -> Result<Capability, OpError> {
    check_keys(map, what, &["namespace", "action", "resource"], &[])?;
    let field = |key: &str| -> Result<String, OpError> {
        let value = map
            .get(key)
            .ok_or_else(|| invalid(format!("missing {key:?} in {what}")))?;
        as_str(value, key).map(str::to_owned)
    };
    Ok(Capability::new(
        &field("namespace")?,
        &field("action")?,
        &field("resource")?,
    ))
}
