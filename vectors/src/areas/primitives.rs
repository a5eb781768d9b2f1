//! Area `primitives`: canonical JSON, BLAKE2b-256, Ed25519, base64url, timestamps and
//! principal ids (spec §1.2, §2; decisions D5, D9, D10, D33).
//!
//! Expectations come from published data and independent construction, never from the
//! reference:
//! - canonicalization: RFC 8785 (§3.2.2 example, §3.2.3 sorting example, Appendix B number
//!   table) and ECMAScript `Number.prototype.toString`; rejections from D33;
//! - hash: BLAKE2b-256 values computed with Python `hashlib.blake2b(digest_size=32)` and
//!   cross-checked with coreutils `b2sum -l 256` (RFC 7693 gives the 512-bit `abc` digest
//!   `ba80a53f…`, whose truncation is the trap);
//! - ed25519: RFC 8032 §7.1 TEST 1, 2, 3 and TEST SHA(abc), typed from the RFC and checked
//!   against an independent Python implementation of RFC 8032 §6; edge cases built by
//!   `data/ed25519_edge.py` (same Python code, not the Rust reference) and stored in
//!   `data/ed25519_edge.json`;
//! - base64url: RFC 4648 §10 test vectors (url alphabet) and research §4's malleability rows;
//! - timestamps: the D5 profile and research §5's table;
//! - principal ids: RFC 8032 public keys re-encoded in base64url, and the fixed keys' seeds.
//!
//! The cases written out as data are rows of `data/tables/primitives.json`; the Rust here
//! builds the deeply nested texts and reads the Ed25519 edge cases of `data/ed25519_edge.json`.

use serde_json::{json, Value};

use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};

const EDGE: &str = include_str!("data/ed25519_edge.json");

/// The groups, in output order: (name, description, builder).
#[rustfmt::skip]
const GROUPS: &[crate::tables::PlainGroupDef] = &[
    ("canonicalization", "json.canonicalize: RFC 8785 output and the strict JSON profile of D33.", canonicalization),
    ("hash", "hash.blake2b256: unkeyed BLAKE2b with a 32-byte output (§1.2).", hash),
    ("ed25519", "ed25519.sign / ed25519.verify: RFC 8032 known answers and the strict profile (D10).", ed25519),
    ("base64url", "base64url.encode / base64url.decode: strict, unpadded, one encoding per byte string (D9).", base64url),
    ("timestamp", "timestamp.compare: the RFC 3339 profile of D5, compared as instants.", timestamp),
    ("principal", "principal.from_seed: base64url of the RFC 8032 public key of a seed (§2).", principal),
];

/// Builds the `primitives` area.
pub fn build(area: &mut Area) {
    crate::tables::build_plain_groups(area, GROUPS);
    super::primitives_redteam::build(area);
}

/// Adds the rows of `set` of `data/tables/primitives.json`.
fn table(g: &mut Group, set: &str) {
    crate::tables::case_rows(g, "primitives", set, "primitives.json");
}

// ---------------------------------------------------------------------------------------
// canonicalization

/// `n` nested arrays.
fn arr(n: usize) -> String {
    format!("{}{}", "[".repeat(n), "]".repeat(n))
}

/// `n` nested objects around `1`.
fn obj(n: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n))
}

/// Arrays and objects alternating to depth 32.
fn mixed() -> String {
    format!("{}1{}", "[{\"a\":".repeat(16), "}]".repeat(16))
}

/// A text built at generation time.
type MakeText = fn() -> String;

/// Depth (D33: the top-level container is depth 1; 32 accepted, 33 rejected): number,
/// description, text, accepted (then the canonical text is the text).
#[rustfmt::skip]
const CANON_DEPTHS: &[(u16, &str, MakeText, bool)] = &[
    (90, "32 nested arrays (the limit) are accepted", || arr(32), true),
    (91, "33 nested arrays exceed the depth limit", || arr(33), false),
    (92, "32 nested objects are accepted", || obj(32), true),
    (93, "33 nested objects exceed the depth limit", || obj(33), false),
    (94, "10000 nested arrays are rejected without crashing", || arr(10_000), false),
    (95, "10000 unclosed arrays are rejected without crashing", || "[".repeat(10_000), false),
    (96, "arrays and objects alternating to depth 32 are accepted", mixed, true),
    (97, "one more array around depth 32 is rejected", || format!("[{}]", mixed()), false),
];

