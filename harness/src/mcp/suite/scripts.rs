//! Session scripts (`mcp.session`, `spec/mcp-proxy.md` §6.1–§6.2) against a running proxy.
//!
//! Every corpus case of operation `mcp.session` becomes one suite case named by its vector id.
//! The proxy is launched with the case's `config` and the mock upstream in *puppet* mode: the
//! puppet answers nothing by itself and writes exactly what the harness sends it over a Unix
//! socket (acknowledged per message). The harness performs the handshake (telling the puppet to
//! answer `initialize`), then plays the steps in order: a `client` message is sent to the
//! proxy, an `upstream` message is written by the puppet, and the step's expected `toClient`
//! messages (as the client received them, `error.data.detail` removed) and `toUpstream`
//! messages (as the puppet recorded them, parsed) must arrive, in order, before the case
//! deadline; `spent` steps are skipped. After client EOF, any further message to either side
//! is a failure. For an `acceptable` expectation the proxy passes when it follows any listed
//! valid outcome (candidates are narrowed step by step).
//!
//! Verdicts never depend on machine speed: a step waits for its messages (or for the first
//! message that cannot belong to any candidate), never for a fixed time. A step that expects
//! nothing is not waited for: the next step follows at once.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use delegateos_vectors::corpus::CorpusSource;
use delegateos_vectors::format::{Case as VectorCase, Expected};

use super::context::Ctx;
use super::judge::short;
use super::session::{Session, Setup};
use crate::mcp::config::Transport;

/// The operation whose cases are session scripts.
pub const SESSION_OP: &str = "mcp.session";

/// One session-script case, ready to run.
#[derive(Debug, Clone)]
pub struct ScriptCase {
    /// The vector id (`mcp-session-0001`).
    pub id: String,
    /// The vector's description.
    pub description: String,
    /// The vector's requirement ids.
    pub requirements: Vec<String>,
    /// `input.config` (launch config without `version` and `upstream`).
    pub config: Value,
    /// `input.steps`.
    pub steps: Vec<Value>,
    /// The expected `output.steps` of every valid outcome (one unless `acceptable`).
    pub outcomes: Vec<Vec<Value>>,
}

/// The session-script cases among `cases` (other operations are ignored).
pub fn from_vector_cases<'a>(cases: impl IntoIterator<Item = &'a VectorCase>) -> Vec<ScriptCase> {
    cases
        .into_iter()
        .filter(|c| c.op == SESSION_OP)
        .map(|c| ScriptCase {
            id: c.id.clone(),
            description: c.description.clone(),
            requirements: c.requirements.clone(),
            config: c.input.get("config").cloned().unwrap_or(Value::Null),
            steps: c
                .input
                .get("steps")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            outcomes: c
                .expect
                .outcomes()
                .into_iter()
                .filter_map(|o| match o {
                    Expected::Valid { output } => {
                        output.get("steps").and_then(Value::as_array).cloned()
                    }
                    Expected::Invalid { .. } => None,
                })
                .collect(),
        })
        .collect()
}

/// The session-script cases of the embedded corpus (`dir` = None) or of every vector file
/// under `dir`.
pub fn load(dir: Option<&Path>) -> Result<Vec<ScriptCase>, String> {
    let source = CorpusSource::from_option(dir);
    let files = source.load().map_err(|errors| {
        let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
        format!(
            "cannot load the session vectors of {}:\n{}",
            source.label(),
            text.join("")
        )
    })?;
    Ok(from_vector_cases(files.iter().flat_map(|f| &f.file.cases)))
}

// ---------------------------------------------------------------------------------------
// The puppet's control channel
// ---------------------------------------------------------------------------------------

/// The harness side of the puppet's Unix socket.
struct Puppet {
    listener: UnixListener,
    path: PathBuf,
    conn: Option<(UnixStream, BufReader<UnixStream>)>,
}

