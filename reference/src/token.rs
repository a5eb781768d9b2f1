//! The SignedJSONToken and SerializedDCT wire types, decoding, encoding, inspection and
//! revocation ids (spec §3.1–3.2, §3.5; decision D9).
//!
//! "Parse, don't validate": [`decode`] turns the untrusted `SerializedDct` into typed values or
//! a [`Malformed`] error carrying a short detail. It enforces strict base64url, a 1 MiB limit,
//! strict JSON ([`crate::json`]), the exact RFC 8785 canonical form, no unknown or null fields,
//! numbers that are non-negative integers ≤ 2^53−1, and the principal, signature, id and
//! timestamp formats. It does not check signatures or narrowing: that is [`crate::verify`].

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::canonical::canonicalize;
use crate::crypto::blake2b256;
use crate::encoding::{
    b64u_decode, b64u_encode, decode_principal, decode_signature, is_contract_id, is_delegation_id,
};
use crate::faults;
use crate::json::parse_strict;
use crate::timestamp::Timestamp;

/// The only token format of v0.1.
pub const FORMAT: &str = "delegateos-sjt-v1";
/// Maximum length of the `token` text (1 MiB), checked before decoding.
pub const MAX_TOKEN_CHARS: usize = 1 << 20;
/// Largest integer a token may carry (JavaScript's `Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;
/// `parentDelegationId` of a root token.
pub const ROOT_PARENT_DELEGATION_ID: &str = "del_000000000000";

/// A capability triple; `resource` is a glob pattern (§10.2).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Capability {
    /// Namespace, compared byte-for-byte.
    pub namespace: String,
    /// Action, compared byte-for-byte.
    pub action: String,
    /// Resource glob.
    pub resource: String,
}

impl Capability {
    /// Builds a capability from its three parts.
    pub fn new(namespace: &str, action: &str, resource: &str) -> Self {
        Self {
            namespace: namespace.to_owned(),
            action: action.to_owned(),
            resource: resource.to_owned(),
        }
    }
}

/// The root block, signed by `issuer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authority {
    /// Root principal id.
    pub issuer: String,
    /// Recipient principal id.
    pub delegatee: String,
    /// Granted capabilities.
    pub capabilities: Vec<Capability>,
    /// `ct_…` contract id.
    pub contract_id: String,
    /// `del_…` delegation id.
    pub delegation_id: String,
    /// `del_000000000000` for a root.
    pub parent_delegation_id: String,
    /// The root's own depth (0 for a root).
    pub chain_depth: u64,
    /// Absolute maximum depth (D4).
    pub max_chain_depth: u64,
    /// Budget in microcents.
    pub max_budget_microcents: u64,
    /// Expiry timestamp (D5 profile).
    pub expires_at: String,
    /// Issue timestamp (D5 profile; not compared with `now`).
    pub issued_at: String,
}

/// One narrowing block, signed by `attenuator`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attenuation {
    /// Must be the previous delegatee.
    pub attenuator: String,
    /// New delegatee.
    pub delegatee: String,
    /// `del_…` id of this delegation.
    pub delegation_id: String,
    /// `ct_…` contract id.
    pub contract_id: String,
    /// Replacement capability set (each must be a subset of the parent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_capabilities: Option<Vec<Capability>>,
    /// Budget cap (≤ parent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_budget_microcents: Option<u64>,
    /// Expiry (≤ parent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Further attenuations allowed after this one (D4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chain_depth: Option<u64>,
}

/// What a signature covers: `"authority"` or an attenuation index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Covers {
    /// The authority block.
    Authority,
    /// The prefix up to and including attenuation `i` (D16).
    Index(u64),
}

impl Serialize for Covers {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Covers::Authority => s.serialize_str("authority"),
            Covers::Index(i) => s.serialize_u64(*i),
        }
    }
}

impl<'de> Deserialize<'de> for Covers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) if s == "authority" => Ok(Covers::Authority),
            Value::Number(n) => n
                .as_u64()
                .map(Covers::Index)
                .ok_or_else(|| serde::de::Error::custom("covers must be a non-negative integer")),
            _ => Err(serde::de::Error::custom(
                "covers must be \"authority\" or an index",
            )),
        }
    }
}

