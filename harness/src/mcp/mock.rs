//! The scripted, recording MCP upstream (`delegateos-mock-upstream`) and its transparent tap
//! mode.
//!
//! The suite's oracle: every raw stdin line is appended byte-exact to a JSONL record file
//! (flushed per line), so a case can check what a proxy actually forwarded — `_delegateos`
//! stripped, `_meta` intact, nothing at all on a denial. Behaviour comes from a JSON script
//! ([`MockScript`]). The mock speaks the legacy (2025-11-25) handshake and echoes the
//! client's `protocolVersion`.
//!
//! Tap mode (`--tap --record FILE -- CMD ARGS…`) runs a real server behind the same recorder
//! and relays both directions unchanged.
//!
//! Puppet mode (`--puppet SOCKET --record FILE`) answers nothing by itself: it connects to the
//! Unix socket `SOCKET` (created and listened on by the harness) and writes to its stdout
//! exactly the messages the harness sends there, one per line, acknowledging each with
//! `ok\n` once it is written and flushed (`error <reason>\n` for a control line that is not
//! one JSON value; nothing is written then). It records stdin like the scripted mock and exits
//! on stdin EOF. Session scripts (`spec/mcp-proxy.md` §6.2) drive the upstream side this way.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{json, Value};

use super::wire::{self, id_key, Line, MAX_LINE};

/// What the mock does; every field is optional in the script file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MockScript {
    /// Tool objects returned by `tools/list`, verbatim.
    pub tools: Vec<Value>,
    /// Tools per `tools/list` page; 0 returns them all at once.
    pub page_size: usize,
    /// Per-tool behaviour of `tools/call`, by tool name.
    pub behaviors: BTreeMap<String, ToolBehavior>,
    /// Messages written right after `notifications/initialized` arrives.
    pub on_initialized: Vec<Value>,
    /// Keep running after stdin EOF (until killed).
    pub ignore_eof: bool,
    /// `resources/list` result entries.
    pub resources: Vec<Value>,
    /// `prompts/list` result entries.
    pub prompts: Vec<Value>,
}

/// Behaviour of one tool.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolBehavior {
    /// Answer after this many milliseconds (other requests are served meanwhile).
    pub delay_ms: u64,
    /// Answer with a result carrying `isError: true`.
    pub is_error: bool,
    /// Answer with this JSON-RPC error object instead of a result.
    pub error: Option<Value>,
    /// Exit with status 3 as soon as the call arrives, without answering.
    pub crash: bool,
    /// Never answer.
    pub hang: bool,
    /// Add a text content item of this many bytes to the result.
    pub huge_bytes: usize,
    /// Number of `notifications/progress` to send (to the request's `progressToken`) first.
    pub progress: u32,
    /// Extra messages (notifications) to write before the result.
    pub notifications: Vec<Value>,
    /// A server→client request (`{"method":…, "params":…}`); the call is answered only when the
    /// client's response arrives, and the answer embeds it as `client_response`.
    pub ask_client: Option<Value>,
    /// Write a line that is not JSON to stdout before answering (a misbehaving server).
    pub stdout_garbage: bool,
}

/// Appends JSONL events to the record file, one flushed line each.
#[derive(Debug, Clone)]
struct Recorder {
    file: Arc<Mutex<Option<File>>>,
    start: Instant,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Recorder {
    fn new(path: Option<&str>) -> io::Result<Self> {
        let file = match path {
            // Append, not truncate: behind an HTTP proxy several sessions' upstreams share one
            // record (each event is one `write` on an O_APPEND file, so lines never interleave).
            Some(p) => Some(
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)?,
            ),
            None => None,
        };
        Ok(Recorder {
            file: Arc::new(Mutex::new(file)),
            start: Instant::now(),
        })
    }

    fn event(&self, mut event: Value) {
        let mut guard = lock(&self.file);
        if let Some(file) = guard.as_mut() {
            if let Some(obj) = event.as_object_mut() {
                obj.insert("tMs".into(), json!(self.start.elapsed().as_millis() as u64));
            }
            let mut line = serde_json::to_vec(&event).unwrap_or_default();
            line.push(b'\n');
            // A failing record file must not change the mock's MCP behaviour.
            let _ = file.write_all(&line).and_then(|()| file.flush());
        }
    }

    fn raw(&self, kind: &str, bytes: &[u8]) {
        let ev = match std::str::from_utf8(bytes) {
            Ok(text) => json!({"event": kind, "raw": text}),
            Err(_) => json!({"event": kind, "rawHex": hex::encode(bytes)}),
        };
        self.event(ev);
    }
}

