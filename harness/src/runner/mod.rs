//! The driver: runs selected cases through an adapter process and records one result per case.
//!
//! This module owns the lifecycle described in `spec/adapter-protocol.md` §Lifecycle: start,
//! `hello`, one `run` at a time with a deadline, restart after any crash, hang or protocol
//! violation, `bye`. It guarantees that a run always finishes: each case ends as exactly one
//! [`Status`], whatever the adapter does. Judging is delegated to [`case::judge`]; rendering
//! to `crate::report`.

pub mod case;
pub mod interrupt;
pub mod process;
pub mod procfs;
pub mod starvation;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::expected::ExpectedFailures;
use crate::protocol::{
    self, parse_bye_reply, parse_hello_reply, parse_run_reply, Implementation, ProtocolError,
    Request, RunOutcome,
};
use case::Case;
use process::{AdapterProcess, ReadFailure};

/// Default per-case timeout.
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;
/// Default handshake timeout.
pub const DEFAULT_HELLO_TIMEOUT_MS: u64 = 10_000;
/// After this many consecutive errored cases the remaining cases are not sent.
pub const DEFAULT_MAX_CONSECUTIVE_ERRORS: usize = 20;

/// The default number of jobs: the cores this process may use (1 if unknown).
pub fn available_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// How to drive the adapter.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// Shell command started with `sh -c`.
    pub command: String,
    /// Per-case deadline.
    pub timeout: Duration,
    /// Deadline for the `hello` reply (each start and restart).
    pub hello_timeout: Duration,
    /// Longest accepted stdout line.
    pub max_line: usize,
    /// Consecutive errored cases before the rest are marked errored unsent (until the next
    /// undeclared operation); and faults with no reply since the start before every later
    /// case is (a broken adapter, not restarted again).
    pub max_consecutive_errors: usize,
    /// Adapter processes run at once (1: one case at a time; see [`run`]).
    pub jobs: usize,
}

impl RunConfig {
    /// A configuration with the documented defaults.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            timeout: Duration::from_millis(DEFAULT_TIMEOUT_MS),
            hello_timeout: Duration::from_millis(DEFAULT_HELLO_TIMEOUT_MS),
            max_line: protocol::MAX_LINE_BYTES,
            max_consecutive_errors: DEFAULT_MAX_CONSECUTIVE_ERRORS,
            jobs: 1,
        }
    }
}

/// The final status of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Matched the expectation.
    Passed,
    /// Matched an acceptable non-reference outcome.
    Acceptable,
    /// Did not match.
    Failed,
    /// Rejected as expected, with another code of the expected code's family
    /// (`spec/error-codes.md` §11): a hardening finding, never an acceptance.
    OtherCode,
    /// Not run: op unsupported or the adapter replied `skipped`.
    Skipped,
    /// Failed or errored, and listed in the expected-failures file.
    Xfail,
    /// Passed, but listed in the expected-failures file.
    Stale,
    /// No verdict: crash, timeout, protocol error, or the adapter reported `errored`.
    Errored,
}

impl Status {
    /// Every status, in report order.
    pub const ALL: [Status; 8] = [
        Status::Passed,
        Status::Failed,
        Status::OtherCode,
        Status::Skipped,
        Status::Acceptable,
        Status::Xfail,
        Status::Stale,
        Status::Errored,
    ];

    /// The snake_case name used in every report.
    pub fn name(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Acceptable => "acceptable",
            Status::Failed => "failed",
            Status::OtherCode => "other_code",
            Status::Skipped => "skipped",
            Status::Xfail => "xfail",
            Status::Stale => "stale",
            Status::Errored => "errored",
        }
    }
}

pub use delegateos_vectors::outcome::{ErrorKind, Outcome};

/// The result of one case.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseResult {
    /// Index into the case list given to [`run`].
    pub index: usize,
    /// Final status (after the expected-failures baseline).
    pub status: Status,
    /// What the adapter did, judged once (before the baseline).
    pub outcome: Outcome,
    /// What the adapter answered, as `{"result":…}` JSON.
    pub actual: Option<Value>,
    /// Skip reason, error message, or baseline reason.
    pub message: Option<String>,
    /// Adapter stderr tail captured when it errored.
    pub stderr_tail: Option<String>,
    /// Baseline entry reason, when one matched.
    pub expected_failure: Option<String>,
    /// Wall time spent on the case.
    pub duration: Duration,
}

impl CaseResult {
    /// An errored result with nothing recorded yet.
    fn errored(index: usize) -> Self {
        Self {
            index,
            status: Status::Errored,
            outcome: Outcome::Errored(ErrorKind::Unjudged),
            actual: None,
            message: None,
            stderr_tail: None,
            expected_failure: None,
            duration: Duration::ZERO,
        }
    }

    /// The status before the baseline was applied: the outcome's.
    pub fn raw_status(&self) -> Status {
        match self.outcome {
            Outcome::Passed => Status::Passed,
            Outcome::Acceptable => Status::Acceptable,
            Outcome::Failed { .. } => Status::Failed,
            Outcome::OtherCode { .. } => Status::OtherCode,
            Outcome::Skipped => Status::Skipped,
            Outcome::Errored(_) => Status::Errored,
        }
    }

