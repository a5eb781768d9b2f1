//! Delegation chains: the §8.1 `Delegation` record and the §8.2 invariants.
//!
//! This module owns the question "is this root-to-leaf path of delegations consistent". The
//! input is ordered: `delegations[0]` is the root, each next one is a child of the previous.
//! Token verification itself is [`crate::verify`]; this module calls it for every DCT.
//!
//! Checks (D26): the delegations are taken **one at a time, root first**, and each one goes
//! through every step below before the next one is looked at; the first failure wins. So a
//! later delegation's shape fault is never reported before an earlier delegation's DCT denial.
//! An empty list is `malformed_delegation`.
//!
//! For delegation *i*:
//!
//! 0. structure (`malformed_delegation`): `id`, `parentId` `del_` + 12 lowercase hex; `from`,
//!    `to` principal ids; `contractId` `ct_`; `createdAt`/`completedAt` in the D5 profile;
//!    `attestationId` `att_`; the DCT decodes (`malformed_delegation` carries the token's
//!    reason); `depth` ≤ 2^53−1.
//! 1. for the root, invariant 1 (`root_invalid`): `parentId == "del_000000000000"`,
//!    `depth == 0`, its DCT has no attenuations, `authority.chainDepth == 0`, and
//!    `from == authority.issuer` (an issuer other than the trusted root key fails the DCT's
//!    verification in step 7 with `invalid_signature`, 10.1/3a, D26).
//!
//! For a child, against its parent (steps 2–6):
//!
//! 2. `child.parentId == parent.id` (`parent_mismatch`);
//! 3. invariant 2 (`from_mismatch`): `child.from == parent.to`;
//! 4. invariant 3 (`depth_mismatch`): `child.depth == parent.depth + 1`;
//! 5. invariant 4 (`depth_exceeded`): `child.depth ≤ root DCT authority.maxChainDepth` (D4:
//!    absolute);
//! 6. invariant 5 (`not_attenuated`): the child DCT is the parent DCT plus exactly one
//!    attenuation (D26 (b)): identical authority, the parent's attenuations a prefix of the
//!    child's, the parent's signatures a prefix of the child's, one more attenuation.
//!
//! Then, for every delegation:
//!
//! 7. its DCT verifies (§10.1 steps 1–6 at `now`, nothing spent, under `root_public_key` and
//!    `revocations`); the error carries the denial and uses its code;
//! 8. the DCT describes this delegation (`dct_mismatch`, D26, `spec/error-codes.md` §8): the
//!    DCT's effective (last) `delegationId` equals `id`, its effective `contractId` equals
//!    `contractId`, its last delegatee equals `to`, and the signer of its last block
//!    (authority issuer, or last attenuator) equals `from`. Otherwise a record could claim a
//!    DCT minted for another hop.
//!
//! [`verify_chain`] takes the delegations as an iterator of already-deserialized records or
//! shape errors, so the operation layer can deserialize delegation *i+1* only after delegation
//! *i* passed.
//!
//! `status`, `completedAt` and `attestationId` are carried, not judged.

use std::borrow::Borrow;

use serde::{Deserialize, Serialize};

use crate::encoding::{is_attestation_id, is_contract_id, is_delegation_id, is_principal_id};
use crate::revocation::RevocationList;
use crate::timestamp::Timestamp;
use crate::token::{decode, SerializedDct, SignedJsonToken, ROOT_PARENT_DELEGATION_ID};
use crate::verify::{evaluate, Denial};

const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// §8.1 `Delegation.status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DelegationStatus {
    /// In progress.
    Active,
    /// Done.
    Completed,
    /// Failed.
    Failed,
    /// Revoked.
    Revoked,
}

/// §8.1 `Delegation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Delegation {
    /// `del_` id.
    pub id: String,
    /// Parent's id, `del_000000000000` for the root.
    pub parent_id: String,
    /// Delegator principal id.
    pub from: String,
    /// Delegatee principal id.
    pub to: String,
    /// Contract id.
    pub contract_id: String,
    /// The delegated token.
    pub dct: SerializedDct,
    /// 0 for the root.
    pub depth: u64,
    /// Lifecycle status.
    pub status: DelegationStatus,
    /// Creation time.
    pub created_at: String,
    /// Completion time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// Attestation id, once completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attestation_id: Option<String>,
}

