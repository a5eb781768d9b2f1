//! The MCP proxy conformance suite (`delegateos-conform mcp`).
//!
//! Each case launches the proxy under test with a fresh launch config whose upstream is the
//! recording mock (`delegateos-mock-upstream`), drives it with raw JSON-RPC, and judges both
//! what the client received and what the mock recorded. Cases are independent, have a
//! deadline, and reap every process they start (the proxy's process group, and the mock by
//! the pid it records). Case ids are stable (`mcp-<name>`); requirement ids are the `MCP-…`
//! ids of `spec/requirements.md`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};

use delegateos_reference::mcp::{DENIAL_CODE, DENIAL_MESSAGE};
use delegateos_reference::token::{revocation_id_of_block, SignedJsonToken};

use super::client::{process_alive, signal_pid, ProxyProcess};
use super::config::{LaunchConfig, UpstreamCommand, LAUNCH_CONFIG_VERSION};
use super::tokens::{self, cap, RootSpec};

/// Default wait for one response.
const T: Duration = Duration::from_secs(5);
/// Wait for responses carrying many megabytes (debug builds parse slowly).
const T_LARGE: Duration = Duration::from_secs(60);

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

/// What to run.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    /// Proxy command template; `{config}` is replaced by the launch config path.
    pub proxy: String,
    /// The recording mock upstream: an executable and the arguments that select the mock
    /// (`[delegateos-conform, mock-upstream]` by default: the harness's own executable).
    pub mock_upstream: MockCommand,
    /// Run the strict-mode cases (the proxy is launched with `strict: true`).
    pub strict_mode_cases: bool,
    /// Only cases whose id matches this glob (`*` wildcards).
    pub id_glob: Option<String>,
    /// Deadline of one case.
    pub case_timeout: Duration,
    /// Run the smoke cases against a real upstream.
    pub smoke: Option<SmokeUpstream>,
}

/// Outcome of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The proxy behaved as specified.
    Passed,
    /// The proxy violated a requirement.
    Failed,
    /// Not run (with a reason).
    Skipped,
    /// The case could not be judged (deadline, harness trouble).
    Errored,
}

/// One case's result.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// Stable case id.
    pub id: String,
    /// What the case checks.
    pub description: String,
    /// Requirement ids.
    pub requirements: Vec<String>,
    /// Outcome.
    pub status: Status,
    /// Why it failed, errored or was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Proxy stderr tail for failures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// Wall time.
    pub duration_ms: f64,
}

/// The suite's result.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    /// The proxy command template.
    pub proxy: String,
    /// Results in suite order.
    pub cases: Vec<CaseResult>,
    /// Total wall time.
    pub duration_ms: f64,
}

impl SuiteReport {
    /// Number of cases with `status`.
    pub fn count(&self, status: Status) -> usize {
        self.cases.iter().filter(|c| c.status == status).count()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Core,
    Strict,
    Smoke,
}

type CaseFn = fn(&Ctx) -> Result<(), String>;

struct Case {
    id: &'static str,
    description: &'static str,
    requirements: &'static [&'static str],
    kind: Kind,
    run: CaseFn,
}

/// Shared state of one suite run.
struct Ctx {
    opts: SuiteOptions,
    dir: PathBuf,
    counter: AtomicU64,
    /// Processes of the running case: (proxy pid, mock record path).
    live: Mutex<Vec<(u32, PathBuf)>>,
    /// Last proxy stderr of the running case.
    stderr: Arc<Mutex<Option<String>>>,
}

/// The ids, descriptions and requirements of every case, in order (for listings and coverage).
pub fn case_catalogue() -> Vec<(String, String, Vec<String>)> {
    cases()
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

/// Runs the suite.
pub fn run_suite(opts: &SuiteOptions) -> SuiteReport {
    let started = Instant::now();
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "delegateos-mcp-suite-{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::create_dir_all(&dir);
    let ctx = Arc::new(Ctx {
        opts: opts.clone(),
        dir: dir.clone(),
        counter: AtomicU64::new(0),
        live: Mutex::new(Vec::new()),
        stderr: Arc::new(Mutex::new(None)),
    });
    let mut results = Vec::new();
    for case in cases() {
        if let Some(glob) = &opts.id_glob {
            if !id_glob_match(glob, case.id) {
                continue;
            }
        }
        let skip = match case.kind {
            Kind::Strict if !opts.strict_mode_cases => {
                Some("strict-mode case: pass --strict-mode-cases")
            }
            Kind::Smoke if opts.smoke.is_none() => {
                Some("smoke case: node or @modelcontextprotocol/server-everything not available")
            }
            _ => None,
        };
        let t0 = Instant::now();
        let (status, message) = match skip {
            Some(why) => (Status::Skipped, Some(why.to_owned())),
            None => run_one(&ctx, case.run, opts.case_timeout),
        };
        let stderr_tail = if status == Status::Failed || status == Status::Errored {
            lock(&ctx.stderr).take().map(|s| tail(&s, 2000))
        } else {
            None
        };
        *lock(&ctx.stderr) = None;
        results.push(CaseResult {
            id: case.id.to_owned(),
            description: case.description.to_owned(),
            requirements: case.requirements.iter().map(|r| (*r).to_owned()).collect(),
            status,
            message,
            stderr_tail,
            duration_ms: t0.elapsed().as_secs_f64() * 1000.0,
        });
    }
    let _ = std::fs::remove_dir_all(&dir);
    SuiteReport {
        proxy: opts.proxy.clone(),
        cases: results,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Case selection by `--id`: the harness-wide glob (`*` any run, `?` one character).
pub fn id_glob_match(pattern: &str, id: &str) -> bool {
    crate::filter::glob_match(pattern, id)
}

fn run_one(ctx: &Arc<Ctx>, run: CaseFn, timeout: Duration) -> (Status, Option<String>) {
    let (tx, rx) = mpsc::channel();
    let c = Arc::clone(ctx);
    let handle = thread::spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&c)));
        let _ = tx.send(result);
    });
    let outcome = match rx.recv_timeout(timeout) {
        Ok(Ok(Ok(()))) => (Status::Passed, None),
        Ok(Ok(Err(msg))) => (Status::Failed, Some(msg)),
        Ok(Err(_)) => (
            Status::Errored,
            Some("the case panicked (harness bug)".into()),
        ),
        Err(_) => (
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
    if outcome.0 != Status::Errored {
        let _ = handle.join();
    }
    outcome
}

fn kill_group(pid: u32) {
    if let Some(p) = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap_or(0)) {
        let _ = rustix::process::kill_process_group(p, rustix::process::Signal::KILL);
    }
}

// ---------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------

/// Tools of the standard mock, in list order, with varied members so that filtering must keep
/// objects intact.
fn tool_object(name: &str) -> Value {
    json!({
        "name": name,
        "title": format!("Tool {name}"),
        "description": format!("The {name} tool (ünïcødé \u{2028} text)"),
        "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
        "annotations": {"readOnlyHint": name == "read_file"},
        "_meta": {"vendor.example/rank": 7},
        "x-unknown-member": [1, 2.5, null, {"k": "v"}],
    })
}

const STANDARD_TOOLS: &[&str] = &[
    "read_file",
    "write_file",
    "search",
    "nested",
    "slow",
    "fail_result",
    "fail_rpc",
    "crash",
    "hang",
    "ask",
    "big",
    "progress",
    "noisy",
    "d1",
    "d2",
    "d3",
    "d4",
    "unmapped_tool",
];

fn standard_script() -> Value {
    json!({
        "tools": STANDARD_TOOLS.iter().map(|n| tool_object(n)).collect::<Vec<_>>(),
        "behaviors": {
            "slow": {"delayMs": 1500},
            "noisy": {"stdoutGarbage": true},
            "fail_result": {"isError": true},
            "fail_rpc": {"error": {"code": -32050, "message": "tool failed", "data": {"why": "scripted"}}},
            "crash": {"crash": true},
            "hang": {"hang": true},
            "ask": {"askClient": {"method": "roots/list", "params": {}}},
            "big": {"hugeBytes": 10 * 1024 * 1024},
            "progress": {"progress": 3, "delayMs": 50},
            "d1": {"delayMs": 400},
            "d2": {"delayMs": 300},
            "d3": {"delayMs": 200},
            "d4": {"delayMs": 100},
        },
        "resources": [{"uri": "file:///project/a.txt", "name": "a.txt"}],
        "prompts": [{"name": "greet", "description": "Say hi"}],
    })
}

fn standard_tools() -> Value {
    let mut map = json!({
        "read_file": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}},
        "write_file": {"namespace": "docs", "action": "write", "resource": {"argument": "path"}},
        "search": {"namespace": "web", "action": "search"},
        "nested": {"namespace": "docs", "action": "read", "resource": {"argument": "target.path"}},
    });
    for t in [
        "slow",
        "fail_result",
        "fail_rpc",
        "crash",
        "hang",
        "ask",
        "big",
        "progress",
        "noisy",
        "d1",
        "d2",
        "d3",
        "d4",
    ] {
        map[t] =
            json!({"namespace": "compute", "action": "execute", "resource": {"constant": "*"}});
    }
    map
}

fn standard_caps() -> Vec<delegateos_reference::token::Capability> {
    vec![
        cap("docs", "read", "/project/**"),
        cap("web", "search", "*"),
        cap("compute", "execute", "*"),
    ]
}

fn good_token() -> SignedJsonToken {
    RootSpec::new(standard_caps()).sign(&tokens::root())
}

/// Everything a session's launch config and mock script depend on.
#[derive(Clone)]
struct Setup {
    script: Value,
    tools: Value,
    session_token: Option<Value>,
    revocations: Vec<Value>,
    spend_per_call: u64,
    strict: bool,
    trusted_roots: Vec<String>,
    /// Smoke: run this real server behind the tap instead of the mock.
    real_upstream: Option<Vec<String>>,
}

impl Setup {
    fn standard() -> Self {
        Setup {
            script: standard_script(),
            tools: standard_tools(),
            session_token: None,
            revocations: Vec::new(),
            spend_per_call: 100,
            strict: false,
            trusted_roots: vec![tokens::root().principal_id()],
            real_upstream: None,
        }
    }

    fn with_session(mut self, token: &SignedJsonToken) -> Self {
        self.session_token = serde_json::to_value(tokens::serialize(token)).ok();
        self
    }
}

