//! Regeneration of the whole corpus: build every area, check ids, audit overrides and
//! requirement citations, **assert that the reference agrees** with every case, render
//! byte-deterministic files, write them ([`generate`]) or diff them against a directory
//! ([`check`]).
//!
//! Split from [`crate::generate`] (the framework area authors write against) so that the
//! areas depend on the framework and this driver depends on both, with no circle.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use delegateos_reference::ops;

use crate::areas::AREAS;
use crate::export;
use crate::format::VectorFile;
use crate::generate::{build_area, RETIRED_IDS};
use crate::judge::{judge, judge_reference, unified_diff, ActualOutcome, Verdict};
use crate::keys::Keys;
use crate::load::collect_json;
use crate::requirements::Requirements;

/// One case on which the reference disagrees with its expectation.
#[derive(Debug, Clone)]
pub struct Disagreement {
    /// Case id.
    pub id: String,
    /// Unified diff, expected → reference.
    pub diff: String,
}

/// The generator failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum GenError {
    /// Area definitions are inconsistent (duplicate or retired ids, unknown flags, …).
    Build(Vec<String>),
    /// The reference disagrees with these cases.
    Disagreement(Vec<Disagreement>),
    /// A file could not be read or written.
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A file could not be serialized.
    Serialize(String),
    /// The output directory holds `.json` files that are not vector files, which a corpus
    /// loader would read (and reject): nothing is deleted that the generator did not write.
    Foreign(Vec<PathBuf>),
}

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Build(errors) => {
                writeln!(f, "vector definitions are inconsistent:")?;
                for e in errors {
                    writeln!(f, "  {e}")?;
                }
                Ok(())
            }
            Self::Disagreement(cases) => {
                let ids: Vec<&str> = cases.iter().map(|d| d.id.as_str()).collect();
                writeln!(
                    f,
                    "the reference disagrees with {} case(s): {}",
                    cases.len(),
                    ids.join(", ")
                )?;
                for d in cases {
                    writeln!(f, "--- {}\n{}", d.id, d.diff)?;
                }
                Ok(())
            }
            Self::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Self::Serialize(e) => write!(f, "cannot serialize a vector file: {e}"),
            Self::Foreign(paths) => {
                writeln!(
                    f,
                    "the output directory holds {} .json file(s) that are not vector files; \
                     a corpus loader would read and reject them. Move them elsewhere:",
                    paths.len()
                )?;
                for p in paths {
                    writeln!(f, "  {}", p.display())?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for GenError {}

/// A generated file: its path relative to the output directory and its exact bytes.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// `<area>/<group>.json`.
    pub relative_path: PathBuf,
    /// The file content (sorted keys, 2-space indent, trailing newline).
    pub text: String,
    /// Number of cases in the file.
    pub cases: usize,
}

/// What [`generate`] wrote.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Files written, relative to the output directory.
    pub files: Vec<PathBuf>,
    /// Total number of cases.
    pub cases: usize,
    /// Vector files of groups the generator no longer produces, removed (relative paths).
    pub removed: Vec<PathBuf>,
}

/// Builds every registered area into vector files, without checking the reference.
pub fn build_all() -> Result<Vec<VectorFile>, GenError> {
    let keys = Keys::fixed();
    let mut errors = Vec::new();
    let mut files = Vec::new();
    let mut area_names = BTreeSet::new();
    for def in AREAS {
        if !area_names.insert(def.name) {
            errors.push(format!("area {:?} registered twice", def.name));
        }
        files.extend(build_area(def, &keys, &mut errors));
    }
    check_ids(&files, &mut errors);
    check_requirements(&files, &mut errors);
    check_audit(&files, &mut errors);
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(GenError::Build(errors))
    }
}

fn check_ids(files: &[VectorFile], errors: &mut Vec<String>) {
    let retired: BTreeSet<&str> = RETIRED_IDS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let mut seen = BTreeSet::new();
    for case in files.iter().flat_map(|f| &f.cases) {
        if !seen.insert(case.id.as_str()) {
            errors.push(format!("{}: id used twice", case.id));
        }
        if retired.contains(case.id.as_str()) {
            errors.push(format!(
                "{}: id is retired (vectors/RETIRED-IDS.txt)",
                case.id
            ));
        }
    }
}

