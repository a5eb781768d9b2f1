//! Area `checks`: the seven built-in check functions (`check.run`, spec §6.2–6.3, D12, D28,
//! D29) and contract output verification (`output.verify`, §6.4, §10.3, D12, D28, D30).
//!
//! Regex expectations are what V8 answers for `new RegExp(pattern, flags).test(subject)`:
//! every probe below was run on node v20.20.2 (the description says "V8: …"). Schema
//! expectations follow draft-07 and the strictness of D29. Nothing is read off the reference.

use serde_json::{json, Value};

use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};

/// The groups, in output order: (name, description, builder).
#[rustfmt::skip]
const GROUPS: &[super::PlainGroupDef] = &[
    ("regex_match", "check.run regex_match: ECMAScript RegExp semantics (V8-confirmed), flags, field, limits (§6.2, D12).", build_regex),
    ("json_schema", "check.run json_schema: draft-07 validation under ajv-strict rules (§6.2, D12, D29).", build_schema),
    ("string_length", "check.run string_length: UTF-16 code units, inclusive optional bounds (§6.2, D12, D28).", build_strlen),
    ("array_length", "check.run array_length: inclusive optional bounds on arrays (§6.2, D28).", build_arrlen),
    ("field_exists", "check.run field_exists: dot-paths over own JSON members, arrays by canonical index (§6.2, D12, D28).", build_fields),
    ("exit_code", "check.run exit_code: `{exitCode: number}` equal to `expected` (§6.2, D28).", build_exit),
    ("output_equals", "check.run output_equals: equality of RFC 8785 canonical forms (§6.2, D12, D28).", build_equals),
    ("registry", "check.run name lookup: the seven built-ins exist, anything else is unknown_check (§6.3).", build_registry),
    ("output-verification", "output.verify: VERIFY_OUTPUT of §10.3 with the composite semantics of §6.4 (D12, D28, D30).", build_verify),
];

/// Builds the `checks` area: one group per built-in, `registry`, `output-verification`.
pub fn build(area: &mut Area) {
    super::build_plain_groups(area, GROUPS);
}

/// A flag a group defines: (name, bug type, clause, condition, effect).
type FlagDef = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

fn define_flags(g: &mut Group, flags: &[FlagDef]) {
    for &(name, bug_type, clause, condition, effect) in flags {
        g.define_flag(name, bug_type, clause, condition, effect);
    }
}

#[rustfmt::skip]
const SCHEMA_FORMAT: FlagDef = ("SchemaFormat", "AMBIGUITY", "D29",
    "A schema using `format`: strict ajv without a format plugin refuses it (`invalid_schema`); validating known formats is acceptable.",
    "The same contract accepts, rejects or refuses an output depending on the validator.");
#[rustfmt::skip]
const LENGTH_BOUNDS: FlagDef = ("LengthBounds", "AMBIGUITY", "D28",
    "`min > max` in string_length / array_length is `invalid_params`; answering `passed: false` is acceptable.",
    "A contract with impossible bounds fails every output instead of being reported.");
#[rustfmt::skip]
const EXPECTED_RESULT_DETAILS: FlagDef = ("ExpectedResultDetails", "AMBIGUITY", "D28",
    "`expectedResult` with a `details` member: details never take part in the comparison; comparing them is acceptable.",
    "The same contract passes in one implementation and fails in another because of message text.");
#[rustfmt::skip]
const SPEC_EXTRA_FIELDS: FlagDef = ("SpecExtraFields", "AMBIGUITY", "D30",
    "A verification spec with members its method does not use is `invalid_spec`; accepting it is acceptable.",
    "A typo or misplaced member in a contract is silently ignored.");
#[rustfmt::skip]
const SCORE_RANGE_BYPASS: FlagDef = ("ScoreRangeBypass", "AUTH_BYPASS", "§6.4, D30",
    "A weighted composite whose weights or threshold a lenient implementation accepts, built \
        so that accepting it passes a verification whose steps fail (or reports a score outside \
        [0, 1]).",
    "An output that fails its contract's checks is attested as verified.");

fn pass() -> Expectation {
    Expectation::valid(json!({"passed": true, "score": 1}))
}

fn fail() -> Expectation {
    Expectation::valid(json!({"passed": false, "score": 0}))
}

fn verdict(b: bool) -> Expectation {
    if b {
        pass()
    } else {
        fail()
    }
}

fn err(code: &str) -> Expectation {
    Expectation::invalid(code, "6.2")
}

#[allow(clippy::too_many_arguments)]
fn run(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    flags: &[&str],
    name: &str,
    params: Option<Value>,
    output: Value,
    expect: Expectation,
) {
    let mut input = json!({"name": name, "output": output});
    if let Some(p) = params {
        input["params"] = p;
    }
    g.case(n, desc, reqs, flags, "check.run", input, expect);
}

/// A `check.run` case: (number, description, requirement ids, flags, check name, params
/// (`None`: absent), output, expected).
type Run<'a> = (
    u16,
    &'a str,
    &'a [&'a str],
    &'a [&'a str],
    &'a str,
    Option<Value>,
    Value,
    Expectation,
);

/// One `check.run` case per row.
fn run_rows(g: &mut Group, rows: Vec<Run>) {
    for (n, desc, reqs, flags, name, params, output, expect) in rows {
        run(g, n, desc, reqs, flags, name, params, output, expect);
    }
}

fn re(pattern: &str, flags: &str) -> Value {
    if flags.is_empty() {
        json!({"pattern": pattern})
    } else {
        json!({"pattern": pattern, "flags": flags})
    }
}

/// Syntax errors (V8: SyntaxError) → invalid_params: (number, description, pattern, flags).
#[rustfmt::skip]
const REGEX_SYNTAX_ERRORS: &[(u16, &str, &str, &str)] = &[
    (70, "Unclosed group `(` (V8: SyntaxError).", "(", ""),
    (71, "Unclosed class `[` (V8: SyntaxError).", "[", ""),
    (72, "Nothing to repeat `a**` (V8: SyntaxError).", "a**", ""),
    (73, "Out-of-order quantifier `a{2,1}` (V8: SyntaxError).", "a{2,1}", ""),
    (74, "`\\u{110000}` with `u` is beyond Unicode (V8: SyntaxError).", "\\u{110000}", "u"),
    (75, "`\\-` outside a class with `u`: no identity escapes in Unicode mode (V8: SyntaxError).", "\\-", "u"),
    (76, "`\\k` with `u` (V8: SyntaxError).", "\\k", "u"),
    (77, "Inline modifier `(?i)` is not ECMAScript (V8: SyntaxError).", "(?i)abc", ""),
    // A backreference naming no group is an early error (ECMA-262 §22.2.1.1), so
    // `new RegExp` throws before any engine could refuse the backreference itself.
    (302, "`\\k<n>` with `u` and no group named `n` (V8: SyntaxError, invalid named capture referenced).", "\\k<n>", "u"),
    (303, "`(?<m>a)\\k<n>`: in a pattern with named groups, `\\k` must name one of them (V8: SyntaxError).", "(?<m>a)\\k<n>", ""),
    (304, "`(a)\\1[`: the unclosed class makes the whole pattern a SyntaxError, backreference or not (V8: SyntaxError).", "(a)\\1[", ""),
];

/// Flags outside `imsu` → invalid_params: (number, description, flags).
#[rustfmt::skip]
const REFUSED_FLAGS: &[(u16, &str, &str)] = &[
    (80, "Flag `g` (stateful `lastIndex` in JS) is refused.", "g"),
    (81, "Flag `y` is refused.", "y"),
    (82, "Flag `d` (valid in V8, not in the allowed set) is refused.", "d"),
    (83, "Flag `v` (valid in V8, not in the allowed set) is refused.", "v"),
    (84, "Unknown flag `x`.", "x"),
    (85, "Repeated flag `ii`.", "ii"),
    (86, "Repeated flag among others `imi`.", "imi"),
    (87, "Uppercase `I` is not a flag.", "I"),
    (88, "`gi`: one allowed and one refused flag.", "gi"),
];

/// Unsupported features, acceptable [unsupported_pattern, V8's answer]: (number, description, pattern, subject, V8's answer).
#[rustfmt::skip]
const UNSUPPORTED_FEATURES: &[(u16, &str, &str, &str, bool)] = &[
    (90, "Backreference `(a)\\1` vs `aa` (V8: true).", "(a)\\1", "aa", true),
    (91, "Backreference `(a)\\1` vs `ab` (V8: false).", "(a)\\1", "ab", false),
    (92, "Lookahead `x(?=y)` vs `xy` (V8: true).", "x(?=y)", "xy", true),
    (93, "Negative lookahead `x(?!y)` vs `xy` (V8: false).", "x(?!y)", "xy", false),
    (94, "Lookbehind `(?<!a)b` vs `ab` (V8: false).", "(?<!a)b", "ab", false),
    (95, "Lookbehind `(?<=\\$)\\d+` vs `cost $42` (V8: true).", "(?<=\\$)\\d+", "cost $42", true),
    (96, "Named backreference `(?<n>a)\\k<n>` vs `aa` (V8: true).", "(?<n>a)\\k<n>", "aa", true),
];

/// Property escapes with `u` that are SyntaxErrors: (number, description, pattern).
#[rustfmt::skip]
const PROPERTY_SYNTAX_ERRORS: &[(u16, &str, &str)] = &[
    (169, "`\\p{letter}` with `u`: property names are case-sensitive (V8: SyntaxError).", "\\p{letter}"),
    (170, "`\\p{Script=greek}` with `u` (V8: SyntaxError).", "\\p{Script=greek}"),
    (171, "`\\p{sc=Foo}` with `u`: unknown script (V8: SyntaxError).", "\\p{sc=Foo}"),
    (172, "`\\p{L` with `u`: unterminated (V8: SyntaxError).", "\\p{L"),
    (173, "`\\p` with `u` and no braces (V8: SyntaxError).", "\\p"),
    (174, "`\\p{Greek}` with `u`: a script needs `Script=` (V8: SyntaxError).", "\\p{Greek}"),
    (175, "`[\\p{L}-z]` with `u`: a property escape cannot bound a range (V8: SyntaxError).", "[\\p{L}-z]"),
    (176, "`\\p{Script}` with `u`: a name without a value (V8: SyntaxError).", "\\p{Script}"),
    (177, "`\\P{}` with `u` (V8: SyntaxError).", "\\P{}"),
];

/// Syntax errors of `new RegExp` (V8: SyntaxError): (number, description, pattern, flags, subject).
#[rustfmt::skip]
const MORE_SYNTAX_ERRORS: &[(u16, &str, &str, &str, &str)] = &[
    (214, "`a)`: an unmatched `)` (V8: SyntaxError).", "a)", "", "a"),
    (222, "`a{2` with `u`: an incomplete quantifier (V8: SyntaxError).", "a{2", "u", "aa"),
    (223, "A lone `{` with `u` (V8: SyntaxError).", "{", "u", "{"),
    (224, "`{2}` at the start without `u`: nothing to repeat (V8: SyntaxError).", "{2}", "", "{2}"),
    (225, "A lone `}` with `u` (V8: SyntaxError).", "a}", "u", "a}"),
    (242, "A group name starting with a digit, `(?<1a>x)` (V8: SyntaxError).", "(?<1a>x)", "", "x"),
    (243, "Two groups named `a` (V8: SyntaxError).", "(?<a>x)(?<a>y)", "", "xy"),
    (248, "`\\01` with `u` (V8: SyntaxError).", "\\01", "u", "\u{1}"),
    (253, "`\\c1` with `u` (V8: SyntaxError).", "\\c1", "u", "x"),
    (256, "`\\xZ` with `u` (V8: SyntaxError).", "\\xZ", "u", "xZ"),
    (264, "`\\-` with `u` (V8: SyntaxError).", "\\-", "u", "-"),
    (267, "`(?<a>x)\\k` without `u` (V8: SyntaxError).", "(?<a>x)\\k", "", "xk"),
    (269, "`\\a` with `u` (V8: SyntaxError).", "\\a", "u", "a"),
    (273, "`[\\1]` with `u` (V8: SyntaxError).", "[\\1]", "u", "\u{1}"),
    (278, "`[\\d-z]` with `u` (V8: SyntaxError).", "[\\d-z]", "u", "-"),
    (296, "An empty group name `(?<>x)` (V8: SyntaxError).", "(?<>x)", "", "x"),
    (297, "A group name with a lone high surrogate escape, `(?<\\uD835a>x)` (V8: SyntaxError).", "(?<\\uD835a>x)", "", "x"),
    (298, "`\\u{}` with `u`: no hex digit (V8: SyntaxError).", "\\u{}", "u", "\u{0}"),
    (299, "`\\u{61` with `u`: no closing brace (V8: SyntaxError).", "\\u{61", "u", "a"),
    (300, "`(?<a>x)[\\k]` without `u`: with named groups, `\\k` is no identity escape, in a class too (V8: SyntaxError).", "(?<a>x)[\\k]", "", "xk"),
];

const CLS: &[&str] = &["CHECK-REGEX-ECMASCRIPT-CLASSES", "CHECK-SCORE-BINARY"];
const UNI: &[&str] = &["CHECK-REGEX-UNICODE-FLAG"];
const FLG: &[&str] = &["CHECK-REGEX-FLAGS"];
const SRCH: &[&str] = &["CHECK-REGEX-SEARCH", "CHECK-SCORE-BINARY"];
const UCLS: &[&str] = &["CHECK-REGEX-UNICODE-FLAG", "CHECK-REGEX-ECMASCRIPT-CLASSES"];
const DIA: &[&str] = &["RegexDialect"];

/// A V8 probe: (number, description, requirements, pattern, flags, subject, V8 answer).
type Probe<'a> = (u16, &'a str, &'a [&'a str], &'a str, &'a str, &'a str, bool);

/// One `regex_match` case per probe: V8's answer is the expected verdict.
fn run_probes(g: &mut Group, flags: &[&str], probes: Vec<Probe<'_>>) {
    for (n, d, r, p, f, s, ans) in probes {
        let (params, output) = (Some(re(p, f)), json!(s));
        run(
            g,
            n,
            d,
            r,
            flags,
            "regex_match",
            params,
            output,
            verdict(ans),
        );
    }
}

