//! The adapter protocol, version 1: typed frames and the validation of every frame.
//!
//! This module owns the wire format described in `spec/adapter-protocol.md` and nothing else:
//! it turns the harness's requests into lines and turns an adapter's lines into typed replies
//! or a precise [`ProtocolError`]. It never touches a process; `runner::process` moves the
//! bytes and decides what to do when a frame is bad.
//!
//! Validation is strict on purpose: unknown top-level fields, a wrong `seq`, an unknown
//! `outcome`, a missing or mistyped field are protocol errors, reported separately from
//! conformance failures, because an adapter that speaks the protocol loosely would otherwise
//! turn its own bugs into "failures" of the implementation it wraps.

use serde_json::{Map, Value};

/// The protocol version this harness speaks (`hello.protocol`).
pub const PROTOCOL_VERSION: u64 = 1;

/// The longest line the harness accepts from an adapter, in bytes (newline excluded).
/// A longer line is a protocol error and the adapter is restarted.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Why a frame received from an adapter was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The line is not valid UTF-8.
    #[error("reply is not valid UTF-8")]
    NotUtf8,
    /// The line is not JSON.
    #[error("reply is not JSON: {0}")]
    NotJson(String),
    /// The line is JSON but not an object.
    #[error("reply is not a JSON object")]
    NotObject,
    /// A required field is absent.
    #[error("reply lacks required field `{0}`")]
    MissingField(&'static str),
    /// A field has the wrong JSON type or an empty value.
    #[error("field `{field}` must be {expected}")]
    WrongType {
        /// Field name (dotted for nested fields).
        field: &'static str,
        /// What it should have been.
        expected: &'static str,
    },
    /// A field the protocol does not define.
    #[error("unknown field `{0}` in reply")]
    UnknownField(String),
    /// The reply echoes another request's sequence number.
    #[error("reply carries seq {got}, expected {expected}")]
    WrongSeq {
        /// The seq of the request in flight.
        expected: u64,
        /// What the adapter sent.
        got: String,
    },
    /// `outcome` is not one of `ok`, `error`, `skipped`, `errored`.
    #[error("unknown outcome {0:?}")]
    UnknownOutcome(String),
    /// The adapter answered `hello` with a protocol version the harness does not speak.
    #[error("adapter speaks protocol {got}, harness speaks {PROTOCOL_VERSION}")]
    UnsupportedProtocol {
        /// What the adapter sent.
        got: String,
    },
    /// A line exceeded [`MAX_LINE_BYTES`] (or the configured limit).
    #[error("reply line exceeds {limit} bytes")]
    LineTooLong {
        /// The limit in force.
        limit: usize,
    },
    /// The adapter wrote a partial line and then closed stdout.
    #[error("stdout closed in the middle of a line")]
    TruncatedLine,
}

impl ProtocolError {
    /// A stable, snake_case name for reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::NotUtf8 => "not_utf8",
            Self::NotJson(_) => "not_json",
            Self::NotObject => "not_object",
            Self::MissingField(_) => "missing_field",
            Self::WrongType { .. } => "wrong_type",
            Self::UnknownField(_) => "unknown_field",
            Self::WrongSeq { .. } => "wrong_seq",
            Self::UnknownOutcome(_) => "unknown_outcome",
            Self::UnsupportedProtocol { .. } => "unsupported_protocol",
            Self::LineTooLong { .. } => "line_too_long",
            Self::TruncatedLine => "truncated_line",
        }
    }
}

/// How many bytes of an offending adapter line a protocol error quotes.
pub const QUOTE_BYTES: usize = 200;

/// The first [`QUOTE_BYTES`] of `line`, lossily decoded and escaped (quotes, control
/// characters, non-UTF-8 bytes shown as U+FFFD), with the total length when cut: what an error
/// message shows of the line an adapter printed.
pub fn quote_line(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let shown = line.get(..QUOTE_BYTES).unwrap_or(line);
    let text = String::from_utf8_lossy(shown);
    if shown.len() < line.len() {
        format!("{text:?}… ({} bytes in all)", line.len())
    } else {
        format!("{text:?}")
    }
}