impl Puppet {
    fn bind(dir: &Path) -> Result<Self, String> {
        let path = dir.join("puppet.sock");
        let listener = UnixListener::bind(&path).map_err(|e| {
            format!(
                "harness: cannot listen on {} ({e}); a shorter TMPDIR helps",
                path.display()
            )
        })?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("harness: {e}"))?;
        Ok(Puppet {
            listener,
            path,
            conn: None,
        })
    }

    /// The connected puppet (accepted on first use, within `deadline`).
    fn conn(
        &mut self,
        deadline: Instant,
    ) -> Result<&mut (UnixStream, BufReader<UnixStream>), String> {
        if self.conn.is_none() {
            let stream = loop {
                match self.listener.accept() {
                    Ok((s, _)) => break s,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if Instant::now() >= deadline {
                            return Err("the proxy never started its upstream (the puppet mock did not connect)".into());
                        }
                        thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => return Err(format!("harness: accepting the puppet failed: {e}")),
                }
            };
            let setup = |s: &UnixStream| {
                s.set_nonblocking(false)?;
                s.set_read_timeout(Some(Duration::from_millis(100)))
            };
            setup(&stream).map_err(|e| format!("harness: {e}"))?;
            let reader = BufReader::new(stream.try_clone().map_err(|e| format!("harness: {e}"))?);
            self.conn = Some((stream, reader));
        }
        self.conn
            .as_mut()
            .ok_or_else(|| "harness: no puppet".to_owned())
    }

    /// Makes the upstream write `msg`; returns once the puppet has written and flushed it.
    fn write(&mut self, msg: &Value, deadline: Instant) -> Result<(), String> {
        let (stream, reader) = self.conn(deadline)?;
        let mut line = serde_json::to_vec(msg).unwrap_or_default();
        line.push(b'\n');
        stream
            .write_all(&line)
            .and_then(|()| stream.flush())
            .map_err(|e| format!("the upstream (puppet) is gone: {e}"))?;
        let mut ack = String::new();
        loop {
            match reader.read_line(&mut ack) {
                Ok(0) => return Err("the upstream (puppet) exited before writing a message".into()),
                Ok(_) if ack.ends_with('\n') => break,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if Instant::now() >= deadline {
                        return Err("the upstream (puppet) did not acknowledge a message before the deadline".into());
                    }
                }
                Err(e) => return Err(format!("the upstream (puppet) is gone: {e}")),
            }
        }
        match ack.trim_end() {
            "ok" => Ok(()),
            other => Err(format!("harness: the puppet refused a message: {other}")),
        }
    }
}

impl Drop for Puppet {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

// ---------------------------------------------------------------------------------------
// Running one case
// ---------------------------------------------------------------------------------------

fn setup_from(config: &Value) -> Result<Setup, String> {
    let bad = |what: &str| format!("harness: malformed session vector: config.{what}");
    let mut setup = Setup::standard();
    setup.script = json!({});
    setup.trusted_roots = match config.get("trustedRoots") {
        None => Vec::new(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|_| bad("trustedRoots"))?,
    };
    setup.tools = config.get("tools").cloned().unwrap_or_else(|| json!({}));
    setup.revocations = match config.get("revocations") {
        None => Vec::new(),
        Some(v) => v.as_array().cloned().ok_or_else(|| bad("revocations"))?,
    };
    setup.spend_per_call = match config.get("spendPerCall") {
        None => 0,
        Some(v) => v.as_u64().ok_or_else(|| bad("spendPerCall"))?,
    };
    setup.strict = match config.get("strict") {
        None => false,
        Some(v) => v.as_bool().ok_or_else(|| bad("strict"))?,
    };
    setup.session_token = config.get("sessionToken").cloned();
    Ok(setup)
}

/// What one step does and expects, per candidate outcome.
enum Step<'a> {
    Client(&'a Value),
    Upstream(&'a Value),
    Spent,
}

fn parse_step(step: &Value) -> Result<Step<'_>, String> {
    let obj = step.as_object().filter(|o| o.len() == 1);
    match obj.and_then(|o| o.iter().next()) {
        Some((k, v)) if k == "client" => Ok(Step::Client(v)),
        Some((k, v)) if k == "upstream" => Ok(Step::Upstream(v)),
        Some((k, _)) if k == "spent" => Ok(Step::Spent),
        _ => Err(format!(
            "harness: malformed session vector: a step must have exactly one of client, upstream, spent: {}",
            short(step)
        )),
    }
}

/// `error.data.detail` removed (free text is never compared, §6.1).
fn without_detail(mut msg: Value) -> Value {
    if let Some(data) = msg
        .get_mut("error")
        .and_then(|e| e.get_mut("data"))
        .and_then(Value::as_object_mut)
    {
        data.remove("detail");
    }
    msg
}

fn expected_list(entry: &Value, member: &str, client: bool) -> Result<Vec<Value>, String> {
    let list = entry.get(member).and_then(Value::as_array).ok_or_else(|| {
        format!("harness: malformed session vector: an output step has no {member} list")
    })?;
    Ok(list
        .iter()
        .cloned()
        .map(|m| if client { without_detail(m) } else { m })
        .collect())
}

/// The expected (toClient, toUpstream) of step `i` in every candidate outcome.
fn expectations(case: &ScriptCase, i: usize) -> Result<Vec<(Vec<Value>, Vec<Value>)>, String> {
    case.outcomes
        .iter()
        .map(|steps| {
            let entry = steps.get(i).ok_or_else(|| {
                format!(
                    "harness: malformed session vector: an outcome has {} steps, the input {}",
                    steps.len(),
                    case.steps.len()
                )
            })?;
            Ok((
                expected_list(entry, "toClient", true)?,
                expected_list(entry, "toUpstream", false)?,
            ))
        })
        .collect()
}

fn list(msgs: &[Value]) -> String {
    if msgs.is_empty() {
        return "nothing".into();
    }
    msgs.iter().map(short).collect::<Vec<_>>().join(", ")
}

/// Both sides of a running session script: the proxy (client side) and the puppet's record.
struct Wire {
    session: Session,
    /// Every message the client received after the handshake (`detail` removed).
    client: Vec<Value>,
    /// Index of the first upstream `in` event after the handshake.
    upstream_base: usize,
}

impl Wire {
    fn upstream(&self) -> Vec<Value> {
        self.session
            .upstream_msgs()
            .into_iter()
            .skip(self.upstream_base)
            .collect()
    }

