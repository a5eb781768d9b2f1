//! DCT verification, spec §10.1, every step in the normative order of decision D7:
//! 1 deserialize → 2 revocation → 3 signatures (3a authority, 3b attenuations) → 4 attenuation
//! chain (4a attenuator, 4b capabilities, 4c budget, 4d expiry, 4e depth) → 5 expiry →
//! 6 budget → 7 capability. The first failing step's [`Denial`] is returned.
//!
//! Step 4 lives in [`ChainState::apply`], which `attenuate` also uses, so creation and
//! verification cannot disagree about narrowing. Verification is linear in the chain length:
//! the payload of prefix i (D16) is hashed incrementally from the blocks' canonical texts.

use std::collections::HashMap;

use blake2::Digest;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::crypto::{verify_strict_with, Blake2b256, KeyStore};
use crate::encoding::{decode_principal, decode_signature};
use crate::faults;
use crate::glob::{capability_matches, capability_subset};
use crate::revocation::RevocationList;
use crate::timestamp::Timestamp;
use crate::token::{
    authority_payload, block_revocation_ids, decode_blocks, Attenuation, Authority, Capability,
    Covers, Decoded, SerializedDct,
};

/// What the verifier is asked (architecture §2.5 `VerificationContext`).
#[derive(Debug, Clone)]
pub struct VerificationContext<'a> {
    /// Namespace of the requested capability (inferred from the tool map by the MCP plugin).
    pub namespace: String,
    /// Requested action.
    pub operation: String,
    /// Requested resource.
    pub resource: String,
    /// Current time (D5 profile); a malformed value yields `malformed_token`.
    pub now: String,
    /// Already spent under this delegation.
    pub spent_microcents: u64,
    /// The trusted root principal id.
    pub root_public_key: String,
    /// Revocations to honour.
    pub revocations: &'a RevocationList,
}

/// The effective scope of a verified token (§10.1 step 8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthorizedScope {
    /// Effective capabilities.
    pub capabilities: Vec<Capability>,
    /// Effective budget minus spent.
    pub remaining_budget_microcents: u64,
    /// `authority.chainDepth + attenuations.len()`.
    pub chain_depth: u64,
    /// §10.1 step 8's `effectiveMaxDepth`: the last `maxChainDepth` set by an attenuation,
    /// else `authority.maxChainDepth` (D4, as corrected by the issue-12 audit).
    pub max_chain_depth: u64,
    /// Further attenuations still allowed after the last block (D4's countdown). Not
    /// serialized: the vectors compare `scope` as a whole, so the wire output keeps §10.1's
    /// six members.
    #[serde(skip)]
    pub remaining_chain_depth: u64,
    /// Last contract id in the chain.
    pub contract_id: String,
    /// Last delegation id in the chain.
    pub delegation_id: String,
}

/// Which narrowing rule an attenuation broke (step 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AttenuationFault {
    /// 4a: the attenuator is not the current delegatee.
    AttenuatorMismatch,
    /// 4b: a capability is not a subset of the effective capabilities.
    CapabilityExpansion,
    /// 4c: the budget grows.
    BudgetExpansion,
    /// 4d: the expiry moves later.
    ExpiryExtension,
    /// 4e: `maxChainDepth` is not below the remaining depth.
    DepthExpansion,
}

impl AttenuationFault {
    /// The detail string of the spec (`attenuator mismatch`, `capability expansion`, ...).
    pub fn detail(self) -> &'static str {
        match self {
            Self::AttenuatorMismatch => "attenuator mismatch",
            Self::CapabilityExpansion => "capability expansion",
            Self::BudgetExpansion => "budget expansion",
            Self::ExpiryExtension => "expiry extension",
            Self::DepthExpansion => "depth expansion",
        }
    }

    /// The sub-reason code of `spec/error-codes.md` (`attenuator_mismatch`, ...).
    pub fn sub_reason(self) -> &'static str {
        match self {
            Self::AttenuatorMismatch => "attenuator_mismatch",
            Self::CapabilityExpansion => "capability_expansion",
            Self::BudgetExpansion => "budget_expansion",
            Self::ExpiryExtension => "expiry_extension",
            Self::DepthExpansion => "depth_expansion",
        }
    }

    /// The sub-step: `4a` … `4e`.
    pub fn step(self) -> &'static str {
        match self {
            Self::AttenuatorMismatch => "4a",
            Self::CapabilityExpansion => "4b",
            Self::BudgetExpansion => "4c",
            Self::ExpiryExtension => "4d",
            Self::DepthExpansion => "4e",
        }
    }
}

