//! Revocation entries and the in-memory revocation list (spec §4; decision D6).
//!
//! An entry is signed by `revokedBy` over BLAKE2b-256(canonicalize({revocationId, revokedBy,
//! revokedAt, scope})). [`RevocationList::add`] refuses entries whose signature or formats are
//! wrong; whether `revokedBy` is the signer of the revoked block can only be known with the
//! token in hand, so that check (D6 (c)) is in [`crate::verify`]. Several entries may name the
//! same revocation id (different revokers, e.g. a wrong one and the right one); all are kept.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::canonical::canonicalize;
use crate::crypto::{sign_canonical, verify_canonical, Keypair};
use crate::encoding::{b64u_decode, b64u_encode, decode_principal, decode_signature};
use crate::json::parse_strict_str;
use crate::timestamp::Timestamp;

/// `block` revokes the block, `chain` the block and its descendants; for verification the
/// two are equivalent in v0.1 (D6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `"block"`.
    Block,
    /// `"chain"`.
    Chain,
}

impl Scope {
    /// The wire string.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Block => "block",
            Scope::Chain => "chain",
        }
    }
}

/// A signed revocation (§4.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevocationEntry {
    /// Revocation id of the block (43-char base64url of a BLAKE2b-256 digest).
    pub revocation_id: String,
    /// Principal id of the revoker; must be the revoked block's signer to take effect.
    pub revoked_by: String,
    /// When (D5 profile).
    pub revoked_at: String,
    /// `block` or `chain`.
    pub scope: Scope,
    /// base64url Ed25519 signature.
    pub signature: String,
}

/// Why an entry or list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RevocationError {
    /// The signature does not verify under `revokedBy`.
    #[error("invalid signature: {0}")]
    InvalidSignature(String),
    /// A field has the wrong format, or the JSON is not a list of entries.
    #[error("malformed entry: {0}")]
    MalformedEntry(String),
}

impl RevocationError {
    /// The stable code: `invalid_signature` or `malformed_entry`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidSignature(_) => "invalid_signature",
            Self::MalformedEntry(_) => "malformed_entry",
        }
    }
}

/// The canonical payload an entry's signature covers.
pub fn entry_payload(
    revocation_id: &str,
    revoked_by: &str,
    revoked_at: &str,
    scope: Scope,
) -> String {
    let v = json!({
        "revocationId": revocation_id,
        "revokedBy": revoked_by,
        "revokedAt": revoked_at,
        "scope": scope.as_str(),
    });
    // A map of four strings always canonicalizes; an empty payload would only fail to verify.
    canonicalize(&v).unwrap_or_default()
}

/// Creates and signs an entry with `revoker`'s key (`revokedBy` = its principal id).
pub fn create_entry(
    revoker: &Keypair,
    revocation_id: &str,
    revoked_at: &str,
    scope: Scope,
) -> RevocationEntry {
    let revoked_by = revoker.principal_id();
    let payload = entry_payload(revocation_id, &revoked_by, revoked_at, scope);
    RevocationEntry {
        revocation_id: revocation_id.to_owned(),
        revoked_by,
        revoked_at: revoked_at.to_owned(),
        scope,
        signature: b64u_encode(&sign_canonical(revoker, &payload)),
    }
}

/// Checks formats and the signature of an entry.
pub fn verify_entry(entry: &RevocationEntry) -> Result<(), RevocationError> {
    let malformed = |what: &str| RevocationError::MalformedEntry(what.to_owned());
    match b64u_decode(&entry.revocation_id) {
        Ok(bytes) if bytes.len() == 32 => {}
        _ => return Err(malformed("revocationId is not base64url of 32 bytes")),
    }
    let pk = decode_principal(&entry.revoked_by).map_err(|_| malformed("revokedBy"))?;
    Timestamp::parse(&entry.revoked_at).map_err(|_| malformed("revokedAt"))?;
    let sig = decode_signature(&entry.signature).map_err(|_| malformed("signature encoding"))?;
    let payload = entry_payload(
        &entry.revocation_id,
        &entry.revoked_by,
        &entry.revoked_at,
        entry.scope,
    );
    verify_canonical(&pk, &payload, &sig)
        .map_err(|e| RevocationError::InvalidSignature(e.to_string()))
}

