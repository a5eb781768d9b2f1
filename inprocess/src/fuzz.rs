//! In-process differential fuzzing (feature `fuzz`): the adapter-path `delegateos-conform fuzz`
//! for a Rust library, one fuzzer input at a time and without a process.
//!
//! [`Fuzzer::step`] turns fuzzer bytes into one case and judges the library against the
//! reference on it:
//!
//! 1. the bytes pick a seed, a case of the embedded corpus of one of [`FUZZED_OPERATIONS`]
//!    (for `dct.verify`, as `fuzz` does, the cases of area `dct` the reference accepts; for the
//!    others every case of a group that is not stateful), and up to three structure-aware
//!    edits of its input (values from per-field dictionaries, removals, duplicated and swapped
//!    elements, type changes, and for inputs that carry a token, forging a block's signature,
//!    revoking a block, or encoding its text otherwise: pretty, reversed keys, a duplicated
//!    member, a BOM, padding, the standard alphabet). A token inside the input is decoded first, edited as JSON, and
//!    **re-signed with the published test key of each block's declared signer**
//!    ([`delegateos_vectors::keys`]) unless the bytes chose to keep its signatures, so an edit
//!    reaches the checks after the signature step;
//! 2. the reference answers ([`delegateos_reference::ops::run`]) and its answer becomes the
//!    expectation exactly as `fuzz` builds it: the reference's outcome (for `mcp.call` without
//!    the bodies that carry free text), the seed's other `acceptable` outcomes while the
//!    reference still gives one of them, and for a caller `now` that is not a profile timestamp
//!    the outcomes D7 leaves open;
//! 3. the library answers through its [`Implementation`] and is judged with
//!    [`delegateos_vectors::judge::judge_case`] under the seed's flags, so a rejection with
//!    another code of the expected code's family is a hardening finding ([`Kind::OtherCode`]),
//!    never a disagreement; skipped answers are no finding;
//! 4. a disagreement is minimized (edits dropped one at a time while the reference's answer
//!    and the library's outcome class stay the same) and graded by the severity model
//!    ([`delegateos_vectors::severity::Model`]) exactly as `fuzz` grades it; the [`Finding`]
//!    writes itself as a vector file ([`Finding::file`], [`Finding::write_new`]) that
//!    `delegateos-conform run --vectors DIR` and [`crate::cases_in`] replay.
//!
//! A panic in the library's method is a [`Kind::Crash`] finding, not a fuzzer crash (unless
//! [`Fuzzer::propagate_panics`]); under libFuzzer, whose panic hook aborts, call
//! [`install_panic_hook`] once first. There is no deadline in process: a hang is left to
//! libFuzzer's `-timeout`. The same bytes give the same case and the same finding.
//!
//! ```no_run
//! use delegateos_inprocess::fuzz::{Fuzzer, Step};
//! # struct Mine;
//! # impl delegateos_inprocess::Implementation for Mine {}
//! let fuzzer = Fuzzer::new().expect("the embedded corpus loads");
//! if let Step::Finding(f) = fuzzer.step(&Mine, b"fuzzer bytes") {
//!     eprintln!("{}", f.summary());
//!     f.write_new(std::path::Path::new("fuzz-findings")).expect("writable");
//! }
//! ```

use std::cell::Cell;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::sign_canonical;
use delegateos_reference::encoding::{b64u_decode, b64u_encode};
use delegateos_reference::ops::{self, Outcome};
use delegateos_reference::revocation::{create_entry, Scope};
use delegateos_reference::timestamp::Timestamp;
use delegateos_reference::token::{
    attenuation_payload, authority_payload, revocation_id_of_canonical,
};
use delegateos_vectors::differential::{
    assess_token, expectation_of, failure_kind, outcome_class, reference_code,
};
pub use delegateos_vectors::format::Severity;
use delegateos_vectors::format::{
    self as vf, Expectation, Expected, Generator, Level, Note, Stake, VectorFile,
};
use delegateos_vectors::judge::{judge_case, ActualOutcome, FailureKind, Verdict};
use delegateos_vectors::keys::{Key, Keys};
use delegateos_vectors::outcome::{self, ErrorKind, Fault, Subject};
use delegateos_vectors::severity::{self, Direction};
use serde_json::{json, Value};

use crate::{dispatch, panic_text, Answer, Implementation};

/// The operations fuzzed: those `delegateos-conform fuzz --op` takes (the operations that
/// take untrusted input and whose comparison with the reference `fuzz` defines).
pub const FUZZED_OPERATIONS: &[&str] = &[
    "dct.verify",
    "revocation.from_json",
    "json.canonicalize",
    "glob.match",
    "check.run",
    "output.verify",
    "contract.verify_signature",
    "attestation.verify",
    "mcp.call",
];

/// Edits per case: 1..=MAX_EDITS.
const MAX_EDITS: usize = 3;
/// Largest encoded input a case may have (bytes): bigger ones are not run (as in `fuzz`).
const MAX_INPUT_BYTES: usize = 256 * 1024;
/// Nodes visited when picking a node to edit.
const MAX_NODES: usize = 4096;
/// Deepest node an edit reaches.
const MAX_DEPTH: usize = 16;
/// Minimization rounds.
const MAX_ROUNDS: usize = 8;
/// The member a decoded token is kept under in a view.
const TOKEN: &str = "$token";

// ---------------------------------------------------------------------------------------------
// Bytes → decisions

/// The fuzzer's bytes read as a sequence of decisions: one byte per choice among at most 256
/// (two bytes up to 65,536), then, when the bytes run out, a SplitMix64 stream seeded by their
/// hash. Same bytes, same decisions; a prefix of the bytes fixes the first decisions, which
/// keeps libFuzzer's byte-level mutations meaningful.
#[derive(Debug, Clone)]
struct Source<'a> {
    bytes: &'a [u8],
    pos: usize,
    state: u64,
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl<'a> Source<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Self {
            bytes,
            pos: 0,
            state: fnv(bytes),
        }
    }

    fn byte(&mut self) -> u8 {
        if let Some(b) = self.bytes.get(self.pos) {
            self.pos += 1;
            return *b;
        }
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)).to_le_bytes()[0]
    }

    /// A number in `0..n` (0 when `n <= 1`).
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let width = if n <= 1 << 8 {
            1
        } else if n <= 1 << 16 {
            2
        } else {
            4
        };
        let v = (0..width).fold(0usize, |v, _| (v << 8) | usize::from(self.byte()));
        v % n
    }

    fn pick<'v, T>(&mut self, items: &'v [T]) -> Option<&'v T> {
        items.get(self.below(items.len()))
    }
}

// ---------------------------------------------------------------------------------------------
// Edits

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    /// Object member.
    Key(String),
    /// Array element.
    Index(usize),
}

/// One replayable edit of a seed's view (its input with every token decoded under `$token`).
/// An edit whose path no longer exists is a no-op, so every edit list builds some input.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Replace (or add, in an object) the node at `path`.
    Set {
        /// Where.
        path: Vec<Seg>,
        /// The new value.
        value: Value,
    },
    /// Remove the member or element at `path`.
    Remove {
        /// Where.
        path: Vec<Seg>,
    },
    /// Duplicate the array element at `path` (the copy goes right after it).
    Duplicate {
        /// Where.
        path: Vec<Seg>,
    },
    /// Swap the array element at `path` with the next one.
    Swap {
        /// Where.
        path: Vec<Seg>,
    },
    /// Sign block `block` (0 = authority) of every token with test key `key` instead of its
    /// declared signer's.
    Forge {
        /// Block index.
        block: usize,
        /// Test key name.
        key: String,
    },
    /// Add to the context's revocations an entry for block `block` of the token, signed by
    /// test key `key` (made after re-signing, over the final block).
    Revoke {
        /// Block index.
        block: usize,
        /// Revoker key name.
        key: String,
    },
    /// Encode every token's text differently (after re-signing).
    Encode {
        /// How.
        encoding: Encoding,
    },
}