/// `implementation` in the hello reply.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Implementation {
    /// Human name of the implementation (required).
    pub name: String,
    /// Its version (required).
    pub version: String,
    /// Programming language (optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Project URL (optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
}

/// A validated reply to `hello`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelloReply {
    /// Who answered.
    pub implementation: Implementation,
    /// The operations the adapter supports; cases for other ops are skipped unsent.
    pub operations: Vec<String>,
    /// The options (`delegateos_vectors::options`) the implementation has; a case needing
    /// another is skipped unsent ("needs option X"). Absent in `hello`: none.
    pub options: Vec<String>,
}

/// What the adapter said about one case: the judge's
/// [`ActualOutcome`](delegateos_vectors::ActualOutcome) under the protocol's name, so a parsed
/// reply goes to the judge as it is.
pub use delegateos_vectors::judge::ActualOutcome as RunOutcome;

/// Requests the harness sends.
#[derive(Debug, Clone, PartialEq)]
pub enum Request<'a> {
    /// Handshake, always seq 0.
    Hello,
    /// Run one case.
    Run {
        /// Sequence number (1, 2, … per adapter process).
        seq: u64,
        /// Case id.
        id: &'a str,
        /// Operation name.
        op: &'a str,
        /// Operation input.
        input: &'a Value,
    },
    /// Orderly shutdown.
    Bye {
        /// Sequence number.
        seq: u64,
    },
}

impl Request<'_> {
    /// The request's seq.
    pub fn seq(&self) -> u64 {
        match self {
            Request::Hello => 0,
            Request::Run { seq, .. } | Request::Bye { seq } => *seq,
        }
    }

    /// The request as a JSON value.
    pub fn to_value(&self) -> Value {
        match self {
            Request::Hello => {
                serde_json::json!({"cmd":"hello","seq":0,"protocol":PROTOCOL_VERSION})
            }
            Request::Run { seq, id, op, input } => serde_json::json!({
                "cmd": "run",
                "seq": seq,
                "case": {"id": id, "op": op, "input": input},
            }),
            Request::Bye { seq } => serde_json::json!({"cmd":"bye","seq":seq}),
        }
    }

    /// The request as one `\n`-terminated line. serde_json never emits a raw newline inside a
    /// compact document, so the frame is always exactly one line.
    pub fn to_line(&self) -> Vec<u8> {
        let mut line = self.to_value().to_string().into_bytes();
        line.push(b'\n');
        line
    }
}

fn parse_object(line: &[u8]) -> Result<Map<String, Value>, ProtocolError> {
    if line.len() > MAX_LINE_BYTES {
        return Err(ProtocolError::LineTooLong {
            limit: MAX_LINE_BYTES,
        });
    }
    let text = std::str::from_utf8(line).map_err(|_| ProtocolError::NotUtf8)?;
    let text = text.strip_suffix('\r').unwrap_or(text);
    let parsed = serde_json::from_str::<Value>(text).or_else(|e| {
        // RFC 8259 §8.2 allows a string escape of a lone surrogate (`"\ud800"`), which
        // serde_json refuses; such a reply is JSON and must be judged, not called a protocol
        // error (issue 27).
        match visible_lone_surrogates(text) {
            Some(rewritten) => serde_json::from_str::<Value>(&rewritten).map_err(|_| e),
            None => Err(e),
        }
    });
    match parsed {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ProtocolError::NotObject),
        Err(e) => Err(ProtocolError::NotJson(e.to_string())),
    }
}

