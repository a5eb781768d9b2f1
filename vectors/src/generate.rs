//! The vector generator framework: areas, groups, cases, byte-deterministic files.
//!
//! Area authors write one file in `areas/` with a `build(&mut Area)` function and add one
//! line to [`super::areas::AREAS`]. Inside, they open groups and add cases with explicit
//! numbers:
//!
//! ```ignore
//! pub fn build(area: &mut Area) {
//!     let k = area.keys().clone();
//!     let g = area.group("match", "Resource glob matching (§10.2, D1, D2).");
//!     g.case(1, "`/project/*` matches one segment", &["GLOB-STAR-SEGMENT"], &["SpecExample"],
//!            "glob.match", json!({"pattern": "/project/*", "resource": "/project/foo"}),
//!            Expectation::valid(json!({"matches": true})));
//! }
//! ```
//!
//! Ids are `<area>-<group>-<NNNN>` from the number the author passes; nothing is ever
//! renumbered, so adding a case never changes another case's id. Removing a case means adding
//! its id to `vectors/RETIRED-IDS.txt`; the generator refuses duplicated and retired ids.
//!
//! [`generate`] builds every area, **asserts that the reference agrees** with every case
//! (running it in-process through `delegateos_reference::ops::run` and [`judge`]; for an
//! `acceptable` case the reference must give the first outcome), and writes
//! `<out>/<area>/<group>.json`. A disagreement is an error naming the cases: the expectation
//! comes from how the case was built and what the spec says, so a disagreement is a bug to
//! investigate, never a vector to rewrite. [`check`] regenerates in memory and diffs against
//! a directory.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use delegateos_reference::faults::Faults;
use delegateos_reference::ops;

use crate::areas::AREAS;
use crate::audit;
use crate::flags;
use crate::format::{Case, Expectation, Generator, Level, Note, VectorFile, SCHEMA_ID};
use crate::judge::{judge, judge_reference, unified_diff, ActualOutcome, Verdict};
use crate::keys::Keys;
use crate::load::collect_json;
use crate::requirements::{self, Requirements};

/// `specVersion` of every file.
pub use crate::format::SPEC_VERSION;
/// `generator.name` of every file.
pub const GENERATOR_NAME: &str = "delegateos-conform vectors generate";
/// `generator.version` of every file: bump when the output of an unchanged area changes.
pub const GENERATOR_VERSION: &str = "1";

/// Ids that were published once and removed; they may never be used again.
const RETIRED_IDS: &str = include_str!("../RETIRED-IDS.txt");

/// One area generator: its directory name and its build function.
#[derive(Debug, Clone, Copy)]
pub struct AreaDef {
    /// Directory under `vectors/` and first component of every id.
    pub name: &'static str,
    /// Adds the area's groups and cases.
    pub build: fn(&mut Area),
}

/// The groups of one area under construction.
#[derive(Debug)]
pub struct Area {
    name: &'static str,
    keys: Keys,
    groups: Vec<Group>,
}

impl Area {
    fn new(name: &'static str, keys: Keys) -> Self {
        Self {
            name,
            keys,
            groups: Vec::new(),
        }
    }

    /// The fixed key set.
    pub fn keys(&self) -> &Keys {
        &self.keys
    }

    /// Opens group `name` (the file `vectors/<area>/<name>.json`).
    pub fn group(&mut self, name: &str, description: &str) -> &mut Group {
        let group = Group {
            area: self.name.to_owned(),
            name: name.to_owned(),
            description: description.to_owned(),
            cases: Vec::new(),
            local_notes: BTreeMap::new(),
            errors: Vec::new(),
        };
        if self.groups.iter().any(|g| g.name == name) {
            let mut dup = group;
            dup.errors.push(format!(
                "group {:?} opened twice in area {:?}",
                name, self.name
            ));
            self.groups.push(dup);
        } else {
            self.groups.push(group);
        }
        let last = self.groups.len() - 1;
        &mut self.groups[last]
    }
}

/// One behaviour group under construction (one vector file).
#[derive(Debug)]
pub struct Group {
    area: String,
    name: String,
    description: String,
    cases: Vec<Case>,
    local_notes: BTreeMap<String, Note>,
    errors: Vec<String>,
}

impl Group {
    /// Adds case number `number` (1..=9999): id `<area>-<group>-<NNNN>`.
    ///
    /// `requirements` are ids from `spec/requirements.md`; `flags` must be known (see
    /// [`flags`]) or defined with [`Group::define_flag`]; `op` is an operation of
    /// `spec/operations.md`. Problems are collected and reported by [`generate`].
    #[allow(clippy::too_many_arguments)] // Mirrors the case's fields one for one.
    pub fn case(
        &mut self,
        number: u16,
        description: &str,
        requirements: &[&str],
        flags: &[&str],
        op: &str,
        input: Value,
        expect: Expectation,
    ) -> &mut Self {
        let id = format!("{}-{}-{:04}", self.area, self.name, number);
        if !(1..=9999).contains(&number) {
            self.errors
                .push(format!("{id}: case numbers are 1..=9999, got {number}"));
        }
        let mut case = Case {
            id,
            description: description.to_owned(),
            requirements: requirements.iter().map(|s| (*s).to_owned()).collect(),
            flags: flags.iter().map(|s| (*s).to_owned()).collect(),
            level: Level::Normative,
            op: op.to_owned(),
            input,
            expect,
        };
        // The audit's case changes (spec/audit-v0.2.md §2), then the derived level.
        if let Err(e) = audit::amend(&mut case) {
            self.errors.push(e);
        }
        case.level = audit::level_of(&case);
        self.cases.push(case);
        self
    }