/// One entry of `signatures[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenSignature {
    /// Principal id the signer claims (checked, never used as the key: D8).
    pub signer: String,
    /// base64url Ed25519 signature (86 characters).
    pub signature: String,
    /// Which block(s) it covers.
    pub covers: Covers,
}

/// The decoded token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedJsonToken {
    /// Always [`FORMAT`].
    pub format: String,
    /// Root block.
    pub authority: Authority,
    /// Narrowing blocks, in order.
    pub attenuations: Vec<Attenuation>,
    /// `1 + attenuations.len()` signatures.
    pub signatures: Vec<TokenSignature>,
}

/// The wire form: base64url of the canonical JSON of a [`SignedJsonToken`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SerializedDct {
    /// base64url text.
    pub token: String,
    /// Always [`FORMAT`].
    pub format: String,
}

/// The token is malformed (`malformed_token`); `detail` says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed token: {detail}")]
pub struct Malformed {
    /// Short human-readable reason (not compared by vectors).
    pub detail: String,
}

impl Malformed {
    /// Builds an error with `detail`.
    pub fn new(detail: impl Into<String>) -> Self {
        Self {
            detail: detail.into(),
        }
    }
}

/// A decoded token together with the canonical text of each block, so that signature
/// payloads and revocation ids are computed from exactly what was signed.
#[derive(Debug, Clone)]
pub struct Decoded {
    /// The typed token.
    pub token: SignedJsonToken,
    /// Canonical JSON of `authority` as it appeared in the token.
    pub authority_canonical: String,
    /// Canonical JSON of each attenuation as it appeared in the token.
    pub attenuation_canonical: Vec<String>,
    /// The text of each block as received, authority first: kept only by the mistake that
    /// hashes it for revocation ids (`verify.2.revocation-id-over-raw-text`), else empty.
    pub raw_blocks: Vec<String>,
}

const TOP_KEYS: &[&str] = &["attenuations", "authority", "format", "signatures"];
const AUTHORITY_KEYS: &[&str] = &[
    "capabilities",
    "chainDepth",
    "contractId",
    "delegatee",
    "delegationId",
    "expiresAt",
    "issuedAt",
    "issuer",
    "maxBudgetMicrocents",
    "maxChainDepth",
    "parentDelegationId",
];
const ATTENUATION_REQUIRED: &[&str] = &["attenuator", "contractId", "delegatee", "delegationId"];
const ATTENUATION_OPTIONAL: &[&str] = &[
    "allowedCapabilities",
    "expiresAt",
    "maxBudgetMicrocents",
    "maxChainDepth",
];
const CAPABILITY_KEYS: &[&str] = &["action", "namespace", "resource"];
const SIGNATURE_KEYS: &[&str] = &["covers", "signature", "signer"];

fn as_object<'a>(v: &'a Value, what: &str) -> Result<&'a Map<String, Value>, Malformed> {
    v.as_object()
        .ok_or_else(|| Malformed::new(format!("{what} must be an object")))
}

fn as_array<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>, Malformed> {
    v.as_array()
        .ok_or_else(|| Malformed::new(format!("{what} must be an array")))
}

/// Field presence: required present, optional not `null`, and nothing else (D9).
fn check_keys(
    obj: &Map<String, Value>,
    what: &str,
    required: &[&str],
    optional: &[&str],
) -> Result<(), Malformed> {
    for key in required {
        if !obj.contains_key(*key) {
            return Err(Malformed::new(format!("{what}: missing field {key}")));
        }
    }
    for key in optional {
        if obj.get(*key).is_some_and(Value::is_null)
            && faults::off("token.null-members-as-unset")
            && (faults::off("token.null-members-unlimited") || *key == "allowedCapabilities")
        {
            return Err(Malformed::new(format!("{what}: {key} must not be null")));
        }
    }
    if let Some(k) = obj
        .keys()
        .find(|k| !required.contains(&k.as_str()) && !optional.contains(&k.as_str()))
    {
        return Err(Malformed::new(format!("{what}: unknown field {k}")));
    }
    Ok(())
}

fn check_capabilities(v: &Value, what: &str) -> Result<(), Malformed> {
    for cap in as_array(v, what)? {
        check_keys(as_object(cap, what)?, what, CAPABILITY_KEYS, &[])?;
    }
    Ok(())
}

