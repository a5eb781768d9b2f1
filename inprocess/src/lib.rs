//! DelegateOS conformance, in-process: the way a Rust library adds the suite to its own CI.
//!
//! Implement [`Implementation`] (one method per operation of `spec/operations.md`, each
//! defaulting to "not implemented"), then either call [`run_corpus`] for the verdicts, or give
//! a `harness = false` test target a `main` that calls [`test_main`]: every case of the
//! embedded corpus becomes one test named by its id, so `cargo test -- dct-forged` runs the
//! cases whose id contains `dct-forged`.
//!
//! ```toml
//! [dev-dependencies]
//! delegateos-inprocess = { path = "…/inprocess" }
//! serde_json = "1"
//!
//! [[test]]
//! name = "conformance"
//! harness = false
//! ```
//!
//! ```no_run
//! use delegateos_inprocess::{Answer, Implementation};
//! use serde_json::{json, Value};
//!
//! struct Mine;
//! impl Implementation for Mine {
//!     fn glob_match(&self, input: &Value) -> Answer {
//!         let (Some(p), Some(r)) = (input["pattern"].as_str(), input["resource"].as_str()) else {
//!             return Answer::error("invalid_input", "pattern and resource must be strings");
//!         };
//!         Answer::ok(json!({ "matches": p == r })) // your library's matcher here
//!     }
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     delegateos_inprocess::test_main(Mine)
//! }
//! ```
//!
//! Cases are judged exactly as `delegateos-conform run` judges an adapter's replies
//! ([`delegateos_vectors::judge::judge_case`] on the corpus [`delegateos_vectors`] embeds), and
//! a case counts as `run`'s exit code counts it: a failed or errored normative or decision case
//! fails; hardening findings (hardening-level cases, and rejections with another code of the
//! expected code's family) fail only with [`Options::fail_on_hardening`]; advisory cases run
//! only with [`Options::strict`]. A case whose method answers [`Answer::Todo`] or
//! [`Answer::Skip`] is skipped (`ignored` under `cargo test`); a run in which every case was
//! skipped fails, naming the operation to start with. A panic in a method (or an
//! [`Answer::Threw`]) is that case's `errored` verdict of kind `threw` (the implementation threw
//! on the input), graded as a crash on it by the case's stake, as `run` grades an adapter's
//! `threw` reply: on untrusted input a critical finding, counted at every level.
//!
//! Options (`spec/adapter-protocol.md` §2.1): behaviours the corpus tests beyond the text's
//! required ones (`strict-mode`, `per-tool-spend`; [`delegateos_vectors::options::ALL`]). An
//! implementation lists those it has in [`Implementation::options`], with the names `hello`
//! declares; a case that needs another is skipped with "needs option X", never a finding, and
//! an unknown name is an error of the run ([`check_options`]).
//!
//! [`cases_in`] loads another vector directory (a fuzzer's findings, say) for [`run_cases`].
//!
//! This crate depends on `delegateos-vectors` (corpus, loader, judge) and `libtest-mimic` only:
//! no processes, no HTTP stack. With the feature `fuzz` it also depends on
//! `delegateos-reference` and offers the module `fuzz`: in-process differential fuzzing of
//! an [`Implementation`] against the reference (one fuzzer input → one mutated, re-signed corpus
//! case, judged and graded as `delegateos-conform fuzz` does — with its code, the fuzz core of
//! `delegateos-vectors` — findings written as replayable vector files), driven by a cargo-fuzz
//! target that `new-adapter --lang rust` writes.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use delegateos_vectors::faults::{self, Diagnosis};
use delegateos_vectors::format::{Case, Level, Severity};
use delegateos_vectors::judge::{judge_case, ActualOutcome, FailureKind, Verdict};
use delegateos_vectors::outcome::{self, ErrorKind, FailOn, Outcome, Subject};
pub use serde_json::Value;

include!(concat!(env!("OUT_DIR"), "/operations.rs"));

#[cfg(feature = "fuzz")]
pub mod fuzz;