/// Why verification failed (architecture §2.5 `DenialReason`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Denial {
    /// Step 1 (or a malformed `ctx.now`).
    Malformed {
        /// Short reason.
        detail: String,
    },
    /// Step 2.
    Revoked {
        /// The revoked block's id.
        revocation_id: String,
    },
    /// Step 3.
    InvalidSignature {
        /// Short reason.
        detail: String,
        /// `None`: the authority (3a); `Some(i)`: attenuation i (3b).
        index: Option<u64>,
    },
    /// Step 4a–4e.
    AttenuationViolation {
        /// Which rule.
        detail: AttenuationFault,
    },
    /// Step 4e (D4).
    ChainDepthExceeded {
        /// The deepest depth allowed.
        max: u64,
        /// The depth the token reaches.
        actual: u64,
    },
    /// Step 5.
    Expired,
    /// Step 6.
    BudgetExceeded {
        /// Effective budget.
        limit: u64,
        /// Spent.
        spent: u64,
    },
    /// Step 7.
    CapabilityNotGranted {
        /// What was asked.
        requested: Capability,
        /// Effective capabilities.
        granted: Vec<Capability>,
    },
}

impl Denial {
    /// The protocol's denial type string (exhaustive: a new variant must choose its code).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Malformed { .. } => "malformed_token",
            Self::Revoked { .. } => "revoked",
            Self::InvalidSignature { .. } => "invalid_signature",
            Self::AttenuationViolation { .. } => "attenuation_violation",
            Self::ChainDepthExceeded { .. } => "chain_depth_exceeded",
            Self::Expired => "expired",
            Self::BudgetExceeded { .. } => "budget_exceeded",
            Self::CapabilityNotGranted { .. } => "capability_not_granted",
        }
    }

    /// The §10.1 step that failed: `1`, `2`, `3a`, `3b`, `4a`–`4e`, `5`, `6`, `7`.
    pub fn step(&self) -> &'static str {
        match self {
            Self::Malformed { .. } => "1",
            Self::Revoked { .. } => "2",
            Self::InvalidSignature { index: None, .. } => "3a",
            Self::InvalidSignature { index: Some(_), .. } => "3b",
            Self::AttenuationViolation { detail } => detail.step(),
            Self::ChainDepthExceeded { .. } => "4e",
            Self::Expired => "5",
            Self::BudgetExceeded { .. } => "6",
            Self::CapabilityNotGranted { .. } => "7",
        }
    }

    /// The `DenialReason` JSON object (`type` plus the variant's fields, spec §11.2).
    pub fn to_json(&self) -> Value {
        let ty = self.code();
        match self {
            Self::Malformed { detail } | Self::InvalidSignature { detail, .. } => {
                json!({ "type": ty, "detail": detail })
            }
            Self::Revoked { revocation_id } => json!({ "type": ty, "revocationId": revocation_id }),
            Self::AttenuationViolation { detail } => {
                json!({ "type": ty, "detail": detail.detail() })
            }
            Self::ChainDepthExceeded { max, actual } => {
                json!({ "type": ty, "max": max, "actual": actual })
            }
            Self::Expired => json!({ "type": ty }),
            Self::BudgetExceeded { limit, spent } => {
                json!({ "type": ty, "limit": limit, "spent": spent })
            }
            Self::CapabilityNotGranted { requested, granted } => {
                json!({ "type": ty, "requested": requested, "granted": granted })
            }
        }
    }

    fn malformed(detail: impl Into<String>) -> Self {
        Self::Malformed {
            detail: detail.into(),
        }
    }

    fn signature(detail: impl Into<String>, index: Option<u64>) -> Self {
        Self::InvalidSignature {
            detail: detail.into(),
            index,
        }
    }
}

