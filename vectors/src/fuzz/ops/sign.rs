//! Re-signing with the published test keys (`vectors/src/keys.rs`), so that mutations of
//! signed structures reach past the signature check of the implementation under test.
//! A structure whose signer is not a test key (or is not a string) is left as it is.

use serde_json::{json, Value};

use crate::keys::{Key, Keys};
use delegateos_reference::canonical::{canonicalize, signing_payload};
use delegateos_reference::crypto::sign_canonical;
use delegateos_reference::encoding::b64u_encode;

/// The test key whose principal id is `principal`.
pub fn key_of<'k>(keys: &'k Keys, principal: Option<&Value>) -> Option<&'k Key> {
    let p = principal?.as_str()?;
    keys.all().into_iter().find(|k| k.principal == p)
}

/// Every test principal (dictionary values for signer members).
pub fn principals(keys: &Keys) -> Vec<Value> {
    keys.all()
        .iter()
        .map(|k| Value::from(k.principal.clone()))
        .collect()
}

/// Signs a contract or attestation: `signature` over the canonical object without it, under
/// the key named by member `signer` (`issuer`, `principal`).
pub fn sign_object(obj: &mut Value, signer: &str, keys: &Keys) {
    let Some(key) = key_of(keys, obj.get(signer)) else {
        return;
    };
    let Some(Ok(payload)) = signing_payload(obj) else {
        return;
    };
    let sig = b64u_encode(&sign_canonical(&key.keypair(), &payload));
    if let Some(m) = obj.as_object_mut() {
        m.insert("signature".to_owned(), Value::from(sig));
    }
}

/// Signs a revocation entry: the signature covers the canonical
/// `{revocationId, revokedBy, revokedAt, scope}` (whatever their JSON types), under
/// `revokedBy`'s key.
pub fn sign_entry(entry: &mut Value, keys: &Keys) {
    let Some(key) = key_of(keys, entry.get("revokedBy")) else {
        return;
    };
    let field = |k: &str| entry.get(k).cloned().unwrap_or(Value::Null);
    let body = json!({
        "revocationId": field("revocationId"),
        "revokedBy": field("revokedBy"),
        "revokedAt": field("revokedAt"),
        "scope": field("scope"),
    });
    let Ok(payload) = canonicalize(&body) else {
        return;
    };
    let sig = b64u_encode(&sign_canonical(&key.keypair(), &payload));
    if let Some(m) = entry.as_object_mut() {
        m.insert("signature".to_owned(), Value::from(sig));
    }
}

/// Timestamps around the corpus's instants, in and out of the profile (D5).
pub fn timestamps() -> Vec<Value> {
    [
        "2026-03-01T10:00:00Z",
        "2026-03-01T12:00:00Z",
        "2026-03-01T12:00:00.000000001Z",
        "2026-03-01T11:59:59.999Z",
        "2026-03-01T12:00:00+00:00",
        "2026-03-01T13:00:00+01:00",
        "2026-03-01 12:00:00Z",
        "2026-03-01T12:00:00z",
        "2026-02-30T00:00:00Z",
        "2026-03-01T12:00:00",
        "2025-01-01T00:00:00Z",
        "2030-01-01T00:00:00Z",
        "",
    ]
    .iter()
    .map(|s| Value::from(*s))
    .collect()
}

/// Integers at the edges of budgets and counters.
pub fn integers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(-1),
        json!(100),
        json!(499_999),
        json!(500_000),
        json!(500_001),
        json!(1_000_000_000),
        json!(9_007_199_254_740_991_u64),
        json!(9_007_199_254_740_992_u64),
        json!(1.5),
        json!(1.0),
        json!("1"),
        json!(true),
    ]
}
