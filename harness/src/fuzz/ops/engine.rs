//! `fuzz --op OP`'s target of the differential loop ([`crate::fuzz::drive`]) for every
//! operation of the fuzz core's registry ([`super::REGISTRY`]): seeds from the corpus cases of
//! `OP`, the operation's structure-aware edits (re-signed per the drawn signing mode), the
//! reference's own answer as the expectation, the implementation through the runner, and each
//! disagreement graded by the severity model exactly as the run report grades a failing case
//! (the core's `grade_op` over `outcome::assess`).
use std::time::Instant;

use crate::fuzz::diff::{DiffConfig, DiffReport, Finding, FindingKind};
use crate::fuzz::drive::{self, classify, Judged, Target};
use crate::fuzz::triage::Signature;
use crate::runner::case::Case;
use crate::runner::{CaseResult, Status};
use delegateos_vectors::format::{self as vf, Expectation, Level, Severity};
use delegateos_vectors::fuzz::entropy::{Entropy, Rng};
use delegateos_vectors::fuzz::expect::{
    op_candidate as candidate, op_edits, OpCandidate as Candidate,
};
use delegateos_vectors::fuzz::finding::grade_op;
use delegateos_vectors::keys::Keys;
use delegateos_vectors::outcome;

/// The corpus cases of an operation as seeds (the core's).
pub use delegateos_vectors::fuzz::expect::{op_seeds as load_seeds, OpSeed};

fn runner_case(
    op: &str,
    id: String,
    c: &Candidate,
    seed: Option<&OpSeed>,
    e: &Expectation,
) -> Case {
    let requirements = seed.map(|s| s.requirements.clone()).unwrap_or_default();
    let flags = seed.map(|s| s.flags.clone()).unwrap_or_default();
    let level = seed.map_or(Level::Normative, |s| s.level);
    // An unmutated seed is its corpus case, with its ground and stated stake; a mutation is
    // differential: no case states it, so the severity model's rules grade it.
    let (ground, stake) = match seed {
        Some(s) if c.edits.is_empty() => (s.ground.clone(), s.stake.clone()),
        _ => (
            vf::Ground::Differential {
                level,
                reason: format!(
                    "a mutation of {}",
                    seed.map_or("no case", |s| s.origin.as_str())
                ),
            },
            delegateos_vectors::severity::model().rule_stake(op, &flags, &requirements, e),
        ),
    };
    Case::fuzzed(vf::Case {
        id,
        description: String::new(),
        requirements,
        flags,
        level,
        ground,
        stake,
        op: op.to_owned(),
        options: delegateos_vectors::options::needed_by(&c.input),
        input: c.input.clone(),
        expect: e.clone(),
    })
}

/// A new candidate: a random seed, its signing mode, and its edits ([`op_edits`]).
fn generate(op: &str, seeds: &[OpSeed], rng: &mut Rng, keys: &Keys) -> Candidate {
    let s = rng.below(seeds.len());
    let (signing, edits) = op_edits(op, rng, seeds.get(s), keys);
    candidate(op, seeds, s, edits, signing, keys)
}

/// An operation of the fuzz core's registry, edited by its mutator.
struct Operation<'a> {
    op: &'a str,
    seeds: Vec<OpSeed>,
    keys: Keys,
    seed: u64,
}

impl Target for Operation<'_> {
    type Candidate = Candidate;
    const UNIT: &'static str = "edit";

    fn batch(&self, b: usize, size: usize) -> Vec<Candidate> {
        let mut rng =
            Rng::new(self.seed ^ op_salt(self.op) ^ (b as u64).wrapping_mul(0xA076_1D64_78BD_642F));
        (0..size)
            .map(|_| generate(self.op, &self.seeds, &mut rng, &self.keys))
            .collect()
    }

    fn case(&self, i: usize, c: &Candidate) -> Option<Case> {
        let e = c.expectation.as_ref()?;
        let id = format!("fuzz-case-{i:04}");
        Some(runner_case(self.op, id, c, self.seeds.get(c.seed), e))
    }

    /// Graded as the run report grades a case ([`grade_op`]: an unmutated seed as its corpus
    /// case, a mutated one by its requirements' rule).
    fn judge(&self, c: &Candidate, r: &CaseResult) -> Judged {
        let kind = classify(r);
        let assessment = kind.and_then(|_| {
            grade_op(self.op, self.seeds.get(c.seed), c, |s| {
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
        Signature::of_op(kind, &c.edits, &c.reference, j.actual.as_ref(), direction)
    }

    fn severity(&self, _kind: FindingKind, _c: &Candidate, j: &Judged) -> Option<Severity> {
        j.assessment.as_ref().map(|a| a.severity)
    }

    fn changes(&self, c: &Candidate) -> usize {
        c.edits.len()
    }

    fn keeping(&self, c: &Candidate, keep: &[usize]) -> Candidate {
        let e = keep.iter().filter_map(|&i| c.edits.get(i).cloned());
        candidate(
            self.op,
            &self.seeds,
            c.seed,
            e.collect(),
            c.signing,
            &self.keys,
        )
    }

    fn finding(&self, kind: FindingKind, c: Candidate, j: Judged, sig: &Signature) -> Finding {
        let seed = self.seeds.get(c.seed);
        let a = j.assessment.as_ref();
        Finding::of_op(self.op, kind, seed, c, j.actual, j.message, a, sig)
    }
}

/// Runs the differential fuzzer on `op` (not `dct.verify`, see [`crate::fuzz::diff::run`]).
/// An operation without corpus seeds, or an adapter that cannot be started, is an error.
pub fn run(
    op: &str,
    config: &DiffConfig,
    progress: &mut dyn FnMut(&str),
) -> Result<DiffReport, String> {
    let started = Instant::now();
    let seeds = load_seeds(op, config.vectors.as_deref());
    if seeds.is_empty() {
        return Err(format!(
            "no corpus case of operation {op} to seed the fuzzer"
        ));
    }
    let target = Operation {
        op,
        seeds,
        keys: Keys::fixed(),
        seed: config.seed,
    };
    drive::run(&target, target.seeds.len(), config, started, progress).map_err(|e| e.to_string())
}

/// A per-operation constant mixed into the seed, so `--op a,b` does not replay one PRNG
/// stream on every operation.
fn op_salt(op: &str) -> u64 {
    op.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::ops::OPERATIONS;
    use delegateos_reference::ops::Outcome;
    use delegateos_vectors::differential::reference_code;
    use serde_json::Value;

    /// Same seed, same candidates (inputs and reference answers); never a panic.
    #[test]
    fn generation_is_deterministic_for_a_seed() {
        let keys = Keys::fixed();
        for op in OPERATIONS.iter().filter(|o| **o != "dct.verify") {
            let seeds = load_seeds(op, None);
            assert!(!seeds.is_empty(), "{op}: no seeds");
            let run = |seed: u64| -> Vec<(Value, String)> {
                let mut rng = Rng::new(seed);
                (0..40)
                    .map(|_| {
                        let c = generate(op, &seeds, &mut rng, &keys);
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
        for op in OPERATIONS.iter().filter(|o| **o != "dct.verify") {
            let seeds = load_seeds(op, None);
            let mut rng = Rng::new(3);
            let answers: Vec<String> = (0..200)
                .map(|_| match generate(op, &seeds, &mut rng, &keys).reference {
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
}
