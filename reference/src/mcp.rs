//! MCP plugin decisions (spec §11, architecture §6): which tools a session may see, and what
//! to do with each `tools/call`.
//!
//! Pure like the rest of the crate: the caller passes the clock (`now`), the spend tracker and
//! the configuration; nothing here reads stdin, spawns processes or keeps sessions. The stdio
//! proxy that uses these decisions lives in the harness (`delegateos_conform::mcp::proxy`,
//! with the byte-level handling of its lines in `delegateos_conform::mcp::raw_line`);
//! the behaviours are specified in `spec/mcp-proxy.md` (decisions D15, D17, D21, D32).
//!
//! The order of checks for a call carrying `_delegateos` is fixed:
//! 1. the `_delegateos` envelope (object, `dct` string, `format`, ids, no unknown members) →
//!    `malformed_token`;
//! 2. DCT verification steps 1–6 against the trusted root equal to `authority.issuer`
//!    (none → `invalid_signature`), the revocations and the delegation's recorded spend;
//! 3. D17 binding: envelope ids equal the token's effective ids → `malformed_token`;
//! 4. the tool map (unmapped tool → `capability_not_granted`) and the resource extraction
//!    (missing or non-string argument → `capability_not_granted`);
//! 5. step 7, capability match → `capability_not_granted`.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::crypto::KeyStore;
use crate::glob;
use crate::revocation::RevocationList;
use crate::token::{self, Capability, SerializedDct};
use crate::verify::{self, AuthorizedScope, Denial};

/// The JSON-RPC error code of a DelegateOS denial (spec §11.2). It collides with the SDKs'
/// request-timeout code, so clients must also check `message` and `data.type`.
pub const DENIAL_CODE: i64 = -32001;
/// The JSON-RPC error message of a DelegateOS denial (spec §11.2).
pub const DENIAL_MESSAGE: &str = "DCT verification failed";
/// The only token format of v0.1.
pub const SJT_FORMAT: &str = "delegateos-sjt-v1";

/// Where a tool's resource string comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum ResourceSource {
    /// A dot-path into `params.arguments` (`"a.b"` is `arguments.a.b`); the value must be a
    /// string, otherwise the call is denied with `capability_not_granted`.
    Argument(String),
    /// A fixed resource string.
    Constant(String),
}

/// The capability one tool requires.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolCapability {
    /// Capability namespace (e.g. `docs`).
    pub namespace: String,
    /// Capability action (e.g. `read`).
    pub action: String,
    /// Resource extraction; absent means the constant resource `*`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceSource>,
    /// Cost of one call in microcents; absent means the config's `spendPerCall`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend: Option<u64>,
}

/// Tool name → required capability.
pub type ToolCapabilityMap = BTreeMap<String, ToolCapability>;

/// Everything a decision depends on besides the request, the clock and the spend.
#[derive(Debug, Clone)]
pub struct McpConfig {
    /// Principal ids accepted as `authority.issuer`.
    pub trusted_roots: Vec<String>,
    /// The tool capability map.
    pub tools: ToolCapabilityMap,
    /// Revocations consulted by verification step 2.
    pub revocations: RevocationList,
    /// Cost of a call whose tool sets no `spend`.
    pub spend_per_call: u64,
    /// Deny `tools/call` without `_delegateos` (D15).
    pub strict: bool,
    /// The session's DCT, which drives `tools/list` filtering.
    pub session_token: Option<SerializedDct>,
}

/// Spend recorded per delegation id (the token's effective `delegationId`, D17).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BudgetTracker {
    spent: BTreeMap<String, u64>,
}

impl BudgetTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// Microcents recorded against `delegation_id` so far.
    pub fn spent(&self, delegation_id: &str) -> u64 {
        self.spent.get(delegation_id).copied().unwrap_or(0)
    }

    /// Adds `microcents` to `delegation_id` (saturating).
    pub fn record_spend(&mut self, delegation_id: &str, microcents: u64) {
        let entry = self.spent.entry(delegation_id.to_owned()).or_insert(0);
        *entry = entry.saturating_add(microcents);
    }
}

