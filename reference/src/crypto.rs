//! BLAKE2b-256, Ed25519 under the strict verification profile, and principal ids (spec §1.2, §2).
//!
//! Every protocol signature is Ed25519 over the 32-byte BLAKE2b-256 digest of a canonical JSON
//! payload. Verification follows the strict profile of decision D10 (research §3): canonical A
//! and R encodings, neither small-order nor carrying a torsion component, S < L, then dalek's
//! `verify_strict`, computed at about the cost of one dalek `verify_strict` per signature
//! once the key is validated ([`ValidatedKey`], kept in a [`KeyStore`]). Batch verification is
//! never used: dalek's batch accepted a Wycheproof invalid vector. Keys are parameters; this
//! module generates no randomness.

use blake2::digest::consts::U32;
use blake2::{Blake2b, Digest};
use std::collections::hash_map::{Entry, HashMap};

use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::Scalar;
use ed25519_dalek::{Signer, SigningKey};
use sha2::Sha512;

use crate::encoding::{b64u_encode, decode_principal};

/// BLAKE2b with a 32-byte output (not a truncated BLAKE2b-512, which differs).
pub type Blake2b256 = Blake2b<U32>;

/// BLAKE2b-256 of `data`.
pub fn blake2b256(data: &[u8]) -> [u8; 32] {
    Blake2b256::digest(data).into()
}

/// An Ed25519 keypair derived from a 32-byte seed (the spec's `privateKey`).
#[derive(Debug, Clone)]
pub struct Keypair {
    signing: SigningKey,
}

impl Keypair {
    /// Derives the keypair of `seed` (RFC 8032 key generation).
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        Self {
            signing: SigningKey::from_bytes(seed),
        }
    }

    /// The 32-byte public key.
    pub fn public_key(&self) -> [u8; 32] {
        self.signing.verifying_key().to_bytes()
    }

    /// The principal id: base64url (no padding) of the public key, 43 characters.
    pub fn principal_id(&self) -> String {
        b64u_encode(&self.public_key())
    }

    /// Signs a 32-byte digest (the digest is the Ed25519 message).
    pub fn sign_digest(&self, digest: &[u8; 32]) -> [u8; 64] {
        self.signing.sign(digest).to_bytes()
    }

    /// Signs an arbitrary message (used for RFC 8032 known-answer tests).
    pub fn sign_message(&self, message: &[u8]) -> [u8; 64] {
        self.signing.sign(message).to_bytes()
    }
}

/// Ed25519-sign BLAKE2b-256 of a canonical payload, the protocol's only signing operation.
pub fn sign_canonical(keypair: &Keypair, canonical_payload: &str) -> [u8; 64] {
    keypair.sign_digest(&blake2b256(canonical_payload.as_bytes()))
}

/// Why a signature was rejected under the strict profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum SignatureError {
    /// A is not a valid point or its encoding is not canonical.
    #[error("public key is not a canonical point encoding")]
    NonCanonicalA,
    /// R is not a valid point or its encoding is not canonical.
    #[error("R is not a canonical point encoding")]
    NonCanonicalR,
    /// A is a small-order point.
    #[error("public key has small order")]
    SmallOrderA,
    /// R is a small-order point.
    #[error("R has small order")]
    SmallOrderR,
    /// A has a torsion component (mixed order).
    #[error("public key has a torsion component")]
    MixedOrderA,
    /// R has a torsion component (mixed order).
    #[error("R has a torsion component")]
    MixedOrderR,
    /// S is not reduced modulo L.
    #[error("S is not reduced")]
    SNotReduced,
    /// The verification equation does not hold.
    #[error("signature does not verify")]
    Mismatch,
}

/// Checks one point encoding: decodes, re-encodes identically, not small order, torsion-free.
/// Returns the decoded point.
fn check_point(
    bytes: &[u8; 32],
    noncanon: SignatureError,
    small: SignatureError,
    mixed: SignatureError,
) -> Result<EdwardsPoint, SignatureError> {
    let point = CompressedEdwardsY(*bytes).decompress().ok_or(noncanon)?;
    // decompress() reduces y mod p and ignores a sign bit on x = 0; re-encoding exposes both.
    if point.compress().to_bytes() != *bytes {
        return Err(noncanon);
    }
    if point.is_small_order() {
        return Err(small);
    }
    if !point.is_torsion_free() {
        return Err(mixed);
    }
    Ok(point)
}

/// `S` of a signature as a scalar, or `SNotReduced` if `S ≥ L`.
fn reduced_s(sig: &[u8; 64]) -> Result<Scalar, SignatureError> {
    let mut s = [0u8; 32];
    s.copy_from_slice(&sig[32..]);
    if crate::faults::on("ed25519.s-not-reduced") {
        return Ok(Scalar::from_bytes_mod_order(s));
    }
    Option::<Scalar>::from(Scalar::from_canonical_bytes(s)).ok_or(SignatureError::SNotReduced)
}

/// The canonical encoding of the identity point (y = 1, x = 0).
const IDENTITY_ENCODING: [u8; 32] = {
    let mut e = [0u8; 32];
    e[0] = 1;
    e
};

