//! Area `mcp`: the MCP plugin decisions as adapter operations (`spec/mcp-proxy.md` §3.2–3.4,
//! §6, §7; decisions D15, D17, D21, D32, M3, M4), so a library's plugin can be tested without
//! processes. The transport-level behaviour (relaying, process lifecycle, M1/M2 raw-line
//! refusals) is the proxy suite's (`delegateos-conform mcp`); a parsed `request` cannot carry
//! duplicate members, so M2 has no vector here.
//!
//! Every expectation is written from the construction and the spec: tools/list keeps exactly
//! the mapped tools whose namespace and action some effective capability holds; tools/call
//! runs envelope → steps 1–6 → D17 binding → tool map → resource → step 7 (M4). Denials are
//! compared through the op's `id` and `error` members (the -32001 body without the free-text
//! `data.detail`), and through the whole `response` where the denial type has no `detail`.

use serde_json::{json, Value};

use delegateos_reference::token::Capability;

use super::dct_support::{
    cap, caps_json, default_caps, revocation_entry, Chain, BUDGET, CONTRACT, DELEGATION, NOW,
};
use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::Keys;

const FILTER: &str = "mcp.filter_tools";
const CALL: &str = "mcp.call";
pub(super) const DENIAL_MESSAGE: &str = "DCT verification failed";
/// One second after the default root expiry (`dct_support::EXPIRES_AT`).
const LATER: &str = "2026-03-01T12:00:01Z";

/// Builds the `mcp` area: groups `filter_tools` and `call`.
pub fn build(area: &mut Area) {
    let keys = area.keys().clone();
    build_filter(
        area.group(
            "filter_tools",
            "mcp.filter_tools: tools/list filtering by the session DCT (spec/mcp-proxy.md §3.2, D32).",
        ),
        &keys,
    );
    build_call(
        area.group(
            "call",
            "mcp.call: tools/call decisions — pass-through, forward with `_delegateos` stripped and \
             spend attributed, every denial with its -32001 body (spec/mcp-proxy.md §3.3–3.4, \
             D15, D17, D21, D32, M3, M4).",
        ),
        &keys,
    );
}

/// The tool capability map shared by every case.
pub(super) fn tools_map() -> Value {
    json!({
        "read_file": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}},
        "nested": {"namespace": "docs", "action": "read", "resource": {"argument": "target.path"}},
        "write_file": {"namespace": "docs", "action": "write", "resource": {"argument": "path"}},
        "delete_file": {"namespace": "docs", "action": "delete", "resource": {"argument": "path"}},
        "search": {"namespace": "web", "action": "search"},
        "run": {"namespace": "compute", "action": "execute", "resource": {"constant": "*"}, "spend": 500},
        "publish": {"namespace": "docs", "action": "write", "resource": {"constant": "/project/drafts/out.md"}},
    })
}

