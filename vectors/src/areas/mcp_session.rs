//! Group `mcp/session`: ordered MCP session scripts (`spec/mcp-proxy.md` §6.1, issue 15).
//!
//! One `mcp.call` case judges one request, so a plugin that keeps state *between* messages
//! the wrong way passes them all: spend charged when a response arrives to the delegation of
//! the last authorized call (one shared variable), a `tools/list` response filtered only when
//! the last request was `tools/list`, pending ids keyed by their text (`1` and `"1"` merged).
//! Each case here is a script of client and upstream messages; the expectation is written from
//! the construction and the rules of §3 applied message by message:
//! - a client `tools/call` is decided as `mcp.call` decides it with the spend recorded so far;
//!   an authorized one is forwarded with `_delegateos` removed, a denied one answered -32001;
//! - an upstream response whose id is a pending client `tools/list` id is filtered (§11.3
//!   step 4, D32); every other message is relayed unchanged, in both directions;
//! - spend is recorded per delegationId (§13.4), each call against its own token's delegation.
//!   The envelope's optional `delegationId` names no other key: without it a call is still
//!   its token's delegation's, and one naming another id is `malformed_token` (D17).
//!
//! Timing. §11.3 step 5 records spend after forwarding ("record spend, return response");
//! D32 records at authorization. Unless a case carries `McpSpendAtAuthorization`, every
//! verdict and every `spent` step comes when no call is in flight on the delegation it
//! concerns, so both readings give the same output. Denials are compared by `type` only (the
//! op reduces `error.data` of -32001 answers to `type`; the bodies are `mcp/call`'s business).
//!
//! Clock. Tokens expire in 2099 (or, for an expired one, in 2024), so a proxy that uses its
//! own clock instead of `now` reaches the same verdicts (§6.2).

use serde_json::{json, Value};

use super::dct_support::{Chain, NOW};
use super::mcp::{call_msg, config, envelope, read, stripped, DENIAL_MESSAGE};
use crate::format::{Expectation, Expected};
use crate::generate::Group;
use crate::keys::Keys;
use crate::tables::Ids;

const SESSION: &str = "mcp.session";
/// Expiry of every live token: after any date a proxy's clock will show (§6.2).
const FAR: &str = "2099-01-01T00:00:00Z";
/// Expiry of the expired token: before any date a proxy's clock will show.
const PAST: &str = "2024-01-01T00:00:00Z";
const DEL_A: &str = "del_00000000000a";
const DEL_B: &str = "del_00000000000b";
const DEL_C: &str = "del_00000000000c";
const STATE: &str = "McpSessionState";
const TIMING: &str = "McpSpendAtAuthorization";

/// A root token of `root` for `alice` with delegation `id`, budget `budget`, expiring in 2099.
fn delegation(keys: &Keys, id: &str, budget: u64) -> Chain {
    Chain::root(keys).with_authority(|a| {
        a.delegation_id = id.to_owned();
        a.max_budget_microcents = budget;
        a.expires_at = FAR.to_owned();
    })
}

fn client(message: Value) -> Value {
    json!({ "client": message })
}

fn upstream(message: Value) -> Value {
    json!({ "upstream": message })
}

fn spent_query(ids: &[&str]) -> Value {
    json!({ "spent": ids })
}

/// A `tools/call` of `read_file` on `path` carrying `chain`'s envelope.
fn call(id: Value, path: &str, chain: &Chain) -> Value {
    call_msg(id, "read_file", read(path), Some(envelope(chain)))
}

/// The upstream's answer to request `id`.
fn answer(id: &Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
}

/// The -32001 answer of a denial, `error.data` reduced to `type` (§6.1).
fn denial(id: &Value, ty: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id,
           "error": {"code": -32001, "message": DENIAL_MESSAGE, "data": {"type": ty}}})
}

/// A step's output: what the client received and what reached the upstream.
fn out(to_client: &[Value], to_upstream: &[Value]) -> Value {
    json!({ "toClient": to_client, "toUpstream": to_upstream })
}

fn forwarded(request: &Value) -> Value {
    out(&[], &[stripped(request)])
}

fn relayed(message: &Value) -> Value {
    out(std::slice::from_ref(message), &[])
}