/// A public key that passed the key half of the strict profile (D10): its 32 bytes are the
/// canonical encoding of a point that is neither small-order nor mixed-order, i.e. a point of
/// the prime-order subgroup other than the identity.
///
/// The checks depend only on the key, so a verifier validates each principal once and reuses
/// the value for every block it signs (a [`KeyStore`] does so across tokens). Verifying with a
/// `ValidatedKey` costs one double-scalar multiplication and one SHA-512 per signature, about
/// one dalek `VerifyingKey::verify_strict` (which additionally decompresses R).
///
/// # Why [`ValidatedKey::verify`] has exactly the accept/reject set of D10
///
/// Notation: E is the curve group, |E| = 8·L; G = ⟨B⟩ is its subgroup of prime order L. A point
/// P is torsion-free iff P ∈ G; it is small-order iff [8]P = O; G contains exactly one
/// small-order point, the identity O. `enc` is the canonical encoding (y < p, sign bit = x mod 2,
/// sign bit 0 when x = 0); `enc` is injective and dalek's `compress` computes it.
///
/// The D10 predicate (the function this replaced, kept as the test oracle in
/// `reference/tests/ed25519_differential.rs`) accepts (A_bytes, M, R_bytes‖S) iff
///   (1) S < L;
///   (2) A_bytes decodes to a point A with enc(A) = A_bytes, A not small-order, A torsion-free;
///   (3) R_bytes decodes to a point R with enc(R) = R_bytes, R not small-order, R torsion-free;
///   (4) dalek `verify_strict`: S < L, R decodes, neither R nor A small-order, and
///       enc([S]B − [k]A) = R_bytes with k = SHA-512(R_bytes ‖ A_bytes ‖ M) mod L.
///
/// A `ValidatedKey` exists only if (2) holds, so A ∈ G \ {O}. `verify` accepts iff
///   (1) S < L, and (5) enc(R') = R_bytes where R' = [S]B − [k]A with the same k (the raw
///   R_bytes and A_bytes are hashed, as dalek does), and (6) R_bytes ≠ enc(O).
///
/// * D10 ⇒ new: (1) is shared; (4) is (5); by (3) R_bytes = enc(R) with R not small-order, so
///   R ≠ O and, `enc` being injective, R_bytes ≠ enc(O): (6).
/// * new ⇒ D10: B, A ∈ G, so R' ∈ G. By (5) R_bytes = enc(R') is a canonical encoding, so it
///   decodes to R' and re-encodes to itself. By (6) R' ≠ O, so R' has order exactly L: it is not
///   small-order and it is torsion-free. That is (3). (2) holds by construction; (4) holds
///   because S < L, R decodes, R' and A are not small-order and its equation is (5).
///
/// (6) is not redundant: the identity has order 1, so "R' is in the prime-order subgroup" does
/// not make R' prime-order. The holder of A's secret a can sign with R_bytes = enc(O) and
/// S = k·a mod L; then [S]B − [k]A = O and the cofactorless equation holds, while D10 (and dalek
/// `verify_strict`) reject R as small-order. The differential test contains this signature.
///
/// Everything else that D10 rejects through R is rejected by (5) alone: a non-canonical,
/// undecodable, small-order or mixed-order R_bytes is never enc(R') for R' ∈ G \ {O}. On a
/// rejection `verify` re-runs the R checks to report the same [`SignatureError`] the D10
/// function reports (it checked S, then A, then R, then the equation); they cost time only on
/// the rejection path.
#[derive(Clone)]
pub struct ValidatedKey {
    bytes: [u8; 32],
    minus_a: EdwardsPoint,
}

impl std::fmt::Debug for ValidatedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ValidatedKey")
            .field(&b64u_encode(&self.bytes))
            .finish()
    }
}

impl ValidatedKey {
    /// Validates a public key: canonical encoding, not small order, torsion-free
    /// (`NonCanonicalA`, `SmallOrderA`, `MixedOrderA` otherwise).
    pub fn from_bytes(public_key: &[u8; 32]) -> Result<Self, SignatureError> {
        if crate::faults::on("ed25519.weak-keys-accepted") {
            // The mistake: any decodable point is a key (small order and non-canonical too).
            let a = CompressedEdwardsY(*public_key)
                .decompress()
                .ok_or(SignatureError::NonCanonicalA)?;
            return Ok(Self {
                bytes: *public_key,
                minus_a: -a,
            });
        }
        let a = check_point(
            public_key,
            SignatureError::NonCanonicalA,
            SignatureError::SmallOrderA,
            SignatureError::MixedOrderA,
        )?;
        Ok(Self {
            bytes: *public_key,
            minus_a: -a,
        })
    }

