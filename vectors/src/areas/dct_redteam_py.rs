//! Group `dct/redteam-py`: verification cases found by running the deliberately defective
//! Python verifier (`implementations/redteam/py-hasty/`) against the corpus. Each case closes
//! a Python-typical defect class the other groups caught only outside `dct.verify`, or not at
//! all:
//!
//! - timestamp regexes written `re.match(r"…$")`: `$` also matches before a trailing `\n`, so
//!   `"2026-03-01T12:00:00Z\n"` passes the profile check (1–9);
//! - timestamp regexes written with `\d`: in Python 3 `\d` is any Unicode decimal digit and
//!   `int()` parses them, so fullwidth or Arabic-Indic digits pass (10–19);
//! - `cap.get("resource") or "*"`: an empty resource pattern (allowed by D9, matching only the
//!   empty resource) read as "anything" (20–29);
//! - `True == 1` / `False == 0`: a boolean `covers` in a signature entry compared equal to the
//!   block index (30–39). Signature entries are not signed, so no re-signing is needed;
//! - revocations collected in a dict keyed by `revocationId`: a later, well-signed entry by
//!   the wrong revoker hides the block signer's own entry for the same id (40–49, D6);
//! - the effective expiry taken as `min()` of the `expiresAt` strings (50–59, D5).
//!
//! Construction rule as in `dct.rs`: start from a valid [`Chain`], change one thing, re-sign
//! every block with the key its signer field names. Expectations come from the spec and
//! `spec/decisions.md` (D5, D9, D19, D1); the generator checks that the reference agrees.

use serde_json::{json, Value};

use super::dct_support::{
    cap, deny, encode_value, ok, revocation_entry, scope, verify, verify_token, Chain, Ctx, BUDGET,
    MAX_DEPTH,
};
use crate::generate::{Area, Group};
use crate::keys::Keys;

/// Adds group `redteam-py` to area `dct`.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g = area.group(
        "redteam-py",
        "dct.verify: defect classes found by a red-team Python verifier (regex `$` before a newline and Unicode `\\d` in timestamps, empty resource patterns read as wildcards, booleans as signature indices; D1, D5, D9, D19).",
    );
    newline_timestamps(g, &k);
    unicode_digits(g, &k);
    empty_resource(g, &k);
    bool_covers(g, &k);
    revocation_collisions(g, &k);
    expiry_min_string(g, &k);
}

const TS: &[&str] = &["DCT-FORMAT-TIMESTAMPS"];

// ---------------------------------------------------------------------------------------------
// 1–9: a trailing newline after a timestamp (Python `re.match(r"…$")`)

fn newline_timestamps(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let malformed = || deny("malformed_token", "1");
    let c = Chain::root(k).with_authority(|a| a.expires_at = "2026-03-01T12:00:00Z\n".into());
    verify(
        g,
        1,
        "authority.expiresAt with a trailing newline (`…Z\\n`): not in the D5 profile (Python's `$` matches before a final newline)",
        TS,
        &[],
        &c,
        &ctx,
        malformed(),
    );
    let c = Chain::root(k).delegate(&k.bob, |a| {
        a.expires_at = Some("2026-03-01T11:00:00Z\n".into())
    });
    verify(
        g,
        2,
        "attenuation expiresAt with a trailing newline: malformed, not a narrowing",
        TS,
        &[],
        &c,
        &ctx,
        malformed(),
    );
    let c = Chain::root(k).with_authority(|a| a.issued_at = "2026-03-01T00:00:00Z\n".into());
    verify(
        g,
        3,
        "authority.issuedAt with a trailing newline: malformed even though issuedAt is not compared with now",
        TS,
        &[],
        &c,
        &ctx,
        malformed(),
    );
    let c = Chain::root(k).with_authority(|a| a.expires_at = "2026-03-01T13:00:00+01:00\n".into());
    verify(
        g,
        4,
        "authority.expiresAt with an offset and a trailing newline (`…+01:00\\n`)",
        TS,
        &[],
        &c,
        &ctx,
        malformed(),
    );
}

// ---------------------------------------------------------------------------------------------
// 10–19: non-ASCII decimal digits in timestamps (Python `\d` and `int()`)

fn unicode_digits(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let malformed = || deny("malformed_token", "1");
    let c = Chain::root(k).with_authority(|a| {
        a.expires_at = "\u{ff12}\u{ff10}\u{ff12}\u{ff16}-03-01T12:00:00Z".into()
    });
    verify(
        g,
        10,
        "authority.expiresAt with a fullwidth year (`２０２６`): only ASCII digits are timestamp digits",
        TS,
        &[],
        &c,
        &ctx,
        malformed(),
    );
    let c = Chain::root(k).delegate(&k.bob, |a| {
        a.expires_at = Some("2026-03-01T\u{661}\u{661}:00:00Z".into())
    });
    verify(
        g,
        11,
        "attenuation expiresAt with an Arabic-Indic hour (`١١`): malformed, not a narrowing to 11:00",
        TS,
        &[],
        &c,
        &ctx,
        malformed(),
    );
    let c = Chain::root(k).with_authority(|a| a.issued_at = "2026-03-0\u{967}T00:00:00Z".into());
    verify(
        g,
        12,
        "authority.issuedAt with a Devanagari day digit (`0१`)",
        TS,
        &[],
        &c,
        &ctx,
        malformed(),
    );
    let c =
        Chain::root(k).with_authority(|a| a.expires_at = "2026-03-01T12:00:00.\u{ff15}Z".into());
    verify(
        g,
        13,
        "authority.expiresAt with a fullwidth fraction digit (`.５`)",
        TS,
        &[],
        &c,
        &ctx,
        malformed(),
    );
}

