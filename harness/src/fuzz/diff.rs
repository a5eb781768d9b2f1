//! The differential fuzzing loop: mutate, re-sign, run both sides, compare, minimize, save.
//!
//! The reference runs in-process (`delegateos_reference::ops::run`); the implementation under
//! test runs through the adapter protocol via [`crate::runner::run`], which owns process
//! supervision (timeouts, crashes, restarts, protocol validation). Each batch of mutated cases
//! becomes runner cases whose expectation is the reference's outcome, so the runner's own
//! judge decides agreement: `failed` is a disagreement, `errored` a crash, hang, protocol
//! violation or adapter error.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::pool::{self, Schedule};
use super::triage::{self, After, Next, Signature, Triage};
use crate::expected::ExpectedFailures;
use crate::runner::case::Case;
use crate::runner::{self, ErrorKind, Quiet, RunConfig, SetupError, Status};
use delegateos_vectors::format::{self as vf, Expectation, Level};
use delegateos_vectors::fuzz::entropy::{Entropy, Rng};
use delegateos_vectors::fuzz::expect::{
    token_candidate as candidate, token_mutations, TokenCandidate as Candidate,
};
use delegateos_vectors::fuzz::finding::{grade_token, HARNESS};
use delegateos_vectors::fuzz::mutate::Seed;
use delegateos_vectors::keys::Keys;

/// The `dct.verify` seeds (the core's [`delegateos_vectors::fuzz::expect::token_seeds`]).
pub use delegateos_vectors::fuzz::expect::token_seeds as load_seeds;

/// Settings of one differential run.
#[derive(Debug, Clone)]
pub struct DiffConfig {
    /// Adapter command of the implementation under test (`sh -c`).
    pub command: String,
    /// Wall-clock budget.
    pub duration: Duration,
    /// PRNG seed (same seed, same seeds and mutations).
    pub seed: u64,
    /// Vector directory to take valid `dct.verify` cases from (`<dir>/dct/*.json`).
    pub vectors: Option<PathBuf>,
    /// Cases per adapter session.
    pub batch: usize,
    /// Per-case timeout.
    pub timeout: Duration,
    /// Keep (minimize and write) at most this many distinct findings; later distinct
    /// findings are counted in [`DiffReport::suppressed`], and the run goes on for the whole
    /// duration.
    pub max_findings: usize,
    /// Stop after this many cases (a fixed budget: with a fixed seed, a reproducible run).
    pub max_cases: Option<usize>,
    /// Stop at the first finding (time-to-detection measurements).
    pub stop_on_first: bool,
    /// Adapter processes exploring at once ([`super::pool`]).
    pub jobs: usize,
    /// Minimizations per class of disagreement ([`super::triage`]).
    pub minimize_budget: usize,
}

pub use delegateos_vectors::fuzz::finding::{Finding, FindingKind};

/// Summary of a differential run.
#[derive(Debug, Clone)]
pub struct DiffReport {
    /// Cases sent to the implementation (excluding minimization).
    pub cases: usize,
    /// Distinct findings, one per finding kind ([`Finding::key`]).
    pub findings: Vec<Finding>,
    /// Further cases that hit an already reported kind (counted in its [`Finding::hits`]).
    pub duplicates: usize,
    /// Distinct kinds past `max_findings` (counted, not minimized or written).
    pub suppressed: usize,
    /// Cases the implementation skipped (an operation its `hello` does not declare).
    pub skipped: usize,
    /// Seeds used.
    pub seeds: usize,
    /// Disagreements not minimized because their class's budget was spent.
    pub unclassified: usize,
    /// Minimizations run.
    pub minimizations: usize,
    /// Wall time spent minimizing.
    pub minimizing: Duration,
    /// Wall time.
    pub duration: Duration,
}

impl DiffReport {
    /// The report of a finished run; findings most severe first, then the most hit.
    pub(crate) fn new(
        mut findings: Vec<Finding>,
        triage: &Triage,
        cases: usize,
        skipped: usize,
        seeds: usize,
        started: std::time::Instant,
    ) -> DiffReport {
        findings.sort_by(|a, b| b.severity.cmp(&a.severity).then(b.hits.cmp(&a.hits)));
        DiffReport {
            cases,
            findings,
            duplicates: triage.duplicates,
            suppressed: triage.suppressed,
            skipped,
            seeds,
            unclassified: triage.unclassified,
            minimizations: triage.minimizations,
            minimizing: triage.minimizing,
            duration: started.elapsed(),
        }
    }

    /// An empty report (to add the operations' reports to).
    pub fn empty() -> DiffReport {
        DiffReport {
            cases: 0,
            findings: Vec::new(),
            duplicates: 0,
            suppressed: 0,
            skipped: 0,
            seeds: 0,
            unclassified: 0,
            minimizations: 0,
            minimizing: Duration::ZERO,
            duration: Duration::ZERO,
        }
    }
}

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

