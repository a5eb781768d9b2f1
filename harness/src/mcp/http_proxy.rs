//! The reference proxy's MCP Streamable HTTP mode (`transport: "http"` in the launch config).
//!
//! One endpoint (`/mcp`): POST carries one JSON-RPC message; a request is answered with an
//! SSE stream (upstream notifications and requests that arrive while it is open, then its
//! response) or, when the proxy answers locally (a denial), with one JSON body; notifications
//! and client responses get 202. `initialize` creates a session: its own upstream process
//! and its own [`Decider`] (spend tracker), so nothing is shared across sessions; the id is
//! returned in `Mcp-Session-Id` and required on every later request. DELETE ends a session
//! (its upstream is terminated); GET is 405 (no standalone server stream: upstream messages
//! that arrive while no request stream is open wait for the next one). The decisions are
//! those of the stdio proxy ([`Decider::route`]); only the framing differs.
//!
//! Shutdown: stdin EOF or SIGTERM/SIGINT/SIGHUP terminate every upstream and exit (0 or
//! 128 + signal). The listener is loopback only.

use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, ChildStdout};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::sync::mpsc::{unbounded_channel, UnboundedSender};

use delegateos_reference::mcp::McpConfig;

use super::config::{LaunchConfig, DEFAULT_MAX_BODY};
use super::proxy::{
    invalid_request, lock, log, spawn_upstream, terminate_group, wait_child, Decider, Fault,
    ProxyOptions, Routed, EXIT_CONFIG, SHUTDOWN_GRACE,
};
use super::wire::{self, id_key, Line, MAX_LINE};

/// The session header of MCP Streamable HTTP.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The endpoint path.
pub const ENDPOINT: &str = "/mcp";

/// One item on a request's stream: a message, and whether it is the response that ends it.
type Item = (Vec<u8>, bool);

#[derive(Debug, Default)]
struct Routes {
    /// In-flight requests: id key → (stream, is a `tools/list`).
    by_id: HashMap<String, (UnboundedSender<Item>, bool)>,
    /// Open request streams, oldest first, for upstream notifications and requests.
    streams: Vec<(u64, UnboundedSender<Item>)>,
    /// Upstream notifications and requests that arrived while no request stream was open
    /// (there is no GET stream): delivered first on the session's next request stream.
    parked: Vec<Vec<u8>>,
}

/// At most this many upstream messages wait for a request stream; older ones are dropped.
const MAX_PARKED: usize = 1024;

#[derive(Debug)]
struct Session {
    decider: Arc<Decider>,
    upstream_in: Mutex<Option<ChildStdin>>,
    child: Mutex<Child>,
    routes: Mutex<Routes>,
    closed: AtomicBool,
}

impl Session {
    /// Ends the session: close the upstream's stdin, a grace period, then its process group.
    fn terminate(&self, grace: Duration) {
        self.closed.store(true, Ordering::SeqCst);
        *lock(&self.upstream_in) = None;
        if !wait_child(&self.child, grace) {
            terminate_group(&mut lock(&self.child), Duration::from_millis(500));
        }
        let _ = lock(&self.child).wait();
        let mut routes = lock(&self.routes);
        routes.by_id.clear();
        routes.streams.clear();
    }
}

#[derive(Debug)]
struct App {
    config: McpConfig,
    launch: LaunchConfig,
    fault: Option<Fault>,
    /// Fault `shared-state`: one decider for every session.
    shared: Option<Arc<Decider>>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    max_body: u64,
    streams: AtomicU64,
}

impl App {
    fn shutdown_all(&self) {
        let all: Vec<Arc<Session>> = lock(&self.sessions).drain().map(|(_, s)| s).collect();
        for s in all {
            s.terminate(Duration::from_millis(0));
        }
    }
}