/// How a token's JSON becomes its text (`fuzz`'s encoding mutations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Pretty-printed (non-canonical whitespace).
    Pretty,
    /// Every object's members in reverse order (non-canonical order).
    ReversedKeys,
    /// A duplicated `format` member at the start of the JSON text.
    DuplicateKey,
    /// A UTF-8 byte-order mark before the JSON.
    Bom,
    /// base64 padding appended.
    Padding,
    /// `-`/`_` replaced by `+`/`/` (the standard alphabet).
    StandardAlphabet,
}

impl Encoding {
    const ALL: [Encoding; 6] = [
        Self::Pretty,
        Self::ReversedKeys,
        Self::DuplicateKey,
        Self::Bom,
        Self::Padding,
        Self::StandardAlphabet,
    ];

    /// snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pretty => "pretty",
            Self::ReversedKeys => "reversed_keys",
            Self::DuplicateKey => "duplicate_key",
            Self::Bom => "bom",
            Self::Padding => "padding",
            Self::StandardAlphabet => "standard_alphabet",
        }
    }
}

fn path_json(path: &[Seg]) -> Value {
    Value::Array(
        path.iter()
            .map(|s| match s {
                Seg::Key(k) => Value::from(k.as_str()),
                Seg::Index(i) => Value::from(*i),
            })
            .collect(),
    )
}

/// A path as a label: keys joined by `.`, indices as `[]`, the token marker dropped.
fn label(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) if k == TOKEN => {}
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(_) => out.push_str("[]"),
        }
    }
    if out.is_empty() {
        "(root)".to_owned()
    } else {
        out
    }
}

impl Edit {
    /// The edit as JSON (what a finding file's description lists).
    pub fn to_json(&self) -> Value {
        match self {
            Self::Set { path, value } => {
                json!({"edit": "set", "path": path_json(path), "value": value})
            }
            Self::Remove { path } => json!({"edit": "remove", "path": path_json(path)}),
            Self::Duplicate { path } => json!({"edit": "duplicate", "path": path_json(path)}),
            Self::Swap { path } => json!({"edit": "swap", "path": path_json(path)}),
            Self::Forge { block, key } => json!({"edit": "forge", "block": block, "key": key}),
            Self::Revoke { block, key } => json!({"edit": "revoke", "block": block, "key": key}),
            Self::Encode { encoding } => json!({"edit": "encode", "encoding": encoding.name()}),
        }
    }

    /// The field the edit touched, for finding kinds (`token.authority.expiresAt`,
    /// `context.revocations[]:removed`, `forge`).
    pub fn field(&self) -> String {
        match self {
            Self::Set { path, .. } => label(path),
            Self::Remove { path } => format!("{}:removed", label(path)),
            Self::Duplicate { path } => format!("{}:duplicated", label(path)),
            Self::Swap { path } => format!("{}:swapped", label(path)),
            Self::Forge { .. } => "forge".to_owned(),
            Self::Revoke { .. } => "revoke".to_owned(),
            Self::Encode { encoding } => format!("encode:{}", encoding.name()),
        }
    }
}

fn get_mut<'v>(root: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    path.iter().try_fold(root, |v, seg| match seg {
        Seg::Key(k) => v.as_object_mut()?.get_mut(k),
        Seg::Index(i) => v.as_array_mut()?.get_mut(*i),
    })
}

fn apply(doc: &mut Value, e: &Edit) {
    match e {
        Edit::Set { path, value } => {
            let Some((last, parent)) = path.split_last() else {
                *doc = value.clone();
                return;
            };
            match (get_mut(doc, parent), last) {
                (Some(Value::Object(o)), Seg::Key(k)) => {
                    o.insert(k.clone(), value.clone());
                }
                (Some(Value::Array(a)), Seg::Index(i)) => {
                    if let Some(slot) = a.get_mut(*i) {
                        *slot = value.clone();
                    }
                }
                _ => {}
            }
        }
        Edit::Remove { path } => {
            let Some((last, parent)) = path.split_last() else {
                return;
            };
            match (get_mut(doc, parent), last) {
                (Some(Value::Object(o)), Seg::Key(k)) => {
                    o.remove(k);
                }
                (Some(Value::Array(a)), Seg::Index(i)) if *i < a.len() => {
                    a.remove(*i);
                }
                _ => {}
            }
        }
        Edit::Duplicate { path } | Edit::Swap { path } => {
            let Some((Seg::Index(i), parent)) = path.split_last() else {
                return;
            };
            if let Some(Value::Array(a)) = get_mut(doc, parent) {
                match e {
                    Edit::Duplicate { .. } => {
                        if let Some(x) = a.get(*i).cloned() {
                            a.insert(*i + 1, x);
                        }
                    }
                    _ => {
                        if *i + 1 < a.len() {
                            a.swap(*i, *i + 1);
                        }
                    }
                }
            }
        }
        Edit::Forge { .. } | Edit::Revoke { .. } | Edit::Encode { .. } => {}
    }
}

// ---------------------------------------------------------------------------------------------
// Views: tokens decoded, edited, re-signed, encoded

/// Whether a candidate's tokens are re-signed after its edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signing {
    /// Leave signatures as they are (edits of signed fields break them).
    Keep,
    /// Re-sign every block whose signer is a published test key (forged blocks with the
    /// forging key).
    Resign,
}

/// The JSON of a token text, when the text is exactly the canonical encoding of a token (so
/// that re-encoding an unedited view gives the seed's input back).
fn decode_token(text: &str) -> Option<Value> {
    let bytes = b64u_decode(text).ok()?;
    let token: Value = serde_json::from_slice(&bytes).ok()?;
    token.get("authority")?;
    let canonical = canonicalize(&token).ok()?;
    (b64u_encode(canonical.as_bytes()) == text).then_some(token)
}

/// `input` with every token text replaced by `{"$token": <its JSON>}`.
fn view_of(input: &Value) -> Value {
    match input {
        Value::String(s) => decode_token(s).map_or_else(|| input.clone(), |t| json!({ TOKEN: t })),
        Value::Array(a) => Value::Array(a.iter().map(view_of).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), view_of(v))).collect()),
        other => other.clone(),
    }
}

fn has_token(view: &Value) -> bool {
    match view {
        Value::Object(o) => o.contains_key(TOKEN) || o.values().any(has_token),
        Value::Array(a) => a.iter().any(has_token),
        _ => false,
    }
}

fn key_named<'k>(keys: &'k Keys, name: &str) -> Option<&'k Key> {
    keys.all().into_iter().find(|k| k.name == name)
}

fn key_of_principal<'k>(keys: &'k Keys, principal: &str) -> Option<&'k Key> {
    keys.all().into_iter().find(|k| k.principal == principal)
}

fn block_value(token: &Value, block: usize) -> Option<&Value> {
    match block.checked_sub(1) {
        None => token.get("authority"),
        Some(i) => token.get("attenuations")?.get(i),
    }
}

