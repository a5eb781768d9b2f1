//! Token creation (§3.3) and attenuation (§3.4), plus an unchecked builder.
//!
//! [`create`] and [`attenuate`] refuse exactly what verification would deny: attenuation runs
//! the same [`ChainState::apply`] as §10.1 step 4, including the D4 depth rule, so a token
//! these functions return always passes step 4. The builder ([`sign_authority`],
//! [`sign_attenuation`], [`assemble`]) signs whatever it is given; the vector generator uses
//! it to make deliberately invalid (widened, mis-signed, mis-structured) tokens.

use crate::crypto::{sign_canonical, Keypair};
use crate::encoding::b64u_encode;
use crate::token::{
    attenuation_payload, authority_payload, canonical_of, check_formats, Attenuation, Authority,
    Capability, Covers, SignedJsonToken, TokenSignature, FORMAT,
};
use crate::verify::{AttenuationFault, ChainState, Denial};

/// Parameters of [`create`] (architecture §2.5 `DCTCreateParams`; the issuer is passed apart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateParams {
    /// Recipient principal id.
    pub delegatee: String,
    /// Granted capabilities.
    pub capabilities: Vec<Capability>,
    /// `ct_…`.
    pub contract_id: String,
    /// `del_…`.
    pub delegation_id: String,
    /// `del_000000000000` for a root.
    pub parent_delegation_id: String,
    /// 0 for a root.
    pub chain_depth: u64,
    /// Absolute maximum depth (D4).
    pub max_chain_depth: u64,
    /// Budget.
    pub max_budget_microcents: u64,
    /// Expiry (D5 profile).
    pub expires_at: String,
    /// Issue time (D5 profile).
    pub issued_at: String,
}

/// Why [`create`] refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CreateError {
    /// A field has the wrong format.
    #[error("malformed: {0}")]
    Malformed(String),
    /// `maxChainDepth < chainDepth`.
    #[error("chain depth {actual} exceeds maximum {max}")]
    ChainDepthExceeded {
        /// `maxChainDepth`.
        max: u64,
        /// `chainDepth`.
        actual: u64,
    },
}

impl CreateError {
    /// `malformed_token` or `chain_depth_exceeded`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Malformed(_) => "malformed_token",
            Self::ChainDepthExceeded { .. } => "chain_depth_exceeded",
        }
    }

    /// The stage of `spec/error-codes.md` (always `3.3`).
    pub fn stage(&self) -> &'static str {
        "3.3"
    }
}

/// Parameters of [`attenuate`] (architecture §2.5 `DCTAttenuateParams`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AttenuateParams {
    /// New delegatee.
    pub delegatee: String,
    /// `del_…` of the new delegation.
    pub delegation_id: String,
    /// `ct_…`.
    pub contract_id: String,
    /// Narrowed capabilities.
    pub allowed_capabilities: Option<Vec<Capability>>,
    /// Narrowed budget.
    pub max_budget_microcents: Option<u64>,
    /// Earlier expiry.
    pub expires_at: Option<String>,
    /// Further attenuations allowed (D4).
    pub max_chain_depth: Option<u64>,
}

/// Why [`attenuate`] refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AttenuateError {
    /// The new block would widen the scope (or the attenuator is not the delegatee).
    #[error("attenuation violation: {}", .0.detail())]
    Violation(AttenuationFault),
    /// No depth left (D4).
    #[error("chain depth {actual} exceeds maximum {max}")]
    ChainDepthExceeded {
        /// Deepest allowed depth.
        max: u64,
        /// Depth the new block would have.
        actual: u64,
    },
    /// The token or a parameter is malformed.
    #[error("malformed: {0}")]
    Malformed(String),
}

impl AttenuateError {
    /// `attenuation_violation`, `chain_depth_exceeded` or `malformed_token`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Violation(_) => "attenuation_violation",
            Self::ChainDepthExceeded { .. } => "chain_depth_exceeded",
            Self::Malformed(_) => "malformed_token",
        }
    }

    /// The stage of `spec/error-codes.md`: `3.4/1` decoding, `3.4/2` attenuator, `3.4/4`
    /// narrowing and depth.
    pub fn stage(&self) -> &'static str {
        match self {
            Self::Malformed(_) => "3.4/1",
            Self::Violation(AttenuationFault::AttenuatorMismatch) => "3.4/2",
            Self::Violation(_) | Self::ChainDepthExceeded { .. } => "3.4/4",
        }
    }
}

impl From<Denial> for AttenuateError {
    fn from(d: Denial) -> Self {
        match d {
            Denial::AttenuationViolation { detail } => Self::Violation(detail),
            Denial::ChainDepthExceeded { max, actual } => Self::ChainDepthExceeded { max, actual },
            Denial::Malformed { detail } => Self::Malformed(detail),
            // Step 4 produces only the three variants above; anything else is reported as
            // malformed input rather than silently accepted.
            other => Self::Malformed(other.code().to_owned()),
        }
    }
}

