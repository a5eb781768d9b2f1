//! Embeds the committed corpus: every `<area>/<group>.json` next to this manifest becomes an
//! entry of `FILES` in `$OUT_DIR/corpus.rs`, so an installed binary needs no source tree.
//! The crate's own `src/` (generator sources and data) and `spec/` (the spec files it embeds, a
//! link to the repository's `spec/` that `cargo package` turns into copies) are not corpus.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let mut files = Vec::new();
    // A new area directory must re-run this script too (cargo scans a watched directory; the
    // crate's own sources change the crate anyway).
    println!("cargo:rerun-if-changed={}", root.display());
    let mut areas: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    areas.sort();
    for area in areas {
        let skip = area
            .file_name()
            .is_some_and(|n| n == "src" || n == "target" || n == "spec");
        if !area.is_dir() || skip {
            continue;
        }
        // A directory added later must re-run this script.
        println!("cargo:rerun-if-changed={}", area.display());
        collect(&root, &area, &mut files);
    }
    files.sort();
    let mut out = String::new();
    embed(
        &mut out,
        "FILES",
        "The embedded corpus: `(relative path, bytes)`, sorted by path.",
        &files,
    );
    // The spec files this crate embeds or exports (`spec/` is a link to the repository's spec
    // folder; in a packaged crate it is a copy): every `*.md`, `*.json`, `*.txt` and `*.py`
    // under it (the upstream text and its quote checker are spec files too).
    let spec = root.join("spec");
    println!("cargo:rerun-if-changed={}", spec.display());
    let mut spec_files = Vec::new();
    collect_ext(&root, &spec, &["md", "json", "txt", "py"], &mut spec_files);
    spec_files.sort();
    embed(
        &mut out,
        "SPEC_FILES",
        "The spec files (`spec/**/*.{md,json,txt,py}`): `(relative path, bytes)`, sorted.",
        &spec_files,
    );
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("corpus.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        println!("cargo:warning=cannot write {}: {e}", dest.display());
        std::process::exit(1);
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// Appends `pub static NAME: &[(&str, &[u8])]` embedding `files` (relative to the manifest).
fn embed(out: &mut String, name: &str, doc: &str, files: &[PathBuf]) {
    let _ = writeln!(out, "/// {doc}\npub static {name}: &[(&str, &[u8])] = &[");
    for rel in files {
        let rel = rel.to_string_lossy().replace('\\', "/");
        let _ = writeln!(
            out,
            "    ({rel:?}, include_bytes!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/\", {rel:?}))),"
        );
    }
    out.push_str("];\n");
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    collect_ext(root, dir, &["json"], out);
}

fn collect_ext(root: &Path, dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in rd.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect_ext(root, &path, extensions, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
        {
            if let Ok(rel) = path.strip_prefix(root) {
                out.push(rel.to_path_buf());
            }
        }
    }
}
