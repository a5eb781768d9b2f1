//! The `delegateos-conform` command line: argument parsing, the subcommands, exit codes.
//!
//! This module owns every flag and its validation and the mapping from outcomes to the
//! documented exit codes ([`ConformExitCode`]); the work itself happens in `runner`, `report`,
//! `requirements` and `vectors`. `src/bin/delegateos-conform.rs` only calls [`main`].

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

pub use crate::exit::{ConformExitCode, EXIT_CODES_HELP};
use crate::expected::ExpectedFailures;
pub use crate::filter::FilterArgs;
use crate::report::progress::ProgressBar;
use crate::report::{Format, Report, ReportContext};
use crate::runner::case::{load_corpus, Case};
use crate::runner::{self, Observer, Quiet, RunConfig};
use delegateos_vectors::requirements::Requirements;
use delegateos_vectors::CorpusSource;

/// DelegateOS conformance harness.
#[derive(Debug, Parser)]
#[command(
    name = "delegateos-conform",
    version,
    about = "Runs the DelegateOS conformance vectors against any implementation over the \
             JSON-lines adapter protocol (spec/adapter-protocol.md).",
    after_help = EXIT_CODES_HELP
)]
pub struct Cli {
    /// The subcommand.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the vectors against an implementation through its adapter (default: the built-in
    /// reference).
    #[command(after_help = EXIT_CODES_HELP)]
    Run(Box<RunArgs>),
    /// Requirement coverage of the vectors and the MCP proxy suite: id, section, number of
    /// vector cases and of suite cases. Fails if a requirement is cited by neither or a case
    /// cites an unknown id.
    Coverage(CoverageArgs),
    /// Print the implementation info and operations an adapter declares in `hello`.
    ListOps(ListOpsArgs),
    /// List what the corpus offers to the filters: areas, groups, flags, requirements, cases
    /// or ops (with case counts), narrowed by the same filters as `run`.
    List(crate::list::ListArgs),
    /// Export the embedded corpus for another language (`vectors export DIR`); generate or
    /// check the committed vectors (`generate`, `check`: need the `generator` feature,
    /// `cargo run -p delegateos-conform --features generator -- vectors …`).
    #[command(subcommand)]
    Vectors(VectorsCommand),
    /// Run the MCP proxy conformance suite (spec §11) against `--proxy CMD`.
    Mcp(Box<crate::mcp::cli::Args>),
    /// Lint a token or a delegation chain: the normative verify steps 1–4 outcome, a decoded
    /// summary and effective scope, and the advisory neighbour-profile findings
    /// (spec/neighbours.md). Exit 0 when steps 1–4 pass (advisory findings never change it
    /// unless --fail-on-advisory), 1 otherwise.
    Lint(crate::lint::LintArgs),
    /// Differential fuzzing of an implementation against the reference: mutates corpus cases
    /// of each `--op` (default `dct.verify`) structurally, re-signs them with the published
    /// test keys, and writes every disagreement, crash or timeout as a minimized, replayable
    /// vector-format case. Exit 0 no finding, 1 findings written, 3 setup error, 64 bad
    /// arguments.
    Fuzz(Box<crate::fuzz::cli::FuzzArgs>),
    /// Explain one case in full: description, requirement texts, flags, the input with its
    /// tokens decoded and keys named, the expectation, and the command and adapter frame that
    /// reproduce it; with `--impl`, also what that implementation answered and its finding.
    Explain(crate::explain::ExplainArgs),
    /// Serve the built-in reference implementation over the adapter protocol on stdin and
    /// stdout (what `run` starts when no --impl is given).
    ReferenceAdapter,
    /// The reference DelegateOS MCP stdio proxy (spec/mcp-proxy.md).
    ReferenceProxy(ReferenceProxyArgs),
    /// The scripted, recording MCP upstream that `mcp` drives proxies against; `--tap` relays
    /// to a real server and records both directions.
    MockUpstream(MockUpstreamArgs),
    /// Write a runnable adapter skeleton into DIR (new or empty): the protocol loop and one stub
    /// per operation of spec/operations.md (Rust: an in-process `cargo test` crate).
    NewAdapter(NewAdapterArgs),
    /// Compare implementations side by side from their JSON reports (`compare a.json b.json`)
    /// or by running each `--impl NAME=CMD`: overview, findings matrix, readings map per
    /// decision, interoperability and operations. Exit 0, 3 unreadable report, 64 usage or
    /// reports of different corpora.
    Compare(crate::compare::CompareArgs),
}

/// `new-adapter`
#[derive(Debug, Clone, Args)]
pub struct NewAdapterArgs {
    /// The skeleton's language.
    #[arg(long, value_enum)]
    pub lang: crate::kit::Lang,
    /// The directory to write (created if absent; must be empty).
    pub dir: PathBuf,
}

/// `reference-proxy`
#[derive(Debug, Clone, Args)]
pub struct ReferenceProxyArgs {
    /// Launch config (spec/mcp-proxy.md).
    #[arg(long)]
    pub config: PathBuf,
    /// Deny tools/call without _delegateos (decision D15), whatever the config says.
    #[arg(long)]
    pub strict: bool,
    /// Serve MCP Streamable HTTP (as `"transport": "http"` in the config does): the endpoint
    /// URL is printed as the first stdout line.
    #[arg(long)]
    pub http: bool,
    /// Deliberate defect for suite self-tests: no-strip, forward-denied, no-filter,
    /// shared-state (HTTP: one spend tracker for all sessions).
    #[arg(long, hide = true)]
    pub fault: Option<String>,
}

