//! `check.run` and `output.verify`: check names and spec methods, regex patterns (dialect
//! edges), JSON Schema fragments, thresholds and bounds, dot paths, and outputs of every JSON
//! type.

use serde_json::{json, Value};

use super::edit::{self, Edit};
use super::sign;
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::Seg;

fn strings(items: &[&str]) -> Vec<Value> {
    items.iter().map(|s| Value::from(*s)).collect()
}

fn dictionary(key: &str) -> Vec<Value> {
    match key {
        "name" | "check" => strings(&[
            "regex_match",
            "json_schema",
            "string_length",
            "array_length",
            "field_exists",
            "output_equals",
            "exit_code",
            "unknown_check",
            "Regex_Match",
            "",
        ]),
        "method" => strings(&[
            "schema_match",
            "deterministic_check",
            "composite",
            "llm_judge",
            "human_review",
            "Schema_Match",
            "",
        ]),
        "pattern" => strings(&[
            "^ok",
            "ok$",
            "^a|b$",
            "(?i)ok",
            "\\d+",
            "[[:alpha:]]",
            "a{2,}",
            "(a)\\1",
            "(?=o)k",
            "(?<=o)k",
            "\\p{L}+",
            "^.*$",
            "[",
            "a**",
            "\\",
            "(?P<n>a)",
            "é",
            "^\\w+$",
            "\\bok\\b",
            "",
        ]),
        "schema" | "outputSchema" | "items" | "additionalProperties" | "not" => vec![
            json!({"type": "object"}),
            json!({"type": "string", "pattern": "^ok"}),
            json!({"type": "integer"}),
            json!({"type": "number", "minimum": 0}),
            json!({"required": ["summary"]}),
            json!({"properties": {"summary": {"type": "string", "maxLength": 3}}}),
            json!({"enum": [1, "1", true]}),
            json!({"const": 1.0}),
            json!({"type": ["string", "null"]}),
            json!({"$ref": "#/definitions/x"}),
            json!({"type": "nonsense"}),
            json!({"format": "email"}),
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            json!(true),
            json!(false),
            json!([]),
        ],
        "mode" => strings(&["all_pass", "majority", "weighted", "any", "AllPass", ""]),
        "passThreshold" => vec![json!(0), json!(0.5), json!(1), json!(1.5), json!(-0.1)],
        "weights" => vec![
            json!([1]),
            json!([0.5, 0.5]),
            json!([0.3, 0.3, 0.4]),
            json!([1, 1]),
            json!([]),
        ],
        "flags" => strings(&["", "i", "m", "s", "u", "g", "y", "ii", "x"]),
        "checkName" => dictionary("name"),
        "type" => strings(&[
            "object", "array", "string", "integer", "number", "boolean", "null", "Object",
        ]),
        "required" => vec![
            json!([]),
            json!(["summary"]),
            json!(["summary", "summary"]),
            json!("summary"),
        ],
        "path" | "field" => strings(&[
            "summary",
            "a.b",
            "a..b",
            ".a",
            "a.",
            "0",
            "items.0",
            "__proto__",
            "length",
            "",
        ]),
        "min" | "max" | "minLength" | "maxLength" | "minItems" | "maxItems" | "minimum"
        | "maximum" | "threshold" | "expected" | "code" | "weight" | "score" => {
            let mut v = sign::integers();
            v.extend([json!(0.5), json!(0.999_999_999_9), json!(-0.0), json!(null)]);
            v
        }
        "output" | "value" => vec![
            json!("ok done"),
            json!("ok\n"),
            json!(""),
            json!("é"),
            json!("😀"),
            json!(0),
            json!(1.0),
            json!(true),
            json!(null),
            json!([]),
            json!([1, 2, 3]),
            json!({"summary": "ok"}),
            json!({"summary": 1}),
            json!({}),
        ],
        "checks" | "steps" => vec![
            json!([]),
            json!([{"name": "regex_match", "params": {"pattern": "^ok"}}]),
            json!([{"name": "string_length", "params": {"max": 3}}]),
        ],
        _ => Vec::new(),
    }
}

/// One structure-aware edit: half of them in the checked `output`, the rest anywhere
/// (check name, params, spec).
pub fn random_edit(rng: &mut impl Entropy, view: &Value) -> Option<Edit> {
    if rng.below(2) == 0 {
        let output = [Seg::Key("output".to_owned())];
        if let Some(e) = edit::random(rng, view, &output, &dictionary) {
            return Some(e);
        }
    }
    edit::random(rng, view, &[], &dictionary)
}

/// `check.run`.
#[derive(Debug)]
pub struct Run;

impl super::Fuzzable for Run {
    fn name(&self) -> &'static str {
        "check.run"
    }

    fn random_edit(&self, mut rng: &mut dyn Entropy, view: &Value, _input: &Value) -> Option<Edit> {
        random_edit(&mut rng, view)
    }
}

/// `output.verify` (the same check specs).
#[derive(Debug)]
pub struct OutputVerify;

impl super::Fuzzable for OutputVerify {
    fn name(&self) -> &'static str {
        "output.verify"
    }

    fn random_edit(&self, mut rng: &mut dyn Entropy, view: &Value, _input: &Value) -> Option<Edit> {
        random_edit(&mut rng, view)
    }
}

/// The operations this family fuzzes (the registry takes those whose catalogue row names
/// `checks`).
pub static FUZZABLE: &[&dyn super::Fuzzable] = &[&Run, &OutputVerify];
