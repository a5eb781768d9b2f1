//! Delegation capability tokens: create, attenuate, verify, inspect, revocation ids (spec §3,
//! §10.1; decisions D4–D9, D16, D23, D24).

use serde_json::{json, Map, Value};

use super::glob::capability;
use super::input::{as_str, as_uint, check_keys, invalid, Input};
use super::{to_output, OpError, OpResult};
use crate::attenuate::{self, AttenuateParams, CreateParams};
use std::collections::HashMap;

use crate::crypto::{KeyStore, Keypair, SignatureError, ValidatedKey};
use crate::revocation::{entry_from_value_with, RevocationList};
use crate::token::{self, Capability, SerializedDct};
use crate::verify::{self, VerificationContext};

thread_local! {
    /// The signer keys and signature verdicts `dct.verify` and the revocation lists of
    /// [`revocation_list`] computed on this thread ([`RecentKeys`]).
    static RECENT_KEYS: std::cell::RefCell<RecentKeys> =
        std::cell::RefCell::new(RecentKeys::default());
}

/// The keys `dct.verify` validated, and the signatures it verified (its token's blocks and the
/// entries of its revocation list, which [`revocation_list`] verifies through this store for
/// the chain and contract operations too), on this thread, so an
/// operation called over and over (a fuzzer runs it twice per case, on a handful of signer
/// keys and mostly the same blocks and revocation entries) validates each key and verifies
/// each (key, message, signature) once: the key half of D10 depends only on the key, the
/// verification only on its three inputs, and a [`KeyStore`] changes how often a key is
/// validated or a signature verified, never a result. Bounded ([`RecentKeys::CAPACITY`] keys,
/// [`RecentKeys::VERDICTS`] verdicts of at most [`RecentKeys::VERDICT_BYTES`] input bytes, each
/// emptied when full), and emptied when either fault
/// switch that changes the strict verification (`ed25519.weak-keys-accepted`,
/// `ed25519.s-not-reduced`) changes, so nothing computed under one switch is used under
/// another.
#[derive(Default)]
struct RecentKeys {
    weak_keys_accepted: bool,
    s_not_reduced: bool,
    keys: HashMap<[u8; 32], ValidatedKey>,
    /// Verdicts by public key ‖ signature ‖ message (the whole input, no digest of it).
    verdicts: HashMap<Vec<u8>, Result<(), SignatureError>>,
    /// The bytes of `verdicts`' inputs.
    verdict_bytes: usize,
}

impl RecentKeys {
    /// At most this many keys are kept.
    const CAPACITY: usize = 256;
    /// At most this many signature verdicts are kept.
    const VERDICTS: usize = 1024;
    /// At most this many bytes of inputs are kept for them (a hostile 1 MiB token must not
    /// make the store hold a gigabyte): a message longer than a sixteenth of it is verified
    /// without being remembered.
    const VERDICT_BYTES: usize = 4 << 20;

    /// Empties the store if a fault switch that changes verification has changed.
    fn follow_switches(&mut self) {
        let weak = crate::faults::on("ed25519.weak-keys-accepted");
        let s_not_reduced = crate::faults::on("ed25519.s-not-reduced");
        if weak != self.weak_keys_accepted || s_not_reduced != self.s_not_reduced {
            self.keys.clear();
            self.verdicts.clear();
            self.verdict_bytes = 0;
            self.weak_keys_accepted = weak;
            self.s_not_reduced = s_not_reduced;
        }
    }
}

impl KeyStore for RecentKeys {
    fn validated(&mut self, public_key: &[u8; 32]) -> Result<&ValidatedKey, SignatureError> {
        self.follow_switches();
        if self.keys.len() >= Self::CAPACITY {
            self.keys.clear();
        }
        self.keys.validated(public_key)
    }

