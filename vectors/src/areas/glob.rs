//! Area `glob`: resource glob matching and capability subset (spec §10.2, decisions D1–D3).
//!
//! Every expectation below is read off the spec text or the decision it cites, never off the
//! reference: `valid` where the spec or a decision pins the answer, `acceptable` (reference
//! reading first) where `spec/decisions.md` says another reading is reasonable.

use serde_json::{json, Value};

use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};

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

fn matches(value: bool) -> Expectation {
    Expectation::valid(json!({ "matches": value }))
}

/// Acceptable under `decision`: the reference's answer first, the other reading second.
fn matches_either(decision: &str, reference: bool) -> Expectation {
    Expectation::acceptable(
        decision,
        vec![
            Expected::valid(json!({ "matches": reference })),
            Expected::valid(json!({ "matches": !reference })),
        ],
    )
}

fn m(
    g: &mut Group,
    number: u16,
    description: &str,
    requirements: &[&str],
    flags: &[&str],
    (pattern, resource): (&str, &str),
    expect: Expectation,
) {
    let input = json!({ "pattern": pattern, "resource": resource });
    g.case(
        number,
        description,
        requirements,
        flags,
        "glob.match",
        input,
        expect,
    );
}

fn build_match(g: &mut Group) {
    const EX: &[&str] = &["SpecExample"];
    // §10.2's own examples.
    m(
        g,
        1,
        "spec example: `/project/*` matches `/project/foo`",
        &["GLOB-STAR-SEGMENT"],
        EX,
        ("/project/*", "/project/foo"),
        matches(true),
    );
    m(
        g,
        2,
        "spec example: `/project/*` does not match `/project/foo/bar`",
        &["GLOB-STAR-SEGMENT"],
        EX,
        ("/project/*", "/project/foo/bar"),
        matches(false),
    );
    m(
        g,
        3,
        "spec example: `/project/**` matches `/project/foo/bar/baz`",
        &["GLOB-DOUBLE-STAR"],
        EX,
        ("/project/**", "/project/foo/bar/baz"),
        matches(true),
    );
    m(
        g,
        4,
        "spec example: `*` matches anything (a multi-segment path)",
        &["GLOB-BARE-STAR"],
        &["SpecExample", "GlobBareStar"],
        ("*", "/project/foo/bar"),
        matches(true),
    );

    // Exact patterns: byte equality, no normalization.
    m(
        g,
        10,
        "a pattern without wildcards matches the identical resource",
        &["GLOB-EXACT"],
        &[],
        ("/project/foo", "/project/foo"),
        matches(true),
    );
    m(
        g,
        11,
        "a trailing `/` makes a different resource",
        &["GLOB-EXACT"],
        &[],
        ("/project/foo", "/project/foo/"),
        matches(false),
    );
    m(
        g,
        12,
        "matching is case-sensitive",
        &["GLOB-EXACT"],
        &[],
        ("/project/foo", "/Project/foo"),
        matches(false),
    );
    m(
        g,
        13,
        "`.` segments are not normalized",
        &["GLOB-EXACT"],
        &[],
        ("/project/foo", "/project/./foo"),
        matches(false),
    );
    m(
        g,
        14,
        "`..` segments are not normalized",
        &["GLOB-EXACT"],
        &[],
        ("/project/foo", "/project/x/../foo"),
        matches(false),
    );
    m(
        g,
        15,
        "`//` is not collapsed",
        &["GLOB-EXACT"],
        &[],
        ("/a/b", "/a//b"),
        matches(false),
    );
    m(
        g,
        16,
        "percent-escapes are not decoded",
        &["GLOB-EXACT"],
        &[],
        ("/a/b c", "/a/b%20c"),
        matches(false),
    );
    m(
        g,
        17,
        "the empty pattern matches the empty resource",
        &["GLOB-EXACT"],
        &[],
        ("", ""),
        matches(true),
    );
    m(
        g,
        18,
        "the empty pattern does not match `/`",
        &["GLOB-EXACT"],
        &[],
        ("", "/"),
        matches(false),
    );
    m(
        g,
        19,
        "a literal pattern is not a prefix match",
        &["GLOB-EXACT"],
        &[],
        ("/project", "/project/foo"),
        matches(false),
    );

    // D1: the bare `*` pattern.
    let bare: &[&str] = &["GlobBareStar"];
    m(
        g,
        20,
        "bare `*` matches the empty resource",
        &["GLOB-BARE-STAR"],
        bare,
        ("*", ""),
        matches(true),
    );
    m(
        g,
        21,
        "bare `*` matches `/`",
        &["GLOB-BARE-STAR"],
        bare,
        ("*", "/"),
        matches(true),
    );
    m(
        g,
        22,
        "bare `*` matches a URL with `/`, `?` and `:`",
        &["GLOB-BARE-STAR"],
        bare,
        ("*", "https://example.com/a/b?q=1"),
        matches(true),
    );
    m(
        g,
        23,
        "bare `*` matches a resource that is itself `**`",
        &["GLOB-BARE-STAR"],
        bare,
        ("*", "**"),
        matches(true),
    );

    // D1: `*` as one segment of a longer pattern.
    m(
        g,
        30,
        "`/project/*` does not match `/project` (zero segments)",
        &["GLOB-STAR-SEGMENT"],
        &[],
        ("/project/*", "/project"),
        matches(false),
    );
    m(
        g,
        31,
        "`*/b` matches `x/b` (relative resource)",
        &["GLOB-STAR-SEGMENT"],
        &[],
        ("*/b", "x/b"),
        matches(true),
    );
    m(
        g,
        32,
        "`/a/*/c` matches `/a/b/c`",
        &["GLOB-STAR-SEGMENT"],
        &[],
        ("/a/*/c", "/a/b/c"),
        matches(true),
    );
    m(
        g,
        33,
        "`/a/*/c` does not match `/a/b/x/c`",
        &["GLOB-STAR-SEGMENT"],
        &[],
        ("/a/*/c", "/a/b/x/c"),
        matches(false),
    );
    m(
        g,
        34,
        "`/a/*` does not match `/ab` (segments, not characters)",
        &["GLOB-STAR-SEGMENT"],
        &[],
        ("/a/*", "/ab"),
        matches(false),
    );
    m(
        g,
        35,
        "`/a/*` matches a segment that is literally `*`",
        &["GLOB-STAR-SEGMENT"],
        &[],
        ("/a/*", "/a/*"),
        matches(true),
    );
    let empty: &[&str] = &["GlobEmptySegment"];
    m(
        g,
        36,
        "`/a/*` against `/a/` (empty last segment): not matched by D1",
        &["GLOB-STAR-NONEMPTY"],
        empty,
        ("/a/*", "/a/"),
        matches_either("D1", false),
    );
    m(
        g,
        37,
        "`/a/*/c` against `/a//c` (empty middle segment): not matched by D1",
        &["GLOB-STAR-NONEMPTY"],
        empty,
        ("/a/*/c", "/a//c"),
        matches_either("D1", false),
    );
    m(
        g,
        38,
        "`*/b` against `/b` (empty first segment): not matched by D1",
        &["GLOB-STAR-NONEMPTY"],
        empty,
        ("*/b", "/b"),
        matches_either("D1", false),
    );

    // D1: `*` with other characters is literal text.
    let partial: &[&str] = &["GlobPartialWildcard"];
    m(
        g,
        40,
        "`/docs/*.md` against `/docs/a.md`: literal in v0.1 (a partial wildcard would match)",
        &["GLOB-PARTIAL-LITERAL"],
        partial,
        ("/docs/*.md", "/docs/a.md"),
        matches_either("D1", false),
    );
    m(
        g,
        41,
        "`/a*` against `/abc`: literal in v0.1 (a partial wildcard would match)",
        &["GLOB-PARTIAL-LITERAL"],
        partial,
        ("/a*", "/abc"),
        matches_either("D1", false),
    );
    m(
        g,
        42,
        "`/docs/*.md` matches itself literally",
        &["GLOB-PARTIAL-LITERAL"],
        &[],
        ("/docs/*.md", "/docs/*.md"),
        matches(true),
    );
    m(
        g,
        43,
        "`/docs/*.md` does not match `/docs/a.txt` under either reading",
        &["GLOB-PARTIAL-LITERAL"],
        &[],
        ("/docs/*.md", "/docs/a.txt"),
        matches(false),
    );
    m(
        g,
        44,
        "`/a/**b` is literal: it does not match `/a/x/b`",
        &["GLOB-PARTIAL-LITERAL"],
        &[],
        ("/a/**b", "/a/x/b"),
        matches(false),
    );

    // D1: other glob syntax is literal.
    let meta: &[&str] = &["GlobLiteralMeta"];
    m(
        g,
        50,
        "`?` is literal: `/a/?` does not match `/a/b`",
        &["GLOB-OTHER-LITERAL"],
        meta,
        ("/a/?", "/a/b"),
        matches(false),
    );
    m(
        g,
        51,
        "`?` is literal: `/a/?` matches `/a/?`",
        &["GLOB-OTHER-LITERAL"],
        meta,
        ("/a/?", "/a/?"),
        matches(true),
    );
    m(
        g,
        52,
        "`[...]` is literal: `/a/[bc]` does not match `/a/b`",
        &["GLOB-OTHER-LITERAL"],
        meta,
        ("/a/[bc]", "/a/b"),
        matches(false),
    );
    m(
        g,
        53,
        "`{a,b}` is literal: `/a/{b,c}` does not match `/a/b`",
        &["GLOB-OTHER-LITERAL"],
        meta,
        ("/a/{b,c}", "/a/b"),
        matches(false),
    );
    m(
        g,
        54,
        "`\\` does not escape: `/a/\\*` does not match `/a/b`",
        &["GLOB-OTHER-LITERAL"],
        meta,
        ("/a/\\*", "/a/b"),
        matches(false),
    );
    m(
        g,
        55,
        "`\\` does not escape: `/a/\\*` matches itself",
        &["GLOB-OTHER-LITERAL"],
        meta,
        ("/a/\\*", "/a/\\*"),
        matches(true),
    );

    // D2: `**`.
    m(
        g,
        60,
        "`/a/**/b` matches `/a/b` (zero segments in the middle)",
        &["GLOB-DOUBLE-STAR"],
        &[],
        ("/a/**/b", "/a/b"),
        matches(true),
    );
    m(
        g,
        61,
        "`/a/**/b` matches `/a/x/y/b`",
        &["GLOB-DOUBLE-STAR"],
        &[],
        ("/a/**/b", "/a/x/y/b"),
        matches(true),
    );
    m(
        g,
        62,
        "`/a/**/b` does not match `/a/x/y/c`",
        &["GLOB-DOUBLE-STAR"],
        &[],
        ("/a/**/b", "/a/x/y/c"),
        matches(false),
    );
    m(
        g,
        63,
        "`/project/**` does not match `/projectX/foo`",
        &["GLOB-DOUBLE-STAR"],
        &[],
        ("/project/**", "/projectX/foo"),
        matches(false),
    );
    m(
        g,
        64,
        "`/a/**` matches `/a/` (one empty segment)",
        &["GLOB-DOUBLE-STAR-ZERO"],
        &[],
        ("/a/**", "/a/"),
        matches(true),
    );
    m(
        g,
        65,
        "`/a/**` matches `/a/b/c`",
        &["GLOB-DOUBLE-STAR-ZERO"],
        &[],
        ("/a/**", "/a/b/c"),
        matches(true),
    );
    m(
        g,
        66,
        "`/a/**` against `/a` (zero segments): matched by D2",
        &["GLOB-DOUBLE-STAR-ZERO"],
        &["GlobDoubleStarZero"],
        ("/a/**", "/a"),
        matches_either("D2", true),
    );
    m(
        g,
        67,
        "bare `**` matches the empty resource",
        &["GLOB-DOUBLE-STAR-ZERO"],
        &[],
        ("**", ""),
        matches(true),
    );
    m(
        g,
        68,
        "bare `**` matches a multi-segment path",
        &["GLOB-DOUBLE-STAR-ZERO"],
        &[],
        ("**", "/x/y/z"),
        matches(true),
    );
    m(
        g,
        69,
        "`**/x` matches `x` (zero leading segments)",
        &["GLOB-DOUBLE-STAR"],
        &[],
        ("**/x", "x"),
        matches(true),
    );
    m(
        g,
        70,
        "`/a/**/**/b` matches `/a/b`",
        &["GLOB-DOUBLE-STAR"],
        &[],
        ("/a/**/**/b", "/a/b"),
        matches(true),
    );
    m(
        g,
        71,
        "`/a/**/*` does not match `/a` (the `*` needs one segment)",
        &["GLOB-DOUBLE-STAR", "GLOB-STAR-SEGMENT"],
        &[],
        ("/a/**/*", "/a"),
        matches(false),
    );
    m(
        g,
        72,
        "`/a/**/c/*` matches `/a/b/c/d`",
        &["GLOB-DOUBLE-STAR", "GLOB-STAR-SEGMENT"],
        &[],
        ("/a/**/c/*", "/a/b/c/d"),
        matches(true),
    );

    // D2: linear time on patterns that make backtracking matchers explode.
    let hostile: &[&str] = &["GlobHostile"];
    // glob-match-0080 (20 `**/a` against 200 segments) is retired: a translation that turns
    // only the first `**` into `.*` needed ~10^8 steps on it, an answer in time on a fast
    // machine and a timeout on a slow one. Sized up so every backtracking variant needs
    // > 2^39 steps.
    m(
        g,
        84,
        "40 `**/a` segments against 400 `a` segments ending in a mismatch",
        &["GLOB-LINEAR"],
        hostile,
        (&hostile_pattern("**/a", 40, "/b"), &repeat_path("a", 400)),
        matches(false),
    );
    m(
        g,
        81,
        "60 `*` segments against 60 segments",
        &["GLOB-LINEAR", "GLOB-STAR-SEGMENT"],
        hostile,
        (&hostile_pattern("*", 60, ""), &repeat_path("x", 60)),
        matches(true),
    );
    m(
        g,
        82,
        "60 `*` segments against 59 segments",
        &["GLOB-LINEAR", "GLOB-STAR-SEGMENT"],
        hostile,
        (&hostile_pattern("*", 60, ""), &repeat_path("x", 59)),
        matches(false),
    );
    // One segment, 25 `**` inside it against 4,000 `a`s and no `b`: literal text under D1
    // (and no match under the partial-wildcard reading either, since there is no `b`), while
    // a matcher that turns each `**` into `.*` (or `[^/]*[^/]*`) backtracks through more than
    // C(4000, 25) > 10^60 splits — a hang on any machine, never a machine-speed verdict.
    let mut one_segment = String::from("/");
    one_segment.push_str(&"a**".repeat(25));
    one_segment.push('b');
    m(
        g,
        83,
        "25 `**` inside one segment against a 4,000-character segment with no `b`",
        &["GLOB-LINEAR"],
        &["GlobHostile", "GlobPartialWildcard"],
        (&one_segment, &format!("/{}", "a".repeat(4000))),
        matches(false),
    );
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

fn cap(namespace: &str, action: &str, resource: &str) -> Value {
    json!({ "namespace": namespace, "action": action, "resource": resource })
}

fn subset(value: bool) -> Expectation {
    Expectation::valid(json!({ "subset": value }))
}

fn s(
    g: &mut Group,
    number: u16,
    description: &str,
    requirements: &[&str],
    flags: &[&str],
    (child, parent): (Value, Value),
    expect: Expectation,
) {
    let input = json!({ "child": child, "parent": parent });
    g.case(
        number,
        description,
        requirements,
        flags,
        "capability.subset",
        input,
        expect,
    );
}

/// Child and parent differing only in the resource (`docs:read`).
fn res(child: &str, parent: &str) -> (Value, Value) {
    (cap("docs", "read", child), cap("docs", "read", parent))
}

fn build_subset(g: &mut Group) {
    let widening: &[&str] = &["ScopeWidening"];
    s(
        g,
        1,
        "identical capabilities are a subset",
        &["SUBSET-IDENTICAL"],
        &[],
        res("/project/*", "/project/*"),
        subset(true),
    );
    s(
        g,
        2,
        "identical literal resources are a subset",
        &["SUBSET-IDENTICAL"],
        &[],
        res("/a/b", "/a/b"),
        subset(true),
    );
    s(
        g,
        3,
        "identical `/a/**` resources are a subset",
        &["SUBSET-IDENTICAL", "SUBSET-CHILD-DOUBLE-STAR"],
        &[],
        res("/a/**", "/a/**"),
        subset(true),
    );
    s(
        g,
        4,
        "different namespace is not a subset",
        &["SUBSET-NS-ACTION"],
        &[],
        (cap("web", "read", "*"), cap("docs", "read", "*")),
        subset(false),
    );
    s(
        g,
        5,
        "different action is not a subset",
        &["SUBSET-NS-ACTION"],
        &[],
        (cap("docs", "write", "*"), cap("docs", "read", "*")),
        subset(false),
    );
    s(
        g,
        6,
        "a parent namespace `*` is a literal string, not a wildcard",
        &["SUBSET-NS-ACTION"],
        widening,
        (cap("docs", "read", "*"), cap("*", "read", "*")),
        subset(false),
    );
    s(
        g,
        7,
        "a parent action `*` is a literal string, not a wildcard",
        &["SUBSET-NS-ACTION"],
        widening,
        (cap("docs", "read", "*"), cap("docs", "*", "*")),
        subset(false),
    );
    s(
        g,
        8,
        "namespace comparison is case-sensitive",
        &["SUBSET-NS-ACTION"],
        &[],
        (cap("Docs", "read", "*"), cap("docs", "read", "*")),
        subset(false),
    );

    s(
        g,
        10,
        "any child resource is within a parent `*`",
        &["SUBSET-PARENT-EVERYTHING"],
        &["GlobBareStar"],
        res("/anything/**", "*"),
        subset(true),
    );
    s(
        g,
        11,
        "a child `*` is within a parent `**`",
        &["SUBSET-PARENT-EVERYTHING"],
        &[],
        res("*", "**"),
        subset(true),
    );
    s(
        g,
        12,
        "a child `**` is within a parent `*`",
        &["SUBSET-PARENT-EVERYTHING"],
        &["GlobBareStar"],
        res("**", "*"),
        subset(true),
    );
    s(
        g,
        13,
        "a bare `*` child is within a bare `*` parent",
        &["SUBSET-IDENTICAL", "SUBSET-PARENT-EVERYTHING"],
        &["GlobBareStar"],
        res("*", "*"),
        subset(true),
    );

    s(
        g,
        20,
        "`/project/**` contains the literal `/project/a/b`",
        &["SUBSET-NARROWING"],
        &[],
        res("/project/a/b", "/project/**"),
        subset(true),
    );
    s(
        g,
        21,
        "`/project/**` contains `/project/a/*`",
        &["SUBSET-NARROWING"],
        &[],
        res("/project/a/*", "/project/**"),
        subset(true),
    );
    s(
        g,
        22,
        "`/a/**` contains `/a/b/**`",
        &["SUBSET-NARROWING", "SUBSET-CHILD-DOUBLE-STAR"],
        &[],
        res("/a/b/**", "/a/**"),
        subset(true),
    );
    s(
        g,
        23,
        "`/p/*` contains `/p/x` (sound, but not a literal prefix-narrowing)",
        &["SUBSET-CONSERVATIVE"],
        &["SubsetConservative"],
        res("/p/x", "/p/*"),
        Expectation::acceptable(
            "D3",
            vec![
                Expected::valid(json!({ "subset": true })),
                Expected::valid(json!({ "subset": false })),
            ],
        ),
    );
    // A parent `*` segment kept as `*` in the child: the child is the parent's text up to its
    // `**` plus a literal, a literal prefix-narrowing (and sound: `*` still stands for one
    // non-empty segment on both sides).
    s(
        g,
        25,
        "`/a/*/**` contains `/a/*/b` (the `*` segment kept, the `**` narrowed to a literal)",
        &["SUBSET-NARROWING", "GLOB-STAR-SEGMENT"],
        &[],
        res("/a/*/b", "/a/*/**"),
        subset(true),
    );
    // The same parent against an empty child segment where its `*` stands: the child matches
    // only `/a//b`, which `/a/*/**` matches only if `*` may match an empty segment (D1).
    s(
        g,
        26,
        "`/a/*/**` contains `/a//b` only if `*` matches an empty segment",
        &["SUBSET-SOUND", "GLOB-STAR-NONEMPTY"],
        &["GlobEmptySegment"],
        res("/a//b", "/a/*/**"),
        Expectation::acceptable(
            "D1",
            vec![
                Expected::valid(json!({ "subset": false })),
                Expected::valid(json!({ "subset": true })),
            ],
        ),
    );
    s(
        g,
        24,
        "`/a/**` contains `/a` only under D2's zero-segment reading",
        &["SUBSET-NARROWING", "GLOB-DOUBLE-STAR-ZERO"],
        &["GlobDoubleStarZero"],
        res("/a", "/a/**"),
        Expectation::acceptable(
            "D2",
            vec![
                Expected::valid(json!({ "subset": true })),
                Expected::valid(json!({ "subset": false })),
            ],
        ),
    );

    s(
        g,
        30,
        "`/project/**` does not contain `/projectX/**`",
        &["SUBSET-SOUND"],
        widening,
        res("/projectX/**", "/project/**"),
        subset(false),
    );
    s(
        g,
        31,
        "`/project/**` does not contain `/projectX`",
        &["SUBSET-SOUND"],
        widening,
        res("/projectX", "/project/**"),
        subset(false),
    );
    s(
        g,
        32,
        "`/a/*` does not contain `/a/**`",
        &["SUBSET-SOUND", "SUBSET-CHILD-DOUBLE-STAR"],
        widening,
        res("/a/**", "/a/*"),
        subset(false),
    );
    s(
        g,
        33,
        "`/a/*` does not contain the bare `*`",
        &["SUBSET-SOUND"],
        &["ScopeWidening", "GlobBareStar"],
        res("*", "/a/*"),
        subset(false),
    );
    s(
        g,
        34,
        "`/a/b` does not contain `/a/*`",
        &["SUBSET-SOUND"],
        widening,
        res("/a/*", "/a/b"),
        subset(false),
    );
    s(
        g,
        35,
        "`/a/*` does not contain `/a/b/c`",
        &["SUBSET-SOUND"],
        widening,
        res("/a/b/c", "/a/*"),
        subset(false),
    );
    s(
        g,
        36,
        "`/project/*` does not contain `/project`",
        &["SUBSET-SOUND"],
        widening,
        res("/project", "/project/*"),
        subset(false),
    );
    s(
        g,
        37,
        "`/a/*/**` does not contain `/a/**` (the child matches `/a`)",
        &["SUBSET-SOUND", "SUBSET-CHILD-DOUBLE-STAR"],
        widening,
        res("/a/**", "/a/*/**"),
        subset(false),
    );
    s(
        g,
        38,
        "`/a/**/c` does not contain `/a/**` (the child matches `/a/x`)",
        &["SUBSET-SOUND", "SUBSET-CHILD-DOUBLE-STAR"],
        widening,
        res("/a/**", "/a/**/c"),
        subset(false),
    );
    s(
        g,
        39,
        "literal `/docs/*.md` does not contain `/docs/a.md` (no partial wildcards)",
        &["SUBSET-SOUND", "GLOB-PARTIAL-LITERAL"],
        &["ScopeWidening", "GlobPartialWildcard"],
        res("/docs/a.md", "/docs/*.md"),
        subset(false),
    );
    s(
        g,
        40,
        "`/a/b` does not contain the bare `**`",
        &["SUBSET-SOUND"],
        widening,
        res("**", "/a/b"),
        subset(false),
    );
    s(
        g,
        41,
        "the bare `**` is not contained in `/**` (the child matches the empty resource)",
        &["SUBSET-SOUND", "SUBSET-CHILD-DOUBLE-STAR"],
        widening,
        res("**", "/**"),
        subset(false),
    );
}
