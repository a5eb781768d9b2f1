//! Differential test of the Ed25519 strict profile (D10): the fast verifier
//! (`crypto::verify_strict`, `ValidatedKey::verify`, `verify_strict_with` over a `KeyStore`)
//! against the original implementation, kept here verbatim as the oracle. Same accept/reject on
//! every input, and the same `SignatureError` kind: the fast path re-derives the R diagnosis on
//! rejection. (The proxy's bounded `KeyCache` has its own agreement test in the harness.)
//!
//! Inputs: every case of the Ed25519 edge-case data the generator uses
//! (`vectors/src/areas/data/ed25519_edge.json`), every `ed25519.verify` case of
//! `vectors/primitives/ed25519*.json`, a grid of hostile encodings for A and R (every small-order
//! point, every non-canonical y encoding, mixed-order points, points off the curve) against
//! several S values (0, S ≥ L, …), ground signatures where the cofactorless equation holds
//! for hostile points (identity R, mixed-order A, mixed-order A and R), and proptest mutations.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use curve25519_dalek::constants::{ED25519_BASEPOINT_POINT, EIGHT_TORSION};
use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use delegateos_reference::crypto::{
    verify_strict, verify_strict_with, Keypair, SignatureError, ValidatedKey,
};
use ed25519_dalek::{Signature, VerifyingKey};
use proptest::prelude::*;
use sha2::{Digest, Sha512};
use std::collections::HashMap;

/// The key store of these tests: every validated key, as one call of `verify` keeps them.
type Keys = HashMap<[u8; 32], ValidatedKey>;

// ---------------------------------------------------------------------------------------------
// The oracle: `crypto::verify_strict` as it was before the fast path (S < L; A and R canonical,
// not small-order, torsion-free; then dalek `verify_strict`).

fn oracle_check_point(
    bytes: &[u8; 32],
    noncanon: SignatureError,
    small: SignatureError,
    mixed: SignatureError,
) -> Result<(), SignatureError> {
    let compressed = CompressedEdwardsY(*bytes);
    let point = compressed.decompress().ok_or(noncanon)?;
    if point.compress().to_bytes() != *bytes {
        return Err(noncanon);
    }
    if point.is_small_order() {
        return Err(small);
    }
    if !point.is_torsion_free() {
        return Err(mixed);
    }
    Ok(())
}

fn oracle(public_key: &[u8; 32], message: &[u8], sig: &[u8; 64]) -> Result<(), SignatureError> {
    let mut r = [0u8; 32];
    let mut s = [0u8; 32];
    r.copy_from_slice(&sig[..32]);
    s.copy_from_slice(&sig[32..]);
    if Option::<Scalar>::from(Scalar::from_canonical_bytes(s)).is_none() {
        return Err(SignatureError::SNotReduced);
    }
    oracle_check_point(
        public_key,
        SignatureError::NonCanonicalA,
        SignatureError::SmallOrderA,
        SignatureError::MixedOrderA,
    )?;
    oracle_check_point(
        &r,
        SignatureError::NonCanonicalR,
        SignatureError::SmallOrderR,
        SignatureError::MixedOrderR,
    )?;
    let vk = VerifyingKey::from_bytes(public_key).map_err(|_| SignatureError::NonCanonicalA)?;
    vk.verify_strict(message, &Signature::from_bytes(sig))
        .map_err(|_| SignatureError::Mismatch)
}

// ---------------------------------------------------------------------------------------------