    /// Defines a flag used only by this group (shared flags belong in [`flags`]). Its level
    /// and severity come from the flag index of `spec/decisions.md`, which must list it.
    pub fn define_flag(
        &mut self,
        flag: &str,
        bug_type: &str,
        clause: &str,
        description: &str,
        effect: &str,
    ) -> &mut Self {
        match flags::index_row(flag) {
            Some(row) => {
                self.local_notes.insert(
                    flag.to_owned(),
                    Note {
                        bug_type: bug_type.to_owned(),
                        description: description.to_owned(),
                        clause: clause.to_owned(),
                        effect: effect.to_owned(),
                        level: row.level,
                        severity: row.severity,
                    },
                );
            }
            None => self.errors.push(format!(
                "flag {flag:?} (group {}) has no row in spec/decisions.md's Flag index",
                self.name
            )),
        }
        self
    }

    fn into_file(self, keys: &Keys, errors: &mut Vec<String>) -> VectorFile {
        errors.extend(self.errors);
        let mut notes = BTreeMap::new();
        for case in &self.cases {
            if case.requirements.is_empty() {
                errors.push(format!("{}: cites no requirement id", case.id));
            }
            if case.description.trim().is_empty() {
                errors.push(format!("{}: has no description", case.id));
            }
            if !case.input.is_object() {
                errors.push(format!("{}: input is not a JSON object", case.id));
            }
            for flag in &case.flags {
                match self
                    .local_notes
                    .get(flag)
                    .cloned()
                    .or_else(|| flags::note(flag))
                {
                    Some(note) => {
                        notes.insert(flag.clone(), note);
                    }
                    None => errors.push(format!("{}: unknown flag {flag:?}", case.id)),
                }
            }
            if let Expectation::Acceptable { outcomes, decision } = &case.expect {
                if outcomes.len() < 2 {
                    errors.push(format!("{}: acceptable needs ≥ 2 outcomes", case.id));
                }
                if case.flags.is_empty() {
                    errors.push(format!(
                        "{}: acceptable (decision {decision}) without a flag naming it",
                        case.id
                    ));
                }
            }
        }
        VectorFile {
            schema: SCHEMA_ID.to_owned(),
            spec_version: SPEC_VERSION.to_owned(),
            generator: Generator {
                name: GENERATOR_NAME.to_owned(),
                version: GENERATOR_VERSION.to_owned(),
            },
            area: self.area,
            group: self.name,
            description: self.description,
            keys: keys.header(),
            notes,
            number_of_cases: self.cases.len(),
            cases: self.cases,
        }
    }
}

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
        let mut area = Area::new(def.name, keys.clone());
        (def.build)(&mut area);
        for group in area.groups {
            files.push(group.into_file(&keys, &mut errors));
        }
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

/// Every case the audit names must exist (a renumbered case must not lose its change), and
/// every case uses an operation of `spec/operations.md`.
fn check_audit(files: &[VectorFile], errors: &mut Vec<String>) {
    let ids: BTreeSet<&str> = files
        .iter()
        .flat_map(|f| &f.cases)
        .map(|c| c.id.as_str())
        .collect();
    for id in audit::listed_ids() {
        if !ids.contains(id.as_str()) {
            errors.push(format!("{id}: listed by the audit but not built"));
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

/// Every cited requirement id must exist in `spec/requirements.md` (the copy embedded at
/// build time), so coverage reports never count a typo.
fn check_requirements(files: &[VectorFile], errors: &mut Vec<String>) {
    let known = Requirements::parse(requirements::EMBEDDED, "spec/requirements.md");
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
    let faults = Faults::none();
    let mut out = Vec::new();
    for case in files.iter().flat_map(|f| &f.cases) {
        let outcome = ops::run(&case.op, &case.input, &faults);
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
    let mut text = serde_json::to_string_pretty(&sorted(value))
        .map_err(|e| GenError::Serialize(e.to_string()))?;
    text.push('\n');
    Ok(text)
}

/// Recursively rebuilds objects with keys in byte order (independent of whether serde_json
/// was built with `preserve_order`).
fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted(v)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// Builds, checks against the reference, and renders every file (nothing is written).
pub fn render_all() -> Result<Vec<Rendered>, GenError> {
    let files = build_all()?;
    let disagreements = reference_disagreements(&files);
    if !disagreements.is_empty() {
        return Err(GenError::Disagreement(disagreements));
    }
    files
        .iter()
        .map(|file| {
            Ok(Rendered {
                relative_path: Path::new(&file.area).join(format!("{}.json", file.group)),
                text: render(file)?,
                cases: file.cases.len(),
            })
        })
        .collect()
}

/// Generates every vector file into `out_dir` (`<out_dir>/<area>/<group>.json`).
///
/// Files are written only if every case passes the reference; files of groups that no
/// longer exist are not deleted (run [`check`] to find them).
pub fn generate(out_dir: &Path) -> Result<Summary, GenError> {
    let rendered = render_all()?;
    let mut summary = Summary::default();
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

/// Regenerates in memory and compares with `dir`; `Ok` carries the number of files checked.
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