/// One running proxy with its mock.
struct Session {
    proxy: ProxyProcess,
    record: PathBuf,
    next_id: u64,
    stderr_sink: Arc<Mutex<Option<String>>>,
}

impl Session {
    fn start(ctx: &Ctx, setup: &Setup) -> Result<Session, String> {
        let n = ctx.counter.fetch_add(1, Ordering::SeqCst);
        let dir = ctx.dir.join(format!("s{n}"));
        std::fs::create_dir_all(&dir).map_err(|e| format!("harness: {e}"))?;
        let record = dir.join("upstream-record.jsonl");
        let script = dir.join("script.json");
        write_json(&script, &setup.script)?;
        let mock = ctx
            .opts
            .mock_upstream
            .program
            .to_string_lossy()
            .into_owned();
        let lead = ctx.opts.mock_upstream.leading_args.iter().cloned();
        let upstream = match &setup.real_upstream {
            None => UpstreamCommand {
                command: mock,
                args: lead
                    .chain([
                        "--script".into(),
                        script.to_string_lossy().into_owned(),
                        "--record".into(),
                        record.to_string_lossy().into_owned(),
                    ])
                    .collect(),
                env: Default::default(),
            },
            Some(real) => {
                let mut args: Vec<String> = lead.collect();
                args.extend([
                    "--tap".into(),
                    "--record".into(),
                    record.to_string_lossy().into_owned(),
                    "--".into(),
                ]);
                args.extend(real.iter().cloned());
                UpstreamCommand {
                    command: mock,
                    args,
                    env: Default::default(),
                }
            }
        };
        let tools = serde_json::from_value(setup.tools.clone())
            .map_err(|e| format!("harness: bad tool map: {e}"))?;
        let config = LaunchConfig {
            version: LAUNCH_CONFIG_VERSION,
            trusted_roots: setup.trusted_roots.clone(),
            tools,
            revocations: setup.revocations.clone(),
            spend_per_call: setup.spend_per_call,
            strict: setup.strict,
            session_token: setup.session_token.clone(),
            upstream,
        };
        let config_path = dir.join("launch-config.json");
        write_json(
            &config_path,
            &serde_json::to_value(&config).unwrap_or(Value::Null),
        )?;
        let proxy = ProxyProcess::spawn(&ctx.opts.proxy, &config_path)?;
        lock(&ctx.live).push((proxy.pid(), record.clone()));
        Ok(Session {
            proxy,
            record,
            next_id: 0,
            stderr_sink: Arc::clone(&ctx.stderr),
        })
    }

    fn fresh_id(&mut self) -> Value {
        self.next_id += 1;
        json!(format!("h-{}", self.next_id))
    }

    fn send(&mut self, msg: &Value) -> Result<(), String> {
        self.proxy.send(msg)
    }

    fn request(
        &mut self,
        id: Value,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        self.proxy.response(&id, timeout)
    }

    /// The legacy handshake: `initialize` then `notifications/initialized`.
    fn init(&mut self) -> Result<Value, String> {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {"listChanged": true}},
            "clientInfo": {"name": "delegateos-conform", "version": env!("CARGO_PKG_VERSION")},
        });
        let resp = self.request(json!("init"), "initialize", params, Duration::from_secs(15))?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(resp)
    }

    fn call(
        &mut self,
        id: Value,
        name: &str,
        args: Value,
        envelope: Option<Value>,
    ) -> Result<Value, String> {
        self.send(&call_msg(&id, name, args, envelope))?;
        self.proxy.response(&id, T)
    }

    /// A ping round trip: afterwards the upstream has seen every earlier forwarded line.
    fn sync(&mut self) -> Result<(), String> {
        let id = self.fresh_id();
        let resp = self.request(id, "ping", json!({}), T)?;
        if resp.get("result").is_none() {
            return Err(format!("ping failed: {}", short(&resp)));
        }
        Ok(())
    }

    fn events(&self) -> Vec<Value> {
        read_events(&self.record)
    }

    /// Messages the upstream received, parsed, in order (unparseable lines skipped).
    fn upstream_msgs(&self) -> Vec<Value> {
        self.events()
            .iter()
            .filter(|e| e["event"] == "in")
            .filter_map(|e| e["raw"].as_str().and_then(|r| serde_json::from_str(r).ok()))
            .collect()
    }

    /// Raw lines the upstream received.
    fn upstream_raw(&self) -> Vec<String> {
        self.events()
            .iter()
            .filter(|e| e["event"] == "in")
            .filter_map(|e| e["raw"].as_str().map(str::to_owned))
            .collect()
    }

    fn upstream_requests_with_id(&self, id: &Value) -> Vec<Value> {
        self.upstream_msgs()
            .into_iter()
            .filter(|m| m.get("method").is_some() && m.get("id") == Some(id))
            .collect()
    }

    /// What the upstream answered to `id`.
    fn upstream_answer(&self, id: &Value) -> Option<Value> {
        self.events()
            .iter()
            .filter(|e| e["event"] == "out")
            .filter_map(|e| {
                e["raw"]
                    .as_str()
                    .and_then(|r| serde_json::from_str::<Value>(r).ok())
            })
            .find(|m| m.get("method").is_none() && m.get("id") == Some(id))
    }

    fn assert_not_forwarded(&mut self, id: &Value) -> Result<(), String> {
        self.sync()?;
        let n = self.upstream_requests_with_id(id).len();
        if n > 0 {
            return Err(format!(
                "the denied call {id} reached the upstream ({n} time(s))"
            ));
        }
        Ok(())
    }

    fn save_stderr(&self) {
        *lock(&self.stderr_sink) = Some(self.proxy.stderr_text());
    }

    /// Client EOF, then: proxy exits within 5 s, the upstream is gone, stdout stayed clean.
    fn finish(mut self) -> Result<(), String> {
        let extra = self.proxy.drain(Duration::from_millis(50));
        self.save_stderr();
        self.check_clean()?;
        let unexpected: Vec<&Value> = extra
            .iter()
            .filter(|m| m.get("method").is_none() && m.get("id").map_or(true, Value::is_null))
            .collect();
        if let Some(m) = unexpected.first() {
            return Err(format!("unexpected message without id: {m}"));
        }
        self.proxy.close_stdin();
        if self.proxy.wait_exit(Duration::from_secs(5)).is_none() {
            return Err("the proxy did not exit within 5 s of client EOF".into());
        }
        self.assert_upstream_gone(Duration::from_secs(1))
    }

    fn check_clean(&self) -> Result<(), String> {
        if let Some(g) = self.proxy.garbage.first() {
            return Err(format!("the proxy wrote a non-JSON line to stdout: {g:?}"));
        }
        Ok(())
    }

    fn assert_upstream_gone(&self, within: Duration) -> Result<(), String> {
        let Some(pid) = mock_pid(&self.record) else {
            return Err("the upstream never started (no start event in its record)".into());
        };
        let deadline = Instant::now() + within;
        while process_alive(pid) {
            if Instant::now() >= deadline {
                return Err(format!(
                    "the upstream (pid {pid}) is still running: orphaned"
                ));
            }
            thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }
}

fn write_json(path: &Path, v: &Value) -> Result<(), String> {
    std::fs::write(path, serde_json::to_vec_pretty(v).unwrap_or_default())
        .map_err(|e| format!("harness: cannot write {}: {e}", path.display()))
}

fn read_events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn mock_pid(record: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(record).ok()?;
    let first: Value = serde_json::from_str(text.lines().next()?).ok()?;
    first["pid"].as_u64().and_then(|p| u32::try_from(p).ok())
}

fn call_msg(id: &Value, name: &str, args: Value, envelope: Option<Value>) -> Value {
    let mut params = json!({"name": name, "arguments": args});
    if let Some(env) = envelope {
        params["_delegateos"] = env;
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn ensure(cond: bool, msg: impl FnOnce() -> String) -> Result<(), String> {
    if cond {
        Ok(())
    } else {
        Err(msg())
    }
}

fn expect_denial(resp: &Value, id: &Value, ty: &str) -> Result<Value, String> {
    ensure(resp.get("id") == Some(id), || {
        format!("denial carries id {:?}, expected {id}", resp.get("id"))
    })?;
    let Some(err) = resp.get("error") else {
        return Err(format!(
            "expected a -32001 {ty} denial, got {}",
            short(resp)
        ));
    };
    ensure(err["code"] == json!(DENIAL_CODE), || {
        format!("denial code is {}, expected -32001", err["code"])
    })?;
    ensure(err["message"] == json!(DENIAL_MESSAGE), || {
        format!(
            "denial message is {}, expected {DENIAL_MESSAGE:?}",
            err["message"]
        )
    })?;
    ensure(err["data"]["type"] == json!(ty), || {
        format!(
            "data.type is {}, expected {ty:?} ({err})",
            err["data"]["type"]
        )
    })?;
    ensure(resp.get("result").is_none(), || {
        "a denial must not carry a result".into()
    })?;
    Ok(err["data"].clone())
}

fn expect_result(resp: &Value) -> Result<&Value, String> {
    resp.get("result")
        .filter(|_| resp.get("error").is_none())
        .ok_or_else(|| format!("expected a result, got {}", short(resp)))
}

/// A message abbreviated for reports (tokens and blobs make them long).
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.len() <= 400 {
        return text;
    }
    let mut cut = 400;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes)", &text[..cut], text.len())
}

// ---------------------------------------------------------------------------------------
// Cases
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

