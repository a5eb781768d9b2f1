//! Fuzz entry points with oracles (rustls `fuzzing::fuzz_message` style).
//!
//! Each `fuzz_*` function is pure, takes the fuzzer's bytes and panics **only** when an oracle
//! is violated; every other outcome (a rejected input, a denial) returns normally. The
//! cargo-fuzz targets in `fuzz/fuzz_targets/` are one line each, and
//! `tests/tests/fuzz_regressions.rs` replays every saved crash input through the same
//! functions under `cargo test`.
//!
//! | entry point | oracle |
//! |---|---|
//! | [`fuzz_token_decode`] | accepted ⇒ `encode(decode(x))` is the same token text; decode is stable |
//! | [`fuzz_glob`] | [`crate::glob::matches`] agrees with [`oracle_matches`], an independent recursive matcher |
//! | [`fuzz_subset`] | `covers(p, c) ∧ matches(c, r) ⇒ matches(p, r)`; `covers` reflexive |
//! | [`fuzz_canonical`] | canonicalization is idempotent; parse → canonicalize → parse is stable and value-preserving |
//! | [`fuzz_verify_chain`] | an authorized request is granted by every block, budget/expiry/depth/revocation/signature bounds hold, and verify equals an independent model |
//! | [`fuzz_revocation`] | an accepted list/entry re-serializes to itself; every accepted entry verifies |
//! | [`fuzz_checks`] | `verify_output` never panics; scores in \[0, 1\]; regex limits enforced; literal patterns agree with substring search |
//! | [`fuzz_ops`] | `ops::run` is total and deterministic; supported ops never answer `skipped` |
//!
//! Boundedness (no hang) is enforced by libFuzzer's `-timeout` on every target, and the glob
//! target's inputs are sized so that a super-linear matcher would trip it.
//!
//! The chain target needs the `fuzzing` feature (it derives `arbitrary::Arbitrary`).
//!
//! **Keys:** the chain target signs with the published conformance keys (seed of `<name>` is
//! BLAKE2b-256 of `delegateos-conformance/key/<name>`). They provide NO SECURITY.

// Oracle assertions are the point of this module.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use serde_json::Value;

use crate::canonical::canonicalize;
use crate::checks::composite::verify_output_value;
use crate::checks::ecma_regex::{EcmaRegex, MAX_PATTERN_UTF16, MAX_SUBJECT_BYTES};
use crate::checks::{default_registry, CheckError};
use crate::encoding::b64u_encode;
use crate::glob::{capability_subset, covers, matches};
use crate::json::parse_strict;
use crate::ops;
use crate::revocation::{entry_from_value, verify_entry, RevocationList};
use crate::token::{self, Capability, SerializedDct, FORMAT};

// ---------------------------------------------------------------------------------------------
// Token decoding

/// Token decoding. The bytes are used twice: as the decoded JSON of a token (base64url-encoded
/// here, so the fuzzer mutates JSON directly — seeds are decoded tokens) and, if UTF-8, as the
/// `token` text itself.
///
/// Oracle: whenever [`token::decode`] accepts, `encode(decoded).token` is byte-identical to the
/// input text (one token, one spelling: D9), decoding that again yields the same value, and
/// `inspect` succeeds with one revocation id per block.
pub fn fuzz_token_decode(data: &[u8]) {
    check_token_text(&b64u_encode(data));
    if let Ok(text) = std::str::from_utf8(data) {
        check_token_text(text);
    }
}

fn check_token_text(text: &str) {
    let dct = SerializedDct {
        token: text.to_owned(),
        format: FORMAT.to_owned(),
    };
    let Ok(decoded) = token::decode(&dct) else {
        return;
    };
    let again = token::encode(&decoded);
    assert_eq!(
        again.token, text,
        "accepted token does not re-encode to the same text"
    );
    let redecoded = token::decode(&again).expect("re-encoded token must decode");
    assert_eq!(redecoded, decoded, "decode(encode(t)) != t");
    let inspection = token::inspect(&dct).expect("inspect must accept what decode accepts");
    assert_eq!(
        inspection.revocation_ids.len(),
        1 + decoded.attenuations.len(),
        "one revocation id per block"
    );
    // The ids of the typed blocks (what `inspect` and `dct.revocation_ids` report) are those of
    // the signed canonical texts (what verification checks against the revocation list).
    let blocks = token::decode_blocks(&dct).expect("decode_blocks must accept what decode accepts");
    let signed: Vec<String> = std::iter::once(&blocks.authority_canonical)
        .chain(&blocks.attenuation_canonical)
        .map(|c| token::revocation_id_of_canonical(c))
        .collect();
    assert_eq!(inspection.revocation_ids, signed);
}

