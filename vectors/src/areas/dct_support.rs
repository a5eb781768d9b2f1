//! Token-construction toolkit shared by the `dct` area generators (`dct.rs`, `dct_attacks.rs`,
//! `dct_redteam.rs`), and the `dct.verify` case helpers they all use.
//!
//! The rule every negative case follows: start from a valid [`Chain`], change ONE thing, and
//! re-sign with the right key ([`Chain::signed`] signs each block with the key of the principal
//! the block names: `authority.issuer`, then each `attenuator`), so only the intended check can
//! fail. Deliberately mis-signed tokens are built with [`Chain::signatures`] +
//! [`Chain::token_with`] (or the raw [`encode_value`] / [`encode_bytes`] for step-1 faults).
//!
//! Nothing here decides a verdict: expected outputs are written by the case author from the
//! construction and the spec ([`Scope`] only spells an `AuthorizedScope` object).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use delegateos_reference::attenuate::{assemble, sign_attenuation, sign_authority};
use delegateos_reference::canonical::canonicalize;
use delegateos_reference::encoding::b64u_encode;
use delegateos_reference::revocation::{create_entry, RevocationEntry, Scope as RevScope};
use delegateos_reference::token::{
    canonical_of, encode, revocation_id_of_block, Attenuation, Authority, Capability,
    SignedJsonToken, TokenSignature, ROOT_PARENT_DELEGATION_ID,
};

/// The token format string, re-exported for the area files.
pub use delegateos_reference::token::FORMAT;

use crate::format::{Expectation, Expected};
use crate::generate::Group;
use crate::keys::{Key, Keys};

/// Default `issuedAt` of the root.
pub const ISSUED_AT: &str = "2026-03-01T00:00:00Z";
/// Default root `expiresAt`.
pub const EXPIRES_AT: &str = "2026-03-01T12:00:00Z";
/// Default verification time (two hours before [`EXPIRES_AT`]).
pub const NOW: &str = "2026-03-01T10:00:00Z";
/// Default root budget (microcents).
pub const BUDGET: u64 = 1_000_000;
/// Default root `maxChainDepth` (absolute, D4).
pub const MAX_DEPTH: u64 = 8;
/// Default root contract id.
pub const CONTRACT: &str = "ct_00000000c0de";
/// Default root delegation id.
pub const DELEGATION: &str = "del_000000000001";

/// `ct_` + 12 lowercase hex of `n`.
pub fn ct(n: u64) -> String {
    format!("ct_{n:012x}")
}

/// `del_` + 12 lowercase hex of `n`.
pub fn del(n: u64) -> String {
    format!("del_{n:012x}")
}

/// A capability.
pub fn cap(namespace: &str, action: &str, resource: &str) -> Capability {
    Capability::new(namespace, action, resource)
}

/// A capability as a table cell: (namespace, action, resource).
pub type Cap = (&'static str, &'static str, &'static str);

/// Capabilities from table cells.
pub fn caps(cells: &[Cap]) -> Vec<Capability> {
    cells.iter().map(|(n, a, r)| cap(n, a, r)).collect()
}

/// The key whose role name is `name` (`root`, `alice`, …), so tables can name keys. A name
/// that is no key is a typo in a table: the generator stops.
pub fn key<'a>(keys: &'a Keys, name: &str) -> &'a Key {
    let found = keys.all().into_iter().find(|k| k.name == name);
    assert!(found.is_some(), "no key named {name:?}");
    found.unwrap_or(&keys.mallory)
}

/// The default root capabilities: `docs:read:/project/**`, `docs:write:/project/drafts/*`,
/// `web:search:*`.
pub fn default_caps() -> Vec<Capability> {
    vec![
        cap("docs", "read", "/project/**"),
        cap("docs", "write", "/project/drafts/*"),
        cap("web", "search", "*"),
    ]
}

/// Capabilities as a JSON array.
pub fn caps_json(caps: &[Capability]) -> Value {
    serde_json::to_value(caps).unwrap_or(Value::Null)
}

/// The delegatee principals in chain order: alice, bob, carol, dave, agent5 … agent9.
pub fn delegatees(keys: &Keys) -> Vec<Key> {
    let mut out = vec![
        keys.alice.clone(),
        keys.bob.clone(),
        keys.carol.clone(),
        keys.dave.clone(),
    ];
    out.extend(keys.agents.iter().cloned());
    out
}

