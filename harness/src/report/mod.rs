//! Reports: one [`Report`] value built from a run, rendered as text, JSON, JUnit, Markdown,
//! HTML or a shields.io badge.
//!
//! The [`Report`] is the JSON report (schema `spec/schemas/report.schema.json`); the other
//! formats are views of it, so every format agrees on every count. This module also owns the
//! mapping from a report to the process exit code ([`Report::exit_code`]).

pub mod badge;
pub mod compare;
pub mod escape;
pub mod explain;
pub mod findings_view;
pub mod format;
pub mod html;
pub mod junit;
pub mod markdown;
pub mod mcp;
pub mod page;
pub mod progress;
pub mod setup;
pub mod text;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::exit::ConformExitCode;
use crate::expected::{Entry, ExpectedFailures};
use crate::filter::Filter;
use crate::findings::{self, assess, CaseView, Finding, Member};
use crate::protocol::{Implementation, PROTOCOL_VERSION};
use crate::runner::case::Case;
use crate::runner::{CaseResult, ErrorKind, Incident, RunOutput, Status};
use delegateos_vectors::format::{Level, Severity};
use delegateos_vectors::judge::FailureKind;
use delegateos_vectors::outcome::{self, FailOn};
use delegateos_vectors::requirements::Requirements;
use delegateos_vectors::severity::{self, Assessment, Direction};

/// The `schema` value of JSON reports.
pub const REPORT_SCHEMA: &str = "delegateos-conform-report/1";

pub use format::Format;

/// Counts per status.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Cases counted.
    pub total: usize,
    /// Passed.
    pub passed: usize,
    /// Failed (not baselined).
    pub failed: usize,
    /// Skipped.
    pub skipped: usize,
    /// Acceptable divergences.
    pub acceptable: usize,
    /// Rejected with another code of the expected code's family (hardening findings).
    pub other_code: usize,
    /// Expected failures that failed.
    pub xfail: usize,
    /// Expected failures that passed.
    pub stale: usize,
    /// Errored.
    pub errored: usize,
}

impl Counts {
    /// Adds one case.
    pub fn add(&mut self, status: Status) {
        self.total += 1;
        *self.slot(status) += 1;
    }

    fn slot(&mut self, status: Status) -> &mut usize {
        match status {
            Status::Passed => &mut self.passed,
            Status::Failed => &mut self.failed,
            Status::OtherCode => &mut self.other_code,
            Status::Skipped => &mut self.skipped,
            Status::Acceptable => &mut self.acceptable,
            Status::Xfail => &mut self.xfail,
            Status::Stale => &mut self.stale,
            Status::Errored => &mut self.errored,
        }
    }

    /// The count for one status.
    pub fn get(&self, status: Status) -> usize {
        match status {
            Status::Passed => self.passed,
            Status::Failed => self.failed,
            Status::OtherCode => self.other_code,
            Status::Skipped => self.skipped,
            Status::Acceptable => self.acceptable,
            Status::Xfail => self.xfail,
            Status::Stale => self.stale,
            Status::Errored => self.errored,
        }
    }
}

/// One section's line in the summary.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SectionSummary {
    /// `§N Title` (or `(unknown)`).
    pub section: String,
    /// Counts of the cases whose first requirement is in this section.
    pub counts: Counts,
}

/// One case in the report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CaseReport {
    /// Case id.
    pub id: String,
    /// Description.
    pub description: String,
    /// Vector area.
    pub area: String,
    /// Vector group.
    pub group: String,
    /// Vector file.
    pub file: String,
    /// Operation.
    pub op: String,
    /// Requirement ids.
    pub requirements: Vec<String>,
    /// Flags.
    pub flags: Vec<String>,
    /// Section of the first requirement.
    pub section: String,
    /// `normative`, `decision` or `hardening`.
    pub level: Level,
    /// Final status.
    pub status: Status,
    /// For a failure: wrong verdict (accepted / rejected), wrong code, output mismatch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureKind>,
    /// For `other_code`: the code family (`spec/error-codes.md` §11).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    /// Severity of a finding (failed, other_code, errored): its effect's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The effect of a finding (`spec/severity.md` §2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    /// The key of the finding the case belongs to (`spec/severity.md` §3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<String>,
    /// Size of the case's input, serialized JSON bytes.
    pub input_bytes: usize,
    /// What the implementation did, in one line (findings only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub did: Option<String>,
    /// Status before the baseline.
    pub raw_status: Status,
    /// Why it errored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// Skip reason or error message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The expectation (failures, acceptable, xfail, stale only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// What the adapter answered (when it answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// Unified diff expected vs actual.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Adapter stderr tail (errored cases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// Baseline reason, when the case is listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_failure: Option<String>,
    /// Wall time in milliseconds.
    pub duration_ms: f64,
}

/// Requirement coverage of the executed cases.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Coverage {
    /// Requirements in the spec.
    pub total: usize,
    /// Requirements with at least one executed case (a verdict was reached).
    pub executed: usize,
    /// Spec requirement ids with no executed case in this run.
    pub not_executed: Vec<String>,
    /// Ids cited by cases but absent from the spec.
    pub unknown: Vec<String>,
    /// Of [`Coverage::not_executed`], the ids the MCP proxy suite (`delegateos-conform mcp`)
    /// cites: covered there, not by this run's vector cases.
    pub mcp_suite: Vec<String>,
    /// What the skips cost: per operation with skipped cases (not declared by the adapter, or
    /// answered `skipped`), how many cases and which requirement ids no executed case checked.
    /// Most cases first.
    pub skipped_operations: Vec<SkippedOperation>,
    /// The operation whose implementation would check the most requirement ids no executed
    /// case checked, then the most cases (`crate::guidance`); `None` when nothing was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_operation: Option<String>,
}

