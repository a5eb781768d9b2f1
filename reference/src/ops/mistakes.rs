//! The catalogue's mistakes (`spec/faults.md`) that the operations make when a fault is on:
//! their computations live beside the operations that call them, so that `faults.rs` (the
//! switches) imports nothing of the reference.

/// True when the mistake also verifies a signature under the key the object names for itself
/// (`issuer`, `principal`) instead of only the caller's key.
pub(crate) fn own_key_verifies(own: &str, payload: &str, sig: &[u8; 64]) -> bool {
    crate::faults::on("signature.own-key-accepted")
        && crate::crypto::verify_canonical_principal(own, payload, sig).is_ok()
}

/// A caller-given key as the mistake decodes it (Node's `Buffer.from(key, "base64url")`:
/// characters outside the alphabet skipped, `+` and `/` read as `-` and `_`, padding and
/// leftover bits ignored), re-encoded as the principal id it decodes to; the key itself when
/// the mistake is off or the bytes are no 32-byte key.
pub(crate) fn lenient_key(key: &str) -> std::borrow::Cow<'_, str> {
    if !crate::faults::on("signature.key-decoding-lenient") {
        return key.into();
    }
    let bytes = crate::faults::node_base64(key);
    if bytes.len() == 32 {
        crate::encoding::b64u_encode(&bytes).into()
    } else {
        key.into()
    }
}

/// `order`, or 0 where one of the instants is `Date.parse`'s NaN (`timestamp.date-parse`):
/// every comparison with NaN is false, so the hurried `a < b ? -1 : a > b ? 1 : 0` answers 0.
pub(crate) fn date_parse_order(a: i128, b: i128, order: i32) -> i32 {
    if crate::faults::ordered(a, b) {
        order
    } else {
        0
    }
}

/// A token parameter above 2^53-1 taken as it is, where `token.integers-unbounded` is on (an
/// integer type that never overflows, as Python's); `None` otherwise.
pub(crate) fn unbounded_uint(value: &serde_json::Value) -> Option<u64> {
    if crate::faults::on("token.integers-unbounded") {
        value.as_u64()
    } else {
        None
    }
}

/// The contract as a typed deserialization sees it where `contract.unknown-members-stripped` is
/// on: its members outside §5.1's dropped (only at the top level, as a record type with serde's
/// default of ignoring unknown fields would); the contract itself otherwise.
pub(crate) fn contract_as_typed(
    value: &serde_json::Value,
) -> std::borrow::Cow<'_, serde_json::Value> {
    const MEMBERS: [&str; 8] = [
        "id",
        "version",
        "issuer",
        "createdAt",
        "task",
        "constraints",
        "verification",
        "signature",
    ];
    match value {
        serde_json::Value::Object(m) if crate::faults::on("contract.unknown-members-stripped") => {
            let kept = m
                .iter()
                .filter(|(k, _)| MEMBERS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            std::borrow::Cow::Owned(serde_json::Value::Object(kept))
        }
        _ => std::borrow::Cow::Borrowed(value),
    }
}

/// A delegation as the mistake reads it where `token.integers-as-floats` is on (Python's
/// `isinstance(v, (int, float))`): a fractional `depth` in 0..=2^53-1 passes as an integer,
/// and, equal to no parent's depth + 1, fails invariant 3 (`depth_mismatch`); read here as
/// 2^53-1, which no chain reaches. The delegation itself otherwise.
pub(crate) fn fractional_depth_read(
    d: &serde_json::Value,
) -> std::borrow::Cow<'_, serde_json::Value> {
    let max = crate::token::MAX_SAFE_INTEGER;
    let fractional = d["depth"]
        .as_f64()
        .is_some_and(|x| d["depth"].as_u64().is_none() && (0.0..=max as f64).contains(&x));
    if !(fractional && crate::faults::on("token.integers-as-floats")) {
        return std::borrow::Cow::Borrowed(d);
    }
    let mut read = d.clone();
    read["depth"] = serde_json::Value::from(max);
    std::borrow::Cow::Owned(read)
}
