//! `delegateos-conform mcp`: arguments, reports and exit codes of the MCP proxy suite.
//!
//! Exit codes are those of `delegateos-conform run`: 0 all selected cases passed (skips and
//! expected failures allowed), 1 a case failed or errored, 2 the expected-failures baseline is
//! stale, 3 setup error (the proxy does not start or never answers `initialize`, mock
//! upstream missing, baseline unreadable: one error with the proxy's stderr tail, not one
//! failure per case), 64 usage (no `{config}` in `--proxy`, `--id` selecting nothing), 130
//! interrupted (below).
//! The baseline format is the shared one (`crate::expected`).
//!
//! Interrupts: SIGINT, SIGTERM and SIGHUP (handled by `crate::runner::interrupt`, installed by
//! the dispatcher) kill every proxy process group; the case in flight and the unrun ones are
//! `errored` ("interrupted by …"), the harness (a child subreaper) kills the upstreams and any
//! other process left behind, the requested reports are written (the JSON one with
//! `"interrupted": "SIGTERM"`) and the command exits 130.
//!
//! Reports: `--format` goes to stdout, or to `--output FILE`; each `--report FORMAT=FILE`
//! writes one more (also on a setup error). Live progress goes to stderr when it is a
//! terminal, unless `--no-progress`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args as ClapArgs;

use super::suite::{
    run_suite_checked, select_ids, CaseResult, MockCommand, SmokeUpstream, Status, SuiteObserver,
    SuiteOptions, SuiteReport,
};
use delegateos_vectors::faults::{self, Diagnosis};
use delegateos_vectors::severity::Direction;

use crate::expected::ExpectedFailures;
use crate::report::mcp::{render, render_setup_error, McpCase, McpReport};
use crate::runner::Status as RunStatus;

/// Exit status: every selected case passed.
pub const EXIT_OK: u8 = 0;
/// Exit status: a case failed or errored.
pub const EXIT_FAILURES: u8 = 1;
/// Exit status: an expected failure passed, or a baseline entry matches no case.
pub const EXIT_STALE: u8 = 2;
/// Exit status: the suite could not be set up.
pub const EXIT_SETUP: u8 = 3;
/// Exit status: invalid usage.
pub const EXIT_USAGE: u8 = 64;

pub use crate::report::mcp::{Format, REPORT_SCHEMA};

/// The options the proxy has: `--option` names, and `strict-mode` for the deprecated
/// `--strict-mode-cases` (said on stderr).
fn declared_options(args: &Args) -> Vec<String> {
    let mut options = args.options.clone();
    if args.strict_mode_cases {
        eprintln!(
            "delegateos-conform mcp: --strict-mode-cases is deprecated: use --option strict-mode"
        );
        options.push(delegateos_vectors::options::STRICT_MODE.to_owned());
    }
    options.sort();
    options.dedup();
    options
}