// ---------------------------------------------------------------------------------------------
// Glob matching

const PATTERN_SEGMENTS: &[&str] = &["a", "b", "ab", "*", "**", "", "a*", "x"];
const RESOURCE_SEGMENTS: &[&str] = &["a", "b", "ab", "", "*", "**", "x", "a*"];

/// Turns bytes into a `/`-joined path over `alphabet`; a byte ≥ 0xF0 ends the path.
fn structured_path<'a>(bytes: &mut impl Iterator<Item = &'a u8>, alphabet: &[&str]) -> String {
    let mut segs = Vec::new();
    for &b in bytes.by_ref() {
        if b >= 0xF0 {
            break;
        }
        segs.push(alphabet[usize::from(b) % alphabet.len()]);
    }
    segs.join("/")
}

/// Independent glob oracle (D1, D2): a plain recursive backtracking matcher over segments,
/// written without looking at the DP in [`crate::glob`]. Returns `None` when it would need
/// more than `budget` steps (its worst case is exponential in the number of `**`).
pub fn oracle_matches(pattern: &str, resource: &str, budget: usize) -> Option<bool> {
    if pattern == "*" || pattern == "**" {
        return Some(true);
    }
    let p: Vec<&str> = pattern.split('/').collect();
    let r: Vec<&str> = resource.split('/').collect();
    let mut steps = 0usize;
    rec_match(&p, &r, &mut steps, budget)
}

fn rec_match(p: &[&str], r: &[&str], steps: &mut usize, budget: usize) -> Option<bool> {
    *steps += 1;
    if *steps > budget {
        return None;
    }
    let Some((head, rest)) = p.split_first() else {
        return Some(r.is_empty());
    };
    match *head {
        "**" => {
            for k in 0..=r.len() {
                if rec_match(rest, &r[k..], steps, budget)? {
                    return Some(true);
                }
            }
            Some(false)
        }
        "*" => match r.split_first() {
            Some((s, tail)) if !s.is_empty() => rec_match(rest, tail, steps, budget),
            _ => Some(false),
        },
        lit => match r.split_first() {
            Some((s, tail)) if *s == lit => rec_match(rest, tail, steps, budget),
            _ => Some(false),
        },
    }
}

