//! RFC 8785 (JCS) canonical JSON, spec §1.2.
//!
//! Owns only the `Value` → canonical text step, delegated to `serde_json_canonicalizer`
//! (measured correct on all RFC 8785 data and 1M ES6 number lines, research §1). Parsing
//! untrusted bytes is [`crate::json`]'s job; numbers must have been parsed with serde_json's
//! `float_roundtrip` feature (enabled in the workspace manifest) for the bytes to agree with JS.

use serde_json::Value;

/// Canonicalization failed (only possible for values serde_json cannot hold after strict
/// parsing, e.g. raw fragments; kept as an error so no caller has to unwrap).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot canonicalize: {0}")]
pub struct CanonError(pub String);

/// Returns the RFC 8785 canonical text of `value`.
pub fn canonicalize(value: &Value) -> Result<String, CanonError> {
    if crate::faults::on("canonical-json.keys-by-code-point") {
        return mistakes::keys_by_code_point(value).map(crate::faults::ascii_escaped);
    }
    let mut out = String::new();
    if !write_fast(value, &mut out) {
        out = serde_json_canonicalizer::to_string(value).map_err(|e| CanonError(e.to_string()))?;
    }
    Ok(crate::faults::ascii_escaped(out))
}

/// Largest integer written by the fast path: every integer up to 2^53 is an exact f64 and ES6
/// prints it as its decimal digits.
const FAST_MAX_INT: u64 = 1 << 53;

/// The fast path of [`canonicalize`] for the values protocol objects hold: objects whose keys
/// are all ASCII and iterate in ascending order, strings, integers in 0..=2^53, booleans, null. Returns false (and the caller
/// uses the general canonicalizer) on anything else: a non-ASCII key (UTF-16 key order may then
/// differ from the map's byte order), a negative, fractional or larger number.
///
/// Why it is RFC 8785: the map iterates keys in byte order, which for ASCII keys is the UTF-16
/// code-unit order §3.2.3 asks for; serde_json escapes strings exactly as §3.2.2.2 (ES6
/// `JSON.stringify`): `\"`, `\\`, `\b \t \n \f \r`, other controls as lowercase `\u00xx`, nothing
/// else; integers up to 2^53 print as ES6 prints them. `canonical::tests` checks it against
/// the general canonicalizer.
fn write_fast(value: &Value, out: &mut String) -> bool {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_u64() {
            Some(x) if x <= FAST_MAX_INT => {
                use std::fmt::Write;
                // Writing to a String cannot fail.
                let _ = write!(out, "{x}");
            }
            _ => return false,
        },
        Value::String(s) => push_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                if !write_fast(item, out) {
                    return false;
                }
            }
            out.push(']');
        }
        Value::Object(map) => {
            // ASCII keys, already in ascending order (serde_json's map is sorted unless a
            // dependency enables `preserve_order`; then an unsorted map takes the general path).
            let mut prev: Option<&String> = None;
            for k in map.keys() {
                if !k.is_ascii() || prev.is_some_and(|p| p >= k) {
                    return false;
                }
                prev = Some(k);
            }
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_string(k, out);
                out.push(':');
                if !write_fast(v, out) {
                    return false;
                }
            }
            out.push('}');
        }
    }
    true
}

/// Appends `s` as a JSON string with ES6 `JSON.stringify` escaping. Runs of bytes that need no
/// escape are copied at once; every byte that needs one is ASCII, so the runs end on char
/// boundaries.
fn push_json_string(s: &str, out: &mut String) {
    out.push('"');
    let mut run_start = 0;
    for (i, b) in s.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0c => "\\f",
            b'\r' => "\\r",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(s.get(run_start..i).unwrap_or_default());
        run_start = i + 1;
        if escape.is_empty() {
            use std::fmt::Write;
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
    }
    out.push_str(s.get(run_start..).unwrap_or_default());
    out.push('"');
}

/// Returns the RFC 8785 canonical UTF-8 bytes of `value`.
pub fn canonical_bytes(value: &Value) -> Result<Vec<u8>, CanonError> {
    serde_json_canonicalizer::to_vec(value).map_err(|e| CanonError(e.to_string()))
}