    fn verify(
        &mut self,
        public_key: &[u8; 32],
        message: &[u8],
        sig: &[u8; 64],
    ) -> Result<(), SignatureError> {
        self.follow_switches();
        if message.len() > Self::VERDICT_BYTES / 16 {
            return crate::crypto::verify_strict_with(
                &mut KeysOnly(self),
                public_key,
                message,
                sig,
            );
        }
        let mut input = Vec::with_capacity(32 + 64 + message.len());
        input.extend_from_slice(public_key);
        input.extend_from_slice(sig);
        input.extend_from_slice(message);
        if let Some(verdict) = self.verdicts.get(&input) {
            return *verdict;
        }
        let verdict =
            crate::crypto::verify_strict_with(&mut KeysOnly(self), public_key, message, sig);
        if self.verdicts.len() >= Self::VERDICTS
            || self.verdict_bytes + input.len() > Self::VERDICT_BYTES
        {
            self.verdicts.clear();
            self.verdict_bytes = 0;
        }
        self.verdict_bytes += input.len();
        self.verdicts.insert(input, verdict);
        verdict
    }
}

/// A [`RecentKeys`] seen only as a store of keys (its verdicts not consulted): the
/// computation a verdict is remembered from.
struct KeysOnly<'a>(&'a mut RecentKeys);

impl KeyStore for KeysOnly<'_> {
    fn validated(&mut self, public_key: &[u8; 32]) -> Result<&ValidatedKey, SignatureError> {
        self.0.validated(public_key)
    }
}

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &[
    "dct.create",
    "dct.attenuate",
    "dct.verify",
    "dct.inspect",
    "dct.revocation_ids",
];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "dct.create" => create(input),
        "dct.attenuate" => attenuate_op(input),
        "dct.verify" => verify_op(input),
        "dct.inspect" => inspect(input),
        "dct.revocation_ids" => revocation_ids(input),
        _ => return None,
    })
}

/// A SerializedDCT passed as a JSON value: any shape fault is the token's, `malformed_token`.
pub(crate) fn serialized(value: &Value) -> Result<SerializedDct, OpError> {
    SerializedDct::from_value(value).map_err(|e| OpError::new("malformed_token", e.detail))
}

fn capabilities(value: &Value, what: &str) -> Result<Vec<Capability>, OpError> {
    value
        .as_array()
        .ok_or_else(|| invalid(format!("{what:?} must be an array")))?
        .iter()
        .map(|c| {
            c.as_object()
                .ok_or_else(|| invalid(format!("{what:?} entries must be objects")))
                .and_then(|m| capability(m, what))
        })
        .collect()
}

fn field<'a>(map: &'a Map<String, Value>, key: &str) -> Result<&'a Value, OpError> {
    map.get(key)
        .ok_or_else(|| invalid(format!("missing field {key:?} in params")))
}

/// A string parameter of a token block; a present value of the wrong type is a token-format
/// fault (`malformed_token`), a missing one an input-shape fault.
fn string(map: &Map<String, Value>, key: &str) -> Result<String, OpError> {
    as_str(field(map, key)?, key)
        .map(str::to_owned)
        .map_err(token_fault)
}

/// Re-labels a value-level decoding error of token parameters as `malformed_token`.
fn token_fault(e: OpError) -> OpError {
    OpError::new("malformed_token", e.detail)
}

/// An integer parameter of a token block; a present value that is not a protocol integer
/// (negative, fractional, above 2^53−1, not a number) is a token-format fault (D19).
fn param_uint(value: &Value, key: &str) -> Result<u64, OpError> {
    as_uint(value, key)
        .or_else(|e| super::mistakes::unbounded_uint(value).ok_or(e))
        .map_err(token_fault)
}

