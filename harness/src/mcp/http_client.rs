//! The suite's MCP Streamable HTTP client (blocking, `ureq`).
//!
//! [`HttpLink`] turns the suite's "write one message" into a POST and every message the proxy
//! answers with (a JSON body, or each event of an SSE stream) into one received message, so
//! the cases written for stdio run unchanged. POSTs leave in order: the next one is sent only
//! once the previous one's response headers arrived (the proxy has read and routed it); SSE
//! bodies are read on their own threads, so slow calls do not block later ones.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

/// What a link delivers to its [`super::client::ProxyProcess`].
#[derive(Debug)]
pub enum Delivery {
    /// One JSON-RPC message (a JSON body or one SSE event's data).
    Message(Vec<u8>),
    /// Something that is not a message (an unexpected status or content type).
    Violation(String),
}

/// One raw HTTP exchange.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// Status code.
    pub status: u16,
    /// Response headers (lower-case names; repeated headers joined with `, `).
    pub headers: BTreeMap<String, String>,
    /// The whole body.
    pub body: Vec<u8>,
}

impl Exchange {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
}

/// The agent: statuses are results, not errors; no global timeout (cases have deadlines).
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent()
}

fn header_map(resp: &ureq::http::Response<ureq::Body>) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in resp.headers() {
        let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
        out.entry(k.as_str().to_ascii_lowercase())
            .and_modify(|e| {
                e.push_str(", ");
                e.push_str(&v);
            })
            .or_insert(v);
    }
    out
}