/// The payload a signed object's `signature` covers: the canonical text of all its members
/// except `signature` (contracts and attestations). `None` when `value` is not an object.
pub fn signing_payload(value: &Value) -> Option<Result<String, CanonError>> {
    let mut obj = value.as_object()?.clone();
    obj.remove("signature");
    Some(canonicalize(&Value::Object(obj)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::parse_strict;

    fn canon(s: &str) -> String {
        canonicalize(&parse_strict(s.as_bytes()).unwrap()).unwrap()
    }

    #[test]
    fn rfc8785_numbers_and_ordering() {
        assert_eq!(
            canon(
                r#"{"numbers":[333333333.33333329,1E30,4.50,2e-3,0.000000000000000000000000001]}"#
            ),
            r#"{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27]}"#
        );
        assert_eq!(canon(r#"{"n":-0}"#), r#"{"n":0}"#);
        assert_eq!(
            canon(r#"{"n":9007199254740993}"#),
            r#"{"n":9007199254740992}"#
        );
        assert_eq!(
            canon(r#"{"\ue000":1,"\ud800\udc00":2}"#),
            "{\"\u{10000}\":2,\"\u{e000}\":1}"
        );
        assert_eq!(
            canon(r#"{"b":[1,{"d":1,"c":2}],"a":"\u2028\u007f\/\u001f"}"#),
            "{\"a\":\"\u{2028}\u{7f}/\\u001f\",\"b\":[1,{\"c\":2,\"d\":1}]}"
        );
    }

    fn general(v: &Value) -> String {
        serde_json_canonicalizer::to_string(v).unwrap()
    }

    #[test]
    fn fast_path_matches_the_general_canonicalizer() {
        for text in [
            r#"{"b":"\u0000\u0001\u001f\b\t\n\f\r\"\\/\u007f\u2028é😀","a":[1,2,9007199254740992,0,true,false,null],"Z":{},"_":[]}"#,
            r#"{"a":9007199254740993}"#,
            r#"{"é":1,"e":2}"#,
            r#"{"n":-1,"f":1.5,"e":1e30}"#,
            r#"["x",{"k":"v"}]"#,
        ] {
            let v = parse_strict(text.as_bytes()).unwrap();
            assert_eq!(canonicalize(&v).unwrap(), general(&v), "{text}");
        }
    }

    fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(|n| Value::from(n >> (n % 64))),
            any::<i64>().prop_map(Value::from),
            any::<String>().prop_map(Value::String),
            "[ -~\\u{0}-\\u{1f}\\u{7f}\\u{e000}\\u{10000}]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                proptest::collection::btree_map(
                    prop_oneof!["[a-zA-Z_\\\\\"]{0,5}", any::<String>()],
                    inner,
                    0..5
                )
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn fast_path_agrees_on_random_values(v in json_value()) {
            proptest::prop_assert_eq!(canonicalize(&v).unwrap(), general(&v));
        }
    }
}

/// The catalogue's mistake at this step (`spec/faults.md`), computed only when its fault is on.
mod mistakes {
    use super::CanonError;
    use serde_json::Value;

    /// RFC 8785 text except that object keys are sorted by code point (Python's
    /// `sorted(dict)`, Rust's `str` order), not by UTF-16 code unit
    /// (`canonical-json.keys-by-code-point`): the two orders differ for keys with characters
    /// above U+FFFF against characters in U+E000..U+FFFF.
    pub(super) fn keys_by_code_point(value: &Value) -> Result<String, CanonError> {
        let text = |v: &Value| {
            serde_json_canonicalizer::to_string(v).map_err(|e| CanonError(e.to_string()))
        };
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let mut parts = Vec::with_capacity(keys.len());
                for k in keys {
                    let member = &map[k.as_str()];
                    parts.push(format!(
                        "{}:{}",
                        text(&Value::String(k.clone()))?,
                        keys_by_code_point(member)?
                    ));
                }
                Ok(format!("{{{}}}", parts.join(",")))
            }
            Value::Array(items) => {
                let parts = items
                    .iter()
                    .map(keys_by_code_point)
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(format!("[{}]", parts.join(",")))
            }
            other => text(other),
        }
    }
}