/// Checks every fast entry point against the oracle on one input; returns the oracle's verdict.
fn assert_same(pk: &[u8; 32], msg: &[u8], sig: &[u8; 64], cache: &mut Keys) -> bool {
    let want = oracle(pk, msg, sig);
    let ctx = || {
        format!(
            "pk={} msg={} sig={}",
            hex::encode(pk),
            hex::encode(msg),
            hex::encode(sig)
        )
    };
    assert_eq!(
        verify_strict(pk, msg, sig),
        want,
        "verify_strict: {}",
        ctx()
    );
    assert_eq!(
        verify_strict_with(cache, pk, msg, sig),
        want,
        "verify_strict_with: {}",
        ctx()
    );
    // Twice: the second call finds the key in the store.
    assert_eq!(
        verify_strict_with(cache, pk, msg, sig),
        want,
        "verify_strict_with (stored key): {}",
        ctx()
    );
    match ValidatedKey::from_bytes(pk) {
        Ok(k) => assert_eq!(k.verify(msg, sig), want, "ValidatedKey::verify: {}", ctx()),
        // An invalid key: the oracle rejects too (with S's error first if S is also bad).
        Err(e) => assert!(
            want == Err(e) || want == Err(SignatureError::SNotReduced),
            "key rejected with {e:?}, oracle {want:?}: {}",
            ctx()
        ),
    }
    want.is_ok()
}

fn arr<const N: usize>(hex_text: &str) -> Option<[u8; N]> {
    <[u8; N]>::try_from(hex::decode(hex_text).ok()?.as_slice()).ok()
}

fn repo_file(rel: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn edge_case_data_of_the_generator() {
    let data = repo_file("vectors/src/areas/data/ed25519_edge.json");
    let mut cache = Keys::new();
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 30);
    let mut accepted = 0;
    for case in cases {
        let pk = arr::<32>(case["publicKey"].as_str().unwrap()).unwrap();
        let msg = hex::decode(case["message"].as_str().unwrap()).unwrap();
        let sig = arr::<64>(case["signature"].as_str().unwrap()).unwrap();
        let ok = assert_same(&pk, &msg, &sig, &mut cache);
        assert_eq!(ok, case["verdict"] == "valid", "{}", case["name"]);
        accepted += usize::from(ok);
    }
    assert!(accepted >= 1);
}

#[test]
fn every_ed25519_verify_vector() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../vectors/primitives");
    let mut files = 0;
    let mut checked = 0;
    let mut cache = Keys::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !(name.starts_with("ed25519") && name.ends_with(".json")) {
            continue;
        }
        files += 1;
        let file = repo_file(&format!("vectors/primitives/{name}"));
        for case in file["cases"].as_array().unwrap() {
            if case["op"] != "ed25519.verify" {
                continue;
            }
            let input = &case["input"];
            let (Some(pk), Some(sig)) = (
                arr::<32>(input["publicKey"].as_str().unwrap()),
                arr::<64>(input["signature"].as_str().unwrap()),
            ) else {
                continue; // wrong lengths never reach the verifier
            };
            let msg = hex::decode(input["message"].as_str().unwrap()).unwrap();
            let ok = assert_same(&pk, &msg, &sig, &mut cache);
            if let Some(valid) = case["expect"]["output"]["valid"].as_bool() {
                assert_eq!(ok, valid, "{}", case["id"]);
            }
            checked += 1;
        }
    }
    assert!(
        files >= 1 && checked >= 35,
        "{files} files, {checked} cases"
    );
}

// ---------------------------------------------------------------------------------------------
// Hostile encodings.

/// p = 2^255 − 19, little-endian.
fn p_plus(j: u8) -> [u8; 32] {
    let mut b = [0xffu8; 32];
    b[31] = 0x7f;
    // p = 0x7fff…ffed; p + j for j ≤ 18 stays below 2^255.
    b[0] = 0xed + j;
    b
}

fn with_sign(mut b: [u8; 32]) -> [u8; 32] {
    b[31] |= 0x80;
    b
}

/// Encodings that a strict verifier must treat carefully: every small-order point (both sign
/// bits), every non-canonical y (p ≤ y ≤ p + 18, both sign bits), 2^255 − 1, y values off
/// the curve, and mixed-order points of a real key.
fn hostile_points(good: &EdwardsPoint) -> Vec<[u8; 32]> {
    let mut out = Vec::new();
    for t in EIGHT_TORSION.iter() {
        let e = t.compress().to_bytes();
        out.push(e);
        out.push(with_sign(e));
        out.push((good + t).compress().to_bytes());
    }
    for j in 0..=18 {
        out.push(p_plus(j));
        out.push(with_sign(p_plus(j)));
    }
    out.push([0xff; 32]);
    let mut all_ones = [0xff; 32];
    all_ones[31] = 0x7f;
    out.push(all_ones);
    for y in [2u8, 3, 4, 5, 7] {
        let mut b = [0u8; 32];
        b[0] = y;
        out.push(b);
        out.push(with_sign(b));
    }
    out.sort_unstable();
    out.dedup();
    out
}