/// A token under construction: the authority, the attenuations, and the key set used to sign
/// each block with the key its signer field names.
#[derive(Debug, Clone)]
pub struct Chain {
    /// The root block.
    pub authority: Authority,
    /// The narrowing blocks.
    pub attenuations: Vec<Attenuation>,
    keys: Keys,
}

impl Chain {
    /// The default root token: issuer `root`, delegatee `alice`, [`default_caps`], contract
    /// [`CONTRACT`], delegation [`DELEGATION`], chainDepth 0, maxChainDepth [`MAX_DEPTH`],
    /// budget [`BUDGET`], expiry [`EXPIRES_AT`], issued [`ISSUED_AT`].
    pub fn root(keys: &Keys) -> Self {
        Self {
            authority: Authority {
                issuer: keys.root.principal.clone(),
                delegatee: keys.alice.principal.clone(),
                capabilities: default_caps(),
                contract_id: CONTRACT.to_owned(),
                delegation_id: DELEGATION.to_owned(),
                parent_delegation_id: ROOT_PARENT_DELEGATION_ID.to_owned(),
                chain_depth: 0,
                max_chain_depth: MAX_DEPTH,
                max_budget_microcents: BUDGET,
                expires_at: EXPIRES_AT.to_owned(),
                issued_at: ISSUED_AT.to_owned(),
            },
            attenuations: Vec::new(),
            keys: keys.clone(),
        }
    }

    /// Changes the authority (builder style).
    pub fn with_authority(mut self, f: impl FnOnce(&mut Authority)) -> Self {
        f(&mut self.authority);
        self
    }

    /// Sets the root capabilities.
    pub fn caps(self, caps: Vec<Capability>) -> Self {
        self.with_authority(|a| a.capabilities = caps)
    }

    /// The current delegatee (last attenuation's, or the authority's).
    pub fn current_delegatee(&self) -> String {
        self.attenuations
            .last()
            .map_or_else(|| self.authority.delegatee.clone(), |a| a.delegatee.clone())
    }

    /// Appends an attenuation by the current delegatee to `to`, with delegation id
    /// `del(0x100 + i)` and contract id `ct(0x100 + i)` (i = its index), no optional
    /// restriction; `f` then sets restrictions (or changes anything).
    pub fn delegate(mut self, to: &Key, f: impl FnOnce(&mut Attenuation)) -> Self {
        let i = self.attenuations.len() as u64;
        let mut att = Attenuation {
            attenuator: self.current_delegatee(),
            delegatee: to.principal.clone(),
            delegation_id: del(0x100 + i),
            contract_id: ct(0x100 + i),
            allowed_capabilities: None,
            max_budget_microcents: None,
            expires_at: None,
            max_chain_depth: None,
        };
        f(&mut att);
        self.attenuations.push(att);
        self
    }

    /// Appends `n` unrestricted attenuations along [`delegatees`] (alice → bob → carol …),
    /// continuing from the current length.
    pub fn delegate_n(mut self, n: usize) -> Self {
        let ds = delegatees(&self.keys);
        for _ in 0..n {
            let next = ds
                .get(self.attenuations.len() + 1)
                .cloned()
                .unwrap_or_else(|| self.keys.mallory.clone());
            self = self.delegate(&next, |_| {});
        }
        self
    }

    /// Changes attenuation `i` (builder style); out-of-range indices are ignored.
    pub fn with_attenuation(mut self, i: usize, f: impl FnOnce(&mut Attenuation)) -> Self {
        if let Some(a) = self.attenuations.get_mut(i) {
            f(a);
        }
        self
    }

    /// The key whose principal is `principal` (falls back to `mallory`, whose signature then
    /// does not verify under the unknown principal).
    pub fn key_of(&self, principal: &str) -> Key {
        self.keys
            .all()
            .iter()
            .find(|k| k.principal == principal)
            .map_or_else(|| self.keys.mallory.clone(), |k| (*k).clone())
    }

    /// The correct signatures: the authority by the key of `authority.issuer`, attenuation i
    /// by the key of `attenuations[i].attenuator` over the prefix including i (D16).
    pub fn signatures(&self) -> Vec<TokenSignature> {
        let mut out = vec![sign_authority(
            &self.key_of(&self.authority.issuer).keypair(),
            &self.authority,
        )];
        for i in 0..self.attenuations.len() {
            let signer = self.key_of(&self.attenuations[i].attenuator);
            out.push(sign_attenuation(
                &signer.keypair(),
                &self.authority,
                &self.attenuations[..=i],
            ));
        }
        out
    }