/// Every case the ground files name must exist (a renumbered case must not lose its
/// statement), and
/// every case uses an operation of `spec/operations.md`.
fn check_audit(files: &[VectorFile], errors: &mut Vec<String>) {
    let ids: BTreeSet<&str> = files
        .iter()
        .flat_map(|f| &f.cases)
        .map(|c| c.id.as_str())
        .collect();
    errors.extend(crate::grounds::data_errors());
    for id in crate::grounds::listed_ids() {
        if !ids.contains(id.as_str()) {
            errors.push(format!(
                "{id}: has a ground in vectors/src/areas/data/grounds/ but is not built"
            ));
        }
    }
    let ops = crate::operations::names();
    for case in files.iter().flat_map(|f| &f.cases) {
        if !ops.contains(&case.op.as_str()) {
            errors.push(format!(
                "{}: unknown operation {:?} (spec/operations.md)",
                case.id, case.op
            ));
        }
    }
}

/// Every cited requirement id must exist in `spec/data/requirements.json` (the copy embedded at
/// build time), so coverage reports never count a typo.
fn check_requirements(files: &[VectorFile], errors: &mut Vec<String>) {
    let known = Requirements::embedded();
    for case in files.iter().flat_map(|f| &f.cases) {
        for id in &case.requirements {
            if known.get(id).is_none() {
                errors.push(format!("{}: unknown requirement id {id:?}", case.id));
            }
        }
    }
}

/// Runs every case through the reference in-process and returns the disagreements.
pub fn reference_disagreements(files: &[VectorFile]) -> Vec<Disagreement> {
    let mut out = Vec::new();
    for case in files.iter().flat_map(|f| &f.cases) {
        let outcome = ops::run(&case.op, &case.input);
        let actual = ActualOutcome::from(&outcome);
        if let Verdict::Failed { diff, .. } = judge_reference(&case.expect, &actual) {
            let note = match judge(&case.expect, &actual) {
                Verdict::Acceptable { matched } => format!(
                    "(the reference gives acceptable outcome {matched}, not its own reading, \
                     outcome 0)\n"
                ),
                _ => String::new(),
            };
            out.push(Disagreement {
                id: case.id.clone(),
                diff: format!("{note}{diff}"),
            });
        }
    }
    out
}

