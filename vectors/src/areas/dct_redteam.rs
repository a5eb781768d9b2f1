//! Group `dct/redteam`: verification cases found by running deliberately defective third-party
//! verifiers (`implementations/redteam/`) against the corpus. Each case closes a defect class
//! the other groups caught only by one case, or not at all:
//!
//! - a zero restriction ignored by a falsy check (`if (att.maxBudgetMicrocents)`), at every
//!   position of the chain;
//! - the attenuator compared with `authority.delegatee` as well as the current delegatee;
//! - "cross-product" capability checks, which accept when *some* capability has the namespace
//!   and action and *some other* capability matches the resource (step 7 and step 4b);
//! - a request resource treated as a pattern;
//! - leap years computed as `year % 4 == 0` (`2100-02-29` accepted);
//! - resources normalized before matching (Unicode NFC/NFKC): decision D41.
//!
//! Construction rule as in `dct.rs`: start from a valid [`Chain`], change one thing, re-sign
//! every block with the key its signer field names. Expectations come from the spec and
//! `spec/decisions.md`; the generator checks that the reference agrees.

use delegateos_reference::token::Attenuation;

use super::dct_support::{
    caps, default_caps, deny, ok, scope, verify, Cap, Chain, Ctx, BUDGET, MAX_DEPTH,
};
use super::Ids;
use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};
use crate::keys::Keys;

/// Adds group `redteam` to area `dct`.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g = area.group(
        "redteam",
        "dct.verify: defect classes found by red-team verifiers (falsy zero restrictions, cross-product capability checks, requests as patterns, leap years, resource normalization; D4, D5, D18, D20, D21, D41).",
    );
    g.define_flag(
        "ResourceNormalization",
        "AMBIGUITY",
        "D41",
        "Resources and resource patterns are opaque strings: no Unicode normalization (NFC/NFKC), no case folding, no path normalization (`.`, `..`, `//`). A matcher that normalizes and thereby matches is wrong; where normalizing would only deny, the other reading is acceptable.",
        "A normalizing verifier grants resources the grant does not name (a different code point sequence, a different path).",
    );
    rows(g, &k, CASES);
}

/// One `dct.verify` case per row.
pub(super) fn rows(g: &mut Group, k: &Keys, rows: &[Row]) {
    for &(n, desc, reqs, flags, chain, request, verdict) in rows {
        let c = chain(k);
        let expect = verdict.expect(&c);
        verify(g, n, desc, reqs, flags, &c, &request(Ctx::new(k)), expect);
    }
}

/// Root (alice), then attenuations alice→bob, bob→carol, carol→dave with `per(i, att)`.
fn chain3(k: &Keys, per: impl Fn(usize, &mut Attenuation)) -> Chain {
    let mut c = Chain::root(k);
    for (i, to) in [&k.bob, &k.carol, &k.dave].into_iter().enumerate() {
        c = c.delegate(to, |a| per(i, a));
    }
    c
}

/// `chain3` with `change` applied to the attenuation at position `i` only.
fn at(k: &Keys, i: usize, change: fn(&mut Attenuation)) -> Chain {
    chain3(k, |j, a| {
        if j == i {
            change(a)
        }
    })
}

/// `chain3` with the attenuator of attenuation `i` replaced after the fact (each block is
/// still signed with the key its signer field names).
fn attenuator_at(k: &Keys, i: usize, who: &str) -> Chain {
    let mut c = chain3(k, |_, _| {});
    c.attenuations[i].attenuator = super::dct_support::key(k, who).principal.clone();
    c
}

