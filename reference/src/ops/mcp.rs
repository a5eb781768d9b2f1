//! MCP plugin decisions as adapter operations (spec §11; decisions D15, D17, D32): the pure
//! half of a proxy, so an implementation's plugin can be tested without processes.
//!
//! Both operations take a `config` object shaped like the launch config of
//! `spec/mcp-proxy.md` without `upstream` (`trustedRoots`, `tools`, optional `revocations`,
//! `spendPerCall`, `strict`, `sessionToken`), a `now`, and optional `spent`: a map from
//! delegation id to microcents already recorded.

use serde_json::{json, Value};

use super::input::{invalid, Input};
use super::OpResult;
use crate::mcp::{self, BudgetTracker, CallDecision, McpConfig, ToolCapabilityMap};
use crate::mcp_session::{Effects, Session};
use crate::revocation::{RevocationEntry, RevocationList};
use crate::token::SerializedDct;

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &["mcp.filter_tools", "mcp.call", "mcp.session"];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "mcp.filter_tools" => filter_tools(input),
        "mcp.call" => call(input),
        "mcp.session" => session(input),
        _ => return None,
    })
}

fn config(value: &Value) -> Result<McpConfig, super::OpError> {
    let input = Input::new(
        value,
        &["trustedRoots", "tools"],
        &["revocations", "spendPerCall", "strict", "sessionToken"],
    )?;
    let trusted_roots: Vec<String> = serde_json::from_value(input.value("trustedRoots")?.clone())
        .map_err(|e| invalid(format!("trustedRoots: {e}")))?;
    let tools: ToolCapabilityMap = serde_json::from_value(input.value("tools")?.clone())
        .map_err(|e| invalid(format!("tools: {e}")))?;
    let mut revocations = RevocationList::new();
    if let Some(entries) = input.opt("revocations") {
        let entries: Vec<RevocationEntry> = serde_json::from_value(entries.clone())
            .map_err(|e| invalid(format!("revocations: {e}")))?;
        for entry in entries {
            revocations
                .add(entry)
                .map_err(|e| invalid(format!("revocation entry refused: {e}")))?;
        }
    }
    let spend_per_call = match input.opt("spendPerCall") {
        None => 0,
        Some(v) => v
            .as_u64()
            .ok_or_else(|| invalid("spendPerCall must be a non-negative integer"))?,
    };
    let strict = match input.opt("strict") {
        None => false,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| invalid("strict must be a boolean"))?,
    };
    let session_token = match input.opt("sessionToken") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value::<SerializedDct>(v.clone())
                .map_err(|e| invalid(format!("sessionToken: {e}")))?,
        ),
    };
    Ok(McpConfig {
        trusted_roots,
        tools,
        revocations,
        spend_per_call,
        strict,
        session_token,
    })
}

fn tracker(value: Option<&Value>) -> Result<BudgetTracker, super::OpError> {
    let mut tracker = BudgetTracker::new();
    if let Some(v) = value {
        let map = v
            .as_object()
            .ok_or_else(|| invalid("spent must be an object of delegation id → microcents"))?;
        for (id, n) in map {
            let n = n
                .as_u64()
                .ok_or_else(|| invalid(format!("spent[{id:?}] must be a non-negative integer")))?;
            tracker.record_spend(id, n);
        }
    }
    Ok(tracker)
}

/// `{tools, config, now, spent?}` → `{tools}`.
fn filter_tools(input: &Value) -> OpResult {
    let input = Input::new(input, &["tools", "config", "now"], &["spent"])?;
    let tools = input
        .value("tools")?
        .as_array()
        .ok_or_else(|| invalid("tools must be an array"))?;
    let config = config(input.value("config")?)?;
    let tracker = tracker(input.opt("spent"))?;
    let kept = mcp::filter_tools(tools, &config, &tracker, input.str("now")?);
    Ok(json!({ "tools": kept }))
}