    /// The correctly signed token.
    pub fn signed(&self) -> SignedJsonToken {
        self.token_with(self.signatures())
    }

    /// The token with the given signature entries (for forgeries).
    pub fn token_with(&self, signatures: Vec<TokenSignature>) -> SignedJsonToken {
        assemble(
            self.authority.clone(),
            self.attenuations.clone(),
            signatures,
        )
    }

    /// The correctly signed token as a SerializedDCT JSON value `{token, format}`.
    pub fn serialized(&self) -> Value {
        serialized(&self.signed())
    }

    /// The token string (`token` member of [`Chain::serialized`]).
    pub fn token_string(&self) -> String {
        encode(&self.signed()).token
    }

    /// The correctly signed token as a JSON object (the decoded SignedJSONToken).
    pub fn decoded(&self) -> Value {
        serde_json::to_value(self.signed()).unwrap_or(Value::Null)
    }

    /// Revocation ids: authority first, then each attenuation (§3.5).
    pub fn revocation_ids(&self) -> Vec<String> {
        let mut out = vec![revocation_id_of_block(&self.authority)];
        out.extend(self.attenuations.iter().map(revocation_id_of_block));
        out
    }

    /// Last delegation id in the chain.
    pub fn last_delegation_id(&self) -> String {
        self.attenuations.last().map_or_else(
            || self.authority.delegation_id.clone(),
            |a| a.delegation_id.clone(),
        )
    }

    /// Last contract id in the chain.
    pub fn last_contract_id(&self) -> String {
        self.attenuations.last().map_or_else(
            || self.authority.contract_id.clone(),
            |a| a.contract_id.clone(),
        )
    }
}

/// `{token, format}` of a token (base64url of its canonical JSON).
pub fn serialized(token: &SignedJsonToken) -> Value {
    let s = encode(token);
    json!({ "token": s.token, "format": s.format })
}

/// `{token, format}` of an arbitrary JSON value, canonicalized (for step-1 faults built by
/// editing the decoded token as JSON).
pub fn encode_value(value: &Value) -> Value {
    let text = canonicalize(value).unwrap_or_default();
    encode_bytes(text.as_bytes())
}

/// `{token, format}` of arbitrary decoded bytes (non-canonical JSON, BOMs, …).
pub fn encode_bytes(bytes: &[u8]) -> Value {
    json!({ "token": b64u_encode(bytes), "format": FORMAT })
}

/// The canonical JSON text of a token (what `token` encodes).
pub fn canonical_text(token: &SignedJsonToken) -> String {
    canonical_of(token)
}

/// A revocation entry for `revocation_id` signed by `revoker`, as JSON.
pub fn revocation_entry(revoker: &Key, revocation_id: &str, chain_scope: bool) -> Value {
    let scope = if chain_scope {
        RevScope::Chain
    } else {
        RevScope::Block
    };
    entry_json(&create_entry(
        &revoker.keypair(),
        revocation_id,
        "2026-03-01T09:00:00Z",
        scope,
    ))
}

/// An entry as JSON.
pub fn entry_json(entry: &RevocationEntry) -> Value {
    serde_json::to_value(entry).unwrap_or(Value::Null)
}

/// The verification context of `dct.verify`: defaults are namespace `docs`, action `read`,
/// resource `/project/readme.md`, now [`NOW`], spent 0, root key `root`, no revocations.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// Requested namespace.
    pub namespace: String,
    /// Requested action.
    pub action: String,
    /// Requested resource.
    pub resource: String,
    /// `now` (any JSON value, so malformed inputs can be written).
    pub now: Value,
    /// `spentMicrocents`.
    pub spent: Value,
    /// `rootPublicKey`.
    pub root: String,
    /// Revocation entries.
    pub revocations: Vec<Value>,
}

impl Ctx {
    /// The default context.
    pub fn new(keys: &Keys) -> Self {
        Self {
            namespace: "docs".into(),
            action: "read".into(),
            resource: "/project/readme.md".into(),
            now: json!(NOW),
            spent: json!(0),
            root: keys.root.principal.clone(),
            revocations: Vec::new(),
        }
    }

    /// Sets namespace, action and resource.
    pub fn request(mut self, namespace: &str, action: &str, resource: &str) -> Self {
        self.namespace = namespace.into();
        self.action = action.into();
        self.resource = resource.into();
        self
    }

    /// Sets the requested resource.
    pub fn resource(mut self, resource: &str) -> Self {
        self.resource = resource.into();
        self
    }

