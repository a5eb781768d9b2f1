//! Step 1 (D9, D19, D23, D33): every encoding fault of a token is `malformed_token`, and the
//! canonical encoding of a valid token decodes to the same typed value.

// Test helpers build known-good fixtures; a failure to build one is a test failure, so they
// may unwrap (clippy's allow-unwrap-in-tests covers only #[test] functions themselves).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_reference::attenuate::{attenuate, create, AttenuateParams, CreateParams};
use delegateos_reference::crypto::Keypair;
use delegateos_reference::encoding::{b64u_decode, b64u_encode};
use delegateos_reference::token::{
    decode, encode, inspect, Capability, SerializedDct, SignedJsonToken, MAX_TOKEN_CHARS,
};
use serde_json::json;

fn kp(n: u8) -> Keypair {
    Keypair::from_seed(&[n; 32])
}

fn token() -> SignedJsonToken {
    let root = create(
        &kp(1),
        CreateParams {
            delegatee: kp(2).principal_id(),
            capabilities: vec![Capability::new("web", "search", "*")],
            contract_id: "ct_a1b2c3d4e5f6".into(),
            delegation_id: "del_000000000001".into(),
            parent_delegation_id: "del_000000000000".into(),
            chain_depth: 0,
            max_chain_depth: 3,
            max_budget_microcents: 1000,
            expires_at: "2026-01-01T01:00:00Z".into(),
            issued_at: "2026-01-01T00:00:00Z".into(),
        },
    )
    .unwrap();
    let p = AttenuateParams {
        delegatee: kp(3).principal_id(),
        delegation_id: "del_000000000002".into(),
        contract_id: "ct_a1b2c3d4e5f6".into(),
        max_budget_microcents: Some(10),
        ..AttenuateParams::default()
    };
    attenuate(&root, &kp(2), p).unwrap()
}

fn text() -> String {
    String::from_utf8(b64u_decode(&encode(&token()).token).unwrap()).unwrap()
}

fn wire_bytes(bytes: &[u8]) -> SerializedDct {
    SerializedDct {
        token: b64u_encode(bytes),
        format: "delegateos-sjt-v1".into(),
    }
}

fn malformed(dct: &SerializedDct) -> bool {
    decode(dct).is_err() && inspect(dct).is_err()
}

#[test]
fn round_trip() {
    let t = token();
    assert_eq!(decode(&encode(&t)).unwrap(), t);
    assert!(!malformed(&wire_bytes(text().as_bytes())));
}

#[test]
fn base64_and_envelope_faults() {
    let good = encode(&token());
    for bad in [
        format!("{}=", good.token),
        format!("{} ", good.token),
        good.token.replace('-', "+"),
        format!("{}A", good.token),
    ] {
        let d = SerializedDct {
            token: bad.clone(),
            format: good.format.clone(),
        };
        // A replacement may be a no-op if the character does not occur; only count real edits.
        if bad != good.token {
            assert!(malformed(&d), "{bad}");
        }
    }
    let mut wrong_format = good.clone();
    wrong_format.format = "delegateos-biscuit-v1".into();
    assert!(malformed(&wrong_format));
    let huge = SerializedDct {
        token: "A".repeat(MAX_TOKEN_CHARS + 4),
        format: good.format.clone(),
    };
    assert!(malformed(&huge));
    assert!(
        SerializedDct::from_value(&json!({"token": good.token, "format": good.format})).is_ok()
    );
    assert!(SerializedDct::from_value(&json!({"token": 1, "format": good.format})).is_err());
    assert!(SerializedDct::from_value(
        &json!({"token": good.token, "format": good.format, "x": 1})
    )
    .is_err());
}

#[test]
fn json_and_shape_faults() {
    let t = text();
    let edits: Vec<(&str, Vec<u8>)> = vec![
        ("bom", [b"\xEF\xBB\xBF".as_slice(), t.as_bytes()].concat()),
        (
            "invalid utf-8",
            t.replacen("web", "w\u{FFFD}b", 1)
                .replace('\u{FFFD}', "\u{1}")
                .into_bytes()
                .into_iter()
                .map(|b| if b == 1 { 0xff } else { b })
                .collect(),
        ),
        (
            "duplicate key",
            t.replacen("{\"attenuations\"", "{\"format\":\"x\",\"attenuations\"", 1)
                .into_bytes(),
        ),
        ("trailing", format!("{t} x").into_bytes()),
        ("trailing ws (non-canonical)", format!("{t}\n").into_bytes()),
        (
            "unknown top field",
            t.replacen("{\"attenuations\"", "{\"a\":1,\"attenuations\"", 1)
                .into_bytes(),
        ),
        (
            "unknown capability field",
            t.replacen("\"action\"", "\"a\":1,\"action\"", 1)
                .into_bytes(),
        ),
        (
            "null optional",
            t.replacen(
                "\"attenuator\"",
                "\"allowedCapabilities\":null,\"attenuator\"",
                1,
            )
            .into_bytes(),
        ),
        (
            "number > 2^53-1",
            t.replacen(
                "\"maxBudgetMicrocents\":1000",
                "\"maxBudgetMicrocents\":9007199254740992",
                1,
            )
            .into_bytes(),
        ),
        (
            "negative",
            t.replacen("\"chainDepth\":0", "\"chainDepth\":-1", 1)
                .into_bytes(),
        ),
        (
            "fraction",
            t.replacen("\"chainDepth\":0", "\"chainDepth\":0.5", 1)
                .into_bytes(),
        ),
        (
            "covers as string",
            t.replacen("\"covers\":0", "\"covers\":\"0\"", 1)
                .into_bytes(),
        ),
        (
            "covers other string",
            t.replacen("\"covers\":\"authority\"", "\"covers\":\"root\"", 1)
                .into_bytes(),
        ),
        (
            "id format",
            t.replacen("del_000000000002", "del_00000000000G", 1)
                .into_bytes(),
        ),
        (
            "contract id",
            t.replacen("ct_a1b2c3d4e5f6", "ct_A1B2C3D4E5F6", 1)
                .into_bytes(),
        ),
        (
            "timestamp",
            t.replacen("2026-01-01T01:00:00Z", "2026-01-01T01:00:60Z", 1)
                .into_bytes(),
        ),
        (
            "lowercase t",
            t.replacen("2026-01-01T01:00:00Z", "2026-01-01t01:00:00Z", 1)
                .into_bytes(),
        ),
        (
            "format",
            t.replacen("delegateos-sjt-v1", "delegateos-sjt-v2", 1)
                .into_bytes(),
        ),
        (
            "empty namespace",
            t.replacen("\"namespace\":\"web\"", "\"namespace\":\"\"", 1)
                .into_bytes(),
        ),
        ("not an object", b"[]".to_vec()),
        (
            "depth",
            format!("{}{}", "[".repeat(40), "]".repeat(40)).into_bytes(),
        ),
    ];
    for (name, bytes) in edits {
        assert_ne!(bytes, t.as_bytes(), "{name}: edit did not apply");
        assert!(malformed(&wire_bytes(&bytes)), "{name} should be malformed");
    }
}

#[test]
fn principal_and_signature_formats() {
    let mut t = token();
    t.authority.delegatee = format!("{}=", kp(2).principal_id());
    assert!(malformed(&encode(&t)));
    let mut t = token();
    t.signatures[1].signature.pop();
    assert!(malformed(&encode(&t)));
    let mut t = token();
    t.signatures[0].signer = "x".into();
    assert!(malformed(&encode(&t)));
}