/// What the proxy must do with one client message.
#[derive(Debug, Clone, PartialEq)]
pub enum CallDecision {
    /// Not a call the plugin intercepts (or a call without `_delegateos` in spec mode):
    /// forward the original bytes.
    PassThrough,
    /// An authorized call: forward `request` (the original with every `_delegateos` removed)
    /// and charge `spend` to `delegation_id` (already done by [`decide_call`]).
    Forward {
        /// The stripped request.
        request: Value,
        /// The token's effective delegation id.
        delegation_id: String,
        /// Microcents charged for this call.
        spend: u64,
    },
    /// A denied request: answer `response` to the client, forward nothing.
    Deny {
        /// The JSON-RPC error response, with the request's id.
        response: Value,
    },
    /// A denied *notification* (a `tools/call` without id): forward nothing, answer nothing.
    Drop {
        /// The denial `data` object, for logs.
        data: Value,
    },
}

/// Builds the §11.2 JSON-RPC error response for a denial.
pub fn denial_response(id: &Value, data: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": DENIAL_CODE, "message": DENIAL_MESSAGE, "data": data},
    })
}

fn malformed(detail: impl Into<String>) -> Value {
    json!({"type": "malformed_token", "detail": detail.into()})
}

/// The validated `_delegateos` envelope.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Envelope {
    dct: String,
    format: String,
    delegation_id: Option<String>,
    contract_id: Option<String>,
}

fn parse_envelope(value: &Value) -> Result<Envelope, Value> {
    if !value.is_object() {
        return Err(malformed("_delegateos is not an object"));
    }
    let env: Envelope = serde_json::from_value(value.clone())
        .map_err(|e| malformed(format!("invalid _delegateos: {e}")))?;
    if env.format != SJT_FORMAT {
        return Err(malformed(format!("unsupported format {:?}", env.format)));
    }
    Ok(env)
}

/// Extracts the resource of a call from its arguments.
pub fn extract_resource(
    source: Option<&ResourceSource>,
    arguments: Option<&Value>,
) -> Option<String> {
    match source {
        None => Some("*".to_owned()),
        Some(ResourceSource::Constant(c)) => Some(c.clone()),
        Some(ResourceSource::Argument(path)) => {
            let mut cur = arguments?;
            for part in path.split('.') {
                cur = cur.as_object()?.get(part)?;
            }
            match cur.as_str() {
                Some(s) => Some(s.to_owned()),
                None => mistakes::coerced_resource(cur),
            }
        }
    }
}

/// Verification steps 1–6 of `dct` against the trusted root equal to its issuer, with the
/// spend recorded for the token's own effective delegation id.
fn evaluate_for_roots(
    dct: &SerializedDct,
    config: &McpConfig,
    tracker: &BudgetTracker,
    spend_key: Option<&str>,
    now: &str,
    keys: &mut dyn KeyStore,
) -> Result<AuthorizedScope, Denial> {
    // The delegation id used for the spend lookup comes from the token itself (D17); an
    // undecodable token fails verification step 1 anyway.
    let (issuer, delegation_id) = match token::inspect(dct) {
        Ok(i) => (i.issuer, i.delegation_id),
        Err(_) => (String::new(), String::new()),
    };
    // The trusted root equal to the issuer (D32). When none matches, the first trusted root is
    // used so that step 3a fails with invalid_signature while steps 1–2 (malformed, revoked)
    // keep their precedence.
    let root = config
        .trusted_roots
        .iter()
        .find(|r| **r == issuer)
        .or_else(|| config.trusted_roots.first())
        .cloned();
    let Some(root) = root else {
        return Err(Denial::InvalidSignature {
            detail: "no trusted roots configured".into(),
            index: None,
        });
    };
    verify::evaluate_with_keys(
        dct,
        now,
        if crate::faults::on("mcp.spend-ignored") {
            0
        } else {
            tracker.spent(spend_key.unwrap_or(&delegation_id))
        },
        &root,
        &config.revocations,
        keys,
    )
}

fn granted_json(scope: &AuthorizedScope) -> Value {
    serde_json::to_value(&scope.capabilities).unwrap_or(Value::Null)
}

/// The capability of a configured tool whose name equals `name` but for case, where the fault
/// `mcp.tool-name-casefold` is on (a lookup that lowercases both sides); none otherwise.
fn casefolded_tool<'c>(config: &'c McpConfig, name: &str) -> Option<&'c ToolCapability> {
    if !crate::faults::on("mcp.tool-name-casefold") {
        return None;
    }
    let lower = name.to_lowercase();
    config
        .tools
        .iter()
        .find(|(t, _)| t.to_lowercase() == lower)
        .map(|(_, cap)| cap)
}