fn block_signer(token: &Value, block: usize) -> Option<&str> {
    let member = if block == 0 { "issuer" } else { "attenuator" };
    block_value(token, block)?.get(member)?.as_str()
}

fn blocks(token: &Value) -> usize {
    1 + token
        .get("attenuations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// Re-signs every block with its declared signer's test key (or the forging key); a block
/// whose signer is no test key keeps its old signature entry (as `fuzz`'s mutator does).
fn resign(token: &mut Value, keys: &Keys, forged: &[(usize, &str)]) {
    let Some(auth) = token.get("authority").and_then(|a| canonicalize(a).ok()) else {
        return;
    };
    let atts: Vec<String> = token
        .get("attenuations")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|x| canonicalize(x).ok()).collect())
        .unwrap_or_default();
    let old: Vec<Value> = token
        .get("signatures")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut sigs = Vec::new();
    for block in 0..=atts.len() {
        let signer = block_signer(token, block).unwrap_or_default().to_owned();
        let forge = forged
            .iter()
            .rev()
            .find(|(b, _)| *b == block)
            .and_then(|(_, k)| key_named(keys, k));
        let Some(k) = forge.or_else(|| key_of_principal(keys, &signer)) else {
            if let Some(o) = old.get(block) {
                sigs.push(o.clone());
            }
            continue;
        };
        let payload = if block == 0 {
            authority_payload(&auth)
        } else {
            let prefix: Vec<&str> = atts.iter().take(block).map(String::as_str).collect();
            attenuation_payload(&auth, &prefix)
        };
        let covers = if block == 0 {
            json!("authority")
        } else {
            json!(block - 1)
        };
        sigs.push(json!({
            "signer": signer,
            "signature": b64u_encode(&sign_canonical(&k.keypair(), &payload)),
            "covers": covers,
        }));
    }
    if let Some(o) = token.as_object_mut() {
        o.insert("signatures".to_owned(), Value::Array(sigs));
    }
}

/// JSON text with every object's members in reverse order.
fn reversed_text(v: &Value) -> String {
    match v {
        Value::Object(o) => {
            let members: Vec<String> = o
                .iter()
                .rev()
                .map(|(k, x)| format!("{}:{}", Value::String(k.clone()), reversed_text(x)))
                .collect();
            format!("{{{}}}", members.join(","))
        }
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(reversed_text).collect();
            format!("[{}]", items.join(","))
        }
        other => canonicalize(other).unwrap_or_else(|_| other.to_string()),
    }
}

/// A token's text: canonical JSON, base64url, unless `encodings` say otherwise.
fn token_text(token: &Value, encodings: &[Encoding]) -> String {
    let mut text = canonicalize(token).unwrap_or_else(|_| token.to_string());
    let mut bom = false;
    for e in encodings {
        match e {
            Encoding::Pretty => {
                text = serde_json::to_string_pretty(token).unwrap_or_else(|_| text.clone());
            }
            Encoding::ReversedKeys => text = reversed_text(token),
            Encoding::DuplicateKey => {
                if let Some(rest) = text.strip_prefix('{') {
                    text = format!("{{\"format\":\"delegateos-sjt-v1\",{rest}");
                }
            }
            Encoding::Bom => bom = true,
            Encoding::Padding | Encoding::StandardAlphabet => {}
        }
    }
    let mut bytes = Vec::new();
    if bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    bytes.extend_from_slice(text.as_bytes());
    let mut b64 = b64u_encode(&bytes);
    for e in encodings {
        match e {
            Encoding::Padding => b64.push_str(if b64.len().is_multiple_of(4) {
                "===="
            } else {
                "="
            }),
            Encoding::StandardAlphabet => b64 = b64.replace('-', "+").replace('_', "/"),
            _ => {}
        }
    }
    b64
}

/// How a view's tokens are turned back into text.
struct Sealing<'a> {
    signing: Signing,
    forged: &'a [(usize, &'a str)],
    encodings: &'a [Encoding],
    keys: &'a Keys,
}

/// The view encoded back into an input: every `$token` re-signed (per `signing`) and encoded;
/// the final tokens are collected in order.
fn encode(view: &Value, how: &Sealing<'_>, tokens: &mut Vec<Value>) -> Value {
    match view {
        Value::Object(o) if o.len() == 1 && o.contains_key(TOKEN) => {
            let mut token = o.get(TOKEN).cloned().unwrap_or(Value::Null);
            if how.signing == Signing::Resign {
                resign(&mut token, how.keys, how.forged);
            }
            let text = token_text(&token, how.encodings);
            tokens.push(token);
            Value::from(text)
        }
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), encode(v, how, tokens)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|v| encode(v, how, tokens)).collect()),
        other => other.clone(),
    }
}

/// The revocation list a `Revoke` edit appends to: `context.revocations`, else `revocations`.
fn revocations_mut(input: &mut Value) -> Option<&mut Vec<Value>> {
    if input
        .pointer("/context/revocations")
        .is_some_and(Value::is_array)
    {
        return input
            .pointer_mut("/context/revocations")
            .and_then(Value::as_array_mut);
    }
    input.get_mut("revocations").and_then(Value::as_array_mut)
}

/// Builds the input of a candidate: the seed's view, edited, encoded (re-signed per
/// `signing`), then the revocations its `Revoke` edits make.
fn build(view: &Value, edits: &[Edit], signing: Signing, keys: &Keys) -> Value {
    let mut v = view.clone();
    let mut forged = Vec::new();
    let mut encodings = Vec::new();
    for e in edits {
        apply(&mut v, e);
        match e {
            Edit::Forge { block, key } => forged.push((*block, key.as_str())),
            Edit::Encode { encoding } => encodings.push(*encoding),
            _ => {}
        }
    }
    let how = Sealing {
        signing,
        forged: &forged,
        encodings: &encodings,
        keys,
    };
    let mut tokens = Vec::new();
    let mut input = encode(&v, &how, &mut tokens);
    for e in edits {
        let Edit::Revoke { block, key } = e else {
            continue;
        };
        let Some(b) = tokens.first().and_then(|t| block_value(t, *block)) else {
            continue;
        };
        let Some(k) = key_named(keys, key) else {
            continue;
        };
        let id = revocation_id_of_canonical(&canonicalize(b).unwrap_or_default());
        let entry = create_entry(&k.keypair(), &id, "2025-01-01T00:00:00Z", Scope::Block);
        if let (Some(list), Ok(e)) = (revocations_mut(&mut input), serde_json::to_value(&entry)) {
            list.push(e);
        }
    }
    input
}

// ---------------------------------------------------------------------------------------------
// Random edits

const RESOURCES: &[&str] = &[
    "**",
    "*",
    "",
    "/",
    "/**",
    "/*",
    "/a/**",
    "/project/**",
    "*/**",
    "/a/*/b",
    "a*",
    "/../",
    "/project/a/b",
    "/project/a/*",
    "/notes/x",
];
const TIMES: &[&str] = &[
    "2099-01-01T00:00:00Z",
    "2030-01-01T00:00:00Z",
    "2026-06-01T00:00:00Z",
    "2026-06-01T00:00:00.5Z",
    "2026-06-01T01:00:00+01:00",
    "2026-06-01T00:00:00z",
    "2026-02-30T00:00:00Z",
    "2026-06-30T23:59:60Z",
    "2026-06-01 00:00:00Z",
    "2025-01-01T00:00:00Z",
    "1970-01-01T00:00:00Z",
];
const GLOB: &[&str] = &[
    "*", "**", "***", "?", "[a]", "\\*", "*.md", "a*", "{a,b}", "a", ".", "..", "", "é", "%2F",
];

