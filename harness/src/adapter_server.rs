//! The reference adapter: the adapter protocol (`spec/adapter-protocol.md`) served over any
//! reader/writer pair by calling `delegateos_reference::ops::run`.
//!
//! This is how the harness drives the built-in reference — through the same protocol as any
//! third-party implementation, so the protocol path is always exercised. The binary
//! `delegateos-reference-adapter` is a thin wrapper around [`serve`].
//!
//! Robustness rules: every input line gets exactly one reply line; a line that is not a valid
//! frame gets an `errored` reply (with the request's `seq` when it can be recovered, else
//! `null`) and the loop continues; a line longer than [`MAX_LINE_BYTES`] is discarded without
//! buffering it whole; `bye` or end of input ends the loop. Nothing here panics.

use std::io::{self, BufRead, Write};

use serde_json::{json, Map, Value};

use delegateos_reference::ops::{self, Outcome, OPERATIONS};

/// The protocol version served.
pub const PROTOCOL_VERSION: u64 = 1;

/// Longest accepted request line in bytes, newline excluded (64 MiB).
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// What to do after answering one line.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Write the reply and keep reading.
    Continue(Value),
    /// Write the reply and stop (after `bye`).
    Exit(Value),
}

/// The `implementation` object of the hello reply.
pub fn implementation() -> Value {
    json!({
        "name": "delegateos-reference",
        "version": env!("CARGO_PKG_VERSION"),
        "language": "rust",
        "homepage": "https://example.invalid/delegateos-conformance",
    })
}

fn errored(seq: Value, message: impl Into<String>) -> Value {
    json!({ "seq": seq, "outcome": "errored", "message": message.into() })
}

/// Answers one request line.
pub fn handle_line(line: &[u8]) -> Step {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => return Step::Continue(errored(Value::Null, format!("frame is not JSON: {e}"))),
    };
    let Some(frame) = value.as_object() else {
        return Step::Continue(errored(Value::Null, "frame is not a JSON object"));
    };
    let seq = match frame.get("seq") {
        Some(Value::Number(n)) if n.is_u64() => Value::Number(n.clone()),
        Some(_) => {
            return Step::Continue(errored(Value::Null, "`seq` must be a non-negative integer"))
        }
        None => return Step::Continue(errored(Value::Null, "frame lacks `seq`")),
    };
    match frame.get("cmd").and_then(Value::as_str) {
        Some("hello") => Step::Continue(hello(frame, seq)),
        Some("run") => Step::Continue(run(frame, seq)),
        Some("bye") => Step::Exit(json!({ "seq": seq, "outcome": "ok" })),
        Some(other) => Step::Continue(errored(seq, format!("unknown cmd {other:?}"))),
        None => Step::Continue(errored(seq, "frame lacks a string `cmd`")),
    }
}

fn hello(frame: &Map<String, Value>, seq: Value) -> Value {
    match frame.get("protocol").and_then(Value::as_u64) {
        Some(PROTOCOL_VERSION) => json!({
            "seq": seq,
            "protocol": PROTOCOL_VERSION,
            "implementation": implementation(),
            "operations": OPERATIONS,
            // The reference has every option of the corpus (vectors/src/options.rs).
            "options": delegateos_vectors::options::ALL.iter().map(|o| o.name).collect::<Vec<_>>(),
        }),
        Some(other) => errored(seq, format!("unsupported protocol version {other}")),
        None => errored(seq, "hello lacks an integer `protocol`"),
    }
}

fn run(frame: &Map<String, Value>, seq: Value) -> Value {
    let Some(case) = frame.get("case").and_then(Value::as_object) else {
        return errored(seq, "run lacks a `case` object");
    };
    let Some(op) = case.get("op").and_then(Value::as_str) else {
        return errored(seq, "case lacks a string `op`");
    };
    let Some(input) = case.get("input") else {
        return errored(seq, "case lacks `input`");
    };
    let mut reply = match ops::run(op, input) {
        Outcome::Ok { output } => json!({ "outcome": "ok", "output": output }),
        Outcome::Error { code, detail } => {
            json!({ "outcome": "error", "code": code, "detail": detail })
        }
        Outcome::Unsupported { reason } => json!({ "outcome": "skipped", "reason": reason }),
    };
    if let Some(map) = reply.as_object_mut() {
        map.insert("seq".to_owned(), seq);
    }
    reply
}

/// One line read by [`read_line`].
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A complete line (newline removed).
    Complete(Vec<u8>),
    /// The line exceeded the limit; its bytes were consumed and dropped.
    TooLong,
}