/// Filters one `tools/list` page (`result.tools`). With no session token the list is returned
/// unchanged; when the session token fails verification steps 1–6 (with the session
/// delegation's recorded spend) the list is empty; otherwise a tool survives iff it is in the
/// tool map and some effective capability has its namespace and action (any resource). Tool
/// objects are returned unchanged and in order.
pub fn filter_tools(
    tools: &[Value],
    config: &McpConfig,
    tracker: &BudgetTracker,
    now: &str,
) -> Vec<Value> {
    filter_tools_with_keys(tools, config, tracker, now, &mut HashMap::new())
}

/// [`filter_tools`] reusing (and filling) `keys`: a long-lived proxy validates each signer's
/// key once (see [`verify::verify_with_keys`]); the decisions are the same.
pub fn filter_tools_with_keys(
    tools: &[Value],
    config: &McpConfig,
    tracker: &BudgetTracker,
    now: &str,
    keys: &mut dyn KeyStore,
) -> Vec<Value> {
    let Some(dct) = &config.session_token else {
        return tools.to_vec();
    };
    let Ok(scope) = evaluate_for_roots(dct, config, tracker, None, now, keys) else {
        return Vec::new();
    };
    tools
        .iter()
        .filter(|tool| {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                return false;
            };
            let Some(cap) = config.tools.get(name) else {
                return false;
            };
            scope
                .capabilities
                .iter()
                .any(|c| c.namespace == cap.namespace && c.action == cap.action)
        })
        .cloned()
        .collect()
}

/// Decides one client message. Only `tools/call` requests and notifications are intercepted;
/// for an authorized call the spend is recorded in `tracker` before returning, so concurrent
/// calls are charged at authorization (D32).
pub fn decide_call(
    request: &Value,
    config: &McpConfig,
    tracker: &mut BudgetTracker,
    now: &str,
) -> CallDecision {
    decide_call_with_keys(request, config, tracker, now, &mut HashMap::new())
}

/// [`decide_call`] reusing (and filling) `keys`: a long-lived proxy validates each signer's
/// key once (see [`verify::verify_with_keys`]); the decisions are the same.
pub fn decide_call_with_keys(
    request: &Value,
    config: &McpConfig,
    tracker: &mut BudgetTracker,
    now: &str,
    keys: &mut dyn KeyStore,
) -> CallDecision {
    if request.get("method").and_then(Value::as_str) != Some("tools/call") {
        return CallDecision::PassThrough;
    }
    let id = request.get("id").cloned();
    let deny = |data: Value| match (&id, mistakes::denial_id(id.as_ref())) {
        (_, Some(id)) => CallDecision::Deny {
            response: denial_response(&id, data),
        },
        (Some(id), None) => CallDecision::Deny {
            response: denial_response(id, data),
        },
        (None, None) => CallDecision::Drop { data },
    };
    let params = request.get("params").and_then(Value::as_object);
    let envelope = params
        .and_then(|p| p.get("_delegateos"))
        .filter(|e| !mistakes::falsy(e));
    let Some(envelope) = envelope else {
        if config.strict {
            return deny(malformed("missing _delegateos"));
        }
        return CallDecision::PassThrough;
    };
    let envelope = match parse_envelope(envelope) {
        Ok(e) => e,
        Err(data) => return deny(data),
    };
    let dct = SerializedDct {
        token: envelope.dct.clone(),
        format: envelope.format.clone(),
    };
    let spend_key = mistakes::spend_key(&envelope);
    let scope = match evaluate_for_roots(&dct, config, tracker, spend_key.as_deref(), now, keys) {
        Ok(s) => s,
        Err(d) => return deny(d.to_json()),
    };
    if let Some(id) = &envelope.delegation_id {
        if *id != scope.delegation_id {
            return deny(malformed(
                "_delegateos.delegationId differs from the token's delegationId",
            ));
        }
    }
    if let Some(id) = &envelope.contract_id {
        if *id != scope.contract_id {
            return deny(malformed(
                "_delegateos.contractId differs from the token's contractId",
            ));
        }
    }
    let name = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let Some(cap) = config
        .tools
        .get(name)
        .or_else(|| casefolded_tool(config, name))
    else {
        return deny(json!({
            "type": "capability_not_granted",
            "detail": format!("tool {name:?} is not in the tool capability map"),
            "tool": name,
            "granted": granted_json(&scope),
        }));
    };
    let Some(resource) = extract_resource(
        cap.resource.as_ref(),
        params.and_then(|p| p.get("arguments")),
    ) else {
        return deny(json!({
            "type": "capability_not_granted",
            "detail": "the resource argument is missing or not a string",
            "requested": {"namespace": cap.namespace, "action": cap.action, "resource": Value::Null},
            "granted": granted_json(&scope),
        }));
    };
    // Step 7, with the reference's glob semantics.
    let granted = scope
        .capabilities
        .iter()
        .any(|c| glob::capability_matches(c, &cap.namespace, &cap.action, &resource));
    if !granted {
        let denial = Denial::CapabilityNotGranted {
            requested: Capability::new(&cap.namespace, &cap.action, &resource),
            granted: scope.capabilities.clone(),
        };
        return deny(denial.to_json());
    }
    let spend = if crate::faults::on("mcp.tool-spend-ignored") {
        config.spend_per_call
    } else {
        cap.spend.unwrap_or(config.spend_per_call)
    };
    tracker.record_spend(spend_key.as_deref().unwrap_or(&scope.delegation_id), spend);
    let mut stripped = request.clone();
    if let Some(p) = stripped.get_mut("params").and_then(Value::as_object_mut) {
        if crate::faults::off("mcp.envelope-forwarded") {
            p.remove("_delegateos");
        }
    }
    CallDecision::Forward {
        request: stripped,
        delegation_id: scope.delegation_id,
        spend,
    }
}