/// Signs the authority block: Ed25519(BLAKE2b(canonicalize({authority}))), `covers: "authority"`.
pub fn sign_authority(issuer: &Keypair, authority: &Authority) -> TokenSignature {
    let payload = authority_payload(&canonical_of(authority));
    TokenSignature {
        signer: issuer.principal_id(),
        signature: b64u_encode(&sign_canonical(issuer, &payload)),
        covers: Covers::Authority,
    }
}

/// Signs attenuation `i = prefix.len() − 1` over the prefix including it (D16).
pub fn sign_attenuation(
    attenuator: &Keypair,
    authority: &Authority,
    prefix_incl_i: &[Attenuation],
) -> TokenSignature {
    let pieces: Vec<String> = prefix_incl_i.iter().map(canonical_of).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let payload = attenuation_payload(&canonical_of(authority), &refs);
    let i = u64::try_from(prefix_incl_i.len().saturating_sub(1)).unwrap_or(u64::MAX);
    TokenSignature {
        signer: attenuator.principal_id(),
        signature: b64u_encode(&sign_canonical(attenuator, &payload)),
        covers: Covers::Index(i),
    }
}

/// Puts a token together without any check (for generators of invalid tokens).
pub fn assemble(
    authority: Authority,
    attenuations: Vec<Attenuation>,
    signatures: Vec<TokenSignature>,
) -> SignedJsonToken {
    SignedJsonToken {
        format: FORMAT.to_owned(),
        authority,
        attenuations,
        signatures,
    }
}

/// `CREATE_DCT` (§3.3): builds and signs a root token, refusing malformed fields.
pub fn create(issuer: &Keypair, p: CreateParams) -> Result<SignedJsonToken, CreateError> {
    let authority = Authority {
        issuer: issuer.principal_id(),
        delegatee: p.delegatee,
        capabilities: p.capabilities,
        contract_id: p.contract_id,
        delegation_id: p.delegation_id,
        parent_delegation_id: p.parent_delegation_id,
        chain_depth: p.chain_depth,
        max_chain_depth: p.max_chain_depth,
        max_budget_microcents: p.max_budget_microcents,
        expires_at: p.expires_at,
        issued_at: p.issued_at,
    };
    let unsigned = assemble(authority.clone(), vec![], vec![]);
    check_formats(&unsigned).map_err(|e| CreateError::Malformed(e.detail))?;
    if authority.max_chain_depth < authority.chain_depth {
        return Err(CreateError::ChainDepthExceeded {
            max: authority.max_chain_depth,
            actual: authority.chain_depth,
        });
    }
    let sig = sign_authority(issuer, &authority);
    Ok(assemble(authority, vec![], vec![sig]))
}

/// `ATTENUATE_DCT` (§3.4): appends a narrowing block signed by `attenuator`, refusing with
/// the same codes verification would deny with (signatures of `token` are not re-checked).
pub fn attenuate(
    token: &SignedJsonToken,
    attenuator: &Keypair,
    p: AttenuateParams,
) -> Result<SignedJsonToken, AttenuateError> {
    check_formats(token).map_err(|e| AttenuateError::Malformed(e.detail))?;
    let mut state = ChainState::from_authority(&token.authority)?;
    for att in &token.attenuations {
        state.apply(att)?;
    }
    let att = Attenuation {
        attenuator: attenuator.principal_id(),
        delegatee: p.delegatee,
        delegation_id: p.delegation_id,
        contract_id: p.contract_id,
        allowed_capabilities: p.allowed_capabilities,
        max_budget_microcents: p.max_budget_microcents,
        expires_at: p.expires_at,
        max_chain_depth: p.max_chain_depth,
    };
    let mut out = token.clone();
    out.attenuations.push(att.clone());
    // Formats first, so a malformed delegatee or timestamp is `malformed_token`.
    let mut probe = out.clone();
    probe.signatures.truncate(0);
    check_formats(&probe).map_err(|e| AttenuateError::Malformed(e.detail))?;
    state.apply(&att)?;
    let sig = sign_attenuation(attenuator, &out.authority, &out.attenuations);
    out.signatures.push(sig);
    Ok(out)
}

/// [`attenuate`] on the wire form: decodes (`malformed_token` on any step-1 fault), attenuates
/// and re-encodes.
pub fn attenuate_serialized(
    token: &crate::token::SerializedDct,
    attenuator: &Keypair,
    p: AttenuateParams,
) -> Result<crate::token::SerializedDct, AttenuateError> {
    let decoded = crate::token::decode(token).map_err(|e| AttenuateError::Malformed(e.detail))?;
    attenuate(&decoded, attenuator, p).map(|t| crate::token::encode(&t))
}