/// Why a chain is refused; `index` is the offending delegation's position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChainError {
    /// Step 0.
    #[error("delegation {index} is malformed: {detail}")]
    Malformed {
        /// Position.
        index: usize,
        /// Why.
        detail: String,
    },
    /// Invariant 1.
    #[error("root delegation is invalid: {0}")]
    RootInvalid(String),
    /// `parentId` does not name the previous delegation.
    #[error("delegation {index}: parentId does not name the previous delegation")]
    ParentMismatch {
        /// Position.
        index: usize,
    },
    /// Invariant 2.
    #[error("delegation {index}: from is not the parent's to")]
    FromMismatch {
        /// Position.
        index: usize,
    },
    /// Invariant 3.
    #[error("delegation {index}: depth is not parent depth + 1")]
    DepthMismatch {
        /// Position.
        index: usize,
    },
    /// Invariant 4.
    #[error("delegation {index}: depth {depth} exceeds the root's maxChainDepth {max}")]
    DepthExceeded {
        /// Position.
        index: usize,
        /// Its depth.
        depth: u64,
        /// Root DCT `authority.maxChainDepth`.
        max: u64,
    },
    /// Invariant 5.
    #[error("delegation {index}: DCT is not attenuated from the parent's: {detail}")]
    NotAttenuated {
        /// Position.
        index: usize,
        /// Which part differs.
        detail: &'static str,
    },
    /// A DCT does not verify.
    #[error("delegation {index}: DCT does not verify: {denial}")]
    Denied {
        /// Position.
        index: usize,
        /// The verify denial.
        denial: Denial,
    },
    /// The DCT does not describe this delegation.
    #[error("delegation {index}: DCT {detail} does not match the record")]
    DctMismatch {
        /// Position.
        index: usize,
        /// Which field.
        detail: &'static str,
    },
}

impl ChainError {
    /// Stable code ([`ChainError::Denied`] uses the denial's code).
    pub fn code(&self) -> &'static str {
        match self {
            ChainError::Malformed { .. } => "malformed_delegation",
            ChainError::RootInvalid(_) => "root_invalid",
            ChainError::ParentMismatch { .. } => "parent_mismatch",
            ChainError::FromMismatch { .. } => "from_mismatch",
            ChainError::DepthMismatch { .. } => "depth_mismatch",
            ChainError::DepthExceeded { .. } => "depth_exceeded",
            ChainError::NotAttenuated { .. } => "not_attenuated",
            ChainError::Denied { denial, .. } => denial.code(),
            ChainError::DctMismatch { .. } => "dct_mismatch",
        }
    }
}

fn structure(index: usize, d: &Delegation) -> Result<SignedJsonToken, ChainError> {
    let bad = |detail: String| ChainError::Malformed { index, detail };
    if !is_delegation_id(&d.id) || !is_delegation_id(&d.parent_id) {
        return Err(bad("id and parentId must be del_ + 12 lowercase hex".into()));
    }
    if !is_principal_id(&d.from) || !is_principal_id(&d.to) {
        return Err(bad("from and to must be principal ids".into()));
    }
    if !is_contract_id(&d.contract_id) {
        return Err(bad("contractId must be ct_ + 12 lowercase hex".into()));
    }
    if d.depth > MAX_SAFE_INTEGER && crate::faults::off("token.integers-unbounded") {
        return Err(bad("depth must be ≤ 2^53−1".into()));
    }
    for t in std::iter::once(&d.created_at).chain(d.completed_at.as_ref()) {
        Timestamp::parse(t).map_err(|e| bad(e.to_string()))?;
    }
    if d.attestation_id
        .as_ref()
        .is_some_and(|a| !is_attestation_id(a))
    {
        return Err(bad("attestationId must be att_ + 12 lowercase hex".into()));
    }
    decode(&d.dct).map_err(|e| bad(format!("dct: {}", e.detail)))
}

