//! The reference DelegateOS stdio proxy (`delegateos-reference-proxy`).
//!
//! It owns the I/O around the pure decisions of `delegateos_reference::mcp`: spawning the
//! upstream in its own process group, relaying lines in both directions, filtering
//! `tools/list` pages, answering denials locally, and the shutdown rules of
//! `spec/mcp-proxy.md` (client EOF, SIGTERM, upstream crash). Every line that is not
//! intercepted is forwarded byte-for-byte; ids are never rewritten.
//!
//! Threads: the main thread reads the client and writes the upstream; one thread reads the
//! upstream and writes the client; one thread waits for signals. Spend is checked and recorded
//! on the main thread at authorization, so concurrent calls are charged in arrival order.

use std::collections::{BTreeMap, HashSet};
use std::io::{self, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use delegateos_reference::faults;
use delegateos_reference::mcp::{self as plugin, BudgetTracker, CallDecision, McpConfig};
use delegateos_reference::revocation::{RevocationEntry, RevocationList};
use delegateos_reference::token::SerializedDct;

use super::config::LaunchConfig;
use super::key_cache::KeyCache;
use super::raw_line::{strip_delegateos_raw, RawError};
use super::wire::{self, id_key, Line, MAX_LINE};

/// Exit status after an upstream crash.
pub const EXIT_UPSTREAM_GONE: i32 = 1;
/// Exit status for a bad configuration or an upstream that cannot be started.
pub const EXIT_CONFIG: i32 = 78;
/// How long the proxy waits for the upstream to exit after closing its stdin.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Deliberate defects, used only to prove that the suite catches them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Forward authorized calls without removing `_delegateos`.
    NoStrip,
    /// Forward denied calls to the upstream instead of answering them.
    ForwardDenied,
    /// Relay `tools/list` unfiltered.
    NoFilter,
    /// HTTP: one spend tracker for every session (stdio: no effect).
    SharedState,
}

impl Fault {
    /// Parses a `--fault` value.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "no-strip" => Some(Self::NoStrip),
            "forward-denied" => Some(Self::ForwardDenied),
            "no-filter" => Some(Self::NoFilter),
            "shared-state" => Some(Self::SharedState),
            _ => None,
        }
    }
}

/// Command-line options of the proxy.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// Path of the launch config.
    pub config: PathBuf,
    /// Force strict mode regardless of the config.
    pub strict: bool,
    /// A deliberate defect (tests only).
    pub fault: Option<Fault>,
    /// Serve MCP Streamable HTTP whatever the config's `transport` says.
    pub http: bool,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn log(msg: &str) {
    if faults::on("proxy.logs-on-stdout") {
        let _ = writeln!(io::stdout(), "delegateos-reference-proxy: {msg}");
        return;
    }
    let _ = writeln!(io::stderr(), "delegateos-reference-proxy: {msg}");
}

/// The current time in the RFC 3339 profile of decision D5.
pub fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// Loads a launch config file into the plugin configuration.
pub fn load_config(
    path: &PathBuf,
    force_strict: bool,
) -> Result<(McpConfig, LaunchConfig), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let launch: LaunchConfig =
        serde_json::from_slice(&bytes).map_err(|e| format!("invalid launch config: {e}"))?;
    let mut revocations = RevocationList::new();
    for entry in &launch.revocations {
        let entry: RevocationEntry = serde_json::from_value(entry.clone())
            .map_err(|e| format!("invalid revocation entry: {e}"))?;
        revocations
            .add(entry)
            .map_err(|e| format!("revocation entry refused: {e:?}"))?;
    }
    let session_token = match &launch.session_token {
        None => None,
        Some(v) => Some(
            serde_json::from_value::<SerializedDct>(v.clone())
                .map_err(|e| format!("invalid sessionToken: {e}"))?,
        ),
    };
    let config = McpConfig {
        trusted_roots: launch.trusted_roots.clone(),
        tools: launch.tools.clone(),
        revocations,
        spend_per_call: launch.spend_per_call,
        strict: launch.strict || force_strict,
        session_token,
    };
    Ok((config, launch))
}

#[derive(Debug, Default)]
struct Pending {
    /// Requests forwarded upstream and not yet answered: id key → id.
    inflight: BTreeMap<String, Value>,
    /// Ids of in-flight `tools/list` requests, whose results are filtered.
    lists: HashSet<String>,
}

