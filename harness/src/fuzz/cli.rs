//! `delegateos-conform fuzz`: arguments and entry point (the subcommand is wired in
//! `crate::cli`).
//!
//! Exit codes: 0 no finding, 1 at least one finding, 3 the adapter could not be started or
//! findings could not be written, 64 invalid arguments (an `--op` the fuzzer does not know).
//!
//! `--op` selects the operations (repeatable or comma-separated, default `dct.verify`); each
//! runs in turn with the same seed, `--max-cases` budget and an equal share of `--duration`,
//! and their findings are written together.

use std::path::PathBuf;
use std::time::Duration;

use super::drive::{self, DiffConfig, DiffReport};
use super::ops;

/// Arguments of `delegateos-conform fuzz`.
#[derive(Debug, Clone, clap::Args)]
pub struct FuzzArgs {
    /// Adapter command of the implementation under test (run with `sh -c`).
    #[arg(long = "impl", value_name = "COMMAND")]
    pub implementation: String,
    /// Operation(s) to fuzz, repeatable or comma-separated: dct.verify (default),
    /// revocation.from_json, json.canonicalize, glob.match, check.run, output.verify,
    /// contract.verify_signature, attestation.verify, mcp.call. Each is seeded from its corpus
    /// cases and mutated structure-aware (JSON text edits, wildcard alphabets, check specs,
    /// field changes re-signed with the published test keys or not); the reference's answer
    /// is the expectation.
    #[arg(
        long = "op",
        value_name = "OP",
        value_delimiter = ',',
        default_value = "dct.verify"
    )]
    pub ops: Vec<String>,
    /// How long to fuzz in total, shared equally by the operations (`90s`, `5m`, `1h`, or
    /// plain seconds).
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub duration: Duration,
    /// PRNG seed (default: derived from the clock; printed so a run can be repeated).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Directory for the minimized findings (`finding-NNNN.json`, vector format).
    #[arg(long, default_value = "fuzz-findings")]
    pub out: PathBuf,
    /// Vector directory whose `dct/*.json` valid `dct.verify` cases seed the mutator, and
    /// whose cases of each other `--op` seed that operation (default: the embedded corpus; the
    /// builtin chains are always used for `dct.verify`).
    #[arg(long)]
    pub vectors: Option<PathBuf>,
    /// Cases per adapter session.
    #[arg(long, default_value_t = 64)]
    pub batch: usize,
    /// Per-case timeout in milliseconds.
    #[arg(long, default_value_t = 5_000)]
    pub timeout_ms: u64,
    /// Minimize and write at most this many distinct findings; later ones are counted, and
    /// the run still lasts the whole `--duration`.
    #[arg(long, default_value_t = 20)]
    pub max_findings: usize,
    /// Stop after this many cases per operation (a fixed budget; with `--seed`, a
    /// reproducible run).
    #[arg(long)]
    pub max_cases: Option<usize>,
    /// Stop at the first finding (for time-to-detection measurements).
    #[arg(long)]
    pub stop_on_first: bool,
    /// Adapter processes exploring at once (default: the number of available cores). With
    /// `--max-cases` and `--seed`, every N explores the same cases and finds the same kinds;
    /// with `--duration` alone, more jobs explore more cases in the same wall time.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Minimizations per class of disagreement (failure kind × reference outcome ×
    /// implementation outcome); a disagreement whose kind is not known from its mutations
    /// past the budget is counted as unclassified, not minimized (exploration first).
    #[arg(long, value_name = "N", default_value_t = crate::fuzz::triage::DEFAULT_MINIMIZE_BUDGET)]
    pub minimize_budget: usize,
}

/// Parses `90s`, `5m`, `1h`, `250ms` or a plain number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (num, unit) = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or((t, "s"), |i| {
            (t.get(..i).unwrap_or(t), t.get(i..).unwrap_or("s"))
        });
    let n: f64 = num
        .parse()
        .map_err(|_| format!("invalid duration {text:?}"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("invalid duration unit in {text:?} (ms, s, m, h)")),
    };
    Duration::try_from_secs_f64(secs).map_err(|e| format!("invalid duration {text:?}: {e}"))
}

/// Runs the differential fuzzer and prints a summary; returns the documented exit code
/// (0 no finding, 1 findings written, 3 setup error) for the CLI's dispatcher.
pub fn run_fuzz(args: FuzzArgs) -> i32 {
    match main_fuzz(args) {
        Outcome::Clean => 0,
        Outcome::Findings => 1,
        Outcome::SetupError => 3,
        Outcome::BadArguments => 64,
    }
}

/// What a fuzzing session ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Clean,
    Findings,
    SetupError,
    BadArguments,
}