impl std::fmt::Display for Denial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (step {})", self.code(), self.step())
    }
}

impl std::error::Error for Denial {}

fn idx(i: usize) -> u64 {
    u64::try_from(i).unwrap_or(u64::MAX)
}

/// The effective values while walking the chain (§10.1 step 4).
#[derive(Debug, Clone)]
pub struct ChainState {
    /// Effective capabilities.
    pub capabilities: Vec<Capability>,
    /// Effective budget.
    pub budget: u64,
    /// Effective expiry.
    pub expiry: Timestamp,
    /// Further attenuations allowed (D4).
    pub remaining: u64,
    /// Depth of the last block processed.
    pub depth: u64,
    /// Current delegatee.
    pub delegatee: String,
    /// Last contract id.
    pub contract_id: String,
    /// Last delegation id.
    pub delegation_id: String,
}

impl ChainState {
    /// The state after the authority block; `chain_depth_exceeded` if `maxChainDepth <
    /// chainDepth` (D4).
    pub fn from_authority(a: &Authority) -> Result<Self, Denial> {
        let expiry =
            Timestamp::parse(&a.expires_at).map_err(|e| Denial::malformed(e.to_string()))?;
        let Some(remaining) = a
            .max_chain_depth
            .checked_sub(faults::counted_depth(a.chain_depth, a.max_chain_depth))
        else {
            return Err(Denial::ChainDepthExceeded {
                max: a.max_chain_depth,
                actual: a.chain_depth,
            });
        };
        let (budget, remaining) =
            mistakes::zero_as_unlimited(a.max_budget_microcents, remaining, a.max_chain_depth);
        Ok(Self {
            capabilities: a.capabilities.clone(),
            budget,
            expiry,
            remaining,
            depth: a.chain_depth,
            delegatee: a.delegatee.clone(),
            contract_id: a.contract_id.clone(),
            delegation_id: a.delegation_id.clone(),
        })
    }