    /// Verifies `sig` over `message` under the strict profile (D10); see the type's
    /// documentation for why this is exactly D10 for a validated key.
    pub fn verify(&self, message: &[u8], sig: &[u8; 64]) -> Result<(), SignatureError> {
        let s = reduced_s(sig)?;
        let mut r_bytes = [0u8; 32];
        r_bytes.copy_from_slice(&sig[..32]);
        let mut h = Sha512::new();
        h.update(r_bytes);
        h.update(self.bytes);
        h.update(message);
        let k = Scalar::from_bytes_mod_order_wide(&h.finalize().into());
        let expected_r = EdwardsPoint::vartime_double_scalar_mul_basepoint(&k, &self.minus_a, &s);
        // (The fault `ed25519.weak-keys-accepted` also drops the identity-R rule, as the
        // lenient verifiers that accept weak keys do.)
        if expected_r.compress().to_bytes() == r_bytes
            && (r_bytes != IDENTITY_ENCODING || crate::faults::on("ed25519.weak-keys-accepted"))
        {
            return Ok(());
        }
        // Rejected. Name the reason the way the D10 checks order it: R's encoding and order
        // first, then the equation.
        check_point(
            &r_bytes,
            SignatureError::NonCanonicalR,
            SignatureError::SmallOrderR,
            SignatureError::MixedOrderR,
        )?;
        Err(SignatureError::Mismatch)
    }
}

/// Where a verifier keeps the keys it has validated: the key half of D10 depends only on the
/// key, so each signer's key needs validating once ([`verify_strict_with`]).
///
/// The `*_with_keys` functions of [`crate::verify`] and [`crate::mcp`] take one. A `HashMap`
/// keeps every key it is asked for, which is what one call of [`crate::verify::verify`] does;
/// a long-lived verifier that must bound its memory supplies its own store (the reference
/// proxy's `KeyCache` in the harness). A store returns the key it is asked for, so it changes
/// how often a key is validated, never a result.
pub trait KeyStore {
    /// The validated key for `public_key`, validated now if the store does not hold it
    /// (`NonCanonicalA`, `SmallOrderA` or `MixedOrderA` for a key that fails).
    fn validated(&mut self, public_key: &[u8; 32]) -> Result<&ValidatedKey, SignatureError>;

    /// [`verify_strict`] of `sig` over `message` under `public_key`, the key taken from this
    /// store: S is checked first, then the key, then R and the equation (D10's order). A store
    /// may also remember results (the verification is a pure function of its three inputs and
    /// the two `ed25519.*` fault switches), but must return what this default returns.
    fn verify(
        &mut self,
        public_key: &[u8; 32],
        message: &[u8],
        sig: &[u8; 64],
    ) -> Result<(), SignatureError> {
        reduced_s(sig)?;
        self.validated(public_key)?.verify(message, sig)
    }
}

impl KeyStore for HashMap<[u8; 32], ValidatedKey> {
    fn validated(&mut self, public_key: &[u8; 32]) -> Result<&ValidatedKey, SignatureError> {
        match self.entry(*public_key) {
            Entry::Occupied(known) => Ok(known.into_mut()),
            Entry::Vacant(slot) => Ok(slot.insert(ValidatedKey::from_bytes(public_key)?)),
        }
    }
}

/// Verifies `sig` over `message` under the strict profile (D10): S < L, then the key checks,
/// then R and the equation (see [`ValidatedKey`]). Validates the key on every call; callers
/// that see a key more than once use [`verify_strict_with`].
pub fn verify_strict(
    public_key: &[u8; 32],
    message: &[u8],
    sig: &[u8; 64],
) -> Result<(), SignatureError> {
    verify_strict_with(&mut HashMap::new(), public_key, message, sig)
}

/// [`verify_strict`] taking the validated key from `keys` (validating and storing it on a
/// miss): the same result on every input, whatever `keys` holds. S is checked before the key,
/// as the D10 order has it.
pub fn verify_strict_with(
    keys: &mut dyn KeyStore,
    public_key: &[u8; 32],
    message: &[u8],
    sig: &[u8; 64],
) -> Result<(), SignatureError> {
    keys.verify(public_key, message, sig)
}

/// Verifies a protocol signature: strict Ed25519 over BLAKE2b-256(`canonical_payload`).
pub fn verify_canonical(
    public_key: &[u8; 32],
    canonical_payload: &str,
    sig: &[u8; 64],
) -> Result<(), SignatureError> {
    verify_strict(public_key, &blake2b256(canonical_payload.as_bytes()), sig)
}

/// [`verify_canonical`] taking the validated key from `keys` (see [`verify_strict_with`]).
pub fn verify_canonical_with(
    keys: &mut dyn KeyStore,
    public_key: &[u8; 32],
    canonical_payload: &str,
    sig: &[u8; 64],
) -> Result<(), SignatureError> {
    verify_strict_with(
        keys,
        public_key,
        &blake2b256(canonical_payload.as_bytes()),
        sig,
    )
}

/// Verifies with a principal id instead of raw key bytes; a malformed id is `NonCanonicalA`.
pub fn verify_canonical_principal(
    principal: &str,
    canonical_payload: &str,
    sig: &[u8; 64],
) -> Result<(), SignatureError> {
    let pk = decode_principal(principal).map_err(|_| SignatureError::NonCanonicalA)?;
    verify_canonical(&pk, canonical_payload, sig)
}