/// The catalogue's mistakes of this module (`spec/data/faults.json`, `crate::faults`): each
/// answers `None` (the reference's own behaviour) unless its fault is switched on.
mod mistakes {
    use serde_json::Value;

    /// `mcp.resource-coerced-to-string`: a non-string resource argument becomes its text.
    pub(super) fn coerced_resource(v: &Value) -> Option<String> {
        let on = crate::faults::on("mcp.resource-coerced-to-string") && !v.is_null();
        on.then(|| v.to_string())
    }

    /// `mcp.falsy-envelope-unverified`: an envelope that is `null`, `false`, `0`, `""`, `[]`
    /// or `{}` counts as none.
    pub(super) fn falsy(v: &Value) -> bool {
        crate::faults::on("mcp.falsy-envelope-unverified")
            && match v {
                Value::Null => true,
                Value::Bool(b) => !b,
                Value::Number(n) => n.as_f64() == Some(0.0),
                Value::String(s) => s.is_empty(),
                Value::Array(a) => a.is_empty(),
                Value::Object(o) => o.is_empty(),
            }
    }

    /// `mcp.spend-keyed-by-envelope-id`: spend looked up and recorded under the client's
    /// `_delegateos.delegationId` (the empty key when it has none).
    pub(super) fn spend_key(envelope: &super::Envelope) -> Option<String> {
        crate::faults::on("mcp.spend-keyed-by-envelope-id")
            .then(|| envelope.delegation_id.clone().unwrap_or_default())
    }

