//! The differential fuzzing loop: mutate, re-sign, run both sides, compare, minimize, save.
//!
//! The reference runs in-process (`delegateos_reference::ops::run`); the implementation under
//! test runs through the adapter protocol via [`crate::runner::run`], which owns process
//! supervision (timeouts, crashes, restarts, protocol validation). Each batch of mutated cases
//! becomes runner cases whose expectation is the reference's outcome, so the runner's own
//! judge decides agreement: `failed` is a disagreement, `errored` a crash, hang, protocol
//! violation or adapter error.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use delegateos_reference::ops::{self, Outcome};
use serde_json::{json, Value};

use super::mutate::{self, Mutation, Rng, Seed};
use super::pool::{self, Schedule};
use super::triage::{self, After, Next, Signature, Triage};
use crate::expected::ExpectedFailures;
use crate::runner::case::Case;
use crate::runner::{self, ErrorKind, Quiet, RunConfig, SetupError, Status};
use delegateos_vectors::differential::{
    assess_token, expectation_of, failure_kind, outcome_class, reference_code,
    requirement_of_outcome,
};
use delegateos_vectors::format::{
    self as vf, Expectation, Generator, Level, Note, Severity, VectorFile,
};
use delegateos_vectors::keys::Keys;

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

pub use super::finding::{Finding, FindingKind};

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