    /// Applies one attenuation: checks 4a–4e in order, then narrows the state.
    pub fn apply(&mut self, att: &Attenuation) -> Result<(), Denial> {
        let violation = |detail| Err(Denial::AttenuationViolation { detail });
        // (Faults of the catalogue: a falsy test reads an explicit 0 or [] as "not set".)
        let allowed = faults::falsy_as_unset(
            "verify.4b.empty-capabilities-inherit",
            att.allowed_capabilities.as_ref(),
        );
        let max_budget =
            faults::falsy_as_unset("verify.4c.zero-budget-ignored", att.max_budget_microcents);
        let max_depth = faults::falsy_as_unset("verify.4e.zero-depth-ignored", att.max_chain_depth);
        // 4a
        if att.attenuator != self.delegatee && faults::off("verify.4a.attenuator-unchecked") {
            return violation(AttenuationFault::AttenuatorMismatch);
        }
        // 4b
        if let Some(caps) = allowed {
            let narrower = caps.iter().all(|c| {
                self.capabilities.iter().any(|p| capability_subset(c, p))
                    || mistakes::subset_cross_product(c, &self.capabilities)
            });
            if !narrower && faults::off("verify.4b.capabilities-unchecked") {
                return violation(AttenuationFault::CapabilityExpansion);
            }
        }
        // 4c
        if let Some(b) = max_budget {
            if b > self.budget && faults::off("verify.4c.budget-unchecked") {
                return violation(AttenuationFault::BudgetExpansion);
            }
        }
        // 4d
        let expiry = match &att.expires_at {
            Some(t) => {
                let t = Timestamp::parse(t).map_err(|e| Denial::malformed(e.to_string()))?;
                // No later than the effective expiry (instants, D5).
                if self.expiry.unix_nanos() < t.unix_nanos()
                    && faults::ordered(self.expiry.unix_nanos(), t.unix_nanos())
                    && faults::off("verify.4d.expiry-unchecked")
                {
                    return violation(AttenuationFault::ExpiryExtension);
                }
                Some(t)
            }
            None => None,
        };
        // 4e (D4): no depth left is `chain_depth_exceeded`; a non-decreasing explicit
        // maxChainDepth is a depth expansion.
        if self.remaining == 0
            && faults::off("verify.4e.depth-unchecked")
            && faults::off("verify.4e.depth-not-counted")
        {
            return Err(Denial::ChainDepthExceeded {
                max: self.depth,
                actual: self.depth.saturating_add(1),
            });
        }
        if let Some(m) = max_depth {
            let wider = if faults::on("verify.4e.depth-off-by-one") {
                faults::greater(m, self.remaining)
            } else {
                m >= self.remaining
            };
            if wider && faults::off("verify.4e.depth-unchecked") {
                return violation(AttenuationFault::DepthExpansion);
            }
        }
        // All checks passed: narrow.
        if let Some(caps) = allowed {
            if faults::on("verify.4b.capabilities-union") {
                self.capabilities.extend(caps.iter().cloned());
            } else if faults::off("verify.7.authority-capabilities-only") {
                self.capabilities = caps.clone();
            }
        }
        if let Some(b) = max_budget {
            if faults::off("verify.6.authority-budget-only") {
                self.budget = b;
            }
        }
        if let Some(t) = expiry {
            if faults::off("verify.5.authority-expiry-only") {
                self.expiry = t;
            }
        }
        self.remaining = match max_depth {
            Some(m) => m,
            None if faults::on("verify.4e.depth-not-counted") => self.remaining,
            None => self.remaining.saturating_sub(1),
        };
        self.depth = self.depth.saturating_add(1);
        self.delegatee = att.delegatee.clone();
        if faults::off("verify.8.first-contract-id") {
            self.contract_id = att.contract_id.clone();
        }
        self.delegation_id = att.delegation_id.clone();
        Ok(())
    }
}

/// Step 2 (D6): a block is revoked only by an entry whose `revokedBy` is that block's signer.
fn check_revocations(d: &Decoded, revocations: &RevocationList) -> Result<(), Denial> {
    if revocations.is_empty() || faults::on("verify.2.revocations-ignored") {
        // No entry can match: skip hashing every block for its revocation id.
        return Ok(());
    }
    let t = &d.token;
    let signers =
        std::iter::once(&t.authority.issuer).chain(t.attenuations.iter().map(|a| &a.attenuator));
    let blocks = block_revocation_ids(d).zip(signers);
    let (skip, take) = faults::revocation_blocks(t.attenuations.len());
    for (rid, signer) in blocks.skip(skip).take(take) {
        let revoked = if faults::on("verify.2.any-revoker") {
            revocations.is_revoked(&rid)
        } else {
            revocations.is_revoked_by(&rid, signer)
        };
        if revoked {
            return Err(Denial::Revoked { revocation_id: rid });
        }
    }
    Ok(())
}

/// Verifies one signature over a 32-byte digest with the key the spec names (D8).
fn check_signature(
    digest: &[u8; 32],
    block_signer: &str,
    sig: Option<&crate::token::TokenSignature>,
    covers: Covers,
    index: Option<u64>,
    keys: &mut dyn KeyStore,
) -> Result<(), Denial> {
    let sig = sig.ok_or_else(|| Denial::signature("missing signature", index))?;
    if sig.covers != covers && faults::off("verify.3.covers-unchecked") {
        return Err(Denial::signature("wrong covers value", index));
    }
    let signer_as_key = faults::signer_member_as_key(index.is_none());
    if sig.signer != block_signer && !signer_as_key {
        return Err(Denial::signature("signer is not the block's signer", index));
    }
    // D8: the key is the block's signer (`issuer` / `attenuator`), never `signatures[i].signer`.
    let key_text = if signer_as_key {
        &sig.signer
    } else {
        block_signer
    };
    let key = decode_principal(key_text).map_err(|_| Denial::signature("bad key", index))?;
    let bytes =
        decode_signature(&sig.signature).map_err(|_| Denial::signature("bad signature", index))?;
    verify_strict_with(keys, &key, digest, &bytes)
        .map_err(|e| Denial::signature(e.to_string(), index))
}