/// Arguments of `delegateos-conform mcp`.
#[derive(Debug, Clone, ClapArgs)]
pub struct Args {
    /// Proxy command; `{config}` is replaced by the launch-config path (spec/mcp-proxy.md).
    #[arg(long)]
    pub proxy: String,
    /// Deprecated alias of `--option strict-mode` (kept for existing scripts; hidden).
    #[arg(long, hide = true)]
    pub strict_mode_cases: bool,
    /// An option the proxy has (the names of `run`'s `hello.options`,
    /// spec/adapter-protocol.md §2.1): `strict-mode` runs the strict-mode cases and session
    /// scripts (the proxy launched with `"strict": true`); a case needing an option not given
    /// is skipped, "needs option X". Repeatable or comma-separated; an unknown name is a usage
    /// error.
    #[arg(long = "option", value_name = "NAME", value_delimiter = ',')]
    pub options: Vec<String>,
    /// Format of the report written to stdout (or `--output`).
    #[arg(long, default_value = "text", value_parser = crate::report::format::parser(crate::report::format::MCP))]
    pub format: Format,
    /// Expected-failures baseline (`<id-or-glob> <reason>` per line).
    #[arg(long)]
    pub expected_failures: Option<PathBuf>,
    /// Only cases whose id matches this glob (repeatable: a case matching any is selected).
    #[arg(long)]
    pub id: Vec<String>,
    /// Write the `--format` report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write a report in FORMAT (text, json, junit, markdown, html, badge) to FILE
    /// (repeatable).
    #[arg(long, value_name = "FORMAT=FILE", value_parser = parse_report_spec)]
    pub report: Vec<ReportSpec>,
    /// No live progress on stderr (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
    /// A `delegateos-conform` executable whose `mock-upstream` subcommand serves as the
    /// recording upstream (default: this executable).
    #[arg(long)]
    pub mock_upstream: Option<PathBuf>,
    /// Directory containing `node_modules/@modelcontextprotocol/server-everything` for the
    /// smoke cases (default: `harness/mcp-smoke` if present). Smoke cases skip without it.
    #[arg(long)]
    pub smoke_dir: Option<PathBuf>,
    /// Deadline of one case, in seconds.
    #[arg(long, default_value_t = 120)]
    pub case_timeout: u64,
    /// How the suite talks to the proxy: `stdio`, or `http` (MCP Streamable HTTP: the launch
    /// config says `"transport": "http"` and the proxy prints its URL on its first stdout line).
    #[arg(long, value_enum, default_value = "stdio")]
    pub transport: TransportArg,
    /// Take the session scripts (`mcp.session` cases, spec/mcp-proxy.md §6.2) from the vector
    /// files under DIR instead of the embedded corpus.
    #[arg(long, value_name = "DIR")]
    pub session_vectors: Option<PathBuf>,
    /// Run N cases side by side, each with its own proxy and mock upstream (default 1: one
    /// after another). The report is the same for every N apart from timings: worker k of N
    /// runs cases k, k + N, …, and results are put back in case order.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: u16,
}

/// `--transport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum TransportArg {
    /// Newline-delimited JSON-RPC over the proxy's stdin/stdout.
    #[default]
    Stdio,
    /// MCP Streamable HTTP.
    Http,
}

/// One `--report FORMAT=FILE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportSpec {
    /// The format.
    pub format: Format,
    /// Where to write it.
    pub path: PathBuf,
}

/// Parses `FORMAT=FILE`.
pub fn parse_report_spec(s: &str) -> Result<ReportSpec, String> {
    let (format, path) = Format::parse_target(s, crate::report::format::MCP, "mcp")?;
    Ok(ReportSpec { format, path })
}

/// Live progress on a writer (stderr when it is a terminal): the running case on one
/// redrawn line, a persistent line per case that does not pass.
pub struct Progress<W: Write> {
    out: W,
    total: usize,
    done: usize,
}

impl<W: Write> std::fmt::Debug for Progress<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Progress({}/{})", self.done, self.total)
    }
}

impl<W: Write> Progress<W> {
    /// Progress written to `out`.
    pub fn new(out: W) -> Self {
        Self {
            out,
            total: 0,
            done: 0,
        }
    }