    /// Sets `now`.
    pub fn now(mut self, now: &str) -> Self {
        self.now = json!(now);
        self
    }

    /// Sets `spentMicrocents`.
    pub fn spent(mut self, spent: u64) -> Self {
        self.spent = json!(spent);
        self
    }

    /// Sets `rootPublicKey`.
    pub fn root(mut self, root: &str) -> Self {
        self.root = root.into();
        self
    }

    /// Adds a revocation entry.
    pub fn revoke(mut self, entry: Value) -> Self {
        self.revocations.push(entry);
        self
    }

    /// The `context` object.
    pub fn to_json(&self) -> Value {
        json!({
            "namespace": self.namespace,
            "action": self.action,
            "resource": self.resource,
            "now": self.now,
            "spentMicrocents": self.spent,
            "rootPublicKey": self.root,
            "revocations": self.revocations,
        })
    }
}

/// The input of `dct.verify`.
pub fn verify_input(token: Value, ctx: &Ctx) -> Value {
    json!({ "token": token, "context": ctx.to_json() })
}

/// An expected `AuthorizedScope`, spelled out by the case author.
#[derive(Debug, Clone)]
pub struct Scope {
    /// Effective capabilities.
    pub capabilities: Vec<Capability>,
    /// Effective budget − spent.
    pub remaining: u64,
    /// authority.chainDepth + attenuations.
    pub chain_depth: u64,
    /// §10.1 step 8 `effectiveMaxDepth`: the last `maxChainDepth` an attenuation sets, else
    /// `authority.maxChainDepth` (D4 as corrected by the issue-12 audit: the text wins).
    pub max_chain_depth: u64,
    /// D4's countdown (further attenuations allowed), as the case author states it. Not part
    /// of the expected output: the reference reports it as `remainingChainDepth`, which
    /// vectors do not pin.
    pub remaining_chain_depth: u64,
    /// Last contract id.
    pub contract_id: String,
    /// Last delegation id.
    pub delegation_id: String,
}

impl Scope {
    /// The `{scope: {...}}` output object of `dct.verify`.
    pub fn output(&self) -> Value {
        json!({ "scope": {
            "capabilities": caps_json(&self.capabilities),
            "remainingBudgetMicrocents": self.remaining,
            "chainDepth": self.chain_depth,
            "maxChainDepth": self.max_chain_depth,
            "contractId": self.contract_id,
            "delegationId": self.delegation_id,
        }})
    }
}

/// The op of every verification case.
pub const VERIFY: &str = "dct.verify";

/// The expected scope of `chain`: chainDepth, `maxChainDepth` (§10.1 step 8's
/// effectiveMaxDepth) and the last ids come from the chain's structure; capabilities,
/// remaining budget and the countdown's remaining depth are stated by the case author.
pub fn scope(
    chain: &Chain,
    caps: Vec<Capability>,
    remaining_budget: u64,
    remaining_depth: u64,
) -> Scope {
    Scope {
        capabilities: caps,
        remaining: remaining_budget,
        chain_depth: chain.authority.chain_depth + chain.attenuations.len() as u64,
        max_chain_depth: chain
            .attenuations
            .iter()
            .rev()
            .find_map(|a| a.max_chain_depth)
            .unwrap_or(chain.authority.max_chain_depth),
        remaining_chain_depth: remaining_depth,
        contract_id: chain.last_contract_id(),
        delegation_id: chain.last_delegation_id(),
    }
}

/// Expect `dct.verify` to grant `s`.
pub fn ok(s: &Scope) -> Expectation {
    Expectation::valid(s.output())
}

/// Expect `dct.verify` to deny with `code` at step `step` of §10.1.
pub fn deny(code: &str, step: &str) -> Expectation {
    Expectation::invalid(code, &format!("10.1/{step}"))
}

/// Adds a `dct.verify` case of `chain`'s token under `ctx`.
#[allow(clippy::too_many_arguments)] // Mirrors the case's fields one for one.
pub fn verify(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    flags: &[&str],
    chain: &Chain,
    ctx: &Ctx,
    expect: Expectation,
) {
    verify_token(g, n, desc, reqs, flags, chain.serialized(), ctx, expect);
}

/// Adds a `dct.verify` case of `token` (any JSON value, so malformed tokens can be written)
/// under `ctx`.
#[allow(clippy::too_many_arguments)] // Mirrors the case's fields one for one.
pub fn verify_token(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    flags: &[&str],
    token: Value,
    ctx: &Ctx,
    expect: Expectation,
) {
    g.case(
        n,
        desc,
        reqs,
        flags,
        VERIFY,
        verify_input(token, ctx),
        expect,
    );
}

