//! Tokens for the MCP suite, built with the reference's types and signing, from fixed keys.
//!
//! Keys are Ed25519 keys whose seeds are BLAKE2b-256 of a published name
//! (`delegateos-mcp-suite/<name>`), so every run — and any reimplementation of the suite —
//! builds the same tokens. Blocks are signed directly (not through `attenuate`), so cases can
//! build tokens that `attenuate` would refuse (capability expansion, depth overruns) and still
//! carry valid signatures: only the intended check can fail.

use serde_json::{json, Value};

use delegateos_reference::crypto::{blake2b256, sign_canonical, Keypair};
use delegateos_reference::encoding::b64u_encode;
use delegateos_reference::revocation::{create_entry, RevocationEntry, Scope};
use delegateos_reference::token::{
    self, attenuation_payload, authority_payload, canonical_of, revocation_id_of_block,
    Attenuation, Authority, Capability, Covers, SerializedDct, SignedJsonToken, TokenSignature,
    FORMAT, ROOT_PARENT_DELEGATION_ID,
};

/// Far-future expiry used by tokens that must stay valid.
pub const FAR_FUTURE: &str = "2099-01-01T00:00:00Z";
/// A past expiry.
pub const PAST: &str = "2001-01-01T00:00:00Z";
/// `issuedAt` of every suite token.
pub const ISSUED_AT: &str = "2000-01-01T00:00:00Z";

/// The suite key named `name`.
pub fn key(name: &str) -> Keypair {
    Keypair::from_seed(&blake2b256(
        format!("delegateos-mcp-suite/{name}").as_bytes(),
    ))
}

/// The trusted root.
pub fn root() -> Keypair {
    key("root")
}

/// The agent the root delegates to.
pub fn agent() -> Keypair {
    key("agent")
}

/// A capability triple.
pub fn cap(namespace: &str, action: &str, resource: &str) -> Capability {
    Capability::new(namespace, action, resource)
}

/// A root token under construction.
#[derive(Debug, Clone)]
pub struct RootSpec {
    /// Capabilities granted.
    pub capabilities: Vec<Capability>,
    /// `del_` + 12 hex.
    pub delegation_id: String,
    /// `ct_` + 12 hex.
    pub contract_id: String,
    /// Budget in microcents.
    pub budget: u64,
    /// Expiry.
    pub expires_at: String,
    /// `chainDepth` of the authority.
    pub chain_depth: u64,
    /// `maxChainDepth` of the authority.
    pub max_chain_depth: u64,
}

impl RootSpec {
    /// A valid root token spec granting `capabilities`.
    pub fn new(capabilities: Vec<Capability>) -> Self {
        RootSpec {
            capabilities,
            delegation_id: "del_a00000000001".into(),
            contract_id: "ct_c00000000001".into(),
            budget: 1_000_000,
            expires_at: FAR_FUTURE.into(),
            chain_depth: 0,
            max_chain_depth: 3,
        }
    }

    /// Signs the authority with `issuer` (usually [`root`]).
    pub fn sign(&self, issuer: &Keypair) -> SignedJsonToken {
        let authority = Authority {
            issuer: issuer.principal_id(),
            delegatee: agent().principal_id(),
            capabilities: self.capabilities.clone(),
            contract_id: self.contract_id.clone(),
            delegation_id: self.delegation_id.clone(),
            parent_delegation_id: ROOT_PARENT_DELEGATION_ID.into(),
            chain_depth: self.chain_depth,
            max_chain_depth: self.max_chain_depth,
            max_budget_microcents: self.budget,
            expires_at: self.expires_at.clone(),
            issued_at: ISSUED_AT.into(),
        };
        let payload = authority_payload(&canonical_of(&authority));
        let sig = sign_canonical(issuer, &payload);
        SignedJsonToken {
            format: FORMAT.into(),
            authority,
            attenuations: Vec::new(),
            signatures: vec![TokenSignature {
                signer: issuer.principal_id(),
                signature: b64u_encode(&sig),
                covers: Covers::Authority,
            }],
        }
    }
}

/// Appends `att` signed by `attenuator`, with no narrowing checks.
pub fn append(
    mut token: SignedJsonToken,
    attenuator: &Keypair,
    att: Attenuation,
) -> SignedJsonToken {
    token.attenuations.push(att);
    let prefix: Vec<String> = token.attenuations.iter().map(canonical_of).collect();
    let prefix_refs: Vec<&str> = prefix.iter().map(String::as_str).collect();
    let payload = attenuation_payload(&canonical_of(&token.authority), &prefix_refs);
    let sig = sign_canonical(attenuator, &payload);
    let index = u64::try_from(token.attenuations.len() - 1).unwrap_or(0);
    token.signatures.push(TokenSignature {
        signer: attenuator.principal_id(),
        signature: b64u_encode(&sig),
        covers: Covers::Index(index),
    });
    token
}

/// An attenuation from the current delegatee ([`agent`]) to `key("sub")`.
pub fn attenuation(delegation_id: &str, caps: Option<Vec<Capability>>) -> Attenuation {
    Attenuation {
        attenuator: agent().principal_id(),
        delegatee: key("sub").principal_id(),
        delegation_id: delegation_id.into(),
        contract_id: "ct_c00000000002".into(),
        allowed_capabilities: caps,
        max_budget_microcents: None,
        expires_at: None,
        max_chain_depth: None,
    }
}

/// The wire form of a token.
pub fn serialize(token: &SignedJsonToken) -> SerializedDct {
    token::encode(token)
}

/// The `_delegateos` envelope for `token`, with its effective ids (D17).
pub fn envelope(token: &SignedJsonToken) -> Value {
    let dct = serialize(token);
    let last = token.attenuations.last();
    json!({
        "dct": dct.token,
        "format": dct.format,
        "delegationId": last.map_or(&token.authority.delegation_id, |a| &a.delegation_id),
        "contractId": last.map_or(&token.authority.contract_id, |a| &a.contract_id),
    })
}

/// A signed `block`-scope revocation of the token's authority by its issuer.
pub fn revoke_authority(token: &SignedJsonToken, issuer: &Keypair) -> RevocationEntry {
    create_entry(
        issuer,
        &revocation_id_of_block(&token.authority),
        ISSUED_AT,
        Scope::Block,
    )
}
