//! The corpus handed to another language: `delegateos-conform vectors export DIR` writes the
//! embedded corpus, a manifest, the published test keys and the spec files (schemas,
//! requirements, operations, error codes, decisions, severity model) — byte for byte the
//! committed files, so an author of a port or a package reads exactly what the harness runs.
//!
//! Layout of `DIR` (the repository's own layout):
//!
//! | path | what |
//! |---|---|
//! | `vectors/<area>/<group>.json` | the vector files ([`crate::corpus::FILES`]) |
//! | `vectors/manifest.json` | [`manifest_json`]: corpus version, BLAKE2b-256 digest, counts per area, level and operation, one line per file |
//! | `vectors/keys.json` | [`keys_json`]: the published test keys and how they are derived |
//! | `spec/**` | the spec files ([`crate::corpus::SPEC_FILES`]), schemas under `spec/schemas/` |
//!
//! `manifest.json` and `keys.json` are committed next to the corpus and kept current by
//! `vectors generate|check` (a loader skips them: [`crate::load::ROOT_METADATA_FILES`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use delegateos_reference::crypto::blake2b256;

use crate::corpus::{digest, FILES, SPEC_FILES};
use crate::format::VectorFile;
use crate::keys::{Keys, SEED_PREFIX};

/// The manifest's own format id.
pub const MANIFEST_SCHEMA: &str = "delegateos-vectors-manifest/1";

/// The keys file's format id.
pub const KEYS_SCHEMA: &str = "delegateos-test-keys/1";

/// The corpus version: the version of the crate that carries it (one number for both).
pub const CORPUS_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The manifest of a corpus given as `(relative path, bytes)` in path order: version, digest
/// ([`digest`]), totals and counts per area, level and operation, and one entry per file
/// (cases, stateful, own BLAKE2b-256). A file that does not parse is listed with no counts
/// (the loader reports it; the manifest describes bytes, not validity).
pub fn manifest_json<'a>(files: impl Iterator<Item = (&'a str, &'a [u8])> + Clone) -> String {
    let mut areas: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut levels: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut operations: BTreeMap<String, usize> = BTreeMap::new();
    let mut entries = Vec::new();
    let (mut n_files, mut n_cases) = (0usize, 0usize);
    let mut spec_version = None;
    for (path, bytes) in files.clone() {
        n_files += 1;
        let parsed: Option<VectorFile> = serde_json::from_slice(bytes).ok();
        let cases = parsed.as_ref().map_or(0, |f| f.cases.len());
        n_cases += cases;
        if let Some(file) = &parsed {
            let area = areas.entry(file.area.clone()).or_default();
            area.0 += 1;
            area.1 += cases;
            for case in &file.cases {
                *levels.entry(case.level.as_str()).or_default() += 1;
                *operations.entry(case.op.clone()).or_default() += 1;
            }
            spec_version.get_or_insert_with(|| file.spec_version.clone());
        }
        entries.push(json!({
            "path": path,
            "cases": cases,
            "stateful": parsed.as_ref().is_some_and(|f| f.stateful),
            "blake2b-256": hex::encode(blake2b256(bytes)),
        }));
    }
    let areas: serde_json::Map<String, Value> = areas
        .into_iter()
        .map(|(name, (f, c))| (name, json!({"files": f, "cases": c})))
        .collect();
    let manifest = json!({
        "schema": MANIFEST_SCHEMA,
        "corpus": "delegateos-vectors",
        "version": CORPUS_VERSION,
        "spec_version": spec_version,
        "digest": {
            "algorithm": "blake2b-256",
            "hex": digest(files),
            "over": "every vector file, in path order, as: relative path (UTF-8), NUL, \
                     length (u64 little-endian), bytes",
        },
        "files": n_files,
        "cases": n_cases,
        "areas": areas,
        "levels": levels,
        "operations": operations,
        "file_list": entries,
    });
    pretty(&manifest)
}

/// The published test keys: name, seed (hex), principal (base64url public key) and the
/// derivation anyone can repeat.
pub fn keys_json() -> String {
    let keys = Keys::fixed();
    let list: Vec<Value> = keys
        .all()
        .iter()
        .map(|k| json!({"name": k.name, "seed": k.seed_hex(), "principal": k.principal}))
        .collect();
    pretty(&json!({
        "schema": KEYS_SCHEMA,
        "derivation": format!(
            "seed = BLAKE2b-256(ASCII \"{SEED_PREFIX}<name>\"); the Ed25519 key pair of that \
             seed (RFC 8032); principal = base64url (no padding) of the public key"
        ),
        "keys": list,
    }))
}

