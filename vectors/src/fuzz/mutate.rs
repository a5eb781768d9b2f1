//! Structural mutation and re-signing of `dct.verify` cases.
//!
//! A case is taken apart into the decoded token JSON and the verification context. A
//! [`Mutation`] edits one of them: before signing (token fields — capabilities, budgets,
//! expiries, depths, principals, whole blocks), after signing (the `signatures[]` entries),
//! at the encoding layer (non-canonical JSON, padding, BOM, format), or the context (request,
//! `now`, spend, root key, revocations). [`build`] applies a list of mutations and **re-signs
//! every block with the published test key of its declared signer** (unless a mutation forges
//! or disables that), so a mutated token still passes the signature steps and reaches the
//! narrowing, expiry, budget and capability checks of the implementation under test.

use delegateos_reference::canonical::canonicalize;
use delegateos_reference::crypto::{sign_canonical, Keypair};
use delegateos_reference::encoding::{b64u_decode, b64u_encode};
use delegateos_reference::revocation::{create_entry, Scope};
use delegateos_reference::token::{
    attenuation_payload, authority_payload, revocation_id_of_canonical,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::format::Level;
use crate::keys::{Key, Keys};

use super::entropy::Entropy;

/// Revocation id of a block given as JSON (§3.5): base64url(BLAKE2b-256(canonicalize(block))).
/// A mutated block need not decode, so it is canonicalized as it stands (an empty text when it
/// cannot be: the entry then revokes nothing).
fn revocation_id_of(block: &Value) -> String {
    revocation_id_of_canonical(&canonicalize(block).unwrap_or_default())
}

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Seg {
    /// Object member.
    Key(String),
    /// Array element.
    Index(usize),
}

/// Which document a path edit applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The decoded token, before re-signing.
    Token,
    /// The decoded token, after re-signing (to reach `signatures[]` itself).
    Signed,
    /// The verification context.
    Context,
}

/// How the token JSON is turned into the `token` text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// Pretty-printed (non-canonical whitespace).
    Pretty,
    /// Keys in reverse order (non-canonical order).
    ReversedKeys,
    /// base64 padding appended.
    Padding,
    /// `-`/`_` replaced by `+`/`/` (standard alphabet).
    StandardAlphabet,
    /// A UTF-8 byte-order mark before the JSON.
    Bom,
    /// The SerializedDCT `format` changed.
    WrongFormat,
    /// A duplicated member inserted into the decoded JSON text.
    DuplicateKey,
}

/// One structural mutation (serialized into the notes of a finding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Mutation {
    /// Set the value at `path` (creating the member if the parent is an object).
    Set {
        /// Document.
        stage: Stage,
        /// Path.
        path: Vec<Seg>,
        /// New value.
        value: Value,
    },
    /// Remove the member or element at `path`.
    Remove {
        /// Document.
        stage: Stage,
        /// Path.
        path: Vec<Seg>,
    },
    /// Insert `value` at `index` of the array at `path` (clamped to its length).
    Insert {
        /// Document.
        stage: Stage,
        /// Path of the array.
        path: Vec<Seg>,
        /// Position.
        index: usize,
        /// Value.
        value: Value,
    },
    /// Sign block `block` (0 = authority) with test key `key` instead of its declared signer.
    Forge {
        /// Block index.
        block: usize,
        /// Test key name.
        key: String,
    },
    /// Add a revocation entry for block `block`, signed by test key `key`.
    Revoke {
        /// Block index.
        block: usize,
        /// Revoker key name.
        key: String,
    },
    /// Change the encoding layer.
    Encode {
        /// How.
        encoding: Encoding,
    },
}