/// Step 3a (D8): the authority is issued by the trusted root and signed by it.
fn check_authority_signature(
    d: &Decoded,
    root: &str,
    keys: &mut dyn KeyStore,
) -> Result<(), Denial> {
    let t = &d.token;
    let a = &t.authority;
    if a.issuer != root && faults::off("verify.3a.issuer-not-root") {
        return Err(Denial::signature("issuer is not the root key", None));
    }
    let digest: [u8; 32] = Blake2b256::digest(authority_payload(&d.authority_canonical)).into();
    if faults::on("verify.3a.signature-unchecked") || faults::on("verify.3.signatures-unchecked") {
        return Ok(());
    }
    check_signature(
        &digest,
        &a.issuer,
        mistakes::signature_for(&t.signatures, 0, Covers::Authority),
        Covers::Authority,
        None,
        keys,
    )
}

/// Step 3b (D8, D16): attenuation i is signed by its attenuator over the token prefix up to
/// and including it, `{"attenuations":[c0,…,ci],"authority":cA}`, hashed incrementally.
fn check_attenuation_signatures(d: &Decoded, keys: &mut dyn KeyStore) -> Result<(), Denial> {
    let t = &d.token;
    let mut prefix = Blake2b256::new();
    prefix.update(b"{\"attenuations\":[");
    let mut separator: &[u8] = b"";
    for (i, (att, canonical)) in t
        .attenuations
        .iter()
        .zip(&d.attenuation_canonical)
        .enumerate()
    {
        prefix.update(separator);
        prefix.update(canonical.as_bytes());
        separator = b",";
        let mut h = prefix.clone();
        h.update(b"],\"authority\":");
        h.update(d.authority_canonical.as_bytes());
        h.update(b"}");
        let digest: [u8; 32] = if faults::on("verify.3b.block-only") {
            mistakes::block_only_digest(canonical)
        } else {
            h.finalize().into()
        };
        let index = Some(idx(i));
        if faults::on("verify.3b.signatures-unchecked")
            || faults::on("verify.3.signatures-unchecked")
            || faults::skips_signature(i, t.attenuations.len())
        {
            continue;
        }
        check_signature(
            &digest,
            &att.attenuator,
            mistakes::signature_for(&t.signatures, i + 1, Covers::Index(idx(i))),
            Covers::Index(idx(i)),
            index,
            keys,
        )?;
    }
    // A surplus entry belongs to no block; error-codes.md files it under 3b, after all blocks.
    let n = t.attenuations.len();
    if t.signatures.len() > n + 1 && faults::off("verify.3.signatures-by-covers") {
        return Err(Denial::signature("surplus signature entry", Some(idx(n))));
    }
    Ok(())
}

