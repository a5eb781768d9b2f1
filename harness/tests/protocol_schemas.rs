//! The adapter-frame schemas in `spec/schemas/adapter-*.schema.json` and the harness's frame
//! validation (`delegateos_conform::protocol`) must agree: every frame the harness sends
//! validates, and a reply is accepted by the parser exactly when it validates.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use delegateos_conform::protocol::{parse_bye_reply, parse_hello_reply, parse_run_reply, Request};
use serde_json::{json, Value};

fn schema(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../spec/schemas")
        .join(name);
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&value).unwrap()
}

#[test]
fn every_request_the_harness_sends_validates() {
    let input = json!({"token": {"a": [1, 2]}, "now": "2026-01-01T00:00:00Z"});
    assert!(schema("adapter-hello-request.schema.json").is_valid(&Request::Hello.to_value()));
    let run = Request::Run {
        seq: 3,
        id: "dct-verify-0001",
        op: "dct.verify",
        input: &input,
    };
    assert!(schema("adapter-run-request.schema.json").is_valid(&run.to_value()));
    assert!(schema("adapter-bye.schema.json").is_valid(&Request::Bye { seq: 4 }.to_value()));
    // Lines are the compact JSON of the value plus exactly one newline.
    let line = run.to_line();
    let parsed: Value = serde_json::from_slice(&line[..line.len() - 1]).unwrap();
    assert_eq!(parsed, run.to_value());
}

#[test]
fn run_reply_parser_agrees_with_schema() {
    let v = schema("adapter-run-reply.schema.json");
    let samples = [
        json!({"seq": 5, "outcome": "ok", "output": {"valid": true}}),
        json!({"seq": 5, "outcome": "ok", "output": null}),
        json!({"seq": 5, "outcome": "ok"}),
        json!({"seq": 5, "outcome": "ok", "output": {}, "extra": 1}),
        json!({"seq": 5, "outcome": "error", "code": "revoked"}),
        json!({"seq": 5, "outcome": "error", "code": "revoked", "detail": "block 1"}),
        json!({"seq": 5, "outcome": "error", "code": "revoked", "detail": null}),
        json!({"seq": 5, "outcome": "error", "code": ""}),
        json!({"seq": 5, "outcome": "error", "code": 7}),
        json!({"seq": 5, "outcome": "error"}),
        json!({"seq": 5, "outcome": "skipped", "reason": "no attestations"}),
        json!({"seq": 5, "outcome": "skipped"}),
        json!({"seq": 5, "outcome": "skipped", "reason": 3}),
        json!({"seq": 5, "outcome": "errored", "message": "NullPointerException"}),
        json!({"seq": 5, "outcome": "errored", "output": {}}),
        json!({"seq": 5, "outcome": "maybe"}),
        json!({"seq": 5, "outcome": ""}),
        json!({"seq": 5}),
        json!({"outcome": "ok", "output": {}}),
        json!({"seq": "5", "outcome": "ok", "output": {}}),
        json!({"seq": -5, "outcome": "ok", "output": {}}),
        json!([5, "ok"]),
    ];
    for sample in samples {
        let line = sample.to_string();
        let parsed = parse_run_reply(line.as_bytes(), 5);
        assert_eq!(
            parsed.is_ok(),
            v.is_valid(&sample),
            "parser and schema disagree on {sample}: {parsed:?}"
        );
    }
}

#[test]
fn hello_reply_parser_agrees_with_schema() {
    let v = schema("adapter-hello-reply.schema.json");
    let imp = json!({"name": "x", "version": "1", "language": "go", "issues": "url"});
    let samples = [
        json!({"seq": 0, "protocol": 1, "implementation": imp, "operations": ["dct.verify"]}),
        json!({"seq": 0, "protocol": 1, "implementation": imp, "operations": []}),
        json!({"seq": 0, "protocol": 2, "implementation": imp, "operations": []}),
        json!({"seq": 1, "protocol": 1, "implementation": imp, "operations": []}),
        json!({"seq": 0, "implementation": imp, "operations": []}),
        json!({"seq": 0, "protocol": 1, "operations": []}),
        json!({"seq": 0, "protocol": 1, "implementation": {"name": "x"}, "operations": []}),
        json!({"seq": 0, "protocol": 1, "implementation": {"name": "", "version": "1"}, "operations": []}),
        json!({"seq": 0, "protocol": 1, "implementation": imp}),
        json!({"seq": 0, "protocol": 1, "implementation": imp, "operations": [""]}),
        json!({"seq": 0, "protocol": 1, "implementation": imp, "operations": "dct.verify"}),
        json!({"seq": 0, "protocol": 1, "implementation": imp, "operations": [], "x": 1}),
    ];
    for sample in samples {
        let line = sample.to_string();
        let parsed = parse_hello_reply(line.as_bytes());
        assert_eq!(
            parsed.is_ok(),
            v.is_valid(&sample),
            "parser and schema disagree on {sample}: {parsed:?}"
        );
    }
}

#[test]
fn bye_reply_parser_agrees_with_schema() {
    let v = schema("adapter-bye.schema.json");
    for sample in [
        json!({"seq": 9, "outcome": "ok"}),
        json!({"seq": 9, "outcome": "error"}),
        json!({"seq": 9}),
        json!({"seq": 9, "outcome": "ok", "x": 1}),
    ] {
        let parsed = parse_bye_reply(sample.to_string().as_bytes(), 9);
        assert_eq!(parsed.is_ok(), v.is_valid(&sample), "{sample}: {parsed:?}");
    }
}

#[test]
fn non_json_lines_are_protocol_errors() {
    for line in [
        &b""[..],
        b"   ",
        b"hello",
        b"\xff\xfe{}",
        b"{\"seq\":5,",
        b"null",
    ] {
        assert!(parse_run_reply(line, 5).is_err(), "{line:?}");
    }
}
