//! Area `dct`: DCT creation, attenuation, inspection, revocation ids and verification
//! (spec §3, §10.1; decisions D4, D5, D7, D18, D20, D21, D23, D24).
//!
//! Construction rule: every negative case starts from a valid chain built with
//! [`Chain`](super::dct_support::Chain), changes ONE thing (or, in `precedence`, adds faults
//! one by one) and re-signs every block with the key its signer field names, so only the
//! intended check can fail. Every expectation is written from the construction, the spec and
//! `spec/decisions.md` — never recorded from the reference.
//!
//! The attack groups (forged, malformed, revoked) are in `dct_attacks.rs`.

use serde::Deserialize;
use serde_json::{json, Map, Value};

use delegateos_reference::token::{Attenuation, Authority};

use super::dct_support::{
    caps, caps_json, changed, default_caps, deny, encode_bytes, forged, forged_signatures, key, ok,
    revocation_entry, scope, serialized, verify, verify_rows, verify_token, Cap, Chain, ChainSpec,
    Ctx, BUDGET, EXPIRES_AT, MAX_DEPTH,
};
use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};
use crate::keys::Keys;
use crate::tables::Ids;

/// The groups, in output order: (name, description, builder).
#[rustfmt::skip]
const GROUPS: &[crate::tables::GroupDef] = &[
    ("create", "dct.create: exact token bytes for several parameter sets, and refusals (§3.3, D23).", build_create),
    ("attenuate", "dct.attenuate: exact token bytes, and every refusal: attenuator, widening, depth (§3.4, D4, D23).", build_attenuate),
    ("inspect", "dct.inspect: decoding only, no signature or chain checks (D24).", build_inspect),
    ("revocation-ids", "dct.revocation_ids: exact revocation id of every block, authority first (§3.5).", build_revids),
    ("valid", "dct.verify: valid chains of length 0..8 and every capability shape, with the exact AuthorizedScope (§10.1 step 8, D4).",
        build_valid),
    ("expanded", "dct.verify: an attenuation widening capabilities, budget, expiry or depth by one step at the first, a middle and the last position (§10.1 step 4, D3, D4, D5).",
        build_expanded),
    ("expired", "dct.verify: expiry boundaries, offsets, fractions and string-compare traps (§10.1 step 5, D5).", build_expired),
    ("budget", "dct.verify: budget boundaries (§10.1 step 6, D21).", build_budget),
    ("capability", "dct.verify: the capability request of step 7 against the effective capabilities (§10.1 step 7, §10.2, D1, D2, D20).",
        build_capability),
    ("precedence", "dct.verify: several faults at once; the first failing step of D7 decides the code.", build_precedence),
];

/// Builds the `dct` area: groups create, attenuate, inspect, revocation-ids, valid,
/// expanded, expired, budget, capability, precedence, then the attack groups.
pub fn build(area: &mut Area) {
    crate::tables::build_groups(area, GROUPS);
    super::dct_attacks::build(area);
    super::dct_redteam::build(area);
    super::dct_redteam_py::build(area);
}

// ---------------------------------------------------------------------------------------------
// Helpers

fn deny_e(code: &str, step: &str) -> Expected {
    Expected::invalid(code, &format!("10.1/{step}"))
}

/// Root, then attenuations alice→bob, bob→carol, carol→dave with `per(i, att)` applied.
fn chain3(
    k: &Keys,
    root: impl FnOnce(&mut Authority),
    per: impl Fn(usize, &mut Attenuation),
) -> Chain {
    let mut c = Chain::root(k).with_authority(root);
    for (i, to) in [&k.bob, &k.carol, &k.dave].into_iter().enumerate() {
        c = c.delegate(to, |a| per(i, a));
    }
    c
}

const POS: [&str; 3] = ["first", "middle", "last"];