impl Mutation {
    /// The mutation's kind for defect signatures: the variant, plus the document and the last
    /// path member for structural edits (`set:context:now`, `forge`, `encode:padding`).
    pub fn signature(&self) -> String {
        let last = |path: &[Seg]| {
            path.iter()
                .rev()
                .find_map(|s| match s {
                    Seg::Key(k) => Some(k.clone()),
                    Seg::Index(_) => None,
                })
                .unwrap_or_default()
        };
        let stage = |s: &Stage| {
            serde_json::to_value(s)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        };
        match self {
            Self::Set {
                stage: st, path, ..
            } => format!("set:{}:{}", stage(st), last(path)),
            Self::Remove { stage: st, path } => format!("remove:{}:{}", stage(st), last(path)),
            Self::Insert {
                stage: st, path, ..
            } => {
                format!("insert:{}:{}", stage(st), last(path))
            }
            Self::Forge { .. } => "forge".to_owned(),
            Self::Revoke { .. } => "revoke".to_owned(),
            Self::Encode { encoding } => format!(
                "encode:{}",
                serde_json::to_value(encoding)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            ),
        }
    }
}

impl Mutation {
    /// The field a mutation touched: its signature without the verb (`token:expiresAt`,
    /// `forge`, `encode:padding`).
    pub fn field(&self) -> String {
        let sig = self.signature();
        match sig.split_once(':') {
            Some(("set" | "remove" | "insert", rest)) => rest.to_owned(),
            _ => sig,
        }
    }
}

/// A `dct.verify` case taken apart.
#[derive(Debug, Clone)]
pub struct Seed {
    /// Where it came from (a vector case id or `builtin-N`).
    pub origin: String,
    /// Requirement ids of the source case.
    pub requirements: Vec<String>,
    /// Decoded token JSON.
    pub token: Value,
    /// The verification context.
    pub context: Value,
    /// The seed case's flags (judging uses them, e.g. for code families).
    pub flags: Vec<String>,
    /// The seed case's level; findings on its mutations inherit it.
    pub level: Level,
}

impl Seed {
    /// Takes a `dct.verify` input apart; `None` if its token does not decode to JSON.
    pub fn from_input(origin: &str, requirements: Vec<String>, input: &Value) -> Option<Self> {
        let text = input.get("token")?.get("token")?.as_str()?;
        let bytes = b64u_decode(text).ok()?;
        let token: Value = serde_json::from_slice(&bytes).ok()?;
        Some(Self {
            origin: origin.to_owned(),
            requirements,
            token,
            context: input.get("context")?.clone(),
            flags: Vec::new(),
            level: Level::Normative,
        })
    }
}

fn key_named<'k>(keys: &'k Keys, name: &str) -> Option<&'k Key> {
    keys.all().into_iter().find(|k| k.name == name)
}

fn key_of_principal<'k>(keys: &'k Keys, principal: &str) -> Option<&'k Key> {
    keys.all().into_iter().find(|k| k.principal == principal)
}

fn get_mut<'v>(root: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    path.iter().try_fold(root, |v, seg| match seg {
        Seg::Key(k) => v.as_object_mut()?.get_mut(k),
        Seg::Index(i) => v.as_array_mut()?.get_mut(*i),
    })
}

