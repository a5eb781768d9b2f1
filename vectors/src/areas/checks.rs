//! Area `checks`: the seven built-in check functions (`check.run`, spec §6.2–6.3, D12, D28,
//! D29) and contract output verification (`output.verify`, §6.4, §10.3, D12, D28, D30).
//!
//! Regex expectations are what V8 answers for `new RegExp(pattern, flags).test(subject)`:
//! every probe below was run on node v20.20.2 (the description says "V8: …"). Schema
//! expectations follow draft-07 and the strictness of D29. Nothing is read off the reference.

// A row of a data table naming a construction, key or message this file does not define is a
// bug in the table: the generator panics with the row and the name (run in CI, it fails at once).
#![allow(clippy::panic)]

use serde_json::{json, Value};

use crate::format::Expectation;
use crate::generate::{Area, Group};

/// The groups, in output order: (name, description, builder).
#[rustfmt::skip]
const GROUPS: &[crate::tables::PlainGroupDef] = &[
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
    crate::tables::build_plain_groups(area, GROUPS);
}

fn pass() -> Expectation {
    Expectation::valid(json!({"passed": true, "score": 1}))
}

fn fail() -> Expectation {
    Expectation::valid(json!({"passed": false, "score": 0}))
}

fn err(code: &str) -> Expectation {
    Expectation::invalid(code, "6.2")
}

/// Adds the rows of `set` of `data/tables/checks.json`.
fn table(g: &mut Group, set: &str) {
    crate::tables::case_rows(g, "checks", set, "checks.json");
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

/// `regex_match`: the V8 probes, syntax errors and flags, then the hostile and oversized
/// patterns and subjects (built here: too long to write out), then fields, params and the
/// remaining probes.
fn build_regex(g: &mut Group) {
    table(g, "regex_match/dialect");
    regex_limits(g);
    table(g, "regex_match/fields-and-probes");
}

fn regex_limits(g: &mut Group) {
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
}

const JS: &str = "json_schema";

fn schema_params(schema: Value) -> Option<Value> {
    Some(json!({ "schema": schema }))
}

/// `json_schema`: the rows, with the nesting-limit cases built here (64 or 65 levels).
fn build_schema(g: &mut Group) {
    table(g, "json_schema/a");
    // Schema nesting beyond MAX_SCHEMA_DEPTH (64) is `limit_exceeded` (hardening, D33-style
    // resource limit). Each case reaches depth 65 through 64 `not` wrappers (one JSON level
    // each, so the message stays under the 128-level limit of common JSON parsers) and then one
    // level of the keyword under test, so a walker that forgets to count that keyword's
    // subschemas stays at 64.
    let lim = &["CHECK-SCHEMA-VALIDATE"];
    let nest = |inner: Value, levels: usize| (0..levels).fold(inner, |s, _| json!({ "not": s }));
    #[rustfmt::skip]
    let deep: Vec<(u16, &str, Value)> = vec![
        (73, "65 nested `not` schemas", nest(json!({}), 65)),
        (74, "64 nested `not` schemas around `properties`", nest(json!({"properties": {"a": {}}}), 64)),
        (75, "64 nested `not` schemas around `allOf`", nest(json!({"allOf": [{}]}), 64)),
        (76, "64 nested `not` schemas around a single-schema `items`", nest(json!({"items": {}}), 64)),
        (77, "64 nested `not` schemas around a schema-valued `dependencies`", nest(json!({"dependencies": {"a": {}}}), 64)),
    ];
    for (k, d, schema) in deep {
        let desc = format!("{d}: nesting 65 is beyond the limit of 64.");
        let params = schema_params(schema);
        let expect = err("limit_exceeded");
        run(g, k, &desc, lim, &[], JS, params, json!("x"), expect);
    }
    let params = schema_params(nest(json!({"type": "string"}), 64));
    let desc = "64 nested `not` schemas: nesting 64, exactly the limit, is accepted.";
    run(g, 79, desc, lim, &[], JS, params, json!("x"), pass());
    table(g, "json_schema/b");
}

fn build_strlen(g: &mut Group) {
    table(g, "string_length");
}

fn build_arrlen(g: &mut Group) {
    table(g, "array_length");
}

fn build_fields(g: &mut Group) {
    table(g, "field_exists");
}

fn build_exit(g: &mut Group) {
    table(g, "exit_code");
}

fn build_equals(g: &mut Group) {
    table(g, "output_equals");
}

fn build_registry(g: &mut Group) {
    table(g, "registry");
}

/// `output.verify`: the rows, with the deeply nested composites built here.
fn build_verify(g: &mut Group) {
    table(g, "output-verification/a");
    let t1 = json!({"method": "deterministic_check", "checkName": "field_exists", "checkParams": {"fields": ["summary"]}});
    let nest = |depth: usize| {
        (0..depth).fold(
            t1.clone(),
            |s, _| json!({"method": "composite", "mode": "all_pass", "steps": [s]}),
        )
    };
    let passed = Expectation::valid(json!({"passed": true, "score": 1.0}));
    let too_deep = Expectation::invalid("limit_exceeded", "10.3");
    #[rustfmt::skip]
    let rows: Vec<(u16, &str, usize, Expectation)> = vec![
        (91, "20 nested all_pass composites (well within 32) evaluate → passed.", 20, passed.clone()),
        (92, "31 nested composites (within 32 under any counting) evaluate → passed.", 31, passed.clone()),
        // Exactly at the limit under our counting (the outermost composite is level 1): accepted.
        // Hardening (spec/audit-v0.2.md §13): the spec sets no limit, so another counting is fine.
        (99, "32 nested composites (exactly MAX_SPEC_DEPTH, counting the outermost as 1) evaluate → passed.", 32, passed),
        (93, "40 nested composites → limit_exceeded.", 40, too_deep.clone()),
        (94, "50 nested composites → limit_exceeded (kept under the 128-level JSON parse limit of common parsers).", 50, too_deep),
    ];
    for (n, desc, depth, expect) in rows {
        let input = json!({"verification": nest(depth), "output": {"summary": "ok done", "n": 3}});
        let reqs = &["VERIFY-OUTPUT-NESTING"];
        g.case(n, desc, reqs, &[], "output.verify", input, expect);
    }
    table(g, "output-verification/b");
}