fn create_params(a: &Authority) -> Value {
    json!({
        "delegatee": a.delegatee,
        "capabilities": caps_json(&a.capabilities),
        "contractId": a.contract_id,
        "delegationId": a.delegation_id,
        "parentDelegationId": a.parent_delegation_id,
        "chainDepth": a.chain_depth,
        "maxChainDepth": a.max_chain_depth,
        "maxBudgetMicrocents": a.max_budget_microcents,
        "expiresAt": a.expires_at,
        "issuedAt": a.issued_at,
    })
}

fn attenuate_params(a: &Attenuation) -> Value {
    let mut p = json!({
        "delegatee": a.delegatee,
        "delegationId": a.delegation_id,
        "contractId": a.contract_id,
    });
    if let Some(caps) = &a.allowed_capabilities {
        p["allowedCapabilities"] = caps_json(caps);
    }
    if let Some(b) = a.max_budget_microcents {
        p["maxBudgetMicrocents"] = json!(b);
    }
    if let Some(t) = &a.expires_at {
        p["expiresAt"] = json!(t);
    }
    if let Some(d) = a.max_chain_depth {
        p["maxChainDepth"] = json!(d);
    }
    p
}

// ---------------------------------------------------------------------------------------------
// create

/// What a `dct.create` or `dct.attenuate` case expects: the exact token, one of two readings
/// (`TokenOr`: the token first, then the refusal; `RefuseOr`: the refusal first; `Refusals`:
/// either of two refusals), or a refusal. Refusals are (code, stage).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Out {
    Token,
    TokenOr(String, String, String),
    RefuseOr(String, String, String),
    Refusals(String, [(String, String); 2]),
    Refuse(String, String),
}

impl Out {
    /// The expectation, given the token the construction produces.
    fn expect(&self, token: Value) -> Expectation {
        let out = json!({ "token": token });
        let token = || Expected::valid(out.clone());
        match self {
            Out::Token => Expectation::valid(out),
            Out::TokenOr(d, code, stage) => {
                Expectation::acceptable(d, vec![token(), Expected::invalid(code, stage)])
            }
            Out::RefuseOr(d, code, stage) => {
                Expectation::acceptable(d, vec![Expected::invalid(code, stage), token()])
            }
            Out::Refusals(d, [(c1, s1), (c2, s2)]) => Expectation::acceptable(
                d,
                vec![Expected::invalid(c1, s1), Expected::invalid(c2, s2)],
            ),
            Out::Refuse(code, stage) => Expectation::invalid(code, stage),
        }
    }
}

/// A row of `data/tables/dct_issue.json`: a `dct.create` case (the default authority with the
/// members of `authority` changed, signed with the seed of `issuer`), or a `dct.attenuate`
/// case (`parent`, default the root token, with an attenuation to `to` appended and the
/// members of `attenuation` changed, signed with the seed of `seed`). A valid case expects the
/// token the construction produces.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IssueRow {
    op: String,
    id: String,
    #[serde(rename = "description")]
    desc: String,
    #[serde(rename = "requirements")]
    reqs: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    #[serde(default)]
    issuer: String,
    #[serde(default)]
    authority: Map<String, Value>,
    #[serde(default)]
    parent: ChainSpec,
    #[serde(default)]
    seed: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    attenuation: Map<String, Value>,
    expect: Out,
}

/// Adds the `op` rows of `dct_issue.json` numbered in `numbers`, in table order.
fn issue_rows(g: &mut Group, k: &Keys, op: &str, numbers: std::ops::Range<u16>) {
    for row in crate::tables::rows::<IssueRow>("dct_issue.json") {
        if row.op != op || !numbers.contains(&g.number_of("dct_issue.json", &row.id)) {
            continue;
        }
        let (input, token) = if op == "create" {
            let c = Chain::root(k).with_authority(|a| *a = changed(a, &row.authority, k));
            let params = create_params(&c.authority);
            (
                json!({ "issuerSeed": key(k, &row.issuer).seed_hex(), "params": params }),
                c.serialized(),
            )
        } else {
            let parent = row.parent.build(k);
            let child = parent
                .clone()
                .delegate(key(k, &row.to), |a| *a = changed(a, &row.attenuation, k));
            let params = attenuate_params(&child.attenuations[child.attenuations.len() - 1]);
            let seed = key(k, &row.seed).seed_hex();
            (
                json!({ "token": parent.serialized(), "attenuatorSeed": seed, "params": params }),
                child.serialized(),
            )
        };
        let reqs: Vec<&str> = row.reqs.iter().map(String::as_str).collect();
        let flags: Vec<&str> = row.flags.iter().map(String::as_str).collect();
        g.case(
            g.number_of("dct_issue.json", &row.id),
            &row.desc,
            &reqs,
            &flags,
            &format!("dct.{op}"),
            input,
            row.expect.expect(token),
        );
    }
}