/// What an implementation answers for one case: the outcomes of the adapter protocol.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The operation succeeded with this output.
    Ok(Value),
    /// The operation failed with a spec error code (`spec/error-codes.md`); `detail` is free
    /// text, never compared.
    Error {
        /// The code, e.g. `revoked`.
        code: String,
        /// Free text.
        detail: String,
    },
    /// Not implemented (yet): the case is skipped.
    Todo,
    /// This input cannot be represented in the library: the case is skipped.
    Skip(String),
    /// The adapter code around the library failed (reported `errored`, kind `adapter_errored`:
    /// an adapter error, medium, not graded by the input).
    Errored(String),
    /// The library threw on this input (an error it should never raise, caught by your
    /// method): reported `errored`, kind `threw`, graded as a crash on the input by the case's
    /// stake, exactly as a panic in the method is.
    Threw(String),
}

impl Answer {
    /// `ok` with `output`.
    pub fn ok(output: Value) -> Self {
        Self::Ok(output)
    }

    /// `error` with a spec code.
    pub fn error(code: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::Error {
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// Not implemented yet (skipped).
    pub fn todo() -> Self {
        Self::Todo
    }

    /// Skipped: the input cannot be represented.
    pub fn skip(reason: impl Into<String>) -> Self {
        Self::Skip(reason.into())
    }

    /// The library threw on this input (`threw`, graded as a crash on it).
    pub fn threw(message: impl Into<String>) -> Self {
        Self::Threw(message.into())
    }
}

impl From<ActualOutcome> for Answer {
    fn from(outcome: ActualOutcome) -> Self {
        match outcome {
            ActualOutcome::Ok { output } => Self::Ok(output),
            ActualOutcome::Error { code, detail } => Self::Error {
                code,
                detail: detail.unwrap_or_default(),
            },
            ActualOutcome::Skipped { reason } => Self::Skip(reason),
            ActualOutcome::Errored { message } => Self::Errored(message),
            ActualOutcome::Threw { message } => Self::Threw(message),
        }
    }
}

/// Which cases run and which findings fail (the in-process counterpart of `run`'s flags).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// `--profile strict`: also run the advisory cases (their findings never fail).
    pub strict: bool,
    /// `--fail-on hardening`: hardening findings fail too.
    pub fail_on_hardening: bool,
    /// `--fail-on levels`: only the levels decide; a hardening case whose failure the case's
    /// stake makes critical no longer fails by itself (by default it does, as in `run`).
    pub levels_only: bool,
}

impl Options {
    /// From the environment: `DELEGATEOS_PROFILE=strict` (implies hardening, as `run` does),
    /// `DELEGATEOS_FAIL_ON=hardening` and `DELEGATEOS_FAIL_ON=levels`.
    pub fn from_env() -> Self {
        let strict = std::env::var("DELEGATEOS_PROFILE").is_ok_and(|v| v == "strict");
        Self {
            strict,
            fail_on_hardening: strict
                || std::env::var("DELEGATEOS_FAIL_ON").is_ok_and(|v| v.contains("hardening")),
            levels_only: std::env::var("DELEGATEOS_FAIL_ON").is_ok_and(|v| v.contains("levels")),
        }
    }
}

/// A case's status, as in `run`'s reports (before any expected-failures baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Matched the expectation.
    Passed,
    /// Matched an acceptable alternative outcome.
    Acceptable,
    /// Did not match.
    Failed(FailureKind),
    /// Rejected with another code of the expected code's family (a hardening finding).
    OtherCode,
    /// Not run: [`Answer::Todo`] or [`Answer::Skip`].
    Skipped,
    /// The implementation panicked or answered [`Answer::Threw`] (kind `threw`) or
    /// [`Answer::Errored`] (kind `adapter_errored`).
    Errored,
}

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseVerdict {
    /// Case id, e.g. `dct-forged-0001`.
    pub id: String,
    /// Operation.
    pub op: String,
    /// `area/group` of its file.
    pub group: String,
    /// Its level.
    pub level: Level,
    /// True for an advisory case (neighbour profiles).
    pub advisory: bool,
    /// Requirement ids it checks.
    pub requirements: Vec<String>,
    /// The status.
    pub status: Status,
    /// What the implementation did, judged once (the outcome `run` grades; [`status`] is its
    /// summary).
    ///
    /// [`status`]: CaseVerdict::status
    pub outcome: Outcome,
    /// A failure whose effect the case's stake makes critical (`spec/severity.md` §8): it
    /// fails the run whatever the case's level, as in `run`.
    pub critical: bool,
    /// The diff (failed, other code), reason (skipped) or message (errored).
    pub message: String,
}

