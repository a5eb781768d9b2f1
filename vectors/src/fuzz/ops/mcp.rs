//! `mcp.call`: tool names, arguments, JSON-RPC members, config, and the fields of the session
//! token, which is decoded in the view (under `$token`) and re-signed and re-encoded after the
//! edits, so its mutations reach past the signature check.

use serde_json::{json, Value};

use super::edit::{self, Edit};
use super::sign;
use super::Signing;
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::{self, Seg};
use crate::keys::Keys;
use delegateos_reference::canonical::canonicalize;
use delegateos_reference::encoding::{b64u_decode, b64u_encode};

const DCT: [&str; 4] = ["request", "params", "_delegateos", "dct"];

fn dct_slot(v: &mut Value) -> Option<&mut Value> {
    DCT.iter().try_fold(v, |v, k| v.get_mut(*k))
}

/// The input with its token text replaced by `{"$token": decoded}` when it decodes.
pub fn view(input: &Value) -> Value {
    let mut v = input.clone();
    if let Some(slot) = dct_slot(&mut v) {
        let decoded = slot
            .as_str()
            .and_then(|t| b64u_decode(t).ok())
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
        if let Some(token) = decoded {
            *slot = json!({ "$token": token });
        }
    }
    v
}

/// The reference's `mcp.call` answer as vectors compare it (spec/mcp-proxy.md §6): `detail`
/// is free text, so a denial's whole `response` is compared only when its `error.data` has no
/// `detail` (`id` and `error`, which the reference gives without `detail`, always are), and a
/// dropped notification's `data` likewise.
pub fn comparable(output: &Value) -> Value {
    let mut out = output.clone();
    let has_detail = |v: Option<&Value>| v.and_then(|d| d.get("detail")).is_some();
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    match obj.get("decision").and_then(Value::as_str) {
        Some("deny") if has_detail(output.pointer("/response/error/data")) => {
            obj.remove("response");
        }
        Some("drop") if has_detail(output.get("data")) => {
            obj.remove("data");
        }
        _ => {}
    }
    out
}

/// The input of a view: the token re-signed (unless `Keep`) and encoded back.
pub fn encode(view: &Value, signing: Signing, keys: &Keys) -> Value {
    let mut v = view.clone();
    if let Some(slot) = dct_slot(&mut v) {
        if let Some(mut token) = slot.get("$token").cloned() {
            if signing != Signing::Keep {
                mutate::resign(&mut token, keys, &[]);
            }
            let text = canonicalize(&token).unwrap_or_else(|_| token.to_string());
            *slot = Value::from(b64u_encode(text.as_bytes()));
        }
    }
    v
}

fn strings(items: &[&str]) -> Vec<Value> {
    items.iter().map(|s| Value::from(*s)).collect()
}

fn dictionary(key: &str) -> Vec<Value> {
    let keys = Keys::fixed();
    match key {
        "name" => strings(&[
            "read_file",
            "write_file",
            "delete_file",
            "search",
            "publish",
            "run",
            "nested",
            "READ_FILE",
            "Read_File",
            "read_file ",
            "unknown_tool",
            "",
        ]),
        "path" | "resource" | "constant" => strings(&[
            "/project/readme.md",
            "/project/drafts/x.md",
            "/project/../etc/passwd",
            "/project//readme.md",
            "/PROJECT/readme.md",
            "/etc/passwd",
            "/project/**",
            "*",
            "",
        ]),
        "argument" => strings(&["path", "target.path", "target", "missing", ""]),
        "method" => strings(&["tools/call", "tools/list", "Tools/call", "initialize"]),
        "jsonrpc" => strings(&["2.0", "1.0", ""]),
        "id" => vec![json!(1), json!("s"), json!(null), json!(1.5), json!(-1)],
        "action" => strings(&["read", "write", "delete", "search", "execute", "*", "Read"]),
        "namespace" => strings(&["docs", "web", "compute", "*", "Docs", ""]),
        "contractId" => strings(&["ct_00000000c0de", "ct_00000000c0df", ""]),
        "delegationId" | "parentDelegationId" => {
            strings(&["del_000000000001", "del_000000000002", ""])
        }
        "delegatee" | "issuer" | "trustedRoots" => sign::principals(&keys),
        "expiresAt" | "issuedAt" | "now" => sign::timestamps(),
        "spendPerCall" | "spend" | "maxBudgetMicrocents" | "chainDepth" | "maxChainDepth" => {
            sign::integers()
        }
        _ => Vec::new(),
    }
}