fn build_create(g: &mut Group, k: &Keys) {
    issue_rows(g, k, "create", 0..10000);
}
// ---------------------------------------------------------------------------------------------
// attenuate

/// The root token attenuated once, alice → bob.
fn one(k: &Keys) -> Chain {
    Chain::root(k).delegate(&k.bob, |_| {})
}

fn build_attenuate(g: &mut Group, k: &Keys) {
    let root = Chain::root(k);
    issue_rows(g, k, "attenuate", 0..12);
    // The parent's authority signature is mallory's; attenuate has no root key and does not
    // check it (D23): the new block and signature are appended to the bytes as given.
    let (child, by_mallory) = (one(k), &[(0, "mallory", "root")]);
    let params = attenuate_params(&child.attenuations[0]);
    let input = json!({ "token": forged(k, &root, by_mallory), "attenuatorSeed": k.alice.seed_hex(), "params": params });
    let expect = Expectation::valid(json!({ "token": forged(k, &child, by_mallory) }));
    let (op, reqs) = ("dct.attenuate", &["DCT-ATTEN-APPEND"]);
    let desc = "attenuate does not verify signatures: a parent with a forged authority \
                signature is extended (D23)";
    g.case(12, desc, reqs, &[], op, input, expect);
    issue_rows(g, k, "attenuate", 13..50);
    // Step-1 faults.
    let bad = json!({ "token": "not base64url!", "format": "delegateos-sjt-v1" });
    let input = json!({ "token": bad, "attenuatorSeed": k.alice.seed_hex(), "params": params });
    let expect = Expectation::invalid("malformed_token", "3.4/1");
    let (desc, reqs) = ("the token is not base64url", &["DCT-VERIFY-1-MALFORMED"]);
    g.case(50, desc, reqs, &[], op, input, expect);
    issue_rows(g, k, "attenuate", 51..10000);
}

// ---------------------------------------------------------------------------------------------
// inspect and revocation ids

/// A row of `data/tables/dct_decode.json`: a token `dct.inspect` decodes or whose
/// `dct.revocation_ids` are asked: the chain, with signature entries replaced (`forge`: index,
/// signing key, named signer) or the last one dropped (neither operation checks signatures).
/// Expected: the decoded token (inspect) and the revocation ids of its blocks.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DecodeRow {
    op: String,
    id: String,
    #[serde(rename = "description")]
    desc: String,
    #[serde(rename = "requirements")]
    reqs: Vec<String>,
    chain: ChainSpec,
    #[serde(default)]
    forge: Vec<(usize, String, String)>,
    #[serde(default)]
    drop_last_signature: bool,
}

fn decode_rows(g: &mut Group, k: &Keys, op: &str) {
    for row in crate::tables::rows::<DecodeRow>("dct_decode.json") {
        if row.op != op {
            continue;
        }
        let c = row.chain.build(k);
        let forge: Vec<(usize, &str, &str)> = row
            .forge
            .iter()
            .map(|(j, by, named)| (*j, by.as_str(), named.as_str()))
            .collect();
        let mut sigs = forged_signatures(k, &c, &forge);
        if row.drop_last_signature {
            sigs.pop();
        }
        let t = c.token_with(sigs);
        let mut out = json!({ "revocationIds": c.revocation_ids() });
        if op == "dct.inspect" {
            out["decoded"] = serde_json::to_value(&t).unwrap_or(Value::Null);
        }
        let reqs: Vec<&str> = row.reqs.iter().map(String::as_str).collect();
        let input = json!({ "token": serialized(&t) });
        g.case(
            g.number_of("dct_decode.json", &row.id),
            &row.desc,
            &reqs,
            &[],
            op,
            input,
            Expectation::valid(out),
        );
    }
}

