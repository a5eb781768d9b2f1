//! Advisory profiles: `profile.lint` (`spec/neighbours.md`).
//!
//! Input `{token}` (a SerializedDCT) or `{delegations}` (a root-first array of §8.1
//! Delegations), plus optional `now`. Output `{findings: [{rule, neighbour, clause,
//! severity}]}` in rule-table order, at most one finding per rule. A token that does not
//! decode is `malformed_token`; a delegation that does not deserialize is
//! `malformed_delegation`, and a chain whose last delegation's DCT does not decode is
//! `malformed_token`. No signature or chain invariant is checked here: advisory findings are
//! independent of (and never change) the normative verdict.

use serde_json::{json, Value};

use super::input::{as_str, invalid, Input};
use super::{OpError, OpResult};
use crate::chain::Delegation;
use crate::profiles::{lint_chain, lint_token, Finding};
use crate::timestamp::Timestamp;
use crate::token::{decode, SerializedDct};

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &["profile.lint"];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "profile.lint" => lint(input),
        _ => return None,
    })
}

fn malformed(e: impl std::fmt::Display) -> OpError {
    OpError::new("malformed_token", e.to_string())
}

fn lint(input: &Value) -> OpResult {
    let input = Input::new(input, &[], &["token", "delegations", "now"])?;
    let now = match input.opt("now") {
        Some(v) => {
            let s = as_str(v, "now")?;
            Timestamp::parse(s).map_err(|e| OpError::new("invalid_timestamp", e.to_string()))?;
            Some(s)
        }
        None => None,
    };
    let findings: Vec<Finding> = match (input.opt("token"), input.opt("delegations")) {
        (Some(t), None) => {
            let dct = SerializedDct::from_value(t).map_err(|e| malformed(e.detail))?;
            let token = decode(&dct).map_err(|e| malformed(e.detail))?;
            lint_token(&token, now)
        }
        (None, Some(d)) => {
            let list = d
                .as_array()
                .ok_or_else(|| invalid("\"delegations\" must be an array"))?;
            let delegations = list
                .iter()
                .enumerate()
                .map(|(i, d)| {
                    serde_json::from_value::<Delegation>(d.clone()).map_err(|e| {
                        OpError::new("malformed_delegation", format!("delegation {i}: {e}"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let leaf = match delegations.last() {
                Some(d) => Some(decode(&d.dct).map_err(|e| malformed(e.detail))?),
                None => None,
            };
            lint_chain(&delegations, leaf.as_ref(), now)
        }
        _ => {
            return Err(invalid(
                "exactly one of \"token\" and \"delegations\" is required",
            ))
        }
    };
    let findings: Vec<Value> = findings.iter().map(Finding::to_json).collect();
    Ok(json!({ "findings": findings }))
}