fn numbers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(100),
        json!(1_000_000),
        json!(9_007_199_254_740_991_u64),
        json!(9_007_199_254_740_992_u64),
        json!(-1),
        json!(1.5),
        json!("1"),
        Value::Null,
    ]
}

fn odd_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!([]),
        json!({}),
        json!("x"),
        json!(""),
        json!(7),
        json!(-1),
        json!(1e300),
    ]
}

/// Values worth trying for a member named `key` (by the spec's field names).
fn dictionary(key: &str, keys: &Keys) -> Vec<Value> {
    let strings = |items: &[&str]| items.iter().map(|s| Value::from(*s)).collect::<Vec<_>>();
    let lower = key.to_ascii_lowercase();
    if lower.ends_with("at") || lower == "now" || lower.contains("time") {
        strings(TIMES)
    } else if lower.contains("resource") || lower.contains("pattern") {
        let mut v = strings(RESOURCES);
        v.extend(strings(GLOB));
        v
    } else if lower.contains("microcents") || lower.contains("depth") || lower.contains("max") {
        numbers()
    } else if [
        "issuer",
        "delegatee",
        "attenuator",
        "rootpublickey",
        "signer",
        "principal",
        "revoker",
    ]
    .contains(&lower.as_str())
    {
        let mut v: Vec<Value> = keys
            .all()
            .iter()
            .map(|k| Value::from(k.principal.as_str()))
            .collect();
        v.push(json!("x"));
        v
    } else if lower == "action" {
        strings(&["*", "read", "write", "READ", ""])
    } else if lower == "format" {
        strings(&[
            "delegateos-sjt-v1",
            "delegateos-sjt-v2",
            "DELEGATEOS-SJT-V1",
            "",
        ])
    } else if lower == "namespace" {
        strings(&["*", "web", "docs", "fs", ""])
    } else {
        odd_values()
    }
}

/// A small change of a string or number.
fn tweak(src: &mut Source<'_>, v: &Value) -> Value {
    match v {
        Value::String(s) => {
            let mut s = s.clone();
            match src.below(6) {
                0 => s.push_str(src.pick(GLOB).copied().unwrap_or("*")),
                1 => {
                    s.pop();
                }
                2 => s = s.to_uppercase(),
                3 => s.push('/'),
                4 => s = format!("{}{s}", src.pick(GLOB).copied().unwrap_or("*")),
                _ => s.push_str(&s.clone()),
            }
            Value::from(s)
        }
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => json!(i.saturating_add(if src.below(2) == 0 { 1 } else { -1 })),
            (None, Some(f)) => json!(f + 1.0),
            _ => json!(0),
        },
        Value::Bool(b) => json!(!b),
        _ => Value::Null,
    }
}

/// Every path of `v` (bounded in count and depth), root excluded.
fn all_paths(v: &Value, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    if out.len() >= MAX_NODES || prefix.len() >= MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                prefix.push(Seg::Key(k.clone()));
                if k != TOKEN {
                    out.push(prefix.clone());
                }
                all_paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prefix.push(Seg::Index(i));
                out.push(prefix.clone());
                all_paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn last_key(path: &[Seg]) -> &str {
    path.iter()
        .rev()
        .find_map(|s| match s {
            Seg::Key(k) if k != TOKEN => Some(k.as_str()),
            _ => None,
        })
        .unwrap_or("")
}

fn node<'v>(v: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    path.iter().try_fold(v, |v, seg| match seg {
        Seg::Key(k) => v.as_object()?.get(k),
        Seg::Index(i) => v.as_array()?.get(*i),
    })
}

fn first_token(v: &Value) -> Option<&Value> {
    match v {
        Value::Object(o) => o.get(TOKEN).or_else(|| o.values().find_map(first_token)),
        Value::Array(a) => a.iter().find_map(first_token),
        _ => None,
    }
}