    /// Waits for the next client message until `until` (at most 10 ms at a time).
    fn pull_client(&mut self, until: Instant) {
        let slice = until
            .saturating_duration_since(Instant::now())
            .min(Duration::from_millis(10));
        if let Some(m) = self.session.proxy.next(slice) {
            self.client.push(without_detail(m));
        }
    }
}

/// Runs one session-script case.
pub(super) fn run(ctx: &Ctx, case: &ScriptCase) -> Result<(), String> {
    if case.outcomes.is_empty() {
        return Err("harness: malformed session vector: no valid outcome to compare with".into());
    }
    // The step deadline leaves room to report which step was missing before the case
    // deadline turns the case into `errored`.
    let margin = (ctx.opts.case_timeout / 10).min(Duration::from_secs(5));
    let deadline = Instant::now() + ctx.opts.case_timeout.saturating_sub(margin);
    let n = ctx.counter.fetch_add(1, Ordering::SeqCst);
    let dir = ctx.dir.join(format!("p{n}"));
    std::fs::create_dir_all(&dir).map_err(|e| format!("harness: {e}"))?;
    let mut puppet = Puppet::bind(&dir)?;
    let mut setup = setup_from(&case.config)?;
    setup.puppet = Some(puppet.path.clone());
    let session = Session::start(ctx, &setup)?;
    let mut wire = Wire {
        session,
        client: Vec::new(),
        upstream_base: 0,
    };
    let result = play(&mut wire, &mut puppet, case, deadline);
    wire.session.save_stderr();
    finish(wire, result?, deadline)
}

/// The legacy handshake with the puppet answering `initialize`.
fn handshake(w: &mut Wire, puppet: &mut Puppet, deadline: Instant) -> Result<(), String> {
    let s = &mut w.session;
    let init_id = json!("init");
    s.send(
        &json!({"jsonrpc": "2.0", "id": init_id, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {"listChanged": true}},
            "clientInfo": {"name": "delegateos-conform", "version": env!("CARGO_PKG_VERSION")},
        }}),
    )?;
    let forwarded = wait_upstream(s, 1, deadline, "initialize")?;
    let upstream_id = forwarded[0].get("id").cloned().unwrap_or(Value::Null);
    if forwarded[0].get("method") != Some(&json!("initialize")) {
        return Err(format!(
            "handshake: the upstream received {} instead of initialize",
            short(&forwarded[0])
        ));
    }
    puppet.write(
        &json!({"jsonrpc": "2.0", "id": upstream_id, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {"listChanged": true}, "resources": {}, "prompts": {}, "logging": {}},
            "serverInfo": {"name": "delegateos-mock-upstream", "version": env!("CARGO_PKG_VERSION")},
        }}),
        deadline,
    )?;
    let left = deadline.saturating_duration_since(Instant::now());
    s.proxy
        .response(&init_id, left)
        .map_err(|e| format!("handshake: {e}"))?;
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
    let up = wait_upstream(s, 2, deadline, "notifications/initialized")?;
    if up[1].get("method") != Some(&json!("notifications/initialized")) {
        return Err(format!(
            "handshake: the upstream received {} instead of notifications/initialized",
            short(&up[1])
        ));
    }
    let early = s.proxy.take_backlog();
    if let Some(m) = early.first() {
        return Err(format!(
            "handshake: the client received an unexpected message: {}",
            short(m)
        ));
    }
    w.upstream_base = 2;
    Ok(())
}

/// Waits until the upstream has received at least `n` messages; returns them.
fn wait_upstream(
    s: &mut Session,
    n: usize,
    deadline: Instant,
    what: &str,
) -> Result<Vec<Value>, String> {
    loop {
        let up = s.upstream_msgs();
        if up.len() >= n {
            return Ok(up);
        }
        if Instant::now() >= deadline {
            return Err(format!("handshake: {what} never reached the upstream"));
        }
        if s.proxy.saw_eof() {
            return Err(format!(
                "handshake: the proxy closed stdout before {what} reached the upstream"
            ));
        }
        // Waiting on the client side also notices a proxy that exits.
        if let Some(m) = s.proxy.next(Duration::from_millis(10)) {
            return Err(format!(
                "handshake: the client received {} before {what} reached the upstream",
                short(&m)
            ));
        }
    }
}