fn apply_path(doc: &mut Value, m: &Mutation) {
    match m {
        Mutation::Set { path, value, .. } => {
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
        Mutation::Remove { path, .. } => {
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
        Mutation::Insert {
            path, index, value, ..
        } => {
            if let Some(Value::Array(a)) = get_mut(doc, path) {
                let i = (*index).min(a.len());
                a.insert(i, value.clone());
            }
        }
        _ => {}
    }
}

fn stage_of(m: &Mutation) -> Option<Stage> {
    match m {
        Mutation::Set { stage, .. }
        | Mutation::Remove { stage, .. }
        | Mutation::Insert { stage, .. } => Some(*stage),
        _ => None,
    }
}

fn block_signer(token: &Value, block: usize) -> Option<&str> {
    if block == 0 {
        token.get("authority")?.get("issuer")?.as_str()
    } else {
        token
            .get("attenuations")?
            .get(block - 1)?
            .get("attenuator")?
            .as_str()
    }
}

fn block_value(token: &Value, block: usize) -> Option<&Value> {
    if block == 0 {
        token.get("authority")
    } else {
        token.get("attenuations")?.get(block - 1)
    }
}

/// Re-signs every block with its declared signer's test key (or the forging key); a block
/// whose signer is not a test key keeps its old signature entry.
pub(crate) fn resign(token: &mut Value, keys: &Keys, forged: &[(usize, String)]) {
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
        let kp: Keypair = k.keypair();
        let covers = if block == 0 {
            json!("authority")
        } else {
            json!(block - 1)
        };
        sigs.push(json!({
            "signer": signer,
            "signature": b64u_encode(&sign_canonical(&kp, &payload)),
            "covers": covers,
        }));
    }
    if let Some(o) = token.as_object_mut() {
        o.insert("signatures".to_owned(), Value::Array(sigs));
    }
}

/// JSON text with every object's members in reverse order (non-canonical member order).
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

fn encode(token: &Value, encodings: &[Encoding]) -> (String, String) {
    let mut text = canonicalize(token).unwrap_or_else(|_| token.to_string());
    let mut format = "delegateos-sjt-v1".to_owned();
    let mut bom = false;
    let mut post = Vec::new();
    for e in encodings {
        match e {
            Encoding::Pretty => {
                text = serde_json::to_string_pretty(token).unwrap_or_else(|_| text.clone())
            }
            Encoding::ReversedKeys => text = reversed_text(token),
            Encoding::DuplicateKey => {
                if let Some(rest) = text.strip_prefix('{') {
                    text = format!("{{\"format\":\"delegateos-sjt-v1\",{rest}");
                }
            }
            Encoding::Bom => bom = true,
            Encoding::WrongFormat => format = "delegateos-sjt-v2".to_owned(),
            Encoding::Padding | Encoding::StandardAlphabet => post.push(*e),
        }
    }
    let mut bytes = Vec::new();
    if bom {
        bytes.extend_from_slice(b"\xEF\xBB\xBF");
    }
    bytes.extend_from_slice(text.as_bytes());
    let mut b64 = b64u_encode(&bytes);
    for e in post {
        match e {
            Encoding::Padding => b64.push_str(if b64.len().is_multiple_of(4) {
                "===="
            } else {
                "="
            }),
            _ => b64 = b64.replace('-', "+").replace('_', "/"),
        }
    }
    (b64, format)
}

/// Applies `mutations` to a seed's decoded `token` and `context` and re-signs: the
/// `dct.verify` input to send.
pub fn build(token: &Value, context: &Value, mutations: &[Mutation], keys: &Keys) -> Value {
    let mut token = token.clone();
    let mut context = context.clone();
    let mut forged = Vec::new();
    let mut encodings = Vec::new();
    for m in mutations {
        match (m, stage_of(m)) {
            (_, Some(Stage::Token)) => apply_path(&mut token, m),
            (_, Some(Stage::Context)) => apply_path(&mut context, m),
            (Mutation::Forge { block, key }, _) => forged.push((*block, key.clone())),
            (Mutation::Encode { encoding }, _) => encodings.push(*encoding),
            _ => {}
        }
    }
    resign(&mut token, keys, &forged);
    for m in mutations {
        if stage_of(m) == Some(Stage::Signed) {
            apply_path(&mut token, m);
        }
    }
    // Revocations are made last, over the final blocks.
    for m in mutations {
        if let Mutation::Revoke { block, key } = m {
            if let (Some(b), Some(k)) = (block_value(&token, *block), key_named(keys, key)) {
                let entry = create_entry(
                    &k.keypair(),
                    &revocation_id_of(b),
                    "2025-01-01T00:00:00Z",
                    Scope::Block,
                );
                if let (Some(list), Ok(e)) = (
                    context.get_mut("revocations").and_then(Value::as_array_mut),
                    serde_json::to_value(&entry),
                ) {
                    list.push(e);
                }
            }
        }
    }
    let (text, format) = encode(&token, &encodings);
    json!({ "token": { "token": text, "format": format }, "context": context })
}

fn blocks(token: &Value) -> usize {
    1 + token
        .get("attenuations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

fn block_path(block: usize) -> Vec<Seg> {
    if block == 0 {
        vec![Seg::Key("authority".into())]
    } else {
        vec![Seg::Key("attenuations".into()), Seg::Index(block - 1)]
    }
}

fn with(mut path: Vec<Seg>, rest: &[&str]) -> Vec<Seg> {
    path.extend(rest.iter().map(|s| Seg::Key((*s).to_owned())));
    path
}

/// Every path of a value (for generic removals and type changes).
fn all_paths(v: &Value, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                prefix.push(Seg::Key(k.clone()));
                out.push(prefix.clone());
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

const RESOURCES: &[&str] = &[
    "**",
    "*",
    "",
    "/",
    "/**",
    "/*",
    "/a/**",
    "/projectX/**",
    "*/**",
    "/a/*/b",
    "a*",
    "/../",
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

fn numbers() -> Vec<Value> {
    vec![
        json!(0),
        json!(1),
        json!(2),
        json!(3),
        json!(100),
        json!(1_000_000),
        json!(9_007_199_254_740_991u64),
        json!(9_007_199_254_740_992u64),
        json!(-1),
        json!(1.5),
        json!("1"),
        Value::Null,
    ]
}

/// A random mutation of a seed's decoded `token`.
pub fn random(rng: &mut impl Entropy, token: &Value, keys: &Keys) -> Mutation {
    let n = blocks(token);
    let block = rng.below(n);
    let key_names: Vec<&str> = keys.all().iter().map(|k| k.name).collect();
    let key = (*rng.pick(&key_names).unwrap_or(&"mallory")).to_owned();
    let principal = key_named(keys, &key)
        .map(|k| k.principal.clone())
        .unwrap_or_default();
    let caps_key = if block == 0 {
        "capabilities"
    } else {
        "allowedCapabilities"
    };
    let tok = |path: Vec<Seg>, value: Value| Mutation::Set {
        stage: Stage::Token,
        path,
        value,
    };
    match rng.below(16) {
        // Capability widening / substitution.
        0 | 1 => {
            let caps = block_value(token, block)
                .and_then(|b| b.get(caps_key))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let i = rng.below(caps.max(1));
            let field = *rng
                .pick(&["resource", "resource", "action", "namespace"])
                .unwrap_or(&"resource");
            let value = match field {
                "resource" => json!(rng.pick(RESOURCES).unwrap_or(&"**")),
                "action" => json!(rng.pick(&["*", "write", "READ", ""]).unwrap_or(&"*")),
                _ => json!(rng.pick(&["*", "docs", "web", ""]).unwrap_or(&"*")),
            };
            let mut path = with(block_path(block), &[caps_key]);
            path.push(Seg::Index(i));
            path.push(Seg::Key(field.to_owned()));
            tok(path, value)
        }
        2 => {
            let cap = json!({"namespace": rng.pick(&["web", "docs", "fs"]).unwrap_or(&"fs"),
                "action": rng.pick(&["read", "write", "*"]).unwrap_or(&"*"),
                "resource": rng.pick(RESOURCES).unwrap_or(&"**")});
            Mutation::Insert {
                stage: Stage::Token,
                path: with(block_path(block), &[caps_key]),
                index: rng.below(4),
                value: cap,
            }
        }
        3 => {
            let v = numbers().get(rng.below(12)).cloned().unwrap_or(Value::Null);
            tok(with(block_path(block), &["maxBudgetMicrocents"]), v)
        }
        4 => {
            let t = json!(rng.pick(TIMES).unwrap_or(&"2099-01-01T00:00:00Z"));
            tok(with(block_path(block), &["expiresAt"]), t)
        }
        5 => {
            let v = numbers().get(rng.below(8)).cloned().unwrap_or(Value::Null);
            let f = if block == 0 && rng.below(2) == 0 {
                "chainDepth"
            } else {
                "maxChainDepth"
            };
            tok(with(block_path(block), &[f]), v)
        }
        6 => {
            let f = if block == 0 {
                *rng.pick(&["issuer", "delegatee"]).unwrap_or(&"issuer")
            } else {
                *rng.pick(&["attenuator", "delegatee"])
                    .unwrap_or(&"attenuator")
            };
            tok(with(block_path(block), &[f]), json!(principal))
        }
        // A new attenuation by the current holder (or anyone).
        7 => {
            let last = block_value(token, n - 1)
                .and_then(|b| b.get("delegatee"))
                .cloned()
                .unwrap_or(json!(principal));
            let mut att = json!({
                "attenuator": last,
                "delegatee": principal,
                "delegationId": format!("del_{:012x}", rng.below(1 << 20)),
                "contractId": "ct_000000000001",
            });
            if let Some(o) = att.as_object_mut() {
                match rng.below(4) {
                    0 => {
                        o.insert(
                            "allowedCapabilities".into(),
                            json!([{"namespace": "web", "action": "read", "resource": "**"}]),
                        );
                    }
                    1 => {
                        o.insert("maxChainDepth".into(), json!(rng.below(4)));
                    }
                    2 => {
                        o.insert("allowedCapabilities".into(), json!([]));
                    }
                    _ => {}
                }
            }
            Mutation::Insert {
                stage: Stage::Token,
                path: vec![Seg::Key("attenuations".into())],
                index: usize::MAX,
                value: att,
            }
        }
        8 => Mutation::Remove {
            stage: Stage::Token,
            path: if n > 1 {
                vec![
                    Seg::Key("attenuations".into()),
                    Seg::Index(rng.below(n - 1)),
                ]
            } else {
                with(block_path(0), &["capabilities"])
            },
        },
        9 => Mutation::Forge { block, key },
        10 => {
            // Post-signing edits of signatures[].
            let i = rng.below(n + 1);
            let (path, value) = match rng.below(4) {
                0 => (vec![Seg::Key("covers".into())], json!(rng.below(3))),
                1 => (vec![Seg::Key("covers".into())], json!("authority")),
                2 => (vec![Seg::Key("signer".into())], json!(principal)),
                _ => {
                    return Mutation::Remove {
                        stage: Stage::Signed,
                        path: vec![Seg::Key("signatures".into()), Seg::Index(i)],
                    }
                }
            };
            let mut p = vec![Seg::Key("signatures".into()), Seg::Index(i)];
            p.extend(path);
            Mutation::Set {
                stage: Stage::Signed,
                path: p,
                value,
            }
        }
        11 => {
            let all = [
                Encoding::Pretty,
                Encoding::ReversedKeys,
                Encoding::Padding,
                Encoding::StandardAlphabet,
                Encoding::Bom,
                Encoding::WrongFormat,
                Encoding::DuplicateKey,
            ];
            Mutation::Encode {
                encoding: *rng.pick(&all).unwrap_or(&Encoding::Pretty),
            }
        }
        12 => Mutation::Revoke { block, key },
        // Generic: remove any member, retype it, or add an unknown one.
        13 => {
            let mut paths = Vec::new();
            all_paths(token, &mut Vec::new(), &mut paths);
            let path = rng.pick(&paths).cloned().unwrap_or_default();
            match rng.below(3) {
                0 => Mutation::Remove {
                    stage: Stage::Token,
                    path,
                },
                1 => {
                    let v = [
                        json!(null),
                        json!(true),
                        json!([]),
                        json!({}),
                        json!("x"),
                        json!(7),
                    ];
                    tok(path, rng.pick(&v).cloned().unwrap_or(Value::Null))
                }
                _ => tok(with(block_path(block), &["extra"]), json!("unknown")),
            }
        }
        // Context: request, time, spend, root key.
        _ => {
            let (field, value): (&str, Value) = match rng.below(6) {
                0 => ("resource", json!(rng.pick(RESOURCES).unwrap_or(&"**"))),
                1 => (
                    "action",
                    json!(rng.pick(&["*", "write", "read"]).unwrap_or(&"*")),
                ),
                2 => (
                    "now",
                    json!(rng.pick(TIMES).unwrap_or(&"2099-01-01T00:00:00Z")),
                ),
                3 => (
                    "spentMicrocents",
                    numbers().get(rng.below(8)).cloned().unwrap_or(json!(0)),
                ),
                4 => ("rootPublicKey", json!(principal)),
                _ => (
                    "namespace",
                    json!(rng.pick(&["web", "docs", "*"]).unwrap_or(&"*")),
                ),
            };
            Mutation::Set {
                stage: Stage::Context,
                path: vec![Seg::Key(field.to_owned())],
                value,
            }
        }
    }
}

/// Builtin seeds (used in addition to `vectors/dct/*.json`, and alone when there are none):
/// valid chains of length 0–3 signed with the test keys.
pub fn builtin_seeds(keys: &Keys) -> Vec<Seed> {
    let cap = |ns: &str, a: &str, r: &str| json!({"namespace": ns, "action": a, "resource": r});
    let authority = json!({
        "issuer": keys.root.principal,
        "delegatee": keys.alice.principal,
        "capabilities": [cap("web", "read", "/project/**"), cap("docs", "write", "/notes/*")],
        "contractId": "ct_0123456789ab",
        "delegationId": "del_000000000001",
        "parentDelegationId": "del_000000000000",
        "chainDepth": 0,
        "maxChainDepth": 3,
        "maxBudgetMicrocents": 1_000_000,
        "expiresAt": "2030-01-01T00:00:00Z",
        "issuedAt": "2026-01-01T00:00:00Z",
    });
    let att = |from: &Key, to: &Key, i: u32, extra: Value| {
        let mut a = json!({
            "attenuator": from.principal,
            "delegatee": to.principal,
            "delegationId": format!("del_00000000010{i}"),
            "contractId": "ct_0123456789ab",
        });
        if let (Some(o), Value::Object(e)) = (a.as_object_mut(), extra) {
            o.extend(e);
        }
        a
    };
    let chains = vec![
        vec![],
        vec![att(
            &keys.alice,
            &keys.bob,
            1,
            json!({"allowedCapabilities": [cap("web", "read", "/project/a/**")],
                   "maxBudgetMicrocents": 500_000, "expiresAt": "2029-01-01T00:00:00Z",
                   "maxChainDepth": 1}),
        )],
        vec![
            att(
                &keys.alice,
                &keys.bob,
                1,
                json!({"maxBudgetMicrocents": 800_000}),
            ),
            att(
                &keys.bob,
                &keys.carol,
                2,
                json!({"allowedCapabilities": [cap("web", "read", "/project/a/*")]}),
            ),
            att(&keys.carol, &keys.dave, 3, json!({"maxChainDepth": 0})),
        ],
    ];
    chains
        .into_iter()
        .enumerate()
        .map(|(i, atts)| {
            let mut token = json!({
                "format": "delegateos-sjt-v1",
                "authority": authority,
                "attenuations": atts,
                "signatures": [],
            });
            resign(&mut token, keys, &[]);
            let context = json!({
                "namespace": "web", "action": "read", "resource": "/project/a/b",
                "now": "2026-06-01T00:00:00Z", "spentMicrocents": 10,
                "rootPublicKey": keys.root.principal, "revocations": [],
            });
            Seed {
                origin: format!("builtin-{i}"),
                requirements: Vec::new(),
                token,
                context,
                flags: Vec::new(),
                level: Level::Normative,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use delegateos_reference::ops::{run, Outcome};

    #[test]
    fn builtin_seeds_verify_and_resigning_keeps_them_valid() {
        let keys = Keys::fixed();
        for seed in builtin_seeds(&keys) {
            let input = build(&seed.token, &seed.context, &[], &keys);
            let out = run("dct.verify", &input);
            assert!(
                matches!(out, Outcome::Ok { .. }),
                "{}: {out:?}",
                seed.origin
            );
        }
    }

    #[test]
    fn widening_is_resigned_so_it_reaches_step_4() {
        let keys = Keys::fixed();
        let seeds = builtin_seeds(&keys);
        let seed = &seeds[1];
        let widen = Mutation::Set {
            stage: Stage::Token,
            path: vec![
                Seg::Key("attenuations".into()),
                Seg::Index(0),
                Seg::Key("allowedCapabilities".into()),
                Seg::Index(0),
                Seg::Key("resource".into()),
            ],
            value: json!("**"),
        };
        let out = run(
            "dct.verify",
            &build(&seed.token, &seed.context, &[widen], &keys),
        );
        assert!(
            matches!(&out, Outcome::Error { code, .. } if code == "attenuation_violation"),
            "{out:?}"
        );
    }
}
