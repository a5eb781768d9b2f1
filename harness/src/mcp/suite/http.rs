//! Cases of the Streamable HTTP transport only (`--transport http`): session ids, content
//! negotiation, body limits, session isolation, client disconnects and headers that must not
//! carry authority. Each drives the proxy with raw HTTP exchanges next to the session's own
//! link, and judges status codes, bodies and what the mock upstream recorded.

use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use super::context::Ctx;
use super::fixtures::{read_args, standard_caps, T};
use super::judge::{call_msg, ensure, expect_denial, expect_result, short};
use super::session::{Session, Setup};
use crate::mcp::http_client::{self, Delivery, Exchange, HttpLink, POST_HEADERS};
use crate::mcp::tokens::{self, cap, RootSpec};

fn link(s: &Session) -> Result<&HttpLink, String> {
    s.proxy
        .http
        .as_ref()
        .ok_or_else(|| "harness: HTTP case without an HTTP session".to_owned())
}

/// POSTs `body` with `headers` (plus the session id unless `session` is `None`).
fn post(
    url: &str,
    session: Option<&str>,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<Exchange, String> {
    let mut all: Vec<(&str, &str)> = headers.to_vec();
    if let Some(sid) = session {
        all.push(("mcp-session-id", sid));
    }
    http_client::exchange("POST", url, &all, Some(body))
}

fn status_is(ex: &Exchange, want: u16, what: &str) -> Result<(), String> {
    ensure(ex.status == want, || {
        format!(
            "{what}: expected HTTP {want}, got {} ({})",
            ex.status,
            String::from_utf8_lossy(&ex.body)
                .chars()
                .take(200)
                .collect::<String>()
        )
    })
}

fn ping_bytes(id: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
        .to_string()
        .into_bytes()
}

fn sid(s: &Session) -> Result<String, String> {
    link(s)?
        .session_id()
        .ok_or_else(|| "initialize was answered without an Mcp-Session-Id header".to_owned())
}

/// Requests without a session id after initialize get 400, with an unknown one 404 (POST and
/// DELETE); GET is 405 or a server stream; none of them reaches the upstream.
pub(super) fn session_ids(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let url = link(&s)?.url.clone();
    let real = sid(&s)?;
    let ex = post(&url, None, POST_HEADERS, &ping_bytes("no-session"))?;
    status_is(&ex, 400, "a ping without Mcp-Session-Id after initialize")?;
    let ex = post(
        &url,
        Some("not-a-session-0000"),
        POST_HEADERS,
        &ping_bytes("bad-session"),
    )?;
    status_is(&ex, 404, "a ping with an unknown Mcp-Session-Id")?;
    let ex = http_client::exchange(
        "DELETE",
        &url,
        &[("mcp-session-id", "not-a-session-0000")],
        None,
    )?;
    status_is(&ex, 404, "DELETE of an unknown session")?;
    let (status, ctype) = http_client::status_only(
        "GET",
        &url,
        &[("accept", "text/event-stream"), ("mcp-session-id", &real)],
    )?;
    ensure(
        status == 405 || (status == 200 && ctype.starts_with("text/event-stream")),
        || format!("GET must be 405 or an SSE stream, got HTTP {status} ({ctype})"),
    )?;
    s.sync()?;
    for id in ["no-session", "bad-session"] {
        ensure(s.upstream_requests_with_id(&json!(id)).is_empty(), || {
            format!("the rejected request {id} reached the upstream")
        })?;
    }
    s.finish()
}

/// Wrong Content-Type is 415; an Accept without both JSON and SSE is 406; a non-loopback
/// `Origin` is 403 (DNS rebinding) while a loopback one is served; nothing refused is forwarded.
pub(super) fn content_negotiation(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let url = link(&s)?.url.clone();
    let real = sid(&s)?;
    let accept = ("accept", "application/json, text/event-stream");
    let ex = post(
        &url,
        Some(&real),
        &[("content-type", "text/plain"), accept],
        &ping_bytes("ct-text"),
    )?;
    status_is(&ex, 415, "Content-Type: text/plain")?;
    let ex = post(
        &url,
        Some(&real),
        &[
            ("content-type", "application/x-www-form-urlencoded"),
            accept,
        ],
        &ping_bytes("ct-form"),
    )?;
    status_is(&ex, 415, "Content-Type: application/x-www-form-urlencoded")?;
    let ex = post(
        &url,
        Some(&real),
        &[
            ("content-type", "application/json"),
            ("accept", "application/json"),
        ],
        &ping_bytes("accept-json"),
    )?;
    status_is(&ex, 406, "Accept: application/json only")?;
    let ex = post(
        &url,
        Some(&real),
        &[
            ("content-type", "application/json"),
            ("accept", "text/event-stream"),
        ],
        &ping_bytes("accept-sse"),
    )?;
    status_is(&ex, 406, "Accept: text/event-stream only")?;
    let mut foreign: Vec<(&str, &str)> = POST_HEADERS.to_vec();
    foreign.push(("origin", "http://rebind.example"));
    let ex = post(&url, Some(&real), &foreign, &ping_bytes("origin-foreign"))?;
    status_is(&ex, 403, "Origin: http://rebind.example (DNS rebinding)")?;
    let mut local: Vec<(&str, &str)> = POST_HEADERS.to_vec();
    local.push(("origin", "http://127.0.0.1"));
    let ex = post(&url, Some(&real), &local, &ping_bytes("origin-local"))?;
    status_is(&ex, 200, "Origin: http://127.0.0.1")?;
    s.sync()?;
    for id in [
        "ct-text",
        "ct-form",
        "accept-json",
        "accept-sse",
        "origin-foreign",
    ] {
        ensure(s.upstream_requests_with_id(&json!(id)).is_empty(), || {
            format!("the rejected request {id} reached the upstream")
        })?;
    }
    s.finish()
}

/// With `http.maxBodyBytes` = 1 MiB, a 2 MiB call is 413 and not forwarded; a truncated JSON
/// body is 400 (-32700); a batch is 400 (-32600) and never forwarded; the session goes on.
pub(super) fn body_limits(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.max_body_bytes = Some(1 << 20);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let url = link(&s)?.url.clone();
    let real = sid(&s)?;
    let env = tokens::envelope(&super::fixtures::good_token());
    let big = call_msg(
        &json!("too-big"),
        "read_file",
        json!({"path": "/project/a.txt", "pad": "x".repeat(2 << 20)}),
        Some(env.clone()),
    );
    let ex = post(&url, Some(&real), POST_HEADERS, big.to_string().as_bytes())?;
    status_is(&ex, 413, "a 2 MiB body over a 1 MiB limit")?;
    let ex = post(
        &url,
        Some(&real),
        POST_HEADERS,
        br#"{"jsonrpc":"2.0","id":"trunc","#,
    )?;
    status_is(&ex, 400, "a truncated JSON body")?;
    let msgs = ex.messages();
    ensure(
        msgs.is_empty() || msgs.iter().any(|m| m["error"]["code"] == -32700),
        || format!("a malformed body's JSON-RPC answer must be -32700: {msgs:?}"),
    )?;
    let batch = json!([
        call_msg(&json!("batched"), "read_file", read_args(), None),
        {"jsonrpc": "2.0", "id": "batched-ping", "method": "ping"},
    ]);
    let ex = post(
        &url,
        Some(&real),
        POST_HEADERS,
        batch.to_string().as_bytes(),
    )?;
    status_is(&ex, 400, "a JSON-RPC batch")?;
    // The session still works, and a call just under the limit is forwarded.
    let ok = s.call(
        json!("fits"),
        "read_file",
        json!({"path": "/project/a.txt", "pad": "y".repeat(900 * 1024)}),
        Some(env),
    )?;
    expect_result(&ok)?;
    s.sync()?;
    for id in ["too-big", "trunc", "batched", "batched-ping"] {
        ensure(s.upstream_requests_with_id(&json!(id)).is_empty(), || {
            format!("the rejected request {id} reached the upstream")
        })?;
    }
    s.finish()
}

fn wait_for(rx: &mpsc::Receiver<Delivery>, id: &Value) -> Result<Value, String> {
    let deadline = std::time::Instant::now() + T;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(Delivery::Message(b)) => {
                let Ok(m) = serde_json::from_slice::<Value>(&b) else {
                    continue;
                };
                if m.get("method").is_none() && m.get("id") == Some(id) {
                    return Ok(m);
                }
            }
            Ok(Delivery::Violation(v)) => return Err(format!("second session: {v}")),
            Err(_) => return Err(format!("second session: no response to {id} within {T:?}")),
        }
    }
}

