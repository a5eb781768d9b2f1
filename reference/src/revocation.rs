//! Revocation entries and the in-memory revocation list (spec §4; decision D6).
//!
//! An entry is signed by `revokedBy` over BLAKE2b-256(canonicalize({revocationId, revokedBy,
//! revokedAt, scope})). [`RevocationList::add`] refuses entries whose signature or formats are
//! wrong; whether `revokedBy` is the signer of the revoked block can only be known with the
//! token in hand, so that check (D6 (c)) is in [`crate::verify`]. Several entries may name the
//! same revocation id (different revokers, e.g. a wrong one and the right one); all are kept.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::canonical::canonicalize;
use crate::crypto::{sign_canonical, verify_canonical_with, KeyStore, Keypair};
use crate::encoding::{b64u_decode, b64u_encode, decode_principal, decode_signature};
use crate::faults;
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

/// Why an entry or list was refused (codes of `spec/error-codes.md` §4).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RevocationError {
    /// `fromJSON` text is not (strict) JSON.
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    /// The entry is not exactly the five members with well-formed values, or the JSON is not
    /// an array of objects.
    #[error("malformed entry: {0}")]
    MalformedEntry(String),
    /// `scope` is a string other than `block` or `chain`.
    #[error("invalid scope {0:?}")]
    InvalidScope(String),
    /// The signature does not verify under `revokedBy`.
    #[error("invalid signature: {0}")]
    InvalidSignature(String),
    /// `revokedAt` given to [`create_entry_checked`] is outside the D5 profile.
    #[error("invalid timestamp: {0}")]
    InvalidTimestamp(String),
}

impl RevocationError {
    /// The stable code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidJson(_) => "invalid_json",
            Self::MalformedEntry(_) => "malformed_entry",
            Self::InvalidScope(_) => "invalid_scope",
            Self::InvalidSignature(_) => "invalid_signature",
            Self::InvalidTimestamp(_) => "invalid_timestamp",
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

/// Creates and signs an entry with `revoker`'s key (`revokedBy` = its principal id). Signs
/// whatever it is given (generators use it for invalid entries); see [`create_entry_checked`].
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

/// [`create_entry`] refusing a `revokedAt` outside the D5 profile (`invalid_timestamp`) or a
/// revocation id that is not base64url of 32 bytes (`malformed_entry`).
pub fn create_entry_checked(
    revoker: &Keypair,
    revocation_id: &str,
    revoked_at: &str,
    scope: Scope,
) -> Result<RevocationEntry, RevocationError> {
    Timestamp::parse(revoked_at).map_err(|e| RevocationError::InvalidTimestamp(e.to_string()))?;
    check_revocation_id(revocation_id)?;
    Ok(create_entry(revoker, revocation_id, revoked_at, scope))
}

fn check_revocation_id(id: &str) -> Result<(), RevocationError> {
    match b64u_decode(id) {
        Ok(bytes) if bytes.len() == 32 => Ok(()),
        _ => Err(RevocationError::MalformedEntry(
            "revocationId is not base64url of 32 bytes".into(),
        )),
    }
}

/// Checks formats and the signature of an entry (order: shape, signature).
pub fn verify_entry(entry: &RevocationEntry) -> Result<(), RevocationError> {
    verify_entry_with(entry, &mut HashMap::new())
}

/// [`verify_entry`] taking the signer's validated key from `keys` (validating and storing it
/// on a miss): the same result on every input, whatever `keys` holds.
pub fn verify_entry_with(
    entry: &RevocationEntry,
    keys: &mut dyn KeyStore,
) -> Result<(), RevocationError> {
    let malformed = |what: &str| RevocationError::MalformedEntry(what.to_owned());
    check_revocation_id(&entry.revocation_id)?;
    let pk = decode_principal(&entry.revoked_by).map_err(|_| malformed("revokedBy"))?;
    Timestamp::parse(&entry.revoked_at).map_err(|_| malformed("revokedAt"))?;
    let sig = decode_signature(&entry.signature).map_err(|_| malformed("signature encoding"))?;
    let payload = entry_payload(
        &entry.revocation_id,
        &entry.revoked_by,
        &entry.revoked_at,
        entry.scope,
    );
    if faults::on("revocation.entry-signature-unchecked") {
        return Ok(());
    }
    verify_canonical_with(keys, &pk, &payload, &sig)
        .map_err(|e| RevocationError::InvalidSignature(e.to_string()))
}

/// Reads one entry from JSON, checking shape, then scope, then signature (error-codes §4).
pub fn entry_from_value(value: &Value) -> Result<RevocationEntry, RevocationError> {
    entry_from_value_with(value, &mut HashMap::new())
}

/// [`entry_from_value`] taking the signer's validated key from `keys` (see
/// [`verify_entry_with`]).
pub fn entry_from_value_with(
    value: &Value,
    keys: &mut dyn KeyStore,
) -> Result<RevocationEntry, RevocationError> {
    let malformed = |what: String| RevocationError::MalformedEntry(what);
    let obj = value
        .as_object()
        .ok_or_else(|| malformed("entry is not an object".into()))?;
    const KEYS: [&str; 5] = [
        "revocationId",
        "revokedBy",
        "revokedAt",
        "scope",
        "signature",
    ];
    if obj.len() != KEYS.len() || !KEYS.iter().all(|k| obj.contains_key(*k)) {
        return Err(malformed(
            "entry must have exactly revocationId, revokedBy, revokedAt, scope, signature".into(),
        ));
    }
    let field = |k: &str| {
        obj.get(k)
            .and_then(Value::as_str)
            .ok_or_else(|| malformed(format!("{k} must be a string")))
    };
    let (revocation_id, revoked_by, revoked_at, scope, signature) = (
        field("revocationId")?,
        field("revokedBy")?,
        field("revokedAt")?,
        field("scope")?,
        field("signature")?,
    );
    check_revocation_id(revocation_id)?;
    decode_principal(revoked_by).map_err(|_| malformed("revokedBy".into()))?;
    Timestamp::parse(revoked_at).map_err(|_| malformed("revokedAt".into()))?;
    decode_signature(signature).map_err(|_| malformed("signature encoding".into()))?;
    let scope = match scope {
        "block" => Scope::Block,
        "chain" => Scope::Chain,
        other => return Err(RevocationError::InvalidScope(other.to_owned())),
    };
    let entry = RevocationEntry {
        revocation_id: revocation_id.to_owned(),
        revoked_by: revoked_by.to_owned(),
        revoked_at: revoked_at.to_owned(),
        scope,
        signature: signature.to_owned(),
    };
    verify_entry_with(&entry, keys)?;
    Ok(entry)
}

/// The in-memory revocation list (§4.2): O(1) lookup by revocation id, insertion-order
/// listing (D22).
#[derive(Debug, Clone, Default)]
pub struct RevocationList {
    entries: Vec<RevocationEntry>,
    by_id: HashMap<String, Vec<usize>>,
}

impl RevocationList {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Verifies and adds an entry.
    ///
    /// D22 makes a second entry for an id a no-op. Read literally that would let anyone who
    /// has seen a token pre-empt its revocation with a wrong-revoker entry (which D6 makes
    /// ineffective), so the no-op applies per (id, revoker): a second entry by the same
    /// revoker changes nothing, an entry by a different revoker is kept too.
    pub fn add(&mut self, entry: RevocationEntry) -> Result<(), RevocationError> {
        self.add_with(entry, &mut HashMap::new())
    }