/// Every number anywhere in the token must be an integer in 0..=2^53−1.
fn check_numbers(v: &Value) -> Result<(), Malformed> {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(x) if x <= MAX_SAFE_INTEGER || faults::on("token.integers-unbounded") => Ok(()),
            _ => Err(Malformed::new(format!(
                "number {n} is not an integer in 0..=2^53-1"
            ))),
        },
        Value::Array(a) => a.iter().try_for_each(check_numbers),
        Value::Object(o) => o.values().try_for_each(check_numbers),
        _ => Ok(()),
    }
}

fn check_structure(v: &Value) -> Result<(), Malformed> {
    let top = as_object(v, "token")?;
    check_keys(top, "token", TOP_KEYS, &[])?;
    let auth = as_object(&top["authority"], "authority")?;
    check_keys(
        &faults::known_members(auth, AUTHORITY_KEYS, &[]),
        "authority",
        AUTHORITY_KEYS,
        &[],
    )?;
    check_capabilities(&auth["capabilities"], "authority.capabilities")?;
    for att in as_array(&top["attenuations"], "attenuations")? {
        let att = as_object(att, "attenuation")?;
        check_keys(
            &faults::known_members(att, ATTENUATION_REQUIRED, ATTENUATION_OPTIONAL),
            "attenuation",
            ATTENUATION_REQUIRED,
            ATTENUATION_OPTIONAL,
        )?;
        if let Some(caps) = att.get("allowedCapabilities") {
            check_capabilities(caps, "attenuation.allowedCapabilities")?;
        }
    }
    for sig in as_array(&top["signatures"], "signatures")? {
        check_keys(
            as_object(sig, "signature")?,
            "signature",
            SIGNATURE_KEYS,
            &[],
        )?;
    }
    if faults::off("token.integers-any-number") {
        check_numbers(v)
    } else {
        Ok(())
    }
}

fn check_principal(id: &str, what: &str) -> Result<(), Malformed> {
    decode_principal(id)
        .map(|_| ())
        .map_err(|e| Malformed::new(format!("{what}: not a principal id ({e})")))
}

fn check_timestamp(t: &str, what: &str) -> Result<(), Malformed> {
    Timestamp::parse(t)
        .map(|_| ())
        .map_err(|e| Malformed::new(format!("{what}: {}", e.reason)))
}

fn check_caps(caps: &[Capability], what: &str) -> Result<(), Malformed> {
    if caps
        .iter()
        .any(|c| c.namespace.is_empty() || c.action.is_empty())
    {
        return Err(Malformed::new(format!(
            "{what}: namespace and action must be non-empty"
        )));
    }
    Ok(())
}

/// Checks field formats of a typed token (D9). Used by [`decode`] and by `attenuate`.
pub fn check_formats(t: &SignedJsonToken) -> Result<(), Malformed> {
    if t.format != FORMAT && faults::off("token.format-unchecked") {
        return Err(Malformed::new(format!(
            "unknown token format {:?}",
            t.format
        )));
    }
    let a = &t.authority;
    check_principal(&a.issuer, "authority.issuer")?;
    check_principal(&a.delegatee, "authority.delegatee")?;
    check_caps(&a.capabilities, "authority.capabilities")?;
    if !is_contract_id(&a.contract_id) {
        return Err(Malformed::new("authority.contractId format"));
    }
    if !is_delegation_id(&a.delegation_id) || !is_delegation_id(&a.parent_delegation_id) {
        return Err(Malformed::new("authority delegation id format"));
    }
    check_timestamp(&a.expires_at, "authority.expiresAt")?;
    check_timestamp(&a.issued_at, "authority.issuedAt")?;
    for (i, att) in t.attenuations.iter().enumerate() {
        let what = format!("attenuations[{i}]");
        check_principal(&att.attenuator, &what)?;
        check_principal(&att.delegatee, &what)?;
        if !is_contract_id(&att.contract_id) || !is_delegation_id(&att.delegation_id) {
            return Err(Malformed::new(format!("{what}: id format")));
        }
        if let Some(caps) = &att.allowed_capabilities {
            check_caps(caps, &what)?;
        }
        if let Some(exp) = &att.expires_at {
            check_timestamp(exp, &what)?;
        }
        for n in [att.max_budget_microcents, att.max_chain_depth]
            .into_iter()
            .flatten()
        {
            if n > MAX_SAFE_INTEGER
                && faults::off("token.integers-any-number")
                && faults::off("token.integers-unbounded")
            {
                return Err(Malformed::new(format!("{what}: number above 2^53-1")));
            }
        }
    }
    for n in [a.chain_depth, a.max_chain_depth, a.max_budget_microcents] {
        if n > MAX_SAFE_INTEGER
            && faults::off("token.integers-any-number")
            && faults::off("token.integers-unbounded")
        {
            return Err(Malformed::new("authority: number above 2^53-1"));
        }
    }
    for (i, s) in t.signatures.iter().enumerate() {
        check_principal(&s.signer, &format!("signatures[{i}].signer"))?;
        decode_signature(&s.signature)
            .map_err(|e| Malformed::new(format!("signatures[{i}].signature: {e}")))?;
    }
    Ok(())
}