    /// Why the case errored, if it did.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        match self.outcome {
            Outcome::Errored(kind) => Some(kind),
            _ => None,
        }
    }

    /// The unified diff of a failure or another code (expected → actual).
    pub fn diff(&self) -> Option<&str> {
        self.outcome.diff()
    }

    /// For a failed case: what kind of violation (wrong verdict, wrong code, output mismatch).
    pub fn failure_kind(&self) -> Option<delegateos_vectors::judge::FailureKind> {
        match self.outcome {
            Outcome::Failed { kind, .. } => Some(kind),
            _ => None,
        }
    }

    /// For another code of the family: the family.
    pub fn family(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::OtherCode { family, .. } => Some(family),
            _ => None,
        }
    }
}

/// A protocol violation or adapter crash, listed separately from conformance failures.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Incident {
    /// Case in flight, if any (`None` for the handshake or `bye`).
    pub case_id: Option<String>,
    /// `crash`, `timeout`, `protocol_error`, `handshake_failed`, `spawn_failed`, `bye`.
    pub kind: String,
    /// Details (for protocol errors, the violation).
    pub message: String,
    /// Last bytes of the adapter's stderr.
    pub stderr_tail: String,
}

/// Everything a run produced.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// Who answered the first handshake.
    pub implementation: Implementation,
    /// Operations the adapter declared.
    pub operations: Vec<String>,
    /// Options the adapter declared (`hello.options`).
    pub options: Vec<String>,
    /// Adapter processes run at once (the `--jobs` in force, at most one per unit).
    pub jobs: usize,
    /// With jobs > 1, the failing cases whose verdict differed when run again alone, in one
    /// fresh process ([`recheck_alone`]): the adapter is not safe to run in parallel.
    pub parallel_unsafe: Vec<ParallelUnsafe>,
    /// One result per case, in case order.
    pub results: Vec<CaseResult>,
    /// Protocol violations, crashes and timeouts.
    pub incidents: Vec<Incident>,
    /// Number of times the adapter was restarted.
    pub restarts: usize,
    /// Total wall time.
    pub duration: Duration,
    /// The signal that stopped the run early (`SIGINT`, …), if one did: the case in flight
    /// and the unsent ones are `errored` (`abandoned`) with an "interrupted" message.
    pub interrupted: Option<String>,
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    /// `sh -c <command>` could not be spawned.
    #[error("cannot start adapter `{command}`: {message}")]
    Spawn {
        /// The command.
        command: String,
        /// Cause.
        message: String,
    },
    /// The first handshake failed.
    #[error("adapter handshake failed: {message}{}", tail_suffix(.stderr_tail))]
    Handshake {
        /// Cause.
        message: String,
        /// Adapter stderr.
        stderr_tail: String,
    },
    /// A signal arrived before the adapter was handshaken ([`interrupt`]).
    #[error("interrupted by {signal}; no further case was run")]
    Interrupted {
        /// `SIGINT`, `SIGTERM`, `SIGHUP`.
        signal: String,
    },
}

fn tail_suffix(tail: &str) -> String {
    if tail.trim().is_empty() {
        String::new()
    } else {
        format!("\n--- adapter stderr (tail) ---\n{}", tail.trim_end())
    }
}

/// Receives progress while a run is under way (the progress bar).
pub trait Observer {
    /// Called once with the number of cases.
    fn start(&mut self, total: usize);
    /// Called after each case.
    fn case_done(&mut self, case: &Case, result: &CaseResult);
    /// Called once at the end.
    fn finish(&mut self);
}

/// An observer that does nothing.
#[derive(Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {
    fn start(&mut self, _: usize) {}
    fn case_done(&mut self, _: &Case, _: &CaseResult) {}
    fn finish(&mut self) {}
}

struct Live {
    process: AdapterProcess,
    next_seq: u64,
}

/// Starts the adapter and performs the handshake.
/// The environment variable giving an adapter process its worker index (0 to jobs − 1).
pub const WORKER_ENV: &str = "DELEGATEOS_CONFORM_WORKER";
/// The environment variable giving an adapter process the run's number of jobs.
pub const JOBS_ENV: &str = "DELEGATEOS_CONFORM_JOBS";

