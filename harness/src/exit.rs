//! The documented exit codes of `delegateos-conform`, shared by every subcommand and the
//! report layer (its own module so that neither depends on the command line).

/// Documented exit codes of `delegateos-conform`. Unknown or unexpected failures also use
/// [`ConformExitCode::FAILURES`].
#[derive(Debug)]
pub enum ConformExitCode {}

impl ConformExitCode {
    /// Every selected case passed (acceptable, xfail and skipped allowed).
    pub const OK: i32 = 0;
    /// At least one case failed or errored (or `coverage`/`vectors check` found a problem).
    pub const FAILURES: i32 = 1;
    /// No failures, but the expected-failures baseline is stale: a listed case passed, or an
    /// entry matches no case.
    pub const STALE_EXPECTED_FAILURES: i32 = 2;
    /// The adapter could not be started or failed the handshake, or the vectors, the baseline
    /// or the requirements could not be read.
    pub const SETUP_ERROR: i32 = 3;
    /// Invalid command-line usage.
    pub const USAGE: i32 = 64;
    /// `run` or `fuzz` was interrupted by SIGINT, SIGTERM or SIGHUP: every adapter process
    /// group was killed and the partial reports were written (unfinished cases `errored`,
    /// "interrupted"). 128 + SIGINT, as shells report a Ctrl-C.
    pub const INTERRUPTED: i32 = 130;
}

/// The exit-code table printed by `--help`.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0   all selected cases passed (acceptable, xfail and skipped allowed)
  1   at least one case failed or errored
  2   no failures, but the expected-failures baseline is stale (a listed case passed,
      or an entry matches no case)
  3   setup error: the adapter would not start or failed the handshake, or the vectors,
      baseline or requirements could not be read
  64  usage error
  130 interrupted (SIGINT, SIGTERM or SIGHUP): adapters killed, partial reports written";
