//! Area `advisory`: neighbouring delegation systems' invariants as advisory lint findings
//! (`spec/neighbours.md`, requirement section §A, operation `profile.lint`).
//!
//! One group per neighbour (`vorion`, `oap`, `openclaw`) plus `delegateos` for the spec's own
//! recommendations (§3.6). Every case carries the flag `Advisory` and one flag per rule it is
//! about (note: neighbour + clause). Expected findings are written from the rule definitions
//! in `spec/neighbours.md` and the construction of the case (which rules the construction
//! triggers, in rule-table order); where a token case is normatively valid, a companion
//! `dct.verify` case pins that the verdict stays `valid`: advisory findings never change it.
//!
//! The baseline token ([`clean`]) triggers no rule: capabilities without a bare `*`,
//! `maxChainDepth` 4 (5 hops), lifetime exactly 600 s around [`NOW`].

use serde_json::{json, Value};

use delegateos_reference::profiles::{self as p, Rule};
use delegateos_reference::token::Capability;

use super::dct_support::{self as ds, cap, Chain, Ctx, Scope, NOW};
use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};

const ISSUED: &str = "2026-03-01T09:55:00Z";
const EXPIRES: &str = "2026-03-01T10:05:00Z";
const CREATED: &str = "2026-03-01T09:56:00Z";
const VERIFY_REQ: &str = "DCT-VERIFY-8-SCOPE";

/// The groups, in output order: (name, description, builder).
#[rustfmt::skip]
const GROUPS: &[crate::tables::GroupDef] = &[
    ("vorion", "profile.lint: Vorion's delegation-chain safety checks (no self-delegation, no \
        circular delegation, maximum depth 5) as advisory findings.", vorion),
    ("oap", "profile.lint: OAP RFC 0004 (depth ceiling 5, short expiry, constrained sub-agent \
        tokens) as advisory findings.", oap),
    ("openclaw", "profile.lint: OpenClaw's CONFIRM / STOP / RECEIPT invariants as advisory findings.", openclaw),
    ("delegateos", "profile.lint: the spec's own lifetime recommendations (§3.6) and issue-time sanity \
        as advisory findings; malformed inputs.", delegateos),
];

/// Builds the `advisory` area.
pub fn build(area: &mut Area) {
    crate::tables::build_groups(area, GROUPS);
}

