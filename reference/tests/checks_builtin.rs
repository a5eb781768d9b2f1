//! Built-in checks (§6.2, D12): semantics, parameter rules, ECMAScript regex divergences.

// Test helpers unwrap: a panic is the failure report here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use delegateos_reference::checks::ecma_regex::{EcmaRegex, MAX_PATTERN_UTF16, MAX_SUBJECT_BYTES};
use delegateos_reference::checks::{default_registry, CheckError, CheckResult};
use serde_json::{json, Value};

fn run(name: &str, output: Value, params: Value) -> Result<CheckResult, CheckError> {
    let f = default_registry().get(name).unwrap();
    f(&output, Some(&params))
}

fn passed(name: &str, output: Value, params: Value) -> bool {
    run(name, output, params).unwrap().passed
}

fn code(name: &str, output: Value, params: Value) -> &'static str {
    run(name, output, params).unwrap_err().code()
}

fn re(pattern: &str, flags: &str, subject: &str) -> bool {
    EcmaRegex::new(pattern, flags)
        .unwrap()
        .is_match(subject)
        .unwrap()
}

fn re_err(pattern: &str, flags: &str) -> &'static str {
    EcmaRegex::new(pattern, flags).unwrap_err().code()
}

#[test]
fn registry_holds_the_seven_builtins() {
    let r = default_registry();
    for name in [
        "array_length",
        "exit_code",
        "field_exists",
        "json_schema",
        "output_equals",
        "regex_match",
        "string_length",
    ] {
        assert!(r.get(name).is_ok(), "{name}");
    }
    assert_eq!(r.get("nope").unwrap_err().code(), "unknown_check");
}

#[test]
fn regex_match_basic_and_scores() {
    let r = run(
        "regex_match",
        json!("hello world"),
        json!({"pattern": "wor"}),
    )
    .unwrap();
    assert_eq!(
        r,
        CheckResult {
            passed: true,
            score: Some(1.0),
            details: None
        }
    );
    let r = run("regex_match", json!("hello"), json!({"pattern": "^x"})).unwrap();
    assert!(!r.passed);
    assert_eq!(r.score, Some(0.0));
    assert!(passed(
        "regex_match",
        json!({"a": {"b": "xyz"}}),
        json!({"pattern": "y", "field": "a.b"})
    ));
    // Missing field, non-string field, non-string output: fail, not error.
    assert!(!passed(
        "regex_match",
        json!({"a": 1}),
        json!({"pattern": "1", "field": "a"})
    ));
    assert!(!passed(
        "regex_match",
        json!({"a": 1}),
        json!({"pattern": "1", "field": "b"})
    ));
    assert!(!passed("regex_match", json!(1), json!({"pattern": "1"})));
}

#[test]
fn regex_match_params_and_flags() {
    assert_eq!(code("regex_match", json!("a"), json!({})), "invalid_params");
    assert_eq!(
        code("regex_match", json!("a"), json!({"pattern": 1})),
        "invalid_params"
    );
    assert_eq!(
        code(
            "regex_match",
            json!("a"),
            json!({"pattern": "a", "flag": "i"})
        ),
        "invalid_params"
    );
    for bad in ["g", "y", "ii", "x", "v", "d", "I"] {
        assert_eq!(
            code(
                "regex_match",
                json!("a"),
                json!({"pattern": "a", "flags": bad})
            ),
            "invalid_params",
            "{bad}"
        );
    }
    assert!(passed(
        "regex_match",
        json!("A"),
        json!({"pattern": "a", "flags": "imsu"})
    ));
    assert_eq!(
        code("regex_match", json!("a"), json!({"pattern": "(a"})),
        "invalid_params"
    );
    let f = default_registry().get("regex_match").unwrap();
    assert_eq!(f(&json!("a"), None).unwrap_err().code(), "invalid_params");
}