fn build_regex(g: &mut Group) {
    regex_classes(g);
    regex_syntax_and_flags(g);
    regex_limits_and_fields(g);
    regex_properties_and_units(g);
    regex_mutation_gaps(g);
}

fn regex_classes(g: &mut Group) {
    // Non-`u` matching by UTF-16 code unit (astral characters as two units): 178–206.
    // (`\p{…}` with `u`: 148–177.)
    let probes: Vec<Probe> = vec![
        (1, "`^\\d+$` vs Arabic-Indic digits `١٢٣`: `\\d` is ASCII only (V8: false).", CLS, "^\\d+$", "", "١٢٣", false),
        (2, "`^\\d+$` vs `123` (V8: true).", CLS, "^\\d+$", "", "123", true),
        (3, "`^\\w+$` vs `é`: `\\w` is ASCII only (V8: false).", CLS, "^\\w+$", "", "é", false),
        (4, "`^\\w+$` vs `abc_9` (V8: true).", CLS, "^\\w+$", "", "abc_9", true),
        (5, "`\\bx` vs `éx`: `é` is not a word character, so there is a boundary before `x` (V8: true).", CLS, "\\bx", "", "éx", true),
        (6, "`\\bx` vs `ax`: no boundary between two word characters (V8: false).", CLS, "\\bx", "", "ax", false),
        (7, "`\\bé` vs `é`: no word characters at all, so no boundary (V8: false).", CLS, "\\bé", "", "é", false),
        (8, "`^\\W$` vs `é` (V8: true).", CLS, "^\\W$", "", "é", true),
        (9, "`^\\D$` vs `١` (V8: true).", CLS, "^\\D$", "", "١", true),
        (10, "`a.b` vs `a\\u2028b`: `.` excludes line terminators U+2028 (V8: false).", CLS, "a.b", "", "a\u{2028}b", false),
        (11, "`a.b` vs `a\\u2029b` (V8: false).", CLS, "a.b", "", "a\u{2029}b", false),
        (12, "`a.b` vs `a\\nb` (V8: false).", CLS, "a.b", "", "a\nb", false),
        (13, "`a.b` vs `a\\rb` (V8: false).", CLS, "a.b", "", "a\rb", false),
        (14, "`[\\s]` vs U+FEFF: ECMAScript whitespace includes the BOM (V8: true).", CLS, "[\\s]", "", "\u{feff}", true),
        (15, "`\\s` vs U+0085 NEL: not ECMAScript whitespace (V8: false).", CLS, "\\s", "", "\u{85}", false),
        (16, "`^\\S$` vs U+0085 (V8: true).", CLS, "^\\S$", "", "\u{85}", true),
        (17, "`\\s` vs U+00A0 NBSP (V8: true).", CLS, "\\s", "", "\u{a0}", true),
        (18, "`\\s` vs U+3000 ideographic space (V8: true).", CLS, "\\s", "", "\u{3000}", true),
        (21, "`^.$` vs 😀 with `u`: one code point (V8: true).", UNI, "^.$", "u", "😀", true),
        (24, "`^[😀]$` vs 😀 with `u` (V8: true).", UNI, "^[😀]$", "u", "😀", true),
        (26, "`\\uD83D` vs 😀 with `u`: surrogate pairs are not split (V8: false).", UNI, "\\uD83D", "u", "😀", false),
        (28, "`^[^a]$` vs 😀 with `u` (V8: true).", UNI, "^[^a]$", "u", "😀", true),
        (29, "`\\u{61}` without `u` is `u` repeated 61 times, not `a` (V8: false; a known regress mismatch).", UNI, "\\u{61}", "", "a", false),
        (30, "`\\u{61}` with `u` is `a` (V8: true).", UNI, "\\u{61}", "u", "a", true),
        (31, "`[\\u{1F600}]` with `u` vs 😀 (V8: true).", UNI, "[\\u{1F600}]", "u", "😀", true),
        (33, "`\\p{L}` without `u` is the literal text `p{L}` (Annex B identity escape) (V8: true on `p{L}`).", UNI, "\\p{L}", "", "p{L}", true),
        (34, "`K` with `i` vs U+212A KELVIN SIGN: non-`u` case folding is simple uppercase mapping (V8: false).", UNI, "K", "i", "\u{212a}", false),
        (35, "`K` with `iu` vs U+212A: Unicode case folding (V8: true).", UNI, "K", "iu", "\u{212a}", true),
        (36, "`ſ` with `i` vs `s` (non-`u` folding does not map U+017F to `s`) (V8: false; a known regress mismatch).", UNI, "ſ", "i", "s", false),
        (37, "`s` with `iu` vs `ſ` (V8: true).", UNI, "s", "iu", "ſ", true),
        (38, "`^\\w$` with `iu` vs `ſ`: with `u`+`i`, `\\w` includes characters folding into it (V8: true).", UNI, "^\\w$", "iu", "ſ", true),
        (39, "`^\\w$` with `i` (no `u`) vs `ſ` (V8: false).", UNI, "^\\w$", "i", "ſ", false),
        (40, "`abc` with `i` vs `xABCx` (V8: true).", FLG, "abc", "i", "xABCx", true),
        (41, "`abc` without `i` vs `xABCx` (V8: false).", FLG, "abc", "", "xABCx", false),
        (42, "`^b` with `m` vs `a\\nb` (V8: true).", FLG, "^b", "m", "a\nb", true),
        (43, "`^b` without `m` vs `a\\nb` (V8: false).", FLG, "^b", "", "a\nb", false),
        (44, "`a$` with `m` vs `a\\nb` (V8: true).", FLG, "a$", "m", "a\nb", true),
        (45, "`a.b` with `s` vs `a\\nb` (V8: true).", FLG, "a.b", "s", "a\nb", true),
        (46, "`a.b` with `s` vs `a\\u2028b` (V8: true).", FLG, "a.b", "s", "a\u{2028}b", true),
        (47, "`é` with `i` vs `É` (V8: true).", FLG, "é", "i", "É", true),
        (48, "All four allowed flags at once, `imsu`: `^A.B$` vs `x\\na\\nb` (V8: true).", FLG, "^A.B$", "imsu", "x\na\nb", true),
        (50, "`b` vs `abc`: search, not full match (V8: true).", SRCH, "b", "", "abc", true),
        (51, "`^b` vs `abc` (V8: false).", SRCH, "^b", "", "abc", false),
        (52, "Empty pattern vs empty subject (V8: true).", SRCH, "", "", "", true),
        (53, "`^$` vs empty subject (V8: true).", SRCH, "^$", "", "", true),
        (54, "`[]` (empty class) matches nothing (V8: false).", SRCH, "[]", "", "a", false),
        (55, "`[^]` matches any unit including `\\n` (V8: true).", SRCH, "[^]", "", "\n", true),
        (56, "`\\cJ` is U+000A (V8: true on `\\n`).", SRCH, "\\cJ", "", "\n", true),
        (57, "`a{,3}` is literal text in Annex B (V8: true on `a{,3}`).", SRCH, "a{,3}", "", "a{,3}", true),
        (58, "A lone `{` is a literal in Annex B (V8: true).", SRCH, "{", "", "{", true),
        (59, "Leftmost alternative semantics do not affect a boolean test: `(a|ab)(c|bcd)` vs `abcd` (V8: true).", SRCH, "(a|ab)(c|bcd)", "", "abcd", true),
        (60, "`a|` matches the empty string anywhere (V8: true).", SRCH, "a|", "", "x", true),
        (61, "`\\-` outside a class without `u` is an identity escape (V8: true on `-`).", SRCH, "\\-", "", "-", true),
        (62, "`[a-\\d]` (Annex B class range with a class escape) contains `-` (V8: true).", SRCH, "[a-\\d]", "", "-", true),
        (63, "`^[\\w-]+$` vs `a-b` (V8: true).", SRCH, "^[\\w-]+$", "", "a-b", true),
        (64, "`\\k<x>` without named groups and without `u` is the literal `k<x>` (V8: true).", SRCH, "\\k<x>", "", "k<x>", true),
        (65, "`\\x41` and ASCII: `\\x41` vs `A` (V8: true).", SRCH, "\\x41", "", "A", true),
        (66, "`^.{2}$` vs composed `é` (one unit) (V8: false).", SRCH, "^.{2}$", "", "é", false),
        (67, "`^.{2}$` vs decomposed `e\\u0301` (two units) (V8: true).", SRCH, "^.{2}$", "", "e\u{301}", true),
        (68, "Lazy quantifier `a+?b` vs `aab` (V8: true).", SRCH, "a+?b", "", "aab", true),
    ];
    run_probes(g, DIA, probes);
}

fn regex_syntax_and_flags(g: &mut Group) {
    // Syntax errors and flags.
    let syn = &["CHECK-REGEX-SYNTAX"];
    for &(n, d, p, f) in REGEX_SYNTAX_ERRORS {
        let expect = err("invalid_params");
        let params = Some(re(p, f));
        let output = json!("abc");
        run(g, n, d, syn, DIA, "regex_match", params, output, expect);
    }
    for &(n, d, f) in REFUSED_FLAGS {
        let expect = err("invalid_params");
        let params = Some(re("a", f));
        run(g, n, d, FLG, &[], "regex_match", params, json!("a"), expect);
    }
    run(
        g,
        89,
        "Empty `flags` string is the same as no flags.",
        FLG,
        &[],
        "regex_match",
        Some(json!({"pattern": "a", "flags": ""})),
        json!("a"),
        pass(),
    );

    // Unsupported features: acceptable [unsupported_pattern, V8 answer].
    let uns = &["CHECK-REGEX-UNSUPPORTED"];
    for &(n, d, p, s, v8) in UNSUPPORTED_FEATURES {
        run(
            g,
            n,
            d,
            uns,
            &["RegexUnsupported"],
            "regex_match",
            Some(re(p, "")),
            json!(s),
            Expectation::acceptable(
                "D12",
                vec![
                    Expected::invalid("unsupported_pattern", "6.2"),
                    Expected::valid(json!({"passed": v8, "score": if v8 {1} else {0}})),
                ],
            ),
        );
    }
}

fn regex_limits_and_fields(g: &mut Group) {
    // Hostile patterns, sized so that a backtracking engine needs > 2^40 steps on every
    // machine (the retired 0100–0102 used 28–30 characters: V8 answered in 48–78 s here, a
    // timeout on this machine but possibly an answer in time on a much faster one).
    let hostile = format!("{}!", "a".repeat(48));
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (104, "`^(a+)+$` vs 48×`a` + `!`: a backtracking engine needs > 2^47 steps; the check must answer false promptly.", &["CHECK-REGEX-LINEAR"], &["RegexDialect"],
            "regex_match", Some(re("^(a+)+$", "")), json!(hostile), fail()),
        (105, "`^(a|a)*$` vs 48×`a` + `!`: > 2^47 backtracking steps.", &["CHECK-REGEX-LINEAR"], &["RegexDialect"],
            "regex_match", Some(re("^(a|a)*$", "")), json!(hostile), fail()),
        (106, "`^(a*)*b$` vs 48×`a`: > 2^47 backtracking steps.", &["CHECK-REGEX-LINEAR"], &["RegexDialect"],
            "regex_match", Some(re("^(a*)*b$", "")), json!("a".repeat(48)), fail()),
        (103, "`(x+x+)+y` vs 5000×`x`: polynomial blow-up for backtrackers (V8: false).", &["CHECK-REGEX-LINEAR"], &[],
            "regex_match", Some(re("(x+x+)+y", "")), json!("x".repeat(5000)), fail()),
    ];
    run_rows(g, rows);

    // Limits.
    let lim = &["CHECK-REGEX-LIMITS"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (110, "Pattern of exactly 1024 UTF-16 units is allowed.", lim, &[],
            "regex_match", Some(re(&"a".repeat(1024), "")), json!("a".repeat(1024)), pass()),
        (111, "Pattern of 1025 UTF-16 units → limit_exceeded.", lim, &[],
            "regex_match", Some(re(&"a".repeat(1025), "")), json!("a"), err("limit_exceeded")),
        (112, "Pattern of 513 😀 = 1026 UTF-16 units (513 code points) → limit_exceeded.", lim, &["Utf16Length"],
            "regex_match", Some(re(&"😀".repeat(513), "u")), json!("😀"), err("limit_exceeded")),
        (113, "Subject of 1 MiB + 1 ASCII characters → limit_exceeded.", lim, &[],
            "regex_match", Some(re("a", "")), json!("a".repeat((1 << 20) + 1)), err("limit_exceeded")),
        (301, "Subject of exactly 1 MiB (1,048,576 ASCII characters) is allowed.", lim, &[],
            "regex_match", Some(re("a", "")), json!("a".repeat(1 << 20)), pass()),
    ];
    run_rows(g, rows);

    // field and non-string.
    let fld = &["CHECK-REGEX-FIELD"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (120, "`field` dot-path `result.status` selects the string to test.", fld, &[],
            "regex_match", Some(json!({"pattern": "^ok$", "field": "result.status"})), json!({"result": {"status": "ok"}, "status": "bad"}), pass()),
        (121, "`field` selects a non-matching string although another member matches.", fld, &[],
            "regex_match", Some(json!({"pattern": "^ok$", "field": "status"})), json!({"result": {"status": "ok"}, "status": "bad"}), fail()),
        (122, "`field` missing → passed false.", fld, &[],
            "regex_match", Some(json!({"pattern": ".*", "field": "nope"})), json!({"status": "ok"}), fail()),
        (123, "`field` is a number: never stringified → passed false (`\\d` would match `123`).", fld, &[],
            "regex_match", Some(json!({"pattern": "\\d", "field": "n"})), json!({"n": 123}), fail()),
        (124, "`field` is `null` → passed false.", fld, &[],
            "regex_match", Some(json!({"pattern": "null", "field": "n"})), json!({"n": null}), fail()),
        (125, "`field` through an array index `items.1`.", fld, &[],
            "regex_match", Some(json!({"pattern": "^b$", "field": "items.1"})), json!({"items": ["a", "b"]}), pass()),
        (126, "`field` is an object → passed false (not `[object Object]`).", fld, &[],
            "regex_match", Some(json!({"pattern": "object", "field": "o"})), json!({"o": {}}), fail()),
    ];
    run_rows(g, rows);
    let ns = &["CHECK-REGEX-NON-STRING"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (130, "Output is a number, no `field`: passed false (never stringified).", ns, &[], "regex_match", Some(re("1", "")), json!(123), fail()),
        (131, "Output is `null`, no `field`.", ns, &[], "regex_match", Some(re("null", "")), Value::Null, fail()),
        (132, "Output is an array of strings, no `field`.", ns, &[], "regex_match", Some(re("a", "")), json!(["a"]), fail()),
        (133, "Output is `true`, no `field`.", ns, &[], "regex_match", Some(re("true", "")), json!(true), fail()),
        (134, "Output is an object, no `field`: `.*` would match any string but the output is not one.", ns, &[],
            "regex_match", Some(re(".*", "")), json!({"a": "b"}), fail()),
    ];
    run_rows(g, rows);

    // Params shape.
    let ps = &["CHECK-PARAMS-SHAPE"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (140, "No params at all (pattern is required).", ps, &[], "regex_match", None, json!("a"), err("invalid_params")),
        (141, "Params is a string.", ps, &[], "regex_match", Some(json!("a")), json!("a"), err("invalid_params")),
        (142, "`pattern` missing.", ps, &[], "regex_match", Some(json!({"flags": "i"})), json!("a"), err("invalid_params")),
        (143, "`pattern` is a number.", ps, &[], "regex_match", Some(json!({"pattern": 1})), json!("1"), err("invalid_params")),
        (144, "`flags` is an array.", ps, &[], "regex_match", Some(json!({"pattern": "a", "flags": ["i"]})), json!("a"), err("invalid_params")),
        (145, "`field` is a number.", ps, &[], "regex_match", Some(json!({"pattern": "a", "field": 0})), json!(["a"]), err("invalid_params")),
        (146, "Unknown param `flag`.", ps, &[], "regex_match", Some(json!({"pattern": "a", "flag": "i"})), json!("a"), err("invalid_params")),
        (147, "Syntax error in the pattern is reported even when the output is not a string.", &["CHECK-REGEX-SYNTAX"], &[],
            "regex_match", Some(re("(", "")), json!(42), err("invalid_params")),
    ];
    run_rows(g, rows);
}