// ---------------------------------------------------------------------------------------------
// 20–29: an empty resource pattern is not a wildcard (D1, D9: `resource` may be empty)

fn empty_resource(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let empty = || vec![cap("docs", "read", "")];
    let c = Chain::root(k).caps(empty());
    verify(
        g,
        20,
        "the only capability has resource \"\" (matches only the empty resource); request `/project/x` is not granted",
        &["DCT-VERIFY-7-CAPABILITY", "GLOB-EXACT"],
        &[],
        &c,
        &ctx,
        deny("capability_not_granted", "7"),
    );
    let c = Chain::root(k).caps(empty()).delegate(&k.bob, |a| {
        a.allowed_capabilities = Some(vec![cap("docs", "read", "/project/x")])
    });
    verify(
        g,
        21,
        "authority grants resource \"\"; the attenuation narrows to `/project/x`: an expansion (\"\" does not cover it)",
        &["DCT-VERIFY-4B-CAPABILITIES"],
        &[],
        &c,
        &ctx,
        deny("attenuation_violation", "4b"),
    );
    let c = Chain::root(k).caps(empty());
    verify(
        g,
        22,
        "control: resource \"\" grants the request for the empty resource",
        &[
            "DCT-VERIFY-7-CAPABILITY",
            "GLOB-EXACT",
            "DCT-VERIFY-8-SCOPE",
        ],
        &[],
        &c,
        &ctx.clone().resource(""),
        ok(&scope(&c, empty(), BUDGET, MAX_DEPTH)),
    );
}

// ---------------------------------------------------------------------------------------------
// 30–39: boolean `covers` (Python `False == 0`, `True == 1`; D19)

fn with_covers(c: &Chain, i: usize, covers: Value) -> Value {
    let mut v = c.decoded();
    v["signatures"][i]["covers"] = covers;
    encode_value(&v)
}

fn bool_covers(g: &mut Group, k: &Keys) {
    let ctx = Ctx::new(k);
    let r: &[&str] = &["DCT-FORMAT-SIGNATURE-ENTRY"];
    let c = Chain::root(k).delegate(&k.bob, |_| {});
    verify_token(
        g,
        30,
        "signatures[1].covers is `false` instead of `0` (a boolean is not a JSON integer, however `False == 0` compares)",
        r,
        &[],
        with_covers(&c, 1, json!(false)),
        &ctx,
        deny("malformed_token", "1"),
    );
    let c = Chain::root(k).delegate_n(2);
    verify_token(
        g,
        31,
        "signatures[2].covers is `true` instead of `1`",
        r,
        &[],
        with_covers(&c, 2, json!(true)),
        &ctx,
        deny("malformed_token", "1"),
    );
}

// ---------------------------------------------------------------------------------------------
// 40–49: two entries for one revocation id (D6: only the block signer's counts)

fn revocation_collisions(g: &mut Group, k: &Keys) {
    let r: &[&str] = &["DCT-VERIFY-2-REVOKER"];
    let c = Chain::root(k);
    let rid = c.revocation_ids()[0].clone();
    let ctx = Ctx::new(k)
        .revoke(revocation_entry(&k.root, &rid, false))
        .revoke(revocation_entry(&k.mallory, &rid, false));
    verify(
        g,
        40,
        "the authority is revoked by root, then the same id by mallory (well signed, wrong revoker): mallory's entry is ignored, it does not hide root's",
        r,
        &[],
        &c,
        &ctx,
        deny("revoked", "2"),
    );
    let c = Chain::root(k).delegate(&k.bob, |_| {});
    let rid = c.revocation_ids()[1].clone();
    let ctx = Ctx::new(k)
        .revoke(revocation_entry(&k.alice, &rid, false))
        .revoke(revocation_entry(&k.bob, &rid, false));
    verify(
        g,
        41,
        "attenuation 0 is revoked by its attenuator alice, then the same id by bob (its delegatee): still revoked",
        r,
        &[],
        &c,
        &ctx,
        deny("revoked", "2"),
    );
}

// ---------------------------------------------------------------------------------------------
// 50–59: the effective expiry is the earliest instant, not the smallest string

fn expiry_min_string(g: &mut Group, k: &Keys) {
    let c = Chain::root(k)
        .with_authority(|a| a.expires_at = "2026-03-01T12:00:00.500Z".into())
        .delegate(&k.bob, |a| {
            a.expires_at = Some("2026-03-01T12:00:00Z".into())
        });
    let ctx = Ctx::new(k).now("2026-03-01T12:00:00.200Z");
    verify(
        g,
        50,
        "authority expires 12:00:00.500Z, the attenuation 12:00:00Z (earlier, but the larger string); now 12:00:00.200Z is after the effective expiry",
        &["DCT-VERIFY-5-EXPIRED", "DCT-VERIFY-4D-EXPIRY"],
        &[],
        &c,
        &ctx,
        deny("expired", "5"),
    );
}