/// `mock-upstream`
#[derive(Debug, Clone, Args)]
pub struct MockUpstreamArgs {
    /// JSON script describing tools and behaviours (see spec/mcp-proxy.md).
    #[arg(long, conflicts_with = "tap")]
    pub script: Option<PathBuf>,
    /// JSONL file receiving every raw line and lifecycle event.
    #[arg(long)]
    pub record: Option<String>,
    /// Relay to COMMAND transparently, recording both directions.
    #[arg(long)]
    pub tap: bool,
    /// Puppet mode: write to stdout exactly the messages received on this Unix socket (the
    /// harness listens on it), one per line, acknowledging each (spec/mcp-proxy.md §4).
    #[arg(long, value_name = "SOCKET", conflicts_with_all = ["script", "tap"])]
    pub puppet: Option<String>,
    /// The real upstream command (tap mode).
    #[arg(last = true)]
    pub command: Vec<String>,
}

/// `run --profile`: which cases a run includes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Profile {
    /// The normative suite only: advisory cases are excluded.
    #[default]
    #[value(name = "delegateos-v0.1")]
    DelegateosV01,
    /// The normative suite plus the advisory neighbour-profile cases, in their own section.
    Strict,
}

impl Profile {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::DelegateosV01 => "delegateos-v0.1",
            Self::Strict => "strict",
        }
    }
}

/// `vectors …`
#[derive(Debug, Subcommand)]
pub enum VectorsCommand {
    /// Write the embedded corpus and what another language needs to use it into DIR, byte for
    /// byte the committed files: `DIR/vectors/<area>/<group>.json`, `DIR/vectors/manifest.json`
    /// (corpus version, BLAKE2b-256 digest, counts per area, level and operation),
    /// `DIR/vectors/keys.json` (the published test keys), `DIR/spec/**` (schemas,
    /// requirements, operations, error codes, decisions, severity model).
    Export {
        /// Output directory (created if missing; files already there are overwritten).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Write every vector file into DIR (`<DIR>/<area>/<group>.json`).
    #[cfg(feature = "generator")]
    Generate {
        /// Output directory.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Regenerate in memory and compare with DIR; prints a unified diff and exits 1 if stale.
    #[cfg(feature = "generator")]
    Check {
        /// The committed vectors (default: the source tree's `vectors/`).
        #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../vectors"))]
        dir: PathBuf,
    },
}

/// `run`
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Adapter command, run with `sh -c`. Default: this executable's `reference-adapter`
    /// subcommand (the built-in reference, driven through the adapter protocol).
    #[arg(long = "impl", value_name = "COMMAND")]
    pub implementation: Option<String>,
    /// Vector directory. Default: the corpus embedded in this binary (no directory is
    /// searched).
    #[arg(long, value_name = "DIR")]
    pub vectors: Option<PathBuf>,
    /// Selection.
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Baseline of expected failures: lines `<id-or-glob> <reason>`, `#` comments.
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,
    /// Write an expected-failures file (`<id> <reason>` lines, see `--expected-failures`)
    /// listing every case that failed or errored in this run, to start or refresh a baseline.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// `--write-baseline` also lists the cases of critical findings. Without it they are left
    /// out (and named on stderr and in the file's header): a baseline must never hide a
    /// forgery or a crash on untrusted input by accident.
    #[arg(long, requires = "write_baseline")]
    pub baseline_critical: bool,
    /// Per-case timeout in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = runner::DEFAULT_TIMEOUT_MS)]
    pub timeout_ms: u64,
    /// Handshake timeout in milliseconds (each start and restart).
    #[arg(long, value_name = "MS", default_value_t = runner::DEFAULT_HELLO_TIMEOUT_MS)]
    pub hello_timeout_ms: u64,
    /// Consecutive errored cases after which the remaining cases are marked errored unsent;
    /// an adapter that answered none of its first N requests is not sent any other case.
    #[arg(long, value_name = "N", default_value_t = runner::DEFAULT_MAX_CONSECUTIVE_ERRORS)]
    pub max_consecutive_errors: usize,
    /// Adapter processes run at once (default: the number of available cores). Independent
    /// cases are spread across them; a stateful group stays in one, in order. The reports are
    /// the same for every N apart from timings; `--jobs 1` runs one case at a time.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Format of the report written to stdout (or `--output`).
    #[arg(long, default_value = "text", value_parser = crate::report::format::parser(crate::report::format::RUN))]
    pub format: Format,
    /// Write the `--format` report to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also write a report: FORMAT=FILE (e.g. `junit=out.xml`); repeatable.
    #[arg(long = "report", value_name = "FORMAT=FILE", value_parser = parse_report_target)]
    pub reports: Vec<(Format, PathBuf)>,
    /// spec/data/requirements.json to map requirement ids to sections (default: the copy
    /// embedded in this binary). `--requirements-md` is a hidden alias from when the
    /// requirements were read from spec/requirements.md; it takes the JSON too.
    #[arg(long = "requirements", alias = "requirements-md", value_name = "FILE")]
    pub requirements_file: Option<PathBuf>,
    /// Never draw the progress bar (it is drawn only when stderr is a terminal anyway).
    #[arg(long)]
    pub no_progress: bool,
    /// Text report: after the findings (one per root cause), list every failing case with its
    /// diff as well.
    #[arg(long)]
    pub details: bool,
    /// Profile: `delegateos-v0.1` runs the normative cases only; `strict` adds the advisory
    /// neighbour-profile cases (area `advisory` or flag `Advisory`), reported in their own
    /// section.
    #[arg(long, value_enum, default_value = "delegateos-v0.1")]
    pub profile: Profile,
    /// Let failing or errored advisory cases fail the run (exit 1); without it advisory
    /// results never change the exit code. Same as `--fail-on advisory`.
    #[arg(long)]
    pub fail_on_advisory: bool,
    /// Let these findings fail the run (exit 1), besides normative and decision failures and
    /// critical findings: `hardening` (hardening-level cases and "rejected with another code";
    /// implied by `--profile strict`) and/or `advisory`; or `levels` to relax the default, so
    /// that a critical finding on hardening-level cases alone does not fail the run.
    /// Repeatable or comma-separated.
    #[arg(long = "fail-on", value_enum, value_delimiter = ',')]
    pub fail_on: Vec<FailOn>,
    /// Operation names beyond `spec/operations.md` that an extension adapter and its own
    /// vectors use (comma-separated); any other unknown name in `hello` or in a vector's `op`
    /// is a setup error (exit 3).
    #[arg(long = "extra-ops", value_name = "OPS", value_delimiter = ',')]
    pub extra_ops: Vec<String>,
}

/// `run --fail-on`: findings outside the default exit code that should fail the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Hardening-level failures and rejections with another code of the family.
    Hardening,
    /// Advisory (neighbour-profile) failures.
    Advisory,
    /// Only the levels decide: a critical finding whose cases are all hardening-level no
    /// longer fails the run by itself (by default every critical finding does).
    Levels,
}

