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
use crate::tables::Ids;

const FILTER: &str = "mcp.filter_tools";
const CALL: &str = "mcp.call";
pub(super) const DENIAL_MESSAGE: &str = "DCT verification failed";
/// One second after the default root expiry (`dct_support::EXPIRES_AT`).
const LATER: &str = "2026-03-01T12:00:01Z";

/// The groups, in output order: (name, description, builder).
#[rustfmt::skip]
const GROUPS: &[crate::tables::GroupDef] = &[
    ("filter_tools", "mcp.filter_tools: tools/list filtering by the session DCT (spec/mcp-proxy.md §3.2, D32).", build_filter),
    ("call", "mcp.call: tools/call decisions — pass-through, forward with `_delegateos` stripped and \
        spend attributed, every denial with its -32001 body (spec/mcp-proxy.md §3.3–3.4, \
        D15, D17, D21, D32, M3, M4).", build_call),
];

/// Builds the `mcp` area: groups `filter_tools` and `call`.
pub fn build(area: &mut Area) {
    crate::tables::build_groups(area, GROUPS);
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

/// What every case starts from: the keys, the root token, the attenuated token of the call
/// cases (docs:read on `/project/**`, budget 300), the config and the upstream tools.
struct Fx<'a> {
    k: &'a Keys,
    root: Chain,
    bob: Chain,
    cfg: Value,
    tools: Vec<Value>,
}

