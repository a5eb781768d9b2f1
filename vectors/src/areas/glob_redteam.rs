//! Group `glob/redteam`: matching and subset cases found by running deliberately defective
//! third-party matchers (`implementations/redteam/`) against the corpus:
//!
//! - glob → RegExp translations that forget to escape one metacharacter (`|` `+` `$` `^` `(`
//!   `{` `.`), each metacharacter on its own case so escaping "most" of them is not enough;
//! - only the first `**` translated (`String.prototype.replace` with a string);
//! - resources normalized before matching (Unicode NFC/NFKC, path `..`): decision D41.
//!
//! Expectations come from §10.2 and decisions D1–D3, D41; the generator checks that the
//! reference agrees. The cases are the rows of set `redteam` of `data/tables/glob.json`.

use crate::generate::Area;

/// Adds group `redteam` to area `glob`.
pub fn build(area: &mut Area) {
    let g = area.group(
        "redteam",
        "glob.match and capability.subset: defect classes found by red-team matchers (unescaped RegExp metacharacters, first-only `**` replacement, resource normalization; D1, D2, D3, D41).",
    );
    crate::tables::case_rows(g, "glob", "redteam", "glob.json");
}
