//! The one differential loop of `delegateos-conform fuzz`, for every fuzzed operation: batches
//! of candidates through the implementation (via [`crate::runner::run`], which owns process
//! supervision: timeouts, crashes, restarts, protocol validation, and judging against the
//! reference's answer), the triage at the commit, minimization, grading and the finding list.
//! What differs per operation — how candidates are made, judged, keyed and graded — is the
//! fuzz core's registry entry of the operation, which [`super::ops::engine`], the one
//! `Target`, reads.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::pool::{self, Schedule};
use super::triage::{self, After, Next, Signature, Triage};
use crate::expected::ExpectedFailures;
use crate::runner::case::Case;
use crate::runner::{self, CaseResult, ErrorKind, Quiet, RunConfig, SetupError, Status};
use delegateos_vectors::format::Severity;
use delegateos_vectors::fuzz::finding::HARNESS;
pub use delegateos_vectors::fuzz::finding::{Finding, FindingKind};
use delegateos_vectors::severity::Assessment;

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

/// The implementation's answer on one candidate, as the loop reads it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Judged {
    /// The finding kind (`None`: agreed, skipped or not run).
    pub kind: Option<FindingKind>,
    /// What the implementation answered (`{"outcome": …}`), if anything.
    pub actual: Option<Value>,
    /// The runner's message.
    pub message: String,
    /// The severity model's assessment, when the target grades while judging.
    pub assessment: Option<Assessment>,
    /// Whether the implementation skipped the case.
    pub skipped: bool,
}

/// One fuzzed operation as the loop drives it.
pub(crate) trait Target: Sync {
    /// A generated case.
    type Candidate: Clone + Send + Sync;
    /// What the loop calls a change of a candidate in its progress lines.
    fn unit(&self) -> &'static str;

    /// The candidates of batch `b`: a function of the run's seed, the operation and `b` alone,
    /// so every number of workers explores the same batches ([`super::pool`]).
    fn batch(&self, b: usize, size: usize) -> Vec<Self::Candidate>;
    /// The runner case of candidate `c` (the `i`th of its batch; `None`: not run).
    fn case(&self, i: usize, c: &Self::Candidate) -> Option<Case>;
    /// The judgement of the runner's result on candidate `c`.
    fn judge(&self, c: &Self::Candidate, r: &CaseResult) -> Judged;
    /// The finding kind's identity of a disagreement.
    fn signature(&self, kind: FindingKind, c: &Self::Candidate, j: &Judged) -> Signature;
    /// Its severity before minimization (the triage upgrades a kind's example to a more
    /// severe one).
    fn severity(&self, kind: FindingKind, c: &Self::Candidate, j: &Judged) -> Option<Severity>;
    /// How many changes (mutations, edits) the candidate has.
    fn changes(&self, c: &Self::Candidate) -> usize;
    /// The candidate with only the changes at `keep`, in order.
    fn keeping(&self, c: &Self::Candidate, keep: &[usize]) -> Self::Candidate;
    /// The minimized finding, graded (not yet timed).
    fn finding(&self, kind: FindingKind, c: Self::Candidate, j: Judged, sig: &Signature)
        -> Finding;
}

/// Runs candidates through the implementation: one judgement per candidate.
fn run_batch<T: Target>(
    target: &T,
    cands: &[T::Candidate],
    config: &RunConfig,
) -> Result<Vec<Judged>, SetupError> {
    let mut index = Vec::new();
    let mut cases = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        if let Some(case) = target.case(i, c) {
            index.push(i);
            cases.push(case);
        }
    }
    let mut out = vec![Judged::default(); cands.len()];
    if cases.is_empty() {
        return Ok(out);
    }
    let run = runner::run(&cases, &ExpectedFailures::default(), config, &mut Quiet)?;
    for (r, &i) in run.results.iter().zip(&index) {
        if let (Some(slot), Some(c)) = (out.get_mut(i), cands.get(i)) {
            *slot = target.judge(c, r);
        }
    }
    Ok(out)
}