/// `text` with every lone-surrogate escape inside a string (`\uD800`–`\uDFFF` not part of a
/// high-low pair) turned into the six characters `\uXXXX` themselves (its backslash escaped),
/// or `None` if there is none. A Rust string cannot hold a lone surrogate, so the harness reads
/// one as that visible text: a reply that carries one is judged (and its diff shows the escape,
/// e.g. an implementation that accepted a lone surrogate where the case expects a refusal),
/// while a reply that is not JSON at all stays a protocol error. Documented in
/// `spec/adapter-protocol.md` ("Lone surrogates in replies").
pub fn visible_lone_surrogates(text: &str) -> Option<String> {
    fn surrogate_at(b: &[u8], i: usize) -> Option<u16> {
        // `b[i]` is the backslash of `\uXXXX`.
        if b.get(i + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(b.get(i + 2..i + 6)?).ok()?;
        let v = u16::from_str_radix(hex, 16).ok()?;
        (0xD800..=0xDFFF).contains(&v).then_some(v)
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    let (mut in_string, mut changed, mut i, mut copied) = (false, false, 0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => match surrogate_at(b, i) {
                Some(0xD800..=0xDBFF) if surrogate_at(b, i + 6).is_some_and(|lo| lo >= 0xDC00) => {
                    i += 12;
                }
                Some(_) => {
                    out.push_str(&text[copied..i]);
                    out.push('\\');
                    copied = i;
                    changed = true;
                    i += 6;
                }
                None => i += 2,
            },
            _ => i += 1,
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

fn only_fields(map: &Map<String, Value>, allowed: &[&str]) -> Result<(), ProtocolError> {
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(ProtocolError::UnknownField(k.clone())),
        None => Ok(()),
    }
}

fn check_seq(map: &Map<String, Value>, expected: u64) -> Result<(), ProtocolError> {
    match map.get("seq") {
        None => Err(ProtocolError::MissingField("seq")),
        Some(v) if v.as_u64() == Some(expected) => Ok(()),
        Some(v) if v.is_u64() => Err(ProtocolError::WrongSeq {
            expected,
            got: v.to_string(),
        }),
        Some(_) => Err(ProtocolError::WrongType {
            field: "seq",
            expected: "a non-negative integer",
        }),
    }
}

fn req_str(
    map: &Map<String, Value>,
    field: &'static str,
    allow_empty: bool,
) -> Result<String, ProtocolError> {
    match map.get(field) {
        None => Err(ProtocolError::MissingField(field)),
        Some(Value::String(s)) if allow_empty || !s.is_empty() => Ok(s.clone()),
        Some(_) => Err(ProtocolError::WrongType {
            field,
            expected: if allow_empty {
                "a string"
            } else {
                "a non-empty string"
            },
        }),
    }
}

fn opt_str(map: &Map<String, Value>, field: &'static str) -> Result<Option<String>, ProtocolError> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ProtocolError::WrongType {
            field,
            expected: "a string",
        }),
    }
}

/// Validates a reply to `hello`.
pub fn parse_hello_reply(line: &[u8]) -> Result<HelloReply, ProtocolError> {
    let map = parse_object(line)?;
    only_fields(
        &map,
        &["seq", "protocol", "implementation", "operations", "options"],
    )?;
    check_seq(&map, 0)?;
    match map.get("protocol") {
        None => return Err(ProtocolError::MissingField("protocol")),
        Some(v) if v.as_u64() == Some(PROTOCOL_VERSION) => {}
        Some(v) => {
            return Err(ProtocolError::UnsupportedProtocol { got: v.to_string() });
        }
    }
    let implementation = match map.get("implementation") {
        None => return Err(ProtocolError::MissingField("implementation")),
        Some(Value::Object(imp)) => Implementation {
            // Extra keys inside `implementation` are allowed: it is free-form metadata.
            name: req_str(imp, "name", false).map_err(|e| rename(e, "implementation.name"))?,
            version: req_str(imp, "version", false)
                .map_err(|e| rename(e, "implementation.version"))?,
            language: opt_str(imp, "language").map_err(|e| rename(e, "implementation.language"))?,
            homepage: opt_str(imp, "homepage").map_err(|e| rename(e, "implementation.homepage"))?,
        },
        Some(_) => {
            return Err(ProtocolError::WrongType {
                field: "implementation",
                expected: "an object",
            })
        }
    };
    let operations = match map.get("operations") {
        None => return Err(ProtocolError::MissingField("operations")),
        Some(Value::Array(items)) => {
            let mut ops = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::String(s) if !s.is_empty() => ops.push(s.clone()),
                    _ => {
                        return Err(ProtocolError::WrongType {
                            field: "operations",
                            expected: "an array of non-empty strings",
                        })
                    }
                }
            }
            ops
        }
        Some(_) => {
            return Err(ProtocolError::WrongType {
                field: "operations",
                expected: "an array of non-empty strings",
            })
        }
    };
    let options = match map.get("options") {
        None => Vec::new(),
        Some(Value::Array(items)) => {
            let mut names = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::String(s) if !s.is_empty() => names.push(s.clone()),
                    _ => {
                        return Err(ProtocolError::WrongType {
                            field: "options",
                            expected: "an array of non-empty strings",
                        })
                    }
                }
            }
            names
        }
        Some(_) => {
            return Err(ProtocolError::WrongType {
                field: "options",
                expected: "an array of non-empty strings",
            })
        }
    };
    Ok(HelloReply {
        implementation,
        operations,
        options,
    })
}

