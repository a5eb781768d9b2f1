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

use super::dct_support::{deny, encode_value, verify_rows, verify_token, Chain, Ctx};
use crate::generate::Area;
use crate::keys::Keys;

/// Adds group `redteam-py` to area `dct`: 1–9: a trailing newline after a timestamp (Python
/// `re.match(r"…$")`); 10–19: non-ASCII decimal digits in timestamps (Python `\d` and `int()`);
/// 20–29: an empty resource pattern is not a wildcard (D1, D9: `resource` may be empty); 30–39:
/// boolean `covers`; 40–49: two entries for one revocation id (D6: only the block signer's
/// counts); 50–59: the effective expiry is the earliest instant, not the smallest string.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g = area.group(
        "redteam-py",
        "dct.verify: defect classes found by a red-team Python verifier (regex `$` before a newline and Unicode `\\d` in timestamps, empty resource patterns read as wildcards, booleans as signature indices; D1, D5, D9, D19).",
    );
    verify_rows(g, &k, "redteam-py", |n| n < 30);
    // Signature entries are not signed: the boolean replaces `covers` in the encoded token.
    for &(n, desc, chain, i, covers) in BOOL_COVERS {
        let mut v = chain(&k).decoded();
        v["signatures"][i]["covers"] = json!(covers);
        let (reqs, ctx) = (&["DCT-FORMAT-SIGNATURE-ENTRY"], Ctx::new(&k));
        verify_token(
            g,
            n,
            desc,
            reqs,
            &[],
            encode_value(&v),
            &ctx,
            deny("malformed_token", "1"),
        );
    }
    verify_rows(g, &k, "redteam-py", |n| n >= 40);
}

/// A token construction as a table cell.
type Build = fn(&Keys) -> Chain;

/// Boolean `covers` (Python `False == 0`, `True == 1`; D19): (number, description, token,
/// signature entry, the boolean). Expected: malformed_token.
#[rustfmt::skip]
const BOOL_COVERS: &[(u16, &str, Build, usize, bool)] = &[
    (30, "signatures[1].covers is `false` instead of `0` (a boolean is not a JSON integer, however `False == 0` compares)",
        |k| Chain::root(k).delegate(&k.bob, |_| {}), 1, false),
    (31, "signatures[2].covers is `true` instead of `1`", |k| Chain::root(k).delegate_n(2), 2, true),
];