#[derive(Debug)]
struct Shared {
    decider: Decider,
    pending: Mutex<Pending>,
    client_out: Mutex<io::Stdout>,
    child: Mutex<Child>,
    shutting_down: AtomicBool,
}

impl Shared {
    fn to_client(&self, bytes: &[u8]) {
        let mut out = lock(&self.client_out);
        if wire::write_line(&mut *out, bytes).is_err() {
            // The client is gone: nothing more can be delivered.
            self.shutting_down.store(true, Ordering::SeqCst);
        }
    }

    fn to_client_json(&self, msg: &Value) {
        self.to_client(serde_json::to_string(msg).unwrap_or_default().as_bytes());
    }

    /// Terminates the upstream's process group: SIGTERM, a short grace, then SIGKILL.
    fn terminate_upstream(&self, grace: Duration) -> Option<i32> {
        terminate_group(&mut lock(&self.child), grace)
    }

    /// Waits up to `grace` for the upstream to exit by itself.
    fn wait_upstream(&self, grace: Duration) -> bool {
        wait_child(&self.child, grace)
    }
}

/// Terminates `child`'s process group: SIGTERM, `grace`, then SIGKILL; reaps it.
pub(crate) fn terminate_group(child: &mut Child, grace: Duration) -> Option<i32> {
    if let Ok(Some(status)) = child.try_wait() {
        return status.code();
    }
    let pid = rustix::process::Pid::from_raw(i32::try_from(child.id()).unwrap_or(0));
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::TERM);
    }
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return status.code();
        }
        thread::sleep(Duration::from_millis(10));
    }
    if let Some(pid) = pid {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    child.wait().ok().and_then(|s| s.code())
}

/// Waits up to `grace` for `child` to exit by itself.
pub(crate) fn wait_child(child: &Mutex<Child>, grace: Duration) -> bool {
    let deadline = Instant::now() + grace;
    loop {
        if let Ok(Some(_)) = lock(child).try_wait() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// Starts the configured upstream in its own process group, stdin/stdout piped.
pub(crate) fn spawn_upstream(
    launch: &LaunchConfig,
) -> Result<(Child, ChildStdin, ChildStdout), String> {
    let mut command = Command::new(&launch.upstream.command);
    command
        .args(&launch.upstream.args)
        .envs(&launch.upstream.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start upstream {}: {e}", launch.upstream.command))?;
    let (Some(upstream_in), Some(upstream_out)) = (child.stdin.take(), child.stdout.take()) else {
        let _ = child.kill();
        let _ = child.wait();
        return Err("upstream pipes unavailable".into());
    };
    Ok((child, upstream_in, upstream_out))
}

/// Runs the stdio proxy until the client closes stdin (exit 0), a signal arrives
/// (128 + signal), or the upstream dies (exit [`EXIT_UPSTREAM_GONE`]). The transport is chosen
/// by [`super::run_reference_proxy`].
pub fn run_stdio_proxy(config: McpConfig, launch: LaunchConfig, opts: &ProxyOptions) -> i32 {
    let (child, upstream_in, upstream_out) = match spawn_upstream(&launch) {
        Ok(c) => c,
        Err(e) => {
            log(&e);
            return EXIT_CONFIG;
        }
    };
    log(&format!("upstream pid {}", child.id()));
    let shared = Arc::new(Shared {
        decider: Decider::new(config, opts.fault),
        pending: Mutex::new(Pending::default()),
        client_out: Mutex::new(io::stdout()),
        child: Mutex::new(child),
        shutting_down: AtomicBool::new(false),
    });
    spawn_signal_thread(Arc::clone(&shared));
    let (done_tx, done_rx) = mpsc::channel::<()>();
    {
        let shared = Arc::clone(&shared);
        thread::spawn(move || {
            relay_upstream(&shared, upstream_out);
            let _ = done_tx.send(());
        });
    }
    client_loop(&shared, upstream_in);
    if faults::on("proxy.upstream-not-reaped") {
        return 0;
    }
    // Client EOF: the upstream's stdin is closed (dropped above); give it a grace period,
    // then terminate its process group, then let the relay thread flush what it read.
    shared.shutting_down.store(true, Ordering::SeqCst);
    if !shared.wait_upstream(SHUTDOWN_GRACE) {
        log("upstream did not exit after stdin EOF; terminating it");
        shared.terminate_upstream(Duration::from_millis(500));
    }
    let _ = done_rx.recv_timeout(Duration::from_secs(1));
    let _ = lock(&shared.client_out).flush();
    0
}

fn spawn_signal_thread(shared: Arc<Shared>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    if faults::on("proxy.no-signal-handler") {
        return;
    }
    let mut signals = match signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        Ok(s) => s,
        Err(e) => {
            log(&format!("cannot install signal handlers: {e}"));
            return;
        }
    };
    thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            shared.shutting_down.store(true, Ordering::SeqCst);
            shared.terminate_upstream(Duration::from_millis(500));
            let _ = lock(&shared.client_out).flush();
            std::process::exit(128 + sig);
        }
    });
}