/// `{request, config, now, spent?}` → `{decision: "pass_through"}` |
/// `{decision: "forward", request, delegationId, spend}` | `{decision: "deny", response, id,
/// error}` | `{decision: "drop", data}`. For `deny`, `id` is `response.id` and `error` is
/// `response.error` without `data.detail` (free text), so vectors can pin the whole body of
/// every denial type without pinning the reference's wording.
fn call(input: &Value) -> OpResult {
    let input = Input::new(input, &["request", "config", "now"], &["spent"])?;
    let config = config(input.value("config")?)?;
    let mut tracker = tracker(input.opt("spent"))?;
    let decision = mcp::decide_call(
        input.value("request")?,
        &config,
        &mut tracker,
        input.str("now")?,
    );
    Ok(match decision {
        CallDecision::PassThrough => json!({"decision": "pass_through"}),
        CallDecision::Forward {
            request,
            delegation_id,
            spend,
        } => {
            json!({"decision": "forward", "request": request, "delegationId": delegation_id, "spend": spend})
        }
        CallDecision::Deny { response } => {
            // `id` and `error` (with the free-text `data.detail` removed) repeat the response
            // in a form vectors can compare exactly: `detail` is never compared (§6).
            let mut error = response.get("error").cloned().unwrap_or(Value::Null);
            if let Some(data) = error.get_mut("data").and_then(Value::as_object_mut) {
                data.remove("detail");
            }
            let id = response.get("id").cloned().unwrap_or(Value::Null);
            json!({"decision": "deny", "response": response, "id": id, "error": error})
        }
        CallDecision::Drop { data } => json!({"decision": "drop", "data": data}),
    })
}

/// Longest script `mcp.session` runs (a resource bound, like the other operations' limits).
const MAX_SESSION_STEPS: usize = 10_000;

/// `{config, now, steps}` → `{steps}` (`spec/mcp-proxy.md` §6.1): each `{client: MESSAGE}` or
/// `{upstream: MESSAGE}` step yields `{toClient, toUpstream}`, each `{spent: [ids]}` step
/// `{spent: {id: microcents}}`. Messages the client receives are compared as [`without_detail`]
/// leaves them.
fn session(input: &Value) -> OpResult {
    let input = Input::new(input, &["config", "now", "steps"], &[])?;
    let config = config(input.value("config")?)?;
    let steps = input
        .value("steps")?
        .as_array()
        .ok_or_else(|| invalid("steps must be an array"))?;
    if steps.len() > MAX_SESSION_STEPS {
        return Err(invalid(format!(
            "steps: at most {MAX_SESSION_STEPS} steps per session"
        )));
    }
    let mut session = Session::new(config, input.str("now")?);
    let mut out = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        let obj = step
            .as_object()
            .filter(|o| o.len() == 1)
            .ok_or_else(|| invalid(format!("steps[{i}] must be an object with one member")))?;
        let (kind, value) = obj.iter().next().ok_or_else(|| invalid("empty step"))?;
        out.push(match kind.as_str() {
            "client" => effects_json(session.client(value)),
            "upstream" => effects_json(session.upstream(value)),
            "spent" => {
                let ids = value.as_array().ok_or_else(|| {
                    invalid(format!(
                        "steps[{i}].spent must be an array of delegation ids"
                    ))
                })?;
                let mut spent = serde_json::Map::new();
                for id in ids {
                    let id = id
                        .as_str()
                        .ok_or_else(|| invalid(format!("steps[{i}].spent must hold strings")))?;
                    spent.insert(id.to_owned(), json!(session.spent(id)));
                }
                json!({ "spent": spent })
            }
            other => {
                return Err(invalid(format!(
                    "steps[{i}]: unknown step `{other}` (client, upstream or spent)"
                )))
            }
        });
    }
    Ok(json!({ "steps": out }))
}

fn effects_json(effects: Effects) -> Value {
    let to_client: Vec<Value> = effects.to_client.into_iter().map(without_detail).collect();
    json!({ "toClient": to_client, "toUpstream": effects.to_upstream })
}

/// The message as §6.1 compares it: the `error.data` of a -32001 denial reduced to its
/// `type` (the denial bodies are `mcp.call`'s cases; sessions test what happens between
/// messages), and the free-text `error.data.detail` of any other error removed.
fn without_detail(mut message: Value) -> Value {
    let Some(error) = message.get_mut("error") else {
        return message;
    };
    let denial = error.get("code").and_then(Value::as_i64) == Some(mcp::DENIAL_CODE);
    if let Some(data) = error.get_mut("data").and_then(Value::as_object_mut) {
        if denial {
            data.retain(|k, _| k == "type");
        } else {
            data.remove("detail");
        }
    }
    message
}