/// Valid `dct.verify` cases of the corpus's `dct` area as seeds (the embedded corpus, or
/// `<dir>/dct/*.json` when a directory is given), plus the builtin chains.
pub fn load_seeds(vectors: Option<&Path>, keys: &Keys) -> Vec<Seed> {
    let mut seeds = mutate::builtin_seeds(keys);
    let Ok(files) = delegateos_vectors::CorpusSource::from_option(vectors).load() else {
        return seeds;
    };
    for loaded in files {
        let file = loaded.file;
        if file.area != "dct" {
            continue;
        }
        for case in file.cases {
            let valid = matches!(
                case.expect.outcomes().first(),
                Some(vf::Expected::Valid { .. })
            );
            if case.op == "dct.verify" && valid {
                if let Some(mut seed) = Seed::from_input(&case.id, case.requirements, &case.input) {
                    seed.flags = case.flags.clone();
                    seed.level = case.level;
                    if let Expectation::Acceptable { outcomes, decision } = &case.expect {
                        seed.alternatives = outcomes.iter().skip(1).cloned().collect();
                        seed.decision = Some(decision.clone());
                    }
                    seeds.push(seed);
                }
            }
        }
    }
    seeds
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

#[derive(Clone)]
struct Candidate {
    seed: usize,
    mutations: Vec<Mutation>,
    input: Value,
    reference: Outcome,
    /// The outcomes an implementation may give: the reference's first.
    expectation: Option<Expectation>,
}

fn expected_of(outcome: &Outcome) -> Option<vf::Expected> {
    match outcome {
        Outcome::Ok { output } => Some(vf::Expected::valid(output.clone())),
        Outcome::Error { code, .. } => Some(vf::Expected::Invalid {
            code: code.clone(),
            stage: None,
        }),
        Outcome::Unsupported { .. } => None,
    }
}

/// The expectation of a mutated case. The reference's outcome comes first. Two more readings
/// are allowed:
/// - if the reference still accepts, the seed's other `acceptable` outcomes (the mutation did
///   not settle the seed's decision);
/// - if the context's `now` is not a profile timestamp, which fault is reported first is
///   settled by no spec text (D7 orders the token's steps, not the context's validation):
///   `malformed_token` for `now` and the token fault the reference reports with the seed's
///   own `now` are both acceptable.
fn candidate_expectation(seed: &Seed, input: &Value, reference: &Outcome) -> Option<Expectation> {
    let first = expected_of(reference)?;
    let mut outcomes = vec![first.clone()];
    let mut decision = None;
    if matches!(first, vf::Expected::Valid { .. }) && !seed.alternatives.is_empty() {
        outcomes.extend(seed.alternatives.iter().cloned());
        decision = seed.decision.clone();
    }
    let now = input
        .get("context")
        .and_then(|c| c.get("now"))
        .and_then(Value::as_str);
    let now_malformed =
        now.is_some_and(|n| delegateos_reference::timestamp::Timestamp::parse(n).is_err());
    if now_malformed {
        if let Some(seed_now) = seed.context.get("now") {
            let mut fixed = input.clone();
            if let Some(ctx) = fixed.get_mut("context").and_then(Value::as_object_mut) {
                ctx.insert("now".to_owned(), seed_now.clone());
            }
            let token_fault = ops::run("dct.verify", &fixed);
            if let Some(e @ vf::Expected::Invalid { .. }) = expected_of(&token_fault) {
                outcomes.push(e);
            }
        }
        outcomes.push(vf::Expected::Invalid {
            code: "malformed_token".to_owned(),
            stage: None,
        });
        decision = decision.or_else(|| Some("D7".to_owned()));
    }
    let mut unique: Vec<vf::Expected> = Vec::new();
    for o in outcomes {
        if !unique.contains(&o) {
            unique.push(o);
        }
    }
    if unique.len() == 1 {
        return expectation_of(reference);
    }
    Some(Expectation::Acceptable {
        outcomes: unique,
        decision: decision.unwrap_or_else(|| "D7".to_owned()),
    })
}

fn candidate(seeds: &[Seed], seed: usize, mutations: Vec<Mutation>, keys: &Keys) -> Candidate {
    let input = seeds
        .get(seed)
        .map_or(Value::Null, |s| mutate::build(s, &mutations, keys));
    let reference = ops::run("dct.verify", &input);
    let expectation = seeds
        .get(seed)
        .and_then(|s| candidate_expectation(s, &input, &reference));
    Candidate {
        seed,
        mutations,
        input,
        reference,
        expectation,
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
            let s = signature(k, t, a.as_ref());
            s.kind == sig.kind && s.reference == sig.reference && s.actual == sig.actual
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

/// The field a mutation touched: its signature without the verb (`token:expiresAt`,
/// `forge`, `encode:padding`).
fn field_of(m: &Mutation) -> String {
    let sig = m.signature();
    match sig.split_once(':') {
        Some(("set" | "remove" | "insert", rest)) => rest.to_owned(),
        _ => sig,
    }
}

fn signature(kind: FindingKind, c: &Candidate, actual: Option<&Value>) -> Signature {
    let mut fields: Vec<String> = c.mutations.iter().map(field_of).collect();
    fields.sort();
    fields.dedup();
    let actual_class = outcome_class(actual);
    let reference = reference_code(&c.reference);
    if actual_class == "refused" && reference != "ok" {
        // Another denial than the reference's: one precedence or mapping mistake per
        // reference code (as `run` keys wrong codes), whichever fields led there.
        fields.clear();
        fields.push("any".to_owned());
    } else if fields.is_empty() {
        fields.push("seed".to_owned());
    }
    Signature {
        kind,
        reference,
        actual: actual_class,
        fields,
    }
}

/// The level, severity and effect of a finding on a mutation of `seed`, by the severity model
/// (`spec/severity.md`): accepting what the reference refuses is at least the bypass of the
/// reference's denial; another code of the family is hardening and low.
fn grade(
    kind: FindingKind,
    seed: Option<&Seed>,
    reference: &Outcome,
    actual: Option<&Value>,
) -> (Level, Severity, String, String) {
    use delegateos_vectors::outcome::Fault;
    let level = seed.map_or(Level::Normative, |s| s.level);
    let fault = match kind {
        FindingKind::OtherCode => Fault::OtherCode {
            family: delegateos_vectors::families::family_for(
                "dct.verify",
                None,
                &[],
                &reference_code(reference),
                actual
                    .and_then(|a| a.get("code"))
                    .and_then(Value::as_str)
                    .unwrap_or("?"),
            )
            .map_or_else(|| "?".to_owned(), |f| f.name.clone()),
        },
        FindingKind::Crash => Fault::Errored(ErrorKind::Crash),
        FindingKind::Timeout => Fault::Errored(ErrorKind::Timeout),
        FindingKind::ProtocolError => Fault::Errored(ErrorKind::ProtocolError),
        FindingKind::Errored => Fault::Errored(ErrorKind::AdapterErrored),
        FindingKind::Disagreement => Fault::Failed {
            kind: failure_kind(reference, actual),
            output: actual.and_then(|a| a.get("output")).cloned(),
        },
    };
    let a = assess_token(reference, &fault);
    let (severity, effect, key) = (a.severity, a.effect, a.key);
    let level = if kind == FindingKind::OtherCode {
        Level::Hardening
    } else {
        level
    };
    (level, severity, effect, key)
}

fn code_of(v: Option<&Value>) -> String {
    match v {
        Some(v) => match v.get("outcome").and_then(Value::as_str) {
            Some("error") => v
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned(),
            Some(o) => o.to_owned(),
            None => "?".to_owned(),
        },
        None => "none".to_owned(),
    }
}

/// The candidates of batch `b` of a run seeded with `seed`: a function of both alone, so
/// every number of workers explores the same batches ([`super::pool`]).
fn batch_of(seeds: &[Seed], seed: u64, b: usize, size: usize, keys: &Keys) -> Vec<Candidate> {
    let mut rng = Rng::new(seed ^ (b as u64).wrapping_mul(0xA076_1D64_78BD_642F));
    (0..size)
        .map(|_| {
            let s = rng.below(seeds.len());
            let n = 1 + rng.below(3);
            let muts = seeds
                .get(s)
                .map(|seed| {
                    (0..n)
                        .map(|_| mutate::random(&mut rng, seed, keys))
                        .collect()
                })
                .unwrap_or_default();
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
                    let sig = signature(kind, c, r.1.as_ref());
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
        let (level, severity, effect, report_key) =
            grade(kind, seeds.get(min.seed), &min.reference, actual.as_ref());
        let origin = seeds
            .get(min.seed)
            .map(|s| s.origin.clone())
            .unwrap_or_default();
        // The requirement of the step the mutated token breaks, the one the finding is graded
        // by (`assess_token`), never the seed's: its finding file replays to the same grade.
        let requirements = vec![requirement_of_outcome(&min.reference).to_owned()];
        Finding {
            kind,
            op: "dct.verify".to_owned(),
            origin,
            requirements,
            mutations: min.mutations,
            edits: Vec::new(),
            input: min.input,
            reference: min.reference,
            expectation: min.expectation,
            actual,
            message,
            found_after,
            cases_before,
            level,
            severity,
            effect,
            report_key,
            key: sig.key(""),
            hits: 1,
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
            let sig = signature(kind, &c, actual.as_ref());
            // A repeat graded more severe than the kind's example (another seed's stake) is
            // minimized and, if it stays that kind, becomes the example.
            let next = lock().before_minimizing(&sig, &mut findings, || {
                Some(grade(kind, seeds.get(c.seed), &c.reference, actual.as_ref()).1)
            });
            if next == Next::Skip {
                continue;
            }
            let found_after = started.elapsed();
            let (min, min_actual) = ahead.unwrap_or_else(|| minimize_timed(c, &sig));
            let actual = min_actual.or(actual);
            let final_sig = signature(kind, &min, actual.as_ref());
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

/// A finding as a replayable vector file (`area` `fuzz`, group = file stem `finding-NNNN`).
/// The expectation is the reference's outcome; the case is flagged `DifferentialFinding`.
pub fn finding_file(f: &Finding, n: usize, keys: &Keys) -> VectorFile {
    let group = format!("finding-{n:04}");
    let mut notes = BTreeMap::new();
    notes.insert(
        "DifferentialFinding".to_owned(),
        Note {
            // The schema has no differential bug type: the case is a mutated (modified) parameter set.
            bug_type: "MODIFIED_PARAMETER".to_owned(),
            description: format!(
                "Found by `delegateos-conform fuzz`: a structurally mutated (re-signed where \
                 signed) {} case on which the implementation disagreed with the reference (or \
                 crashed, hung, or broke the protocol). The expectation is the reference's \
                 outcome, not a constructed verdict: this is a finding to triage, not a corpus \
                 vector.",
                f.op
            ),
            clause: "§10.1".to_owned(),
            effect: format!(
                "The implementation answers this {} case differently from the reference.",
                f.op
            ),
            level: f.level,
            severity: f.severity,
        },
    );
    let mutations = if f.edits.is_empty() {
        serde_json::to_string(&f.mutations).unwrap_or_default()
    } else {
        serde_json::to_string(&f.edits).unwrap_or_default()
    };
    let expect = f.expectation.clone().unwrap_or(Expectation::Invalid {
        code: "skipped".to_owned(),
        stage: None,
    });
    let requirements = if f.requirements.is_empty() {
        vec!["DCT-VERIFY-1-MALFORMED".to_owned()]
    } else {
        f.requirements.clone()
    };
    let stake = delegateos_vectors::severity::model().rule_stake(
        &f.op,
        &["DifferentialFinding".to_owned()],
        &requirements,
        &expect,
    );
    VectorFile {
        schema: vf::SCHEMA_ID.to_owned(),
        spec_version: delegateos_vectors::format::SPEC_VERSION.to_owned(),
        generator: Generator {
            name: "delegateos-conform fuzz".to_owned(),
            version: "1".to_owned(),
        },
        area: "fuzz".to_owned(),
        group: group.clone(),
        stateful: false,
        description: format!(
            "DifferentialFinding ({}): reference {} vs implementation {}",
            f.kind.name(),
            reference_code(&f.reference),
            code_of(f.actual.as_ref())
        ),
        keys: keys.header(),
        notes,
        number_of_cases: 1,
        cases: vec![vf::Case {
            id: format!("fuzz-{group}-0001"),
            description: format!(
                "DifferentialFinding ({}, after {:.1}s): {} mutated by {mutations}; implementation answered {}{}",
                f.kind.name(),
                f.found_after.as_secs_f64(),
                f.origin,
                f.actual
                    .as_ref()
                    .map_or_else(|| "nothing".to_owned(), Value::to_string),
                if f.message.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", f.message)
                },
            ),
            requirements,
            flags: vec!["DifferentialFinding".to_owned()],
            level: f.level,
            ground: vf::Ground::Differential {
                level: f.level,
                reason: format!(
                    "the reference's answer on {} mutated (the level is the seed's)",
                    f.origin
                ),
            },
            stake,
            op: f.op.clone(),
            options: Vec::new(),
            input: f.input.clone(),
            expect,
        }],
    }
}

/// Writes every finding to `dir/finding-NNNN.json` (sorted-key pretty JSON); returns the paths.
pub fn write_findings(dir: &Path, report: &DiffReport) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let keys = Keys::fixed();
    let mut paths = Vec::new();
    for (i, f) in report.findings.iter().enumerate() {
        let file = finding_file(f, i + 1, &keys);
        let value = serde_json::to_value(&file).unwrap_or_else(|_| json!({}));
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        let path = dir.join(format!("{}.json", file.group));
        std::fs::write(&path, text)?;
        paths.push(path);
    }
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A malformed `now` together with a token fault: no spec text orders them, so both
    /// `malformed_token` and the token fault's code are acceptable (D7, issue 12).
    #[test]
    fn malformed_now_with_a_token_fault_accepts_both_codes() {
        let keys = Keys::fixed();
        let seeds = mutate::builtin_seeds(&keys);
        let mutations = vec![
            Mutation::Set {
                stage: mutate::Stage::Context,
                path: vec![mutate::Seg::Key("now".to_owned())],
                value: json!("2026-02-30T00:00:00Z"),
            },
            Mutation::Forge {
                block: 0,
                key: "mallory".to_owned(),
            },
        ];
        let c = candidate(&seeds, 0, mutations, &keys);
        let Some(Expectation::Acceptable { outcomes, .. }) = &c.expectation else {
            panic!("expected acceptable, got {:?}", c.expectation);
        };
        let codes: Vec<&str> = outcomes
            .iter()
            .filter_map(|o| match o {
                vf::Expected::Invalid { code, .. } => Some(code.as_str()),
                vf::Expected::Valid { .. } => None,
            })
            .collect();
        assert!(codes.contains(&"malformed_token"), "{codes:?}");
        assert!(codes.contains(&"invalid_signature"), "{codes:?}");
    }

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