    /// [`RevocationList::add`] taking the signer's validated key from `keys` (see
    /// [`verify_entry_with`]).
    pub fn add_with(
        &mut self,
        entry: RevocationEntry,
        keys: &mut dyn KeyStore,
    ) -> Result<(), RevocationError> {
        verify_entry_with(&entry, keys)?;
        let slot = self.by_id.entry(entry.revocation_id.clone()).or_default();
        let entries = &self.entries;
        if slot.iter().any(|&i| {
            entries
                .get(i)
                .is_some_and(|e| e.revoked_by == entry.revoked_by)
        }) {
            return Ok(());
        }
        slot.push(self.entries.len());
        self.entries.push(entry);
        Ok(())
    }

    /// True if any entry names `revocation_id` (whoever signed it; verify applies D6 (c)).
    pub fn is_revoked(&self, revocation_id: &str) -> bool {
        self.by_id.get(revocation_id).is_some_and(|v| !v.is_empty())
    }

    /// All entries naming `revocation_id`, in insertion order.
    pub fn entries_for(&self, revocation_id: &str) -> Vec<&RevocationEntry> {
        self.by_id
            .get(revocation_id)
            .map(|ix| ix.iter().filter_map(|&i| self.entries.get(i)).collect())
            .unwrap_or_default()
    }

    /// True if `revocation_id` is revoked by an entry whose `revokedBy` is `signer` (D6 (c)).
    pub fn is_revoked_by(&self, revocation_id: &str, signer: &str) -> bool {
        crate::faults::entries_considered(&self.entries_for(revocation_id))
            .iter()
            .any(|e| e.revoked_by == signer)
    }

    /// True if there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All entries in insertion order (D22).
    pub fn list(&self) -> Vec<RevocationEntry> {
        self.entries.clone()
    }

    /// The list as canonical JSON: an array of entries in [`Self::list`] order.
    pub fn to_json(&self) -> String {
        crate::token::canonical_of(&self.entries)
    }

    /// Loads a list, re-verifying every entry; the first bad entry fails the whole load (D6).
    pub fn from_json(text: &str) -> Result<Self, RevocationError> {
        let value =
            parse_strict_str(text).map_err(|e| RevocationError::InvalidJson(e.to_string()))?;
        let items = value
            .as_array()
            .ok_or_else(|| RevocationError::MalformedEntry("not an array of entries".into()))?;
        let mut list = Self::new();
        for item in items {
            list.add(entry_from_value(item)?)?;
        }
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::revocation_id_of_canonical;

    #[test]
    fn roundtrip_and_tamper() {
        let kp = Keypair::from_seed(&[7; 32]);
        let rid = revocation_id_of_canonical(r#"{"a":1}"#);
        let e = create_entry(&kp, &rid, "2026-01-01T00:00:00Z", Scope::Chain);
        assert_eq!(verify_entry(&e), Ok(()));
        let mut list = RevocationList::new();
        list.add(e.clone()).unwrap();
        list.add(e.clone()).unwrap();
        assert_eq!(list.list(), vec![e.clone()]);
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
            "invalid_scope"
        );
        assert_eq!(
            RevocationList::from_json("{").unwrap_err().code(),
            "invalid_json"
        );
        assert_eq!(
            RevocationList::from_json("{}").unwrap_err().code(),
            "malformed_entry"
        );
        let other = Keypair::from_seed(&[8; 32]);
        list.add(create_entry(
            &other,
            &rid,
            "2026-01-01T00:00:00Z",
            Scope::Block,
        ))
        .unwrap();
        assert_eq!(list.list().len(), 2);
        assert_eq!(list.list()[0], e);
    }
}
