//! Area `stateful`: ordered groups (issue 15; `vectors/README.md` "Stateful groups").
//!
//! Every other case is one stateless operation, so an implementation that keeps state
//! between requests the wrong way passes them all: a verdict cache keyed by the token text, a
//! revocation list that only grows, compiled JSON Schemas cached by `$id` (or refused the
//! second time they are added, as one shared ajv instance does), compiled regexes or check
//! parameters cached by check name. The groups here are marked stateful: the runner runs their
//! cases in file order in one fresh adapter process, then replays them in another.
//!
//! Each case's expectation follows from its own input alone — the spec's functions are pure
//! (`verifyDCT(token, context)`, a check of `(params, output)`) — so every verdict is
//! normative and would be the same in isolation. The order is chosen so that state carried
//! over from the case before changes the answer: the same token verified valid, then with its
//! revocation, then without; the same `$id` with two different schemas; the same check name
//! with two patterns.

use serde_json::{json, Value};

use super::dct_support::{
    default_caps, deny, ok, revocation_entry, scope, verify_input, Chain, Ctx, BUDGET, MAX_DEPTH,
    VERIFY,
};
use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::Keys;

/// One second after the default root expiry (`dct_support::EXPIRES_AT`).
const LATER: &str = "2026-03-01T12:00:01Z";
const STATE: &str = "StatefulReuse";

/// Builds the `stateful` area.
pub fn build(area: &mut Area) {
    let keys = area.keys().clone();
    build_verify(
        area.group(
            "verify",
            "dct.verify in order in one process: the same token valid, revoked, valid again, \
             under another root key, expired, over budget, out of scope — each verdict from its \
             own context (§10.1; no verdict cache, no revocation list carried over).",
        )
        .stateful(),
        &keys,
    );
    build_schema(area.group(
        "schema-id",
        "check.run json_schema and output.verify schema_match in order in one process: one `$id` \
         validated twice, then bound to another schema (§6.2, §10.3; no schema cache keyed by \
         `$id`, no refusal of a schema seen before).",
    )
    .stateful());
    build_registry(
        area.group(
            "registry",
            "check.run and output.verify in order in one process: the same check name with other \
         parameters, the same composite with other weights (§6.2–§6.4, §10.3; no compiled \
         regex or parameter cached by check name).",
        )
        .stateful(),
    );
}

fn flag(g: &mut Group) {
    g.define_flag(
        STATE,
        "AUTH_BYPASS",
        "§10.1, §10.3",
        "A case of a stateful group: it runs after cases that use the same token, schema `$id` \
         or check name with other inputs, in the same adapter process.",
        "State kept between requests (a verdict cache keyed by the token, a revocation list \
         that only grows, a schema or regex cached by `$id` or name) answers from an earlier \
         request: a revoked token accepted, a valid one refused, an output judged by another \
         contract's check.",
    );
}

/// The root token's context with its authority block revoked by the root.
fn root_revoked(keys: &Keys) -> Ctx {
    let chain = Chain::root(keys);
    Ctx::new(keys).revoke(revocation_entry(
        &keys.root,
        &chain.revocation_ids()[0],
        false,
    ))
}

/// The root token's verdict: its AuthorizedScope, or a denial (code, step).
#[derive(Clone, Copy)]
enum Verify {
    Granted,
    Denied(&'static str, &'static str),
}

const GRANTED: Verify = Verify::Granted;

/// Number, description, requirements (after DCT-VERIFY-STATELESS), context, verdict.
type SameTokenRow = (
    u16,
    &'static str,
    &'static [&'static str],
    fn(&Keys) -> Ctx,
    Verify,
);