impl CaseVerdict {
    /// Whether this verdict fails the run under `options` (as `run`'s exit code 1 would).
    pub fn fails(&self, options: &Options) -> bool {
        // Advisory findings never fail an in-process run (there is no `--fail-on advisory`).
        let fail_on = FailOn {
            hardening: options.fail_on_hardening,
            advisory: false,
            levels_only: options.levels_only,
        };
        outcome::fails_run(
            self.level,
            self.advisory,
            &self.outcome,
            self.critical,
            fail_on,
        )
    }
}

/// One case of the corpus with the file facts the runner needs.
#[derive(Debug, Clone)]
pub struct CorpusCase {
    /// The case.
    pub case: Case,
    /// `area/group`.
    pub group: String,
    /// True for an advisory case.
    pub advisory: bool,
    /// True for a case of a stateful group (replayed once, as `run` replays it after a restart).
    pub stateful: bool,
}

/// The embedded corpus, in `run`'s order, without the advisory cases unless `options.strict`.
pub fn corpus(options: &Options) -> Result<Vec<CorpusCase>, String> {
    let files = delegateos_vectors::corpus::load_embedded().map_err(|errors| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    Ok(cases_of(files, options))
}

fn cases_of(
    files: Vec<delegateos_vectors::load::LoadedFile>,
    options: &Options,
) -> Vec<CorpusCase> {
    let mut out = Vec::new();
    for loaded in files {
        let f = loaded.file;
        for case in f.cases {
            let advisory = f.area == "advisory"
                || case
                    .flags
                    .iter()
                    .any(|x| x.eq_ignore_ascii_case("advisory"));
            if advisory && !options.strict {
                continue;
            }
            out.push(CorpusCase {
                case,
                group: format!("{}/{}", f.area, f.group),
                advisory,
                stateful: f.stateful,
            });
        }
    }
    out
}

pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_owned())
}

/// The implementation's answer, or `Err` with the panic's text: a panic is the implementation
/// throwing on the input (`threw`, graded as a crash by the case's stake), never the harness.
fn answer<I: Implementation + ?Sized>(imp: &I, case: &Case) -> Result<Answer, String> {
    match catch_unwind(AssertUnwindSafe(|| dispatch(imp, &case.op, &case.input))) {
        Ok(Some(a)) => Ok(a),
        Ok(None) => Ok(Answer::Skip(format!(
            "operation {:?} is not catalogued",
            case.op
        ))),
        Err(payload) => Err(format!("panicked: {}", panic_text(payload.as_ref()))),
    }
}

/// Checks [`Implementation::options`]: every name must be an option of
/// [`delegateos_vectors::options::ALL`] (as `run` refuses an unknown name in `hello.options`).
pub fn check_options<I: Implementation + ?Sized>(imp: &I) -> Result<(), String> {
    let unknown: Vec<&str> = imp
        .options()
        .iter()
        .copied()
        .filter(|o| !delegateos_vectors::options::is_known(o))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let known: Vec<&str> = delegateos_vectors::options::ALL
        .iter()
        .map(|o| o.name)
        .collect();
    Err(format!(
        "Implementation::options names unknown option(s) {} (the options are: {})",
        unknown.join(", "),
        known.join(", ")
    ))
}

/// The options `case` needs that `imp` does not declare, for the skip reason.
fn missing_options<I: Implementation + ?Sized>(imp: &I, case: &Case) -> Vec<String> {
    let declared = imp.options();
    case.options
        .iter()
        .filter(|o| !declared.contains(&o.as_str()))
        .cloned()
        .collect()
}

