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
    serde_json_canonicalizer::to_string(value).map_err(|e| CanonError(e.to_string()))
}

/// Returns the RFC 8785 canonical UTF-8 bytes of `value`.
pub fn canonical_bytes(value: &Value) -> Result<Vec<u8>, CanonError> {
    serde_json_canonicalizer::to_vec(value).map_err(|e| CanonError(e.to_string()))
}

/// Canonicalizes any serializable value (via `serde_json::Value` semantics).
pub fn canonicalize_serialize<T: serde::Serialize>(value: &T) -> Result<String, CanonError> {
    serde_json_canonicalizer::to_string(value).map_err(|e| CanonError(e.to_string()))
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
}