/// `run` with `args` (after the program name) in this process: what `compare --impl` runs for
/// each implementation. A parse error is returned as its message.
fn run_from_args(args: &[String]) -> Result<i32, String> {
    let argv = std::iter::once("delegateos-conform".to_owned()).chain(args.iter().cloned());
    let cli = <Cli as clap::Parser>::try_parse_from(argv)
        .map_err(|e| format!("invalid run arguments after `--`: {e}"))?;
    match cli.command {
        Command::Run(args) => Ok(run_command(&args)),
        _ => Err("internal error: not a run".to_owned()),
    }
}

/// Why a run could not fail (a setup error, exit 3, naming the problem), or `None`.
pub fn cannot_fail(
    operations: &[String],
    extra_ops: &[String],
    results: &[runner::CaseResult],
) -> Option<String> {
    if operations.is_empty() {
        return Some(
            "the adapter's hello declares no operations: every case would be skipped".to_owned(),
        );
    }
    let unknown: Vec<&str> = operations
        .iter()
        .map(String::as_str)
        .filter(|op| {
            !delegateos_vectors::operations::is_known(op) && !extra_ops.iter().any(|x| x == op)
        })
        .collect();
    if !unknown.is_empty() {
        return Some(format!(
            "the adapter's hello declares unknown operation(s) {} (spec/operations.md lists {})",
            unknown.join(", "),
            delegateos_vectors::operations::names().join(", ")
        ));
    }
    if !results.is_empty()
        && results
            .iter()
            .all(|r| r.raw_status() == runner::Status::Skipped)
    {
        return Some(format!(
            "all {} selected case(s) were skipped: the run cannot fail (check the adapter's \
             operations and the filters)",
            results.len()
        ));
    }
    None
}

/// `coverage`
#[derive(Debug, Clone, Args)]
pub struct CoverageArgs {
    /// Vector directory (default: the embedded corpus).
    #[arg(long, value_name = "DIR")]
    pub vectors: Option<PathBuf>,
    /// spec/data/requirements.json (default: the embedded copy; `--requirements-md` is a
    /// hidden alias).
    #[arg(long = "requirements", alias = "requirements-md", value_name = "FILE")]
    pub requirements_file: Option<PathBuf>,
    /// Print only problems and the totals line.
    #[arg(long)]
    pub quiet: bool,
}

/// `list-ops`
#[derive(Debug, Clone, Args)]
pub struct ListOpsArgs {
    /// Adapter command (default: the built-in reference adapter).
    #[arg(long = "impl", value_name = "COMMAND")]
    pub implementation: Option<String>,
    /// Handshake timeout in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = runner::DEFAULT_HELLO_TIMEOUT_MS)]
    pub hello_timeout_ms: u64,
}

fn parse_report_target(s: &str) -> Result<(Format, PathBuf), String> {
    Format::parse_target(s, crate::report::format::RUN, "run")
}

/// Parses `args` (including the program name), runs, and returns the exit code.
pub fn main<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => {
                    ConformExitCode::OK
                }
                clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    ConformExitCode::USAGE
                }
                _ => ConformExitCode::USAGE,
            };
        }
    };
    dispatch(cli)
}