/// The verdict: a denial (code, step of §10.1), or valid with the scope (capabilities —
/// `None`: the root's defaults —, remaining budget, D4's remaining depth).
#[derive(Clone, Copy)]
pub(super) enum V {
    Deny(&'static str, &'static str),
    Valid(Option<&'static [Cap]>, u64, u64),
    /// Either of two denials under a decision: (decision, [(code, step); 2]).
    Either(&'static str, [(&'static str, &'static str); 2]),
    /// A denial (code, step), or valid with the default scope (budget, depth), under a
    /// decision.
    DenyOrValid(&'static str, (&'static str, &'static str), u64, u64),
}

impl V {
    pub(super) fn expect(self, c: &Chain) -> Expectation {
        match self {
            V::Deny(code, step) => deny(code, step),
            V::Valid(cells, budget, depth) => {
                let granted = cells.map_or_else(default_caps, caps);
                ok(&scope(c, granted, budget, depth))
            }
            V::DenyOrValid(d, (code, step), budget, depth) => {
                let denied = Expected::invalid(code, &format!("10.1/{step}"));
                let granted = Expected::valid(scope(c, default_caps(), budget, depth).output());
                Expectation::acceptable(d, vec![denied, granted])
            }
            V::Either(d, [(c1, s1), (c2, s2)]) => {
                let deny_e = |code, step| Expected::invalid(code, &format!("10.1/{step}"));
                Expectation::acceptable(d, vec![deny_e(c1, s1), deny_e(c2, s2)])
            }
        }
    }
}

/// A red-team case: (number, description, requirement ids, flags, token, the request (a
/// change to the default context), verdict).
pub(super) type Row = (
    u16,
    &'static str,
    Ids,
    Ids,
    fn(&Keys) -> Chain,
    fn(Ctx) -> Ctx,
    V,
);

const BUDGET_6: V = V::Deny("budget_exceeded", "6");
const NOT_GRANTED: V = V::Deny("capability_not_granted", "7");
const VIOLATION_4A: V = V::Deny("attenuation_violation", "4a");
const VIOLATION_4B: V = V::Deny("attenuation_violation", "4b");
const MALFORMED: V = V::Deny("malformed_token", "1");
const BUDGETS: &[&str] = &["DCT-VERIFY-4C-BUDGET", "DCT-VERIFY-6-BUDGET"];
const R4A: &[&str] = &["DCT-VERIFY-4A-ATTENUATOR"];
const R4B: &[&str] = &["DCT-VERIFY-4B-CAPABILITIES"];
const R7: &[&str] = &["DCT-VERIFY-7-CAPABILITY"];
const R7_EXACT: &[&str] = &["DCT-VERIFY-7-CAPABILITY", "GLOB-EXACT"];
const RT: &[&str] = &["DCT-FORMAT-TIMESTAMPS"];
const NORM: &[&str] = &["ResourceNormalization"];
const NFC: &str = "/docs/caf\u{e9}.md";
const NFD: &str = "/docs/cafe\u{301}.md";

/// 1–19: zero restrictions (falsy checks); 20–29: attenuator; 30–49: cross-product capability
/// checks; 50–59: the request resource is a concrete string (D20); 60–69: leap years (D5);
/// 70–79: resources are opaque (D41).
#[rustfmt::skip]
const CASES: &[Row] = &[
    (1, "the first attenuation sets maxBudgetMicrocents 0 (a falsy value): with nothing spent, the zero budget denies", BUDGETS, &[],
        |k| at(k, 0, |a| a.max_budget_microcents = Some(0)), |c| c, BUDGET_6),
    (2, "the middle attenuation sets maxBudgetMicrocents 0 (a falsy value): with nothing spent, the zero budget denies", BUDGETS, &[],
        |k| at(k, 1, |a| a.max_budget_microcents = Some(0)), |c| c, BUDGET_6),
    (3, "the last attenuation sets maxBudgetMicrocents 0 (a falsy value): with nothing spent, the zero budget denies", BUDGETS, &[],
        |k| at(k, 2, |a| a.max_budget_microcents = Some(0)), |c| c, BUDGET_6),
    // maxChainDepth 0 on the first and middle attenuation, followed by one more attenuation.
    (5, "the first attenuation sets maxChainDepth 0 (a falsy value); the next attenuation goes deeper than allowed",
        &["DCT-VERIFY-4E-EXCEEDED"], &["DepthSemantics"], |k| at(k, 0, |a| a.max_chain_depth = Some(0)), |c| c,
        V::Deny("chain_depth_exceeded", "4e")),
    (6, "the middle attenuation sets maxChainDepth 0 (a falsy value); the next attenuation goes deeper than allowed",
        &["DCT-VERIFY-4E-EXCEEDED"], &["DepthSemantics"], |k| at(k, 1, |a| a.max_chain_depth = Some(0)), |c| c,
        V::Deny("chain_depth_exceeded", "4e")),
    // allowedCapabilities [] on the middle attenuation: the rest of the chain grants nothing.
    (8, "the middle attenuation sets allowedCapabilities [] (restrict to nothing, not \"inherit\"); the last one sets nothing",
        &["DCT-VERIFY-4B-NARROWED", "DCT-ATTEN-EMPTY-CAPS"], &[], |k| at(k, 1, |a| a.allowed_capabilities = Some(vec![])), |c| c,
        NOT_GRANTED),
    // Control: a zero restriction followed by a non-zero one is a widening.
    (9, "first attenuation budget 0, middle attenuation budget 1: a widening (4c), caught only if the 0 was recorded",
        &["DCT-VERIFY-4C-BUDGET"], &[], |k| chain3(k, |j, a| match j {
            0 => a.max_budget_microcents = Some(0),
            1 => a.max_budget_microcents = Some(1),
            _ => {}
        }), |c| c, V::Deny("attenuation_violation", "4c")),
    (10, "control: middle attenuation budget 1, nothing spent: allowed with 1 remaining", &["DCT-VERIFY-6-BUDGET", "DCT-VERIFY-8-SCOPE"],
        &[], |k| at(k, 1, |a| a.max_budget_microcents = Some(1)), |c| c, V::Valid(None, 1, MAX_DEPTH - 3)),
    // alice (authority.delegatee) appends an attenuation after bob and carol hold the token.
    (20, "the last attenuation is signed by authority.delegatee (alice) although the current delegatee is carol", R4A, &[],
        |k| attenuator_at(k, 2, "alice"), |c| c, VIOLATION_4A),
    (21, "alice, who already delegated to bob, delegates again from the middle of the chain (to mallory, who continues it)", R4A, &[],
        |k| {
        let mut c = attenuator_at(k, 1, "alice");
        c.attenuations[1].delegatee = k.mallory.principal.clone();
        c.attenuations[2].attenuator = k.mallory.principal.clone();
        c
    }, |c| c, VIOLATION_4A),
    (22, "the last attenuation is signed by an outsider (mallory) who saw the token", R4A, &[], |k| attenuator_at(k, 2, "mallory"),
        |c| c, VIOLATION_4A),
    (30, "request docs:write `/project/readme.md`: docs:write is granted only for `/project/drafts/*`; the resource is matched only by docs:read's `/project/**`",
        R7, &[], Chain::root, |c| c.request("docs", "write", "/project/readme.md"), NOT_GRANTED),
    (31, "request docs:read `/etc/passwd`: docs:read is granted only for `/project/**`; the resource is matched only by web:search's `*`",
        R7, &[], Chain::root, |c| c.request("docs", "read", "/etc/passwd"), NOT_GRANTED),
    (32, "request web:read `/project/readme.md`: namespace web and action read exist, but not together", &["DCT-VERIFY-7-EXACT-NS-ACTION"],
        &[], Chain::root, |c| c.request("web", "read", "/project/readme.md"), NOT_GRANTED),
    (40, "first attenuation allows docs:write `/project/secret.md`: docs:write is granted only for `/project/drafts/*` (docs:read's `/project/**` covers the resource, for another action)",
        R4B, &[], |k| at(k, 0, |a| a.allowed_capabilities = Some(caps(&[("docs", "write", "/project/secret.md")]))), |c| c, VIOLATION_4B),
    (41, "middle attenuation allows docs:read `/etc/**`: covered only by web:search's `*`", R4B, &[],
        |k| at(k, 1, |a| a.allowed_capabilities = Some(caps(&[("docs", "read", "/etc/**")]))), |c| c, VIOLATION_4B),
    (42, "last attenuation allows web:read `*`: namespace web and action read exist, but not together", R4B, &[],
        |k| at(k, 2, |a| a.allowed_capabilities = Some(caps(&[("web", "read", "*")]))), |c| c, VIOLATION_4B),
    (43, "control: middle attenuation allows docs:write `/project/drafts/a.md` (inside docs:write's `/project/drafts/*`); request it",
        &["DCT-VERIFY-4B-NARROWED", "DCT-VERIFY-7-CAPABILITY"], &["SubsetConservative"],
        |k| at(k, 1, |a| a.allowed_capabilities = Some(caps(&[("docs", "write", "/project/drafts/a.md")]))),
        |c| c.request("docs", "write", "/project/drafts/a.md"), V::Valid(Some(&[("docs", "write", "/project/drafts/a.md")]), BUDGET, MAX_DEPTH - 3)),
    (50, "request resource `/**` (a pattern that matches the text of the grant `/project/**`) is a concrete string, not a pattern", R7_EXACT,
        &[], Chain::root, |c| c.request("docs", "read", "/**"), NOT_GRANTED),
    (51, "request resource `**` is a concrete string, not a pattern", R7_EXACT, &[], Chain::root, |c| c.request("docs", "read", "**"),
        NOT_GRANTED),
    (52, "request resource `/project/**` for docs:write (granted only `/project/drafts/*`, whose text `/project/**` matches) is a concrete string, not a pattern",
        R7_EXACT, &[], Chain::root, |c| c.request("docs", "write", "/project/**"), NOT_GRANTED),
    (60, "authority.expiresAt `2100-02-29`: 2100 is not a leap year (divisible by 100, not by 400)", RT, &[],
        |k| Chain::root(k).with_authority(|a| a.expires_at = "2100-02-29T00:00:00Z".into()), |c| c, MALFORMED),
    (61, "attenuation expiresAt `1900-02-29`: 1900 is not a leap year (an implementation that accepts it reports `expired`)", RT, &[],
        |k| Chain::root(k).delegate(&k.bob, |a| a.expires_at = Some("1900-02-29T00:00:00Z".into())), |c| c, MALFORMED),
    (62, "control: authority.expiresAt `2400-02-29` (divisible by 400: a leap year) is valid", &["DCT-FORMAT-TIMESTAMPS", "DCT-VERIFY-8-SCOPE"],
        &[], |k| Chain::root(k).with_authority(|a| a.expires_at = "2400-02-29T00:00:00Z".into()), |c| c, V::Valid(None, BUDGET, MAX_DEPTH)),
    (63, "authority.issuedAt `2100-02-29` (not a leap year): malformed even though issuedAt is not compared with now", RT, &[],
        |k| Chain::root(k).with_authority(|a| a.issued_at = "2100-02-29T00:00:00Z".into()), |c| c, MALFORMED),
    (70, "grant `/docs/café.md` (NFC, U+00E9); request the NFD spelling (e + U+0301): a different resource", R7_EXACT, NORM,
        |k| Chain::root(k).caps(caps(&[("docs", "read", NFC)])), |c| c.resource(NFD), NOT_GRANTED),
    (71, "grant the NFD spelling; request the NFC spelling: a different resource", R7_EXACT, NORM,
        |k| Chain::root(k).caps(caps(&[("docs", "read", NFD)])), |c| c.resource(NFC), NOT_GRANTED),
    (72, "grant `/docs/file1/*`; request `/docs/file\u{ff11}/x` (FULLWIDTH DIGIT ONE, NFKC-equal to `1`)", R7_EXACT, NORM,
        |k| Chain::root(k).caps(caps(&[("docs", "read", "/docs/file1/*")])), |c| c.resource("/docs/file\u{ff11}/x"), NOT_GRANTED),
    (73, "grant `/docs/Å/**` with U+212B ANGSTROM SIGN; request U+00C5 (its NFC form)", R7_EXACT, NORM,
        |k| Chain::root(k).caps(caps(&[("docs", "read", "/docs/\u{212b}/**")])), |c| c.resource("/docs/\u{c5}/a"), NOT_GRANTED),
    (74, "control: grant and request the identical NFC text", &["GLOB-EXACT", "DCT-VERIFY-8-SCOPE"], NORM,
        |k| Chain::root(k).caps(caps(&[("docs", "read", NFC)])), |c| c.resource(NFC), V::Valid(Some(&[("docs", "read", NFC)]), BUDGET, MAX_DEPTH)),
    // Attenuation: a child pattern in another normal form is not a subset.
    (75, "root grants `/docs/café/**` (NFC); the attenuation allows the NFD spelling: not a narrowing", R4B, NORM,
        |k| Chain::root(k).caps(caps(&[("docs", "read", "/docs/caf\u{e9}/**")]))
            .delegate(&k.bob, |a| a.allowed_capabilities = Some(caps(&[("docs", "read", "/docs/cafe\u{301}/**")]))),
        |c| c.resource("/docs/cafe\u{301}/a"), VIOLATION_4B),
];