    /// The writer (tests read what was drawn).
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> SuiteObserver for Progress<W> {
    fn start(&mut self, total: usize) {
        self.total = total;
    }

    fn case_started(&mut self, id: &str) {
        let _ = write!(
            self.out,
            "\r\x1b[2K[{}/{}] {id} …",
            self.done + 1,
            self.total
        );
        let _ = self.out.flush();
    }

    fn case_done(&mut self, result: &CaseResult) {
        self.done += 1;
        let _ = write!(self.out, "\r\x1b[2K");
        if matches!(result.status, Status::Failed | Status::Errored) {
            let first = result
                .message
                .as_deref()
                .and_then(|m| m.lines().next())
                .unwrap_or("");
            let status = if result.status == Status::Failed {
                "FAILED "
            } else {
                "ERRORED"
            };
            let _ = writeln!(self.out, "{status} {}: {first}", result.id);
        }
        if self.done == self.total {
            let _ = writeln!(self.out, "{} cases done", self.done);
        }
        let _ = self.out.flush();
    }
}

/// Whether to draw progress: stderr is a terminal and `--no-progress` was not given.
pub fn progress_enabled(no_progress: bool, stderr_is_terminal: bool) -> bool {
    !no_progress && stderr_is_terminal
}

/// Finds server-everything under `dir` and a `node` on PATH.
pub fn find_smoke(dir: Option<&Path>) -> Option<SmokeUpstream> {
    let dir = match dir {
        Some(d) => d.to_path_buf(),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/mcp-smoke")),
    };
    let entry = dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !entry.is_file() {
        return None;
    }
    let node_ok = std::process::Command::new("node")
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    node_ok.then(|| SmokeUpstream {
        node: "node".into(),
        entry,
    })
}

/// Applies the baseline: returns the final status of each case, in suite order, and the stale
/// messages.
fn apply_baseline(
    report: &SuiteReport,
    baseline: Option<&ExpectedFailures>,
) -> (Vec<RunStatus>, Vec<String>) {
    let mut statuses = Vec::new();
    let mut stale = Vec::new();
    for c in &report.cases {
        let entry = baseline.and_then(|b| b.lookup(&c.id));
        let status = match (c.status, entry) {
            (Status::Failed | Status::Errored, Some(_)) => RunStatus::Xfail,
            (Status::Passed, Some(e)) => {
                stale.push(format!(
                    "{} passed but is listed as expected to fail ({})",
                    c.id, e.reason
                ));
                RunStatus::Stale
            }
            (Status::Passed, None) => RunStatus::Passed,
            (Status::Failed, None) => RunStatus::Failed,
            (Status::Errored, None) => RunStatus::Errored,
            (Status::Skipped, _) => RunStatus::Skipped,
        };
        statuses.push(status);
    }
    if let Some(b) = baseline {
        let ids: Vec<&str> = report.cases.iter().map(|c| c.id.as_str()).collect();
        for e in b.unused(&ids) {
            stale.push(format!(
                "baseline entry `{}` (line {}) matches no case",
                e.pattern, e.line
            ));
        }
    }
    (statuses, stale)
}

/// The severity model's assessment of one failure of a proxy case that `failed` (else errored),
/// graded by the `requirements` it violates ([`CaseResult::failure_keys`]): a failed proxy case
/// is `granted` (the proxy did what the requirement forbids: it let the call through, or
/// answered what it must not).
fn assessment_of(
    requirements: &[String],
    failed: bool,
) -> Option<delegateos_vectors::severity::Assessment> {
    use delegateos_vectors::judge::FailureKind;
    use delegateos_vectors::outcome::{self, ErrorKind, Outcome, Subject};
    let judged = if failed {
        Outcome::Failed {
            kind: FailureKind::AcceptedInvalid,
            diff: String::new(),
            output: None,
        }
    } else {
        Outcome::Errored(ErrorKind::Unjudged)
    };
    let subject = Subject {
        op: "mcp",
        flags: &[],
        requirements,
        expectation: None,
        // The proxy suite's cases state no stake yet: the rules grade them.
        stake: None,
    };
    outcome::assess(&subject, &judged)
}

/// One failure a case shows ([`CaseResult::failure_keys`]): its key, what it saw, and its
/// assessment.
struct Failure<'a> {
    key: String,
    case: &'a CaseResult,
    did: String,
    assessment: delegateos_vectors::severity::Assessment,
}

/// Every failure of the cases `counted` selects: one per violation a case observed and went
/// on past (`case#tag`), and the case itself when it stopped at a failure of its own or could
/// not be judged (an errored case's failure is errored, every other one failed).
fn failures_of<'a>(
    report: &'a SuiteReport,
    counted: impl Fn(usize, &CaseResult) -> bool,
) -> Vec<Failure<'a>> {
    report
        .cases
        .iter()
        .enumerate()
        .filter(|(i, c)| counted(*i, c))
        .flat_map(|(_, c)| {
            c.failure_keys().into_iter().filter_map(move |(key, reqs)| {
                let own = key == c.id;
                let failed = !own || c.status == Status::Failed;
                let did = match faults::split_suite_key(&key).1 {
                    Some(tag) => c
                        .observed
                        .iter()
                        .find(|o| o.tag == tag)
                        .map(|o| o.message.clone()),
                    None => c.message.clone(),
                };
                Some(Failure {
                    assessment: assessment_of(&reqs, failed)?,
                    did: did.unwrap_or_default(),
                    key,
                    case: c,
                })
            })
        })
        .collect()
}

