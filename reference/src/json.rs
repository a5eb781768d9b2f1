//! Strict JSON decoding for everything the protocol signs or hashes.
//!
//! This module owns the byte-to-`Value` step and nothing after it: it rejects a byte-order
//! mark, invalid UTF-8, lone surrogates, duplicate object keys at any depth, nesting deeper
//! than [`MAX_DEPTH`] and trailing non-whitespace data. serde_json's `Value` silently keeps
//! the last duplicate key (as `JSON.parse` does), which would let two parsers see two
//! different tokens in the same bytes, so objects are built by our own visitor instead.
//! Schema checks (which fields, which types) belong to the callers (`token`, `revocation`).

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::Cell;
use std::fmt;

/// Maximum container nesting: the top-level object or array is depth 1.
///
/// A token needs 4 (token → authority → capabilities → capability); 32 leaves room for
/// contract outputs while staying far below serde_json's recursion limit of 128.
pub const MAX_DEPTH: usize = 32;

/// Why strict parsing failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JsonError {
    /// The input starts with a UTF-8 byte-order mark (JS `TextDecoder` strips it silently).
    #[error("byte-order mark before JSON text")]
    Bom,
    /// The input is not valid UTF-8.
    #[error("invalid UTF-8")]
    InvalidUtf8,
    /// An object repeats a key.
    #[error("duplicate object key {0:?}")]
    DuplicateKey(String),
    /// Containers nest deeper than [`MAX_DEPTH`].
    #[error("nesting deeper than {MAX_DEPTH}")]
    TooDeep,
    /// Non-whitespace data follows the JSON value.
    #[error("trailing data after JSON value")]
    TrailingData,
    /// Any other syntax error (includes lone surrogates and out-of-range numbers).
    #[error("invalid JSON: {0}")]
    Syntax(String),
}

#[derive(Clone, Copy)]
enum Reason {
    Dup,
    Deep,
}

struct ValueSeed<'a> {
    depth: usize,
    // The visitor can only return serde errors; the precise reason travels beside them.
    reason: &'a Cell<Option<Reason>>,
    dup_key: &'a Cell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("non-finite number"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let depth = self.depth + 1;
        if depth > MAX_DEPTH {
            self.reason.set(Some(Reason::Deep));
            return Err(A::Error::custom("too deep"));
        }
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(ValueSeed {
            depth,
            reason: self.reason,
            dup_key: self.dup_key,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let depth = self.depth + 1;
        if depth > MAX_DEPTH {
            self.reason.set(Some(Reason::Deep));
            return Err(A::Error::custom("too deep"));
        }
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) && crate::faults::off("json.duplicate-members-last-wins") {
                self.reason.set(Some(Reason::Dup));
                self.dup_key.set(Some(key));
                return Err(A::Error::custom("duplicate key"));
            }
            let v = map.next_value_seed(ValueSeed {
                depth,
                reason: self.reason,
                dup_key: self.dup_key,
            })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Parses one JSON value from `bytes` under the strict profile described in the module docs.
pub fn parse_strict(bytes: &[u8]) -> Result<Value, JsonError> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(JsonError::Bom);
    }
    if std::str::from_utf8(bytes).is_err() {
        return Err(JsonError::InvalidUtf8);
    }
    // A parser that takes `NaN`, `Infinity` and out-of-range numbers as numbers
    // (`json.non-finite-numbers-accepted`); the reference's values cannot hold them, so it
    // reads them as `null`.
    let lenient = crate::faults::on("json.non-finite-numbers-accepted")
        .then(|| crate::faults::non_finite_as_null(&String::from_utf8_lossy(bytes)));
    let bytes = lenient.as_deref().map_or(bytes, str::as_bytes);
    let reason = Cell::new(None);
    let dup_key = Cell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = ValueSeed {
        depth: 0,
        reason: &reason,
        dup_key: &dup_key,
    }
    .deserialize(&mut de)
    .map_err(|e| match reason.get() {
        Some(Reason::Dup) => JsonError::DuplicateKey(dup_key.take().unwrap_or_default()),
        Some(Reason::Deep) => JsonError::TooDeep,
        None => JsonError::Syntax(e.to_string()),
    })?;
    de.end().map_err(|_| JsonError::TrailingData)?;
    Ok(value)
}

/// [`parse_strict`] on text.
pub fn parse_strict_str(text: &str) -> Result<Value, JsonError> {
    parse_strict(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_the_differential_inputs() {
        assert_eq!(parse_strict(b"\xEF\xBB\xBF{}"), Err(JsonError::Bom));
        assert_eq!(
            parse_strict(b"{\"a\":\"\xff\"}"),
            Err(JsonError::InvalidUtf8)
        );
        assert_eq!(
            parse_strict(br#"{"a":{"b":1,"b":2}}"#),
            Err(JsonError::DuplicateKey("b".into()))
        );
        assert_eq!(parse_strict(b"{} x"), Err(JsonError::TrailingData));
        assert_eq!(parse_strict(b"{}{}"), Err(JsonError::TrailingData));
        assert!(matches!(
            parse_strict(br#""\ud800""#),
            Err(JsonError::Syntax(_))
        ));
        assert!(matches!(parse_strict(b"1e400"), Err(JsonError::Syntax(_))));
        assert!(parse_strict(b"{} \n\t\r").is_ok());
        assert!(parse_strict(br#"{"__proto__":{"admin":true}}"#).is_ok());
    }

    #[test]
    fn depth_limit_is_exact() {
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_strict(ok.as_bytes()).is_ok());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(parse_strict(deep.as_bytes()), Err(JsonError::TooDeep));
        let very = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(parse_strict(very.as_bytes()), Err(JsonError::TooDeep));
    }
}