/// The cost of one skipped operation (see [`Coverage::skipped_operations`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SkippedOperation {
    /// The operation, e.g. `contract.bind`.
    pub op: String,
    /// Skipped cases of this operation (every level).
    pub cases: usize,
    /// Requirement ids those cases cite that no executed case of this run checked: implementing
    /// the operation is the only way this run would check them.
    pub unchecked_requirements: Vec<String>,
}

impl Coverage {
    /// Spec ids covered neither by an executed vector case nor by the MCP proxy suite.
    pub fn uncovered(&self) -> Vec<&str> {
        self.not_executed
            .iter()
            .filter(|id| !self.mcp_suite.contains(id))
            .map(String::as_str)
            .collect()
    }
}

/// Baseline bookkeeping.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct BaselineReport {
    /// The baseline file, if one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Number of entries.
    pub entries: usize,
    /// Entries that match no case of the loaded corpus.
    pub unused: Vec<Entry>,
}

/// The harness itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct HarnessInfo {
    /// `delegateos-conform`.
    pub name: String,
    /// Crate version.
    pub version: String,
}

/// Advisory cases (neighbour profiles): their own counts and cases, never in `totals`.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AdvisoryReport {
    /// Whether advisory failures change the exit code (`--fail-on-advisory`).
    pub fail_on_advisory: bool,
    /// Counts of the advisory cases run.
    pub totals: Counts,
    /// The advisory cases.
    pub cases: Vec<CaseReport>,
}

/// Hardening-level cases (safe behaviour beyond the spec text): their own counts and cases,
/// never in `totals`; `other_code` results of any level are hardening findings too.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct HardeningReport {
    /// Whether hardening findings change the exit code (`--fail-on hardening`, `--profile
    /// strict`).
    pub fail_on_hardening: bool,
    /// Counts of the hardening-level cases run.
    pub totals: Counts,
    /// The hardening-level cases.
    pub cases: Vec<CaseReport>,
}

/// One line of the report's opening: a critical finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CriticalFinding {
    /// The finding key.
    pub key: String,
    /// What is broken.
    pub title: String,
    /// The effect.
    pub effect: String,
    /// Number of cases.
    pub cases: usize,
    /// The smallest case.
    pub example: String,
    /// False when none of its cases counts in the exit code.
    pub counted: bool,
    /// Its case ids (the JSON report lists them under `findings`).
    #[serde(skip)]
    pub ids: Vec<String>,
}

/// A complete run report (the JSON report's shape).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Report {
    /// Critical findings first (normative, decision and hardening), one per root cause.
    pub critical: Vec<CriticalFinding>,
    /// Critical findings whose every case the baseline (`--expected-failures`) expects: `xfail`
    /// cases that would be critical without it, grouped as findings (never counted, never
    /// hidden: every format names them on its first screen).
    pub expected_critical: Vec<CriticalFinding>,
    /// The severity model every severity comes from (`spec/severity.md`).
    pub severity_model: String,
    /// Every finding (main and hardening sections), one per root cause, most severe first.
    pub findings: Vec<Finding>,
    /// [`REPORT_SCHEMA`].
    pub schema: String,
    /// Harness name and version.
    pub harness: HarnessInfo,
    /// Adapter protocol version.
    pub protocol: u64,
    /// The implementation that answered `hello`.
    pub implementation: Implementation,
    /// Operations it declared.
    pub operations: Vec<String>,
    /// Options it declared (`hello.options`): cases needing another were skipped.
    pub options: Vec<String>,
    /// Adapter processes run at once (`--jobs`, at most one per independent unit).
    pub jobs: usize,
    /// With jobs > 1, the failing cases whose verdict differed when run again alone in one
    /// fresh process: the adapter is not safe to run in parallel; each is reported with its
    /// verdict alone, not as a finding of the parallel run.
    pub parallel_unsafe: Vec<crate::runner::ParallelUnsafe>,
    /// The adapter command.
    pub command: String,
    /// The vectors directory.
    pub vectors: String,
    /// A `--vectors DIR` that no longer matches its `manifest.json`: which files differ (the
    /// first line of every format says so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corpus_warning: Option<String>,
    /// The selection in force.
    pub filter: Filter,
    /// The profile (`delegateos-v0.1` or `strict`).
    pub profile: String,
    /// Advisory cases, reported apart from the normative ones.
    pub advisory: AdvisoryReport,
    /// Hardening-level cases, reported apart.
    pub hardening: HardeningReport,
    /// Wall time of the run in milliseconds.
    pub duration_ms: f64,
    /// The signal (`SIGINT`, `SIGTERM`, `SIGHUP`) that stopped the run early, `null` for a run
    /// that finished: the adapter was killed, the case in flight and the unsent ones are
    /// `errored` ("interrupted"), and the totals count only what ran.
    pub interrupted: Option<String>,
    /// Adapter restarts.
    pub restarts: usize,
    /// Totals.
    pub totals: Counts,
    /// Per spec section.
    pub sections: Vec<SectionSummary>,
    /// Every case.
    pub cases: Vec<CaseReport>,
    /// Protocol violations, crashes, timeouts.
    pub incidents: Vec<Incident>,
    /// Baseline bookkeeping.
    pub expected_failures: BaselineReport,
    /// Requirement coverage.
    pub coverage: Coverage,
    /// The exit code this report maps to.
    pub exit_code: i32,
    /// Whether the text report lists every failing case after the findings (`--details`).
    #[serde(skip)]
    pub details: bool,
}

