//! `json.canonicalize`: JSON text edits of `text` (number spellings, escapes, duplicate keys,
//! nesting, unicode, BOM, trailing garbage).

use serde_json::Value;

use super::edit::Edit;
use super::text;
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::Seg;

/// One text edit of the input's `text`.
pub fn random_edit(rng: &mut impl Entropy, input: &Value) -> Option<Edit> {
    let current = input.get("text").and_then(Value::as_str).unwrap_or("");
    Some(Edit::Text {
        path: vec![Seg::Key("text".to_owned())],
        text: text::random(rng, current),
    })
}

/// `json.canonicalize`.
#[derive(Debug)]
pub struct Canonicalize;

impl super::Fuzzable for Canonicalize {
    fn name(&self) -> &'static str {
        "json.canonicalize"
    }

    fn edits_text(&self) -> bool {
        true
    }

    fn random_edit(&self, mut rng: &mut dyn Entropy, _view: &Value, input: &Value) -> Option<Edit> {
        random_edit(&mut rng, input)
    }
}

/// The operations this family fuzzes (the registry takes those whose catalogue row names
/// `canonical`).
pub static FUZZABLE: &[&dyn super::Fuzzable] = &[&Canonicalize];