/// Two sessions on one proxy, each with its own upstream: session A spends a 250 budget
/// (calls of 100) until `budget_exceeded`; session B then spends the same delegation from 0,
/// and B's own token works in both. A proxy sharing spend (or upstreams) across sessions fails.
pub(super) fn concurrent_sessions(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 250;
    let t = spec.sign(&tokens::root());
    let mut spec_b = RootSpec::new(vec![cap("docs", "read", "/project/**")]);
    spec_b.delegation_id = "del_b00000000002".into();
    spec_b.budget = 250;
    let u = spec_b.sign(&tokens::root());
    let (env_t, env_u) = (tokens::envelope(&t), tokens::envelope(&u));
    let mut a = Session::start(ctx, &Setup::standard())?;
    a.init()?;
    let url = link(&a)?.url.clone();
    let (tx, rx) = mpsc::channel();
    let b = HttpLink::new(url, move |d| {
        let _ = tx.send(d);
    });
    let init = json!({"jsonrpc": "2.0", "id": "init-b", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "delegateos-conform-b", "version": env!("CARGO_PKG_VERSION")}}});
    b.send(init.to_string().as_bytes())?;
    expect_result(&wait_for(&rx, &json!("init-b"))?)?;
    b.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)?;
    let (sa, sb) = (sid(&a)?, b.session_id().unwrap_or_default());
    ensure(!sb.is_empty() && sa != sb, || {
        format!("the two sessions need distinct Mcp-Session-Ids (got {sa:?} and {sb:?})")
    })?;
    // A: 3 calls authorized (spent 0, 100, 200), the 4th denied at 300.
    for i in 1..=3 {
        expect_result(&a.call(
            json!(format!("a{i}")),
            "read_file",
            read_args(),
            Some(env_t.clone()),
        )?)?;
    }
    let denial = a.call_denied(
        json!("a4"),
        "read_file",
        read_args(),
        Some(env_t.clone()),
        "budget_exceeded",
    )?;
    a.check_data(denial, |data| {
        ensure(data["spent"] == 300, || {
            format!("session A: expected spent 300: {data}")
        })
    });
    // B: the same delegation starts from 0 in its own session.
    for i in 1..=3 {
        let id = json!(format!("b{i}"));
        b.send(
            call_msg(&id, "read_file", read_args(), Some(env_t.clone()))
                .to_string()
                .as_bytes(),
        )?;
        let r = wait_for(&rx, &id)?;
        expect_result(&r).map_err(|e| {
            format!("session B's call {i} with the delegation session A exhausted: {e} (spend shared across sessions?)")
        })?;
    }
    let id = json!("b-own");
    b.send(
        call_msg(&id, "read_file", read_args(), Some(env_u.clone()))
            .to_string()
            .as_bytes(),
    )?;
    expect_result(&wait_for(&rx, &id)?)?;
    expect_result(&a.call(json!("a-u"), "read_file", read_args(), Some(env_u))?)?;
    // One upstream per session.
    let pids: Vec<u64> = a
        .events()
        .iter()
        .filter(|e| e["event"] == "start")
        .filter_map(|e| e["pid"].as_u64())
        .collect();
    ensure(pids.len() == 2 && pids[0] != pids[1], || {
        format!("expected one upstream per session (2 distinct start events), got pids {pids:?}")
    })?;
    let status = b.delete()?;
    ensure((200..300).contains(&status), || {
        format!("DELETE of session B answered HTTP {status}")
    })?;
    let b_pid = u32::try_from(pids[1]).unwrap_or(0);
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    while crate::mcp::client::process_alive(b_pid) {
        if std::time::Instant::now() >= deadline {
            return Err(format!(
                "session B's upstream (pid {b_pid}) outlived its DELETE"
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // Session A is unaffected by B's end.
    a.sync()?;
    a.finish()
}

/// A client that drops its connection while a slow call is in flight does not disturb the
/// session: later requests are answered.
pub(super) fn client_disconnect(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let url = link(&s)?.url.clone();
    let real = sid(&s)?;
    let env = tokens::envelope(&super::fixtures::good_token());
    let slow = call_msg(&json!("dropped"), "slow", json!({}), Some(env.clone()));
    {
        let agent = http_client::agent();
        let mut req = agent.post(&url);
        for (k, v) in POST_HEADERS {
            req = req.header(*k, *v);
        }
        let resp = req
            .header("mcp-session-id", &real)
            .send(slow.to_string().as_bytes())
            .map_err(|e| format!("POST of the slow call failed: {e}"))?;
        ensure(resp.status().as_u16() == 200, || {
            format!("the slow call answered HTTP {}", resp.status())
        })?;
        // Dropped here, unread: the connection closes mid-stream.
    }
    s.sync()?;
    expect_result(&s.call(json!("after"), "read_file", read_args(), Some(env))?)?;
    s.finish()
}

/// Authority never comes from HTTP headers: a call whose `_delegateos` is denied stays denied
/// when headers carry a token that would allow it, and headers never become `_delegateos`.
pub(super) fn header_smuggling(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let url = link(&s)?.url.clone();
    let real = sid(&s)?;
    let good = tokens::envelope(&super::fixtures::good_token());
    let narrow = tokens::envelope(
        &RootSpec::new(vec![cap("docs", "read", "/other/**")]).sign(&tokens::root()),
    );
    let dct = good["dct"].as_str().unwrap_or_default().to_owned();
    let bearer = format!("Bearer {dct}");
    let env_text = good.to_string();
    let mut headers: Vec<(&str, &str)> = POST_HEADERS.to_vec();
    headers.extend([
        ("_delegateos", env_text.as_str()),
        ("x-delegateos", env_text.as_str()),
        ("x-delegateos-dct", dct.as_str()),
        ("mcp-delegateos", env_text.as_str()),
        ("authorization", bearer.as_str()),
    ]);
    let denied = call_msg(&json!("smuggle-1"), "read_file", read_args(), Some(narrow));
    let ex = post(&url, Some(&real), &headers, denied.to_string().as_bytes())?;
    let msgs = ex.messages();
    let resp = msgs
        .iter()
        .find(|m| m.get("id") == Some(&json!("smuggle-1")))
        .ok_or_else(|| {
            format!(
                "no JSON-RPC answer to the call (HTTP {}, {msgs:?})",
                ex.status
            )
        })?;
    expect_denial(resp, &json!("smuggle-1"), "capability_not_granted")
        .map_err(|e| format!("a token in headers must not authorize the call: {e}"))?;
    let bare = call_msg(&json!("smuggle-2"), "read_file", read_args(), None);
    let ex = post(&url, Some(&real), &headers, bare.to_string().as_bytes())?;
    let msgs = ex.messages();
    ensure(
        msgs.iter()
            .any(|m| m.get("id") == Some(&json!("smuggle-2"))),
        || format!("no answer to the bare call (HTTP {}, {msgs:?})", ex.status),
    )?;
    s.sync()?;
    ensure(
        s.upstream_requests_with_id(&json!("smuggle-1")).is_empty(),
        || "the denied call reached the upstream (authorized by a header?)".into(),
    )?;
    let forwarded = s.upstream_requests_with_id(&json!("smuggle-2"));
    let Some(fwd) = forwarded.first() else {
        return Err("the call without _delegateos was not forwarded".into());
    };
    ensure(fwd["params"].get("_delegateos").is_none(), || {
        format!("a header became _delegateos upstream: {}", short(fwd))
    })?;
    s.finish()
}
