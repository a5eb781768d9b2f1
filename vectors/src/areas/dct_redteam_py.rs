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

use serde_json::json;

use super::dct_redteam::V;
use super::dct_support::{
    caps, deny, encode_value, revocation_entry, verify, verify_token, Chain, Ctx, BUDGET, MAX_DEPTH,
};
use super::Ids;
use crate::generate::Area;
use crate::keys::Keys;

/// Adds group `redteam-py` to area `dct`.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g = area.group(
        "redteam-py",
        "dct.verify: defect classes found by a red-team Python verifier (regex `$` before a newline and Unicode `\\d` in timestamps, empty resource patterns read as wildcards, booleans as signature indices; D1, D5, D9, D19).",
    );
    let rows = |g: &mut crate::generate::Group, rows: &[Row]| {
        for &(n, desc, reqs, token, verdict) in rows {
            let (c, ctx) = token(&k);
            verify(g, n, desc, reqs, &[], &c, &ctx, verdict.expect(&c));
        }
    };
    rows(g, TIMESTAMPS_AND_RESOURCES);
    // Signature entries are not signed: the boolean replaces `covers` in the encoded token.
    for &(n, desc, chain, i, covers) in BOOL_COVERS {
        let mut v = chain(&k).decoded();
        v["signatures"][i]["covers"] = json!(covers);
        let token = encode_value(&v);
        verify_token(
            g,
            n,
            desc,
            SIG_ENTRY,
            &[],
            token,
            &Ctx::new(&k),
            deny("malformed_token", "1"),
        );
    }
    rows(g, REVOCATIONS_AND_EXPIRY);
}

/// A token construction as a table cell.
type Build = fn(&Keys) -> Chain;