/// Inputs to [`Report::build`] besides the run itself.
#[derive(Debug)]
pub struct ReportContext<'a> {
    /// The adapter command.
    pub command: &'a str,
    /// The vectors directory.
    pub vectors: &'a str,
    /// A corpus directory that differs from its manifest (`CorpusSource::warning`).
    pub corpus_warning: Option<&'a str>,
    /// Selection.
    pub filter: &'a Filter,
    /// Spec requirements.
    pub requirements: &'a Requirements,
    /// Baseline and its path.
    pub baseline: &'a ExpectedFailures,
    /// Baseline file path.
    pub baseline_file: Option<&'a str>,
    /// Every loaded case (before filtering), for unused-entry detection.
    pub all_ids: &'a [&'a str],
    /// The profile name.
    pub profile: &'a str,
    /// `--fail-on-advisory` / `--fail-on advisory`.
    pub fail_on_advisory: bool,
    /// `--fail-on hardening` or `--profile strict`.
    pub fail_on_hardening: bool,
    /// A critical finding fails the run whatever its cases' level (issue 36: severity and
    /// exit code never disagree); `--fail-on levels` turns it off, so that only the levels
    /// decide.
    pub critical_fails: bool,
    /// The requirement ids the MCP proxy suite (`delegateos-conform mcp`) checks: coverage
    /// names those a run leaves unexecuted apart.
    pub mcp_requirements: &'a BTreeSet<String>,
}

impl ReportContext<'_> {
    /// The `--fail-on` choices, for the one exit rule of a case
    /// ([`delegateos_vectors::outcome::fails_run`]).
    pub fn fail_on(&self) -> FailOn {
        FailOn {
            hardening: self.fail_on_hardening,
            advisory: self.fail_on_advisory,
            levels_only: !self.critical_fails,
        }
    }
}

pub use delegateos_vectors::severity::BROKEN_ADAPTER_KEY;

/// Whether the adapter failed every request it was sent at the protocol level (at least two;
/// abandoned and skipped cases aside): it died on each (issue 38 item 9), or none of its
/// replies was a protocol reply (issue 46: `garbage!!! <html>` to every request). Its loop is
/// broken: its crashes and garbage say nothing about the implementation's handling of
/// untrusted input. Returns the cause the report leads with, from the first such result.
fn adapter_broken_on_every_request(results: &[CaseResult]) -> Option<String> {
    let sent: Vec<&CaseResult> = results
        .iter()
        .filter(|r| {
            r.raw_status() != Status::Skipped && r.error_kind() != Some(ErrorKind::Abandoned)
        })
        .collect();
    let broken = sent.len() >= 2
        && sent.iter().all(|r| {
            matches!(
                r.error_kind(),
                Some(ErrorKind::Crash | ErrorKind::ProtocolError)
            )
        });
    broken.then(|| {
        let first = sent[0];
        let what = match first.error_kind() {
            Some(ErrorKind::Crash) => "it exits on every request",
            _ => "no reply is a protocol reply",
        };
        match first.message.as_deref().map(telling_line) {
            Some(line) if !line.is_empty() => format!("{what}: {line}"),
            _ => what.to_owned(),
        }
    })
}

/// The line of an adapter's message or stderr that names an exception or a panic
/// (`TypeError: a bytes-like object is required`, `thread 'main' panicked at …`), if any.
fn exception_line(text: &str) -> Option<&str> {
    let names_exception = |line: &str| {
        line.contains("panicked at")
            || line.split_whitespace().any(|w| {
                let w = w.trim_start_matches("Uncaught");
                let name = w.strip_suffix(':').unwrap_or("");
                (name.ends_with("Error") || name.ends_with("Exception"))
                    && name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_'))
            })
    };
    // The last such line: a traceback ends with the exception.
    text.lines().map(str::trim).rfind(|l| names_exception(l))
}

/// Issue 46: an exception (a Python `TypeError`, a panic) on a case whose answer is an error
/// code is input the implementation did not validate. The fix says so, with the code to answer
/// (`malformed_token`), instead of the generic crash or adapter hint.
fn exception_on_rejected_input(a: Assessment, case: &Case, result: &CaseResult) -> Assessment {
    if !matches!(a.direction, Direction::Crash | Direction::Errored)
        || !matches!(
            result.error_kind(),
            Some(ErrorKind::Crash | ErrorKind::Threw | ErrorKind::AdapterErrored)
        )
    {
        return a;
    }
    let Some(delegateos_vectors::Expected::Invalid { code, .. }) =
        case.expect.outcomes().first().cloned()
    else {
        return a;
    };
    let texts = [result.message.as_deref(), result.stderr_tail.as_deref()];
    let Some(line) = texts.into_iter().flatten().find_map(exception_line) else {
        return a;
    };
    let line: String = if line.chars().count() > 120 {
        format!("{}…", line.chars().take(119).collect::<String>())
    } else {
        line.to_owned()
    };
    Assessment {
        fix: format!(
            "The implementation raised an exception on input it must reject ({line}): validate \
             the input before using it (its type, encoding and required members) and answer an \
             `error` reply with the operation's code for it (`{code}` here, see \
             spec/error-codes.md); never let an exception escape on untrusted input."
        ),
        ..a
    }
}

/// Two one-line JSON texts cut to a readable length around where they first differ, so that
/// a long expected and actual output never read alike (issue 38 item 10).
fn compact_pair(a: &str, b: &str) -> (String, String) {
    const MAX: usize = 160;
    const BEFORE: usize = 40;
    let (ac, bc): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if ac.len() <= MAX && bc.len() <= MAX {
        return (a.to_owned(), b.to_owned());
    }
    let first_diff = ac
        .iter()
        .zip(&bc)
        .position(|(x, y)| x != y)
        .unwrap_or(ac.len().min(bc.len()));
    let start = first_diff.saturating_sub(BEFORE);
    let cut = |cs: &[char]| {
        let end = (start + MAX).min(cs.len());
        format!(
            "{}{}{}",
            if start > 0 { "…" } else { "" },
            cs[start.min(cs.len())..end].iter().collect::<String>(),
            if end < cs.len() { "…" } else { "" }
        )
    };
    (cut(&ac), cut(&bc))
}

