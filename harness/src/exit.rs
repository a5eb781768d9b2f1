//! The documented exit codes of `delegateos-conform`, shared by every subcommand and the
//! report layer (its own module so that neither depends on the command line).

/// Documented exit codes of `delegateos-conform`. Unknown or unexpected failures also use
/// [`ConformExitCode::FAILURES`].
#[derive(Debug)]
pub enum ConformExitCode {}

impl ConformExitCode {
    /// No normative or decision case failed (acceptable, xfail, skipped and hardening
    /// findings allowed, unless `--fail-on hardening` / `--profile strict`).
    pub const OK: i32 = 0;
    /// At least one normative or decision case failed or errored (or, when asked, a
    /// hardening or advisory finding; or `coverage`/`vectors check` found a problem).
    pub const FAILURES: i32 = 1;
    /// No failures, but the expected-failures baseline is stale: a listed case passed, or an
    /// entry matches no case.
    pub const STALE_EXPECTED_FAILURES: i32 = 2;
    /// The adapter could not be started or failed the handshake, or failed every request it
    /// was sent (it exited, or no reply was a protocol reply), or the vectors, the baseline
    /// or the requirements could not be read; or the run could not fail: `hello` declared no
    /// or unknown operations, every selected case was skipped, or a vector names an unknown
    /// `op`.
    pub const SETUP_ERROR: i32 = 3;
    /// Invalid command-line usage.
    pub const USAGE: i32 = 64;
    /// `run`, `fuzz` or `mcp` was interrupted by SIGINT, SIGTERM or SIGHUP: every adapter (or
    /// proxy) process group was killed and the partial reports were written (unfinished cases `errored`,
    /// "interrupted"). 128 + SIGINT, as shells report a Ctrl-C.
    pub const INTERRUPTED: i32 = 130;
}

/// The exit-code table printed by `--help`.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0   no normative or decision case failed (acceptable, xfail, skipped allowed;
      hardening findings and rejections with another code are reported apart)
  1   at least one normative or decision case failed or errored; with
      --fail-on hardening (or --profile strict) also a hardening finding, with
      --fail-on advisory (--fail-on-advisory) an advisory failure
  2   no failures, but the expected-failures baseline is stale (a listed case passed,
      or an entry matches no case)
  3   setup error: the adapter would not start, failed the handshake or failed every
      request it was sent (exits, or answers no JSON: ADAPTER ERROR), or the vectors,
      baseline or requirements could not be read; or the run cannot fail: hello declares
      no or unknown operations, every selected case was skipped, or a vector has an
      unknown op
  64  usage error
  130 interrupted (SIGINT, SIGTERM or SIGHUP): adapters killed, partial reports written";
