//! `revocation.from_json`: the list's JSON text is parsed into its entries, which are
//! dropped, duplicated, reordered and changed, re-signed with the published keys (or not),
//! and written back as canonical text; text edits then reach the parser itself.

use serde_json::{json, Value};

use super::edit::{self, Edit};
use super::sign;
use super::text;
use super::Signing;
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::Seg;
use crate::keys::Keys;
use delegateos_reference::canonical::canonicalize;
use delegateos_reference::encoding::b64u_encode;

/// `{entries}` when the text is JSON, else `{raw}`.
pub fn view(input: &Value) -> Value {
    let text = input.get("json").and_then(Value::as_str).unwrap_or("");
    match serde_json::from_str::<Value>(text) {
        Ok(v) => json!({ "entries": v }),
        Err(_) => json!({ "raw": text }),
    }
}

/// The `{json}` input of a view: the entries (re-signed unless `Keep`) as canonical text.
pub fn encode(view: &Value, signing: Signing, keys: &Keys) -> Value {
    if let Some(raw) = view.get("raw") {
        return json!({ "json": raw });
    }
    let mut entries = view.get("entries").cloned().unwrap_or(Value::Null);
    if signing != Signing::Keep {
        if let Some(list) = entries.as_array_mut() {
            for e in list {
                sign::sign_entry(e, keys);
            }
        }
    }
    let text = canonicalize(&entries).unwrap_or_else(|_| entries.to_string());
    json!({ "json": text })
}

fn dictionary(key: &str) -> Vec<Value> {
    let keys = Keys::fixed();
    match key {
        "revocationId" => vec![
            Value::from(b64u_encode(&[0u8; 32])),
            Value::from(b64u_encode(&[0xffu8; 32])),
            Value::from(b64u_encode(&[1u8; 31])),
            Value::from(format!("{}=", b64u_encode(&[0u8; 32]))),
            Value::from(
                b64u_encode(&[0xfbu8; 32])
                    .replace('-', "+")
                    .replace('_', "/"),
            ),
            Value::from(""),
        ],
        "revokedBy" => {
            let mut v = sign::principals(&keys);
            v.push(Value::from(""));
            v
        }
        "revokedAt" => sign::timestamps(),
        "scope" => ["block", "chain", "Block", "CHAIN", "all", ""]
            .iter()
            .map(|s| Value::from(*s))
            .collect(),
        "signature" => vec![
            Value::from(""),
            Value::from("AAAA"),
            Value::from(b64u_encode(&[0u8; 64])),
        ],
        _ => Vec::new(),
    }
}

/// One edit: structured (an entry or member under `entries`) or textual (the `json` text).
pub fn random_edit(rng: &mut impl Entropy, view: &Value, input: &Value) -> Option<Edit> {
    if view.get("entries").is_some() && rng.below(3) != 0 {
        if let Some(e) = edit::random(rng, view, &[Seg::Key("entries".to_owned())], &dictionary) {
            return Some(e);
        }
    }
    let current = input.get("json").and_then(Value::as_str).unwrap_or("");
    Some(Edit::Text {
        path: vec![Seg::Key("json".to_owned())],
        text: text::random(rng, current),
    })
}

/// `revocation.from_json`: the list's JSON text parsed into its entries, re-signed.
#[derive(Debug)]
pub struct FromJson;

impl super::Fuzzable for FromJson {
    fn name(&self) -> &'static str {
        "revocation.from_json"
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

    fn edits_text(&self) -> bool {
        true
    }

    fn random_edit(&self, mut rng: &mut dyn Entropy, view: &Value, input: &Value) -> Option<Edit> {
        random_edit(&mut rng, view, input)
    }
}

/// The operations this family fuzzes (the registry takes those whose catalogue row names
/// `revocation`).
pub static FUZZABLE: &[&dyn super::Fuzzable] = &[&FromJson];