#[test]
fn regex_unsupported_features() {
    for p in [
        "(?=a)",
        "(?!a)",
        "(?<=a)",
        "(?<!a)",
        "(a)\\1",
        "(?<n>a)\\k<n>",
    ] {
        assert_eq!(re_err(p, ""), "unsupported_pattern", "{p}");
    }
    // Without `u`, \p is an identity escape.
    assert!(re("\\p{2}", "", "pp"));
}

#[test]
fn regex_unicode_property_escapes() {
    // Answers confirmed with node v20.20.2.
    assert!(re("^\\p{L}+$", "u", "é"));
    assert!(!re("^\\p{L}+$", "u", "a1"));
    assert!(re("^\\p{Lu}$", "u", "É"));
    assert!(!re("^\\p{Lu}$", "u", "é"));
    assert!(re("^\\P{L}$", "u", "1"));
    assert!(!re("^\\P{L}$", "u", "x"));
    assert!(re("^\\p{Script=Greek}+$", "u", "αβγ"));
    assert!(re("^\\p{sc=Greek}$", "u", "α"));
    assert!(!re("^\\p{sc=Greek}$", "u", "a"));
    assert!(re("^\\p{General_Category=Letter}$", "u", "ж"));
    assert!(re("^\\p{Letter}$", "u", "ж"));
    assert!(re("^\\p{scx=Grek}$", "u", "α"));
    assert!(re("^[\\p{L}\\d]+$", "u", "ab12"));
    assert!(!re("^[^\\p{L}]$", "u", "é"));
    assert!(re("^\\p{Lu}$", "ui", "é"));
    assert!(re("^\\P{Lu}$", "ui", "A"));
    assert!(!re("^[^\\p{Lu}]$", "ui", "a"));
    assert!(re("^\\p{sc=Unknown}$", "u", "\u{E000}"));
    assert!(!re("^\\p{scx=Zzzz}$", "u", "a"));
    assert!(re("^\\p{Zl}$", "u", "\u{2028}"));
    assert!(!re("^\\p{Cs}$", "u", "a"));
    assert!(re("^\\p{Any}$", "u", "😀"));
    // Without `u`: `\p{L}` is the text `p{L}`.
    assert!(re("^\\p{L}$", "", "p{L}"));
    assert!(!re("^\\p{L}$", "", "é"));
    for p in [
        "\\p{letter}",
        "\\p{Letters}",
        "\\p{Script=greek}",
        "\\p{sc=Foo}",
        "\\p{L",
        "\\p",
        "\\p{}",
        "\\p{Greek}",
        "[\\p{L}-z]",
        "\\p{Script}",
        "\\p{ Lu}",
        "\\p{sc=Hrkt}",
    ] {
        assert_eq!(re_err(p, "u"), "invalid_params", "{p}");
    }
    assert_eq!(re_err("\\p{CWKCF}", "u"), "unsupported_pattern");
}