fn regex_properties_and_units(g: &mut Group) {
    // Unicode property escapes (V8-confirmed on node v20.20.2).
    let props: Vec<Probe> = vec![
        (148, "`^\\p{L}+$` with `u` vs `é` (V8: true).", UNI, "^\\p{L}+$", "u", "é", true),
        (149, "`^\\p{L}+$` with `u` vs `a1` (V8: false).", UNI, "^\\p{L}+$", "u", "a1", false),
        (150, "`^\\p{Lu}$` with `u` vs `É` (V8: true).", UNI, "^\\p{Lu}$", "u", "É", true),
        (151, "`^\\p{Lu}$` with `u` vs `é` (V8: false).", UNI, "^\\p{Lu}$", "u", "é", false),
        (152, "`^\\P{L}$` with `u` vs `1` (V8: true).", UNI, "^\\P{L}$", "u", "1", true),
        (153, "`^\\P{L}$` with `u` vs `x` (V8: false).", UNI, "^\\P{L}$", "u", "x", false),
        (154, "`^\\p{Script=Greek}+$` with `u` vs `αβγ` (V8: true).", UNI, "^\\p{Script=Greek}+$", "u", "αβγ", true),
        (155, "`^\\p{sc=Greek}$` with `u` vs `a` (V8: false).", UNI, "^\\p{sc=Greek}$", "u", "a", false),
        (156, "`^\\p{General_Category=Letter}$` with `u` vs `ж` (V8: true).", UNI, "^\\p{General_Category=Letter}$", "u", "ж", true),
        (157, "`^\\p{Letter}$` (long General_Category name) with `u` vs `ж` (V8: true).", UNI, "^\\p{Letter}$", "u", "ж", true),
        (158, "`^\\p{gc=Nd}+$` with `u` vs `٣4` (V8: true).", UNI, "^\\p{gc=Nd}+$", "u", "٣4", true),
        (159, "`^[\\p{L}\\d]+$` with `u` vs `ab12`: a property escape inside a class (V8: true).", UNI, "^[\\p{L}\\d]+$", "u", "ab12", true),
        (160, "`^[^\\p{L}]$` with `u` vs `é` (V8: false).", UNI, "^[^\\p{L}]$", "u", "é", false),
        (161, "`^\\p{Lu}$` with `iu` vs `é`: case-insensitive property match (V8: true).", UNI, "^\\p{Lu}$", "ui", "é", true),
        (162, "`^\\P{Lu}$` with `iu` vs `A`: the complement is taken before case folding (V8: true).", UNI, "^\\P{Lu}$", "ui", "A", true),
        (163, "`^\\p{scx=Grek}$` with `u` vs `α`: Script_Extensions with a four-letter code (V8: true).", UNI, "^\\p{scx=Grek}$", "u", "α", true),
        (164, "`^\\p{L}$` with `u` vs 😀 (V8: false).", UNI, "^\\p{L}$", "u", "😀", false),
        (165, "`^\\p{Emoji}$` with `u` vs 😀: a binary property (V8: true).", UNI, "^\\p{Emoji}$", "u", "😀", true),
        (166, "`^\\p{L}$` without `u` vs `é`: `\\p` is the literal `p` (V8: false).", UNI, "^\\p{L}$", "", "é", false),
        (167, "`^[\\P{L}]$` with `u` vs `é` (V8: false).", UNI, "^[\\P{L}]$", "u", "é", false),
        (168, "`^\\p{Any}$` with `u` vs 😀 (V8: true).", UNI, "^\\p{Any}$", "u", "😀", true),
    ];
    for (n, d, r, p, f, s, ans) in props {
        let (params, output) = (Some(re(p, f)), json!(s));
        run(g, n, d, r, DIA, "regex_match", params, output, verdict(ans));
    }
    for &(n, d, p) in PROPERTY_SYNTAX_ERRORS {
        let expect = err("invalid_params");
        let reqs = &["CHECK-REGEX-SYNTAX", "CHECK-REGEX-UNICODE-FLAG"];
        let params = Some(re(p, "u"));
        let output = json!("abc");
        run(g, n, d, reqs, DIA, "regex_match", params, output, expect);
    }

    // Without `u`, matching is by UTF-16 code unit: an astral character (😀 = U+1F600 =
    // D83D DE00) is two units in the subject and in the pattern (D12). V8-confirmed on node
    // v20.20.2.
    let units: Vec<Probe> = vec![
        (178, "`^.$` vs 😀 without `u`: `.` matches one UTF-16 unit and 😀 is two (V8: false).", UCLS, "^.$", "", "😀", false),
        (179, "`^..$` vs 😀 without `u`: two units (V8: true).", UCLS, "^..$", "", "😀", true),
        (180, "`^[😀]$` vs 😀 without `u`: the class holds the two surrogates as separate members (V8: false).", UCLS, "^[😀]$", "", "😀", false),
        (181, "`^[😀]{2}$` vs 😀 without `u`: each surrogate matches the class once (V8: true).", UCLS, "^[😀]{2}$", "", "😀", true),
        (182, "`\\uD83D` vs 😀 without `u`: a surrogate escape matches the high unit (V8: true).", UNI, "\\uD83D", "", "😀", true),
        (183, "`\\uDE00` vs 😀 without `u`: the low unit is found by the search (V8: true).", UNI, "\\uDE00", "", "😀", true),
        (184, "`^\\uDE00` vs 😀 without `u`: the low unit is not at the start (V8: false).", UNI, "^\\uDE00", "", "😀", false),
        (185, "`^[^a]$` vs 😀 without `u`: a negated class consumes one unit (V8: false).", UCLS, "^[^a]$", "", "😀", false),
        (186, "`^\\S$` vs 😀 without `u` (V8: false).", UCLS, "^\\S$", "", "😀", false),
        (187, "`^\\W\\W$` vs 😀 without `u`: each surrogate is a non-word unit (V8: true).", UCLS, "^\\W\\W$", "", "😀", true),
        (188, "`^\\D$` vs 😀 without `u` (V8: false).", UCLS, "^\\D$", "", "😀", false),
        (189, "`^😀{2}$` vs 😀😀 without `u`: the quantifier repeats the low surrogate only (V8: false).", UNI, "^😀{2}$", "", "😀😀", false),
        (190, "`^😀{2}$` vs 😀😀 with `u`: the quantifier repeats the code point (V8: true).", UNI, "^😀{2}$", "u", "😀😀", true),
        (191, "`^(?:😀){2}$` vs 😀😀 without `u`: a group repeats both units (V8: true).", UNI, "^(?:😀){2}$", "", "😀😀", true),
        (192, "`^[\\uD800-\\uDFFF]{2}$` vs 😀 without `u`: a surrogate range matches each unit (V8: true).", UCLS, "^[\\uD800-\\uDFFF]{2}$", "", "😀", true),
        (193, "`[\\uD800-\\uDFFF]` vs 😀 with `u`: a pair is never split (V8: false).", UCLS, "[\\uD800-\\uDFFF]", "u", "😀", false),
        (194, "`^[\\u0000-\\uFFFF]{2}$` vs 😀 without `u`: every unit is in the BMP range (V8: true).", UCLS, "^[\\u0000-\\uFFFF]{2}$", "", "😀", true),
        (195, "`^[\\uD83D\\uDE00]$` vs 😀 without `u`: two escapes in a class are two members (V8: false).", UCLS, "^[\\uD83D\\uDE00]$", "", "😀", false),
        (196, "`^[\\uD83D\\uDE00]$` vs 😀 with `u`: the escapes form one code point (V8: true).", UCLS, "^[\\uD83D\\uDE00]$", "u", "😀", true),
        (197, "`^a.b$` vs `a😀b` without `u` (V8: false).", UCLS, "^a.b$", "", "a😀b", false),
        (198, "`^a..b$` vs `a😀b` without `u` (V8: true).", UCLS, "^a..b$", "", "a😀b", true),
        (199, "`^.$` with `s` vs 😀 without `u`: dotAll does not join units (V8: false).", UCLS, "^.$", "s", "😀", false),
        (200, "`^[^😀]$` vs 😁 (D83D DE01) without `u`: the shared high surrogate is excluded (V8: false).", UCLS, "^[^😀]$", "", "😁", false),
        (201, "`𐐀` (U+10400) with `i` vs `𐐨` (U+10428) without `u`: surrogates are not case-folded (V8: false).", UNI, "𐐀", "i", "𐐨", false),
        (202, "`𐐀` (U+10400) with `iu` vs `𐐨` (U+10428): Unicode case folding of the code point (V8: true).", UNI, "𐐀", "iu", "𐐨", true),
        (203, "`^\\uDB80` vs U+F0000 (plane-15 private use) without `u`: its high unit (V8: true).", UNI, "^\\uDB80", "", "\u{F0000}", true),
        (204, "`^[…]$` with the literal character U+F0000 (plane-15 private use) in the class, vs U+F0000 without `u`: its two surrogates are separate members (V8: false).", UCLS, "^[\u{F0000}]$", "", "\u{F0000}", false),
        (205, "`^[😀-😂]$` vs 😁 with `u`: a range of astral code points (V8: true).", UCLS, "^[😀-😂]$", "u", "😁", true),
    ];
    run_probes(g, DIA, units);
}