/// Runs a parsed command line.
pub fn dispatch(cli: Cli) -> i32 {
    if matches!(
        cli.command,
        Command::Run(_) | Command::Fuzz(_) | Command::Mcp(_) | Command::Compare(_)
    ) {
        // Ctrl-C, SIGTERM, SIGHUP: kill the adapters (for `mcp` the proxies; their upstreams
        // are swept as orphans), write the partial reports (for `compare`, the comparison of
        // its runs' partial reports), exit 130.
        if let Err(e) = runner::interrupt::install() {
            error(e);
        }
        runner::interrupt::become_subreaper();
    }
    let code = dispatch_command(cli);
    match runner::interrupt::interrupted() {
        Some(sig) => {
            error(format!(
                "interrupted by {}: every adapter process was killed (exit {})",
                runner::interrupt::signal_name(sig),
                ConformExitCode::INTERRUPTED
            ));
            ConformExitCode::INTERRUPTED
        }
        None => code,
    }
}

fn dispatch_command(cli: Cli) -> i32 {
    match cli.command {
        Command::Run(args) => run_command(&args),
        Command::Coverage(args) => coverage_command(&args),
        Command::ListOps(args) => list_ops_command(&args),
        Command::List(args) => crate::list::run(&args),
        Command::Vectors(VectorsCommand::Export { dir }) => vectors_export(&dir),
        #[cfg(feature = "generator")]
        Command::Vectors(VectorsCommand::Generate { out }) => vectors_generate(&out),
        #[cfg(feature = "generator")]
        Command::Vectors(VectorsCommand::Check { dir }) => vectors_check(&dir),
        Command::ReferenceAdapter => reference_adapter(),
        Command::ReferenceProxy(args) => reference_proxy(args),
        Command::MockUpstream(args) => mock_upstream(args),
        Command::Lint(args) => crate::lint::run(&args),
        Command::Explain(args) => crate::explain::run(&args),
        Command::Fuzz(args) => crate::fuzz::cli::run_fuzz(*args),
        Command::Mcp(args) => crate::mcp::cli::dispatch(&args),
        Command::NewAdapter(args) => crate::kit::new_adapter(args.lang, &args.dir),
        Command::Compare(args) => crate::compare::run(&args, &run_from_args),
    }
}

fn error(message: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "delegateos-conform: {message}");
}

/// Quotes a path for `sh -c`.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The command that runs the built-in reference adapter: this executable's
/// `reference-adapter` subcommand (never a sibling binary looked up on disk).
pub fn default_impl_command() -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate own executable: {e}"))?;
    Ok(format!(
        "{} reference-adapter",
        shell_quote(&exe.display().to_string())
    ))
}

/// The requirement ids a run reports against: FILE (a `spec/data/requirements.json`) if
/// given, else the embedded copy. A file that is not that JSON (the Markdown
/// `spec/requirements.md` that `--requirements-md` used to take) is an error that says so.
fn load_requirements(explicit: Option<&Path>) -> Result<Requirements, String> {
    match explicit {
        Some(p) => Requirements::load(p).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => format!(
                "{e}: requirements are data now: pass spec/data/requirements.json \
                 (--requirements FILE)"
            ),
            _ => format!("{}: {e}", p.display()),
        }),
        None => Ok(Requirements::embedded()),
    }
}

fn write_output(path: Option<&Path>, text: &str) -> Result<(), String> {
    match path {
        Some(p) => {
            std::fs::write(p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))
        }
        None => {
            let mut out = std::io::stdout().lock();
            // A closed stdout (`| head`) is not an error worth a different exit code.
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            Ok(())
        }
    }
}