/// Plays the steps; returns how many client and upstream messages they accounted for.
fn play(
    w: &mut Wire,
    puppet: &mut Puppet,
    case: &ScriptCase,
    deadline: Instant,
) -> Result<(usize, usize), String> {
    handshake(w, puppet, deadline)?;
    let total = case.steps.len();
    let mut candidates: Vec<usize> = (0..case.outcomes.len()).collect();
    // What earlier steps accounted for, counted before this step's input leaves (a fast
    // proxy may answer before the harness looks).
    let (mut c0, mut u0) = (w.client.len(), w.upstream().len());
    for (i, raw_step) in case.steps.iter().enumerate() {
        let step = parse_step(raw_step)?;
        let what = match step {
            Step::Spent => continue,
            Step::Client(msg) => {
                w.session.send(msg)?;
                format!("client → proxy: {}", short(msg))
            }
            Step::Upstream(msg) => {
                puppet.write(msg, deadline)?;
                format!("upstream → proxy: {}", short(msg))
            }
        };
        let expected = expectations(case, i)?;
        loop {
            let up = w.upstream();
            let got_c = &w.client[c0..];
            let got_u = &up[u0.min(up.len())..];
            let fits = |k: &usize| {
                let (ec, eu) = &expected[*k];
                ec.starts_with(got_c) && eu.starts_with(got_u)
            };
            let complete: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|k| expected[*k].0 == got_c && expected[*k].1 == got_u)
                .collect();
            if !complete.is_empty() {
                candidates = complete;
                (c0, u0) = (w.client.len(), up.len());
                break;
            }
            let still: Vec<usize> = candidates.iter().copied().filter(fits).collect();
            let failure = if still.is_empty() {
                Some("")
            } else if Instant::now() >= deadline {
                Some(" by the deadline")
            } else if w.session.proxy.saw_eof() {
                Some(" (the proxy closed stdout)")
            } else {
                None
            };
            if let Some(when) = failure {
                let (ec, eu) = &expected[candidates[0]];
                let alternatives = if candidates.len() > 1 {
                    format!(
                        " (or one of {} other acceptable outcomes)",
                        candidates.len() - 1
                    )
                } else {
                    String::new()
                };
                return Err(format!(
                    "step {} of {total} ({what}): expected toClient [{}] and toUpstream [{}]{alternatives}; arrived{when} toClient [{}] and toUpstream [{}]",
                    i + 1,
                    list(ec),
                    list(eu),
                    list(got_c),
                    list(got_u),
                ));
            }
            candidates = still;
            w.pull_client(deadline);
        }
    }
    Ok((c0, u0))
}

/// Client EOF (HTTP: DELETE first); then nothing more may reach either side, the proxy exits
/// within 5 s, the upstream is gone, stdout stayed clean.
fn finish(
    mut w: Wire,
    (client_seen, upstream_seen): (usize, usize),
    deadline: Instant,
) -> Result<(), String> {
    let s = &mut w.session;
    if let Some(link) = &s.proxy.http {
        let status = link.delete()?;
        if !(200..300).contains(&status) {
            return Err(format!("DELETE of the session answered HTTP {status}"));
        }
    }
    s.proxy.close_stdin();
    let exited = s.proxy.wait_exit(Duration::from_secs(5)).is_some();
    // After the proxy exited its stdout ends: everything it still delivered is here.
    let window = deadline
        .saturating_duration_since(Instant::now())
        .min(Duration::from_secs(2));
    let rest: Vec<Value> = s
        .proxy
        .drain(window)
        .into_iter()
        .map(without_detail)
        .collect();
    s.save_stderr();
    let mut extra_client: Vec<Value> = w.client[client_seen..].to_vec();
    extra_client.extend(rest);
    if !extra_client.is_empty() {
        return Err(format!(
            "after the last step the client received {} unexpected message(s): {}",
            extra_client.len(),
            list(&extra_client)
        ));
    }
    let up = w.upstream();
    if up.len() > upstream_seen {
        return Err(format!(
            "after the last step the upstream received {} unexpected message(s): {}",
            up.len() - upstream_seen,
            list(&up[upstream_seen..])
        ));
    }
    let s = &w.session;
    s.check_clean()?;
    if !exited {
        return Err("the proxy did not exit within 5 s of client EOF".into());
    }
    s.assert_upstream_gone(Duration::from_secs(1))
}

/// Why a session case does not run on `transport`, if it does not.
pub(super) fn skip_reason(transport: Transport) -> Option<&'static str> {
    match transport {
        Transport::Stdio | Transport::Http => None,
    }
}