fn sig_of(r: &[u8; 32], s: &[u8; 32]) -> [u8; 64] {
    let mut sig = [0u8; 64];
    sig[..32].copy_from_slice(r);
    sig[32..].copy_from_slice(s);
    sig
}

fn challenge(r: &[u8; 32], a: &[u8; 32], msg: &[u8]) -> Scalar {
    let mut h = Sha512::new();
    h.update(r);
    h.update(a);
    h.update(msg);
    Scalar::from_bytes_mod_order_wide(&h.finalize().into())
}

/// L, little-endian: (L − 1) + 1 (the low byte of L − 1 is 0xec).
fn l_bytes() -> [u8; 32] {
    let mut l = (-Scalar::ONE).to_bytes();
    l[0] += 1;
    l
}

/// S values: 0, 1, L − 1, L, L + 1, 2^253 − 1-ish, all ones.
fn s_values() -> Vec<[u8; 32]> {
    let mut l_plus_1 = l_bytes();
    l_plus_1[0] += 1;
    let mut s = vec![
        [0u8; 32],
        Scalar::ONE.to_bytes(),
        (-Scalar::ONE).to_bytes(),
        l_bytes(),
        l_plus_1,
        [0xff; 32],
    ];
    let mut high = [0u8; 32];
    high[31] = 0x20;
    s.push(high);
    s
}

#[test]
fn grid_of_hostile_a_r_and_s() {
    let kp = Keypair::from_seed(&[7; 32]);
    let good_pk = kp.public_key();
    let good = CompressedEdwardsY(good_pk).decompress().unwrap();
    let points = hostile_points(&good);
    let msg = b"Zcash";
    let mut cache = Keys::new();
    let mut a_list = points.clone();
    a_list.push(good_pk);
    let mut r_list = points;
    let honest = kp.sign_message(msg);
    let mut honest_r = [0u8; 32];
    honest_r.copy_from_slice(&honest[..32]);
    r_list.push(honest_r);
    let mut n = 0;
    for a in &a_list {
        for r in &r_list {
            for s in s_values() {
                assert_same(a, msg, &sig_of(r, &s), &mut cache);
                n += 1;
            }
        }
    }
    assert!(n > 5000, "{n}");
    assert!(assert_same(&good_pk, msg, &honest, &mut cache));
}

/// The identity as R with an honest key: the cofactorless equation holds ([S]B − [k]A = O),
/// D10 rejects (R small-order). The fast path must not accept it.
#[test]
fn identity_r_satisfying_the_equation_is_rejected() {
    let mut cache = Keys::new();
    for i in 1..=16u64 {
        let a = Scalar::from(i * 7919 + 3);
        let pk = EdwardsPoint::mul_base(&a).compress().to_bytes();
        let r = EdwardsPoint::identity().compress().to_bytes();
        let msg = i.to_le_bytes();
        let k = challenge(&r, &pk, &msg);
        let s = (k * a).to_bytes();
        let sig = sig_of(&r, &s);
        // The equation really holds.
        let minus_a = -CompressedEdwardsY(pk).decompress().unwrap();
        let got = EdwardsPoint::vartime_double_scalar_mul_basepoint(
            &k,
            &minus_a,
            &Scalar::from_canonical_bytes(s).unwrap(),
        );
        assert_eq!(got.compress().to_bytes(), r);
        assert!(!assert_same(&pk, &msg, &sig, &mut cache));
        assert_eq!(
            verify_strict(&pk, &msg, &sig),
            Err(SignatureError::SmallOrderR)
        );
        // Non-canonical spellings of the identity as R fail on the encoding.
        for bad in [with_sign(r), p_plus(1), with_sign(p_plus(1))] {
            let sig = sig_of(&bad, &(challenge(&bad, &pk, &msg) * a).to_bytes());
            assert!(!assert_same(&pk, &msg, &sig, &mut cache));
        }
    }
}