fn canon(v: &Value) -> Result<String, Malformed> {
    canonicalize(v).map_err(|e| Malformed::new(e.to_string()))
}

/// Step 1 of §10.1 (D9): decodes and validates a serialized token, keeping the canonical text
/// of each block for the signature payloads and revocation ids. Signatures are not checked.
/// [`decode`] is this without the block texts.
pub fn decode_blocks(dct: &SerializedDct) -> Result<Decoded, Malformed> {
    if dct.format != FORMAT {
        return Err(Malformed::new(format!("unknown format {:?}", dct.format)));
    }
    if dct.token.len() > MAX_TOKEN_CHARS {
        return Err(Malformed::new("token longer than 1 MiB"));
    }
    let bytes = b64u_decode(&dct.token).map_err(|e| Malformed::new(format!("token: {e}")))?;
    // A decoder that keeps each block's raw text parses it as ordinary JSON (the last of
    // duplicate members wins) and trusts it as it is (`verify.2.revocation-id-over-raw-text`),
    // and so does one that uses the platform's parser as it is (`token.json-parse-lenient`).
    let value = if faults::on("verify.2.revocation-id-over-raw-text")
        || faults::on("token.json-parse-lenient")
        || faults::on("token.json-loads-unchecked")
    {
        mistakes::parse_last_wins(&bytes)
    } else {
        parse_strict(&bytes)
    }
    .map_err(|e| Malformed::new(e.to_string()))?;
    decode_parsed(&bytes, mistakes::null_members_dropped(value))
}

fn decode_parsed(bytes: &[u8], value: Value) -> Result<Decoded, Malformed> {
    // What a decoder with a mistake reads where it differs from the token as signed (`None`
    // without one): the signatures still cover the blocks as they came.
    let read = mistakes::as_read(&value);
    check_structure(read.as_ref().unwrap_or(&value))?;
    // Each block is canonicalized once; the whole token's canonical text is then assembled from
    // the block texts (RFC 8785 sorts the top-level keys "attenuations" < "authority" <
    // "format" < "signatures") and compared with the input bytes piece by piece.
    let authority_canonical = canon(&value["authority"])?;
    let attenuation_canonical = value["attenuations"]
        .as_array()
        .map(|a| a.iter().map(canon).collect::<Result<Vec<_>, _>>())
        .transpose()?
        .unwrap_or_default();
    // check_structure has required exactly the four top-level keys.
    let canonical = is_assembled_canonical(
        bytes,
        &authority_canonical,
        &attenuation_canonical,
        &canon(&value["format"])?,
        &canon(&value["signatures"])?,
    );
    if !canonical
        && faults::off("verify.2.revocation-id-over-raw-text")
        && faults::off("token.json-parse-lenient")
        && faults::off("token.json-loads-unchecked")
    {
        return Err(Malformed::new("token JSON is not in canonical form"));
    }
    let token: SignedJsonToken =
        serde_json::from_value(mistakes::numbers_as_doubles(read.unwrap_or(value)))
            .map_err(|e| Malformed::new(e.to_string()))?;
    check_formats(&token)?;
    Ok(Decoded {
        token,
        authority_canonical,
        attenuation_canonical,
        raw_blocks: faults::raw_blocks(bytes),
    })
}

/// True if `bytes` is exactly `{"attenuations":[a0,…],"authority":A,"format":F,"signatures":S}`
/// built from the given canonical texts, i.e. the RFC 8785 text of the whole token.
fn is_assembled_canonical(
    bytes: &[u8],
    authority: &str,
    attenuations: &[String],
    format: &str,
    signatures: &str,
) -> bool {
    let text = format!(
        "{{\"attenuations\":[{}],\"authority\":{authority},\"format\":{format},\"signatures\":{signatures}}}",
        attenuations.join(",")
    );
    bytes == text.as_bytes()
}

