//! `delegateos-conform fuzz`: arguments and entry point (the subcommand is wired in
//! `crate::cli`).
//!
//! Exit codes: 0 no finding, 1 at least one finding, 3 the adapter could not be started or
//! findings could not be written, 64 invalid arguments.

use std::path::PathBuf;
use std::time::Duration;

use super::diff::{self, DiffConfig};

/// Arguments of `delegateos-conform fuzz`.
#[derive(Debug, Clone, clap::Args)]
pub struct FuzzArgs {
    /// Adapter command of the implementation under test (run with `sh -c`).
    #[arg(long = "impl", value_name = "COMMAND")]
    pub implementation: String,
    /// How long to fuzz (`90s`, `5m`, `1h`, or plain seconds).
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    pub duration: Duration,
    /// PRNG seed (default: derived from the clock; printed so a run can be repeated).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Directory for the minimized findings (`finding-NNNN.json`, vector format).
    #[arg(long, default_value = "fuzz-findings")]
    pub out: PathBuf,
    /// Vector directory whose `dct/*.json` valid `dct.verify` cases seed the mutator
    /// (default: the embedded corpus; the builtin chains are always used).
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
    /// Stop after this many cases (a fixed budget; with `--seed`, a reproducible run).
    #[arg(long)]
    pub max_cases: Option<usize>,
    /// Stop at the first finding (for time-to-detection measurements).
    #[arg(long)]
    pub stop_on_first: bool,
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
    }
}

/// What a fuzzing session ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Clean,
    Findings,
    SetupError,
}

/// Runs the differential fuzzer and prints a summary.
fn main_fuzz(args: FuzzArgs) -> Outcome {
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    });
    // The embedded corpus unless --vectors names a directory: never a `vectors/` folder found
    // in the working directory.
    let vectors = args.vectors.clone();
    let config = DiffConfig {
        command: args.implementation.clone(),
        duration: args.duration,
        seed,
        vectors,
        batch: args.batch,
        timeout: Duration::from_millis(args.timeout_ms),
        max_findings: args.max_findings,
        max_cases: args.max_cases,
        stop_on_first: args.stop_on_first,
    };
    println!(
        "fuzzing `{}` for {:.0}s with seed {seed}",
        config.command,
        config.duration.as_secs_f64()
    );
    let report = match diff::run(&config, &mut |line| println!("{line}")) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return Outcome::SetupError;
        }
    };
    let hardening = report
        .findings
        .iter()
        .filter(|f| f.level == delegateos_vectors::format::Level::Hardening)
        .count();
    println!(
        "{} cases from {} seeds in {:.1}s: {} finding kind(s) ({} hardening), {} more past \
         --max-findings, {} repeat(s) of known kinds (severity by effect: {})",
        report.cases,
        report.seeds,
        report.duration.as_secs_f64(),
        report.findings.len(),
        hardening,
        report.suppressed,
        report.duplicates,
        crate::findings::SEVERITY_MODEL
    );
    for f in &report.findings {
        println!(
            "  {:<8} {:<22} {:>5} hit(s)  {}",
            f.severity.as_str().to_uppercase(),
            f.effect,
            f.hits,
            f.key
        );
    }
    if report.findings.is_empty() {
        return Outcome::Clean;
    }
    // Hardening findings (another code of the family, hardening seeds) are written and
    // reported, but only normative and decision findings fail the run.
    let failing = report.findings.len() - hardening + report.suppressed;
    match diff::write_findings(&args.out, &report) {
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
