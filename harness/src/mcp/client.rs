//! A raw JSON-RPC client that drives a proxy under test over stdio.
//!
//! It sends exact bytes (so cases can send malformed lines and `_delegateos`), keeps every line
//! the proxy wrote, and flags any stdout line that is not JSON (`MCP-STDOUT-CLEAN`). The proxy
//! runs in its own process group, which `Drop` kills, so no case leaks processes.

use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::http_client::{Delivery, HttpLink};
use super::wire::{self, Line, MAX_LINE};
use crate::runner::starvation::RunQueueWait;

/// Kept proxy stderr (diagnostics), at most this many bytes.
const STDERR_CAP: usize = 64 * 1024;

enum Event {
    Line(Vec<u8>),
    /// Something the proxy sent that is not a message (HTTP mode).
    Garbage(String),
    Eof,
}

/// A running proxy under test.
#[derive(Debug)]
pub struct ProxyProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Event>,
    backlog: Vec<Value>,
    eof: bool,
    /// Stdout lines that were not JSON (each is a `MCP-STDOUT-CLEAN` violation).
    pub garbage: Vec<String>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Set when the proxy's stderr reached EOF (everything it wrote is in `stderr`).
    stderr_closed: Arc<std::sync::atomic::AtomicBool>,
    /// HTTP mode: the Streamable HTTP session (messages go out as POSTs).
    pub http: Option<HttpLink>,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Line(b) => write!(f, "Line({} bytes)", b.len()),
            Event::Garbage(g) => write!(f, "Garbage({g})"),
            Event::Eof => write!(f, "Eof"),
        }
    }
}

impl ProxyProcess {
    /// Starts `template` through `sh -c` with `{config}` replaced by `config`.
    pub fn spawn(template: &str, config: &Path) -> Result<Self, String> {
        Self::spawn_with(template, config, false)
    }

    /// Starts the proxy in HTTP mode: its first stdout line is its endpoint URL (waited for up
    /// to 15 s); messages then go out as POSTs and come back as JSON bodies or SSE events.
    /// Any later stdout line is a violation.
    pub fn spawn_http(template: &str, config: &Path) -> Result<Self, String> {
        Self::spawn_with(template, config, true)
    }

