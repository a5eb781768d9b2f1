//! `delegateos-conform explain CASE`: one case in full — description, requirements with their
//! text, flags with their notes and severity model row, the input with every token decoded and
//! every published key named, the expectation, the exact command and adapter frame that
//! reproduce it, and (with `--impl`) what the implementation answered, the verdict and the
//! finding it belongs to.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::exit::ConformExitCode;
use crate::expected::ExpectedFailures;
use crate::filter::Filter;
use crate::report::{explain, Report, ReportContext};
use crate::runner::case::{load_corpus, Case};
use crate::runner::{self, Quiet, RunConfig};
use delegateos_vectors::requirements::Requirements;
use delegateos_vectors::CorpusSource;

/// `explain`
#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// The case id (e.g. `dct-forged-0020`).
    pub case: String,
    /// Also run the case against this adapter command and show its answer and finding.
    #[arg(long = "impl", value_name = "COMMAND")]
    pub implementation: Option<String>,
    /// Vector directory (default: the embedded corpus).
    #[arg(long, value_name = "DIR")]
    pub vectors: Option<PathBuf>,
    /// Per-case timeout in milliseconds (with `--impl`).
    #[arg(long, value_name = "MS", default_value_t = runner::DEFAULT_TIMEOUT_MS)]
    pub timeout_ms: u64,
}

/// `explain`: returns the exit code (0 explained, 1 with `--impl` when the case does not
/// pass, 64 usage, 3 setup error).
pub fn run(args: &ExplainArgs) -> i32 {
    let source = CorpusSource::from_option(args.vectors.as_deref());
    let all = match load_corpus(&source) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("delegateos-conform: {e}");
            return ConformExitCode::SETUP_ERROR;
        }
    };
    let Some(case) = all.iter().find(|c| c.id == args.case) else {
        let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        let near = crate::filter::suggest(&args.case, &ids);
        eprintln!(
            "delegateos-conform: no case {:?}{}",
            args.case,
            if near.is_empty() {
                String::new()
            } else {
                format!(" (did you mean {}?)", near.join(", "))
            }
        );
        return ConformExitCode::USAGE;
    };
    let reqs = Requirements::embedded();
    let mut out = explain::case(case, &reqs);
    let command = args
        .implementation
        .as_deref()
        .unwrap_or("<your adapter command>");
    out.push_str(&explain::reproduce(case, command));
    let mut code = ConformExitCode::OK;
    if let Some(cmd) = &args.implementation {
        // The whole default selection, as `run` runs it: a finding is diagnosed from the
        // pattern of every failure (spec/faults.md), so the case is filed exactly as the run's
        // report files it.
        let selected: Vec<Case> = all
            .iter()
            .filter(|c| !c.is_advisory() || c.id == case.id)
            .cloned()
            .collect();
        let config = RunConfig {
            command: cmd.clone(),
            timeout: Duration::from_millis(args.timeout_ms.max(1)),
            hello_timeout: Duration::from_millis(runner::DEFAULT_HELLO_TIMEOUT_MS),
            max_line: crate::protocol::MAX_LINE_BYTES,
            max_consecutive_errors: runner::DEFAULT_MAX_CONSECUTIVE_ERRORS,
            jobs: 1,
        };
        let baseline = ExpectedFailures::default();
        let output = match runner::run(&selected, &baseline, &config, &mut Quiet) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("delegateos-conform: {e}");
                return ConformExitCode::SETUP_ERROR;
            }
        };
        let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        let label = source.label();
        let filter = Filter::default();
        let report = Report::build(
            &selected,
            &output,
            &ReportContext {
                command: cmd,
                vectors: &label,
                corpus_warning: None,
                filter: &filter,
                requirements: &reqs,
                baseline: &baseline,
                baseline_file: None,
                all_ids: &ids,
                profile: "delegateos-v0.1",
                fail_on_advisory: false,
                fail_on_hardening: false,
                critical_fails: true,
                mcp_requirements: &crate::mcp::suite::requirement_ids(),
            },
        );
        let this = report
            .cases
            .iter()
            .chain(&report.hardening.cases)
            .chain(&report.advisory.cases)
            .find(|c| c.id == case.id);
        if let Some(c) = this {
            let finding = report.findings.iter().find(|f| f.ids.contains(&c.id));
            out.push_str(&explain::answer(cmd, c, finding));
            if matches!(
                c.status,
                runner::Status::Failed | runner::Status::Errored | runner::Status::OtherCode
            ) {
                code = ConformExitCode::FAILURES;
            }
        }
    }
    print!("{out}");
    code
}