fn regex_mutation_gaps(g: &mut Group) {
    // Mutation gaps of 2026-11-26 (MUTANTS.md), each answer confirmed with node v20's `RegExp`.
    let gaps: Vec<Probe> = vec![
        (207, "`^[\\uDC00-\\uDFFF]` vs 😀 without `u`: the first unit is the high surrogate D83D, outside the low-surrogate range (V8: false).", UCLS, "^[\\uDC00-\\uDFFF]", "", "😀", false),
        (208, "`[\\uDC00-\\uDFFF]` vs 😀 without `u`: the search finds the low unit DE00 (V8: true).", UCLS, "[\\uDC00-\\uDFFF]", "", "😀", true),
        (209, "`^.$` vs U+10000 (the first astral code point) without `u`: two units (V8: false).", UCLS, "^.$", "", "\u{10000}", false),
        (210, "`[(]\\1` vs `(` U+0001 without `u`: a `(` in a class opens no group, so `\\1` is the legacy octal escape U+0001 (V8: true).", SRCH, "[(]\\1", "", "(\u{1}", true),
        (211, "`\\(\\1` vs `(` U+0001 without `u`: an escaped `(` opens no group, so `\\1` is octal (V8: true).", SRCH, "\\(\\1", "", "(\u{1}", true),
        (212, "`(?:a)\\1` vs `a` U+0001 without `u`: a non-capturing group is no group 1, so `\\1` is octal (V8: true).", SRCH, "(?:a)\\1", "", "a\u{1}", true),
        (213, "`\\.` with `u` vs `.`: a syntax character may be escaped under `u` (V8: true).", UNI, "\\.", "u", ".", true),
        (216, "`^[U+F0000]$` (a plane-15 private-use character in a class) with `u` vs U+F0000: one code point (V8: true).", UCLS, "^[\u{F0000}]$", "u", "\u{F0000}", true),
        (217, "`^[A-😀]$` vs U+F900 without `u`: the range ends at the high surrogate D83D, below U+F900 (V8: false).", UCLS, "^[A-😀]$", "", "\u{F900}", false),
        (218, "`a\\Bb` vs `ab`: no word boundary between two word characters (V8: true).", CLS, "a\\Bb", "", "ab", true),
        (219, "`a?=b` vs `=b`: an optional `a`, not a lookahead (V8: true).", SRCH, "a?=b", "", "=b", true),
        (220, "`^a{,3}$` vs `a{,3}`: `{,3}` is literal text in Annex B, anchored (V8: true).", SRCH, "^a{,3}$", "", "a{,3}", true),
        (221, "`^colou?r$` vs `color`: `?` makes the `u` optional (V8: true).", SRCH, "^colou?r$", "", "color", true),
        (226, "129 groups `(?:a)` one after another (none nested) vs 129×`a`: nesting depth returns to 0 after each group (V8: true).", SRCH, "(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)(?:a)", "", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", true),
        (227, "`^\\101$` vs `A`: the legacy octal escape 101 is U+0041 (V8: true).", SRCH, "^\\101$", "", "A", true),
        (228, "`^\\400$` vs space + `0`: an octal escape stops at 0o377, so `\\40` is a space followed by `0` (V8: true).", SRCH, "^\\400$", "", " 0", true),
        (229, "`^\\8$` vs `8`: `\\8` is no octal escape, the identity escape of `8` (V8: true).", SRCH, "^\\8$", "", "8", true),
        (230, "`^\\7$` vs U+0007 (V8: true).", SRCH, "^\\7$", "", "\u{7}", true),
        (231, "`^[\\D]$` vs `a`: `\\D` inside a class (V8: true).", CLS, "^[\\D]$", "", "a", true),
        (232, "`^[\\W]$` vs `!`: `\\W` inside a class (V8: true).", CLS, "^[\\W]$", "", "!", true),
        (233, "`^\\t$` vs a tab (V8: true).", SRCH, "^\\t$", "", "\t", true),
        (234, "`^\\n$` vs a line feed (V8: true).", SRCH, "^\\n$", "", "\n", true),
        (235, "`^\\v$` vs U+000B (V8: true).", SRCH, "^\\v$", "", "\u{b}", true),
        (236, "A group name of `$`, letters, `_` and a digit: `(?<$a_1>x)` (V8: true).", SRCH, "(?<$a_1>x)", "", "x", true),
        (237, "Two named groups with different names (V8: true).", SRCH, "(?<a>x)(?<b>y)", "", "xy", true),
        (238, "A group name written with a `\\u` escape: `(?<\\u0061b>x)` (V8: true).", SRCH, "(?<\\u0061b>x)", "", "x", true),
        (239, "A group name written as an escaped surrogate pair, U+1D49C (a letter) (V8: true).", SRCH, "(?<\\uD835\\uDC9C>x)", "", "x", true),
        (240, "A group name with U+200C (ZWNJ) after its first character (V8: true).", SRCH, "(?<a\\u200Cb>x)", "", "x", true),
        (241, "A group name `\\u{1D49C}` with `u` (V8: true).", UNI, "(?<\\u{1D49C}>x)", "u", "x", true),
        // Character escapes and class atoms (mutation gaps of 2026-11-26, node v20).
        (244, "`^\\f$` without `u` (V8: true).", SRCH, "^\\f$", "", "\u{c}", true),
        (245, "`^\\r$` without `u` (V8: true).", SRCH, "^\\r$", "", "\u{d}", true),
        (246, "`^\\0$` without `u` (V8: true).", SRCH, "^\\0$", "", "\u{0}", true),
        (247, "`^\\01$` without `u` (V8: true).", SRCH, "^\\01$", "", "\u{1}", true),
        (249, "`^\\cJ$` without `u` (V8: true).", SRCH, "^\\cJ$", "", "\u{a}", true),
        (250, "`^\\c1$` without `u` (V8: true).", SRCH, "^\\c1$", "", "\\c1", true),
        (251, "`^[\\c1]$` without `u` (V8: true).", SRCH, "^[\\c1]$", "", "\u{11}", true),
        (252, "`^[\\c_]$` without `u` (V8: true).", SRCH, "^[\\c_]$", "", "\u{1f}", true),
        (254, "`^\\x41$` without `u` (V8: true).", SRCH, "^\\x41$", "", "A", true),
        (255, "`^\\xZ$` without `u` (V8: true).", SRCH, "^\\xZ$", "", "xZ", true),
        (257, "`^\\u0041$` without `u` (V8: true).", SRCH, "^\\u0041$", "", "A", true),
        (258, "`^\\uD83D\\uDE00$` with `u` (V8: true).", UNI, "^\\uD83D\\uDE00$", "u", "😀", true),
        (259, "`^\\uD83D\\uDE00$` without `u` (V8: true).", SRCH, "^\\uD83D\\uDE00$", "", "😀", true),
        (260, "`^\\u{1F600}$` with `u` (V8: true).", UNI, "^\\u{1F600}$", "u", "😀", true),
        (261, "`^\\u{61}$` without `u` (V8: true).", SRCH, "^\\u{61}$", "", "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu", true),
        (262, "`^[\\-]$` without `u` (V8: true).", SRCH, "^[\\-]$", "", "-", true),
        (263, "`^[\\-]$` with `u` (V8: true).", UNI, "^[\\-]$", "u", "-", true),
        (265, "`^\\-$` without `u` (V8: true).", SRCH, "^\\-$", "", "-", true),
        (266, "`^\\k$` without `u` (V8: true).", SRCH, "^\\k$", "", "k", true),
        (268, "`^\\a$` without `u` (V8: true).", SRCH, "^\\a$", "", "a", true),
        (270, "`^[\\b]$` without `u` (V8: true).", SRCH, "^[\\b]$", "", "\u{8}", true),
        (271, "`^[\\8]$` without `u` (V8: true).", SRCH, "^[\\8]$", "", "8", true),
        (272, "`^[\\1]$` without `u` (V8: true).", SRCH, "^[\\1]$", "", "\u{1}", true),
        (274, "`^[a-a]$` without `u` (V8: true).", SRCH, "^[a-a]$", "", "a", true),
        (275, "`^\\u{10FFFF}$` with `u` (V8: true).", UNI, "^\\u{10FFFF}$", "u", "\u{10ffff}", true),
        (276, "`\\uD83D\\u0041` with `u` (V8: false).", UNI, "\\uD83D\\u0041", "u", "xA", false),
        (277, "`^[\\d-z]$` without `u` (V8: true).", SRCH, "^[\\d-z]$", "", "-", true),
    ];
    run_probes(g, DIA, gaps);
    // Mutation gaps of the ecma_regex re-test (MUTANTS.md), each answer confirmed with node v20's
    // `RegExp`.
    let nested = format!("{}a{}", "(".repeat(128), ")".repeat(128));
    let gaps2: Vec<Probe> = vec![
        (279, "`a??b` vs `b`: a lazy `?` quantifier (V8: true).", SRCH, "a??b", "", "b", true),
        (280, "A group name with U+200D (ZWJ) after its first character (V8: true).", SRCH, "(?<a\\u200Db>x)", "", "x", true),
        (281, "A group name written as an escaped surrogate pair, U+200A0 (a CJK ideograph) (V8: true).", SRCH, "(?<\\uD840\\uDCA0>x)", "", "x", true),
        (282, "A group name written as an escaped surrogate pair, U+1EE00 (ARABIC MATHEMATICAL ALEF) (V8: true).", SRCH, "(?<\\uD83B\\uDE00>x)", "", "x", true),
        (283, "`(a)\\10` vs `a` U+0008: 10 is more than the number of groups, so `\\10` is the legacy octal escape U+0008 (V8: true).", SRCH, "(a)\\10", "", "a\u{8}", true),
        (284, "`^\\D$` vs a space (V8: true).", CLS, "^\\D$", "", " ", true),
        (285, "`^\\W$` vs a space (V8: true).", CLS, "^\\W$", "", " ", true),
        (286, "`^\\0$` with `u` vs U+0000 (V8: true).", UNI, "^\\0$", "u", "\u{0}", true),
        (287, "`^\\0123$` vs U+000A `3`: a legacy octal escape starting with 0 takes at most three digits, `\\012` (V8: true).", SRCH, "^\\0123$", "", "\n3", true),
        (288, "`^[\\c1]$` vs `1`: in a class, `\\c1` is the one unit U+0011 (V8: false).", SRCH, "^[\\c1]$", "", "1", false),
        (289, "`^[\\c1]$` vs `c` (V8: false).", SRCH, "^[\\c1]$", "", "c", false),
        (290, "`^[\\b]$` vs `b`: in a class, `\\b` is the one unit U+0008 (V8: false).", SRCH, "^[\\b]$", "", "b", false),
        (291, "`^[\\p{L}]$` without `u` vs `{`: the class holds `p`, `{`, `L`, `}` (Annex B identity escape) (V8: true).", UNI, "^[\\p{L}]$", "", "{", true),
        (292, "`^[\\k]$` without `u` and without named groups vs `k` (V8: true).", SRCH, "^[\\k]$", "", "k", true),
        (293, "`^\\p{Zl}$` with `u` vs U+2028: a property with a single code point (V8: true).", UNI, "^\\p{Zl}$", "u", "\u{2028}", true),
        (294, "`\\p{Cs}` with `u` vs `a😀`: surrogates only, none in a string of code points (V8: false).", UNI, "\\p{Cs}", "u", "a😀", false),
        (295, "128 nested groups `((…(a)…))` vs `a` (V8: true).", SRCH, &nested, "", "a", true),
    ];
    run_probes(g, DIA, gaps2);
    // Syntax errors of `new RegExp` (V8: SyntaxError) are `invalid_params`.
    for &(n, d, p, f, subject) in MORE_SYNTAX_ERRORS {
        let expect = err("invalid_params");
        let reqs = &["CHECK-REGEX-SYNTAX"];
        let params = Some(re(p, f));
        let output = json!(subject);
        run(g, n, d, reqs, DIA, "regex_match", params, output, expect);
    }
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (215, "`[a](b)\\1` vs `abb`: `]` closes the class, so `(b)` is group 1 and `\\1` a backreference (V8: true; refusing backreferences is acceptable, D12).", &["CHECK-REGEX-UNSUPPORTED"], &["RegexUnsupported"],
            "regex_match", Some(re("[a](b)\\1", "")), json!("abb"), Expectation::acceptable("D12", vec![Expected::invalid("unsupported_pattern", "6.2"), Expected::valid(json!({"passed": true, "score": 1}))])),
        (206, "`^[😀-😂]$` without `u`: the range is DE00–D83D, out of order (V8: SyntaxError).", &["CHECK-REGEX-SYNTAX", "CHECK-REGEX-UNICODE-FLAG"], DIA,
            "regex_match", Some(re("^[😀-😂]$", "")), json!("😁"), err("invalid_params")),
    ];
    run_rows(g, rows);
}

fn schema_params(schema: Value) -> Option<Value> {
    Some(json!({ "schema": schema }))
}

/// `format` keywords: (number, description, format, instance, whether it is valid).
#[rustfmt::skip]
const SCHEMA_FORMATS: &[(u16, &str, &str, &str, bool)] = &[
    (50, "`format: date-time` → invalid_schema (strict ajv has no formats); validating it is acceptable.", "date-time", "2026-03-01T00:00:00Z", true),
    (51, "`format: email` on a non-email: invalid_schema, or (acceptable) a failing validation.", "email", "not an email", false),
    (52, "`format: uri`.", "uri", "https://example.com/", true),
];