pub(crate) fn classify(result: &runner::CaseResult) -> Option<FindingKind> {
    match result.raw_status() {
        Status::Failed => Some(FindingKind::Disagreement),
        Status::OtherCode => Some(FindingKind::OtherCode),
        Status::Errored => Some(match result.error_kind() {
            // A throw is graded as a crash on the input, as `run` grades it.
            Some(ErrorKind::Crash | ErrorKind::Threw) => FindingKind::Crash,
            Some(ErrorKind::Timeout) => FindingKind::Timeout,
            Some(ErrorKind::ProtocolError) => FindingKind::ProtocolError,
            _ => FindingKind::Errored,
        }),
        _ => None,
    }
}

/// Per candidate: the finding kind (`None`: agreed or skipped), the actual reply, the message.
type BatchResult = (Option<FindingKind>, Option<Value>, String);

/// A candidate's result, and its minimization when a worker did it ahead of the commit.
type Explored = (BatchResult, Option<(Candidate, Option<Value>)>);

/// Runs candidates through the implementation; one kind (or `None`) per candidate.
fn run_batch(
    seeds: &[Seed],
    cands: &[Candidate],
    config: &RunConfig,
) -> Result<Vec<BatchResult>, SetupError> {
    let mut index = Vec::new();
    let mut cases = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        if let Some(e) = &c.expectation {
            let (flags, level) = seeds
                .get(c.seed)
                .map(|s| (s.flags.clone(), s.level))
                .unwrap_or_default();
            index.push(i);
            cases.push(runner_case(
                format!("fuzz-case-{i:04}"),
                c.input.clone(),
                e.clone(),
                flags,
                level,
            ));
        }
    }
    let mut out = vec![(None, None, String::new()); cands.len()];
    if cases.is_empty() {
        return Ok(out);
    }
    let run = runner::run(&cases, &ExpectedFailures::default(), config, &mut Quiet)?;
    for (r, &i) in run.results.iter().zip(&index) {
        if let Some(slot) = out.get_mut(i) {
            *slot = (
                classify(r),
                r.actual.clone(),
                r.message.clone().unwrap_or_default(),
            );
        }
    }
    Ok(out)
}

/// Drops mutations one at a time while the same disagreement persists (same kind, reference
/// outcome and implementation outcome class; the mutations may only shrink).
fn minimize(
    seeds: &[Seed],
    c: Candidate,
    sig: &Signature,
    keys: &Keys,
    config: &RunConfig,
) -> (Candidate, Option<Value>) {
    let mut best = c;
    let mut actual = None;
    let same = |t: &Candidate, (k, a, _): &BatchResult| {
        k.is_some_and(|k| {
            Signature::of_token(k, &t.mutations, &t.reference, a.as_ref()).same_class(sig)
        })
    };
    if best.mutations.len() <= triage::SUBSETS_UP_TO {
        // Every proper subset in one session, down to no mutation at all (a disagreement the
        // unmutated seed already shows is one kind, `seed`): the smallest that holds.
        let trials: Vec<Candidate> = triage::proper_subsets(best.mutations.len())
            .into_iter()
            .map(|keep| {
                let m = keep.iter().filter_map(|&i| best.mutations.get(i).cloned());
                candidate(seeds, best.seed, m.collect(), keys)
            })
            .collect();
        if let Ok(results) = run_batch(seeds, &trials, config) {
            if let Some((t, (_, a, _))) = trials.into_iter().zip(results).find(|(t, r)| same(t, r))
            {
                return (t, a);
            }
        }
        return (best, actual);
    }
    for _round in 0..8 {
        if best.mutations.is_empty() {
            break;
        }
        let trials: Vec<Candidate> = (0..best.mutations.len())
            .map(|i| {
                let mut m = best.mutations.clone();
                m.remove(i);
                candidate(seeds, best.seed, m, keys)
            })
            .collect();
        let Ok(results) = run_batch(seeds, &trials, config) else {
            break;
        };
        let hit = trials.into_iter().zip(results).find(|(t, r)| same(t, r));
        match hit {
            Some((t, (_, a, _))) => {
                best = t;
                actual = a;
            }
            None => break,
        }
    }
    (best, actual)
}

/// The candidates of batch `b` of a run seeded with `seed`: a function of both alone, so
/// every number of workers explores the same batches ([`super::pool`]).
fn batch_of(seeds: &[Seed], seed: u64, b: usize, size: usize, keys: &Keys) -> Vec<Candidate> {
    let mut rng = Rng::new(seed ^ (b as u64).wrapping_mul(0xA076_1D64_78BD_642F));
    (0..size)
        .map(|_| {
            let s = rng.below(seeds.len());
            let muts = token_mutations(&mut rng, seeds.get(s), keys);
            candidate(seeds, s, muts, keys)
        })
        .collect()
}