/// Runs one case once and judges it. A case needing an option the implementation does not
/// declare ([`Implementation::options`]) is skipped, its method never called.
pub fn run_case<I: Implementation + ?Sized>(imp: &I, c: &CorpusCase) -> CaseVerdict {
    let case = &c.case;
    let errored = Outcome::Errored(ErrorKind::AdapterErrored);
    let missing = missing_options(imp, case);
    let answered = if missing.is_empty() {
        answer(imp, case)
    } else {
        Ok(Answer::Skip(format!(
            "needs option {} (not in Implementation::options)",
            missing.join(", ")
        )))
    };
    let (outcome, message) = match answered {
        Err(panic) | Ok(Answer::Threw(panic)) => (Outcome::Errored(ErrorKind::Threw), panic),
        Ok(Answer::Todo) => (Outcome::Skipped, "not implemented yet".to_owned()),
        Ok(Answer::Skip(reason)) => (Outcome::Skipped, reason),
        Ok(Answer::Errored(message)) => (errored, message),
        Ok(Answer::Error { code, .. }) if code.is_empty() => {
            (errored, "an error answer needs a non-empty code".to_owned())
        }
        Ok(Answer::Ok(out)) => judged(case, &ActualOutcome::Ok { output: out }),
        Ok(Answer::Error { code, detail }) => judged(
            case,
            &ActualOutcome::Error {
                code,
                detail: Some(detail),
            },
        ),
    };
    CaseVerdict {
        id: case.id.clone(),
        op: case.op.clone(),
        group: c.group.clone(),
        level: case.level,
        advisory: c.advisory,
        requirements: case.requirements.clone(),
        critical: critical(case, &outcome),
        status: status_of(&outcome),
        outcome,
        message,
    }
}

/// The summary of an outcome.
fn status_of(outcome: &Outcome) -> Status {
    match outcome {
        Outcome::Passed => Status::Passed,
        Outcome::Acceptable => Status::Acceptable,
        Outcome::Failed { kind, .. } => Status::Failed(*kind),
        Outcome::OtherCode { .. } => Status::OtherCode,
        Outcome::Skipped => Status::Skipped,
        Outcome::Errored(_) => Status::Errored,
    }
}

/// Whether a failure's effect, as the case's stake states it for what the implementation
/// did, is critical (the severity model `run` grades with, `spec/severity.md` §8): a wrong
/// verdict, or a throw (a crash on the input), as `run` counts either.
fn critical(case: &Case, outcome: &Outcome) -> bool {
    if !matches!(
        outcome,
        Outcome::Failed { .. } | Outcome::Errored(ErrorKind::Threw)
    ) {
        return false;
    }
    let subject = Subject {
        op: &case.op,
        flags: &case.flags,
        requirements: &case.requirements,
        expectation: Some(&case.expect),
        stake: Some(&case.stake),
    };
    outcome::assess(&subject, outcome).is_some_and(|a| a.severity == Severity::Critical)
}

fn judged(case: &Case, actual: &ActualOutcome) -> (Outcome, String) {
    let verdict = judge_case(&case.op, &case.flags, &case.expect, actual);
    let message = match &verdict {
        Verdict::Passed | Verdict::Acceptable { .. } => String::new(),
        Verdict::OtherCode { diff, family, .. } => {
            format!("rejected with another code of the family {family}\n{diff}")
        }
        Verdict::Failed { diff, kind, .. } => format!("{}\n{diff}", kind.label()),
    };
    let output = match actual {
        ActualOutcome::Ok { output } => Some(output),
        _ => None,
    };
    (Outcome::judged(verdict, output), message)
}

/// Runs `cases` in order; the cases of a stateful group are run again after the group (the
/// replay `run` does after a restart) and pass only if both runs pass.
pub fn run_cases<I: Implementation + ?Sized>(imp: &I, cases: &[CorpusCase]) -> Vec<CaseVerdict> {
    let mut out: Vec<CaseVerdict> = Vec::with_capacity(cases.len());
    let mut i = 0;
    while let Some(c) = cases.get(i) {
        if !c.stateful {
            out.push(run_case(imp, c));
            i += 1;
            continue;
        }
        let end = cases[i..]
            .iter()
            .position(|x| !x.stateful || x.group != c.group)
            .map_or(cases.len(), |n| i + n);
        let group = &cases[i..end];
        let first: Vec<CaseVerdict> = group.iter().map(|c| run_case(imp, c)).collect();
        for (c, mut v) in group.iter().zip(first) {
            let again = run_case(imp, c);
            if v.status != Status::Skipped && again.status != v.status {
                if matches!(v.status, Status::Passed | Status::Acceptable) {
                    v.status = again.status;
                    v.outcome = again.outcome;
                    v.critical = again.critical;
                }
                v.message = format!(
                    "the replay of the stateful group differs:\n{}",
                    again.message
                );
            }
            out.push(v);
        }
        i = end;
    }
    out
}

