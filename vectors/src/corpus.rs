//! The committed corpus, embedded at build time (see `build.rs`), and where a run's corpus
//! comes from.
//!
//! An installed `delegateos-conform` carries the corpus it was built with: `run` works in any
//! directory and never looks for a `vectors/` folder on disk (a user's project may have an
//! unrelated one). `--vectors DIR` selects a directory instead. Reports name the source: the
//! embedded corpus by version and digest, or the directory.

use std::path::{Path, PathBuf};

use delegateos_reference::crypto::blake2b256;

use crate::load::{load_dir, parse_file, LoadError, LoadedFile};

include!(concat!(env!("OUT_DIR"), "/corpus.rs"));

/// Where a run's vector files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CorpusSource {
    /// The corpus embedded in this binary.
    Embedded,
    /// Every `**/*.json` under a directory (a top-level `src/` and `spec/`, `manifest.json` and
    /// `keys.json` are skipped).
    Dir(PathBuf),
}

impl CorpusSource {
    /// `Dir(dir)` if given, else the embedded corpus.
    pub fn from_option(dir: Option<&Path>) -> Self {
        dir.map_or(Self::Embedded, |d| Self::Dir(d.to_path_buf()))
    }

    /// A one-line label for reports: `embedded delegateos-vectors 0.1.0 (51 files,
    /// blake2b-256 ab12…)` or the directory.
    pub fn label(&self) -> String {
        match self {
            Self::Embedded => format!(
                "embedded delegateos-vectors {} ({} files, blake2b-256 {})",
                env!("CARGO_PKG_VERSION"),
                FILES.len(),
                embedded_digest()
            ),
            Self::Dir(d) => match dir_identity(d) {
                Ok(id) => format!("{} ({})", d.display(), id.describe()),
                Err(e) => format!("{} (digest unknown: {e})", d.display()),
            },
        }
    }

    /// For a directory that no longer matches its `manifest.json`: what differs, for the first
    /// line of every report (`None` for the embedded corpus, a matching directory, or one
    /// without a manifest).
    pub fn warning(&self) -> Option<String> {
        match self {
            Self::Embedded => None,
            Self::Dir(d) => {
                let id = dir_identity(d).ok()?;
                let m = id.manifest.as_ref()?;
                (!m.differences.is_empty()).then(|| {
                    format!(
                        "corpus {} MODIFIED: differs from its manifest.json ({})",
                        d.display(),
                        m.summary()
                    )
                })
            }
        }
    }

    /// Loads and validates every file; all failures are returned together.
    pub fn load(&self) -> Result<Vec<LoadedFile>, Vec<LoadError>> {
        match self {
            Self::Embedded => load_embedded(),
            Self::Dir(d) => load_dir(d),
        }
    }
}

/// Loads the embedded files; paths are shown as `vectors/<area>/<group>.json`.
pub fn load_embedded() -> Result<Vec<LoadedFile>, Vec<LoadError>> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for (rel, bytes) in FILES {
        let path = Path::new("vectors").join(rel);
        match parse_file(&path, bytes) {
            Ok(file) => files.push(LoadedFile { path, file }),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

/// BLAKE2b-256 (hex) over every embedded file as `path NUL length(u64 LE) bytes`, in path
/// order: changes whenever any byte, name or file of the corpus changes.
pub fn embedded_digest() -> String {
    digest(FILES.iter().map(|(p, b)| (*p, *b)))
}

/// A vector directory checked against the `manifest.json` beside its files (the one
/// `vectors export` writes and the repository commits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirIdentity {
    /// The digest of [`embedded_digest`] over the directory's vector files.
    pub digest: String,
    /// Vector files.
    pub files: usize,
    /// The manifest check; `None` when the directory has no `manifest.json`.
    pub manifest: Option<ManifestCheck>,
}

/// A directory's files against its manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestCheck {
    /// The manifest's corpus version.
    pub version: String,
    /// Files that differ: `changed a/b.json`, `added …`, `removed …`; empty when every file
    /// and the digest match.
    pub differences: Vec<String>,
}

impl ManifestCheck {
    /// The differences, at most ten named.
    pub fn summary(&self) -> String {
        const SHOWN: usize = 10;
        let mut s = self
            .differences
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if self.differences.len() > SHOWN {
            s.push_str(&format!(", … {} more", self.differences.len() - SHOWN));
        }
        s
    }
}

impl DirIdentity {
    /// `delegateos-vectors 0.1.0, 51 files, blake2b-256 ab12…, matches its manifest`, or the
    /// modification, or `no manifest.json`.
    pub fn describe(&self) -> String {
        let head = format!("{} files, blake2b-256 {}", self.files, self.digest);
        match &self.manifest {
            None => format!("{head}, no manifest.json"),
            Some(m) if m.differences.is_empty() => format!(
                "delegateos-vectors {}, {head}, matches its manifest",
                m.version
            ),
            Some(m) => format!(
                "{head}, MODIFIED: differs from its manifest (delegateos-vectors {}): {}",
                m.version,
                m.summary()
            ),
        }
    }
}