fn create(input: &Value) -> OpResult {
    let input = Input::new(input, &["issuerSeed", "params"], &[])?;
    let issuer = Keypair::from_seed(&input.seed("issuerSeed")?);
    let p = input.object("params")?;
    check_keys(
        p,
        "params",
        &[
            "delegatee",
            "capabilities",
            "contractId",
            "delegationId",
            "parentDelegationId",
            "chainDepth",
            "maxChainDepth",
            "maxBudgetMicrocents",
            "expiresAt",
            "issuedAt",
        ],
        &[],
    )?;
    let params = CreateParams {
        delegatee: string(p, "delegatee")?,
        capabilities: capabilities(field(p, "capabilities")?, "capabilities")
            .map_err(token_fault)?,
        contract_id: string(p, "contractId")?,
        delegation_id: string(p, "delegationId")?,
        parent_delegation_id: string(p, "parentDelegationId")?,
        chain_depth: param_uint(field(p, "chainDepth")?, "chainDepth")?,
        max_chain_depth: param_uint(field(p, "maxChainDepth")?, "maxChainDepth")?,
        max_budget_microcents: param_uint(field(p, "maxBudgetMicrocents")?, "maxBudgetMicrocents")?,
        expires_at: string(p, "expiresAt")?,
        issued_at: string(p, "issuedAt")?,
    };
    let token =
        attenuate::create(&issuer, params).map_err(|e| OpError::new(e.code(), e.to_string()))?;
    Ok(json!({ "token": to_output(&token::encode(&token))? }))
}

fn attenuate_op(input: &Value) -> OpResult {
    let input = Input::new(input, &["token", "attenuatorSeed", "params"], &[])?;
    let dct = serialized(input.value("token")?)?;
    let attenuator = Keypair::from_seed(&input.seed("attenuatorSeed")?);
    let p = input.object("params")?;
    check_keys(
        p,
        "params",
        &["delegatee", "delegationId", "contractId"],
        &[
            "allowedCapabilities",
            "maxBudgetMicrocents",
            "expiresAt",
            "maxChainDepth",
        ],
    )?;
    let params = AttenuateParams {
        delegatee: string(p, "delegatee")?,
        delegation_id: string(p, "delegationId")?,
        contract_id: string(p, "contractId")?,
        allowed_capabilities: p
            .get("allowedCapabilities")
            .map(|v| capabilities(v, "allowedCapabilities"))
            .transpose()
            .map_err(token_fault)?,
        max_budget_microcents: p
            .get("maxBudgetMicrocents")
            .map(|v| param_uint(v, "maxBudgetMicrocents"))
            .transpose()?,
        expires_at: p
            .get("expiresAt")
            .map(|v| as_str(v, "expiresAt").map(str::to_owned))
            .transpose()
            .map_err(token_fault)?,
        max_chain_depth: p
            .get("maxChainDepth")
            .map(|v| param_uint(v, "maxChainDepth"))
            .transpose()?,
    };
    let token = attenuate::attenuate_serialized(&dct, &attenuator, params)
        .map_err(|e| OpError::new(e.code(), e.to_string()))?;
    Ok(json!({ "token": to_output(&token)? }))
}

/// Builds a revocation list by `add`ing each entry in order; entries `add` refuses are
/// ignored (they must not revoke anything, D6).
pub(crate) fn revocation_list(value: &Value) -> Result<RevocationList, OpError> {
    let items = value
        .as_array()
        .ok_or_else(|| invalid("\"revocations\" must be an array"))?;
    let accumulated = crate::faults::accumulated_revocations(items);
    let items = accumulated.as_deref().unwrap_or(items);
    let mut list = RevocationList::new();
    RECENT_KEYS.with(|keys| {
        let keys = &mut *keys.borrow_mut();
        for item in items {
            if let Ok(entry) = entry_from_value_with(item, keys) {
                // A refused entry is ignored by definition of this operation.
                let _ = list.add_with(entry, keys);
            }
        }
    });
    Ok(list)
}

fn verify_op(input: &Value) -> OpResult {
    let token = input.get("token").unwrap_or(&Value::Null);
    crate::faults::memo_by_token(token, || {
        verify_context(input).map_err(|e| (e.code, e.detail))
    })
    .map_err(|(code, detail)| OpError::new(code, detail))
}