/// The line of an adapter's error message that says what went wrong: the first, except for a
/// Python traceback, whose last line names the exception (issue 38 item 4).
fn telling_line(message: &str) -> &str {
    let first = message.lines().next().unwrap_or("");
    if first.starts_with("Traceback (most recent call last)") {
        message
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or(first)
            .trim()
    } else {
        first
    }
}

/// The outcomes a case accepts, in one phrase: `invalid revoked`, `invalid (invalid_signature
/// or malformed_token)`, `valid or invalid expired` (issue 46: once `invalid invalid_signature
/// or invalid malformed_token`).
fn code_list(case: &Case) -> String {
    outcome_phrase(&case.expect.outcomes())
}

fn outcome_phrase(outcomes: &[delegateos_vectors::Expected]) -> String {
    let mut valid = false;
    let mut codes: Vec<&str> = Vec::new();
    for o in outcomes {
        match o {
            delegateos_vectors::Expected::Valid { .. } => valid = true,
            delegateos_vectors::Expected::Invalid { code, .. } => {
                if !codes.contains(&code.as_str()) {
                    codes.push(code);
                }
            }
        }
    }
    let invalid = match codes.as_slice() {
        [] => None,
        [one] => Some(format!("invalid {one}")),
        many => Some(format!("invalid ({})", many.join(" or "))),
    };
    match (valid, invalid) {
        (true, Some(i)) => format!("valid or {i}"),
        (true, None) => "valid".to_owned(),
        (false, Some(i)) => i,
        (false, None) => "?".to_owned(),
    }
}

/// What the implementation did, in one line (e.g. "valid where invalid revoked expected").
pub fn did_of(case: &Case, result: &CaseResult) -> Option<String> {
    let actual = result.actual.as_ref();
    let code = actual
        .and_then(|a| a.get("code"))
        .and_then(Value::as_str)
        .unwrap_or("?");
    let expected = code_list(case);
    Some(match result.raw_status() {
        Status::OtherCode => format!(
            "rejected with another code: {code} where invalid {} expected (family {})",
            match case.expect.outcomes().first() {
                Some(delegateos_vectors::Expected::Invalid { code, .. }) => code.clone(),
                _ => "?".to_owned(),
            },
            result.family().unwrap_or("?")
        ),
        Status::Errored => format!(
            "{} ({})",
            result.error_kind().map_or("errored", ErrorKind::name),
            telling_line(result.message.as_deref().unwrap_or(""))
        ),
        Status::Failed => match result.failure_kind() {
            Some(FailureKind::AcceptedInvalid) => {
                format!(
                    "accepted: valid where {expected} expected — {}",
                    case.description
                )
            }
            Some(FailureKind::RejectedValid) => {
                format!("rejected: invalid {code} where {expected} expected")
            }
            Some(FailureKind::WrongCode) => {
                format!("wrong code: invalid {code} where {expected} expected")
            }
            Some(FailureKind::OutputMismatch) => {
                let got = actual
                    .and_then(|a| a.get("output"))
                    .map(Value::to_string)
                    .unwrap_or_default();
                let want = case
                    .expect
                    .outcomes()
                    .iter()
                    .find_map(|o| match o {
                        delegateos_vectors::Expected::Valid { output } => Some(output.to_string()),
                        delegateos_vectors::Expected::Invalid { .. } => None,
                    })
                    .unwrap_or_default();
                let (got, want) = compact_pair(&got, &want);
                format!("answered {got} where {want} expected")
            }
            Some(FailureKind::NoAnswer) | None => "no answer".to_owned(),
        },
        _ => return None,
    })
}

/// The size of a case's input, serialized JSON bytes (the smallest case is a finding's example).
fn input_bytes(case: &Case) -> usize {
    serde_json::to_string(&case.input).map_or(0, |t| t.len())
}

fn ms(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0
}

/// The counts, case reports and finding members of a run, gathered case by case
/// ([`Report::build`]'s second step).
struct Tally<'a> {
    totals: Counts,
    by_section: BTreeMap<String, Counts>,
    case_reports: Vec<CaseReport>,
    executed_ids: BTreeSet<&'a str>,
    cited: BTreeSet<&'a str>,
    /// op -> (skipped cases, ids they cite)
    skipped_ops: BTreeMap<&'a str, (usize, BTreeSet<&'a str>)>,
    advisory: AdvisoryReport,
    hardening: HardeningReport,
    members: Vec<Member>,
    /// The xfail cases that would be critical findings without the baseline.
    expected_members: Vec<Member>,
}

/// The grading of a run's results, done once before the cases are tallied: each result's
/// assessment, and the catalogue faults that explain the failures.
struct Grading {
    assessments: Vec<Option<Assessment>>,
    keys: BTreeSet<String>,
    diagnosis: delegateos_vectors::faults::Diagnosis,
}