/// `run`: returns the exit code.
pub fn run_command(args: &RunArgs) -> i32 {
    let command = match &args.implementation {
        Some(c) if c.trim().is_empty() => {
            error("--impl must not be empty");
            return ConformExitCode::USAGE;
        }
        Some(c) => c.clone(),
        None => match default_impl_command() {
            Ok(c) => c,
            Err(e) => return setup_failure(args, "", e),
        },
    };
    if args.timeout_ms == 0 || args.hello_timeout_ms == 0 {
        error("timeouts must be at least 1 ms");
        return ConformExitCode::USAGE;
    }
    let source = CorpusSource::from_option(args.vectors.as_deref());
    let all = match load_corpus(&source) {
        Ok(c) => c,
        Err(e) => return setup_failure(args, &command, e),
    };
    let baseline = match &args.expected_failures {
        Some(p) => match ExpectedFailures::load(p) {
            Ok(b) => b,
            Err(e) => return setup_failure(args, &command, e),
        },
        None => ExpectedFailures::default(),
    };
    let requirements = match load_requirements(args.requirements_file.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            return setup_failure(args, &command, format!("cannot read requirements: {e}"));
        }
    };
    let unknown_ops: Vec<String> = all
        .iter()
        .filter(|c| {
            !delegateos_vectors::operations::is_known(&c.op) && !args.extra_ops.contains(&c.op)
        })
        .map(|c| format!("{} uses unknown operation {:?}", c.id, c.op))
        .collect();
    if !unknown_ops.is_empty() {
        error(format!(
            "setup error: vectors use operations spec/operations.md does not define:\n  {}",
            unknown_ops.join("\n  ")
        ));
        return ConformExitCode::SETUP_ERROR;
    }
    let filter = args.filter.to_filter();
    // A stateful group runs whole (vectors/README.md "Stateful groups"): selecting one of its
    // cases selects the cases before and after it, since the order is what the group tests.
    let whole_groups: std::collections::BTreeSet<&str> = all
        .iter()
        .filter(|c| filter.selects(c))
        .filter_map(|c| c.sequence.as_deref())
        .collect();
    let selected: Vec<Case> = all
        .iter()
        .filter(|c| {
            filter.selects(c)
                || c.sequence
                    .as_deref()
                    .is_some_and(|s| whole_groups.contains(s))
        })
        .filter(|c| args.profile == Profile::Strict || !c.is_advisory())
        .cloned()
        .collect();
    if selected.is_empty() {
        let unknown = crate::filter::unmatched_values(&filter, &all);
        for m in &unknown {
            error(m);
        }
        if unknown.is_empty() {
            error(if args.profile == Profile::Strict {
                "no case matches all the filters together (each matches some case on its own)"
            } else {
                "no case matches all the filters together (each matches some case on its own; \
                 advisory cases run only with --profile strict)"
            });
        }
        return ConformExitCode::USAGE;
    }
    let config = RunConfig {
        command: command.clone(),
        timeout: Duration::from_millis(args.timeout_ms),
        hello_timeout: Duration::from_millis(args.hello_timeout_ms),
        max_line: crate::protocol::MAX_LINE_BYTES,
        max_consecutive_errors: args.max_consecutive_errors.max(1),
        jobs: args.jobs.map_or_else(runner::available_jobs, usize::from),
    };
    let mut bar = ProgressBar::stderr();
    let mut quiet = Quiet;
    let observer: &mut dyn Observer = if args.no_progress {
        &mut quiet
    } else {
        &mut bar
    };
    let output = match runner::run(&selected, &baseline, &config, observer) {
        Ok(o) => o,
        Err(e) => return setup_failure(args, &command, e),
    };
    if let Some(signal) = &output.interrupted {
        let unfinished = output
            .results
            .iter()
            .filter(|r| r.error_kind() == Some(runner::ErrorKind::Abandoned))
            .count();
        error(format!(
            "interrupted by {signal}: the reports list the {unfinished} unfinished of the {} \
             selected cases (counted, hardening and advisory) as errored (interrupted); no \
             finding is made of them",
            output.results.len()
        ));
    }
    if let (Some(path), Some(signal)) = (&args.write_baseline, &output.interrupted) {
        error(format!(
            "--write-baseline: {} not written, the run was interrupted by {signal}",
            path.display()
        ));
    } else if let Some(path) = &args.write_baseline {
        if let Err(e) = write_baseline(path, &selected, &output, args.baseline_critical) {
            error(e);
            return ConformExitCode::SETUP_ERROR;
        }
    }
    if output.interrupted.is_none() {
        if let Some(problem) = cannot_fail(&output.operations, &args.extra_ops, &output.results) {
            let code = setup_failure(args, &command, format!("setup error: {problem}"));
            if let Some(line) = crate::guidance::message(&selected, &output.results, true) {
                error(line);
            }
            return code;
        }
        // An option name nobody knows is a typo that would skip its cases silently.
        let unknown: Vec<&str> = output
            .options
            .iter()
            .map(String::as_str)
            .filter(|o| !delegateos_vectors::options::is_known(o))
            .collect();
        if !unknown.is_empty() {
            let known: Vec<&str> = delegateos_vectors::options::ALL
                .iter()
                .map(|o| o.name)
                .collect();
            return setup_failure(
                args,
                &command,
                format!(
                    "setup error: the adapter's hello declares unknown option(s) {} (the options \
                     are {})",
                    unknown.join(", "),
                    known.join(", ")
                ),
            );
        }
    }
    let all_ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
    let vectors_label = source.label();
    let corpus_warning = source.warning();
    if let Some(w) = &corpus_warning {
        error(w);
    }
    let baseline_label = args
        .expected_failures
        .as_ref()
        .map(|p| p.display().to_string());
    let mut report = Report::build(
        &selected,
        &output,
        &ReportContext {
            command: &command,
            vectors: &vectors_label,
            corpus_warning: corpus_warning.as_deref(),
            filter: &filter,
            requirements: &requirements,
            baseline: &baseline,
            baseline_file: baseline_label.as_deref(),
            all_ids: &all_ids,
            profile: args.profile.name(),
            fail_on_advisory: args.fail_on_advisory || args.fail_on.contains(&FailOn::Advisory),
            fail_on_hardening: args.profile == Profile::Strict
                || args.fail_on.contains(&FailOn::Hardening),
            critical_fails: !args.fail_on.contains(&FailOn::Levels),
            mcp_requirements: &crate::mcp::suite::requirement_ids(),
        },
    );
    report.details = args.details;
    if let Err(e) = write_output(args.output.as_deref(), &report.render(args.format)) {
        error(e);
        return ConformExitCode::SETUP_ERROR;
    }
    for (format, path) in &args.reports {
        if let Err(e) = write_output(Some(path), &report.render(*format)) {
            error(e);
            return ConformExitCode::SETUP_ERROR;
        }
    }
    report.exit_code()
}