/// A run's scratch directory: one `worker-K` directory per worker, each adapter process's
/// `TMPDIR` (removed when the run ends).
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Self(std::env::temp_dir().join(format!("delegateos-conform-{}-{n}", std::process::id())))
    }

    /// `(worker index, jobs, its temporary directory)` as the adapter's environment.
    fn env(&self, worker: usize, jobs: usize) -> Vec<(&'static str, String)> {
        let dir = self.0.join(format!("worker-{worker}"));
        // A directory that cannot be made leaves TMPDIR as it was rather than failing the run.
        let mut env = vec![
            (WORKER_ENV, worker.to_string()),
            (JOBS_ENV, jobs.to_string()),
        ];
        if std::fs::create_dir_all(&dir).is_ok() {
            env.push(("TMPDIR", dir.display().to_string()));
        }
        env
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn start(
    config: &RunConfig,
    env: &[(&str, String)],
) -> Result<(Live, protocol::HelloReply), SetupError> {
    let mut process = AdapterProcess::spawn_with_env(&config.command, config.max_line, env)
        .map_err(|e| SetupError::Spawn {
            command: config.command.clone(),
            message: e.to_string(),
        })?;
    let deadline = Instant::now() + config.hello_timeout;
    let fail = |process: &mut AdapterProcess, message: String| {
        let stderr_tail = process.stderr_tail();
        process.kill();
        SetupError::Handshake {
            message,
            stderr_tail,
        }
    };
    process.send(Request::Hello.to_line(), deadline);
    match process.recv_line_within(config.hello_timeout).0 {
        Ok(line) => match parse_hello_reply(&line) {
            Ok(hello) => Ok((
                Live {
                    process,
                    next_seq: 1,
                },
                hello,
            )),
            Err(e) => Err(fail(
                &mut process,
                format!(
                    "invalid hello reply: {e}; the adapter printed {}",
                    protocol::quote_line(&line)
                ),
            )),
        },
        Err(ReadFailure::Timeout) => Err(fail(
            &mut process,
            format!(
                "no hello reply within {} ms. If the adapter is running, it may not flush \
                 stdout: flush after every reply or line-buffer stdout (python3 -u or \
                 PYTHONUNBUFFERED=1, fflush(stdout) or setvbuf in C, System.out.flush() in \
                 Java, stdbuf -oL for a wrapped command)",
                config.hello_timeout.as_millis()
            ),
        )),
        Err(ReadFailure::Exited(status)) => Err(fail(
            &mut process,
            format!(
                "adapter exited before replying to hello ({})",
                status.unwrap_or_else(|| "status unknown".to_owned())
            ),
        )),
        Err(ReadFailure::Protocol(e)) => {
            Err(fail(&mut process, format!("invalid hello reply: {e}")))
        }
    }
}

/// Runs `cases` through the adapter. Fails only if the adapter cannot be started and
/// handshaken once; afterwards every fault is recorded and the run continues.
///
/// With [`RunConfig::jobs`] above 1, that many adapter processes run at once, each with its own
/// process group, restarts and deadlines. The run is cut into *units* (one independent case,
/// or a whole stateful group, which stays in one worker, in order, with its replay); worker
/// `k` of N runs units `k`, `k + N`, `k + 2N`, … in that order, and the results are committed
/// in case order on this thread. Everything the report shows is decided at the commit, from
/// the results in case order alone — the consecutive-errors rule, the restart count, the
/// order of incidents — so the output is the same for every number of jobs apart from
/// timings. Which process answers which case is fixed by N, never by timing: an
/// implementation that carries state from one case into the next (a bug the corpus cannot
/// see case by case) still gives the same report on every run with the same N, and a report
/// that changes with N is that bug's sign (`docs`: `run --jobs`).
pub fn run(
    cases: &[Case],
    baseline: &ExpectedFailures,
    config: &RunConfig,
    observer: &mut dyn Observer,
) -> Result<RunOutput, SetupError> {
    let started = Instant::now();
    let interrupted_setup = || {
        interrupt::interrupted().map(|sig| SetupError::Interrupted {
            signal: interrupt::signal_name(sig),
        })
    };
    if let Some(e) = interrupted_setup() {
        return Err(e);
    }
    let units = units_of(cases);
    let jobs = config.jobs.clamp(1, units.len().max(1));
    let scratch = Scratch::new();
    let (first, hello) = match start(config, &scratch.env(0, jobs)) {
        Ok(started) => started,
        Err(e) => return Err(interrupted_setup().unwrap_or(e)),
    };
    let supported: BTreeSet<String> = hello.operations.iter().cloned().collect();
    let options: BTreeSet<String> = hello.options.iter().cloned().collect();
    let shared = Shared {
        abandoned: Mutex::new(Vec::new()),
    };
    observer.start(cases.len());
    let mut commit = Commit {
        cases,
        baseline,
        config,
        supported: &supported,
        shared: &shared,
        observer,
        results: Vec::with_capacity(cases.len()),
        incidents: Vec::new(),
        caseless: Vec::new(),
        consecutive: 0,
        answered: false,
        unanswered_faults: 0,
        given_up: None,
    };
    let mut first = Some(first);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<UnitDone>();
        for worker in 0..jobs {
            let tx = tx.clone();
            let mut driver = Driver {
                config,
                live: first.take(),
                supported: &supported,
                options: &options,
                env: scratch.env(worker, jobs),
                shared: &shared,
                incidents: Vec::new(),
                fresh: true,
            };
            let units = &units;
            scope.spawn(move || {
                for (u, range) in units.iter().enumerate().skip(worker).step_by(jobs) {
                    let results = driver.unit(cases, range.clone());
                    let incidents = std::mem::take(&mut driver.incidents);
                    if tx
                        .send(UnitDone {
                            unit: u,
                            results,
                            incidents,
                        })
                        .is_err()
                    {
                        break;
                    }
                }
                driver.finish();
                let incidents = std::mem::take(&mut driver.incidents);
                let _ = tx.send(UnitDone {
                    unit: usize::MAX,
                    results: Vec::new(),
                    incidents,
                });
            });
        }
        drop(tx);
        let mut pending: BTreeMap<usize, UnitDone> = BTreeMap::new();
        let mut next = 0;
        for done in rx {
            if done.unit == usize::MAX {
                commit.caseless(done.incidents);
                continue;
            }
            pending.insert(done.unit, done);
            while let Some(done) = pending.remove(&next) {
                commit.unit(done);
                next += 1;
            }
        }
    });
    let Commit {
        mut results,
        mut incidents,
        caseless,
        observer,
        ..
    } = commit;
    // A fault (crash, timeout, protocol violation, failed restart) ends the adapter process
    // and every later case of its worker needs a new one: counted per faulted case, so the
    // count does not depend on how cases were spread across workers.
    let restarts = incidents.iter().filter(|i| i.case_id.is_some()).count();
    let mut caseless = caseless;
    caseless.sort_by(|a, b| (&a.kind, &a.message).cmp(&(&b.kind, &b.message)));
    caseless.dedup_by(|a, b| a.kind == b.kind && a.message == b.message);
    incidents.extend(caseless);
    let interrupted = interrupt::interrupted().map(interrupt::signal_name);
    let parallel_unsafe = if interrupted.is_none() && jobs > 1 {
        recheck_alone(cases, &mut results, baseline, config)
    } else {
        Vec::new()
    };
    if interrupted.is_none() {
        stale_globs(cases, &mut results, baseline);
    }
    observer.finish();
    Ok(RunOutput {
        implementation: hello.implementation,
        operations: hello.operations,
        options: hello.options,
        jobs,
        parallel_unsafe,
        results,
        incidents,
        restarts,
        duration: started.elapsed(),
        interrupted,
    })
}