/// Step 1 of [`Report::build`]: every case is graded once, first: the finding keys the run
/// names decide which cases join a rule's finding (spec/severity.md §3), so each case names
/// its final finding; and the catalogue faults that explain the run's failures (issue 47) file
/// each failing case under the fault that explains it, here and in the findings.
fn grade(cases: &[Case], run: &RunOutput) -> Grading {
    let adapter_broken = adapter_broken_on_every_request(&run.results);
    let assessments: Vec<Option<Assessment>> = run
        .results
        .iter()
        .map(|result| {
            let case = cases.get(result.index)?;
            // A case an interrupt left unsent is nobody's finding (issue 46): the adapter
            // was never asked.
            let unreached =
                run.interrupted.is_some() && result.error_kind() == Some(ErrorKind::Abandoned);
            let finding = matches!(
                result.status,
                Status::Failed | Status::OtherCode | Status::Errored
            ) && !unreached;
            let a = assess(case, result).filter(|_| finding)?;
            Some(match &adapter_broken {
                Some(cause) if matches!(a.direction, Direction::Crash | Direction::Errored) => {
                    severity::model().broken_adapter(a, cause)
                }
                _ => exception_on_rejected_input(a, case, result),
            })
        })
        .collect();
    let counted = || {
        run.results
            .iter()
            .zip(&assessments)
            .filter_map(|(r, a)| Some((cases.get(r.index).filter(|c| !c.is_advisory())?, a)))
    };
    let keys = findings::own_keys(counted().filter_map(|(_, a)| a.as_ref()));
    let diagnosis = findings::diagnose(
        counted().filter_map(|(case, a)| {
            let group = format!("{}/{}", case.area, case.group);
            Some((case.id.as_str(), case.op.as_str(), group, a.as_ref()?))
        }),
        run.results
            .iter()
            .filter(|r| matches!(r.raw_status(), Status::Passed | Status::Acceptable))
            .filter_map(|r| cases.get(r.index).map(|c| c.id.as_str())),
    );
    Grading {
        assessments,
        keys,
        diagnosis,
    }
}

/// A finding member: one failing case with its assessment.
fn member_of(
    case: &Case,
    result: &CaseResult,
    assessment: Assessment,
    counted: bool,
    did: String,
) -> Member {
    Member {
        case: CaseView {
            id: case.id.clone(),
            description: case.description.clone(),
            op: case.op.clone(),
            input_bytes: input_bytes(case),
            did,
            expected: Some(case.expect_json()),
            actual: result.actual.clone(),
            diff: result.diff().map(str::to_owned),
        },
        // A broken adapter's finding quotes no requirement: none was checked.
        requirements: if assessment.key == BROKEN_ADAPTER_KEY {
            Vec::new()
        } else {
            case.requirements.clone()
        },
        assessment,
        counted,
    }
}

impl<'a> Tally<'a> {
    fn new(ctx: &ReportContext<'_>, cases: usize) -> Self {
        Tally {
            totals: Counts::default(),
            by_section: BTreeMap::new(),
            case_reports: Vec::with_capacity(cases),
            executed_ids: BTreeSet::new(),
            cited: BTreeSet::new(),
            skipped_ops: BTreeMap::new(),
            advisory: AdvisoryReport {
                fail_on_advisory: ctx.fail_on_advisory,
                ..AdvisoryReport::default()
            },
            hardening: HardeningReport {
                fail_on_hardening: ctx.fail_on_hardening,
                ..HardeningReport::default()
            },
            members: Vec::new(),
            expected_members: Vec::new(),
        }
    }

    /// Step 2 of [`Report::build`]: one case's counts, requirements, finding member and report.
    fn add(
        &mut self,
        case: &'a Case,
        result: &CaseResult,
        assessment: Option<Assessment>,
        grading: &Grading,
        ctx: &ReportContext<'_>,
    ) {
        let section = case
            .requirements
            .first()
            .map(|r| ctx.requirements.section_of(r))
            .unwrap_or_else(|| delegateos_vectors::requirements::UNKNOWN_SECTION.to_owned());
        let is_advisory = case.is_advisory();
        let is_hardening = !is_advisory && case.level == Level::Hardening;
        if is_advisory {
            self.advisory.totals.add(result.status);
        } else if is_hardening {
            self.hardening.totals.add(result.status);
        } else {
            self.totals.add(result.status);
            self.by_section
                .entry(section.clone())
                .or_default()
                .add(result.status);
        }
        self.note_requirements(case, result);
        let finding = matches!(
            result.status,
            Status::Failed | Status::OtherCode | Status::Errored
        );
        let did = if finding { did_of(case, result) } else { None };
        if let (Some(a), false) = (&assessment, is_advisory) {
            let counted = outcome::fails_run(
                case.level,
                false,
                &result.outcome,
                a.severity == Severity::Critical,
                ctx.fail_on(),
            );
            let did = did.clone().unwrap_or_default();
            self.members
                .push(member_of(case, result, a.clone(), counted, did));
        }
        if result.status == Status::Xfail && !is_advisory {
            if let Some(a) = assess(case, result).filter(|a| a.severity == Severity::Critical) {
                let did = did_of(case, result).unwrap_or_default();
                let mut member = member_of(case, result, a, false, did);
                member.requirements = case.requirements.clone();
                self.expected_members.push(member);
            }
        }
        let report = case_report(case, result, assessment, section, did, grading);
        if is_advisory {
            self.advisory.cases.push(report);
        } else if is_hardening {
            self.hardening.cases.push(report);
        } else {
            self.case_reports.push(report);
        }
    }

    /// The requirements a case cites, executed or not, and the skipped operations.
    fn note_requirements(&mut self, case: &'a Case, result: &CaseResult) {
        let executed = matches!(
            result.raw_status(),
            Status::Passed | Status::Failed | Status::Acceptable
        );
        for r in &case.requirements {
            self.cited.insert(r);
            if executed {
                self.executed_ids.insert(r);
            }
        }
        if result.raw_status() == Status::Skipped {
            let entry = self.skipped_ops.entry(case.op.as_str()).or_default();
            entry.0 += 1;
            entry.1.extend(case.requirements.iter().map(String::as_str));
        }
    }

    /// Sections in spec order, then anything unknown.
    fn sections(&mut self, reqs: &Requirements) -> Vec<SectionSummary> {
        let mut by_section = std::mem::take(&mut self.by_section);
        let mut sections = Vec::new();
        for s in reqs.sections() {
            if let Some(c) = by_section.remove(&s) {
                sections.push(SectionSummary {
                    section: s,
                    counts: c,
                });
            }
        }
        for (s, c) in by_section {
            sections.push(SectionSummary {
                section: s,
                counts: c,
            });
        }
        sections
    }

