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

use delegateos_reference::token::{Attenuation, Capability};

use super::dct_support::{
    cap, default_caps, deny, ok, scope, verify, Chain, Ctx, BUDGET, MAX_DEPTH,
};
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
    zero_restrictions(g, &k);
    attenuator(g, &k);
    cross_product(g, &k);
    request_as_pattern(g, &k);
    leap_years(g, &k);
    normalization(g, &k);
}

/// Root (alice), then attenuations alice→bob, bob→carol, carol→dave with `per(i, att)`.
fn chain3(k: &Keys, per: impl Fn(usize, &mut Attenuation)) -> Chain {
    let mut c = Chain::root(k);
    for (i, to) in [&k.bob, &k.carol, &k.dave].into_iter().enumerate() {
        c = c.delegate(to, |a| per(i, a));
    }
    c
}

const POS: [&str; 3] = ["first", "middle", "last"];

// ---------------------------------------------------------------------------------------------
// 1–19: zero restrictions (falsy checks)

fn zero_restrictions(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    for (i, pos) in POS.iter().enumerate() {
        let c = chain3(k, |j, a| {
            if j == i {
                a.max_budget_microcents = Some(0)
            }
        });
        verify(
            g,
            1 + i as u16,
            &format!("the {pos} attenuation sets maxBudgetMicrocents 0 (a falsy value): with nothing spent, the zero budget denies"),
            &["DCT-VERIFY-4C-BUDGET", "DCT-VERIFY-6-BUDGET"],
            &[],
            &c,
            &ctx,
            deny("budget_exceeded", "6"),
        );
    }
    // maxChainDepth 0 on the first and middle attenuation, followed by one more attenuation.
    for (i, pos) in POS.iter().take(2).enumerate() {
        let c = chain3(k, |j, a| {
            if j == i {
                a.max_chain_depth = Some(0)
            }
        });
        verify(
            g,
            5 + i as u16,
            &format!("the {pos} attenuation sets maxChainDepth 0 (a falsy value); the next attenuation goes deeper than allowed"),
            &["DCT-VERIFY-4E-EXCEEDED"],
            &["DepthSemantics"],
            &c,
            &ctx,
            deny("chain_depth_exceeded", "4e"),
        );
    }
    // allowedCapabilities [] on the middle attenuation: the rest of the chain grants nothing.
    let c = chain3(k, |j, a| {
        if j == 1 {
            a.allowed_capabilities = Some(vec![])
        }
    });
    verify(
        g,
        8,
        "the middle attenuation sets allowedCapabilities [] (restrict to nothing, not \"inherit\"); the last one sets nothing",
        &["DCT-VERIFY-4B-NARROWED", "DCT-ATTEN-EMPTY-CAPS"],
        &[],
        &c,
        &ctx,
        deny("capability_not_granted", "7"),
    );
    // Control: a zero restriction followed by a non-zero one is a widening.
    let c = chain3(k, |j, a| match j {
        0 => a.max_budget_microcents = Some(0),
        1 => a.max_budget_microcents = Some(1),
        _ => {}
    });
    verify(
        g,
        9,
        "first attenuation budget 0, middle attenuation budget 1: a widening (4c), caught only if the 0 was recorded",
        &["DCT-VERIFY-4C-BUDGET"],
        &[],
        &c,
        &ctx,
        deny("attenuation_violation", "4c"),
    );
    let c = chain3(k, |j, a| {
        if j == 1 {
            a.max_budget_microcents = Some(1)
        }
    });
    verify(
        g,
        10,
        "control: middle attenuation budget 1, nothing spent: allowed with 1 remaining",
        &["DCT-VERIFY-6-BUDGET", "DCT-VERIFY-8-SCOPE"],
        &[],
        &c,
        &ctx,
        ok(&scope(&c, default_caps(), 1, MAX_DEPTH - 3)),
    );
}

// ---------------------------------------------------------------------------------------------
// 20–29: attenuator

fn attenuator(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    // alice (authority.delegatee) appends an attenuation after bob and carol hold the token.
    let mut c = chain3(k, |_, _| {});
    c.attenuations[2].attenuator = k.alice.principal.clone();
    verify(
        g,
        20,
        "the last attenuation is signed by authority.delegatee (alice) although the current delegatee is carol",
        &["DCT-VERIFY-4A-ATTENUATOR"],
        &[],
        &c,
        &ctx,
        deny("attenuation_violation", "4a"),
    );
    let mut c = chain3(k, |_, _| {});
    c.attenuations[1].attenuator = k.alice.principal.clone();
    c.attenuations[1].delegatee = k.mallory.principal.clone();
    c.attenuations[2].attenuator = k.mallory.principal.clone();
    verify(
        g,
        21,
        "alice, who already delegated to bob, delegates again from the middle of the chain (to mallory, who continues it)",
        &["DCT-VERIFY-4A-ATTENUATOR"],
        &[],
        &c,
        &ctx,
        deny("attenuation_violation", "4a"),
    );
    let mut c = chain3(k, |_, _| {});
    c.attenuations[2].attenuator = k.mallory.principal.clone();
    verify(
        g,
        22,
        "the last attenuation is signed by an outsider (mallory) who saw the token",
        &["DCT-VERIFY-4A-ATTENUATOR"],
        &[],
        &c,
        &ctx,
        deny("attenuation_violation", "4a"),
    );
}