#[rustfmt::skip]
const SAME_TOKEN: &[SameTokenRow] = &[
    (1, "the token under the default context: valid", &["DCT-VERIFY-8-SCOPE"], Ctx::new, GRANTED),
    (2, "the same token with its authority block revoked by the root: revoked", &["DCT-VERIFY-2-EVERY-BLOCK"], root_revoked, Verify::Denied("revoked", "2")),
    (3, "the same token with no revocation (the entry of the case before is not part of this context): valid", &["DCT-VERIFY-8-SCOPE"], Ctx::new, GRANTED),
    (4, "the same token verified against another root key: invalid_signature", &["DCT-VERIFY-3A-ROOT-KEY"], |k| Ctx::new(k).root(&k.other_root.principal), Verify::Denied("invalid_signature", "3")),
    (5, "the same token at a `now` one second after its expiry: expired", &["DCT-VERIFY-5-EXPIRED"], |k| Ctx::new(k).now(LATER), Verify::Denied("expired", "5")),
    (6, "the same token with its whole budget spent: budget_exceeded", &["DCT-VERIFY-6-BUDGET"], |k| Ctx::new(k).spent(BUDGET), Verify::Denied("budget_exceeded", "6")),
    (7, "the same token asked for docs/write on /project/readme.md (granted only under /project/drafts/*): capability_not_granted", &["DCT-VERIFY-7-CAPABILITY"], |k| Ctx::new(k).request("docs", "write", "/project/readme.md"), Verify::Denied("capability_not_granted", "7")),
    (8, "the same token under the default context once more: valid", &["DCT-VERIFY-8-SCOPE"], Ctx::new, GRANTED),
    (9, "the authority revocation again: revoked (a first answer for this context was not cached as valid)", &["DCT-VERIFY-2-EVERY-BLOCK"], root_revoked, Verify::Denied("revoked", "2")),
];

fn build_verify(g: &mut Group, keys: &Keys) {
    flag(g);
    let chain = Chain::root(keys);
    let token = chain.serialized();
    let granted = ok(&scope(&chain, default_caps(), BUDGET, MAX_DEPTH));
    for &(n, desc, reqs, ctx, verify) in SAME_TOKEN {
        let mut all: Vec<&str> = vec!["DCT-VERIFY-STATELESS"];
        all.extend_from_slice(reqs);
        let expect = match verify {
            Verify::Granted => granted.clone(),
            Verify::Denied(code, step) => deny(code, step),
        };
        let input = verify_input(token.clone(), &ctx(keys));
        g.case(n, desc, &all, &[STATE], VERIFY, input, expect);
    }
    // A delegated token whose attenuation block is revoked, then the same without the entry.
    let delegated = Chain::root(keys).delegate(&keys.bob, |_| {});
    let dtoken = delegated.serialized();
    let dgranted = ok(&scope(&delegated, default_caps(), BUDGET, MAX_DEPTH - 1));
    let att_revoked = Ctx::new(keys).revoke(revocation_entry(
        &keys.alice,
        &delegated.revocation_ids()[1],
        false,
    ));
    fn all(extra: &str) -> Vec<&str> {
        vec!["DCT-VERIFY-STATELESS", extra]
    }
    g.case(
        10,
        "a token delegated to bob, its attenuation block revoked by alice (its signer): revoked",
        &all("DCT-VERIFY-2-EVERY-BLOCK"),
        &[STATE],
        VERIFY,
        verify_input(dtoken.clone(), &att_revoked),
        deny("revoked", "2"),
    );
    g.case(
        11,
        "the delegated token without the entry: valid",
        &all("DCT-VERIFY-8-SCOPE"),
        &[STATE],
        VERIFY,
        verify_input(dtoken, &Ctx::new(keys)),
        dgranted,
    );
    g.case(
        12,
        "the root token under the default context after the delegated one was revoked: valid \
         (its own blocks are not revoked)",
        &all("DCT-VERIFY-8-SCOPE"),
        &[STATE],
        VERIFY,
        verify_input(token, &Ctx::new(keys)),
        granted,
    );
}

fn pass() -> Expectation {
    Expectation::valid(json!({"passed": true, "score": 1}))
}

fn fail() -> Expectation {
    Expectation::valid(json!({"passed": false, "score": 0}))
}

#[allow(clippy::too_many_arguments)] // Mirrors the case's fields one for one.
fn check(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    name: &str,
    params: Value,
    output: Value,
    e: Expectation,
) {
    let mut all = vec!["CHECK-STATELESS"];
    all.extend_from_slice(reqs);
    g.case(
        n,
        desc,
        &all,
        &[STATE],
        "check.run",
        json!({"name": name, "params": params, "output": output}),
        e,
    );
}

fn verify_output(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    spec: Value,
    output: Value,
    e: Expectation,
) {
    let mut all = vec!["CHECK-STATELESS"];
    all.extend_from_slice(reqs);
    g.case(
        n,
        desc,
        &all,
        &[STATE],
        "output.verify",
        json!({"verification": spec, "output": output}),
        e,
    );
}

