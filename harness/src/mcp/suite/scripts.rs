//! Session scripts (`mcp.session`, `spec/mcp-proxy.md` §6.1–§6.2) against a running proxy.
//!
//! Every corpus case of operation `mcp.session` becomes one suite case named by its vector id.
//! The proxy is launched with the case's `config` and the mock upstream in *puppet* mode: the
//! puppet answers nothing by itself and writes exactly what the harness sends it over a Unix
//! socket (acknowledged per message). The harness performs the handshake (telling the puppet to
//! answer `initialize`), then plays the steps in order: a `client` message is sent to the
//! proxy, an `upstream` message is written by the puppet, and the step's expected `toClient`
//! messages (as the client received them, normalized as §6.1 says: a denial's `error.data`
//! reduced to `type`, any other error without `error.data.detail`) and `toUpstream`
//! messages (as the puppet recorded them, parsed) must arrive, in order, before the case
//! deadline; `spent` steps are skipped. After client EOF, any further message to either side
//! is a failure. For an `acceptable` expectation the proxy passes when it follows any listed
//! valid outcome (candidates are narrowed step by step).
//!
//! Verdicts never depend on machine speed: a step waits for its messages (or for the first
//! message that cannot belong to any candidate), never for a fixed time. A step that expects
//! nothing is not waited for: the next step follows at once.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use delegateos_vectors::corpus::CorpusSource;
use delegateos_vectors::format::{Case as VectorCase, Expected};

use super::context::Ctx;
use super::judge::short;
use super::session::{Session, Setup};
use crate::mcp::puppet::Puppet;

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
    /// The options the script needs (the vector's `options`, e.g. `strict-mode`).
    pub options: Vec<String>,
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
            options: c.options.clone(),
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

/// A client-bound message as §6.1 compares it: in a -32001 denial `error.data` is reduced to
/// its `type` (the denial bodies are `mcp.call`'s cases), in any other error the free-text
/// `error.data.detail` is removed.
fn normalized(mut msg: Value) -> Value {
    let denial = msg.pointer("/error/code") == Some(&json!(-32001));
    if let Some(data) = msg
        .pointer_mut("/error/data")
        .and_then(Value::as_object_mut)
    {
        if denial {
            data.retain(|k, _| k == "type");
        } else {
            data.remove("detail");
        }
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
        .map(|m| if client { normalized(m) } else { m })
        .collect())
}

/// Expected messages of one step (or, for `deferred`, of the case so far).
struct Expect {
    /// To the client, in this step.
    client: Vec<Value>,
    /// To the upstream, in this step.
    upstream: Vec<Value>,
    /// HTTP: server-initiated messages to the client so far, in order.
    deferred: Vec<Value>,
}