/// Runs the differential fuzzer and prints a summary.
fn main_fuzz(args: FuzzArgs) -> Outcome {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    });
    let mut op_list: Vec<String> = Vec::new();
    for op in &args.ops {
        let op = op.trim();
        if !ops::OPERATIONS.contains(&op) {
            eprintln!(
                "error: --op {op:?} is not fuzzable (choose from {})",
                ops::OPERATIONS.join(", ")
            );
            return Outcome::BadArguments;
        }
        if !op_list.iter().any(|o| o == op) {
            op_list.push(op.to_owned());
        }
    }
    let share = args
        .duration
        .checked_div(u32::try_from(op_list.len().max(1)).unwrap_or(1))
        .unwrap_or(args.duration);
    // The embedded corpus unless --vectors names a directory: never a `vectors/` folder found
    // in the working directory.
    let config = DiffConfig {
        command: args.implementation.clone(),
        duration: share,
        seed,
        vectors: args.vectors.clone(),
        batch: args.batch,
        timeout: Duration::from_millis(args.timeout_ms),
        max_findings: args.max_findings,
        max_cases: args.max_cases,
        stop_on_first: args.stop_on_first,
        jobs: args
            .jobs
            .map_or_else(crate::runner::available_jobs, usize::from),
        minimize_budget: args.minimize_budget,
    };
    println!(
        "fuzzing `{}` on {} for {:.0}s with seed {seed}",
        config.command,
        op_list.join(", "),
        args.duration.as_secs_f64()
    );
    let mut report = DiffReport::empty();
    for op in &op_list {
        let mut op_config = config.clone();
        op_config.max_findings = args.max_findings.saturating_sub(report.findings.len());
        let part = match ops::engine::run(op, &op_config, &mut |line| println!("{line}")) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: {e}");
                return Outcome::SetupError;
            }
        };
        if op_list.len() > 1 {
            println!(
                "  {op}: {} cases, {} finding kind(s), {} skipped",
                part.cases,
                part.findings.len(),
                part.skipped
            );
        }
        if part.skipped > 0 && part.skipped == part.cases {
            println!(
                "  note: the adapter skipped every {op} case (its hello does not declare it): \
                 nothing was compared"
            );
        }
        report.cases += part.cases;
        report.duplicates += part.duplicates;
        report.suppressed += part.suppressed;
        report.skipped += part.skipped;
        report.seeds += part.seeds;
        report.unclassified += part.unclassified;
        report.minimizations += part.minimizations;
        report.minimizing += part.minimizing;
        report.duration += part.duration;
        report.findings.extend(part.findings);
        if args.stop_on_first && !report.findings.is_empty() {
            break;
        }
        if crate::runner::interrupt::interrupted().is_some() {
            println!("interrupted: the findings so far are written below");
            break;
        }
    }
    report
        .findings
        .sort_by(|a, b| b.severity.cmp(&a.severity).then(b.hits.cmp(&a.hits)));
    let hardening = report
        .findings
        .iter()
        .filter(|f| f.level == delegateos_vectors::format::Level::Hardening)
        .count();
    println!(
        "{} cases ({} skipped) from {} seeds in {:.1}s: {} finding kind(s) ({} hardening), {} \
         more past --max-findings, {} repeat(s) of known kinds (severity by effect: {})",
        report.cases,
        report.skipped,
        report.seeds,
        report.duration.as_secs_f64(),
        report.findings.len(),
        hardening,
        report.suppressed,
        report.duplicates,
        crate::findings::SEVERITY_MODEL
    );
    println!(
        "exploration first: minimizing took {:.0}% of the workers' time ({:.1}s of {:.1}s on {} \
         job(s); {} minimization(s) decided); {} disagreement(s) past --minimize-budget {} \
         counted, not minimized; {:.0} cases/s",
        100.0 * report.minimizing.as_secs_f64()
            / (report.duration.as_secs_f64() * config.jobs as f64).max(1e-9),
        report.minimizing.as_secs_f64(),
        report.duration.as_secs_f64() * config.jobs as f64,
        config.jobs,
        report.minimizations,
        report.unclassified,
        args.minimize_budget,
        report.cases as f64 / report.duration.as_secs_f64().max(1e-9),
    );
    // Ranked, and numbered as the files `write_findings` writes (finding-NNNN.json).
    for (i, f) in report.findings.iter().enumerate() {
        println!(
            "  finding-{:04}  {:<8} {:<22} {:>5} hit(s)  {}  [{}]",
            i + 1,
            f.severity.as_str().to_uppercase(),
            f.effect,
            f.hits,
            f.key,
            f.report_key
        );
    }
    if report.findings.is_empty() {
        return Outcome::Clean;
    }
    // Hardening findings (another code of the family, hardening seeds) are written and
    // reported, but only normative and decision findings fail the run.
    let failing = report.findings.len() - hardening + report.suppressed;
    match drive::write_findings(&args.out, &report) {
        Ok(paths) => {
            for p in paths {
                println!("  wrote {}", p.display());
            }
            println!(
                "replay: delegateos-conform run --impl '<command>' --vectors {}",
                args.out.display()
            );
            if failing > 0 {
                Outcome::Findings
            } else {
                Outcome::Clean
            }
        }
        Err(e) => {
            eprintln!(
                "error: cannot write findings to {}: {e}",
                args.out.display()
            );
            Outcome::SetupError
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("1x").is_err());
    }
}
