//! One MCP session of the plugin (architecture §6.1 "the plugin handles the complete MCP
//! session"; spec §11.3): the state the decisions of [`crate::mcp`] need between messages.
//!
//! A session holds exactly two things across messages, and nothing else:
//! - the **spend** recorded per delegation ([`BudgetTracker`], spec §13.4: "BudgetTracker
//!   records spend per delegationId"), charged to each call's own token delegation when the
//!   call is authorized (D32);
//! - the ids of the client's **pending `tools/list` requests**, so that the upstream response
//!   with one of those ids is filtered (§11.3 step 4) whatever else was sent in between.
//!
//! Every message is handled to completion: [`Session::client`] and [`Session::upstream`]
//! return what the client receives and what is forwarded to the upstream because of it
//! (`spec/mcp-proxy.md` §6.1, the operation `mcp.session`). Ids are never rewritten.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::mcp::{self, BudgetTracker, CallDecision, McpConfig};

/// What one message caused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Effects {
    /// Messages delivered to the client, in order.
    pub to_client: Vec<Value>,
    /// Messages forwarded to the upstream (`_delegateos` removed), in order.
    pub to_upstream: Vec<Value>,
}

impl Effects {
    fn client(message: Value) -> Self {
        Self {
            to_client: vec![message],
            to_upstream: Vec::new(),
        }
    }

    fn upstream(message: Value) -> Self {
        Self {
            to_client: Vec::new(),
            to_upstream: vec![message],
        }
    }
}

/// The plugin's state for one client connection.
#[derive(Debug)]
pub struct Session {
    config: McpConfig,
    now: String,
    spend: BudgetTracker,
    /// Canonical JSON text of the ids of `tools/list` requests not yet answered.
    pending_lists: BTreeSet<String>,
}

/// The key under which a JSON-RPC id is remembered (its JSON text: `1` and `"1"` differ).
fn id_key(id: &Value) -> String {
    id.to_string()
}

impl Session {
    /// A fresh session: nothing spent, nothing pending. `now` is the clock of every decision.
    pub fn new(config: McpConfig, now: &str) -> Self {
        Self {
            config,
            now: now.to_owned(),
            spend: BudgetTracker::new(),
            pending_lists: BTreeSet::new(),
        }
    }

    /// Microcents recorded against `delegation_id`.
    pub fn spent(&self, delegation_id: &str) -> u64 {
        self.spend.spent(delegation_id)
    }

    /// A message from the client (request, notification or response to a server request).
    pub fn client(&mut self, message: &Value) -> Effects {
        if !message.is_object() {
            // JSON-RPC 2.0 §5: not a Request object (section 3.5 of spec/mcp-proxy.md).
            return Effects::client(json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": -32600, "message": "Invalid Request"},
            }));
        }
        match mcp::decide_call(message, &self.config, &mut self.spend, &self.now) {
            CallDecision::Forward { request, .. } => Effects::upstream(request),
            CallDecision::Deny { response } => Effects::client(response),
            CallDecision::Drop { .. } => Effects::default(),
            CallDecision::PassThrough => {
                if message.get("method").and_then(Value::as_str) == Some("tools/list") {
                    if let Some(id) = message.get("id") {
                        self.pending_lists.insert(id_key(id));
                    }
                }
                Effects::upstream(message.clone())
            }
        }
    }

    /// A message from the upstream (response, notification or server→client request).
    pub fn upstream(&mut self, message: &Value) -> Effects {
        let is_response = message.get("method").is_none();
        let list_response = is_response
            && message
                .get("id")
                .is_some_and(|id| self.pending_lists.remove(&id_key(id)));
        if !list_response {
            return Effects::client(message.clone());
        }
        let mut filtered = message.clone();
        if let Some(tools) = filtered
            .get_mut("result")
            .and_then(|r| r.get_mut("tools"))
            .and_then(Value::as_array_mut)
        {
            let kept = mcp::filter_tools(tools, &self.config, &self.spend, &self.now);
            *tools = kept;
        }
        Effects::client(filtered)
    }
}