fn cases() -> Vec<Case> {
    use Kind::{Core, Smoke, Strict};
    vec![
        case!("mcp-handshake", Core, &["MCP-INITIALIZE", "MCP-INITIALIZED-ONCE"],
            "initialize is forwarded unchanged and answered with the same id; initialized reaches the upstream once", handshake),
        case!("mcp-pass-through", Core, &["MCP-PASS-THROUGH"],
            "ping, resources/list, prompts/list, unknown methods and upstream errors pass through unchanged", pass_through),
        case!("mcp-id-preservation", Core, &["MCP-ID-PRESERVE", "MCP-NO-RESPONSE-TO-NOTIFICATION"],
            "string, integer, 0, large, negative and unicode ids come back identical, also on denials; notifications get no response", id_preservation),
        case!("mcp-list-unfiltered", Core, &["MCP-LIST-UNFILTERED", "MCP-LIST-PRESERVE"],
            "without a session DCT tools/list is relayed unfiltered", list_unfiltered),
        case!("mcp-list-filter", Core, &["MCP-LIST-FILTER", "MCP-LIST-UNMAPPED-HIDDEN", "MCP-LIST-PRESERVE"],
            "with a session DCT only mapped, granted tools are listed, unchanged and in order", list_filter),
        case!("mcp-list-pagination", Core, &["MCP-LIST-PAGINATION", "MCP-LIST-FILTER"],
            "every page is filtered (also to empty), nextCursor is relayed, hidden names never leak", list_pagination),
        case!("mcp-list-invalid-session-token", Core, &["MCP-LIST-INVALID-SESSION-TOKEN"],
            "an expired or untrusted session DCT lists no tools", list_invalid_session),
        case!("mcp-call-allowed", Core, &["MCP-CALL-VERIFY", "MCP-CALL-STRIP", "MCP-CALL-RELAY"],
            "an allowed call reaches the upstream once, without _delegateos, with arguments byte-identical and _meta/unknown members intact; the result is relayed", call_allowed),
        case!("mcp-call-nested-resource", Core, &["MCP-CALL-VERIFY"],
            "the resource comes from a dot-path argument; a missing argument is denied", call_nested_resource),
        case!("mcp-call-error-relayed", Core, &["MCP-CALL-RELAY"],
            "isError results and JSON-RPC errors of allowed calls are relayed unchanged", call_error_relayed),
        case!("mcp-missing-delegateos-pass-through", Core, &["MCP-MISSING-DELEGATEOS"],
            "a tools/call without _delegateos is forwarded byte-for-byte in the default mode", missing_delegateos),
        case!("mcp-strict-missing-delegateos", Strict, &["MCP-STRICT-MODE", "MCP-DENY-NOT-FORWARDED"],
            "strict mode denies a tools/call without _delegateos with malformed_token and forwards nothing", strict_missing),
        case!("mcp-strict-allowed-call", Strict, &["MCP-STRICT-MODE", "MCP-CALL-STRIP"],
            "strict mode still forwards a verified call", strict_allowed),
        case!("mcp-deny-expired", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE", "MCP-DENY-NOT-FORWARDED"],
            "an expired token is denied with expired", deny_expired),
        case!("mcp-deny-revoked", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-SHAPE", "MCP-DENY-NOT-FORWARDED"],
            "a token whose authority is revoked is denied with revoked and its revocationId", deny_revoked),
        case!("mcp-deny-capability-resource", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-CAPABILITY-DATA", "MCP-DENY-NOT-FORWARDED"],
            "a resource outside the grant is capability_not_granted with requested and granted", deny_capability_resource),
        case!("mcp-deny-capability-action", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-CAPABILITY-DATA", "MCP-DENY-NOT-FORWARDED"],
            "an action not granted is capability_not_granted", deny_capability_action),
        case!("mcp-deny-unmapped-tool", Core, &["MCP-DENY-UNMAPPED-TOOL", "MCP-DENY-NOT-FORWARDED"],
            "a tool absent from the tool map is capability_not_granted", deny_unmapped),
        case!("mcp-deny-hidden-tool", Core, &["MCP-LIST-FILTER", "MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "a tool hidden from tools/list is denied when called", deny_hidden),
        case!("mcp-deny-budget-zero", Core, &["MCP-DENY-EVERY-TYPE", "MCP-SPEND-BUDGET", "MCP-DENY-NOT-FORWARDED"],
            "a zero budget never authorizes: budget_exceeded with limit and spent", deny_budget_zero),
        case!("mcp-deny-chain-depth", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "an authority deeper than its maxChainDepth is chain_depth_exceeded", deny_chain_depth),
        case!("mcp-deny-untrusted-root", Core, &["MCP-DENY-UNTRUSTED-ROOT", "MCP-DENY-NOT-FORWARDED"],
            "a token issued by an untrusted key is invalid_signature", deny_untrusted_root),
        case!("mcp-deny-forged-signature", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "a token whose authority was widened after signing is invalid_signature", deny_forged),
        case!("mcp-deny-attenuation-expansion", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "a correctly signed attenuation that widens capabilities is attenuation_violation", deny_attenuation),
        case!("mcp-deny-malformed-base64", Core, &["MCP-DENY-EVERY-TYPE", "MCP-DENY-NOT-FORWARDED"],
            "a dct that is not base64url is malformed_token", deny_malformed_base64),
        case!("mcp-deny-malformed-format", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "a _delegateos.format other than delegateos-sjt-v1 is malformed_token", deny_malformed_format),
        case!("mcp-deny-malformed-missing-dct", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "a _delegateos without dct is malformed_token", deny_missing_dct),
        case!("mcp-deny-malformed-null", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "_delegateos: null is malformed_token", deny_null),
        case!("mcp-deny-malformed-non-object", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "a string or array _delegateos is malformed_token", deny_non_object),
        case!("mcp-deny-malformed-unknown-member", Core, &["MCP-DELEGATEOS-MALFORMED", "MCP-DENY-NOT-FORWARDED"],
            "a _delegateos with an unknown member is malformed_token", deny_unknown_member),
        case!("mcp-deny-inconsistent-delegation-id", Core, &["MCP-DELEGATEOS-CONSISTENT", "MCP-DENY-NOT-FORWARDED"],
            "_delegateos.delegationId differing from the token's is malformed_token", deny_inconsistent_delegation),
        case!("mcp-deny-inconsistent-contract-id", Core, &["MCP-DELEGATEOS-CONSISTENT", "MCP-DENY-NOT-FORWARDED"],
            "_delegateos.contractId differing from the token's is malformed_token", deny_inconsistent_contract),
        case!("mcp-deny-non-blocking", Core, &["MCP-DENY-NON-BLOCKING"],
            "a denial is answered while an allowed slow call is still in flight", deny_non_blocking),
        case!("mcp-spend-concurrent", Core, &["MCP-SPEND-PER-DELEGATION", "MCP-SPEND-CONCURRENT", "MCP-SPEND-BUDGET"],
            "8 concurrent out-of-order calls on two delegations: each answer reaches its id, spend is charged per delegation", spend_concurrent),
        case!("mcp-spend-budget-exhaustion", Core, &["MCP-SPEND-BUDGET", "MCP-SPEND-PER-DELEGATION"],
            "spend accumulates across calls (upstream errors included) until budget_exceeded", spend_exhaustion),
        case!("mcp-notify-upstream-to-client", Core, &["MCP-NOTIFY-UPSTREAM-TO-CLIENT"],
            "upstream notifications (list_changed, message, progress) reach the client in order, before the response", notify_upstream),
        case!("mcp-notify-client-to-upstream", Core, &["MCP-NOTIFY-CLIENT-TO-UPSTREAM", "MCP-NO-RESPONSE-TO-NOTIFICATION"],
            "client notifications, including cancellation of an in-flight call, reach the upstream", notify_client),
        case!("mcp-server-request", Core, &["MCP-SERVER-REQUESTS"],
            "an upstream roots/list request reaches the client and its answer reaches the upstream", server_request),
        case!("mcp-large-client-to-upstream", Core, &["MCP-LARGE-MESSAGE", "MCP-CALL-STRIP"],
            "1 MiB and 10 MiB calls (escaped newlines, non-ASCII, U+2028) reach the upstream intact", large_client_to_upstream),
        case!("mcp-large-upstream-to-client", Core, &["MCP-LARGE-MESSAGE"],
            "a 10 MiB result reaches the client intact", large_upstream_to_client),
        case!("mcp-malformed-lines", Core, &["MCP-MALFORMED-LINE", "MCP-STDOUT-CLEAN"],
            "non-JSON lines get -32700, non-request JSON gets -32600, partial and CRLF lines work, the proxy keeps serving", malformed_lines),
        case!("mcp-duplicate-members", Core, &["MCP-MALFORMED-LINE", "MCP-DENY-NOT-FORWARDED"],
            "lines with duplicate member names (top level, params, escaped keys) get -32600 and never reach the upstream (D35)", duplicate_members),
        case!("mcp-stdout-clean", Core, &["MCP-STDOUT-CLEAN"],
            "upstream stderr chatter never reaches the proxy's stdout", stdout_clean),
        case!("mcp-upstream-garbage", Core, &["MCP-STDOUT-CLEAN"],
            "a non-JSON line from the upstream never reaches the client; the call is still answered", upstream_garbage),
        case!("mcp-upstream-crash", Core, &["MCP-UPSTREAM-CRASH"],
            "when the upstream exits mid-call, in-flight requests get -32603 within 5 s (or the proxy exits)", upstream_crash),
        case!("mcp-upstream-hang", Core, &["MCP-CLIENT-EOF", "MCP-DENY-NON-BLOCKING"],
            "a call the upstream never answers does not block others; client EOF still ends everything", upstream_hang),
        case!("mcp-client-eof", Core, &["MCP-CLIENT-EOF"],
            "client EOF closes the upstream's stdin and both exit within 5 s", client_eof),
        case!("mcp-client-eof-stubborn-upstream", Core, &["MCP-CLIENT-EOF"],
            "an upstream that ignores EOF is terminated: no orphan", client_eof_stubborn),
        case!("mcp-sigterm", Core, &["MCP-CLIENT-EOF"],
            "SIGTERM to the proxy terminates the upstream too: no orphan", sigterm),
        case!("mcp-smoke-list-filter", Smoke, &["MCP-LIST-FILTER"],
            "server-everything behind the proxy: tools/list shows only the granted tool", smoke_list),
        case!("mcp-smoke-call-allowed", Smoke, &["MCP-CALL-STRIP", "MCP-CALL-RELAY"],
            "server-everything behind the proxy: an allowed echo call is stripped and relayed", smoke_call),
        case!("mcp-smoke-call-denied", Smoke, &["MCP-DENY-NOT-FORWARDED"],
            "server-everything behind the proxy: a call outside the grant is denied locally", smoke_deny),
        // Red team (py-proxy): spend must be checked and charged together, at authorization.
        case!("mcp-spend-concurrent-overdraw", Core, &["MCP-SPEND-CONCURRENT", "MCP-SPEND-BUDGET", "MCP-DENY-NOT-FORWARDED"],
            "4 concurrent slow calls on a 250 budget (cost 100): the 4th is denied before any answer (spent 300), never forwarded", spend_concurrent_overdraw),
        case!("mcp-spend-envelope-variants", Core, &["MCP-SPEND-PER-DELEGATION", "MCP-SPEND-BUDGET"],
            "spend is keyed by the token's delegation, not by the optional _delegateos.delegationId: calls with and without it share one budget", spend_envelope_variants),
        case!("mcp-raw-line-separators", Core, &["MCP-PASS-THROUGH", "MCP-CALL-STRIP", "MCP-CALL-RELAY"],
            "raw U+2028, U+2029 and U+0085 inside JSON strings do not end a message (only \\n does), both ways", raw_line_separators),
        case!("mcp-denied-notification-silent", Core, &["MCP-NO-RESPONSE-TO-NOTIFICATION", "MCP-DENY-NOT-FORWARDED", "MCP-SPEND-BUDGET"],
            "a denied tools/call notification is dropped without any answer; an authorized one is forwarded and charged", denied_notification_silent),
        case!("mcp-resource-non-string", Core, &["MCP-CALL-VERIFY", "MCP-DENY-CAPABILITY-DATA", "MCP-DENY-NOT-FORWARDED"],
            "under a bare `*` grant, a non-string resource argument (array, number, object, boolean) is still denied with requested.resource null (D36), never coerced to text", resource_non_string),
        case!("mcp-escaped-member-names", Core, &["MCP-MALFORMED-LINE", "MCP-CALL-STRIP", "MCP-DENY-NOT-FORWARDED"],
            "member names are compared after unescaping: `\\u`-spelled duplicates are refused, a `\\u`-spelled _delegateos is verified and stripped", escaped_member_names),
    ]
}

fn handshake(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    let resp = s.init()?;
    let result = expect_result(&resp)?;
    ensure(result["protocolVersion"] == "2025-11-25", || {
        format!("protocolVersion changed: {}", short(&resp))
    })?;
    let upstream_answer = s
        .upstream_answer(&json!("init"))
        .ok_or("the upstream never answered initialize")?;
    ensure(
        result["capabilities"] == upstream_answer["result"]["capabilities"],
        || {
            format!(
                "capabilities changed: {} vs upstream {}",
                result["capabilities"], upstream_answer["result"]["capabilities"]
            )
        },
    )?;
    s.sync()?;
    let msgs = s.upstream_msgs();
    let inits: Vec<&Value> = msgs
        .iter()
        .filter(|m| m["method"] == "initialize")
        .collect();
    ensure(inits.len() == 1, || {
        format!("initialize reached the upstream {} times", inits.len())
    })?;
    ensure(
        inits[0]["params"]["clientInfo"]["name"] == "delegateos-conform"
            && inits[0]["id"] == "init",
        || format!("initialize params or id changed: {}", inits[0]),
    )?;
    let n = msgs
        .iter()
        .filter(|m| m["method"] == "notifications/initialized")
        .count();
    ensure(n == 1, || {
        format!("notifications/initialized reached the upstream {n} times")
    })?;
    s.finish()
}

fn pass_through(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let probes = [
        ("ping", json!({})),
        ("resources/list", json!({"cursor": null})),
        ("prompts/list", json!({})),
        ("vendor/unknown", json!({"x": [1, "ü"]})),
        ("mock/fail", json!({"why": "relay my error data"})),
    ];
    for (i, (method, params)) in probes.iter().enumerate() {
        let id = json!(format!("pt-{i}"));
        let resp = s.request(id.clone(), method, params.clone(), T)?;
        let upstream = s
            .upstream_answer(&id)
            .ok_or_else(|| format!("{method} never reached the upstream"))?;
        ensure(resp == upstream, || {
            format!(
                "{method}: client got {}, upstream sent {}",
                short(&resp),
                short(&upstream)
            )
        })?;
        let got = s.upstream_requests_with_id(&id);
        ensure(got.len() == 1 && got[0]["params"] == *params, || {
            format!("{method} params changed on the way: {got:?}")
        })?;
    }
    s.finish()
}

fn id_preservation(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let ids = [
        json!("abc"),
        json!(7),
        json!(0),
        json!(9_007_199_254_740_993u64),
        json!(-3),
        json!("ünï✓🙂"),
        json!(""),
    ];
    for id in &ids {
        let resp = s.request(id.clone(), "ping", json!({}), T)?;
        ensure(resp.get("result").is_some(), || {
            format!("ping with id {id} failed: {}", short(&resp))
        })?;
        let up = s.upstream_requests_with_id(id);
        ensure(up.len() == 1, || {
            format!("id {id} was not forwarded unchanged (found {})", up.len())
        })?;
    }
    // Ids of answers the proxy builds itself (denials).
    for id in [json!(0), json!("ünï✓🙂"), json!(9_007_199_254_740_993u64)] {
        let resp = s.call(
            id.clone(),
            "read_file",
            json!({"path": "/etc/passwd"}),
            Some(tokens::envelope(&good_token())),
        )?;
        expect_denial(&resp, &id, "capability_not_granted")?;
    }
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}))?;
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}}))?;
    s.sync()?;
    let stray: Vec<Value> = s
        .proxy
        .drain(Duration::from_millis(300))
        .into_iter()
        .filter(|m| m.get("method").is_none())
        .collect();
    ensure(stray.is_empty(), || {
        format!("responses to notifications or duplicates: {stray:?}")
    })?;
    s.finish()
}

