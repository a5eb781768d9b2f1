//! The MCP proxy conformance suite (`delegateos-conform mcp`).
//!
//! Each case launches the proxy under test with a fresh launch config whose upstream is the
//! recording mock (`delegateos-mock-upstream`), drives it with raw JSON-RPC, and judges both
//! what the client received and what the mock recorded. Cases are independent, have a
//! deadline, and reap every process they start (the proxy's process group, and the mock by
//! the pid it records). Case ids are stable (`mcp-<name>`); requirement ids are the `MCP-…`
//! ids of `spec/requirements.md`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::client::signal_pid;
use super::config::Transport;

mod calls_denials;
mod context;
mod fixtures;
mod handshake;
mod http;
mod judge;
mod listing;
mod results;
mod scripts;
mod session;
mod smoke;
mod spend;
mod transport;

use calls_denials::DenyProbe;
use context::{lock, Ctx};
pub use context::{MockCommand, SmokeUpstream, SuiteOptions};
pub use scripts::{
    from_vector_cases as session_cases_from, load as load_session_cases, ScriptCase,
};
use session::mock_pid;

pub use results::{CaseResult, Observation, Status, SuiteReport, CLIENT_EOF, STDOUT_CLEAN};
pub use session::NON_JSON_STDOUT;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Core,
    Strict,
    Smoke,
    /// Meaningful over stdio only (line framing).
    StdioOnly,
    /// Streamable HTTP only.
    Http,
    /// A session script from the corpus (`mcp.session`): both transports.
    Script,
}

type CaseFn = fn(&Ctx) -> Result<(), String>;

/// How a case runs: a hand-written scenario, a single-call denial described as data, or a
/// session script of the corpus.
#[derive(Clone)]
enum Run {
    Scenario(CaseFn),
    Deny(&'static DenyProbe),
    Script(Arc<ScriptCase>),
    /// The session vectors could not be loaded: the case fails with this message.
    Broken(String),
}

struct Case {
    id: &'static str,
    description: &'static str,
    requirements: &'static [&'static str],
    kind: Kind,
    run: Run,
}

/// Every requirement id a case of the suite checks.
pub fn requirement_ids() -> std::collections::BTreeSet<String> {
    case_catalogue()
        .into_iter()
        .flat_map(|(_, _, r)| r)
        .collect()
}

/// The ids, descriptions and requirements of every case, in order (for listings and coverage).
pub fn case_catalogue() -> Vec<(String, String, Vec<String>)> {
    CASES
        .iter()
        .map(|c| {
            (
                c.id.to_owned(),
                c.description.to_owned(),
                c.requirements.iter().map(|r| (*r).to_owned()).collect(),
            )
        })
        .collect()
}

/// The suite could not be set up: the proxy did not start, or never answered `initialize`.
/// Reported once instead of as one identical failure per case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError {
    /// What went wrong.
    pub message: String,
    /// The end of what the proxy wrote to stderr.
    pub stderr_tail: Option<String>,
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(t) = &self.stderr_tail {
            write!(f, "\nproxy stderr (tail):\n{}", t.trim_end())?;
        }
        Ok(())
    }
}

/// Live notifications while the suite runs (progress display).
pub trait SuiteObserver {
    /// Before the first case: how many cases are selected.
    fn start(&mut self, _total: usize) {}
    /// A case is about to run.
    fn case_started(&mut self, _id: &str) {}
    /// A case ended.
    fn case_done(&mut self, _result: &CaseResult) {}
}

/// Observes nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoObserver;

impl SuiteObserver for NoObserver {}

/// One case of a run: a catalogue case or a session script.
#[derive(Clone)]
struct Planned {
    id: String,
    description: String,
    requirements: Vec<String>,
    kind: Kind,
    /// The options the case needs (`strict-mode` for a `Strict` case; a script's vector's own).
    options: Vec<String>,
    run: Run,
}

