//! Fuzz entry points for the harness's own parsers (one-line cargo-fuzz targets call these).
//!
//! | entry point | oracle |
//! |---|---|
//! | [`fuzz_adapter_line`] | the reference adapter answers every line with one JSON object; a well-formed `run`/`hello`/`bye` frame gets a reply the harness's own frame validator accepts |
//! | [`fuzz_protocol_reply`] | the harness's reply validators never panic; an accepted `run` reply re-serializes to a reply that is accepted again with the same outcome |
//! | [`fuzz_mcp_line`] | MCP line framing: every read terminates, no line exceeds the limit or contains `\n`, and without overflow the lines re-join to the input |
//!
//! They panic only when an oracle is violated.

// Oracle assertions are the point of this module.
#![allow(clippy::panic)]

use std::io::{BufReader, Cursor};

use serde_json::{json, Value};

use crate::adapter_server::{handle_line, Step};
use crate::mcp::wire::{read_line, Line};
use crate::protocol::{parse_bye_reply, parse_hello_reply, parse_run_reply, RunOutcome};

/// One request line through the reference adapter's frame handler.
pub fn fuzz_adapter_line(data: &[u8]) {
    let (Step::Continue(reply) | Step::Exit(reply)) = handle_line(data);
    let Some(map) = reply.as_object() else {
        panic!("reply is not an object: {reply}");
    };
    assert!(map.contains_key("seq"), "reply lacks seq: {reply}");
    let line = reply.to_string().into_bytes();
    assert!(!line.contains(&b'\n'), "reply is not one line");
    let Ok(frame) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let Some(seq) = frame.get("seq").and_then(Value::as_u64) else {
        return;
    };
    match frame.get("cmd").and_then(Value::as_str) {
        Some("run") => {
            let case = frame.get("case").and_then(Value::as_object);
            let well_formed = case.is_some_and(|c| {
                c.get("op").is_some_and(Value::is_string) && c.contains_key("input")
            });
            if well_formed {
                let parsed = parse_run_reply(&line, seq);
                assert!(
                    parsed.is_ok(),
                    "reference reply rejected: {parsed:?} {reply}"
                );
            }
        }
        Some("hello") if seq == 0 && frame.get("protocol").and_then(Value::as_u64) == Some(1) => {
            let parsed = parse_hello_reply(&line);
            assert!(parsed.is_ok(), "hello reply rejected: {parsed:?}");
        }
        Some("bye") => {
            let parsed = parse_bye_reply(&line, seq);
            assert!(parsed.is_ok(), "bye reply rejected: {parsed:?}");
        }
        _ => {}
    }
}

fn outcome_to_reply(outcome: &RunOutcome, seq: u64) -> Value {
    match outcome {
        RunOutcome::Ok { output } => json!({"seq": seq, "outcome": "ok", "output": output}),
        RunOutcome::Error { code, detail } => match detail {
            Some(d) => json!({"seq": seq, "outcome": "error", "code": code, "detail": d}),
            None => json!({"seq": seq, "outcome": "error", "code": code}),
        },
        RunOutcome::Skipped { reason } => {
            json!({"seq": seq, "outcome": "skipped", "reason": reason})
        }
        RunOutcome::Errored { message } => {
            json!({"seq": seq, "outcome": "errored", "message": message})
        }
        RunOutcome::Threw { message } => {
            json!({"seq": seq, "outcome": "threw", "message": message})
        }
    }
}

/// An adapter's reply line through the harness's validators.
pub fn fuzz_protocol_reply(data: &[u8]) {
    let _ = parse_hello_reply(data);
    let _ = parse_bye_reply(data, 1);
    let seq = serde_json::from_slice::<Value>(data)
        .ok()
        .and_then(|v| v.get("seq").and_then(Value::as_u64))
        .unwrap_or(1);
    if let Ok(outcome) = parse_run_reply(data, seq) {
        let line = outcome_to_reply(&outcome, seq).to_string().into_bytes();
        let again = parse_run_reply(&line, seq);
        assert_eq!(again.as_ref().ok(), Some(&outcome), "reply round trip");
    }
}

/// MCP stdio line framing. Byte 0 sets the reader's buffer size and byte 1 the line limit, so
/// line boundaries fall on every buffer boundary.
pub fn fuzz_mcp_line(data: &[u8]) {
    let [cap, max, rest @ ..] = data else {
        return;
    };
    let max = usize::from(*max);
    let mut reader = BufReader::with_capacity(usize::from(*cap % 16) + 1, Cursor::new(rest));
    let mut lines = Vec::new();
    let mut overflow = false;
    // Each call consumes at least one byte or returns Eof, so this terminates.
    for _ in 0..=rest.len() + 1 {
        match read_line(&mut reader, max) {
            Ok(Line::Data(l)) => {
                assert!(l.len() <= max, "line above the limit");
                assert!(!l.contains(&b'\n'), "line contains a newline");
                lines.push(l);
            }
            Ok(Line::TooLong) => overflow = true,
            Ok(Line::Eof) => {
                if !overflow {
                    let joined = lines.join(&b'\n');
                    let want = rest.strip_suffix(b"\n").unwrap_or(rest);
                    assert_eq!(joined, want, "lines do not re-join to the input");
                }
                return;
            }
            Err(e) => panic!("in-memory read failed: {e}"),
        }
    }
    panic!("read_line did not reach Eof");
}