// ---------------------------------------------------------------------------------------------
// Data-table rows of `dct.verify` cases (`data/tables/dct_verify.json`)

/// A chain described by data: `root` changes the default authority, each of `atts` appends an
/// attenuation by the current delegatee to `to` (a key name; default: the next of
/// [`delegatees`], alice → bob → carol …) and changes it. Members are the token's (camelCase);
/// capabilities are `[namespace, action, resource]` triples; `{"key": name}` (with an optional
/// `suffix`) is that key's principal id.
#[derive(Deserialize, Default, Debug)]
pub struct ChainSpec {
    #[serde(default)]
    root: Map<String, Value>,
    #[serde(default)]
    atts: Vec<Map<String, Value>>,
}

impl ChainSpec {
    /// The chain, every block signed by the key its signer field names.
    pub fn build(&self, k: &Keys) -> Chain {
        let mut c = Chain::root(k).with_authority(|a| *a = changed(a, &self.root, k));
        let ds = delegatees(k);
        for (i, att) in self.atts.iter().enumerate() {
            let to = match att.get("to").and_then(Value::as_str) {
                Some(name) => key(k, name).clone(),
                None => ds.get(i + 1).cloned().unwrap_or_else(|| k.mallory.clone()),
            };
            c = c.delegate(&to, |a| *a = changed(a, att, k));
        }
        c
    }
}

/// `block` with the members of `changes` (but `to`) set.
#[allow(clippy::panic)] // A row the token types refuse is a bug in the table: stop with its members.
pub fn changed<T: Serialize + DeserializeOwned>(
    block: &T,
    changes: &Map<String, Value>,
    k: &Keys,
) -> T {
    let mut v = serde_json::to_value(block).unwrap_or_default();
    for (member, x) in changes.iter().filter(|(m, _)| *m != "to") {
        v[member] = match (member.as_str(), x) {
            ("capabilities" | "allowedCapabilities", Value::Array(cells)) => cells
                .iter()
                .map(|c| json!({"namespace": c[0], "action": c[1], "resource": c[2]}))
                .collect(),
            (_, Value::Object(m)) if m.contains_key("key") => {
                let name = m["key"].as_str().unwrap_or_default();
                let suffix = m.get("suffix").and_then(Value::as_str).unwrap_or_default();
                json!(format!("{}{suffix}", key(k, name).principal))
            }
            _ => x.clone(),
        };
    }
    serde_json::from_value(v).unwrap_or_else(|e| {
        panic!(
            "dct data table: {member_list:?}: {e}",
            member_list = changes.keys().collect::<Vec<_>>()
        )
    })
}

/// Changes to the default [`Ctx`] a row asks for: `now`, `root` (a key name), `spent`,
/// `request` (namespace, action, resource), `resource` (with the default namespace and action).
#[derive(Deserialize, Default, Debug)]
pub struct CtxSpec {
    now: Option<String>,
    root: Option<String>,
    spent: Option<u64>,
    request: Option<(String, String, String)>,
    resource: Option<String>,
}

impl CtxSpec {
    /// `ctx` with the changes.
    pub fn apply(&self, k: &Keys, mut ctx: Ctx) -> Ctx {
        if let Some(now) = &self.now {
            ctx = ctx.now(now);
        }
        if let Some(name) = &self.root {
            ctx = ctx.root(&key(k, name).principal);
        }
        if let Some(spent) = self.spent {
            ctx = ctx.spent(spent);
        }
        if let Some((ns, action, resource)) = &self.request {
            ctx = ctx.request(ns, action, resource);
        }
        if let Some(resource) = &self.resource {
            ctx = ctx.resource(resource);
        }
        ctx
    }
}

/// The verdict of a `dct.verify` row: a denial (code, step of §10.1); valid with a scope;
/// either of two denials under a decision; a denial or a scope, or a scope or a denial, under a
/// decision (the outcome the decision prefers first).
#[derive(Deserialize, Debug)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Deny(String, String),
    Valid(Granted),
    Either(String, [(String, String); 2]),
    DenyOrValid(String, (String, String), Granted),
    ValidOrDeny(String, Granted, (String, String)),
}

/// A granted scope: `caps` (default: the root's defaults), the remaining budget, D4's
/// remaining depth.
#[derive(Deserialize, Debug)]
pub struct Granted {
    caps: Option<Vec<(String, String, String)>>,
    remaining: u64,
    depth: u64,
}