/// Every case of a run, in order: the catalogue, then the corpus's session scripts (from
/// `opts.session_vectors`, default the embedded corpus). A corpus that cannot be loaded is one
/// failing case, `mcp-session-vectors`.
fn plan(session_vectors: Option<&std::path::Path>) -> Vec<Planned> {
    let mut out: Vec<Planned> = CASES
        .iter()
        .map(|c| Planned {
            id: c.id.to_owned(),
            description: c.description.to_owned(),
            requirements: c.requirements.iter().map(|r| (*r).to_owned()).collect(),
            kind: c.kind,
            options: (c.kind == Kind::Strict)
                .then(|| delegateos_vectors::options::STRICT_MODE.to_owned())
                .into_iter()
                .collect(),
            run: c.run.clone(),
        })
        .collect();
    match scripts::load(session_vectors) {
        Ok(cases) => out.extend(cases.into_iter().map(|c| Planned {
            id: c.id.clone(),
            description: c.description.clone(),
            requirements: c.requirements.clone(),
            kind: Kind::Script,
            options: c.options.clone(),
            run: Run::Script(Arc::new(c)),
        })),
        Err(e) => out.push(Planned {
            id: "mcp-session-vectors".into(),
            description: "the session scripts (mcp.session vectors) load".into(),
            requirements: Vec::new(),
            kind: Kind::Script,
            options: Vec::new(),
            run: Run::Broken(e),
        }),
    }
    out
}

fn selected(opts: &SuiteOptions) -> Vec<Planned> {
    plan(opts.session_vectors.as_deref())
        .into_iter()
        .filter(|c| opts.ids.is_empty() || opts.ids.iter().any(|g| id_glob_match(g, &c.id)))
        .collect()
}

/// The ids `globs` select (every id when `globs` is empty), in suite order: the catalogue and
/// the session scripts of `session_vectors` (default: the embedded corpus).
pub fn select_ids(globs: &[String], session_vectors: Option<&std::path::Path>) -> Vec<String> {
    plan(session_vectors)
        .into_iter()
        .filter(|c| globs.is_empty() || globs.iter().any(|g| id_glob_match(g, &c.id)))
        .map(|c| c.id)
        .collect()
}

fn skip_reason(case: &Planned, opts: &SuiteOptions) -> Option<String> {
    let why = match case.kind {
        Kind::Smoke if opts.smoke.is_none() => {
            Some("smoke case: node or @modelcontextprotocol/server-everything not available")
        }
        Kind::Smoke if opts.transport == Transport::Http => {
            Some("smoke case: stdio only for now (the tap sits behind the proxy's stdio upstream, but the case drives stdio)")
        }
        Kind::StdioOnly if opts.transport == Transport::Http => Some(
            "stdio-only: newline framing of the proxy's stdin (partial writes, CRLF, non-JSON lines); over HTTP see mcp-http-body-limits",
        ),
        Kind::Http if opts.transport == Transport::Stdio => {
            Some("HTTP-only case: run with --transport http")
        }
        _ => None,
    };
    opts.lacks(&case.options).or(why.map(str::to_owned))
}

fn new_ctx(opts: &SuiteOptions) -> Arc<Ctx> {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "delegateos-mcp-suite-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::create_dir_all(&dir);
    Arc::new(Ctx {
        opts: opts.clone(),
        dir,
        counter: AtomicU64::new(0),
        live: Mutex::new(Vec::new()),
        stderr: Arc::new(Mutex::new(None)),
        observed: Arc::new(Mutex::new((0, Vec::new()))),
    })
}

/// Runs the selected cases (no set-up check: a proxy that cannot start fails every case).
pub fn run_suite(opts: &SuiteOptions) -> SuiteReport {
    let started = Instant::now();
    let ctx = new_ctx(opts);
    let report = run_cases(&ctx, started, &mut NoObserver);
    let _ = std::fs::remove_dir_all(&ctx.dir);
    report
}

/// Runs the selected cases after checking, once, that the proxy starts and answers
/// `initialize`; if it does not, that is one [`SetupError`] (with the proxy's stderr tail).
pub fn run_suite_checked(
    opts: &SuiteOptions,
    observer: &mut dyn SuiteObserver,
) -> Result<SuiteReport, SetupError> {
    let started = Instant::now();
    let ctx = new_ctx(opts);
    let needs_proxy = selected(opts)
        .iter()
        .any(|c| skip_reason(c, opts).is_none());
    if needs_proxy {
        let (status, message) = run_one(&ctx, Run::Scenario(preflight), opts.case_timeout);
        if status != Status::Passed {
            let stderr_tail = lock(&ctx.stderr).take().map(|s| tail(&s, 2000));
            let _ = std::fs::remove_dir_all(&ctx.dir);
            return Err(SetupError {
                message: format!(
                    "the proxy did not start or did not answer initialize: {}",
                    message.unwrap_or_default()
                ),
                stderr_tail: stderr_tail.filter(|t| !t.trim().is_empty()),
            });
        }
        *lock(&ctx.stderr) = None;
    }
    let report = run_cases(&ctx, started, observer);
    let _ = std::fs::remove_dir_all(&ctx.dir);
    Ok(report)
}