/// Shared output side of the mock.
#[derive(Debug, Clone)]
struct Out {
    stdout: Arc<Mutex<io::Stdout>>,
    rec: Recorder,
}

impl Out {
    fn send(&self, msg: &Value) {
        let text = serde_json::to_string(msg).unwrap_or_default();
        self.send_raw(text.as_bytes());
    }

    /// Writes `bytes` plus `\n` to stdout, recorded as an `out` event; exits if stdout closed.
    fn send_raw(&self, bytes: &[u8]) {
        let mut guard = lock(&self.stdout);
        self.rec.raw("out", bytes);
        if wire::write_line(&mut *guard, bytes).is_err() {
            self.rec
                .event(json!({"event": "exit", "code": 0, "reason": "stdout closed"}));
            std::process::exit(0);
        }
    }
}

/// State shared between the stdin loop and delayed answers.
#[derive(Debug, Default)]
struct State {
    cancelled: HashSet<String>,
    /// Server→client request id key → (call id, call params).
    asks: BTreeMap<String, (Value, Value)>,
    next_ask: u64,
}

/// Runs the mock until stdin EOF (or forever with `ignoreEof`). Returns the exit status.
pub fn run_mock(script: MockScript, record: Option<&str>) -> i32 {
    let rec = match Recorder::new(record) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mock-upstream: cannot create record file: {e}");
            return 2;
        }
    };
    rec.event(json!({"event": "start", "pid": std::process::id(), "mode": "mock"}));
    eprintln!("mock-upstream: started (this stderr line is deliberate chatter)");
    let out = Out {
        stdout: Arc::new(Mutex::new(io::stdout())),
        rec: rec.clone(),
    };
    let state = Arc::new(Mutex::new(State::default()));
    let script = Arc::new(script);
    let mut stdin = BufReader::with_capacity(1 << 16, io::stdin());
    loop {
        match wire::read_line(&mut stdin, MAX_LINE) {
            Ok(Line::Data(bytes)) => {
                rec.raw("in", &bytes);
                match serde_json::from_slice::<Value>(&bytes) {
                    Ok(msg) => handle(&msg, &script, &out, &state),
                    Err(_) => rec.event(json!({"event": "unparsed"})),
                }
            }
            Ok(Line::TooLong) => rec.event(json!({"event": "tooLong"})),
            Ok(Line::Eof) | Err(_) => break,
        }
    }
    rec.event(json!({"event": "eof"}));
    if script.ignore_eof {
        loop {
            thread::sleep(Duration::from_secs(3600));
        }
    }
    rec.event(json!({"event": "exit", "code": 0, "reason": "stdin eof"}));
    0
}

fn handle(msg: &Value, script: &Arc<MockScript>, out: &Out, state: &Arc<Mutex<State>>) {
    let method = msg.get("method").and_then(Value::as_str);
    let id = msg.get("id").cloned();
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    match (method, id) {
        (Some(m), None) => notification(m, &params, script, out, state),
        (Some(m), Some(id)) => request(m, id, params, script, out, state),
        (None, Some(id)) => {
            // A response to one of our server→client requests.
            let pending = lock(state).asks.remove(&id_key(&id));
            if let Some((call_id, call_params)) = pending {
                let result = json!({
                    "content": [{"type": "text", "text": "asked the client"}],
                    "structuredContent": {"received_params": call_params, "client_response": msg},
                });
                out.send(&json!({"jsonrpc": "2.0", "id": call_id, "result": result}));
            }
        }
        (None, None) => {}
    }
}

fn notification(
    method: &str,
    params: &Value,
    script: &MockScript,
    out: &Out,
    state: &Arc<Mutex<State>>,
) {
    match method {
        "notifications/initialized" => {
            for m in &script.on_initialized {
                out.send(m);
            }
        }
        "notifications/cancelled" => {
            if let Some(rid) = params.get("requestId") {
                lock(state).cancelled.insert(id_key(rid));
            }
        }
        _ => {}
    }
}

fn reply(out: &Out, id: &Value, result: Value) {
    out.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
}