/// Drops changes while the same disagreement persists (same kind, reference outcome and
/// implementation outcome class; the changes may only shrink).
fn minimize<T: Target>(
    target: &T,
    c: T::Candidate,
    sig: &Signature,
    config: &RunConfig,
) -> (T::Candidate, Option<Judged>) {
    let same = |t: &T::Candidate, j: &Judged| {
        j.kind
            .is_some_and(|k| target.signature(k, t, j).same_class(sig))
    };
    let mut best = c;
    let mut judged = None;
    let n = target.changes(&best);
    if n <= triage::SUBSETS_UP_TO {
        // Every proper subset in one session, down to no change at all (a disagreement the
        // unmutated seed already shows is one kind, `seed`): the smallest that holds.
        let trials: Vec<T::Candidate> = triage::proper_subsets(n)
            .into_iter()
            .map(|keep| target.keeping(&best, &keep))
            .collect();
        if let Ok(results) = run_batch(target, &trials, config) {
            if let Some((t, j)) = trials.into_iter().zip(results).find(|(t, j)| same(t, j)) {
                return (t, Some(j));
            }
        }
        return (best, judged);
    }
    for _round in 0..8 {
        let n = target.changes(&best);
        if n == 0 {
            break;
        }
        let trials: Vec<T::Candidate> = (0..n)
            .map(|i| {
                let keep: Vec<usize> = (0..n).filter(|&k| k != i).collect();
                target.keeping(&best, &keep)
            })
            .collect();
        let Ok(results) = run_batch(target, &trials, config) else {
            break;
        };
        match trials.into_iter().zip(results).find(|(t, j)| same(t, j)) {
            Some((t, j)) => {
                best = t;
                judged = Some(j);
            }
            None => break,
        }
    }
    (best, judged)
}

/// A candidate's judgement, and its minimization when a worker did it ahead of the commit.
type Explored<C> = (Judged, Option<(C, Option<Judged>)>);

/// Runs the differential fuzzer on `target` (whose seeds number `seeds`). `progress` receives
/// one line per finding.
pub(crate) fn run<T: Target>(
    target: &T,
    seeds: usize,
    config: &DiffConfig,
    started: Instant,
    progress: &mut dyn FnMut(&str),
) -> Result<DiffReport, SetupError> {
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
    let minimize_timed = |c: T::Candidate, sig: &Signature| {
        let at = Instant::now();
        let min = minimize(target, c, sig, &run_config);
        lock().minimizing += at.elapsed();
        min
    };
    // A worker runs a batch, then minimizes ahead what the triage would minimize as it stands
    // ([`super::triage`]).
    let explore = |batch: &[T::Candidate]| -> Result<Vec<Explored<T::Candidate>>, SetupError> {
        let results = run_batch(target, batch, &run_config)?;
        Ok(batch
            .iter()
            .zip(results)
            .map(|(c, j)| {
                let ahead = j.kind.and_then(|kind| {
                    let sig = target.signature(kind, c, &j);
                    let fresh = lock().would_minimize(&sig);
                    fresh.then(|| minimize_timed(c.clone(), &sig))
                });
                (j, ahead)
            })
            .collect())
    };
    let build = |kind: FindingKind,
                 min: T::Candidate,
                 j: Judged,
                 found_after: Duration,
                 cases_before: usize,
                 sig: &Signature| Finding {
        found_after,
        cases_before,
        ..target.finding(kind, min, j, sig)
    };
    let mut findings: Vec<Finding> = Vec::new();
    let (mut cases, mut skipped) = (0, 0);
    // Hunt for new kinds for the whole duration: the finding cap bounds what is minimized and
    // written, never how long the search runs.
    let mut commit = |batch: Vec<T::Candidate>, results: Vec<Explored<T::Candidate>>| -> bool {
        for (c, (j, ahead)) in batch.into_iter().zip(results) {
            cases += 1;
            if j.skipped {
                skipped += 1;
            }
            let Some(kind) = j.kind else { continue };
            let sig = target.signature(kind, &c, &j);
            // A repeat graded more severe than the kind's example (another seed's stake) is
            // minimized and, if it stays that kind, becomes the example.
            let next =
                lock().before_minimizing(&sig, &mut findings, || target.severity(kind, &c, &j));
            if next == Next::Skip {
                continue;
            }
            let found_after = started.elapsed();
            let (min, min_judged) = ahead.unwrap_or_else(|| minimize_timed(c, &sig));
            // A minimized finding reports its own judgement (the reply and message of the input
            // it writes), or, where minimization found nothing smaller, the original's.
            let j = min_judged.unwrap_or(j);
            let final_sig = target.signature(kind, &min, &j);
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
            let changes = target.changes(&min);
            let finding = build(kind, min, j, found_after, cases, &final_sig);
            progress(&finding.announcement(findings.len() + 1, changes, target.unit()));
            findings.push(finding);
            if config.stop_on_first {
                return false;
            }
        }
        true
    };
    match pool::explore(
        &schedule,
        &|b, size| target.batch(b, size),
        &explore,
        &mut commit,
    ) {
        // Interrupted (SIGINT, SIGTERM, SIGHUP): the findings so far are reported and written;
        // the command exits 130.
        Ok(()) | Err(SetupError::Interrupted { .. }) => {}
        Err(e) => return Err(e),
    }
    let report = DiffReport::new(findings, &lock(), cases, skipped, seeds, started);
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
