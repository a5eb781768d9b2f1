//! BLAKE2b-256, Ed25519 under the strict verification profile, and principal ids (spec §1.2, §2).
//!
//! Every protocol signature is Ed25519 over the 32-byte BLAKE2b-256 digest of a canonical JSON
//! payload. Verification follows the strict profile of decision D10 (research §3): canonical A
//! and R encodings, neither small-order nor carrying a torsion component, S < L, then dalek's
//! `verify_strict`. Batch verification is never used: dalek's batch accepted a Wycheproof
//! invalid vector. Keys are parameters; this module generates no randomness.

use blake2::digest::consts::U32;
use blake2::{Blake2b, Digest};
use curve25519_dalek::edwards::CompressedEdwardsY;
use curve25519_dalek::scalar::Scalar;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};

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

impl SignatureError {
    /// A stable kind name (matches the vector flags of research §3 where one exists).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::NonCanonicalA => "NonCanonicalA",
            Self::NonCanonicalR => "NonCanonicalR",
            Self::SmallOrderA => "SmallOrderA",
            Self::SmallOrderR => "SmallOrderR",
            Self::MixedOrderA => "MixedOrderA",
            Self::MixedOrderR => "MixedOrderR",
            Self::SNotReduced => "SNotReduced",
            Self::Mismatch => "Mismatch",
        }
    }
}

/// The kind name of a signature error (see [`SignatureError::kind`]).
pub fn sig_error_kind(err: &SignatureError) -> &'static str {
    err.kind()
}

/// Checks one point encoding: decodes, re-encodes identically, not small order, torsion-free.
fn check_point(
    bytes: &[u8; 32],
    noncanon: SignatureError,
    small: SignatureError,
    mixed: SignatureError,
) -> Result<(), SignatureError> {
    let compressed = CompressedEdwardsY(*bytes);
    let point = compressed.decompress().ok_or(noncanon)?;
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
    Ok(())
}

/// Verifies `sig` over `message` under the strict profile (D10).
pub fn verify_strict(
    public_key: &[u8; 32],
    message: &[u8],
    sig: &[u8; 64],
) -> Result<(), SignatureError> {
    let mut r = [0u8; 32];
    let mut s = [0u8; 32];
    r.copy_from_slice(&sig[..32]);
    s.copy_from_slice(&sig[32..]);
    if Option::<Scalar>::from(Scalar::from_canonical_bytes(s)).is_none() {
        return Err(SignatureError::SNotReduced);
    }
    check_point(
        public_key,
        SignatureError::NonCanonicalA,
        SignatureError::SmallOrderA,
        SignatureError::MixedOrderA,
    )?;
    check_point(
        &r,
        SignatureError::NonCanonicalR,
        SignatureError::SmallOrderR,
        SignatureError::MixedOrderR,
    )?;
    let vk = VerifyingKey::from_bytes(public_key).map_err(|_| SignatureError::NonCanonicalA)?;
    vk.verify_strict(message, &Signature::from_bytes(sig))
        .map_err(|_| SignatureError::Mismatch)
}

/// dalek's plain (non-strict) `verify`, with none of the profile's point checks.
///
/// Exists only for the `lenient-signature` fault (see [`crate::faults`]); never call it to
/// decide a protocol verdict.
pub fn verify_lenient(
    public_key: &[u8; 32],
    message: &[u8],
    sig: &[u8; 64],
) -> Result<(), SignatureError> {
    let vk = VerifyingKey::from_bytes(public_key).map_err(|_| SignatureError::NonCanonicalA)?;
    vk.verify(message, &Signature::from_bytes(sig))
        .map_err(|_| SignatureError::Mismatch)
}

/// Verifies a protocol signature: strict Ed25519 over BLAKE2b-256(`canonical_payload`).
pub fn verify_canonical(
    public_key: &[u8; 32],
    canonical_payload: &str,
    sig: &[u8; 64],
) -> Result<(), SignatureError> {
    verify_strict(public_key, &blake2b256(canonical_payload.as_bytes()), sig)
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