pub(crate) fn invalid_request(id: Value, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32600, "message": message}})
}

/// What to do with one client message: the transport-independent part of the proxy, shared
/// by the stdio loop below and the Streamable HTTP mode (`http_proxy`).
#[derive(Debug)]
pub enum Routed {
    /// Nothing to send anywhere (a blank line, a denied `tools/call` notification).
    Ignore,
    /// Answer the client with this message; nothing reaches the upstream.
    Reply(Value),
    /// Forward these bytes to the upstream.
    Forward {
        /// The bytes to forward (with `_delegateos` cut out for an authorized call).
        bytes: Vec<u8>,
        /// The id of a request (a response is expected); `None` for notifications and for
        /// the client's responses to upstream requests.
        request_id: Option<Value>,
        /// A `tools/list` request, whose response must be filtered.
        list: bool,
    },
}

/// The proxy's decision state: the plugin configuration, the spend recorded so far, and the
/// deliberate defect (tests only). One per stdio proxy; one per HTTP session.
#[derive(Debug)]
pub struct Decider {
    /// The plugin configuration.
    pub config: McpConfig,
    /// Spend recorded per delegation.
    pub tracker: Mutex<BudgetTracker>,
    /// Signer keys validated once and reused for every call (bounded; locked after `tracker`).
    pub keys: Mutex<KeyCache>,
    /// A deliberate defect (tests only).
    pub fault: Option<Fault>,
    /// The state of the catalogue's stateful proxy faults (none unless one is switched on).
    deferred: Mutex<mistakes::Deferred>,
}

impl Decider {
    /// A decider with no spend recorded.
    pub fn new(config: McpConfig, fault: Option<Fault>) -> Self {
        Decider {
            config,
            tracker: Mutex::new(BudgetTracker::new()),
            keys: Mutex::new(KeyCache::default()),
            fault,
            deferred: Mutex::new(mistakes::Deferred::default()),
        }
    }

    /// Decides what happens to one client message (`bytes`: one JSON text, no framing).
    pub fn route(&self, bytes: Vec<u8>) -> Routed {
        if bytes.iter().all(|b| wire_ws(*b)) {
            return Routed::Ignore;
        }
        let msg: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(_) => {
                return Routed::Reply(json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": "Parse error"}}));
            }
        };
        let Some(obj) = msg.as_object() else {
            let why = if msg.is_array() {
                "Batches are not supported"
            } else {
                "Invalid Request"
            };
            return Routed::Reply(invalid_request(Value::Null, why));
        };
        let id = obj.get("id").cloned();
        // D35: duplicate member names at the top level or in `params` are refused for EVERY
        // method, not only `tools/call`: `{"method":"tools/call",…,"method":"ping"}` parses as
        // `ping` here (last wins) but as an unverified `tools/call` in a first-wins upstream.
        if matches!(strip_delegateos_raw(&bytes), Err(RawError::DuplicateKey))
            && !faults::on("proxy.duplicate-members-last-wins")
        {
            let id = match id {
                Some(v @ (Value::String(_) | Value::Number(_))) => v,
                _ => Value::Null,
            };
            return Routed::Reply(invalid_request(id, "Duplicate member names"));
        }
        let method = obj.get("method").and_then(Value::as_str);
        let is_response = method.is_none()
            && id.is_some()
            && (obj.contains_key("result") || obj.contains_key("error"));
        if method.is_none() && !is_response {
            let id = match id {
                Some(v @ (Value::String(_) | Value::Number(_))) => v,
                _ => Value::Null,
            };
            return Routed::Reply(invalid_request(id, "Invalid Request"));
        }
        let request_id = if method.is_some() { id } else { None };
        if request_id.is_some() {
            lock(&self.deferred).requested(method);
        }
        match method {
            Some("tools/call") if mistakes::raw_shortcut(&bytes, self.config.strict) => {
                Routed::Forward {
                    bytes,
                    request_id,
                    list: false,
                }
            }
            Some("tools/call") => match self.decide(&msg, &bytes) {
                Ok(bytes) => Routed::Forward {
                    bytes,
                    request_id,
                    list: false,
                },
                Err(Some(reply)) => Routed::Reply(reply),
                Err(None) => Routed::Ignore,
            },
            Some("tools/list") => Routed::Forward {
                list: !mistakes::later_page(&msg),
                bytes,
                request_id,
            },
            _ => Routed::Forward {
                bytes,
                request_id,
                list: false,
            },
        }
    }