/// Steps 1–6; returns the decoded token and the final chain state.
fn steps_1_to_6(
    token: &SerializedDct,
    now: &str,
    spent: u64,
    root: &str,
    revocations: &RevocationList,
    keys: &mut dyn KeyStore,
) -> Result<(Decoded, ChainState), Denial> {
    let now = Timestamp::parse(now).map_err(|e| Denial::malformed(format!("ctx.now: {e}")))?;
    // 1
    let d = decode_blocks(token).map_err(|e| Denial::malformed(e.detail))?;
    // 2
    check_revocations(&d, revocations)?;
    // 3
    check_authority_signature(&d, root, keys)?;
    check_attenuation_signatures(&d, keys)?;
    // 4
    let mut state = ChainState::from_authority(&d.token.authority)?;
    let authority_state = mistakes::authority_state(&state);
    for (i, att) in d.token.attenuations.iter().enumerate() {
        match &authority_state {
            Some(first) => mistakes::apply_against_authority(&mut state, first, att)?,
            None => state.apply(att)?,
        }
        mistakes::null_as_unlimited(&mut state, &d, i);
    }
    mistakes::earliest_expiry_by_text(&mut state.expiry, &d.token);
    // 5: expired strictly after the effective expiry (an instant comparison, D5).
    let expired = if faults::on("verify.5.expiry-inclusive") {
        faults::at_least(now.unix_nanos(), state.expiry.unix_nanos())
    } else if faults::on("timestamp.compared-as-text") {
        faults::greater(now.as_str(), state.expiry.as_str())
    } else {
        now.unix_nanos() > state.expiry.unix_nanos()
            && faults::ordered(now.unix_nanos(), state.expiry.unix_nanos())
    };
    if (expired && faults::off("verify.5.expiry-unchecked"))
        || mistakes::not_yet_valid(&now, &d.token.authority.issued_at)
    {
        return Err(Denial::Expired);
    }
    // 6: exhausted once spent reaches the effective budget.
    let exhausted = if faults::on("verify.6.budget-strictly-greater") {
        faults::greater(spent, state.budget)
    } else {
        spent >= state.budget
    };
    if exhausted && faults::off("verify.6.budget-unchecked") {
        return Err(Denial::BudgetExceeded {
            limit: state.budget,
            spent,
        });
    }
    Ok((d, state))
}

fn scope_of(d: &Decoded, state: ChainState, spent: u64) -> AuthorizedScope {
    AuthorizedScope {
        capabilities: state.capabilities,
        remaining_budget_microcents: state.budget.saturating_sub(spent),
        chain_depth: d
            .token
            .authority
            .chain_depth
            .saturating_add(idx(d.token.attenuations.len())),
        // §10.1 step 8: `maxChainDepth: effectiveMaxDepth` (the text wins over D4's countdown,
        // which is reported as `remainingChainDepth`).
        max_chain_depth: d
            .token
            .attenuations
            .iter()
            .rev()
            .find_map(|a| {
                faults::falsy_as_unset("verify.4.falsy-restrictions-inherit", a.max_chain_depth)
            })
            .unwrap_or(d.token.authority.max_chain_depth),
        remaining_chain_depth: state.remaining,
        contract_id: state.contract_id,
        delegation_id: state.delegation_id,
    }
}

/// `VERIFY_DCT` (§10.1), steps 1–7. Validates the signers' keys afresh on each call; a
/// long-lived verifier uses [`verify_with_keys`] to validate each key once.
pub fn verify(
    token: &SerializedDct,
    ctx: &VerificationContext<'_>,
) -> Result<AuthorizedScope, Denial> {
    verify_with_keys(token, ctx, &mut HashMap::new())
}

/// [`verify`] reusing (and filling) `keys`: a key validated once is not validated again. The
/// result is the same as [`verify`]'s for every input, whatever `keys` holds.
pub fn verify_with_keys(
    token: &SerializedDct,
    ctx: &VerificationContext<'_>,
    keys: &mut dyn KeyStore,
) -> Result<AuthorizedScope, Denial> {
    let (d, state) = steps_1_to_6(
        token,
        &ctx.now,
        ctx.spent_microcents,
        &ctx.root_public_key,
        ctx.revocations,
        keys,
    )?;
    // 7
    let granted = state
        .capabilities
        .iter()
        .any(|c| capability_matches(c, &ctx.namespace, &ctx.operation, &ctx.resource))
        || mistakes::cross_product_grant(
            &state.capabilities,
            &ctx.namespace,
            &ctx.operation,
            &ctx.resource,
        );
    if !granted && faults::off("verify.7.capability-unchecked") {
        return Err(Denial::CapabilityNotGranted {
            requested: Capability::new(&ctx.namespace, &ctx.operation, &ctx.resource),
            granted: state.capabilities,
        });
    }
    Ok(scope_of(&d, state, ctx.spent_microcents))
}