    fn spawn_with(template: &str, config: &Path, http: bool) -> Result<Self, String> {
        let quoted = shell_quote(&config.to_string_lossy());
        let command = template.replace("{config}", &quoted);
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("exec {command}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let spawning = crate::runner::interrupt::spawning();
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start proxy: {e}"))?;
        // Killed with every other group the harness started on SIGINT/SIGTERM/SIGHUP; a
        // signal that came before the registration still reaches it.
        let pgid = i32::try_from(child.id()).unwrap_or(0);
        crate::runner::interrupt::register(pgid);
        drop(spawning);
        if crate::runner::interrupt::interrupted().is_some() {
            if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
        }
        let stdout = child.stdout.take().ok_or("no proxy stdout")?;
        let stderr_pipe = child.stderr.take().ok_or("no proxy stderr")?;
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        let (url_tx, url_rx) = mpsc::channel::<Option<String>>();
        let events = tx.clone();
        thread::spawn(move || {
            let mut reader = BufReader::with_capacity(1 << 16, stdout);
            if http {
                let first = match wire::read_line(&mut reader, 64 * 1024) {
                    Ok(Line::Data(b)) => Some(String::from_utf8_lossy(&b).trim().to_owned()),
                    _ => None,
                };
                let _ = url_tx.send(first);
            }
            loop {
                match wire::read_line(&mut reader, MAX_LINE) {
                    Ok(Line::Data(b)) if http => {
                        let shown: String = String::from_utf8_lossy(&b).chars().take(200).collect();
                        let _ = tx.send(Event::Garbage(format!(
                            "stdout after the URL line: {shown}"
                        )));
                    }
                    Ok(Line::Data(b)) => {
                        if tx.send(Event::Line(b)).is_err() {
                            return;
                        }
                    }
                    Ok(Line::TooLong) => {
                        let _ = tx.send(Event::Line(b"<line longer than 64 MiB>".to_vec()));
                    }
                    Ok(Line::Eof) | Err(_) => {
                        let _ = tx.send(Event::Eof);
                        return;
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&stderr);
        let stderr_closed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let closed = Arc::clone(&stderr_closed);
        thread::spawn(move || {
            let mut pipe = stderr_pipe;
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut kept = sink.lock().unwrap_or_else(|e| e.into_inner());
                let room = STDERR_CAP.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
            }
            closed.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        let mut proxy = ProxyProcess {
            child,
            stdin,
            rx,
            backlog: Vec::new(),
            eof: false,
            garbage: Vec::new(),
            stderr,
            stderr_closed,
            http: None,
        };
        if http {
            let url = match url_rx.recv_timeout(Duration::from_secs(15)) {
                Ok(Some(u)) if u.starts_with("http://") => u,
                Ok(Some(u)) => {
                    return Err(format!(
                        "the proxy's first stdout line is not an http:// URL: {u:?}"
                    ))
                }
                Ok(None) | Err(RecvTimeoutError::Disconnected) => {
                    return Err("the proxy closed stdout without printing its URL".into())
                }
                Err(RecvTimeoutError::Timeout) => {
                    return Err("the proxy printed no URL within 15 s".into())
                }
            };
            let deliver = move |d: Delivery| {
                let _ = events.send(match d {
                    Delivery::Message(b) => Event::Line(b),
                    Delivery::Violation(v) => Event::Garbage(v),
                });
            };
            proxy.http = Some(HttpLink::new(url, deliver));
        }
        Ok(proxy)
    }

    /// The proxy's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the proxy wrote to stderr (truncated).
    pub fn stderr_text(&self) -> String {
        let kept = self.stderr.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&kept).into_owned()
    }

    /// What the proxy wrote to stderr, after waiting up to `timeout` for it to close its
    /// stderr (so a proxy that exited is reported with its last words).
    pub fn stderr_text_settled(&self, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        while !self.stderr_closed.load(std::sync::atomic::Ordering::SeqCst)
            && Instant::now() < deadline
        {
            thread::sleep(Duration::from_millis(10));
        }
        self.stderr_text()
    }

    /// Writes `bytes` plus `\n` (HTTP mode: POSTs `bytes`).
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), String> {
        if let Some(link) = &self.http {
            return link.send(bytes);
        }
        let stdin = self.stdin.as_mut().ok_or("proxy stdin already closed")?;
        wire::write_line(stdin, bytes).map_err(|e| format!("writing to the proxy failed: {e}"))
    }

    /// Writes one message.
    pub fn send(&mut self, msg: &Value) -> Result<(), String> {
        self.send_raw(serde_json::to_string(msg).unwrap_or_default().as_bytes())
    }

    /// Writes bytes without a newline (partial lines).
    pub fn send_partial(&mut self, bytes: &[u8]) -> Result<(), String> {
        if self.http.is_some() {
            return Err("harness: partial writes are a stdio-only check".into());
        }
        let stdin = self.stdin.as_mut().ok_or("proxy stdin already closed")?;
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("writing to the proxy failed: {e}"))
    }

    /// Closes the proxy's stdin (client EOF).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Receives the next message from the wire (not the backlog) within `timeout`.
    fn pull(&mut self, deadline: Instant) -> Option<Value> {
        loop {
            if self.eof {
                return None;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(Event::Line(bytes)) => match serde_json::from_slice::<Value>(&bytes) {
                    Ok(v) => return Some(v),
                    Err(_) => {
                        let shown: String =
                            String::from_utf8_lossy(&bytes).chars().take(200).collect();
                        self.garbage.push(shown);
                    }
                },
                Ok(Event::Garbage(g)) => self.garbage.push(g),
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => {
                    self.eof = true;
                    return None;
                }
                Err(RecvTimeoutError::Timeout) => return None,
            }
        }
    }

    /// Next message (backlog first) within `timeout`.
    pub fn next(&mut self, timeout: Duration) -> Option<Value> {
        if !self.backlog.is_empty() {
            return Some(self.backlog.remove(0));
        }
        self.pull(Instant::now() + timeout)
    }

    /// Waits for the response (a message without `method`) whose id equals `id`, keeping
    /// everything else in the backlog.
    pub fn response(&mut self, id: &Value, timeout: Duration) -> Result<Value, String> {
        if let Some(pos) = self.backlog.iter().position(|m| is_response_to(m, id)) {
            return Ok(self.backlog.remove(pos));
        }
        // Time the proxy (or the harness) waited for a CPU does not count (`starvation`).
        let started = Instant::now();
        let wait = RunQueueWait::start(self.child.id());
        let mut deadline = started + timeout;
        loop {
            match self.pull(deadline) {
                Some(m) if is_response_to(&m, id) => return Ok(m),
                Some(m) => self.backlog.push(m),
                None if self.eof => {
                    return Err(format!("proxy closed stdout before answering id {id}"))
                }
                None => match wait.extended(started, timeout) {
                    Ok(later) => deadline = later,
                    Err(not_counted) if not_counted.is_zero() => {
                        return Err(format!("no response to id {id} within {timeout:?}"))
                    }
                    Err(not_counted) => return Err(format!(
                        "no response to id {id} within {timeout:?} of the proxy's time ({not_counted:?} more spent waiting for a CPU were not counted)"
                    )),
                },
            }
        }
    }

    /// Everything received within `window` (backlog included).
    pub fn drain(&mut self, window: Duration) -> Vec<Value> {
        let mut out = std::mem::take(&mut self.backlog);
        let deadline = Instant::now() + window;
        while let Some(m) = self.pull(deadline) {
            out.push(m);
        }
        out
    }

    /// Receives into the backlog whatever arrives within `window`.
    pub fn gather(&mut self, window: Duration) {
        let deadline = Instant::now() + window;
        while let Some(m) = self.pull(deadline) {
            self.backlog.push(m);
        }
    }

    /// Takes the backlog's messages that `matches` selects, in the order received.
    pub fn take_matching(&mut self, matches: impl Fn(&Value) -> bool) -> Vec<Value> {
        let (taken, kept) = std::mem::take(&mut self.backlog)
            .into_iter()
            .partition(|m| matches(m));
        self.backlog = kept;
        taken
    }

    /// Takes the backlog (messages received but not claimed by [`Self::response`]).
    pub fn take_backlog(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.backlog)
    }

    /// Whether the proxy closed its stdout.
    pub fn saw_eof(&self) -> bool {
        self.eof
    }

    /// Waits for the proxy to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(Duration::from_millis(10));
        }
    }

    /// Sends SIGTERM to the proxy process (not its group).
    pub fn terminate(&self) {
        signal_pid(self.child.id(), rustix::process::Signal::TERM);
    }
}

impl Drop for ProxyProcess {
    fn drop(&mut self) {
        self.stdin = None;
        let pgid = i32::try_from(self.child.id()).unwrap_or(0);
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        crate::runner::interrupt::unregister(pgid);
    }
}

fn is_response_to(msg: &Value, id: &Value) -> bool {
    msg.get("method").is_none() && msg.get("id") == Some(id)
}

/// Sends `sig` to one process.
pub fn signal_pid(pid: u32, sig: rustix::process::Signal) {
    if let Some(pid) = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap_or(0)) {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// Whether `pid` is a live (non-zombie) process.
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => !matches!(
            crate::runner::procfs::field(&stat, 0),
            Some("Z" | "X") | None
        ),
    }
}

/// Single-quotes `s` for `sh`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