/// A case whose verdict with several adapter processes differed from its verdict alone.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ParallelUnsafe {
    /// The case.
    pub id: String,
    /// Its verdict among the parallel processes (`failed`, `errored:crash`, …).
    pub parallel: String,
    /// Its verdict alone (the one reported).
    pub alone: String,
}

fn verdict_of(r: &CaseResult) -> String {
    match r.error_kind() {
        Some(kind) => format!("{}:{}", r.raw_status().name(), kind.name()),
        None => r.raw_status().name().to_owned(),
    }
}

/// With more than one job: every independent case the adapter answered wrongly (failed or
/// another code), or on which it died or failed (crash, protocol error, `threw`, `errored`, a
/// failed restart) again, in one fresh adapter process, one case at a time (issue 49 item 4;
/// stateful groups already run in a fresh process of their own). A case whose verdict alone
/// differs from its verdict in parallel says something about the adapter (a fixed temporary
/// file, port or lock), not the implementation: its result becomes the one alone, and it is
/// named in the list returned. Timeouts are not run again (each would cost the timeout once
/// more), nor cases never sent (`abandoned`).
fn recheck_alone(
    cases: &[Case],
    results: &mut [CaseResult],
    baseline: &ExpectedFailures,
    config: &RunConfig,
) -> Vec<ParallelUnsafe> {
    let failing: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            // The parallel run's incidents, restarts and consecutive-errors count stay as they
            // were (they happened); only a differing verdict is replaced.
            let again = match r.raw_status() {
                Status::Failed | Status::OtherCode => true,
                Status::Errored => matches!(
                    r.error_kind(),
                    Some(
                        ErrorKind::Crash
                            | ErrorKind::ProtocolError
                            | ErrorKind::Threw
                            | ErrorKind::AdapterErrored
                            | ErrorKind::RestartFailed
                    )
                ),
                _ => false,
            };
            again && cases.get(r.index).is_some_and(|c| c.sequence.is_none())
        })
        .map(|(i, _)| i)
        .collect();
    if failing.is_empty() {
        return Vec::new();
    }
    let alone_cases: Vec<Case> = failing
        .iter()
        .map(|&i| cases[results[i].index].clone())
        .collect();
    // The consecutive-errors rule was applied to the parallel run in corpus order; alone, the
    // re-run cases are consecutive by construction, so the rule is off (a crash alone stays a
    // crash instead of becoming `abandoned`).
    let alone_config = RunConfig {
        jobs: 1,
        max_consecutive_errors: usize::MAX,
        ..config.clone()
    };
    let Ok(alone) = run(
        &alone_cases,
        &ExpectedFailures::default(),
        &alone_config,
        &mut Quiet,
    ) else {
        return Vec::new();
    };
    if alone.interrupted.is_some() {
        return Vec::new();
    }
    let mut differing = Vec::new();
    for again in &alone.results {
        let Some(&i) = failing.get(again.index) else {
            continue;
        };
        let verdict = |r: &CaseResult| (r.raw_status(), r.failure_kind(), r.error_kind());
        // No evidence either way when the case could not be run alone.
        if verdict(again) == verdict(&results[i])
            || matches!(
                again.error_kind(),
                Some(ErrorKind::Abandoned | ErrorKind::RestartFailed)
            )
        {
            continue;
        }
        let index = results[i].index;
        let id = cases[index].id.clone();
        differing.push(ParallelUnsafe {
            id: id.clone(),
            parallel: verdict_of(&results[i]),
            alone: verdict_of(again),
        });
        let mut replaced = again.clone();
        replaced.index = index;
        replaced.expected_failure = None;
        apply_baseline(&mut replaced, baseline, &id);
        results[i] = replaced;
    }
    differing
}