/// Glob matching. Byte 0 even: pattern and resource are built from small segment alphabets
/// (wildcards, empty segments, partial wildcards); odd: raw text split at the first NUL.
///
/// Oracle: [`matches`] equals [`oracle_matches`] whenever the oracle finishes within its
/// budget. The reference is a DP, so libFuzzer's `-timeout` catches any super-linear path.
pub fn fuzz_glob(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (pattern, resource) = if mode & 1 == 0 {
        let mut it = rest.iter();
        let p = structured_path(&mut it, PATTERN_SEGMENTS);
        let r = structured_path(&mut it, RESOURCE_SEGMENTS);
        (p, r)
    } else {
        let split = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        let (p, r) = rest.split_at(split);
        (
            String::from_utf8_lossy(p).into_owned(),
            String::from_utf8_lossy(r.get(1..).unwrap_or_default()).into_owned(),
        )
    };
    let got = matches(&pattern, &resource);
    if let Some(want) = oracle_matches(&pattern, &resource, 20_000) {
        assert_eq!(
            got, want,
            "glob disagreement: pattern={pattern:?} resource={resource:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Capability subset

/// Instantiates the wildcards of `child` into a concrete resource, choosing fillers from bytes.
fn instantiate<'a>(child: &str, bytes: &mut impl Iterator<Item = &'a u8>) -> String {
    const FILL: &[&str] = &["a", "b", "z", "ab", "x"];
    let mut next = || usize::from(*bytes.next().unwrap_or(&0));
    if child == "*" || child == "**" {
        let n = next() % 4;
        return (0..n)
            .map(|_| RESOURCE_SEGMENTS[next() % RESOURCE_SEGMENTS.len()])
            .collect::<Vec<_>>()
            .join("/");
    }
    child
        .split('/')
        .map(|s| match s {
            "*" => FILL[next() % FILL.len()].to_owned(),
            "**" => {
                let n = next() % 3;
                (0..n)
                    .map(|_| FILL[next() % FILL.len()])
                    .collect::<Vec<_>>()
                    .join("/")
            }
            lit => lit.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Capability subset soundness (D3). Bytes give a parent pattern `p`, a child `c`, then
/// fillers used to instantiate `c` into resources that `c` matches, plus free resources.
///
/// Oracles: `covers(p, p)`; `capability_subset` agrees with `covers` for equal
/// namespace/action and refuses a different action; and for every generated `r`,
/// `covers(p, c) ∧ matches(c, r) ⇒ matches(p, r)` (attenuation never widens).
pub fn fuzz_subset(data: &[u8]) {
    let mut it = data.iter();
    let p = structured_path(&mut it, PATTERN_SEGMENTS);
    let c = structured_path(&mut it, PATTERN_SEGMENTS);
    assert!(covers(&p, &p), "covers is not reflexive on {p:?}");
    let covered = covers(&p, &c);
    assert_eq!(
        capability_subset(
            &Capability::new("ns", "act", &c),
            &Capability::new("ns", "act", &p)
        ),
        covered
    );
    assert!(!capability_subset(
        &Capability::new("ns", "act", &c),
        &Capability::new("ns", "other", &p)
    ));
    if !covered {
        return;
    }
    let rest: Vec<u8> = it.copied().collect();
    let mut fill = rest.iter().cycle().take(rest.len().max(1) * 4);
    let mut resources: Vec<String> = (0..4).map(|_| instantiate(&c, &mut fill)).collect();
    let mut free = rest.iter();
    resources.push(structured_path(&mut free, RESOURCE_SEGMENTS));
    resources.push(structured_path(&mut free, RESOURCE_SEGMENTS));
    for r in &resources {
        if matches(&c, r) {
            assert!(
                matches(&p, r),
                "subset unsound: covers({p:?}, {c:?}) but {r:?} matches the child only"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Canonicalization

/// Structural equality with numbers compared as IEEE doubles (what JCS preserves).
fn json_equiv(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equiv(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equiv(v, w)))
        }
        _ => a == b,
    }
}

/// RFC 8785 canonicalization of strictly parsed JSON.
///
/// Oracles: the canonical text parses strictly; canonicalizing it again yields the same text
/// (idempotent); the re-parsed value equals the original with numbers compared as doubles.
pub fn fuzz_canonical(data: &[u8]) {
    let Ok(v1) = parse_strict(data) else {
        return;
    };
    let Ok(c1) = canonicalize(&v1) else {
        return;
    };
    let v2 = parse_strict(c1.as_bytes()).expect("canonical text must parse strictly");
    let c2 = canonicalize(&v2).expect("canonical value must canonicalize");
    assert_eq!(c1, c2, "canonicalization is not idempotent");
    let v3 = parse_strict(c2.as_bytes()).expect("canonical text must parse strictly");
    assert_eq!(v2, v3, "parse(canonicalize(parse(x))) unstable");
    assert!(json_equiv(&v1, &v2), "canonicalization changed the value");
}

// ---------------------------------------------------------------------------------------------
// Revocation

/// Revocation entry and list JSON.
///
/// Oracles: an accepted list re-serializes (`to_json`) to text that loads back to the same
/// entries and the same text; every accepted entry passes `verify_entry`; an accepted single
/// entry round-trips through its serde form.
pub fn fuzz_revocation(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(list) = RevocationList::from_json(text) {
            let out = list.to_json();
            let again = RevocationList::from_json(&out).expect("to_json output must load");
            assert_eq!(again.list(), list.list(), "list round trip changed entries");
            assert_eq!(again.to_json(), out, "to_json not stable");
            for e in list.list() {
                assert!(verify_entry(&e).is_ok(), "accepted entry does not verify");
            }
        }
    }
    if let Ok(value) = parse_strict(data) {
        if let Ok(entry) = entry_from_value(&value) {
            assert!(verify_entry(&entry).is_ok());
            let v = serde_json::to_value(&entry).expect("entry serializes");
            assert_eq!(entry_from_value(&v).ok(), Some(entry), "entry round trip");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Checks

fn score_ok(score: Option<f64>) -> bool {
    score.is_none_or(|s| (0.0..=1.0).contains(&s))
}

/// Check params and composite specs, and the ECMAScript regex translation.
///
/// Byte 0 selects: even — the rest is JSON `{"spec": …, "output": …}` (or any JSON used as
/// both) for `verify_output`; odd — `pattern NUL flags NUL subject` for the regex engine.
///
/// Oracles: `verify_output` returns (never panics) with a score in \[0, 1\]; a pattern above
/// [`MAX_PATTERN_UTF16`] or a subject above [`MAX_SUBJECT_BYTES`] is `limit_exceeded`; a pattern
/// made only of ASCII letters, digits and spaces with no flags matches iff the subject contains
/// it.
pub fn fuzz_checks(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        let Ok(v) = parse_strict(rest) else {
            return;
        };
        let (spec, output) = match (v.get("spec"), v.get("output")) {
            (Some(s), Some(o)) => (s.clone(), o.clone()),
            _ => (v.clone(), v),
        };
        if let Ok(result) = verify_output_value(&spec, &output, &default_registry()) {
            assert!(score_ok(result.score), "score out of range: {result:?}");
        }
        return;
    }
    let mut parts = rest.splitn(3, |&b| b == 0);
    let pattern = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let flags = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let subject = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let units: usize = pattern.chars().map(char::len_utf16).sum();
    match EcmaRegex::new(&pattern, &flags) {
        Ok(re) => {
            assert!(units <= MAX_PATTERN_UTF16, "over-long pattern accepted");
            let m = re.is_match(&subject);
            if subject.len() > MAX_SUBJECT_BYTES {
                assert!(matches!(m, Err(CheckError::LimitExceeded(_))));
            }
            let literal = !pattern.is_empty()
                && pattern
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b' ');
            if literal && flags.is_empty() {
                if let Ok(m) = m {
                    assert_eq!(m, subject.contains(&pattern), "literal regex {pattern:?}");
                }
            }
        }
        Err(e) => {
            if units > MAX_PATTERN_UTF16 && crate::checks::ecma_regex::Flags::parse(&flags).is_ok()
            {
                assert!(matches!(e, CheckError::LimitExceeded(_)), "{e:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Operations layer

/// The JSON operations layer (what every adapter serves). Byte 0 picks an operation (an
/// index into [`ops::OPERATIONS`], or 0xFF for an unknown name); the rest is the input JSON.
///
/// Oracles: `ops::run` returns for every input (no panic); it is deterministic (two runs give
/// equal outcomes); a supported operation never answers `skipped`, an unknown one always does;
/// an `error` carries a non-empty code; the outcome serializes.
pub fn fuzz_ops(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(input) = serde_json::from_slice::<Value>(rest) else {
        return;
    };
    let op = if sel == 0xFF {
        "no.such_op"
    } else {
        ops::OPERATIONS[usize::from(sel) % ops::OPERATIONS.len()]
    };
    let a = ops::run(op, &input);
    let b = ops::run(op, &input);
    assert_eq!(a, b, "ops::run({op}) is not deterministic");
    match &a {
        ops::Outcome::Unsupported { .. } => {
            assert!(sel == 0xFF, "supported op {op} answered skipped")
        }
        ops::Outcome::Error { code, .. } => assert!(!code.is_empty()),
        ops::Outcome::Ok { .. } => assert!(sel != 0xFF),
    }
    assert!(serde_json::to_string(&a).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Verification on structure-aware chains

#[cfg(feature = "fuzzing")]
pub use chain::{fuzz_verify_chain, fuzz_verify_chain_spec, ChainSpec};

#[cfg(feature = "fuzzing")]
mod chain {
    use std::sync::OnceLock;

    use arbitrary::{Arbitrary, Unstructured};

    use super::oracle_matches;
    use crate::attenuate::{assemble, sign_attenuation, sign_authority};
    use crate::crypto::{blake2b256, Keypair};
    use crate::glob::capability_subset;
    use crate::revocation::{create_entry, RevocationList, Scope};
    use crate::token::{self, revocation_id_of_block, Attenuation, Authority, Capability, Covers};
    use crate::verify::{verify, VerificationContext};

    /// The published conformance key names; index 0 is the trusted root.
    const KEY_NAMES: &[&str] = &[
        "root",
        "alice",
        "bob",
        "carol",
        "dave",
        "mallory",
        "other_root",
    ];

    fn keys() -> &'static [(Keypair, String)] {
        static KEYS: OnceLock<Vec<(Keypair, String)>> = OnceLock::new();
        KEYS.get_or_init(|| {
            KEY_NAMES
                .iter()
                .map(|n| {
                    let kp = Keypair::from_seed(&blake2b256(
                        format!("delegateos-conformance/key/{n}").as_bytes(),
                    ));
                    let id = kp.principal_id();
                    (kp, id)
                })
                .collect()
        })
    }

    fn key(i: u8) -> usize {
        usize::from(i) % KEY_NAMES.len()
    }

    const NAMESPACES: &[&str] = &["web", "docs"];
    const ACTIONS: &[&str] = &["read", "write", "*"];
    const SEGMENTS: &[&str] = &["a", "b", "*", "**", "", "x"];
    const CONCRETE: &[&str] = &["a", "b", "x", "", "*"];

    /// A capability drawn from a small alphabet.
    #[derive(Debug, Clone, Arbitrary)]
    pub struct CapSpec {
        ns: u8,
        action: u8,
        /// Resource segments (indices into a small alphabet); empty list = bare `*`.
        resource: Vec<u8>,
    }

    impl CapSpec {
        fn build(&self, alphabet: &[&str]) -> Capability {
            let resource = if self.resource.is_empty() {
                "*".to_owned()
            } else {
                self.resource
                    .iter()
                    .take(5)
                    .map(|&s| alphabet[usize::from(s) % alphabet.len()])
                    .collect::<Vec<_>>()
                    .join("/")
            };
            Capability::new(
                NAMESPACES[usize::from(self.ns) % NAMESPACES.len()],
                ACTIONS[usize::from(self.action) % ACTIONS.len()],
                &resource,
            )
        }
    }

    /// How a block is signed: by its declared signer (honest) or by another key.
    #[derive(Debug, Clone, Arbitrary)]
    pub struct SignSpec {
        /// `Some(k)`: sign with key `k` instead of the declared signer.
        forge_with: Option<u8>,
        /// Put the actual signing key (not the declared signer) in `signatures[i].signer`.
        claim_actual_signer: bool,
    }

    /// One attenuation.
    #[derive(Debug, Clone, Arbitrary)]
    pub struct AttSpec {
        attenuator: u8,
        delegatee: u8,
        caps: Option<Vec<CapSpec>>,
        budget: Option<u32>,
        /// Expiry in hours after the base instant.
        expiry: Option<u8>,
        max_depth: Option<u8>,
        sign: SignSpec,
    }

    /// A whole chain plus the verification request (the `Arbitrary` input of the target).
    #[derive(Debug, Clone, Arbitrary)]
    pub struct ChainSpec {
        issuer: u8,
        delegatee: u8,
        caps: Vec<CapSpec>,
        chain_depth: u8,
        max_chain_depth: u8,
        budget: u32,
        expiry: u8,
        sign: SignSpec,
        attenuations: Vec<AttSpec>,
        /// `(block index, revoker key)`.
        revocations: Vec<(u8, u8)>,
        request: CapSpec,
        now: u8,
        spent: u32,
        drop_last_signature: bool,
    }

    fn at(hours: u8) -> String {
        format!(
            "2030-01-{:02}T{:02}:00:00Z",
            1 + u32::from(hours) / 24,
            u32::from(hours) % 24
        )
    }

    /// Decodes a [`ChainSpec`] from the bytes and runs [`fuzz_verify_chain_spec`].
    pub fn fuzz_verify_chain(data: &[u8]) {
        if let Ok(spec) = ChainSpec::arbitrary_take_rest(Unstructured::new(data)) {
            fuzz_verify_chain_spec(&spec);
        }
    }

    /// What the model expects of a block: its declared signer and whether it was signed honestly.
    struct Block {
        signer: usize,
        honest: bool,
    }

    /// Builds the chain with the unchecked builders, signs it with the test keys and verifies.
    ///
    /// Oracles when `verify` authorizes (soundness, independent of D3's subset rule):
    /// the issuer is the root; every block was signed by its declared signer's key and the
    /// signature list is complete; each attenuator is the previous delegatee; no block is
    /// revoked by its own signer; the request's namespace/action/resource is granted by a
    /// capability of **every** block that sets capabilities (checked with the independent
    /// [`oracle_matches`]); `spent` is below every budget and the remaining budget is
    /// `min(budgets) − spent`; `now` is not after any expiry; the depth bounds of D4 hold at
    /// every block; the scope's depth is `chainDepth + n`.
    ///
    /// And both ways (completeness): `verify` authorizes exactly when an independent model of
    /// §10.1 (using the reference's `capability_subset` for step 4b) says it should.
    pub fn fuzz_verify_chain_spec(spec: &ChainSpec) {
        let keys = keys();
        let issuer = key(spec.issuer);
        let authority = Authority {
            issuer: keys[issuer].1.clone(),
            delegatee: keys[key(spec.delegatee)].1.clone(),
            capabilities: spec
                .caps
                .iter()
                .take(4)
                .map(|c| c.build(SEGMENTS))
                .collect(),
            contract_id: "ct_000000000001".to_owned(),
            delegation_id: "del_000000000001".to_owned(),
            parent_delegation_id: token::ROOT_PARENT_DELEGATION_ID.to_owned(),
            chain_depth: u64::from(spec.chain_depth % 8),
            max_chain_depth: u64::from(spec.max_chain_depth % 8),
            max_budget_microcents: u64::from(spec.budget),
            expires_at: at(spec.expiry),
            issued_at: "2029-12-31T00:00:00Z".to_owned(),
        };
        let sign_key = |declared: usize, s: &SignSpec| s.forge_with.map_or(declared, key);
        let mut blocks = Vec::new();
        let mut signatures = Vec::new();
        let k = sign_key(issuer, &spec.sign);
        let mut sig = sign_authority(&keys[k].0, &authority);
        if !spec.sign.claim_actual_signer {
            sig.signer = keys[issuer].1.clone();
        }
        blocks.push(Block {
            signer: issuer,
            honest: k == issuer,
        });
        signatures.push(sig);
        let mut atts: Vec<Attenuation> = Vec::new();
        for (i, a) in spec.attenuations.iter().take(5).enumerate() {
            let attenuator = key(a.attenuator);
            atts.push(Attenuation {
                attenuator: keys[attenuator].1.clone(),
                delegatee: keys[key(a.delegatee)].1.clone(),
                delegation_id: format!("del_00000000010{i}"),
                contract_id: "ct_000000000001".to_owned(),
                allowed_capabilities: a
                    .caps
                    .as_ref()
                    .map(|c| c.iter().take(4).map(|c| c.build(SEGMENTS)).collect()),
                max_budget_microcents: a.budget.map(u64::from),
                expires_at: a.expiry.map(at),
                max_chain_depth: a.max_depth.map(|d| u64::from(d % 8)),
            });
            let k = sign_key(attenuator, &a.sign);
            let mut sig = sign_attenuation(&keys[k].0, &authority, &atts);
            if !a.sign.claim_actual_signer {
                sig.signer = keys[attenuator].1.clone();
            }
            blocks.push(Block {
                signer: attenuator,
                honest: k == attenuator,
            });
            signatures.push(sig);
        }
        if spec.drop_last_signature {
            signatures.pop();
        }
        let token = assemble(authority.clone(), atts.clone(), signatures);
        let dct = token::encode(&token);
        assert_eq!(
            token::decode(&dct).as_ref(),
            Ok(&token),
            "builder output does not round-trip"
        );

        // Revocations: entries signed by arbitrary keys over arbitrary blocks.
        let block_ids: Vec<String> = std::iter::once(revocation_id_of_block(&authority))
            .chain(atts.iter().map(revocation_id_of_block))
            .collect();
        let mut list = RevocationList::new();
        let mut revoked_by_signer = false;
        for &(b, r) in spec.revocations.iter().take(3) {
            let b = usize::from(b) % block_ids.len();
            let r = key(r);
            let entry = create_entry(
                &keys[r].0,
                &block_ids[b],
                "2029-12-31T00:00:00Z",
                Scope::Block,
            );
            assert!(
                list.add(entry).is_ok(),
                "a well-signed entry must be accepted"
            );
            revoked_by_signer |= blocks[b].signer == r;
        }

        let request = spec.request.build(CONCRETE);
        let now = at(spec.now);
        let spent = u64::from(spec.spent);
        let ctx = VerificationContext {
            namespace: request.namespace.clone(),
            operation: request.action.clone(),
            resource: request.resource.clone(),
            now: now.clone(),
            spent_microcents: spent,
            root_public_key: keys[0].1.clone(),
            revocations: &list,
        };
        let result = verify(&dct, &ctx);

        // Independent model of §10.1: should this authorize?
        let grants = |caps: &[Capability]| {
            caps.iter().any(|c| {
                c.namespace == request.namespace
                    && c.action == request.action
                    && oracle_matches(&c.resource, &request.resource, 1 << 20).unwrap_or(false)
            })
        };
        let mut model_ok = issuer == 0
            && !spec.drop_last_signature
            && blocks.iter().all(|b| b.honest)
            && !revoked_by_signer;
        let mut caps = authority.capabilities.clone();
        let mut budget = authority.max_budget_microcents;
        let mut expiry = u32::from(spec.expiry);
        let mut delegatee = authority.delegatee.clone();
        let mut remaining = authority.max_chain_depth.checked_sub(authority.chain_depth);
        let mut every_block_grants = grants(&caps);
        for (a, aspec) in atts.iter().zip(&spec.attenuations) {
            let Some(rem) = remaining else { break };
            let narrower = a.allowed_capabilities.as_ref().is_none_or(|cs| {
                cs.iter()
                    .all(|c| caps.iter().any(|p| capability_subset(c, p)))
            });
            let a_exp = aspec.expiry.map(u32::from);
            let ok = a.attenuator == delegatee
                && narrower
                && a.max_budget_microcents.is_none_or(|b| b <= budget)
                && a_exp.is_none_or(|e| e <= expiry)
                && rem != 0
                && a.max_chain_depth.is_none_or(|m| m < rem);
            if !ok {
                model_ok = false;
                break;
            }
            if let Some(cs) = &a.allowed_capabilities {
                caps = cs.clone();
                every_block_grants &= grants(&caps);
            }
            if let Some(b) = a.max_budget_microcents {
                budget = b;
            }
            if let Some(e) = a_exp {
                expiry = e;
            }
            remaining = Some(a.max_chain_depth.unwrap_or(rem - 1));
            delegatee = a.delegatee.clone();
        }
        model_ok &=
            remaining.is_some() && u32::from(spec.now) <= expiry && spent < budget && grants(&caps);

        match &result {
            Ok(scope) => {
                // Soundness, field by field (each of these alone would catch a widening).
                assert_eq!(issuer, 0, "authorized a token not issued by the root");
                assert!(
                    !spec.drop_last_signature,
                    "authorized with a missing signature"
                );
                assert!(
                    blocks.iter().all(|b| b.honest),
                    "authorized a block signed by the wrong key"
                );
                assert!(!revoked_by_signer, "authorized a revoked block");
                let mut holder = &authority.delegatee;
                for a in &atts {
                    assert_eq!(&a.attenuator, holder, "attenuator is not the delegatee");
                    holder = &a.delegatee;
                }
                assert!(
                    every_block_grants,
                    "authorized {request:?}, which some block of the chain does not grant"
                );
                let min_budget = atts
                    .iter()
                    .filter_map(|a| a.max_budget_microcents)
                    .fold(authority.max_budget_microcents, u64::min);
                assert!(spent < min_budget, "budget widened");
                assert_eq!(scope.remaining_budget_microcents, min_budget - spent);
                let min_expiry = spec
                    .attenuations
                    .iter()
                    .take(atts.len())
                    .filter_map(|a| a.expiry)
                    .fold(spec.expiry, u8::min);
                assert!(spec.now <= min_expiry, "expiry widened");
                let n = u64::try_from(atts.len()).unwrap_or(u64::MAX);
                assert!(
                    authority.chain_depth + n <= authority.max_chain_depth,
                    "depth widened"
                );
                for (i, a) in atts.iter().enumerate() {
                    if let Some(m) = a.max_chain_depth {
                        let after = u64::try_from(atts.len() - i - 1).unwrap_or(u64::MAX);
                        assert!(after <= m, "depth widened after attenuation {i}");
                    }
                }
                assert_eq!(scope.chain_depth, authority.chain_depth + n);
                assert_eq!(scope.capabilities, caps, "effective capabilities");
                assert!(
                    model_ok,
                    "verify authorized what the model denies: {spec:?}"
                );
            }
            Err(denial) => {
                assert!(
                    !model_ok,
                    "verify denied ({denial}) what the model authorizes: {spec:?}"
                );
            }
        }
        // The covers value of every honest signature is positional.
        for (i, s) in token.signatures.iter().enumerate() {
            let want = if i == 0 {
                Covers::Authority
            } else {
                Covers::Index(u64::try_from(i - 1).unwrap_or(u64::MAX))
            };
            assert_eq!(s.covers, want);
        }
    }
}
