//! A bounded soak of a proxy in Streamable HTTP mode (issue 18): `sessions` concurrent MCP
//! sessions, each initialized on its own, share `calls` verified `tools/call` requests; every
//! request id must be answered exactly once, with the upstream's answer for that id. The
//! proxy's resident memory is read before and after (Linux `/proc/<pid>/status`).
//!
//! Used by `harness/benches/mcp_http_soak.rs` (10,000 calls from 32 sessions, with figures) and
//! by a test with a smaller load that asserts only the counts (no timing).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::http_client::exchange;

/// What a soak observed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SoakReport {
    /// `tools/call` requests sent.
    pub sent: usize,
    /// Requests answered exactly once with the expected result.
    pub answered_once: usize,
    /// Request ids with no answer.
    pub lost: usize,
    /// Request ids answered more than once (or answers for ids never sent).
    pub duplicated: usize,
    /// Answers that were not the upstream's result for that request.
    pub wrong: usize,
    /// HTTP-level failures (status, transport), with the first message.
    pub http_errors: usize,
    /// The first problem seen, if any.
    pub first_problem: Option<String>,
    /// Proxy resident set size after start-up and one warm-up call per session, in KiB.
    pub rss_before_kib: Option<u64>,
    /// Proxy resident set size after every call, in KiB.
    pub rss_after_kib: Option<u64>,
    /// Wall time of the calls (not of start-up).
    pub elapsed: Duration,
}

/// Kills the proxy when dropped.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");
const JSON_BODY: (&str, &str) = ("content-type", "application/json");

fn post(url: &str, session: Option<&str>, msg: &Value) -> Result<Vec<Value>, String> {
    let body = serde_json::to_vec(msg).map_err(|e| e.to_string())?;
    let mut headers = vec![ACCEPT, JSON_BODY];
    if let Some(s) = session {
        headers.push(("mcp-session-id", s));
    }
    let ex = exchange("POST", url, &headers, Some(&body))?;
    if !(200..300).contains(&ex.status) {
        return Err(format!(
            "HTTP {} for {}: {}",
            ex.status,
            msg["method"],
            String::from_utf8_lossy(&ex.body)
        ));
    }
    Ok(ex.messages())
}

/// One session: initialize, then `calls` verified calls with ids `first..first+calls`;
/// returns (answers per id, http errors, first problem).
fn session(
    url: &str,
    envelope: &Value,
    first: u64,
    calls: u64,
) -> (Vec<Value>, usize, Option<String>) {
    let mut answers = Vec::new();
    let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "delegateos-soak", "version": "1"}}});
    let body = match serde_json::to_vec(&init) {
        Ok(b) => b,
        Err(e) => return (answers, 1, Some(e.to_string())),
    };
    let ex = match exchange("POST", url, &[ACCEPT, JSON_BODY], Some(&body)) {
        Ok(ex) => ex,
        Err(e) => return (answers, 1, Some(e)),
    };
    let Some(sid) = ex.header("mcp-session-id").map(str::to_owned) else {
        return (
            answers,
            1,
            Some(format!("no Mcp-Session-Id (HTTP {})", ex.status)),
        );
    };
    let mut errors = 0;
    let mut problem = None;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    if let Err(e) = post(url, Some(&sid), &note) {
        errors += 1;
        problem.get_or_insert(e);
    }
    for id in first..first + calls {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": format!("/project/{id}.txt")},
                       "_delegateos": envelope}});
        match post(url, Some(&sid), &msg) {
            Ok(msgs) => answers.extend(msgs),
            Err(e) => {
                errors += 1;
                problem.get_or_insert(e);
            }
        }
    }
    let _ = exchange("DELETE", url, &[("mcp-session-id", sid.as_str())], None);
    (answers, errors, problem)
}