/// Runs the differential fuzzer. `progress` receives one line per finding.
pub fn run(config: &DiffConfig, progress: &mut dyn FnMut(&str)) -> Result<DiffReport, SetupError> {
    let started = Instant::now();
    let keys = Keys::fixed();
    let seeds = load_seeds(config.vectors.as_deref(), &keys);
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
        let min = minimize(&seeds, c, sig, &keys, &run_config);
        lock().minimizing += at.elapsed();
        min
    };
    // A worker runs a batch, then minimizes ahead what the triage would minimize as it stands.
    let explore = |batch: &[Candidate]| -> Result<Vec<Explored>, SetupError> {
        let results = run_batch(&seeds, batch, &run_config)?;
        Ok(batch
            .iter()
            .zip(results)
            .map(|(c, r)| {
                let ahead = r.0.and_then(|kind| {
                    let sig = Signature::of_token(kind, &c.mutations, &c.reference, r.1.as_ref());
                    let fresh = lock().would_minimize(&sig);
                    fresh.then(|| minimize_timed(c.clone(), &sig))
                });
                (r, ahead)
            })
            .collect())
    };
    let build = |kind: FindingKind,
                 min: Candidate,
                 actual: Option<Value>,
                 message: String,
                 found_after: Duration,
                 cases_before: usize,
                 sig: &Signature| {
        let seed = seeds.get(min.seed);
        Finding {
            found_after,
            cases_before,
            ..Finding::of_token(kind, seed, min, actual, message, sig)
        }
    };
    let mut findings: Vec<Finding> = Vec::new();
    let mut cases = 0;
    // Hunt for new kinds for the whole duration: the finding cap bounds what is minimized and
    // written, never how long the search runs.
    let mut commit = |batch: Vec<Candidate>, results: Vec<Explored>| -> bool {
        for (c, ((kind, actual, message), ahead)) in batch.into_iter().zip(results) {
            cases += 1;
            let Some(kind) = kind else { continue };
            let sig = Signature::of_token(kind, &c.mutations, &c.reference, actual.as_ref());
            // A repeat graded more severe than the kind's example (another seed's stake) is
            // minimized and, if it stays that kind, becomes the example.
            let next = lock().before_minimizing(&sig, &mut findings, || {
                let level = seeds.get(c.seed).map_or(Level::Normative, |s| s.level);
                Some(
                    grade_token(kind, level, &c.reference, actual.as_ref())
                        .1
                        .severity,
                )
            });
            if next == Next::Skip {
                continue;
            }
            let found_after = started.elapsed();
            let (min, min_actual) = ahead.unwrap_or_else(|| minimize_timed(c, &sig));
            let actual = min_actual.or(actual);
            let final_sig =
                Signature::of_token(kind, &min.mutations, &min.reference, actual.as_ref());
            let after =
                lock().after_minimizing(next, sig, &final_sig, &mut findings, config.max_findings);
            match after {
                After::Skip => continue,
                After::Upgrade(i) => {
                    let finding = build(kind, min, actual, message, found_after, cases, &final_sig);
                    keep_more_severe(&mut findings, i, finding, &mut *progress);
                    continue;
                }
                After::New => {}
            }
            let n_mutations = min.mutations.len();
            let finding = build(kind, min, actual, message, found_after, cases, &final_sig);
            progress(&finding.announcement(findings.len() + 1, n_mutations, "mutation"));
            findings.push(finding);
            if config.stop_on_first {
                return false;
            }
        }
        true
    };
    match pool::explore(
        &schedule,
        &|b, size| batch_of(&seeds, config.seed, b, size, &keys),
        &explore,
        &mut commit,
    ) {
        // Interrupted (SIGINT, SIGTERM, SIGHUP): the findings so far are reported and written;
        // the command exits 130.
        Ok(()) | Err(SetupError::Interrupted { .. }) => {}
        Err(e) => return Err(e),
    }
    let report = DiffReport::new(findings, &lock(), cases, 0, seeds.len(), started);
    Ok(report)
}

/// Makes `new` (a minimized instance of finding `index`'s kind) its example when it is more
/// severe; the kind's hits and first detection stay.
pub(crate) fn keep_more_severe(
    findings: &mut [Finding],
    index: usize,
    mut new: Finding,
    progress: &mut dyn FnMut(&str),
) {
    let Some(old) = findings.get_mut(index) else {
        return;
    };
    if new.severity <= old.severity {
        return;
    }
    progress(&format!(
        "kind #{} is {} {} on {} (was {} {} on {})",
        index + 1,
        new.severity.as_str(),
        new.effect,
        new.origin,
        old.severity.as_str(),
        old.effect,
        old.origin
    ));
    new.hits = old.hits;
    new.found_after = old.found_after;
    new.cases_before = old.cases_before;
    *old = new;
}

/// Writes every finding to `dir/finding-NNNN.json` (sorted-key pretty JSON); returns the paths.
pub fn write_findings(dir: &Path, report: &DiffReport) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut paths = Vec::new();
    for (i, f) in report.findings.iter().enumerate() {
        paths.push(f.write(dir, &format!("finding-{:04}", i + 1), &HARNESS)?);
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use delegateos_vectors::format::Severity;
    use delegateos_vectors::fuzz::mutate::{self, Mutation};
    use serde_json::json;

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