/// A step-1 fault `dct.inspect` or `dct.revocation_ids` reports as malformed_token: (number,
/// description, requirement ids, token).
type Step1Row = (u16, &'static str, Ids, fn(&Keys) -> Value);

#[rustfmt::skip]
const INSPECT_STEP1: &[Step1Row] = &[
    (9, "not base64url", &["DCT-INSPECT-DECODE"], |_| json!({ "token": "a+b/", "format": "delegateos-sjt-v1" })),
    (10, "wrong SerializedDCT format", &["DCT-INSPECT-DECODE", "DCT-FORMAT-SERIALIZED"],
        |k| json!({ "token": Chain::root(k).token_string(), "format": "delegateos-sjt-v2" })),
    (11, "a timestamp outside the profile is a step-1 fault", &["DCT-INSPECT-DECODE", "DCT-FORMAT-TIMESTAMPS"],
        |k| Chain::root(k).with_authority(|a| a.expires_at = "2026-03-01T12:00:00".into()).serialized()),
];

#[rustfmt::skip]
const REVOCATION_IDS_STEP1: &[Step1Row] = &[
    (10, "malformed token", &["DCT-REVID-BLOCK"], |_| json!({ "token": "", "format": "delegateos-sjt-v1" })),
];

fn step1_rows(g: &mut Group, k: &Keys, op: &str, rows: &[Step1Row]) {
    for &(n, desc, reqs, token) in rows {
        let input = json!({ "token": token(k) });
        g.case(n, desc, reqs, &[], op, input, deny("malformed_token", "1"));
    }
}

fn build_inspect(g: &mut Group, k: &Keys) {
    let root = Chain::root(k);
    decode_rows(g, k, "dct.inspect");
    step1_rows(g, k, "dct.inspect", INSPECT_STEP1);
    // The authority expires at 12:00; attenuation 0 narrows to 11:00 and attenuation 1, the
    // later one, to 10:00 (each ≤ the effective expiry before it, a valid chain). The token's
    // expiry is the earliest, 10:00: neither the authority's nor the first one set.
    let c = root
        .clone()
        .with_authority(|a| a.expires_at = "2026-03-01T12:00:00Z".into());
    let c = c.delegate(&k.bob, |a| {
        a.expires_at = Some("2026-03-01T11:00:00Z".into())
    });
    let c = c.delegate(&k.carol, |a| {
        a.expires_at = Some("2026-03-01T10:00:00Z".into())
    });
    let desc = "a chain whose later attenuation expires earlier than the earlier one (12:00, \
                11:00, then 10:00): expiresAt is the earliest, 10:00";
    let reqs = &[
        "DCT-INSPECT-EXPIRY",
        "DCT-INSPECT-DECODE",
        "DCT-REVID-ORDER",
    ];
    let (decoded, ids) = (c.decoded(), c.revocation_ids());
    let out =
        json!({ "decoded": decoded, "revocationIds": ids, "expiresAt": "2026-03-01T10:00:00Z" });
    let (input, expect) = (json!({ "token": c.serialized() }), Expectation::valid(out));
    g.case(12, desc, reqs, &[], "dct.inspect", input, expect);
}

const REVIDS: &str = "dct.revocation_ids";
const REVID_REQS: Ids = &["DCT-REVID-BLOCK", "DCT-REVID-ORDER"];

fn build_revids(g: &mut Group, k: &Keys) {
    decode_rows(g, k, REVIDS);
    let c =
        Chain::root(k).with_authority(|a| a.expires_at = "2026-03-01T13:00:00.000+01:00".into());
    let ids = Expected::valid(json!({ "revocationIds": c.revocation_ids() }));
    let expect = Expectation::acceptable("D5", vec![ids, deny_e("malformed_token", "1")]);
    let desc = "timestamps with offset and fraction are hashed as written";
    let (input, flags) = (json!({ "token": c.serialized() }), &["TimestampOffset"]);
    g.case(9, desc, REVID_REQS, flags, REVIDS, input, expect);
    step1_rows(g, k, REVIDS, REVOCATION_IDS_STEP1);
}

// ---------------------------------------------------------------------------------------------
// valid

#[rustfmt::skip]
const UNRESTRICTED_ROOT: Ids = &["DCT-VERIFY-8-SCOPE", "DCT-VERIFY-8-DEPTH", "DCT-VERIFY-8-LAST-IDS", "DCT-VERIFY-3A-ROOT-SIG"];
#[rustfmt::skip]
const UNRESTRICTED: Ids = &["DCT-VERIFY-8-SCOPE", "DCT-VERIFY-8-DEPTH", "DCT-VERIFY-8-LAST-IDS", "DCT-VERIFY-3B-ATTEN-SIG",
    "DCT-VERIFY-4E-REMAINING", "DCT-ATTEN-OMITTED"];

fn build_valid(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let root = Chain::root(k);
    // Chains of length 0..8, no optional restriction anywhere.
    for len in 0..=8usize {
        let c = root.clone().delegate_n(len);
        let remaining = MAX_DEPTH - len as u64;
        let reqs = if len == 0 {
            UNRESTRICTED_ROOT
        } else {
            UNRESTRICTED
        };
        let desc = format!(
            "chain of {len} unrestricted attenuation(s): maxChainDepth stays {MAX_DEPTH} (step \
             8's effectiveMaxDepth; {remaining} further attenuations remain under D4's countdown)"
        );
        let expect = ok(&scope(&c, default_caps(), BUDGET, remaining));
        verify(
            g,
            1 + len as u16,
            &desc,
            reqs,
            &["DepthSemantics"],
            &c,
            &ctx,
            expect,
        );
    }
    verify_rows(g, k, "valid", |n| n >= 20);
}

// ---------------------------------------------------------------------------------------------
// expanded

/// A capability widening, tried at each of the three positions: (description, parent caps,
/// child caps, request resource, extra requirement id).
type Widening = (
    &'static str,
    &'static [Cap],
    &'static [Cap],
    &'static str,
    &'static str,
);

const PROJECT: &[Cap] = &[("docs", "read", "/project/**")];

#[rustfmt::skip]
const WIDENINGS: &[Widening] = &[
    ("an extra capability", PROJECT, &[("docs", "read", "/project/**"), ("docs", "write", "/project/**")], "/project/readme.md", "SUBSET-SOUND"),
    ("another namespace", PROJECT, &[("files", "read", "/project/**")], "/project/readme.md", "SUBSET-NS-ACTION"),
    ("another action", PROJECT, &[("docs", "write", "/project/**")], "/project/readme.md", "SUBSET-NS-ACTION"),
    ("action `*`", PROJECT, &[("docs", "*", "/project/**")], "/project/readme.md", "SUBSET-NS-ACTION"),
    ("`/project/drafts/*` → `/project/drafts/**`", &[("docs", "read", "/project/drafts/*")], &[("docs", "read", "/project/drafts/**")],
        "/project/drafts/a.md", "SUBSET-CHILD-DOUBLE-STAR"),
    ("`/project/**` → `/projectX/**`", PROJECT, &[("docs", "read", "/projectX/**")], "/project/readme.md", "SUBSET-SOUND"),
    ("`/project` → `/projectfoo`", &[("docs", "read", "/project")], &[("docs", "read", "/projectfoo")], "/project", "SUBSET-SOUND"),
    ("literal → bare `*`", &[("docs", "read", "/project/readme.md")], &[("docs", "read", "*")], "/project/readme.md", "SUBSET-SOUND"),
    ("`/project/a` → `/project/a/b` (a different resource, not a narrowing)", &[("docs", "read", "/project/a")],
        &[("docs", "read", "/project/a/b")], "/project/a", "SUBSET-SOUND"),
    ("`/project/**` → `**`", PROJECT, &[("docs", "read", "**")], "/project/readme.md", "SUBSET-SOUND"),
    ("`/project/*` → `/project/*/*`", &[("docs", "read", "/project/*")], &[("docs", "read", "/project/*/*")], "/project/readme.md", "SUBSET-SOUND"),
    ("namespace case `docs` → `Docs`", PROJECT, &[("Docs", "read", "/project/**")], "/project/readme.md", "SUBSET-NS-ACTION"),
    ("resource case `/project/**` → `/Project/**`", PROJECT, &[("docs", "read", "/Project/**")], "/project/readme.md", "GLOB-EXACT"),
    ("literal `/project/*.md` → `/project/*`", &[("docs", "read", "/project/*.md")], &[("docs", "read", "/project/*")], "/project/*.md",
        "GLOB-PARTIAL-LITERAL"),
    ("`/project/*` → `/project/**`", &[("docs", "read", "/project/*")], &[("docs", "read", "/project/**")], "/project/readme.md",
        "SUBSET-CHILD-DOUBLE-STAR"),
];

const VIOLATION: &str = "attenuation_violation";

/// Expiry widenings at each position: (what, the later expiry, first case number).
#[rustfmt::skip]
const LATER_EXPIRIES: &[(&str, &str, u16)] = &[
    ("one second", "2026-03-01T12:00:01Z", 80),
    ("one millisecond", "2026-03-01T12:00:00.001Z", 83),
    ("half a second, spelled `12:00:00.5Z` (sorts before `12:00:00Z` as text)", "2026-03-01T12:00:00.5Z", 86),
];

fn build_expanded(g: &mut Group, k: &Keys) {
    expanded_capabilities(g, k);
    verify_rows(g, k, "expanded", |n| (60..80).contains(&n) || n >= 130);
    expanded_expiry(g, k);
    verify_rows(g, k, "expanded", |n| (89..130).contains(&n));
}

fn expanded_capabilities(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let v4 = |step: &str| deny(VIOLATION, step);
    for (t, &(what, parent, child, res, req)) in WIDENINGS.iter().enumerate() {
        for (pos, posname) in POS.iter().enumerate() {
            let c = chain3(
                k,
                |a| a.capabilities = caps(parent),
                |i, a| a.allowed_capabilities = Some(caps(if i == pos { child } else { parent })),
            );
            let n = 1 + (t * 3 + pos) as u16;
            let desc = format!("capability widened at the {posname} attenuation: {what}");
            let ctx = ctx.clone().resource(res);
            let reqs = &["DCT-VERIFY-4B-CAPABILITIES", "DCT-ATTEN-NARROWING", req];
            verify(g, n, &desc, reqs, &["ScopeWidening"], &c, &ctx, v4("4b"));
        }
    }
}

/// `chain3` with expiry `at` at `pos` and the root's elsewhere.
fn expiry_at(k: &Keys, pos: usize, at: &str) -> Chain {
    chain3(
        k,
        |_| {},
        |i, a| a.expires_at = Some(if i == pos { at } else { EXPIRES_AT }.into()),
    )
}

const R4D: &[&str] = &["DCT-VERIFY-4D-EXPIRY"];

fn expanded_expiry(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    for &(what, later, base) in LATER_EXPIRIES {
        for (pos, posname) in POS.iter().enumerate() {
            let c = expiry_at(k, pos, later);
            let desc = format!("expiry extended by {what} at the {posname} attenuation");
            verify(
                g,
                base + pos as u16,
                &desc,
                R4D,
                FRACTION,
                &c,
                &ctx,
                deny(VIOLATION, "4d"),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// expired

const R5: &[&str] = &["DCT-VERIFY-5-EXPIRED"];
const RB: &[&str] = &["DCT-VERIFY-5-BOUNDARY"];
const FRACTION: &[&str] = &["TimestampFraction"];
const FRACTION_BOUNDARY: &[&str] = &["TimestampFraction", "ExpiryBoundary"];

fn build_expired(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let root = Chain::root(k);
    verify_rows(g, k, "expired", |n| n < 30);
    // Fraction digits 1..=9: `12:00:00.0…1Z` is after 12:00:00Z (and sorts before it as text).
    for d in 1..=9u16 {
        let now = format!("2026-03-01T12:00:00.{}1Z", "0".repeat(usize::from(d) - 1));
        let expect = if d <= 3 {
            deny("expired", "5")
        } else {
            Expectation::acceptable(
                "D5",
                vec![
                    deny_e("expired", "5"),
                    Expected::valid(scope(&root, default_caps(), BUDGET, MAX_DEPTH).output()),
                ],
            )
        };
        let desc = format!("now {now}: {d} fraction digit(s), after the expiry instant");
        verify(
            g,
            30 + d,
            &desc,
            R5,
            FRACTION,
            &root,
            &ctx.clone().now(&now),
            expect,
        );
        let valid = || ok(&scope(&root, default_caps(), BUDGET, MAX_DEPTH));
        let zero = format!("2026-03-01T12:00:00.{}Z", "0".repeat(usize::from(d)));
        let desc = format!("now {zero}: {d} zero fraction digit(s), exactly the expiry instant");
        verify(
            g,
            40 + d,
            &desc,
            RB,
            FRACTION_BOUNDARY,
            &root,
            &ctx.clone().now(&zero),
            valid(),
        );
        let nine = format!("2026-03-01T11:59:59.{}Z", "9".repeat(usize::from(d)));
        let desc = format!("now {nine}: {d} nines, just before the expiry instant");
        verify(
            g,
            50 + d,
            &desc,
            RB,
            FRACTION,
            &root,
            &ctx.clone().now(&nine),
            valid(),
        );
    }
    verify_rows(g, k, "expired", |n| n >= 60);
}

// ---------------------------------------------------------------------------------------------
// budget

fn build_budget(g: &mut Group, k: &Keys) {
    verify_rows(g, k, "budget", |_| true);
}

// ---------------------------------------------------------------------------------------------
// capability

fn build_capability(g: &mut Group, k: &Keys) {
    verify_rows(g, k, "capability", |_| true);
}

// ---------------------------------------------------------------------------------------------
// precedence

/// 1 + 2: malformed and revoked; 2 + 3: revoked and forged; 3 + 4: forged and expanded; 4 + 5,
/// 5 + 6, 6 + 7; within step 4 (4a..4e on one attenuation), then the earlier attenuation
/// winning.
fn build_precedence(g: &mut Group, k: &Keys) {
    let root = Chain::root(k);
    let revoked = Ctx::new(k).revoke(revocation_entry(&k.root, &root.revocation_ids()[0], false));
    let token = json!({ "token": root.token_string(), "format": "delegateos-sjt-v2" });
    let (desc, flags) = (
        "wrong SerializedDCT format (step 1) and the authority revoked (step 2)",
        &["Precedence"],
    );
    verify_token(
        g,
        1,
        desc,
        &["DCT-VERIFY-ORDER"],
        flags,
        token,
        &revoked,
        deny("malformed_token", "1"),
    );
    let text = format!("{} ", super::dct_support::canonical_text(&root.signed()));
    let desc = "trailing space after the JSON (not canonical) and the authority revoked";
    let (reqs, flags) = (
        &["DCT-VERIFY-ORDER", "DCT-FORMAT-CANONICAL"],
        &["Precedence", "NonCanonicalToken"],
    );
    let either = vec![deny_e("malformed_token", "1"), deny_e("revoked", "2")];
    let expect = Expectation::acceptable("D9", either);
    verify_token(
        g,
        2,
        desc,
        reqs,
        flags,
        encode_bytes(text.as_bytes()),
        &revoked,
        expect,
    );
    verify_rows(g, k, "precedence", |n| n >= 3);
}