/// Decodes and validates a serialized token (D9). Signatures are not checked.
pub fn decode(dct: &SerializedDct) -> Result<SignedJsonToken, Malformed> {
    decode_blocks(dct).map(|d| d.token)
}

/// Canonical JSON of a typed token or block. Serializing these types cannot fail (string keys,
/// integer numbers), so an error here would be a bug; it yields an empty string, which no
/// decoder accepts, rather than a panic.
pub fn canonical_of<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| canonicalize(&v).ok())
        .unwrap_or_default()
}

/// Encodes a token: base64url of its canonical JSON.
pub fn encode(token: &SignedJsonToken) -> SerializedDct {
    SerializedDct {
        token: b64u_encode(canonical_of(token).as_bytes()),
        format: FORMAT.to_owned(),
    }
}

/// Revocation id of a block given as its canonical text.
pub fn revocation_id_of_canonical(canonical_block: &str) -> String {
    if faults::on("revocation.id-blake2b512-truncated") {
        return b64u_encode(&faults::blake2b512_prefix(canonical_block.as_bytes()));
    }
    b64u_encode(&blake2b256(canonical_block.as_bytes()))
}

/// Revocation id of a typed block ([`Authority`] or [`Attenuation`]).
pub fn revocation_id_of_block<T: Serialize>(block: &T) -> String {
    revocation_id_of_canonical(&canonical_of(block))
}

/// Revocation ids of every block of a decoded token, authority first (§3.5): BLAKE2b-256 of
/// the canonical JSON of each block as it appeared in the token.
pub fn block_revocation_ids(d: &Decoded) -> impl Iterator<Item = String> + '_ {
    std::iter::once(&d.authority_canonical)
        .chain(&d.attenuation_canonical)
        .enumerate()
        .map(|(i, canonical)| revocation_id_of_canonical(&mistakes::hashed_block(d, i, canonical)))
}

/// Revocation ids of every block, authority first (§3.5).
pub fn revocation_ids(token: &SignedJsonToken) -> Vec<String> {
    std::iter::once(revocation_id_of_block(&token.authority))
        .chain(token.attenuations.iter().map(revocation_id_of_block))
        .collect()
}

/// The signed payload of the authority: `canonicalize({authority})` (§3.3).
pub fn authority_payload(authority_canonical: &str) -> String {
    format!("{{\"authority\":{authority_canonical}}}")
}

/// The signed payload of attenuation `i` (D16): `canonicalize({authority, attenuations:
/// [0..=i]})`, assembled from canonical pieces (keys sorted: "attenuations" < "authority").
pub fn attenuation_payload(authority_canonical: &str, prefix_canonical: &[&str]) -> String {
    format!(
        "{{\"attenuations\":[{}],\"authority\":{authority_canonical}}}",
        prefix_canonical.join(",")
    )
}

/// What `inspect` reports (architecture §2.5 `inspectDCT`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Inspection {
    /// `authority.issuer`.
    pub issuer: String,
    /// Last delegatee in the chain.
    pub delegatee: String,
    /// Last contract id in the chain.
    pub contract_id: String,
    /// Last delegation id in the chain.
    pub delegation_id: String,
    /// Effective capabilities: the last `allowedCapabilities`, else the authority's.
    pub capabilities: Vec<Capability>,
    /// Effective expiry (earliest instant), as its original text.
    pub expires_at: String,
    /// `authority.chainDepth + attenuations.len()`.
    pub chain_depth: u64,
    /// Revocation ids, authority first.
    pub revocation_ids: Vec<String>,
    /// The whole decoded token (D24: inspect returns it; nothing in it is verified).
    pub decoded: SignedJsonToken,
}

