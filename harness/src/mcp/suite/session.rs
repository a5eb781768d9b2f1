//! One running proxy with its recording mock: launch-config construction, the handshake,
//! request helpers, what the upstream recorded, and the end-of-case checks (clean stdout,
//! exit within 5 s of EOF, no orphaned upstream).

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use delegateos_reference::token::SignedJsonToken;

use super::context::{lock, Ctx};
use super::fixtures::{standard_script, standard_tools, T};
use super::judge::{call_msg, denial_form, expect_result, short};
use super::results::Observation;
use crate::mcp::client::{process_alive, ProxyProcess};
use crate::mcp::config::{
    HttpSettings, LaunchConfig, Transport, UpstreamCommand, LAUNCH_CONFIG_VERSION,
};
use crate::mcp::tokens;

/// The start of the failure message of a case whose proxy wrote a non-JSON line to stdout (the
/// findings of `mcp` file such a failure under MCP-STDOUT-CLEAN).
pub const NON_JSON_STDOUT: &str = "the proxy wrote a non-JSON line to stdout";

/// Everything a session's launch config and mock script depend on.
#[derive(Clone)]
pub(super) struct Setup {
    pub script: Value,
    pub tools: Value,
    pub session_token: Option<Value>,
    pub revocations: Vec<Value>,
    pub spend_per_call: u64,
    pub strict: bool,
    pub trusted_roots: Vec<String>,
    /// Smoke: run this real server behind the tap instead of the mock.
    pub real_upstream: Option<Vec<String>>,
    /// HTTP: the proxy's body limit (`http.maxBodyBytes`; default 64 MiB).
    pub max_body_bytes: Option<u64>,
    /// Session scripts: run the mock as a puppet controlled through this Unix socket.
    pub puppet: Option<PathBuf>,
}

impl Setup {
    pub(super) fn standard() -> Self {
        Setup {
            script: standard_script(),
            tools: standard_tools(),
            session_token: None,
            revocations: Vec::new(),
            spend_per_call: 100,
            strict: false,
            trusted_roots: vec![tokens::root().principal_id()],
            real_upstream: None,
            max_body_bytes: None,
            puppet: None,
        }
    }

    pub(super) fn with_session(mut self, token: &SignedJsonToken) -> Self {
        self.session_token = serde_json::to_value(tokens::serialize(token)).ok();
        self
    }
}

/// One running proxy with its mock.
pub(super) struct Session {
    pub proxy: ProxyProcess,
    pub record: PathBuf,
    next_id: u64,
    stderr_sink: Arc<Mutex<Option<String>>>,
    /// Where the running case's observations go, and the case they belong to.
    observed: Arc<Mutex<(u64, Vec<Observation>)>>,
    case: u64,
    /// The calls judged as ones to be denied ([`Self::denied`]): an answer to one of them that
    /// arrives later is still `answered`.
    denied_ids: Vec<Value>,
    /// Per call sent by [`Self::call_denied`], how many requests with its id the upstream had
    /// received before it (an id may be reused after its request was answered).
    forwarded_before: Vec<(Value, usize)>,
}