/// A setup error of `run`: prints it, writes every requested report file (and a non-text
/// `--format` report to stdout) with one errored entry giving the reason
/// ([`crate::report::setup`]), and returns exit code 3.
fn setup_failure(args: &RunArgs, command: &str, reason: impl std::fmt::Display) -> i32 {
    let reason = reason.to_string();
    error(&reason);
    let vectors = CorpusSource::from_option(args.vectors.as_deref()).label();
    let render = |format: Format| crate::report::setup::render(format, command, &vectors, &reason);
    let text = render(args.format);
    if args.output.is_some() || args.format != Format::Text {
        if let Err(e) = write_output(args.output.as_deref(), &text) {
            error(e);
        }
    }
    for (format, path) in &args.reports {
        if let Err(e) = write_output(Some(path), &render(*format)) {
            error(e);
        }
    }
    ConformExitCode::SETUP_ERROR
}

/// `run --write-baseline`: every case of the run that failed or errored (before any
/// baseline), with the reason it did; a case of a critical finding only with
/// `--baseline-critical` (the others are named on stderr and in the header).
fn write_baseline(
    path: &Path,
    cases: &[Case],
    output: &runner::RunOutput,
    baseline_critical: bool,
) -> Result<(), String> {
    let mut refused: Vec<String> = Vec::new();
    let entries: Vec<(String, String)> = output
        .results
        .iter()
        .filter_map(|r| {
            let case = cases.get(r.index)?;
            let critical = matches!(
                r.raw_status(),
                runner::Status::Failed | runner::Status::Errored
            ) && crate::findings::assess(case, r)
                .is_some_and(|a| a.severity == delegateos_vectors::format::Severity::Critical);
            if critical && !baseline_critical {
                let effect = crate::findings::assess(case, r).map(|a| a.effect);
                refused.push(format!(
                    "{} ({})",
                    case.id,
                    effect.as_deref().unwrap_or("critical")
                ));
                return None;
            }
            let reason = match r.raw_status() {
                runner::Status::Failed => format!(
                    "failed: the adapter answered {}",
                    r.actual
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default()
                ),
                runner::Status::Errored => format!(
                    "errored ({}): {}",
                    r.error_kind().map(|k| k.name()).unwrap_or("errored"),
                    r.message.as_deref().unwrap_or_default()
                ),
                _ => return None,
            };
            Some((case.id.clone(), reason))
        })
        .collect();
    let i = &output.implementation;
    let mut header = format!(
        "Expected failures of {} {}: the {} of {} cases that failed or errored, written by\n\
         `delegateos-conform run --write-baseline`. Format: `<case-id-or-glob> <reason>`\n\
         (spec/adapter-protocol.md §6); replace the reasons with why each case fails.",
        i.name,
        i.version,
        entries.len(),
        output.results.len()
    );
    if !refused.is_empty() {
        const SHOWN: usize = 10;
        error(format!(
            "--write-baseline: {} case(s) of critical findings are not baselined (they keep \
             failing the run; pass --baseline-critical to list them): {}{}",
            refused.len(),
            refused
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if refused.len() > SHOWN {
                format!(", … {} more (in {})", refused.len() - SHOWN, path.display())
            } else {
                String::new()
            }
        ));
        header.push_str(&format!(
            "\nNot listed: the {} case(s) of critical findings, which keep failing the run\n\
             (`--baseline-critical` lists them):",
            refused.len()
        ));
        for r in &refused {
            header.push_str("\n  ");
            header.push_str(r);
        }
    }
    write_output(
        Some(path),
        &crate::expected::render_baseline(&header, &entries),
    )
}

/// `coverage`: returns the exit code.
pub fn coverage_command(args: &CoverageArgs) -> i32 {
    let source = CorpusSource::from_option(args.vectors.as_deref());
    let cases = match load_corpus(&source) {
        Ok(c) => c,
        Err(e) => {
            error(e);
            return ConformExitCode::SETUP_ERROR;
        }
    };
    let requirements = match load_requirements(args.requirements_file.as_deref()) {
        Ok(r) if !r.list.is_empty() => r,
        Ok(_) => {
            error("the requirements file has no requirements (pass spec/data/requirements.json)");
            return ConformExitCode::SETUP_ERROR;
        }
        Err(e) => {
            error(format!("cannot read requirements: {e}"));
            return ConformExitCode::SETUP_ERROR;
        }
    };
    let mut out = String::new();
    let mut suite = mcp_suite_catalogue();
    // The suite is written against this kit's spec; a requirements file that shares none of
    // its ids (a third-party corpus) is measured on its vectors alone.
    if !suite
        .iter()
        .flat_map(|(_, r)| r)
        .any(|id| requirements.get(id).is_some())
    {
        suite.clear();
        out.push_str(
            "note: the requirements file cites no MCP proxy suite id; suite not counted\n",
        );
    }
    let table = coverage_table(&cases, &suite, &requirements);
    if !args.quiet {
        let w = requirements
            .list
            .iter()
            .map(|r| r.id.len())
            .max()
            .unwrap_or(2);
        out.push_str(&format!(
            "{:<w$}  {:<8} {:>7} {:>9}\n",
            "requirement", "section", "vectors", "mcp-suite"
        ));
        for r in &requirements.list {
            let n = table.counts.get(r.id.as_str()).copied().unwrap_or(0);
            let m = table.suite_counts.get(r.id.as_str()).copied().unwrap_or(0);
            out.push_str(&format!(
                "{:<w$}  {:<8} {:>7} {:>9}\n",
                r.id, r.section, n, m
            ));
        }
    }
    for id in &table.uncovered {
        out.push_str(&format!(
            "error: requirement {id} has no case (no vector case, no MCP proxy suite case)\n"
        ));
    }
    for (case, id) in &table.unknown {
        out.push_str(&format!(
            "error: case {case} cites unknown requirement {id}\n"
        ));
    }
    let total = requirements.list.len();
    let by_vectors = requirements
        .list
        .iter()
        .filter(|r| table.counts.contains_key(r.id.as_str()))
        .count();
    let by_suite = requirements
        .list
        .iter()
        .filter(|r| table.suite_counts.contains_key(r.id.as_str()))
        .count();
    out.push_str(&format!(
        "{}/{} requirements covered: {} by {} vector cases, {} by {} MCP proxy suite cases \
         (`delegateos-conform mcp`), {} by the suite only; {} uncovered, {} unknown citations\n",
        total - table.uncovered.len(),
        total,
        by_vectors,
        cases.len(),
        by_suite,
        suite.len(),
        total - table.uncovered.len() - by_vectors,
        table.uncovered.len(),
        table.unknown.len()
    ));
    let _ = write_output(None, &out);
    if table.uncovered.is_empty() && table.unknown.is_empty() {
        ConformExitCode::OK
    } else {
        ConformExitCode::FAILURES
    }
}