// ---------------------------------------------------------------------------------------------
// 30–49: cross-product capability checks

fn cross_product(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let root = Chain::root(k);
    let cng = || deny("capability_not_granted", "7");
    let r7: &[&str] = &["DCT-VERIFY-7-CAPABILITY"];
    verify(
        g,
        30,
        "request docs:write `/project/readme.md`: docs:write is granted only for `/project/drafts/*`; the resource is matched only by docs:read's `/project/**`",
        r7,
        &[],
        &root,
        &ctx.clone().request("docs", "write", "/project/readme.md"),
        cng(),
    );
    verify(
        g,
        31,
        "request docs:read `/etc/passwd`: docs:read is granted only for `/project/**`; the resource is matched only by web:search's `*`",
        r7,
        &[],
        &root,
        &ctx.clone().request("docs", "read", "/etc/passwd"),
        cng(),
    );
    verify(
        g,
        32,
        "request web:read `/project/readme.md`: namespace web and action read exist, but not together",
        &["DCT-VERIFY-7-EXACT-NS-ACTION"],
        &[],
        &root,
        &ctx.clone().request("web", "read", "/project/readme.md"),
        cng(),
    );
    let widen = |caps: Vec<Capability>, at: usize| {
        chain3(k, move |j, a| {
            if j == at {
                a.allowed_capabilities = Some(caps.clone())
            }
        })
    };
    let r4: &[&str] = &["DCT-VERIFY-4B-CAPABILITIES"];
    let av = || deny("attenuation_violation", "4b");
    verify(
        g,
        40,
        "first attenuation allows docs:write `/project/secret.md`: docs:write is granted only for `/project/drafts/*` (docs:read's `/project/**` covers the resource, for another action)",
        r4,
        &[],
        &widen(vec![cap("docs", "write", "/project/secret.md")], 0),
        &ctx,
        av(),
    );
    verify(
        g,
        41,
        "middle attenuation allows docs:read `/etc/**`: covered only by web:search's `*`",
        r4,
        &[],
        &widen(vec![cap("docs", "read", "/etc/**")], 1),
        &ctx,
        av(),
    );
    verify(
        g,
        42,
        "last attenuation allows web:read `*`: namespace web and action read exist, but not together",
        r4,
        &[],
        &widen(vec![cap("web", "read", "*")], 2),
        &ctx,
        av(),
    );
    let c = widen(vec![cap("docs", "write", "/project/drafts/a.md")], 1);
    verify(
        g,
        43,
        "control: middle attenuation allows docs:write `/project/drafts/a.md` (inside docs:write's `/project/drafts/*`); request it",
        &["DCT-VERIFY-4B-NARROWED", "DCT-VERIFY-7-CAPABILITY"],
        &["SubsetConservative"],
        &c,
        &ctx.clone().request("docs", "write", "/project/drafts/a.md"),
        ok(&scope(
            &c,
            vec![cap("docs", "write", "/project/drafts/a.md")],
            BUDGET,
            MAX_DEPTH - 3,
        )),
    );
}

// ---------------------------------------------------------------------------------------------
// 50–59: the request resource is a concrete string (D20)