fn list_all(s: &mut Session) -> Result<(Vec<Value>, Vec<Value>), String> {
    // Returns (responses, all tools).
    let mut responses = Vec::new();
    let mut tools = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..50 {
        let id = s.fresh_id();
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let resp = s.request(id, "tools/list", params, T)?;
        let result = expect_result(&resp)?.clone();
        tools.extend(
            result["tools"]
                .as_array()
                .cloned()
                .ok_or_else(|| format!("no tools array: {}", short(&resp)))?,
        );
        responses.push(resp);
        match result.get("nextCursor") {
            Some(c) if !c.is_null() => cursor = Some(c.clone()),
            _ => return Ok((responses, tools)),
        }
    }
    Err("more than 50 tools/list pages".into())
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or("?").to_owned())
        .collect()
}

fn list_unfiltered(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let (_, tools) = list_all(&mut s)?;
    let expected: Vec<Value> = STANDARD_TOOLS.iter().map(|n| tool_object(n)).collect();
    ensure(tools == expected, || {
        format!(
            "expected the upstream's {} tools unchanged, got {:?}",
            expected.len(),
            names(&tools)
        )
    })?;
    s.finish()
}

fn list_filter(ctx: &Ctx) -> Result<(), String> {
    // docs:read only, on a narrow resource: read_file and nested (docs/read) survive; the
    // resource is ignored for listing (D32).
    let token = RootSpec::new(vec![
        cap("docs", "read", "/project/only-this"),
        cap("web", "search", "*"),
    ])
    .sign(&tokens::root());
    let mut s = Session::start(ctx, &Setup::standard().with_session(&token))?;
    s.init()?;
    let (_, tools) = list_all(&mut s)?;
    let expected: Vec<Value> = ["read_file", "search", "nested"]
        .iter()
        .map(|n| tool_object(n))
        .collect();
    ensure(tools == expected, || {
        format!(
            "expected [read_file, search, nested] unchanged and in order, got {:?}",
            names(&tools)
        )
    })?;
    s.finish()
}

fn list_pagination(ctx: &Ctx) -> Result<(), String> {
    let order = [
        "search",
        "write_file",
        "read_file",
        "unmapped_tool",
        "slow",
        "nested",
        "fail_rpc",
    ];
    let mut setup = Setup::standard();
    setup.script["tools"] = json!(order.iter().map(|n| tool_object(n)).collect::<Vec<_>>());
    setup.script["pageSize"] = json!(2);
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let mut s = Session::start(ctx, &setup.with_session(&token))?;
    s.init()?;
    let (responses, tools) = list_all(&mut s)?;
    ensure(responses.len() == 4, || {
        format!("expected 4 pages (2 per page), got {}", responses.len())
    })?;
    let first = responses[0]["result"]["tools"]
        .as_array()
        .map_or(0, Vec::len);
    ensure(first == 0, || {
        format!("page 1 must filter to empty, got {first} tools")
    })?;
    for resp in &responses {
        let upstream = s
            .upstream_answer(&resp["id"])
            .ok_or("a page never reached the upstream")?;
        ensure(
            resp["result"].get("nextCursor") == upstream["result"].get("nextCursor"),
            || {
                format!(
                    "nextCursor changed: client {}, upstream {}",
                    short(resp),
                    short(&upstream)
                )
            },
        )?;
        let text = resp.to_string();
        for hidden in ["search", "write_file", "unmapped_tool", "slow", "fail_rpc"] {
            ensure(!text.contains(&format!("\"{hidden}\"")), || {
                format!("hidden tool {hidden} leaked: {text}")
            })?;
        }
    }
    let expected: Vec<Value> = ["read_file", "nested"]
        .iter()
        .map(|n| tool_object(n))
        .collect();
    ensure(tools == expected, || {
        format!(
            "expected [read_file, nested] across pages, got {:?}",
            names(&tools)
        )
    })?;
    s.finish()
}

fn list_invalid_session(ctx: &Ctx) -> Result<(), String> {
    let mut expired = RootSpec::new(standard_caps());
    expired.expires_at = tokens::PAST.into();
    let variants = [
        ("expired", expired.sign(&tokens::root())),
        (
            "untrusted issuer",
            RootSpec::new(standard_caps()).sign(&tokens::key("other-root")),
        ),
    ];
    for (what, token) in variants {
        let mut s = Session::start(ctx, &Setup::standard().with_session(&token))?;
        s.init()?;
        let (_, tools) = list_all(&mut s)?;
        ensure(tools.is_empty(), || {
            format!(
                "{what} session DCT: expected no tools, got {:?}",
                names(&tools)
            )
        })?;
        s.finish()?;
    }
    Ok(())
}