    /// Handles a `tools/call`: the bytes to forward, or the local answer (`None`: no answer).
    fn decide(&self, msg: &Value, raw: &[u8]) -> Result<Vec<u8>, Option<Value>> {
        let stripped = match strip_delegateos_raw(raw) {
            Ok(s) => s,
            Err(RawError::DuplicateKey) if faults::on("proxy.duplicate-members-last-wins") => {
                mistakes::stripped_last_wins(msg)
            }
            Err(RawError::DuplicateKey) => {
                return Err(msg
                    .get("id")
                    .map(|id| invalid_request(id.clone(), "Duplicate member names")));
            }
            Err(RawError::NotAnObject) => raw.to_vec(),
        };
        let id = msg.get("id");
        let defer = id.is_some() && mistakes::Deferred::defers();
        let decision = {
            let mut tracker = lock(&self.tracker);
            let mut keys = lock(&self.keys);
            // A deferring proxy decides on a copy: nothing is recorded at authorization.
            let mut scratch = defer.then(|| tracker.clone());
            plugin::decide_call_with_keys(
                msg,
                &self.config,
                scratch.as_mut().unwrap_or(&mut tracker),
                &now_rfc3339(),
                &mut *keys,
            )
        };
        if let (
            true,
            Some(id),
            CallDecision::Forward {
                delegation_id,
                spend,
                ..
            },
        ) = (defer, id, &decision)
        {
            lock(&self.deferred).authorized(id_key(id), delegation_id, *spend);
        }
        match decision {
            CallDecision::PassThrough => Ok(raw.to_vec()),
            CallDecision::Forward { .. }
                if self.fault == Some(Fault::NoStrip) || faults::on("mcp.envelope-forwarded") =>
            {
                Ok(raw.to_vec())
            }
            CallDecision::Forward { request, .. } if faults::on("proxy.forward-reserialized") => {
                Ok(mistakes::python_dumps(&request))
            }
            CallDecision::Forward { .. } => Ok(stripped),
            CallDecision::Deny { .. } | CallDecision::Drop { .. }
                if self.fault == Some(Fault::ForwardDenied) =>
            {
                Ok(stripped)
            }
            CallDecision::Deny { response } => Err(Some(response)),
            CallDecision::Drop { data } => {
                log(&format!("dropped a denied tools/call notification: {data}"));
                Err(None)
            }
        }
    }

    /// The client's copy of the upstream's answer to a `tools/list` request: `result.tools`
    /// filtered (D32), everything else unchanged; the original bytes when there is nothing
    /// to filter.
    pub fn filter_list_response(&self, bytes: Vec<u8>) -> Vec<u8> {
        if self.fault == Some(Fault::NoFilter) {
            return bytes;
        }
        let Ok(mut msg) = serde_json::from_slice::<Value>(&bytes) else {
            return bytes;
        };
        let Some(tools) = msg
            .pointer("/result/tools")
            .and_then(Value::as_array)
            .cloned()
        else {
            return bytes;
        };
        let filtered = {
            let tracker = lock(&self.tracker);
            let mut keys = lock(&self.keys);
            plugin::filter_tools_with_keys(
                &tools,
                &self.config,
                &tracker,
                &now_rfc3339(),
                &mut *keys,
            )
        };
        if faults::on("proxy.list-result-rebuilt") {
            msg["result"] = json!({ "tools": filtered });
        } else if let Some(slot) = msg.pointer_mut("/result/tools") {
            *slot = Value::Array(filtered);
        }
        serde_json::to_vec(&msg).unwrap_or(bytes)
    }
}