/// A case: (number, description, requirement ids, the token and its context, verdict).
type Row = (u16, &'static str, Ids, fn(&Keys) -> (Chain, Ctx), V);

const TS: &[&str] = &["DCT-FORMAT-TIMESTAMPS"];
const SIG_ENTRY: &[&str] = &["DCT-FORMAT-SIGNATURE-ENTRY"];
const REVOKER: &[&str] = &["DCT-VERIFY-2-REVOKER"];
const MAL: V = V::Deny("malformed_token", "1");
const REVOKED: V = V::Deny("revoked", "2");
const EMPTY: &[(&str, &str, &str)] = &[("docs", "read", "")];

/// The root with `expiresAt` set to `at`, under the default context.
fn expires(k: &Keys, at: &str) -> (Chain, Ctx) {
    (
        Chain::root(k).with_authority(|a| a.expires_at = at.into()),
        Ctx::new(k),
    )
}

/// The root with `issuedAt` set to `at`, under the default context.
fn issued(k: &Keys, at: &str) -> (Chain, Ctx) {
    (
        Chain::root(k).with_authority(|a| a.issued_at = at.into()),
        Ctx::new(k),
    )
}

/// One attenuation to bob expiring at `at`, under the default context.
fn bob_expires(k: &Keys, at: &str) -> (Chain, Ctx) {
    (
        Chain::root(k).delegate(&k.bob, |a| a.expires_at = Some(at.into())),
        Ctx::new(k),
    )
}

/// `c` with block `b`'s revocation id revoked (block scope) by `first`, then by `second`.
fn revoked_twice(k: &Keys, c: Chain, b: usize, first: &str, second: &str) -> (Chain, Ctx) {
    let rid = c.revocation_ids()[b].clone();
    let by = |name| revocation_entry(super::dct_support::key(k, name), &rid, false);
    let ctx = Ctx::new(k).revoke(by(first)).revoke(by(second));
    (c, ctx)
}

/// 1–9: a trailing newline after a timestamp (Python `re.match(r"…$")`); 10–19: non-ASCII
/// decimal digits in timestamps (Python `\d` and `int()`); 20–29: an empty resource pattern is
/// not a wildcard (D1, D9: `resource` may be empty).
#[rustfmt::skip]
const TIMESTAMPS_AND_RESOURCES: &[Row] = &[
    (1, "authority.expiresAt with a trailing newline (`…Z\\n`): not in the D5 profile (Python's `$` matches before a final newline)", TS,
        |k| expires(k, "2026-03-01T12:00:00Z\n"), MAL),
    (2, "attenuation expiresAt with a trailing newline: malformed, not a narrowing", TS, |k| bob_expires(k, "2026-03-01T11:00:00Z\n"), MAL),
    (3, "authority.issuedAt with a trailing newline: malformed even though issuedAt is not compared with now", TS,
        |k| issued(k, "2026-03-01T00:00:00Z\n"), MAL),
    (4, "authority.expiresAt with an offset and a trailing newline (`…+01:00\\n`)", TS, |k| expires(k, "2026-03-01T13:00:00+01:00\n"), MAL),
    (10, "authority.expiresAt with a fullwidth year (`２０２６`): only ASCII digits are timestamp digits", TS,
        |k| expires(k, "\u{ff12}\u{ff10}\u{ff12}\u{ff16}-03-01T12:00:00Z"), MAL),
    (11, "attenuation expiresAt with an Arabic-Indic hour (`١١`): malformed, not a narrowing to 11:00", TS,
        |k| bob_expires(k, "2026-03-01T\u{661}\u{661}:00:00Z"), MAL),
    (12, "authority.issuedAt with a Devanagari day digit (`0१`)", TS, |k| issued(k, "2026-03-0\u{967}T00:00:00Z"), MAL),
    (13, "authority.expiresAt with a fullwidth fraction digit (`.５`)", TS, |k| expires(k, "2026-03-01T12:00:00.\u{ff15}Z"), MAL),
    (20, "the only capability has resource \"\" (matches only the empty resource); request `/project/x` is not granted",
        &["DCT-VERIFY-7-CAPABILITY", "GLOB-EXACT"], |k| (Chain::root(k).caps(caps(EMPTY)), Ctx::new(k)),
        V::Deny("capability_not_granted", "7")),
    (21, "authority grants resource \"\"; the attenuation narrows to `/project/x`: an expansion (\"\" does not cover it)",
        &["DCT-VERIFY-4B-CAPABILITIES"], |k| {
        let c = Chain::root(k).caps(caps(EMPTY));
        (c.delegate(&k.bob, |a| a.allowed_capabilities = Some(caps(&[("docs", "read", "/project/x")]))), Ctx::new(k))
    }, V::Deny("attenuation_violation", "4b")),
    (22, "control: resource \"\" grants the request for the empty resource", &["DCT-VERIFY-7-CAPABILITY", "GLOB-EXACT", "DCT-VERIFY-8-SCOPE"],
        |k| (Chain::root(k).caps(caps(EMPTY)), Ctx::new(k).resource("")), V::Valid(Some(EMPTY), BUDGET, MAX_DEPTH)),
];

/// 30–39: boolean `covers` (Python `False == 0`, `True == 1`; D19): (number, description,
/// token, signature entry, the boolean). Expected: malformed_token.
#[rustfmt::skip]
const BOOL_COVERS: &[(u16, &str, Build, usize, bool)] = &[
    (30, "signatures[1].covers is `false` instead of `0` (a boolean is not a JSON integer, however `False == 0` compares)",
        |k| Chain::root(k).delegate(&k.bob, |_| {}), 1, false),
    (31, "signatures[2].covers is `true` instead of `1`", |k| Chain::root(k).delegate_n(2), 2, true),
];

/// 40–49: two entries for one revocation id (D6: only the block signer's counts); 50–59: the
/// effective expiry is the earliest instant, not the smallest string.
#[rustfmt::skip]
const REVOCATIONS_AND_EXPIRY: &[Row] = &[
    (40, "the authority is revoked by root, then the same id by mallory (well signed, wrong revoker): mallory's entry is ignored, it does not hide root's",
        REVOKER, |k| revoked_twice(k, Chain::root(k), 0, "root", "mallory"), REVOKED),
    (41, "attenuation 0 is revoked by its attenuator alice, then the same id by bob (its delegatee): still revoked", REVOKER,
        |k| revoked_twice(k, Chain::root(k).delegate(&k.bob, |_| {}), 1, "alice", "bob"), REVOKED),
    (50, "authority expires 12:00:00.500Z, the attenuation 12:00:00Z (earlier, but the larger string); now 12:00:00.200Z is after the effective expiry",
        &["DCT-VERIFY-5-EXPIRED", "DCT-VERIFY-4D-EXPIRY"], |k| {
        let c = Chain::root(k).with_authority(|a| a.expires_at = "2026-03-01T12:00:00.500Z".into());
        (c.delegate(&k.bob, |a| a.expires_at = Some("2026-03-01T12:00:00Z".into())), Ctx::new(k).now("2026-03-01T12:00:00.200Z"))
    }, V::Deny("expired", "5")),
];
