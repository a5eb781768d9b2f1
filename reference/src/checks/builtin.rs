//! The seven built-in check functions of §6.2, with the parameter rules of D12.
//!
//! Parameter validation (any violation is `invalid_params`):
//! - `params` must be a JSON object (absent or `null` only where every key is optional:
//!   `string_length`, `array_length`), and **unknown keys are rejected** so that a typo such as
//!   `flag` for `flags` cannot silently weaken a check.
//! - `regex_match`: `pattern` string (required), `flags` string, `field` string; see
//!   [`super::ecma_regex`] for the pattern grammar, flag allow-list and limits.
//! - `json_schema`: `schema` (required) object or boolean; see [`super::schema`].
//! - `string_length`, `array_length`: `min`, `max` non-negative integers ≤ 2^53−1 (a JSON number
//!   with zero fraction, so `3.0` is accepted), `min > max` rejected; `field` string.
//! - `field_exists`: `fields` (required) array of strings; an empty array passes.
//! - `exit_code`: `expected` (required) a JSON number; compared numerically (JavaScript `===`).
//! - `output_equals`: `expected` (required, may be `null`).
//!
//! Output handling:
//! - `field` and `fields` are dot-paths over **own JSON keys only**: objects by key, arrays by
//!   canonical decimal index (`0`, `12`; not `01`, `-1`, `length`); strings, numbers, booleans
//!   and `null` have no members. `__proto__`, `constructor` are ordinary keys. A present `null`
//!   exists. The path is split on every `.`, so `""` names the key `""`.
//! - A value that is missing, or of the wrong type for the check (`regex_match` and
//!   `string_length` need a string, `array_length` an array, `exit_code` an object whose own
//!   `exitCode` is a number), makes the check fail (`passed: false`), never error.
//! - Lengths: `string_length` counts UTF-16 code units (JavaScript `.length`).
//! - `output_equals` compares RFC 8785 canonical forms, so `1`, `1.0` and `1e0` are equal.
//!
//! Every built-in reports `score` 1.0 on pass and 0.0 on fail, and `details` only on failure.

use serde_json::{Map, Value};

use super::ecma_regex::EcmaRegex;
use super::{schema, CheckError, CheckFunction, CheckResult};
use crate::canonical::{canonical_bytes, CanonError};

/// Name and function of every built-in, in §6.2 order.
pub const BUILTINS: &[(&str, CheckFunction)] = &[
    ("regex_match", regex_match),
    ("json_schema", json_schema),
    ("string_length", string_length),
    ("array_length", array_length),
    ("field_exists", field_exists),
    ("exit_code", exit_code),
    ("output_equals", output_equals),
];

/// Largest integer a JavaScript number represents exactly.
const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

fn invalid(msg: impl Into<String>) -> CheckError {
    CheckError::InvalidParams(msg.into())
}

/// The params object, checked against the allowed keys. `None`/`null` is an empty object: a
/// check whose params are required then refuses it for the missing member.
fn params_object<'a>(
    check: &str,
    params: Option<&'a Value>,
    allowed: &[&str],
) -> Result<Option<&'a Map<String, Value>>, CheckError> {
    let obj = match params {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(invalid(format!("{check}: params must be an object"))),
    };
    if let Some(k) = obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(format!("{check}: unknown param '{k}'")));
    }
    Ok(Some(obj))
}

fn opt_string<'a>(
    check: &str,
    obj: Option<&'a Map<String, Value>>,
    key: &str,
) -> Result<Option<&'a str>, CheckError> {
    match obj.and_then(|o| o.get(key)) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(format!("{check}: '{key}' must be a string"))),
    }
}

fn opt_count(
    check: &str,
    obj: Option<&Map<String, Value>>,
    key: &str,
) -> Result<Option<u64>, CheckError> {
    let Some(v) = obj.and_then(|o| o.get(key)) else {
        return Ok(None);
    };
    let bad = || invalid(format!("{check}: '{key}' must be a non-negative integer"));
    if let Some(n) = v.as_u64() {
        return if n <= MAX_SAFE_INTEGER {
            Ok(Some(n))
        } else {
            Err(bad())
        };
    }
    match v.as_f64() {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Some(f) if f.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER as f64).contains(&f) => {
            Ok(Some(f as u64))
        }
        _ => Err(bad()),
    }
}

