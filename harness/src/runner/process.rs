//! One adapter process: spawning, bounded I/O, timeouts and killing its whole process group.
//!
//! The harness must survive any adapter. So: the command runs under `sh -c` in its own process
//! group (killing the group leaves no orphans, even if the adapter forked); stdin is written by a
//! thread (an adapter that never reads cannot block the harness); stdout is read by a thread
//! that cuts lines at a byte limit and hands them over a bounded channel (a 100 MB line or an
//! endless stream costs at most the limit); stderr goes into a ring buffer that keeps only the
//! last few KiB as diagnostics. Every wait has a deadline.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::starvation::RunQueueWait;
use crate::protocol::ProtocolError;

/// How many bytes of stderr are kept per process.
pub const STDERR_TAIL_BYTES: usize = 8 * 1024;

/// One event from the stdout reader thread.
#[derive(Debug)]
enum StdoutEvent {
    Line(Vec<u8>),
    TooLong,
    Truncated,
    Eof,
}

/// Why no valid line arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadFailure {
    /// Nothing within the deadline.
    Timeout,
    /// stdout closed (the adapter exited or crashed); carries the exit status if known.
    Exited(Option<String>),
    /// A framing fault (line too long, truncated line).
    Protocol(ProtocolError),
}

/// A running adapter.
#[derive(Debug)]
pub struct AdapterProcess {
    child: Child,
    pgid: Option<u32>,
    stdin_tx: Option<SyncSender<Vec<u8>>>,
    stdout_rx: Receiver<StdoutEvent>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    max_line: usize,
    killed: bool,
}

impl AdapterProcess {
    /// Starts `sh -c <command>` in a new process group.
    pub fn spawn(command: &str, max_line: usize) -> std::io::Result<Self> {
        Self::spawn_with_env(command, max_line, &[])
    }

