//! Strict decoding of operation inputs.
//!
//! An operation input that does not have the shape `spec/operations.md` requires is the
//! vector's (or the adapter's) mistake, not the implementation's: it is reported with the
//! code `invalid_input` and a detail naming the field, never with a protocol code and never
//! with a panic. Unknown input keys are refused too, so a misspelt field in a vector cannot
//! silently fall back to a default.

use serde_json::{Map, Value};

use super::OpError;

/// The input object of one operation, with the keys it may contain.
#[derive(Debug)]
pub(crate) struct Input<'a> {
    map: &'a Map<String, Value>,
}

/// Largest integer a JSON number may carry in the protocol (2^53 − 1).
pub(crate) const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

pub(crate) fn invalid(detail: impl Into<String>) -> OpError {
    OpError::new("invalid_input", detail)
}

impl<'a> Input<'a> {
    /// Takes `value` as an object whose keys are all in `required` or `optional`, and that has
    /// every key of `required`.
    pub(crate) fn new(
        value: &'a Value,
        required: &[&str],
        optional: &[&str],
    ) -> Result<Self, OpError> {
        let map = value
            .as_object()
            .ok_or_else(|| invalid("input must be a JSON object"))?;
        check_keys(map, "input", required, optional)?;
        Ok(Self { map })
    }

    /// The raw value of a required key (present by construction).
    pub(crate) fn value(&self, key: &str) -> Result<&'a Value, OpError> {
        self.map
            .get(key)
            .ok_or_else(|| invalid(format!("missing field {key:?}")))
    }

    /// The raw value of an optional key.
    pub(crate) fn opt(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    pub(crate) fn str(&self, key: &str) -> Result<&'a str, OpError> {
        as_str(self.value(key)?, key)
    }

    pub(crate) fn hex(&self, key: &str) -> Result<Vec<u8>, OpError> {
        hex_bytes(self.str(key)?, key)
    }

    pub(crate) fn seed(&self, key: &str) -> Result<[u8; 32], OpError> {
        let bytes = self.hex(key)?;
        <[u8; 32]>::try_from(bytes.as_slice())
            .map_err(|_| invalid(format!("{key:?} must be 32 bytes (64 hex characters)")))
    }

    pub(crate) fn object(&self, key: &str) -> Result<&'a Map<String, Value>, OpError> {
        self.value(key)?
            .as_object()
            .ok_or_else(|| invalid(format!("{key:?} must be an object")))
    }

    pub(crate) fn array(&self, key: &str) -> Result<&'a Vec<Value>, OpError> {
        self.value(key)?
            .as_array()
            .ok_or_else(|| invalid(format!("{key:?} must be an array")))
    }
}

/// Refuses keys outside `required ∪ optional` and requires every key of `required`.
pub(crate) fn check_keys(
    map: &Map<String, Value>,
    what: &str,
    required: &[&str],
    optional: &[&str],
) -> Result<(), OpError> {
    if let Some(unknown) = map
        .keys()
        .find(|k| !required.contains(&k.as_str()) && !optional.contains(&k.as_str()))
    {
        return Err(invalid(format!("unknown field {unknown:?} in {what}")));
    }
    if let Some(missing) = required.iter().find(|k| !map.contains_key(**k)) {
        return Err(invalid(format!("missing field {missing:?} in {what}")));
    }
    Ok(())
}

pub(crate) fn as_str<'v>(value: &'v Value, key: &str) -> Result<&'v str, OpError> {
    value
        .as_str()
        .ok_or_else(|| invalid(format!("{key:?} must be a string")))
}

pub(crate) fn as_uint(value: &Value, key: &str) -> Result<u64, OpError> {
    value
        .as_u64()
        .filter(|n| *n <= MAX_SAFE_INTEGER)
        .ok_or_else(|| invalid(format!("{key:?} must be an integer in 0..=2^53-1")))
}

/// Lowercase, even-length hex only: uppercase hex is refused so that every vector spells
/// bytes one way.
pub(crate) fn hex_bytes(text: &str, key: &str) -> Result<Vec<u8>, OpError> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        return Err(invalid(format!("{key:?} must be lowercase hex")));
    }
    hex::decode(text).map_err(|_| invalid(format!("{key:?} must be lowercase hex")))
}
