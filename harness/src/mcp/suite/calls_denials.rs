//! Calls and denials (`MCP-CALL-*`, `MCP-DENY-*`, `MCP-DELEGATEOS-*`, `MCP-STRICT-MODE`): what
//! an authorized `tools/call` looks like upstream, and the proxy-built -32001 answers. The
//! single-call denials are data: one [`DenyProbe`] per case (token, envelope, tool, expected
//! `data.type` and the extra `data` checks), run by [`run_probe`].

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use delegateos_reference::token::{revocation_id_of_block, SignedJsonToken};

use super::context::Ctx;
use super::fixtures::{good_token, read_args, standard_caps, T};
use super::judge::{call_msg, ensure, expect_denial, expect_result, short};
use super::session::{list_all, names, Session, Setup};
use crate::mcp::tokens::{self, cap, RootSpec};

pub(super) fn call_allowed(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = serde_json::to_string(&tokens::envelope(&good_token())).unwrap_or_default();
    // Unusual but valid JSON in arguments: unsorted keys, spaces, escapes, exponent numbers.
    let args = r#"{ "z" : 1, "path":"/project/a.txt", "a" : {"n":[1, 2.5, -0, 1e3, "\u00e9\n\"q\""]}, "u":"h\u00e9llo \u2028 \ud83d\ude00" }"#;
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{{"_delegateos":{env},"name":"read_file","arguments":{args},"_meta":{{"progressToken":"p-1","vendor.example/trace":"abc"}},"x-unknown":{{"k":[true,null]}}}}}}"#
    );
    s.proxy.send_raw(line.as_bytes())?;
    let id = json!("call-1");
    let resp = s.proxy.response(&id, T)?;
    expect_result(&resp)?;
    let raw = s.upstream_raw();
    let forwarded: Vec<&String> = raw.iter().filter(|r| r.contains("\"call-1\"")).collect();
    ensure(forwarded.len() == 1, || {
        format!("the call reached the upstream {} times", forwarded.len())
    })?;
    let fwd = forwarded[0];
    ensure(fwd.contains(args), || {
        format!("arguments are not byte-identical upstream: {fwd}")
    })?;
    let msg: Value =
        serde_json::from_str(fwd).map_err(|e| format!("forwarded line is not JSON: {e}"))?;
    let p = &msg["params"];
    ensure(p.get("_delegateos").is_none(), || {
        "_delegateos was forwarded to the upstream".into()
    })?;
    ensure(
        p["_meta"] == json!({"progressToken": "p-1", "vendor.example/trace": "abc"}),
        || format!("_meta changed: {}", p["_meta"]),
    )?;
    ensure(p["x-unknown"] == json!({"k": [true, null]}), || {
        format!("unknown member changed: {}", p["x-unknown"])
    })?;
    ensure(
        p["name"] == "read_file" && msg["id"] == id && msg["method"] == "tools/call",
        || format!("name/id/method changed: {msg}"),
    )?;
    let upstream = s
        .upstream_answer(&id)
        .ok_or("the upstream never answered")?;
    ensure(resp == upstream, || {
        format!(
            "result changed: client {}, upstream {}",
            short(&resp),
            short(&upstream)
        )
    })?;
    s.finish()
}

pub(super) fn call_nested_resource(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    let ok = s.call(
        json!(1),
        "nested",
        json!({"target": {"path": "/project/x/y"}}),
        Some(env.clone()),
    )?;
    expect_result(&ok)?;
    let denial = s.call_denied(
        json!(2),
        "nested",
        json!({"target": {"path": "/etc/x"}}),
        Some(env.clone()),
        "capability_not_granted",
    )?;
    s.check_data(denial, |data| {
        ensure(
            data["requested"]
                == json!({"namespace": "docs", "action": "read", "resource": "/etc/x"}),
            || format!("requested should be the nested argument: {data}"),
        )
    });
    s.call_denied(
        json!(3),
        "nested",
        json!({"target": {"other": 1}}),
        Some(env.clone()),
        "capability_not_granted",
    )?;
    s.call_denied(
        json!(4),
        "read_file",
        json!({"path": ["/project/a"]}),
        Some(env),
        "capability_not_granted",
    )?;
    s.finish()
}

pub(super) fn call_error_relayed(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    for (id, tool) in [(json!("e1"), "fail_result"), (json!("e2"), "fail_rpc")] {
        let resp = s.call(id.clone(), tool, json!({}), Some(env.clone()))?;
        let upstream = s
            .upstream_answer(&id)
            .ok_or_else(|| format!("{tool} never reached the upstream"))?;
        ensure(resp == upstream, || {
            format!(
                "{tool}: client got {}, upstream sent {}",
                short(&resp),
                short(&upstream)
            )
        })?;
    }
    s.finish()
}