/// The expected toClient and toUpstream of step `i` in every candidate outcome.
fn expectations(case: &ScriptCase, i: usize) -> Result<Vec<Expect>, String> {
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
            Ok(Expect {
                client: expected_list(entry, "toClient", true)?,
                upstream: expected_list(entry, "toUpstream", false)?,
                deferred: Vec::new(),
            })
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
    /// Every message the client received after the handshake (normalized).
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
            self.client.push(normalized(m));
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
    setup.puppet = Some(puppet.path().to_path_buf());
    let session = Session::start(ctx, &setup)?;
    let mut wire = Wire {
        session,
        client: Vec::new(),
        upstream_base: 0,
    };
    let result = play(&mut wire, &mut puppet, case, deadline);
    wire.session.save_stderr();
    finish(wire, &mut puppet, &result?, deadline)
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

/// Over HTTP an upstream notification or request may wait for the next request stream
/// (§2.1): such messages are checked as one ordered stream of their own, not per step.
fn deferrable(http: bool, m: &Value) -> bool {
    http && m.get("method").is_some()
}

/// Where the steps left off: client and upstream messages accounted for, and (HTTP) the
/// server-initiated messages the client must receive in order.
struct Played {
    client_seen: usize,
    upstream_seen: usize,
    expected_deferred: Vec<Value>,
}

/// Plays the steps.
fn play(
    w: &mut Wire,
    puppet: &mut Puppet,
    case: &ScriptCase,
    deadline: Instant,
) -> Result<Played, String> {
    handshake(w, puppet, deadline)?;
    let http = w.session.proxy.http.is_some();
    let total = case.steps.len();
    let mut candidates: Vec<usize> = (0..case.outcomes.len()).collect();
    // What earlier steps accounted for, counted before this step's input leaves (a fast
    // proxy may answer before the harness looks).
    let (mut c0, mut u0) = (w.client.len(), w.upstream().len());
    let mut expected_deferred: Vec<Value> = Vec::new();
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
        let expected: Vec<Expect> = expectations(case, i)?
            .into_iter()
            .map(|e| {
                let (deferred, now): (Vec<Value>, Vec<Value>) =
                    e.client.into_iter().partition(|m| deferrable(http, m));
                let mut all_deferred = expected_deferred.clone();
                all_deferred.extend(deferred);
                Expect {
                    client: now,
                    upstream: e.upstream,
                    deferred: all_deferred,
                }
            })
            .collect();
        loop {
            let up = w.upstream();
            let got_c: Vec<Value> = w.client[c0..]
                .iter()
                .filter(|m| !deferrable(http, m))
                .cloned()
                .collect();
            let got_d: Vec<Value> = w
                .client
                .iter()
                .filter(|m| deferrable(http, m))
                .cloned()
                .collect();
            let got_u = &up[u0.min(up.len())..];
            let fits = |k: &usize| {
                let e = &expected[*k];
                e.client.starts_with(&got_c)
                    && e.upstream.starts_with(got_u)
                    && e.deferred.starts_with(&got_d)
            };
            let complete: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|k| {
                    fits(k) && expected[*k].client == got_c && expected[*k].upstream == got_u
                })
                .collect();
            if let Some(first) = complete.first() {
                expected_deferred.clone_from(&expected[*first].deferred);
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
                let Expect {
                    client: ec,
                    upstream: eu,
                    deferred: ed,
                } = &expected[candidates[0]];
                let alternatives = if candidates.len() > 1 {
                    format!(
                        " (or one of {} other acceptable outcomes)",
                        candidates.len() - 1
                    )
                } else {
                    String::new()
                };
                let deferred = if http && (!ed.is_empty() || !got_d.is_empty()) {
                    format!(
                        "; server-initiated messages so far (HTTP, in their own order): expected [{}], arrived [{}]",
                        list(ed),
                        list(&got_d)
                    )
                } else {
                    String::new()
                };
                return Err(format!(
                    "step {} of {total} ({what}): expected toClient [{}] and toUpstream [{}]{alternatives}; arrived{when} toClient [{}] and toUpstream [{}]{deferred}",
                    i + 1,
                    list(ec),
                    list(eu),
                    list(&got_c),
                    list(got_u),
                ));
            }
            candidates = still;
            w.pull_client(deadline);
        }
    }
    Ok(Played {
        client_seen: c0,
        upstream_seen: u0,
        expected_deferred,
    })
}

/// The id of the request that opens a request stream at the end of an HTTP session script.
const FLUSH_ID: &str = "delegateos-conform-flush";