/// The units a run is spread over: each independent case alone, each stateful group whole
/// (its consecutive cases with one `sequence`), in case order.
fn units_of(cases: &[Case]) -> Vec<Range<usize>> {
    let mut units = Vec::new();
    let mut index = 0;
    while index < cases.len() {
        let end = match cases[index].sequence.as_deref() {
            None => index + 1,
            Some(sequence) => {
                index
                    + cases[index..]
                        .iter()
                        .take_while(|c| c.sequence.as_deref() == Some(sequence))
                        .count()
            }
        };
        units.push(index..end);
        index = end;
    }
    units
}

/// What the workers share: the case ranges the commit has already decided not to send (the
/// consecutive-errors rule), so workers skip them.
struct Shared {
    abandoned: Mutex<Vec<Range<usize>>>,
}

impl Shared {
    fn is_abandoned(&self, index: usize) -> bool {
        self.abandoned
            .lock()
            .map(|a| a.iter().any(|r| r.contains(&index)))
            .unwrap_or(false)
    }
}

/// One unit's raw results (case index, result, duration) and the incidents raised while it
/// ran; `unit == usize::MAX` carries a worker's closing incidents.
struct UnitDone {
    unit: usize,
    results: Vec<(usize, CaseResult, Duration)>,
    incidents: Vec<Incident>,
}

/// The in-order commit of unit results: the one place where the consecutive-errors rule, the
/// baseline and the observer see the results, in case order.
struct Commit<'a, 'o> {
    cases: &'a [Case],
    baseline: &'a ExpectedFailures,
    config: &'a RunConfig,
    supported: &'a BTreeSet<String>,
    shared: &'a Shared,
    observer: &'o mut dyn Observer,
    results: Vec<CaseResult>,
    incidents: Vec<Incident>,
    caseless: Vec<Incident>,
    consecutive: usize,
    /// Whether any case so far got a protocol reply from the adapter.
    answered: bool,
    /// Faults (crash, timeout, protocol error, failed restart) while `answered` is false.
    unanswered_faults: usize,
    /// Set when the adapter answered none of its first `max_consecutive_errors` requests:
    /// every later case is not sent, with this message.
    given_up: Option<String>,
}

/// Whether the adapter replied to this case (any protocol reply, an `errored` one included),
/// as opposed to a fault (crash, timeout, protocol error, failed restart), a case not sent,
/// or a case the harness skipped itself.
fn answered(result: &CaseResult) -> bool {
    result.actual.is_some()
        || match result.outcome {
            Outcome::Errored(kind) => matches!(kind, ErrorKind::AdapterErrored | ErrorKind::Threw),
            Outcome::Skipped => false,
            _ => true,
        }
}

impl Commit<'_, '_> {
    fn unit(&mut self, done: UnitDone) {
        let mut replaced: BTreeSet<String> = BTreeSet::new();
        for (index, mut result, duration) in done.results {
            let case = &self.cases[index];
            let supported = self.supported.contains(&case.op);
            let interrupted = result.error_kind() == Some(ErrorKind::Abandoned)
                && interrupt::interrupted().is_some();
            if supported && !interrupted {
                if let Some(why) = &self.given_up {
                    result = abandoned(index, why.clone());
                    replaced.insert(case.id.clone());
                } else if self.consecutive >= self.config.max_consecutive_errors {
                    result = abandoned(
                        index,
                        format!(
                            "not sent: the adapter failed {} cases in a row",
                            self.consecutive
                        ),
                    );
                    replaced.insert(case.id.clone());
                }
            }
            if answered(&result) {
                self.answered = true;
            }
            let fault = result.raw_status() == Status::Errored
                && !matches!(
                    result.error_kind(),
                    Some(ErrorKind::AdapterErrored | ErrorKind::Threw | ErrorKind::Abandoned)
                );
            if fault && !self.answered && self.given_up.is_none() {
                // An adapter that answered no request since the run started (cases the
                // harness skipped itself in between do not count) is broken (issue 46):
                // after N such faults nothing more is sent, so it is not restarted again and
                // again. Counted in faults, never in seconds: the same on every machine and
                // for every number of jobs.
                self.unanswered_faults += 1;
                if self.unanswered_faults == self.config.max_consecutive_errors {
                    self.given_up = Some(format!(
                        "not sent: the adapter answered none of the first {} requests (each \
                         ended in a crash, a timeout or a reply that is not a protocol reply), \
                         so it was not restarted again",
                        self.unanswered_faults
                    ));
                    if let Ok(mut a) = self.shared.abandoned.lock() {
                        a.push(index + 1..self.cases.len());
                    }
                }
            }
            if result.raw_status() == Status::Errored
                && !matches!(
                    result.error_kind(),
                    Some(ErrorKind::AdapterErrored | ErrorKind::Threw)
                )
            {
                self.consecutive += 1;
                if self.consecutive == self.config.max_consecutive_errors && self.given_up.is_none()
                {
                    // Until the next case the adapter does not support (which resets the
                    // count), nothing more is sent.
                    let end = (index + 1..self.cases.len())
                        .find(|&j| !self.supported.contains(&self.cases[j].op))
                        .unwrap_or(self.cases.len());
                    if let Ok(mut a) = self.shared.abandoned.lock() {
                        a.push(index + 1..end);
                    }
                }
            } else {
                self.consecutive = 0;
            }
            apply_baseline(&mut result, self.baseline, &case.id);
            result.duration = duration;
            self.observer.case_done(case, &result);
            self.results.push(result);
        }
        for incident in done.incidents {
            match &incident.case_id {
                None => self.caseless.push(incident),
                Some(id) if replaced.contains(id) => {}
                Some(_) => self.incidents.push(incident),
            }
        }
    }