fn request_as_pattern(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let root = Chain::root(k);
    let cng = || deny("capability_not_granted", "7");
    let r: &[&str] = &["DCT-VERIFY-7-CAPABILITY", "GLOB-EXACT"];
    for (n, ns, action, res, why) in [
        (50, "docs", "read", "/**", "`/**` (a pattern that matches the text of the grant `/project/**`)"),
        (51, "docs", "read", "**", "`**`"),
        (52, "docs", "write", "/project/**", "`/project/**` for docs:write (granted only `/project/drafts/*`, whose text `/project/**` matches)"),
    ] {
        verify(
            g,
            n,
            &format!("request resource {why} is a concrete string, not a pattern"),
            r,
            &[],
            &root,
            &ctx.clone().request(ns, action, res),
            cng(),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 60–69: leap years (D5)

fn leap_years(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let malformed = || deny("malformed_token", "1");
    let r: &[&str] = &["DCT-FORMAT-TIMESTAMPS"];
    let c = Chain::root(k).with_authority(|a| a.expires_at = "2100-02-29T00:00:00Z".into());
    verify(
        g,
        60,
        "authority.expiresAt `2100-02-29`: 2100 is not a leap year (divisible by 100, not by 400)",
        r,
        &[],
        &c,
        &ctx,
        malformed(),
    );
    let c = Chain::root(k).delegate(&k.bob, |a| {
        a.expires_at = Some("1900-02-29T00:00:00Z".into())
    });
    verify(
        g,
        61,
        "attenuation expiresAt `1900-02-29`: 1900 is not a leap year (an implementation that accepts it reports `expired`)",
        r,
        &[],
        &c,
        &ctx,
        malformed(),
    );
    let c = Chain::root(k).with_authority(|a| a.expires_at = "2400-02-29T00:00:00Z".into());
    verify(
        g,
        62,
        "control: authority.expiresAt `2400-02-29` (divisible by 400: a leap year) is valid",
        &["DCT-FORMAT-TIMESTAMPS", "DCT-VERIFY-8-SCOPE"],
        &[],
        &c,
        &ctx,
        ok(&scope(&c, default_caps(), BUDGET, MAX_DEPTH)),
    );
    let c = Chain::root(k).with_authority(|a| a.issued_at = "2100-02-29T00:00:00Z".into());
    verify(
        g,
        63,
        "authority.issuedAt `2100-02-29` (not a leap year): malformed even though issuedAt is not compared with now",
        r,
        &[],
        &c,
        &ctx,
        malformed(),
    );
}

// ---------------------------------------------------------------------------------------------
// 70–79: resources are opaque (D41)

fn normalization(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let cng = || deny("capability_not_granted", "7");
    let flags: &[&str] = &["ResourceNormalization"];
    let r: &[&str] = &["DCT-VERIFY-7-CAPABILITY", "GLOB-EXACT"];
    let nfc = "/docs/caf\u{e9}.md";
    let nfd = "/docs/cafe\u{301}.md";
    let c = Chain::root(k).caps(vec![cap("docs", "read", nfc)]);
    verify(
        g,
        70,
        "grant `/docs/café.md` (NFC, U+00E9); request the NFD spelling (e + U+0301): a different resource",
        r,
        flags,
        &c,
        &ctx.clone().resource(nfd),
        cng(),
    );
    let c = Chain::root(k).caps(vec![cap("docs", "read", nfd)]);
    verify(
        g,
        71,
        "grant the NFD spelling; request the NFC spelling: a different resource",
        r,
        flags,
        &c,
        &ctx.clone().resource(nfc),
        cng(),
    );
    let c = Chain::root(k).caps(vec![cap("docs", "read", "/docs/file1/*")]);
    verify(
        g,
        72,
        "grant `/docs/file1/*`; request `/docs/file\u{ff11}/x` (FULLWIDTH DIGIT ONE, NFKC-equal to `1`)",
        r,
        flags,
        &c,
        &ctx.clone().resource("/docs/file\u{ff11}/x"),
        cng(),
    );
    let c = Chain::root(k).caps(vec![cap("docs", "read", "/docs/\u{212b}/**")]);
    verify(
        g,
        73,
        "grant `/docs/Å/**` with U+212B ANGSTROM SIGN; request U+00C5 (its NFC form)",
        r,
        flags,
        &c,
        &ctx.clone().resource("/docs/\u{c5}/a"),
        cng(),
    );
    let c = Chain::root(k).caps(vec![cap("docs", "read", nfc)]);
    verify(
        g,
        74,
        "control: grant and request the identical NFC text",
        &["GLOB-EXACT", "DCT-VERIFY-8-SCOPE"],
        flags,
        &c,
        &ctx.clone().resource(nfc),
        ok(&scope(
            &c,
            vec![cap("docs", "read", nfc)],
            BUDGET,
            MAX_DEPTH,
        )),
    );
    // Attenuation: a child pattern in another normal form is not a subset.
    let c = Chain::root(k)
        .caps(vec![cap("docs", "read", "/docs/caf\u{e9}/**")])
        .delegate(&k.bob, |a| {
            a.allowed_capabilities = Some(vec![cap("docs", "read", "/docs/cafe\u{301}/**")])
        });
    verify(
        g,
        75,
        "root grants `/docs/café/**` (NFC); the attenuation allows the NFD spelling: not a narrowing",
        &["DCT-VERIFY-4B-CAPABILITIES"],
        flags,
        &c,
        &ctx.clone().resource("/docs/cafe\u{301}/a"),
        deny("attenuation_violation", "4b"),
    );
}
