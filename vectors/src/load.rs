//! Reading vector files: schema validation, typed decoding and file-level invariants.
//!
//! Used by the runner (every file under `vectors/`) and by the per-file tests. Every error
//! names the file, and for schema errors the JSON pointer of the offending value.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::format::VectorFile;

/// The JSON Schema of vector files, embedded so the harness binary is self-contained.
pub const VECTOR_SCHEMA: &str = include_str!("../spec/schemas/vector.schema.json");

/// A vector file and where it came from.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    /// Path as given (directory joined with the relative path).
    pub path: PathBuf,
    /// The decoded file.
    pub file: VectorFile,
}

/// A file could not be loaded; `problems` lists everything wrong with it.
#[derive(Debug, Clone)]
pub struct LoadError {
    /// The file.
    pub path: PathBuf,
    /// One line per problem.
    pub problems: Vec<String>,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for p in &self.problems {
            writeln!(f, "{}: {p}", self.path.display())?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

fn validator() -> Result<&'static jsonschema::Validator, String> {
    static VALIDATOR: OnceLock<Result<jsonschema::Validator, String>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let schema: Value = serde_json::from_str(VECTOR_SCHEMA)
                .map_err(|e| format!("vector.schema.json is not JSON: {e}"))?;
            jsonschema::validator_for(&schema)
                .map_err(|e| format!("vector.schema.json is not a valid schema: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Schema problems of a parsed vector file (empty if it conforms).
pub fn schema_problems(value: &Value) -> Vec<String> {
    match validator() {
        Ok(v) => v
            .iter_errors(value)
            .map(|e| format!("schema: at {:?}: {e}", e.instance_path().to_string()))
            .collect(),
        Err(e) => vec![e],
    }
}

/// Deserializes any JSON value, failing on the first object that repeats a key.
struct NoDuplicateKeys;

impl<'de> serde::Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicateKeysVisitor)
    }
}

struct NoDuplicateKeysVisitor;

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeysVisitor {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(NoDuplicateKeys)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = std::collections::BTreeSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format!("{key:?}")));
            }
            map.next_value::<NoDuplicateKeys>()?;
        }
        Ok(NoDuplicateKeys)
    }
}

/// Validates and decodes one file's bytes.
pub fn parse_file(path: &Path, bytes: &[u8]) -> Result<VectorFile, LoadError> {
    let fail = |problems: Vec<String>| LoadError {
        path: path.to_path_buf(),
        problems,
    };
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| fail(vec![format!("not JSON: {e}")]))?;
    // serde_json keeps the last of two equal keys silently; a vector file with duplicate keys
    // means different things to different loaders, so it is refused.
    if let Err(e) = serde_json::from_slice::<NoDuplicateKeys>(bytes) {
        return Err(fail(vec![format!("duplicate object key: {e}")]));
    }
    let problems = schema_problems(&value);
    if !problems.is_empty() {
        return Err(fail(problems));
    }
    let file: VectorFile =
        serde_json::from_value(value).map_err(|e| fail(vec![format!("not a vector file: {e}")]))?;
    let problems = invariant_problems(path, &file);
    if problems.is_empty() {
        Ok(file)
    } else {
        Err(fail(problems))
    }
}

/// Invariants the schema cannot express: counts, id prefixes, flags explained, file name.
pub fn invariant_problems(path: &Path, file: &VectorFile) -> Vec<String> {
    let mut problems = Vec::new();
    if file.number_of_cases != file.cases.len() {
        problems.push(format!(
            "numberOfCases is {} but there are {} cases",
            file.number_of_cases,
            file.cases.len()
        ));
    }
    if path.file_stem().and_then(|s| s.to_str()) != Some(file.group.as_str()) {
        problems.push(format!(
            "group {:?} does not match the file name",
            file.group
        ));
    }
    let prefix = format!("{}-{}-", file.area, file.group);
    let mut ids = std::collections::BTreeSet::new();
    for case in &file.cases {
        if !case.id.starts_with(&prefix) {
            problems.push(format!("{}: id does not start with {prefix:?}", case.id));
        }
        if !ids.insert(case.id.as_str()) {
            problems.push(format!("{}: duplicate id", case.id));
        }
        for flag in &case.flags {
            if !file.notes.contains_key(flag) {
                problems.push(format!("{}: flag {flag:?} has no entry in notes", case.id));
            }
        }
        // The level is read from the ground (issue 36): a file may not say otherwise.
        if case.level != case.ground.level() {
            problems.push(format!(
                "{}: level {} but its ground is {}",
                case.id,
                case.level.as_str(),
                case.ground.level().as_str()
            ));
        }
    }
    problems
}

/// Reads and validates one file.
pub fn load_file(path: &Path) -> Result<VectorFile, LoadError> {
    let bytes = std::fs::read(path).map_err(|e| LoadError {
        path: path.to_path_buf(),
        problems: vec![format!("cannot read: {e}")],
    })?;
    parse_file(path, &bytes)
}

/// Reads every `**/*.json` under `dir`, sorted by path; all failures are returned together.
pub fn load_dir(dir: &Path) -> Result<Vec<LoadedFile>, Vec<LoadError>> {
    let mut relative = Vec::new();
    if let Err(e) = collect_json(dir, dir, &mut relative) {
        return Err(vec![LoadError {
            path: dir.to_path_buf(),
            problems: vec![format!("cannot list: {e}")],
        }]);
    }
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for rel in relative {
        let path = dir.join(rel);
        match load_file(&path) {
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

/// Directories at a corpus root that are not corpus: the crate's own `src/` (generator sources
/// and data) and `spec/` (the spec files the crate embeds).
pub const ROOT_NON_CORPUS_DIRS: [&str; 2] = ["src", "spec"];

/// Files at a corpus root that describe the corpus rather than belong to it (written by
/// `vectors generate` and `vectors export`): the manifest and the published test keys.
pub const ROOT_METADATA_FILES: [&str; 2] = ["manifest.json", "keys.json"];

/// Every `*.json` under `dir`, relative to `root`, sorted, without the root's
/// [`ROOT_NON_CORPUS_DIRS`] and [`ROOT_METADATA_FILES`].
pub fn collect_json(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if dir == root && ROOT_NON_CORPUS_DIRS.contains(&name) {
                continue;
            }
            collect_json(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if dir == root && ROOT_METADATA_FILES.contains(&name) {
                continue;
            }
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        let path = Path::new("x/y.json");
        let err = parse_file(path, br#"{"a": [{"b": 1, "b": 2}]}"#).unwrap_err();
        assert!(err.problems[0].contains("duplicate object key"), "{err}");
        let err = parse_file(path, br#"{"schema": 1}"#).unwrap_err();
        assert!(
            err.problems.iter().all(|p| p.starts_with("schema:")),
            "{err}"
        );
    }
}
