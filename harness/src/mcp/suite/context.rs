//! What every case sees: the suite's options (public, re-exported by `suite`) and the shared
//! state of one run (scratch directory, live processes to reap, the last proxy stderr).

use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A real MCP server to run behind the recording tap (smoke cases).
#[derive(Debug, Clone)]
pub struct SmokeUpstream {
    /// The `node` executable.
    pub node: String,
    /// `…/@modelcontextprotocol/server-everything/dist/index.js`.
    pub entry: PathBuf,
}

/// How to start the recording mock upstream.
#[derive(Debug, Clone)]
pub struct MockCommand {
    /// The executable.
    pub program: PathBuf,
    /// Arguments placed before the mock's own (`--script …`, `--tap …`).
    pub leading_args: Vec<String>,
}

impl MockCommand {
    /// This executable's `mock-upstream` subcommand (the one-binary default).
    pub fn own_executable() -> Result<Self, String> {
        let program =
            std::env::current_exe().map_err(|e| format!("cannot locate own executable: {e}"))?;
        Ok(Self::subcommand_of(program))
    }

    /// `<program> mock-upstream`: a `delegateos-conform` executable given by path.
    pub fn subcommand_of(program: PathBuf) -> Self {
        Self {
            program,
            leading_args: vec!["mock-upstream".to_owned()],
        }
    }
}

impl SuiteOptions {
    /// "needs option X …" when `needed` names an option the proxy was not declared to have
    /// (the words of `run`'s skip of a case needing an undeclared `hello.options` name).
    pub(crate) fn lacks(&self, needed: &[String]) -> Option<String> {
        let missing: Vec<&str> = needed
            .iter()
            .filter(|o| !self.options.contains(o))
            .map(String::as_str)
            .collect();
        (!missing.is_empty()).then(|| {
            format!(
                "needs option {} (pass --option {} if the proxy has it)",
                missing.join(", "),
                missing.join(",")
            )
        })
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// Proxy command template; `{config}` is replaced by the launch config path.
    pub proxy: String,
    /// The recording mock upstream: an executable and the arguments that select the mock
    /// (`[delegateos-conform, mock-upstream]` by default: the harness's own executable).
    pub mock_upstream: MockCommand,
    /// The options the proxy has (`delegateos_vectors::options`, the names of `run`'s
    /// `hello.options`): a case needing another (`strict-mode` for the strict-mode cases and
    /// session scripts, whose proxy is launched with `strict: true`) is skipped, "needs option X".
    pub options: Vec<String>,
    /// Only cases whose id matches one of these globs (`*` any run, `?` one character);
    /// empty selects every case.
    pub ids: Vec<String>,
    /// Deadline of one case.
    pub case_timeout: Duration,
    /// Run the smoke cases against a real upstream.
    pub smoke: Option<SmokeUpstream>,
    /// How the suite talks to the proxy: stdio (default) or MCP Streamable HTTP.
    pub transport: crate::mcp::config::Transport,
    /// Where the session scripts (`mcp.session` cases, spec/mcp-proxy.md §6.2) come from:
    /// every vector file under this directory, or the embedded corpus when `None`.
    pub session_vectors: Option<PathBuf>,
    /// Cases run side by side (each starts its own proxy and mock upstream); 1 runs them one
    /// after another. The report is the same for every number.
    pub jobs: usize,
}

/// Shared state of one suite run.
pub(super) struct Ctx {
    pub opts: SuiteOptions,
    pub dir: PathBuf,
    pub counter: AtomicU64,
    /// Processes of the running case: (proxy pid, mock record path).
    pub live: Mutex<Vec<(u32, PathBuf)>>,
    /// Last proxy stderr of the running case.
    pub stderr: Arc<Mutex<Option<String>>>,
    /// The violations the running case observed and went on past (`Session::observe`).
    /// Numbered by case: a session of a case that ran past its deadline cannot add to the
    /// next case's.
    pub observed: Arc<Mutex<(u64, Vec<super::results::Observation>)>>,
}

/// Locks `m`, ignoring poisoning (a panicking case must not wedge the suite).
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
