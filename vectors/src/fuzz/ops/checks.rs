//! `check.run` and `output.verify`: check names and spec methods, regex patterns (dialect
//! edges), JSON Schema fragments, thresholds and bounds, dot paths, and outputs of every JSON
//! type.

use delegateos_reference::ops::Outcome;
use serde_json::{json, Value};

use super::edit::{self, Edit};
use super::sign;
use crate::format::{Expectation, Expected};
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::Seg;
use crate::fuzz::seed::{expected_of, OpSeed};

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

/// JavaScript's `String(value)` for a value of parsed JSON (ECMA-262 ToString; an array joins
/// its elements' strings with `,`, `null` elements empty), where it is computed exactly: a
/// number as RFC 8785 writes it (ECMAScript's Number::toString, after `JSON.parse`'s rounding
/// to a double), a plain object `[object Object]`. `None` where this cannot be sure: an object
/// with its own `toString` or `valueOf` member (JavaScript would call it, or throw).
pub fn js_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Null => Some("null".to_owned()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => {
            let double = Value::from(n.as_f64()?);
            delegateos_reference::canonical::canonicalize(&double).ok()
        }
        Value::Array(items) => {
            let parts: Option<Vec<String>> = items
                .iter()
                .map(|v| match v {
                    Value::Null => Some(String::new()),
                    other => js_string(other),
                })
                .collect();
            Some(parts?.join(","))
        }
        Value::Object(m) => (!m.contains_key("toString") && !m.contains_key("valueOf"))
            .then(|| "[object Object]".to_owned()),
    }
}

/// The members a plain object inherits from `Object.prototype`: `output[field]` finds them
/// where the output has no own member of that name.
const INHERITED: &[&str] = &[
    "constructor",
    "hasOwnProperty",
    "isPrototypeOf",
    "propertyIsEnumerable",
    "toLocaleString",
    "toString",
    "valueOf",
    "__proto__",
    "__defineGetter__",
    "__defineSetter__",
    "__lookupGetter__",
    "__lookupSetter__",
];

/// D12's other reading of a `regex_match` input: §6.2 tests with `new RegExp(pattern,
/// flags).test(subject)`, which stringifies a subject that is not a string, where our reading
/// never does (`passed: false`). `Some(None)`: the subject is a string, D12 does not apply;
/// `Some(Some(answer))`: the reference's answer on the input with the subject — the output,
/// or the value its `field` path resolves to over own members, or `undefined` for a one-member
/// `field` an object output neither has nor inherits — replaced by its JavaScript string
/// ([`js_string`]). `None` for another check, and where the other reading is not computed
/// exactly (a path JavaScript might resolve otherwise, through inherited members or on a
/// non-object; a subject whose string it is not sure of).
pub fn d12_reading(input: &Value) -> Option<Option<Outcome>> {
    if input.get("name")?.as_str()? != "regex_match" {
        return None;
    }
    let field = match input.get("params")?.get("field") {
        None => None,
        Some(Value::String(f)) => Some(f.as_str()),
        Some(_) => return None,
    };
    let output = input.get("output")?;
    let undefined = Value::String("undefined".to_owned());
    let subject = match field {
        None => output,
        Some(f) => match delegateos_reference::checks::builtin::resolve_path(output, f) {
            Some(v) => v,
            None if !f.contains('.') && output.is_object() && !INHERITED.contains(&f) => &undefined,
            None => return None,
        },
    };
    if subject.is_string() && !std::ptr::eq(subject, &undefined) {
        return Some(None);
    }
    let text = Value::from(js_string(subject)?);
    let mut stringified = input.clone();
    let slot = stringified.get_mut("output")?;
    match field {
        None => *slot = text,
        Some(f) => {
            let mut segs: Vec<&str> = f.split('.').collect();
            let last = segs.pop()?;
            let parent = segs.into_iter().try_fold(slot, |v, seg| match v {
                Value::Object(m) => m.get_mut(seg),
                Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get_mut(i)),
                _ => None,
            })?;
            match parent {
                Value::Object(m) => {
                    m.insert(last.to_owned(), text);
                }
                Value::Array(a) => *a.get_mut(last.parse::<usize>().ok()?)? = text,
                _ => return None,
            }
        }
    }
    Some(Some(delegateos_reference::ops::run(
        "check.run",
        &stringified,
    )))
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

    /// A `regex_match` the reference accepts is held to D12's readings of its subject
    /// ([`d12_reading`]), computed for this input rather than carried over from its seed: the
    /// reference's answer alone for a string subject, and beside it, for one that is (still, or
    /// now) not a string, the stringified reading where it answers otherwise — as the corpus
    /// holds such cases (`checks-regex_match-0122`–`0134`). Elsewhere (another check, a
    /// refusal, a reading not computed exactly) as every operation ([`super::op_expectation`]).
    fn expectation(
        &self,
        seed: &OpSeed,
        input: &Value,
        reference: &Outcome,
    ) -> Option<Expectation> {
        let reading = match reference {
            Outcome::Ok { .. } => d12_reading(input),
            _ => None,
        };
        let Some(reading) = reading else {
            return super::op_expectation(self, seed, input, reference);
        };
        let ours = super::comparable_outcome(self, reference);
        let first = expected_of(&ours)?;
        match reading
            .map(|o| super::comparable_outcome(self, &o))
            .as_ref()
            .and_then(expected_of)
        {
            Some(other @ Expected::Valid { .. }) if other != first => {
                Some(Expectation::Acceptable {
                    outcomes: vec![first, other],
                    decision: D12.to_owned(),
                })
            }
            _ => crate::differential::expectation_of(&ours),
        }
    }
}