/// Reads a vector directory's files (as `--vectors DIR` loads them), digests them and checks
/// them against `DIR/manifest.json` when there is one. A manifest that is not the manifest
/// format counts as every file differing from it.
pub fn dir_identity(dir: &Path) -> std::io::Result<DirIdentity> {
    let mut rel = Vec::new();
    crate::load::collect_json(dir, dir, &mut rel)?;
    let mut files: Vec<(String, Vec<u8>)> = Vec::with_capacity(rel.len());
    for r in rel {
        let bytes = std::fs::read(dir.join(&r))?;
        let name = r
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        files.push((name, bytes));
    }
    let digest_hex = digest(files.iter().map(|(p, b)| (p.as_str(), b.as_slice())));
    let manifest = match std::fs::read(dir.join("manifest.json")) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
        Ok(bytes) => Some(check_manifest(&bytes, &files, &digest_hex)),
    };
    Ok(DirIdentity {
        digest: digest_hex,
        files: files.len(),
        manifest,
    })
}

fn check_manifest(manifest: &[u8], files: &[(String, Vec<u8>)], digest_hex: &str) -> ManifestCheck {
    let m: serde_json::Value = serde_json::from_slice(manifest).unwrap_or_default();
    let version = m["version"].as_str().unwrap_or("?").to_owned();
    let listed: std::collections::BTreeMap<&str, &str> = m["file_list"]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|e| Some((e["path"].as_str()?, e["blake2b-256"].as_str()?)))
                .collect()
        })
        .unwrap_or_default();
    let mut differences = Vec::new();
    if listed.is_empty() {
        differences.push("manifest.json lists no files".to_owned());
    }
    for (path, bytes) in files {
        match listed.get(path.as_str()) {
            None => differences.push(format!("added {path}")),
            Some(h) if *h != hex::encode(blake2b256(bytes)) => {
                differences.push(format!("changed {path}"));
            }
            Some(_) => {}
        }
    }
    for path in listed.keys() {
        if !files.iter().any(|(p, _)| p == path) {
            differences.push(format!("removed {path}"));
        }
    }
    if differences.is_empty() && m["digest"]["hex"].as_str() != Some(digest_hex) {
        differences.push("the manifest's digest differs from its files'".to_owned());
    }
    ManifestCheck {
        version,
        differences,
    }
}

/// The digest of [`embedded_digest`] over any `(relative path, bytes)` sequence.
pub fn digest<'a>(files: impl Iterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut buf = Vec::new();
    for (path, bytes) in files {
        buf.extend_from_slice(path.as_bytes());
        buf.push(0);
        buf.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        buf.extend_from_slice(bytes);
    }
    hex::encode(blake2b256(&buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_directory_matches_its_manifest_and_an_edit_is_named() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let id = dir_identity(dir).unwrap();
        assert_eq!(id.digest, embedded_digest());
        assert_eq!(id.manifest.as_ref().map(|m| m.differences.len()), Some(0));
        // A copy with one file's byte changed, one file removed and one added.
        let tmp = std::env::temp_dir().join(format!("corpus-identity-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        for (rel, bytes) in FILES {
            let p = tmp.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
        std::fs::copy(dir.join("manifest.json"), tmp.join("manifest.json")).unwrap();
        let same = dir_identity(&tmp).unwrap();
        assert_eq!(same, id);
        let (changed, bytes) = FILES[0];
        let mut edited = bytes.to_vec();
        edited.push(b'\n');
        std::fs::write(tmp.join(changed), edited).unwrap();
        let (removed, _) = FILES[1];
        std::fs::remove_file(tmp.join(removed)).unwrap();
        std::fs::write(tmp.join("extra.json"), b"{}").unwrap();
        let other = dir_identity(&tmp).unwrap();
        assert_ne!(other.digest, id.digest);
        assert_eq!(
            other.manifest.unwrap().differences,
            [
                format!("changed {changed}"),
                "added extra.json".to_owned(),
                format!("removed {removed}")
            ]
        );
        let _ = std::fs::remove_dir_all(&tmp);
    }

    #[test]
    fn embedded_corpus_is_the_committed_directory() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut on_disk = Vec::new();
        crate::load::collect_json(dir, dir, &mut on_disk).unwrap();
        let embedded: Vec<PathBuf> = FILES.iter().map(|(p, _)| PathBuf::from(p)).collect();
        assert_eq!(embedded, on_disk);
        for (rel, bytes) in FILES {
            assert_eq!(std::fs::read(dir.join(rel)).unwrap(), *bytes, "{rel}");
        }
        assert!(FILES.len() > 40, "{} files", FILES.len());
    }

    #[test]
    fn embedded_files_load_and_digest_is_sensitive() {
        let files = load_embedded().unwrap();
        assert_eq!(files.len(), FILES.len());
        let d = embedded_digest();
        assert_eq!(d.len(), 64);
        let (p, b) = FILES[0];
        let changed =
            digest(std::iter::once((p, &b[1..])).chain(FILES[1..].iter().map(|(p, b)| (*p, *b))));
        assert_ne!(d, changed);
    }
}