impl Session {
    pub(super) fn start(ctx: &Ctx, setup: &Setup) -> Result<Session, String> {
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
        let (mode, control) = match &setup.puppet {
            Some(socket) => ("--puppet", socket),
            None => ("--script", &script),
        };
        let upstream = match &setup.real_upstream {
            None => UpstreamCommand {
                command: mock,
                args: lead
                    .chain([
                        mode.into(),
                        control.to_string_lossy().into_owned(),
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
            transport: ctx.opts.transport,
            http: (ctx.opts.transport == Transport::Http).then(|| HttpSettings {
                max_body_bytes: setup.max_body_bytes,
                ..HttpSettings::default()
            }),
        };
        let config_path = dir.join("launch-config.json");
        write_json(
            &config_path,
            &serde_json::to_value(&config).unwrap_or(Value::Null),
        )?;
        let proxy = match ctx.opts.transport {
            Transport::Stdio => ProxyProcess::spawn(&ctx.opts.proxy, &config_path)?,
            Transport::Http => ProxyProcess::spawn_http(&ctx.opts.proxy, &config_path)?,
        };
        lock(&ctx.live).push((proxy.pid(), record.clone()));
        Ok(Session {
            proxy,
            record,
            next_id: 0,
            stderr_sink: Arc::clone(&ctx.stderr),
            observed: Arc::clone(&ctx.observed),
            case: lock(&ctx.observed).0,
            denied_ids: Vec::new(),
            forwarded_before: Vec::new(),
        })
    }

    pub(super) fn fresh_id(&mut self) -> Value {
        self.next_id += 1;
        json!(format!("h-{}", self.next_id))
    }

    pub(super) fn send(&mut self, msg: &Value) -> Result<(), String> {
        self.proxy.send(msg)
    }

    pub(super) fn request(
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
    pub(super) fn init(&mut self) -> Result<Value, String> {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"roots": {"listChanged": true}},
            "clientInfo": {"name": "delegateos-conform", "version": env!("CARGO_PKG_VERSION")},
        });
        let resp = self.request(json!("init"), "initialize", params, Duration::from_secs(15))?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(resp)
    }

    pub(super) fn call(
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
    pub(super) fn sync(&mut self) -> Result<(), String> {
        let id = self.fresh_id();
        let resp = self.request(id, "ping", json!({}), T)?;
        if resp.get("result").is_none() {
            return Err(format!("ping failed: {}", short(&resp)));
        }
        Ok(())
    }

    pub(super) fn events(&self) -> Vec<Value> {
        read_events(&self.record)
    }

    /// Messages the upstream received, parsed, in order (unparseable lines skipped).
    pub(super) fn upstream_msgs(&self) -> Vec<Value> {
        self.events()
            .iter()
            .filter(|e| e["event"] == "in")
            .filter_map(|e| e["raw"].as_str().and_then(|r| serde_json::from_str(r).ok()))
            .collect()
    }

    /// Raw lines the upstream received.
    pub(super) fn upstream_raw(&self) -> Vec<String> {
        self.events()
            .iter()
            .filter(|e| e["event"] == "in")
            .filter_map(|e| e["raw"].as_str().map(str::to_owned))
            .collect()
    }

    pub(super) fn upstream_requests_with_id(&self, id: &Value) -> Vec<Value> {
        self.upstream_msgs()
            .into_iter()
            .filter(|m| m.get("method").is_some() && m.get("id") == Some(id))
            .collect()
    }

    /// What the upstream answered to `id`.
    pub(super) fn upstream_answer(&self, id: &Value) -> Option<Value> {
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

    /// After a ping round trip, observes `forwarded` if the call `id` (to be denied) reached
    /// the upstream; the case goes on.
    pub(super) fn assert_not_forwarded(&mut self, id: &Value) -> Result<(), String> {
        self.sync()?;
        self.observe_forwarded(id);
        Ok(())
    }

    fn observe_forwarded(&self, id: &Value) {
        let before = self
            .forwarded_before
            .iter()
            .rev()
            .find(|(sent, _)| sent == id)
            .map_or(0, |(_, n)| *n);
        let n = self
            .upstream_requests_with_id(id)
            .len()
            .saturating_sub(before);
        if n > 0 {
            self.observe(
                "forwarded",
                format!("the denied call {id} reached the upstream ({n} time(s))"),
            );
        }
    }

    /// Records a violation the case goes on past (`results::Observation`), once per tag: a
    /// case reports every violation it sees, so one bug does not hide another.
    pub(super) fn observe(&self, tag: &str, message: String) {
        let mut observed = lock(&self.observed);
        if observed.0 == self.case && !observed.1.iter().any(|o| o.tag == tag) {
            observed.1.push(Observation {
                tag: tag.to_owned(),
                message,
            });
        }
    }

    /// Observes `denial-data` when a denial came and its `data` fails `check`; the case goes on.
    pub(super) fn check_data(
        &self,
        denial: Option<Value>,
        check: impl FnOnce(&Value) -> Result<(), String>,
    ) {
        if let Some(Err(e)) = denial.as_ref().map(check) {
            self.observe("denial-data", e);
        }
    }

    /// Sends the call and judges it as one that must be denied ([`Self::denied`]).
    pub(super) fn call_denied(
        &mut self,
        id: Value,
        name: &str,
        args: Value,
        envelope: Option<Value>,
        ty: &str,
    ) -> Result<Option<Value>, String> {
        let before = self.upstream_requests_with_id(&id).len();
        self.forwarded_before.push((id.clone(), before));
        self.send(&call_msg(&id, name, args, envelope))?;
        self.denied(&id, ty)
    }

    /// Judges the call `id` (sent), which must get a -32001 `ty` denial carrying its id and
    /// must not reach the upstream. Each violation is observed on its own and the case goes on
    /// ([`Self::observe`]): `answered` (the client got a result for it), `no-denial`,
    /// `denial-id` (the denial carries null, or the id as a string), `denial-form` (code,
    /// message, `data.type`, a result beside the error), `forwarded`. So a proxy that writes a
    /// call upstream before its verdict and also answers denials with id null shows both.
    /// Returns the denial's `data`, when a denial came.
    pub(super) fn denied(&mut self, id: &Value, ty: &str) -> Result<Option<Value>, String> {
        // A ping round trip first: every answer the proxy wrote before its answer to the ping
        // is in (the upstream answers in order), a late second answer too.
        self.sync()?;
        self.denied_ids.push(id.clone());
        let mut answers = self.take_answers(id);
        if answers.is_empty() {
            // A proxy that verifies while it reads on may answer after the ping.
            let first = self.proxy.response(id, T);
            let late = self.take_answers(id);
            match first {
                Ok(m) => answers.push(m),
                Err(e) if late.is_empty() => return Err(e),
                Err(_) => {}
            }
            answers.extend(late);
            self.sync()?;
            answers.extend(self.take_answers(id));
        }
        if let Some(result) = answers
            .iter()
            .find(|m| m.get("result").is_some() && m.get("id") == Some(id))
        {
            self.observe(
                "answered",
                format!(
                    "the call {id}, to be denied ({ty}), was answered with a result: {}",
                    short(result)
                ),
            );
        }
        let denial = answers.into_iter().find(|m| m.get("error").is_some());
        let Some(denial) = denial else {
            self.observe("no-denial", format!("no {ty} denial of the call {id} came"));
            self.observe_forwarded(id);
            return Ok(None);
        };
        if denial.get("id") != Some(id) {
            self.observe(
                "denial-id",
                format!(
                    "the denial of the call {id} carries id {}",
                    denial.get("id").unwrap_or(&Value::Null)
                ),
            );
        }
        if let Err(e) = denial_form(&denial, ty) {
            self.observe("denial-form", e);
        }
        self.observe_forwarded(id);
        Ok(Some(denial["error"]["data"].clone()))
    }

    /// Takes from what the client received every answer to the call `id`: a response with
    /// its id, or a -32001 error carrying null or the id as a string (a mangled denial).
    fn take_answers(&mut self, id: &Value) -> Vec<Value> {
        let text = Value::String(id.to_string());
        self.proxy.take_matching(|m| {
            let got = m.get("id").unwrap_or(&Value::Null);
            m.get("method").is_none()
                && (got == id
                    || (m.pointer("/error/code") == Some(&json!(-32001))
                        && (got.is_null() || (!id.is_string() && *got == text))))
        })
    }

    pub(super) fn save_stderr(&self) {
        *lock(&self.stderr_sink) = Some(self.proxy.stderr_text());
    }

    /// Client EOF, then: proxy exits within 5 s, the upstream is gone, stdout stayed clean.
    pub(super) fn finish(mut self) -> Result<(), String> {
        let extra = self.proxy.drain(Duration::from_millis(50));
        for m in &extra {
            let late = m.get("result").is_some()
                && m.get("id").is_some_and(|id| self.denied_ids.contains(id));
            if late {
                self.observe(
                    "answered",
                    format!(
                        "a call to be denied was answered with a result: {}",
                        short(m)
                    ),
                );
            }
        }
        self.save_stderr();
        self.check_clean();
        let unexpected: Vec<&Value> = extra
            .iter()
            .filter(|m| m.get("method").is_none() && m.get("id").is_none_or(Value::is_null))
            .collect();
        if let Some(m) = unexpected.first() {
            return Err(format!("unexpected message without id: {m}"));
        }
        if let Some(link) = &self.proxy.http {
            // HTTP: DELETE ends the session and its upstream (the proxy keeps serving).
            let status = link.delete()?;
            if !(200..300).contains(&status) {
                return Err(format!("DELETE of the session answered HTTP {status}"));
            }
            self.assert_upstream_gone(Duration::from_secs(3))?;
        }
        self.proxy.close_stdin();
        let shutdown = if self.proxy.wait_exit(Duration::from_secs(5)).is_none() {
            Err("the proxy did not exit within 5 s of client EOF".into())
        } else {
            self.assert_upstream_gone(Duration::from_secs(1))
        };
        // Whatever the case was about, a failed shutdown is its own violation (MCP-CLIENT-EOF).
        if let Err(e) = shutdown {
            self.observe("client-eof", e);
        }
        Ok(())
    }

    /// Observes `stdout-clean` (MCP-STDOUT-CLEAN) if the proxy wrote a non-JSON line to
    /// stdout; the client skips such lines, so the case goes on.
    pub(super) fn check_clean(&self) {
        if let Some(g) = self.proxy.garbage.first() {
            self.observe("stdout-clean", format!("{NON_JSON_STDOUT}: {g:?}"));
        }
    }

    pub(super) fn assert_upstream_gone(&self, within: Duration) -> Result<(), String> {
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

impl Drop for Session {
    /// A case that stopped early still observes a non-JSON stdout line of its session.
    fn drop(&mut self) {
        self.check_clean();
    }
}

pub(super) fn write_json(path: &Path, v: &Value) -> Result<(), String> {
    std::fs::write(path, serde_json::to_vec_pretty(v).unwrap_or_default())
        .map_err(|e| format!("harness: cannot write {}: {e}", path.display()))
}

pub(super) fn read_events(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

pub(super) fn mock_pid(record: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(record).ok()?;
    let first: Value = serde_json::from_str(text.lines().next()?).ok()?;
    first["pid"].as_u64().and_then(|p| u32::try_from(p).ok())
}

pub(super) fn list_all(s: &mut Session) -> Result<(Vec<Value>, Vec<Value>), String> {
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

pub(super) fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or("?").to_owned())
        .collect()
}