fn build_schema(g: &mut Group) {
    define_flags(g, &[SCHEMA_FORMAT]);
    let v = &["CHECK-SCHEMA-VALIDATE", "CHECK-SCORE-BINARY"];
    let obj = json!({"type": "object", "required": ["summary"], "properties": {"summary": {"type": "string", "minLength": 1}}, "additionalProperties": false});
    let n = "json_schema";
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (1, "Valid object under a required/properties/additionalProperties schema.", v, &[],
            n, schema_params(obj.clone()), json!({"summary": "done"}), pass()),
        (2, "Missing required member.", v, &[], n, schema_params(obj.clone()), json!({}), fail()),
        (3, "Additional property refused.", v, &[], n, schema_params(obj.clone()), json!({"summary": "x", "extra": 1}), fail()),
        (4, "Wrong type of a property.", v, &[], n, schema_params(obj.clone()), json!({"summary": 5}), fail()),
        (5, "Output of the wrong top-level type.", v, &[], n, schema_params(obj), json!(["summary"]), fail()),
        (6, "Boolean schema `true` accepts anything.", v, &[], n, schema_params(json!(true)), json!({"a": [1, null]}), pass()),
        (7, "Boolean schema `false` accepts nothing.", v, &[], n, schema_params(json!(false)), Value::Null, fail()),
        (8, "Empty schema accepts `null`.", v, &[], n, schema_params(json!({})), Value::Null, pass()),
        (9, "`enum` with a structured value.", v, &[], n, schema_params(json!({"enum": [1, {"a": [2]}]})), json!({"a": [2]}), pass()),
        (10, "`const` compares numbers mathematically: 1.0 equals 1.", v, &[], n, schema_params(json!({"const": 1})), json!(1.0), pass()),
        (11, "`items` schema over every element; one bad element fails.", v, &[],
            n, schema_params(json!({"type": "array", "items": {"type": "integer"}})), json!([1, 2, "3"]), fail()),
        (12, "Tuple `items` + `additionalItems: false` with too many items.", v, &[],
            n, schema_params(json!({"type": "array", "items": [{"type": "string"}], "additionalItems": false})), json!(["a", "b"]), fail()),
        (13, "`uniqueItems` with equal objects in different member order.", v, &[],
            n, schema_params(json!({"type": "array", "uniqueItems": true})), json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]), fail()),
        (14, "`oneOf` where both branches match fails.", v, &[],
            n, schema_params(json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]})), json!(3), fail()),
        (15, "`if`/`then`/`else` (draft-07).", v, &[],
            n, schema_params(json!({"if": {"type": "string"}, "then": {"minLength": 3}, "else": {"type": "number"}})), json!("ab"), fail()),
        (16, "Local `$ref` into `definitions`.", v, &[],
            n, schema_params(json!({"definitions": {"pos": {"type": "integer", "minimum": 1}}, "type": "array", "items": {"$ref": "#/definitions/pos"}})), json!([1, 2, 0]), fail()),
        (17, "Local `$ref` into `definitions`, all items valid.", v, &[],
            n, schema_params(json!({"definitions": {"pos": {"type": "integer", "minimum": 1}}, "type": "array", "items": {"$ref": "#/definitions/pos"}})), json!([1, 2, 3]), pass()),
        (18, "`pattern` uses ECMAScript `\\d` (ASCII): Arabic-Indic digits do not match.", v, &[],
            n, schema_params(json!({"type": "string", "pattern": "^\\d+$"})), json!("١٢٣"), fail()),
        (19, "`exclusiveMaximum` is a number in draft-07.", v, &[],
            n, schema_params(json!({"type": "number", "exclusiveMaximum": 10})), json!(10), fail()),
        (20, "`propertyNames` + `dependencies`.", v, &[],
            n, schema_params(json!({"type": "object", "propertyNames": {"maxLength": 3}, "dependencies": {"a": ["b"]}})), json!({"a": 1, "b": 2}), pass()),
    ];
    run_rows(g, rows);

    let sem = &["CHECK-SCHEMA-SEMANTICS"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (30, "`$ref` with a sibling `maxLength: 1`: draft-07 ignores siblings of `$ref`, so `abc` is valid.", sem, &[],
            n, schema_params(json!({"definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "maxLength": 1})), json!("abc"), pass()),
        (31, "`multipleOf: 0.01` on 0.07: draft-07 defines divisibility mathematically (valid; ajv's float division says invalid).", sem, &[],
            n, schema_params(json!({"multipleOf": 0.01})), json!(0.07), pass()),
        (32, "`multipleOf: 0.01` on 1.13 (mathematically valid).", sem, &[], n, schema_params(json!({"multipleOf": 0.01})), json!(1.13), pass()),
        (33, "`multipleOf: 0.01` on 0.075 is not a multiple.", sem, &[], n, schema_params(json!({"multipleOf": 0.01})), json!(0.075), fail()),
        (34, "`type: integer` accepts 1.0.", sem, &[], n, schema_params(json!({"type": "integer"})), json!(1.0), pass()),
        (35, "`type: integer` accepts 1e2.", sem, &[], n, schema_params(json!({"type": "integer"})), json!(1e2), pass()),
        (36, "`type: integer` rejects 1.5.", sem, &[], n, schema_params(json!({"type": "integer"})), json!(1.5), fail()),
        (37, "`maxLength: 1` on 😀: schema lengths count code points (valid).", sem, &[],
            n, schema_params(json!({"type": "string", "maxLength": 1})), json!("😀"), pass()),
        (38, "`minLength: 2` on 😀: one code point (invalid).", sem, &[],
            n, schema_params(json!({"type": "string", "minLength": 2})), json!("😀"), fail()),
    ];
    run_rows(g, rows);

    let strict = &["CHECK-SCHEMA-STRICT-KEYWORD"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (40, "Unknown keyword `foo` → invalid_schema (ajv strict).", strict, &["SchemaStrict"],
            n, schema_params(json!({"type": "string", "foo": 1})), json!("x"), err("invalid_schema")),
        (41, "Typo `requried` → invalid_schema instead of silently accepting everything.", strict, &["SchemaStrict"],
            n, schema_params(json!({"type": "object", "requried": ["a"]})), json!({}), err("invalid_schema")),
        (42, "Unknown keyword nested in `properties`.", strict, &["SchemaStrict"],
            n, schema_params(json!({"type": "object", "properties": {"a": {"type": "string", "maxlength": 3}}})), json!({"a": "x"}), err("invalid_schema")),
        (43, "Unknown keyword inside `items`.", strict, &["SchemaStrict"],
            n, schema_params(json!({"type": "array", "items": {"typ": "string"}})), json!([]), err("invalid_schema")),
        (44, "A schema that is a number is not a schema.", strict, &[], n, schema_params(json!(5)), json!(5), err("invalid_schema")),
        (45, "`type` with an unknown type name.", strict, &[], n, schema_params(json!({"type": "text"})), json!("x"), err("invalid_schema")),
        (46, "`required` not an array of strings.", strict, &[],
            n, schema_params(json!({"type": "object", "required": "a"})), json!({"a": 1}), err("invalid_schema")),
        (47, "`properties` without `type: object` (ajv strictTypes would refuse; draft-07 accepts).", strict, &["SchemaStrict"],
            n, schema_params(json!({"properties": {"a": {"type": "string"}}})), json!({"a": "x"}), Expectation::acceptable("D29", vec![Expected::valid(json!({"passed": true, "score": 1})), Expected::invalid("invalid_schema", "6.2")])),
    ];
    run_rows(g, rows);

    schema_formats_and_limits(g);
}

/// `format`, remote references, params shape and nesting limits.
fn schema_formats_and_limits(g: &mut Group) {
    let v = &["CHECK-SCHEMA-VALIDATE", "CHECK-SCORE-BINARY"];
    let n = "json_schema";
    let fmt = &["CHECK-SCHEMA-FORMAT"];
    for &(num, d, f, inst, valid) in SCHEMA_FORMATS {
        run(
            g,
            num,
            d,
            fmt,
            &["SchemaFormat"],
            n,
            schema_params(json!({"type": "string", "format": f})),
            json!(inst),
            Expectation::acceptable(
                "D29",
                vec![
                    Expected::invalid("invalid_schema", "6.2"),
                    Expected::valid(json!({"passed": valid, "score": if valid {1} else {0}})),
                ],
            ),
        );
    }
    run(
        g,
        53,
        "Unknown `format: banana` → invalid_schema under every reading.",
        fmt,
        &[],
        n,
        schema_params(json!({"type": "string", "format": "banana"})),
        json!("x"),
        err("invalid_schema"),
    );

    let remote = &["CHECK-SCHEMA-NO-REMOTE"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (60, "Remote `$ref` over http → invalid_schema (nothing is fetched).", remote, &[],
            n, schema_params(json!({"$ref": "http://example.com/schema.json"})), json!(1), err("invalid_schema")),
        (61, "Relative `$ref` to another document → invalid_schema.", remote, &[],
            n, schema_params(json!({"$ref": "other.json#/definitions/a"})), json!(1), err("invalid_schema")),
        (62, "Remote `$ref` nested under `properties`.", remote, &[],
            n, schema_params(json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json#"}}})), json!({}), err("invalid_schema")),
        (63, "Local `$ref` to a missing definition → invalid_schema.", remote, &[],
            n, schema_params(json!({"$ref": "#/definitions/missing"})), json!(1), err("invalid_schema")),
    ];
    run_rows(g, rows);

    let ps = &["CHECK-PARAMS-SHAPE"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (70, "No params: `schema` is required.", ps, &[], n, None, json!(1), err("invalid_params")),
        (71, "Params without `schema`.", ps, &[], n, Some(json!({})), json!(1), err("invalid_params")),
        (72, "Unknown param beside `schema`.", ps, &[], n, Some(json!({"schema": {}, "strict": false})), json!(1), err("invalid_params")),
    ];
    run_rows(g, rows);
    // Schema nesting beyond MAX_SCHEMA_DEPTH (64) is `limit_exceeded` (hardening, D33-style
    // resource limit). Each case reaches depth 65 through 64 `not` wrappers (one JSON level
    // each, so the message stays under the 128-level limit of common JSON parsers) and then one
    // level of the keyword under test, so a walker that forgets to count that keyword's
    // subschemas stays at 64.
    let lim = &["CHECK-SCHEMA-VALIDATE"];
    let nest = |inner: Value, levels: usize| (0..levels).fold(inner, |s, _| json!({ "not": s }));
    let deep: Vec<(u16, &str, Value)> = vec![
        (73, "65 nested `not` schemas", nest(json!({}), 65)),
        (
            74,
            "64 nested `not` schemas around `properties`",
            nest(json!({"properties": {"a": {}}}), 64),
        ),
        (
            75,
            "64 nested `not` schemas around `allOf`",
            nest(json!({"allOf": [{}]}), 64),
        ),
        (
            76,
            "64 nested `not` schemas around a single-schema `items`",
            nest(json!({"items": {}}), 64),
        ),
        (
            77,
            "64 nested `not` schemas around a schema-valued `dependencies`",
            nest(json!({"dependencies": {"a": {}}}), 64),
        ),
    ];
    for (k, d, schema) in deep {
        let desc = format!("{d}: nesting 65 is beyond the limit of 64.");
        let expect = err("limit_exceeded");
        let params = schema_params(schema);
        run(g, k, &desc, lim, &[], n, params, json!("x"), expect);
    }
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (79, "64 nested `not` schemas: nesting 64, exactly the limit, is accepted.", lim, &[],
            n, schema_params(nest(json!({"type": "string"}), 64)), json!("x"), pass()),
        (78, "`$schema` naming draft-07 is accepted (and the schema applies).", v, &[],
            n, schema_params(json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"})), json!(1), fail()),
    ];
    run_rows(g, rows);
}

fn build_strlen(g: &mut Group) {
    let n = "string_length";
    let u = &["CHECK-STRLEN-UTF16", "CHECK-SCORE-BINARY"];
    let b = &["CHECK-STRLEN-BOUNDS", "CHECK-SCORE-BINARY"];
    let s = &["CHECK-STRLEN-SOURCE"];
    let f = &["Utf16Length"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (1, "😀 has length 2: `max: 1` fails.", u, f, n, Some(json!({"max": 1})), json!("😀"), fail()),
        (2, "😀 has length 2: `min: 2, max: 2` passes.", u, f, n, Some(json!({"min": 2, "max": 2})), json!("😀"), pass()),
        (3, "Composed `é` (U+00E9) has length 1.", u, f, n, Some(json!({"min": 1, "max": 1})), json!("\u{e9}"), pass()),
        (4, "Decomposed `e\\u0301` has length 2.", u, f, n, Some(json!({"min": 2, "max": 2})), json!("e\u{301}"), pass()),
        (5, "Decomposed `e\\u0301` with `max: 1` fails.", u, f, n, Some(json!({"max": 1})), json!("e\u{301}"), fail()),
        (6, "Family emoji 👨‍👩‍👧 (3 emoji + 2 ZWJ) has length 8.", u, f, n, Some(json!({"min": 8, "max": 8})), json!("👨\u{200d}👩\u{200d}👧"), pass()),
        (7, "CJK `漢字` has length 2 (BMP).", u, f, n, Some(json!({"min": 2, "max": 2})), json!("漢字"), pass()),
        (8, "U+FEFF counts as one unit.", u, f, n, Some(json!({"min": 1, "max": 1})), json!("\u{feff}"), pass()),
        (10, "`abc` with `min: 3, max: 3` (both inclusive).", b, &[], n, Some(json!({"min": 3, "max": 3})), json!("abc"), pass()),
        (11, "`abc` with `min: 4` fails.", b, &[], n, Some(json!({"min": 4})), json!("abc"), fail()),
        (12, "`abc` with `max: 2` fails.", b, &[], n, Some(json!({"max": 2})), json!("abc"), fail()),
        (13, "No bounds: any string passes.", b, &[], n, Some(json!({})), json!("anything"), pass()),
        (14, "Params omitted entirely: any string passes.", b, &[], n, None, json!("x"), pass()),
        (15, "Empty string with `min: 0`.", b, &[], n, Some(json!({"min": 0})), json!(""), pass()),
        (16, "Empty string with `min: 1`.", b, &[], n, Some(json!({"min": 1})), json!(""), fail()),
        (17, "`max: 0` on the empty string.", b, &[], n, Some(json!({"max": 0})), json!(""), pass()),
        (18, "`min: 2.0` is the integer 2.", b, &[], n, Some(json!({"min": 2.0})), json!("ab"), pass()),
        (20, "`field` selects the string to measure.", s, &[], n, Some(json!({"field": "a.b", "max": 3})), json!({"a": {"b": "xyz"}}), pass()),
        (21, "`field` missing → passed false.", s, &[], n, Some(json!({"field": "a.c", "max": 3})), json!({"a": {"b": "xyz"}}), fail()),
        (22, "`field` is a number → passed false (not stringified).", s, &[], n, Some(json!({"field": "a", "max": 3})), json!({"a": 12}), fail()),
        (23, "No `field`, output is a number → passed false.", s, &[], n, Some(json!({"max": 3})), json!(12), fail()),
        (24, "No `field`, output is an array (not a string) → passed false.", s, &[], n, Some(json!({"max": 3})), json!(["a"]), fail()),
        (25, "No `field`, output is `null` → passed false.", s, &[], n, None, Value::Null, fail()),
        (26, "`field` through an array index.", s, &[], n, Some(json!({"field": "xs.0", "min": 1})), json!({"xs": ["a"]}), pass()),
        (30, "`min: 3, max: 2` → invalid_params (passed false is acceptable).", &["CHECK-STRLEN-MIN-GT-MAX"], &["LengthBounds"],
            n, Some(json!({"min": 3, "max": 2})), json!("ab"), Expectation::acceptable("D28", vec![Expected::invalid("invalid_params", "6.2"), Expected::valid(json!({"passed": false, "score": 0}))])),
    ];
    run_rows(g, rows);
    define_flags(g, &[LENGTH_BOUNDS]);
    let ps = &["CHECK-PARAMS-SHAPE"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (40, "`min` negative.", ps, &[], n, Some(json!({"min": -1})), json!("a"), err("invalid_params")),
        (41, "`max` fractional.", ps, &[], n, Some(json!({"max": 1.5})), json!("a"), err("invalid_params")),
        (42, "`min` a string.", ps, &[], n, Some(json!({"min": "1"})), json!("a"), err("invalid_params")),
        (43, "Unknown param `length`.", ps, &[], n, Some(json!({"length": 1})), json!("a"), err("invalid_params")),
        (44, "Params an array.", ps, &[], n, Some(json!([1, 2])), json!("a"), err("invalid_params")),
        (45, "`field` not a string.", ps, &[], n, Some(json!({"field": ["a"]})), json!({"a": "x"}), err("invalid_params")),
        // The integer bounds at the edge of the JSON-safe range (D28's "integer in 0..=2^53−1").
        (46, "`max` 2^53−1, the largest safe integer: every string is shorter (passes).", b, &[],
            n, Some(json!({"max": 9_007_199_254_740_991_u64})), json!("a"), pass()),
        (47, "`max` 2^53, beyond the safe integers.", ps, &[], n, Some(json!({"max": 9_007_199_254_740_992_u64})), json!("a"), err("invalid_params")),
        (48, "`min: 1, max: 3` on `ab` (both bounds, min below max): passes.", b, &[], n, Some(json!({"min": 1, "max": 3})), json!("ab"), pass()),
    ];
    run_rows(g, rows);
}

fn build_arrlen(g: &mut Group) {
    define_flags(g, &[LENGTH_BOUNDS]);
    let n = "array_length";
    let b = &["CHECK-ARRLEN-BOUNDS", "CHECK-SCORE-BINARY"];
    let na = &["CHECK-ARRLEN-NON-ARRAY"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (1, "Three elements with `min: 3, max: 3` (inclusive).", b, &[], n, Some(json!({"min": 3, "max": 3})), json!([1, 2, 3]), pass()),
        (2, "Three elements with `max: 2`.", b, &[], n, Some(json!({"max": 2})), json!([1, 2, 3]), fail()),
        (3, "Three elements with `min: 4`.", b, &[], n, Some(json!({"min": 4})), json!([1, 2, 3]), fail()),
        (4, "Empty array with `max: 0`.", b, &[], n, Some(json!({"max": 0})), json!([]), pass()),
        (5, "Empty array with `min: 1`.", b, &[], n, Some(json!({"min": 1})), json!([]), fail()),
        (6, "No bounds, any array passes.", b, &[], n, None, json!([null]), pass()),
        (7, "Nested arrays count as one element each.", b, &[], n, Some(json!({"max": 2})), json!([[1, 2, 3], [4]]), pass()),
        (8, "`field` selects the array.", b, &[], n, Some(json!({"field": "items", "min": 2})), json!({"items": ["a", "b"]}), pass()),
        (9, "`field` dot-path into a nested array.", b, &[], n, Some(json!({"field": "a.0.xs", "max": 1})), json!({"a": [{"xs": [1, 2]}]}), fail()),
        (20, "Output is a string (its length is irrelevant) → passed false.", na, &[], n, Some(json!({"max": 10})), json!("abc"), fail()),
        (21, "Output is an object → passed false.", na, &[], n, None, json!({"length": 2}), fail()),
        (22, "`field` missing → passed false.", na, &[], n, Some(json!({"field": "items"})), json!({}), fail()),
        (23, "`field` is `null` → passed false.", na, &[], n, Some(json!({"field": "items"})), json!({"items": null}), fail()),
        (24, "Output is `null` → passed false.", na, &[], n, None, Value::Null, fail()),
        (30, "`min: 2, max: 1` → invalid_params (passed false is acceptable).", &["CHECK-ARRLEN-BOUNDS", "CHECK-PARAMS-SHAPE"], &["LengthBounds"],
            n, Some(json!({"min": 2, "max": 1})), json!([1]), Expectation::acceptable("D28", vec![Expected::invalid("invalid_params", "6.2"), Expected::valid(json!({"passed": false, "score": 0}))])),
    ];
    run_rows(g, rows);
    let ps = &["CHECK-PARAMS-SHAPE"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (31, "`max` negative.", ps, &[], n, Some(json!({"max": -1})), json!([]), err("invalid_params")),
        (32, "`min` boolean.", ps, &[], n, Some(json!({"min": true})), json!([]), err("invalid_params")),
        (33, "Unknown param `minItems`.", ps, &[], n, Some(json!({"minItems": 1})), json!([1]), err("invalid_params")),
    ];
    run_rows(g, rows);
}

fn build_fields(g: &mut Group) {
    let n = "field_exists";
    let d = &["CHECK-FIELDS-DOTPATH", "CHECK-SCORE-BINARY"];
    let np = &["CHECK-FIELDS-NO-PROTOTYPE"];
    let fe = |fields: Value| Some(json!({ "fields": fields }));
    let doc = json!({"a": {"b": {"c": 1}}, "items": [{"id": "x"}, {"id": "y"}], "n": null, "s": "abc", "": {"": 2}, "a.b": 3});
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (1, "Nested dot-path `a.b.c`.", d, &[], n, fe(json!(["a.b.c"])), doc.clone(), pass()),
        (2, "Several paths, all present.", d, &[], n, fe(json!(["a", "a.b", "items", "s"])), doc.clone(), pass()),
        (3, "One of several paths missing fails the check.", d, &[], n, fe(json!(["a.b.c", "a.b.d"])), doc.clone(), fail()),
        (4, "Array element by index `items.1.id`.", d, &[], n, fe(json!(["items.1.id"])), doc.clone(), pass()),
        (5, "Array index out of range `items.2`.", d, &[], n, fe(json!(["items.2"])), doc.clone(), fail()),
        (6, "Non-canonical index `items.01`.", d, &[], n, fe(json!(["items.01"])), doc.clone(), fail()),
        (7, "Negative index `items.-1`.", d, &[], n, fe(json!(["items.-1"])), doc.clone(), fail()),
        (8, "Index with a plus sign `items.+0`.", d, &[], n, fe(json!(["items.+0"])), doc.clone(), fail()),
        (9, "A key containing a dot is unreachable: `a.b` walks `a` then `b` (present here), it does not read member `a.b`.", d, &[],
            n, fe(json!(["a.b"])), json!({"a.b": 3}), fail()),
        (10, "Path through a string (`s.0`): strings have no members.", d, &[], n, fe(json!(["s.0"])), doc.clone(), fail()),
        (11, "Path `a..b` has an empty key in the middle.", d, &[], n, fe(json!(["a..b"])), json!({"a": {"": {"b": 1}}}), pass()),
        (12, "Path `` (empty) is the key `\"\"`.", d, &[], n, fe(json!([""])), json!({"": 0}), pass()),
        (13, "Path `` on an object without that key.", d, &[], n, fe(json!([""])), json!({"a": 0}), fail()),
        (14, "Output is a string: no member exists.", d, &[], n, fe(json!(["length"])), json!("abc"), fail()),
        (15, "Output is an array: top-level index `0`.", d, &[], n, fe(json!(["0"])), json!(["x"]), pass()),
        (16, "Member whose value is `false` exists.", d, &[], n, fe(json!(["f"])), json!({"f": false}), pass()),
        (20, "Member whose value is `null` exists.", &["CHECK-FIELDS-NULL"], &[], n, fe(json!(["n"])), doc.clone(), pass()),
        (21, "Array element `null` exists.", &["CHECK-FIELDS-NULL"], &[], n, fe(json!(["xs.0"])), json!({"xs": [null]}), pass()),
        (22, "Path through a `null` does not continue.", &["CHECK-FIELDS-NULL"], &[], n, fe(json!(["n.x"])), doc.clone(), fail()),
        (30, "`__proto__` on an object that does not own it.", np, &[], n, fe(json!(["__proto__"])), json!({"a": 1}), fail()),
        (31, "`constructor` on an object that does not own it.", np, &[], n, fe(json!(["constructor"])), json!({"a": 1}), fail()),
        (32, "`toString` on an object that does not own it.", np, &[], n, fe(json!(["a.toString"])), json!({"a": {}}), fail()),
        (33, "`length` of an array is not a member.", np, &[], n, fe(json!(["xs.length"])), json!({"xs": [1, 2]}), fail()),
        (34, "`hasOwnProperty` on an empty object.", np, &[], n, fe(json!(["hasOwnProperty"])), json!({}), fail()),
        (35, "An own member named `__proto__` exists.", np, &[], n, fe(json!(["__proto__.x"])), json!({"__proto__": {"x": 1}}), pass()),
        (36, "An own member named `constructor` exists.", np, &[], n, fe(json!(["constructor"])), json!({"constructor": "c"}), pass()),
        (40, "Empty `fields` passes, whatever the output.", &["CHECK-FIELDS-EMPTY"], &[], n, fe(json!([])), Value::Null, pass()),
    ];
    run_rows(g, rows);
    let ps = &["CHECK-PARAMS-SHAPE"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (50, "No params (`fields` is required).", ps, &[], n, None, json!({}), err("invalid_params")),
        (51, "`fields` a string.", ps, &[], n, fe(json!("a")), json!({"a": 1}), err("invalid_params")),
        (52, "`fields` containing a number.", ps, &[], n, fe(json!(["a", 1])), json!({"a": 1}), err("invalid_params")),
        (53, "Unknown param `field`.", ps, &[], n, Some(json!({"fields": ["a"], "field": "a"})), json!({"a": 1}), err("invalid_params")),
    ];
    run_rows(g, rows);
}

fn build_exit(g: &mut Group) {
    let n = "exit_code";
    let e = &["CHECK-EXIT-EQUAL", "CHECK-SCORE-BINARY"];
    let s = &["CHECK-EXIT-SHAPE"];
    let ex = |v: Value| Some(json!({ "expected": v }));
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (1, "`{exitCode: 0}` with expected 0.", e, &[], n, ex(json!(0)), json!({"exitCode": 0}), pass()),
        (2, "`{exitCode: 1}` with expected 0.", e, &[], n, ex(json!(0)), json!({"exitCode": 1}), fail()),
        (3, "`{exitCode: 0.0}` equals expected 0 numerically.", e, &[], n, ex(json!(0)), json!({"exitCode": 0.0}), pass()),
        (4, "Negative exit code -1 equals expected -1.", e, &[], n, ex(json!(-1)), json!({"exitCode": -1}), pass()),
        (5, "Other members of the output are ignored.", e, &[], n, ex(json!(2)), json!({"exitCode": 2, "stdout": "x", "stderr": ""}), pass()),
        (6, "`{exitCode: 1.5}` is a number but not equal to 1.", e, &[], n, ex(json!(1)), json!({"exitCode": 1.5}), fail()),
        (7, "Expected 255 vs exitCode 255.", e, &[], n, ex(json!(255)), json!({"exitCode": 255}), pass()),
        (20, "Output is a number, not an object.", s, &[], n, ex(json!(0)), json!(0), fail()),
        (21, "Output lacks `exitCode`.", s, &[], n, ex(json!(0)), json!({"code": 0}), fail()),
        (22, "`exitCode` is the string `\"0\"` (no coercion).", s, &[], n, ex(json!(0)), json!({"exitCode": "0"}), fail()),
        (23, "`exitCode` is `null`.", s, &[], n, ex(json!(0)), json!({"exitCode": null}), fail()),
        (24, "Output is an array.", s, &[], n, ex(json!(0)), json!([0]), fail()),
        (25, "`exitCode` is `false`.", s, &[], n, ex(json!(0)), json!({"exitCode": false}), fail()),
        (26, "Output is `null`.", s, &[], n, ex(json!(0)), Value::Null, fail()),
    ];
    run_rows(g, rows);
    let ps = &["CHECK-PARAMS-SHAPE"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (40, "No params (`expected` is required).", ps, &[], n, None, json!({"exitCode": 0}), err("invalid_params")),
        (41, "`expected` a string.", ps, &[], n, ex(json!("0")), json!({"exitCode": 0}), err("invalid_params")),
        (42, "`expected` fractional (D28: an integer).", ps, &[], n, ex(json!(1.5)), json!({"exitCode": 1.5}), err("invalid_params")),
        (43, "Unknown param.", ps, &[], n, Some(json!({"expected": 0, "signal": null})), json!({"exitCode": 0}), err("invalid_params")),
    ];
    run_rows(g, rows);
}

fn build_equals(g: &mut Group) {
    let n = "output_equals";
    let c = &["CHECK-EQUALS-CANONICAL", "CHECK-SCORE-BINARY"];
    let ex = |v: Value| Some(json!({ "expected": v }));
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (1, "Member order is irrelevant.", c, &[], n, ex(json!({"a": 1, "b": [1, 2]})), json!({"b": [1, 2], "a": 1}), pass()),
        (2, "`1` equals `1.0`.", c, &[], n, ex(json!(1)), json!(1.0), pass()),
        (3, "`-0` equals `0` (canonical form `0`).", c, &[], n, ex(json!(0)), json!(-0.0), pass()),
        (4, "`100` equals `1e2`.", c, &[], n, ex(json!(100)), json!(1e2), pass()),
        (5, "Array order matters.", c, &[], n, ex(json!([1, 2])), json!([2, 1]), fail()),
        (6, "The string `\"1\"` is not the number 1.", c, &[], n, ex(json!(1)), json!("1"), fail()),
        (7, "An extra member breaks equality.", c, &[], n, ex(json!({"a": 1})), json!({"a": 1, "b": null}), fail()),
        (8, "Nested member order irrelevant, nested value differs.", c, &[],
            n, ex(json!({"x": {"p": 1, "q": [{"r": true}]}})), json!({"x": {"q": [{"r": false}], "p": 1}}), fail()),
        (9, "Nested structures equal up to member order.", c, &[],
            n, ex(json!({"x": {"p": 1, "q": [{"r": true, "s": "é"}]}})), json!({"x": {"q": [{"s": "é", "r": true}], "p": 1.0}}), pass()),
        (10, "Composed vs decomposed `é` are different strings (no normalisation).", c, &[], n, ex(json!("\u{e9}")), json!("e\u{301}"), fail()),
        (11, "`true` vs `1`.", c, &[], n, ex(json!(true)), json!(1), fail()),
        (12, "Empty object vs empty array.", c, &[], n, ex(json!({})), json!([]), fail()),
        (13, "0.1 + 0.2 style: `0.30000000000000004` is not `0.3`.", c, &[], n, ex(json!(0.3)), json!(0.300_000_000_000_000_04), fail()),
    ];
    run_rows(g, rows);
    let nl = &["CHECK-EQUALS-NULL-EXPECTED"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (20, "`expected: null` vs output `null`.", nl, &[], n, ex(Value::Null), Value::Null, pass()),
        (21, "`expected: null` vs output `{}`.", nl, &[], n, ex(Value::Null), json!({}), fail()),
        (22, "Missing `expected` → invalid_params (not a comparison with undefined).", nl, &[],
            n, Some(json!({})), Value::Null, err("invalid_params")),
        (23, "No params at all → invalid_params.", nl, &[], n, None, Value::Null, err("invalid_params")),
        (24, "Unknown param besides `expected`.", &["CHECK-PARAMS-SHAPE"], &[],
            n, Some(json!({"expected": 1, "strict": true})), json!(1), err("invalid_params")),
    ];
    run_rows(g, rows);
}

/// Names that are not built-ins: (number, name, description).
#[rustfmt::skip]
const NEAR_MISS_NAMES: &[(u16, &str, &str)] = &[
    (10, "regex", "A near-miss name `regex`."),
    (11, "Regex_Match", "Names are case-sensitive."),
    (12, "", "The empty name."),
    (13, "llm_judge", "`llm_judge` is a v0.2 method, not a check."),
    (14, "regex_match ", "Trailing space."),
    (15, "toString", "An inherited property name of JS objects is not a check."),
];

fn build_registry(g: &mut Group) {
    let d = &["CHECK-REGISTRY-DEFAULT"];
    #[rustfmt::skip]
    let rows: Vec<Run> = vec![
        (1, "`regex_match` is registered.", d, &[], "regex_match", Some(json!({"pattern": "x"})), json!("x"), pass()),
        (2, "`json_schema` is registered.", d, &[], "json_schema", Some(json!({"schema": {}})), json!(1), pass()),
        (3, "`string_length` is registered.", d, &[], "string_length", Some(json!({})), json!("x"), pass()),
        (4, "`array_length` is registered.", d, &[], "array_length", Some(json!({})), json!([]), pass()),
        (5, "`field_exists` is registered.", d, &[], "field_exists", Some(json!({"fields": []})), json!({}), pass()),
        (6, "`exit_code` is registered.", d, &[], "exit_code", Some(json!({"expected": 0})), json!({"exitCode": 0}), pass()),
        (7, "`output_equals` is registered.", d, &[], "output_equals", Some(json!({"expected": 1})), json!(1), pass()),
    ];
    run_rows(g, rows);
    let u = &["CHECK-REGISTRY-UNKNOWN"];
    for &(num, name, desc) in NEAR_MISS_NAMES {
        let expect = Expectation::invalid("unknown_check", "6.3");
        let params = Some(json!({}));
        run(g, num, desc, u, &[], name, params, json!("x"), expect);
    }
}

#[allow(clippy::too_many_arguments)]
fn vo(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    flags: &[&str],
    spec: Value,
    output: Value,
    expect: Expectation,
) {
    g.case(
        n,
        desc,
        reqs,
        flags,
        "output.verify",
        json!({"verification": spec, "output": output}),
        expect,
    );
}

/// An `output.verify` case: (number, description, requirement ids, flags, verification spec,
/// output, expected).
type Vo<'a> = (
    u16,
    &'a str,
    &'a [&'a str],
    &'a [&'a str],
    Value,
    Value,
    Expectation,
);