/// Sorted keys, 2-space indent, trailing newline (the corpus's own rendering).
fn pretty(value: &Value) -> String {
    let mut text =
        serde_json::to_string_pretty(&crate::format::sorted(value.clone())).unwrap_or_default();
    text.push('\n');
    text
}

/// Every file of an export, `(relative path, bytes)` in path order.
pub fn export_files() -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for (rel, bytes) in FILES {
        out.push((format!("vectors/{rel}"), bytes.to_vec()));
    }
    out.push((
        "vectors/manifest.json".into(),
        manifest_json(FILES.iter().map(|(p, b)| (*p, *b))).into_bytes(),
    ));
    out.push(("vectors/keys.json".into(), keys_json().into_bytes()));
    for (rel, bytes) in SPEC_FILES {
        out.push(((*rel).to_string(), bytes.to_vec()));
    }
    out.sort();
    out
}

/// Writes [`export_files`] under `dir` (created if missing). A file already there with other
/// content is overwritten; nothing else in `dir` is touched. Returns the paths written.
pub fn export(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for (rel, bytes) in export_files() {
        let path = dir.join(&rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        written.push(PathBuf::from(rel));
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_manifest_and_keys_are_current() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let manifest = manifest_json(FILES.iter().map(|(p, b)| (*p, *b)));
        let committed = std::fs::read_to_string(dir.join("manifest.json")).unwrap_or_default();
        assert!(
            committed == manifest,
            "vectors/manifest.json is stale: run `cargo run -p delegateos-conform --features \
             generator -- vectors generate --out vectors`"
        );
        let keys = std::fs::read_to_string(dir.join("keys.json")).unwrap_or_default();
        assert!(keys == keys_json(), "vectors/keys.json is stale");
    }

    #[test]
    fn manifest_counts_and_digest_follow_the_bytes() {
        let m: Value = serde_json::from_str(&manifest_json(FILES.iter().map(|(p, b)| (*p, *b))))
            .unwrap_or_default();
        assert_eq!(m["files"], FILES.len());
        assert_eq!(m["digest"]["hex"], crate::corpus::embedded_digest());
        let by_level: u64 = m["levels"]
            .as_object()
            .map(|o| o.values().filter_map(Value::as_u64).sum())
            .unwrap_or(0);
        let by_area: u64 = m["areas"]
            .as_object()
            .map(|o| o.values().filter_map(|a| a["cases"].as_u64()).sum())
            .unwrap_or(0);
        assert!(by_level > 2000, "{by_level}");
        assert_eq!(Some(by_level), m["cases"].as_u64());
        assert_eq!(Some(by_area), m["cases"].as_u64());
        // One changed byte changes the digest and that file's own hash.
        let (p0, b0) = FILES[0];
        let mut changed = b0.to_vec();
        changed[0] ^= 1;
        let other = manifest_json(
            std::iter::once((p0, changed.as_slice()))
                .chain(FILES[1..].iter().map(|(p, b)| (*p, *b))),
        );
        let other: Value = serde_json::from_str(&other).unwrap_or_default();
        assert_ne!(other["digest"]["hex"], m["digest"]["hex"]);
        assert_ne!(
            other["file_list"][0]["blake2b-256"],
            m["file_list"][0]["blake2b-256"]
        );
        assert_eq!(other["file_list"][1], m["file_list"][1]);
    }

    #[test]
    fn keys_rederive_from_their_published_seeds() {
        let k: Value = serde_json::from_str(&keys_json()).unwrap_or_default();
        let list = k["keys"].as_array().cloned().unwrap_or_default();
        assert_eq!(list.len(), 12);
        for key in list {
            let name = key["name"].as_str().unwrap_or_default();
            let seed = blake2b256(format!("{SEED_PREFIX}{name}").as_bytes());
            assert_eq!(key["seed"], hex::encode(seed), "{name}");
            let principal = delegateos_reference::crypto::Keypair::from_seed(&seed).principal_id();
            assert_eq!(key["principal"], principal, "{name}");
        }
    }

    #[test]
    fn export_is_the_committed_tree() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let files = export_files();
        assert!(files
            .iter()
            .any(|(p, _)| p == "spec/schemas/vector.schema.json"));
        assert!(files.iter().any(|(p, _)| p == "spec/requirements.md"));
        for (rel, bytes) in &files {
            let on_disk = std::fs::read(repo.join(rel)).unwrap_or_default();
            assert!(&on_disk == bytes, "{rel} differs from the committed file");
        }
    }
}