/// The cases of the vector files under `dir` (e.g. the findings a fuzzer wrote), loaded and
/// validated as `delegateos-conform run --vectors DIR` loads them, in its order; advisory
/// cases only with `options.strict`. Run them with [`run_cases`].
pub fn cases_in(dir: &std::path::Path, options: &Options) -> Result<Vec<CorpusCase>, String> {
    let files = delegateos_vectors::CorpusSource::from_option(Some(dir))
        .load()
        .map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
    Ok(cases_of(files, options))
}

/// Runs the whole embedded corpus (see [`corpus`]) against `imp`.
pub fn run_corpus<I: Implementation + ?Sized>(
    imp: &I,
    options: &Options,
) -> Result<Vec<CaseVerdict>, String> {
    check_options(imp)?;
    Ok(run_cases(imp, &corpus(options)?))
}

/// What implementing one more operation would add: per operation with skipped cases, the
/// skipped cases and the requirement ids they cite that no executed case checked; most ids
/// first, then most cases (the rule of `delegateos-conform run`'s guidance line).
pub fn next_operations(verdicts: &[CaseVerdict]) -> Vec<(String, usize, usize)> {
    outcome::next_operations(
        verdicts
            .iter()
            .map(|v| (v.op.as_str(), v.requirements.as_slice(), &v.outcome)),
    )
    .into_iter()
    .map(|n| (n.op, n.cases, n.requirements))
    .collect()
}

fn selected_by(args: &libtest_mimic::Arguments, name: &str) -> bool {
    let matches = |pattern: &str| {
        if args.exact {
            name == pattern
        } else {
            name.contains(pattern)
        }
    };
    args.filter.as_deref().is_none_or(matches) && !args.skip.iter().any(|s| matches(s))
}

/// The `main` of a `harness = false` test target: one test per case of the embedded corpus,
/// named by its id, with `cargo test`'s filters and flags (`--exact`, `--skip`, `--list`, …).
/// Options come from the environment ([`Options::from_env`]). Skipped cases are `ignored`;
/// when every selected case is skipped the run fails and names the operation to start with.
pub fn test_main<I: Implementation + Send + Sync + 'static>(imp: I) -> std::process::ExitCode {
    test_main_with(imp, Options::from_env())
}