    /// Step 3 of [`Report::build`]: which requirements the run executed, and what it skipped.
    fn coverage(&self, cases: &[Case], run: &RunOutput, ctx: &ReportContext<'_>) -> Coverage {
        let reqs = ctx.requirements;
        let executed = |id: &str| self.executed_ids.contains(id);
        let mut skipped_operations: Vec<SkippedOperation> = self
            .skipped_ops
            .iter()
            .map(|(op, (n, ids))| SkippedOperation {
                op: (*op).to_owned(),
                cases: *n,
                unchecked_requirements: ids
                    .iter()
                    .filter(|id| !executed(id))
                    .map(|id| (*id).to_owned())
                    .collect(),
            })
            .collect();
        skipped_operations.sort_by(|a, b| b.cases.cmp(&a.cases).then_with(|| a.op.cmp(&b.op)));
        Coverage {
            total: reqs.list.len(),
            executed: reqs.list.iter().filter(|r| executed(&r.id)).count(),
            not_executed: reqs
                .list
                .iter()
                .filter(|r| !executed(&r.id))
                .map(|r| r.id.clone())
                .collect(),
            mcp_suite: reqs
                .list
                .iter()
                .filter(|r| !executed(&r.id) && ctx.mcp_requirements.contains(&r.id))
                .map(|r| r.id.clone())
                .collect(),
            skipped_operations,
            next_operation: crate::guidance::message(cases, &run.results, false),
            unknown: if reqs.list.is_empty() {
                Vec::new()
            } else {
                self.cited
                    .iter()
                    .filter(|id| reqs.get(id).is_none())
                    .map(|id| (*id).to_owned())
                    .collect()
            },
        }
    }
}

/// One case as the report shows it.
fn case_report(
    case: &Case,
    result: &CaseResult,
    assessment: Option<Assessment>,
    section: String,
    did: Option<String>,
    grading: &Grading,
) -> CaseReport {
    let finding = matches!(
        result.status,
        Status::Failed | Status::OtherCode | Status::Errored
    );
    let show_expected = matches!(
        result.status,
        Status::Failed | Status::OtherCode | Status::Acceptable | Status::Xfail | Status::Stale
    );
    CaseReport {
        id: case.id.clone(),
        description: case.description.clone(),
        area: case.area.clone(),
        group: case.group.clone(),
        file: case.file.display().to_string(),
        op: case.op.clone(),
        requirements: case.requirements.clone(),
        flags: case.flags.clone(),
        section,
        level: case.level,
        status: result.status,
        failure: result.failure_kind().filter(|_| finding),
        family: result.family().map(str::to_owned).filter(|_| finding),
        severity: assessment.as_ref().map(|a| a.severity),
        finding: assessment
            .as_ref()
            .map(|a| findings::case_key(&case.id, a, &grading.keys, &grading.diagnosis)),
        effect: assessment.map(|a| a.effect),
        input_bytes: input_bytes(case),
        did,
        raw_status: result.raw_status(),
        error_kind: result.error_kind(),
        message: result.message.clone(),
        expected: show_expected.then(|| case.expect_json()),
        actual: result.actual.clone(),
        diff: result.diff().map(str::to_owned),
        stderr_tail: result.stderr_tail.clone(),
        expected_failure: result.expected_failure.clone(),
        duration_ms: ms(result.duration),
    }
}

/// A critical finding as the report's summary lists it.
fn critical_of(f: &Finding) -> CriticalFinding {
    CriticalFinding {
        key: f.key.clone(),
        title: f.title.clone(),
        effect: f.effect.clone(),
        cases: f.cases,
        example: f.example.id.clone(),
        counted: f.counted,
        ids: f.ids.clone(),
    }
}

impl Report {
    /// Builds the report for `cases` (the selected cases, in the order run) and `run`: the
    /// results are graded (step 1), tallied case by case (step 2), their coverage computed
    /// (step 3), and the findings grouped by the faults and rules that explain them.
    pub fn build(cases: &[Case], run: &RunOutput, ctx: &ReportContext<'_>) -> Self {
        let mut grading = grade(cases, run);
        let assessments = std::mem::take(&mut grading.assessments);
        let mut tally = Tally::new(ctx, run.results.len());
        for (result, assessment) in run.results.iter().zip(assessments) {
            if let Some(case) = cases.get(result.index) {
                tally.add(case, result, assessment, &grading, ctx);
            }
        }
        let sections = tally.sections(ctx.requirements);
        let coverage = tally.coverage(cases, run, ctx);
        let findings = findings::group_diagnosed(
            std::mem::take(&mut tally.members),
            ctx.requirements,
            Some(&grading.diagnosis),
        );
        let critical = findings
            .iter()
            .filter(|f| f.severity == Severity::Critical)
            .map(critical_of)
            .collect();
        let expected_critical = findings::group(
            std::mem::take(&mut tally.expected_members),
            ctx.requirements,
        )
        .iter()
        .filter(|f| f.severity == Severity::Critical)
        .map(critical_of)
        .collect();
        let mut report = Report {
            critical,
            expected_critical,
            severity_model: findings::SEVERITY_MODEL.to_owned(),
            findings,
            schema: REPORT_SCHEMA.to_owned(),
            harness: HarnessInfo {
                name: env!("CARGO_PKG_NAME").to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
            },
            protocol: PROTOCOL_VERSION,
            implementation: run.implementation.clone(),
            operations: run.operations.clone(),
            options: run.options.clone(),
            jobs: run.jobs,
            parallel_unsafe: run.parallel_unsafe.clone(),
            command: ctx.command.to_owned(),
            vectors: ctx.vectors.to_owned(),
            corpus_warning: ctx.corpus_warning.map(str::to_owned),
            filter: ctx.filter.clone(),
            profile: ctx.profile.to_owned(),
            advisory: tally.advisory,
            hardening: tally.hardening,
            duration_ms: ms(run.duration),
            interrupted: run.interrupted.clone(),
            restarts: run.restarts,
            totals: tally.totals,
            sections,
            cases: tally.case_reports,
            incidents: run.incidents.clone(),
            expected_failures: BaselineReport {
                file: ctx.baseline_file.map(str::to_owned),
                entries: ctx.baseline.entries.len(),
                unused: ctx
                    .baseline
                    .unused(ctx.all_ids)
                    .into_iter()
                    .cloned()
                    .collect(),
            },
            coverage,
            exit_code: 0,
            details: false,
        };
        report.exit_code = report.compute_exit_code();
        report
    }

