//! The runner's view of a vector case and of a verdict, and the bridge to the vector layer.
//!
//! The runner, filters and reports need only a handful of fields per case, so they work on
//! [`Case`] (a flat, owned projection of one vector case plus its file header's area and
//! group). Loading and judging belong to the vector layer (`delegateos_vectors`); the functions
//! here are the single place that calls into it.

use std::path::PathBuf;

use serde_json::Value;

use crate::protocol::RunOutcome;
use delegateos_vectors::format::{self, Ground, Stake};
use delegateos_vectors::outcome::Outcome;
use delegateos_vectors::CorpusSource;

/// One runnable case: a vector case ([`format::Case`], whose fields it derefs to) with the
/// facts of its file the runner and the reports need.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The vector case: id, description, requirements, flags, level, ground, stake, op, input
    /// and the typed expectation (`expect`).
    pub case: format::Case,
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

impl std::ops::Deref for Case {
    type Target = format::Case;

    fn deref(&self) -> &format::Case {
        &self.case
    }
}

impl std::ops::DerefMut for Case {
    fn deref_mut(&mut self) -> &mut format::Case {
        &mut self.case
    }
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

    /// A fuzzer's case (in no vector file: area `fuzz`, group `differential`).
    pub fn fuzzed(case: format::Case) -> Self {
        Self {
            case,
            area: "fuzz".to_owned(),
            group: "differential".to_owned(),
            file: PathBuf::new(),
            sequence: None,
        }
    }

    /// The expectation as the JSON the reports show.
    pub fn expect_json(&self) -> Value {
        serde_json::to_value(&self.case.expect).unwrap_or(Value::Null)
    }

    /// The stake a failure of this case is graded with: the stated one, except for a
    /// differential case (a fuzzer's mutation, or its finding file replayed), whose input no
    /// case states — the severity model's rules grade it (`spec/severity.md` §8).
    pub fn stated_stake(&self) -> Option<&Stake> {
        match self.ground {
            Ground::Differential { .. } => None,
            _ => Some(&self.stake),
        }
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
                case: c,
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
        delegateos_vectors::judge::judge_case(&case.op, &case.flags, &case.expect, outcome);
    let output = match outcome {
        RunOutcome::Ok { output } => Some(output),
        _ => None,
    };
    Outcome::judged(verdict, output)
}