fn spent(pairs: &[(&str, u64)]) -> Value {
    let map: serde_json::Map<String, Value> = pairs
        .iter()
        .map(|(id, n)| ((*id).to_owned(), json!(n)))
        .collect();
    json!({ "spent": map })
}

fn input(config: Value, steps: Vec<Value>) -> Value {
    json!({"config": config, "now": NOW, "steps": steps})
}

fn outcome(steps: Vec<Value>) -> Expectation {
    Expectation::valid(json!({ "steps": steps }))
}

/// A script: (step, expected output) pairs.
struct Script(Vec<(Value, Value)>);

impl Script {
    fn new() -> Self {
        Self(Vec::new())
    }

    fn step(mut self, step: Value, expected: Value) -> Self {
        self.0.push((step, expected));
        self
    }

    fn split(self) -> (Vec<Value>, Vec<Value>) {
        self.0.into_iter().unzip()
    }
}

/// Upstream tool objects for the list cases. The lists hold only tools whose verdict every
/// reading of D32 shares: `search` (web/search, granted on `*`) and `publish` (docs/write on a
/// constant resource inside the granted `/project/drafts/*`) stay; `run` (compute/execute) and
/// `delete_file` (docs/delete) are granted for no resource and go. A tool whose resource comes
/// from its arguments (`read_file`) is left out: hiding it is the `McpListFilter` reading.
fn tool(name: &str) -> Value {
    json!({"name": name, "inputSchema": {"type": "object"}})
}

fn list_request(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}})
}

fn list_answer(id: &Value, names: &[&str]) -> Value {
    let tools: Vec<Value> = names.iter().map(|n| tool(n)).collect();
    json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}})
}

/// Builds the group.
/// What every script starts from: delegations A (budget 200) and B (ample), the config.
struct Fx<'a> {
    k: &'a Keys,
    a: Chain,
    b: Chain,
    cfg: Value,
}

/// A script: its input and expectation.
type ScriptFn = fn(&Fx) -> (Value, Expectation);