    /// Incidents of no case (a reply to `bye`): once per distinct kind and message, whichever
    /// worker's process raised them.
    fn caseless(&mut self, incidents: Vec<Incident>) {
        self.caseless.extend(incidents);
    }
}

/// A case that was not sent.
fn abandoned(index: usize, message: String) -> CaseResult {
    let mut result = CaseResult::errored(index);
    result.outcome = Outcome::Errored(ErrorKind::Abandoned);
    result.message = Some(message);
    result
}

/// One worker's adapter process and its bookkeeping.
struct Driver<'a> {
    config: &'a RunConfig,
    live: Option<Live>,
    supported: &'a BTreeSet<String>,
    /// The options the adapter declared.
    options: &'a BTreeSet<String>,
    /// This worker's index, the run's jobs and its `TMPDIR`, in every process it starts.
    env: Vec<(&'static str, String)>,
    shared: &'a Shared,
    incidents: Vec<Incident>,
    /// The next start is deliberate ([`Driver::fresh_process`]), not a restart after a fault.
    fresh: bool,
}

impl Driver<'_> {
    /// Runs one unit: an independent case, or a stateful group (vectors/README.md "Stateful
    /// groups"), whose cases run in file order in a fresh adapter process, then once more in
    /// another fresh process (the replay after a restart); a case passes only if it passes
    /// both times.
    fn unit(&mut self, cases: &[Case], range: Range<usize>) -> Vec<(usize, CaseResult, Duration)> {
        if range.len() == 1 && cases[range.start].sequence.is_none() {
            let started = Instant::now();
            let result = self.case(range.start, &cases[range.start]);
            return vec![(range.start, result, started.elapsed())];
        }
        let started = Instant::now();
        self.fresh_process();
        let first: Vec<CaseResult> = range.clone().map(|i| self.case(i, &cases[i])).collect();
        self.fresh_process();
        let replay: Vec<CaseResult> = range.clone().map(|i| self.case(i, &cases[i])).collect();
        self.fresh_process();
        let per_case = started.elapsed() / u32::try_from(range.len()).unwrap_or(1).max(1);
        range
            .zip(first.into_iter().zip(replay))
            .map(|(i, (first, replay))| (i, merge_replay(first, replay), per_case))
            .collect()
    }

    /// Ends the current adapter process (if any) so the next case starts a fresh one. Used
    /// around stateful groups.
    fn fresh_process(&mut self) {
        if let Some(mut l) = self.live.take() {
            say_bye(&mut l, self.config, &mut self.incidents);
        }
        self.fresh = true;
    }

    /// The worker's last process: `bye`, or killed when the run was interrupted.
    fn finish(&mut self) {
        if let Some(mut l) = self.live.take() {
            if interrupt::interrupted().is_some() {
                l.process.kill();
            } else {
                say_bye(&mut l, self.config, &mut self.incidents);
            }
        }
    }

    /// Runs one case (starting the adapter first if needed) and returns its raw result.
    fn case(&mut self, index: usize, case: &Case) -> CaseResult {
        let config = self.config;
        let mut result = CaseResult::errored(index);
        // An operation the adapter does not declare is skipped, interrupted or not (issue 46:
        // an interrupt once made them unfinished, errored cases).
        if !self.supported.contains(&case.op) {
            result.outcome = Outcome::Skipped;
            result.message = Some(format!(
                "operation `{}` not in the adapter's hello.operations",
                case.op
            ));
            return result;
        }
        let missing: Vec<&str> = case
            .options
            .iter()
            .filter(|o| !self.options.contains(*o))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            result.outcome = Outcome::Skipped;
            result.message = Some(format!(
                "needs option {} (not in the adapter's hello.options)",
                missing.join(", ")
            ));
            return result;
        }
        if let Some(sig) = interrupt::interrupted() {
            return abandoned(
                index,
                format!("not run: interrupted by {}", interrupt::signal_name(sig)),
            );
        }
        if self.shared.is_abandoned(index) {
            // Replaced at the commit with the count of failures in a row.
            return abandoned(index, "not sent".to_owned());
        }
        // Everything this case raises, a failed (re)start included: dropped if a signal ends it.
        let incidents_before = self.incidents.len();
        if self.live.is_none() {
            self.fresh = false;
            match start(config, &self.env) {
                Ok((l, _)) => self.live = Some(l),
                Err(e) => {
                    let (kind, tail) = match &e {
                        SetupError::Spawn { .. } | SetupError::Interrupted { .. } => {
                            ("spawn_failed", String::new())
                        }
                        SetupError::Handshake { stderr_tail, .. } => {
                            ("handshake_failed", stderr_tail.clone())
                        }
                    };
                    let message = match &e {
                        SetupError::Spawn { message, .. }
                        | SetupError::Handshake { message, .. } => message.clone(),
                        SetupError::Interrupted { signal } => format!("interrupted by {signal}"),
                    };
                    self.incidents.push(Incident {
                        case_id: Some(case.id.clone()),
                        kind: kind.to_owned(),
                        message: message.clone(),
                        stderr_tail: tail.clone(),
                    });
                    result.outcome = Outcome::Errored(ErrorKind::RestartFailed);
                    result.message = Some(format!("adapter restart failed: {message}"));
                    result.stderr_tail = Some(tail);
                }
            }
        }
        if let Some(l) = self.live.as_mut() {
            let keep = run_one(l, case, config, &mut result, &mut self.incidents);
            if !keep {
                if let Some(mut dead) = self.live.take() {
                    dead.process.kill();
                }
            }
        }
        if let Some(sig) = interrupt::interrupted() {
            if result.raw_status() == Status::Errored {
                // The signal killed the adapter (or the one being started): not a fault of
                // the implementation.
                self.incidents.truncate(incidents_before);
                result.outcome = Outcome::Errored(ErrorKind::Abandoned);
                result.message = Some(format!(
                    "interrupted by {} while the case was in flight",
                    interrupt::signal_name(sig)
                ));
            }
        }
        result
    }
}