fn build_schema(g: &mut Group) {
    flag(g);
    const ID: &str = "https://delegateos.invalid/conformance/schemas/report";
    let report = json!({"$id": ID, "type": "object", "required": ["summary"],
                        "properties": {"summary": {"type": "string", "minLength": 1}}});
    let counted = json!({"$id": ID, "type": "object", "required": ["count"],
                         "properties": {"count": {"type": "integer"}}});
    let v = &["CHECK-SCHEMA-VALIDATE"];
    let js = "json_schema";
    let p = |s: &Value| json!({ "schema": s });
    check(g, 1, "schema A (`$id` …/report, requires a non-empty `summary`) against {summary: \"done\"}: passed", v, js, p(&report), json!({"summary": "done"}), pass());
    check(g, 2, "the identical schema A and output again: passed (a validator that registers schemas by `$id` must not refuse the second compilation)", v, js, p(&report), json!({"summary": "done"}), pass());
    check(
        g,
        3,
        "schema A against {summary: \"\"}: failed",
        v,
        js,
        p(&report),
        json!({"summary": ""}),
        fail(),
    );
    check(g, 4, "schema B, another schema under the same `$id` (requires an integer `count`), against {count: 3}: passed — the schema is the one in this check, not the one compiled before under its `$id`", v, js, p(&counted), json!({"count": 3}), pass());
    check(
        g,
        5,
        "schema B against {summary: \"done\"} (valid under A, not under B): failed",
        v,
        js,
        p(&counted),
        json!({"summary": "done"}),
        fail(),
    );
    check(
        g,
        6,
        "schema A once more against {summary: \"done\"}: passed",
        v,
        js,
        p(&report),
        json!({"summary": "done"}),
        pass(),
    );
    let sm = |s: &Value| json!({"method": "schema_match", "schema": s});
    let r = &["VERIFY-OUTPUT-SCHEMA-MATCH"];
    verify_output(
        g,
        7,
        "output.verify schema_match with schema A against {summary: \"x\"}: passed, score 1",
        r,
        sm(&report),
        json!({"summary": "x"}),
        Expectation::valid(json!({"passed": true, "score": 1.0})),
    );
    verify_output(g, 8, "output.verify schema_match with schema B (same `$id`) against {summary: \"x\"}: failed, score 0", r, sm(&counted), json!({"summary": "x"}), Expectation::valid(json!({"passed": false, "score": 0.0})));
    verify_output(
        g,
        9,
        "output.verify schema_match with schema B against {count: 1}: passed, score 1",
        r,
        sm(&counted),
        json!({"count": 1}),
        Expectation::valid(json!({"passed": true, "score": 1.0})),
    );
}

fn build_registry(g: &mut Group) {
    flag(g);
    let rx = &["CHECK-REGEX-SEARCH"];
    check(
        g,
        1,
        "regex_match `^a` against \"abc\": passed",
        rx,
        "regex_match",
        json!({"pattern": "^a"}),
        json!("abc"),
        pass(),
    );
    check(
        g,
        2,
        "regex_match `^b` against \"abc\" (same check name, another pattern): failed",
        rx,
        "regex_match",
        json!({"pattern": "^b"}),
        json!("abc"),
        fail(),
    );
    check(
        g,
        3,
        "regex_match `^a` with flag `i` against \"ABC\": passed",
        rx,
        "regex_match",
        json!({"pattern": "^a", "flags": "i"}),
        json!("ABC"),
        pass(),
    );
    check(g, 4, "regex_match `^a` without flags against \"ABC\" (the flags of the case before are not kept): failed", rx, "regex_match", json!({"pattern": "^a"}), json!("ABC"), fail());
    let sl = &["CHECK-STRLEN-BOUNDS"];
    check(
        g,
        5,
        "string_length max 3 against \"abcd\": failed",
        sl,
        "string_length",
        json!({"max": 3}),
        json!("abcd"),
        fail(),
    );
    check(
        g,
        6,
        "string_length max 5 against \"abcd\": passed",
        sl,
        "string_length",
        json!({"max": 5}),
        json!("abcd"),
        pass(),
    );
    let det = |name: &str, params: Value| json!({"method": "deterministic_check", "checkName": name, "checkParams": params});
    let dv = &["VERIFY-OUTPUT-DETERMINISTIC"];
    verify_output(
        g,
        7,
        "output.verify deterministic_check regex_match `^x` against \"xyz\": passed",
        dv,
        det("regex_match", json!({"pattern": "^x"})),
        json!("xyz"),
        Expectation::valid(json!({"passed": true, "score": 1.0})),
    );
    verify_output(
        g,
        8,
        "output.verify deterministic_check regex_match `^y` against \"xyz\": failed",
        dv,
        det("regex_match", json!({"pattern": "^y"})),
        json!("xyz"),
        Expectation::valid(json!({"passed": false, "score": 0.0})),
    );
}
