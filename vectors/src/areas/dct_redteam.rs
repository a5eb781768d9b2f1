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

use super::dct_support::{caps, default_caps, deny, ok, scope, verify, Cap, Chain, Ctx};
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
    super::dct_support::verify_rows(g, &k, "redteam", 0..10000);
}

/// One `dct.verify` case per row.
pub(super) fn rows(g: &mut Group, k: &Keys, rows: &[Row]) {
    for &(n, desc, reqs, flags, chain, request, verdict) in rows {
        let c = chain(k);
        let expect = verdict.expect(&c);
        verify(g, n, desc, reqs, flags, &c, &request(Ctx::new(k)), expect);
    }
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