fn call_allowed(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = serde_json::to_string(&tokens::envelope(&good_token())).unwrap_or_default();
    // Unusual but valid JSON in arguments: unsorted keys, spaces, escapes, exponent numbers.
    let args = r#"{ "z" : 1, "path":"/project/a.txt", "a" : {"n":[1, 2.5, -0, 1e3, "\u00e9\n\"q\""]}, "u":"h\u00e9llo \u2028 \ud83d\ude00" }"#;
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{{"_delegateos":{env},"name":"read_file","arguments":{args},"_meta":{{"progressToken":"p-1","vendor.example/trace":"abc"}},"x-unknown":{{"k":[true,null]}}}}}}"#
    );
    s.proxy.send_raw(line.as_bytes())?;
    let id = json!("call-1");
    let resp = s.proxy.response(&id, T)?;
    expect_result(&resp)?;
    let raw = s.upstream_raw();
    let forwarded: Vec<&String> = raw.iter().filter(|r| r.contains("\"call-1\"")).collect();
    ensure(forwarded.len() == 1, || {
        format!("the call reached the upstream {} times", forwarded.len())
    })?;
    let fwd = forwarded[0];
    ensure(fwd.contains(args), || {
        format!("arguments are not byte-identical upstream: {fwd}")
    })?;
    let msg: Value =
        serde_json::from_str(fwd).map_err(|e| format!("forwarded line is not JSON: {e}"))?;
    let p = &msg["params"];
    ensure(p.get("_delegateos").is_none(), || {
        "_delegateos was forwarded to the upstream".into()
    })?;
    ensure(
        p["_meta"] == json!({"progressToken": "p-1", "vendor.example/trace": "abc"}),
        || format!("_meta changed: {}", p["_meta"]),
    )?;
    ensure(p["x-unknown"] == json!({"k": [true, null]}), || {
        format!("unknown member changed: {}", p["x-unknown"])
    })?;
    ensure(
        p["name"] == "read_file" && msg["id"] == id && msg["method"] == "tools/call",
        || format!("name/id/method changed: {msg}"),
    )?;
    let upstream = s
        .upstream_answer(&id)
        .ok_or("the upstream never answered")?;
    ensure(resp == upstream, || {
        format!(
            "result changed: client {}, upstream {}",
            short(&resp),
            short(&upstream)
        )
    })?;
    s.finish()
}

fn call_nested_resource(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    let ok = s.call(
        json!(1),
        "nested",
        json!({"target": {"path": "/project/x/y"}}),
        Some(env.clone()),
    )?;
    expect_result(&ok)?;
    let outside = s.call(
        json!(2),
        "nested",
        json!({"target": {"path": "/etc/x"}}),
        Some(env.clone()),
    )?;
    let data = expect_denial(&outside, &json!(2), "capability_not_granted")?;
    ensure(
        data["requested"] == json!({"namespace": "docs", "action": "read", "resource": "/etc/x"}),
        || format!("requested should be the nested argument: {data}"),
    )?;
    let missing = s.call(
        json!(3),
        "nested",
        json!({"target": {"other": 1}}),
        Some(env.clone()),
    )?;
    expect_denial(&missing, &json!(3), "capability_not_granted")?;
    let non_string = s.call(
        json!(4),
        "read_file",
        json!({"path": ["/project/a"]}),
        Some(env),
    )?;
    expect_denial(&non_string, &json!(4), "capability_not_granted")?;
    for id in [json!(2), json!(3), json!(4)] {
        s.assert_not_forwarded(&id)?;
    }
    s.finish()
}

fn call_error_relayed(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    for (id, tool) in [(json!("e1"), "fail_result"), (json!("e2"), "fail_rpc")] {
        let resp = s.call(id.clone(), tool, json!({}), Some(env.clone()))?;
        let upstream = s
            .upstream_answer(&id)
            .ok_or_else(|| format!("{tool} never reached the upstream"))?;
        ensure(resp == upstream, || {
            format!(
                "{tool}: client got {}, upstream sent {}",
                short(&resp),
                short(&upstream)
            )
        })?;
    }
    s.finish()
}

fn missing_delegateos(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let line = r#"{"jsonrpc":"2.0","id":"nodos","method":"tools/call","params":{"name":"write_file","arguments":{ "path" : "/anything" }}}"#;
    s.proxy.send_raw(line.as_bytes())?;
    let resp = s.proxy.response(&json!("nodos"), T)?;
    expect_result(&resp)?;
    ensure(s.upstream_raw().iter().any(|r| r == line), || {
        "the call was not forwarded byte-for-byte".into()
    })?;
    s.finish()
}

fn strict_missing(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.strict = true;
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let id = json!("strict-1");
    let resp = s.call(id.clone(), "read_file", json!({"path": "/project/a"}), None)?;
    expect_denial(&resp, &id, "malformed_token")?;
    s.assert_not_forwarded(&id)?;
    s.finish()
}

fn strict_allowed(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.strict = true;
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let id = json!("strict-2");
    let resp = s.call(
        id.clone(),
        "read_file",
        json!({"path": "/project/a"}),
        Some(tokens::envelope(&good_token())),
    )?;
    expect_result(&resp)?;
    let up = s.upstream_requests_with_id(&id);
    ensure(
        up.len() == 1 && up[0]["params"].get("_delegateos").is_none(),
        || format!("expected one stripped call upstream: {up:?}"),
    )?;
    s.finish()
}

/// Sends one call with `envelope` and expects a `ty` denial with nothing forwarded.
fn deny_with(
    ctx: &Ctx,
    setup: Setup,
    tool: &str,
    args: Value,
    envelope: Value,
    ty: &str,
) -> Result<Value, String> {
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let id = json!("deny-1");
    let resp = s.call(id.clone(), tool, args, Some(envelope))?;
    let data = expect_denial(&resp, &id, ty)?;
    s.assert_not_forwarded(&id)?;
    s.finish()?;
    Ok(data)
}

fn read_args() -> Value {
    json!({"path": "/project/a.txt"})
}

fn deny_expired(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.expires_at = tokens::PAST.into();
    let token = spec.sign(&tokens::root());
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        tokens::envelope(&token),
        "expired",
    )
    .map(|_| ())
}

fn deny_revoked(ctx: &Ctx) -> Result<(), String> {
    let token = good_token();
    let mut setup = Setup::standard();
    let entry = tokens::revoke_authority(&token, &tokens::root());
    setup.revocations = vec![serde_json::to_value(entry).map_err(|e| e.to_string())?];
    let data = deny_with(
        ctx,
        setup,
        "read_file",
        read_args(),
        tokens::envelope(&token),
        "revoked",
    )?;
    let rid = revocation_id_of_block(&token.authority);
    ensure(data["revocationId"] == json!(rid), || {
        format!("data.revocationId should be {rid}: {data}")
    })
}

fn deny_capability_resource(ctx: &Ctx) -> Result<(), String> {
    let data = deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        json!({"path": "/projectX/secret"}),
        tokens::envelope(&good_token()),
        "capability_not_granted",
    )?;
    ensure(
        data["requested"]
            == json!({"namespace": "docs", "action": "read", "resource": "/projectX/secret"}),
        || format!("data.requested wrong: {data}"),
    )?;
    let granted = serde_json::to_value(standard_caps()).unwrap_or(Value::Null);
    ensure(data["granted"] == granted, || {
        format!("data.granted should be the effective capabilities: {data}")
    })
}

fn deny_capability_action(ctx: &Ctx) -> Result<(), String> {
    let data = deny_with(
        ctx,
        Setup::standard(),
        "write_file",
        read_args(),
        tokens::envelope(&good_token()),
        "capability_not_granted",
    )?;
    ensure(
        data["requested"]["action"] == "write" && data["granted"].is_array(),
        || format!("data wrong: {data}"),
    )
}

fn deny_unmapped(ctx: &Ctx) -> Result<(), String> {
    deny_with(
        ctx,
        Setup::standard(),
        "unmapped_tool",
        json!({}),
        tokens::envelope(&good_token()),
        "capability_not_granted",
    )
    .map(|_| ())
}

fn deny_hidden(ctx: &Ctx) -> Result<(), String> {
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let mut s = Session::start(ctx, &Setup::standard().with_session(&token))?;
    s.init()?;
    let (_, tools) = list_all(&mut s)?;
    ensure(!names(&tools).contains(&"search".to_owned()), || {
        "search should be hidden".into()
    })?;
    let id = json!("hidden");
    let resp = s.call(
        id.clone(),
        "search",
        json!({"q": "x"}),
        Some(tokens::envelope(&token)),
    )?;
    expect_denial(&resp, &id, "capability_not_granted")?;
    s.assert_not_forwarded(&id)?;
    s.finish()
}

fn deny_budget_zero(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 0;
    let token = spec.sign(&tokens::root());
    let data = deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        tokens::envelope(&token),
        "budget_exceeded",
    )?;
    ensure(data["limit"] == 0 && data["spent"] == 0, || {
        format!("data should carry limit 0 and spent 0: {data}")
    })
}

fn deny_chain_depth(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.chain_depth = 2;
    spec.max_chain_depth = 1;
    let token = spec.sign(&tokens::root());
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        tokens::envelope(&token),
        "chain_depth_exceeded",
    )
    .map(|_| ())
}

fn deny_untrusted_root(ctx: &Ctx) -> Result<(), String> {
    let token = RootSpec::new(standard_caps()).sign(&tokens::key("other-root"));
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        tokens::envelope(&token),
        "invalid_signature",
    )
    .map(|_| ())
}

fn deny_forged(ctx: &Ctx) -> Result<(), String> {
    let mut token =
        RootSpec::new(vec![cap("docs", "read", "/project/public/**")]).sign(&tokens::root());
    token.authority.capabilities = standard_caps();
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        tokens::envelope(&token),
        "invalid_signature",
    )
    .map(|_| ())
}

fn deny_attenuation(ctx: &Ctx) -> Result<(), String> {
    let root = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let att = tokens::attenuation("del_a00000000002", Some(vec![cap("docs", "read", "/**")]));
    let token = tokens::append(root, &tokens::agent(), att);
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        tokens::envelope(&token),
        "attenuation_violation",
    )
    .map(|_| ())
}

fn deny_malformed_base64(ctx: &Ctx) -> Result<(), String> {
    let mut env = tokens::envelope(&good_token());
    env["dct"] = json!("!!not+base64/==");
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        env,
        "malformed_token",
    )
    .map(|_| ())
}

fn deny_malformed_format(ctx: &Ctx) -> Result<(), String> {
    let mut env = tokens::envelope(&good_token());
    env["format"] = json!("delegateos-biscuit-v1");
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        env,
        "malformed_token",
    )
    .map(|_| ())
}

fn deny_missing_dct(ctx: &Ctx) -> Result<(), String> {
    let mut env = tokens::envelope(&good_token());
    if let Some(o) = env.as_object_mut() {
        o.remove("dct");
    }
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        env,
        "malformed_token",
    )
    .map(|_| ())
}

