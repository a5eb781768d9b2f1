//! Transport robustness: large messages, malformed and duplicate-member lines, line
//! separators, stdout hygiene, upstream crash and hang, client EOF and signals.

use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::context::Ctx;
use super::fixtures::{good_token, T, T_LARGE};
use super::judge::{call_msg, ensure, expect_result, short};
use super::session::{read_events, Session, Setup};
use crate::mcp::tokens;

pub(super) fn big_text(len: usize) -> String {
    let unit = "line\nbreak \"quoted\" ünïcødé \u{2028} \\ end. ";
    let mut s = String::with_capacity(len + unit.len());
    while s.len() < len {
        s.push_str(unit);
    }
    s
}

pub(super) fn large_client_to_upstream(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    for (i, size) in [(1u64, 1024 * 1024), (2, 10 * 1024 * 1024)] {
        let blob = big_text(size);
        let args = json!({"path": "/project/big", "blob": blob});
        s.send(&call_msg(
            &json!(i),
            "read_file",
            args.clone(),
            Some(env.clone()),
        ))?;
        let resp = s.proxy.response(&json!(i), T_LARGE)?;
        let r = expect_result(&resp)?;
        ensure(
            r["structuredContent"]["received_params"]["arguments"] == args,
            || format!("the {size}-byte arguments were altered"),
        )?;
        let up = s.upstream_requests_with_id(&json!(i));
        ensure(
            up.len() == 1
                && up[0]["params"]["arguments"] == args
                && up[0]["params"].get("_delegateos").is_none(),
            || format!("the {size}-byte call did not reach the upstream intact and stripped"),
        )?;
    }
    s.finish()
}

pub(super) fn large_upstream_to_client(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let id = json!("big");
    s.send(&call_msg(
        &id,
        "big",
        json!({}),
        Some(tokens::envelope(&good_token())),
    ))?;
    let resp = s.proxy.response(&id, T_LARGE)?;
    let r = expect_result(&resp)?;
    let len = r["content"][1]["text"].as_str().map_or(0, str::len);
    ensure(len == 10 * 1024 * 1024, || {
        format!("expected a 10 MiB text, got {len} bytes")
    })?;
    s.finish()
}