/// Writes, into `dir`, a launch config for a proxy in HTTP mode (loopback, port 0) whose
/// upstream is `conform_bin mock-upstream` answering every `read_file` call, with the suite's
/// `root` trusted and `read_file` mapped to `docs:read` on its `path` argument; returns its path.
pub fn write_mock_http_config(dir: &Path, conform_bin: &str) -> Result<std::path::PathBuf, String> {
    let io = |e: std::io::Error| format!("{}: {e}", dir.display());
    std::fs::create_dir_all(dir).map_err(io)?;
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        json!({"tools": [{"name": "read_file"}]}).to_string(),
    )
    .map_err(io)?;
    let config = dir.join("config.json");
    let launch = json!({
        "version": 1,
        "transport": "http",
        "http": {"listen": "127.0.0.1:0"},
        "trustedRoots": [super::tokens::root().principal_id()],
        "tools": {"read_file": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}}},
        "spendPerCall": 0,
        "upstream": {"command": conform_bin, "args": ["mock-upstream", "--script", script.to_string_lossy()]},
    });
    std::fs::write(&config, launch.to_string()).map_err(io)?;
    Ok(config)
}

/// Runs the soak against `proxy_command config_path` (the command is run with `sh -c`; the
/// config must select `"transport": "http"` and a mock upstream that answers every
/// `tools/call`). `envelope` is the `_delegateos` member every call carries.
pub fn run(
    proxy_command: &str,
    config: &Path,
    envelope: &Value,
    sessions: u64,
    calls: u64,
) -> Result<SoakReport, String> {
    let command = proxy_command.replace("{config}", &config.to_string_lossy());
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("exec {command}"))
        // The launch contract (spec/mcp-proxy.md): the proxy lives while its stdin is open.
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start the proxy: {e}"))?;
    let stdout = child.stdout.take().ok_or("no proxy stdout")?;
    let proxy = Running(child);
    let mut url = String::new();
    BufReader::new(stdout)
        .read_line(&mut url)
        .map_err(|e| format!("no discovery line: {e}"))?;
    let url = url.trim().to_owned();
    if !url.starts_with("http://") {
        return Err(format!(
            "the proxy's first stdout line is not a URL: {url:?}"
        ));
    }
    let pid = proxy.0.id();
    // Warm-up: one session so that start-up allocations are in the "before" figure.
    let (_, _, warm_problem) = session(&url, envelope, u64::MAX - 1, 1);
    if let Some(p) = warm_problem {
        return Err(format!("warm-up session failed: {p}"));
    }
    let rss_before = rss_kib(pid);
    let per = calls / sessions.max(1);
    let extra = calls % sessions.max(1);
    let started = Instant::now();
    let mut handles = Vec::new();
    let mut first = 1u64;
    for s in 0..sessions {
        let n = per + u64::from(s < extra);
        let (u, e) = (url.clone(), envelope.clone());
        let start = first;
        handles.push(std::thread::spawn(move || {
            (start..start + n, session(&u, &e, start, n))
        }));
        first += n;
    }
    let mut report = SoakReport {
        sent: usize::try_from(calls).unwrap_or(usize::MAX),
        rss_before_kib: rss_before,
        ..SoakReport::default()
    };
    let mut seen: BTreeMap<u64, usize> = BTreeMap::new();
    for h in handles {
        let (own, (answers, errors, problem)) =
            h.join().map_err(|_| "a session thread panicked")?;
        report.http_errors += errors;
        if report.first_problem.is_none() {
            report.first_problem = problem;
        }
        for a in answers {
            let Some(id) = a["id"].as_u64() else {
                report.duplicated += 1;
                continue;
            };
            *seen.entry(id).or_default() += 1;
            if !own.contains(&id) {
                // Another session's answer: state or streams shared across sessions.
                report.wrong += 1;
                if report.first_problem.is_none() {
                    report.first_problem = Some(format!("id {id} answered in another session"));
                }
            } else if a.get("result").is_none() {
                report.wrong += 1;
                if report.first_problem.is_none() {
                    report.first_problem = Some(format!("not a result: {a}"));
                }
            }
        }
    }
    report.elapsed = started.elapsed();
    report.rss_after_kib = rss_kib(pid);
    for id in 1..=calls {
        match seen.remove(&id) {
            Some(1) => report.answered_once += 1,
            Some(_) => report.duplicated += 1,
            None => report.lost += 1,
        }
    }
    report.duplicated += seen.len();
    drop(proxy);
    Ok(report)
}