    /// The documented exit code: 130 if the run was interrupted; else 1 if a normative or
    /// decision case failed or errored, or a
    /// critical finding of any level was found (unless `--fail-on levels`), or a
    /// hardening finding, with `--fail-on hardening` / `--profile strict`; an advisory
    /// failure with `--fail-on advisory`), else 2 if the baseline is stale (a listed case
    /// passed, or an entry matches nothing), else 0. `other_code` results are hardening
    /// findings whatever the case's level.
    fn compute_exit_code(&self) -> i32 {
        // An interrupted run exits 130 whatever it found (issue 38 item 6: the partial
        // reports say what the process returns).
        if self.interrupted.is_some() {
            return ConformExitCode::INTERRUPTED;
        }
        // An adapter that fails every request is an adapter error (issue 46), as one that
        // cannot start is.
        if self.findings.iter().any(|f| f.key == BROKEN_ADAPTER_KEY) {
            return ConformExitCode::SETUP_ERROR;
        }
        let advisory_failed = self.advisory.fail_on_advisory
            && (self.advisory.totals.failed > 0 || self.advisory.totals.errored > 0);
        let h = &self.hardening.totals;
        let hardening_failed = self.hardening.fail_on_hardening
            && (h.failed > 0 || h.errored > 0 || h.other_code > 0 || self.totals.other_code > 0);
        // A critical finding is counted whatever its level unless `--fail-on levels`.
        let critical_failed = self.critical.iter().any(|c| c.counted);
        if self.totals.failed > 0
            || self.totals.errored > 0
            || advisory_failed
            || hardening_failed
            || critical_failed
        {
            ConformExitCode::FAILURES
        } else if self.totals.stale > 0 || !self.expected_failures.unused.is_empty() {
            ConformExitCode::STALE_EXPECTED_FAILURES
        } else {
            ConformExitCode::OK
        }
    }

    /// The process exit code for this report.
    pub fn exit_code(&self) -> i32 {
        self.exit_code
    }