/// The in-memory revocation list (§4.2): O(1) lookup by revocation id.
#[derive(Debug, Clone, Default)]
pub struct RevocationList {
    by_id: HashMap<String, Vec<RevocationEntry>>,
}

impl RevocationList {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Verifies and adds an entry; an identical entry already present is a no-op.
    pub fn add(&mut self, entry: RevocationEntry) -> Result<(), RevocationError> {
        verify_entry(&entry)?;
        let slot = self.by_id.entry(entry.revocation_id.clone()).or_default();
        if !slot.contains(&entry) {
            slot.push(entry);
        }
        Ok(())
    }

    /// True if any entry names `revocation_id` (whoever signed it; verify applies D6 (c)).
    pub fn is_revoked(&self, revocation_id: &str) -> bool {
        self.by_id.get(revocation_id).is_some_and(|v| !v.is_empty())
    }

    /// All entries naming `revocation_id`.
    pub fn entries_for(&self, revocation_id: &str) -> &[RevocationEntry] {
        self.by_id.get(revocation_id).map_or(&[], Vec::as_slice)
    }

    /// True if `revocation_id` is revoked by an entry whose `revokedBy` is `signer`.
    pub fn is_revoked_by(&self, revocation_id: &str, signer: &str) -> bool {
        self.entries_for(revocation_id)
            .iter()
            .any(|e| e.revoked_by == signer)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.by_id.values().map(Vec::len).sum()
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All entries in a deterministic order (sorted by every field).
    pub fn list(&self) -> Vec<RevocationEntry> {
        let mut all: Vec<_> = self.by_id.values().flatten().cloned().collect();
        all.sort();
        all
    }

    /// The list as canonical JSON: an array of entries in [`Self::list`] order.
    pub fn to_json(&self) -> String {
        crate::token::canonical_of(&self.list())
    }

    /// Loads a list, re-verifying every entry; any bad entry fails the whole load (D6).
    pub fn from_json(text: &str) -> Result<Self, RevocationError> {
        let value =
            parse_strict_str(text).map_err(|e| RevocationError::MalformedEntry(e.to_string()))?;
        let entries: Vec<RevocationEntry> = serde_json::from_value(value)
            .map_err(|e| RevocationError::MalformedEntry(e.to_string()))?;
        let mut list = Self::new();
        for e in entries {
            list.add(e)?;
        }
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::revocation_id_of;

    #[test]
    fn roundtrip_and_tamper() {
        let kp = Keypair::from_seed(&[7; 32]);
        let rid = revocation_id_of(&json!({"a": 1}));
        let e = create_entry(&kp, &rid, "2026-01-01T00:00:00Z", Scope::Chain);
        assert_eq!(verify_entry(&e), Ok(()));
        let mut list = RevocationList::new();
        list.add(e.clone()).unwrap();
        list.add(e.clone()).unwrap();
        assert_eq!(list.len(), 1);
        assert!(list.is_revoked(&rid));
        assert!(list.is_revoked_by(&rid, &kp.principal_id()));
        let back = RevocationList::from_json(&list.to_json()).unwrap();
        assert_eq!(back.list(), list.list());

        let mut bad = e.clone();
        bad.scope = Scope::Block;
        assert_eq!(
            list.add(bad.clone()).unwrap_err().code(),
            "invalid_signature"
        );
        let json = crate::token::canonical_of(&vec![e.clone(), bad]);
        assert!(RevocationList::from_json(&json).is_err());
        let unknown = list.to_json().replace("\"scope\"", "\"extra\":1,\"scope\"");
        assert_eq!(
            RevocationList::from_json(&unknown).unwrap_err().code(),
            "malformed_entry"
        );
        let wrong_scope = list.to_json().replace("\"chain\"", "\"tree\"");
        assert_eq!(
            RevocationList::from_json(&wrong_scope).unwrap_err().code(),
            "malformed_entry"
        );
    }
}
