//! Group `glob/redteam`: matching and subset cases found by running deliberately defective
//! third-party matchers (`implementations/redteam/`) against the corpus:
//!
//! - glob → RegExp translations that forget to escape one metacharacter (`|` `+` `$` `^` `(`
//!   `{` `.`), each metacharacter on its own case so escaping "most" of them is not enough;
//! - only the first `**` translated (`String.prototype.replace` with a string);
//! - resources normalized before matching (Unicode NFC/NFKC, path `..`): decision D41.
//!
//! Expectations come from §10.2 and decisions D1–D3, D41; the generator checks that the
//! reference agrees.

use serde_json::{json, Value};

use super::Ids;
use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};

/// Adds group `redteam` to area `glob`.
pub fn build(area: &mut Area) {
    let g = area.group(
        "redteam",
        "glob.match and capability.subset: defect classes found by red-team matchers (unescaped RegExp metacharacters, first-only `**` replacement, resource normalization; D1, D2, D3, D41).",
    );
    define_flags(g);
    regex_metacharacters(g);
    double_star(g);
    normalization(g);
}

/// The flags local to this group (also used by the `companions` area's copies of its cases).
pub(crate) fn define_flags(g: &mut Group) {
    g.define_flag(
        "ResourceNormalization",
        "AMBIGUITY",
        "D41",
        "Resources and resource patterns are opaque strings: no Unicode normalization (NFC/NFKC), no case folding, no path normalization (`.`, `..`, `//`). A matcher that normalizes and thereby matches is wrong; where normalizing would only deny, the other reading is acceptable.",
        "A normalizing matcher grants resources the pattern does not name (a different code point sequence, a different path).",
    );
}

fn matches(value: bool) -> Expectation {
    Expectation::valid(json!({ "matches": value }))
}

#[allow(clippy::too_many_arguments)] // Mirrors the case's fields one for one.
fn m(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    flags: &[&str],
    pattern: &str,
    resource: &str,
    expect: Expectation,
) {
    let input = json!({ "pattern": pattern, "resource": resource });
    g.case(n, desc, reqs, flags, "glob.match", input, expect);
}

fn cap(resource: &str) -> Value {
    json!({ "namespace": "docs", "action": "read", "resource": resource })
}

fn s(
    g: &mut Group,
    n: u16,
    desc: &str,
    flags: &[&str],
    child: &str,
    parent: &str,
    expect: Expectation,
) {
    g.case(
        n,
        desc,
        &["GLOB-EXACT"],
        flags,
        "capability.subset",
        json!({ "child": cap(child), "parent": cap(parent) }),
        expect,
    );
}

// 1–39: every RegExp metacharacter is literal (D1: only whole `*` / `**` segments are wildcards)
const LITERAL: &[&str] = &["GLOB-OTHER-LITERAL"];
const DOUBLE_STAR: &[&str] = &["GLOB-DOUBLE-STAR"];