/// Whether a raw status counts as a pass for the replay rule (not failed, not errored).
fn holds(status: Status) -> bool {
    matches!(
        status,
        Status::Passed | Status::Acceptable | Status::OtherCode | Status::Skipped
    )
}

/// A stateful case's result from its first run and its replay after a restart: the first
/// run's, unless the first run held and the replay did not (then the replay's, saying so).
fn merge_replay(first: CaseResult, replay: CaseResult) -> CaseResult {
    if !holds(first.raw_status()) || holds(replay.raw_status()) {
        return first;
    }
    let mut out = replay;
    let what = out.message.take().unwrap_or_default();
    out.message = Some(if what.is_empty() {
        "on the replay after a restart (the first run in file order held)".to_owned()
    } else {
        format!("on the replay after a restart (the first run in file order held): {what}")
    });
    out
}

/// Sends one case and records its result. Returns false when the adapter must be restarted.
fn run_one(
    live: &mut Live,
    case: &Case,
    config: &RunConfig,
    result: &mut CaseResult,
    incidents: &mut Vec<Incident>,
) -> bool {
    let seq = live.next_seq;
    live.next_seq += 1;
    let deadline = Instant::now() + config.timeout;
    let request = Request::Run {
        seq,
        id: &case.id,
        op: &case.op,
        input: &case.input,
    };
    live.process.send(request.to_line(), deadline);
    let (reply, not_counted) = live.process.recv_line_within(config.timeout);
    let failure = match reply {
        Ok(line) => match parse_run_reply(&line, seq) {
            Ok(outcome) => {
                record_outcome(case, outcome, result);
                return true;
            }
            Err(e) => (
                ErrorKind::ProtocolError,
                format!("{e}; the adapter printed {}", protocol::quote_line(&line)),
                Some(e),
            ),
        },
        Err(ReadFailure::Timeout) => (
            ErrorKind::Timeout,
            if not_counted.is_zero() {
                format!("no reply within {} ms", config.timeout.as_millis())
            } else {
                format!(
                    "no reply within {} ms of the adapter's time ({} ms more spent waiting for a CPU were not counted)",
                    config.timeout.as_millis(),
                    not_counted.as_millis()
                )
            },
            None,
        ),
        Err(ReadFailure::Exited(status)) => (
            ErrorKind::Crash,
            format!(
                "adapter exited during the case ({})",
                status.unwrap_or_else(|| "status unknown".to_owned())
            ),
            None,
        ),
        Err(ReadFailure::Protocol(e)) => (ErrorKind::ProtocolError, e.to_string(), Some(e)),
    };
    let (kind, message, violation) = failure;
    // Kill first so the stderr tail includes everything the adapter wrote before dying.
    live.process.kill();
    let tail = live.process.stderr_tail();
    incidents.push(Incident {
        case_id: Some(case.id.clone()),
        kind: match &violation {
            Some(v) => format!("protocol_error/{}", v.kind()),
            None => kind.name().to_owned(),
        },
        message: message.clone(),
        stderr_tail: tail.clone(),
    });
    result.outcome = Outcome::Errored(kind);
    result.message = Some(message);
    result.stderr_tail = Some(tail);
    false
}

