//! JSON-RPC 2.0 message schemas (spec §9; decision D31).

use serde_json::{json, Value};

use super::input::Input;
use super::{OpError, OpResult};
use crate::jsonrpc::classify;

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &["jsonrpc.classify"];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "jsonrpc.classify" => classify_op(input),
        _ => return None,
    })
}

fn classify_op(input: &Value) -> OpResult {
    let input = Input::new(input, &["message"], &[])?;
    let kind =
        classify(input.value("message")?).map_err(|e| OpError::new(e.code(), e.to_string()))?;
    // Output names are those of `spec/operations.md` §10, not the module's short names.
    let name = match kind.name() {
        "delegate" => "delegate_request",
        "accept" => "delegate_accept",
        "reject" => "delegate_reject",
        other => other,
    };
    Ok(json!({ "kind": name }))
}
