//! Handshake and pass-through (`MCP-INITIALIZE`, `MCP-PASS-THROUGH`, `MCP-ID-PRESERVE`,
//! `MCP-NOTIFY-*`, `MCP-SERVER-REQUESTS`): what is not intercepted is relayed unchanged.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::context::Ctx;
use super::fixtures::{good_token, T};
use super::judge::{call_msg, ensure, expect_result, short};
use super::session::{Session, Setup};
use crate::mcp::tokens;

pub(super) fn handshake(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    let resp = s.init()?;
    let result = expect_result(&resp)?;
    ensure(result["protocolVersion"] == "2025-11-25", || {
        format!("protocolVersion changed: {}", short(&resp))
    })?;
    let upstream_answer = s
        .upstream_answer(&json!("init"))
        .ok_or("the upstream never answered initialize")?;
    ensure(
        result["capabilities"] == upstream_answer["result"]["capabilities"],
        || {
            format!(
                "capabilities changed: {} vs upstream {}",
                result["capabilities"], upstream_answer["result"]["capabilities"]
            )
        },
    )?;
    s.sync()?;
    let msgs = s.upstream_msgs();
    let inits: Vec<&Value> = msgs
        .iter()
        .filter(|m| m["method"] == "initialize")
        .collect();
    ensure(inits.len() == 1, || {
        format!("initialize reached the upstream {} times", inits.len())
    })?;
    ensure(
        inits[0]["params"]["clientInfo"]["name"] == "delegateos-conform"
            && inits[0]["id"] == "init",
        || format!("initialize params or id changed: {}", inits[0]),
    )?;
    let n = msgs
        .iter()
        .filter(|m| m["method"] == "notifications/initialized")
        .count();
    ensure(n == 1, || {
        format!("notifications/initialized reached the upstream {n} times")
    })?;
    s.finish()
}

pub(super) fn pass_through(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let probes = [
        ("ping", json!({})),
        ("resources/list", json!({"cursor": null})),
        ("prompts/list", json!({})),
        ("vendor/unknown", json!({"x": [1, "ü"]})),
        ("mock/fail", json!({"why": "relay my error data"})),
    ];
    for (i, (method, params)) in probes.iter().enumerate() {
        let id = json!(format!("pt-{i}"));
        let resp = s.request(id.clone(), method, params.clone(), T)?;
        let upstream = s
            .upstream_answer(&id)
            .ok_or_else(|| format!("{method} never reached the upstream"))?;
        ensure(resp == upstream, || {
            format!(
                "{method}: client got {}, upstream sent {}",
                short(&resp),
                short(&upstream)
            )
        })?;
        let got = s.upstream_requests_with_id(&id);
        ensure(got.len() == 1 && got[0]["params"] == *params, || {
            format!("{method} params changed on the way: {got:?}")
        })?;
    }
    s.finish()
}

pub(super) fn id_preservation(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let ids = [
        json!("abc"),
        json!(7),
        json!(0),
        json!(9_007_199_254_740_993u64),
        json!(-3),
        json!("ünï✓🙂"),
        json!(""),
    ];
    for id in &ids {
        let resp = s.request(id.clone(), "ping", json!({}), T)?;
        ensure(resp.get("result").is_some(), || {
            format!("ping with id {id} failed: {}", short(&resp))
        })?;
        let up = s.upstream_requests_with_id(id);
        ensure(up.len() == 1, || {
            format!("id {id} was not forwarded unchanged (found {})", up.len())
        })?;
    }
    // Ids of answers the proxy builds itself (denials).
    for id in [json!(0), json!("ünï✓🙂"), json!(9_007_199_254_740_993u64)] {
        s.call_denied(
            id,
            "read_file",
            json!({"path": "/etc/passwd"}),
            Some(tokens::envelope(&good_token())),
            "capability_not_granted",
        )?;
    }
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}))?;
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}))?;
    s.sync()?;
    let stray: Vec<Value> = s
        .proxy
        .drain(Duration::from_millis(300))
        .into_iter()
        .filter(|m| m.get("method").is_none())
        .collect();
    ensure(stray.is_empty(), || {
        format!("responses to notifications or duplicates: {stray:?}")
    })?;
    s.finish()
}

pub(super) fn notify_upstream(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["onInitialized"] = json!([
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello ü"}},
    ]);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let id = json!("prog");
    let mut msg = call_msg(
        &id,
        "progress",
        json!({}),
        Some(tokens::envelope(&good_token())),
    );
    msg["params"]["_meta"] = json!({"progressToken": "tok-1"});
    s.send(&msg)?;
    let mut seen = Vec::new();
    let deadline = Instant::now() + T;
    while Instant::now() < deadline {
        let Some(m) = s.proxy.next(Duration::from_millis(200)) else {
            continue;
        };
        let done = m.get("id") == Some(&id);
        seen.push(m);
        if done {
            break;
        }
    }
    let methods: Vec<String> = seen
        .iter()
        .map(|m| {
            m.get("method")
                .and_then(Value::as_str)
                .unwrap_or("<response>")
                .to_owned()
        })
        .collect();
    let expect = [
        "notifications/tools/list_changed",
        "notifications/message",
        "notifications/progress",
        "notifications/progress",
        "notifications/progress",
        "<response>",
    ];
    ensure(methods == expect, || {
        format!("expected {expect:?} in order, got {methods:?}")
    })?;
    let progress: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    for (i, p) in progress.iter().enumerate() {
        ensure(
            p["params"]["progressToken"] == "tok-1" && p["params"]["progress"] == json!(i + 1),
            || format!("progress notification changed: {p}"),
        )?;
    }
    ensure(seen[1]["params"]["data"] == "hello ü", || {
        format!("message notification changed: {}", seen[1])
    })?;
    s.finish()
}

pub(super) fn notify_client(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let id = json!("to-cancel");
    s.send(&call_msg(
        &id,
        "slow",
        json!({}),
        Some(tokens::envelope(&good_token())),
    ))?;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "to-cancel", "reason": "user"}});
    s.send(&cancel)?;
    let roots = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    s.send(&roots)?;
    s.sync()?;
    let msgs = s.upstream_msgs();
    ensure(msgs.contains(&cancel), || {
        "notifications/cancelled did not reach the upstream unchanged".into()
    })?;
    ensure(msgs.contains(&roots), || {
        "notifications/roots/list_changed did not reach the upstream".into()
    })?;
    let late: Vec<Value> = s
        .proxy
        .drain(Duration::from_millis(1800))
        .into_iter()
        .filter(|m| m.get("method").is_none())
        .collect();
    ensure(late.is_empty(), || {
        format!("no response may follow a cancelled request or a notification: {late:?}")
    })?;
    s.finish()
}

pub(super) fn server_request(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let id = json!("asker");
    s.send(&call_msg(
        &id,
        "ask",
        json!({}),
        Some(tokens::envelope(&good_token())),
    ))?;
    let deadline = Instant::now() + T;
    let request = loop {
        let m = s.proxy.next(Duration::from_millis(200));
        if let Some(m) = m {
            if m["method"] == "roots/list" {
                break m;
            }
        }
        if Instant::now() > deadline {
            return Err("the upstream's roots/list request never reached the client".into());
        }
    };
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": [{"uri": "file:///project", "name": "p"}]}});
    s.send(&answer)?;
    let resp = s.proxy.response(&id, T)?;
    let r = expect_result(&resp)?;
    ensure(r["structuredContent"]["client_response"] == answer, || {
        format!(
            "the client's answer did not reach the upstream intact: {}",
            short(&resp)
        )
    })?;
    s.finish()
}
