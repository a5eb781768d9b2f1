//! `dct.verify`'s target of the differential loop ([`super::drive`]): mutate valid tokens,
//! re-sign, run both sides, compare, minimize, save.
//!
//! The reference runs in-process (`delegateos_reference::ops::run`); the implementation under
//! test runs through the adapter protocol via [`crate::runner::run`], which owns process
//! supervision (timeouts, crashes, restarts, protocol validation). Each batch of mutated cases
//! becomes runner cases whose expectation is the reference's outcome, so the runner's own
//! judge decides agreement: `failed` is a disagreement, `errored` a crash, hang, protocol
//! violation or adapter error. The mutations, the expectation and the grading are the fuzz
//! core's (`delegateos_vectors::fuzz`).

use std::time::Instant;

use serde_json::Value;

use super::drive::{self, classify, Judged, Target};
use super::triage::Signature;
use crate::runner::case::Case;
use crate::runner::{CaseResult, SetupError};
use delegateos_vectors::format::{self as vf, Expectation, Level, Severity};
use delegateos_vectors::fuzz::entropy::{Entropy, Rng};
use delegateos_vectors::fuzz::expect::{
    token_candidate as candidate, token_mutations, TokenCandidate as Candidate,
};
use delegateos_vectors::fuzz::finding::grade_token;
use delegateos_vectors::fuzz::mutate::Seed;
use delegateos_vectors::keys::Keys;

pub use super::drive::{write_findings, DiffConfig, DiffReport, Finding, FindingKind};
/// The `dct.verify` seeds (the core's [`delegateos_vectors::fuzz::expect::token_seeds`]).
pub use delegateos_vectors::fuzz::expect::token_seeds as load_seeds;

fn runner_case(
    id: String,
    input: Value,
    expectation: Expectation,
    flags: Vec<String>,
    level: Level,
) -> Case {
    let stake =
        delegateos_vectors::severity::model().rule_stake("dct.verify", &flags, &[], &expectation);
    Case::fuzzed(vf::Case {
        id,
        description: String::new(),
        requirements: Vec::new(),
        flags,
        level,
        // The expectation is the reference's answer on a mutated token: no case states it.
        ground: vf::Ground::Differential {
            level,
            reason: "a mutated token".to_owned(),
        },
        stake,
        op: "dct.verify".to_owned(),
        options: Vec::new(),
        input,
        expect: expectation,
    })
}

/// `dct.verify`: the builtin chains and the valid `dct` cases, mutated by the core's token
/// mutator.
struct Tokens {
    seeds: Vec<Seed>,
    keys: Keys,
    seed: u64,
}

impl Target for Tokens {
    type Candidate = Candidate;
    const UNIT: &'static str = "mutation";

    fn batch(&self, b: usize, size: usize) -> Vec<Candidate> {
        let mut rng = Rng::new(self.seed ^ (b as u64).wrapping_mul(0xA076_1D64_78BD_642F));
        (0..size)
            .map(|_| {
                let s = rng.below(self.seeds.len());
                let muts = token_mutations(&mut rng, self.seeds.get(s), &self.keys);
                candidate(&self.seeds, s, muts, &self.keys)
            })
            .collect()
    }

    fn case(&self, i: usize, c: &Candidate) -> Option<Case> {
        let e = c.expectation.as_ref()?;
        let (flags, level) = self
            .seeds
            .get(c.seed)
            .map(|s| (s.flags.clone(), s.level))
            .unwrap_or_default();
        Some(runner_case(
            format!("fuzz-case-{i:04}"),
            c.input.clone(),
            e.clone(),
            flags,
            level,
        ))
    }

    /// A skip is no finding and, for the token fuzzer, not counted.
    fn judge(&self, _c: &Candidate, r: &CaseResult) -> Judged {
        Judged {
            kind: classify(r),
            actual: r.actual.clone(),
            message: r.message.clone().unwrap_or_default(),
            ..Judged::default()
        }
    }

    fn signature(&self, kind: FindingKind, c: &Candidate, j: &Judged) -> Signature {
        Signature::of_token(kind, &c.mutations, &c.reference, j.actual.as_ref())
    }

    fn severity(&self, kind: FindingKind, c: &Candidate, j: &Judged) -> Option<Severity> {
        let level = self.seeds.get(c.seed).map_or(Level::Normative, |s| s.level);
        Some(
            grade_token(kind, level, &c.reference, j.actual.as_ref())
                .1
                .severity,
        )
    }

    fn changes(&self, c: &Candidate) -> usize {
        c.mutations.len()
    }

    fn keeping(&self, c: &Candidate, keep: &[usize]) -> Candidate {
        let m = keep.iter().filter_map(|&i| c.mutations.get(i).cloned());
        candidate(&self.seeds, c.seed, m.collect(), &self.keys)
    }

    /// The minimized candidate's reply when it has one; the first detection's message.
    fn merge(&self, original: Judged, minimized: Option<Judged>) -> Judged {
        Judged {
            actual: minimized.and_then(|m| m.actual).or(original.actual),
            ..original
        }
    }

    fn finding(&self, kind: FindingKind, c: Candidate, j: Judged, sig: &Signature) -> Finding {
        let seed = self.seeds.get(c.seed);
        Finding::of_token(kind, seed, c, j.actual, j.message, sig)
    }
}

/// Runs the differential fuzzer on `dct.verify`. `progress` receives one line per finding.
pub fn run(config: &DiffConfig, progress: &mut dyn FnMut(&str)) -> Result<DiffReport, SetupError> {
    let started = Instant::now();
    let keys = Keys::fixed();
    let target = Tokens {
        seeds: load_seeds(config.vectors.as_deref(), &keys),
        keys,
        seed: config.seed,
    };
    drive::run(&target, target.seeds.len(), config, started, progress)
}

#[cfg(test)]
mod tests {
    use super::*;
    use delegateos_vectors::format::Severity;
    use delegateos_vectors::fuzz::mutate::{self, Mutation};
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn a_finding_is_a_valid_replayable_vector_file() {
        let keys = Keys::fixed();
        let seeds = mutate::builtin_seeds(&keys);
        let mutations = vec![Mutation::Encode {
            encoding: mutate::Encoding::Padding,
        }];
        let c = candidate(&seeds, 0, mutations.clone(), &keys);
        let finding = Finding {
            kind: FindingKind::Disagreement,
            op: "dct.verify".to_owned(),
            origin: "builtin-0".to_owned(),
            requirements: Vec::new(),
            mutations,
            edits: Vec::new(),
            input: c.input,
            reference: c.reference,
            expectation: c.expectation,
            actual: Some(json!({"outcome": "ok", "output": {}})),
            message: String::new(),
            found_after: Duration::from_millis(1),
            cases_before: 1,
            level: Level::Normative,
            severity: Severity::High,
            effect: "lenient-input".to_owned(),
            report_key: String::new(),
            key: "disagreement: reference malformed_token / implementation accepted / token:x"
                .to_owned(),
            hits: 1,
        };
        let report = DiffReport {
            cases: 1,
            findings: vec![finding],
            seeds: seeds.len(),
            ..DiffReport::empty()
        };
        let dir = std::env::temp_dir().join(format!("dos-fuzz-findings-{}", std::process::id()));
        let paths = write_findings(&dir, &report).unwrap();
        assert_eq!(paths.len(), 1);
        let file = delegateos_vectors::load::load_file(&paths[0]).unwrap();
        assert_eq!(file.cases[0].flags, vec!["DifferentialFinding".to_owned()]);
        assert!(matches!(
            &file.cases[0].expect,
            Expectation::Invalid { code, .. } if code == "malformed_token"
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
