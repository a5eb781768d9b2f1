//! Area `dct`, attack groups: `forged`, `malformed`, `revoked` (spec §3, §4, §10.1 steps 1–3;
//! decisions D5, D6, D8–D10, D14, D16, D19, D22, D33).
//!
//! The corpus is run against verifiers we have never seen, so every case is an attack a
//! real implementation can fall for: forgeries accepted, signatures checked under the wrong
//! key or over the wrong bytes, revocations ignored or honoured from the wrong party, and
//! parsers that accept malleated encodings.
//!
//! Construction rule: every negative case starts from a valid token (built with
//! [`super::dct_support::Chain`]), changes ONE thing, and re-signs every block with the key
//! the spec names for it ([`Tok::resign`]) so that only the intended check can fail — a
//! malformed field is re-signed so a lenient parser would otherwise accept the token. Expected
//! verdicts come from the construction, the spec and `spec/decisions.md`, never from the
//! reference; scopes of valid outcomes are spelled out by hand ([`scope`]).

// Generator code, run at build time on literal inputs: a JSON pointer that does not exist is a
// bug in this file, and panicking with its text is the clearest report (the generator run in
// CI would fail at once). Cases are rows of data tables (`data/tables/dct_forged.json`,
// `dct_malformed.json`, `dct_revoked.json`, `dct_effects.json`), one row per case (number,
// description, requirements, flags, the declarative edits or the named construction with its
// arguments, the verdict by name); this file keeps the constructions that sign and assemble.
// The numbered loops over generated variants stay loops.
#![allow(
    clippy::panic,
    clippy::explicit_counter_loop,
    clippy::too_many_arguments
)]

use std::ops::Range;

use serde::Deserialize;
use serde_json::{json, Value};

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::{blake2b256, Keypair};
use delegateos_reference::encoding::b64u_encode;

use super::dct_support::{
    cap, ct, del, encode_bytes, encode_value, key, verify_token, Chain, Ctx, CtxSpec, Scope,
    CONTRACT, DELEGATION,
};
use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};
use crate::tables::Ids;
use delegateos_reference::token::FORMAT;

const S1: &str = "10.1/1";
const REVOKED_AT: &str = "2026-03-01T09:00:00Z";
const MALFORMED: &str = "DCT-VERIFY-1-MALFORMED";

/// The groups, in output order: (name, description, builder).
#[rustfmt::skip]
const GROUPS: &[crate::tables::GroupDef] = &[
    ("forged", "dct.verify on forged tokens: wrong keys, substituted issuer/signer/attenuator, \
        swapped and spliced signatures, wrong payloads, Ed25519 edge cases, stripped and \
        extended chains (§10.1 step 3, D8, D10, D14, D16, D19).", build_forged),
    ("malformed", "dct.verify on malformed tokens: missing, mistyped and unknown fields, numbers, ids, \
        principals, signatures, timestamps, token-string encodings and decoded-JSON faults \
        (§3, §10.1 step 1, D5, D9, D19, D23, D33). Every block is re-signed with the right \
        key, so a lenient parser would accept the token.", build_malformed),
    ("revoked", "dct.verify with revocation entries: every block and both scopes revoked by its \
        signer, and entries that must not revoke (wrong revoker, bad signature, wrong \
        payload, bad scope, wrong revocation id), plus revocation-specific step order \
        (§4, §10.1 step 2, D6, D7, D22).", build_revoked),
    ("acceptance-effects", "dct.verify on malformed tokens placed where the malformed field's check is at              stake (expiry passed, budget overspent, chain too deep, request outside the scope):              `malformed_token` is the answer; another denial is a hardening finding, `valid` is              the bypass a lenient parser opens (§3, §10.1 steps 1 and 4–7, D23, issue 15).",
        build_effects),
];

/// Adds the attack groups to the `dct` area.
pub fn build(area: &mut Area) {
    crate::tables::build_groups(area, GROUPS);
}

// ---------------------------------------------------------------------------------------------
// Construction helpers
// ---------------------------------------------------------------------------------------------