fn request(
    method: &str,
    id: Value,
    params: Value,
    script: &Arc<MockScript>,
    out: &Out,
    state: &Arc<Mutex<State>>,
) {
    match method {
        "initialize" => {
            let version = params
                .get("protocolVersion")
                .cloned()
                .unwrap_or_else(|| json!("2025-11-25"));
            reply(
                out,
                &id,
                json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": true}, "resources": {}, "prompts": {}, "logging": {}},
                    "serverInfo": {"name": "delegateos-mock-upstream", "version": env!("CARGO_PKG_VERSION")},
                }),
            );
        }
        "ping" => reply(out, &id, json!({})),
        "resources/list" => reply(out, &id, json!({"resources": script.resources})),
        "prompts/list" => reply(out, &id, json!({"prompts": script.prompts})),
        "tools/list" => tools_list(&id, &params, script, out),
        "tools/call" => tools_call(id, params, script, out, state),
        "mock/fail" => out.send(&json!({
            "jsonrpc": "2.0", "id": id,
            "error": {"code": -32042, "message": "scripted failure", "data": {"echo": params}},
        })),
        _ => out.send(&json!({
            "jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": "Method not found", "data": {"method": method}},
        })),
    }
}

fn tools_list(id: &Value, params: &Value, script: &MockScript, out: &Out) {
    let total = script.tools.len();
    let start = match params.get("cursor").and_then(Value::as_str) {
        None => 0,
        Some(c) => match c
            .strip_prefix("page-")
            .and_then(|n| n.parse::<usize>().ok())
        {
            Some(n) if n <= total => n,
            _ => {
                out.send(&json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32602, "message": "Invalid cursor"}}));
                return;
            }
        },
    };
    let end = if script.page_size == 0 {
        total
    } else {
        (start + script.page_size).min(total)
    };
    let mut result = json!({"tools": script.tools[start..end]});
    if end < total {
        result["nextCursor"] = json!(format!("page-{end}"));
    }
    reply(out, id, result);
}

fn tools_call(
    id: Value,
    params: Value,
    script: &Arc<MockScript>,
    out: &Out,
    state: &Arc<Mutex<State>>,
) {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let b = script.behaviors.get(name).cloned().unwrap_or_default();
    if b.crash {
        out.rec
            .event(json!({"event": "exit", "code": 3, "reason": "scripted crash"}));
        std::process::exit(3);
    }
    if b.hang {
        return;
    }
    if b.stdout_garbage {
        let mut guard = lock(&out.stdout);
        out.rec.raw("out", b"this line is not JSON");
        let _ = wire::write_line(&mut *guard, b"this line is not JSON");
    }
    if let Some(ask) = &b.ask_client {
        let ask_id = {
            let mut st = lock(state);
            st.next_ask += 1;
            let ask_id = json!(format!("mock-ask-{}", st.next_ask));
            st.asks.insert(id_key(&ask_id), (id, params));
            ask_id
        };
        out.send(&json!({"jsonrpc": "2.0", "id": ask_id,
            "method": ask.get("method").cloned().unwrap_or(json!("roots/list")),
            "params": ask.get("params").cloned().unwrap_or(json!({}))}));
        return;
    }
    let out = out.clone();
    let state = Arc::clone(state);
    let answer = move || {
        let token = params.pointer("/_meta/progressToken").cloned();
        if let Some(token) = token {
            for i in 1..=b.progress {
                out.send(
                    &json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": i, "total": b.progress}}),
                );
            }
        }
        for n in &b.notifications {
            out.send(n);
        }
        if b.delay_ms > 0 {
            thread::sleep(Duration::from_millis(b.delay_ms));
        }
        if lock(&state).cancelled.contains(&id_key(&id)) {
            out.rec
                .event(json!({"event": "cancelledNotAnswered", "id": id}));
            return;
        }
        if let Some(err) = b.error {
            out.send(&json!({"jsonrpc": "2.0", "id": id, "error": err}));
            return;
        }
        let mut content = vec![
            json!({"type": "text", "text": format!("called {name}", name = params.get("name").and_then(Value::as_str).unwrap_or(""))}),
        ];
        if b.huge_bytes > 0 {
            content.push(json!({"type": "text", "text": "x".repeat(b.huge_bytes)}));
        }
        let mut result =
            json!({"content": content, "structuredContent": {"received_params": params}});
        if b.is_error {
            result["isError"] = json!(true);
        }
        out.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    };
    if b.delay_ms > 0 {
        thread::spawn(answer);
    } else {
        answer();
    }
}

/// The longest control line the puppet accepts (the stdio line limit).
const PUPPET_MAX_LINE: usize = MAX_LINE;