/// Every failure of `report`, keyed as the suite's fingerprints are ([`CaseResult::failure_keys`]),
/// with its direction (what a proxy fault's fingerprint over the suite records,
/// `harness/tests/mcp_fingerprints.rs`).
pub fn failures(report: &SuiteReport) -> BTreeMap<String, Direction> {
    failures_of(report, |_, _| true)
        .into_iter()
        .map(|f| (f.key, f.assessment.direction))
        .collect()
}

/// The suite's failures explained by the catalogue's proxy faults (`spec/data/faults.json`,
/// `proxy: true`) from their fingerprints over the suite (`spec/data/mcp-fingerprints.json`):
/// the same greedy cover as `run`'s diagnosis, over failure keys ([`failures`]: one case can
/// witness several faults); a fingerprint's key that a case which ran to its end did not show
/// is a misprediction ([`absent_keys`]). An
/// unexplained failure joins a named fault only by its rule-based finding key (no operation
/// or group joins: every suite case is one operation, `mcp`).
pub fn diagnosis_of(report: &SuiteReport) -> Diagnosis {
    let all = failures_of(report, |_, _| true);
    let failed: BTreeMap<String, Direction> = all
        .iter()
        .map(|f| (f.key.clone(), f.assessment.direction))
        .collect();
    let ran_to_end: BTreeSet<&str> = report
        .cases
        .iter()
        .filter(|c| c.status == Status::Passed || (c.status == Status::Failed && !c.stopped))
        .map(|c| c.id.as_str())
        .collect();
    let prints = &faults::mcp_fingerprints().fingerprints;
    let passed = absent_keys(prints, &ran_to_end, &failed);
    let keys: BTreeMap<String, String> = all
        .iter()
        .map(|f| (f.key.clone(), f.assessment.key.clone()))
        .collect();
    let mut d = faults::diagnose_with(prints, &failed, &passed);
    d.join_by_effect(&keys, &BTreeMap::new(), &BTreeMap::new());
    // A smoke case repeats a core case against a real upstream; fingerprints leave the smoke
    // cases out (they need node and a package: a fingerprint must not depend on the machine),
    // so a smoke failure joins the one named fault whose explained failures share its
    // rule-based finding, whatever its severity.
    let smoke: Vec<String> = d
        .unexplained
        .iter()
        .filter(|id| id.starts_with("mcp-smoke-"))
        .cloned()
        .collect();
    // A smoke failure that is an observation joins the one named fault that explains the
    // same observation (`#tag`) of core cases; else the one whose failures share its rule.
    for id in smoke {
        let key = keys.get(&id);
        let tag = faults::split_suite_key(&id).1;
        let same_tag = |m: &&faults::Match| {
            tag.is_some()
                && m.explained
                    .iter()
                    .any(|c| faults::split_suite_key(c).1 == tag)
        };
        let by_tag: Vec<&faults::Match> = d.faults.iter().filter(same_tag).collect();
        if let [m] = by_tag.as_slice() {
            let fault = m.fault.clone();
            d.unexplained.remove(&id);
            d.joined.insert(id, fault);
            continue;
        }
        let mut same = d
            .faults
            .iter()
            .filter(|m| m.explained.iter().any(|c| keys.get(c) == key));
        if let (Some(m), None) = (same.next(), same.next()) {
            let fault = m.fault.clone();
            d.unexplained.remove(&id);
            d.joined.insert(id, fault);
        }
    }
    d
}

/// The failure keys of `prints` that a run shows did not happen (a fault predicting one is
/// mispredicted there): every key not `shown` of a case that ran to its end — it passed, or
/// failed only by violations it observed and went on past. A case that stopped at a failure
/// of its own says nothing of the checks it did not reach.
pub fn absent_keys(
    prints: &BTreeMap<String, BTreeMap<String, Direction>>,
    ran_to_end: &BTreeSet<&str>,
    shown: &BTreeMap<String, Direction>,
) -> BTreeSet<String> {
    prints
        .values()
        .flat_map(|p| p.keys())
        .filter(|k| ran_to_end.contains(faults::split_suite_key(k).0) && !shown.contains_key(*k))
        .cloned()
        .collect()
}

