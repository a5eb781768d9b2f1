//! The differential loop of `fuzz --op OP` for the operations of [`super`]: seeds from the
//! corpus cases of `OP`, structure-aware edits, the reference's own answer
//! (`delegateos_reference::ops::run`) as the expectation, the implementation through the
//! runner (process supervision, protocol validation, judging), then findings deduplicated by
//! kind (operation × finding kind × reference outcome × implementation outcome class × fields
//! touched), minimized, and graded by the severity model exactly as the run report grades a
//! failing case ([`assess`]).

use std::sync::Mutex;
use std::time::Instant;

use delegateos_reference::ops::Outcome;
use serde_json::Value;

use crate::expected::ExpectedFailures;
use crate::findings::assess;
use crate::fuzz::diff::{classify, keep_more_severe, DiffConfig, DiffReport, Finding, FindingKind};
use crate::fuzz::pool::{self, Schedule};
use crate::fuzz::triage::{self, After, Next, Signature, Triage};
use crate::runner::case::Case;
use crate::runner::{self, Quiet, RunConfig, SetupError, Status};
use delegateos_vectors::differential::expectation_of;
use delegateos_vectors::format::{self as vf, Expectation, Level};
use delegateos_vectors::fuzz::entropy::{Entropy, Rng};
use delegateos_vectors::fuzz::expect::{
    op_candidate as candidate, op_edits, OpCandidate as Candidate,
};
use delegateos_vectors::keys::Keys;
use delegateos_vectors::severity::Assessment;

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

/// A candidate's judgement, and its minimization when a worker did it ahead of the commit.
type Explored = (Judged, Option<(Candidate, Option<Judged>)>);

/// Per candidate: kind, reply, message, assessment (`None`: agreed), and whether skipped.
struct Judged {
    kind: Option<FindingKind>,
    actual: Option<Value>,
    message: String,
    assessment: Option<Assessment>,
    skipped: bool,
}

fn run_batch(
    op: &str,
    seeds: &[OpSeed],
    cands: &[Candidate],
    config: &RunConfig,
) -> Result<Vec<Judged>, SetupError> {
    let mut index = Vec::new();
    let mut cases = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        if let Some(e) = &c.expectation {
            index.push(i);
            cases.push(runner_case(
                op,
                format!("fuzz-case-{i:04}"),
                c,
                seeds.get(c.seed),
                e,
            ));
        }
    }
    let mut out: Vec<Judged> = cands
        .iter()
        .map(|_| Judged {
            kind: None,
            actual: None,
            message: String::new(),
            assessment: None,
            skipped: false,
        })
        .collect();
    if cases.is_empty() {
        return Ok(out);
    }
    let run = runner::run(&cases, &ExpectedFailures::default(), config, &mut Quiet)?;
    for ((r, &i), case) in run.results.iter().zip(&index).zip(&cases) {
        if let Some(slot) = out.get_mut(i) {
            let kind = classify(r);
            // An unmutated seed is graded exactly as the run report grades that corpus case;
            // a mutated one without the seed's flags, which name the seed's own trap (as the
            // token fuzzer grades without them), by its requirements' rule.
            let mutated = cands.get(i).filter(|c| !c.edits.is_empty());
            // A mutated case's ground is differential, so it states no stake.
            let mut graded = case.clone();
            if let Some(c) = mutated {
                graded.flags = Vec::new();
                // What the mutation does is graded by the reference's own answer: a seed's
                // `valid` readings carried over (the outputs of the unmutated input) do not
                // make another refusal of a refused input a refusal of a valid one.
                if let Outcome::Error { .. } = &c.reference {
                    if let Some(e) = expectation_of(&c.reference) {
                        graded.expect = e;
                    }
                }
            }
            *slot = Judged {
                kind,
                actual: r.actual.clone(),
                message: r.message.clone().unwrap_or_default(),
                assessment: kind.and_then(|_| assess(&graded, r)),
                skipped: r.raw_status() == Status::Skipped,
            };
        }
    }
    Ok(out)
}

fn signature(kind: FindingKind, c: &Candidate, j: &Judged) -> Signature {
    let direction = j.assessment.as_ref().map(|a| a.direction);
    Signature::of_op(kind, &c.edits, &c.reference, j.actual.as_ref(), direction)
}

/// Drops edits one at a time while the same disagreement persists.
fn minimize(
    op: &str,
    seeds: &[OpSeed],
    c: Candidate,
    sig: &Signature,
    keys: &Keys,
    config: &RunConfig,
) -> (Candidate, Option<Judged>) {
    let mut best = c;
    let mut judged = None;
    if best.edits.len() <= triage::SUBSETS_UP_TO {
        // Every proper subset in one session: the smallest that holds.
        let trials: Vec<Candidate> = triage::proper_subsets(best.edits.len())
            .into_iter()
            .map(|keep| {
                let e = keep.iter().filter_map(|&i| best.edits.get(i).cloned());
                candidate(op, seeds, best.seed, e.collect(), best.signing, keys)
            })
            .collect();
        if let Ok(results) = run_batch(op, seeds, &trials, config) {
            let hit = trials
                .into_iter()
                .zip(results)
                .find(|(t, j)| j.kind.is_some_and(|k| signature(k, t, j).same_class(sig)));
            if let Some((t, j)) = hit {
                return (t, Some(j));
            }
        }
        return (best, judged);
    }
    for _round in 0..8 {
        if best.edits.is_empty() {
            break;
        }
        let trials: Vec<Candidate> = (0..best.edits.len())
            .map(|i| {
                let mut e = best.edits.clone();
                e.remove(i);
                candidate(op, seeds, best.seed, e, best.signing, keys)
            })
            .collect();
        let Ok(results) = run_batch(op, seeds, &trials, config) else {
            break;
        };
        let hit = trials
            .into_iter()
            .zip(results)
            .find(|(t, j)| j.kind.is_some_and(|k| signature(k, t, j).same_class(sig)));
        match hit {
            Some((t, j)) => {
                best = t;
                judged = Some(j);
            }
            None => break,
        }
    }
    (best, judged)
}