/// Reads one `\n`-terminated line of at most `max` bytes; `None` at end of input. A final
/// line without a newline counts as a line.
pub fn read_line<R: BufRead>(reader: &mut R, max: usize) -> io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut too_long = false;
    let mut saw_any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(if !saw_any {
                None
            } else if too_long {
                Some(Line::TooLong)
            } else {
                Some(Line::Complete(buf))
            });
        }
        saw_any = true;
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf = Vec::new();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let consumed = done.unwrap_or(available.len());
        reader.consume(consumed);
        if done.is_some() {
            return Ok(Some(if too_long {
                Line::TooLong
            } else {
                Line::Complete(buf)
            }));
        }
    }
}

/// Serves the protocol until `bye` or end of input.
pub fn serve<R: BufRead, W: Write>(mut reader: R, mut writer: W) -> io::Result<()> {
    serve_with_limit(&mut reader, &mut writer, MAX_LINE_BYTES)
}

/// [`serve`] with an explicit line limit (tests use a small one).
pub fn serve_with_limit<R: BufRead, W: Write>(
    reader: &mut R,
    writer: &mut W,
    max_line: usize,
) -> io::Result<()> {
    while let Some(line) = read_line(reader, max_line)? {
        let step = match line {
            Line::Complete(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => continue,
            Line::Complete(bytes) => handle_line(&bytes),
            Line::TooLong => Step::Continue(errored(
                Value::Null,
                format!("frame longer than {max_line} bytes"),
            )),
        };
        let (reply, exit) = match step {
            Step::Continue(v) => (v, false),
            Step::Exit(v) => (v, true),
        };
        let mut text = serde_json::to_vec(&reply).map_err(io::Error::other)?;
        text.push(b'\n');
        writer.write_all(&text)?;
        writer.flush()?;
        if exit {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(input: &str, max: usize) -> Vec<Value> {
        let mut out = Vec::new();
        serve_with_limit(&mut input.as_bytes(), &mut out, max).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn hello_run_bye() {
        let replies = session(
            concat!(
                r#"{"cmd":"hello","seq":0,"protocol":1}"#,
                "\n",
                r#"{"cmd":"run","seq":1,"case":{"id":"x-0001","op":"glob.match","input":{"pattern":"*","resource":"/a"}}}"#,
                "\n",
                r#"{"cmd":"run","seq":2,"case":{"id":"x-0002","op":"no.such_op","input":{}}}"#,
                "\n",
                r#"{"cmd":"run","seq":3,"case":{"id":"x-0003","op":"glob.match","input":{"pattern":1}}}"#,
                "\n",
                r#"{"cmd":"bye","seq":4}"#,
                "\n",
                r#"{"cmd":"run","seq":5}"#,
                "\n",
            ),
            1024,
        );
        assert_eq!(replies.len(), 5, "{replies:?}");
        assert_eq!(replies[0]["protocol"], 1);
        assert!(replies[0]["operations"]
            .as_array()
            .unwrap()
            .contains(&json!("glob.match")));
        assert_eq!(
            replies[1],
            json!({"seq":1,"outcome":"ok","output":{"matches":true}})
        );
        assert_eq!(replies[2]["outcome"], "skipped");
        assert_eq!(replies[3]["outcome"], "error");
        assert_eq!(replies[3]["code"], "invalid_input");
        assert_eq!(replies[4], json!({"seq":4,"outcome":"ok"}));
    }

    #[test]
    fn bad_frames_get_errored_replies() {
        let long = format!(
            "{{\"cmd\":\"hello\",\"seq\":0,\"pad\":\"{}\"}}",
            "x".repeat(100)
        );
        let input = format!(
            "not json\n[1]\n{{\"cmd\":\"run\"}}\n{{\"cmd\":\"x\",\"seq\":7}}\n{long}\n\n{{\"cmd\":\"run\",\"seq\":8}}"
        );
        let replies = session(&input, 64);
        assert_eq!(replies.len(), 6, "{replies:?}");
        for r in &replies {
            assert_eq!(r["outcome"], "errored", "{r}");
        }
        assert_eq!(replies[3]["seq"], 7);
        assert_eq!(replies[5]["seq"], 8);
    }

    #[test]
    fn read_line_bounds_memory() {
        let data = format!("{}\nok\n", "y".repeat(10_000));
        let mut reader = io::BufReader::with_capacity(16, data.as_bytes());
        assert_eq!(read_line(&mut reader, 100).unwrap(), Some(Line::TooLong));
        assert_eq!(
            read_line(&mut reader, 100).unwrap(),
            Some(Line::Complete(b"ok".to_vec()))
        );
        assert_eq!(read_line(&mut reader, 100).unwrap(), None);
    }
}