/// [`test_main`] with explicit options.
pub fn test_main_with<I: Implementation + Send + Sync + 'static>(
    imp: I,
    options: Options,
) -> std::process::ExitCode {
    let args = libtest_mimic::Arguments::from_args();
    match run_tests(imp, options, &args) {
        Ok(run) => run.exit_code(),
        Err(e) => {
            eprintln!("delegateos-inprocess: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// The outcome of [`run_tests`].
#[derive(Debug)]
pub struct TestRun {
    /// libtest's counts.
    pub conclusion: libtest_mimic::Conclusion,
    /// The verdicts of the selected cases (empty with `--list`).
    pub verdicts: Vec<CaseVerdict>,
    /// The catalogue faults that explain the failures (`spec/faults.md`), as `run` diagnoses.
    pub diagnosis: Diagnosis,
}

/// The catalogue faults that explain `verdicts`' failures on `cases` (`spec/faults.md`):
/// the same diagnosis `delegateos-conform run` makes from the same failures.
pub fn diagnose(cases: &[CorpusCase], verdicts: &[CaseVerdict]) -> Diagnosis {
    let by_id: BTreeMap<&str, &CorpusCase> =
        cases.iter().map(|c| (c.case.id.as_str(), c)).collect();
    let mut failed = BTreeMap::new();
    let mut effects = BTreeMap::new();
    let mut ops = BTreeMap::new();
    let mut groups = BTreeMap::new();
    let mut passed = std::collections::BTreeSet::new();
    for v in verdicts.iter().filter(|v| !v.advisory) {
        match v.status {
            Status::Passed | Status::Acceptable => {
                passed.insert(v.id.clone());
            }
            _ => {
                let Some(corpus_case) = by_id.get(v.id.as_str()) else {
                    continue;
                };
                let case = &corpus_case.case;
                let subject = Subject {
                    op: &case.op,
                    flags: &case.flags,
                    requirements: &case.requirements,
                    expectation: Some(&case.expect),
                    stake: Some(&case.stake),
                };
                if let Some(a) = outcome::assess(&subject, &v.outcome) {
                    failed.insert(v.id.clone(), a.direction);
                    effects.insert(v.id.clone(), a.key);
                    ops.insert(v.id.clone(), case.op.clone());
                    groups.insert(v.id.clone(), corpus_case.group.clone());
                }
            }
        }
    }
    let mut d = faults::diagnose(&failed, &passed);
    d.join_by_effect(&effects, &ops, &groups);
    d
}

impl TestRun {
    /// True when cases were selected and every one was skipped: such a run cannot fail, so it
    /// is an error, as it is for `delegateos-conform run` (exit 3).
    pub fn nothing_ran(&self) -> bool {
        !self.verdicts.is_empty() && self.verdicts.iter().all(|v| v.status == Status::Skipped)
    }

    /// The guidance line: where to start, or the next most valuable operation.
    pub fn guidance(&self) -> Option<String> {
        let (op, n, m) = next_operations(&self.verdicts).into_iter().next()?;
        Some(if self.nothing_ran() {
            format!(
                "every selected case was skipped, so this run cannot fail: start with `{op}`: \
                 {n} cases, {m} requirements"
            )
        } else {
            format!("next most valuable operation: {op} ({n} cases, {m} requirement ids)")
        })
    }

    /// Prints the guidance line (stderr) and returns the process exit code.
    pub fn exit_code(&self) -> std::process::ExitCode {
        for m in &self.diagnosis.faults {
            if let Some(f) = faults::fault(&m.fault) {
                eprintln!(
                    "delegateos-inprocess: fault {} ({}): {} — explains {} failure(s); fix: {}",
                    f.id,
                    f.step,
                    f.title,
                    m.explained.len(),
                    f.fix
                );
            }
        }
        if !self.diagnosis.unexplained.is_empty() {
            eprintln!(
                "delegateos-inprocess: {} failure(s) no catalogued fault explains (see `delegateos-conform run` for their findings)",
                self.diagnosis.unexplained.len()
            );
        }
        if let Some(line) = self.guidance() {
            eprintln!("delegateos-inprocess: {line}");
        }
        if self.nothing_ran() {
            return std::process::ExitCode::FAILURE;
        }
        self.conclusion.exit_code()
    }
}

/// Runs the corpus as libtest trials under `args` (one per case, named by its id, its
/// `area/group` as kind): the selected cases first, in corpus order (so a skipped case can be
/// listed as `ignored`), a case outside the selection lazily if libtest asks for it.
pub fn run_tests<I: Implementation + Send + Sync + 'static>(
    imp: I,
    options: Options,
    args: &libtest_mimic::Arguments,
) -> Result<TestRun, String> {
    check_options(&imp)?;
    let cases = corpus(&options).map_err(|e| format!("the embedded corpus does not load:\n{e}"))?;
    let imp = Arc::new(imp);
    let selected: Vec<CorpusCase> = if args.list {
        Vec::new()
    } else {
        cases
            .iter()
            .filter(|c| selected_by(args, &c.case.id))
            .cloned()
            .collect()
    };
    let verdicts = run_cases(imp.as_ref(), &selected);
    let diagnosis = diagnose(&selected, &verdicts);
    let mut by_id: BTreeMap<String, CaseVerdict> =
        verdicts.iter().map(|v| (v.id.clone(), v.clone())).collect();
    let trials = cases
        .into_iter()
        .map(|c| {
            let name = c.case.id.clone();
            let kind = c.group.clone();
            let known = by_id.remove(&name);
            let ignored = known.as_ref().is_some_and(|v| v.status == Status::Skipped);
            let imp = Arc::clone(&imp);
            libtest_mimic::Trial::test(name, move || {
                let v = known.unwrap_or_else(|| run_case(imp.as_ref(), &c));
                match v.status {
                    Status::Skipped => Err(format!("skipped: {}", v.message).into()),
                    _ if v.fails(&options) => Err(v.message.into()),
                    _ => Ok(()),
                }
            })
            .with_kind(kind)
            .with_ignored_flag(ignored)
        })
        .collect();
    let conclusion = libtest_mimic::run(args, trials);
    Ok(TestRun {
        conclusion,
        verdicts,
        diagnosis,
    })
}