/// The decision on how checks read their inputs (`spec/decisions.md` D12).
const D12: &str = "D12";

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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::fuzz::expect::{candidate, seeds};
    use crate::fuzz::ops::{Changes, Signing};
    use crate::keys::Keys;

    /// JavaScript's `String` of parsed JSON, as V8 prints it (`String(JSON.parse(text))`).
    #[test]
    fn js_string_is_javascripts() {
        for (json, js) in [
            ("1.0", "1"),
            ("-0.0", "0"),
            ("1e21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("0.1", "0.1"),
            ("1e-7", "1e-7"),
            ("123", "123"),
            ("9007199254740993", "9007199254740992"),
            ("true", "true"),
            ("null", "null"),
            ("[]", ""),
            ("[1, null, [2, \"a\"], {}]", "1,,2,a,[object Object]"),
            ("{\"a\": 1}", "[object Object]"),
        ] {
            let v: Value = serde_json::from_str(json).unwrap();
            assert_eq!(js_string(&v).as_deref(), Some(js), "{json}");
        }
        // JavaScript would call the member (or throw): not computed.
        assert_eq!(js_string(&json!({"toString": 1})), None);
        assert_eq!(js_string(&json!([{"valueOf": 1}])), None);
    }

    #[test]
    fn the_stringified_reading_tests_the_subjects_javascript_string() {
        let run = |input: Value| d12_reading(&input);
        let passed = |o: Option<Option<Outcome>>| match o {
            Some(Some(Outcome::Ok { output })) => Some(output["passed"].clone()),
            _ => None,
        };
        let digit = json!({"pattern": "^\\d+$"});
        assert_eq!(
            passed(run(
                json!({"name": "regex_match", "output": 123, "params": digit})
            )),
            Some(json!(true))
        );
        assert_eq!(
            passed(run(
                json!({"name": "regex_match", "output": {"a": {"b": 1.0}}, "params": {"field": "a.b", "pattern": "^1$"}})
            )),
            Some(json!(true))
        );
        // A member the output lacks is `undefined`.
        assert_eq!(
            passed(run(
                json!({"name": "regex_match", "output": {"a": 1}, "params": {"field": "b", "pattern": "^undefined$"}})
            )),
            Some(json!(true))
        );
        // A string subject: no other reading.
        assert_eq!(
            run(json!({"name": "regex_match", "output": "123", "params": digit})),
            Some(None)
        );
        assert_eq!(
            run(
                json!({"name": "regex_match", "output": {"s": "undefined"}, "params": {"field": "s", "pattern": "x"}})
            ),
            Some(None)
        );
        // Not computed: another check, an inherited member, a path through a non-object.
        assert_eq!(
            run(json!({"name": "string_length", "output": 123, "params": {"max": 3}})),
            None
        );
        assert_eq!(
            run(
                json!({"name": "regex_match", "output": {}, "params": {"field": "toString", "pattern": "x"}})
            ),
            None
        );
    }

    /// An edited D12 seed whose subject stays a non-string is held to both readings when they
    /// differ, and to ours alone when they agree; an edit that makes the subject a string
    /// leaves no decision open.
    #[test]
    fn an_edited_seed_keeps_d12_open_while_it_applies() {
        let keys = Keys::fixed();
        let all = seeds(&Run, None, &keys);
        let i = all
            .iter()
            .position(|s| s.origin == "checks-regex_match-0130")
            .expect("the seed: output 123, pattern 1");
        let set = |value: Value| Changes {
            signing: Signing::Keep,
            mutations: Vec::new(),
            edits: vec![Edit::Set {
                path: vec![Seg::Key("output".to_owned())],
                value,
            }],
        };
        let both = candidate(&Run, &all, i, set(json!(10)), &keys);
        match &both.expectation {
            Some(Expectation::Acceptable { outcomes, decision }) => {
                assert_eq!(decision, D12);
                let passed: Vec<&Value> = outcomes
                    .iter()
                    .filter_map(|o| match o {
                        Expected::Valid { output } => output.get("passed"),
                        Expected::Invalid { .. } => None,
                    })
                    .collect();
                assert_eq!(passed, [&json!(false), &json!(true)], "{outcomes:?}");
            }
            other => panic!("{other:?}"),
        }
        let single = |c: &crate::fuzz::expect::Candidate| match &c.expectation {
            Some(Expectation::Valid { output }) => output["passed"].clone(),
            other => panic!("{other:?}"),
        };
        let agree = candidate(&Run, &all, i, set(json!(22)), &keys);
        assert_eq!(single(&agree), json!(false));
        let string = candidate(&Run, &all, i, set(json!("10")), &keys);
        assert_eq!(single(&string), json!(true));
    }

    /// An unchanged seed whose case accepts another reading of D12 is held to exactly the
    /// outcomes its case states: for `regex_match` the computed reading reproduces the corpus's
    /// own (`checks-regex_match-0122`–`0134`, written by hand from V8), for the others the
    /// seed's are carried (its `score: 0` is the reference's `0.0`).
    #[test]
    fn the_computed_reading_is_the_corpus_reading_on_its_seeds() {
        let keys = Keys::fixed();
        let all = seeds(&Run, None, &keys);
        let mut n = 0;
        for (i, s) in all.iter().enumerate() {
            let Expectation::Acceptable { outcomes, decision } = &s.expect else {
                continue;
            };
            if decision != D12 || !matches!(outcomes.first(), Some(Expected::Valid { .. })) {
                continue;
            }
            let regex = s.view["name"] == "regex_match";
            let unchanged = Changes {
                signing: Signing::Keep,
                mutations: Vec::new(),
                edits: Vec::new(),
            };
            let c = candidate(&Run, &all, i, unchanged, &keys);
            let Some(Expectation::Acceptable { outcomes: ours, .. }) = &c.expectation else {
                panic!("{}: {:?}", s.origin, c.expectation);
            };
            assert_eq!(ours.len(), outcomes.len(), "{}", s.origin);
            for (a, b) in ours.iter().zip(outcomes) {
                match (a, b) {
                    (Expected::Valid { output: a }, Expected::Valid { output: b }) => {
                        assert!(crate::judge::json_equal(a, b), "{}: {a} vs {b}", s.origin);
                    }
                    _ => panic!("{}: {a:?} vs {b:?}", s.origin),
                }
            }
            n += usize::from(regex);
        }
        assert!(n >= 9, "only {n} D12 seeds of regex_match");
    }
}
