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
            Self::Dir(d) => d.display().to_string(),
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