/// Checks the §8.2 invariants of a root-to-leaf chain (see the module doc for the order), the
/// delegations given one at a time, root first.
///
/// An `Err` item is the shape fault (step 0) of the delegation at that position; it is only
/// reported when every earlier delegation passed all of its checks, so a caller may decode
/// delegations lazily (D26: delegation *i* is checked completely, DCT included, before
/// delegation *i+1* is looked at). A caller holding a slice passes `delegations.iter().map(Ok)`.
pub fn verify_chain<I, D>(
    delegations: I,
    root_public_key: &str,
    now: &str,
    revocations: &RevocationList,
) -> Result<(), ChainError>
where
    I: IntoIterator<Item = Result<D, ChainError>>,
    D: Borrow<Delegation>,
{
    // (parent delegation, parent token, root maxChainDepth) once the root has passed.
    let mut prev: Option<(D, SignedJsonToken, u64)> = None;
    for (i, item) in delegations.into_iter().enumerate() {
        let record = item?;
        let d = record.borrow();
        let token = structure(i, d)?;
        let max = match &prev {
            None => {
                root_invariant(d, &token)?;
                token.authority.max_chain_depth
            }
            Some((parent, parent_token, max)) => {
                link(i, parent.borrow(), parent_token, d, &token, *max)?;
                *max
            }
        };
        dct_verifies(i, d, &token, root_public_key, now, revocations)?;
        prev = Some((record, token, max));
    }
    if prev.is_none() {
        return Err(ChainError::Malformed {
            index: 0,
            detail: "empty chain".into(),
        });
    }
    Ok(())
}

/// Invariant 1 for the root delegation.
fn root_invariant(root: &Delegation, token: &SignedJsonToken) -> Result<(), ChainError> {
    let authority = &token.authority;
    let root_fault = if root.parent_id != ROOT_PARENT_DELEGATION_ID {
        Some("parentId is not del_000000000000")
    } else if root.depth != 0 {
        Some("depth is not 0")
    } else if !token.attenuations.is_empty() {
        Some("root DCT has attenuations")
    } else if authority.chain_depth != 0 {
        Some("root DCT authority.chainDepth is not 0")
    } else if root.from != authority.issuer {
        Some("from is not the root DCT's issuer")
    } else {
        None
    };
    match root_fault {
        Some(why) => Err(ChainError::RootInvalid(why.into())),
        None => Ok(()),
    }
}

/// Steps 2–6 for a child against its parent.
fn link(
    i: usize,
    parent: &Delegation,
    parent_token: &SignedJsonToken,
    child: &Delegation,
    child_token: &SignedJsonToken,
    max: u64,
) -> Result<(), ChainError> {
    if child.parent_id != parent.id {
        return Err(ChainError::ParentMismatch { index: i });
    }
    if child.from != parent.to {
        return Err(ChainError::FromMismatch { index: i });
    }
    if Some(child.depth) != parent.depth.checked_add(1) {
        return Err(ChainError::DepthMismatch { index: i });
    }
    if child.depth > max {
        return Err(ChainError::DepthExceeded {
            index: i,
            depth: child.depth,
            max,
        });
    }
    attenuated_from(parent_token, child_token)
        .map_err(|detail| ChainError::NotAttenuated { index: i, detail })
}

/// Steps 7 and 8: the delegation's DCT verifies and describes this delegation.
fn dct_verifies(
    i: usize,
    d: &Delegation,
    t: &SignedJsonToken,
    root_public_key: &str,
    now: &str,
    revocations: &RevocationList,
) -> Result<(), ChainError> {
    let scope = evaluate(&d.dct, now, 0, root_public_key, revocations)
        .map_err(|denial| ChainError::Denied { index: i, denial })?;
    let mismatch = |detail| Err(ChainError::DctMismatch { index: i, detail });
    let (signer, delegatee) = match t.attenuations.last() {
        Some(a) => (&a.attenuator, &a.delegatee),
        None => (&t.authority.issuer, &t.authority.delegatee),
    };
    if scope.delegation_id != d.id {
        return mismatch("delegationId");
    }
    if scope.contract_id != d.contract_id {
        return mismatch("contractId");
    }
    if delegatee != &d.to {
        return mismatch("delegatee");
    }
    if signer != &d.from {
        return mismatch("signer");
    }
    Ok(())
}

/// Invariant 5: `child` is `parent` plus exactly one attenuation (D26 (b)).
pub fn attenuated_from(
    parent: &SignedJsonToken,
    child: &SignedJsonToken,
) -> Result<(), &'static str> {
    if child.authority != parent.authority {
        return Err("authority differs");
    }
    // D26 (b): one delegation hop is exactly one attenuation (a skipped hop is not allowed).
    if child.attenuations.len() != parent.attenuations.len() + 1 {
        return Err("not exactly one added attenuation");
    }
    if !child.attenuations.starts_with(&parent.attenuations) {
        return Err("parent attenuations are not a prefix");
    }
    if !child.signatures.starts_with(&parent.signatures) {
        return Err("parent signatures are not a prefix");
    }
    Ok(())
}