/// Reads client lines until EOF, forwarding or answering each.
fn client_loop(shared: &Shared, upstream_in: ChildStdin) {
    let mut upstream = Some(upstream_in);
    let mut stdin = BufReader::with_capacity(1 << 16, io::stdin());
    loop {
        let bytes = match wire::read_line(&mut stdin, MAX_LINE) {
            Ok(Line::Data(b)) => b,
            Ok(Line::TooLong) => {
                shared.to_client_json(&invalid_request(Value::Null, "Message too large"));
                continue;
            }
            Ok(Line::Eof) | Err(_) => {
                // Client EOF (M6): from here the upstream's exit is the shutdown, not a crash
                // to report, so in-flight requests are dropped. The flag is set before the
                // upstream's stdin is dropped (below), or the relay could see its EOF first.
                shared.shutting_down.store(true, Ordering::SeqCst);
                break;
            }
        };
        for bytes in mistakes::split_lines(bytes) {
            // A proxy that writes a call upstream before its verdict (a catalogue fault).
            let early = mistakes::forwarded_early(&bytes);
            if let Some((line, id)) = &early {
                if let Some(id) = id {
                    lock(&shared.pending)
                        .inflight
                        .insert(id_key(id), id.clone());
                }
                write_upstream(&mut upstream, line);
            }
            let (line, request_id, list) = match shared.decider.route(bytes) {
                Routed::Ignore => continue,
                Routed::Reply(msg) => {
                    // Its verdict comes after the upstream's answer, as from a verifier slower
                    // than the tool (bounded: a tool that never answers gets the denial).
                    if let Some((_, Some(id))) = &early {
                        mistakes::await_answer(&shared.pending, &id_key(id));
                    }
                    shared.to_client_json(&msg);
                    continue;
                }
                Routed::Forward {
                    bytes,
                    request_id,
                    list,
                } => (bytes, request_id, list),
            };
            if let Some(id) = &request_id {
                let mut pending = lock(&shared.pending);
                if list {
                    pending.lists.insert(id_key(id));
                }
                pending.inflight.insert(id_key(id), id.clone());
            }
            if early.is_none() {
                write_upstream(&mut upstream, &line);
            }
        }
    }
    drop(upstream);
}

/// Writes one line to the upstream; on failure logs once and writes nothing more.
fn write_upstream(upstream: &mut Option<ChildStdin>, line: &[u8]) {
    if let Some(up) = upstream.as_mut() {
        if wire::write_line(up, line).is_err() {
            log("upstream stdin closed");
            *upstream = None;
        }
    }
}

fn wire_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Relays upstream lines to the client until the upstream's stdout closes.
fn relay_upstream(shared: &Shared, upstream_out: ChildStdout) {
    let mut reader = BufReader::with_capacity(1 << 16, upstream_out);
    loop {
        match wire::read_line(&mut reader, MAX_LINE) {
            Ok(Line::Data(bytes)) => relay_one(shared, bytes),
            Ok(Line::TooLong) => log("dropped an oversized upstream line"),
            Ok(Line::Eof) | Err(_) => break,
        }
    }
    if shared.shutting_down.load(Ordering::SeqCst) {
        return;
    }
    if faults::on("proxy.upstream-exit-ignored") {
        log("upstream closed its stdout");
        return;
    }
    // The upstream closed its stdout on its own: it crashed or quit. Every in-flight request
    // gets an error, then the proxy exits (no restart, decision D32).
    let code = if shared.wait_upstream(Duration::from_secs(1)) {
        shared.terminate_upstream(Duration::from_millis(0))
    } else {
        shared.terminate_upstream(Duration::from_millis(200))
    };
    let inflight: Vec<Value> = std::mem::take(&mut lock(&shared.pending).inflight)
        .into_values()
        .collect();
    log(&format!(
        "upstream exited (status {code:?}); failing {} in-flight request(s)",
        inflight.len()
    ));
    for id in inflight {
        shared.to_client_json(&json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32603, "message": "Upstream MCP server exited",
            "data": {"type": "upstream_exited", "exitCode": code}}}));
    }
    let _ = lock(&shared.client_out).flush();
    std::process::exit(EXIT_UPSTREAM_GONE);
}