/// Decodes a token and summarizes it without verifying signatures or narrowing.
pub fn inspect(dct: &SerializedDct) -> Result<Inspection, Malformed> {
    let t = decode(dct)?;
    let a = &t.authority;
    let last = t.attenuations.last();
    let capabilities = t
        .attenuations
        .iter()
        .rev()
        .find_map(|x| x.allowed_capabilities.clone())
        .unwrap_or_else(|| a.capabilities.clone());
    let mut expiry = Timestamp::parse(&a.expires_at).map_err(|e| Malformed::new(e.to_string()))?;
    for exp in t
        .attenuations
        .iter()
        .filter_map(|x| x.expires_at.as_deref())
    {
        let ts = Timestamp::parse(exp).map_err(|e| Malformed::new(e.to_string()))?;
        if ts.unix_nanos() < expiry.unix_nanos() {
            expiry = ts;
        }
    }
    let n = u64::try_from(t.attenuations.len()).unwrap_or(u64::MAX);
    let revocation_ids = revocation_ids(&t);
    Ok(Inspection {
        issuer: a.issuer.clone(),
        delegatee: last.map_or(&a.delegatee, |x| &x.delegatee).clone(),
        contract_id: last.map_or(&a.contract_id, |x| &x.contract_id).clone(),
        delegation_id: last.map_or(&a.delegation_id, |x| &x.delegation_id).clone(),
        capabilities,
        expires_at: expiry.as_str().to_owned(),
        chain_depth: a.chain_depth.saturating_add(n),
        revocation_ids,
        decoded: t,
    })
}

impl SerializedDct {
    /// Reads a SerializedDCT from JSON: exactly `{token: string, format: string}` (D9); the
    /// format value itself is checked by [`decode`].
    pub fn from_value(value: &Value) -> Result<Self, Malformed> {
        let obj = as_object(value, "SerializedDCT")?;
        check_keys(obj, "SerializedDCT", &["format", "token"], &[])?;
        serde_json::from_value(value.clone()).map_err(|e| Malformed::new(e.to_string()))
    }
}