/// One `output.verify` case per row.
fn vo_rows(g: &mut Group, rows: Vec<Vo>) {
    for (n, desc, reqs, flags, spec, output, expect) in rows {
        vo(g, n, desc, reqs, flags, spec, output, expect);
    }
}

fn det(name: &str, params: Value) -> Value {
    json!({"method": "deterministic_check", "checkName": name, "checkParams": params})
}

fn comp(mode: &str, steps: Vec<Value>) -> Value {
    json!({"method": "composite", "mode": mode, "steps": steps})
}

/// `step` with `expectedResult: exp`.
fn with_exp(step: &Value, exp: Value) -> Value {
    let mut s = step.clone();
    s["expectedResult"] = exp;
    s
}

/// A weighted composite of `steps` with weights `w` and an optional `passThreshold`.
fn wsp(w: Value, steps: Vec<Value>, th: Option<f64>) -> Value {
    let mut s = comp("weighted", steps);
    s["weights"] = w;
    if let Some(t) = th {
        s["passThreshold"] = json!(t);
    }
    s
}

fn res(passed: bool, score: f64) -> Expectation {
    Expectation::valid(json!({"passed": passed, "score": score}))
}

fn spec_err(code: &str) -> Expectation {
    Expectation::invalid(code, "10.3")
}