/// One edit of `view`, decided by `src`.
fn random_edit(src: &mut Source<'_>, view: &Value, keys: &Keys) -> Option<Edit> {
    let mut paths = Vec::new();
    all_paths(view, &mut Vec::new(), &mut paths);
    let token = first_token(view);
    let key_names: Vec<&str> = keys.all().iter().map(|k| k.name).collect();
    let choice = src.below(13);
    if let (Some(_), 12) = (token, choice) {
        let encoding = *src.pick(&Encoding::ALL).unwrap_or(&Encoding::Pretty);
        return Some(Edit::Encode { encoding });
    }
    if let (Some(t), 10 | 11) = (token, choice) {
        let block = src.below(blocks(t));
        let key = (*src.pick(&key_names).unwrap_or(&"mallory")).to_owned();
        return Some(if choice == 10 {
            Edit::Forge { block, key }
        } else {
            Edit::Revoke { block, key }
        });
    }
    let path = src.pick(&paths)?.clone();
    Some(match choice {
        0..=5 => {
            let dict = dictionary(last_key(&path), keys);
            let value = src.pick(&dict).cloned().unwrap_or(Value::Null);
            Edit::Set { path, value }
        }
        6 => {
            let value = tweak(src, node(view, &path).unwrap_or(&Value::Null));
            Edit::Set { path, value }
        }
        7 => Edit::Remove { path },
        8 => match path.last() {
            Some(Seg::Index(_)) if src.below(2) == 0 => Edit::Swap { path },
            Some(Seg::Index(_)) => Edit::Duplicate { path },
            _ => {
                let mut path = path;
                path.pop();
                path.push(Seg::Key("extra".to_owned()));
                Edit::Set {
                    path,
                    value: json!("unknown"),
                }
            }
        },
        _ => {
            let odd = odd_values();
            let value = src.pick(&odd).cloned().unwrap_or(Value::Null);
            Edit::Set { path, value }
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Seeds and expectations

#[derive(Debug, Clone)]
struct Seed {
    origin: String,
    op: String,
    requirements: Vec<String>,
    flags: Vec<String>,
    level: Level,
    stake: Stake,
    expect: Expectation,
    view: Value,
    tokens: bool,
}

fn expected_of(outcome: &Outcome) -> Option<Expected> {
    match outcome {
        Outcome::Ok { output } => Some(Expected::valid(output.clone())),
        Outcome::Error { code, .. } => Some(Expected::Invalid {
            code: code.clone(),
            stage: None,
        }),
        Outcome::Unsupported { .. } => None,
    }
}

fn unique(outcomes: Vec<Expected>) -> Vec<Expected> {
    let mut out: Vec<Expected> = Vec::new();
    for o in outcomes {
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

fn malformed(now: Option<&Value>) -> bool {
    now.and_then(Value::as_str)
        .is_some_and(|n| Timestamp::parse(n).is_err())
}

/// `dct.verify` (as `fuzz`'s token fuzzer): the reference's outcome; the seed's other
/// `acceptable` outcomes while the reference still accepts; and for a context `now` that is no
/// profile timestamp, `malformed_token` and the token fault at the seed's `now` (D7).
fn dct_expectation(seed: &Seed, input: &Value, reference: &Outcome) -> Option<Expectation> {
    let first = expected_of(reference)?;
    let mut outcomes = vec![first.clone()];
    let mut decision = None;
    if let Expectation::Acceptable {
        outcomes: open,
        decision: d,
    } = &seed.expect
    {
        if matches!(first, Expected::Valid { .. }) && open.len() > 1 {
            outcomes.extend(open.iter().skip(1).cloned());
            decision = Some(d.clone());
        }
    }
    if malformed(input.pointer("/context/now")) {
        if let Some(seed_now) = seed.view.pointer("/context/now") {
            let mut fixed = input.clone();
            if let Some(ctx) = fixed.get_mut("context").and_then(Value::as_object_mut) {
                ctx.insert("now".to_owned(), seed_now.clone());
            }
            if let Some(e @ Expected::Invalid { .. }) = expected_of(&ops::run(&seed.op, &fixed)) {
                outcomes.push(e);
            }
        }
        outcomes.push(Expected::Invalid {
            code: "malformed_token".to_owned(),
            stage: None,
        });
        decision = decision.or_else(|| Some("D7".to_owned()));
    }
    let outcomes = unique(outcomes);
    if outcomes.len() == 1 {
        return expectation_of(reference);
    }
    Some(Expectation::Acceptable {
        outcomes,
        decision: decision.unwrap_or_else(|| "D7".to_owned()),
    })
}

/// The part of an ok output an implementation is held to (`fuzz`'s `ops::comparable`): for
/// `mcp.call`, without the bodies that carry a `detail` (spec/mcp-proxy.md §6).
fn comparable(op: &str, outcome: &Outcome) -> Outcome {
    let Outcome::Ok { output } = outcome else {
        return outcome.clone();
    };
    let mut out = output.clone();
    if op == "mcp.call" {
        let has_detail = |v: Option<&Value>| v.and_then(|d| d.get("detail")).is_some();
        if let Some(obj) = out.as_object_mut() {
            match obj.get("decision").and_then(Value::as_str) {
                Some("deny") if has_detail(output.pointer("/response/error/data")) => {
                    obj.remove("response");
                }
                Some("drop") if has_detail(output.get("data")) => {
                    obj.remove("data");
                }
                _ => {}
            }
        }
    }
    Outcome::Ok { output: out }
}

/// The other operations (as `fuzz --op`): the reference's comparable outcome; the seed's
/// `acceptable` outcomes when the reference gives one of them; for a caller `now` that is no
/// profile timestamp, `invalid_input` and the denial at the seed's `now` (D7).
fn op_expectation(seed: &Seed, input: &Value, reference: &Outcome) -> Option<Expectation> {
    let reference = comparable(&seed.op, reference);
    let first = expected_of(&reference)?;
    let mut outcomes = vec![first.clone()];
    let mut decision = None;
    if let Expectation::Acceptable {
        outcomes: open,
        decision: d,
    } = &seed.expect
    {
        if open.contains(&first) {
            outcomes.extend(open.iter().cloned());
            decision = Some(d.clone());
        }
    }
    if let Some(seed_now) = seed.view.get("now").filter(|_| malformed(input.get("now"))) {
        outcomes.push(Expected::Invalid {
            code: "invalid_input".to_owned(),
            stage: None,
        });
        let mut at_seed_now = input.clone();
        at_seed_now["now"] = seed_now.clone();
        let denial = comparable(&seed.op, &ops::run(&seed.op, &at_seed_now));
        let denied = match &denial {
            Outcome::Ok { output } => {
                output.get("decision").and_then(Value::as_str) == Some("deny")
            }
            Outcome::Error { .. } => true,
            Outcome::Unsupported { .. } => false,
        };
        if denied {
            outcomes.extend(expected_of(&denial));
        }
        decision = decision.or_else(|| Some("D7".to_owned()));
    }
    let outcomes = unique(outcomes);
    match decision {
        Some(decision) if outcomes.len() > 1 => {
            Some(Expectation::Acceptable { outcomes, decision })
        }
        _ => expectation_of(&reference),
    }
}

// ---------------------------------------------------------------------------------------------
// Candidates, judging, findings

/// One generated case: a seed, its edits, and the input they build.
#[derive(Debug, Clone)]
pub struct Candidate {
    seed: usize,
    /// The seed case's id.
    pub origin: String,
    /// The operation.
    pub op: String,
    /// The edits, in order.
    pub edits: Vec<Edit>,
    /// Whether tokens were re-signed.
    pub signing: Signing,
    /// The input.
    pub input: Value,
    /// The reference's answer.
    pub reference: Outcome,
    /// What the implementation is held to (`None`: the reference does not support the input,
    /// or it is above the size bound; the case is not run).
    pub expectation: Option<Expectation>,
}

/// What kind of problem a finding is (`fuzz`'s kinds that exist in process).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Another outcome (or a code of another family) than the reference's.
    Disagreement,
    /// The method panicked or answered [`Answer::Threw`].
    Crash,
    /// The method answered [`Answer::Errored`] (or an error without a code).
    Errored,
    /// Rejected as the reference does, with another code of the family
    /// (`spec/error-codes.md` §11): a hardening finding.
    OtherCode,
}

impl Kind {
    /// snake_case name, as `fuzz` names it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Disagreement => "disagreement",
            Self::Crash => "crash",
            Self::Errored => "errored",
            Self::OtherCode => "other_code",
        }
    }
}

/// One minimized, graded disagreement with the reference.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Kind.
    pub kind: Kind,
    /// The operation.
    pub op: String,
    /// The seed case's id.
    pub origin: String,
    /// The seed case's requirement ids.
    pub requirements: Vec<String>,
    /// The minimized edits.
    pub edits: Vec<Edit>,
    /// Whether tokens were re-signed.
    pub signing: Signing,
    /// The input.
    pub input: Value,
    /// The reference's answer.
    pub reference: Outcome,
    /// What the implementation was held to (the finding file's `expect`).
    pub expectation: Expectation,
    /// What the implementation answered, in the adapter reply's shape (`{"outcome": …}`).
    pub actual: Value,
    /// The judge's diff, or the panic or error message.
    pub message: String,
    /// The level (the seed's; hardening for another code of the family).
    pub level: Level,
    /// Its severity (the effect's, `spec/severity.md`).
    pub severity: Severity,
    /// The effect.
    pub effect: String,
    /// The run report's finding key for this failure.
    pub report_key: String,
    /// The finding kind: operation, kind, reference outcome, implementation outcome class,
    /// fields the edits touched. One key is one finding, whichever edits reached it.
    pub key: String,
}

/// The result of one [`Fuzzer::step`].
#[derive(Debug, Clone)]
pub enum Step {
    /// The implementation's answer is one the reference's allows.
    Agreed,
    /// Not run: the reference does not support the input, or it is above the size bound.
    NotRun,
    /// The implementation skipped the case (`todo` or `skip`).
    Skipped,
    /// A finding.
    Finding(Box<Finding>),
}

thread_local! {
    static IN_USER_CALL: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that stays silent for a panic inside a method the fuzzer
/// calls (it becomes a [`Kind::Crash`] finding) and defers to the previous hook otherwise.
/// libFuzzer's hook aborts the process on any panic: a fuzz target calls this in its `init`.
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_USER_CALL.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// The classified answer of the implementation on one candidate.
struct Judged {
    kind: Option<Kind>,
    skipped: bool,
    actual: Value,
    actual_output: Option<Value>,
    message: String,
    failure: Option<delegateos_vectors::judge::FailureKind>,
    family: Option<String>,
}

/// The in-process differential fuzzer: the seeds of the embedded corpus and the published
/// test keys. Build it once (loading the corpus takes a moment), then call [`Fuzzer::step`]
/// per input.
#[derive(Debug, Clone)]
pub struct Fuzzer {
    seeds: Vec<Seed>,
    keys: Keys,
    propagate_panics: bool,
}

impl Fuzzer {
    /// Seeds of every operation of [`FUZZED_OPERATIONS`].
    pub fn new() -> Result<Self, String> {
        Self::for_operations(FUZZED_OPERATIONS)
    }

    /// Seeds of the operations `DELEGATEOS_FUZZ_OPS` lists (comma-separated), else of every
    /// operation of [`FUZZED_OPERATIONS`]: a fuzz target names the operations its
    /// implementation answers, so no time goes to cases it would skip.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var("DELEGATEOS_FUZZ_OPS") {
            Ok(list) if !list.trim().is_empty() => {
                let ops: Vec<&str> = list
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect();
                Self::for_operations(&ops)
            }
            _ => Self::new(),
        }
    }

    /// Seeds of `ops` only (each one of [`FUZZED_OPERATIONS`]).
    pub fn for_operations(ops: &[&str]) -> Result<Self, String> {
        if let Some(op) = ops.iter().find(|o| !FUZZED_OPERATIONS.contains(o)) {
            return Err(format!(
                "{op} is not fuzzed (the operations are {})",
                FUZZED_OPERATIONS.join(", ")
            ));
        }
        let files = delegateos_vectors::corpus::load_embedded().map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        let mut seeds = Vec::new();
        for loaded in files {
            let f = loaded.file;
            if f.stateful {
                continue;
            }
            for case in f.cases {
                if !ops.contains(&case.op.as_str()) {
                    continue;
                }
                // The token fuzzer's seeds: the valid `dct.verify` cases of area `dct`.
                if case.op == "dct.verify"
                    && (f.area != "dct"
                        || !matches!(case.expect.outcomes().first(), Some(Expected::Valid { .. })))
                {
                    continue;
                }
                let view = view_of(&case.input);
                seeds.push(Seed {
                    origin: case.id,
                    op: case.op,
                    requirements: case.requirements,
                    flags: case.flags,
                    level: case.level,
                    stake: case.stake,
                    expect: case.expect,
                    tokens: has_token(&view),
                    view,
                });
            }
        }
        if seeds.is_empty() {
            return Err(format!(
                "no corpus case of {} to seed the fuzzer",
                ops.join(", ")
            ));
        }
        Ok(Self {
            seeds,
            keys: Keys::fixed(),
            propagate_panics: false,
        })
    }

    /// Let a panic in the implementation's method unwind out of [`Fuzzer::step`] instead of
    /// making it a [`Kind::Crash`] finding.
    pub fn propagate_panics(mut self, yes: bool) -> Self {
        self.propagate_panics = yes;
        self
    }

    /// The number of seed cases.
    pub fn seeds(&self) -> usize {
        self.seeds.len()
    }

    fn candidate_of(&self, seed: usize, edits: Vec<Edit>, signing: Signing) -> Candidate {
        let Some(s) = self.seeds.get(seed) else {
            return Candidate {
                seed,
                origin: String::new(),
                op: String::new(),
                edits,
                signing,
                input: Value::Null,
                reference: Outcome::Unsupported {
                    reason: "no seed".to_owned(),
                },
                expectation: None,
            };
        };
        let input = build(&s.view, &edits, signing, &self.keys);
        let too_big = input.to_string().len() > MAX_INPUT_BYTES;
        let reference = if too_big {
            Outcome::Unsupported {
                reason: "input above the fuzzer's size bound".to_owned(),
            }
        } else {
            ops::run(&s.op, &input)
        };
        let expectation = if s.op == "dct.verify" {
            dct_expectation(s, &input, &reference)
        } else {
            op_expectation(s, &input, &reference)
        };
        Candidate {
            seed,
            origin: s.origin.clone(),
            op: s.op.clone(),
            edits,
            signing,
            input,
            reference,
            expectation,
        }
    }

    /// The case `bytes` decide: a seed, whether its tokens are re-signed, and 1–3 edits, each
    /// chosen on the view the previous ones produced.
    pub fn candidate(&self, bytes: &[u8]) -> Candidate {
        let mut src = Source::new(bytes);
        let seed = src.below(self.seeds.len());
        let Some(s) = self.seeds.get(seed) else {
            return self.candidate_of(seed, Vec::new(), Signing::Keep);
        };
        let signing = if s.tokens && src.below(10) < 8 {
            Signing::Resign
        } else {
            Signing::Keep
        };
        let n = 1 + src.below(MAX_EDITS);
        let mut view = s.view.clone();
        let mut edits = Vec::new();
        for _ in 0..n {
            if let Some(e) = random_edit(&mut src, &view, &self.keys) {
                apply(&mut view, &e);
                edits.push(e);
            }
        }
        self.candidate_of(seed, edits, signing)
    }

    fn answer<I: Implementation + ?Sized>(
        &self,
        imp: &I,
        op: &str,
        input: &Value,
    ) -> (Answer, bool) {
        if self.propagate_panics {
            let a = dispatch(imp, op, input)
                .unwrap_or_else(|| Answer::Skip(format!("operation {op:?} is not catalogued")));
            return (a, false);
        }
        let was = IN_USER_CALL.with(|c| c.replace(true));
        let result = catch_unwind(AssertUnwindSafe(|| dispatch(imp, op, input)));
        IN_USER_CALL.with(|c| c.set(was));
        match result {
            Ok(Some(a)) => (a, false),
            Ok(None) => (
                Answer::Skip(format!("operation {op:?} is not catalogued")),
                false,
            ),
            Err(payload) => (
                Answer::Errored(format!("panicked: {}", panic_text(payload.as_ref()))),
                true,
            ),
        }
    }

    fn judge<I: Implementation + ?Sized>(&self, imp: &I, c: &Candidate) -> Option<Judged> {
        let expectation = c.expectation.as_ref()?;
        let flags = self
            .seeds
            .get(c.seed)
            .map(|s| s.flags.as_slice())
            .unwrap_or_default();
        // An input that turns on an option the implementation does not declare is not its
        // behaviour to answer (`Implementation::options`): skipped, as `run` skips such a case.
        let declared = imp.options();
        let undeclared = delegateos_vectors::options::needed_by(&c.input)
            .iter()
            .any(|o| !declared.contains(&o.as_str()));
        let (answer, panicked) = if undeclared {
            (Answer::Skip("needs an undeclared option".to_owned()), false)
        } else {
            self.answer(imp, &c.op, &c.input)
        };
        let mut j = Judged {
            kind: None,
            skipped: false,
            actual: Value::Null,
            actual_output: None,
            message: String::new(),
            failure: None,
            family: None,
        };
        let actual = match answer {
            Answer::Todo | Answer::Skip(_) => {
                j.skipped = true;
                return Some(j);
            }
            Answer::Threw(message) => {
                j.kind = Some(Kind::Crash);
                j.actual = ActualOutcome::Threw {
                    message: message.clone(),
                }
                .to_json();
                j.message = message;
                return Some(j);
            }
            Answer::Errored(message) => {
                j.kind = Some(if panicked { Kind::Crash } else { Kind::Errored });
                j.actual = ActualOutcome::Errored {
                    message: message.clone(),
                }
                .to_json();
                j.message = message;
                return Some(j);
            }
            Answer::Error { code, .. } if code.is_empty() => {
                j.kind = Some(Kind::Errored);
                j.message = "an error answer needs a non-empty code".to_owned();
                j.actual = json!({"outcome": "error", "code": ""});
                return Some(j);
            }
            Answer::Ok(output) => ActualOutcome::Ok { output },
            Answer::Error { code, detail } => ActualOutcome::Error {
                code,
                detail: Some(detail),
            },
        };
        j.actual = actual.to_json();
        if let ActualOutcome::Ok { output } = &actual {
            j.actual_output = Some(output.clone());
        }
        match judge_case(&c.op, flags, expectation, &actual) {
            Verdict::Passed | Verdict::Acceptable { .. } => {}
            Verdict::OtherCode { diff, family, .. } => {
                j.kind = Some(Kind::OtherCode);
                j.message = diff;
                j.family = Some(family);
            }
            Verdict::Failed { diff, kind, .. } => {
                j.kind = Some(Kind::Disagreement);
                j.message = format!("{}\n{diff}", kind.label());
                j.failure = Some(kind);
            }
        }
        Some(j)
    }

    /// Runs the case `bytes` decide through `imp` and the reference; on a disagreement, the
    /// minimized and graded finding.
    pub fn step<I: Implementation + ?Sized>(&self, imp: &I, bytes: &[u8]) -> Step {
        let c = self.candidate(bytes);
        let Some(j) = self.judge(imp, &c) else {
            return Step::NotRun;
        };
        if j.skipped {
            return Step::Skipped;
        }
        let Some(kind) = j.kind else {
            return Step::Agreed;
        };
        let (c, j) = self.minimize(imp, c, kind, j);
        Step::Finding(Box::new(self.finding(kind, c, j)))
    }

    /// Drops edits one at a time while the same finding (kind, reference outcome,
    /// implementation outcome class) persists.
    fn minimize<I: Implementation + ?Sized>(
        &self,
        imp: &I,
        c: Candidate,
        kind: Kind,
        j: Judged,
    ) -> (Candidate, Judged) {
        let class = |c: &Candidate, j: &Judged| {
            (reference_code(&c.reference), outcome_class(Some(&j.actual)))
        };
        let want = class(&c, &j);
        let (mut best, mut judged) = (c, j);
        for _ in 0..MAX_ROUNDS {
            let mut improved = false;
            for i in 0..best.edits.len() {
                let mut edits = best.edits.clone();
                edits.remove(i);
                let t = self.candidate_of(best.seed, edits, best.signing);
                if let Some(tj) = self.judge(imp, &t) {
                    if tj.kind == Some(kind) && class(&t, &tj) == want {
                        best = t;
                        judged = tj;
                        improved = true;
                        break;
                    }
                }
            }
            if !improved || best.edits.is_empty() {
                break;
            }
        }
        (best, judged)
    }

    fn finding(&self, kind: Kind, c: Candidate, j: Judged) -> Finding {
        let seed = self.seeds.get(c.seed);
        let level = if kind == Kind::OtherCode {
            Level::Hardening
        } else {
            seed.map_or(Level::Normative, |s| s.level)
        };
        let expectation = c.expectation.clone().unwrap_or(Expectation::Invalid {
            code: "skipped".to_owned(),
            stage: None,
        });
        let a = if c.op == "dct.verify" {
            grade_token(kind, &c.reference, &j)
        } else {
            grade_op(kind, &c, seed, &expectation, &j)
        };
        let mut fields: Vec<String> = c.edits.iter().map(Edit::field).collect();
        fields.sort();
        fields.dedup();
        let reference = reference_code(&c.reference);
        let mut actual_class = outcome_class(Some(&j.actual));
        if actual_class == "accepted" && c.op != "dct.verify" && reference == "ok" {
            actual_class = format!(
                "accepted ({})",
                match a.direction {
                    Direction::Granted => "grants more",
                    Direction::Refused => "grants less",
                    _ => "other output",
                }
            );
        }
        if actual_class == "refused" && reference != "ok" {
            fields = vec!["any".to_owned()];
        } else if fields.is_empty() {
            fields.push("seed".to_owned());
        }
        let key = format!(
            "{} {}: reference {reference} / implementation {actual_class} / {}",
            c.op,
            kind.name(),
            fields.join("+")
        );
        Finding {
            kind,
            op: c.op,
            origin: c.origin,
            requirements: seed.map(|s| s.requirements.clone()).unwrap_or_default(),
            edits: c.edits,
            signing: c.signing,
            input: c.input,
            reference: c.reference,
            expectation,
            actual: j.actual,
            message: j.message,
            level,
            severity: a.severity,
            effect: a.effect,
            report_key: a.key,
            key,
        }
    }
}

/// A finding of kind `kind` as the [`Fault`] the severity model grades
/// ([`outcome::assess_fault`], as `run` and `fuzz` grade), `failure` the judge's kind of a
/// disagreement.
fn fault(kind: Kind, failure: FailureKind, j: &Judged) -> Fault {
    match kind {
        Kind::Crash => Fault::Errored(ErrorKind::Crash),
        Kind::Errored => Fault::Errored(ErrorKind::AdapterErrored),
        Kind::OtherCode => Fault::OtherCode {
            family: j.family.clone().unwrap_or_else(|| "?".to_owned()),
        },
        Kind::Disagreement => Fault::Failed {
            kind: failure,
            output: j.actual_output.clone(),
        },
    }
}

/// `dct.verify`, graded as `fuzz`'s token fuzzer grades (`diff.rs` `grade`): the direction
/// from the reference's and the implementation's verdicts, the requirement of the reference's
/// step, no flags, no stake (a mutated token is no case).
fn grade_token(kind: Kind, reference: &Outcome, j: &Judged) -> severity::Assessment {
    let failure = failure_kind(reference, Some(&j.actual));
    assess_token(reference, &fault(kind, failure, j))
}

/// The other operations, graded as `fuzz --op` grades (`findings::assess` on the runner's
/// case): an unmutated seed exactly as its corpus case; a mutated one without the seed's
/// flags and stake, by its requirements' rule.
fn grade_op(
    kind: Kind,
    c: &Candidate,
    seed: Option<&Seed>,
    expectation: &Expectation,
    j: &Judged,
) -> severity::Assessment {
    let mutated = !c.edits.is_empty();
    let no_flags: Vec<String> = Vec::new();
    let flags = match seed {
        Some(s) if !mutated => &s.flags,
        _ => &no_flags,
    };
    let stake = seed.filter(|_| !mutated).map(|s| &s.stake);
    let requirements = seed.map(|s| s.requirements.clone()).unwrap_or_default();
    let subject = Subject {
        op: &c.op,
        flags,
        requirements: &requirements,
        expectation: Some(expectation),
        stake,
    };
    let failure = j.failure.unwrap_or(FailureKind::NoAnswer);
    outcome::assess_fault(&subject, &fault(kind, failure, j))
}

impl Finding {
    /// One line: severity, effect, key, seed.
    pub fn summary(&self) -> String {
        format!(
            "[{}, {} {}] {} ({} edit(s) of {})",
            self.level.as_str(),
            self.severity.as_str(),
            self.effect,
            self.key,
            self.edits.len(),
            self.origin
        )
    }

    /// Whether the finding is at or above `threshold` (`None`: never).
    pub fn at_least(&self, threshold: Option<Severity>) -> bool {
        threshold.is_some_and(|t| self.severity >= t)
    }

    /// The file's group (and stem): `finding-` and 16 hex digits of the finding key's hash, so
    /// one finding kind is one file.
    pub fn group(&self) -> String {
        format!("finding-{:016x}", fnv(self.key.as_bytes()))
    }

    /// The finding as a vector file (area `fuzz`, one case flagged `DifferentialFinding`,
    /// ground `differential`, the expectation the implementation was held to): the shape of
    /// `delegateos-conform fuzz`'s findings, replayable by `delegateos-conform run --vectors
    /// DIR` and by [`crate::cases_in`].
    pub fn file(&self) -> VectorFile {
        let keys = Keys::fixed();
        let group = self.group();
        let mut notes = BTreeMap::new();
        notes.insert(
            "DifferentialFinding".to_owned(),
            Note {
                bug_type: "MODIFIED_PARAMETER".to_owned(),
                description: format!(
                    "Found by `delegateos_inprocess::fuzz`: a structurally mutated (re-signed \
                     where signed) {} case on which the implementation disagreed with the \
                     reference (or panicked, or errored). The expectation is the reference's \
                     outcome, not a constructed verdict: this is a finding to triage, not a \
                     corpus vector.",
                    self.op
                ),
                clause: "§10.1".to_owned(),
                effect: format!(
                    "The implementation answers this {} case differently from the reference.",
                    self.op
                ),
                level: self.level,
                severity: self.severity,
            },
        );
        let edits: Vec<Value> = self
            .edits
            .iter()
            .map(Edit::to_json)
            .chain(std::iter::once(json!({
                "signing": match self.signing { Signing::Keep => "keep", Signing::Resign => "resign" }
            })))
            .collect();
        let requirements = if self.requirements.is_empty() {
            vec!["DCT-VERIFY-1-MALFORMED".to_owned()]
        } else {
            self.requirements.clone()
        };
        let stake = severity::model().rule_stake(
            &self.op,
            &["DifferentialFinding".to_owned()],
            &requirements,
            &self.expectation,
        );
        VectorFile {
            schema: vf::SCHEMA_ID.to_owned(),
            spec_version: vf::SPEC_VERSION.to_owned(),
            generator: Generator {
                name: "delegateos-inprocess fuzz".to_owned(),
                version: "1".to_owned(),
            },
            area: "fuzz".to_owned(),
            group: group.clone(),
            stateful: false,
            description: format!(
                "DifferentialFinding ({}): reference {} vs implementation {}",
                self.kind.name(),
                reference_code(&self.reference),
                code_of(&self.actual)
            ),
            keys: keys.header(),
            notes,
            number_of_cases: 1,
            cases: vec![vf::Case {
                id: format!("fuzz-{group}-0001"),
                description: format!(
                    "DifferentialFinding ({}): {} mutated by {}; implementation answered {}{}",
                    self.kind.name(),
                    self.origin,
                    Value::Array(edits),
                    self.actual,
                    if self.message.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", self.message)
                    },
                ),
                requirements,
                flags: vec!["DifferentialFinding".to_owned()],
                level: self.level,
                ground: vf::Ground::Differential {
                    level: self.level,
                    reason: format!(
                        "the reference's answer on {} mutated (the level is the seed's)",
                        self.origin
                    ),
                },
                stake,
                op: self.op.clone(),
                options: delegateos_vectors::options::needed_by(&self.input),
                input: self.input.clone(),
                expect: self.expectation.clone(),
            }],
        }
    }

    /// Writes [`Finding::file`] to `dir/<group>.json` (sorted-key pretty JSON; `dir` created)
    /// unless that file exists: the path written, or `None` for a finding kind already saved.
    pub fn write_new(&self, dir: &Path) -> std::io::Result<Option<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(format!("{}.json", self.group()));
        if path.exists() {
            return Ok(None);
        }
        let value = serde_json::to_value(self.file()).map_err(std::io::Error::other)?;
        let mut text = serde_json::to_string_pretty(&value).map_err(std::io::Error::other)?;
        text.push('\n');
        std::fs::write(&path, text)?;
        Ok(Some(path))
    }
}