/// The base chains: root → alice (n = 0), alice → bob narrows to `docs:read:/project/**` with
/// budget 500000 (n = 1), bob → carol narrows to `docs:read:/project/*` expiring 11:00
/// (n = 2), carol → dave caps the budget at 1000 (n = 3).
fn chain(k: &Keys, n: usize) -> Chain {
    let mut c = Chain::root(k);
    if n >= 1 {
        c = c.delegate(&k.bob, |a| {
            a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/**")]);
            a.max_budget_microcents = Some(500_000);
        });
    }
    if n >= 2 {
        c = c.delegate(&k.carol, |a| {
            a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/*")]);
            a.expires_at = Some("2026-03-01T11:00:00Z".into());
        });
    }
    if n >= 3 {
        c = c.delegate(&k.dave, |a| a.max_budget_microcents = Some(1000));
    }
    c
}

/// The `AuthorizedScope` of [`chain`]`(n)` under the default context, spelled out from the
/// construction: no attenuation sets `maxChainDepth`, so §10.1 step 8's effectiveMaxDepth is
/// the root's 8 (D4's countdown, 8 minus one per attenuation, is not pinned).
fn scope(n: usize) -> Scope {
    let (capabilities, remaining, contract_id, delegation_id) = match n {
        0 => (
            vec![
                cap("docs", "read", "/project/**"),
                cap("docs", "write", "/project/drafts/*"),
                cap("web", "search", "*"),
            ],
            1_000_000,
            CONTRACT.to_owned(),
            DELEGATION.to_owned(),
        ),
        1 => (
            vec![cap("docs", "read", "/project/**")],
            500_000,
            ct(0x100),
            del(0x100),
        ),
        2 => (
            vec![cap("docs", "read", "/project/*")],
            500_000,
            ct(0x101),
            del(0x101),
        ),
        _ => (
            vec![cap("docs", "read", "/project/*")],
            1000,
            ct(0x102),
            del(0x102),
        ),
    };
    let n64 = n as u64;
    Scope {
        capabilities,
        remaining,
        chain_depth: n64,
        max_chain_depth: 8,
        remaining_chain_depth: 8 - n64,
        contract_id,
        delegation_id,
    }
}

fn valid(n: usize) -> Expectation {
    Expectation::valid(scope(n).output())
}

fn canon(v: &Value) -> String {
    canonicalize(v).unwrap_or_default()
}

/// Ed25519 over BLAKE2b-256 of `payload`, base64url.
fn sign_text(kp: &Keypair, payload: &str) -> String {
    b64u_encode(&kp.sign_digest(&blake2b256(payload.as_bytes())))
}

fn authority_payload(auth: &Value) -> String {
    canon(&json!({ "authority": auth }))
}

fn prefix_payload(auth: &Value, prefix: &[Value]) -> String {
    canon(&json!({ "authority": auth, "attenuations": prefix }))
}

/// A token as a JSON value plus the keys that legitimately sign its blocks (authority first).
#[derive(Clone)]
struct Tok {
    v: Value,
    signers: Vec<Keypair>,
}

impl Tok {
    fn of(c: &Chain) -> Self {
        let mut signers = vec![c.key_of(&c.authority.issuer).keypair()];
        signers.extend(
            c.attenuations
                .iter()
                .map(|a| c.key_of(&a.attenuator).keypair()),
        );
        Self {
            v: c.decoded(),
            signers,
        }
    }

    fn base(k: &Keys, n: usize) -> Self {
        Self::of(&chain(k, n))
    }

    fn at(&mut self, ptr: &str) -> &mut Value {
        self.v
            .pointer_mut(ptr)
            .unwrap_or_else(|| panic!("no {ptr}"))
    }

    fn set(mut self, ptr: &str, value: Value) -> Self {
        *self.at(ptr) = value;
        self
    }

    fn remove(mut self, ptr: &str) -> Self {
        let (parent, key) = ptr.rsplit_once('/').unwrap_or(("", ptr));
        match self.at(parent) {
            Value::Object(m) => {
                m.remove(key);
            }
            Value::Array(a) => {
                if let Ok(i) = key.parse::<usize>() {
                    a.remove(i);
                }
            }
            _ => panic!("cannot remove {ptr}"),
        }
        self
    }

    fn insert(mut self, ptr: &str, key: &str, value: Value) -> Self {
        if let Value::Object(m) = self.at(ptr) {
            m.insert(key.to_owned(), value);
        }
        self
    }

    fn auth(&self) -> Value {
        self.v["authority"].clone()
    }

    fn atts(&self) -> Vec<Value> {
        self.v["attenuations"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The payload signature entry `j` signs (D16 prefixes).
    fn payload(&self, j: usize) -> String {
        let (auth, atts) = (self.auth(), self.atts());
        if j == 0 {
            authority_payload(&auth)
        } else {
            prefix_payload(&auth, &atts[..j])
        }
    }

    /// Re-signs every signature entry that exists with the legitimate key of its block, over
    /// whatever the blocks now contain (so a content change is signed, D16 prefixes).
    fn resign(mut self) -> Self {
        let auth = self.auth();
        let atts = self.atts();
        let n = self.v["signatures"].as_array().map_or(0, Vec::len);
        for j in 0..n {
            let payload = if j == 0 {
                authority_payload(&auth)
            } else if j <= atts.len() {
                prefix_payload(&auth, &atts[..j])
            } else {
                continue;
            };
            let Some(kp) = self.signers.get(j) else {
                continue;
            };
            let sig = sign_text(kp, &payload);
            if let Some(Value::Object(entry)) = self.v.pointer_mut(&format!("/signatures/{j}")) {
                entry.insert("signature".into(), json!(sig));
            }
        }
        self
    }

    fn ser(&self) -> Value {
        encode_value(&self.v)
    }

    fn text(&self) -> String {
        canon(&self.v)
    }
}

/// Replaces exactly one occurrence of `from` (the generator panics if the construction is
/// not what the author thought).
fn replace1(text: &str, from: &str, to: &str) -> String {
    assert_eq!(
        text.matches(from).count(),
        1,
        "{from:?} must occur exactly once"
    );
    text.replacen(from, to, 1)
}

fn malformed() -> Expectation {
    Expectation::invalid("malformed_token", S1)
}

/// D8: structural `signatures[]` mismatches may be reported as `malformed_token`.
fn structural(stage: &str) -> Expectation {
    Expectation::acceptable(
        "D8",
        vec![
            Expected::invalid("invalid_signature", stage),
            Expected::invalid("malformed_token", S1),
        ],
    )
}

/// D9: the reference rejects, a lenient decoder accepts with the scope of `chain(n)`
/// (optionally with changed ids).
fn lenient(s: &Scope) -> Expectation {
    Expectation::acceptable(
        "D9",
        vec![
            Expected::invalid("malformed_token", S1),
            Expected::valid(s.output()),
        ],
    )
}

/// A 256-bit little-endian addition (S + L for malleated signatures).
fn add_le(a: &[u8], b: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut carry = 0u16;
    for i in 0..32 {
        let s = u16::from(a[i]) + u16::from(b[i]) + carry;
        out[i] = (s & 0xff) as u8;
        carry = s >> 8;
    }
    out
}

/// The Ed25519 group order L, little-endian.
const L: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
];

/// BLAKE2b-512 of `data` (the `blake2` crate), for wrong payloads and revocation ids.
fn blake2b512(data: &[u8]) -> Vec<u8> {
    use blake2::Digest;
    blake2::Blake2b512::digest(data).to_vec()
}

/// 32 bytes as a principal id.
fn principal_of(bytes: &[u8; 32]) -> String {
    b64u_encode(bytes)
}

/// The identity point (small order), canonical encoding.
fn identity() -> [u8; 32] {
    let mut b = [0u8; 32];
    b[0] = 1;
    b
}

/// A 64-byte signature R ‖ S as base64url.
fn sig_bytes(r: &[u8; 32], s: &[u8; 32]) -> String {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(r);
    out.extend_from_slice(s);
    b64u_encode(&out)
}

fn sig_of(t: &Tok, j: usize) -> String {
    t.v["signatures"][j]["signature"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn decode64(text: &str) -> Vec<u8> {
    delegateos_reference::encoding::b64u_decode(text).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// forged
// ---------------------------------------------------------------------------------------------

/// A case's verdict, as the data tables name it.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Ex {
    /// Denied: (code, stage).
    Invalid(String, String),
    /// D8: invalid_signature at the stage, or malformed_token.
    Structural(String),
    Malformed,
    /// D9: malformed_token, or the scope a lenient decoder grants the `malformed` base token.
    Lenient,
    /// Valid with the scope of [`chain`]`(n)`.
    Valid(usize),
    /// D10: invalid_signature at the stage, or valid with the scope of [`chain`]`(n)` (a
    /// cofactored verifier accepts).
    Cofactored(String, usize),
    /// D9: malformed_token, or (a lenient parser) the denial (code, stage).
    MalformedOr(String, String),
    /// D9: as `lenient`, the last block's ids (`delegationId`, `contractId`) as given.
    LenientLastIds(std::collections::BTreeMap<String, String>),
}

impl Ex {
    fn expect(&self) -> Expectation {
        let either = |d: &str, a: Expected, b: Expected| Expectation::acceptable(d, vec![a, b]);
        match self {
            Ex::Invalid(code, stage) => Expectation::invalid(code, stage),
            Ex::Structural(stage) => structural(stage),
            Ex::Malformed => malformed(),
            Ex::Lenient | Ex::LenientLastIds(_) => lenient(&malformed_scope()),
            Ex::Valid(n) => valid(*n),
            Ex::MalformedOr(code, stage) => either(
                "D9",
                Expected::invalid("malformed_token", S1),
                Expected::invalid(code, stage),
            ),
            Ex::Cofactored(stage, n) => either(
                "D10",
                Expected::invalid("invalid_signature", stage),
                Expected::valid(scope(*n).output()),
            ),
        }
    }
}

/// A declarative change to a token's decoded JSON, applied in order (nothing is re-signed
/// unless a `resign` edit says so).
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Edit {
    /// Sets the member at the pointer to the value.
    Set(String, Value),
    /// Sets the member at the pointer to the principal id of the named key.
    SetPrincipal(String, String),
    /// Copies the member at the first pointer of the unedited token to the second pointer.
    Copy(String, String),
    Remove(String),
    /// Adds the member (key, value) to the object at the pointer.
    Insert(String, String, Value),
    /// Re-signs signature entry `j` with its block's legitimate key over the current content.
    Resign(usize),
    /// Re-signs every block with its legitimate key ([`Tok::resign`]).
    ResignAll,
}

/// `orig` with `edits` applied.
fn apply(orig: &Tok, edits: &[Edit], k: &Keys) -> Tok {
    edits.iter().fold(orig.clone(), |t, e| match e {
        Edit::Set(ptr, v) => t.set(ptr, v.clone()),
        Edit::SetPrincipal(ptr, name) => t.set(ptr, json!(key(k, name).principal)),
        Edit::Copy(from, to) => t.set(to, orig.v.pointer(from).cloned().unwrap_or_default()),
        Edit::Remove(ptr) => t.remove(ptr),
        Edit::Insert(ptr, name, v) => t.insert(ptr, name, v.clone()),
        Edit::Resign(j) => {
            let sig = sign_text(&t.signers[*j], &t.payload(*j));
            t.set(&format!("/signatures/{j}/signature"), json!(sig))
        }
        Edit::ResignAll => t.resign(),
    })
}

/// A row of `dct_forged.json`: base token `token` ([`Forge`]'s `t`) with `edits` applied after
/// signing, or the named construction `make` ([`Forged`], built by [`Forge::make`]); verified
/// under the default context or, with `root`, a context trusting the key of that name.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ForgedRow {
    id: String,
    #[serde(rename = "description")]
    desc: String,
    #[serde(rename = "requirements")]
    reqs: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    #[serde(default)]
    token: usize,
    #[serde(default)]
    edits: Vec<Edit>,
    make: Option<Forged>,
    root: Option<String>,
    expect: Ex,
}

/// A named construction of `dct_forged.json`, its parameters by name: a misspelt construction
/// or field is a parse error naming it. `signature` is an index into the token's signatures.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Forged {
    /// Signature `signature` made by key `by` over the right payload, its signer field
    /// naming `signer` (absent: unchanged).
    SignedBy {
        signature: usize,
        #[serde(default)]
        signer: Option<String>,
        by: String,
    },
    /// [`chain`]`(attenuations)` issued and correctly signed by the key named `issuer`.
    IssuedBy { issuer: String, attenuations: usize },
    /// chain(1) with an attenuation to carol whose attenuator field names mallory.
    SelfAttenuator,
    /// Signature `signature` copied from another token: the same root's token with another
    /// delegation id, or alice's sibling attenuation to carol.
    SigOfOtherToken { other: OtherToken, signature: usize },
    /// root's authority + signature, other_root's attenuations and their signatures.
    OtherRootAttenuations,
    /// other_root's token with root's attenuation signatures.
    RootAttenuationSignatures,
    /// other_root's authority and its signature on root's attenuations.
    OtherRootAuthority,
    /// A second copy of signature 1 appended.
    SurplusCopy,
    /// A root-signed entry covering a non-existent attenuation 0.
    SurplusRootEntry,
    /// chain(1) with the attenuations of chain(2), no signature for the second.
    Extended,
    /// [`Forged::Extended`] with a copy of alice's signature for the second.
    ExtendedCopiedSignature,
    /// Signature `signature` by `by` over the wrong text `over`, hashed with `hash`.
    SignOver {
        signature: usize,
        by: String,
        over: SignedText,
        hash: Hash,
    },
    /// Signed by an implementation that signs less than §3.3/§3.4 say ([`Forge::signs_less`]).
    SignsLess { what: SignsLess },
    /// Signature `signature` with its bytes changed to `bytes`.
    SignatureBytes {
        signature: usize,
        bytes: SignatureBytes,
    },
    /// The root delegates to the weird key `attenuator`, whose "signature" is R = `r`, S = 0.
    WeirdAttenuator { attenuator: Point, r: Point },
    /// A root whose key is the weird point `root`, signature R = identity, S = 0.
    WeirdRoot { root: Point },
}

/// The token a signature is copied from ([`Forged::SigOfOtherToken`]).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum OtherToken {
    OtherDelegation,
    Sibling,
}

/// The text a wrong signature is made over ([`Forged::SignOver`]).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum SignedText {
    Payload,
    PrefixBefore,
    AllAttenuations,
    AttenuationsOnly,
    OwnBlock,
    Unwrapped,
    StringifyOrder,
    UnsortedKeys,
    Pretty,
}

/// How the signed text is hashed ([`Forged::SignOver`]).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Hash {
    Blake2b256,
    None,
    Blake2b512Truncated,
}

/// What a signer that signs too little leaves out ([`Forge::signs_less`]).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum SignsLess {
    AuthorityWithoutBudget,
    BlockMoved,
    BlockMovedDeep,
}

/// Changed signature bytes ([`Forged::SignatureBytes`]).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum SignatureBytes {
    SPlusL,
    SEqualsL,
    STopBitsSet,
    Zero,
}

/// A point encoding: the identity, the identity with the sign bit set on x = 0, or y = p + 1
/// (≡ 1, the identity non-canonically).
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Point {
    Identity,
    NoncanonicalIdentity,
    #[serde(rename = "y_p_plus_1")]
    YPPlus1,
}

/// A table row's requirement ids and flags as the case wants them.
fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// What the forged cases start from: the base tokens [`chain`]`(0..=3)` and, as `t[4]`,
/// `chain(1)` with an attenuation bob → mallory appended (correctly signed by bob).
struct Forge<'a> {
    k: &'a Keys,
    t: [Tok; 5],
}

fn build_forged(g: &mut Group, k: &Keys) {
    let f = Forge {
        k,
        t: [0, 1, 2, 3, 4].map(|n| match n {
            4 => Tok::of(&chain(k, 1).delegate(&k.mallory, |_| {})),
            n => Tok::base(k, n),
        }),
    };
    for row in crate::tables::rows::<ForgedRow>("dct_forged.json") {
        let (token, root) = f.make(&row);
        let root = root.or_else(|| row.root.as_ref().map(|r| key(k, r).principal.clone()));
        let ctx = root.map_or_else(|| Ctx::new(k), |r| Ctx::new(k).root(&r));
        let (reqs, flags) = (strs(&row.reqs), strs(&row.flags));
        let n = g.number_of("dct_forged.json", &row.id);
        verify_token(
            g,
            n,
            &row.desc,
            &reqs,
            &flags,
            token,
            &ctx,
            row.expect.expect(),
        );
    }
}

impl Forge<'_> {
    /// A forged row's token, and the root key of its context when the construction sets one.
    fn make(&self, row: &ForgedRow) -> (Value, Option<String>) {
        let t = &self.t[row.token];
        let k = self.k;
        let token = match &row.make {
            None => apply(t, &row.edits, k),
            Some(Forged::SignedBy {
                signature,
                signer,
                by,
            }) => {
                let j = *signature;
                let t = match signer {
                    Some(name) => t.clone().set(
                        &format!("/signatures/{j}/signer"),
                        json!(key(k, name).principal),
                    ),
                    None => t.clone(),
                };
                with_sig(t.clone(), j, sign_text(&self.kp(by), &t.payload(j)))
            }
            Some(Forged::IssuedBy {
                issuer,
                attenuations,
            }) => self.issued_by(issuer, *attenuations),
            Some(Forged::SelfAttenuator) => Tok::of(
                &chain(k, 1).delegate(&k.carol, |a| a.attenuator = k.mallory.principal.clone()),
            ),
            Some(Forged::SigOfOtherToken { other, signature }) => {
                let other = match other {
                    OtherToken::OtherDelegation => {
                        chain(k, 1).with_authority(|a| a.delegation_id = del(0x99))
                    }
                    OtherToken::Sibling => chain(k, 0).delegate(&k.carol, |a| {
                        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/**")]);
                        a.max_budget_microcents = Some(500_000);
                    }),
                };
                with_sig(t.clone(), *signature, sig_of(&Tok::of(&other), *signature))
            }
            Some(Forged::OtherRootAttenuations) => {
                let b2 = self.issued_by("other_root", 2);
                let t = t.clone().set("/attenuations", b2.v["attenuations"].clone());
                t.set("/signatures/1", b2.v["signatures"][1].clone())
                    .set("/signatures/2", b2.v["signatures"][2].clone())
            }
            Some(Forged::RootAttenuationSignatures) => {
                let b2 = self.issued_by("other_root", 2);
                b2.set("/signatures/1", t.v["signatures"][1].clone())
                    .set("/signatures/2", t.v["signatures"][2].clone())
            }
            Some(Forged::OtherRootAuthority) => {
                let b2 = self.issued_by("other_root", 2);
                t.clone()
                    .set("/authority", b2.auth())
                    .set("/signatures/0", b2.v["signatures"][0].clone())
            }
            Some(Forged::SurplusCopy) => push_sig(t.clone(), t.v["signatures"][1].clone()),
            Some(Forged::SurplusRootEntry) => {
                let sig = sign_text(&k.root.keypair(), &prefix_payload(&t.auth(), &[]));
                push_sig(
                    t.clone(),
                    json!({"signer": k.root.principal, "covers": 0, "signature": sig}),
                )
            }
            Some(Forged::Extended) => self.extended(t),
            Some(Forged::ExtendedCopiedSignature) => {
                let entry =
                    json!({"signer": k.bob.principal, "covers": 1, "signature": sig_of(t, 1)});
                push_sig(self.extended(t), entry)
            }
            Some(Forged::SignOver {
                signature,
                by,
                over,
                hash,
            }) => with_sig(
                t.clone(),
                *signature,
                self.sign_over(t, *signature, by, *over, *hash),
            ),
            Some(Forged::SignsLess { what }) => self.signs_less(*what),
            Some(Forged::SignatureBytes { signature, bytes }) => {
                let raw = decode64(&sig_of(t, *signature));
                let (mut r, mut sv) = ([0u8; 32], [0u8; 32]);
                r.copy_from_slice(&raw[..32]);
                sv.copy_from_slice(&raw[32..]);
                let (r, sv) = match bytes {
                    SignatureBytes::SPlusL => (r, add_le(&sv, &L)),
                    SignatureBytes::SEqualsL => (r, L),
                    SignatureBytes::STopBitsSet => {
                        sv[31] |= 0xe0;
                        (r, sv)
                    }
                    SignatureBytes::Zero => (ZERO, ZERO),
                };
                with_sig(t.clone(), *signature, sig_bytes(&r, &sv))
            }
            Some(Forged::WeirdAttenuator { attenuator, r }) => {
                weird_attenuator(k, point(*attenuator), point(*r))
            }
            Some(Forged::WeirdRoot { root }) => {
                let p = principal_of(&point(*root));
                let c = chain(k, 0).with_authority(|a| a.issuer = p.clone());
                let t = Tok::of(&c).set("/signatures/0/signer", json!(p));
                return (with_sig(t, 0, sig_bytes(&identity(), &ZERO)).ser(), Some(p));
            }
        };
        (token.ser(), None)
    }

    fn kp(&self, name: &str) -> Keypair {
        key(self.k, name).keypair()
    }

    /// [`chain`]`(n)` issued and correctly signed by the key named `issuer`.
    fn issued_by(&self, issuer: &str, n: usize) -> Tok {
        let p = key(self.k, issuer).principal.clone();
        Tok::of(&chain(self.k, n).with_authority(|a| a.issuer = p))
    }

    /// `t` with the attenuations of `chain(2)` and no signature for the second.
    fn extended(&self, t: &Tok) -> Tok {
        let atts = serde_json::to_value(&chain(self.k, 2).attenuations).unwrap_or_default();
        t.clone().set("/attenuations", atts)
    }

    /// A token whose signatures cover less than the text says, changed by its holder where
    /// they do not reach (issue 48, deliverable 4). Every signature is over BLAKE2b-256 of a
    /// canonical payload, as §3.3 says, but of a smaller one:
    /// - `authority_without_budget`: root signs `{authority}` without `maxBudgetMicrocents`
    ///   (a subset of the members); the holder then raises the budget to 9,000,000,000.
    /// - `block_moved`: alice signs her block to bob over the block alone (not the prefix
    ///   `{authority, attenuations[0..=0]}`) on a narrow root delegation
    ///   (`docs:read:/project/public/**`, `del_000000000077`); bob moves block and signature
    ///   onto root's wide delegation to alice ([`chain`]`(0)`'s authority).
    /// - `block_moved_deep`: as `block_moved` one level down: bob signs his block to carol
    ///   over the block alone under alice's narrow block (`/project/public/**`); carol moves
    ///   it behind alice's wide block to bob (`/project/**`), which alice also signed over
    ///   the block alone.
    fn signs_less(&self, what: SignsLess) -> Tok {
        let k = self.k;
        let block_sig =
            |t: &Tok, i: usize, signer: &Key| sign_text(&signer.keypair(), &canon(&t.atts()[i]));
        let narrow_root = || {
            Chain::root(k).with_authority(|a| {
                a.capabilities = vec![cap("docs", "read", "/project/public/**")];
                a.delegation_id = del(0x77);
            })
        };
        match what {
            SignsLess::AuthorityWithoutBudget => {
                let t = Tok::base(k, 0);
                let mut part = t.auth();
                if let Some(m) = part.as_object_mut() {
                    m.remove("maxBudgetMicrocents");
                }
                let sig = sign_text(&k.root.keypair(), &canon(&json!({ "authority": part })));
                with_sig(t, 0, sig).set("/authority/maxBudgetMicrocents", json!(9_000_000_000u64))
            }
            SignsLess::BlockMoved => {
                let from = Tok::of(&narrow_root().delegate(&k.bob, |_| {}));
                let sig = block_sig(&from, 0, &k.alice);
                Tok::of(&Chain::root(k).delegate(&k.bob, |_| {}))
                    .set("/attenuations/0", from.atts()[0].clone())
                    .set("/signatures/1/signature", json!(sig))
            }
            SignsLess::BlockMovedDeep => {
                let bob_with = |resource: &str| {
                    let resource = resource.to_owned();
                    Chain::root(k)
                        .delegate(&k.bob, move |a| {
                            a.allowed_capabilities = Some(vec![cap("docs", "read", &resource)]);
                        })
                        .delegate(&k.carol, |_| {})
                };
                let from = Tok::of(&bob_with("/project/public/**"));
                let onto = Tok::of(&bob_with("/project/**"));
                let (sig0, sig1) = (block_sig(&onto, 0, &k.alice), block_sig(&from, 1, &k.bob));
                onto.clone()
                    .set("/attenuations/1", from.atts()[1].clone())
                    .set("/signatures/1/signature", json!(sig0))
                    .set("/signatures/2/signature", json!(sig1))
            }
        }
    }

    /// Signature `j` of `t` by `signer` over the wrong payload `what`, hashed with `hash`.
    fn sign_over(&self, t: &Tok, j: usize, signer: &str, what: SignedText, hash: Hash) -> String {
        let (auth, atts) = (t.auth(), t.atts());
        let text = match what {
            SignedText::Payload => t.payload(j),
            SignedText::PrefixBefore => prefix_payload(&auth, &atts[..j - 1]),
            SignedText::AllAttenuations => prefix_payload(&auth, &atts),
            SignedText::AttenuationsOnly => canon(&json!({"attenuations": &atts[..j]})),
            SignedText::OwnBlock => canon(&atts[j - 1]),
            SignedText::Unwrapped => canon(&auth),
            SignedText::StringifyOrder => stringify_order(&auth),
            SignedText::UnsortedKeys => format!(
                "{{\"authority\":{},\"attenuations\":[{}]}}",
                canon(&auth),
                canon(&atts[0])
            ),
            SignedText::Pretty => {
                serde_json::to_string_pretty(&json!({"authority": auth})).unwrap_or_default()
            }
        };
        let kp = self.kp(signer);
        b64u_encode(&match hash {
            Hash::None => kp.sign_message(text.as_bytes()),
            Hash::Blake2b512Truncated => kp.sign_digest(&trunc512(&text)),
            Hash::Blake2b256 => kp.sign_digest(&blake2b256(text.as_bytes())),
        })
    }
}

/// `t` with signature `j` replaced by `sig`.
fn with_sig(t: Tok, j: usize, sig: String) -> Tok {
    t.set(&format!("/signatures/{j}/signature"), json!(sig))
}

/// `t` with `entry` appended to its signatures.
fn push_sig(mut t: Tok, entry: Value) -> Tok {
    if let Some(a) = t.v["signatures"].as_array_mut() {
        a.push(entry);
    }
    t
}

/// The bytes of a [`Point`].
fn point(p: Point) -> [u8; 32] {
    let mut b = identity();
    match p {
        Point::Identity => {}
        Point::NoncanonicalIdentity => b[31] = 0x80,
        Point::YPPlus1 => {
            b = [0xff; 32];
            b[0] = 0xee;
            b[31] = 0x7f;
        }
    }
    b
}

/// Small-order / non-canonical attenuator keys. The root delegates (validly signed) to the
/// weird key `a_bytes`; the weird key's "signature" is R = `r_bytes`, S = 0, which with R =
/// identity satisfies both Ed25519 equations for a small-order A (k·A = identity).
fn weird_attenuator(k: &Keys, a_bytes: [u8; 32], r_bytes: [u8; 32]) -> Tok {
    let p = principal_of(&a_bytes);
    let c = chain(k, 0).with_authority(|a| a.delegatee = p.clone());
    let att = json!({
        "attenuator": p,
        "delegatee": k.bob.principal,
        "delegationId": del(0x100),
        "contractId": ct(0x100),
        "allowedCapabilities": [{"namespace": "docs", "action": "read", "resource": "/project/**"}],
        "maxBudgetMicrocents": 500_000,
    });
    let t = Tok::of(&c).set("/attenuations", json!([att]));
    push_sig(
        t,
        json!({"signer": p, "covers": 0, "signature": sig_bytes(&r_bytes, &ZERO)}),
    )
}

/// BLAKE2b-512 truncated to 32 bytes (not BLAKE2b-256).
fn trunc512(payload: &str) -> [u8; 32] {
    let mut d = [0u8; 32];
    d.copy_from_slice(&blake2b512(payload.as_bytes())[..32]);
    d
}

/// The authority payload in JSON.stringify order (declaration order), not RFC 8785's sorted keys.
fn stringify_order(a: &Value) -> String {
    format!("{{\"authority\":{}}}", stringify_authority(a))
}

const ZERO: [u8; 32] = [0; 32];

/// The base64url requirement a malleated encoding violates, from its description.
fn b64_req(what: &str) -> &'static str {
    if what.contains("alphabet") {
        "PRIM-B64-ALPHABET"
    } else if what.contains("trailing bits") {
        "PRIM-B64-TRAILING-BITS"
    } else if what.contains("characters") {
        "PRIM-B64-EXACT-LENGTH"
    } else {
        "PRIM-B64-STRICT-DECODE"
    }
}

// ---------------------------------------------------------------------------------------------
// malformed
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    Str,
    Int,
    Arr,
    Obj,
    Covers,
}

const REQ: &str = "DCT-FORMAT-REQUIRED-FIELDS";
const ATT: &str = "DCT-FORMAT-ATTENUATION-FIELDS";
const CAP: &str = "DCT-FORMAT-CAPABILITY";
const SIG: &str = "DCT-FORMAT-SIGNATURE-ENTRY";
const INT: &str = "DCT-FORMAT-INTEGERS";
const TS: &str = "DCT-FORMAT-TIMESTAMPS";
const PRIN: &str = "DCT-FORMAT-PRINCIPALS";
const CANON: &str = "DCT-FORMAT-CANONICAL";
const INNER: &str = "DCT-FORMAT-INNER-FORMAT";

/// Every member the malformed cases remove or mistype: (pointer, JSON type, requirement).
#[rustfmt::skip]
const FIELDS: &[(&str, Ty, &str)] = &[
    ("/format", Ty::Str, INNER),
    ("/authority", Ty::Obj, REQ),
    ("/attenuations", Ty::Arr, REQ),
    ("/signatures", Ty::Arr, REQ),
    ("/authority/issuer", Ty::Str, REQ),
    ("/authority/delegatee", Ty::Str, REQ),
    ("/authority/capabilities", Ty::Arr, REQ),
    ("/authority/contractId", Ty::Str, REQ),
    ("/authority/delegationId", Ty::Str, REQ),
    ("/authority/parentDelegationId", Ty::Str, REQ),
    ("/authority/chainDepth", Ty::Int, REQ),
    ("/authority/maxChainDepth", Ty::Int, REQ),
    ("/authority/maxBudgetMicrocents", Ty::Int, REQ),
    ("/authority/expiresAt", Ty::Str, REQ),
    ("/authority/issuedAt", Ty::Str, REQ),
    ("/attenuations/0", Ty::Obj, ATT),
    ("/attenuations/0/attenuator", Ty::Str, ATT),
    ("/attenuations/0/delegatee", Ty::Str, ATT),
    ("/attenuations/0/delegationId", Ty::Str, ATT),
    ("/attenuations/0/contractId", Ty::Str, ATT),
    ("/attenuations/0/allowedCapabilities", Ty::Arr, ATT),
    ("/attenuations/0/maxBudgetMicrocents", Ty::Int, ATT),
    ("/attenuations/0/expiresAt", Ty::Str, ATT),
    ("/attenuations/0/maxChainDepth", Ty::Int, ATT),
    ("/authority/capabilities/0", Ty::Obj, CAP),
    ("/authority/capabilities/0/namespace", Ty::Str, CAP),
    ("/authority/capabilities/0/action", Ty::Str, CAP),
    ("/authority/capabilities/0/resource", Ty::Str, CAP),
    ("/attenuations/0/allowedCapabilities/0", Ty::Obj, CAP),
    ("/attenuations/0/allowedCapabilities/0/resource", Ty::Str, CAP),
    ("/signatures/0", Ty::Obj, SIG),
    ("/signatures/0/signer", Ty::Str, SIG),
    ("/signatures/0/signature", Ty::Str, SIG),
    ("/signatures/1/signer", Ty::Str, SIG),
    ("/signatures/1/signature", Ty::Str, SIG),
    ("/signatures/1/covers", Ty::Covers, SIG),
];

/// The optional attenuation members (absent when unset, never null).
const OPTIONAL: [&str; 4] = [
    "allowedCapabilities",
    "maxBudgetMicrocents",
    "expiresAt",
    "maxChainDepth",
];

/// What the malformed cases start from: a one-attenuation token whose attenuation 0 has every
/// optional member (expiry, depth) so each can be mistyped, its canonical text, and the scope a
/// lenient decoder grants it.
struct Fix<'a> {
    k: &'a Keys,
    ctx: Ctx,
    base: Tok,
    text1: String,
}

/// The scope a lenient decoder grants the malformed cases' base token ([`Fix`]).
fn malformed_scope() -> Scope {
    Scope {
        max_chain_depth: 5,
        remaining_chain_depth: 5,
        ..scope(1)
    }
}

impl<'a> Fix<'a> {
    fn new(k: &'a Keys) -> Self {
        let c1 = chain(k, 1).with_attenuation(0, |a| {
            a.expires_at = Some("2026-03-01T11:30:00Z".into());
            a.max_chain_depth = Some(5);
        });
        let base = Tok::of(&c1);
        Self {
            k,
            ctx: Ctx::new(k),
            text1: base.text(),
            base,
        }
    }

    /// Mutate, then re-sign if the mutation touched a signed block.
    fn mutate(&self, f: impl FnOnce(Tok) -> Tok, ptr: &str) -> Value {
        let t = f(self.base.clone());
        if ptr.starts_with("/signatures") {
            t.ser()
        } else {
            t.resign().ser()
        }
    }

    /// The base with `ptr` set to `value`, re-signed.
    fn set(&self, ptr: &str, value: Value) -> Value {
        self.base.clone().set(ptr, value).resign().ser()
    }

    fn case(&self, g: &mut Group, n: u16, desc: &str, reqs: &[&str], token: Value) {
        verify_token(g, n, desc, reqs, &[], token, &self.ctx, malformed());
    }
}

/// A JSON pointer as the dotted member path of a description (`/a/0/b` → `a.0.b`).
fn dotted(ptr: &str) -> String {
    ptr[1..].replace('/', ".")
}

fn token_str(v: &Value) -> String {
    v["token"].as_str().unwrap_or_default().to_owned()
}

/// A row of `dct_malformed.json`: the base token ([`Fix`]) with `edits`, or its canonical text
/// with one occurrence of `spell[0]` replaced by `spell[1]` (`{alice}`, `{mallory}`: their
/// principal ids), or a SerializedDCT written out (`serialized`: `"<token>"` stands for the base
/// token string, `"<decoded token>"` for its decoded JSON), or the named construction `make`
/// ([`Malformed`], built by [`Fix::make`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MalformedRow {
    id: String,
    #[serde(rename = "description")]
    desc: String,
    #[serde(rename = "requirements")]
    reqs: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    #[serde(default)]
    edits: Vec<Edit>,
    spell: Option<(String, String)>,
    serialized: Option<Value>,
    make: Option<Malformed>,
    expect: Ex,
}

/// A named construction of `dct_malformed.json` over the base token's canonical text, its
/// parameters by name: a misspelt construction or field is a parse error naming it.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Malformed {
    /// The SerializedDCT is JSON `null`.
    Null,
    /// The token text itself is the SerializedDCT (a JSON string).
    AsJsonString,
    /// Outer and inner format both `format`.
    InnerAndOuterFormat { format: Value },
    /// A space after every `":`.
    Spaced,
    /// Pretty-printed.
    Pretty,
    /// The top-level members in the order `members`.
    MembersInOrder { members: Vec<String> },
    /// The text between `before` and `after`.
    Wrapped { before: String, after: String },
    /// The text twice.
    Twice,
    /// The token is `text` instead.
    Text { text: String },
    /// The text without its last byte.
    Truncated,
    /// The raw `bytes` before the text.
    BytesBefore { bytes: Vec<u8> },
    /// The byte `\u{1}` (placed by replacing `replace` with `with`) replaced by the raw `bytes`.
    RawBytes {
        replace: String,
        with: String,
        bytes: Vec<u8>,
    },
    /// An unknown member `a` holding `depth` nested arrays, spliced before `attenuations`.
    Deep { depth: usize },
}

/// Adds the rows of `rows` numbered in `numbers`, in table order.
fn malformed_table(g: &mut Group, f: &Fix, rows: &[MalformedRow], numbers: Range<u16>) {
    for row in rows {
        let n = g.number_of("dct_malformed.json", &row.id);
        if !numbers.contains(&n) {
            continue;
        }
        let (reqs, flags) = (strs(&row.reqs), strs(&row.flags));
        let expect = match &row.expect {
            // D9 (IdFormat): a lenient decoder reports the malformed id as the last block's.
            Ex::LenientLastIds(ids) => {
                let mut s = malformed_scope();
                s.delegation_id = ids.get("delegationId").cloned().unwrap_or(s.delegation_id);
                s.contract_id = ids.get("contractId").cloned().unwrap_or(s.contract_id);
                lenient(&s)
            }
            ex => ex.expect(),
        };
        verify_token(g, n, &row.desc, &reqs, &flags, f.make(row), &f.ctx, expect);
    }
}

impl Fix<'_> {
    /// A malformed row's token.
    fn make(&self, row: &MalformedRow) -> Value {
        let text = &self.text1;
        if let Some((from, to)) = &row.spell {
            let named = |t: &str| {
                t.replace("{alice}", &self.k.alice.principal)
                    .replace("{mallory}", &self.k.mallory.principal)
            };
            return encode_bytes(replace1(text, &named(from), &named(to)).as_bytes());
        }
        if let Some(template) = &row.serialized {
            return self.fill(template);
        }
        let bytes: Vec<u8> = match &row.make {
            None => return apply(&self.base, &row.edits, self.k).ser(),
            Some(Malformed::Null) => return Value::Null,
            Some(Malformed::AsJsonString) => return encode_value(&json!(text)),
            Some(Malformed::InnerAndOuterFormat { format }) => {
                let inner = self.base.clone().set("/format", format.clone()).ser();
                return json!({"token": inner["token"], "format": format});
            }
            Some(Malformed::Spaced) => text.replace("\":", "\": ").into_bytes(),
            Some(Malformed::Pretty) => serde_json::to_string_pretty(&self.base.v)
                .unwrap_or_default()
                .into_bytes(),
            Some(Malformed::MembersInOrder { members }) => {
                let members: Vec<String> = members
                    .iter()
                    .map(|m| format!("{}:{}", json!(m), canon(&self.base.v[m.as_str()])))
                    .collect();
                format!("{{{}}}", members.join(",")).into_bytes()
            }
            Some(Malformed::Wrapped { before, after }) => {
                format!("{before}{text}{after}").into_bytes()
            }
            Some(Malformed::Twice) => format!("{text}{text}").into_bytes(),
            Some(Malformed::Text { text }) => text.as_bytes().to_vec(),
            Some(Malformed::Truncated) => text.as_bytes()[..text.len() - 1].to_vec(),
            Some(Malformed::BytesBefore { bytes }) => {
                [bytes.clone(), text.as_bytes().to_vec()].concat()
            }
            Some(Malformed::RawBytes {
                replace,
                with,
                bytes,
            }) => replace1(text, replace, with)
                .bytes()
                .flat_map(|c| if c == 1 { bytes.clone() } else { vec![c] })
                .collect(),
            Some(Malformed::Deep { depth }) => {
                let inner = format!("{}{}", "[".repeat(*depth), "]".repeat(*depth));
                let to = format!("{{\"a\":{inner},\"attenuations\":");
                replace1(text, "{\"attenuations\":", &to).into_bytes()
            }
        };
        encode_bytes(&bytes)
    }

    /// A SerializedDCT template with the base token filled in.
    fn fill(&self, template: &Value) -> Value {
        match template {
            Value::String(s) if s == "<token>" => json!(token_str(&self.base.ser())),
            Value::String(s) if s == "<decoded token>" => self.base.v.clone(),
            Value::Array(items) => items.iter().map(|v| self.fill(v)).collect(),
            Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), self.fill(v))).collect(),
            other => other.clone(),
        }
    }
}

/// Timestamps outside the D5 profile, each a spelling of a reasonable instant: (pointer,
/// value, what). Cases 420…, in order.
#[rustfmt::skip]
const BAD_TIMESTAMPS: &[(&str, &str, &str)] = &[
    ("/authority/expiresAt", "2026-03-01t12:00:00z", "lowercase t and z"),
    ("/authority/expiresAt", "2026-03-01T12:00:00", "no offset"),
    ("/authority/expiresAt", "2026-03-01T11:59:60Z", "leap second :60"),
    ("/authority/expiresAt", "2026-02-30T12:00:00Z", "February 30"),
    ("/authority/expiresAt", "2026-03-01T24:00:00Z", "hour 24"),
    ("/authority/expiresAt", "2026-03-01T12:00:00.0000000000Z", "10 fraction digits"),
    ("/authority/expiresAt", "2026-03-01 12:00:00Z", "a space separator"),
    ("/authority/expiresAt", "2026-03-01T12:00:00+0000", "offset without a colon"),
    ("/authority/expiresAt", "2026-03-01", "a date without time"),
    ("/authority/expiresAt", "1772366400", "Unix seconds as a string"),
    ("/authority/issuedAt", "2026-03-01T00:00:00", "no offset (issuedAt)"),
    ("/authority/issuedAt", "2026-02-29T00:00:00Z", "February 29 of a non-leap year (issuedAt)"),
    ("/attenuations/0/expiresAt", "2026-03-01T11:30:00z", "lowercase z (attenuation expiry)"),
    ("/attenuations/0/expiresAt", "2026-03-01T11:30Z", "no seconds (attenuation expiry)"),
    ("/attenuations/0/expiresAt", "+002026-03-01T11:30:00Z", "expanded year (attenuation expiry)"),
];

fn wrong_values(ty: Ty, original: &Value) -> Vec<(&'static str, Value)> {
    match ty {
        Ty::Str => vec![
            ("a number", json!(42)),
            ("null", Value::Null),
            ("true", json!(true)),
            ("an array holding the original string", json!([original])),
            ("an object", json!({})),
        ],
        Ty::Int => vec![
            (
                "the original number as a string",
                json!(original.to_string()),
            ),
            ("null", Value::Null),
            ("false", json!(false)),
            ("an array holding the original number", json!([original])),
            ("an object", json!({})),
        ],
        Ty::Arr => vec![
            ("an object", json!({})),
            ("a string", json!("[]")),
            ("null", Value::Null),
            ("a number", json!(0)),
            ("true", json!(true)),
        ],
        Ty::Obj => vec![
            ("an array", json!([])),
            ("a string", json!("{}")),
            ("null", Value::Null),
            ("a number", json!(1)),
            ("the object wrapped in an array", json!([original])),
        ],
        Ty::Covers => vec![
            ("null", Value::Null),
            ("true", json!(true)),
            ("an array", json!([0])),
            ("an object", json!({"index": 0})),
            ("a fraction 0.5", json!(0.5)),
        ],
    }
}

fn build_malformed(g: &mut Group, k: &Keys) {
    let f = Fix::new(k);
    let rows = crate::tables::rows::<MalformedRow>("dct_malformed.json");
    malformed_members(g, &f, &rows);
    malformed_table(g, &f, &rows, 204..327);
    malformed_largest_integers(g, &f);
    malformed_table(g, &f, &rows, 329..360);
    malformed_principals(g, &f);
    malformed_signatures(g, &f);
    malformed_timestamps(g, &f);
    malformed_token_strings(g, &f);
    malformed_token_size(g, &f);
    malformed_table(g, &f, &rows, 462..10000);
}

/// Missing members, wrong JSON types, null optional members.
fn malformed_members(g: &mut Group, f: &Fix, rows: &[MalformedRow]) {
    // Missing members: 1..=99 (required members only; optional ones may be absent).
    let mut n = 1u16;
    for &(ptr, _, req) in FIELDS {
        let optional = OPTIONAL
            .iter()
            .any(|o| ptr.starts_with("/attenuations/0/") && ptr.ends_with(o));
        if optional || ptr.ends_with("/0") || ptr.ends_with("/signatures/1/covers") {
            continue;
        }
        let desc = format!("required member {} missing (blocks re-signed)", dotted(ptr));
        f.case(
            g,
            n,
            &desc,
            &[req, MALFORMED],
            f.mutate(|t| t.remove(ptr), ptr),
        );
        n += 1;
    }
    // A few more missing members.
    malformed_table(g, f, rows, 60..100);
    // Wrong JSON types: two per member, rotating through the alternatives, 100..=199.
    let mut n = 100u16;
    for (i, &(ptr, ty, req)) in FIELDS.iter().enumerate() {
        let original = f.base.v.pointer(ptr).cloned().unwrap_or(Value::Null);
        let alternatives = wrong_values(ty, &original);
        for pick in [i % 5, (i + 2) % 5] {
            let (what, value) = alternatives[pick].clone();
            let token = f.mutate(|t| t.set(ptr, value), ptr);
            let mut reqs = vec![req, MALFORMED];
            if ty == Ty::Int {
                reqs.push(INT);
            }
            let desc = format!(
                "{} is {what} (wrong JSON type; blocks re-signed)",
                dotted(ptr)
            );
            f.case(g, n, &desc, &reqs, token);
            n += 1;
        }
    }
    // null for optional attenuation members (D23: absent, never null).
    for (j, key) in OPTIONAL.iter().enumerate() {
        let desc =
            format!("attenuations[0].{key} is null (unset restrictions must be absent, D23)");
        let token = f.set(&format!("/attenuations/0/{key}"), Value::Null);
        f.case(g, 200 + j as u16, &desc, &[ATT, MALFORMED], token);
    }
}

/// The largest protocol integer, 2^53 − 1, is valid in the authority and, under a root budget
/// of 2^53 − 1, in an attenuation (≤ effectiveBudget, step 4c): valid with all of it remaining.
/// (number, description, requirement ids, attenuations).
#[rustfmt::skip]
const LARGEST_INTEGERS: &[(u16, &str, Ids, usize)] = &[
    (327, "authority.maxBudgetMicrocents = 2^53 − 1 (the largest protocol integer) is valid", &[INT, "PRIM-INT-RANGE"], 0),
    (328, "attenuations[0].maxBudgetMicrocents = 2^53 − 1 (the largest protocol integer) \
        under a root budget of 2^53 − 1 is valid", &[INT, "PRIM-INT-RANGE", "DCT-VERIFY-4C-BUDGET"], 1),
];

fn malformed_largest_integers(g: &mut Group, f: &Fix) {
    const MAX: u64 = 9_007_199_254_740_991;
    for &(n, desc, reqs, atts) in LARGEST_INTEGERS {
        let c = chain(f.k, atts).with_authority(|a| a.max_budget_microcents = MAX);
        let c = c.with_attenuation(0, |a| a.max_budget_microcents = Some(MAX));
        let expect = Expectation::valid(
            Scope {
                remaining: MAX,
                ..scope(atts)
            }
            .output(),
        );
        verify_token(g, n, desc, reqs, &[], Tok::of(&c).ser(), &f.ctx, expect);
    }
}

fn malformed_principals(g: &mut Group, f: &Fix) {
    // Principal ids (invalid: one encoding per key).
    let variants = |p: &str| -> Vec<(&'static str, String)> {
        let mut out = vec![
            ("42 characters (last one dropped)", p[..42].to_owned()),
            ("44 characters (an extra `A`)", format!("{p}A")),
            ("with `=` padding", format!("{p}=")),
        ];
        let std = p.replace('-', "+").replace('_', "/");
        if std != p {
            out.push(("in the standard base64 alphabet", std));
        }
        // The last character carries 4 data bits and 2 zero bits: set a trailing bit.
        let last = p.as_bytes()[42];
        const ALPHA: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let idx = ALPHA.iter().position(|&c| c == last).unwrap_or(0);
        out.push((
            "with non-zero trailing bits",
            format!("{}{}", &p[..42], ALPHA[idx | 1] as char),
        ));
        out.push(("with a trailing newline", format!("{p}\n")));
        out
    };
    // The issuer (and the verifier's configured root key, so only the encoding differs).
    for (n, (what, bad)) in (360..).zip(variants(&f.k.root.principal)) {
        let t = f.base.clone().set("/authority/issuer", json!(bad)).resign();
        let desc = format!("authority.issuer {what} (ctx.rootPublicKey spelled the same way)");
        let reqs = &[PRIN, b64_req(what), MALFORMED];
        let ctx = f.ctx.clone().root(&bad);
        verify_token(g, n, &desc, reqs, &[], t.ser(), &ctx, malformed());
    }
    // The last delegatee (bob): compared with nothing, so only its encoding is wrong.
    for (n, (what, bad)) in (370..).zip(variants(&f.k.bob.principal)) {
        let desc = format!("attenuations[0].delegatee {what}");
        let token = f.set("/attenuations/0/delegatee", json!(bad));
        f.case(g, n, &desc, &[PRIN, b64_req(what), MALFORMED], token);
    }
    // alice, spelled the bad way everywhere she appears (authority.delegatee, attenuator, signer).
    for (n, (what, bad)) in (380..).zip(variants(&f.k.alice.principal)) {
        let t = f.base.clone().set("/authority/delegatee", json!(bad));
        let t = t.set("/attenuations/0/attenuator", json!(bad));
        let t = t.set("/signatures/1/signer", json!(bad)).resign();
        let desc = format!(
            "alice's principal id {what} in authority.delegatee, the attenuator and the signer"
        );
        f.case(g, n, &desc, &[PRIN, b64_req(what), MALFORMED], t.ser());
    }
    for (n, (what, bad)) in (390..).zip(variants(&f.k.root.principal).into_iter().take(3)) {
        let desc = format!("signatures[0].signer {what}");
        let token = f.base.clone().set("/signatures/0/signer", json!(bad)).ser();
        f.case(g, n, &desc, &[PRIN, SIG, b64_req(what), MALFORMED], token);
    }
    let desc = "authority.issuer is the literal name \"root\"";
    let token = f.set("/authority/issuer", json!("root"));
    let ctx = f.ctx.clone().root("root");
    verify_token(
        g,
        395,
        desc,
        &[PRIN, MALFORMED],
        &[],
        token,
        &ctx,
        malformed(),
    );
}

fn malformed_signatures(g: &mut Group, f: &Fix) {
    // Signature encodings.
    let sig0 = sig_of(&f.base, 0);
    let sig1 = sig_of(&f.base, 1);
    let mut sig_variants: Vec<(String, String, usize)> = vec![
        ("85 characters".into(), sig0[..85].to_owned(), 0),
        ("87 characters".into(), format!("{sig0}A"), 0),
        ("padded with `==`".into(), format!("{sig0}=="), 0),
        ("as 128 hex digits".into(), hex::encode(decode64(&sig0)), 0),
        (
            "with a space in the middle".into(),
            format!("{} {}", &sig0[..40], &sig0[40..]),
            0,
        ),
    ];
    for (j, s) in [(0usize, &sig0), (1, &sig1)] {
        let std = s.replace('-', "+").replace('_', "/");
        if &std != s {
            sig_variants.push((
                format!("of signatures[{j}] in the standard base64 alphabet"),
                std,
                j,
            ));
            break;
        }
    }
    {
        // 64 bytes = 86 characters whose last one carries 2 data bits and 4 zero bits.
        const ALPHA: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let last = sig1.as_bytes()[85];
        let idx = ALPHA.iter().position(|&c| c == last).unwrap_or(0);
        sig_variants.push((
            "of signatures[1] with non-zero trailing bits".into(),
            format!("{}{}", &sig1[..85], ALPHA[idx | 1] as char),
            1,
        ));
    }
    for (n, (what, bad, j)) in (400..).zip(sig_variants) {
        let t = f
            .base
            .clone()
            .set(&format!("/signatures/{j}/signature"), json!(bad));
        let desc = format!("signature {what}");
        f.case(g, n, &desc, &[SIG, b64_req(&what), MALFORMED], t.ser());
    }
}

fn malformed_timestamps(g: &mut Group, f: &Fix) {
    for (i, (ptr, v, what)) in BAD_TIMESTAMPS.iter().enumerate() {
        let t = f.base.clone().set(ptr, json!(v)).resign();
        let specific = if what.contains("leap") {
            "PRIM-TIME-LEAP-SECOND"
        } else if what.contains("February") || what.contains("hour 24") {
            "PRIM-TIME-CALENDAR"
        } else {
            "PRIM-TIME-REJECT-FORMS"
        };
        // Issue 27 (D5): an ISO 8601 form outside the profile names an instant; a verifier that
        // reads it as that instant answers what the same token spelled in the profile gets.
        let (expect, flags): (Expectation, &[&str]) = match crate::audit::iso8601_equivalent(v) {
            Some(profile) => {
                let same = f.base.clone().set(ptr, json!(profile)).resign();
                let other = match delegateos_reference::ops::run(
                    "dct.verify",
                    &super::dct_support::verify_input(same.ser(), &f.ctx),
                ) {
                    delegateos_reference::ops::Outcome::Ok { output } => Expected::valid(output),
                    delegateos_reference::ops::Outcome::Error { code, .. } => {
                        Expected::invalid(&code, "10.1")
                    }
                    delegateos_reference::ops::Outcome::Unsupported { .. } => {
                        Expected::valid(json!({}))
                    }
                };
                (
                    Expectation::acceptable(
                        "D5",
                        vec![Expected::invalid("malformed_token", S1), other],
                    ),
                    &["TimestampOffset"],
                )
            }
            None => (malformed(), &[]),
        };
        let (n, desc) = (420 + i as u16, format!("{} {v:?}: {what}", dotted(ptr)));
        let reqs = &[TS, "PRIM-TIME-PROFILE", specific, MALFORMED];
        verify_token(g, n, &desc, reqs, flags, t.ser(), &f.ctx, expect);
    }
}

fn malformed_token_strings(g: &mut Group, f: &Fix) {
    // The token string.
    let token_str = |v: &Value| v["token"].as_str().unwrap_or_default().to_owned();
    let wrap = |s: String| json!({"token": s, "format": FORMAT});
    // A base whose text length is not a multiple of 4, so padding and trailing bits exist.
    let (padded_base, pad_n) = [0usize, 1, 2, 3]
        .iter()
        .map(|&m| Tok::base(f.k, m))
        .map(|t| token_str(&t.ser()))
        .enumerate()
        .find(|(_, s)| s.len() % 4 != 0)
        .map(|(m, s)| (s, m))
        .unwrap_or_default();
    let ts1 = token_str(&f.base.ser());
    let pad = "=".repeat((4 - padded_base.len() % 4) % 4);
    let mut cases: Vec<(String, String)> = vec![
        ("with `=` padding".into(), format!("{padded_base}{pad}")),
        (
            "with a space inside".into(),
            format!("{} {}", &ts1[..64], &ts1[64..]),
        ),
        (
            "wrapped with newlines every 76 characters (MIME style)".into(),
            ts1.as_bytes()
                .chunks(76)
                .map(|c| String::from_utf8_lossy(c).into_owned())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        ("with a trailing newline".into(), format!("{ts1}\n")),
        ("empty".into(), String::new()),
        ("not base64 at all".into(), "%%%not-a-token%%%".into()),
        (
            "with a `.` appended (decoders that skip junk accept)".into(),
            format!("{ts1}."),
        ),
        (
            "the decoded JSON text itself instead of its base64url".into(),
            f.base.text(),
        ),
        (
            "with one extra character (length ≡ 1 mod 4 or a dangling symbol)".into(),
            format!("{padded_base}A"),
        ),
    ];
    let std = ts1.replace('-', "+").replace('_', "/");
    if std != ts1 {
        cases.push(("in the standard base64 alphabet".into(), std));
    }
    {
        const ALPHA: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let last = *padded_base.as_bytes().last().unwrap_or(&b'A');
        let idx = ALPHA.iter().position(|&c| c == last).unwrap_or(0);
        let body = &padded_base[..padded_base.len().saturating_sub(1)];
        cases.push((
            "with non-zero trailing bits".into(),
            format!("{body}{}", ALPHA[idx | 1] as char),
        ));
    }
    let _ = pad_n;
    for (n, (what, s)) in (440..).zip(cases) {
        let desc = format!("token string {what}");
        f.case(g, n, &desc, &[CANON, b64_req(&what), MALFORMED], wrap(s));
    }
}

fn malformed_token_size(g: &mut Group, f: &Fix) {
    {
        // A correctly signed token whose text exceeds 1 MiB (a huge resource pattern).
        let big = "a".repeat(800_000);
        let c = chain(f.k, 0).caps(vec![
            cap("docs", "read", "/project/**"),
            cap("docs", "read", &format!("/big/{big}")),
        ]);
        let t = Tok::of(&c).ser();
        assert!(token_str(&t).len() > 1 << 20);
        verify_token(
            g,
            460,
            "a correctly signed token whose token string is longer than 1 MiB",
            &["DCT-FORMAT-SIZE", MALFORMED],
            &[],
            t,
            &f.ctx,
            malformed(),
        );
    }
    {
        // The boundary: a correctly signed token whose token string is exactly 1 MiB
        // (1,048,576 characters = base64url of 786,432 canonical bytes). The text sets no
        // limit and D9's limit is "at most 1 MiB", so it is valid. The padding capability's
        // resource is sized so the canonical JSON has exactly that many bytes (ASCII only, so
        // one resource character is one byte).
        const LIMIT: usize = 1 << 20;
        let caps_of = |n: usize| {
            vec![
                cap("docs", "read", "/project/**"),
                cap("docs", "read", &format!("/big/{}", "a".repeat(n))),
            ]
        };
        let bytes_of = |n: usize| Tok::of(&chain(f.k, 0).caps(caps_of(n))).text().len();
        let probe = 700_000;
        let want = LIMIT / 4 * 3;
        let n = probe + want - bytes_of(probe);
        let c = chain(f.k, 0).caps(caps_of(n));
        let t = Tok::of(&c).ser();
        assert_eq!(
            token_str(&t).len(),
            LIMIT,
            "the token must be exactly 1 MiB"
        );
        verify_token(
            g,
            461,
            "a correctly signed token whose token string is exactly 1 MiB (1,048,576 \
             characters) is valid",
            &["DCT-FORMAT-SIZE", "DCT-VERIFY-8-SCOPE"],
            &[],
            t,
            &f.ctx,
            Expectation::valid(
                Scope {
                    capabilities: caps_of(n),
                    ..scope(0)
                }
                .output(),
            ),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// revoked
// ---------------------------------------------------------------------------------------------

/// A row of `dct_revoked.json`: the token (chain(3), or a named one: [`revoked_token`], with
/// `edits`; `spaced`: its text with a space after every `:`), verified under the default
/// context with the revocation `entries` and the context changes `now`, `root` (a key name),
/// `spent`, `request`.
#[derive(Deserialize)]
struct RevokedRow {
    id: String,
    #[serde(rename = "description")]
    desc: String,
    #[serde(rename = "requirements")]
    reqs: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    token: Option<String>,
    #[serde(default)]
    edits: Vec<Edit>,
    #[serde(default)]
    spaced: bool,
    entries: Vec<EntrySpec>,
    #[serde(flatten)]
    ctx: CtxSpec,
    expect: Ex,
}

/// A revocation entry (§4.1), built here and not by the reference: `by` signs it (and is its
/// `revokedBy`, followed by `by_suffix`) with Ed25519 over BLAKE2b-256 (`hash: none`: the text
/// itself) of `canonicalize({revocationId, revokedBy, revokedAt, scope})` (`signed`: only those
/// members). The id is that of block `block` of chain(3) (0 = the authority), or `rid`: a named
/// wrong one ([`Rev::rid`]). Then `signature_of` takes another entry's signature,
/// `signature_suffix` is appended to it, `set` and `remove` change members; `bare_id`: the
/// entry is the id string itself.
#[derive(Deserialize)]
struct EntrySpec {
    by: String,
    #[serde(default)]
    block: usize,
    #[serde(default = "block_scope")]
    scope: String,
    #[serde(default = "revoked_at")]
    at: String,
    #[serde(default)]
    by_suffix: String,
    rid: Option<String>,
    signed: Option<Vec<String>>,
    hash: Option<String>,
    signature_of: Option<Box<EntrySpec>>,
    #[serde(default)]
    signature_suffix: String,
    #[serde(default)]
    set: serde_json::Map<String, Value>,
    remove: Option<String>,
    #[serde(default)]
    bare_id: bool,
}

fn block_scope() -> String {
    "block".into()
}

fn revoked_at() -> String {
    REVOKED_AT.into()
}

fn rid_of(block: &Value) -> String {
    digest64(canon(block).as_bytes())
}

fn digest64(bytes: &[u8]) -> String {
    b64u_encode(&blake2b256(bytes))
}

/// Block `b` of `t` (0 = the authority).
fn block_of(t: &Tok, b: usize) -> Value {
    if b == 0 {
        t.auth()
    } else {
        t.atts()[b - 1].clone()
    }
}

/// alice's sibling attenuation: to carol instead of bob, with bob's restrictions.
fn sibling(k: &Keys) -> Tok {
    Tok::of(&chain(k, 0).delegate(&k.carol, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/**")]);
        a.max_budget_microcents = Some(500_000);
    }))
}

/// A named token of the revoked table.
fn revoked_token(k: &Keys, name: &str) -> Tok {
    match name {
        "chain0" => Tok::base(k, 0),
        "chain1" => Tok::base(k, 1),
        "chain2" => Tok::base(k, 2),
        "sibling" => sibling(k),
        "mallory_issued" => {
            Tok::of(&chain(k, 1).with_authority(|a| a.issuer = k.mallory.principal.clone()))
        }
        // A widening attenuation 1 after attenuation 0.
        "widened" => Tok::of(&chain(k, 2).with_attenuation(1, |a| {
            a.allowed_capabilities = Some(vec![cap("docs", "write", "/**")])
        })),
        other => panic!("dct_revoked.json: no token {other:?}"),
    }
}

/// What the revoked cases start from: the three-attenuation token [`chain`]`(3)` and the
/// revocation ids of its blocks.
struct Rev<'a> {
    k: &'a Keys,
    t3: Tok,
    /// Revocation ids: the authority's first, then each attenuation's.
    rids: Vec<String>,
}

fn build_revoked(g: &mut Group, k: &Keys) {
    let t3 = Tok::base(k, 3);
    let rids = (0..4).map(|b| rid_of(&block_of(&t3, b))).collect();
    let r = Rev { k, t3, rids };
    for row in crate::tables::rows::<RevokedRow>("dct_revoked.json") {
        let t = row.token.as_deref().map_or_else(
            || apply(&r.t3, &row.edits, k),
            |name| revoked_token(k, name),
        );
        let mut ctx = Ctx::new(k);
        for e in &row.entries {
            ctx = ctx.revoke(r.entry(e, &t));
        }
        let ctx = row.ctx.apply(k, ctx);
        let token = if row.spaced {
            encode_bytes(t.text().replace("\":", "\": ").as_bytes())
        } else {
            t.ser()
        };
        let (reqs, flags) = (strs(&row.reqs), strs(&row.flags));
        let n = g.number_of("dct_revoked.json", &row.id);
        verify_token(
            g,
            n,
            &row.desc,
            &reqs,
            &flags,
            token,
            &ctx,
            row.expect.expect(),
        );
    }
}

impl Rev<'_> {
    /// The entry `e` describes; `presented` is the token verified.
    fn entry(&self, e: &EntrySpec, presented: &Tok) -> Value {
        let kp = key(self.k, &e.by).keypair();
        let rid = self.rid(e, presented);
        if e.bare_id {
            return json!(rid);
        }
        let by = format!("{}{}", kp.principal_id(), e.by_suffix);
        let mut v =
            json!({"revocationId": rid, "revokedBy": by, "revokedAt": e.at, "scope": e.scope});
        let signed = match &e.signed {
            Some(members) => {
                Value::Object(members.iter().map(|m| (m.clone(), v[m].clone())).collect())
            }
            None => v.clone(),
        };
        let payload = canon(&signed);
        let sig = match e.hash.as_deref() {
            Some("none") => b64u_encode(&kp.sign_message(payload.as_bytes())),
            _ => sign_text(&kp, &payload),
        };
        v["signature"] = json!(format!("{sig}{}", e.signature_suffix));
        if let Some(other) = &e.signature_of {
            v["signature"] = self.entry(other, presented)["signature"].clone();
        }
        for (member, x) in &e.set {
            v[member] = x.clone();
        }
        if let (Some(member), Some(m)) = (&e.remove, v.as_object_mut()) {
            m.remove(member);
        }
        v
    }

    /// The revocation id an entry names.
    fn rid(&self, e: &EntrySpec, presented: &Tok) -> String {
        let (auth, rid) = (self.t3.auth(), &self.rids[e.block]);
        match e.rid.as_deref() {
            None => rid.clone(),
            // The block of the presented token (not of chain(3)).
            Some("presented") => rid_of(&block_of(presented, e.block)),
            // The authority of another token of the same root.
            Some("other_token") => rid_of(
                &Tok::of(&chain(self.k, 0).with_authority(|a| a.delegation_id = del(0x99))).auth(),
            ),
            Some("stringify_order") => digest64(stringify_authority(&auth).as_bytes()),
            Some("pretty") => digest64(
                serde_json::to_string_pretty(&auth)
                    .unwrap_or_default()
                    .as_bytes(),
            ),
            Some("signed_payload") => digest64(self.t3.payload(e.block).as_bytes()),
            Some("whole_token") => digest64(self.t3.text().as_bytes()),
            Some("blake2b512_truncated") => b64u_encode(&blake2b512(canon(&auth).as_bytes())[..32]),
            // The block with its signature entry as a member `signature`.
            Some("with_signature_entry") => {
                let mut b = block_of(&self.t3, e.block);
                b["signature"] = self.t3.v["signatures"][e.block].clone();
                rid_of(&b)
            }
            Some("hex") => hex::encode(blake2b256(canon(&auth).as_bytes())),
            Some("padded") => format!("{rid}="),
            Some("standard_alphabet") => match rid.replace('-', "+").replace('_', "/") {
                std if &std == rid => format!("{}+", &rid[..42]),
                std => std,
            },
            Some("truncated") => rid[..42].to_owned(),
            Some("flipped_case") => flip_case(rid),
            Some(other) => panic!("dct_revoked.json: no revocation id {other:?}"),
        }
    }
}

/// ASCII letters with their case flipped.
fn flip_case(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_lowercase() {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// The authority in JSON.stringify order (declaration order), not canonical.
fn stringify_authority(a: &Value) -> String {
    let decl = [
        "issuer",
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
    ];
    let members: Vec<String> = decl
        .iter()
        .map(|m| format!("\"{m}\":{}", canon(&a[*m])))
        .collect();
    format!("{{{}}}", members.join(","))
}

// ---------------------------------------------------------------------------------------------
// Group `acceptance-effects` (issue 15)
// ---------------------------------------------------------------------------------------------

/// What accepting a malformed field would do. Each case is a `malformed` case (the field is
/// outside §3's format, the token is re-signed, the spec answer is `malformed_token` at step 1)
/// placed in a context where the check the field feeds is at stake: `now` after every expiry,
/// spend far above the root budget, a chain deeper than the root allows, a request outside the
/// root's scope. An implementation that accepts the field but still enforces the check answers
/// another denial code — a hardening finding ("rejected with another code"); one whose
/// acceptance disables the check answers `valid` — a wrong verdict carrying the case's
/// critical `Malformed*Bypass` flag. The malformed cases alone cannot tell these apart.
///
/// A row of `dct_effects.json`: the token (`base`: the malformed cases' one-attenuation base;
/// `deep`: a root allowing one attenuation, then two; `root`: the root token alone) with
/// `edits`, under the default context with the changes of `ctx`.
#[derive(Deserialize)]
struct EffectRow {
    id: String,
    #[serde(rename = "description")]
    desc: String,
    #[serde(rename = "requirements")]
    reqs: Vec<String>,
    flags: Vec<String>,
    token: String,
    edits: Vec<Edit>,
    #[serde(flatten)]
    ctx: CtxSpec,
    expect: Ex,
}

fn build_effects(g: &mut Group, k: &Keys) {
    for row in crate::tables::rows::<EffectRow>("dct_effects.json") {
        let t = match row.token.as_str() {
            "base" => Fix::new(k).base,
            // The root allows one attenuation (maxChainDepth 1); the token has two.
            "deep" => Tok::of(
                &Chain::root(k)
                    .with_authority(|a| a.max_chain_depth = 1)
                    .delegate(&k.bob, |a| a.max_chain_depth = Some(0))
                    .delegate(&k.carol, |_| {}),
            ),
            _ => Tok::of(&Chain::root(k)),
        };
        let token = apply(&t, &row.edits, k).ser();
        let ctx = row.ctx.apply(k, Ctx::new(k));
        let (reqs, flags) = (strs(&row.reqs), strs(&row.flags));
        let n = g.number_of("dct_effects.json", &row.id);
        verify_token(
            g,
            n,
            &row.desc,
            &reqs,
            &flags,
            token,
            &ctx,
            row.expect.expect(),
        );
    }
}

#[cfg(test)]
mod construction_tests {
    use super::{Forged, Malformed};

    /// Issue 50: a table row's construction is typed, its parameters named: a typo in a row is
    /// a parse error naming the construction or the field, never a silent default.
    #[test]
    fn a_misspelt_construction_or_field_is_a_parse_error_naming_it() {
        let forged = |t: &str| {
            serde_json::from_str::<Forged>(t)
                .err()
                .map(|e| e.to_string())
        };
        let malformed = |t: &str| {
            serde_json::from_str::<Malformed>(t)
                .err()
                .map(|e| e.to_string())
        };
        assert_eq!(
            forged(r#"{"signed_by": {"signature": 0, "by": "mallory"}}"#),
            None
        );
        let e = forged(r#"{"signed_by": {"signature": 0, "bye": "mallory"}}"#).unwrap();
        assert!(e.contains("bye"), "{e}");
        let e = forged(r#""sel_attenuator""#).unwrap();
        assert!(e.contains("sel_attenuator"), "{e}");
        let e = forged(r#"{"weird_root": {"root": "identiti"}}"#).unwrap();
        assert!(e.contains("identiti"), "{e}");
        assert_eq!(malformed(r#"{"deep": {"depth": 3}}"#), None);
        let e = malformed(r#"{"deep": {"depht": 3}}"#).unwrap();
        assert!(e.contains("depht"), "{e}");
    }
}