/// Number, description, requirements, flags, script.
type SessionRow = (u16, &'static str, Ids, Ids, ScriptFn);

#[rustfmt::skip]
const SESSIONS: &[SessionRow] = &[
    (1, "two delegations (A budget 200, B ample; 100 per call) whose responses arrive in reverse order: each call is charged to its own delegation (A 100, B 100), so A's third call after two answered ones is budget_exceeded while B goes on",
        &["MCP-SESSION-SPEND-ROUTING", "MCP-SPEND-BUDGET", "MCP-CALL-STRIP", "MCP-CALL-RELAY"], &[STATE], script_1),
    (2, "an upstream progress notification and a roots/list server request arrive while calls of delegations A and B are in flight: both reach the client, the client's answer reaches the upstream, the responses are relayed, and A and B are charged 100 each",
        &["MCP-SESSION-SPEND-ROUTING", "MCP-NOTIFY-UPSTREAM-TO-CLIENT", "MCP-SERVER-REQUESTS", "MCP-CALL-RELAY"], &[STATE], script_2),
    (3, "tools/list (id 7) is sent, then a tools/call (id 8); the call is answered first, then the list: the list is still filtered by the session token (docs read/write, web search: publish and search stay, run and delete_file go), because its id is a pending tools/list id",
        &["MCP-LIST-FILTER-BY-ID", "MCP-LIST-FILTER", "MCP-CALL-RELAY"], &[STATE], script_3),
    (4, "two tools/list requests answered in reverse order are each filtered; a tools/call result that carries a `tools` member is not a list response and is relayed unchanged",
        &["MCP-LIST-FILTER-BY-ID", "MCP-LIST-FILTER", "MCP-CALL-RELAY", "MCP-ID-PRESERVE"], &[STATE], script_4),
    (5, "a call with an expired token, sent while an allowed call is in flight, is answered `expired` at once and forwards nothing; the allowed call's answer is relayed; only A is charged",
        &["MCP-DENY-NOT-FORWARDED", "MCP-DENY-NON-BLOCKING", "MCP-SESSION-SPEND-ROUTING"], &[STATE], script_5),
    (6, "the upstream sends a roots/list request with id 1 while the client's call 1 is in flight: the request reaches the client, the client's answer (id 1) reaches the upstream and is not taken for the call's response; A's two calls exhaust its budget of 200 exactly",
        &["MCP-SERVER-REQUESTS", "MCP-ID-PRESERVE", "MCP-SESSION-SPEND-ROUTING"], &[STATE], script_6),
    (7, "calls with ids 1 (delegation A) and \"1\" (delegation B) are two requests: each answer is relayed with its own id and type, each call charged to its own delegation, so A is exhausted after its second answered call",
        &["MCP-ID-PRESERVE", "MCP-SESSION-SPEND-ROUTING", "MCP-SPEND-BUDGET"], &[STATE], script_7),
    (8, "a tools/call notification (no id) with an expired token gets no answer and forwards nothing; the next call is served",
        &["MCP-NO-RESPONSE-TO-NOTIFICATION", "MCP-DENY-NOT-FORWARDED"], &[STATE], script_8),
    (11, "ping, resources/list, an unknown method and a tools/call without `_delegateos` (default mode, D15) are forwarded unchanged; a log notification, the -32601 error with its data, and the answers are relayed unchanged, in the order the upstream sends them",
        &["MCP-PASS-THROUGH", "MCP-MISSING-DELEGATEOS", "MCP-NOTIFY-UPSTREAM-TO-CLIENT", "MCP-ID-PRESERVE"], &[STATE], script_11),
    (12, "a paged tools/list: the first page filters to empty but keeps its nextCursor, the second page keeps only the granted tools in upstream order",
        &["MCP-LIST-PAGINATION", "MCP-LIST-FILTER", "MCP-LIST-FILTER-BY-ID"], &[STATE], script_12),
    (13, "strict mode (D15): a tools/call without `_delegateos` is denied malformed_token and forwards nothing; the next, verified call is forwarded and charged",
        &["MCP-STRICT-MODE", "MCP-SESSION-SPEND-ROUTING"], &[STATE, "McpStrictMode"], script_13),
    (14, "delegations A (budget 200) and B (ample) call with envelopes that omit the optional `delegationId` (spec/mcp-proxy.md §3.3): each call is charged to its own token's delegation, not to one shared key, so A's second call is forwarded after B's was charged (A 100, B 100), A's third is budget_exceeded and B goes on",
        &["MCP-SESSION-SPEND-ROUTING", "MCP-SPEND-BUDGET", "MCP-CALL-STRIP"], &[STATE], script_14),
    (15, "one token of delegation A (budget 200) with an envelope that names `delegationId` and one that omits it: both calls are A's, so A has spent 200 after one of each, and a third call in either form is budget_exceeded (a key taken from the envelope would split A's spend and let it through)",
        &["MCP-SESSION-SPEND-ROUTING", "MCP-SPEND-BUDGET"], &[STATE], script_15),
    (16, "A (budget 200) is exhausted by two calls; a third call with A's token but an envelope naming another `delegationId` is budget_exceeded (spend of the token's own delegation, steps 1–6 before the binding check), not malformed_token; a call with an envelope naming another id on a live budget is malformed_token and charges nothing",
        &["MCP-SESSION-SPEND-ROUTING", "MCP-SPEND-PER-DELEGATION", "MCP-DELEGATEOS-CONSISTENT", "MCP-SPEND-BUDGET"], &["McpBinding", STATE, "Precedence"], script_16),
    (9, "delegation A (budget 200, 100 per call) sends three calls before any answer: the third is budget_exceeded, because spend is recorded when a call is authorized (D32); recording it when the answer arrives would let all three through",
        &["MCP-SPEND-CONCURRENT", "MCP-SPEND-BUDGET"], &[TIMING], script_9),
    (10, "a call is cancelled by the client (notifications/cancelled reaches the upstream) and never answered; a second call is answered: spend is 200 when recorded at authorization (D32) and 100 when recorded on the answer (§11.3 step 5 read literally)",
        &["MCP-NOTIFY-CLIENT-TO-UPSTREAM", "MCP-SPEND-CONCURRENT"], &[TIMING], script_10),
];

/// Builds the group.
pub fn build(g: &mut Group, keys: &Keys) {
    let f = Fx {
        k: keys,
        a: delegation(keys, DEL_A, 200),
        b: delegation(keys, DEL_B, 1_000_000),
        cfg: config(keys),
    };
    for &(n, desc, reqs, flags, script) in SESSIONS {
        let (input, expect) = script(&f);
        g.case(n, desc, reqs, flags, SESSION, input, expect);
    }
}

/// The config with a session token of the root (expiring in 2099), for the list cases.
fn listing_config(f: &Fx) -> Value {
    let session_token = Chain::root(f.k).with_authority(|a| a.expires_at = FAR.to_owned());
    let mut listing = f.cfg.clone();
    listing["sessionToken"] = session_token.serialized();
    listing
}

/// An expired token of delegation C (issued 2023, expired 2024).
fn expired_token(keys: &Keys) -> Chain {
    Chain::root(keys).with_authority(|a| {
        a.delegation_id = DEL_C.to_owned();
        a.issued_at = "2023-01-01T00:00:00Z".to_owned();
        a.expires_at = PAST.to_owned();
    })
}

/// Case 1. Two delegations, responses in reverse order; then A's budget shows through verdicts.
fn script_1(f: &Fx) -> (Value, Expectation) {
    let (a, b, cfg) = (&f.a, &f.b, &f.cfg);
    let (c1, c2, c3, c4, c5) = (
        call(json!(1), "/project/a.md", a),
        call(json!(2), "/project/b.md", b),
        call(json!(3), "/project/a.md", a),
        call(json!(4), "/project/a.md", a),
        call(json!(5), "/project/b.md", b),
    );
    let (r1, r2, r3, r5) = (
        answer(&json!(1), "one"),
        answer(&json!(2), "two"),
        answer(&json!(3), "three"),
        answer(&json!(5), "five"),
    );
    let (steps, expected) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(client(c2.clone()), forwarded(&c2))
        .step(upstream(r2.clone()), relayed(&r2))
        .step(upstream(r1.clone()), relayed(&r1))
        .step(
            spent_query(&[DEL_A, DEL_B]),
            spent(&[(DEL_A, 100), (DEL_B, 100)]),
        )
        .step(client(c3.clone()), forwarded(&c3))
        .step(upstream(r3.clone()), relayed(&r3))
        .step(
            client(c4.clone()),
            out(&[denial(&json!(4), "budget_exceeded")], &[]),
        )
        .step(client(c5.clone()), forwarded(&c5))
        .step(upstream(r5.clone()), relayed(&r5))
        .step(
            spent_query(&[DEL_A, DEL_B]),
            spent(&[(DEL_A, 200), (DEL_B, 200)]),
        )
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 2. Notifications and a server request between two in-flight calls.
fn script_2(f: &Fx) -> (Value, Expectation) {
    let (a, b, cfg) = (&f.a, &f.b, &f.cfg);
    let (c1, c2) = (
        call(json!(1), "/project/a.md", a),
        call(json!(2), "/project/b.md", b),
    );
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
                          "params": {"progressToken": "p1", "progress": 1, "total": 2}});
    let roots = json!({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"});
    let roots_answer = json!({"jsonrpc": "2.0", "id": "srv-1", "result": {"roots": []}});
    let (r1, r2) = (answer(&json!(1), "one"), answer(&json!(2), "two"));
    let (steps, expected) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(client(c2.clone()), forwarded(&c2))
        .step(upstream(progress.clone()), relayed(&progress))
        .step(upstream(roots.clone()), relayed(&roots))
        .step(client(roots_answer.clone()), out(&[], &[roots_answer]))
        .step(upstream(r1.clone()), relayed(&r1))
        .step(upstream(r2.clone()), relayed(&r2))
        .step(
            spent_query(&[DEL_A, DEL_B]),
            spent(&[(DEL_A, 100), (DEL_B, 100)]),
        )
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 3. A tools/list answered after a later tools/call was sent.
fn script_3(f: &Fx) -> (Value, Expectation) {
    let a = &f.a;
    let listing = listing_config(f);
    let list = list_request(&json!(7));
    let c8 = call(json!(8), "/project/a.md", a);
    let r8 = answer(&json!(8), "eight");
    let upstream_list = list_answer(&json!(7), &["publish", "run", "search", "delete_file"]);
    let filtered = list_answer(&json!(7), &["publish", "search"]);
    let (steps, expected) = Script::new()
        .step(client(list.clone()), forwarded(&list))
        .step(client(c8.clone()), forwarded(&c8))
        .step(upstream(r8.clone()), relayed(&r8))
        .step(upstream(upstream_list), relayed(&filtered))
        .split();
    (input(listing.clone(), steps), outcome(expected))
}

/// Case 4. Two lists answered in reverse order, and a call result that happens to hold `tools`.
fn script_4(f: &Fx) -> (Value, Expectation) {
    let listing = listing_config(f);
    let a = &f.a;
    let (la, lb) = (list_request(&json!("a")), list_request(&json!("b")));
    let c9 = call(json!(9), "/project/a.md", a);
    let r9 = json!({"jsonrpc": "2.0", "id": 9,
                    "result": {"content": [], "tools": [tool("run"), tool("delete_file")]}});
    let (steps, expected) = Script::new()
        .step(client(la.clone()), forwarded(&la))
        .step(client(lb.clone()), forwarded(&lb))
        .step(client(c9.clone()), forwarded(&c9))
        .step(
            upstream(list_answer(&json!("b"), &["run", "search"])),
            relayed(&list_answer(&json!("b"), &["search"])),
        )
        .step(upstream(r9.clone()), relayed(&r9))
        .step(
            upstream(list_answer(&json!("a"), &["delete_file", "publish"])),
            relayed(&list_answer(&json!("a"), &["publish"])),
        )
        .split();
    (input(listing, steps), outcome(expected))
}

/// Case 5. A denied call between an allowed call and its answer.
fn script_5(f: &Fx) -> (Value, Expectation) {
    let (keys, a, cfg) = (f.k, &f.a, &f.cfg);
    let expired = expired_token(keys);
    let c1 = call(json!(1), "/project/a.md", a);
    let c2 = call(json!(2), "/project/a.md", &expired);
    let r1 = answer(&json!(1), "one");
    let (steps, expected) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(
            client(c2.clone()),
            out(&[denial(&json!(2), "expired")], &[]),
        )
        .step(upstream(r1.clone()), relayed(&r1))
        .step(
            spent_query(&[DEL_A, DEL_C]),
            spent(&[(DEL_A, 100), (DEL_C, 0)]),
        )
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 6. A server request whose id equals a pending client request's id.
fn script_6(f: &Fx) -> (Value, Expectation) {
    let (a, cfg) = (&f.a, &f.cfg);
    let c1 = call(json!(1), "/project/a.md", a);
    let srv = json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"});
    let srv_answer =
        json!({"jsonrpc": "2.0", "id": 1, "result": {"roots": [{"uri": "file:///project"}]}});
    let r1 = answer(&json!(1), "one");
    let c2 = call(json!(2), "/project/a.md", a);
    let r2 = answer(&json!(2), "two");
    let (steps, expected) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(upstream(srv.clone()), relayed(&srv))
        .step(client(srv_answer.clone()), out(&[], &[srv_answer]))
        .step(upstream(r1.clone()), relayed(&r1))
        .step(client(c2.clone()), forwarded(&c2))
        .step(upstream(r2.clone()), relayed(&r2))
        .step(spent_query(&[DEL_A]), spent(&[(DEL_A, 200)]))
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 7. Ids 1 and "1" on two delegations.
fn script_7(f: &Fx) -> (Value, Expectation) {
    let (a, b, cfg) = (&f.a, &f.b, &f.cfg);
    let c_num = call(json!(1), "/project/a.md", a);
    let c_str = call(json!("1"), "/project/b.md", b);
    let (r_num, r_str) = (answer(&json!(1), "number"), answer(&json!("1"), "string"));
    let c3 = call(json!(3), "/project/a.md", a);
    let r3 = answer(&json!(3), "three");
    let c4 = call(json!(4), "/project/a.md", a);
    let (steps, expected) = Script::new()
        .step(client(c_num.clone()), forwarded(&c_num))
        .step(client(c_str.clone()), forwarded(&c_str))
        .step(upstream(r_str.clone()), relayed(&r_str))
        .step(upstream(r_num.clone()), relayed(&r_num))
        .step(client(c3.clone()), forwarded(&c3))
        .step(upstream(r3.clone()), relayed(&r3))
        .step(
            client(c4.clone()),
            out(&[denial(&json!(4), "budget_exceeded")], &[]),
        )
        .step(
            spent_query(&[DEL_A, DEL_B]),
            spent(&[(DEL_A, 200), (DEL_B, 100)]),
        )
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 8. A denied tools/call notification is dropped; the session goes on.
fn script_8(f: &Fx) -> (Value, Expectation) {
    let (keys, a, cfg) = (f.k, &f.a, &f.cfg);
    let expired = expired_token(keys);
    let mut note = call(json!(0), "/project/a.md", &expired);
    if let Some(obj) = note.as_object_mut() {
        obj.remove("id");
    }
    let c1 = call(json!(1), "/project/a.md", a);
    let r1 = answer(&json!(1), "one");
    let (steps, expected) = Script::new()
        .step(client(note), out(&[], &[]))
        .step(client(c1.clone()), forwarded(&c1))
        .step(upstream(r1.clone()), relayed(&r1))
        .step(
            spent_query(&[DEL_A, DEL_C]),
            spent(&[(DEL_A, 100), (DEL_C, 0)]),
        )
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 11. Pass-through in both directions: methods the plugin does not intercept.
fn script_11(f: &Fx) -> (Value, Expectation) {
    let cfg = &f.cfg;
    let ping = json!({"jsonrpc": "2.0", "id": "p", "method": "ping"});
    let pong = json!({"jsonrpc": "2.0", "id": "p", "result": {}});
    let res =
        json!({"jsonrpc": "2.0", "id": 12, "method": "resources/list", "params": {"cursor": "c1"}});
    let res_answer = json!({"jsonrpc": "2.0", "id": 12,
                            "result": {"resources": [{"uri": "file:///a", "name": "a"}], "nextCursor": "c2"}});
    let unknown =
        json!({"jsonrpc": "2.0", "id": 13, "method": "x/unknown", "params": {"k": [1, null]}});
    let unknown_answer = json!({"jsonrpc": "2.0", "id": 13,
                                "error": {"code": -32601, "message": "Method not found", "data": {"method": "x/unknown"}}});
    let bare = call_msg(json!(14), "read_file", read("/project/a.md"), None);
    let bare_answer = answer(&json!(14), "no envelope");
    let log = json!({"jsonrpc": "2.0", "method": "notifications/message",
                     "params": {"level": "info", "data": "hello"}});
    let (steps, expected) = Script::new()
        .step(client(ping.clone()), forwarded(&ping))
        .step(client(res.clone()), forwarded(&res))
        .step(client(unknown.clone()), forwarded(&unknown))
        .step(client(bare.clone()), forwarded(&bare))
        .step(upstream(log.clone()), relayed(&log))
        .step(upstream(unknown_answer.clone()), relayed(&unknown_answer))
        .step(upstream(bare_answer.clone()), relayed(&bare_answer))
        .step(upstream(res_answer.clone()), relayed(&res_answer))
        .step(upstream(pong.clone()), relayed(&pong))
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 12. Paged tools/list: every page filtered on its own, nextCursor relayed unchanged.
fn script_12(f: &Fx) -> (Value, Expectation) {
    let (keys, cfg) = (f.k, &f.cfg);
    let mut paged = cfg.clone();
    paged["sessionToken"] = Chain::root(keys)
        .with_authority(|a| a.expires_at = FAR.to_owned())
        .serialized();
    let page = |id: u64, names: &[&str], cursor: Option<&str>| {
        let mut v = list_answer(&json!(id), names);
        if let Some(c) = cursor {
            v["result"]["nextCursor"] = json!(c);
        }
        v
    };
    let l1 = list_request(&json!(21));
    let mut l2 = list_request(&json!(22));
    l2["params"] = json!({"cursor": "page-2"});
    let (steps, expected) = Script::new()
        .step(client(l1.clone()), forwarded(&l1))
        .step(
            upstream(page(21, &["run", "delete_file"], Some("page-2"))),
            relayed(&page(21, &[], Some("page-2"))),
        )
        .step(client(l2.clone()), forwarded(&l2))
        .step(
            upstream(page(22, &["search", "run", "publish"], None)),
            relayed(&page(22, &["search", "publish"], None)),
        )
        .split();
    (input(paged, steps), outcome(expected))
}

/// Case 13. Strict mode (D15): a call without `_delegateos` is denied; a verified one works.
fn script_13(f: &Fx) -> (Value, Expectation) {
    let (a, cfg) = (&f.a, &f.cfg);
    let mut strict = cfg.clone();
    strict["strict"] = json!(true);
    let bare = call_msg(json!(31), "read_file", read("/project/a.md"), None);
    let c32 = call(json!(32), "/project/a.md", a);
    let r32 = answer(&json!(32), "ok");
    let (steps, expected) = Script::new()
        .step(
            client(bare.clone()),
            out(&[denial(&json!(31), "malformed_token")], &[]),
        )
        .step(client(c32.clone()), forwarded(&c32))
        .step(upstream(r32.clone()), relayed(&r32))
        .step(spent_query(&[DEL_A]), spent(&[(DEL_A, 100)]))
        .split();
    (input(strict, steps), outcome(expected))
}

/// A `tools/call` of `read_file` on `path` with `chain`'s token whose envelope's `delegationId`
/// member is `id` (`None`: the member is omitted, which §3.3 allows).
fn call_as(id: Value, path: &str, chain: &Chain, delegation_id: Option<&str>) -> Value {
    let mut env = envelope(chain);
    match (env.as_object_mut(), delegation_id) {
        (Some(e), None) => {
            e.remove("delegationId");
        }
        (Some(e), Some(d)) => {
            e.insert("delegationId".to_owned(), json!(d));
        }
        (None, _) => {}
    }
    call_msg(id, "read_file", read(path), Some(env))
}

/// Case 14. Two delegations whose envelopes carry no `delegationId`: each is charged to its own
/// token's delegation (§13.4), never to one key the two would share.
fn script_14(f: &Fx) -> (Value, Expectation) {
    let (a, b, cfg) = (&f.a, &f.b, &f.cfg);
    let (c1, c2, c3, c4, c5) = (
        call_as(json!(1), "/project/a.md", a, None),
        call_as(json!(2), "/project/b.md", b, None),
        call_as(json!(3), "/project/a.md", a, None),
        call_as(json!(4), "/project/a.md", a, None),
        call_as(json!(5), "/project/b.md", b, None),
    );
    let (r1, r2, r3, r5) = (
        answer(&json!(1), "one"),
        answer(&json!(2), "two"),
        answer(&json!(3), "three"),
        answer(&json!(5), "five"),
    );
    let (steps, expected) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(upstream(r1.clone()), relayed(&r1))
        .step(client(c2.clone()), forwarded(&c2))
        .step(upstream(r2.clone()), relayed(&r2))
        .step(
            spent_query(&[DEL_A, DEL_B]),
            spent(&[(DEL_A, 100), (DEL_B, 100)]),
        )
        .step(client(c3.clone()), forwarded(&c3))
        .step(upstream(r3.clone()), relayed(&r3))
        .step(
            client(c4.clone()),
            out(&[denial(&json!(4), "budget_exceeded")], &[]),
        )
        .step(client(c5.clone()), forwarded(&c5))
        .step(upstream(r5.clone()), relayed(&r5))
        .step(
            spent_query(&[DEL_A, DEL_B]),
            spent(&[(DEL_A, 200), (DEL_B, 200)]),
        )
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 15. One token, envelopes with and without `delegationId`: one delegation, one spend.
fn script_15(f: &Fx) -> (Value, Expectation) {
    let (a, cfg) = (&f.a, &f.cfg);
    let (c1, c2, c3, c4) = (
        call_as(json!(1), "/project/a.md", a, Some(DEL_A)),
        call_as(json!(2), "/project/a.md", a, None),
        call_as(json!(3), "/project/a.md", a, Some(DEL_A)),
        call_as(json!(4), "/project/a.md", a, None),
    );
    let (r1, r2) = (answer(&json!(1), "one"), answer(&json!(2), "two"));
    let (steps, expected) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(upstream(r1.clone()), relayed(&r1))
        .step(client(c2.clone()), forwarded(&c2))
        .step(upstream(r2.clone()), relayed(&r2))
        .step(spent_query(&[DEL_A]), spent(&[(DEL_A, 200)]))
        .step(
            client(c3.clone()),
            out(&[denial(&json!(3), "budget_exceeded")], &[]),
        )
        .step(
            client(c4.clone()),
            out(&[denial(&json!(4), "budget_exceeded")], &[]),
        )
        .step(spent_query(&[DEL_A]), spent(&[(DEL_A, 200)]))
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 16. An envelope naming another `delegationId` (D17): on a live budget the binding check
/// denies it and nothing is charged; on A's exhausted budget step 6 comes first (D37 order).
fn script_16(f: &Fx) -> (Value, Expectation) {
    let (a, cfg) = (&f.a, &f.cfg);
    const OTHER: &str = "del_00000000beef";
    let (c1, c2, c3, c4) = (
        call_as(json!(1), "/project/a.md", a, Some(DEL_A)),
        call_as(json!(2), "/project/a.md", a, Some(OTHER)),
        call_as(json!(3), "/project/a.md", a, Some(DEL_A)),
        call_as(json!(4), "/project/a.md", a, Some(OTHER)),
    );
    let (r1, r3) = (answer(&json!(1), "one"), answer(&json!(3), "three"));
    let (steps, expected) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(upstream(r1.clone()), relayed(&r1))
        .step(
            client(c2.clone()),
            out(&[denial(&json!(2), "malformed_token")], &[]),
        )
        .step(
            spent_query(&[DEL_A, OTHER]),
            spent(&[(DEL_A, 100), (OTHER, 0)]),
        )
        .step(client(c3.clone()), forwarded(&c3))
        .step(upstream(r3.clone()), relayed(&r3))
        .step(
            client(c4.clone()),
            out(&[denial(&json!(4), "budget_exceeded")], &[]),
        )
        .step(
            spent_query(&[DEL_A, OTHER]),
            spent(&[(DEL_A, 200), (OTHER, 0)]),
        )
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 9. Budget 200, three calls in flight before any answer (D32: reserved at authorization).
fn script_9(f: &Fx) -> (Value, Expectation) {
    let (a, cfg) = (&f.a, &f.cfg);
    let (c1, c2, c3) = (
        call(json!(1), "/project/a.md", a),
        call(json!(2), "/project/a.md", a),
        call(json!(3), "/project/a.md", a),
    );
    let (r1, r2) = (answer(&json!(1), "one"), answer(&json!(2), "two"));
    let (steps, expected) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(client(c2.clone()), forwarded(&c2))
        .step(
            client(c3.clone()),
            out(&[denial(&json!(3), "budget_exceeded")], &[]),
        )
        .step(upstream(r1.clone()), relayed(&r1))
        .step(upstream(r2.clone()), relayed(&r2))
        .step(spent_query(&[DEL_A]), spent(&[(DEL_A, 200)]))
        .split();
    (input(cfg.clone(), steps), outcome(expected))
}

/// Case 10. A cancelled call never answered: charged under D32, not under the other reading.
fn script_10(f: &Fx) -> (Value, Expectation) {
    let (a, cfg) = (&f.a, &f.cfg);
    let c1 = call(json!(1), "/project/a.md", a);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": 1, "reason": "user"}});
    let c2 = call(json!(2), "/project/a.md", a);
    let r2 = answer(&json!(2), "two");
    let (steps, common) = Script::new()
        .step(client(c1.clone()), forwarded(&c1))
        .step(client(cancel.clone()), out(&[], &[cancel]))
        .step(client(c2.clone()), forwarded(&c2))
        .step(upstream(r2.clone()), relayed(&r2))
        .split();
    let with = |n: u64| {
        let mut v = common.clone();
        v.push(spent(&[(DEL_A, n)]));
        Expected::valid(json!({ "steps": v }))
    };
    let mut steps = steps;
    steps.push(spent_query(&[DEL_A]));
    (
        input(cfg.clone(), steps),
        Expectation::acceptable("D32", vec![with(200), with(100)]),
    )
}
