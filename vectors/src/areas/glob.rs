//! Area `glob`: resource glob matching and capability subset (spec §10.2, decisions D1–D3).
//!
//! Every expectation below is read off the spec text or the decision it cites, never off the
//! reference: `valid` where the spec or a decision pins the answer, `acceptable` (reference
//! reading first) where `spec/decisions.md` says another reading is reasonable.
//!
//! The cases are rows of `data/tables/glob.json`, except the hostile patterns built here
//! (hundreds or thousands of segments).

use serde_json::json;

use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::tables::Ids;

/// Builds the `glob` area: groups `match` and `subset`.
pub fn build(area: &mut Area) {
    build_match(area.group(
        "match",
        "glob.match: resource patterns with `*` and `**` segments (§10.2, D1, D2).",
    ));
    build_subset(area.group(
        "subset",
        "capability.subset: the conservative, sound subset rule (§10.2, D3).",
    ));
    super::glob_redteam::build(area);
}

/// Adds the rows of `set` of `data/tables/glob.json`.
fn table(g: &mut Group, set: &str) {
    crate::tables::case_rows(g, "glob", set, "glob.json");
}

fn build_match(g: &mut Group) {
    table(g, "match");
    build_hostile(g);
}

/// 25 `**` inside one segment, then `b`.
fn one_segment() -> String {
    format!("/{}b", "a**".repeat(25))
}

/// A hostile pattern: (number, description, requirement ids, flags, pattern, resource,
/// whether it matches).
type HostileRow = (
    u16,
    &'static str,
    Ids,
    Ids,
    fn() -> String,
    fn() -> String,
    bool,
);

#[rustfmt::skip]
const HOSTILE: &[HostileRow] = &[
    // glob-match-0080 (20 `**/a` against 200 segments) is retired: a translation that turns
    // only the first `**` into `.*` needed ~10^8 steps on it, an answer in time on a fast
    // machine and a timeout on a slow one. Sized up so every backtracking variant needs
    // > 2^39 steps.
    (84, "40 `**/a` segments against 400 `a` segments ending in a mismatch", &["GLOB-LINEAR"], &["GlobHostile"],
        || hostile_pattern("**/a", 40, "/b"), || repeat_path("a", 400), false),
    (81, "60 `*` segments against 60 segments", &["GLOB-LINEAR", "GLOB-STAR-SEGMENT"], &["GlobHostile"],
        || hostile_pattern("*", 60, ""), || repeat_path("x", 60), true),
    (82, "60 `*` segments against 59 segments", &["GLOB-LINEAR", "GLOB-STAR-SEGMENT"], &["GlobHostile"],
        || hostile_pattern("*", 60, ""), || repeat_path("x", 59), false),
    // One segment, 25 `**` inside it against 4,000 `a`s and no `b`: literal text under D1
    // (and no match under the partial-wildcard reading either, since there is no `b`), while
    // a matcher that turns each `**` into `.*` (or `[^/]*[^/]*`) backtracks through more than
    // C(4000, 25) > 10^60 splits — a hang on any machine, never a machine-speed verdict.
    (83, "25 `**` inside one segment against a 4,000-character segment with no `b`", &["GLOB-LINEAR"],
        &["GlobHostile", "GlobPartialWildcard"], one_segment, || format!("/{}", "a".repeat(4000)), false),
];

fn build_hostile(g: &mut Group) {
    for &(n, desc, reqs, flags, pattern, resource, answer) in HOSTILE {
        let input = json!({ "pattern": pattern(), "resource": resource() });
        let expect = Expectation::valid(json!({ "matches": answer }));
        g.case(n, desc, reqs, flags, "glob.match", input, expect);
    }
}

/// `/<seg>/<seg>…<suffix>` with `n` copies of `seg`.
fn hostile_pattern(seg: &str, n: usize, suffix: &str) -> String {
    let mut out = String::new();
    for _ in 0..n {
        out.push('/');
        out.push_str(seg);
    }
    out.push_str(suffix);
    out
}

/// `/<seg>/<seg>…` with `n` segments.
fn repeat_path(seg: &str, n: usize) -> String {
    hostile_pattern(seg, n, "")
}

fn build_subset(g: &mut Group) {
    table(g, "subset");
}