#[test]
fn regex_hostile_patterns_are_linear() {
    let start = Instant::now();
    let subject = format!("{}!", "a".repeat(30));
    assert!(!re("^(a+)+$", "", &subject));
    let long = format!("{}!", "a".repeat(100_000));
    assert!(!re("^(a|aa)*$", "", &long));
    assert!(!re("^(\\w+\\s?)*$", "", &long));
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn regex_limits() {
    let p = "a".repeat(MAX_PATTERN_UTF16);
    assert!(EcmaRegex::new(&p, "").is_ok());
    assert_eq!(
        re_err(&"a".repeat(MAX_PATTERN_UTF16 + 1), ""),
        "limit_exceeded"
    );
    // 😀 is two UTF-16 units.
    assert_eq!(
        re_err(&"😀".repeat(MAX_PATTERN_UTF16 / 2 + 1), ""),
        "limit_exceeded"
    );
    let r = EcmaRegex::new("a", "").unwrap();
    assert_eq!(
        r.is_match(&"b".repeat(MAX_SUBJECT_BYTES + 1))
            .unwrap_err()
            .code(),
        "limit_exceeded"
    );
    assert!(!r.is_match(&"b".repeat(MAX_SUBJECT_BYTES)).unwrap());
    assert_eq!(re_err("(?:a{1000}){1000}", ""), "limit_exceeded");
    assert_eq!(
        re_err(&format!("{}a{}", "(".repeat(200), ")".repeat(200)), ""),
        "limit_exceeded"
    );
}

/// Probes measured against V8 in research §6.
#[test]
fn regex_matches_v8_on_measured_probes() {
    assert!(!re("^\\d+$", "", "١٢٣"));
    assert!(!re("^\\w+$", "", "é"));
    assert!(re("\\bx", "", "éx"));
    assert!(!re("a.b", "", "a\u{2028}b"));
    assert!(!re("a.b", "", "a\nb"));
    assert!(!re("a.b", "", "a\rb"));
    assert!(re("a.b", "s", "a\nb"));
    assert!(re("[\\s]", "", "\u{FEFF}"));
    assert!(!re("\\s", "", "\u{0085}"));
    assert!(re("[^]", "", "\n"));
    assert!(!re("[]", "", "a"));
    assert!(re("\\cJ", "", "\n"));
    assert!(re("a{,3}", "", "a{,3}"));
    assert!(re("{", "", "{"));
    assert!(re("a{", "", "a{"));
    assert!(re("}]", "", "}]"));
    assert!(!re("s", "i", "ſ"));
    assert!(re("s", "iu", "ſ"));
    assert!(!re("\\u{61}", "", "a"));
    assert!(re("\\u{61}", "", &"u".repeat(61)));
    assert!(re("\\u{61}", "u", "a"));
    assert!(!re("^x", "", "ax"));
}

#[test]
fn regex_escapes_and_anchors() {
    assert!(re("^a$", "", "a"));
    assert!(!re("^a$", "", "a\n"));
    assert!(re("^b$", "m", "a\nb\nc"));
    assert!(re("^b$", "m", "a\r\nb\r\nc"));
    assert!(!re("^b$", "", "a\nb"));
    assert!(re("\\x41\\u0042\\t", "", "AB\t"));
    assert!(re("\\uD83D\\uDE00", "", "😀"));
    assert!(re("\\u{1F600}", "u", "😀"));
    // Without `u` a surrogate escape matches one code unit of an astral character (V8: true).
    assert!(re("\\uD83D", "", "😀"));
    assert!(!re("\\uD83D", "u", "😀"));
    assert!(re("\\0", "", "\0"));
    assert!(re("\\101", "", "A"));
    assert!(re("\\8", "", "8"));
    assert!(re("\\a", "", "a"));
    assert_eq!(re_err("\\a", "u"), "invalid_params");
    assert!(re("\\c1", "", "\\c1"));
    assert!(re("[\\c1]", "", "\u{11}"));
    assert!(re("\\/", "u", "/"));
    assert!(re("\\bfoo\\b", "", "a foo b"));
    assert!(!re("\\Bfoo", "", "a foo"));
    assert!(re("[a-c]+", "", "xbcx"));
    assert!(!re("^[^a-c]$", "", "b"));
    assert!(re("^[\\d-x]$", "", "-"));
    assert_eq!(re_err("[\\d-x]", "u"), "invalid_params");
    assert_eq!(re_err("[z-a]", ""), "invalid_params");
    assert_eq!(re_err("a{2,1}", ""), "invalid_params");
    assert_eq!(re_err("*a", ""), "invalid_params");
    assert_eq!(re_err("a**", ""), "invalid_params");
    assert_eq!(re_err("{1}", ""), "invalid_params");
    assert_eq!(re_err("a)", ""), "invalid_params");
    assert_eq!(re_err("[a", ""), "invalid_params");
    assert_eq!(re_err("\\", ""), "invalid_params");
    assert_eq!(re_err("(?x)", ""), "invalid_params");
    assert_eq!(re_err("{", "u"), "invalid_params");
    assert!(re("(?<year>\\d{4})-(?:\\d{2})", "", "2024-01"));
    assert!(re("^(?:ab|cd)+?$", "", "abcdab"));
    assert!(re("^a{2}$", "", "aa"));
    assert!(re("^a{2,}$", "", "aaaa"));
    assert!(!re("^a{2,3}$", "", "aaaa"));
    assert!(re("", "", ""));
    assert_eq!(re_err("\\1(a)", ""), "unsupported_pattern");
}

#[test]
fn regex_case_insensitive() {
    assert!(re("abc", "i", "xABCx"));
    assert!(re("[a-z]+$", "i", "HELLO"));
    assert!(!re("^[^a]$", "i", "A"));
    assert!(re("é", "i", "É"));
    assert!(!re("k", "i", "\u{212A}"));
    assert!(re("k", "iu", "\u{212A}"));
    assert!(!re("\\w", "i", "ſ"));
    assert!(re("\\w", "iu", "ſ"));
    assert!(!re("\\W", "iu", "ſ"));
    assert!(!re("[\\W]", "iu", "s"));
}

#[test]
fn string_length_counts_utf16_units() {
    assert!(passed(
        "string_length",
        json!("😀"),
        json!({"min": 2, "max": 2})
    ));
    assert!(!passed("string_length", json!("😀"), json!({"max": 1})));
    assert!(passed("string_length", json!("é"), json!({"max": 1})));
    assert!(passed(
        "string_length",
        json!({"t": "abc"}),
        json!({"field": "t", "min": 3.0})
    ));
    assert!(!passed("string_length", json!(["abc"]), json!({})));
    assert!(!passed(
        "string_length",
        json!({"t": 1}),
        json!({"field": "t"})
    ));
    let f = default_registry().get("string_length").unwrap();
    assert!(f(&json!(""), None).unwrap().passed);
    assert!(f(&json!(""), Some(&Value::Null)).unwrap().passed);
    for bad in [
        json!({"min": -1}),
        json!({"max": 1.5}),
        json!({"min": "1"}),
        json!({"min": 3, "max": 2}),
        json!({"field": 1}),
        json!({"other": 1}),
        json!([1]),
        json!({"max": 9007199254740992u64}),
    ] {
        assert_eq!(
            code("string_length", json!("a"), bad.clone()),
            "invalid_params",
            "{bad}"
        );
    }
}

#[test]
fn array_length_bounds() {
    assert!(passed(
        "array_length",
        json!([1, 2, 3]),
        json!({"min": 1, "max": 3})
    ));
    assert!(!passed(
        "array_length",
        json!([1, 2, 3, 4]),
        json!({"max": 3})
    ));
    assert!(!passed("array_length", json!("abc"), json!({"max": 3})));
    assert!(passed(
        "array_length",
        json!({"a": {"b": []}}),
        json!({"field": "a.b", "max": 0})
    ));
    assert_eq!(
        code("array_length", json!([]), json!({"min": 2, "max": 1})),
        "invalid_params"
    );
}

#[test]
fn field_exists_uses_own_keys_and_indices() {
    let out = json!({"a": {"b": null, "c": [10, {"d": 1}]}, "__proto__": 1, "": 2});
    assert!(passed(
        "field_exists",
        out.clone(),
        json!({"fields": ["a.b", "a.c.0", "a.c.1.d", "__proto__", ""]})
    ));
    for missing in [
        "constructor",
        "a.c.length",
        "a.c.01",
        "a.c.-1",
        "a.c.2",
        "a.b.x",
        "toString",
        "a.c.1.d.e",
        "a..b",
    ] {
        let r = run("field_exists", out.clone(), json!({"fields": [missing]})).unwrap();
        assert!(!r.passed, "{missing}");
        assert!(r.details.unwrap().contains(missing));
    }
    assert!(passed("field_exists", json!(null), json!({"fields": []})));
    assert!(!passed(
        "field_exists",
        json!("abc"),
        json!({"fields": ["0"]})
    ));
    assert_eq!(
        code("field_exists", json!({}), json!({"fields": "a"})),
        "invalid_params"
    );
    assert_eq!(
        code("field_exists", json!({}), json!({"fields": [1]})),
        "invalid_params"
    );
    assert_eq!(code("field_exists", json!({}), json!({})), "invalid_params");
}

#[test]
fn exit_code_compares_numbers() {
    assert!(passed(
        "exit_code",
        json!({"exitCode": 0}),
        json!({"expected": 0})
    ));
    assert!(passed(
        "exit_code",
        json!({"exitCode": 1.0}),
        json!({"expected": 1})
    ));
    assert!(passed(
        "exit_code",
        json!({"exitCode": -1}),
        json!({"expected": -1})
    ));
    assert!(!passed(
        "exit_code",
        json!({"exitCode": 2}),
        json!({"expected": 0})
    ));
    assert!(!passed(
        "exit_code",
        json!({"exitCode": "0"}),
        json!({"expected": 0})
    ));
    assert!(!passed("exit_code", json!(0), json!({"expected": 0})));
    assert_eq!(
        code(
            "exit_code",
            json!({"exitCode": 0}),
            json!({"expected": "0"})
        ),
        "invalid_params"
    );
    assert_eq!(
        code("exit_code", json!({"exitCode": 0}), json!({})),
        "invalid_params"
    );
}

#[test]
fn output_equals_is_canonical_equality() {
    assert!(passed(
        "output_equals",
        json!({"b": 1, "a": [1.0, "x"]}),
        json!({"expected": {"a": [1, "x"], "b": 1.0}})
    ));
    assert!(!passed(
        "output_equals",
        json!({"a": 1}),
        json!({"expected": {"a": "1"}})
    ));
    assert!(passed(
        "output_equals",
        json!(null),
        json!({"expected": null})
    ));
    assert!(!passed(
        "output_equals",
        json!([1, 2]),
        json!({"expected": [2, 1]})
    ));
    assert_eq!(code("output_equals", json!(1), json!({})), "invalid_params");
}

#[test]
fn json_schema_validates_draft07_strictly() {
    let schema = json!({"type": "object", "required": ["a"], "properties": {"a": {"type": "string", "maxLength": 1}}});
    assert!(passed(
        "json_schema",
        json!({"a": "😀"}),
        json!({"schema": schema})
    ));
    let r = run("json_schema", json!({"b": 1}), json!({"schema": schema})).unwrap();
    assert!(!r.passed);
    assert_eq!(r.score, Some(0.0));
    assert!(r.details.is_some());
    assert!(passed("json_schema", json!(1), json!({"schema": true})));
    assert!(!passed("json_schema", json!(1), json!({"schema": false})));
    // D29: any `format` makes the schema invalid (strict ajv without a format plugin).
    assert_eq!(
        code(
            "json_schema",
            json!("2024-02-28T00:00:00Z"),
            json!({"schema": {"format": "date-time"}})
        ),
        "invalid_schema"
    );
    for bad in [
        json!({"foo": 1}),
        json!({"properties": {"a": {"typo": "string"}}}),
        json!({"items": [{"x-ext": 1}]}),
        json!({"format": "ends-with-42"}),
        json!({"$schema": "https://json-schema.org/draft/2020-12/schema"}),
        json!({"type": "strin"}),
        json!({"$ref": "http://example.com/s.json"}),
        json!({"pattern": "(?=a)"}),
        json!(1),
    ] {
        assert_eq!(
            code("json_schema", json!({}), json!({"schema": bad})),
            "invalid_schema",
            "{bad}"
        );
    }
    assert_eq!(code("json_schema", json!({}), json!({})), "invalid_params");
    let mut deep = json!({});
    for _ in 0..100 {
        deep = json!({"not": deep});
    }
    assert_eq!(
        code("json_schema", json!({}), json!({"schema": deep})),
        "limit_exceeded"
    );
}

/// Without `u`, ECMAScript matches UTF-16 code units (D12): astral characters are two units,
/// in the subject and in the pattern. Every row was run on node v20.20.2
/// (`new RegExp(pattern, flags).test(subject)`; `None` = SyntaxError).
#[test]
fn regex_non_unicode_mode_matches_utf16_code_units() {
    let rows: &[(&str, &str, &str, Option<bool>)] = &[
        ("^.$", "", "\u{1f600}", Some(false)),
        ("^..$", "", "\u{1f600}", Some(true)),
        ("^[\u{1f600}]$", "", "\u{1f600}", Some(false)),
        ("\\uD83D", "", "\u{1f600}", Some(true)),
        ("^[^a]$", "", "\u{1f600}", Some(false)),
        ("^\\S$", "", "\u{1f600}", Some(false)),
        ("^\u{1f600}{2}$", "", "\u{1f600}\u{1f600}", Some(false)),
        ("^\\uD83D\\uDE00$", "", "\u{1f600}", Some(true)),
        ("^[\\uD83D\\uDE00]$", "", "\u{1f600}", Some(false)),
        ("^[\\uD83D\\uDE00]{2}$", "", "\u{1f600}", Some(true)),
        ("^[\\uD83D\\uDE00]$", "u", "\u{1f600}", Some(true)),
        ("^\\W\\W$", "", "\u{1f600}", Some(true)),
        ("^\\W$", "", "\u{1f600}", Some(false)),
        ("^\\D{2}$", "", "\u{1f600}", Some(true)),
        ("^\\D$", "", "\u{1f600}", Some(false)),
        ("^[\\uD800-\\uDFFF]{2}$", "", "\u{1f600}", Some(true)),
        ("[\\uD800-\\uDFFF]", "u", "\u{1f600}", Some(false)),
        ("^[\\uDC00-\\uDFFF]", "", "\u{1f600}", Some(false)),
        ("[\\uDC00-\\uDFFF]$", "", "\u{1f600}", Some(true)),
        ("^[\\u0000-\\uFFFF]{2}$", "", "\u{1f600}", Some(true)),
        ("^[\\u0000-\\uFFFF]$", "u", "\u{1f600}", Some(false)),
        ("^[\u{1f600}]{2}$", "", "\u{1f600}", Some(true)),
        ("^[\u{1f600}]+$", "", "\u{1f600}\u{1f601}", Some(false)),
        ("^[\u{1f600}]+$", "", "\u{1f601}", Some(false)),
        ("\u{10400}", "i", "\u{10428}", Some(false)),
        ("\u{10400}", "iu", "\u{10428}", Some(true)),
        ("^[\u{10400}]{2}$", "i", "\u{10428}", Some(false)),
        ("^[^\u{1f600}]$", "", "\u{1f601}", Some(false)),
        ("^[^\u{1f600}]{2}$", "", "\u{1f601}", Some(false)),
        ("\u{1f600}", "", "\u{1f600}", Some(true)),
        ("\\uDE00", "", "\u{1f600}", Some(true)),
        ("^\\uDE00", "", "\u{1f600}", Some(false)),
        ("^.{3}$", "", "a\u{1f600}", Some(true)),
        ("^.$", "s", "\u{1f600}", Some(false)),
        ("^..$", "s", "\u{1f600}", Some(true)),
        ("^.$", "iu", "\u{1f600}", Some(true)),
        ("^\\S\\S$", "i", "\u{1f600}", Some(true)),
        ("\\b", "", "\u{1f600}", Some(false)),
        ("^[^\\uD83D]$", "", "\u{1f600}", Some(false)),
        ("^[^\\uD83D]", "", "\u{1f600}", Some(false)),
        ("^\u{1f600}*$", "", "\u{1f600}\u{1f600}", Some(false)),
        ("^\u{1f600}+$", "", "\u{1f600}", Some(true)),
        ("^\\ud83d[\\ude00-\\ude4f]$", "", "\u{1f601}", Some(true)),
        ("^(?:\u{1f600}){2}$", "", "\u{1f600}\u{1f600}", Some(true)),
        ("^\u{1f600}{2}$", "u", "\u{1f600}\u{1f600}", Some(true)),
        ("^\\\u{1f600}$", "", "\u{1f600}", Some(true)),
        ("^[\\uD83D]$", "", "\u{1f600}", Some(false)),
        ("^[\\uD83D]", "", "\u{1f600}", Some(true)),
        ("^a.b$", "", "a\u{1f600}b", Some(false)),
        ("^a..b$", "", "a\u{1f600}b", Some(true)),
        ("^a.b$", "u", "a\u{1f600}b", Some(true)),
        ("^\\uD800$", "", "\u{f0000}", Some(false)),
        ("^\\uDB80", "", "\u{f0000}", Some(true)),
        ("^[\\uDB80][\\uDC00]$", "", "\u{f0000}", Some(true)),
        ("^.$", "u", "\u{f0000}", Some(true)),
        ("^\u{f0000}$", "", "\u{f0000}", Some(true)),
        ("^\u{f0000}$", "u", "\u{f0000}", Some(true)),
        ("^[\u{f0000}]$", "", "\u{f0000}", Some(false)),
        ("^[\u{f0000}]$", "u", "\u{f0000}", Some(true)),
        ("^[^\\uD800]+$", "", "\u{f0000}", Some(true)),
        ("^.$", "m", "\u{1f600}", Some(false)),
        ("^\\uDE00$", "m", "x\n\u{1f600}", Some(false)),
        ("^(?<\u{1d465}>\u{1f600})$", "", "\u{1f600}", Some(true)),
        ("(?<\u{1d465}>a)", "", "a", Some(true)),
        ("^\\p{Cs}$", "u", "\u{1f600}", Some(false)),
        ("^[\\s\\S]$", "", "\u{1f600}", Some(false)),
        ("^[\\s\\S]{2}$", "", "\u{1f600}", Some(true)),
        ("^[\\w\\W]$", "", "\u{1f600}", Some(false)),
        ("^[^\\d]$", "", "\u{1f600}", Some(false)),
        ("\u{1f600}", "i", "\u{1f600}", Some(true)),
        ("^.\u{1f600}$", "i", "x\u{1f600}", Some(true)),
        ("^[\u{1f600}-\u{1f602}]$", "", "\u{1f601}", None),
        ("^[\u{1f600}-\u{1f602}]$", "u", "\u{1f601}", Some(true)),
        ("^[\\uD83D-\\uDE00]+$", "", "\u{1f600}", Some(true)),
        ("^\\u{1F600}$", "", "\u{1f600}", Some(false)),
        ("\\uDE00\\uD83D", "", "\u{1f600}\u{1f600}", Some(true)),
        ("^\u{1f600}\u{1f600}$", "", "\u{1f600}\u{1f600}", Some(true)),
        (
            "^[\u{1f600}\u{1f601}]{4}$",
            "",
            "\u{1f600}\u{1f601}",
            Some(true),
        ),
        ("^[\u{1f600}-a]$", "", "a", None),
        ("^[a-\u{1f600}]{2}$", "", "\u{1f600}", Some(true)),
        ("^[a-\u{1f600}]$", "", "b", Some(true)),
        ("^[a-\u{1f600}]$", "", "\u{f000}", Some(false)),
    ];
    for &(pattern, flags, subject, v8) in rows {
        match v8 {
            Some(want) => assert_eq!(
                re(pattern, flags, subject),
                want,
                "/{pattern}/{flags} on {subject:?}"
            ),
            None => assert_eq!(
                re_err(pattern, flags),
                "invalid_params",
                "/{pattern}/{flags}"
            ),
        }
    }
}