fn relay_one(shared: &Shared, bytes: Vec<u8>) {
    let Ok(msg) = serde_json::from_slice::<Value>(&bytes) else {
        log("dropped a non-JSON upstream line");
        return;
    };
    let is_response = msg.get("method").is_none();
    let Some(id) = msg.get("id").cloned().filter(|_| is_response) else {
        shared.to_client(&bytes);
        return;
    };
    let key = id_key(&id);
    let is_list = {
        let mut pending = lock(&shared.pending);
        pending.inflight.remove(&key);
        pending.lists.remove(&key)
    };
    let (is_list, charge) = {
        let mut deferred = lock(&shared.decider.deferred);
        (deferred.is_list(is_list), deferred.answered(&key))
    };
    if let Some((delegation, spend)) = charge {
        lock(&shared.decider.tracker).record_spend(&delegation, spend);
    }
    if !is_list {
        shared.to_client(&bytes);
        return;
    }
    shared.to_client(&shared.decider.filter_list_response(bytes));
}

/// The catalogue's proxy mistakes (`spec/data/faults.json`, the faults marked `proxy`): each is
/// the reference proxy's own behaviour unless its switch (`delegateos_reference::faults`, on
/// only in a build with the feature `faults`, by `DELEGATEOS_FAULT`) is on. They realise what
/// only a running proxy does wrong, so that the MCP suite's failures name them
/// (`harness/tests/mcp_fingerprints.rs`).
mod mistakes {
    use std::collections::{BTreeMap, BTreeSet};

    use serde_json::Value;

    use delegateos_reference::faults;