    /// [`AdapterProcess::spawn`] with extra environment variables.
    pub fn spawn_with_env(
        command: &str,
        max_line: usize,
        env: &[(&str, String)],
    ) -> std::io::Result<Self> {
        let mut cmd = Command::new("sh");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.arg("-c")
            .arg(shell_command(command))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let spawning = super::interrupt::spawning();
        let mut child = cmd.spawn()?;
        let pgid = Some(child.id());
        if let Ok(p) = i32::try_from(child.id()) {
            super::interrupt::register(p);
        }
        drop(spawning);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr_pipe = child.stderr.take();

        let (stdin_tx, stdin_rx) = mpsc::sync_channel::<Vec<u8>>(4);
        if let Some(stdin) = stdin {
            thread::spawn(move || writer(stdin, stdin_rx));
        }
        // Capacity 1: the reader blocks (and with it the adapter, on a full pipe) rather than
        // queueing lines; at most two lines of `max_line` bytes are ever held.
        let (stdout_tx, stdout_rx) = mpsc::sync_channel::<StdoutEvent>(1);
        if let Some(stdout) = stdout {
            thread::spawn(move || reader(stdout, stdout_tx, max_line));
        }
        let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL_BYTES)));
        if let Some(pipe) = stderr_pipe {
            let ring = Arc::clone(&stderr);
            thread::spawn(move || stderr_ring(pipe, ring));
        }
        Ok(Self {
            child,
            pgid,
            stdin_tx: Some(stdin_tx),
            stdout_rx,
            stderr,
            max_line,
            killed: false,
        })
    }

    /// Queues one line for the adapter's stdin. Returns false if the writer is gone
    /// (the adapter closed stdin or exited); the caller still waits for a reply, which will
    /// then report the exit.
    pub fn send(&mut self, line: Vec<u8>, deadline: Instant) -> bool {
        let Some(tx) = &self.stdin_tx else {
            return false;
        };
        // The channel is bounded; try until the deadline so a stuck writer cannot hang us.
        let mut line = line;
        loop {
            match tx.try_send(line) {
                Ok(()) => return true,
                Err(mpsc::TrySendError::Disconnected(_)) => return false,
                Err(mpsc::TrySendError::Full(back)) => {
                    if Instant::now() >= deadline {
                        return false;
                    }
                    line = back;
                    thread::sleep(Duration::from_millis(2));
                }
            }
        }
    }

    /// Waits for the next line for `timeout` of the adapter's own time: time its process group
    /// spent waiting for a CPU is not counted (`super::starvation`), so a loaded machine does
    /// not turn a slow reply into a hang. Also returns how much wait was not counted.
    pub fn recv_line_within(
        &mut self,
        timeout: Duration,
    ) -> (Result<Vec<u8>, ReadFailure>, Duration) {
        let started = Instant::now();
        let wait = self.pgid.map(RunQueueWait::start);
        let mut deadline = started + timeout;
        loop {
            match self.recv_line(deadline) {
                Err(ReadFailure::Timeout) => {
                    match wait.map_or(Err(Duration::ZERO), |w| w.extended(started, timeout)) {
                        Ok(later) => deadline = later,
                        Err(not_counted) => return (Err(ReadFailure::Timeout), not_counted),
                    }
                }
                other => return (other, Duration::ZERO),
            }
        }
    }

    /// Waits for the next line until `deadline`. The adapter's exit is noticed at once even
    /// when a grandchild still holds its stdout open (so no end of file comes): the wait polls
    /// the adapter process, and once it has exited only what it already wrote is read.
    pub fn recv_line(&mut self, deadline: Instant) -> Result<Vec<u8>, ReadFailure> {
        loop {
            let wait = deadline
                .saturating_duration_since(Instant::now())
                .min(EXIT_POLL);
            match self.stdout_rx.recv_timeout(wait) {
                Ok(event) => return self.event(event),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ReadFailure::Exited(
                        self.exit_status(Duration::from_millis(500)),
                    ))
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // Exited: a reply written just before exiting may still be in the pipe or the
                // reader; anything else will never come.
                return match self.stdout_rx.recv_timeout(EXIT_DRAIN) {
                    Ok(StdoutEvent::Eof) | Err(_) => {
                        Err(ReadFailure::Exited(Some(describe_status(status))))
                    }
                    Ok(event) => self.event(event),
                };
            }
            if Instant::now() >= deadline {
                return Err(ReadFailure::Timeout);
            }
        }
    }

    fn event(&mut self, event: StdoutEvent) -> Result<Vec<u8>, ReadFailure> {
        match event {
            StdoutEvent::Line(line) => Ok(line),
            StdoutEvent::TooLong => Err(ReadFailure::Protocol(ProtocolError::LineTooLong {
                limit: self.max_line,
            })),
            StdoutEvent::Truncated => Err(ReadFailure::Protocol(ProtocolError::TruncatedLine)),
            StdoutEvent::Eof => Err(ReadFailure::Exited(
                self.exit_status(Duration::from_millis(500)),
            )),
        }
    }

    fn exit_status(&mut self, grace: Duration) -> Option<String> {
        let until = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(describe_status(status)),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
                _ => return None,
            }
        }
    }

    /// The last [`STDERR_TAIL_BYTES`] of stderr, lossily decoded.
    pub fn stderr_tail(&self) -> String {
        // Give the stderr thread a moment to drain what a crashing process wrote last.
        thread::sleep(Duration::from_millis(20));
        match self.stderr.lock() {
            Ok(ring) => {
                let (a, b) = ring.as_slices();
                let mut bytes = Vec::with_capacity(a.len() + b.len());
                bytes.extend_from_slice(a);
                bytes.extend_from_slice(b);
                String::from_utf8_lossy(&bytes).into_owned()
            }
            Err(_) => String::new(),
        }
    }

    /// Closes stdin, gives the process `grace` to exit, then kills its process group.
    pub fn shutdown(&mut self, grace: Duration) {
        self.stdin_tx = None;
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    /// Kills the whole process group (SIGKILL) and reaps the child.
    pub fn kill(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        self.stdin_tx = None;
        #[cfg(unix)]
        if let Some(pid) = self.pgid.and_then(|p| i32::try_from(p).ok()) {
            if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                // The group may already be gone; that is fine.
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Ok(p) = i32::try_from(self.child.id()) {
            super::interrupt::unregister(p);
        }
        // Descendants that left the group were re-parented to us (when a subreaper).
        super::interrupt::sweep_orphans();
    }

    /// The OS process id (also the process-group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for AdapterProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How often a wait for a reply checks whether the adapter is still running.
const EXIT_POLL: Duration = Duration::from_millis(50);
/// After the adapter exited: how long a reply it wrote before exiting may take to be read.
const EXIT_DRAIN: Duration = Duration::from_millis(250);

/// The script given to `sh -c`: `exec <command>` when the command is one simple command (so
/// the adapter replaces the shell, is the process the harness watches, and no shell holds its
/// stdout), else the command as it is (`a && b`, `cd x; y`, `VAR=1 cmd`, builtins, …), whose
/// shell then exits when its last command does.
pub fn shell_command(command: &str) -> String {
    let t = command.trim();
    let first = t.split_whitespace().next().unwrap_or_default();
    let compound = t.contains([';', '&', '|', '\n', '(', ')', '{', '}'])
        || first.contains('=')
        || matches!(
            first,
            "exec"
                | "exit"
                | "cd"
                | "export"
                | "set"
                | "unset"
                | "eval"
                | "."
                | "source"
                | "if"
                | "for"
                | "while"
                | "until"
                | "case"
                | "!"
                | "trap"
                | "ulimit"
                | "umask"
                | "readonly"
                | "shift"
                | "wait"
                | "return"
                | "break"
                | "continue"
                | "alias"
                | "local"
                | "read"
                | "command"
                | "times"
                | "type"
                | "hash"
        );
    if compound || t.is_empty() {
        command.to_owned()
    } else {
        format!("exec {t}")
    }
}

fn describe_status(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return format!("killed by signal {sig}");
        }
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "exited".to_owned(),
    }
}

