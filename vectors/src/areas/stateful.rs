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

use super::dct_support::{
    default_caps, deny, ok, revocation_entry, scope, verify_input, Chain, Ctx, BUDGET, MAX_DEPTH,
    VERIFY,
};
use crate::generate::{Area, Group};
use crate::keys::Keys;
use crate::tables::Ids;

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

/// The root token's context with its authority block revoked by the root.
fn root_revoked(keys: &Keys) -> Ctx {
    let chain = Chain::root(keys);
    Ctx::new(keys).revoke(revocation_entry(
        &keys.root,
        &chain.revocation_ids()[0],
        false,
    ))
}

/// A token's verdict: its AuthorizedScope (default capabilities, full budget), or a denial
/// (code, step).
#[derive(Clone, Copy)]
enum Verify {
    Granted,
    Denied(&'static str, &'static str),
}

const GRANTED: Verify = Verify::Granted;

/// Number, description, requirements (after DCT-VERIFY-STATELESS), token, context, verdict.
type SameTokenRow = (
    u16,
    &'static str,
    Ids,
    fn(&Keys) -> Chain,
    fn(&Keys) -> Ctx,
    Verify,
);

/// The root token delegated to bob.
fn delegated(keys: &Keys) -> Chain {
    Chain::root(keys).delegate(&keys.bob, |_| {})
}

/// [`delegated`]'s context with its attenuation block revoked by alice (its signer).
fn attenuation_revoked(keys: &Keys) -> Ctx {
    let id = &delegated(keys).revocation_ids()[1];
    Ctx::new(keys).revoke(revocation_entry(&keys.alice, id, false))
}

#[rustfmt::skip]
const SAME_TOKEN: &[SameTokenRow] = &[
    (1, "the token under the default context: valid", &["DCT-VERIFY-8-SCOPE"], Chain::root, Ctx::new, GRANTED),
    (2, "the same token with its authority block revoked by the root: revoked", &["DCT-VERIFY-2-EVERY-BLOCK"], Chain::root, root_revoked,
        Verify::Denied("revoked", "2")),
    (3, "the same token with no revocation (the entry of the case before is not part of this context): valid", &["DCT-VERIFY-8-SCOPE"],
        Chain::root, Ctx::new, GRANTED),
    (4, "the same token verified against another root key: invalid_signature", &["DCT-VERIFY-3A-ROOT-KEY"], Chain::root,
        |k| Ctx::new(k).root(&k.other_root.principal), Verify::Denied("invalid_signature", "3")),
    (5, "the same token at a `now` one second after its expiry: expired", &["DCT-VERIFY-5-EXPIRED"], Chain::root, |k| Ctx::new(k).now(LATER),
        Verify::Denied("expired", "5")),
    (6, "the same token with its whole budget spent: budget_exceeded", &["DCT-VERIFY-6-BUDGET"], Chain::root, |k| Ctx::new(k).spent(BUDGET),
        Verify::Denied("budget_exceeded", "6")),
    (7, "the same token asked for docs/write on /project/readme.md (granted only under /project/drafts/*): capability_not_granted",
        &["DCT-VERIFY-7-CAPABILITY"], Chain::root, |k| Ctx::new(k).request("docs", "write", "/project/readme.md"),
        Verify::Denied("capability_not_granted", "7")),
    (8, "the same token under the default context once more: valid", &["DCT-VERIFY-8-SCOPE"], Chain::root, Ctx::new, GRANTED),
    (9, "the authority revocation again: revoked (a first answer for this context was not cached as valid)", &["DCT-VERIFY-2-EVERY-BLOCK"],
        Chain::root, root_revoked, Verify::Denied("revoked", "2")),
    // A delegated token whose attenuation block is revoked, then the same without the entry.
    (10, "a token delegated to bob, its attenuation block revoked by alice (its signer): revoked", &["DCT-VERIFY-2-EVERY-BLOCK"],
        delegated, attenuation_revoked, Verify::Denied("revoked", "2")),
    (11, "the delegated token without the entry: valid", &["DCT-VERIFY-8-SCOPE"], delegated, Ctx::new, GRANTED),
    (12, "the root token under the default context after the delegated one was revoked: valid \
        (its own blocks are not revoked)", &["DCT-VERIFY-8-SCOPE"], Chain::root, Ctx::new, GRANTED),
];

fn build_verify(g: &mut Group, keys: &Keys) {
    for &(n, desc, reqs, chain, ctx, verify) in SAME_TOKEN {
        let mut all: Vec<&str> = vec!["DCT-VERIFY-STATELESS"];
        all.extend_from_slice(reqs);
        let chain = chain(keys);
        let depth = MAX_DEPTH - chain.attenuations.len() as u64;
        let expect = match verify {
            Verify::Granted => ok(&scope(&chain, default_caps(), BUDGET, depth)),
            Verify::Denied(code, step) => deny(code, step),
        };
        let input = verify_input(chain.serialized(), &ctx(keys));
        g.case(n, desc, &all, &[STATE], VERIFY, input, expect);
    }
}

/// Adds the rows of `set` of `data/tables/stateful.json`.
fn table(g: &mut Group, set: &str) {
    crate::tables::case_rows(g, "stateful", set, "stateful.json");
}

/// Schema A (`$id` …/report, requires a non-empty `summary`), then schema B under the same
/// `$id` (requires an integer `count`): the rows of set `schema-id`.
fn build_schema(g: &mut Group) {
    table(g, "schema-id");
}

/// One check name with other parameters: the rows of set `registry`.
fn build_registry(g: &mut Group) {
    table(g, "registry");
}