    /// The id a denial is answered with instead of the request's: `null` for
    /// `mcp.denial-id-null` and for a notification under `mcp.denied-notification-answered`,
    /// the id's text for `mcp.denial-id-stringified`.
    pub(super) fn denial_id(id: Option<&Value>) -> Option<Value> {
        match id {
            None if crate::faults::on("mcp.denied-notification-answered") => Some(Value::Null),
            Some(_) if crate::faults::on("mcp.denial-id-null") => Some(Value::Null),
            Some(Value::String(s)) if crate::faults::on("mcp.denial-id-stringified") => {
                Some(Value::String(s.clone()))
            }
            Some(v) if crate::faults::on("mcp.denial-id-stringified") => {
                Some(Value::String(v.to_string()))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::{blake2b256, sign_canonical, Keypair};
    use crate::encoding::b64u_encode;
    use crate::token::{
        authority_payload, canonical_of, encode, Authority, Covers, SignedJsonToken,
        TokenSignature, FORMAT, ROOT_PARENT_DELEGATION_ID,
    };

    const NOW: &str = "2030-01-01T00:00:00Z";

    fn key(name: &str) -> Keypair {
        Keypair::from_seed(&blake2b256(name.as_bytes()))
    }

    fn token(
        issuer: &Keypair,
        caps: Vec<Capability>,
        budget: u64,
        expires: &str,
    ) -> SignedJsonToken {
        let authority = Authority {
            issuer: issuer.principal_id(),
            delegatee: key("agent").principal_id(),
            capabilities: caps,
            contract_id: "ct_000000000001".into(),
            delegation_id: "del_000000000001".into(),
            parent_delegation_id: ROOT_PARENT_DELEGATION_ID.into(),
            chain_depth: 0,
            max_chain_depth: 2,
            max_budget_microcents: budget,
            expires_at: expires.into(),
            issued_at: "2020-01-01T00:00:00Z".into(),
        };
        let sig = sign_canonical(issuer, &authority_payload(&canonical_of(&authority)));
        SignedJsonToken {
            format: FORMAT.into(),
            authority,
            attenuations: vec![],
            signatures: vec![TokenSignature {
                signer: issuer.principal_id(),
                signature: b64u_encode(&sig),
                covers: Covers::Authority,
            }],
        }
    }

    fn good() -> SignedJsonToken {
        token(
            &key("root"),
            vec![Capability::new("docs", "read", "/p/**")],
            250,
            "2099-01-01T00:00:00Z",
        )
    }

    fn envelope(t: &SignedJsonToken) -> Value {
        let dct = encode(t);
        json!({"dct": dct.token, "format": dct.format, "delegationId": "del_000000000001", "contractId": "ct_000000000001"})
    }

    fn config() -> McpConfig {
        let tools: ToolCapabilityMap = serde_json::from_value(json!({
            "read": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}},
            "write": {"namespace": "docs", "action": "write", "resource": {"argument": "path"}},
        }))
        .unwrap();
        McpConfig {
            trusted_roots: vec![key("root").principal_id()],
            tools,
            revocations: RevocationList::new(),
            spend_per_call: 100,
            strict: false,
            session_token: None,
        }
    }

    fn call(id: Value, tool: &str, path: &str, env: Option<Value>) -> Value {
        let mut v = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"path": path}, "_meta": {"progressToken": 1}}});
        if let Some(e) = env {
            v["params"]["_delegateos"] = e;
        }
        v
    }

    fn denial_type(d: &CallDecision) -> Option<&str> {
        match d {
            CallDecision::Deny { response } => response["error"]["data"]["type"].as_str(),
            _ => None,
        }
    }

    #[test]
    fn allowed_call_is_stripped_and_charged() {
        let mut tracker = BudgetTracker::new();
        let req = call(json!("x"), "read", "/p/a", Some(envelope(&good())));
        match decide_call(&req, &config(), &mut tracker, NOW) {
            CallDecision::Forward {
                request,
                delegation_id,
                spend,
            } => {
                assert!(request["params"].get("_delegateos").is_none());
                assert_eq!(request["params"]["_meta"], json!({"progressToken": 1}));
                assert_eq!(delegation_id, "del_000000000001");
                assert_eq!(spend, 100);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(tracker.spent("del_000000000001"), 100);
    }

    #[test]
    fn budget_is_exhausted_across_calls() {
        let mut tracker = BudgetTracker::new();
        let cfg = config();
        for _ in 0..3 {
            let d = decide_call(
                &call(json!(1), "read", "/p/a", Some(envelope(&good()))),
                &cfg,
                &mut tracker,
                NOW,
            );
            assert!(matches!(d, CallDecision::Forward { .. }), "{d:?}");
        }
        let d = decide_call(
            &call(json!(1), "read", "/p/a", Some(envelope(&good()))),
            &cfg,
            &mut tracker,
            NOW,
        );
        assert_eq!(denial_type(&d), Some("budget_exceeded"));
    }

    #[test]
    fn denials_keep_the_id_and_shape() {
        let mut tracker = BudgetTracker::new();
        let d = decide_call(
            &call(json!(0), "read", "/etc", Some(envelope(&good()))),
            &config(),
            &mut tracker,
            NOW,
        );
        let CallDecision::Deny { response } = d else {
            panic!()
        };
        assert_eq!(response["id"], json!(0));
        assert_eq!(response["error"]["code"], json!(DENIAL_CODE));
        assert_eq!(response["error"]["message"], json!(DENIAL_MESSAGE));
        assert_eq!(
            response["error"]["data"]["requested"]["resource"],
            json!("/etc")
        );
        assert_eq!(tracker.spent("del_000000000001"), 0);
    }

    #[test]
    fn every_check_has_its_denial() {
        let cfg = config();
        let mut t = BudgetTracker::new();
        let mut check = |req: Value, ty: &str| {
            assert_eq!(
                denial_type(&decide_call(&req, &cfg, &mut t, NOW)),
                Some(ty),
                "{req}"
            );
        };
        check(
            call(json!(1), "write", "/p/a", Some(envelope(&good()))),
            "capability_not_granted",
        );
        check(
            call(json!(1), "nope", "/p/a", Some(envelope(&good()))),
            "capability_not_granted",
        );
        check(
            call(json!(1), "read", "/p/a", Some(Value::Null)),
            "malformed_token",
        );
        check(
            call(json!(1), "read", "/p/a", Some(json!("x"))),
            "malformed_token",
        );
        let mut e = envelope(&good());
        e["extra"] = json!(1);
        check(call(json!(1), "read", "/p/a", Some(e)), "malformed_token");
        let mut e = envelope(&good());
        e["delegationId"] = json!("del_999999999999");
        check(call(json!(1), "read", "/p/a", Some(e)), "malformed_token");
        let expired = token(
            &key("root"),
            vec![Capability::new("docs", "read", "/p/**")],
            250,
            "2001-01-01T00:00:00Z",
        );
        check(
            call(json!(1), "read", "/p/a", Some(envelope(&expired))),
            "expired",
        );
        let untrusted = token(
            &key("other"),
            vec![Capability::new("docs", "read", "/p/**")],
            250,
            "2099-01-01T00:00:00Z",
        );
        check(
            call(json!(1), "read", "/p/a", Some(envelope(&untrusted))),
            "invalid_signature",
        );
    }

    #[test]
    fn missing_delegateos_passes_through_unless_strict() {
        let mut t = BudgetTracker::new();
        let mut cfg = config();
        let req = call(json!("s"), "write", "/x", None);
        assert_eq!(
            decide_call(&req, &cfg, &mut t, NOW),
            CallDecision::PassThrough
        );
        cfg.strict = true;
        assert_eq!(
            denial_type(&decide_call(&req, &cfg, &mut t, NOW)),
            Some("malformed_token")
        );
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        assert_eq!(
            decide_call(&ping, &cfg, &mut t, NOW),
            CallDecision::PassThrough
        );
        let mut notification = call(json!(1), "read", "/x", None);
        notification.as_object_mut().unwrap().remove("id");
        assert!(matches!(
            decide_call(&notification, &cfg, &mut t, NOW),
            CallDecision::Drop { .. }
        ));
    }

    #[test]
    fn filtering_follows_the_session_token() {
        let tools = vec![
            json!({"name": "write", "x": 1}),
            json!({"name": "read"}),
            json!({"name": "unmapped"}),
        ];
        let mut cfg = config();
        let t = BudgetTracker::new();
        assert_eq!(filter_tools(&tools, &cfg, &t, NOW), tools);
        cfg.session_token = Some(encode(&good()));
        assert_eq!(
            filter_tools(&tools, &cfg, &t, NOW),
            vec![json!({"name": "read"})]
        );
        cfg.trusted_roots = vec![key("other").principal_id()];
        assert!(filter_tools(&tools, &cfg, &t, NOW).is_empty());
    }

    #[test]
    fn resources_come_from_dot_paths() {
        let args = json!({"a": {"b": "/x"}, "n": 1});
        let arg = |p: &str| ResourceSource::Argument(p.into());
        assert_eq!(
            extract_resource(Some(&arg("a.b")), Some(&args)).as_deref(),
            Some("/x")
        );
        assert_eq!(extract_resource(Some(&arg("n")), Some(&args)), None);
        assert_eq!(extract_resource(Some(&arg("a.c")), Some(&args)), None);
        assert_eq!(extract_resource(None, None).as_deref(), Some("*"));
        assert_eq!(
            extract_resource(Some(&ResourceSource::Constant("k".into())), None).as_deref(),
            Some("k")
        );
    }
}