fn writer(mut stdin: ChildStdin, rx: Receiver<Vec<u8>>) {
    for line in rx {
        if stdin.write_all(&line).is_err() || stdin.flush().is_err() {
            return;
        }
    }
}

fn reader(stdout: impl Read, tx: SyncSender<StdoutEvent>, max_line: usize) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line: Vec<u8> = Vec::new();
    let mut overflow = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if buf.is_empty() {
            break;
        }
        let (chunk, found_newline) = match memchr_newline(buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if !overflow {
            if line.len() + chunk.len() > max_line {
                // Report at once (the runner kills the adapter), then discard the rest of the
                // line so memory stays bounded by `max_line` whatever the adapter writes.
                overflow = true;
                line = Vec::new();
                if tx.send(StdoutEvent::TooLong).is_err() {
                    return;
                }
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = chunk.len() + usize::from(found_newline);
        reader.consume(consumed);
        if found_newline {
            if !overflow
                && tx
                    .send(StdoutEvent::Line(std::mem::take(&mut line)))
                    .is_err()
            {
                return;
            }
            overflow = false;
        }
    }
    let last = if !overflow && !line.is_empty() {
        Some(StdoutEvent::Truncated)
    } else {
        None
    };
    if let Some(event) = last {
        if tx.send(event).is_err() {
            return;
        }
    }
    let _ = tx.send(StdoutEvent::Eof);
}

fn memchr_newline(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|b| *b == b'\n')
}

fn stderr_ring(mut pipe: impl Read, ring: Arc<Mutex<VecDeque<u8>>>) {
    let mut buf = [0u8; 4096];
    loop {
        let n = match pipe.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        let Ok(mut ring) = ring.lock() else { return };
        for b in &buf[..n] {
            if ring.len() == STDERR_TAIL_BYTES {
                ring.pop_front();
            }
            ring.push_back(*b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::shell_command;

    #[test]
    fn simple_commands_are_execed_compound_ones_are_not() {
        assert_eq!(shell_command("python3 -u a.py"), "exec python3 -u a.py");
        assert_eq!(shell_command("./x 2>/dev/null"), "exec ./x 2>/dev/null");
        for c in [
            "cd x && ./a",
            "a; b",
            "FOO=1 a",
            "exit 1",
            "a | b",
            "exec a",
        ] {
            assert_eq!(shell_command(c), c);
        }
    }
}