/// Sends one request and reads the whole response body. `method` is POST, GET or DELETE.
pub fn exchange(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Result<Exchange, String> {
    let agent = agent();
    let result = match method {
        "POST" => {
            let mut req = agent.post(url);
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            req.send(body.unwrap_or_default())
        }
        "GET" => {
            let mut req = agent.get(url);
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            req.call()
        }
        "DELETE" => {
            let mut req = agent.delete(url);
            for (k, v) in headers {
                req = req.header(*k, *v);
            }
            req.call()
        }
        other => return Err(format!("harness: unsupported method {other}")),
    };
    let resp = result.map_err(|e| format!("HTTP {method} {url} failed: {e}"))?;
    let status = resp.status().as_u16();
    let headers = header_map(&resp);
    let mut body = Vec::new();
    resp.into_body()
        .into_reader()
        .read_to_end(&mut body)
        .map_err(|e| format!("reading the HTTP body failed: {e}"))?;
    Ok(Exchange {
        status,
        headers,
        body,
    })
}

impl Exchange {
    /// The JSON-RPC messages in the body: one JSON body, or every SSE `message` event.
    pub fn messages(&self) -> Vec<serde_json::Value> {
        let ctype = self.header("content-type").unwrap_or_default();
        if ctype.starts_with("text/event-stream") {
            let out = Mutex::new(Vec::new());
            read_sse(&self.body[..], &|d| {
                if let Delivery::Message(b) = d {
                    if let Ok(v) = serde_json::from_slice(&b) {
                        lock(&out).push(v);
                    }
                }
            });
            return out.into_inner().unwrap_or_else(|e| e.into_inner());
        }
        serde_json::from_slice(&self.body).into_iter().collect()
    }
}

/// Sends a request and returns its status and content type without reading the body (for
/// streams that may never end, such as a GET SSE stream).
pub fn status_only(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
) -> Result<(u16, String), String> {
    let agent = agent();
    let mut req = match method {
        "GET" => agent.get(url),
        other => return Err(format!("harness: unsupported method {other}")),
    };
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req
        .call()
        .map_err(|e| format!("HTTP {method} {url} failed: {e}"))?;
    let ctype = header_map(&resp).remove("content-type").unwrap_or_default();
    Ok((resp.status().as_u16(), ctype))
}

/// The standard headers of a client POST.
pub const POST_HEADERS: &[(&str, &str)] = &[
    ("content-type", "application/json"),
    ("accept", "application/json, text/event-stream"),
];

/// A session with an HTTP proxy.
#[derive(Debug)]
pub struct HttpLink {
    /// The endpoint URL.
    pub url: String,
    /// The `Mcp-Session-Id` received from `initialize`.
    pub session: Arc<Mutex<Option<String>>>,
    posts: Option<Sender<Vec<u8>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl HttpLink {
    /// A link posting to `url`, delivering what comes back through `deliver`.
    pub fn new(url: String, deliver: impl Fn(Delivery) + Send + Clone + 'static) -> Self {
        let (tx, rx) = mpsc::channel::<Vec<u8>>();
        let session = Arc::new(Mutex::new(None::<String>));
        let (u, s) = (url.clone(), Arc::clone(&session));
        thread::spawn(move || {
            let agent = agent();
            while let Ok(bytes) = rx.recv() {
                post_one(&agent, &u, &s, &bytes, deliver.clone());
            }
        });
        HttpLink {
            url,
            session,
            posts: Some(tx),
        }
    }

    /// Queues one message for POSTing.
    pub fn send(&self, bytes: &[u8]) -> Result<(), String> {
        self.posts
            .as_ref()
            .ok_or("the HTTP link is closed")?
            .send(bytes.to_vec())
            .map_err(|_| "the HTTP poster thread is gone".to_owned())
    }

    /// The session id, if `initialize` returned one.
    pub fn session_id(&self) -> Option<String> {
        lock(&self.session).clone()
    }

    /// Ends the session with DELETE; the status.
    pub fn delete(&self) -> Result<u16, String> {
        let sid = self.session_id().ok_or("no session id to DELETE")?;
        exchange("DELETE", &self.url, &[("mcp-session-id", &sid)], None).map(|e| e.status)
    }
}

fn post_one(
    agent: &ureq::Agent,
    url: &str,
    session: &Mutex<Option<String>>,
    bytes: &[u8],
    deliver: impl Fn(Delivery) + Send + 'static,
) {
    let mut req = agent.post(url);
    for (k, v) in POST_HEADERS {
        req = req.header(*k, *v);
    }
    req = req.header("mcp-protocol-version", "2025-11-25");
    if let Some(sid) = lock(session).clone() {
        req = req.header("mcp-session-id", sid);
    }
    let resp = match req.send(bytes) {
        Ok(r) => r,
        Err(e) => {
            deliver(Delivery::Violation(format!("POST failed: {e}")));
            return;
        }
    };
    let headers = header_map(&resp);
    if let Some(sid) = headers.get("mcp-session-id") {
        let mut s = lock(session);
        if s.is_none() {
            *s = Some(sid.clone());
        }
    }
    let status = resp.status().as_u16();
    let ctype = headers
        .get("content-type")
        .map(|c| c.to_ascii_lowercase())
        .unwrap_or_default();
    let reader = resp.into_body().into_reader();
    if status == 202 {
        return;
    }
    if ctype.starts_with("text/event-stream") && status == 200 {
        thread::spawn(move || read_sse(reader, &deliver));
        return;
    }
    let mut body = Vec::new();
    let mut reader = reader;
    let _ = reader.read_to_end(&mut body);
    if ctype.starts_with("application/json")
        && serde_json::from_slice::<serde_json::Value>(&body).is_ok()
    {
        // 4xx with a JSON-RPC error body (parse error, invalid request) is still a message.
        deliver(Delivery::Message(body));
        return;
    }
    let shown: String = String::from_utf8_lossy(&body).chars().take(200).collect();
    deliver(Delivery::Violation(format!(
        "HTTP {status} ({ctype}) without a JSON-RPC body: {shown}"
    )));
}

/// Delivers the data of every `message` event (WHATWG SSE: `data:` lines joined with `\n`).
fn read_sse(reader: impl Read, deliver: &impl Fn(Delivery)) {
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let mut data: Option<Vec<u8>> = None;
    let mut event = String::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.is_empty() {
            if let Some(d) = data.take() {
                if event.is_empty() || event == "message" {
                    deliver(Delivery::Message(d));
                }
            }
            event.clear();
            continue;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => continue,
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (&line[..], &b""[..]),
        };
        match field {
            b"data" => {
                let d = data.get_or_insert_with(Vec::new);
                if !d.is_empty() {
                    d.push(b'\n');
                }
                d.extend_from_slice(value);
            }
            b"event" => event = String::from_utf8_lossy(value).into_owned(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(text: &str) -> Vec<String> {
        let out = Mutex::new(Vec::new());
        read_sse(text.as_bytes(), &|d| {
            if let Delivery::Message(b) = d {
                lock(&out).push(String::from_utf8(b).unwrap());
            }
        });
        out.into_inner().unwrap()
    }

    #[test]
    fn sse_events_comments_crlf_and_multiline_data() {
        let got = events(
            ": keep-alive\n\nevent: message\ndata: {\"a\":1}\n\r\ndata:{\"b\"\ndata: :2}\r\n\r\nevent: other\ndata: x\n\nid: 7\ndata: last\n\n",
        );
        assert_eq!(got, ["{\"a\":1}", "{\"b\"\n:2}", "last"]);
    }

    #[test]
    fn an_unterminated_event_is_not_delivered() {
        assert!(events("data: {\"a\":1}\n").is_empty());
    }
}
