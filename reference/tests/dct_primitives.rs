//! Known-answer tests for the primitives under the DCT: Ed25519 (RFC 8032 §7.1 tests 1–3),
//! BLAKE2b-256, RFC 8785 canonical JSON, and ECMAScript number formatting against node.

// Test helpers build known-good fixtures; a failure to build one is a test failure, so they
// may unwrap (clippy's allow-unwrap-in-tests covers only #[test] functions themselves).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use blake2::{Blake2b512, Digest};
use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::{blake2b256, verify_strict, Keypair, SignatureError};
use delegateos_reference::json::parse_strict;
use serde_json::Value;

fn h<const N: usize>(s: &str) -> [u8; N] {
    <[u8; N]>::try_from(hex::decode(s).unwrap().as_slice()).unwrap()
}

#[test]
fn rfc8032_tests_1_to_3() {
    let cases = [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        ),
        (
            "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
        ),
    ];
    for (seed, pk, msg, sig) in cases {
        let kp = Keypair::from_seed(&h::<32>(seed));
        let pk = h::<32>(pk);
        let sig = h::<64>(sig);
        let msg = hex::decode(msg).unwrap();
        assert_eq!(kp.public_key(), pk);
        assert_eq!(kp.sign_message(&msg), sig);
        assert_eq!(verify_strict(&pk, &msg, &sig), Ok(()));
        let mut bad = msg.clone();
        bad.push(0);
        assert_eq!(
            verify_strict(&pk, &bad, &sig),
            Err(SignatureError::Mismatch)
        );
    }
}

#[test]
fn strict_profile_rejects_edge_cases() {
    let kp = Keypair::from_seed(&[1; 32]);
    let pk = kp.public_key();
    let sig = kp.sign_message(b"m");
    assert_eq!(verify_strict(&pk, b"m", &sig), Ok(()));
    // S + L is the same signature under a non-reducing verifier: must be SNotReduced.
    let l = h::<32>("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
    let mut s_plus_l = sig;
    let mut carry = 0u16;
    for i in 0..32 {
        let v = u16::from(sig[32 + i]) + u16::from(l[i]) + carry;
        s_plus_l[32 + i] = v as u8;
        carry = v >> 8;
    }
    assert_eq!(
        verify_strict(&pk, b"m", &s_plus_l),
        Err(SignatureError::SNotReduced)
    );
    // speccheck vector 0: small-order A and R, S = 0.
    let a = h::<32>("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa");
    let mut s0 = [0u8; 64];
    s0[..32].copy_from_slice(&h::<32>(
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    ));
    let msg = h::<32>("8c93255d71dcab10e8f379c26200f3c7bd5f09d9bc3068d3ef4edeb4853022b6");
    assert_eq!(
        verify_strict(&a, &msg, &s0),
        Err(SignatureError::SmallOrderA)
    );
    // Identity point as the key (small order), and a non-canonical y = p encoding.
    let mut ident = [0u8; 32];
    ident[0] = 1;
    assert_eq!(
        verify_strict(&ident, b"m", &sig),
        Err(SignatureError::SmallOrderA)
    );
    let y_is_p = h::<32>("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
    assert_eq!(
        verify_strict(&y_is_p, b"m", &sig),
        Err(SignatureError::NonCanonicalA)
    );
    // Small-order R with a valid key.
    let mut small_r = sig;
    small_r[..32].copy_from_slice(&ident);
    assert_eq!(
        verify_strict(&pk, b"m", &small_r),
        Err(SignatureError::SmallOrderR)
    );
}

#[test]
fn blake2b256_kats() {
    assert_eq!(
        hex::encode(blake2b256(b"abc")),
        "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"
    );
    assert_eq!(
        hex::encode(blake2b256(b"")),
        "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8"
    );
}

fn canon(text: &str) -> String {
    canonicalize(&parse_strict(text.as_bytes()).unwrap()).unwrap()
}

#[test]
fn rfc8785_examples() {
    // RFC 8785 §3.2.2.
    let input = r#"{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}"#;
    assert_eq!(
        canon(input),
        "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"\u{20ac}$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"
    );
    // RFC 8785 §3.2.3: keys sorted by UTF-16 code units (😀 = D83D DE00 sorts before U+FB33).
    let input = r#"{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}"#;
    let out = canon(input);
    let order: Vec<&str> = [
        "\\r",
        "1",
        "\u{80}",
        "\u{f6}",
        "\u{20ac}",
        "\u{1f600}",
        "\u{fb33}",
    ]
    .into_iter()
    .collect();
    let positions: Vec<usize> = order
        .iter()
        .map(|k| out.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{out}");
    // Number examples from RFC 8785 Appendix B (bit pattern → canonical text).
    for (bits, text) in [
        ("0000000000000000", "0"),
        ("8000000000000000", "0"),
        ("0000000000000001", "5e-324"),
        ("7fefffffffffffff", "1.7976931348623157e+308"),
        ("4340000000000000", "9007199254740992"),
        ("4340000000000001", "9007199254740994"),
        ("444b1ae4d6e2ef50", "1e+21"),
        ("444b1ae4d6e2ef4f", "999999999999999900000"),
        ("3eb0c6f7a0b5ed8d", "0.000001"),
        ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
        ("41b3de4355555553", "333333333.3333332"),
        ("c43211ede4974a35", "-333333333333333300000"),
    ] {
        let x = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
        assert_eq!(canonicalize(&Value::from(x)).unwrap(), text, "{bits}");
    }
}

/// xorshift64 sequence shared with `tests/data/es6_numbers.js` (see that file).
fn es6_values(count: usize) -> Vec<f64> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out = Vec::with_capacity(count);
    let mut i = 0u64;
    while out.len() < count {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let v = match i % 4 {
            2 => (x % (1 << 53)) as f64,
            3 => (x % 1_000_000_000) as f64 / 1000.0,
            _ => f64::from_bits(x),
        };
        i += 1;
        if v.is_finite() {
            out.push(v);
        }
    }
    out
}

#[test]
fn es6_number_formatting_matches_node() {
    // Digest printed by `node reference/tests/data/es6_numbers.js 100000` (node v20).
    const NODE_DIGEST: &str = "3d6e52e91b230d287eaa5142d175ded2c8327e7a5bac5ca752ee93e38c3cc3f01e93aaaf93cb5e4ff577e620042be8dbe2d7cadb35479c45229632934ff3bbf7";
    let mut hash = Blake2b512::new();
    for x in es6_values(100_000) {
        let text = canonicalize(&Value::from(x)).unwrap();
        // Parsing the text back must give the same double (float_roundtrip is on).
        let back: f64 = parse_strict(text.as_bytes()).unwrap().as_f64().unwrap();
        assert!(back == x || (back == 0.0 && x == 0.0), "{x:e} -> {text}");
        hash.update(text.as_bytes());
        hash.update(b"\n");
    }
    assert_eq!(hex::encode(hash.finalize()), NODE_DIGEST);
}