/// Puppet mode: connect to the harness's Unix socket `control`, write every message received
/// there to stdout (acknowledged with `ok`), record stdin like the scripted mock, and exit on
/// stdin EOF. Returns the exit status (2 when the socket cannot be reached).
pub fn run_puppet(control: &str, record: Option<&str>) -> i32 {
    let rec = match Recorder::new(record) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mock-upstream --puppet: cannot create record file: {e}");
            return 2;
        }
    };
    rec.event(json!({"event": "start", "pid": std::process::id(), "mode": "puppet"}));
    let stream = match std::os::unix::net::UnixStream::connect(control) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mock-upstream --puppet: cannot connect to {control}: {e}");
            rec.event(json!({"event": "exit", "code": 2, "reason": "control socket unreachable"}));
            return 2;
        }
    };
    eprintln!("mock-upstream: puppet started (this stderr line is deliberate chatter)");
    let out = Out {
        stdout: Arc::new(Mutex::new(io::stdout())),
        rec: rec.clone(),
    };
    let control_rec = rec.clone();
    thread::spawn(move || puppet_control(stream, &out, &control_rec));
    let mut stdin = BufReader::with_capacity(1 << 16, io::stdin());
    loop {
        match wire::read_line(&mut stdin, MAX_LINE) {
            Ok(Line::Data(bytes)) => {
                rec.raw("in", &bytes);
                if serde_json::from_slice::<Value>(&bytes).is_err() {
                    rec.event(json!({"event": "unparsed"}));
                }
            }
            Ok(Line::TooLong) => rec.event(json!({"event": "tooLong"})),
            Ok(Line::Eof) | Err(_) => break,
        }
    }
    rec.event(json!({"event": "eof"}));
    rec.event(json!({"event": "exit", "code": 0, "reason": "stdin eof"}));
    // The control thread may be blocked reading the socket: end the process, not the thread.
    let _ = io::stdout().flush();
    std::process::exit(0)
}

/// The control loop: one message per line in, `ok` / `error …` per line back. Ends at the
/// socket's EOF (the mock keeps recording stdin until its own EOF).
fn puppet_control(stream: std::os::unix::net::UnixStream, out: &Out, rec: &Recorder) {
    let Ok(mut ack) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::with_capacity(1 << 16, stream);
    loop {
        let reply: &[u8] = match wire::read_line(&mut reader, PUPPET_MAX_LINE) {
            Ok(Line::Data(bytes)) => {
                if serde_json::from_slice::<Value>(&bytes).is_ok() {
                    out.send_raw(&bytes);
                    b"ok\n"
                } else {
                    rec.event(json!({"event": "puppetRefused", "reason": "not one JSON value"}));
                    b"error control line is not one JSON value\n"
                }
            }
            Ok(Line::TooLong) => {
                rec.event(json!({"event": "puppetRefused", "reason": "too long"}));
                b"error control line too long\n"
            }
            Ok(Line::Eof) | Err(_) => return,
        };
        if ack.write_all(reply).and_then(|()| ack.flush()).is_err() {
            return;
        }
    }
}

/// Tap mode: run `command` as the real upstream, relay both directions unchanged and record
/// every line. Returns the child's exit status.
pub fn run_tap(command: &[String], record: Option<&str>) -> i32 {
    let rec = match Recorder::new(record) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mock-upstream --tap: cannot create record file: {e}");
            return 2;
        }
    };
    let Some((program, args)) = command.split_first() else {
        eprintln!("mock-upstream --tap: no command after --");
        return 64;
    };
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mock-upstream --tap: cannot start {program}: {e}");
            return 2;
        }
    };
    rec.event(
        json!({"event": "start", "pid": std::process::id(), "childPid": child.id(), "mode": "tap"}),
    );
    let (Some(mut child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        return 2;
    };
    let rec_out = rec.clone();
    let pump = thread::spawn(move || {
        let mut reader = BufReader::with_capacity(1 << 16, child_out);
        let mut stdout = io::stdout();
        while let Ok(Line::Data(bytes)) = wire::read_line(&mut reader, MAX_LINE) {
            rec_out.raw("out", &bytes);
            if wire::write_line(&mut stdout, &bytes).is_err() {
                break;
            }
        }
    });
    let mut stdin = BufReader::with_capacity(1 << 16, io::stdin());
    while let Ok(Line::Data(bytes)) = wire::read_line(&mut stdin, MAX_LINE) {
        rec.raw("in", &bytes);
        if wire::write_line(&mut child_in, &bytes).is_err() {
            break;
        }
    }
    rec.event(json!({"event": "eof"}));
    drop(child_in);
    let code = child.wait().ok().and_then(|s| s.code()).unwrap_or(1);
    let _ = pump.join();
    let _ = io::stdout().flush();
    rec.event(json!({"event": "exit", "code": code, "reason": "child exited"}));
    code
}