    /// `proxy.unicode-line-breaks`: a line split again at every character Python's
    /// `str.splitlines` ends a line at (U+2028, U+0085, `\x0b`, …); otherwise the line itself.
    pub(super) fn split_lines(bytes: Vec<u8>) -> Vec<Vec<u8>> {
        if !faults::on("proxy.unicode-line-breaks") {
            return vec![bytes];
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return vec![bytes];
        };
        let breaks = [
            '\r', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\u{85}', '\u{2028}', '\u{2029}',
        ];
        text.split(|c| breaks.contains(&c))
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.as_bytes().to_vec())
            .collect()
    }

    /// `proxy.forward-before-verdict`: a `tools/call` carrying `_delegateos`, stripped, to be
    /// written upstream before it is verified, and its id.
    pub(super) fn forwarded_early(bytes: &[u8]) -> Option<(Vec<u8>, Option<Value>)> {
        if !faults::on("proxy.forward-before-verdict") {
            return None;
        }
        let msg: Value = serde_json::from_slice(bytes).ok()?;
        if msg.get("method").and_then(Value::as_str) != Some("tools/call") {
            return None;
        }
        msg.pointer("/params/_delegateos")?;
        // A message with duplicate member names is refused before anything is written.
        let stripped = match super::strip_delegateos_raw(bytes) {
            Ok(stripped) => stripped,
            Err(super::RawError::DuplicateKey) => return None,
            Err(super::RawError::NotAnObject) => stripped_last_wins(&msg),
        };
        Some((stripped, msg.get("id").cloned()))
    }

    /// Waits (at most a second) until the request `key` is no longer pending: the upstream's
    /// answer to a call forwarded before its verdict was relayed.
    pub(super) fn await_answer(pending: &std::sync::Mutex<super::Pending>, key: &str) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while super::lock(pending).inflight.contains_key(key)
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// `proxy.raw-text-shortcut`: outside strict mode, a call whose raw text does not contain
    /// `"_delegateos"` is forwarded as it is (an escaped member name is never looked at).
    pub(super) fn raw_shortcut(bytes: &[u8], strict: bool) -> bool {
        faults::on("proxy.raw-text-shortcut")
            && !strict
            && !bytes.windows(13).any(|w| w == b"\"_delegateos\"")
    }

    /// `proxy.list-later-pages-unfiltered`: a `tools/list` request with a cursor (a later
    /// page) is not marked for filtering.
    pub(super) fn later_page(msg: &Value) -> bool {
        faults::on("proxy.list-later-pages-unfiltered") && msg.pointer("/params/cursor").is_some()
    }

    /// The parsed message without `params._delegateos`, serialised (what a proxy that
    /// parses last-wins forwards).
    pub(super) fn stripped_last_wins(msg: &Value) -> Vec<u8> {
        let mut m = msg.clone();
        if let Some(p) = m.get_mut("params").and_then(Value::as_object_mut) {
            p.remove("_delegateos");
        }
        serde_json::to_vec(&m).unwrap_or_default()
    }

    /// `proxy.forward-reserialized`: the request as Python's `json.dumps` writes it (a space
    /// after every `,` and `:`), not the client's bytes.
    pub(super) fn python_dumps(v: &Value) -> Vec<u8> {
        struct Spaced;
        fn comma<W: ?Sized + std::io::Write>(w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        impl serde_json::ser::Formatter for Spaced {
            fn begin_array_value<W: ?Sized + std::io::Write>(
                &mut self,
                w: &mut W,
                first: bool,
            ) -> std::io::Result<()> {
                comma(w, first)
            }
            fn begin_object_key<W: ?Sized + std::io::Write>(
                &mut self,
                w: &mut W,
                first: bool,
            ) -> std::io::Result<()> {
                comma(w, first)
            }
            fn begin_object_value<W: ?Sized + std::io::Write>(
                &mut self,
                w: &mut W,
            ) -> std::io::Result<()> {
                w.write_all(b": ")
            }
        }
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
        let _ = serde::Serialize::serialize(v, &mut ser);
        out
    }

    /// The state of the stateful proxy faults: spend deferred to the answer
    /// (`proxy.spend-recorded-on-answer`, `proxy.spend-charged-to-last-call`) and the last
    /// client request's method (`proxy.list-filtered-by-last-method`).
    #[derive(Debug, Default)]
    pub(super) struct Deferred {
        /// Request id key → the charge recorded when its answer arrives.
        charges: BTreeMap<String, (String, u64)>,
        /// Request id keys whose answer records the last authorized call's charge.
        charged_to_last: BTreeSet<String>,
        /// The last authorized call's charge.
        last: Option<(String, u64)>,
        /// Whether the last client request was a `tools/list`.
        last_was_list: bool,
    }

    impl Deferred {
        /// True when authorized calls are charged when their answer arrives.
        pub(super) fn defers() -> bool {
            faults::on("proxy.spend-recorded-on-answer")
                || faults::on("proxy.spend-charged-to-last-call")
        }

        /// A client request of `method` was read.
        pub(super) fn requested(&mut self, method: Option<&str>) {
            self.last_was_list = method == Some("tools/list");
        }

        /// The call `key` was authorized, charging `spend` to `delegation`.
        pub(super) fn authorized(&mut self, key: String, delegation: &str, spend: u64) {
            if faults::on("proxy.spend-recorded-on-answer") {
                self.charges.insert(key, (delegation.to_owned(), spend));
            } else if faults::on("proxy.spend-charged-to-last-call") {
                self.last = Some((delegation.to_owned(), spend));
                self.charged_to_last.insert(key);
            }
        }

        /// The charge to record now that the answer to `key` arrived.
        pub(super) fn answered(&mut self, key: &str) -> Option<(String, u64)> {
            if let Some(c) = self.charges.remove(key) {
                return Some(c);
            }
            self.charged_to_last
                .remove(key)
                .then(|| self.last.clone())
                .flatten()
        }

        /// Whether an upstream response is filtered as a `tools/list` page: `pending` (its
        /// id is a pending `tools/list`), or under `proxy.list-filtered-by-last-method`
        /// whether the last client request was one.
        pub(super) fn is_list(&self, pending: bool) -> bool {
            if faults::on("proxy.list-filtered-by-last-method") {
                self.last_was_list
            } else {
                pending
            }
        }
    }
}