fn build_verify(g: &mut Group) {
    define_flags(g, &[EXPECTED_RESULT_DETAILS, SPEC_EXTRA_FIELDS]);
    verify_methods(g);
    verify_composites(g);
    verify_limits(g);
}

/// The reusable verification steps, all on the output `out`: (out, three passing steps t1–t3,
/// three failing steps f1–f3, an unknown check, a check with invalid params).
fn verify_steps() -> [Value; 9] {
    // Reusable steps (all on output {"summary": "ok done", "n": 3}).
    let out = json!({"summary": "ok done", "n": 3});
    let t1 = det("field_exists", json!({"fields": ["summary"]}));
    let t2 = det("regex_match", json!({"pattern": "^ok", "field": "summary"}));
    let t3 = json!({"method": "schema_match", "schema": {"type": "object"}});
    let f1 = det("field_exists", json!({"fields": ["missing"]}));
    let f2 = det("regex_match", json!({"pattern": "^no", "field": "summary"}));
    let f3 = json!({"method": "schema_match", "schema": {"type": "array"}});
    let boom = det("no_such_check", json!({}));
    let boom_params = det("regex_match", json!({"pattern": "("}));

    [out, t1, t2, t3, f1, f2, f3, boom, boom_params]
}

fn verify_methods(g: &mut Group) {
    let [out, t1, t2, t3, f1, f2, f3, boom, boom_params] = verify_steps();
    let sm = &["VERIFY-OUTPUT-SCHEMA-MATCH"];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (1, "schema_match, valid output → passed, score 1.", sm, &[], t3.clone(), out.clone(), res(true, 1.0)),
        (2, "schema_match, invalid output → passed false, score 0.", sm, &[], f3.clone(), out.clone(), res(false, 0.0)),
        (3, "schema_match without `schema` → invalid_spec.", sm, &[], json!({"method": "schema_match"}), out.clone(), spec_err("invalid_spec")),
        (4, "schema_match with an unknown keyword → invalid_schema.", sm, &["SchemaStrict"],
            json!({"method": "schema_match", "schema": {"type": "object", "bogus": true}}), out.clone(), spec_err("invalid_schema")),
        (5, "schema_match with a remote `$ref` → invalid_schema.", sm, &[],
            json!({"method": "schema_match", "schema": {"$ref": "http://example.com/s.json"}}), out.clone(), spec_err("invalid_schema")),
        (6, "schema_match with `multipleOf 0.01` on 0.07 (draft-07: valid).", sm, &[],
            json!({"method": "schema_match", "schema": {"multipleOf": 0.01}}), json!(0.07), res(true, 1.0)),
    ];
    vo_rows(g, rows);

    let dc = &["VERIFY-OUTPUT-DETERMINISTIC"];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (10, "deterministic_check runs the named check (pass).", dc, &[], t2.clone(), out.clone(), res(true, 1.0)),
        (11, "deterministic_check runs the named check (fail).", dc, &[], f2.clone(), out.clone(), res(false, 0.0)),
        (12, "Unknown checkName → unknown_check.", dc, &[], boom.clone(), out.clone(), spec_err("unknown_check")),
        (13, "Missing checkName → invalid_spec.", dc, &[],
            json!({"method": "deterministic_check", "checkParams": {}}), out.clone(), spec_err("invalid_spec")),
        (14, "Check params error propagates (`invalid_params`).", dc, &[], boom_params.clone(), out.clone(), spec_err("invalid_params")),
        (15, "checkParams omitted for a check whose params are optional (string_length).", dc, &[],
            json!({"method": "deterministic_check", "checkName": "string_length"}), json!("x"), res(true, 1.0)),
        (16, "checkParams omitted for a check that requires them (exit_code) → invalid_params.", dc, &[],
            json!({"method": "deterministic_check", "checkName": "exit_code"}), json!({"exitCode": 0}), spec_err("invalid_params")),
        (17, "Regex probe through output.verify: `^\\d+$` vs `١٢٣` (V8: false).", dc, &["RegexDialect"],
            det("regex_match", json!({"pattern": "^\\d+$"})), json!("١٢٣"), res(false, 0.0)),
    ];
    vo_rows(g, rows);

    let er = &[
        "VERIFY-OUTPUT-EXPECTED-RESULT",
        "VERIFY-OUTPUT-DETERMINISTIC",
    ];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (20, "expectedResult `{passed: false, score: 0}` on a failing check: equal → passed true, score kept (0).", er, &[],
            with_exp(&f2, json!({"passed": false, "score": 0})), out.clone(), res(true, 0.0)),
        (21, "expectedResult `{passed: true, score: 1}` on a failing check: not equal → passed false.", er, &[],
            with_exp(&f2, json!({"passed": true, "score": 1})), out.clone(), res(false, 0.0)),
        (22, "expectedResult `{passed: true, score: 1}` on a passing check → passed true, score 1.", er, &[],
            with_exp(&t2, json!({"passed": true, "score": 1})), out.clone(), res(true, 1.0)),
        (23, "expectedResult `{passed: false, score: 0}` on a passing check → passed false, score kept (1).", er, &[],
            with_exp(&t2, json!({"passed": false, "score": 0})), out.clone(), res(false, 1.0)),
        // `passed` equal but `score` not: deepEqual is false (both members take part).
        (98, "expectedResult `{passed: true, score: 0.5}` on a passing check (score 1): not equal → passed false, score kept (1).", er, &[],
            with_exp(&t2, json!({"passed": true, "score": 0.5})), out.clone(), res(false, 1.0)),
        (24, "expectedResult score `1.0` equals the check's score 1 canonically.", er, &[],
            with_exp(&t2, json!({"passed": true, "score": 1.0})), out.clone(), res(true, 1.0)),
        (25, "expectedResult with `details` on a failing check: details are ignored → passed true (a details-sensitive comparison is acceptable).", er, &["ExpectedResultDetails"],
            with_exp(&f2, json!({"passed": false, "score": 0, "details": "anything at all"})), out.clone(), Expectation::acceptable("D28", vec![Expected::valid(json!({"passed": true, "score": 0})), Expected::valid(json!({"passed": false, "score": 0}))])),
        (26, "expectedResult with `details` on a passing check → passed true (details ignored).", er, &["ExpectedResultDetails"],
            with_exp(&t2, json!({"passed": true, "score": 1, "details": "irrelevant"})), out.clone(), Expectation::acceptable("D28", vec![Expected::valid(json!({"passed": true, "score": 1})), Expected::valid(json!({"passed": false, "score": 1}))])),
        (27, "A composite step whose expectedResult inverts a failure counts as passing (all_pass).", er, &[],
            comp("all_pass", vec![t1.clone(), with_exp(&f1, json!({"passed": false, "score": 0}))]), out.clone(), res(true, 1.0)),
    ];
    vo_rows(g, rows);
}