fn deny_null(ctx: &Ctx) -> Result<(), String> {
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        Value::Null,
        "malformed_token",
    )
    .map(|_| ())
}

fn deny_non_object(ctx: &Ctx) -> Result<(), String> {
    let dct = tokens::serialize(&good_token()).token;
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        json!(dct),
        "malformed_token",
    )?;
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        json!([dct]),
        "malformed_token",
    )
    .map(|_| ())
}

fn deny_unknown_member(ctx: &Ctx) -> Result<(), String> {
    let mut env = tokens::envelope(&good_token());
    env["scope"] = json!("everything");
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        env,
        "malformed_token",
    )
    .map(|_| ())
}

fn deny_inconsistent_delegation(ctx: &Ctx) -> Result<(), String> {
    let mut env = tokens::envelope(&good_token());
    env["delegationId"] = json!("del_ffffffffffff");
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        env,
        "malformed_token",
    )
    .map(|_| ())
}

fn deny_inconsistent_contract(ctx: &Ctx) -> Result<(), String> {
    let mut env = tokens::envelope(&good_token());
    env["contractId"] = json!("ct_ffffffffffff");
    deny_with(
        ctx,
        Setup::standard(),
        "read_file",
        read_args(),
        env,
        "malformed_token",
    )
    .map(|_| ())
}

fn deny_non_blocking(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    let t0 = Instant::now();
    s.send(&call_msg(
        &json!("slow"),
        "slow",
        json!({}),
        Some(env.clone()),
    ))?;
    s.send(&call_msg(
        &json!("denied"),
        "read_file",
        json!({"path": "/etc/shadow"}),
        Some(env),
    ))?;
    // The first answer must be the denial: the slow call takes 1.5 s upstream.
    let first = loop {
        let m = s.proxy.next(T).ok_or("no answer to either call")?;
        if m.get("method").is_none() {
            break m;
        }
    };
    let elapsed = t0.elapsed();
    ensure(first["id"] == "denied", || {
        format!("the denial came after the slow call ({elapsed:?}): denials must not wait for in-flight calls")
    })?;
    expect_denial(&first, &json!("denied"), "capability_not_granted")?;
    let slow = s.proxy.response(&json!("slow"), T)?;
    expect_result(&slow)?;
    s.finish()
}

fn spend_concurrent(ctx: &Ctx) -> Result<(), String> {
    let mut a = RootSpec::new(standard_caps());
    a.delegation_id = "del_aaaaaaaaaaaa".into();
    a.budget = 400;
    let mut b = RootSpec::new(standard_caps());
    b.delegation_id = "del_bbbbbbbbbbbb".into();
    b.budget = 1000;
    let (ta, tb) = (a.sign(&tokens::root()), b.sign(&tokens::root()));
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    // Delays 400, 300, 200, 100 ms: later calls finish first.
    for i in 0..8u64 {
        let token = if i % 2 == 0 { &ta } else { &tb };
        let tool = format!("d{}", i / 2 + 1);
        s.send(&call_msg(
            &json!(i),
            &tool,
            json!({"n": i}),
            Some(tokens::envelope(token)),
        ))?;
    }
    let mut arrival = Vec::new();
    for _ in 0..8 {
        let m = s
            .proxy
            .next(T)
            .ok_or("fewer than 8 answers to concurrent calls")?;
        if m.get("method").is_some() {
            continue;
        }
        let id = m["id"].clone();
        let r = expect_result(&m)?;
        ensure(
            r["structuredContent"]["received_params"]["arguments"]["n"] == id,
            || format!("answer for id {id} carries another call's arguments: {m}"),
        )?;
        arrival.push(id);
    }
    let mut sorted = arrival.clone();
    sorted.sort_by_key(|v| v.as_u64());
    sorted.dedup();
    ensure(sorted.len() == 8, || {
        format!("duplicate or missing answers: {arrival:?}")
    })?;
    // Delegation A has spent 4 × 100 = its budget; B has 600 left.
    let ra = s.call(
        json!("a5"),
        "read_file",
        read_args(),
        Some(tokens::envelope(&ta)),
    )?;
    let data = expect_denial(&ra, &json!("a5"), "budget_exceeded")?;
    ensure(data["limit"] == 400 && data["spent"] == 400, || {
        format!("delegation A should show limit 400, spent 400: {data}")
    })?;
    let rb = s.call(
        json!("b5"),
        "read_file",
        read_args(),
        Some(tokens::envelope(&tb)),
    )?;
    expect_result(&rb).map_err(|e| format!("delegation B was charged for A's calls: {e}"))?;
    s.finish()
}

fn spend_exhaustion(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 250;
    let token = spec.sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    expect_result(&s.call(json!(1), "read_file", read_args(), Some(env.clone()))?)?;
    let r2 = s.call(json!(2), "fail_rpc", json!({}), Some(env.clone()))?;
    ensure(r2["error"]["code"] == -32050, || {
        format!("the upstream error should be relayed: {r2}")
    })?;
    expect_result(&s.call(json!(3), "read_file", read_args(), Some(env.clone()))?)?;
    let r4 = s.call(json!(4), "read_file", read_args(), Some(env))?;
    let data = expect_denial(&r4, &json!(4), "budget_exceeded")?;
    ensure(data["limit"] == 250 && data["spent"] == 300, || {
        format!("expected limit 250, spent 300 (three calls of 100): {data}")
    })?;
    s.assert_not_forwarded(&json!(4))?;
    s.finish()
}

fn notify_upstream(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["onInitialized"] = json!([
        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello ü"}},
    ]);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    let id = json!("prog");
    let mut msg = call_msg(
        &id,
        "progress",
        json!({}),
        Some(tokens::envelope(&good_token())),
    );
    msg["params"]["_meta"] = json!({"progressToken": "tok-1"});
    s.send(&msg)?;
    let mut seen = Vec::new();
    let deadline = Instant::now() + T;
    while Instant::now() < deadline {
        let Some(m) = s.proxy.next(Duration::from_millis(200)) else {
            continue;
        };
        let done = m.get("id") == Some(&id);
        seen.push(m);
        if done {
            break;
        }
    }
    let methods: Vec<String> = seen
        .iter()
        .map(|m| {
            m.get("method")
                .and_then(Value::as_str)
                .unwrap_or("<response>")
                .to_owned()
        })
        .collect();
    let expect = [
        "notifications/tools/list_changed",
        "notifications/message",
        "notifications/progress",
        "notifications/progress",
        "notifications/progress",
        "<response>",
    ];
    ensure(methods == expect, || {
        format!("expected {expect:?} in order, got {methods:?}")
    })?;
    let progress: Vec<&Value> = seen
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    for (i, p) in progress.iter().enumerate() {
        ensure(
            p["params"]["progressToken"] == "tok-1" && p["params"]["progress"] == json!(i + 1),
            || format!("progress notification changed: {p}"),
        )?;
    }
    ensure(seen[1]["params"]["data"] == "hello ü", || {
        format!("message notification changed: {}", seen[1])
    })?;
    s.finish()
}

fn notify_client(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let id = json!("to-cancel");
    s.send(&call_msg(
        &id,
        "slow",
        json!({}),
        Some(tokens::envelope(&good_token())),
    ))?;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "to-cancel", "reason": "user"}});
    s.send(&cancel)?;
    let roots = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    s.send(&roots)?;
    s.sync()?;
    let msgs = s.upstream_msgs();
    ensure(msgs.contains(&cancel), || {
        "notifications/cancelled did not reach the upstream unchanged".into()
    })?;
    ensure(msgs.contains(&roots), || {
        "notifications/roots/list_changed did not reach the upstream".into()
    })?;
    let late: Vec<Value> = s
        .proxy
        .drain(Duration::from_millis(1800))
        .into_iter()
        .filter(|m| m.get("method").is_none())
        .collect();
    ensure(late.is_empty(), || {
        format!("no response may follow a cancelled request or a notification: {late:?}")
    })?;
    s.finish()
}

fn server_request(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let id = json!("asker");
    s.send(&call_msg(
        &id,
        "ask",
        json!({}),
        Some(tokens::envelope(&good_token())),
    ))?;
    let deadline = Instant::now() + T;
    let request = loop {
        let m = s.proxy.next(Duration::from_millis(200));
        if let Some(m) = m {
            if m["method"] == "roots/list" {
                break m;
            }
        }
        if Instant::now() > deadline {
            return Err("the upstream's roots/list request never reached the client".into());
        }
    };
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"roots": [{"uri": "file:///project", "name": "p"}]}});
    s.send(&answer)?;
    let resp = s.proxy.response(&id, T)?;
    let r = expect_result(&resp)?;
    ensure(r["structuredContent"]["client_response"] == answer, || {
        format!(
            "the client's answer did not reach the upstream intact: {}",
            short(&resp)
        )
    })?;
    s.finish()
}

fn big_text(len: usize) -> String {
    let unit = "line\nbreak \"quoted\" ünïcødé \u{2028} \\ end. ";
    let mut s = String::with_capacity(len + unit.len());
    while s.len() < len {
        s.push_str(unit);
    }
    s
}

fn large_client_to_upstream(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    for (i, size) in [(1u64, 1024 * 1024), (2, 10 * 1024 * 1024)] {
        let blob = big_text(size);
        let args = json!({"path": "/project/big", "blob": blob});
        s.send(&call_msg(
            &json!(i),
            "read_file",
            args.clone(),
            Some(env.clone()),
        ))?;
        let resp = s.proxy.response(&json!(i), T_LARGE)?;
        let r = expect_result(&resp)?;
        ensure(
            r["structuredContent"]["received_params"]["arguments"] == args,
            || format!("the {size}-byte arguments were altered"),
        )?;
        let up = s.upstream_requests_with_id(&json!(i));
        ensure(
            up.len() == 1
                && up[0]["params"]["arguments"] == args
                && up[0]["params"].get("_delegateos").is_none(),
            || format!("the {size}-byte call did not reach the upstream intact and stripped"),
        )?;
    }
    s.finish()
}

fn large_upstream_to_client(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let id = json!("big");
    s.send(&call_msg(
        &id,
        "big",
        json!({}),
        Some(tokens::envelope(&good_token())),
    ))?;
    let resp = s.proxy.response(&id, T_LARGE)?;
    let r = expect_result(&resp)?;
    let len = r["content"][1]["text"].as_str().map_or(0, str::len);
    ensure(len == 10 * 1024 * 1024, || {
        format!("expected a 10 MiB text, got {len} bytes")
    })?;
    s.finish()
}