fn flag_name(rule: &Rule) -> String {
    rule.id
        .split('-')
        .map(|part| {
            let lower = part.to_ascii_lowercase();
            let mut c = lower.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Defines `Advisory` and one flag per rule in `g`.
fn define_flags(g: &mut Group, neighbour: &str) {
    g.define_flag(
        "Advisory",
        "WEAK_PARAMS",
        neighbour,
        "An advisory case: a neighbouring system's invariant (or a spec recommendation) checked \
         by profile.lint. Run only under `--profile strict`; reported in its own section.",
        "None normatively (the dct.verify verdict is unchanged); the token or chain would be \
         refused or flagged by the neighbour.",
    );
    for rule in p::RULES {
        g.define_flag(
            &flag_name(rule),
            "WEAK_PARAMS",
            &format!("{}: {}", rule.neighbour, rule.clause),
            rule.summary,
            &format!("Finding {} ({}).", rule.id, rule.severity.as_str()),
        );
    }
}

fn finding(rule: &Rule) -> Value {
    json!({
        "rule": rule.id,
        "neighbour": rule.neighbour,
        "clause": rule.clause,
        "severity": rule.severity.as_str(),
    })
}

fn findings(rules: &[Rule]) -> Expectation {
    Expectation::valid(json!({ "findings": rules.iter().map(finding).collect::<Vec<_>>() }))
}

/// Adds a `profile.lint` case over `input` citing `about` (and flagged with each).
fn lint(g: &mut Group, n: u16, desc: &str, about: &[Rule], input: Value, expect: &[Rule]) {
    let mut reqs: Vec<&str> = about.iter().map(|r| r.id).collect();
    reqs.dedup();
    let flags: Vec<String> = std::iter::once("Advisory".to_owned())
        .chain(about.iter().map(flag_name))
        .collect();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let expect = findings(expect);
    g.case(n, desc, &reqs, &flags, "profile.lint", input, expect);
}

/// A `dct.verify` companion: the normative verdict stays `valid`.
fn verify_valid(g: &mut Group, n: u16, desc: &str, about: &[Rule], chain: &Chain, keys: &Keys) {
    let mut reqs: Vec<&str> = about.iter().map(|r| r.id).collect();
    reqs.push(VERIFY_REQ);
    let flags: Vec<String> = std::iter::once("Advisory".to_owned())
        .chain(about.iter().map(flag_name))
        .collect();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let expect = Expectation::valid(scope(chain));
    let input = ds::verify_input(chain.serialized(), &Ctx::new(keys));
    g.case(n, desc, &reqs, &flags, "dct.verify", input, expect);
}

/// The AuthorizedScope of a chain whose every block is valid, from its construction (D4).
fn scope(c: &Chain) -> Value {
    let a = &c.authority;
    let mut caps: Vec<Capability> = a.capabilities.clone();
    let mut budget = a.max_budget_microcents;
    let mut remaining = a.max_chain_depth - a.chain_depth;
    for att in &c.attenuations {
        if let Some(x) = &att.allowed_capabilities {
            caps = x.clone();
        }
        if let Some(b) = att.max_budget_microcents {
            budget = b;
        }
        remaining = att.max_chain_depth.unwrap_or(remaining - 1);
    }
    Scope {
        capabilities: caps,
        remaining: budget,
        chain_depth: a.chain_depth + c.attenuations.len() as u64,
        // §10.1 step 8: effectiveMaxDepth, the last value set, else the authority's.
        max_chain_depth: c
            .attenuations
            .iter()
            .rev()
            .find_map(|att| att.max_chain_depth)
            .unwrap_or(a.max_chain_depth),
        remaining_chain_depth: remaining,
        contract_id: c.last_contract_id(),
        delegation_id: c.last_delegation_id(),
    }
    .output()
}

/// The baseline token: no rule fires.
fn clean(keys: &Keys) -> Chain {
    Chain::root(keys)
        .caps(vec![
            cap("docs", "read", "/project/**"),
            cap("docs", "write", "/project/drafts/*"),
        ])
        .with_authority(|a| {
            a.max_chain_depth = 4;
            a.issued_at = ISSUED.into();
            a.expires_at = EXPIRES.into();
        })
}

/// Narrows the budget by one (a real narrowing) on the way to `to`.
fn hop(c: Chain, to: &Key) -> Chain {
    let budget = c
        .attenuations
        .iter()
        .rev()
        .find_map(|a| a.max_budget_microcents)
        .unwrap_or(c.authority.max_budget_microcents);
    c.delegate(to, |a| a.max_budget_microcents = Some(budget - 1))
}

fn tok(c: &Chain) -> Value {
    json!({ "token": c.serialized() })
}

/// Delegation records for the prefixes of `c` (record i holds the root plus i attenuations).
fn delegations(c: &Chain, keys: &Keys) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for i in 0..=c.attenuations.len() {
        let mut prefix = c.clone();
        prefix.attenuations.truncate(i);
        let (parent, from) = match out.last() {
            None => ("del_000000000000".to_owned(), keys.root.principal.clone()),
            Some(prev) => (
                prev["id"].as_str().unwrap_or_default().to_owned(),
                prev["to"].as_str().unwrap_or_default().to_owned(),
            ),
        };
        out.push(json!({
            "id": prefix.last_delegation_id(),
            "parentId": parent,
            "from": from,
            "to": prefix.current_delegatee(),
            "contractId": prefix.last_contract_id(),
            "dct": prefix.serialized(),
            "depth": i,
            "status": "active",
            "createdAt": CREATED,
        }));
    }
    out
}

fn set(mut v: Value, k: &str, x: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.insert(k.to_owned(), x);
    }
    v
}

fn chain_input(ds_: Vec<Value>) -> Value {
    json!({ "delegations": ds_ })
}

fn three(keys: &Keys) -> Chain {
    let c = hop(clean(keys), &keys.bob);
    hop(c, &keys.carol)
}

/// What a case checks: the findings of `profile.lint` on a token, on delegation records or on
/// a token at a given `now` (the rules expected), or that `dct.verify` still accepts a token.
enum Check<T: 'static> {
    Token(fn(&T) -> &Chain, &'static [Rule]),
    Records(fn(&T) -> &Vec<Value>, &'static [Rule]),
    /// Lint a token with this `now`.
    TokenAt(fn(&T) -> &Chain, &'static str, &'static [Rule]),
    Verify(fn(&T) -> &Chain),
}

/// Number, description, the rules the case is about, check.
type AdvRow<T> = (u16, &'static str, &'static [Rule], Check<T>);

fn adv_rows<T>(g: &mut Group, keys: &Keys, x: &T, rows: &[AdvRow<T>]) {
    for (n, desc, about, check) in rows {
        match check {
            Check::Token(chain, expect) => lint(g, *n, desc, about, tok(chain(x)), expect),
            Check::Records(records, expect) => {
                lint(g, *n, desc, about, chain_input(records(x).clone()), expect);
            }
            Check::TokenAt(chain, now, expect) => {
                let input = json!({"token": chain(x).serialized(), "now": now});
                lint(g, *n, desc, about, input, expect);
            }
            Check::Verify(chain) => verify_valid(g, *n, desc, about, chain(x), keys),
        }
    }
}

/// The tokens and delegation records of the `vorion` cases.
struct Vorion {
    c: Chain,
    self_root: Chain,
    self_att: Chain,
    cyc: Chain,
    back: Chain,
    d4: Chain,
    d5: Chain,
    offset: Chain,
    ch: Vec<Value>,
    selfd: Vec<Value>,
    circ: Vec<Value>,
    long: Vec<Value>,
    at_max: Vec<Value>,
}

fn vorion_fixture(keys: &Keys) -> Vorion {
    let c = clean(keys);
    let self_root = clean(keys).with_authority(|a| a.delegatee = keys.root.principal.clone());
    let self_att = hop(clean(keys), &keys.alice);
    let cyc = hop(hop(clean(keys), &keys.bob), &keys.alice);
    let back = hop(clean(keys), &keys.root);
    let ds4 = ds::delegatees(keys);
    let deep = |n: usize, max: u64| {
        let mut c = clean(keys).with_authority(|a| a.max_chain_depth = max);
        for k in ds4.iter().skip(1).take(n) {
            c = hop(c, k);
        }
        c
    };
    let d4 = deep(4, 4);
    let d5 = deep(5, 5);
    let offset = clean(keys).with_authority(|a| {
        a.chain_depth = 4;
        a.max_chain_depth = 4;
    });
    let offset = hop(offset.with_authority(|a| a.max_chain_depth = 5), &keys.bob);
    // Chains of §8.1 delegations.
    let ch = delegations(&three(keys), keys);
    let mut selfd = ch.clone();
    selfd[1] = set(selfd[1].clone(), "to", json!(keys.alice.principal));
    let mut circ = ch.clone();
    circ[2] = set(circ[2].clone(), "to", json!(keys.alice.principal));
    let long = delegations(&deep(5, 5), keys);
    let at_max = delegations(&deep(4, 4), keys);
    Vorion {
        c,
        self_root,
        self_att,
        cyc,
        back,
        d4,
        d5,
        offset,
        ch,
        selfd,
        circ,
        long,
        at_max,
    }
}

#[rustfmt::skip]
const VORION: &[AdvRow<Vorion>] = &[
    (1, "the baseline token (root → alice, 5 hops allowed, 600 s) has no finding", &[p::SELF_DELEGATION, p::CIRCULAR_DELEGATION, p::VORION_MAX_DEPTH], Check::Token(|x| &x.c, &[])),
    (2, "a root token issued to its own issuer is a self-delegation", &[p::SELF_DELEGATION], Check::Token(|x| &x.self_root, &[p::SELF_DELEGATION])),
    (3, "a root token issued to its own issuer still verifies (advisory only)", &[p::SELF_DELEGATION], Check::Verify(|x| &x.self_root)),
    (4, "alice attenuates to alice: self-delegation in an attenuation, not a cycle", &[p::SELF_DELEGATION, p::CIRCULAR_DELEGATION], Check::Token(|x| &x.self_att, &[p::SELF_DELEGATION])),
    (5, "alice → alice still verifies", &[p::SELF_DELEGATION], Check::Verify(|x| &x.self_att)),
    (6, "root → alice → bob → alice: alice appears twice (circular delegation)", &[p::CIRCULAR_DELEGATION], Check::Token(|x| &x.cyc, &[p::CIRCULAR_DELEGATION])),
    (7, "root → alice → bob → alice still verifies", &[p::CIRCULAR_DELEGATION], Check::Verify(|x| &x.cyc)),
    (8, "root → alice → root: the chain returns to its issuer (circular)", &[p::CIRCULAR_DELEGATION], Check::Token(|x| &x.back, &[p::CIRCULAR_DELEGATION])),
    (9, "four attenuations: chainDepth 4 = 5 hops, at Vorion's default maximum (no finding)", &[p::VORION_MAX_DEPTH], Check::Token(|x| &x.d4, &[])),
    (10, "chainDepth 4 with maxChainDepth 4 verifies", &[p::VORION_MAX_DEPTH], Check::Verify(|x| &x.d4)),
    (11, "five attenuations: chainDepth 5 = 6 hops exceeds Vorion's maximum 5 (and maxChainDepth 5 exceeds OAP's ceiling)", &[p::VORION_MAX_DEPTH, p::OAP_DEPTH_CEILING], Check::Token(|x| &x.d5, &[p::VORION_MAX_DEPTH, p::OAP_DEPTH_CEILING])),
    (12, "chainDepth 5 with maxChainDepth 5 still verifies (advisory only)", &[p::VORION_MAX_DEPTH], Check::Verify(|x| &x.d5)),
    (13, "authority.chainDepth 4 plus one attenuation: effective chainDepth 5 counts (6 hops)", &[p::VORION_MAX_DEPTH, p::OAP_DEPTH_CEILING], Check::Token(|x| &x.offset, &[p::VORION_MAX_DEPTH, p::OAP_DEPTH_CEILING])),
    (14, "a three-delegation chain root → alice → bob → carol has no finding", &[p::SELF_DELEGATION, p::CIRCULAR_DELEGATION, p::VORION_MAX_DEPTH], Check::Records(|x| &x.ch, &[])),
    (15, "a delegation whose `to` equals its `from` is a self-delegation (chain input)", &[p::SELF_DELEGATION], Check::Records(|x| &x.selfd, &[p::SELF_DELEGATION])),
    (16, "a chain whose delegations go alice → bob → alice is circular (chain input)", &[p::CIRCULAR_DELEGATION], Check::Records(|x| &x.circ, &[p::CIRCULAR_DELEGATION])),
    (17, "six delegations (depth 0..5) exceed Vorion's maximum of 5 hops (chain input)", &[p::VORION_MAX_DEPTH, p::OAP_DEPTH_CEILING], Check::Records(|x| &x.long, &[p::VORION_MAX_DEPTH, p::OAP_DEPTH_CEILING])),
    (18, "five delegations (depth 0..4) are 5 hops, at Vorion's maximum (chain input, no finding)", &[p::VORION_MAX_DEPTH], Check::Records(|x| &x.at_max, &[])),
];

fn vorion(g: &mut Group, keys: &Keys) {
    define_flags(
        g,
        "Vorion delegation chains (packages/a3i/src/delegation): safety checks 1-3",
    );
    adv_rows(g, keys, &vorion_fixture(keys), VORION);
}

/// The tokens and delegation records of the `oap` cases.
struct Oap {
    m4: Chain,
    m5: Chain,
    m8: Chain,
    e601: Chain,
    frac: Chain,
    off: Chain,
    h12: Chain,
    n0: Chain,
    n1: Chain,
    n2: Chain,
    n3: Chain,
    n4: Chain,
    n5: Chain,
    n6: Chain,
    long: Chain,
}

fn oap_fixture(keys: &Keys) -> Oap {
    let m4 = clean(keys);
    let m5 = clean(keys).with_authority(|a| a.max_chain_depth = 5);
    let m8 = clean(keys).with_authority(|a| a.max_chain_depth = 8);
    let e601 = clean(keys).with_authority(|a| a.expires_at = "2026-03-01T10:05:01Z".into());
    let frac = clean(keys).with_authority(|a| a.expires_at = "2026-03-01T10:05:00.001Z".into());
    let off = clean(keys).with_authority(|a| a.expires_at = "2026-03-01T11:05:00+01:00".into());
    let h12 = Chain::root(keys)
        .caps(clean(keys).authority.capabilities.clone())
        .with_authority(|a| a.max_chain_depth = 4);
    let n0 = clean(keys).delegate(&keys.bob, |_| {});
    let caps = clean(keys).authority.capabilities.clone();
    let mut rev = caps.clone();
    rev.reverse();
    let n1 = clean(keys).delegate(&keys.bob, |a| {
        a.allowed_capabilities = Some(rev.clone());
        a.max_budget_microcents = Some(ds::BUDGET);
        a.expires_at = Some("2026-03-01T10:05:00.000Z".into());
        a.max_chain_depth = Some(3);
    });
    let n2 = clean(keys).delegate(&keys.bob, |a| a.max_chain_depth = Some(2));
    let n3 = clean(keys).delegate(&keys.bob, |a| {
        a.allowed_capabilities = Some(vec![caps[0].clone()])
    });
    let n4 = clean(keys).delegate(&keys.bob, |a| {
        a.expires_at = Some("2026-03-01T10:04:59Z".into())
    });
    let n5 = hop(clean(keys), &keys.bob).delegate(&keys.carol, |_| {});
    let n6 = clean(keys).delegate(&keys.bob, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/a/**")])
    });
    let n6 = n6.delegate(&keys.carol, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/a/**")])
    });
    let long = Chain::root(keys).caps(caps.clone()).with_authority(|a| {
        a.max_chain_depth = 4;
        a.expires_at = "2026-03-02T00:00:01Z".into();
    });
    Oap {
        m4,
        m5,
        m8,
        e601,
        frac,
        off,
        h12,
        n0,
        n1,
        n2,
        n3,
        n4,
        n5,
        n6,
        long,
    }
}

#[rustfmt::skip]
const OAP: &[AdvRow<Oap>] = &[
    (1, "maxChainDepth 4 allows 5 hops: at OAP's recommended ceiling (no finding)", &[p::OAP_DEPTH_CEILING], Check::Token(|x| &x.m4, &[])),
    (2, "maxChainDepth 5 allows 6 hops: beyond OAP's ceiling of 5", &[p::OAP_DEPTH_CEILING], Check::Token(|x| &x.m5, &[p::OAP_DEPTH_CEILING])),
    (3, "maxChainDepth 5 still verifies (advisory only)", &[p::OAP_DEPTH_CEILING], Check::Verify(|x| &x.m5)),
    (4, "maxChainDepth 8 (the kit's default root) is beyond OAP's ceiling", &[p::OAP_DEPTH_CEILING], Check::Token(|x| &x.m8, &[p::OAP_DEPTH_CEILING])),
    (5, "a root block living 601 s exceeds OAP's 600 s recommendation (info)", &[p::OAP_SHORT_EXPIRY], Check::Token(|x| &x.e601, &[p::OAP_SHORT_EXPIRY])),
    (6, "a 601 s token still verifies", &[p::OAP_SHORT_EXPIRY], Check::Verify(|x| &x.e601)),
    (7, "600.001 s is over 600 s: lifetimes compare as instants (D5)", &[p::OAP_SHORT_EXPIRY], Check::Token(|x| &x.frac, &[p::OAP_SHORT_EXPIRY])),
    (8, "an expiry with a +01:00 offset equal to 600 s after issue is not over (D5 instants)", &[p::OAP_SHORT_EXPIRY], Check::Token(|x| &x.off, &[])),
    (9, "a 12 h root block: over OAP's 600 s and the 1 h default", &[p::OAP_SHORT_EXPIRY, p::LIFETIME_DEFAULT], Check::Token(|x| &x.h12, &[p::OAP_SHORT_EXPIRY, p::LIFETIME_DEFAULT])),
    (10, "an attenuation that sets no restriction narrows nothing", &[p::OAP_NOOP_ATTENUATION], Check::Token(|x| &x.n0, &[p::OAP_NOOP_ATTENUATION])),
    (11, "an unrestricted attenuation still verifies", &[p::OAP_NOOP_ATTENUATION], Check::Verify(|x| &x.n0)),
    (12, "an attenuation restating every effective value (capabilities reordered, same budget, same expiry instant, maxChainDepth = remaining − 1) narrows nothing", &[p::OAP_NOOP_ATTENUATION], Check::Token(|x| &x.n1, &[p::OAP_NOOP_ATTENUATION])),
    (13, "an attenuation lowering only maxChainDepth below remaining − 1 narrows something", &[p::OAP_NOOP_ATTENUATION], Check::Token(|x| &x.n2, &[])),
    (14, "an attenuation dropping one capability narrows something", &[p::OAP_NOOP_ATTENUATION], Check::Token(|x| &x.n3, &[])),
    (15, "an attenuation moving expiry one second earlier narrows something", &[p::OAP_NOOP_ATTENUATION], Check::Token(|x| &x.n4, &[])),
    (16, "a narrowing attenuation followed by an unrestricted one: the second is a no-op", &[p::OAP_NOOP_ATTENUATION], Check::Token(|x| &x.n5, &[p::OAP_NOOP_ATTENUATION])),
    (17, "restating the effective (already narrowed) capabilities narrows nothing", &[p::OAP_NOOP_ATTENUATION], Check::Token(|x| &x.n6, &[p::OAP_NOOP_ATTENUATION])),
    (18, "a 24 h + 1 s root block triggers OAP's expiry and both lifetime recommendations", &[p::OAP_SHORT_EXPIRY, p::LIFETIME_MAX, p::LIFETIME_DEFAULT], Check::Token(|x| &x.long, &[p::OAP_SHORT_EXPIRY, p::LIFETIME_MAX, p::LIFETIME_DEFAULT])),
];

fn oap(g: &mut Group, keys: &Keys) {
    define_flags(
        g,
        "OAP RFC 0004 Sub Agent Delegation: §3.5 depth limits, §5 security considerations",
    );
    adv_rows(g, keys, &oap_fixture(keys), OAP);
}

/// The tokens and delegation records of the `openclaw` cases.
struct Openclaw {
    empty: Chain,
    empty_att: Chain,
    star: Chain,
    dstar: Chain,
    inner: Chain,
    star_att: Chain,
    done: Vec<Value>,
    with_att: Vec<Value>,
    failed: Vec<Value>,
    stop: Vec<Value>,
    stopped: Vec<Value>,
    top: Vec<Value>,
    star_done: Vec<Value>,
}

fn openclaw_fixture(keys: &Keys) -> Openclaw {
    let empty = clean(keys).caps(vec![]);
    let empty_att = clean(keys).delegate(&keys.bob, |a| a.allowed_capabilities = Some(vec![]));
    let star = clean(keys).caps(vec![
        cap("docs", "read", "/project/**"),
        cap("web", "search", "*"),
    ]);
    let dstar = clean(keys).caps(vec![cap("docs", "read", "**")]);
    let inner = clean(keys).caps(vec![cap("docs", "read", "/project/*")]);
    let star_att = star.clone().delegate(&keys.bob, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/**")]);
    });
    let ch = delegations(&three(keys), keys);
    let mut done = ch.clone();
    done[2] = set(done[2].clone(), "status", json!("completed"));
    done[2] = set(
        done[2].clone(),
        "completedAt",
        json!("2026-03-01T09:58:00Z"),
    );
    let mut with_att = done.clone();
    with_att[2] = set(
        with_att[2].clone(),
        "attestationId",
        json!("att_00000000a001"),
    );
    let mut failed = ch.clone();
    failed[1] = set(failed[1].clone(), "status", json!("failed"));
    let mut stop = ch.clone();
    stop[1] = set(stop[1].clone(), "status", json!("revoked"));
    let mut stopped = stop.clone();
    stopped[2] = set(stopped[2].clone(), "status", json!("revoked"));
    let mut top = ch.clone();
    top[2] = set(top[2].clone(), "status", json!("revoked"));
    // Findings come in rule-table order (spec/operations.md §11a), not in the order a linter
    // meets them: the chain's missing receipt is found before the leaf token's bare `*`, and
    // the rule table lists UNBOUNDED-TARGET first.
    let mut star_done = delegations(&hop(hop(star.clone(), &keys.bob), &keys.carol), keys);
    star_done[2] = set(star_done[2].clone(), "status", json!("completed"));
    star_done[2] = set(
        star_done[2].clone(),
        "completedAt",
        json!("2026-03-01T09:58:00Z"),
    );
    Openclaw {
        empty,
        empty_att,
        star,
        dstar,
        inner,
        star_att,
        done,
        with_att,
        failed,
        stop,
        stopped,
        top,
        star_done,
    }
}

#[rustfmt::skip]
const OPENCLAW: &[AdvRow<Openclaw>] = &[
    (1, "a root token with no capabilities confirms nothing", &[p::EMPTY_SCOPE], Check::Token(|x| &x.empty, &[p::EMPTY_SCOPE])),
    (2, "an attenuation with an empty allowedCapabilities grants nothing", &[p::EMPTY_SCOPE], Check::Token(|x| &x.empty_att, &[p::EMPTY_SCOPE])),
    (3, "a root capability with the bare `*` resource names no target (info)", &[p::UNBOUNDED_TARGET], Check::Token(|x| &x.star, &[p::UNBOUNDED_TARGET])),
    (4, "a bare `*` capability still verifies", &[p::UNBOUNDED_TARGET], Check::Verify(|x| &x.star)),
    (5, "`**` alone is not the bare `*` (the rule names exactly `*`)", &[p::UNBOUNDED_TARGET], Check::Token(|x| &x.dstar, &[])),
    (6, "`*` as one segment of a longer pattern is bounded (no finding)", &[p::UNBOUNDED_TARGET], Check::Token(|x| &x.inner, &[])),
    (7, "a bare `*` at the root is reported even when an attenuation drops it (stripping, D14)", &[p::UNBOUNDED_TARGET], Check::Token(|x| &x.star_att, &[p::UNBOUNDED_TARGET])),
    (8, "a completed delegation without attestationId has no receipt", &[p::RECEIPT_MISSING], Check::Records(|x| &x.done, &[p::RECEIPT_MISSING])),
    (9, "a completed delegation naming its attestation has a receipt (no finding)", &[p::RECEIPT_MISSING], Check::Records(|x| &x.with_att, &[])),
    (10, "a failed delegation without attestationId has no receipt either", &[p::RECEIPT_MISSING], Check::Records(|x| &x.failed, &[p::RECEIPT_MISSING])),
    (11, "a delegation below a revoked one is still active: the stop did not cover the chain", &[p::STOP_CHAIN], Check::Records(|x| &x.stop, &[p::STOP_CHAIN])),
    (12, "every delegation below the revoked one is revoked too (no finding)", &[p::STOP_CHAIN], Check::Records(|x| &x.stopped, &[])),
    (13, "revoking the leaf leaves its active ancestors alone (no finding: stop applies downward)", &[p::STOP_CHAIN], Check::Records(|x| &x.top, &[])),
    (14, "a completed delegation without receipt whose token has a bare `*`: both findings, in \
         rule-table order", &[p::UNBOUNDED_TARGET, p::RECEIPT_MISSING], Check::Records(|x| &x.star_done, &[p::UNBOUNDED_TARGET, p::RECEIPT_MISSING])),
];

fn openclaw(g: &mut Group, keys: &Keys) {
    define_flags(
        g,
        "OpenClaw delegation invariants (draft): CONFIRM, STOP/TAKEOVER, RECEIPT",
    );
    adv_rows(g, keys, &openclaw_fixture(keys), OPENCLAW);
}

/// The tokens and delegation records of the `delegateos` cases.
struct Delegateos {
    h1: Chain,
    h1s: Chain,
    h24: Chain,
    h24s: Chain,
    year: Chain,
    zero: Chain,
    neg: Chain,
    future: Chain,
    base: Chain,
}

fn delegateos_fixture(keys: &Keys) -> Delegateos {
    let life = |issued: &str, expires: &str| {
        let (i, e) = (issued.to_owned(), expires.to_owned());
        clean(keys).with_authority(move |a| {
            a.issued_at = i;
            a.expires_at = e;
        })
    };
    let h1 = life("2026-03-01T09:30:00Z", "2026-03-01T10:30:00Z");
    let h1s = life("2026-03-01T09:30:00Z", "2026-03-01T10:30:01Z");
    let h24 = life("2026-03-01T00:00:00Z", "2026-03-02T00:00:00Z");
    let h24s = life("2026-03-01T00:00:00Z", "2026-03-02T00:00:01Z");
    let year = life("2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z");
    let zero = life(NOW, NOW);
    let neg = life("2026-03-01T10:05:00Z", "2026-03-01T10:00:00Z");
    let future = life("2026-03-01T10:01:00Z", "2026-03-01T10:05:00Z");
    let base = clean(keys);
    Delegateos {
        h1,
        h1s,
        h24,
        h24s,
        year,
        zero,
        neg,
        future,
        base,
    }
}

#[rustfmt::skip]
const DELEGATEOS: &[AdvRow<Delegateos>] = &[
    (1, "exactly 1 h: not over the default (over OAP's 600 s)", &[p::LIFETIME_DEFAULT, p::OAP_SHORT_EXPIRY], Check::Token(|x| &x.h1, &[p::OAP_SHORT_EXPIRY])),
    (2, "1 h + 1 s: over the 1 h default (info)", &[p::LIFETIME_DEFAULT], Check::Token(|x| &x.h1s, &[p::OAP_SHORT_EXPIRY, p::LIFETIME_DEFAULT])),
    (3, "a token over the default lifetime still verifies", &[p::LIFETIME_DEFAULT], Check::Verify(|x| &x.h1s)),
    (4, "exactly 24 h: at the recommended maximum (default exceeded)", &[p::LIFETIME_MAX, p::LIFETIME_DEFAULT], Check::Token(|x| &x.h24, &[p::OAP_SHORT_EXPIRY, p::LIFETIME_DEFAULT])),
    (5, "24 h + 1 s: over the recommended maximum (warning)", &[p::LIFETIME_MAX], Check::Token(|x| &x.h24s, &[p::OAP_SHORT_EXPIRY, p::LIFETIME_MAX, p::LIFETIME_DEFAULT])),
    (6, "a token over the recommended maximum still verifies", &[p::LIFETIME_MAX], Check::Verify(|x| &x.h24s)),
    (7, "a one-year root block", &[p::LIFETIME_MAX], Check::Token(|x| &x.year, &[p::OAP_SHORT_EXPIRY, p::LIFETIME_MAX, p::LIFETIME_DEFAULT])),
    (8, "expiresAt equal to issuedAt: born expired (usable only at that instant)", &[p::BORN_EXPIRED], Check::Token(|x| &x.zero, &[p::BORN_EXPIRED])),
    (9, "expiresAt == issuedAt == now still verifies (expiry is strict, D5)", &[p::BORN_EXPIRED], Check::Verify(|x| &x.zero)),
    (10, "expiresAt before issuedAt: born expired", &[p::BORN_EXPIRED], Check::Token(|x| &x.neg, &[p::BORN_EXPIRED])),
    (11, "issuedAt after `now`: issued in the future", &[p::ISSUED_IN_FUTURE], Check::TokenAt(|x| &x.future, NOW, &[p::ISSUED_IN_FUTURE])),
    (12, "the same token without `now`: the issue-time rule is not evaluated", &[p::ISSUED_IN_FUTURE], Check::Token(|x| &x.future, &[])),
    (13, "issuedAt equal to `now` is not in the future", &[p::ISSUED_IN_FUTURE], Check::TokenAt(|x| &x.base, ISSUED, &[])),
    (14, "a token issued in the future still verifies (verify does not read issuedAt)", &[p::ISSUED_IN_FUTURE], Check::Verify(|x| &x.future)),
];

fn delegateos(g: &mut Group, keys: &Keys) {
    define_flags(g, "DelegateOS spec §3.6 lifecycle recommendations");
    adv_rows(g, keys, &delegateos_fixture(keys), DELEGATEOS);
    g.case(
        15,
        "a token that does not decode is malformed_token, no findings",
        &[p::SELF_DELEGATION.id],
        &["Advisory"],
        "profile.lint",
        json!({"token": {"token": "e30", "format": ds::FORMAT}}),
        Expectation::invalid("malformed_token", "10.1/1"),
    );
}