/// Number, description, requirements, pattern, resource, matches.
type MatchRow = (u16, &'static str, Ids, &'static str, &'static str, bool);

#[rustfmt::skip]
const METACHARACTERS: &[MatchRow] = &[
    (1, "`|` is literal: `/a|/b` does not match `/a/x` (an unescaped, ungrouped alternation `^/a|/b$` does)", LITERAL, "/a|/b", "/a/x", false),
    (2, "`|` is literal: `/a|/b` matches itself", LITERAL, "/a|/b", "/a|/b", true),
    (3, "`|` inside a segment is literal", LITERAL, "/x/a|b", "/x/b", false),
    (4, "`+` is literal: `/a+` does not match `/aa`", LITERAL, "/a+", "/aa", false),
    (5, "`+` is literal: `/a+` matches itself", LITERAL, "/a+", "/a+", true),
    (6, "`$` is literal: `/a$/b` matches itself", LITERAL, "/a$/b", "/a$/b", true),
    (7, "`^` is literal: `/a/^b` matches itself", LITERAL, "/a/^b", "/a/^b", true),
    (8, "an unbalanced `(` is literal (an unescaped RegExp throws)", LITERAL, "/a(b", "/a(b", true),
    (9, "`(b|c)` is literal, not a group", LITERAL, "/a/(b|c)", "/a/b", false),
    (10, "`{2}` is literal, not a quantifier", LITERAL, "/a{2}", "/aa", false),
    (11, "`{2}` is literal: matches itself", LITERAL, "/a{2}", "/a{2}", true),
    (12, "`.` is literal: `/a/b.md` does not match `/a/bXmd`", LITERAL, "/a/b.md", "/a/bXmd", false),
    (13, "`.` is literal in `*.md`: no reading of D1 matches `/a/xXmd` (an unescaped `[^/]*.md` does)", LITERAL, "/a/*.md", "/a/xXmd", false),
    (14, "`?` is literal: `/a/b?` does not match `/a/b` (regex optional)", LITERAL, "/a/b?", "/a/b", false),
    (15, "`\\d` is literal, not a digit class", LITERAL, "/a/\\d", "/a/5", false),
    (16, "`.*` is a literal segment, not a wildcard", LITERAL, "/a/.*", "/a/xyz", false),
    (17, "`[^/]*` is literal", LITERAL, "/a/[^/]*", "/a/x", false),
    (18, "an unbalanced `)` is literal (an unescaped RegExp throws)", LITERAL, "/a/b)", "/a/b)", true),
    (19, "an unbalanced `[` is literal (an unescaped RegExp throws)", LITERAL, "/a/[", "/a/[", true),
    // Metacharacters next to real wildcards.
    (20, "`*` next to a literal `|` segment: `/a|/*` does not match `/a/x` (`^/a|/[^/]+$` does)", LITERAL, "/a|/*", "/a/x", false),
    (21, "`**` after a `.` segment: `/a/./**` does not match `/a/x` (the `.` segment is literal, resources are not normalized)", &["GLOB-EXACT"], "/a/./**", "/a/x", false),
];

fn match_rows(g: &mut Group, rows: &[MatchRow]) {
    for &(n, desc, reqs, pattern, resource, value) in rows {
        m(g, n, desc, reqs, &[], pattern, resource, matches(value));
    }
}

fn regex_metacharacters(g: &mut Group) {
    match_rows(g, METACHARACTERS);
}

// 40–49: `**` anywhere, several times (D2)
#[rustfmt::skip]
const DOUBLE_STARS: &[MatchRow] = &[
    (40, "two `**` segments: `/a/**/b/**` matches `/a/x/b/y/z` (both are wildcards, not just the first)", DOUBLE_STAR, "/a/**/b/**", "/a/x/b/y/z", true),
    (41, "three `**` segments: `/**/a/**/b/**` matches `/q/a/r/s/b/t`", DOUBLE_STAR, "/**/a/**/b/**", "/q/a/r/s/b/t", true),
    (42, "a second `**` is not a one-segment wildcard: `/a/**/b/**` matches `/a/b/c/d`", DOUBLE_STAR, "/a/**/b/**", "/a/b/c/d", true),
    (43, "two `**` do not create a partial wildcard: `/a/**/b/**` does not match `/a/x/bb/y`", DOUBLE_STAR, "/a/**/b/**", "/a/x/bb/y", false),
];

fn double_star(g: &mut Group) {
    match_rows(g, DOUBLE_STARS);
}

// 50–79: resources are opaque (D41)
const NORMALIZATION: &[&str] = &["ResourceNormalization"];
const EXACT: &[&str] = &["GLOB-EXACT"];
const NFC: &str = "/docs/caf\u{e9}";
const NFD: &str = "/docs/cafe\u{301}";

/// The answer: this boolean, or true as opaque text with false acceptable under D41 (a
/// normalizing implementation denies).
#[derive(Clone, Copy)]
enum Answer {
    Is(bool),
    OpaqueD41,
}

/// Number, description, requirements, pattern, resource, answer.
type NormalizedMatch = (u16, &'static str, Ids, &'static str, &'static str, Answer);

#[rustfmt::skip]
const NORMALIZED_MATCHES: &[NormalizedMatch] = &[
    (50, "NFC pattern, NFD resource (U+00E9 vs e + U+0301): different strings, no match", EXACT, NFC, NFD, Answer::Is(false)),
    (51, "NFD pattern, NFC resource: no match", EXACT, NFD, NFC, Answer::Is(false)),
    (52, "`*` segment then NFC vs NFD: `/docs/*/caf\u{e9}` does not match `/docs/x/cafe\u{301}`", EXACT, "/docs/*/caf\u{e9}", "/docs/x/cafe\u{301}", Answer::Is(false)),
    (53, "FULLWIDTH DIGIT ONE is not `1` (NFKC would fold it)", EXACT, "/docs/file1", "/docs/file\u{ff11}", Answer::Is(false)),
    (54, "U+212B ANGSTROM SIGN is not U+00C5 (NFC would fold it)", EXACT, "/docs/\u{212b}", "/docs/\u{c5}", Answer::Is(false)),
    (55, "U+FB01 LATIN SMALL LIGATURE FI is not `fi` (NFKC would fold it)", EXACT, "/docs/fi", "/docs/\u{fb01}", Answer::Is(false)),
    (56, "`ß` is not `ss` (case folding would fold it)", EXACT, "/docs/strasse", "/docs/stra\u{df}e", Answer::Is(false)),
    (57, "control: identical non-ASCII text matches", EXACT, NFD, NFD, Answer::Is(true)),
    // Path normalization: widening direction is `invalid` (valid false), denying direction is
    // acceptable.
    (60, "`..` is not resolved: `/project/x` does not match `/etc/../project/x`", EXACT, "/project/x", "/etc/../project/x", Answer::Is(false)),
    (61, "`..` is not resolved: `/project/*` does not match `/project/a/../b` (three segments)", EXACT, "/project/*", "/project/a/../b", Answer::Is(false)),
    (62, "`..` is not resolved in a pattern: `/etc/../project/*` does not match `/project/x`", EXACT, "/etc/../project/*", "/project/x", Answer::Is(false)),
    (63, "`/project/**` matches the opaque string `/project/../etc/passwd` (a normalizing matcher denies: acceptable)", &["GLOB-DOUBLE-STAR"], "/project/**", "/project/../etc/passwd", Answer::OpaqueD41),
];

/// Subset: number, description, child resource, parent resource, answer.
#[rustfmt::skip]
const NORMALIZED_SUBSETS: &[(u16, &str, &str, &str, Answer)] = &[
    (70, "subset: NFD child under an NFC parent is not a subset", "/docs/cafe\u{301}/**", "/docs/caf\u{e9}/**", Answer::Is(false)),
    (71, "subset: child `/etc/../project/x` is not under parent `/project/**` (no `..` resolution)", "/etc/../project/x", "/project/**", Answer::Is(false)),
    (72, "subset: child `/project/./x` is not under parent `/project/x` (no `.` removal)", "/project/./x", "/project/x", Answer::Is(false)),
    (73, "subset: fullwidth child `/docs/file\u{ff11}` is not under parent `/docs/file1`", "/docs/file\u{ff11}", "/docs/file1", Answer::Is(false)),
    (74, "subset: child `/project/../etc/**` is covered by parent `/project/**` as opaque text (a normalizing implementation refuses: acceptable)", "/project/../etc/**", "/project/**", Answer::OpaqueD41),
];

/// The expectation of `answer` for the result member `member`.
fn answer(member: &str, answer: Answer) -> Expectation {
    match answer {
        Answer::Is(value) => Expectation::valid(json!({ member: value })),
        Answer::OpaqueD41 => Expectation::acceptable(
            "D41",
            vec![
                Expected::valid(json!({ member: true })),
                Expected::valid(json!({ member: false })),
            ],
        ),
    }
}

fn normalization(g: &mut Group) {
    for &(n, desc, reqs, pattern, resource, a) in NORMALIZED_MATCHES {
        m(
            g,
            n,
            desc,
            reqs,
            NORMALIZATION,
            pattern,
            resource,
            answer("matches", a),
        );
    }
    for &(n, desc, child, parent, a) in NORMALIZED_SUBSETS {
        s(
            g,
            n,
            desc,
            NORMALIZATION,
            child,
            parent,
            answer("subset", a),
        );
    }
}