/// Runs the HTTP mode until stdin EOF (exit 0) or a signal (128 + signal).
pub fn run_http_proxy(config: McpConfig, launch: LaunchConfig, opts: &ProxyOptions) -> i32 {
    let settings = launch.http.clone().unwrap_or_default();
    let addr: SocketAddr = match settings.listen.parse() {
        Ok(a) => a,
        Err(e) => {
            log(&format!("invalid http.listen {:?}: {e}", settings.listen));
            return EXIT_CONFIG;
        }
    };
    if !addr.ip().is_loopback() {
        log(&format!(
            "http.listen {addr} is not a loopback address; the reference proxy binds loopback only"
        ));
        return EXIT_CONFIG;
    }
    let listener = match std::net::TcpListener::bind(addr) {
        Ok(l) => l,
        Err(e) => {
            log(&format!("cannot listen on {addr}: {e}"));
            return EXIT_CONFIG;
        }
    };
    let bound = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            log(&format!("no local address: {e}"));
            return EXIT_CONFIG;
        }
    };
    let shared = (opts.fault == Some(Fault::SharedState))
        .then(|| Arc::new(Decider::new(config.clone(), opts.fault)));
    let app = Arc::new(App {
        config,
        launch,
        fault: opts.fault,
        shared,
        sessions: Mutex::new(HashMap::new()),
        max_body: settings.max_body_bytes.unwrap_or(DEFAULT_MAX_BODY),
        streams: AtomicU64::new(0),
    });
    spawn_lifecycle_threads(Arc::clone(&app));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            log(&format!("cannot start the runtime: {e}"));
            return EXIT_CONFIG;
        }
    };
    let router = Router::new()
        .route(
            ENDPOINT,
            post(handle_post).get(handle_get).delete(handle_delete),
        )
        .with_state(Arc::clone(&app));
    let served = runtime.block_on(async move {
        let _ = listener.set_nonblocking(true);
        let listener = tokio::net::TcpListener::from_std(listener)?;
        // The discovery line: the bound URL, alone, on the first stdout line.
        {
            let mut out = io::stdout();
            let _ = writeln!(out, "http://{bound}{ENDPOINT}");
            let _ = out.flush();
        }
        axum::serve(listener, router).await
    });
    if let Err(e) = served {
        log(&format!("server error: {e}"));
    }
    app.shutdown_all();
    EXIT_CONFIG
}

/// Stdin EOF and termination signals end the proxy after terminating every upstream.
fn spawn_lifecycle_threads(app: Arc<App>) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    {
        let app = Arc::clone(&app);
        thread::spawn(move || {
            let mut sink = [0u8; 4096];
            let mut stdin = io::stdin();
            while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
            app.shutdown_all();
            std::process::exit(0);
        });
    }
    match signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP]) {
        Ok(mut signals) => {
            thread::spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    app.shutdown_all();
                    std::process::exit(128 + sig);
                }
            });
        }
        Err(e) => log(&format!("cannot install signal handlers: {e}")),
    }
}

fn plain(status: StatusCode, text: &str) -> Response {
    (status, text.to_owned()).into_response()
}

fn json_response(status: StatusCode, msg: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        serde_json::to_vec(msg).unwrap_or_default(),
    )
        .into_response()
}

fn media_types(headers: &HeaderMap, name: header::HeaderName) -> Vec<String> {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .collect()
}

fn accepts(types: &[String], wanted: &str) -> bool {
    let major = wanted.split('/').next().unwrap_or_default();
    types
        .iter()
        .any(|t| t == wanted || t == "*/*" || *t == format!("{major}/*"))
}

fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_err()
    {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        bytes = nanos.to_le_bytes();
    }
    hex::encode(bytes)
}

/// Reads the body, never buffering more than `max` bytes; an oversized body is drained (up to
/// 64 MiB more, so the client reads the 413 instead of a reset) and reported as `None`.
async fn read_body(body: Body, max: u64) -> Result<Option<Vec<u8>>, Response> {
    let mut stream = body.into_data_stream();
    let mut out = Vec::new();
    let mut seen: u64 = 0;
    while let Some(chunk) = stream.next().await {
        let chunk =
            chunk.map_err(|e| plain(StatusCode::BAD_REQUEST, &format!("body error: {e}")))?;
        seen = seen.saturating_add(chunk.len() as u64);
        if seen > max {
            if seen > max.saturating_add(MAX_LINE as u64) {
                break;
            }
            out = Vec::new();
            continue;
        }
        out.extend_from_slice(&chunk);
    }
    Ok((seen <= max).then_some(out))
}

async fn handle_get() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, "POST, DELETE")],
        "no standalone server stream: server messages arrive on request streams",
    )
        .into_response()
}

async fn handle_delete(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if foreign_origin(&headers) {
        return plain(StatusCode::FORBIDDEN, "Origin is not a loopback origin");
    }
    let Some(id) = session_id(&headers) else {
        return plain(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id");
    };
    let Some(session) = lock(&app.sessions).remove(&id) else {
        return plain(StatusCode::NOT_FOUND, "unknown session");
    };
    let _ = tokio::task::spawn_blocking(move || session.terminate(SHUTDOWN_GRACE)).await;
    StatusCode::NO_CONTENT.into_response()
}

/// MCP Streamable HTTP: servers MUST validate `Origin` (DNS rebinding). A request may omit
/// it (non-browser clients); when present its host must be loopback.
fn foreign_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let Ok(origin) = origin.to_str() else {
        return true;
    };
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or_default();
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or_default()
    } else {
        rest.split([':', '/']).next().unwrap_or_default()
    };
    !(host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()))
}