fn record_outcome(case: &Case, outcome: RunOutcome, result: &mut CaseResult) {
    result.actual = Some(case::outcome_json(&outcome));
    match &outcome {
        RunOutcome::Skipped { reason } => {
            result.outcome = Outcome::Skipped;
            result.message = Some(if reason.is_empty() {
                "adapter replied skipped".to_owned()
            } else {
                reason.clone()
            });
        }
        RunOutcome::Errored { message } => {
            result.outcome = Outcome::Errored(ErrorKind::AdapterErrored);
            result.message = Some(message.clone());
        }
        RunOutcome::Threw { message } => {
            result.outcome = Outcome::Errored(ErrorKind::Threw);
            result.message = Some(message.clone());
        }
        RunOutcome::Ok { .. } | RunOutcome::Error { .. } => {
            result.outcome = case::judge(case, &outcome);
        }
    }
}

fn apply_baseline(result: &mut CaseResult, baseline: &ExpectedFailures, id: &str) {
    result.status = result.raw_status();
    let Some(entry) = baseline.lookup(id) else {
        return;
    };
    let passing = matches!(result.raw_status(), Status::Passed | Status::Acceptable);
    if passing && entry.is_glob() {
        // A glob applies to the failing cases it matches only; whether the entry as a whole
        // is stale is decided once every case has run (`stale_globs`).
        return;
    }
    result.expected_failure = Some(entry.reason.clone());
    result.status = match result.raw_status() {
        Status::Failed | Status::OtherCode | Status::Errored => Status::Xfail,
        Status::Passed | Status::Acceptable => Status::Stale,
        other => other,
    };
}

/// A glob entry that matched cases of this run but no failing or errored one is stale: the
/// first passing case it matches is marked `stale`, its baseline reason naming the entry as too
/// broad (or fixed), and the other passing cases stay `passed`, so one entry gives one stale
/// line. Globs that matched some failing case are fine whatever else they match.
fn stale_globs(cases: &[Case], results: &mut [CaseResult], baseline: &ExpectedFailures) {
    for entry in baseline.entries.iter().filter(|e| e.is_glob()) {
        let matched: Vec<usize> = results
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                cases
                    .get(r.index)
                    .and_then(|c| baseline.lookup(&c.id))
                    .is_some_and(|e| e.line == entry.line)
            })
            .map(|(i, _)| i)
            .collect();
        let failing = matched.iter().any(|&i| {
            results
                .get(i)
                .is_some_and(|r| matches!(r.raw_status(), Status::Failed | Status::Errored))
        });
        if failing {
            continue;
        }
        let passing: Vec<usize> = matched
            .into_iter()
            .filter(|&i| {
                results
                    .get(i)
                    .is_some_and(|r| matches!(r.raw_status(), Status::Passed | Status::Acceptable))
            })
            .collect();
        if let Some(first) = passing.first().and_then(|&i| results.get_mut(i)) {
            first.status = Status::Stale;
            first.expected_failure = Some(format!(
                "{} [entry `{}` (line {}) is too broad or fixed: the glob matches no failing \
                 case, only {} passing case{}; narrow it or remove it]",
                entry.reason,
                entry.pattern,
                entry.line,
                passing.len(),
                if passing.len() == 1 { "" } else { "s" }
            ));
        }
    }
}

fn say_bye(live: &mut Live, config: &RunConfig, incidents: &mut Vec<Incident>) {
    let seq = live.next_seq;
    let grace = config.timeout.min(Duration::from_secs(2));
    let deadline = Instant::now() + grace;
    live.process.send(Request::Bye { seq }.to_line(), deadline);
    // The reply is optional: an adapter may simply exit.
    if let Ok(line) = live.process.recv_line(deadline) {
        if let Err(e) = parse_bye_reply(&line, seq) {
            incidents.push(Incident {
                case_id: None,
                kind: format!("protocol_error/{}", e.kind()),
                message: format!("invalid reply to bye: {e}"),
                stderr_tail: String::new(),
            });
        }
    }
    live.process.shutdown(Duration::from_millis(500));
}

/// A protocol violation as an [`Incident`] (used by tests and other drivers).
pub fn violation_incident(case_id: Option<&str>, e: &ProtocolError) -> Incident {
    Incident {
        case_id: case_id.map(str::to_owned),
        kind: format!("protocol_error/{}", e.kind()),
        message: e.to_string(),
        stderr_tail: String::new(),
    }
}