fn code_of(actual: &Value) -> String {
    match actual.get("outcome").and_then(Value::as_str) {
        Some("error") => actual
            .get("code")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned(),
        Some(o) => o.to_owned(),
        None => "?".to_owned(),
    }
}

/// The severity at which a fuzz target stops, from `DELEGATEOS_FUZZ_STOP_AT`
/// (`low`, `medium`, `high`, `critical`, or `never`), else `default`.
pub fn stop_at_from_env(default: Option<Severity>) -> Option<Severity> {
    match std::env::var("DELEGATEOS_FUZZ_STOP_AT").as_deref() {
        Ok("low") => Some(Severity::Low),
        Ok("medium") => Some(Severity::Medium),
        Ok("high") => Some(Severity::High),
        Ok("critical") => Some(Severity::Critical),
        Ok("never") => None,
        _ => default,
    }
}

/// The reference as an [`Implementation`] (every operation answered by
/// [`delegateos_reference::ops::run`]): the fuzzer against it finds nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl Implementation for Reference {
    fn fallback(&self, op: &str, input: &Value) -> Answer {
        ActualOutcome::from(&ops::run(op, input)).into()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_deterministic_and_continue_past_the_bytes() {
        let mut a = Source::new(&[1, 2, 3]);
        let mut b = Source::new(&[1, 2, 3]);
        let xs: Vec<usize> = (0..50).map(|_| a.below(1000)).collect();
        let ys: Vec<usize> = (0..50).map(|_| b.below(1000)).collect();
        assert_eq!(xs, ys);
        assert_eq!(Source::new(&[7]).below(10), 7);
        assert_eq!(Source::new(&[1, 44]).below(1000), 256 + 44);
    }

    /// The only test that sets `DELEGATEOS_FUZZ_OPS`.
    #[test]
    fn the_operations_come_from_the_environment() {
        std::env::set_var("DELEGATEOS_FUZZ_OPS", " glob.match ,");
        let glob = Fuzzer::from_env().unwrap();
        assert!(glob.seeds.iter().all(|s| s.op == "glob.match") && glob.seeds() > 10);
        std::env::set_var("DELEGATEOS_FUZZ_OPS", "glob.match,dct.create");
        let refused = Fuzzer::from_env().unwrap_err();
        assert!(refused.contains("dct.create is not fuzzed"), "{refused}");
        std::env::remove_var("DELEGATEOS_FUZZ_OPS");
        assert_eq!(
            Fuzzer::from_env().unwrap().seeds(),
            Fuzzer::new().unwrap().seeds()
        );
    }

    #[test]
    fn an_unedited_view_encodes_back_to_the_seed_input() {
        let fuzzer = Fuzzer::for_operations(&["dct.verify", "mcp.call"]).unwrap();
        let keys = Keys::fixed();
        let files = delegateos_vectors::corpus::load_embedded().unwrap();
        let inputs: BTreeMap<String, Value> = files
            .into_iter()
            .flat_map(|f| f.file.cases)
            .map(|c| (c.id, c.input))
            .collect();
        let mut tokens = 0;
        for s in &fuzzer.seeds {
            tokens += usize::from(s.tokens);
            let built = build(&s.view, &[], Signing::Keep, &keys);
            assert_eq!(Some(&built), inputs.get(&s.origin), "{}", s.origin);
        }
        assert!(tokens > 100, "only {tokens} seeds carry a decodable token");
    }
}