async fn handle_post(State(app): State<Arc<App>>, headers: HeaderMap, body: Body) -> Response {
    if foreign_origin(&headers) {
        return plain(StatusCode::FORBIDDEN, "Origin is not a loopback origin");
    }
    if media_types(&headers, header::CONTENT_TYPE) != ["application/json"] {
        return plain(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type must be application/json",
        );
    }
    let accept = media_types(&headers, header::ACCEPT);
    if !accepts(&accept, "application/json") || !accepts(&accept, "text/event-stream") {
        return plain(
            StatusCode::NOT_ACCEPTABLE,
            "Accept must list application/json and text/event-stream",
        );
    }
    let bytes = match read_body(body, app.max_body).await {
        Ok(Some(b)) => b,
        Ok(None) => return plain(StatusCode::PAYLOAD_TOO_LARGE, "request body too large"),
        Err(r) => return r,
    };
    let msg: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => {
            return json_response(
                StatusCode::BAD_REQUEST,
                &json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": "Parse error"}}),
            )
        }
    };
    if !msg.is_object() {
        let why = if msg.is_array() {
            "Batches are not supported"
        } else {
            "Invalid Request"
        };
        return json_response(StatusCode::BAD_REQUEST, &invalid_request(Value::Null, why));
    }
    let is_initialize = msg.get("method").and_then(Value::as_str) == Some("initialize");
    let (session, new_id) = match (session_id(&headers), is_initialize) {
        (Some(_), true) => {
            return plain(
                StatusCode::BAD_REQUEST,
                "initialize must not carry Mcp-Session-Id",
            )
        }
        (None, true) => {
            let app2 = Arc::clone(&app);
            match tokio::task::spawn_blocking(move || start_session(&app2)).await {
                Ok(Ok((id, s))) => (s, Some(id)),
                Ok(Err(e)) => {
                    log(&e);
                    return plain(StatusCode::INTERNAL_SERVER_ERROR, &e);
                }
                Err(e) => {
                    return plain(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string());
                }
            }
        }
        (None, false) => return plain(StatusCode::BAD_REQUEST, "missing Mcp-Session-Id"),
        (Some(id), false) => match lock(&app.sessions).get(&id) {
            Some(s) => (Arc::clone(s), None),
            None => return plain(StatusCode::NOT_FOUND, "unknown session"),
        },
    };
    let mut response = dispatch(&app, &session, bytes).await;
    if let Some(id) = new_id {
        if let Ok(v) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(SESSION_HEADER, v);
        }
    }
    response
}