fn rename(e: ProtocolError, field: &'static str) -> ProtocolError {
    match e {
        ProtocolError::MissingField(_) => ProtocolError::MissingField(field),
        ProtocolError::WrongType { expected, .. } => ProtocolError::WrongType { field, expected },
        other => other,
    }
}

/// Validates a reply to `run` with sequence number `seq`.
pub fn parse_run_reply(line: &[u8], seq: u64) -> Result<RunOutcome, ProtocolError> {
    let map = parse_object(line)?;
    check_seq(&map, seq)?;
    let outcome = req_str(&map, "outcome", false)?;
    match outcome.as_str() {
        "ok" => {
            only_fields(&map, &["seq", "outcome", "output"])?;
            let output = map
                .get("output")
                .cloned()
                .ok_or(ProtocolError::MissingField("output"))?;
            Ok(RunOutcome::Ok { output })
        }
        "error" => {
            only_fields(&map, &["seq", "outcome", "code", "detail"])?;
            Ok(RunOutcome::Error {
                code: req_str(&map, "code", false)?,
                detail: opt_str(&map, "detail")?,
            })
        }
        "skipped" => {
            only_fields(&map, &["seq", "outcome", "reason"])?;
            Ok(RunOutcome::Skipped {
                reason: opt_str(&map, "reason")?.unwrap_or_default(),
            })
        }
        "errored" => {
            only_fields(&map, &["seq", "outcome", "message"])?;
            Ok(RunOutcome::Errored {
                message: opt_str(&map, "message")?.unwrap_or_default(),
            })
        }
        "threw" => {
            only_fields(&map, &["seq", "outcome", "message"])?;
            Ok(RunOutcome::Threw {
                message: opt_str(&map, "message")?.unwrap_or_default(),
            })
        }
        _ => Err(ProtocolError::UnknownOutcome(outcome)),
    }
}