/// HTTP: server-initiated messages still owed to the client wait for a request stream (§2.1);
/// a `ping` (answered by the puppet) opens one. Returns once they all arrived (or one that
/// was not expected did, or the deadline passed).
fn deliver_deferred(
    w: &mut Wire,
    puppet: &mut Puppet,
    played: &Played,
    deadline: Instant,
) -> Result<bool, String> {
    let count = |w: &Wire| w.client.iter().filter(|m| deferrable(true, m)).count();
    let want = played.expected_deferred.len();
    let mut flushed = false;
    if count(w) < want {
        flushed = true;
        let id = json!(FLUSH_ID);
        w.session
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))?;
        loop {
            let up = w.upstream();
            if let Some(ping) = up[played.upstream_seen.min(up.len())..]
                .iter()
                .find(|m| m.get("id") == Some(&id))
            {
                let ping_id = ping.get("id").cloned().unwrap_or(Value::Null);
                puppet.write(
                    &json!({"jsonrpc": "2.0", "id": ping_id, "result": {}}),
                    deadline,
                )?;
                break;
            }
            if Instant::now() >= deadline {
                return Err("after the last step (HTTP): a ping sent to deliver the owed server-initiated messages never reached the upstream".into());
            }
            w.pull_client(deadline);
        }
        loop {
            if let Some(pos) = w
                .client
                .iter()
                .position(|m| m.get("method").is_none() && m.get("id") == Some(&id))
            {
                w.client.remove(pos);
                break;
            }
            if Instant::now() >= deadline || w.session.proxy.saw_eof() {
                return Err("after the last step (HTTP): the ping sent to deliver the owed server-initiated messages was never answered".into());
            }
            w.pull_client(deadline);
        }
    }
    while count(w) < want && Instant::now() < deadline && !w.session.proxy.saw_eof() {
        w.pull_client(deadline);
    }
    let got: Vec<Value> = w
        .client
        .iter()
        .filter(|m| deferrable(true, m))
        .cloned()
        .collect();
    if got.len() < want || got[..want] != played.expected_deferred[..] {
        return Err(format!(
            "the server-initiated messages the client received over HTTP (in their own order) were [{}], expected [{}]",
            list(&got),
            list(&played.expected_deferred)
        ));
    }
    Ok(flushed)
}

/// Client EOF (HTTP: DELETE first); then nothing more may reach either side, the proxy exits
/// within 5 s, the upstream is gone, stdout stayed clean.
fn finish(
    mut w: Wire,
    puppet: &mut Puppet,
    played: &Played,
    deadline: Instant,
) -> Result<(), String> {
    let http = w.session.proxy.http.is_some();
    let flushed = if http {
        deliver_deferred(&mut w, puppet, played, deadline)?
    } else {
        false
    };
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
    // A request still in flight at EOF may get the upstream_exited error (M5) instead of
    // being dropped (M6), depending on which end the proxy sees close first: how a proxy
    // ends is the business of the lifecycle cases (mcp-client-eof*), never of a script.
    let answered = |id: &Value| {
        w.client
            .iter()
            .any(|m| m.get("method").is_none() && m.get("id") == Some(id))
    };
    let rest: Vec<Value> = s
        .proxy
        .drain(window)
        .into_iter()
        .map(normalized)
        .filter(|m| {
            let exited = m.pointer("/error/data/type") == Some(&json!("upstream_exited"));
            !(exited && m.get("id").is_some_and(|id| !id.is_null() && !answered(id)))
        })
        .collect();
    s.save_stderr();
    let mut extra_client: Vec<Value> = w.client[played.client_seen..]
        .iter()
        .filter(|m| !deferrable(http, m))
        .cloned()
        .collect();
    extra_client.extend(
        w.client
            .iter()
            .filter(|m| deferrable(http, m))
            .skip(played.expected_deferred.len())
            .cloned(),
    );
    extra_client.extend(rest);
    if !extra_client.is_empty() {
        return Err(format!(
            "after the last step the client received {} unexpected message(s): {}",
            extra_client.len(),
            list(&extra_client)
        ));
    }
    let up = w.upstream();
    let flush_id = json!(FLUSH_ID);
    let extra_up: Vec<Value> = up[played.upstream_seen.min(up.len())..]
        .iter()
        .filter(|m| {
            !(flushed && m.get("id") == Some(&flush_id) && m.get("method") == Some(&json!("ping")))
        })
        .cloned()
        .collect();
    if !extra_up.is_empty() {
        return Err(format!(
            "after the last step the upstream received {} unexpected message(s): {}",
            extra_up.len(),
            list(&extra_up)
        ));
    }
    let s = &w.session;
    s.check_clean();
    if !exited {
        return Err("the proxy did not exit within 5 s of client EOF".into());
    }
    s.assert_upstream_gone(Duration::from_secs(1))
}