/// Resolves a dot-path over own JSON keys (see the module doc).
pub fn resolve_path<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = value;
    for seg in path.split('.') {
        cur = match cur {
            Value::Object(m) => m.get(seg)?,
            Value::Array(a) => a.get(array_index(seg)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// A canonical decimal array index: `0` or a digit string without a leading zero.
fn array_index(seg: &str) -> Option<usize> {
    let canonical = seg == "0"
        || (!seg.is_empty() && !seg.starts_with('0') && seg.bytes().all(|b| b.is_ascii_digit()));
    if canonical {
        seg.parse().ok()
    } else {
        None
    }
}

/// The value a check applies to: the whole output, or `output[field]`.
fn target<'a>(output: &'a Value, field: Option<&str>) -> Result<&'a Value, CheckResult> {
    match field {
        None => Ok(output),
        Some(f) => resolve_path(output, f)
            .ok_or_else(|| CheckResult::fail(format!("field '{f}' does not exist"))),
    }
}

fn describe(field: Option<&str>) -> String {
    field.map_or_else(|| "output".to_owned(), |f| format!("field '{f}'"))
}

/// `regex_match { pattern, flags?, field? }`.
pub fn regex_match(output: &Value, params: Option<&Value>) -> Result<CheckResult, CheckError> {
    const C: &str = "regex_match";
    let obj = params_object(C, params, &["pattern", "flags", "field"])?;
    let pattern = opt_string(C, obj, "pattern")?
        .ok_or_else(|| invalid("regex_match: 'pattern' is required"))?;
    let flags = opt_string(C, obj, "flags")?.unwrap_or("");
    let field = opt_string(C, obj, "field")?;
    let cached = crate::faults::regex_by_name(pattern, flags);
    let (pattern, flags) = cached
        .as_ref()
        .map_or((pattern, flags), |(p, f)| (p.as_str(), f.as_str()));
    let re = EcmaRegex::new(pattern, flags)?;
    let subject = match target(output, field) {
        Ok(Value::String(s)) => s,
        Ok(_) => {
            return Ok(CheckResult::fail(format!(
                "{} is not a string",
                describe(field)
            )))
        }
        Err(fail) => return Ok(fail),
    };
    let matched = re.is_match(subject)?;
    Ok(CheckResult::from_bool(matched, || {
        format!("{} does not match /{pattern}/{flags}", describe(field))
    }))
}

/// `json_schema { schema }`.
pub fn json_schema(output: &Value, params: Option<&Value>) -> Result<CheckResult, CheckError> {
    const C: &str = "json_schema";
    let obj = params_object(C, params, &["schema"])?;
    let schema = obj
        .and_then(|o| o.get("schema"))
        .ok_or_else(|| invalid("json_schema: 'schema' is required"))?;
    schema::validate(schema, output)
}

fn length_check(
    check: &str,
    output: &Value,
    params: Option<&Value>,
    measure: fn(&Value) -> Option<u64>,
    kind: &str,
) -> Result<CheckResult, CheckError> {
    let obj = params_object(check, params, &["min", "max", "field"])?;
    let min = opt_count(check, obj, "min")?;
    let max = opt_count(check, obj, "max")?;
    let field = opt_string(check, obj, "field")?;
    if let (Some(lo), Some(hi)) = (min, max) {
        if lo > hi {
            return Err(invalid(format!(
                "{check}: min {lo} is greater than max {hi}"
            )));
        }
    }
    let value = match target(output, field) {
        Ok(v) => v,
        Err(fail) => return Ok(fail),
    };
    let Some(len) = measure(value) else {
        return Ok(CheckResult::fail(format!(
            "{} is not {kind}",
            describe(field)
        )));
    };
    let ok = min.iter().all(|&lo| len >= lo) && max.iter().all(|&hi| len <= hi);
    Ok(CheckResult::from_bool(ok, || {
        let lo = min.map_or_else(|| "0".to_owned(), |v| v.to_string());
        let hi = max.map_or_else(|| "∞".to_owned(), |v| v.to_string());
        format!(
            "length {len} of {} is outside [{lo}, {hi}]",
            describe(field)
        )
    }))
}

/// UTF-16 length of a string value.
fn utf16_len(v: &Value) -> Option<u64> {
    if crate::faults::on("check.string-length-utf8-bytes") {
        return v.as_str().map(|s| s.len() as u64);
    }
    v.as_str().map(|s| s.encode_utf16().count() as u64)
}

fn array_len(v: &Value) -> Option<u64> {
    v.as_array().map(|a| a.len() as u64)
}

/// `string_length { min?, max?, field? }` in UTF-16 code units.
pub fn string_length(output: &Value, params: Option<&Value>) -> Result<CheckResult, CheckError> {
    length_check("string_length", output, params, utf16_len, "a string")
}

/// `array_length { min?, max?, field? }`.
pub fn array_length(output: &Value, params: Option<&Value>) -> Result<CheckResult, CheckError> {
    length_check("array_length", output, params, array_len, "an array")
}

/// `field_exists { fields }`.
pub fn field_exists(output: &Value, params: Option<&Value>) -> Result<CheckResult, CheckError> {
    const C: &str = "field_exists";
    let obj = params_object(C, params, &["fields"])?;
    let bad = || invalid("field_exists: 'fields' must be an array of strings");
    let fields = obj
        .and_then(|o| o.get("fields"))
        .ok_or_else(bad)?
        .as_array()
        .ok_or_else(bad)?;
    let mut missing = Vec::new();
    for f in fields {
        let f = f.as_str().ok_or_else(bad)?;
        if resolve_path(output, f).is_none() {
            missing.push(f);
        }
    }
    Ok(CheckResult::from_bool(missing.is_empty(), || {
        format!("missing fields: {}", missing.join(", "))
    }))
}

/// `exit_code { expected }` against `output.exitCode`.
pub fn exit_code(output: &Value, params: Option<&Value>) -> Result<CheckResult, CheckError> {
    const C: &str = "exit_code";
    let obj = params_object(C, params, &["expected"])?;
    let expected = obj
        .and_then(|o| o.get("expected"))
        .and_then(Value::as_f64)
        .filter(|f| f.fract() == 0.0)
        .ok_or_else(|| invalid("exit_code: 'expected' must be an integer (D28)"))?;
    let Some(actual) = output
        .as_object()
        .and_then(|o| o.get("exitCode"))
        .and_then(Value::as_f64)
    else {
        return Ok(CheckResult::fail("output has no numeric exitCode"));
    };
    #[allow(clippy::float_cmp)]
    let equal = actual == expected;
    Ok(CheckResult::from_bool(equal, || {
        format!("exitCode {actual} != expected {expected}")
    }))
}

/// `output_equals { expected }` by RFC 8785 canonical form.
pub fn output_equals(output: &Value, params: Option<&Value>) -> Result<CheckResult, CheckError> {
    const C: &str = "output_equals";
    let obj = params_object(C, params, &["expected"])?;
    let expected = obj
        .and_then(|o| o.get("expected"))
        .ok_or_else(|| invalid("output_equals: 'expected' is required"))?;
    let equal = canonical_eq(output, expected)?;
    Ok(CheckResult::from_bool(equal, || {
        "output differs from expected".to_owned()
    }))
}

/// Equality of RFC 8785 canonical forms.
pub fn canonical_eq(a: &Value, b: &Value) -> Result<bool, CheckError> {
    let enc = |v: &Value| {
        canonical_bytes(v).map_err(|CanonError(e)| {
            CheckError::InvalidParams(format!("value cannot be canonicalized: {e}"))
        })
    };
    Ok(enc(a)? == enc(b)?)
}