impl<'a> Fx<'a> {
    fn new(k: &'a Keys) -> Self {
        let bob = Chain::root(k).delegate(&k.bob, |a| {
            a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/**")]);
            a.max_budget_microcents = Some(300);
        });
        Fx {
            k,
            root: Chain::root(k),
            bob,
            cfg: config(k),
            tools: upstream_tools(),
        }
    }

    /// The filter input: every upstream tool, the config with `chain` as session token.
    fn listing(&self, chain: &Chain) -> Value {
        filter_input(&self.tools, session(config(self.k), chain))
    }

    /// A root token whose issuer is the other (untrusted) root.
    fn other(&self) -> Chain {
        Chain::root(self.k).with_authority(|a| a.issuer = self.k.other_root.principal.clone())
    }

    /// The root token with an authority signature over other content (budget 1).
    fn forged(&self) -> Value {
        let mut t = self.root.signed();
        t.signatures[0] = Chain::root(self.k)
            .with_authority(|a| a.max_budget_microcents = 1)
            .signatures()[0]
            .clone();
        super::dct_support::serialized(&t)
    }

    /// The config revoking the root token's authority block.
    fn revoking(&self) -> Value {
        let rid = &self.root.revocation_ids()[0];
        with(
            self.cfg.clone(),
            "revocations",
            json!([revocation_entry(&self.k.root, rid, false)]),
        )
    }
}

/// A token holding only compute:execute on `*`.
fn compute(k: &Keys) -> Chain {
    Chain::root(k).caps(vec![cap("compute", "execute", "*")])
}

/// A value built from the fixture.
type Build = fn(&Fx) -> Value;
/// A JSON literal.
type Literal = fn() -> Value;

/// The tools the default capabilities list.
const LISTED: &[&str] = &["read_file", "write_file", "search", "nested"];

/// Number, description, requirements, flags, input, the tools kept.
type FilterRow = (
    u16,
    &'static str,
    Ids,
    Ids,
    fn(&Fx) -> Value,
    fn(&Fx) -> Value,
);

#[rustfmt::skip]
const FILTERS: &[FilterRow] = &[
    (1, "no session token: the upstream list is returned unfiltered, unmapped tools included", &["MCP-LIST-UNFILTERED"], &[],
        |f| filter_input(&f.tools, config(f.k)), |f| Value::Array(f.tools.clone())),
    (2, "session token with the default capabilities: only mapped tools whose namespace+action \
         is granted survive, objects unchanged (annotations, _meta, unknown members), in order",
        &["MCP-LIST-FILTER", "MCP-LIST-UNMAPPED-HIDDEN", "MCP-LIST-PRESERVE"], &[], |f| f.listing(&f.root), |f| pick(&f.tools, LISTED)),
    (3, "resources are ignored for listing: docs:read on `/elsewhere` still lists the docs:read tools", &["MCP-LIST-FILTER"], &[],
        |f| f.listing(&Chain::root(f.k).caps(vec![cap("docs", "read", "/elsewhere")])), |f| pick(&f.tools, &["read_file", "nested"])),
    (4, "the effective capabilities of an attenuated session token decide (docs:read only)", &["MCP-LIST-FILTER"], &[],
        |f| f.listing(&Chain::root(f.k).delegate(&f.k.bob, |a| a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/**")]))),
        |f| pick(&f.tools, &["read_file", "nested"])),
    (5, "a token holding only compute:execute lists only the compute tool", &["MCP-LIST-FILTER"], &[],
        |f| f.listing(&compute(f.k)), |f| pick(&f.tools, &["run"])),
    (6, "a page on which every tool is hidden filters to an empty list", &["MCP-LIST-PAGINATION", "MCP-LIST-UNMAPPED-HIDDEN"], &[],
        |f| filter_input(&[f.tools[0].clone(), f.tools[2].clone(), f.tools[4].clone()], session(config(f.k), &f.root)), |_| json!([])),
    (7, "an empty page stays empty", &["MCP-LIST-FILTER"], &[], |f| filter_input(&[], session(config(f.k), &f.root)), |_| json!([])),
];

/// Session tokens that fail steps 1–6 → empty lists: number, description, input.
#[rustfmt::skip]
const INVALID_SESSIONS: &[(u16, &str, Build)] = &[
    (20, "an expired session token yields an empty list", |f| with(f.listing(&f.root), "now", json!(LATER))),
    (21, "a session token issued by an untrusted root yields an empty list", |f| f.listing(&f.other())),
    (22, "a revoked session token yields an empty list", |f| filter_input(&f.tools, with(session(config(f.k), &f.root), "revocations",
        json!([revocation_entry(&f.k.root, &f.root.revocation_ids()[0], false)])))),
    (23, "a session token whose delegation has spent its budget yields an empty list", |f| with(f.listing(&f.root), "spent", json!({ DELEGATION: BUDGET }))),
    (24, "a session token with a forged signature yields an empty list", |f| filter_input(&f.tools, with(config(f.k), "sessionToken", f.forged()))),
    (25, "a session token that is not base64url yields an empty list",
        |f| filter_input(&f.tools, with(config(f.k), "sessionToken", json!({"token": "not a token!", "format": "delegateos-sjt-v1"})))),
    (26, "no trusted roots at all: the session token cannot verify, empty list",
        |f| filter_input(&f.tools, with(session(config(f.k), &f.root), "trustedRoots", json!([])))),
];

/// Spend and trusted roots that leave the session token valid.
#[rustfmt::skip]
const VALID_SESSIONS: &[FilterRow] = &[
    (40, "spend recorded on another delegation does not affect the session token", &["MCP-LIST-FILTER", "MCP-SPEND-PER-DELEGATION"], &["McpBinding"],
        |f| with(f.listing(&f.root), "spent", json!({ "del_0000000000ff": BUDGET })), |f| pick(&f.tools, LISTED)),
    (41, "spend below the budget keeps the session token valid (D21: denied only at spent ≥ budget)", &["MCP-LIST-FILTER", "MCP-SPEND-BUDGET"], &[],
        |f| with(f.listing(&f.root), "spent", json!({ DELEGATION: BUDGET - 1 })), |f| pick(&f.tools, LISTED)),
    (42, "the issuer is matched against every trusted root, not only the first", &["MCP-LIST-FILTER"], &[],
        |f| filter_input(&f.tools, with(session(config(f.k), &f.other()), "trustedRoots", json!([f.k.root.principal, f.k.other_root.principal]))),
        |f| pick(&f.tools, LISTED)),
];

fn filter_rows(g: &mut Group, f: &Fx, rows: &[FilterRow]) {
    for &(n, desc, reqs, flags, input, tools) in rows {
        g.case(n, desc, reqs, flags, FILTER, input(f), kept(tools(f)));
    }
}

fn build_filter(g: &mut Group, keys: &Keys) {
    let f = Fx::new(keys);
    filter_rows(g, &f, FILTERS);
    for &(n, description, input) in INVALID_SESSIONS {
        g.case(
            n,
            description,
            &["MCP-LIST-INVALID-SESSION-TOKEN"],
            &[],
            FILTER,
            input(&f),
            kept(json!([])),
        );
    }
    filter_rows(g, &f, VALID_SESSIONS);
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

/// Whose delegation: the root token's or the attenuated token's (`Fx::bob`).
#[derive(Clone, Copy)]
enum Who {
    Root,
    Bob,
}

/// What a tools/call case expects; the request (and its id) is the one of the input.
#[derive(Clone, Copy)]
enum Out {
    /// Forwarded, charged to whose last delegation, this spend.
    Forward(Who, u64),
    PassThrough,
    Drop,
    /// Dropped with this denial data.
    DropData(fn(&Fx) -> Value),
    /// Denied with this data (no `detail`); `true` when the denial type carries `detail`.
    Deny(fn(&Fx) -> Value, bool),
    /// Denied with `{"type": ...}` only (the type carries `detail`).
    Type(&'static str),
    /// capability_not_granted: namespace, action, resource requested; whose capabilities.
    NotGranted(&'static str, &'static str, &'static str, Who),
}

const EXPIRED: Out = Out::Deny(|_| json!({"type": "expired"}), false);
const REVOKED: Out = Out::Deny(
    |f| json!({"type": "revoked", "revocationId": f.root.revocation_ids()[0]}),
    false,
);
const MALFORMED: Out = Out::Type("malformed_token");
const BAD_SIGNATURE: Out = Out::Type("invalid_signature");

/// The docs:read request on a missing resource, with the default capabilities.
fn null_resource(_: &Fx) -> Value {
    json!({"type": "capability_not_granted",
           "requested": triple("docs", "read", Value::Null),
           "granted": caps_json(&default_caps())})
}

impl Fx<'_> {
    fn delegation(&self, who: Who) -> String {
        match who {
            Who::Root => DELEGATION.to_owned(),
            Who::Bob => self.bob.last_delegation_id(),
        }
    }

    fn caps(&self, who: Who) -> Vec<Capability> {
        match who {
            Who::Root => default_caps(),
            Who::Bob => vec![cap("docs", "read", "/project/**")],
        }
    }

    fn expect(&self, out: Out, input: &Value) -> Expectation {
        let request = &input["request"];
        let id = &request["id"];
        match out {
            Out::Forward(who, spend) => forward(request, &self.delegation(who), spend),
            Out::PassThrough => Expectation::valid(json!({"decision": "pass_through"})),
            Out::Drop => Expectation::valid(json!({"decision": "drop"})),
            Out::DropData(data) => {
                Expectation::valid(json!({"decision": "drop", "data": data(self)}))
            }
            Out::Deny(data, with_detail) => deny(id, data(self), with_detail),
            Out::Type(ty) => deny_type(id, ty),
            Out::NotGranted(ns, action, resource, who) => {
                not_granted(id, triple(ns, action, json!(resource)), &self.caps(who))
            }
        }
    }

    /// read_file on `path` with id 1 and the envelope of `chain`.
    fn read(&self, path: &str, chain: &Chain) -> Value {
        call_msg(json!(1), "read_file", read(path), Some(envelope(chain)))
    }

    /// `tool` with id 1, these arguments and the root token's envelope.
    fn tool(&self, tool: &str, arguments: Value) -> Value {
        call_msg(json!(1), tool, arguments, Some(envelope(&self.root)))
    }

    /// read_file on `/project/x.md` with id 1 and this envelope.
    fn with_env(&self, env: Value) -> Value {
        call_msg(json!(1), "read_file", read("/project/x.md"), Some(env))
    }

    /// The root token's envelope without binding ids, plus `extra` members.
    fn env(&self, extra: Value) -> Value {
        let mut e = json!({"dct": self.root.token_string(), "format": "delegateos-sjt-v1"});
        if let (Some(e), Some(x)) = (e.as_object_mut(), extra.as_object()) {
            e.extend(x.clone());
        }
        e
    }

    fn now(&self, request: Value) -> Value {
        call_input(request, self.cfg.clone(), NOW)
    }

    fn later(&self, request: Value) -> Value {
        call_input(request, self.cfg.clone(), LATER)
    }

    fn strict(&self, request: Value) -> Value {
        call_input(request, with(self.cfg.clone(), "strict", json!(true)), NOW)
    }

    fn spent(&self, request: Value, spent: Value) -> Value {
        with(self.now(request), "spent", spent)
    }
}

/// The message without its id (a notification).
fn unid(mut msg: Value) -> Value {
    msg.as_object_mut().map(|o| o.remove("id"));
    msg
}

/// A tools/call without `_delegateos`.
fn bare() -> Value {
    call_msg(json!("s"), "delete_file", read("/etc/passwd"), None)
}

/// Case 1's request: unusual arguments, `_meta` and an unknown member next to `_delegateos`.
fn rich_request(f: &Fx) -> Value {
    let mut req = call_msg(
        json!("req-1"),
        "read_file",
        json!({"z": 1, "path": "/project/readme.md", "a": {"nested": [1, "x", null]}, "unicode": "é\u{2028}😀"}),
        Some(envelope(&f.root)),
    );
    req["params"]["_meta"] = json!({"progressToken": "p-1", "x": {"y": true}});
    req["params"]["x-unknown"] = json!([1, {"k": "v"}]);
    req
}

/// Number, description, requirements, flags, input, expectation.
type CallRow = (u16, &'static str, Ids, Ids, fn(&Fx) -> Value, Out);

const README: &str = "/project/readme.md";

/// Forwarded calls, pass-through and strict mode.
#[rustfmt::skip]
const FORWARDED: &[CallRow] = &[
    (1, "an authorized call is forwarded with `_delegateos` removed and every other member \
         (name, arguments, _meta, unknown members, id) intact; charged spendPerCall to the \
         token's delegation", &["MCP-CALL-VERIFY", "MCP-CALL-STRIP", "MCP-SPEND-PER-DELEGATION"], &[],
        |f| f.now(rich_request(f)), Out::Forward(Who::Root, 100)),
    (2, "an envelope with only `dct` and `format` (the binding ids are optional) is accepted", &["MCP-CALL-VERIFY", "MCP-CALL-STRIP"], &[],
        |f| f.now(call_msg(json!(1), "read_file", read("/project/a/b.md"), Some(f.env(json!({}))))), Out::Forward(Who::Root, 100)),
    (3, "an attenuated token: spend is attributed to the token's last delegationId", &["MCP-CALL-VERIFY", "MCP-SPEND-PER-DELEGATION"], &["McpBinding"],
        |f| f.now(f.read("/project/x.md", &f.bob)), Out::Forward(Who::Bob, 100)),
    (4, "a constant resource and a per-tool `spend` (500) override spendPerCall", &["MCP-CALL-VERIFY", "MCP-SPEND-PER-DELEGATION"], &[],
        |f| f.now(call_msg(json!(7), "run", json!({"cmd": "ls"}), Some(envelope(&compute(f.k))))), Out::Forward(Who::Root, 500)),
    (5, "a tool without `resource` requests `*`, matched by web:search:*", &["MCP-CALL-VERIFY"], &[],
        |f| f.now(call_msg(json!(8), "search", json!({"q": "x"}), Some(envelope(&f.root)))), Out::Forward(Who::Root, 100)),
    (6, "a dot-path resource (`target.path`) is extracted from nested arguments", &["MCP-CALL-VERIFY"], &[],
        |f| f.now(call_msg(json!(9), "nested", json!({"target": {"path": "/project/deep/file.md", "other": 1}}), Some(envelope(&f.root)))),
        Out::Forward(Who::Root, 100)),
    (7, "recorded spend one below the budget still authorizes the call (D21: denied at spent ≥ budget)", &["MCP-SPEND-BUDGET", "MCP-CALL-VERIFY"], &[],
        |f| f.spent(f.read(README, &f.root), json!({ DELEGATION: BUDGET - 1 })), Out::Forward(Who::Root, 100)),
    (8, "spend recorded against another delegation does not count against this token", &["MCP-SPEND-PER-DELEGATION"], &["McpBinding"],
        |f| f.spent(f.read(README, &f.root), json!({ "del_0000000000ff": BUDGET, f.bob.last_delegation_id(): BUDGET })), Out::Forward(Who::Root, 100)),
    (9, "an authorized tools/call notification (no id) is forwarded and charged", &["MCP-CALL-VERIFY", "MCP-CALL-STRIP"], &[],
        |f| f.now(unid(f.read(README, &f.root))), Out::Forward(Who::Root, 100)),
    (10, "a constant resource is matched with the glob rules (`/project/drafts/*`)", &["MCP-CALL-VERIFY"], &[],
        |f| f.now(f.tool("publish", json!({}))), Out::Forward(Who::Root, 100)),
    (11, "strict mode does not affect a call that carries a valid `_delegateos`", &["MCP-STRICT-MODE", "MCP-CALL-VERIFY"], &["McpStrictMode"],
        |f| f.strict(f.read(README, &f.root)), Out::Forward(Who::Root, 100)),
    // Pass-through and strict mode.
    (20, "spec mode: a tools/call without `_delegateos` passes through unchanged (D15)", &["MCP-MISSING-DELEGATEOS"], &["McpStrictMode"],
        |f| f.now(bare()), Out::PassThrough),
    (21, "strict mode: a tools/call without `_delegateos` is denied malformed_token (D15)", &["MCP-STRICT-MODE", "MCP-DENY-SHAPE"], &["McpStrictMode"],
        |f| f.strict(bare()), MALFORMED),
    (22, "strict mode: a tools/call notification without `_delegateos` is dropped (no id to answer)",
        &["MCP-STRICT-MODE", "MCP-NO-RESPONSE-TO-NOTIFICATION"], &["McpStrictMode"], |f| f.strict(unid(bare())), Out::Drop),
];

/// Methods other than tools/call, never intercepted.
const PASSED_METHODS: &[(u16, &str)] = &[(23, "ping"), (24, "tools/list"), (25, "resources/read")];

/// Every denial type.
#[rustfmt::skip]
const DENIALS: &[CallRow] = &[
    (40, "expired token → expired", &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"], &[], |f| f.later(f.read(README, &f.root)), EXPIRED),
    (41, "revoked authority block → revoked with revocationId", &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"], &["RevocationScope"],
        |f| call_input(f.read(README, &f.root), f.revoking(), NOW), REVOKED),
    (42, "revoked and expired: revocation (step 2) takes precedence over expiry", &["MCP-DENY-EVERY-TYPE"], &["Precedence"],
        |f| call_input(f.read(README, &f.root), f.revoking(), LATER), REVOKED),
    (43, "recorded spend equal to the budget → budget_exceeded with limit and spent", &["MCP-DENY-EVERY-TYPE", "MCP-SPEND-BUDGET"], &[],
        |f| f.spent(f.read(README, &f.root), json!({ DELEGATION: BUDGET })),
        Out::Deny(|_| json!({"type": "budget_exceeded", "limit": BUDGET, "spent": BUDGET}), false)),
    (44, "the effective (attenuated) budget of 300 with 300 recorded on the last delegation → budget_exceeded",
        &["MCP-SPEND-BUDGET", "MCP-SPEND-PER-DELEGATION"], &["McpBinding"],
        |f| f.spent(f.read("/project/x.md", &f.bob), json!({ f.bob.last_delegation_id(): 300 })),
        Out::Deny(|_| json!({"type": "budget_exceeded", "limit": 300, "spent": 300}), false)),
    (45, "spend on the parent's delegation id is not the attenuated token's spend", &["MCP-SPEND-PER-DELEGATION"], &["McpBinding"],
        |f| f.spent(f.read("/project/x.md", &f.bob), json!({ DELEGATION: BUDGET })), Out::Forward(Who::Bob, 100)),
    (46, "an attenuation beyond maxChainDepth 0 → chain_depth_exceeded with max and actual", &["MCP-DENY-EVERY-TYPE"], &["DepthSemantics"],
        |f| f.now(f.read("/project/x.md", &Chain::root(f.k).with_authority(|a| a.max_chain_depth = 0).delegate(&f.k.bob, |_| {}))),
        Out::Deny(|_| json!({"type": "chain_depth_exceeded", "max": 0, "actual": 1}), false)),
    (47, "an authority signature over other content → invalid_signature", &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"], &[],
        |f| f.now(f.with_env(json!({"dct": f.forged()["token"], "format": "delegateos-sjt-v1"}))), BAD_SIGNATURE),
    (48, "a correctly self-signed token from an untrusted root → invalid_signature", &["MCP-DENY-UNTRUSTED-ROOT", "MCP-DENY-EVERY-TYPE"], &[],
        |f| f.now(f.read("/project/x.md", &f.other())), BAD_SIGNATURE),
    (49, "no trusted roots configured → invalid_signature", &["MCP-DENY-UNTRUSTED-ROOT"], &[],
        |f| call_input(f.read(README, &f.root), with(f.cfg.clone(), "trustedRoots", json!([])), NOW), BAD_SIGNATURE),
    (50, "untrusted root and expired: the signature check (step 3) precedes expiry (step 5)", &["MCP-DENY-UNTRUSTED-ROOT"], &["Precedence"],
        |f| f.later(f.read("/project/x.md", &f.other())), BAD_SIGNATURE),
    (51, "an attenuation that widens its parent's capabilities (signed directly) → attenuation_violation", &["MCP-DENY-EVERY-TYPE"], &["ScopeWidening"],
        |f| f.now(f.read("/project/x.md", &Chain::root(f.k).delegate(&f.k.bob, |a| a.allowed_capabilities = Some(vec![cap("docs", "read", "/**")])))),
        Out::Type("attenuation_violation")),
];

/// Malformed `_delegateos` envelopes (D17): number, what, envelope.
#[rustfmt::skip]
const BAD_ENVELOPES: &[(u16, &str, Build)] = &[
    (60, "`_delegateos` is null", |_| Value::Null),
    (61, "`_delegateos` is a string", |f| json!(f.root.token_string())),
    (62, "`_delegateos` is an array", |f| json!([f.env(json!({}))])),
    (63, "`dct` is missing", |_| json!({"format": "delegateos-sjt-v1"})),
    (64, "`format` is another format", |f| json!({"dct": f.root.token_string(), "format": "delegateos-sjt-v2"})),
    (65, "`format` is missing", |f| json!({"dct": f.root.token_string()})),
    (66, "an unknown member rides along", |f| f.env(json!({"scope": "all"}))),
    (67, "`dct` is not a string", |f| json!({"dct": {"token": f.root.token_string()}, "format": "delegateos-sjt-v1"})),
    (68, "`dct` is not base64url", |_| json!({"dct": "!!not-base64!!", "format": "delegateos-sjt-v1"})),
    (69, "`delegationId` is not a string", |f| f.env(json!({"delegationId": 1}))),
];

#[rustfmt::skip]
const AFTER_ENVELOPES: &[CallRow] = &[
    (70, "a malformed envelope is reported before an expired token could be (envelope first, M4)", &["MCP-DELEGATEOS-MALFORMED"], &["Precedence"],
        |f| f.later(f.with_env(f.env(json!({"extra": true})))), MALFORMED),
];

/// D17 binding mismatches: number, what, envelope.
#[rustfmt::skip]
const BINDINGS: &[(u16, &str, Build)] = &[
    (80, "`delegationId` differs from the token's", |f| f.env(json!({"delegationId": "del_00000000beef"}))),
    (81, "`contractId` differs from the token's", |f| f.env(json!({"contractId": "ct_00000000beef"}))),
    (82, "`delegationId` names the root delegation of an attenuated token (not its last)",
        |f| json!({"dct": f.bob.token_string(), "format": "delegateos-sjt-v1", "delegationId": DELEGATION})),
    (83, "`contractId` names the root contract of an attenuated token (not its last, D11)",
        |f| json!({"dct": f.bob.token_string(), "format": "delegateos-sjt-v1", "contractId": CONTRACT})),
];

/// The binding after steps 1–6, the tool map.
#[rustfmt::skip]
const TOOL_MAP: &[CallRow] = &[
    (84, "a binding mismatch on an expired token reports expired (binding is checked after steps 1–6, M4)", &["MCP-DELEGATEOS-CONSISTENT"],
        &["McpBinding", "Precedence"], |f| f.later(f.with_env(f.env(json!({"delegationId": "del_00000000beef"})))), EXPIRED),
    // Tool map, resource extraction (M3) and step 7.
    (90, "a tool absent from the tool map → capability_not_granted with `tool` and `granted`", &["MCP-DENY-UNMAPPED-TOOL", "MCP-DENY-SHAPE"], &[],
        |f| f.now(f.tool("echo", json!({"text": "hi"}))),
        Out::Deny(|_| json!({"type": "capability_not_granted", "tool": "echo", "granted": caps_json(&default_caps())}), true)),
    (91, "an unmapped tool with an expired token reports expired (tool map after verification, M4)", &["MCP-DENY-UNMAPPED-TOOL"], &["Precedence"],
        |f| f.later(f.tool("echo", json!({}))), EXPIRED),
    (92, "a mapped tool's name in other case (`Read_File` for `read_file`) is absent from the tool map → capability_not_granted (names compared exactly)", &["MCP-DENY-UNMAPPED-TOOL", "MCP-DENY-SHAPE"], &[],
        |f| f.now(f.tool("Read_File", read(README))),
        Out::Deny(|_| json!({"type": "capability_not_granted", "tool": "Read_File", "granted": caps_json(&default_caps())}), true)),
];

/// M3: resource arguments that yield no resource: number, what, tool, arguments.
#[rustfmt::skip]
const NO_RESOURCE: &[(u16, &str, &str, Literal)] = &[
    (100, "the resource argument is missing", "read_file", || json!({"other": "/project/x"})),
    (101, "the resource argument is a number", "read_file", || json!({"path": 7})),
    (102, "the resource argument is null", "read_file", || json!({"path": null})),
    (103, "the resource argument is an array of strings", "read_file", || json!({"path": ["/project/x"]})),
    (104, "a dot-path walks into a string", "nested", || json!({"target": "/project/x"})),
    (105, "a dot-path does not index arrays", "nested", || json!({"target": [{"path": "/project/x"}]})),
    (106, "the dot-path is not a member name with a dot", "nested", || json!({"target.path": "/project/x"})),
];

#[rustfmt::skip]
const STEP7: &[CallRow] = &[
    (107, "M3: no `arguments` at all → capability_not_granted with requested.resource null", &["MCP-DENY-CAPABILITY-DATA"], &[],
        |f| f.now(no_arguments(f)), Out::Deny(null_resource, true)),
    (108, "M3: a missing argument with an expired token reports expired (resource after steps 1–6)", &["MCP-CALL-VERIFY"], &["Precedence"],
        |f| f.later(f.tool("read_file", json!({}))), EXPIRED),
    (110, "step 7: a resource outside the granted pattern → capability_not_granted with requested and granted",
        &["MCP-DENY-CAPABILITY-DATA", "MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"], &[],
        |f| f.now(f.read("/etc/passwd", &f.root)), Out::NotGranted("docs", "read", "/etc/passwd", Who::Root)),
    (111, "step 7: an action the token does not hold (docs:delete) → capability_not_granted", &["MCP-DENY-CAPABILITY-DATA", "MCP-DENY-EVERY-TYPE"], &[],
        |f| f.now(f.tool("delete_file", read(README))), Out::NotGranted("docs", "delete", README, Who::Root)),
    (112, "step 7 uses the effective (attenuated) capabilities: docs:write is gone after narrowing", &["MCP-DENY-CAPABILITY-DATA", "MCP-CALL-VERIFY"], &[],
        |f| f.now(call_msg(json!(1), "write_file", read("/project/drafts/a.md"), Some(envelope(&f.bob)))),
        Out::NotGranted("docs", "write", "/project/drafts/a.md", Who::Bob)),
    (113, "step 7: `/project/drafts/*` does not match two segments", &["MCP-DENY-CAPABILITY-DATA"], &[],
        |f| f.now(f.tool("write_file", read("/project/drafts/a/b.md"))), Out::NotGranted("docs", "write", "/project/drafts/a/b.md", Who::Root)),
];

/// Denial ids echoed with their JSON type: number, id.
#[rustfmt::skip]
const IDS: &[(u16, Literal)] = &[
    (120, || json!(0)), (121, || json!("abc")), (122, || json!("")), (123, || json!("é✓ 😀")),
    (124, || json!(9_007_199_254_740_993_u64)), (125, || json!(-3)), (126, || json!("1")),
];

#[rustfmt::skip]
const NOTIFICATIONS: &[CallRow] = &[
    (130, "a denied tools/call notification is dropped with the denial data, never answered",
        &["MCP-NO-RESPONSE-TO-NOTIFICATION", "MCP-DENY-NOT-FORWARDED"], &[], |f| f.now(unid(f.read("/etc/passwd", &f.root))),
        Out::DropData(|_| json!({"type": "capability_not_granted", "requested": triple("docs", "read", json!("/etc/passwd")),
            "granted": caps_json(&default_caps())}))),
];

/// read_file with the root token's envelope and no `arguments` member.
fn no_arguments(f: &Fx) -> Value {
    let mut msg = f.tool("read_file", json!({}));
    msg["params"].as_object_mut().map(|p| p.remove("arguments"));
    msg
}

fn call_rows(g: &mut Group, f: &Fx, rows: &[CallRow]) {
    for &(n, desc, reqs, flags, input, out) in rows {
        let input = input(f);
        let expect = f.expect(out, &input);
        g.case(n, desc, reqs, flags, CALL, input, expect);
    }
}

fn build_call(g: &mut Group, keys: &Keys) {
    let f = Fx::new(keys);
    call_rows(g, &f, FORWARDED);
    for &(n, method) in PASSED_METHODS {
        let msg = json!({"jsonrpc": "2.0", "id": 5, "method": method,
                         "params": {"_delegateos": {"dct": "x", "format": "other"}}});
        let desc = format!(
            "`{method}` is not intercepted, even in strict mode and with a bogus `_delegateos`"
        );
        let expect = f.expect(Out::PassThrough, &Value::Null);
        let input = f.strict(msg);
        g.case(n, &desc, &["MCP-PASS-THROUGH"], &[], CALL, input, expect);
    }
    call_rows(g, &f, DENIALS);
    for &(n, what, env) in BAD_ENVELOPES {
        let reqs: &[&str] = if n == 68 {
            &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE"]
        } else {
            &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-SHAPE"]
        };
        let input = f.now(f.with_env(env(&f)));
        let (desc, expect) = (
            format!("{what} → malformed_token"),
            f.expect(MALFORMED, &input),
        );
        g.case(n, &desc, reqs, &[], CALL, input, expect);
    }
    call_rows(g, &f, AFTER_ENVELOPES);
    for &(n, what, env) in BINDINGS {
        let input = f.now(f.with_env(env(&f)));
        let expect = f.expect(MALFORMED, &input);
        let desc = format!("D17 binding: {what} → malformed_token");
        let reqs = &["MCP-DELEGATEOS-CONSISTENT", "MCP-DENY-SHAPE"];
        g.case(n, &desc, reqs, &["McpBinding"], CALL, input, expect);
    }
    call_rows(g, &f, TOOL_MAP);
    for &(n, what, tool, args) in NO_RESOURCE {
        let desc = format!("M3: {what} → capability_not_granted with requested.resource null");
        let input = f.now(f.tool(tool, args()));
        let expect = f.expect(Out::Deny(null_resource, true), &input);
        let reqs = &["MCP-DENY-CAPABILITY-DATA", "MCP-CALL-VERIFY"];
        g.case(n, &desc, reqs, &[], CALL, input, expect);
    }
    call_rows(g, &f, STEP7);
    for &(n, id) in IDS {
        let id = id();
        let desc = format!("the denial echoes id {id} with its JSON type");
        let env = Some(envelope(&f.root));
        let input = f.now(call_msg(id, "read_file", read("/etc/passwd"), env));
        let denied = Out::NotGranted("docs", "read", "/etc/passwd", Who::Root);
        let expect = f.expect(denied, &input);
        let reqs = &["MCP-DENY-SHAPE", "MCP-ID-PRESERVE"];
        g.case(n, &desc, reqs, &[], CALL, input, expect);
    }
    call_rows(g, &f, NOTIFICATIONS);
}