pub(super) fn missing_delegateos(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let line = r#"{"jsonrpc":"2.0","id":"nodos","method":"tools/call","params":{"name":"write_file","arguments":{ "path" : "/anything" }}}"#;
    s.proxy.send_raw(line.as_bytes())?;
    let resp = s.proxy.response(&json!("nodos"), T)?;
    expect_result(&resp)?;
    ensure(s.upstream_raw().iter().any(|r| r == line), || {
        "the call was not forwarded byte-for-byte".into()
    })?;
    s.finish()
}

pub(super) fn strict_missing(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.strict = true;
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let id = json!("strict-1");
    s.call_denied(
        id,
        "read_file",
        json!({"path": "/project/a"}),
        None,
        "malformed_token",
    )?;
    s.finish()
}

pub(super) fn strict_allowed(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.strict = true;
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let id = json!("strict-2");
    let resp = s.call(
        id.clone(),
        "read_file",
        json!({"path": "/project/a"}),
        Some(tokens::envelope(&good_token())),
    )?;
    expect_result(&resp)?;
    let up = s.upstream_requests_with_id(&id);
    ensure(
        up.len() == 1 && up[0]["params"].get("_delegateos").is_none(),
        || format!("expected one stripped call upstream: {up:?}"),
    )?;
    s.finish()
}

/// Sends one call with `envelope` and expects a `ty` denial with nothing forwarded
/// ([`Session::denied`]) whose `data` passes `check`.
fn deny_with(
    ctx: &Ctx,
    setup: Setup,
    (tool, args): (&str, Value),
    envelope: Value,
    ty: &str,
    check: impl FnOnce(&Value) -> Result<(), String>,
) -> Result<(), String> {
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let denial = s.call_denied(json!("deny-1"), tool, args, Some(envelope), ty)?;
    s.check_data(denial, check);
    s.finish()
}

/// A case that sends one `tools/call` and expects a proxy-built denial, nothing forwarded.
pub(super) struct DenyProbe {
    /// The token whose envelope the call carries.
    pub token: fn() -> SignedJsonToken,
    /// The `_delegateos` values to send, one fresh session each.
    pub envelopes: fn(&SignedJsonToken) -> Vec<Value>,
    /// The token's authority is revoked in the launch config.
    pub revoke: bool,
    /// The tool called.
    pub tool: &'static str,
    /// Its arguments.
    pub args: fn() -> Value,
    /// The expected `error.data.type`.
    pub denial: &'static str,
    /// Further checks of `error.data` (given the token).
    pub check: fn(&SignedJsonToken, &Value) -> Result<(), String>,
}

/// Runs one [`DenyProbe`].
pub(super) fn run_probe(ctx: &Ctx, probe: &DenyProbe) -> Result<(), String> {
    let token = (probe.token)();
    let mut setup = Setup::standard();
    if probe.revoke {
        let entry = tokens::revoke_authority(&token, &tokens::root());
        setup.revocations = vec![serde_json::to_value(entry).map_err(|e| e.to_string())?];
    }
    for envelope in (probe.envelopes)(&token) {
        deny_with(
            ctx,
            setup.clone(),
            (probe.tool, (probe.args)()),
            envelope,
            probe.denial,
            |data| (probe.check)(&token, data),
        )?;
    }
    Ok(())
}

fn own_envelope(token: &SignedJsonToken) -> Vec<Value> {
    vec![tokens::envelope(token)]
}

/// The token's envelope with one member set (or removed, for `Value::Null`).
fn envelope_with(token: &SignedJsonToken, member: &str, value: Value) -> Vec<Value> {
    let mut env = tokens::envelope(token);
    if let Some(o) = env.as_object_mut() {
        if value.is_null() {
            o.remove(member);
        } else {
            o.insert(member.to_owned(), value);
        }
    }
    vec![env]
}

fn no_check(_: &SignedJsonToken, _: &Value) -> Result<(), String> {
    Ok(())
}

fn signed(edit: fn(&mut RootSpec)) -> SignedJsonToken {
    let mut spec = RootSpec::new(standard_caps());
    edit(&mut spec);
    spec.sign(&tokens::root())
}

/// The common shape: the standard token, its own envelope, `read_file` on a granted path.
const BASE: DenyProbe = DenyProbe {
    token: good_token,
    envelopes: own_envelope,
    revoke: false,
    tool: "read_file",
    args: read_args,
    denial: "malformed_token",
    check: no_check,
};

pub(super) static EXPIRED: DenyProbe = DenyProbe {
    token: || signed(|s| s.expires_at = tokens::PAST.into()),
    denial: "expired",
    ..BASE
};

pub(super) static REVOKED: DenyProbe = DenyProbe {
    revoke: true,
    denial: "revoked",
    check: |token, data| {
        let rid = revocation_id_of_block(&token.authority);
        ensure(data["revocationId"] == json!(rid), || {
            format!("data.revocationId should be {rid}: {data}")
        })
    },
    ..BASE
};