/// Validates the optional reply to `bye`.
pub fn parse_bye_reply(line: &[u8], seq: u64) -> Result<(), ProtocolError> {
    let map = parse_object(line)?;
    only_fields(&map, &["seq", "outcome"])?;
    check_seq(&map, seq)?;
    match req_str(&map, "outcome", false)?.as_str() {
        "ok" => Ok(()),
        other => Err(ProtocolError::UnknownOutcome(other.to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hello_roundtrip() {
        let line = br#"{"seq":0,"protocol":1,"implementation":{"name":"x","version":"1","extra":3},"operations":["dct.verify"]}"#;
        let h = parse_hello_reply(line).unwrap();
        assert_eq!(h.implementation.name, "x");
        assert_eq!(h.operations, vec!["dct.verify".to_owned()]);
    }

    #[test]
    fn hello_rejects_other_version() {
        let line = br#"{"seq":0,"protocol":2,"implementation":{"name":"x","version":"1"},"operations":[]}"#;
        assert_eq!(
            parse_hello_reply(line).unwrap_err().kind(),
            "unsupported_protocol"
        );
    }

    #[test]
    fn lone_surrogate_escapes_are_json_and_judged() {
        // RFC 8259 §8.2: valid JSON text; the harness reads the escape as visible text.
        let line = br#"{"seq":3,"outcome":"ok","output":{"revocationIds":["\ud800","\ud83d\ude00","a\\ud800","\udc00x"]}}"#;
        match parse_run_reply(line, 3) {
            Ok(RunOutcome::Ok { output }) => assert_eq!(
                output["revocationIds"],
                serde_json::json!(["\\ud800", "\u{1f600}", "a\\ud800", "\\udc00x"])
            ),
            other => panic!("{other:?}"),
        }
        // A key may carry one too; a high surrogate followed by a non-low escape is lone.
        assert!(parse_run_reply(
            br#"{"seq":1,"outcome":"ok","output":{"\ud800\u0041":1}}"#,
            1
        )
        .is_ok());
        // Not JSON at all stays a protocol error.
        assert_eq!(
            parse_run_reply(br#"{"seq":1,"outcome":"ok","output":{"a":"\ud800}"#, 1)
                .unwrap_err()
                .kind(),
            "not_json"
        );
        assert_eq!(visible_lone_surrogates(r#"{"a":"\ud83d\ude00"}"#), None);
    }

    #[test]
    fn run_reply_validation() {
        assert!(matches!(
            parse_run_reply(br#"{"seq":3,"outcome":"ok","output":{"a":1}}"#, 3),
            Ok(RunOutcome::Ok { .. })
        ));
        assert_eq!(
            parse_run_reply(br#"{"seq":4,"outcome":"ok","output":1}"#, 3)
                .unwrap_err()
                .kind(),
            "wrong_seq"
        );
        assert_eq!(
            parse_run_reply(br#"{"seq":3,"outcome":"maybe"}"#, 3)
                .unwrap_err()
                .kind(),
            "unknown_outcome"
        );
        assert_eq!(
            parse_run_reply(br#"{"seq":3,"outcome":"ok"}"#, 3)
                .unwrap_err()
                .kind(),
            "missing_field"
        );
        assert_eq!(
            parse_run_reply(br#"{"seq":3,"outcome":"error","code":""}"#, 3)
                .unwrap_err()
                .kind(),
            "wrong_type"
        );
        assert_eq!(
            parse_run_reply(br#"{"seq":3,"outcome":"error","code":"x","extra":1}"#, 3)
                .unwrap_err()
                .kind(),
            "unknown_field"
        );
        assert_eq!(
            parse_run_reply(b"hello world", 3).unwrap_err().kind(),
            "not_json"
        );
        assert_eq!(
            parse_run_reply(b"\xff\xfe", 3).unwrap_err().kind(),
            "not_utf8"
        );
        assert_eq!(parse_run_reply(b"[1]", 3).unwrap_err().kind(), "not_object");
        assert_eq!(
            parse_run_reply(br#"{"seq":"3","outcome":"ok","output":1}"#, 3)
                .unwrap_err()
                .kind(),
            "wrong_type"
        );
    }

    #[test]
    fn quoted_lines_are_bounded_and_escaped() {
        assert_eq!(quote_line(b"Welcome!\r"), r#""Welcome!""#);
        let q = quote_line(b"a\x1b[1m\"b\xff");
        assert!(q.contains(r"\u{1b}") && q.contains(r#"\"b"#), "{q}");
        let long = quote_line(&[b'x'; 5000]);
        assert!(long.len() < 260, "{long}");
        assert!(long.ends_with("(5000 bytes in all)"), "{long}");
    }

    #[test]
    fn request_lines_are_single_lines() {
        let input = serde_json::json!({"s": "a\nb"});
        let line = Request::Run {
            seq: 7,
            id: "x",
            op: "y",
            input: &input,
        }
        .to_line();
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
        assert_eq!(line.last(), Some(&b'\n'));
    }
}