/// The suite's findings (`spec/severity.md`): the failures of the failing cases (after the
/// baseline), each filed under the proxy fault that explains it ([`diagnosis_of`]), or by the
/// severity model's rules, marked unexplained; one finding per root cause. A case that showed
/// several violations is in the finding of each (as `case#tag`).
pub fn findings_of(report: &SuiteReport, statuses: &[RunStatus]) -> Vec<crate::findings::Finding> {
    let counted = |i: usize, _: &CaseResult| {
        matches!(
            statuses.get(i),
            Some(RunStatus::Failed | RunStatus::Errored)
        )
    };
    let members = failures_of(report, counted)
        .into_iter()
        .map(|f| crate::findings::Member {
            case: crate::findings::CaseView {
                id: f.key.clone(),
                description: f.case.description.clone(),
                op: crate::findings::MCP_SUITE_OP.to_owned(),
                input_bytes: f.key.len(),
                did: f.did,
                expected: None,
                actual: None,
                diff: None,
            },
            requirements: f.case.requirements.clone(),
            assessment: f.assessment,
            counted: true,
        })
        .collect();
    let diagnosis = diagnosis_of(report);
    crate::findings::group_diagnosed(
        members,
        &delegateos_vectors::requirements::Requirements::embedded(),
        Some(&diagnosis),
    )
}

/// The report of a suite run: each case with its status after the baseline, and the findings.
pub fn report_of(report: &SuiteReport, statuses: &[RunStatus], stale: Vec<String>) -> McpReport {
    McpReport {
        proxy: report.proxy.clone(),
        duration_ms: report.duration_ms,
        cases: report
            .cases
            .iter()
            .zip(statuses)
            .map(|(c, status)| McpCase {
                id: c.id.clone(),
                description: c.description.clone(),
                requirements: c.requirements.clone(),
                status: *status,
                message: c.message.clone(),
                stderr_tail: c.stderr_tail.clone(),
                duration_ms: c.duration_ms,
                record: serde_json::to_value(c).unwrap_or_default(),
            })
            .collect(),
        stale,
        findings: findings_of(report, statuses),
        interrupted: interrupted_by(),
    }
}

/// The signal that interrupted this process, by name (`crate::runner::interrupt`).
fn interrupted_by() -> Option<String> {
    crate::runner::interrupt::interrupted().map(crate::runner::interrupt::signal_name)
}

/// What `mcp` prints and returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// For stdout (the `--format` report unless `--output` is given).
    pub stdout: String,
    /// For stderr (errors).
    pub stderr: String,
    /// The exit status (module docs).
    pub code: u8,
}

impl Outcome {
    fn error(message: impl std::fmt::Display, code: u8) -> Self {
        Self {
            stdout: String::new(),
            stderr: format!("delegateos-conform mcp: {message}\n"),
            code,
        }
    }
}