/// Routes one message of `session`: a local answer, 202, or the request's SSE stream.
async fn dispatch(app: &Arc<App>, session: &Arc<Session>, bytes: Vec<u8>) -> Response {
    let (line, request_id, list) = match session.decider.route(bytes) {
        Routed::Ignore => return StatusCode::ACCEPTED.into_response(),
        Routed::Reply(msg) => {
            let code = msg.pointer("/error/code").and_then(Value::as_i64);
            let status = if matches!(code, Some(-32700 | -32600)) {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::OK
            };
            return json_response(status, &msg);
        }
        Routed::Forward {
            bytes,
            request_id,
            list,
        } => (bytes, request_id, list),
    };
    let Some(id) = request_id else {
        let s = Arc::clone(session);
        let written = tokio::task::spawn_blocking(move || write_upstream(&s, &line)).await;
        return match written {
            Ok(true) => StatusCode::ACCEPTED.into_response(),
            _ => plain(StatusCode::BAD_GATEWAY, "upstream stdin closed"),
        };
    };
    let (tx, rx) = unbounded_channel::<Item>();
    let stream_no = app.streams.fetch_add(1, Ordering::SeqCst);
    {
        let mut routes = lock(&session.routes);
        for parked in std::mem::take(&mut routes.parked) {
            let _ = tx.send((parked, false));
        }
        routes.by_id.insert(id_key(&id), (tx.clone(), list));
        routes.streams.push((stream_no, tx));
    }
    let s = Arc::clone(session);
    let written = tokio::task::spawn_blocking(move || write_upstream(&s, &line)).await;
    if !matches!(written, Ok(true)) {
        let mut routes = lock(&session.routes);
        routes.by_id.remove(&id_key(&id));
        routes.streams.retain(|(n, _)| *n != stream_no);
        return plain(StatusCode::BAD_GATEWAY, "upstream stdin closed");
    }
    let stream = futures_util::stream::unfold((rx, false), |(mut rx, done)| async move {
        if done {
            return None;
        }
        let (bytes, last) = rx.recv().await?;
        let mut frame = Vec::with_capacity(bytes.len() + 24);
        frame.extend_from_slice(b"event: message\ndata: ");
        frame.extend_from_slice(&bytes);
        frame.extend_from_slice(b"\n\n");
        Some((Ok::<Bytes, io::Error>(Bytes::from(frame)), (rx, last)))
    });
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

fn write_upstream(session: &Session, line: &[u8]) -> bool {
    let mut up = lock(&session.upstream_in);
    match up.as_mut() {
        Some(w) => {
            if wire::write_line(w, line).is_err() {
                *up = None;
                false
            } else {
                true
            }
        }
        None => false,
    }
}

/// Starts a session's upstream and its relay thread.
fn start_session(app: &Arc<App>) -> Result<(String, Arc<Session>), String> {
    let (child, upstream_in, upstream_out) = spawn_upstream(&app.launch)?;
    let decider = match &app.shared {
        Some(d) => Arc::clone(d),
        None => Arc::new(Decider::new(app.config.clone(), app.fault)),
    };
    let session = Arc::new(Session {
        decider,
        upstream_in: Mutex::new(Some(upstream_in)),
        child: Mutex::new(child),
        routes: Mutex::new(Routes::default()),
        closed: AtomicBool::new(false),
    });
    let id = new_session_id();
    lock(&app.sessions).insert(id.clone(), Arc::clone(&session));
    let (app2, s2, id2) = (Arc::clone(app), Arc::clone(&session), id.clone());
    thread::spawn(move || relay_upstream(&app2, &s2, &id2, upstream_out));
    Ok((id, session))
}

/// Relays a session's upstream output to the request streams until its stdout closes.
fn relay_upstream(app: &App, session: &Session, id: &str, out: ChildStdout) {
    let mut reader = BufReader::with_capacity(1 << 16, out);
    loop {
        match wire::read_line(&mut reader, MAX_LINE) {
            Ok(Line::Data(bytes)) => relay_one(session, bytes),
            Ok(Line::TooLong) => log("dropped an oversized upstream line"),
            Ok(Line::Eof) | Err(_) => break,
        }
    }
    if session.closed.load(Ordering::SeqCst) {
        return;
    }
    // The upstream exited on its own: fail what is in flight, end the session (no restart).
    let code = terminate_group(&mut lock(&session.child), Duration::from_millis(200));
    lock(&app.sessions).remove(id);
    session.closed.store(true, Ordering::SeqCst);
    let pending: Vec<(String, UnboundedSender<Item>)> = {
        let mut routes = lock(&session.routes);
        routes.streams.clear();
        routes.by_id.drain().map(|(k, (tx, _))| (k, tx)).collect()
    };
    log(&format!(
        "upstream exited (status {code:?}); failing {} in-flight request(s), session ended",
        pending.len()
    ));
    for (key, tx) in pending {
        let id: Value = serde_json::from_str(&key).unwrap_or(Value::Null);
        let msg = json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": -32603, "message": "Upstream MCP server exited",
            "data": {"type": "upstream_exited", "exitCode": code}}});
        let _ = tx.send((serde_json::to_vec(&msg).unwrap_or_default(), true));
    }
}

fn relay_one(session: &Session, bytes: Vec<u8>) {
    let Ok(msg) = serde_json::from_slice::<Value>(&bytes) else {
        log("dropped a non-JSON upstream line");
        return;
    };
    let is_response = msg.get("method").is_none();
    let mut routes = lock(&session.routes);
    match msg.get("id").filter(|_| is_response) {
        Some(id) => {
            let Some((tx, list)) = routes.by_id.remove(&id_key(id)) else {
                log("dropped an upstream response nobody is waiting for");
                return;
            };
            let bytes = if list {
                session.decider.filter_list_response(bytes)
            } else {
                bytes
            };
            let _ = tx.send((bytes, true));
            routes.streams.retain(|(_, s)| !s.same_channel(&tx));
        }
        None => {
            // A notification or server request: the oldest open request stream carries it.
            routes.streams.retain(|(_, s)| !s.is_closed());
            match routes.streams.first() {
                Some((_, tx)) => {
                    let _ = tx.send((bytes, false));
                }
                None => {
                    if routes.parked.len() >= MAX_PARKED {
                        routes.parked.remove(0);
                        log("dropped an upstream message: too many waiting for a request stream");
                    }
                    routes.parked.push(bytes);
                }
            }
        }
    }
}
