//! The runner's view of a vector case and of a verdict, and the bridge to the vector layer.
//!
//! The runner, filters and reports need only a handful of fields per case, so they work on
//! [`Case`] (a flat, owned projection of one vector case plus its file header's area and
//! group). Loading and judging belong to the vector layer (`delegateos_vectors`); the functions
//! here are the single place that calls into it.

use std::path::PathBuf;

use serde_json::Value;

use crate::protocol::RunOutcome;
use delegateos_vectors::format::{Ground, Level, Stake};
use delegateos_vectors::outcome::Outcome;
use delegateos_vectors::{CorpusSource, Expectation};

/// One runnable case.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// Stable case id.
    pub id: String,
    /// Human description.
    pub description: String,
    /// Requirement ids it checks.
    pub requirements: Vec<String>,
    /// Flags (defined in the file's notes).
    pub flags: Vec<String>,
    /// `normative`, `decision` or `hardening` (its ground's).
    pub level: Level,
    /// What the expectation rests on (every corpus case has one; a fuzzer's mutation none).
    pub ground: Option<Ground>,
    /// What each failing direction lets an attacker do (every corpus case states it; a
    /// fuzzer's mutation inherits its seed's).
    pub stake: Option<Stake>,
    /// Operation name.
    pub op: String,
    /// Operation input.
    pub input: Value,
    /// The `expect` object as JSON (for reports).
    pub expect: Value,
    /// The typed expectation.
    pub expectation: Expectation,
    /// File header `area`.
    pub area: String,
    /// File header `group`.
    pub group: String,
    /// Vector file it came from.
    pub file: PathBuf,
    /// For a case of a stateful group (`"stateful": true` in its file), the group's
    /// `area/group`: the runner runs such cases in file order in a fresh adapter process, then
    /// replays them after a restart.
    pub sequence: Option<String>,
}

impl Case {
    /// An advisory case (neighbour profiles, `spec/neighbours.md`): its area is `advisory` or
    /// it carries the flag `Advisory`. Excluded under `--profile delegateos-v0.1`, reported in
    /// their own section under `strict`, and never part of the exit code unless
    /// `--fail-on-advisory`.
    pub fn is_advisory(&self) -> bool {
        self.area == "advisory"
            || self
                .flags
                .iter()
                .any(|f| f.eq_ignore_ascii_case("advisory"))
    }
}

/// Why the corpus could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CorpusError {
    /// Files that are unreadable or invalid (one line per problem).
    #[error("invalid vector files:\n{0}")]
    Invalid(String),
    /// The directory holds no vector files.
    #[error("no vector files (*.json) under {0}")]
    Empty(String),
}

/// Loads and schema-validates every vector file of `source` (in path order).
pub fn load_corpus(source: &CorpusSource) -> Result<Vec<Case>, CorpusError> {
    if let CorpusSource::Dir(dir) = source {
        if !dir.is_dir() {
            return Err(CorpusError::Invalid(format!(
                "{}: not a directory",
                dir.display()
            )));
        }
    }
    let files = source.load().map_err(|errors| {
        CorpusError::Invalid(errors.iter().map(ToString::to_string).collect::<String>())
    })?;
    if files.is_empty() {
        return Err(CorpusError::Empty(source.label()));
    }
    let mut cases = Vec::new();
    for loaded in files {
        let file = loaded.file;
        for c in file.cases {
            cases.push(Case {
                id: c.id,
                description: c.description,
                requirements: c.requirements,
                flags: c.flags,
                level: c.level,
                ground: Some(c.ground),
                stake: Some(c.stake),
                op: c.op,
                input: c.input,
                expect: serde_json::to_value(&c.expect).unwrap_or(Value::Null),
                expectation: c.expect,
                area: file.area.clone(),
                group: file.group.clone(),
                file: loaded.path.clone(),
                sequence: file
                    .stateful
                    .then(|| format!("{}/{}", file.area, file.group)),
            });
        }
    }
    Ok(cases)
}

/// The adapter outcome as the JSON the reports show next to the expectation
/// (the adapter reply's shape without `seq`).
pub fn outcome_json(outcome: &RunOutcome) -> Value {
    outcome.to_json()
}

/// Compares an adapter's reply with the expectation (the rule lives in
/// `delegateos_vectors::judge`): the case's [`Outcome`].
pub fn judge(case: &Case, outcome: &RunOutcome) -> Outcome {
    let verdict =
        delegateos_vectors::judge::judge_case(&case.op, &case.flags, &case.expectation, outcome);
    let output = match outcome {
        RunOutcome::Ok { output } => Some(output),
        _ => None,
    };
    Outcome::judged(verdict, output)
}
