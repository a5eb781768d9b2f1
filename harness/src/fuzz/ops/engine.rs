//! `fuzz --op OP`'s target of the differential loop ([`crate::fuzz::drive`]) for every
//! operation of the fuzz core's registry ([`super::REGISTRY`]), `dct.verify` among them: the
//! operation's seeds, its changes (token mutations, or structure-aware edits re-signed per the
//! drawn signing mode), the reference's own answer as the expectation, the implementation
//! through the runner, and each disagreement graded by the severity model as the core grades
//! it for the operation (`grade`: by the step the reference names, or by the reference's
//! answer — a refusal by what the corpus cites for it, an acceptance as the run report grades
//! the seed case where the seed is accepted too —, over `outcome::assess`).
use std::time::Instant;

use crate::fuzz::drive::{
    self, classify, DiffConfig, DiffReport, Finding, FindingKind, Judged, Target,
};
use crate::fuzz::triage::Signature;
use crate::runner::case::Case;
use crate::runner::{CaseResult, Status};
use delegateos_vectors::format::Severity;
use delegateos_vectors::fuzz::entropy::{Entropy, Rng};
use delegateos_vectors::fuzz::expect::{candidate, changes, fuzzed_case, Candidate};
use delegateos_vectors::fuzz::finding::grade;
use delegateos_vectors::keys::Keys;
use delegateos_vectors::outcome;

use super::Fuzzable;

/// The seeds of an operation (the core's).
pub use delegateos_vectors::fuzz::expect::seeds as load_seeds;
pub use delegateos_vectors::fuzz::seed::OpSeed;

/// A new candidate: a random seed and its changes ([`Fuzzable::random_changes`]).
fn generate(fz: &dyn Fuzzable, seeds: &[OpSeed], rng: &mut Rng, keys: &Keys) -> Candidate {
    let s = rng.below(seeds.len());
    let ch = changes(fz, rng, seeds.get(s), keys);
    candidate(fz, seeds, s, ch, keys)
}

/// An operation of the fuzz core's registry, changed by its mutator.
struct Operation {
    fz: &'static dyn Fuzzable,
    seeds: Vec<OpSeed>,
    keys: Keys,
    seed: u64,
}

impl Target for Operation {
    type Candidate = Candidate;

    fn unit(&self) -> &'static str {
        self.fz.grading().unit()
    }

    fn batch(&self, b: usize, size: usize) -> Vec<Candidate> {
        let salt = self.fz.stream_salt();
        let mut rng = Rng::new(self.seed ^ salt ^ (b as u64).wrapping_mul(0xA076_1D64_78BD_642F));
        (0..size)
            .map(|_| generate(self.fz, &self.seeds, &mut rng, &self.keys))
            .collect()
    }

    fn case(&self, i: usize, c: &Candidate) -> Option<Case> {
        let id = format!("fuzz-case-{i:04}");
        fuzzed_case(self.fz, id, c, self.seeds.get(c.seed)).map(Case::fuzzed)
    }

    /// Graded as the core grades the operation ([`grade`]: by the step the reference names,
    /// or by the reference's answer: unmutated as its corpus case; mutated, a refusal by the
    /// rule of the answer's requirements, an acceptance of its seed's where the seed is
    /// accepted too).
    fn judge(&self, c: &Candidate, r: &CaseResult) -> Judged {
        let kind = classify(r);
        let seed = self.seeds.get(c.seed);
        let assessment = kind.and_then(|k| {
            grade(self.fz, k, seed, c, r.actual.as_ref(), |s| {
                outcome::assess(s, &r.outcome)
            })
        });
        Judged {
            kind,
            actual: r.actual.clone(),
            message: r.message.clone().unwrap_or_default(),
            assessment,
            skipped: r.raw_status() == Status::Skipped,
        }
    }

    fn signature(&self, kind: FindingKind, c: &Candidate, j: &Judged) -> Signature {
        let direction = j.assessment.as_ref().map(|a| a.direction);
        Signature::of(self.fz, kind, c, j.actual.as_ref(), direction)
    }

    fn severity(&self, _kind: FindingKind, _c: &Candidate, j: &Judged) -> Option<Severity> {
        j.assessment.as_ref().map(|a| a.severity)
    }

    fn changes(&self, c: &Candidate) -> usize {
        c.changes()
    }

    fn keeping(&self, c: &Candidate, keep: &[usize]) -> Candidate {
        candidate(self.fz, &self.seeds, c.seed, c.keeping(keep), &self.keys)
    }

    fn finding(&self, kind: FindingKind, c: Candidate, j: Judged, sig: &Signature) -> Finding {
        let seed = self.seeds.get(c.seed);
        let a = j.assessment.as_ref();
        Finding::of(self.fz, kind, seed, c, j.actual, j.message, a, sig)
    }
}