/// Mixed-order A (and A and R) with signatures ground so that the cofactorless equation holds:
/// dalek `verify_strict` alone would accept some of these; D10 rejects all.
#[test]
fn mixed_order_points_satisfying_the_equation_are_rejected() {
    let mut cache = Keys::new();
    let mut equation_held = 0;
    for (ti, t) in EIGHT_TORSION.iter().enumerate().skip(1) {
        let a = Scalar::from(1000 + ti as u64);
        let big_a = EdwardsPoint::mul_base(&a) + t;
        let pk = big_a.compress().to_bytes();
        for counter in 0..48u64 {
            let r_scalar = Scalar::from(77 + counter);
            let msg = counter.to_le_bytes();
            // Mixed A, prime-order R: holds when [k]T = O.
            let r = EdwardsPoint::mul_base(&r_scalar).compress().to_bytes();
            let k = challenge(&r, &pk, &msg);
            let sig = sig_of(&r, &(r_scalar + k * a).to_bytes());
            if VerifyingKey::from_bytes(&pk)
                .unwrap()
                .verify_strict(&msg, &Signature::from_bytes(&sig))
                .is_ok()
            {
                equation_held += 1;
            }
            assert!(!assert_same(&pk, &msg, &sig, &mut cache));
            // Mixed A and R: R = [r]B + T', holds when −[k]T = T'.
            for t2 in EIGHT_TORSION.iter().skip(1) {
                let r = (EdwardsPoint::mul_base(&r_scalar) + t2)
                    .compress()
                    .to_bytes();
                let k = challenge(&r, &pk, &msg);
                let sig = sig_of(&r, &(r_scalar + k * a).to_bytes());
                assert!(!assert_same(&pk, &msg, &sig, &mut cache));
            }
        }
    }
    // The grind found cases where the plain equation accepts, so the test has teeth.
    assert!(equation_held > 10, "{equation_held}");
}