fn verify_composites(g: &mut Group) {
    let [out, t1, t2, t3, f1, f2, f3, boom, boom_params] = verify_steps();
    let ap = &["VERIFY-OUTPUT-ALL-PASS"];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (30, "all_pass, every step passes → {true, 1}.", ap, &[],
            comp("all_pass", vec![t1.clone(), t2.clone(), t3.clone()]), out.clone(), res(true, 1.0)),
        (31, "all_pass, the last step fails → {false, 0}.", ap, &[],
            comp("all_pass", vec![t1.clone(), t2.clone(), f3.clone()]), out.clone(), res(false, 0.0)),
        (32, "all_pass short-circuits: step 2 fails, step 3 would ERROR (unknown check) and is never run → {false, 0}.", &["VERIFY-OUTPUT-ALL-PASS", "VERIFY-OUTPUT-ERROR-PROPAGATES"], &[],
            comp("all_pass", vec![t1.clone(), f1.clone(), boom.clone()]), out.clone(), res(false, 0.0)),
        (33, "all_pass short-circuits before a step with invalid params.", ap, &[],
            comp("all_pass", vec![f2.clone(), boom_params.clone()]), out.clone(), res(false, 0.0)),
        (34, "all_pass short-circuits before a nested composite with empty steps.", ap, &[],
            comp("all_pass", vec![f1.clone(), comp("majority", vec![])]), out.clone(), res(false, 0.0)),
        (35, "all_pass: an erroring step BEFORE the failing one is reached and fails the whole verification.", &["VERIFY-OUTPUT-ERROR-PROPAGATES"], &[],
            comp("all_pass", vec![t1.clone(), boom.clone(), f1.clone()]), out.clone(), spec_err("unknown_check")),
        (36, "all_pass with one passing step.", ap, &[], comp("all_pass", vec![t3.clone()]), out.clone(), res(true, 1.0)),
    ];
    vo_rows(g, rows);

    let mj = &["VERIFY-OUTPUT-MAJORITY"];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (40, "majority 2 of 3 → passed, score 2/3.", mj, &[],
            comp("majority", vec![t1.clone(), t2.clone(), f1.clone()]), out.clone(), res(true, 2.0 / 3.0)),
        (41, "majority exactly half (2 of 4) fails: strictly more than half is required; score 0.5.", mj, &[],
            comp("majority", vec![t1.clone(), f1.clone(), t2.clone(), f2.clone()]), out.clone(), res(false, 0.5)),
        (42, "majority 1 of 3 → failed, score 1/3.", mj, &[],
            comp("majority", vec![f1.clone(), t1.clone(), f2.clone()]), out.clone(), res(false, 1.0 / 3.0)),
        (43, "majority 1 of 1 → passed, score 1.", mj, &[], comp("majority", vec![t1.clone()]), out.clone(), res(true, 1.0)),
        (44, "majority 1 of 2 (half) → failed, score 0.5.", mj, &[], comp("majority", vec![t1.clone(), f1.clone()]), out.clone(), res(false, 0.5)),
        (45, "majority runs every step: an erroring step after passing ones fails the verification with its code.", &["VERIFY-OUTPUT-MAJORITY", "VERIFY-OUTPUT-ERROR-PROPAGATES"], &[],
            comp("majority", vec![t1.clone(), t2.clone(), boom.clone()]), out.clone(), spec_err("unknown_check")),
        (46, "majority 3 of 5 → passed, score 0.6.", mj, &[],
            comp("majority", vec![t1.clone(), f1.clone(), t2.clone(), f2.clone(), t3.clone()]), out.clone(), res(true, 0.6)),
    ];
    vo_rows(g, rows);

    let wt = &["VERIFY-OUTPUT-WEIGHTED"];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (50, "weighted [0.5, 0.5], one pass one fail → 0.5 < 0.7 default → failed, score 0.5.", &["VERIFY-OUTPUT-WEIGHTED", "VERIFY-OUTPUT-DEFAULT-THRESHOLD"], &[],
            wsp(json!([0.5, 0.5]), vec![t1.clone(), f1.clone()], None), out.clone(), res(false, 0.5)),
        (51, "weighted [0.7, 0.3], first passes → 0.7 ≥ default 0.7 exactly → passed.", &["VERIFY-OUTPUT-WEIGHTED", "VERIFY-OUTPUT-DEFAULT-THRESHOLD"], &[],
            wsp(json!([0.7, 0.3]), vec![t1.clone(), f1.clone()], None), out.clone(), res(true, 0.7)),
        (52, "weighted [0.6, 0.4], first passes → 0.6 < 0.7 → failed.", &["VERIFY-OUTPUT-DEFAULT-THRESHOLD"], &[],
            wsp(json!([0.6, 0.4]), vec![t1.clone(), f1.clone()], None), out.clone(), res(false, 0.6)),
        (53, "weighted with passThreshold 0.5, score 0.5 → passed (≥).", wt, &[],
            wsp(json!([0.5, 0.5]), vec![t1.clone(), f1.clone()], Some(0.5)), out.clone(), res(true, 0.5)),
        (54, "weighted with passThreshold 0 → passes even when every step fails.", wt, &[],
            wsp(json!([0.5, 0.5]), vec![f1.clone(), f2.clone()], Some(0.0)), out.clone(), res(true, 0.0)),
        (55, "weighted with passThreshold 1, all pass → passed, score 1.", wt, &[],
            wsp(json!([0.25, 0.75]), vec![t1.clone(), t2.clone()], Some(1.0)), out.clone(), res(true, 1.0)),
        (56, "Weights summing to 0.9995 (within ±0.001) are accepted: [0.4995, 0.5], both pass → score 0.9995.", &["VERIFY-OUTPUT-WEIGHTS"], &[],
            wsp(json!([0.4995, 0.5]), vec![t1.clone(), t2.clone()], None), out.clone(), res(true, 0.9995)),
        (57, "Weights summing to 0.998 are refused → invalid_spec.", &["VERIFY-OUTPUT-WEIGHTS"], &[],
            wsp(json!([0.498, 0.5]), vec![t1.clone(), t2.clone()], None), out.clone(), spec_err("invalid_spec")),
        (58, "Weights summing to 1.002 are refused.", &["VERIFY-OUTPUT-WEIGHTS"], &[],
            wsp(json!([0.502, 0.5]), vec![t1.clone(), t2.clone()], None), out.clone(), spec_err("invalid_spec")),
        (59, "Weights summing to 1.0005 are accepted.", &["VERIFY-OUTPUT-WEIGHTS"], &[],
            wsp(json!([0.5005, 0.5]), vec![t1.clone(), f1.clone()], Some(0.5)), out.clone(), res(true, 0.5005)),
        (60, "Three weights for two steps → invalid_spec.", &["VERIFY-OUTPUT-WEIGHTS"], &[],
            wsp(json!([0.5, 0.25, 0.25]), vec![t1.clone(), t2.clone()], None), out.clone(), spec_err("invalid_spec")),
        (61, "One weight for two steps → invalid_spec.", &["VERIFY-OUTPUT-WEIGHTS"], &[],
            wsp(json!([1.0]), vec![t1.clone(), t2.clone()], None), out.clone(), spec_err("invalid_spec")),
        (62, "weighted without weights → invalid_spec.", &["VERIFY-OUTPUT-WEIGHTS"], &[],
            comp("weighted", vec![t1.clone(), t2.clone()]), out.clone(), spec_err("invalid_spec")),
        (63, "A negative weight (sum still 1) → invalid_spec.", &["VERIFY-OUTPUT-WEIGHTS"], &[],
            wsp(json!([1.5, -0.5]), vec![t1.clone(), t2.clone()], None), out.clone(), spec_err("invalid_spec")),
        (64, "weighted with passThreshold 1.5 → invalid_spec.", &["VERIFY-OUTPUT-EMPTY-STEPS"], &[],
            wsp(json!([0.5, 0.5]), vec![t1.clone(), t2.clone()], Some(1.5)), out.clone(), spec_err("invalid_spec")),
        (65, "weighted with passThreshold -0.1 → invalid_spec.", &["VERIFY-OUTPUT-EMPTY-STEPS"], &[],
            wsp(json!([0.5, 0.5]), vec![t1.clone(), t2.clone()], Some(-0.1)), out.clone(), spec_err("invalid_spec")),
    ];
    vo_rows(g, rows);
    let nested_maj = comp("majority", vec![t1.clone(), t2.clone(), f1.clone()]);
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (66, "Score: a nested (passing) majority step contributes its SCORE 2/3, not 1: weights [0.9, 0.1], second step fails → 0.6 < 0.7.", wt, &[],
            wsp(json!([0.9, 0.1]), vec![nested_maj.clone(), f1.clone()], None), out.clone(), res(false, 0.9 * (2.0 / 3.0))),
        (67, "Score: an expectedResult-inverted failing step keeps score 0, so it contributes 0 although it passed: [0.8, 0.2] → 0.2.", wt, &[],
            wsp(json!([0.8, 0.2]), vec![with_exp(&f1, json!({"passed": false, "score": 0})), t1.clone()], None), out.clone(), res(false, 0.2)),
        (68, "weighted runs every step: an erroring last step with zero weight still fails the verification.", &["VERIFY-OUTPUT-WEIGHTED", "VERIFY-OUTPUT-ERROR-PROPAGATES"], &[],
            wsp(json!([1.0, 0.0]), vec![t1.clone(), boom.clone()], None), out.clone(), spec_err("unknown_check")),
        (69, "weighted three steps [0.2, 0.3, 0.5] with pass/fail/pass → 0.7 ≥ 0.7.", wt, &[],
            wsp(json!([0.2, 0.3, 0.5]), vec![t1.clone(), f1.clone(), t2.clone()], None), out.clone(), res(true, 0.7)),
    ];
    vo_rows(g, rows);
}

fn verify_limits(g: &mut Group) {
    let [out, t1, t2, t3, f1, f2, _, _, _] = verify_steps();
    let es = &["VERIFY-OUTPUT-EMPTY-STEPS"];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (70, "all_pass with empty steps → invalid_spec.", es, &[], comp("all_pass", vec![]), out.clone(), spec_err("invalid_spec")),
        (71, "majority with empty steps → invalid_spec.", es, &[], comp("majority", vec![]), out.clone(), spec_err("invalid_spec")),
        (72, "weighted with empty steps and empty weights → invalid_spec.", es, &[],
            wsp(json!([]), vec![], None), out.clone(), spec_err("invalid_spec")),
        (73, "composite without `mode` → invalid_spec.", es, &[],
            json!({"method": "composite", "steps": [t1.clone()]}), out.clone(), spec_err("invalid_spec")),
        (74, "composite with unknown mode `any` → invalid_spec.", es, &[], comp("any", vec![t1.clone()]), out.clone(), spec_err("invalid_spec")),
        (75, "composite without `steps` → invalid_spec.", es, &[],
            json!({"method": "composite", "mode": "all_pass"}), out.clone(), spec_err("invalid_spec")),
        (76, "A nested composite with empty steps inside majority → invalid_spec (majority runs every step).", es, &[],
            comp("majority", vec![t1.clone(), comp("all_pass", vec![])]), out.clone(), spec_err("invalid_spec")),
    ];
    vo_rows(g, rows);

    let um = &["VERIFY-OUTPUT-UNKNOWN-METHOD"];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (80, "Unknown method `regex` → invalid_spec.", um, &[], json!({"method": "regex"}), out.clone(), spec_err("invalid_spec")),
        (81, "v0.2 `llm_judge` → invalid_spec.", um, &[], json!({"method": "llm_judge"}), out.clone(), spec_err("invalid_spec")),
        (82, "v0.2 `human_review` → invalid_spec.", um, &[], json!({"method": "human_review"}), out.clone(), spec_err("invalid_spec")),
        (83, "Missing method → invalid_spec.", um, &[], json!({"schema": {}}), out.clone(), spec_err("invalid_spec")),
        (84, "Verification spec not an object → invalid_spec.", um, &[], json!("schema_match"), out.clone(), spec_err("invalid_spec")),
        (85, "A member no method defines (`rubric`) → invalid_spec.", um, &[],
            json!({"method": "schema_match", "schema": {}, "rubric": "x"}), out.clone(), spec_err("invalid_spec")),
        (86, "`steps` on schema_match (a member of another method) → invalid_spec; accepting it is acceptable.", um, &["SpecExtraFields"],
            json!({"method": "schema_match", "schema": {}, "steps": [t1.clone()]}), out.clone(), Expectation::acceptable("D30", vec![Expected::invalid("invalid_spec", "10.3"), Expected::valid(json!({"passed": true, "score": 1}))])),
        (87, "`weights` in an all_pass composite → invalid_spec; accepting it is acceptable.", um, &["SpecExtraFields"],
            {let mut s = comp("all_pass", vec![t1.clone()]); s["weights"] = json!([1.0]); s}, out.clone(), Expectation::acceptable("D30", vec![Expected::invalid("invalid_spec", "10.3"), Expected::valid(json!({"passed": true, "score": 1}))])),
        (88, "`checkName` on schema_match → invalid_spec; accepting it is acceptable.", um, &["SpecExtraFields"],
            json!({"method": "schema_match", "schema": {}, "checkName": "regex_match"}), out.clone(), Expectation::acceptable("D30", vec![Expected::invalid("invalid_spec", "10.3"), Expected::valid(json!({"passed": true, "score": 1}))])),
        (89, "An unknown method nested as a step → invalid_spec.", um, &[],
            comp("majority", vec![t1.clone(), json!({"method": "human_review"})]), out.clone(), spec_err("invalid_spec")),
    ];
    vo_rows(g, rows);

    let nest = |depth: usize| {
        let mut s = t1.clone();
        for _ in 0..depth {
            s = comp("all_pass", vec![s]);
        }
        s
    };
    let ne = &["VERIFY-OUTPUT-NESTING"];
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (90, "Composite nested 2 levels (majority of all_pass) evaluates.", ne, &[],
            comp("majority", vec![comp("all_pass", vec![t1.clone(), t2.clone()]), f1.clone(), t3.clone()]), out.clone(), res(true, 2.0 / 3.0)),
        (91, "20 nested all_pass composites (well within 32) evaluate → passed.", ne, &[], nest(20), out.clone(), res(true, 1.0)),
        (92, "31 nested composites (within 32 under any counting) evaluate → passed.", ne, &[], nest(31), out.clone(), res(true, 1.0)),
        // Exactly at the limit under our counting (the outermost composite is level 1): accepted.
        // Hardening (spec/audit-v0.2.md §13): the spec sets no limit, so another counting is fine.
        (99, "32 nested composites (exactly MAX_SPEC_DEPTH, counting the outermost as 1) evaluate → passed.", ne, &[],
            nest(32), out.clone(), res(true, 1.0)),
        (93, "40 nested composites → limit_exceeded.", ne, &[], nest(40), out.clone(), spec_err("limit_exceeded")),
        (94, "50 nested composites → limit_exceeded (kept under the 128-level JSON parse limit of common parsers).", ne, &[],
            nest(50), out.clone(), spec_err("limit_exceeded")),
    ];
    vo_rows(g, rows);

    // Effect of acceptance (issue 15): weighted specs that a lenient implementation accepts,
    // built so that accepting them turns failing steps into a passed verification with a score
    // outside [0, 1]. The expectation is the refusal; the description says what acceptance does.
    define_flags(g, &[SCORE_RANGE_BYPASS]);
    #[rustfmt::skip]
    let rows: Vec<Vo> = vec![
        (95, "Weights [1.0, 1.0] (sum 2, not 1 ± 0.001) on a passing and a failing step → \
         invalid_spec; accepting them scores 1.0 ≥ 0.7 and passes an output that fails half \
         its checks (with weights summing to 1 the best split is 0.5 or 0.5 → failed).", &["VERIFY-OUTPUT-WEIGHTS"], &["ScoreRangeBypass"],
            wsp(json!([1.0, 1.0]), vec![t1.clone(), f1.clone()], None), out.clone(), spec_err("invalid_spec")),
        (96, "Weights [1.5, -0.5] (sum 1, one negative, D30) on a passing and a failing step → \
         invalid_spec; accepting them scores 1.5: a score above 1 that passes any threshold.", &["VERIFY-OUTPUT-WEIGHTS"], &["ScoreRangeBypass"],
            wsp(json!([1.5, -0.5]), vec![t1.clone(), f2.clone()], None), out.clone(), spec_err("invalid_spec")),
        (97, "passThreshold -0.5 (outside [0, 1], D30) with every step failing → invalid_spec; \
         accepting it passes the verification with score 0.", &["VERIFY-OUTPUT-EMPTY-STEPS"], &["ScoreRangeBypass"],
            wsp(json!([0.5, 0.5]), vec![f1.clone(), f2.clone()], Some(-0.5)), out.clone(), spec_err("invalid_spec")),
    ];
    vo_rows(g, rows);
}