pub(super) static CAPABILITY_RESOURCE: DenyProbe = DenyProbe {
    args: || json!({"path": "/projectX/secret"}),
    denial: "capability_not_granted",
    check: |_, data| {
        ensure(
            data["requested"]
                == json!({"namespace": "docs", "action": "read", "resource": "/projectX/secret"}),
            || format!("data.requested wrong: {data}"),
        )?;
        let granted = serde_json::to_value(standard_caps()).unwrap_or(Value::Null);
        ensure(data["granted"] == granted, || {
            format!("data.granted should be the effective capabilities: {data}")
        })
    },
    ..BASE
};

pub(super) static CAPABILITY_ACTION: DenyProbe = DenyProbe {
    tool: "write_file",
    denial: "capability_not_granted",
    check: |_, data| {
        ensure(
            data["requested"]["action"] == "write" && data["granted"].is_array(),
            || format!("data wrong: {data}"),
        )
    },
    ..BASE
};

pub(super) static UNMAPPED_TOOL: DenyProbe = DenyProbe {
    tool: "unmapped_tool",
    args: || json!({}),
    denial: "capability_not_granted",
    ..BASE
};

pub(super) static BUDGET_ZERO: DenyProbe = DenyProbe {
    token: || signed(|s| s.budget = 0),
    denial: "budget_exceeded",
    check: |_, data| {
        ensure(data["limit"] == 0 && data["spent"] == 0, || {
            format!("data should carry limit 0 and spent 0: {data}")
        })
    },
    ..BASE
};

pub(super) static CHAIN_DEPTH: DenyProbe = DenyProbe {
    token: || {
        signed(|s| {
            s.chain_depth = 2;
            s.max_chain_depth = 1;
        })
    },
    denial: "chain_depth_exceeded",
    ..BASE
};

pub(super) static UNTRUSTED_ROOT: DenyProbe = DenyProbe {
    token: || RootSpec::new(standard_caps()).sign(&tokens::key("other-root")),
    denial: "invalid_signature",
    ..BASE
};

pub(super) static FORGED_SIGNATURE: DenyProbe = DenyProbe {
    token: || {
        let mut token =
            RootSpec::new(vec![cap("docs", "read", "/project/public/**")]).sign(&tokens::root());
        token.authority.capabilities = standard_caps();
        token
    },
    denial: "invalid_signature",
    ..BASE
};

pub(super) static ATTENUATION_EXPANSION: DenyProbe = DenyProbe {
    token: || {
        let root = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
        let att = tokens::attenuation("del_a00000000002", Some(vec![cap("docs", "read", "/**")]));
        tokens::append(root, &tokens::agent(), att)
    },
    denial: "attenuation_violation",
    ..BASE
};

pub(super) static MALFORMED_BASE64: DenyProbe = DenyProbe {
    envelopes: |t| envelope_with(t, "dct", json!("!!not+base64/==")),
    ..BASE
};

pub(super) static MALFORMED_FORMAT: DenyProbe = DenyProbe {
    envelopes: |t| envelope_with(t, "format", json!("delegateos-biscuit-v1")),
    ..BASE
};

pub(super) static MALFORMED_MISSING_DCT: DenyProbe = DenyProbe {
    envelopes: |t| envelope_with(t, "dct", Value::Null),
    ..BASE
};

pub(super) static MALFORMED_NULL: DenyProbe = DenyProbe {
    envelopes: |_| vec![Value::Null],
    ..BASE
};

pub(super) static MALFORMED_NON_OBJECT: DenyProbe = DenyProbe {
    envelopes: |t| {
        let dct = tokens::serialize(t).token;
        vec![json!(dct), json!([dct])]
    },
    ..BASE
};

pub(super) static MALFORMED_UNKNOWN_MEMBER: DenyProbe = DenyProbe {
    envelopes: |t| envelope_with(t, "scope", json!("everything")),
    ..BASE
};

pub(super) static INCONSISTENT_DELEGATION_ID: DenyProbe = DenyProbe {
    envelopes: |t| envelope_with(t, "delegationId", json!("del_ffffffffffff")),
    ..BASE
};

pub(super) static INCONSISTENT_CONTRACT_ID: DenyProbe = DenyProbe {
    envelopes: |t| envelope_with(t, "contractId", json!("ct_ffffffffffff")),
    ..BASE
};

pub(super) fn deny_hidden(ctx: &Ctx) -> Result<(), String> {
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let mut s = Session::start(ctx, &Setup::standard().with_session(&token))?;
    s.init()?;
    let (_, tools) = list_all(&mut s)?;
    ensure(!names(&tools).contains(&"search".to_owned()), || {
        "search should be hidden".into()
    })?;
    s.call_denied(
        json!("hidden"),
        "search",
        json!({"q": "x"}),
        Some(tokens::envelope(&token)),
        "capability_not_granted",
    )?;
    s.finish()
}