fn malformed_lines(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let probes: [(&str, i64); 5] = [
        ("this is not json", -32700),
        ("{\"jsonrpc\":\"2.0\",\"id\":1,", -32700),
        (
            "[{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}]",
            -32600,
        ),
        ("42", -32600),
        ("{\"jsonrpc\":\"2.0\"}", -32600),
    ];
    for (line, code) in probes {
        s.proxy.send_raw(line.as_bytes())?;
        let resp = s
            .proxy
            .response(&Value::Null, T)
            .map_err(|e| format!("no error reply to {line:?}: {e}"))?;
        ensure(resp["error"]["code"] == code, || {
            format!("{line:?} should get {code}, got {}", short(&resp))
        })?;
    }
    // A line delivered in two writes, and a CRLF-terminated line.
    s.proxy.send_partial(br#"{"jsonrpc":"2.0","id":"part","#)?;
    thread::sleep(Duration::from_millis(150));
    s.proxy.send_raw(br#""method":"ping"}"#)?;
    expect_result(&s.proxy.response(&json!("part"), T)?)?;
    s.proxy
        .send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r")?;
    expect_result(&s.proxy.response(&json!("crlf"), T)?)?;
    s.sync()?;
    let batch_forwarded = s.upstream_raw().iter().any(|r| r.starts_with('['));
    ensure(!batch_forwarded, || {
        "a JSON array (batch) was forwarded to the upstream".into()
    })?;
    s.finish()
}

/// D35: a parser differential between the proxy and the upstream is a bypass. Each probe is a
/// line whose members a last-wins parser and a first-wins parser read differently; the proxy
/// must refuse all of them, whatever method the proxy's own parser sees.
fn duplicate_members(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = serde_json::to_string(&tokens::envelope(&good_token())).unwrap_or_default();
    let probes = [
        // Last-wins sees `ping`; a first-wins upstream runs an unverified tools/call.
        r#"{"jsonrpc":"2.0","id":"dup-1","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/etc/x"}},"method":"ping"}"#.to_owned(),
        // The same with the second key spelled with an escape.
        r#"{"jsonrpc":"2.0","id":"dup-2","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/etc/x"}},"m\u0065thod":"ping"}"#.to_owned(),
        // Two `params`: the verified one allowed, the other one forbidden.
        format!(r#"{{"jsonrpc":"2.0","id":"dup-3","method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"/etc/x"}}}},"params":{{"_delegateos":{env},"name":"read_file","arguments":{{"path":"/project/a.txt"}}}}}}"#),
        // Two `name`s inside params.
        format!(r#"{{"jsonrpc":"2.0","id":"dup-4","method":"tools/call","params":{{"name":"write_file","_delegateos":{env},"arguments":{{"path":"/project/a.txt"}},"name":"read_file"}}}}"#),
    ];
    for (i, line) in probes.iter().enumerate() {
        let id = json!(format!("dup-{}", i + 1));
        s.proxy.send_raw(line.as_bytes())?;
        let resp = s
            .proxy
            .response(&id, T)
            .map_err(|e| format!("no reply to duplicate-member probe {id}: {e}"))?;
        ensure(resp["error"]["code"] == -32600, || {
            format!("probe {id} should get -32600, got {}", short(&resp))
        })?;
    }
    s.sync()?;
    let leaked: Vec<String> = s
        .upstream_raw()
        .into_iter()
        .filter(|r| r.contains("\"dup-"))
        .collect();
    ensure(leaked.is_empty(), || {
        format!("duplicate-member lines reached the upstream: {leaked:?}")
    })?;
    s.finish()
}

fn stdout_clean(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["onInitialized"] = json!([{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "debug", "data": "x"}}]);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    for i in 0..5 {
        s.request(json!(i), "ping", json!({}), T)?;
    }
    s.finish()
}

fn upstream_garbage(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let resp = s.call(
        json!("noisy"),
        "noisy",
        json!({}),
        Some(tokens::envelope(&good_token())),
    )?;
    expect_result(&resp)?;
    s.finish()
}

fn upstream_crash(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = tokens::envelope(&good_token());
    s.send(&call_msg(
        &json!("inflight"),
        "slow",
        json!({}),
        Some(env.clone()),
    ))?;
    s.send(&call_msg(&json!("boom"), "crash", json!({}), Some(env)))?;
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut answered = Vec::new();
    while answered.len() < 2 && Instant::now() < deadline {
        match s.proxy.next(Duration::from_millis(100)) {
            Some(m) if m.get("method").is_none() => {
                ensure(m["error"]["code"] == -32603, || {
                    format!("an in-flight request should get -32603, got {m}")
                })?;
                answered.push(m["id"].clone());
            }
            Some(_) => {}
            None if s.proxy.saw_eof() => break,
            None => {}
        }
    }
    let exited = s.proxy.saw_eof();
    ensure(answered.len() == 2 || exited, || {
        format!("after the upstream crashed the proxy neither answered both in-flight requests nor exited within 5 s (answered {answered:?})")
    })?;
    s.check_clean()?;
    s.save_stderr();
    s.proxy.close_stdin();
    ensure(s.proxy.wait_exit(Duration::from_secs(5)).is_some(), || {
        "the proxy did not exit after the upstream crash and client EOF".into()
    })?;
    s.assert_upstream_gone(Duration::from_secs(1))
}

fn upstream_hang(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    s.send(&call_msg(
        &json!("hung"),
        "hang",
        json!({}),
        Some(tokens::envelope(&good_token())),
    ))?;
    s.sync()
        .map_err(|e| format!("a hung call blocked other requests: {e}"))?;
    s.finish()
}

fn client_eof(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    s.sync()?;
    let record = s.record.clone();
    s.finish()?;
    let saw_eof = read_events(&record).iter().any(|e| e["event"] == "eof");
    ensure(saw_eof, || "the upstream never saw EOF on its stdin".into())
}

fn client_eof_stubborn(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["ignoreEof"] = json!(true);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    s.finish()
}

fn sigterm(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["ignoreEof"] = json!(true);
    let mut s = Session::start(ctx, &setup)?;
    s.init()?;
    s.sync()?;
    s.proxy.terminate();
    ensure(s.proxy.wait_exit(Duration::from_secs(5)).is_some(), || {
        "the proxy did not exit within 5 s of SIGTERM".into()
    })?;
    s.save_stderr();
    s.assert_upstream_gone(Duration::from_secs(2))
}

fn smoke_setup(ctx: &Ctx) -> Result<Setup, String> {
    let smoke = ctx.opts.smoke.as_ref().ok_or("no smoke upstream")?;
    let mut setup = Setup::standard();
    setup.tools = json!({
        "echo": {"namespace": "test", "action": "echo", "resource": {"argument": "message"}},
        "get-sum": {"namespace": "math", "action": "add"},
    });
    setup.real_upstream = Some(vec![
        smoke.node.clone(),
        smoke.entry.to_string_lossy().into_owned(),
        "stdio".into(),
    ]);
    Ok(setup)
}

fn smoke_token() -> SignedJsonToken {
    RootSpec::new(vec![cap("test", "echo", "*")]).sign(&tokens::root())
}

fn smoke_list(ctx: &Ctx) -> Result<(), String> {
    let token = smoke_token();
    let mut s = Session::start(ctx, &smoke_setup(ctx)?.with_session(&token))?;
    s.init()?;
    let (responses, tools) = list_all(&mut s)?;
    ensure(names(&tools) == ["echo"], || {
        format!("expected only echo, got {:?}", names(&tools))
    })?;
    let upstream = s
        .upstream_answer(&responses[0]["id"])
        .ok_or("no upstream answer recorded")?;
    let upstream_count = upstream["result"]["tools"].as_array().map_or(0, Vec::len);
    ensure(upstream_count > 1, || {
        format!("the real upstream listed {upstream_count} tools; expected several")
    })?;
    let real_echo = upstream["result"]["tools"]
        .as_array()
        .and_then(|a| a.iter().find(|t| t["name"] == "echo"))
        .cloned()
        .unwrap_or(Value::Null);
    ensure(tools[0] == real_echo, || {
        "the echo tool object was altered".into()
    })?;
    s.finish()
}

fn smoke_call(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &smoke_setup(ctx)?)?;
    s.init()?;
    let id = json!("smoke-echo");
    let mut msg = call_msg(
        &id,
        "echo",
        json!({"message": "hi ü"}),
        Some(tokens::envelope(&smoke_token())),
    );
    msg["params"]["_meta"] = json!({"vendor.example/k": 1});
    s.send(&msg)?;
    let resp = s.proxy.response(&id, Duration::from_secs(10))?;
    let r = expect_result(&resp)?;
    ensure(r["content"][0]["text"] == "Echo: hi ü", || {
        format!("unexpected echo result: {}", short(&resp))
    })?;
    let up = s.upstream_requests_with_id(&id);
    ensure(
        up.len() == 1
            && up[0]["params"].get("_delegateos").is_none()
            && up[0]["params"]["_meta"] == json!({"vendor.example/k": 1}),
        || format!("the real upstream did not get one stripped call with _meta intact: {up:?}"),
    )?;
    s.finish()
}

fn smoke_deny(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &smoke_setup(ctx)?)?;
    s.init()?;
    let id = json!("smoke-sum");
    let resp = s.call(
        id.clone(),
        "get-sum",
        json!({"a": 1, "b": 2}),
        Some(tokens::envelope(&smoke_token())),
    )?;
    expect_denial(&resp, &id, "capability_not_granted")?;
    s.assert_not_forwarded(&id)?;
    s.finish()
}

/// Red team (py-proxy `spend-race`): a proxy that reads the spend at authorization but records
/// it when the upstream answers lets concurrent calls overdraw the budget (D21: the cost is
/// recorded at authorization, atomically with the check).
fn spend_concurrent_overdraw(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 250;
    let token = spec.sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    for i in 1..=4u64 {
        s.send(&call_msg(
            &json!(i),
            "slow",
            json!({"n": i}),
            Some(env.clone()),
        ))?;
    }
    // Calls 1-3 are authorized at spent 0, 100, 200 (< 250); call 4 sees 300 and is denied
    // at once, while the three slow calls (1.5 s upstream) are still in flight.
    let r4 = s
        .proxy
        .response(&json!(4), Duration::from_millis(1200))
        .map_err(|e| {
            format!(
                "call 4 was not denied before the slow calls answered (spend recorded late?): {e}"
            )
        })?;
    let data = expect_denial(&r4, &json!(4), "budget_exceeded")?;
    ensure(data["limit"] == 250 && data["spent"] == 300, || {
        format!("expected limit 250, spent 300 (three authorized calls of 100): {data}")
    })?;
    for i in 1..=3u64 {
        expect_result(&s.proxy.response(&json!(i), T)?)?;
    }
    s.assert_not_forwarded(&json!(4))?;
    s.finish()
}

/// Red team (py-proxy `spend-by-client-id`): the optional `_delegateos.delegationId` is a
/// client claim (D17 only checks it when present); spend belongs to the token's effective
/// delegationId, so leaving the claim out must not open a second budget.
fn spend_envelope_variants(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 250;
    let token = spec.sign(&tokens::root());
    let full = tokens::envelope(&token);
    let bare = json!({"dct": full["dct"], "format": full["format"]});
    let contract_only =
        json!({"dct": full["dct"], "format": full["format"], "contractId": full["contractId"]});
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    expect_result(&s.call(json!(1), "read_file", read_args(), Some(full.clone()))?)?;
    expect_result(&s.call(json!(2), "read_file", read_args(), Some(bare.clone()))?)?;
    expect_result(&s.call(json!(3), "read_file", read_args(), Some(contract_only))?)?;
    let r4 = s.call(json!(4), "read_file", read_args(), Some(bare))?;
    let data = expect_denial(&r4, &json!(4), "budget_exceeded")?;
    ensure(data["limit"] == 250 && data["spent"] == 300, || {
        format!("calls with and without _delegateos.delegationId must share the delegation's budget (expected limit 250, spent 300): {data}")
    })?;
    s.assert_not_forwarded(&json!(4))?;
    s.finish()
}

/// Red team (py-proxy `splitlines`): MCP stdio messages end at `\n` only. JSON strings may hold
/// raw U+2028, U+2029 and U+0085, which `str.splitlines()` (and some other line readers)
/// treat as line ends, cutting the message in two.
fn raw_line_separators(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let env = serde_json::to_string(&tokens::envelope(&good_token())).unwrap_or_default();
    let args = "{\"path\":\"/project/a.txt\",\"u\":\"a\u{2028}b\u{2029}c\u{85}d\"}";
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":"sep-1","method":"tools/call","params":{{"_delegateos":{env},"name":"read_file","arguments":{args}}}}}"#
    );
    s.proxy.send_raw(line.as_bytes())?;
    let id = json!("sep-1");
    let resp = s.proxy.response(&id, T)?;
    let r = expect_result(&resp)?;
    ensure(
        r["structuredContent"]["received_params"]["arguments"]["u"] == "a\u{2028}b\u{2029}c\u{85}d",
        || {
            format!(
                "the arguments did not survive the round trip: {}",
                short(&resp)
            )
        },
    )?;
    let raw = s.upstream_raw();
    let forwarded: Vec<&String> = raw.iter().filter(|r| r.contains("\"sep-1\"")).collect();
    ensure(forwarded.len() == 1 && forwarded[0].contains(args), || {
        format!("the call should reach the upstream once, arguments byte-identical: {forwarded:?}")
    })?;
    // Pass-through direction too: mock/fail echoes its params in the error data.
    let line = "{\"jsonrpc\":\"2.0\",\"id\":\"sep-2\",\"method\":\"mock/fail\",\"params\":{\"s\":\"x\u{2028}y\u{85}z\"}}";
    s.proxy.send_raw(line.as_bytes())?;
    let resp = s.proxy.response(&json!("sep-2"), T)?;
    let upstream = s
        .upstream_answer(&json!("sep-2"))
        .ok_or("mock/fail never reached the upstream")?;
    ensure(resp == upstream, || {
        format!(
            "client got {}, upstream sent {}",
            short(&resp),
            short(&upstream)
        )
    })?;
    s.finish()
}

