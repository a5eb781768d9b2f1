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

use crate::generate::Area;

/// Adds group `redteam` to area `dct`.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g = area.group(
        "redteam",
        "dct.verify: defect classes found by red-team verifiers (falsy zero restrictions, cross-product capability checks, requests as patterns, leap years, resource normalization; D4, D5, D18, D20, D21, D41).",
    );
    super::dct_support::verify_rows(g, &k, "redteam", |_| true);
}