pub(super) fn deny_non_blocking(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    let t0 = Instant::now();
    s.send(&call_msg(
        &json!("slow"),
        "slow",
        json!({}),
        Some(env.clone()),
    ))?;
    s.send(&call_msg(
        &json!("denied"),
        "read_file",
        json!({"path": "/etc/shadow"}),
        Some(env),
    ))?;
    // The first answer must be the denial: the slow call takes 1.5 s upstream.
    let first = loop {
        let m = s.proxy.next(T).ok_or("no answer to either call")?;
        if m.get("method").is_none() {
            break m;
        }
    };
    let elapsed = t0.elapsed();
    ensure(first["id"] == "denied", || {
        format!("the denial came after the slow call ({elapsed:?}): denials must not wait for in-flight calls")
    })?;
    expect_denial(&first, &json!("denied"), "capability_not_granted")?;
    let slow = s.proxy.response(&json!("slow"), T)?;
    expect_result(&slow)?;
    s.finish()
}

/// Red team (py-proxy `deny-notification-reply`): a denied `tools/call` without an id has no
/// one to answer (JSON-RPC: no response to a notification); an authorized one is forwarded
/// and charged like a request (spec/mcp-proxy.md §3.5).
pub(super) fn denied_notification_silent(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 150;
    let token = spec.sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let note = |args: Value| {
        let mut m = call_msg(&json!(0), "read_file", args, Some(env.clone()));
        if let Some(o) = m.as_object_mut() {
            o.remove("id");
        }
        m
    };
    // Denied (resource outside the grant): no answer at all.
    s.send(&note(json!({"path": "/etc/shadow", "tag": "denied-note"})))?;
    let resp = s.request(json!("after-1"), "ping", json!({}), T)?;
    ensure(
        resp["id"] == "after-1" && resp.get("result").is_some(),
        || format!("expected the ping answer, got {}", short(&resp)),
    )?;
    let answered = |s: &mut Session| {
        for m in s.proxy.take_matching(|m| m.get("id") == Some(&Value::Null)) {
            s.observe(
                "notification-answered",
                format!("a message with id null reached the client: {}", short(&m)),
            );
        }
    };
    answered(&mut s);
    // Authorized: forwarded once and charged 100.
    s.send(&note(
        json!({"path": "/project/a.txt", "tag": "allowed-note"}),
    ))?;
    s.sync()?;
    let raw = s.upstream_raw();
    if raw.iter().any(|r| r.contains("denied-note")) {
        s.observe(
            "forwarded",
            "the denied notification reached the upstream".into(),
        );
    }
    let n = raw.iter().filter(|r| r.contains("allowed-note")).count();
    ensure(n == 1, || {
        format!("the authorized notification reached the upstream {n} times")
    })?;
    // 100 spent of 150: one more call is authorized (spent 100 < 150), the next is denied at 200.
    expect_result(&s.call(json!(1), "read_file", read_args(), Some(env.clone()))?)?;
    let denial = s.call_denied(
        json!(2),
        "read_file",
        read_args(),
        Some(env.clone()),
        "budget_exceeded",
    )?;
    s.check_data(denial, |data| {
        ensure(data["limit"] == 150 && data["spent"] == 200, || {
            format!(
                "the authorized notification must be charged (expected limit 150, spent 200): {data}"
            )
        })
    });
    // Nothing else was ever answered with id null.
    s.proxy.gather(Duration::from_millis(300));
    answered(&mut s);
    s.finish()
}

/// Red team (py-proxy `resource-str-coerce`): D36 denies a non-string resource argument with
/// `requested.resource: null`. A proxy that coerces it to text (`str(value)`) matches it
/// against a bare `*` grant and forwards an argument whose meaning only the upstream decides.
pub(super) fn resource_non_string(ctx: &Ctx) -> Result<(), String> {
    let token = RootSpec::new(vec![cap("docs", "read", "*")]).sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    expect_result(&s.call(json!(1), "read_file", read_args(), Some(env.clone()))?)?;
    let odd = [
        json!(["/etc/shadow"]),
        json!(42),
        json!({"path": "/etc/shadow"}),
        json!(true),
    ];
    for (i, value) in odd.iter().enumerate() {
        let denial = s.call_denied(
            json!(10 + i),
            "read_file",
            json!({"path": value}),
            Some(env.clone()),
            "capability_not_granted",
        )?;
        s.check_data(denial, |data| {
            ensure(
                data["requested"]
                    == json!({"namespace": "docs", "action": "read", "resource": null}),
                || format!("path {value}: requested.resource must be null: {data}"),
            )
        });
    }
    s.finish()
}