/// `dct.verify`: the token verified in its context (§10.1).
fn verify_context(input: &Value) -> OpResult {
    let input = Input::new(input, &["token", "context"], &[])?;
    let ctx = input.object("context")?;
    check_keys(
        ctx,
        "context",
        &[
            "namespace",
            "action",
            "resource",
            "now",
            "spentMicrocents",
            "rootPublicKey",
            "revocations",
        ],
        &[],
    )?;
    let text = |key: &str| -> Result<String, OpError> {
        let value = ctx
            .get(key)
            .ok_or_else(|| invalid(format!("missing {key:?} in context")))?;
        as_str(value, key).map(str::to_owned)
    };
    let revocations = revocation_list(field(ctx, "revocations")?)?;
    let context = VerificationContext {
        namespace: text("namespace")?,
        operation: text("action")?,
        resource: text("resource")?,
        now: text("now")?,
        spent_microcents: as_uint(field(ctx, "spentMicrocents")?, "spentMicrocents")?,
        root_public_key: text("rootPublicKey")?,
        revocations: &revocations,
    };
    let dct = serialized(input.value("token")?)?;
    let scope = RECENT_KEYS
        .with(|keys| verify::verify_with_keys(&dct, &context, &mut *keys.borrow_mut()))
        .map_err(|d| OpError::new(d.code(), d.to_string()))?;
    Ok(json!({ "scope": to_output(&scope)? }))
}

fn inspect(input: &Value) -> OpResult {
    let input = Input::new(input, &["token"], &[])?;
    let dct = serialized(input.value("token")?)?;
    let inspection = token::inspect(&dct).map_err(|e| OpError::new("malformed_token", e.detail))?;
    to_output(&inspection)
}

fn revocation_ids(input: &Value) -> OpResult {
    let input = Input::new(input, &["token"], &[])?;
    let dct = serialized(input.value("token")?)?;
    let decoded =
        token::decode_blocks(&dct).map_err(|e| OpError::new("malformed_token", e.detail))?;
    let ids: Vec<String> = token::block_revocation_ids(&decoded).collect();
    Ok(json!({ "revocationIds": ids }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::crypto::{blake2b256, verify_strict};

    /// A signature whose S is the signer's S plus L (the group order): the same point
    /// equation, refused as `SNotReduced` unless `ed25519.s-not-reduced` is on.
    fn s_plus_l(sig: &[u8; 64]) -> [u8; 64] {
        const L: [u8; 32] = [
            0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9,
            0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ];
        let mut out = *sig;
        let mut carry = 0u16;
        for (o, l) in out[32..].iter_mut().zip(L) {
            let sum = u16::from(*o) + u16::from(l) + carry;
            *o = sum.to_le_bytes()[0];
            carry = sum >> 8;
        }
        out
    }

    #[test]
    fn remembered_verdicts_are_the_computed_ones() {
        let keypair = Keypair::from_seed(&[7; 32]);
        let key = keypair.public_key();
        let digest = blake2b256(b"payload");
        let good = keypair.sign_digest(&digest);
        let mut tampered = good;
        tampered[40] ^= 1;
        let unreduced = s_plus_l(&good);
        let mut store = RecentKeys::default();
        for _ in 0..3 {
            for sig in [&good, &tampered, &unreduced] {
                assert_eq!(
                    store.verify(&key, &digest, sig),
                    verify_strict(&key, &digest, sig)
                );
            }
        }
        assert_eq!(store.verify(&key, &digest, &good), Ok(()));
        assert_eq!(
            store.verify(&key, &digest, &unreduced),
            Err(SignatureError::SNotReduced)
        );
    }

    /// A verdict remembered under one fault switch is not returned under another.
    #[cfg(feature = "faults")]
    #[test]
    fn verdicts_follow_the_fault_switches() {
        let keypair = Keypair::from_seed(&[9; 32]);
        let key = keypair.public_key();
        let digest = blake2b256(b"payload");
        let unreduced = s_plus_l(&keypair.sign_digest(&digest));
        let mut store = RecentKeys::default();
        let refused = Err(SignatureError::SNotReduced);
        assert_eq!(store.verify(&key, &digest, &unreduced), refused);
        let lenient = crate::faults::with("ed25519.s-not-reduced", || {
            (
                store.verify(&key, &digest, &unreduced),
                store.verify(&key, &digest, &unreduced),
            )
        });
        assert_eq!(lenient, (Ok(()), Ok(())));
        assert_eq!(store.verify(&key, &digest, &unreduced), refused);
    }
}