pub(super) fn malformed_lines(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let probes: [(&str, i64); 5] = [
        ("this is not json", -32700),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,", -32700),
        (
            "[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]",
            -32600,
        ),
        ("42", -32600),
        ("{\"jsonrpc\":\"2.0\"}", -32600),
    ];
    for (line, code) in probes {
        s.proxy.send_raw(line.as_bytes())?;
        let resp = s
            .proxy
            .response(&Value::Null, T)
            .map_err(|e| format!("no error reply to {line:?}: {e}"))?;
        ensure(resp["error"]["code"] == code, || {
            format!("{line:?} should get {code}, got {}", short(&resp))
        })?;
    }
    // A line delivered in two writes, and a CRLF-terminated line.
    s.proxy.send_partial(br#"{"jsonrpc":"2.0","id":"part","#)?;
    thread::sleep(Duration::from_millis(150));
    s.proxy.send_raw(br#""method":"ping"}"#)?;
    expect_result(&s.proxy.response(&json!("part"), T)?)?;
    s.proxy
        .send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r")?;
    expect_result(&s.proxy.response(&json!("crlf"), T)?)?;
    s.sync()?;
    let batch_forwarded = s.upstream_raw().iter().any(|r| r.starts_with('['));
    ensure(!batch_forwarded, || {
        "a JSON array (batch) was forwarded to the upstream".into()
    })?;
    s.finish()
}

/// D35: a parser differential between the proxy and the upstream is a bypass. Each probe is a
/// line whose members a last-wins parser and a first-wins parser read differently; the proxy
/// must refuse all of them, whatever method the proxy's own parser sees.
pub(super) fn duplicate_members(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = serde_json::to_string(&tokens::envelope(&good_token())).unwrap_or_default();
    let probes = [
        // Last-wins sees `ping`; a first-wins upstream runs an unverified tools/call.
        r#"{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/etc/x"}},"method":"ping"}"#.to_owned(),
        // The same with the second key spelled with an escape.
        r#"{"jsonrpc":"2.0","id":"dup-2","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/etc/x"}},"m\u0065thod":"ping"}"#.to_owned(),
        // Two `params`: the verified one allowed, the other one forbidden.
        format!(r#"{{"jsonrpc":"2.0","id":"dup-3","method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"/etc/x"}}}},"params":{{"_delegateos":{env},"name":"read_file","arguments":{{"path":"/project/a.txt"}}}}}}"#),
        // Two `name`s inside params.
        format!(r#"{{"jsonrpc":"2.0","id":"dup-4","method":"tools/call","params":{{"name":"write_file","_delegateos":{env},"arguments":{{"path":"/project/a.txt"}},"name":"read_file"}}}}"#),
    ];
    for (i, line) in probes.iter().enumerate() {
        let id = json!(format!("dup-{}", i + 1));
        s.proxy.send_raw(line.as_bytes())?;
        let resp = s
            .proxy
            .response(&id, T)
            .map_err(|e| format!("no reply to duplicate-member probe {id}: {e}"))?;
        ensure(resp["error"]["code"] == -32600, || {
            format!("probe {id} should get -32600, got {}", short(&resp))
        })?;
    }
    s.sync()?;
    let leaked: Vec<String> = s
        .upstream_raw()
        .into_iter()
        .filter(|r| r.contains("\"dup-"))
        .collect();
    ensure(leaked.is_empty(), || {
        format!("duplicate-member lines reached the upstream: {leaked:?}")
    })?;
    s.finish()
}

pub(super) fn stdout_clean(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["onInitialized"] = json!([{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": "x"}}]);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    for i in 0..5 {
        s.request(json!(i), "ping", json!({}), T)?;
    }
    s.finish()
}

pub(super) fn upstream_garbage(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let resp = s.call(
        json!("noisy"),
        "noisy",
        json!({}),
        Some(tokens::envelope(&good_token())),
    )?;
    expect_result(&resp)?;
    s.finish()
}

pub(super) fn upstream_crash(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    s.send(&call_msg(
        &json!("inflight"),
        "slow",
        json!({}),
        Some(env.clone()),
    ))?;
    s.send(&call_msg(&json!("boom"), "crash", json!({}), Some(env)))?;
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut answered = Vec::new();
    while answered.len() < 2 && Instant::now() < deadline {
        match s.proxy.next(Duration::from_millis(100)) {
            Some(m) if m.get("method").is_none() => {
                ensure(m["error"]["code"] == -32603, || {
                    format!("an in-flight request should get -32603, got {m}")
                })?;
                answered.push(m["id"].clone());
            }
            Some(_) => {}
            None if s.proxy.saw_eof() => break,
            None => {}
        }
    }
    let exited = s.proxy.saw_eof();
    ensure(answered.len() == 2 || exited, || {
        format!("after the upstream crashed the proxy neither answered both in-flight requests nor exited within 5 s (answered {answered:?})")
    })?;
    s.check_clean();
    s.save_stderr();
    s.proxy.close_stdin();
    ensure(s.proxy.wait_exit(Duration::from_secs(5)).is_some(), || {
        "the proxy did not exit after the upstream crash and client EOF".into()
    })?;
    s.assert_upstream_gone(Duration::from_secs(1))
}

pub(super) fn upstream_hang(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    s.send(&call_msg(
        &json!("hung"),
        "hang",
        json!({}),
        Some(tokens::envelope(&good_token())),
    ))?;
    s.sync()
        .map_err(|e| format!("a hung call blocked other requests: {e}"))?;
    s.finish()
}

pub(super) fn client_eof(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    s.sync()?;
    let record = s.record.clone();
    s.finish()?;
    let saw_eof = read_events(&record).iter().any(|e| e["event"] == "eof");
    ensure(saw_eof, || "the upstream never saw EOF on its stdin".into())
}

pub(super) fn client_eof_stubborn(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["ignoreEof"] = json!(true);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    s.finish()
}

pub(super) fn sigterm(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["ignoreEof"] = json!(true);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    s.sync()?;
    s.proxy.terminate();
    ensure(s.proxy.wait_exit(Duration::from_secs(5)).is_some(), || {
        "the proxy did not exit within 5 s of SIGTERM".into()
    })?;
    s.save_stderr();
    s.assert_upstream_gone(Duration::from_secs(2))
}

/// Red team (py-proxy `splitlines`): MCP stdio messages end at `\n` only. JSON strings may hold
/// raw U+2028, U+2029 and U+0085, which `str.splitlines()` (and some other line readers)
/// treat as line ends, cutting the message in two.
pub(super) fn raw_line_separators(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = serde_json::to_string(&tokens::envelope(&good_token())).unwrap_or_default();
    let args = "{\"path\":\"/project/a.txt\",\"u\":\"a\u{2028}b\u{2029}c\u{85}d\"}";
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"sep-1","method":"tools/call","params":{{"_delegateos":{env},"name":"read_file","arguments":{args}}}}}"#
    );
    s.proxy.send_raw(line.as_bytes())?;
    let id = json!("sep-1");
    let resp = s.proxy.response(&id, T)?;
    let r = expect_result(&resp)?;
    ensure(
        r["structuredContent"]["received_params"]["arguments"]["u"] == "a\u{2028}b\u{2029}c\u{85}d",
        || {
            format!(
                "the arguments did not survive the round trip: {}",
                short(&resp)
            )
        },
    )?;
    let raw = s.upstream_raw();
    let forwarded: Vec<&String> = raw.iter().filter(|r| r.contains("\"sep-1\"")).collect();
    ensure(forwarded.len() == 1 && forwarded[0].contains(args), || {
        format!("the call should reach the upstream once, arguments byte-identical: {forwarded:?}")
    })?;
    // Pass-through direction too: mock/fail echoes its params in the error data.
    let line = "{\"jsonrpc\":\"2.0\",\"id\":\"sep-2\",\"method\":\"mock/fail\",\"params\":{\"s\":\"x\u{2028}y\u{85}z\"}}";
    s.proxy.send_raw(line.as_bytes())?;
    let resp = s.proxy.response(&json!("sep-2"), T)?;
    let upstream = s
        .upstream_answer(&json!("sep-2"))
        .ok_or("mock/fail never reached the upstream")?;
    ensure(resp == upstream, || {
        format!(
            "client got {}, upstream sent {}",
            short(&resp),
            short(&upstream)
        )
    })?;
    s.finish()
}

/// Red team (py-proxy `raw-text-shortcut`): JSON member names may be written with `\u`
/// escapes. A proxy that looks for `"_delegateos"` or duplicate names in the raw text, rather
/// than in the decoded names, forwards an escaped envelope unverified and unstripped, and
/// misses escaped duplicates (D35).
pub(super) fn escaped_member_names(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let token = tokens::envelope(&good_token());
    let env = serde_json::to_string(&token).unwrap_or_default();
    let dups = [
        r#"{"jsonrpc":"2.0","id":"esc-1","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/etc/x"}},"m\u0065thod":"ping"}"#.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":"esc-2","method":"tools/call","params":{{"name":"write_file","_delegateos":{env},"arguments":{{"path":"/project/a.txt"}},"n\u0061me":"read_file"}}}}"#),
    ];
    for line in &dups {
        s.proxy.send_raw(line.as_bytes())?;
    }
    for id in ["esc-1", "esc-2"] {
        let resp = s.proxy.response(&json!(id), T)?;
        if resp["error"]["code"] != -32600 {
            s.observe(
                "duplicate-accepted",
                format!(
                    "{id}: an escaped duplicate member name should get -32600, got {}",
                    short(&resp)
                ),
            );
        }
    }
    // An escaped `_delegateos` is the envelope: verified, and stripped when allowed.
    let allowed = format!(
        r#"{{"jsonrpc":"2.0","id":"esc-3","method":"tools/call","params":{{"_delegate\u006fs":{env},"name":"read_file","arguments":{{"path":"/project/a.txt"}}}}}}"#
    );
    s.proxy.send_raw(allowed.as_bytes())?;
    expect_result(&s.proxy.response(&json!("esc-3"), T)?)?;
    let denied = format!(
        r#"{{"jsonrpc":"2.0","id":"esc-4","method":"tools/call","params":{{"_delegate\u006fs":{env},"name":"read_file","arguments":{{"path":"/etc/shadow"}}}}}}"#
    );
    s.proxy.send_raw(denied.as_bytes())?;
    s.denied(&json!("esc-4"), "capability_not_granted")?;
    for id in ["esc-1", "esc-2"] {
        s.assert_not_forwarded(&json!(id))?;
    }
    let fwd = s.upstream_requests_with_id(&json!("esc-3"));
    ensure(fwd.len() == 1, || {
        format!("esc-3 reached the upstream {} times", fwd.len())
    })?;
    if fwd[0]["params"].get("_delegateos").is_some() {
        s.observe(
            "not-stripped",
            format!(
                "the escaped _delegateos member was forwarded: {}",
                short(&fwd[0])
            ),
        );
    }
    let dct = token["dct"].as_str().unwrap_or_default();
    if s.upstream_raw().iter().any(|r| r.contains(dct)) {
        s.observe("not-stripped", "the token reached the upstream".into());
    }
    s.finish()
}