/// Steps 1–6 only: the effective scope of a token without a capability request (used by
/// contract binding and by the MCP plugin's `tools/list` filtering).
pub fn evaluate(
    token: &SerializedDct,
    now: &str,
    spent_microcents: u64,
    root_public_key: &str,
    revocations: &RevocationList,
) -> Result<AuthorizedScope, Denial> {
    evaluate_with_keys(
        token,
        now,
        spent_microcents,
        root_public_key,
        revocations,
        &mut HashMap::new(),
    )
}

/// [`evaluate`] reusing (and filling) `keys` (see [`verify_with_keys`]).
pub fn evaluate_with_keys(
    token: &SerializedDct,
    now: &str,
    spent_microcents: u64,
    root_public_key: &str,
    revocations: &RevocationList,
    keys: &mut dyn KeyStore,
) -> Result<AuthorizedScope, Denial> {
    let (d, state) = steps_1_to_6(
        token,
        now,
        spent_microcents,
        root_public_key,
        revocations,
        keys,
    )?;
    Ok(scope_of(&d, state, spent_microcents))
}

/// The catalogue's mistakes at these steps (`spec/faults.md`), computed only when their fault
/// is on (`faults::on`): beside the steps they break, so that `faults.rs` (the switches)
/// imports nothing of the reference.
mod mistakes {
    /// The digest an attenuation signature is checked over when it is taken to cover its own
    /// block only (BLAKE2b-256 of the block's canonical JSON), not the token prefix up to it.
    pub(crate) fn block_only_digest(block_canonical: &str) -> [u8; 32] {
        crate::crypto::blake2b256(block_canonical.as_bytes())
    }

    /// Step 4b's subset as a cross product: some parent has the child's namespace and action and
    /// some (possibly other) parent covers its resource.
    pub(crate) fn subset_cross_product(
        child: &crate::token::Capability,
        parents: &[crate::token::Capability],
    ) -> bool {
        crate::faults::on("verify.4b.subset-cross-product")
            && parents
                .iter()
                .any(|p| p.namespace == child.namespace && p.action == child.action)
            && parents
                .iter()
                .any(|p| crate::glob::covers(&p.resource, &child.resource))
    }

    /// Step 7 as a cross product: one capability matches the namespace and action, another (or
    /// the same) the resource.
    pub(crate) fn cross_product_grant(
        caps: &[crate::token::Capability],
        namespace: &str,
        action: &str,
        resource: &str,
    ) -> bool {
        crate::faults::on("verify.7.capability-cross-product")
            && caps
                .iter()
                .any(|c| c.namespace == namespace && c.action == action)
            && caps
                .iter()
                .any(|c| crate::glob::matches(&c.resource, resource))
    }

    /// True when `now` is before the authority's `issuedAt` and the mistake reads `issuedAt` as
    /// "not before" (the text gives it no such meaning).
    pub(crate) fn not_yet_valid(now: &crate::timestamp::Timestamp, issued_at: &str) -> bool {
        crate::faults::on("verify.5.issued-at-as-not-before")
            && crate::timestamp::Timestamp::parse(issued_at)
                .is_ok_and(|t| now.unix_nanos() < t.unix_nanos())
    }

    /// The chain state after the authority, kept when a mistake checks attenuations against it.
    pub(crate) fn authority_state(
        state: &crate::verify::ChainState,
    ) -> Option<crate::verify::ChainState> {
        (crate::faults::on("verify.4.narrowed-against-authority")
            || crate::faults::on("verify.4a.attenuator-authority-delegatee"))
        .then(|| state.clone())
    }