fn canonicalization(g: &mut Group) {
    table(g, "canonicalization/a");
    for &(n, desc, text, accepted) in CANON_DEPTHS {
        let text = text();
        let input = json!({ "text": text });
        let expect = if accepted {
            Expectation::valid(json!({ "canonical": text }))
        } else {
            Expectation::invalid("invalid_json", "1.2/json")
        };
        let reqs = &["PRIM-JSON-DEPTH"];
        g.case(n, desc, reqs, &[], "json.canonicalize", input, expect);
    }
    table(g, "canonicalization/b");
}

fn hash(g: &mut Group) {
    table(g, "hash");
}

// ---------------------------------------------------------------------------------------
// ed25519

fn verify_case(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    flags: &[&str],
    (pk, msg, sig): (&str, &str, &str),
    expect: Expectation,
) {
    let input = json!({ "publicKey": pk, "message": msg, "signature": sig });
    g.case(n, desc, reqs, flags, "ed25519.verify", input, expect);
}

fn valid(v: bool) -> Expectation {
    Expectation::valid(json!({ "valid": v }))
}

fn ed25519(g: &mut Group) {
    // RFC 8032 known answers, the signed digest and wrong lengths, then the edge cases.
    table(g, "ed25519/a");
    ed25519_edge(g);
}

/// Edge cases built by data/ed25519_edge.py.
fn ed25519_edge(g: &mut Group) {
    let edge: Value = serde_json::from_str(EDGE).unwrap_or(Value::Null);
    let cases = edge["cases"].as_array().cloned().unwrap_or_default();
    for (i, c) in cases.iter().enumerate() {
        let n = 100 + u16::try_from(i).unwrap_or(0);
        let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
        let flags: Vec<String> = c["flags"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let mut reqs: Vec<&str> = Vec::new();
        for f in &flags {
            let r = match f.as_str() {
                "SNotReduced" => "PRIM-SIG-S-RANGE",
                "SmallOrderA" | "SmallOrderR" => "PRIM-SIG-SMALL-ORDER",
                "MixedOrderA" | "MixedOrderR" => "PRIM-SIG-TORSION",
                "NonCanonicalA" | "NonCanonicalR" => "PRIM-SIG-NONCANONICAL",
                _ => "PRIM-SIG-ED25519",
            };
            if !reqs.contains(&r) {
                reqs.push(r);
            }
        }
        if reqs.is_empty() {
            reqs.push("PRIM-SIG-ED25519");
        }
        let name = s("name");
        // Research §3: dalek's batch verifier accepted Wycheproof tc 151, an R of `0100…80`.
        if name == "noncanon-r-identity-sign" {
            reqs.push("PRIM-SIG-NO-BATCH");
        }
        let mut flag_refs: Vec<&str> = flags.iter().map(String::as_str).collect();
        let verdict = c["verdict"].as_str().unwrap_or_default();
        let expect = match verdict {
            "valid" => valid(true),
            "acceptable" => {
                flag_refs.push("Ed25519Cofactored");
                Expectation::acceptable(
                    "D10",
                    vec![
                        Expected::valid(json!({ "valid": false })),
                        Expected::valid(json!({ "valid": true })),
                    ],
                )
            }
            _ => valid(false),
        };
        let info = &c["construction"];
        let eqs = format!(
            "cofactorless equation {}, cofactored {}",
            if info["cofactorless"] == json!(true) {
                "holds"
            } else {
                "fails"
            },
            if info["cofactored"] == json!(true) {
                "holds"
            } else {
                "fails"
            }
        );
        let mut desc = format!("{} ({name}; {eqs})", s("description"));
        if flags.iter().any(|f| f == "NonCanonicalA") {
            // Measured with @noble/ed25519 2.3.0, the library §1.2 names: its default
            // `verify` (ZIP 215) accepts these keys; RFC 8032 §5.1.3, which §1.2 also names,
            // refuses them.
            desc.push_str(
                ". RFC 8032 §5.1.3: decoding fails for y >= p. @noble/ed25519 v2's default \
                 verify ({zip215: true}) accepts this key; { zip215: false } refuses it",
            );
        }
        verify_case(
            g,
            n,
            &desc,
            &reqs,
            &flag_refs,
            (&s("publicKey"), &s("message"), &s("signature")),
            expect,
        );
    }
}

fn base64url(g: &mut Group) {
    table(g, "base64url");
}

fn timestamp(g: &mut Group) {
    table(g, "timestamp");
}

fn principal(g: &mut Group) {
    table(g, "principal");
}