/// One structure-aware edit: in the call's `params` (tool name, arguments), in the decoded
/// token, or anywhere (config, `now`, JSON-RPC members).
pub fn random_edit(rng: &mut impl Entropy, view: &Value) -> Option<Edit> {
    let key = |k: &str| Seg::Key(k.to_owned());
    if rng.below(5) == 0 {
        // The tool name: another mapped tool, or a spelling variant of this one.
        let name_path = vec![key("request"), key("params"), key("name")];
        if let Some(Value::String(name)) = edit::get(view, &name_path) {
            let value = if rng.below(2) == 0 {
                Value::from(edit::tweak_string(rng, name))
            } else {
                rng.pick(&dictionary("name"))
                    .cloned()
                    .unwrap_or(Value::Null)
            };
            return Some(Edit::Set {
                path: name_path,
                value,
            });
        }
    }
    let prefix: Vec<Seg> = match rng.below(10) {
        0..=3 => vec![key("request"), key("params")],
        4..=6 => DCT.iter().map(|k| key(k)).chain([key("$token")]).collect(),
        _ => Vec::new(),
    };
    edit::random(rng, view, &prefix, &dictionary)
        .or_else(|| edit::random(rng, view, &[], &dictionary))
}

/// `mcp.call`: the call's token decoded, edited, re-signed; the reference's free text not
/// compared.
#[derive(Debug)]
pub struct Call;

impl super::Fuzzable for Call {
    fn name(&self) -> &'static str {
        "mcp.call"
    }

    fn view(&self, input: &Value) -> Value {
        view(input)
    }

    fn encode(&self, view: &Value, signing: Signing, keys: &Keys) -> Value {
        encode(view, signing, keys)
    }

    fn random_signing(&self, rng: &mut dyn Entropy) -> Signing {
        super::mostly_resigned(rng)
    }

    fn random_edit(&self, mut rng: &mut dyn Entropy, view: &Value, _input: &Value) -> Option<Edit> {
        random_edit(&mut rng, view)
    }

    fn comparable(&self, output: &Value) -> Value {
        comparable(output)
    }
}

/// The operations this family fuzzes (the registry takes those whose catalogue row names
/// `mcp`).
pub static FUZZABLE: &[&dyn super::Fuzzable] = &[&Call];

#[cfg(test)]
mod tests {
    use super::*;

    /// A body with a `detail` is not compared whole; one without is; `id` and `error` always.
    #[test]
    fn comparable_drops_only_bodies_with_free_text() {
        let error = json!({"code": -32001, "message": "DCT verification failed",
                           "data": {"type": "revoked"}});
        let mut with_detail = error.clone();
        with_detail["data"]["detail"] = json!("token revoked by the root");
        let deny = |e: &Value| {
            json!({"decision": "deny", "id": 1, "error": error.clone(),
                   "response": {"jsonrpc": "2.0", "id": 1, "error": e}})
        };
        assert_eq!(
            comparable(&deny(&with_detail)),
            json!({"decision": "deny", "id": 1, "error": error.clone()})
        );
        assert_eq!(comparable(&deny(&error)), deny(&error));
        let drop = json!({"decision": "drop", "data": {"type": "x", "detail": "text"}});
        assert_eq!(comparable(&drop), json!({"decision": "drop"}));
        let kept = json!({"decision": "drop", "data": {"type": "capability_not_granted"}});
        assert_eq!(comparable(&kept), kept);
        let forward = json!({"decision": "forward", "spend": 3});
        assert_eq!(comparable(&forward), forward);
    }
}
