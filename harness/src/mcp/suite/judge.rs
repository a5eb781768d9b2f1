//! Judging helpers: message construction and the checks every case shares (a result, a
//! -32001 denial of the right type with the same id), and report-sized message excerpts.

use serde_json::{json, Value};

use delegateos_reference::mcp::{DENIAL_CODE, DENIAL_MESSAGE};

pub(super) fn call_msg(id: &Value, name: &str, args: Value, envelope: Option<Value>) -> Value {
    let mut params = json!({"name": name, "arguments": args});
    if let Some(env) = envelope {
        params["_delegateos"] = env;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

pub(super) fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(msg())
    }
}

pub(super) fn expect_denial(resp: &Value, id: &Value, ty: &str) -> Result<Value, String> {
    ensure(resp.get("id") == Some(id), || {
        format!("denial carries id {:?}, expected {id}", resp.get("id"))
    })?;
    denial_form(resp, ty)?;
    Ok(resp["error"]["data"].clone())
}

/// A -32001 denial of type `ty` (its id aside): the code, the message, `data.type`, and no
/// result beside the error.
pub(super) fn denial_form(resp: &Value, ty: &str) -> Result<(), String> {
    let Some(err) = resp.get("error") else {
        return Err(format!(
            "expected a -32001 {ty} denial, got {}",
            short(resp)
        ));
    };
    ensure(err["code"] == json!(DENIAL_CODE), || {
        format!("denial code is {}, expected -32001", err["code"])
    })?;
    ensure(err["message"] == json!(DENIAL_MESSAGE), || {
        format!(
            "denial message is {}, expected {DENIAL_MESSAGE:?}",
            err["message"]
        )
    })?;
    ensure(err["data"]["type"] == json!(ty), || {
        format!(
            "data.type is {}, expected {ty:?} ({err})",
            err["data"]["type"]
        )
    })?;
    ensure(resp.get("result").is_none(), || {
        "a denial must not carry a result".into()
    })
}

pub(super) fn expect_result(resp: &Value) -> Result<&Value, String> {
    resp.get("result")
        .filter(|_| resp.get("error").is_none())
        .ok_or_else(|| format!("expected a result, got {}", short(resp)))
}

/// A message abbreviated for reports (tokens and blobs make them long).
pub(super) fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.len() <= 400 {
        return text;
    }
    let mut cut = 400;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes)", &text[..cut], text.len())
}