/// A config trusting `root`, spendPerCall 100.
pub(super) fn config(keys: &Keys) -> Value {
    json!({
        "trustedRoots": [keys.root.principal],
        "tools": tools_map(),
        "spendPerCall": 100,
    })
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

/// Upstream tool objects, with schemas, annotations, `_meta` and unknown members.
fn upstream_tools() -> Vec<Value> {
    vec![
        json!({"name": "echo", "description": "unmapped", "inputSchema": {"type": "object"}}),
        json!({"name": "read_file", "description": "Read a file", "inputSchema": {"type": "object",
               "properties": {"path": {"type": "string"}}, "required": ["path"]},
               "annotations": {"readOnlyHint": true}, "_meta": {"x": [1, 2]}, "x-unknown": {"k": null}}),
        json!({"name": "run", "inputSchema": {"type": "object"}}),
        json!({"name": "write_file", "title": "Write", "inputSchema": {"type": "object"}}),
        json!({"name": "delete_file", "inputSchema": {"type": "object"}}),
        json!({"name": "search", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}),
        json!({"name": "nested", "inputSchema": {"type": "object"}}),
    ]
}

fn pick(tools: &[Value], names: &[&str]) -> Value {
    Value::Array(
        tools
            .iter()
            .filter(|t| names.contains(&t["name"].as_str().unwrap_or("")))
            .cloned()
            .collect(),
    )
}

fn filter_input(tools: &[Value], config: Value) -> Value {
    json!({"tools": tools, "config": config, "now": NOW})
}

fn kept(tools: Value) -> Expectation {
    Expectation::valid(json!({ "tools": tools }))
}

fn session(config: Value, chain: &Chain) -> Value {
    with(config, "sessionToken", chain.serialized())
}

fn build_filter(g: &mut Group, keys: &Keys) {
    let tools = upstream_tools();
    let root = Chain::root(keys);
    g.case(
        1,
        "no session token: the upstream list is returned unfiltered, unmapped tools included",
        &["MCP-LIST-UNFILTERED"],
        &[],
        FILTER,
        filter_input(&tools, config(keys)),
        kept(Value::Array(tools.clone())),
    );
    g.case(
        2,
        "session token with the default capabilities: only mapped tools whose namespace+action \
         is granted survive, objects unchanged (annotations, _meta, unknown members), in order",
        &[
            "MCP-LIST-FILTER",
            "MCP-LIST-UNMAPPED-HIDDEN",
            "MCP-LIST-PRESERVE",
        ],
        &[],
        FILTER,
        filter_input(&tools, session(config(keys), &root)),
        kept(pick(
            &tools,
            &["read_file", "write_file", "search", "nested"],
        )),
    );
    g.case(
        3,
        "resources are ignored for listing: docs:read on `/elsewhere` still lists the docs:read tools",
        &["MCP-LIST-FILTER"],
        &[],
        FILTER,
        filter_input(
            &tools,
            session(
                config(keys),
                &Chain::root(keys).caps(vec![cap("docs", "read", "/elsewhere")]),
            ),
        ),
        kept(pick(&tools, &["read_file", "nested"])),
    );
    let narrowed = Chain::root(keys).delegate(&keys.bob, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/**")]);
    });
    g.case(
        4,
        "the effective capabilities of an attenuated session token decide (docs:read only)",
        &["MCP-LIST-FILTER"],
        &[],
        FILTER,
        filter_input(&tools, session(config(keys), &narrowed)),
        kept(pick(&tools, &["read_file", "nested"])),
    );
    g.case(
        5,
        "a token holding only compute:execute lists only the compute tool",
        &["MCP-LIST-FILTER"],
        &[],
        FILTER,
        filter_input(
            &tools,
            session(
                config(keys),
                &Chain::root(keys).caps(vec![cap("compute", "execute", "*")]),
            ),
        ),
        kept(pick(&tools, &["run"])),
    );
    g.case(
        6,
        "a page on which every tool is hidden filters to an empty list",
        &["MCP-LIST-PAGINATION", "MCP-LIST-UNMAPPED-HIDDEN"],
        &[],
        FILTER,
        filter_input(
            &[tools[0].clone(), tools[2].clone(), tools[4].clone()],
            session(config(keys), &root),
        ),
        kept(json!([])),
    );
    g.case(
        7,
        "an empty page stays empty",
        &["MCP-LIST-FILTER"],
        &[],
        FILTER,
        filter_input(&[], session(config(keys), &root)),
        kept(json!([])),
    );
    // Session tokens that fail steps 1–6 → empty lists.
    let invalid: Vec<(u16, &str, Value, &str)> = vec![
        (
            20,
            "an expired session token yields an empty list",
            with(
                filter_input(&tools, session(config(keys), &root)),
                "now",
                json!(LATER),
            ),
            "expired",
        ),
        (
            21,
            "a session token issued by an untrusted root yields an empty list",
            filter_input(
                &tools,
                session(
                    config(keys),
                    &Chain::root(keys)
                        .with_authority(|a| a.issuer = keys.other_root.principal.clone()),
                ),
            ),
            "untrusted root",
        ),
        (
            22,
            "a revoked session token yields an empty list",
            filter_input(
                &tools,
                with(
                    session(config(keys), &root),
                    "revocations",
                    json!([revocation_entry(
                        &keys.root,
                        &root.revocation_ids()[0],
                        false
                    )]),
                ),
            ),
            "revoked",
        ),
        (
            23,
            "a session token whose delegation has spent its budget yields an empty list",
            with(
                filter_input(&tools, session(config(keys), &root)),
                "spent",
                json!({ DELEGATION: BUDGET }),
            ),
            "budget",
        ),
        (
            24,
            "a session token with a forged signature yields an empty list",
            filter_input(
                &tools,
                with(
                    config(keys),
                    "sessionToken",
                    super::dct_support::serialized(&{
                        let mut t = root.signed();
                        t.signatures[0] = Chain::root(keys)
                            .with_authority(|a| a.max_budget_microcents = 1)
                            .signatures()[0]
                            .clone();
                        t
                    }),
                ),
            ),
            "forged",
        ),
        (
            25,
            "a session token that is not base64url yields an empty list",
            filter_input(
                &tools,
                with(
                    config(keys),
                    "sessionToken",
                    json!({"token": "not a token!", "format": "delegateos-sjt-v1"}),
                ),
            ),
            "malformed",
        ),
        (
            26,
            "no trusted roots at all: the session token cannot verify, empty list",
            filter_input(
                &tools,
                with(session(config(keys), &root), "trustedRoots", json!([])),
            ),
            "no roots",
        ),
    ];
    for (n, description, input, _why) in invalid {
        g.case(
            n,
            description,
            &["MCP-LIST-INVALID-SESSION-TOKEN"],
            &[],
            FILTER,
            input,
            kept(json!([])),
        );
    }
    g.case(
        40,
        "spend recorded on another delegation does not affect the session token",
        &["MCP-LIST-FILTER", "MCP-SPEND-PER-DELEGATION"],
        &["McpBinding"],
        FILTER,
        with(
            filter_input(&tools, session(config(keys), &root)),
            "spent",
            json!({ "del_0000000000ff": BUDGET }),
        ),
        kept(pick(
            &tools,
            &["read_file", "write_file", "search", "nested"],
        )),
    );
    g.case(
        41,
        "spend below the budget keeps the session token valid (D21: denied only at spent ≥ budget)",
        &["MCP-LIST-FILTER", "MCP-SPEND-BUDGET"],
        &[],
        FILTER,
        with(
            filter_input(&tools, session(config(keys), &root)),
            "spent",
            json!({ DELEGATION: BUDGET - 1 }),
        ),
        kept(pick(
            &tools,
            &["read_file", "write_file", "search", "nested"],
        )),
    );
    g.case(
        42,
        "the issuer is matched against every trusted root, not only the first",
        &["MCP-LIST-FILTER"],
        &[],
        FILTER,
        filter_input(
            &tools,
            with(
                session(
                    config(keys),
                    &Chain::root(keys)
                        .with_authority(|a| a.issuer = keys.other_root.principal.clone()),
                ),
                "trustedRoots",
                json!([keys.root.principal, keys.other_root.principal]),
            ),
        ),
        kept(pick(
            &tools,
            &["read_file", "write_file", "search", "nested"],
        )),
    );
}

// ---------------------------------------------------------------------------------------
// tools/call

/// The `_delegateos` envelope of a chain, with both binding ids.
pub(super) fn envelope(chain: &Chain) -> Value {
    json!({
        "dct": chain.token_string(),
        "format": "delegateos-sjt-v1",
        "delegationId": chain.last_delegation_id(),
        "contractId": chain.last_contract_id(),
    })
}

/// A tools/call request; `_delegateos` is added when `env` is given.
pub(super) fn call_msg(id: Value, tool: &str, arguments: Value, env: Option<Value>) -> Value {
    let mut params = json!({"name": tool, "arguments": arguments});
    if let Some(e) = env {
        params["_delegateos"] = e;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

pub(super) fn read(path: &str) -> Value {
    json!({ "path": path })
}

fn call_input(request: Value, config: Value, now: &str) -> Value {
    json!({"request": request, "config": config, "now": now})
}

pub(super) fn stripped(request: &Value) -> Value {
    let mut r = request.clone();
    if let Some(p) = r.get_mut("params").and_then(Value::as_object_mut) {
        p.remove("_delegateos");
    }
    r
}

fn forward(request: &Value, delegation_id: &str, spend: u64) -> Expectation {
    Expectation::valid(json!({
        "decision": "forward",
        "request": stripped(request),
        "delegationId": delegation_id,
        "spend": spend,
    }))
}

/// A denial: `data` is the DenialReason without `detail`. When the denial type carries no
/// `detail` (`with_detail` false) the whole response is compared as well.
fn deny(id: &Value, data: Value, with_detail: bool) -> Expectation {
    let error = json!({"code": -32001, "message": DENIAL_MESSAGE, "data": data});
    let mut out = json!({"decision": "deny", "id": id, "error": error});
    if !with_detail {
        out["response"] = json!({"jsonrpc": "2.0", "id": id, "error": error});
    }
    Expectation::valid(out)
}

fn deny_type(id: &Value, ty: &str) -> Expectation {
    deny(id, json!({ "type": ty }), true)
}

fn not_granted(id: &Value, requested: Value, granted: &[Capability]) -> Expectation {
    deny(
        id,
        json!({"type": "capability_not_granted", "requested": requested, "granted": caps_json(granted)}),
        false,
    )
}

fn triple(ns: &str, action: &str, resource: Value) -> Value {
    json!({"namespace": ns, "action": action, "resource": resource})
}

fn build_call(g: &mut Group, keys: &Keys) {
    let root = Chain::root(keys);
    let cfg = config(keys);
    let id1 = json!(1);

    // --- Forwarded calls ------------------------------------------------------------------
    let mut req = call_msg(
        json!("req-1"),
        "read_file",
        json!({"z": 1, "path": "/project/readme.md", "a": {"nested": [1, "x", null]}, "unicode": "é\u{2028}😀"}),
        Some(envelope(&root)),
    );
    req["params"]["_meta"] = json!({"progressToken": "p-1", "x": {"y": true}});
    req["params"]["x-unknown"] = json!([1, {"k": "v"}]);
    g.case(
        1,
        "an authorized call is forwarded with `_delegateos` removed and every other member \
         (name, arguments, _meta, unknown members, id) intact; charged spendPerCall to the \
         token's delegation",
        &[
            "MCP-CALL-VERIFY",
            "MCP-CALL-STRIP",
            "MCP-SPEND-PER-DELEGATION",
        ],
        &[],
        CALL,
        call_input(req.clone(), cfg.clone(), NOW),
        forward(&req, DELEGATION, 100),
    );
    let req = call_msg(
        id1.clone(),
        "read_file",
        read("/project/a/b.md"),
        Some(json!({"dct": root.token_string(), "format": "delegateos-sjt-v1"})),
    );
    g.case(
        2,
        "an envelope with only `dct` and `format` (the binding ids are optional) is accepted",
        &["MCP-CALL-VERIFY", "MCP-CALL-STRIP"],
        &[],
        CALL,
        call_input(req.clone(), cfg.clone(), NOW),
        forward(&req, DELEGATION, 100),
    );
    let bob = Chain::root(keys).delegate(&keys.bob, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/**")]);
        a.max_budget_microcents = Some(300);
    });
    let req = call_msg(
        id1.clone(),
        "read_file",
        read("/project/x.md"),
        Some(envelope(&bob)),
    );
    g.case(
        3,
        "an attenuated token: spend is attributed to the token's last delegationId",
        &["MCP-CALL-VERIFY", "MCP-SPEND-PER-DELEGATION"],
        &["McpBinding"],
        CALL,
        call_input(req.clone(), cfg.clone(), NOW),
        forward(&req, &bob.last_delegation_id(), 100),
    );
    let compute = Chain::root(keys).caps(vec![cap("compute", "execute", "*")]);
    let req = call_msg(
        json!(7),
        "run",
        json!({"cmd": "ls"}),
        Some(envelope(&compute)),
    );
    g.case(
        4,
        "a constant resource and a per-tool `spend` (500) override spendPerCall",
        &["MCP-CALL-VERIFY", "MCP-SPEND-PER-DELEGATION"],
        &[],
        CALL,
        call_input(req.clone(), cfg.clone(), NOW),
        forward(&req, DELEGATION, 500),
    );
    let req = call_msg(json!(8), "search", json!({"q": "x"}), Some(envelope(&root)));
    g.case(
        5,
        "a tool without `resource` requests `*`, matched by web:search:*",
        &["MCP-CALL-VERIFY"],
        &[],
        CALL,
        call_input(req.clone(), cfg.clone(), NOW),
        forward(&req, DELEGATION, 100),
    );
    let req = call_msg(
        json!(9),
        "nested",
        json!({"target": {"path": "/project/deep/file.md", "other": 1}}),
        Some(envelope(&root)),
    );
    g.case(
        6,
        "a dot-path resource (`target.path`) is extracted from nested arguments",
        &["MCP-CALL-VERIFY"],
        &[],
        CALL,
        call_input(req.clone(), cfg.clone(), NOW),
        forward(&req, DELEGATION, 100),
    );
    let req = call_msg(
        id1.clone(),
        "read_file",
        read("/project/readme.md"),
        Some(envelope(&root)),
    );
    g.case(
        7,
        "recorded spend one below the budget still authorizes the call (D21: denied at spent ≥ budget)",
        &["MCP-SPEND-BUDGET", "MCP-CALL-VERIFY"],
        &[],
        CALL,
        with(
            call_input(req.clone(), cfg.clone(), NOW),
            "spent",
            json!({ DELEGATION: BUDGET - 1 }),
        ),
        forward(&req, DELEGATION, 100),
    );
    g.case(
        8,
        "spend recorded against another delegation does not count against this token",
        &["MCP-SPEND-PER-DELEGATION"],
        &["McpBinding"],
        CALL,
        with(
            call_input(req.clone(), cfg.clone(), NOW),
            "spent",
            json!({ "del_0000000000ff": BUDGET, bob.last_delegation_id(): BUDGET }),
        ),
        forward(&req, DELEGATION, 100),
    );
    let mut note = req.clone();
    note.as_object_mut().map(|o| o.remove("id"));
    g.case(
        9,
        "an authorized tools/call notification (no id) is forwarded and charged",
        &["MCP-CALL-VERIFY", "MCP-CALL-STRIP"],
        &[],
        CALL,
        call_input(note.clone(), cfg.clone(), NOW),
        forward(&note, DELEGATION, 100),
    );
    let req = call_msg(id1.clone(), "publish", json!({}), Some(envelope(&root)));
    g.case(
        10,
        "a constant resource is matched with the glob rules (`/project/drafts/*`)",
        &["MCP-CALL-VERIFY"],
        &[],
        CALL,
        call_input(req.clone(), cfg.clone(), NOW),
        forward(&req, DELEGATION, 100),
    );
    let req = call_msg(
        id1.clone(),
        "read_file",
        read("/project/readme.md"),
        Some(envelope(&root)),
    );
    g.case(
        11,
        "strict mode does not affect a call that carries a valid `_delegateos`",
        &["MCP-STRICT-MODE", "MCP-CALL-VERIFY"],
        &["McpStrictMode"],
        CALL,
        call_input(req.clone(), with(cfg.clone(), "strict", json!(true)), NOW),
        forward(&req, DELEGATION, 100),
    );

    // --- Pass-through and strict mode ---------------------------------------------------------
    let bare = call_msg(json!("s"), "delete_file", read("/etc/passwd"), None);
    g.case(
        20,
        "spec mode: a tools/call without `_delegateos` passes through unchanged (D15)",
        &["MCP-MISSING-DELEGATEOS"],
        &["McpStrictMode"],
        CALL,
        call_input(bare.clone(), cfg.clone(), NOW),
        Expectation::valid(json!({"decision": "pass_through"})),
    );
    g.case(
        21,
        "strict mode: a tools/call without `_delegateos` is denied malformed_token (D15)",
        &["MCP-STRICT-MODE", "MCP-DENY-SHAPE"],
        &["McpStrictMode"],
        CALL,
        call_input(bare.clone(), with(cfg.clone(), "strict", json!(true)), NOW),
        deny_type(&json!("s"), "malformed_token"),
    );
    let mut bare_note = bare.clone();
    bare_note.as_object_mut().map(|o| o.remove("id"));
    g.case(
        22,
        "strict mode: a tools/call notification without `_delegateos` is dropped (no id to answer)",
        &["MCP-STRICT-MODE", "MCP-NO-RESPONSE-TO-NOTIFICATION"],
        &["McpStrictMode"],
        CALL,
        call_input(bare_note, with(cfg.clone(), "strict", json!(true)), NOW),
        Expectation::valid(json!({"decision": "drop"})),
    );
    for (n, method) in [(23u16, "ping"), (24, "tools/list"), (25, "resources/read")] {
        let msg = json!({"jsonrpc": "2.0", "id": 5, "method": method,
                         "params": {"_delegateos": {"dct": "x", "format": "other"}}});
        g.case(
            n,
            &format!(
                "`{method}` is not intercepted, even in strict mode and with a bogus `_delegateos`"
            ),
            &["MCP-PASS-THROUGH"],
            &[],
            CALL,
            call_input(msg, with(cfg.clone(), "strict", json!(true)), NOW),
            Expectation::valid(json!({"decision": "pass_through"})),
        );
    }

    // --- Every denial type -------------------------------------------------------------------
    let req = call_msg(
        id1.clone(),
        "read_file",
        read("/project/readme.md"),
        Some(envelope(&root)),
    );
    g.case(
        40,
        "expired token → expired",
        &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"],
        &[],
        CALL,
        call_input(req.clone(), cfg.clone(), LATER),
        deny(&id1, json!({"type": "expired"}), false),
    );
    let rid = root.revocation_ids()[0].clone();
    g.case(
        41,
        "revoked authority block → revoked with revocationId",
        &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"],
        &["RevocationScope"],
        CALL,
        call_input(
            req.clone(),
            with(
                cfg.clone(),
                "revocations",
                json!([revocation_entry(&keys.root, &rid, false)]),
            ),
            NOW,
        ),
        deny(&id1, json!({"type": "revoked", "revocationId": rid}), false),
    );
    g.case(
        42,
        "revoked and expired: revocation (step 2) takes precedence over expiry",
        &["MCP-DENY-EVERY-TYPE"],
        &["Precedence"],
        CALL,
        call_input(
            req.clone(),
            with(
                cfg.clone(),
                "revocations",
                json!([revocation_entry(&keys.root, &rid, false)]),
            ),
            LATER,
        ),
        deny(&id1, json!({"type": "revoked", "revocationId": rid}), false),
    );
    g.case(
        43,
        "recorded spend equal to the budget → budget_exceeded with limit and spent",
        &["MCP-DENY-EVERY-TYPE", "MCP-SPEND-BUDGET"],
        &[],
        CALL,
        with(
            call_input(req.clone(), cfg.clone(), NOW),
            "spent",
            json!({ DELEGATION: BUDGET }),
        ),
        deny(
            &id1,
            json!({"type": "budget_exceeded", "limit": BUDGET, "spent": BUDGET}),
            false,
        ),
    );
    let bob_req = call_msg(
        id1.clone(),
        "read_file",
        read("/project/x.md"),
        Some(envelope(&bob)),
    );
    g.case(
        44,
        "the effective (attenuated) budget of 300 with 300 recorded on the last delegation → budget_exceeded",
        &["MCP-SPEND-BUDGET", "MCP-SPEND-PER-DELEGATION"],
        &["McpBinding"],
        CALL,
        with(
            call_input(bob_req.clone(), cfg.clone(), NOW),
            "spent",
            json!({ bob.last_delegation_id(): 300 }),
        ),
        deny(
            &id1,
            json!({"type": "budget_exceeded", "limit": 300, "spent": 300}),
            false,
        ),
    );
    g.case(
        45,
        "spend on the parent's delegation id is not the attenuated token's spend",
        &["MCP-SPEND-PER-DELEGATION"],
        &["McpBinding"],
        CALL,
        with(
            call_input(bob_req.clone(), cfg.clone(), NOW),
            "spent",
            json!({ DELEGATION: BUDGET }),
        ),
        forward(&bob_req, &bob.last_delegation_id(), 100),
    );
    let deep = Chain::root(keys)
        .with_authority(|a| a.max_chain_depth = 0)
        .delegate(&keys.bob, |_| {});
    g.case(
        46,
        "an attenuation beyond maxChainDepth 0 → chain_depth_exceeded with max and actual",
        &["MCP-DENY-EVERY-TYPE"],
        &["DepthSemantics"],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "read_file",
                read("/project/x.md"),
                Some(envelope(&deep)),
            ),
            cfg.clone(),
            NOW,
        ),
        deny(
            &id1,
            json!({"type": "chain_depth_exceeded", "max": 0, "actual": 1}),
            false,
        ),
    );
    let forged = {
        let mut t = root.signed();
        t.signatures[0] = Chain::root(keys)
            .with_authority(|a| a.max_budget_microcents = 1)
            .signatures()[0]
            .clone();
        t
    };
    let forged_env = json!({"dct": super::dct_support::serialized(&forged)["token"], "format": "delegateos-sjt-v1"});
    g.case(
        47,
        "an authority signature over other content → invalid_signature",
        &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"],
        &[],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "read_file",
                read("/project/x.md"),
                Some(forged_env),
            ),
            cfg.clone(),
            NOW,
        ),
        deny_type(&id1, "invalid_signature"),
    );
    let other = Chain::root(keys).with_authority(|a| a.issuer = keys.other_root.principal.clone());
    g.case(
        48,
        "a correctly self-signed token from an untrusted root → invalid_signature",
        &["MCP-DENY-UNTRUSTED-ROOT", "MCP-DENY-EVERY-TYPE"],
        &[],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "read_file",
                read("/project/x.md"),
                Some(envelope(&other)),
            ),
            cfg.clone(),
            NOW,
        ),
        deny_type(&id1, "invalid_signature"),
    );
    g.case(
        49,
        "no trusted roots configured → invalid_signature",
        &["MCP-DENY-UNTRUSTED-ROOT"],
        &[],
        CALL,
        call_input(
            req.clone(),
            with(cfg.clone(), "trustedRoots", json!([])),
            NOW,
        ),
        deny_type(&id1, "invalid_signature"),
    );
    g.case(
        50,
        "untrusted root and expired: the signature check (step 3) precedes expiry (step 5)",
        &["MCP-DENY-UNTRUSTED-ROOT"],
        &["Precedence"],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "read_file",
                read("/project/x.md"),
                Some(envelope(&other)),
            ),
            cfg.clone(),
            LATER,
        ),
        deny_type(&id1, "invalid_signature"),
    );
    let widening = Chain::root(keys).delegate(&keys.bob, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/**")]);
    });
    g.case(
        51,
        "an attenuation that widens its parent's capabilities (signed directly) → attenuation_violation",
        &["MCP-DENY-EVERY-TYPE"],
        &["ScopeWidening"],
        CALL,
        call_input(
            call_msg(id1.clone(), "read_file", read("/project/x.md"), Some(envelope(&widening))),
            cfg.clone(),
            NOW,
        ),
        deny_type(&id1, "attenuation_violation"),
    );

    // --- The _delegateos envelope (D17) ------------------------------------------------------
    let tok = root.token_string();
    let bad_envelopes: Vec<(u16, &str, Value)> = vec![
        (60, "`_delegateos` is null", Value::Null),
        (61, "`_delegateos` is a string", json!(tok)),
        (
            62,
            "`_delegateos` is an array",
            json!([{"dct": tok, "format": "delegateos-sjt-v1"}]),
        ),
        (
            63,
            "`dct` is missing",
            json!({"format": "delegateos-sjt-v1"}),
        ),
        (
            64,
            "`format` is another format",
            json!({"dct": tok, "format": "delegateos-sjt-v2"}),
        ),
        (65, "`format` is missing", json!({"dct": tok})),
        (
            66,
            "an unknown member rides along",
            json!({"dct": tok, "format": "delegateos-sjt-v1", "scope": "all"}),
        ),
        (
            67,
            "`dct` is not a string",
            json!({"dct": {"token": tok}, "format": "delegateos-sjt-v1"}),
        ),
        (
            68,
            "`dct` is not base64url",
            json!({"dct": "!!not-base64!!", "format": "delegateos-sjt-v1"}),
        ),
        (
            69,
            "`delegationId` is not a string",
            json!({"dct": tok, "format": "delegateos-sjt-v1", "delegationId": 1}),
        ),
    ];
    for (n, what, env) in bad_envelopes {
        let reqs: &[&str] = if n == 68 {
            &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"]
        } else {
            &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-SHAPE"]
        };
        g.case(
            n,
            &format!("{what} → malformed_token"),
            reqs,
            &[],
            CALL,
            call_input(
                call_msg(id1.clone(), "read_file", read("/project/x.md"), Some(env)),
                cfg.clone(),
                NOW,
            ),
            deny_type(&id1, "malformed_token"),
        );
    }
    g.case(
        70,
        "a malformed envelope is reported before an expired token could be (envelope first, M4)",
        &["MCP-DELEGATEOS-MALFORMED"],
        &["Precedence"],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "read_file",
                read("/project/x.md"),
                Some(json!({"dct": tok, "format": "delegateos-sjt-v1", "extra": true})),
            ),
            cfg.clone(),
            LATER,
        ),
        deny_type(&id1, "malformed_token"),
    );
    let binding: Vec<(u16, &str, Value)> = vec![
        (
            80,
            "`delegationId` differs from the token's",
            json!({"dct": tok, "format": "delegateos-sjt-v1", "delegationId": "del_00000000beef"}),
        ),
        (
            81,
            "`contractId` differs from the token's",
            json!({"dct": tok, "format": "delegateos-sjt-v1", "contractId": "ct_00000000beef"}),
        ),
        (
            82,
            "`delegationId` names the root delegation of an attenuated token (not its last)",
            json!({"dct": bob.token_string(), "format": "delegateos-sjt-v1", "delegationId": DELEGATION}),
        ),
        (
            83,
            "`contractId` names the root contract of an attenuated token (not its last, D11)",
            json!({"dct": bob.token_string(), "format": "delegateos-sjt-v1", "contractId": CONTRACT}),
        ),
    ];
    for (n, what, env) in binding {
        g.case(
            n,
            &format!("D17 binding: {what} → malformed_token"),
            &["MCP-DELEGATEOS-CONSISTENT", "MCP-DENY-SHAPE"],
            &["McpBinding"],
            CALL,
            call_input(
                call_msg(id1.clone(), "read_file", read("/project/x.md"), Some(env)),
                cfg.clone(),
                NOW,
            ),
            deny_type(&id1, "malformed_token"),
        );
    }
    g.case(
        84,
        "a binding mismatch on an expired token reports expired (binding is checked after steps 1–6, M4)",
        &["MCP-DELEGATEOS-CONSISTENT"],
        &["McpBinding", "Precedence"],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "read_file",
                read("/project/x.md"),
                Some(json!({"dct": tok, "format": "delegateos-sjt-v1", "delegationId": "del_00000000beef"})),
            ),
            cfg.clone(),
            LATER,
        ),
        deny(&id1, json!({"type": "expired"}), false),
    );

    // --- Tool map, resource extraction (M3) and step 7 ---------------------------------------
    g.case(
        90,
        "a tool absent from the tool map → capability_not_granted with `tool` and `granted`",
        &["MCP-DENY-UNMAPPED-TOOL", "MCP-DENY-SHAPE"],
        &[],
        CALL,
        call_input(
            call_msg(id1.clone(), "echo", json!({"text": "hi"}), Some(envelope(&root))),
            cfg.clone(),
            NOW,
        ),
        deny(
            &id1,
            json!({"type": "capability_not_granted", "tool": "echo", "granted": caps_json(&default_caps())}),
            true,
        ),
    );
    g.case(
        91,
        "an unmapped tool with an expired token reports expired (tool map after verification, M4)",
        &["MCP-DENY-UNMAPPED-TOOL"],
        &["Precedence"],
        CALL,
        call_input(
            call_msg(id1.clone(), "echo", json!({}), Some(envelope(&root))),
            cfg.clone(),
            LATER,
        ),
        deny(&id1, json!({"type": "expired"}), false),
    );
    let m3: Vec<(u16, &str, &str, Value)> = vec![
        (
            100,
            "the resource argument is missing",
            "read_file",
            json!({"other": "/project/x"}),
        ),
        (
            101,
            "the resource argument is a number",
            "read_file",
            json!({"path": 7}),
        ),
        (
            102,
            "the resource argument is null",
            "read_file",
            json!({"path": null}),
        ),
        (
            103,
            "the resource argument is an array of strings",
            "read_file",
            json!({"path": ["/project/x"]}),
        ),
        (
            104,
            "a dot-path walks into a string",
            "nested",
            json!({"target": "/project/x"}),
        ),
        (
            105,
            "a dot-path does not index arrays",
            "nested",
            json!({"target": [{"path": "/project/x"}]}),
        ),
        (
            106,
            "the dot-path is not a member name with a dot",
            "nested",
            json!({"target.path": "/project/x"}),
        ),
    ];
    for (n, what, tool, args) in m3 {
        g.case(
            n,
            &format!("M3: {what} → capability_not_granted with requested.resource null"),
            &["MCP-DENY-CAPABILITY-DATA", "MCP-CALL-VERIFY"],
            &[],
            CALL,
            call_input(
                call_msg(id1.clone(), tool, args, Some(envelope(&root))),
                cfg.clone(),
                NOW,
            ),
            deny(
                &id1,
                json!({"type": "capability_not_granted",
                       "requested": triple("docs", "read", Value::Null),
                       "granted": caps_json(&default_caps())}),
                true,
            ),
        );
    }
    let mut no_args = call_msg(id1.clone(), "read_file", json!({}), Some(envelope(&root)));
    no_args["params"]
        .as_object_mut()
        .map(|p| p.remove("arguments"));
    g.case(
        107,
        "M3: no `arguments` at all → capability_not_granted with requested.resource null",
        &["MCP-DENY-CAPABILITY-DATA"],
        &[],
        CALL,
        call_input(no_args, cfg.clone(), NOW),
        deny(
            &id1,
            json!({"type": "capability_not_granted",
                   "requested": triple("docs", "read", Value::Null),
                   "granted": caps_json(&default_caps())}),
            true,
        ),
    );
    g.case(
        108,
        "M3: a missing argument with an expired token reports expired (resource after steps 1–6)",
        &["MCP-CALL-VERIFY"],
        &["Precedence"],
        CALL,
        call_input(
            call_msg(id1.clone(), "read_file", json!({}), Some(envelope(&root))),
            cfg.clone(),
            LATER,
        ),
        deny(&id1, json!({"type": "expired"}), false),
    );
    g.case(
        110,
        "step 7: a resource outside the granted pattern → capability_not_granted with requested and granted",
        &["MCP-DENY-CAPABILITY-DATA", "MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"],
        &[],
        CALL,
        call_input(
            call_msg(id1.clone(), "read_file", read("/etc/passwd"), Some(envelope(&root))),
            cfg.clone(),
            NOW,
        ),
        not_granted(&id1, triple("docs", "read", json!("/etc/passwd")), &default_caps()),
    );
    g.case(
        111,
        "step 7: an action the token does not hold (docs:delete) → capability_not_granted",
        &["MCP-DENY-CAPABILITY-DATA", "MCP-DENY-EVERY-TYPE"],
        &[],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "delete_file",
                read("/project/readme.md"),
                Some(envelope(&root)),
            ),
            cfg.clone(),
            NOW,
        ),
        not_granted(
            &id1,
            triple("docs", "delete", json!("/project/readme.md")),
            &default_caps(),
        ),
    );
    g.case(
        112,
        "step 7 uses the effective (attenuated) capabilities: docs:write is gone after narrowing",
        &["MCP-DENY-CAPABILITY-DATA", "MCP-CALL-VERIFY"],
        &[],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "write_file",
                read("/project/drafts/a.md"),
                Some(envelope(&bob)),
            ),
            cfg.clone(),
            NOW,
        ),
        not_granted(
            &id1,
            triple("docs", "write", json!("/project/drafts/a.md")),
            &[cap("docs", "read", "/project/**")],
        ),
    );
    g.case(
        113,
        "step 7: `/project/drafts/*` does not match two segments",
        &["MCP-DENY-CAPABILITY-DATA"],
        &[],
        CALL,
        call_input(
            call_msg(
                id1.clone(),
                "write_file",
                read("/project/drafts/a/b.md"),
                Some(envelope(&root)),
            ),
            cfg.clone(),
            NOW,
        ),
        not_granted(
            &id1,
            triple("docs", "write", json!("/project/drafts/a/b.md")),
            &default_caps(),
        ),
    );

    // --- Ids echoed with their JSON type ------------------------------------------------------
    let ids: Vec<(u16, Value)> = vec![
        (120, json!(0)),
        (121, json!("abc")),
        (122, json!("")),
        (123, json!("é✓ 😀")),
        (124, json!(9_007_199_254_740_993_u64)),
        (125, json!(-3)),
        (126, json!("1")),
    ];
    for (n, id) in ids {
        g.case(
            n,
            &format!("the denial echoes id {id} with its JSON type"),
            &["MCP-DENY-SHAPE", "MCP-ID-PRESERVE"],
            &[],
            CALL,
            call_input(
                call_msg(
                    id.clone(),
                    "read_file",
                    read("/etc/passwd"),
                    Some(envelope(&root)),
                ),
                cfg.clone(),
                NOW,
            ),
            not_granted(
                &id,
                triple("docs", "read", json!("/etc/passwd")),
                &default_caps(),
            ),
        );
    }

    // --- Notifications -----------------------------------------------------------------------
    let mut denied_note = call_msg(
        id1.clone(),
        "read_file",
        read("/etc/passwd"),
        Some(envelope(&root)),
    );
    denied_note.as_object_mut().map(|o| o.remove("id"));
    g.case(
        130,
        "a denied tools/call notification is dropped with the denial data, never answered",
        &["MCP-NO-RESPONSE-TO-NOTIFICATION", "MCP-DENY-NOT-FORWARDED"],
        &[],
        CALL,
        call_input(denied_note, cfg.clone(), NOW),
        Expectation::valid(json!({"decision": "drop", "data": {
            "type": "capability_not_granted",
            "requested": triple("docs", "read", json!("/etc/passwd")),
            "granted": caps_json(&default_caps()),
        }})),
    );
}