    /// Step 4 with a mistake that looks at the authority block instead of the chain so far:
    /// 4b–4d compare with the authority's capabilities, budget and expiry
    /// (`verify.4.narrowed-against-authority`), or 4a also accepts the authority's delegatee as
    /// attenuator (`verify.4a.attenuator-authority-delegatee`).
    pub(crate) fn apply_against_authority(
        state: &mut crate::verify::ChainState,
        first: &crate::verify::ChainState,
        att: &crate::token::Attenuation,
    ) -> Result<(), crate::verify::Denial> {
        if crate::faults::on("verify.4a.attenuator-authority-delegatee") {
            if att.attenuator == first.delegatee {
                state.delegatee = att.attenuator.clone();
            }
            return state.apply(att);
        }
        let mut s = state.clone();
        s.capabilities = first.capabilities.clone();
        s.budget = first.budget;
        s.expiry = first.expiry.clone();
        s.apply(att)?;
        if att.allowed_capabilities.is_none() {
            s.capabilities = std::mem::take(&mut state.capabilities);
        }
        if att.max_budget_microcents.is_none() {
            s.budget = state.budget;
        }
        if att.expires_at.is_none() {
            s.expiry = state.expiry.clone();
        }
        *state = s;
        Ok(())
    }

    /// The chain state after attenuation `i` where a `null` restriction of that block passed
    /// step 1 and is read as "no limit", replacing the parent's value instead of narrowing it
    /// (`token.null-members-unlimited`: Python's `None` for "unlimited"); the block's other
    /// members were applied as usual.
    pub(crate) fn null_as_unlimited(
        state: &mut crate::verify::ChainState,
        d: &crate::token::Decoded,
        i: usize,
    ) {
        if !crate::faults::on("token.null-members-unlimited") {
            return;
        }
        let Some(block) = d
            .attenuation_canonical
            .get(i)
            .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        else {
            return;
        };
        let null = |k: &str| block.get(k).is_some_and(serde_json::Value::is_null);
        let unlimited = crate::token::MAX_SAFE_INTEGER;
        if null("maxBudgetMicrocents") {
            state.budget = unlimited;
        }
        if null("maxChainDepth") {
            state.remaining = unlimited;
        }
        if null("expiresAt") {
            if let Ok(t) = crate::timestamp::Timestamp::parse("9999-12-31T23:59:59Z") {
                state.expiry = t;
            }
        }
    }

    /// The authority's budget and remaining depth, where the mistake reads a 0 budget or a 0
    /// `maxChainDepth` as "no limit" (`authority.get(k) or UNLIMITED`).
    pub(crate) fn zero_as_unlimited(
        budget: u64,
        remaining: u64,
        max_chain_depth: u64,
    ) -> (u64, u64) {
        if !crate::faults::on("verify.4.authority-zero-unlimited") {
            return (budget, remaining);
        }
        let unlimited = crate::token::MAX_SAFE_INTEGER;
        (
            if budget == 0 { unlimited } else { budget },
            if max_chain_depth == 0 {
                unlimited
            } else {
                remaining
            },
        )
    }

    /// The effective expiry taken as the least `expiresAt` text of the chain (a string minimum,
    /// not an instant one), where that mistake is on.
    pub(crate) fn earliest_expiry_by_text(
        expiry: &mut crate::timestamp::Timestamp,
        token: &crate::token::SignedJsonToken,
    ) {
        if !crate::faults::on("verify.5.earliest-expiry-by-text") {
            return;
        }
        let texts = std::iter::once(&token.authority.expires_at).chain(
            token
                .attenuations
                .iter()
                .filter_map(|a| a.expires_at.as_ref()),
        );
        if let Some(t) = texts
            .min()
            .and_then(|t| crate::timestamp::Timestamp::parse(t).ok())
        {
            *expiry = t;
        }
    }

    /// The signature entry checked for the block at `position`: the entry at that position, or
    /// (signatures kept in a map by `covers`) the last entry whose `covers` names the block.
    pub(crate) fn signature_for(
        sigs: &[crate::token::TokenSignature],
        position: usize,
        covers: crate::token::Covers,
    ) -> Option<&crate::token::TokenSignature> {
        if crate::faults::on("verify.3.signatures-by-covers") {
            sigs.iter().rev().find(|s| s.covers == covers)
        } else {
            sigs.get(position)
        }
    }
}