    /// The verdict word every format shows (issue 38 item 8): `PASSED`, `FAILED`,
    /// `STALE BASELINE`, `ADAPTER ERROR` (an adapter that fails every request, exit 3) or
    /// `INTERRUPTED`, from the exit code alone.
    pub fn verdict_word(&self) -> &'static str {
        match (self.interrupted.is_some(), self.exit_code) {
            (true, _) => "INTERRUPTED",
            (false, 0) => "PASSED",
            (false, 2) => "STALE BASELINE",
            (false, 3) => "ADAPTER ERROR",
            (false, _) => "FAILED",
        }
    }

    /// What the verdict covers, when the run skipped cases or left some unsent: `88 of 2097
    /// counted cases run; 1 of 37 operations` (a run that skips almost everything must not
    /// read as a plain pass; a broken adapter given up on after 20 requests must not read as
    /// if 1047 ran). `None` when every counted case ran.
    pub fn coverage_note(&self) -> Option<String> {
        let t = &self.totals;
        let unsent = |c: &&CaseReport| {
            c.status == Status::Skipped || c.error_kind == Some(ErrorKind::Abandoned)
        };
        let sent = self.cases.iter().filter(|c| !unsent(c)).count();
        if sent == t.total {
            return None;
        }
        let ops: BTreeSet<&str> = self.cases.iter().map(|c| c.op.as_str()).collect();
        let ran: BTreeSet<&str> = self
            .cases
            .iter()
            .filter(|c| !unsent(c))
            .map(|c| c.op.as_str())
            .collect();
        Some(format!(
            "{sent} of {} counted cases run; {} of {} operations",
            t.total,
            ran.len(),
            ops.len()
        ))
    }

    /// The verdict with what it covers: `PASSED (88 of 2097 counted cases run; 1 of 37
    /// operations)`, or the word alone when everything ran.
    pub fn verdict(&self) -> String {
        match self.coverage_note() {
            Some(note) => format!("{} ({note})", self.verdict_word()),
            None => self.verdict_word().to_owned(),
        }
    }

    /// `options declared (hello.options): strict-mode`, as every format says it (issue 49).
    pub fn options_line(&self) -> String {
        format!(
            "options declared (hello.options): {}",
            if self.options.is_empty() {
                "none (cases needing one are skipped)".to_owned()
            } else {
                self.options.join(", ")
            }
        )
    }

    /// `name version (language)` of the implementation, as every format names it.
    pub fn implementation_label(&self) -> String {
        let imp = &self.implementation;
        match imp.language.as_deref() {
            Some(l) => format!("{} {} ({l})", imp.name, imp.version),
            None => format!("{} {}", imp.name, imp.version),
        }
    }

    /// The one-line verdict strip every format opens with (issue 38 item 7): verdict and
    /// coverage, implementation and version, corpus, counts and exit code.
    pub fn verdict_strip(&self) -> String {
        let t = &self.totals;
        format!(
            "{} — {} — corpus {} — {} passed, {} failed, {} errored, {} xfail; {} critical finding(s){} — exit {}",
            self.verdict(),
            self.implementation_label(),
            self.vectors,
            t.passed + t.acceptable,
            t.failed,
            t.errored,
            t.xfail,
            self.critical.len(),
            match self.expected_critical.len() {
                0 => String::new(),
                n => format!(" and {n} expected by the baseline"),
            },
            self.exit_code
        )
    }

    /// The line every format opens its findings with: `Critical findings: none`, `Critical
    /// findings: 2`, or, when the baseline expects critical findings, `Critical findings: 2
    /// expected by the baseline: forgery, expiry-bypass` (after the counted ones, if any), so
    /// that a baseline never hides a critical finding.
    pub fn critical_line(&self) -> String {
        let counted = match self.critical.len() {
            0 if self.expected_critical.is_empty() => "none".to_owned(),
            0 => String::new(),
            n => n.to_string(),
        };
        if self.expected_critical.is_empty() {
            return format!("Critical findings: {counted}");
        }
        let mut effects: Vec<&str> = Vec::new();
        for f in &self.expected_critical {
            if !effects.contains(&f.effect.as_str()) {
                effects.push(&f.effect);
            }
        }
        let cases: usize = self.expected_critical.iter().map(|f| f.cases).sum();
        format!(
            "Critical findings: {counted}{}{} expected by the baseline: {} ({cases} xfail case{})",
            if counted.is_empty() { "" } else { ", and " },
            self.expected_critical.len(),
            effects.join(", "),
            if cases == 1 { "" } else { "s" }
        )
    }

    /// `The adapter is not safe to run in parallel: …` when a case's verdict alone differed
    /// from its verdict with several processes, else `None`.
    pub fn parallel_line(&self) -> Option<String> {
        const SHOWN: usize = 8;
        if self.parallel_unsafe.is_empty() {
            return None;
        }
        let mut cases: Vec<String> = self
            .parallel_unsafe
            .iter()
            .take(SHOWN)
            .map(|p| {
                format!(
                    "{} ({} with {} jobs, {} alone)",
                    p.id, p.parallel, self.jobs, p.alone
                )
            })
            .collect();
        if self.parallel_unsafe.len() > SHOWN {
            cases.push(format!("… {} more", self.parallel_unsafe.len() - SHOWN));
        }
        Some(format!(
            "The adapter is not safe to run in parallel: {} case(s) gave another verdict when run \
             again alone in one fresh process, and are reported as they ran alone (give each \
             process its own temporary files, ports and locks: DELEGATEOS_CONFORM_WORKER, \
             TMPDIR; or run --jobs 1): {}",
            self.parallel_unsafe.len(),
            cases.join(", ")
        ))
    }

    /// Failing cases (failed, other_code, errored) of the main and hardening sections, most
    /// severe first, then by id.
    pub fn failing_cases(&self) -> Vec<&CaseReport> {
        let mut out: Vec<&CaseReport> = self
            .cases
            .iter()
            .chain(&self.hardening.cases)
            .filter(|c| c.severity.is_some())
            .collect();
        out.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| a.id.cmp(&b.id)));
        out
    }

    /// Cases with a given status.
    pub fn with_status(&self, status: Status) -> impl Iterator<Item = &CaseReport> {
        self.cases.iter().filter(move |c| c.status == status)
    }

    /// Renders in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => text::render(self),
            Format::Json => {
                let mut s = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".into());
                s.push('\n');
                s
            }
            Format::Junit => junit::render(self),
            Format::Markdown => markdown::render(self),
            Format::Html => html::render(self),
            Format::Badge => {
                let t = &self.totals;
                let tally = badge::Tally {
                    passed: t.passed + t.acceptable,
                    failing: t.failed + t.errored,
                    skipped: t.skipped,
                    total: t.total,
                };
                badge::render(badge::RUN_LABEL, &badge::message(tally), self.exit_code)
            }
        }
    }
}

#[cfg(test)]
mod did_tests {
    use super::{compact_pair, outcome_phrase, telling_line};
    use delegateos_vectors::Expected;

    /// Issue 46: `invalid invalid_signature or invalid malformed_token` read as two verdicts.
    #[test]
    fn accepted_outcomes_read_as_one_phrase() {
        let invalid = |code: &str| Expected::Invalid {
            code: code.to_owned(),
            stage: None,
        };
        let valid = Expected::Valid {
            output: serde_json::json!({}),
        };
        assert_eq!(outcome_phrase(&[invalid("revoked")]), "invalid revoked");
        assert_eq!(
            outcome_phrase(&[invalid("invalid_signature"), invalid("malformed_token")]),
            "invalid (invalid_signature or malformed_token)"
        );
        assert_eq!(
            outcome_phrase(&[valid.clone(), invalid("expired"), invalid("expired")]),
            "valid or invalid expired"
        );
        assert_eq!(outcome_phrase(&[valid]), "valid");
    }

    #[test]
    fn long_outputs_are_cut_where_they_differ() {
        let common = "x".repeat(300);
        let (a, b) = compact_pair(&format!("{common}AAA"), &format!("{common}BBB"));
        assert!(a.contains("AAA") && b.contains("BBB"), "{a} / {b}");
        assert!(a.starts_with('…') && b.starts_with('…'));
        assert_eq!(
            compact_pair("{\"a\":1}", "{\"a\":2}"),
            ("{\"a\":1}".into(), "{\"a\":2}".into())
        );
    }

    #[test]
    fn a_python_traceback_is_named_by_its_last_line() {
        let tb = "Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n    x()\nTypeError: 'NoneType' object is not callable\n";
        assert_eq!(
            telling_line(tb),
            "TypeError: 'NoneType' object is not callable"
        );
        assert_eq!(telling_line("boom\nmore"), "boom");
        assert_eq!(telling_line(""), "");
    }
}