/// The MCP proxy suite's static case catalogue as `(case id, requirement ids)`: the second
/// source of requirement coverage (the transport-level `MCP-*` ids have no vector case).
pub fn mcp_suite_catalogue() -> Vec<(String, Vec<String>)> {
    crate::mcp::suite::case_catalogue()
        .into_iter()
        .map(|(id, _, requirements)| (id, requirements))
        .collect()
}

/// Requirement → case counts (vector cases and MCP proxy suite cases), uncovered ids, and
/// (case, id) pairs citing unknown ids.
#[derive(Debug, Default)]
pub struct CoverageTable<'a> {
    /// Vector cases per cited id.
    pub counts: BTreeMap<&'a str, usize>,
    /// MCP proxy suite cases per cited id.
    pub suite_counts: BTreeMap<&'a str, usize>,
    /// Spec ids cited by no vector case and no suite case.
    pub uncovered: Vec<String>,
    /// Case citations (vector or suite case id, requirement id) of ids absent from the spec.
    pub unknown: Vec<(String, String)>,
}

/// Computes the coverage table from the vector cases and the MCP proxy suite catalogue
/// (`(case id, requirement ids)`, see [`mcp_suite_catalogue`]).
pub fn coverage_table<'a>(
    cases: &'a [Case],
    suite: &'a [(String, Vec<String>)],
    requirements: &Requirements,
) -> CoverageTable<'a> {
    let mut t = CoverageTable::default();
    for c in cases {
        for r in &c.requirements {
            *t.counts.entry(r.as_str()).or_default() += 1;
            if requirements.get(r).is_none() {
                t.unknown.push((c.id.clone(), r.clone()));
            }
        }
    }
    for (id, reqs) in suite {
        for r in reqs {
            *t.suite_counts.entry(r.as_str()).or_default() += 1;
            if requirements.get(r).is_none() {
                t.unknown.push((id.clone(), r.clone()));
            }
        }
    }
    t.uncovered = requirements
        .list
        .iter()
        .filter(|r| {
            !t.counts.contains_key(r.id.as_str()) && !t.suite_counts.contains_key(r.id.as_str())
        })
        .map(|r| r.id.clone())
        .collect();
    t
}

fn list_ops_command(args: &ListOpsArgs) -> i32 {
    let command = match &args.implementation {
        Some(c) => c.clone(),
        None => match default_impl_command() {
            Ok(c) => c,
            Err(e) => {
                error(e);
                return ConformExitCode::SETUP_ERROR;
            }
        },
    };
    let mut config = RunConfig::new(command);
    config.hello_timeout = Duration::from_millis(args.hello_timeout_ms.max(1));
    match runner::run(&[], &ExpectedFailures::default(), &config, &mut Quiet) {
        Ok(out) => {
            let i = &out.implementation;
            let mut text = format!(
                "{} {}{}\n",
                i.name,
                i.version,
                i.language
                    .as_deref()
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default()
            );
            for op in &out.operations {
                text.push_str(op);
                text.push('\n');
            }
            for option in &out.options {
                text.push_str(&format!("option {option}\n"));
            }
            let _ = write_output(None, &text);
            ConformExitCode::OK
        }
        Err(e) => {
            error(e);
            ConformExitCode::SETUP_ERROR
        }
    }
}

fn vectors_export(dir: &Path) -> i32 {
    match delegateos_vectors::export::export(dir) {
        Ok(written) => {
            let _ = write_output(
                None,
                &format!(
                    "wrote {} files to {} (delegateos-vectors {}, blake2b-256 {}); \
                     vectors/manifest.json describes them\n",
                    written.len(),
                    dir.display(),
                    delegateos_vectors::export::CORPUS_VERSION,
                    delegateos_vectors::corpus::embedded_digest()
                ),
            );
            ConformExitCode::OK
        }
        Err(e) => {
            error(format!("vectors export: {}: {e}", dir.display()));
            ConformExitCode::SETUP_ERROR
        }
    }
}