/// Runs the differential fuzzer on `op`. An operation outside the registry or without
/// seeds, or an adapter that cannot be started, is an error.
pub fn run(
    op: &str,
    config: &DiffConfig,
    progress: &mut dyn FnMut(&str),
) -> Result<DiffReport, String> {
    let started = Instant::now();
    let fz = super::operation(op).ok_or_else(|| format!("operation {op} is not fuzzable"))?;
    let keys = Keys::fixed();
    let seeds = load_seeds(fz, config.vectors.as_deref(), &keys);
    if seeds.is_empty() {
        return Err(format!(
            "no corpus case of operation {op} to seed the fuzzer"
        ));
    }
    let target = Operation {
        fz,
        seeds,
        keys,
        seed: config.seed,
    };
    drive::run(&target, target.seeds.len(), config, started, progress).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::drive::write_findings;
    use crate::fuzz::ops::{operation, Changes, Signing, OPERATIONS};
    use delegateos_reference::ops::Outcome;
    use delegateos_vectors::differential::reference_code;
    use delegateos_vectors::format::{Expectation, Level};
    use delegateos_vectors::fuzz::mutate::{self, Mutation};
    use serde_json::{json, Value};
    use std::time::Duration;

    fn fuzzable(op: &str) -> &'static dyn Fuzzable {
        operation(op).unwrap_or_else(|| panic!("{op} is registered"))
    }

    /// Same seed, same candidates (inputs and reference answers); never a panic.
    #[test]
    fn generation_is_deterministic_for_a_seed() {
        let keys = Keys::fixed();
        for op in OPERATIONS.iter() {
            let fz = fuzzable(op);
            let seeds = load_seeds(fz, None, &keys);
            assert!(!seeds.is_empty(), "{op}: no seeds");
            let run = |seed: u64| -> Vec<(Value, String)> {
                let mut rng = Rng::new(seed);
                (0..40)
                    .map(|_| {
                        let c = generate(fz, &seeds, &mut rng, &keys);
                        (c.input, reference_code(&c.reference))
                    })
                    .collect()
            };
            let a = run(11);
            assert_eq!(a, run(11), "{op}");
            assert_ne!(a, run(12), "{op}: another seed, other candidates");
        }
    }

    /// Mutations reach more than one verdict: some candidates are accepted by the reference,
    /// and not all with the same answer (refused ones, or different outputs: `glob.match`
    /// never refuses, so its `matches` must vary).
    #[test]
    fn mutated_candidates_reach_several_verdicts() {
        let keys = Keys::fixed();
        for op in OPERATIONS.iter() {
            let fz = fuzzable(op);
            let seeds = load_seeds(fz, None, &keys);
            let mut rng = Rng::new(3);
            let answers: Vec<String> = (0..200)
                .map(|_| match generate(fz, &seeds, &mut rng, &keys).reference {
                    Outcome::Ok { output } => format!("ok {output}"),
                    other => reference_code(&other),
                })
                .collect();
            let ok = answers.iter().filter(|a| a.starts_with("ok")).count();
            let distinct: std::collections::BTreeSet<&String> = answers.iter().collect();
            assert!(ok > 0, "{op}: nothing accepted");
            assert!(distinct.len() > 1, "{op}: one answer for every candidate");
        }
    }

    #[test]
    fn a_token_finding_is_a_valid_replayable_vector_file() {
        let keys = Keys::fixed();
        let fz = fuzzable("dct.verify");
        let seeds = load_seeds(fz, None, &keys);
        let mutations = vec![Mutation::Encode {
            encoding: mutate::Encoding::Padding,
        }];
        let changes = Changes {
            signing: Signing::Resign,
            mutations: mutations.clone(),
            edits: Vec::new(),
        };
        let c = candidate(fz, &seeds, 0, changes, &keys);
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