/// Writes `text` to `path`.
fn write_file(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Writes every requested report file; the `--format` one goes to stdout unless `--output`.
fn emit(args: &Args, render_as: &dyn Fn(Format) -> String, outcome: &mut Outcome) {
    let main = render_as(args.format);
    match &args.output {
        Some(p) => {
            if let Err(e) = write_file(p, &main) {
                outcome
                    .stderr
                    .push_str(&format!("delegateos-conform mcp: {e}\n"));
                outcome.code = outcome.code.max(EXIT_SETUP);
            }
        }
        None => outcome.stdout = main,
    }
    for spec in &args.report {
        if let Err(e) = write_file(&spec.path, &render_as(spec.format)) {
            outcome
                .stderr
                .push_str(&format!("delegateos-conform mcp: {e}\n"));
            outcome.code = outcome.code.max(EXIT_SETUP);
        }
    }
}

/// Runs the suite with live progress on stderr when it is a terminal (see the module docs).
pub fn run(args: &Args) -> Outcome {
    if progress_enabled(args.no_progress, std::io::stderr().is_terminal()) {
        run_observed(args, &mut Progress::new(std::io::stderr()))
    } else {
        run_observed(args, &mut super::suite::NoObserver)
    }
}

/// Runs the suite, reporting progress to `observer`.
pub fn run_observed(args: &Args, observer: &mut dyn SuiteObserver) -> Outcome {
    if !args.proxy.contains("{config}") {
        return Outcome::error(
            format!(
                "--proxy {:?} does not contain {{config}}: the proxy would never see its launch \
                 config (spec/mcp-proxy.md §2), e.g. --proxy 'my-proxy --config {{config}}'",
                args.proxy
            ),
            EXIT_USAGE,
        );
    }
    if let Err(e) = super::suite::load_session_cases(args.session_vectors.as_deref()) {
        return Outcome::error(e, EXIT_SETUP);
    }
    if select_ids(&args.id, args.session_vectors.as_deref()).is_empty() {
        return Outcome::error(
            format!(
                "--id {} selects no case (case ids look like mcp-handshake, mcp-deny-*; \
                 `delegateos-conform coverage` lists them)",
                args.id.join(" --id ")
            ),
            EXIT_USAGE,
        );
    }
    let mock = match &args.mock_upstream {
        Some(p) => MockCommand::subcommand_of(p.clone()),
        None => match MockCommand::own_executable() {
            Ok(m) => m,
            Err(e) => return Outcome::error(e, EXIT_SETUP),
        },
    };
    let baseline = match &args.expected_failures {
        None => None,
        Some(p) => match ExpectedFailures::load(p) {
            Ok(b) => Some(b),
            Err(e) => return Outcome::error(e, EXIT_SETUP),
        },
    };
    if let Some(bad) = args
        .options
        .iter()
        .find(|o| !delegateos_vectors::options::is_known(o))
    {
        let known: Vec<&str> = delegateos_vectors::options::ALL
            .iter()
            .map(|o| o.name)
            .collect();
        return Outcome::error(
            format!(
                "--option {bad}: unknown option (the options are {})",
                known.join(", ")
            ),
            EXIT_USAGE,
        );
    }
    let opts = SuiteOptions {
        proxy: args.proxy.clone(),
        mock_upstream: mock,
        options: declared_options(args),
        ids: args.id.clone(),
        case_timeout: Duration::from_secs(args.case_timeout.max(1)),
        smoke: find_smoke(args.smoke_dir.as_deref()),
        transport: match args.transport {
            TransportArg::Stdio => crate::mcp::config::Transport::Stdio,
            TransportArg::Http => crate::mcp::config::Transport::Http,
        },
        session_vectors: args.session_vectors.clone(),
        jobs: usize::from(args.jobs),
    };
    let checked = run_suite_checked(&opts, observer);
    if crate::runner::interrupt::interrupted().is_some() {
        // Every proxy is dead and reaped: kill what they left behind (their upstreams).
        crate::runner::interrupt::sweep_orphans();
    }
    let report = match checked {
        Ok(r) => r,
        Err(e) => {
            let mut outcome = Outcome::error(&e, EXIT_SETUP);
            let (text, interrupted) = (e.to_string(), interrupted_by());
            emit(
                args,
                &|f| {
                    render_setup_error(
                        &args.proxy,
                        &e.message,
                        e.stderr_tail.as_deref(),
                        &text,
                        interrupted.as_deref(),
                        f,
                    )
                },
                &mut outcome,
            );
            // The setup error is on stderr; stdout stays empty unless a report is asked for.
            if args.output.is_none() && args.format == Format::Text {
                outcome.stdout.clear();
            }
            return outcome;
        }
    };
    let (statuses, stale) = apply_baseline(&report, baseline.as_ref());
    let report = report_of(&report, &statuses, stale);
    // The report's own exit status (the one its first line states); an interrupted run exits
    // 130 from the dispatcher whatever this says.
    let code = match report.exit_code() {
        0 => EXIT_OK,
        2 => EXIT_STALE,
        _ => EXIT_FAILURES,
    };
    let mut outcome = Outcome {
        stdout: String::new(),
        stderr: String::new(),
        code,
    };
    emit(args, &|f| render(&report, f), &mut outcome);
    outcome
}

/// Runs `mcp`, prints, and returns the exit status (for the command-line dispatcher).
pub fn dispatch(args: &Args) -> i32 {
    let outcome = run(args);
    let _ = std::io::stdout().write_all(outcome.stdout.as_bytes());
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().write_all(outcome.stderr.as_bytes());
    i32::from(outcome.code)
}

/// Entry point for the `mcp` subcommand.
pub fn main_mcp(args: &Args) -> ExitCode {
    ExitCode::from(u8::try_from(dispatch(args)).unwrap_or(EXIT_FAILURES))
}