/// The catalogue's mistakes at these steps (`spec/faults.md`), computed only when their fault
/// is on (`faults::on`): beside the steps they break, so that `faults.rs` (the switches)
/// imports nothing of the reference.
mod mistakes {
    /// The text a block's revocation id is computed over: its canonical JSON as it appeared in the
    /// token, or, by a mistake, its text as received (`verify.2.revocation-id-over-raw-text`) or
    /// its typed form re-serialized, unknown members dropped
    /// (`verify.2.revocation-id-over-typed-block`). `i` is 0 for the authority, `j + 1` for
    /// attenuation `j`.
    pub(crate) fn hashed_block<'a>(
        d: &'a crate::token::Decoded,
        i: usize,
        canonical: &'a str,
    ) -> std::borrow::Cow<'a, str> {
        if crate::faults::on("verify.2.revocation-id-over-raw-text") {
            if let Some(raw) = d.raw_blocks.get(i) {
                return raw.as_str().into();
            }
        }
        if crate::faults::on("verify.2.revocation-id-over-typed-block") {
            let typed = match i.checked_sub(1) {
                None => crate::token::canonical_of(&d.token.authority),
                Some(j) => d
                    .token
                    .attenuations
                    .get(j)
                    .map(crate::token::canonical_of)
                    .unwrap_or_default(),
            };
            return typed.into();
        }
        canonical.into()
    }

    /// The parsed token with every `null` member of an attenuation deleted, where
    /// `token.json-parse-lenient` reads `null` as "not set" before anything else looks at the
    /// token (so the signatures are then checked over the blocks without those members).
    pub(crate) fn null_members_dropped(mut value: serde_json::Value) -> serde_json::Value {
        if !crate::faults::on("token.json-parse-lenient") {
            return value;
        }
        if let Some(atts) = value
            .get_mut("attenuations")
            .and_then(serde_json::Value::as_array_mut)
        {
            for att in atts.iter_mut().filter_map(serde_json::Value::as_object_mut) {
                att.retain(|_, v| !v.is_null());
            }
        }
        value
    }

    /// The token as a mistake reads it before checking its members, where that differs from
    /// the token as signed: booleans in an integer member taken as 1 and 0
    /// (`token.booleans-as-integers`, Python's `isinstance(True, int)`), or a missing
    /// authority member given a default (`token.missing-members-defaulted`, `dict.get`: no
    /// budget or depth limit, a root's `chainDepth` 0). `None` when no such mistake is on.
    pub(crate) fn as_read(value: &serde_json::Value) -> Option<serde_json::Value> {
        use serde_json::Value;
        if crate::faults::on("token.booleans-as-integers") {
            fn ints(v: &mut Value) {
                match v {
                    Value::Array(a) => a.iter_mut().for_each(ints),
                    Value::Object(o) => {
                        for (k, x) in o.iter_mut() {
                            let integer = [
                                "chainDepth",
                                "maxChainDepth",
                                "maxBudgetMicrocents",
                                "covers",
                            ]
                            .contains(&k.as_str());
                            match x {
                                Value::Bool(b) if integer => *x = Value::from(u64::from(*b)),
                                _ => ints(x),
                            }
                        }
                    }
                    _ => {}
                }
            }
            let mut v = value.clone();
            ints(&mut v);
            return Some(v);
        }
        if crate::faults::on("token.integers-as-floats") {
            // A fraction in 0..=2^53-1 is an integer to the mistake: a depth or budget is used
            // truncated (as the reference's integers can hold it), a `covers` names no block.
            fn floats(v: &mut Value, covers: bool) {
                match v {
                    Value::Number(n) if n.as_u64().is_none() => {
                        let x = n.as_f64().unwrap_or(-1.0);
                        let max = crate::token::MAX_SAFE_INTEGER;
                        if (0.0..=max as f64).contains(&x) {
                            *v = Value::from(if covers { max } else { x as u64 });
                        }
                    }
                    Value::Array(a) => a.iter_mut().for_each(|x| floats(x, covers)),
                    Value::Object(o) => {
                        for (k, x) in o.iter_mut() {
                            floats(x, covers || k == "covers");
                        }
                    }
                    _ => {}
                }
            }
            let mut v = value.clone();
            floats(&mut v, false);
            return Some(v);
        }
        if crate::faults::on("token.missing-members-defaulted") {
            let mut v = value.clone();
            if let Some(a) = v.get_mut("authority").and_then(Value::as_object_mut) {
                let max = crate::token::MAX_SAFE_INTEGER;
                let defaults = [
                    ("chainDepth", Value::from(0u64)),
                    ("maxChainDepth", Value::from(max)),
                    ("maxBudgetMicrocents", Value::from(max)),
                    ("issuedAt", Value::from("1970-01-01T00:00:00Z")),
                    (
                        "parentDelegationId",
                        Value::from(crate::token::ROOT_PARENT_DELEGATION_ID),
                    ),
                ];
                for (k, d) in defaults {
                    a.entry(k).or_insert(d);
                }
            }
            return Some(v);
        }
        None
    }

    /// The parsed token with its numbers read as JavaScript reads them once `typeof x ===
    /// 'number'` has let them through (`token.integers-any-number`): a `covers` that is not a
    /// non-negative integer equals no block's index, and a depth or a budget that is not one is
    /// taken as a double cast to the integer type (truncated toward zero, a negative number 0,
    /// one past the type's range its largest value). A double's fraction also keeps a depth
    /// limit open one level longer in JavaScript; the cast cannot, so that case is outside the
    /// fault's fingerprint (and of its effect, `depth-bypass`).
    pub(crate) fn numbers_as_doubles(mut value: serde_json::Value) -> serde_json::Value {
        if !crate::faults::on("token.integers-any-number") {
            return value;
        }
        fn cast(v: &mut serde_json::Value, no_block: bool) {
            match v {
                serde_json::Value::Number(n) if n.as_u64().is_none() => {
                    let x = n.as_f64().unwrap_or(0.0);
                    // `as` saturates: a negative number is 0, a huge one u64::MAX.
                    let u = if no_block { u64::MAX } else { x as u64 };
                    *v = serde_json::Value::from(u);
                }
                serde_json::Value::Array(a) => a.iter_mut().for_each(|x| cast(x, no_block)),
                serde_json::Value::Object(o) => {
                    for (k, x) in o.iter_mut() {
                        cast(x, no_block || k == "covers");
                    }
                }
                _ => {}
            }
        }
        cast(&mut value, false);
        value
    }

    /// JSON parsed as an ordinary parser does (`JSON.parse`, serde_json's `Value`): the strict
    /// profile, except that the last of duplicate members wins.
    pub(crate) fn parse_last_wins(
        bytes: &[u8],
    ) -> Result<serde_json::Value, crate::json::JsonError> {
        #[cfg(feature = "faults")]
        {
            crate::faults::with("json.duplicate-members-last-wins", || {
                crate::json::parse_strict(bytes)
            })
        }
        #[cfg(not(feature = "faults"))]
        {
            crate::json::parse_strict(bytes)
        }
    }
}