/// The set-up check: one proxy, standard config, the handshake answered (with anything).
fn preflight(ctx: &Ctx) -> Result<(), String> {
    let mut s = session::Session::start(ctx, &session::Setup::standard())?;
    let answered = s.init();
    if answered.is_err() {
        *lock(&ctx.stderr) = Some(s.proxy.stderr_text_settled(Duration::from_secs(1)));
    }
    answered.map(|_| ())
}

/// Runs the selected cases. With `opts.jobs` above 1, worker k of N runs cases k, k + N, … in
/// that order, each worker with its own context (scratch directory, live processes, and the
/// stderr and stdout noise of its running case): every case starts its own proxy and mock
/// upstream, so cases share nothing, and which worker runs a case depends on N alone. The
/// results are committed (and observed) in case order, so the report is the same for every
/// N apart from timings.
fn run_cases(ctx: &Arc<Ctx>, started: Instant, observer: &mut dyn SuiteObserver) -> SuiteReport {
    let opts = &ctx.opts;
    let cases = selected(opts);
    observer.start(cases.len());
    let jobs = opts.jobs.clamp(1, cases.len().max(1));
    let mut results = Vec::with_capacity(cases.len());
    if jobs == 1 {
        for case in &cases {
            observer.case_started(&case.id);
            let result = run_case(ctx, case);
            observer.case_done(&result);
            results.push(result);
        }
    } else {
        let contexts: Vec<Arc<Ctx>> = (0..jobs)
            .map(|k| {
                if k == 0 {
                    Arc::clone(ctx)
                } else {
                    new_ctx(opts)
                }
            })
            .collect();
        let cases = &cases;
        thread::scope(|scope| {
            let (tx, rx) = mpsc::channel::<(usize, CaseResult)>();
            for (k, worker) in contexts.iter().enumerate() {
                let tx = tx.clone();
                scope.spawn(move || {
                    for (i, case) in cases.iter().enumerate().skip(k).step_by(jobs) {
                        if tx.send((i, run_case(worker, case))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut pending = std::collections::BTreeMap::new();
            for (i, result) in rx {
                pending.insert(i, result);
                while let Some(result) = pending.remove(&results.len()) {
                    observer.case_started(&result.id);
                    observer.case_done(&result);
                    results.push(result);
                }
            }
        });
        for worker in &contexts[1..] {
            let _ = std::fs::remove_dir_all(&worker.dir);
        }
    }
    SuiteReport {
        proxy: opts.proxy.clone(),
        cases: results,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}

/// Runs one case in `ctx` (skipped, or not run after a signal, without starting anything).
fn run_case(ctx: &Arc<Ctx>, case: &Planned) -> CaseResult {
    let opts = &ctx.opts;
    let t0 = Instant::now();
    let (status, message) = match (interrupted_by(), skip_reason(case, opts)) {
        (Some(signal), _) => (
            Status::Errored,
            Some(format!("not run: interrupted by {signal}")),
        ),
        (None, Some(why)) => (Status::Skipped, Some(why)),
        (None, None) => run_one(ctx, case.run.clone(), opts.case_timeout),
    };
    let observed = {
        let mut o = lock(&ctx.observed);
        o.0 += 1;
        std::mem::take(&mut o.1)
    };
    // A case that ran to its end but observed violations on the way failed; it stopped at a
    // failure of its own when it returned one.
    let stopped = status == Status::Failed;
    let (status, message) = match (status, observed.first()) {
        (Status::Passed, Some(first)) => (Status::Failed, Some(first.message.clone())),
        other => (other.0, message),
    };
    let stderr_tail = if status == Status::Failed || status == Status::Errored {
        lock(&ctx.stderr).take().map(|s| tail(&s, 2000))
    } else {
        None
    };
    *lock(&ctx.stderr) = None;
    CaseResult {
        id: case.id.clone(),
        description: case.description.clone(),
        observed,
        stopped,
        requirements: case.requirements.clone(),
        status,
        message,
        stderr_tail,
        duration_ms: t0.elapsed().as_secs_f64() * 1000.0,
    }
}

fn tail(s: &str, n: usize) -> String {
    let start = s.len().saturating_sub(n);
    let mut i = start;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    s[i..].to_owned()
}

/// Case selection by `--id`: the harness-wide glob (`*` any run, `?` one character).
pub fn id_glob_match(pattern: &str, id: &str) -> bool {
    crate::filter::glob_match(pattern, id)
}

/// Cases in flight in this process (every worker of every run): the orphan sweep after a case
/// runs only when no other case is in flight, since a case's evidence may be an orphan (the
/// upstream a proxy killed by SIGTERM left running is what `mcp-sigterm` looks for); one
/// worker's sweep killing it made that case pass with `--jobs` above 1 against a proxy that
/// orphans its upstream.
static IN_FLIGHT: AtomicU64 = AtomicU64::new(0);

fn run_one(ctx: &Arc<Ctx>, run: Run, timeout: Duration) -> (Status, Option<String>) {
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    let (tx, rx) = mpsc::channel();
    let c = Arc::clone(ctx);
    let handle = thread::spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match run {
            Run::Scenario(f) => f(&c),
            Run::Deny(probe) => calls_denials::run_probe(&c, probe),
            Run::Script(script) => scripts::run(&c, &script),
            Run::Broken(message) => Err(message),
        }));
        let _ = tx.send(result);
    });
    // Waits in slices so that a signal (`crate::runner::interrupt`) ends the case at once.
    let deadline = Instant::now() + timeout;
    let received = loop {
        if let Some(signal) = interrupted_by() {
            break Err(Some(signal));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break Err(None);
        }
        match rx.recv_timeout(left.min(Duration::from_millis(50))) {
            Ok(r) => break Ok(r),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break Err(None),
        }
    };
    // A case that failed once the signal killed its proxy was interrupted, not failed.
    let received = match (received, interrupted_by()) {
        (Ok(Ok(Ok(()))), _) => Ok(Ok(Ok(()))),
        (_, Some(signal)) => Err(Some(signal)),
        (r, None) => r,
    };
    let outcome = match received {
        Err(Some(signal)) => (
            Status::Errored,
            Some(format!(
                "interrupted by {signal} while the case was in flight"
            )),
        ),
        Ok(Ok(Ok(()))) => (Status::Passed, None),
        Ok(Ok(Err(msg))) => (Status::Failed, Some(msg)),
        Ok(Err(_)) => (
            Status::Errored,
            Some("the case panicked (harness bug)".into()),
        ),
        Err(None) => (
            Status::Errored,
            Some(format!("case deadline of {timeout:?} exceeded")),
        ),
    };
    // Reap whatever the case left running (always, so a timed-out case cannot leak).
    let live = std::mem::take(&mut *lock(&ctx.live));
    for (proxy_pid, record) in live {
        kill_group(proxy_pid);
        if let Some(pid) = mock_pid(&record) {
            signal_pid(pid, rustix::process::Signal::KILL);
        }
    }
    // `mcp` makes the harness a child subreaper: reap (and kill) what dead proxies left to it,
    // once no other case is in flight (their orphans may be their evidence; the last case to
    // end sweeps everything, and `mcp` sweeps again before it exits).
    if IN_FLIGHT.fetch_sub(1, Ordering::SeqCst) == 1 {
        crate::runner::interrupt::sweep_orphans();
    }
    if outcome.0 != Status::Errored {
        let _ = handle.join();
    }
    outcome
}

/// The signal that interrupted this process, by name, if one did.
fn interrupted_by() -> Option<String> {
    crate::runner::interrupt::interrupted().map(crate::runner::interrupt::signal_name)
}

fn kill_group(pid: u32) {
    if let Some(p) = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap_or(0)) {
        let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
    }
}

// ---------------------------------------------------------------------------------------
// The catalogue: ids, kinds, requirement ids, descriptions and how each case runs
// ---------------------------------------------------------------------------------------

macro_rules! case {
    ($id:literal, $kind:expr, $reqs:expr, $desc:literal, $f:expr) => {
        Case {
            id: $id,
            description: $desc,
            requirements: $reqs,
            kind: $kind,
            run: $f,
        }
    };
}

use Kind::{Core, Http, Smoke, StdioOnly, Strict};

/// The catalogue, in suite order.
static CASES: &[Case] = &[
        case!("mcp-handshake", Core, &["MCP-INITIALIZE", "MCP-INITIALIZED-ONCE"],
            "initialize is forwarded unchanged and answered with the same id; initialized reaches the upstream once", Run::Scenario(handshake::handshake)),
        case!("mcp-pass-through", Core, &["MCP-PASS-THROUGH"],
            "ping, resources/list, prompts/list, unknown methods and upstream errors pass through unchanged", Run::Scenario(handshake::pass_through)),
        case!("mcp-id-preservation", Core, &["MCP-ID-PRESERVE", "MCP-NO-RESPONSE-TO-NOTIFICATION"],
            "string, integer, 0, large, negative and unicode ids come back identical, also on denials; notifications get no response", Run::Scenario(handshake::id_preservation)),
        case!("mcp-list-unfiltered", Core, &["MCP-LIST-UNFILTERED", "MCP-LIST-PRESERVE"],
            "without a session DCT tools/list is relayed unfiltered", Run::Scenario(listing::list_unfiltered)),
        case!("mcp-list-filter", Core, &["MCP-LIST-FILTER", "MCP-LIST-UNMAPPED-HIDDEN", "MCP-LIST-PRESERVE"],
            "with a session DCT only mapped, granted tools are listed, unchanged and in order", Run::Scenario(listing::list_filter)),
        case!("mcp-list-pagination", Core, &["MCP-LIST-PAGINATION", "MCP-LIST-FILTER"],
            "every page is filtered (also to empty), nextCursor is relayed, hidden names never leak", Run::Scenario(listing::list_pagination)),
        case!("mcp-list-first-page-members", Core, &["MCP-LIST-PAGINATION", "MCP-LIST-FILTER"],
            "the first page of a paginated list, filtered, keeps every member of the upstream's result (nextCursor)", Run::Scenario(listing::list_first_page_members)),
        case!("mcp-list-invalid-session-token", Core, &["MCP-LIST-INVALID-SESSION-TOKEN"],
            "an expired or untrusted session DCT lists no tools", Run::Scenario(listing::list_invalid_session)),
        case!("mcp-call-allowed", Core, &["MCP-CALL-VERIFY", "MCP-CALL-STRIP", "MCP-CALL-RELAY"],
            "an allowed call reaches the upstream once, without _delegateos, with arguments byte-identical and _meta/unknown members intact; the result is relayed", Run::Scenario(calls_denials::call_allowed)),
        case!("mcp-call-nested-resource", Core, &["MCP-CALL-VERIFY"],
            "the resource comes from a dot-path argument; a missing argument is denied", Run::Scenario(calls_denials::call_nested_resource)),
        case!("mcp-call-error-relayed", Core, &["MCP-CALL-RELAY"],
            "isError results and JSON-RPC errors of allowed calls are relayed unchanged", Run::Scenario(calls_denials::call_error_relayed)),
        case!("mcp-missing-delegateos-pass-through", Core, &["MCP-MISSING-DELEGATEOS"],
            "a tools/call without _delegateos is forwarded byte-for-byte in the default mode", Run::Scenario(calls_denials::missing_delegateos)),
        case!("mcp-strict-missing-delegateos", Strict, &["MCP-STRICT-MODE", "MCP-DENY-NOT-FORWARDED"],
            "strict mode denies a tools/call without _delegateos with malformed_token and forwards nothing", Run::Scenario(calls_denials::strict_missing)),
        case!("mcp-strict-allowed-call", Strict, &["MCP-STRICT-MODE", "MCP-CALL-STRIP"],
            "strict mode still forwards a verified call", Run::Scenario(calls_denials::strict_allowed)),
        case!("mcp-deny-expired", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE", "MCP-DENY-NOT-FORWARDED"],
            "an expired token is denied with expired", Run::Deny(&calls_denials::EXPIRED)),
        case!("mcp-deny-revoked", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE", "MCP-DENY-NOT-FORWARDED"],
            "a token whose authority is revoked is denied with revoked and its revocationId", Run::Deny(&calls_denials::REVOKED)),
        case!("mcp-deny-capability-resource", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-CAPABILITY-DATA", "MCP-DENY-NOT-FORWARDED"],
            "a resource outside the grant is capability_not_granted with requested and granted", Run::Deny(&calls_denials::CAPABILITY_RESOURCE)),
        case!("mcp-deny-capability-action", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-CAPABILITY-DATA", "MCP-DENY-NOT-FORWARDED"],
            "an action not granted is capability_not_granted", Run::Deny(&calls_denials::CAPABILITY_ACTION)),
        case!("mcp-deny-unmapped-tool", Core, &["MCP-DENY-UNMAPPED-TOOL", "MCP-DENY-NOT-FORWARDED"],
            "a tool absent from the tool map is capability_not_granted", Run::Deny(&calls_denials::UNMAPPED_TOOL)),
        case!("mcp-deny-hidden-tool", Core, &["MCP-LIST-FILTER", "MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "a tool hidden from tools/list is denied when called", Run::Scenario(calls_denials::deny_hidden)),
        case!("mcp-deny-budget-zero", Core, &["MCP-DENY-EVERY-TYPE", "MCP-SPEND-BUDGET", "MCP-DENY-NOT-FORWARDED"],
            "a zero budget never authorizes: budget_exceeded with limit and spent", Run::Deny(&calls_denials::BUDGET_ZERO)),
        case!("mcp-deny-chain-depth", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "an authority deeper than its maxChainDepth is chain_depth_exceeded", Run::Deny(&calls_denials::CHAIN_DEPTH)),
        case!("mcp-deny-untrusted-root", Core, &["MCP-DENY-UNTRUSTED-ROOT", "MCP-DENY-NOT-FORWARDED"],
            "a token issued by an untrusted key is invalid_signature", Run::Deny(&calls_denials::UNTRUSTED_ROOT)),
        case!("mcp-deny-forged-signature", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "a token whose authority was widened after signing is invalid_signature", Run::Deny(&calls_denials::FORGED_SIGNATURE)),
        case!("mcp-deny-attenuation-expansion", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "a correctly signed attenuation that widens capabilities is attenuation_violation", Run::Deny(&calls_denials::ATTENUATION_EXPANSION)),
        case!("mcp-deny-malformed-base64", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "a dct that is not base64url is malformed_token", Run::Deny(&calls_denials::MALFORMED_BASE64)),
        case!("mcp-deny-malformed-format", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "a _delegateos.format other than delegateos-sjt-v1 is malformed_token", Run::Deny(&calls_denials::MALFORMED_FORMAT)),
        case!("mcp-deny-malformed-missing-dct", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "a _delegateos without dct is malformed_token", Run::Deny(&calls_denials::MALFORMED_MISSING_DCT)),
        case!("mcp-deny-malformed-null", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "_delegateos: null is malformed_token", Run::Deny(&calls_denials::MALFORMED_NULL)),
        case!("mcp-deny-malformed-non-object", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "a string or array _delegateos is malformed_token", Run::Deny(&calls_denials::MALFORMED_NON_OBJECT)),
        case!("mcp-deny-malformed-unknown-member", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "a _delegateos with an unknown member is malformed_token", Run::Deny(&calls_denials::MALFORMED_UNKNOWN_MEMBER)),
        case!("mcp-deny-inconsistent-delegation-id", Core, &["MCP-DELEGATEOS-CONSISTENT", "MCP-DENY-NOT-FORWARDED"],
            "_delegateos.delegationId differing from the token's is malformed_token", Run::Deny(&calls_denials::INCONSISTENT_DELEGATION_ID)),
        case!("mcp-deny-inconsistent-contract-id", Core, &["MCP-DELEGATEOS-CONSISTENT", "MCP-DENY-NOT-FORWARDED"],
            "_delegateos.contractId differing from the token's is malformed_token", Run::Deny(&calls_denials::INCONSISTENT_CONTRACT_ID)),
        case!("mcp-deny-non-blocking", Core, &["MCP-DENY-NON-BLOCKING"],
            "a denial is answered while an allowed slow call is still in flight", Run::Scenario(calls_denials::deny_non_blocking)),
        case!("mcp-spend-concurrent", Core, &["MCP-SPEND-PER-DELEGATION", "MCP-SPEND-CONCURRENT", "MCP-SPEND-BUDGET"],
            "8 concurrent out-of-order calls on two delegations: each answer reaches its id, spend is charged per delegation", Run::Scenario(spend::spend_concurrent)),
        case!("mcp-spend-budget-exhaustion", Core, &["MCP-SPEND-BUDGET", "MCP-SPEND-PER-DELEGATION"],
            "spend accumulates across calls (upstream errors included) until budget_exceeded", Run::Scenario(spend::spend_exhaustion)),
        case!("mcp-notify-upstream-to-client", Core, &["MCP-NOTIFY-UPSTREAM-TO-CLIENT"],
            "upstream notifications (list_changed, message, progress) reach the client in order, before the response", Run::Scenario(handshake::notify_upstream)),
        case!("mcp-notify-client-to-upstream", Core, &["MCP-NOTIFY-CLIENT-TO-UPSTREAM", "MCP-NO-RESPONSE-TO-NOTIFICATION"],
            "client notifications, including cancellation of an in-flight call, reach the upstream", Run::Scenario(handshake::notify_client)),
        case!("mcp-server-request", Core, &["MCP-SERVER-REQUESTS"],
            "an upstream roots/list request reaches the client and its answer reaches the upstream", Run::Scenario(handshake::server_request)),
        case!("mcp-large-client-to-upstream", Core, &["MCP-LARGE-MESSAGE", "MCP-CALL-STRIP"],
            "1 MiB and 10 MiB calls (escaped newlines, non-ASCII, U+2028) reach the upstream intact", Run::Scenario(transport::large_client_to_upstream)),
        case!("mcp-large-upstream-to-client", Core, &["MCP-LARGE-MESSAGE"],
            "a 10 MiB result reaches the client intact", Run::Scenario(transport::large_upstream_to_client)),
        case!("mcp-malformed-lines", StdioOnly, &["MCP-MALFORMED-LINE", "MCP-STDOUT-CLEAN"],
            "non-JSON lines get -32700, non-request JSON gets -32600, partial and CRLF lines work, the proxy keeps serving", Run::Scenario(transport::malformed_lines)),
        case!("mcp-duplicate-members", Core, &["MCP-MALFORMED-LINE", "MCP-DENY-NOT-FORWARDED"],
            "lines with duplicate member names (top level, params, escaped keys) get -32600 and never reach the upstream (D35)", Run::Scenario(transport::duplicate_members)),
        case!("mcp-stdout-clean", Core, &["MCP-STDOUT-CLEAN"],
            "upstream stderr chatter never reaches the proxy's stdout", Run::Scenario(transport::stdout_clean)),
        case!("mcp-upstream-garbage", Core, &["MCP-STDOUT-CLEAN"],
            "a non-JSON line from the upstream never reaches the client; the call is still answered", Run::Scenario(transport::upstream_garbage)),
        case!("mcp-upstream-crash", Core, &["MCP-UPSTREAM-CRASH"],
            "when the upstream exits mid-call, in-flight requests get -32603 within 5 s (or the proxy exits)", Run::Scenario(transport::upstream_crash)),
        case!("mcp-upstream-hang", Core, &["MCP-CLIENT-EOF", "MCP-DENY-NON-BLOCKING"],
            "a call the upstream never answers does not block others; client EOF still ends everything", Run::Scenario(transport::upstream_hang)),
        case!("mcp-client-eof", Core, &["MCP-CLIENT-EOF"],
            "client EOF closes the upstream's stdin and both exit within 5 s", Run::Scenario(transport::client_eof)),
        case!("mcp-client-eof-stubborn-upstream", Core, &["MCP-CLIENT-EOF"],
            "an upstream that ignores EOF is terminated: no orphan", Run::Scenario(transport::client_eof_stubborn)),
        case!("mcp-sigterm", Core, &["MCP-CLIENT-EOF"],
            "SIGTERM to the proxy terminates the upstream too: no orphan", Run::Scenario(transport::sigterm)),
        case!("mcp-smoke-list-filter", Smoke, &["MCP-LIST-FILTER"],
            "server-everything behind the proxy: tools/list shows only the granted tool", Run::Scenario(smoke::smoke_list)),
        case!("mcp-smoke-call-allowed", Smoke, &["MCP-CALL-STRIP", "MCP-CALL-RELAY"],
            "server-everything behind the proxy: an allowed echo call is stripped and relayed", Run::Scenario(smoke::smoke_call)),
        case!("mcp-smoke-call-denied", Smoke, &["MCP-DENY-NOT-FORWARDED"],
            "server-everything behind the proxy: a call outside the grant is denied locally", Run::Scenario(smoke::smoke_deny)),
        // Red team (py-proxy): spend must be checked and charged together, at authorization.
        case!("mcp-spend-concurrent-overdraw", Core, &["MCP-SPEND-CONCURRENT", "MCP-SPEND-BUDGET", "MCP-DENY-NOT-FORWARDED"],
            "4 concurrent slow calls on a 250 budget (cost 100): the 4th is denied before any answer (spent 300), never forwarded", Run::Scenario(spend::spend_concurrent_overdraw)),
        case!("mcp-spend-envelope-variants", Core, &["MCP-SPEND-PER-DELEGATION", "MCP-SPEND-BUDGET"],
            "spend is keyed by the token's delegation, not by the optional _delegateos.delegationId: calls with and without it share one budget", Run::Scenario(spend::spend_envelope_variants)),
        case!("mcp-raw-line-separators", Core, &["MCP-PASS-THROUGH", "MCP-CALL-STRIP", "MCP-CALL-RELAY"],
            "raw U+2028, U+2029 and U+0085 inside JSON strings do not end a message (only \\n does), both ways", Run::Scenario(transport::raw_line_separators)),
        case!("mcp-denied-notification-silent", Core, &["MCP-NO-RESPONSE-TO-NOTIFICATION", "MCP-DENY-NOT-FORWARDED", "MCP-SPEND-BUDGET"],
            "a denied tools/call notification is dropped without any answer; an authorized one is forwarded and charged", Run::Scenario(calls_denials::denied_notification_silent)),
        case!("mcp-resource-non-string", Core, &["MCP-CALL-VERIFY", "MCP-DENY-CAPABILITY-DATA", "MCP-DENY-NOT-FORWARDED"],
            "under a bare `*` grant, a non-string resource argument (array, number, object, boolean) is still denied with requested.resource null (D36), never coerced to text", Run::Scenario(calls_denials::resource_non_string)),
        case!("mcp-escaped-member-names", Core, &["MCP-MALFORMED-LINE", "MCP-CALL-STRIP", "MCP-DENY-NOT-FORWARDED"],
            "member names are compared after unescaping: `\\u`-spelled duplicates are refused, a `\\u`-spelled _delegateos is verified and stripped", Run::Scenario(transport::escaped_member_names)),
        // Streamable HTTP only (`--transport http`).
        case!("mcp-http-session-id", Http, &["MCP-HTTP-SESSION"],
            "after initialize, a request without Mcp-Session-Id is 400, an unknown one 404 (POST and DELETE); GET is 405 or an SSE stream; nothing reaches the upstream", Run::Scenario(http::session_ids)),
        case!("mcp-http-content-negotiation", Http, &["MCP-HTTP-NEGOTIATION"],
            "a Content-Type other than application/json is 415; an Accept without both application/json and text/event-stream is 406; a non-loopback Origin is 403; nothing forwarded", Run::Scenario(http::content_negotiation)),
        case!("mcp-http-body-limits", Http, &["MCP-HTTP-BODY", "MCP-MALFORMED-LINE"],
            "over http.maxBodyBytes is 413, truncated JSON 400 (-32700), a batch 400; none forwarded; the session goes on", Run::Scenario(http::body_limits)),
        case!("mcp-http-concurrent-sessions", Http, &["MCP-HTTP-SESSION-ISOLATION", "MCP-SPEND-PER-DELEGATION"],
            "two sessions on one proxy have their own upstream and their own spend: a delegation exhausted in one starts from 0 in the other; DELETE ends only its session", Run::Scenario(http::concurrent_sessions)),
        case!("mcp-http-client-disconnect", Http, &["MCP-HTTP-SESSION"],
            "a client dropping its connection while a slow call is in flight does not disturb the session", Run::Scenario(http::client_disconnect)),
        case!("mcp-http-header-smuggling", Http, &["MCP-HTTP-NO-HEADER-AUTHORITY", "MCP-DENY-NOT-FORWARDED"],
            "a token in HTTP headers (_delegateos, X-DelegateOS, Authorization) never authorizes a call nor becomes _delegateos upstream", Run::Scenario(http::header_smuggling)),
];