/// A new candidate: a random seed, its signing mode, and its edits ([`op_edits`]).
fn generate(op: &str, seeds: &[OpSeed], rng: &mut Rng, keys: &Keys) -> Candidate {
    let s = rng.below(seeds.len());
    let (signing, edits) = op_edits(op, rng, seeds.get(s), keys);
    candidate(op, seeds, s, edits, signing, keys)
}

/// The candidates of batch `b` (a function of the seed, the operation and `b` alone: every
/// number of workers explores the same batches).
fn batch_of(
    op: &str,
    seeds: &[OpSeed],
    seed: u64,
    b: usize,
    size: usize,
    keys: &Keys,
) -> Vec<Candidate> {
    let mut rng = Rng::new(seed ^ op_salt(op) ^ (b as u64).wrapping_mul(0xA076_1D64_78BD_642F));
    (0..size)
        .map(|_| generate(op, seeds, &mut rng, keys))
        .collect()
}

/// Runs the differential fuzzer on `op` (not `dct.verify`, see [`crate::fuzz::diff::run`]).
/// An operation without corpus seeds, or an adapter that cannot be started, is an error.
pub fn run(
    op: &str,
    config: &DiffConfig,
    progress: &mut dyn FnMut(&str),
) -> Result<DiffReport, String> {
    let started = Instant::now();
    let keys = Keys::fixed();
    let seeds = load_seeds(op, config.vectors.as_deref());
    if seeds.is_empty() {
        return Err(format!(
            "no corpus case of operation {op} to seed the fuzzer"
        ));
    }
    let run_config = RunConfig {
        timeout: config.timeout,
        ..RunConfig::new(config.command.clone())
    };
    let schedule = Schedule {
        jobs: config.jobs,
        batch: config.batch,
        max_cases: config.max_cases,
        deadline: started + config.duration,
    };
    let triage = Mutex::new(Triage::new(config.minimize_budget));
    let lock = || {
        triage
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    let minimize_timed = |c: Candidate, sig: &Signature| {
        let at = Instant::now();
        let min = minimize(op, &seeds, c, sig, &keys, &run_config);
        lock().minimizing += at.elapsed();
        min
    };
    // A worker runs a batch, then minimizes ahead what the triage would minimize as it stands
    // (`crate::fuzz::triage`).
    let explore = |batch: &[Candidate]| -> Result<Vec<Explored>, SetupError> {
        let results = run_batch(op, &seeds, batch, &run_config)?;
        Ok(batch
            .iter()
            .zip(results)
            .map(|(c, j)| {
                let ahead = j.kind.and_then(|kind| {
                    let sig = signature(kind, c, &j);
                    let fresh = lock().would_minimize(&sig);
                    fresh.then(|| minimize_timed(c.clone(), &sig))
                });
                (j, ahead)
            })
            .collect())
    };
    let build = |kind: FindingKind,
                 min: Candidate,
                 j: Judged,
                 found_after: std::time::Duration,
                 cases_before: usize,
                 sig: &Signature| {
        let seed = seeds.get(min.seed);
        let assessment = j.assessment.as_ref();
        Finding {
            found_after,
            cases_before,
            ..Finding::of_op(op, kind, seed, min, j.actual, j.message, assessment, sig)
        }
    };
    let mut findings: Vec<Finding> = Vec::new();
    let (mut cases, mut skipped) = (0, 0);
    let mut commit = |batch: Vec<Candidate>, results: Vec<Explored>| -> bool {
        for (c, (j, ahead)) in batch.into_iter().zip(results) {
            cases += 1;
            if j.skipped {
                skipped += 1;
            }
            let Some(kind) = j.kind else { continue };
            let sig = signature(kind, &c, &j);
            // A repeat graded more severe than the kind's example (another seed's stake) is
            // minimized and, if it stays that kind, becomes the example.
            let next = lock().before_minimizing(&sig, &mut findings, || {
                j.assessment.as_ref().map(|a| a.severity)
            });
            if next == Next::Skip {
                continue;
            }
            let found_after = started.elapsed();
            let (min, min_judged) = ahead.unwrap_or_else(|| minimize_timed(c, &sig));
            let j = min_judged.unwrap_or(j);
            let final_sig = signature(kind, &min, &j);
            let after =
                lock().after_minimizing(next, sig, &final_sig, &mut findings, config.max_findings);
            match after {
                After::Skip => continue,
                After::Upgrade(i) => {
                    let finding = build(kind, min, j, found_after, cases, &final_sig);
                    keep_more_severe(&mut findings, i, finding, &mut *progress);
                    continue;
                }
                After::New => {}
            }
            let n_edits = min.edits.len();
            let finding = build(kind, min, j, found_after, cases, &final_sig);
            progress(&finding.announcement(findings.len() + 1, n_edits, "edit"));
            findings.push(finding);
            if config.stop_on_first {
                return false;
            }
        }
        true
    };
    match pool::explore(
        &schedule,
        &|b, size| batch_of(op, &seeds, config.seed, b, size, &keys),
        &explore,
        &mut commit,
    ) {
        // Interrupted: the findings so far are reported and written; the command exits 130.
        Ok(()) | Err(SetupError::Interrupted { .. }) => {}
        Err(e) => return Err(e.to_string()),
    }
    let report = DiffReport::new(findings, &lock(), cases, skipped, seeds.len(), started);
    Ok(report)
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
    use delegateos_vectors::differential::reference_code;

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