/// Serializes a file byte-deterministically: sorted keys, 2-space indent, trailing newline.
pub fn render(file: &VectorFile) -> Result<String, GenError> {
    let value = serde_json::to_value(file).map_err(|e| GenError::Serialize(e.to_string()))?;
    let mut text = serde_json::to_string_pretty(&crate::format::sorted(value))
        .map_err(|e| GenError::Serialize(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// Builds, checks against the reference, and renders every file (nothing is written).
pub fn render_all() -> Result<Vec<Rendered>, GenError> {
    let files = build_all()?;
    let disagreements = reference_disagreements(&files);
    if !disagreements.is_empty() {
        return Err(GenError::Disagreement(disagreements));
    }
    let mut rendered = files
        .iter()
        .map(|file| {
            Ok(Rendered {
                relative_path: Path::new(&file.area).join(format!("{}.json", file.group)),
                text: render(file)?,
                cases: file.cases.len(),
            })
        })
        .collect::<Result<Vec<_>, GenError>>()?;
    // The corpus's metadata (crate::export): the manifest over the files in path order, and
    // the published keys.
    let mut by_path: Vec<(String, &str)> = rendered
        .iter()
        .map(|r| {
            (
                r.relative_path.to_string_lossy().replace('\\', "/"),
                r.text.as_str(),
            )
        })
        .collect();
    by_path.sort();
    let manifest = export::manifest_json(by_path.iter().map(|(p, t)| (p.as_str(), t.as_bytes())));
    rendered.push(Rendered {
        relative_path: PathBuf::from("manifest.json"),
        text: manifest,
        cases: 0,
    });
    rendered.push(Rendered {
        relative_path: PathBuf::from("keys.json"),
        text: export::keys_json(),
        cases: 0,
    });
    Ok(rendered)
}

/// Generates every vector file into `out_dir` (`<out_dir>/<area>/<group>.json`).
///
/// Files are written only if every case passes the reference. Afterwards the directory holds
/// exactly the generated corpus: vector files (`"schema": "delegateos-vectors/1"`) of groups
/// the generator no longer produces are removed, so a loader never reads a stale group. A
/// `.json` file that is not a vector file is never deleted: if one sits where a loader would
/// read it, nothing is written and [`GenError::Foreign`] lists it.
pub fn generate(out_dir: &Path) -> Result<Summary, GenError> {
    let rendered = render_all()?;
    let mut summary = Summary::default();
    let expected: BTreeSet<&Path> = rendered.iter().map(|f| f.relative_path.as_path()).collect();
    let mut on_disk = Vec::new();
    collect_json(out_dir, out_dir, &mut on_disk).map_err(|source| GenError::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let (stale_vectors, foreign): (Vec<PathBuf>, Vec<PathBuf>) = on_disk
        .into_iter()
        .filter(|p| !expected.contains(p.as_path()))
        .partition(|p| is_vector_file(&out_dir.join(p)));
    if !foreign.is_empty() {
        return Err(GenError::Foreign(foreign));
    }
    for stale in stale_vectors {
        let path = out_dir.join(&stale);
        std::fs::remove_file(&path).map_err(|source| GenError::Io { path, source })?;
        summary.removed.push(stale);
    }
    for file in rendered {
        let path = out_dir.join(&file.relative_path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| GenError::Io {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        // Skip identical files so regeneration does not touch mtimes needlessly.
        if std::fs::read_to_string(&path).ok().as_deref() != Some(file.text.as_str()) {
            std::fs::write(&path, &file.text).map_err(|source| GenError::Io {
                path: path.clone(),
                source,
            })?;
        }
        summary.cases += file.cases;
        summary.files.push(file.relative_path);
    }
    Ok(summary)
}

/// True if `path` is a file of the vector format (its top-level `schema` names it), the only
/// kind of file [`generate`] may delete.
fn is_vector_file(path: &Path) -> bool {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .is_some_and(|v| v.get("schema").and_then(Value::as_str) == Some(crate::format::SCHEMA_ID))
}

/// How a directory differs from what the generator produces.
#[derive(Debug, Clone, Default)]
pub struct Stale {
    /// Files whose content differs, with a unified diff (on disk → generated).
    pub changed: Vec<(PathBuf, String)>,
    /// Generated files absent from the directory.
    pub missing: Vec<PathBuf>,
    /// `.json` files in the directory that the generator does not produce.
    pub extra: Vec<PathBuf>,
}

impl Stale {
    /// True if the directory is up to date.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.missing.is_empty() && self.extra.is_empty()
    }
}

impl fmt::Display for Stale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "vectors are stale: {} changed, {} missing, {} extra \
             (regenerate with `delegateos-conform vectors generate --out vectors`)",
            self.changed.len(),
            self.missing.len(),
            self.extra.len()
        )?;
        for path in &self.missing {
            writeln!(f, "missing: {}", path.display())?;
        }
        for path in &self.extra {
            writeln!(f, "extra (not generated): {}", path.display())?;
        }
        for (path, diff) in &self.changed {
            writeln!(f, "changed: {}\n{diff}", path.display())?;
        }
        Ok(())
    }
}

/// Why [`check`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum CheckError {
    /// Generation itself failed.
    Generate(GenError),
    /// The directory differs from the generator's output.
    Stale(Stale),
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Generate(e) => e.fmt(f),
            Self::Stale(s) => s.fmt(f),
        }
    }
}

impl std::error::Error for CheckError {}

/// Regenerates in memory and compares with `dir`; `Ok` carries the number of files checked
/// (the vector files, `manifest.json` and `keys.json`).
pub fn check(dir: &Path) -> Result<usize, CheckError> {
    let rendered = render_all().map_err(CheckError::Generate)?;
    let mut stale = Stale::default();
    let mut expected_paths = BTreeSet::new();
    for file in &rendered {
        expected_paths.insert(file.relative_path.clone());
        let path = dir.join(&file.relative_path);
        match std::fs::read_to_string(&path) {
            Ok(on_disk) if on_disk == file.text => {}
            Ok(on_disk) => {
                let name = file.relative_path.display().to_string();
                let diff = unified_diff(
                    &on_disk,
                    &file.text,
                    &format!("{name} (on disk)"),
                    &format!("{name} (generated)"),
                );
                stale.changed.push((file.relative_path.clone(), diff));
            }
            Err(_) => stale.missing.push(file.relative_path.clone()),
        }
    }
    let mut on_disk = Vec::new();
    collect_json(dir, dir, &mut on_disk).map_err(|source| {
        CheckError::Generate(GenError::Io {
            path: dir.to_path_buf(),
            source,
        })
    })?;
    stale.extra = on_disk
        .into_iter()
        .filter(|p| !expected_paths.contains(p))
        .collect();
    if stale.is_empty() {
        Ok(rendered.len())
    } else {
        Err(CheckError::Stale(stale))
    }
}