/// Red team (py-proxy `deny-notification-reply`): a denied `tools/call` without an id has no
/// one to answer (JSON-RPC: no response to a notification); an authorized one is forwarded
/// and charged like a request (spec/mcp-proxy.md §3.5).
fn denied_notification_silent(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 150;
    let token = spec.sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let note = |args: Value| {
        let mut m = call_msg(&json!(0), "read_file", args, Some(env.clone()));
        if let Some(o) = m.as_object_mut() {
            o.remove("id");
        }
        m
    };
    // Denied (resource outside the grant): no answer at all.
    s.send(&note(json!({"path": "/etc/shadow", "tag": "denied-note"})))?;
    let resp = s.request(json!("after-1"), "ping", json!({}), T)?;
    ensure(
        resp["id"] == "after-1" && resp.get("result").is_some(),
        || format!("expected the ping answer, got {}", short(&resp)),
    )?;
    // Authorized: forwarded once and charged 100.
    s.send(&note(
        json!({"path": "/project/a.txt", "tag": "allowed-note"}),
    ))?;
    s.sync()?;
    let raw = s.upstream_raw();
    ensure(!raw.iter().any(|r| r.contains("denied-note")), || {
        "the denied notification reached the upstream".into()
    })?;
    let n = raw.iter().filter(|r| r.contains("allowed-note")).count();
    ensure(n == 1, || {
        format!("the authorized notification reached the upstream {n} times")
    })?;
    // 100 spent of 150: one more call is authorized (spent 100 < 150), the next is denied at 200.
    expect_result(&s.call(json!(1), "read_file", read_args(), Some(env.clone()))?)?;
    let r2 = s.call(json!(2), "read_file", read_args(), Some(env.clone()))?;
    let data = expect_denial(&r2, &json!(2), "budget_exceeded")?;
    ensure(data["limit"] == 150 && data["spent"] == 200, || {
        format!(
            "the authorized notification must be charged (expected limit 150, spent 200): {data}"
        )
    })?;
    // Nothing was ever answered with id null.
    while let Some(m) = s.proxy.next(Duration::from_millis(300)) {
        ensure(m.get("id") != Some(&Value::Null), || {
            format!("a message with id null reached the client: {}", short(&m))
        })?;
    }
    s.finish()
}

/// Red team (py-proxy `resource-str-coerce`): D36 denies a non-string resource argument with
/// `requested.resource: null`. A proxy that coerces it to text (`str(value)`) matches it
/// against a bare `*` grant and forwards an argument whose meaning only the upstream decides.
fn resource_non_string(ctx: &Ctx) -> Result<(), String> {
    let token = RootSpec::new(vec![cap("docs", "read", "*")]).sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    expect_result(&s.call(json!(1), "read_file", read_args(), Some(env.clone()))?)?;
    let odd = [
        json!(["/etc/shadow"]),
        json!(42),
        json!({"path": "/etc/shadow"}),
        json!(true),
    ];
    for (i, value) in odd.iter().enumerate() {
        let id = json!(10 + i);
        let r = s.call(
            id.clone(),
            "read_file",
            json!({"path": value}),
            Some(env.clone()),
        )?;
        let data = expect_denial(&r, &id, "capability_not_granted")?;
        ensure(
            data["requested"] == json!({"namespace": "docs", "action": "read", "resource": null}),
            || format!("path {value}: requested.resource must be null: {data}"),
        )?;
        s.assert_not_forwarded(&id)?;
    }
    s.finish()
}

/// Red team (py-proxy `raw-text-shortcut`): JSON member names may be written with `\u`
/// escapes. A proxy that looks for `"_delegateos"` or duplicate names in the raw text, rather
/// than in the decoded names, forwards an escaped envelope unverified and unstripped, and
/// misses escaped duplicates (D35).
fn escaped_member_names(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let token = tokens::envelope(&good_token());
    let env = serde_json::to_string(&token).unwrap_or_default();
    let dups = [
        r#"{"jsonrpc":"2.0","id":"esc-1","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/etc/x"}},"m\u0065thod":"ping"}"#.to_owned(),
        format!(r#"{{"jsonrpc":"2.0","id":"esc-2","method":"tools/call","params":{{"name":"write_file","_delegateos":{env},"arguments":{{"path":"/project/a.txt"}},"n\u0061me":"read_file"}}}}"#),
    ];
    for line in &dups {
        s.proxy.send_raw(line.as_bytes())?;
    }
    for id in ["esc-1", "esc-2"] {
        let resp = s.proxy.response(&json!(id), T)?;
        ensure(resp["error"]["code"] == -32600, || {
            format!(
                "{id}: an escaped duplicate member name should get -32600, got {}",
                short(&resp)
            )
        })?;
    }
    // An escaped `_delegateos` is the envelope: verified, and stripped when allowed.
    let allowed = format!(
        r#"{{"jsonrpc":"2.0","id":"esc-3","method":"tools/call","params":{{"_delegate\u006fs":{env},"name":"read_file","arguments":{{"path":"/project/a.txt"}}}}}}"#
    );
    s.proxy.send_raw(allowed.as_bytes())?;
    expect_result(&s.proxy.response(&json!("esc-3"), T)?)?;
    let denied = format!(
        r#"{{"jsonrpc":"2.0","id":"esc-4","method":"tools/call","params":{{"_delegate\u006fs":{env},"name":"read_file","arguments":{{"path":"/etc/shadow"}}}}}}"#
    );
    s.proxy.send_raw(denied.as_bytes())?;
    let resp = s.proxy.response(&json!("esc-4"), T)?;
    expect_denial(&resp, &json!("esc-4"), "capability_not_granted")?;
    for id in ["esc-1", "esc-2", "esc-4"] {
        s.assert_not_forwarded(&json!(id))?;
    }
    let fwd = s.upstream_requests_with_id(&json!("esc-3"));
    ensure(fwd.len() == 1, || {
        format!("esc-3 reached the upstream {} times", fwd.len())
    })?;
    ensure(fwd[0]["params"].get("_delegateos").is_none(), || {
        format!(
            "the escaped _delegateos member was forwarded: {}",
            short(&fwd[0])
        )
    })?;
    let dct = token["dct"].as_str().unwrap_or_default();
    let leaked = s.upstream_raw().iter().any(|r| r.contains(dct));
    ensure(!leaked, || "the token reached the upstream".into())?;
    s.finish()
}
