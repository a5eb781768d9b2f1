//! Smoke cases against the real `@modelcontextprotocol/server-everything` behind the
//! recording tap (skipped when node or the package is absent).

use std::time::Duration;

use serde_json::{json, Value};

use delegateos_reference::token::SignedJsonToken;

use super::context::Ctx;
use super::judge::{call_msg, ensure, expect_result, short};
use super::session::{list_all, names, Session, Setup};
use crate::mcp::tokens::{self, cap, RootSpec};

fn smoke_setup(ctx: &Ctx) -> Result<Setup, String> {
    let smoke = ctx.opts.smoke.as_ref().ok_or("no smoke upstream")?;
    let mut setup = Setup::standard();
    setup.tools = json!({
        "echo": {"namespace": "test", "action": "echo", "resource": {"argument": "message"}},
        "get-sum": {"namespace": "math", "action": "add"},
    });
    setup.real_upstream = Some(vec![
        smoke.node.clone(),
        smoke.entry.to_string_lossy().into_owned(),
        "stdio".into(),
    ]);
    Ok(setup)
}

pub(super) fn smoke_token() -> SignedJsonToken {
    RootSpec::new(vec![cap("test", "echo", "*")]).sign(&tokens::root())
}

pub(super) fn smoke_list(ctx: &Ctx) -> Result<(), String> {
    let token = smoke_token();
    let mut s = Session::start(ctx, &smoke_setup(ctx)?.with_session(&token))?;
    s.init()?;
    let (responses, tools) = list_all(&mut s)?;
    ensure(names(&tools) == ["echo"], || {
        format!("expected only echo, got {:?}", names(&tools))
    })?;
    let upstream = s
        .upstream_answer(&responses[0]["id"])
        .ok_or("no upstream answer recorded")?;
    let upstream_count = upstream["result"]["tools"].as_array().map_or(0, Vec::len);
    ensure(upstream_count > 1, || {
        format!("the real upstream listed {upstream_count} tools; expected several")
    })?;
    let real_echo = upstream["result"]["tools"]
        .as_array()
        .and_then(|a| a.iter().find(|t| t["name"] == "echo"))
        .cloned()
        .unwrap_or(Value::Null);
    ensure(tools[0] == real_echo, || {
        "the echo tool object was altered".into()
    })?;
    s.finish()
}

pub(super) fn smoke_call(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &smoke_setup(ctx)?)?;
    s.init()?;
    let id = json!("smoke-echo");
    let mut msg = call_msg(
        &id,
        "echo",
        json!({"message": "hi ü"}),
        Some(tokens::envelope(&smoke_token())),
    );
    msg["params"]["_meta"] = json!({"vendor.example/k": 1});
    s.send(&msg)?;
    let resp = s.proxy.response(&id, Duration::from_secs(10))?;
    let r = expect_result(&resp)?;
    ensure(r["content"][0]["text"] == "Echo: hi ü", || {
        format!("unexpected echo result: {}", short(&resp))
    })?;
    let up = s.upstream_requests_with_id(&id);
    ensure(
        up.len() == 1
            && up[0]["params"].get("_delegateos").is_none()
            && up[0]["params"]["_meta"] == json!({"vendor.example/k": 1}),
        || format!("the real upstream did not get one stripped call with _meta intact: {up:?}"),
    )?;
    s.finish()
}

pub(super) fn smoke_deny(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &smoke_setup(ctx)?)?;
    s.init()?;
    let id = json!("smoke-sum");
    s.call_denied(
        id,
        "get-sum",
        json!({"a": 1, "b": 2}),
        Some(tokens::envelope(&smoke_token())),
        "capability_not_granted",
    )?;
    s.finish()
}