#[cfg(feature = "generator")]
fn vectors_generate(out: &Path) -> i32 {
    match delegateos_vectors::generate(out) {
        Ok(summary) => {
            let mut text = String::new();
            for removed in &summary.removed {
                text.push_str(&format!(
                    "removed {} (a group the generator no longer writes)\n",
                    removed.display()
                ));
            }
            text.push_str(&format!(
                "wrote {} files ({} cases) to {}\n",
                summary.files.len(),
                summary.cases,
                out.display()
            ));
            let _ = write_output(None, &text);
            ConformExitCode::OK
        }
        Err(e) => {
            error(e);
            ConformExitCode::FAILURES
        }
    }
}

#[cfg(feature = "generator")]
fn vectors_check(dir: &Path) -> i32 {
    if !dir.is_dir() {
        error(format!("{}: not a directory", dir.display()));
        return ConformExitCode::SETUP_ERROR;
    }
    match delegateos_vectors::check(dir) {
        Ok(n) => {
            let _ = write_output(
                None,
                &format!(
                    "{n} files (vector files, manifest.json, keys.json) in {} are up to date\n",
                    dir.display()
                ),
            );
            ConformExitCode::OK
        }
        Err(e) => {
            let _ = write_output(None, &e.to_string());
            ConformExitCode::FAILURES
        }
    }
}

/// `reference-adapter`: serves the reference on stdin/stdout until `bye` or end of input.
fn reference_adapter() -> i32 {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match crate::adapter_server::serve(std::io::BufReader::new(stdin.lock()), stdout.lock()) {
        Ok(()) => ConformExitCode::OK,
        Err(e) => {
            error(format!("reference-adapter: {e}"));
            ConformExitCode::FAILURES
        }
    }
}

/// `reference-proxy`: the reference MCP stdio proxy.
fn reference_proxy(args: ReferenceProxyArgs) -> i32 {
    use crate::mcp::proxy::{Fault, ProxyOptions};
    let fault = match args.fault.as_deref() {
        None => None,
        Some(name) => match Fault::parse(name) {
            Some(f) => Some(f),
            None => {
                error(format!("reference-proxy: unknown fault {name}"));
                return ConformExitCode::USAGE;
            }
        },
    };
    crate::mcp::run_reference_proxy(&ProxyOptions {
        config: args.config,
        strict: args.strict,
        fault,
        http: args.http,
    })
}

/// `mock-upstream`: the scripted, recording MCP server, or a recording tap.
fn mock_upstream(args: MockUpstreamArgs) -> i32 {
    use crate::mcp::mock::{run_mock, run_puppet, run_tap, MockScript};
    if args.tap {
        return run_tap(&args.command, args.record.as_deref());
    }
    if let Some(control) = &args.puppet {
        return run_puppet(control, args.record.as_deref());
    }
    let script = match &args.script {
        None => MockScript::default(),
        Some(path) => match std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<MockScript>(&b).map_err(|e| e.to_string()))
        {
            Ok(s) => s,
            Err(e) => {
                error(format!("mock-upstream: bad script {}: {e}", path.display()));
                return ConformExitCode::USAGE;
            }
        },
    };
    run_mock(script, args.record.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own consistency checks (unique argument ids, aliases), which otherwise fire only
    /// when a subcommand is parsed.
    #[test]
    fn the_cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    /// `--requirements-md` is a hidden alias of `--requirements FILE`: the Markdown is refused
    /// with a message naming the data file, the JSON is read.
    #[test]
    fn requirements_md_is_a_hidden_alias_that_refuses_markdown() {
        let md = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec/requirements.md");
        let e = load_requirements(Some(&md)).expect_err("Markdown is not the data");
        assert!(
            e.contains("requirements are data now: pass spec/data/requirements.json"),
            "{e}"
        );
        let json = md.with_file_name("data").join("requirements.json");
        let r = load_requirements(Some(&json)).expect("the JSON reads");
        assert_eq!(r.list, Requirements::embedded().list);
        let missing = load_requirements(Some(Path::new("/nonexistent/r.json"))).unwrap_err();
        assert!(missing.contains("/nonexistent/r.json"), "{missing}");
        let Cli {
            command: Command::Coverage(args),
        } = Cli::try_parse_from(["x", "coverage", "--requirements-md", "f.json"]).expect("parses")
        else {
            panic!("not coverage");
        };
        assert_eq!(args.requirements_file.as_deref(), Some(Path::new("f.json")));
        let mut help = Vec::new();
        use clap::CommandFactory;
        let _ = Cli::command()
            .find_subcommand_mut("run")
            .expect("run")
            .write_long_help(&mut help);
        let help = String::from_utf8_lossy(&help);
        assert!(help.contains("--requirements <FILE>"), "{help}");
        assert!(!help.contains("--requirements-md <"), "{help}");
    }

    #[test]
    fn usage_errors_exit_64() {
        assert_eq!(
            main(["delegateos-conform", "--bogus"]),
            ConformExitCode::USAGE
        );
        assert_eq!(
            main(["delegateos-conform", "run", "--format", "pdf"]),
            ConformExitCode::USAGE
        );
        assert_eq!(
            main(["delegateos-conform", "run", "--report", "junit"]),
            ConformExitCode::USAGE
        );
    }

    #[test]
    fn report_targets_parse() {
        assert_eq!(
            parse_report_target("JSON=a.json").unwrap(),
            (Format::Json, PathBuf::from("a.json"))
        );
        assert!(parse_report_target("xml=a").is_err());
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/a b/c'd"), r"'/a b/c'\''d'");
    }
}