impl Granted {
    fn output(&self, c: &Chain) -> Value {
        let granted = self.caps.as_ref().map_or_else(default_caps, |cells| {
            cells.iter().map(|(n, a, r)| cap(n, a, r)).collect()
        });
        scope(c, granted, self.remaining, self.depth).output()
    }
}

impl Verdict {
    /// The expectation for `c`'s token.
    pub fn expect(&self, c: &Chain) -> Expectation {
        let deny_e =
            |(code, step): &(String, String)| Expected::invalid(code, &format!("10.1/{step}"));
        let either = |d: &str, a, b| Expectation::acceptable(d, vec![a, b]);
        match self {
            Verdict::Deny(code, step) => deny(code, step),
            Verdict::Valid(s) => Expectation::valid(s.output(c)),
            Verdict::Either(d, [a, b]) => either(d, deny_e(a), deny_e(b)),
            Verdict::DenyOrValid(d, no, s) => either(d, deny_e(no), Expected::valid(s.output(c))),
            Verdict::ValidOrDeny(d, s, no) => either(d, Expected::valid(s.output(c)), deny_e(no)),
        }
    }
}

/// A `dct.verify` row of `data/tables/dct_verify.json`: its group, case id, description,
/// requirement ids, flags, the chain, the context changes, revocations and the verdict.
#[derive(Deserialize, Debug)]
pub struct VerifyRow {
    group: String,
    id: String,
    #[serde(rename = "description")]
    desc: String,
    #[serde(rename = "requirements")]
    reqs: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    chain: ChainSpec,
    #[serde(flatten)]
    ctx: CtxSpec,
    /// Revocation entries, block scope (`revoke`) or chain scope (`revoke_chain`): (block, 0 =
    /// the authority; the revoker's key name).
    #[serde(default)]
    revoke: Vec<(usize, String)>,
    #[serde(default)]
    revoke_chain: Vec<(usize, String)>,
    /// Signature entries replaced ([`forged`]): (index, the signing key, the named signer).
    #[serde(default)]
    forge: Vec<(usize, String, String)>,
    expect: Verdict,
}

/// Adds the rows of `dct_verify.json` of group `group` whose number `pick` accepts, in table
/// order.
pub fn verify_rows(g: &mut Group, k: &Keys, group: &str, pick: impl Fn(u16) -> bool) {
    for row in crate::tables::rows::<VerifyRow>("dct_verify.json") {
        if row.group != group {
            continue;
        }
        let n = g.number_of("dct_verify.json", &row.id);
        if !pick(n) {
            continue;
        }
        let c = row.chain.build(k);
        let mut ctx = row.ctx.apply(k, Ctx::new(k));
        let blocks = row.revoke.iter().map(|e| (e, false));
        for ((b, name), chain) in blocks.chain(row.revoke_chain.iter().map(|e| (e, true))) {
            ctx = ctx.revoke(revocation_entry(
                key(k, name),
                &c.revocation_ids()[*b],
                chain,
            ));
        }
        let forge: Vec<(usize, &str, &str)> = row
            .forge
            .iter()
            .map(|(j, by, named)| (*j, by.as_str(), named.as_str()))
            .collect();
        let (token, expect) = (forged(k, &c, &forge), row.expect.expect(&c));
        let reqs: Vec<&str> = row.reqs.iter().map(String::as_str).collect();
        let flags: Vec<&str> = row.flags.iter().map(String::as_str).collect();
        verify_token(g, n, &row.desc, &reqs, &flags, token, &ctx, expect);
    }
}

/// `c`'s token with signature entries replaced: (index, the key that signs the right payload,
/// the key its `signer` field names).
pub fn forged(k: &Keys, c: &Chain, with: &[(usize, &str, &str)]) -> Value {
    serialized(&c.token_with(forged_signatures(k, c, with)))
}

/// `c`'s signature entries, those of `with` replaced as [`forged`] does.
pub fn forged_signatures(k: &Keys, c: &Chain, with: &[(usize, &str, &str)]) -> Vec<TokenSignature> {
    let mut sigs = c.signatures();
    for &(j, signer_key, named) in with {
        let kp = key(k, signer_key).keypair();
        sigs[j] = if j == 0 {
            sign_authority(&kp, &c.authority)
        } else {
            sign_attenuation(&kp, &c.authority, &c.attenuations[..j])
        };
        sigs[j].signer = key(k, named).principal.clone();
    }
    sigs
}