#[test]
fn validated_key_rejects_exactly_the_bad_keys() {
    let good = CompressedEdwardsY(Keypair::from_seed(&[9; 32]).public_key())
        .decompress()
        .unwrap();
    for p in hostile_points(&good) {
        let mut zero_sig = [0u8; 64];
        zero_sig[0] = 1;
        let want = oracle(&p, b"", &zero_sig);
        let got = ValidatedKey::from_bytes(&p);
        match got {
            Ok(_) => assert!(
                !matches!(
                    want,
                    Err(SignatureError::NonCanonicalA
                        | SignatureError::SmallOrderA
                        | SignatureError::MixedOrderA)
                ),
                "{}",
                hex::encode(p)
            ),
            Err(e) => assert_eq!(want, Err(e), "{}", hex::encode(p)),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Properties.

fn hostile_pool() -> Vec<[u8; 32]> {
    let good = CompressedEdwardsY(Keypair::from_seed(&[1; 32]).public_key())
        .decompress()
        .unwrap();
    hostile_points(&good)
}

#[derive(Debug, Clone)]
enum Mutation {
    None,
    FlipBit(usize),
    ReplaceR(usize),
    ReplaceA(usize),
    RandomR([u8; 32]),
    RandomA([u8; 32]),
    AddTorsionR(usize),
    AddTorsionA(usize),
    AddLToS(u8),
    OtherMessage(Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        Just(Mutation::None),
        (0usize..(96 * 8)).prop_map(Mutation::FlipBit),
        any::<usize>().prop_map(Mutation::ReplaceR),
        any::<usize>().prop_map(Mutation::ReplaceA),
        any::<[u8; 32]>().prop_map(Mutation::RandomR),
        any::<[u8; 32]>().prop_map(Mutation::RandomA),
        (1usize..8).prop_map(Mutation::AddTorsionR),
        (1usize..8).prop_map(Mutation::AddTorsionA),
        (1u8..16).prop_map(Mutation::AddLToS),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Mutation::OtherMessage),
    ]
}

/// S + m·L as 32 little-endian bytes (wrapping past 2^256, which only yields more S ≥ L).
fn add_multiple_of_l(s: &[u8], m: u8) -> [u8; 32] {
    let l = l_bytes();
    let mut out = [0u8; 32];
    let mut carry = 0u32;
    for i in 0..32 {
        let v = u32::from(s[i]) + u32::from(l[i]) * u32::from(m) + carry;
        out[i] = (v & 0xff) as u8;
        carry = v >> 8;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    #[test]
    fn fast_strict_verifier_agrees_with_the_oracle(
        seed in any::<[u8; 32]>(),
        msg in proptest::collection::vec(any::<u8>(), 0..64),
        m in mutation(),
    ) {
        let pool = hostile_pool();
        let kp = Keypair::from_seed(&seed);
        let mut pk = kp.public_key();
        let mut sig = kp.sign_message(&msg);
        let mut msg = msg;
        let torsion = |b: &[u8], t: usize| -> [u8; 32] {
            let p = CompressedEdwardsY(<[u8; 32]>::try_from(b).unwrap()).decompress().unwrap();
            (p + EIGHT_TORSION[t]).compress().to_bytes()
        };
        let unmutated = matches!(m, Mutation::None);
        match m {
            Mutation::None => {}
            Mutation::FlipBit(bit) => {
                let (byte, b) = (bit / 8, 1u8 << (bit % 8));
                if byte < 32 { pk[byte] ^= b } else { sig[byte - 32] ^= b }
            }
            Mutation::ReplaceR(i) => sig[..32].copy_from_slice(&pool[i % pool.len()]),
            Mutation::ReplaceA(i) => pk = pool[i % pool.len()],
            Mutation::RandomR(r) => sig[..32].copy_from_slice(&r),
            Mutation::RandomA(a) => pk = a,
            Mutation::AddTorsionR(t) => {
                let r = torsion(&sig[..32], t);
                sig[..32].copy_from_slice(&r);
            }
            Mutation::AddTorsionA(t) => pk = torsion(&pk, t),
            Mutation::AddLToS(k) => {
                let s = add_multiple_of_l(&sig[32..], k);
                sig[32..].copy_from_slice(&s);
            }
            Mutation::OtherMessage(other) => msg = other,
        }
        let mut cache = Keys::new();
        let ok = assert_same(&pk, &msg, &sig, &mut cache);
        if unmutated {
            prop_assert!(ok);
        }
    }

    /// A torsion component on an honest R always breaks the cofactorless equation, and a
    /// torsion component on A breaks the key; both fast paths name the oracle's reason.
    #[test]
    fn torsion_on_honest_signatures(seed in any::<[u8; 32]>(), t in 1usize..8, on_r in any::<bool>()) {
        let kp = Keypair::from_seed(&seed);
        let msg = seed;
        let mut pk = kp.public_key();
        let mut sig = kp.sign_message(&msg);
        let add = |b: [u8; 32]| (CompressedEdwardsY(b).decompress().unwrap() + EIGHT_TORSION[t]).compress().to_bytes();
        if on_r {
            let mut r = [0u8; 32];
            r.copy_from_slice(&sig[..32]);
            sig[..32].copy_from_slice(&add(r));
        } else {
            pk = add(pk);
        }
        let mut cache = Keys::new();
        prop_assert!(!assert_same(&pk, &msg, &sig, &mut cache));
        let want = if on_r { SignatureError::MixedOrderR } else { SignatureError::MixedOrderA };
        prop_assert_eq!(verify_strict(&pk, &msg, &sig), Err(want));
    }
}

#[test]
fn basepoint_sanity() {
    // The hostile pool includes the identity and B itself is a valid key.
    let b = ED25519_BASEPOINT_POINT.compress().to_bytes();
    assert!(ValidatedKey::from_bytes(&b).is_ok());
    assert!(hostile_pool().contains(&EdwardsPoint::identity().compress().to_bytes()));
}
