//! Primitive operations: canonical JSON, BLAKE2b-256, base64url, Ed25519, principal ids and
//! timestamps (spec §1.2, §2; decisions D5, D9, D10).

use serde_json::{json, Value};

use super::input::Input;
use super::{OpError, OpResult};
use crate::timestamp::Timestamp;
use crate::{canonical, crypto, encoding, json};

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &[
    "json.canonicalize",
    "hash.blake2b256",
    "base64url.decode",
    "base64url.encode",
    "ed25519.sign",
    "ed25519.verify",
    "principal.from_seed",
    "timestamp.compare",
];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "json.canonicalize" => canonicalize(input),
        "hash.blake2b256" => blake2b256(input),
        "base64url.decode" => b64u_decode(input),
        "base64url.encode" => b64u_encode(input),
        "ed25519.sign" => ed25519_sign(input),
        "ed25519.verify" => ed25519_verify(input),
        "principal.from_seed" => principal_from_seed(input),
        "timestamp.compare" => timestamp_compare(input),
        _ => return None,
    })
}

fn canonicalize(input: &Value) -> OpResult {
    let input = Input::new(input, &["text"], &[])?;
    let value = json::parse_strict_str(input.str("text")?)
        .map_err(|e| OpError::new("invalid_json", e.to_string()))?;
    let canonical =
        canonical::canonicalize(&value).map_err(|e| OpError::new("invalid_json", e.to_string()))?;
    Ok(json!({ "canonical": canonical }))
}

fn blake2b256(input: &Value) -> OpResult {
    let input = Input::new(input, &["hex"], &[])?;
    let digest = crypto::blake2b256(&input.hex("hex")?);
    Ok(json!({ "hex": hex::encode(digest) }))
}

fn b64u_decode(input: &Value) -> OpResult {
    let input = Input::new(input, &["text"], &[])?;
    let bytes = encoding::b64u_decode(input.str("text")?)
        .map_err(|e| OpError::new("invalid_encoding", e.to_string()))?;
    Ok(json!({ "hex": hex::encode(bytes) }))
}

fn b64u_encode(input: &Value) -> OpResult {
    let input = Input::new(input, &["hex"], &[])?;
    Ok(json!({ "text": encoding::b64u_encode(&input.hex("hex")?) }))
}

fn ed25519_sign(input: &Value) -> OpResult {
    let input = Input::new(input, &["seed", "message"], &[])?;
    let keypair = crypto::Keypair::from_seed(&input.seed("seed")?);
    let signature = keypair.sign_message(&input.hex("message")?);
    Ok(json!({
        "publicKey": hex::encode(keypair.public_key()),
        "signature": hex::encode(signature),
    }))
}

fn ed25519_verify(input: &Value) -> OpResult {
    let input = Input::new(input, &["publicKey", "message", "signature"], &[])?;
    let public_key = input.hex("publicKey")?;
    let message = input.hex("message")?;
    let signature = input.hex("signature")?;
    // Wrong lengths are an answer (`valid: false`), not an input error: a verifier handed a
    // 63-byte signature must reject it, and the vectors check that it does.
    let (Ok(public_key), Ok(signature)) = (
        <[u8; 32]>::try_from(public_key.as_slice()),
        <[u8; 64]>::try_from(signature.as_slice()),
    ) else {
        return Ok(json!({ "valid": false }));
    };
    let valid = crypto::verify_strict(&public_key, &message, &signature).is_ok();
    Ok(json!({ "valid": valid }))
}

fn principal_from_seed(input: &Value) -> OpResult {
    let input = Input::new(input, &["seed"], &[])?;
    let keypair = crypto::Keypair::from_seed(&input.seed("seed")?);
    Ok(json!({ "principal": keypair.principal_id() }))
}

fn timestamp_compare(input: &Value) -> OpResult {
    let input = Input::new(input, &["a", "b"], &[])?;
    let parse = |key: &str| -> Result<Timestamp, OpError> {
        Timestamp::parse(input.str(key)?)
            .map_err(|e| OpError::new("invalid_timestamp", e.to_string()))
    };
    let (a, b) = (parse("a")?.unix_nanos(), parse("b")?.unix_nanos());
    let order = match a.cmp(&b) {
        std::cmp::Ordering::Less => -1,
        std::cmp::Ordering::Equal => 0,
        std::cmp::Ordering::Greater => 1,
    };
    Ok(json!({ "order": super::mistakes::date_parse_order(a, b, order) }))
}
