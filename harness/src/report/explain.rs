//! The text of `explain CASE` (the command is `crate::explain`): the case in full, how to
//! reproduce it, and an implementation's answer with its verdict and finding.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::findings::Finding;
use crate::report::CaseReport;
use crate::runner::case::Case;
use delegateos_reference::encoding::b64u_decode;
use delegateos_vectors::keys::Keys;
use delegateos_vectors::requirements::Requirements;
use delegateos_vectors::{flags, severity};

/// The principal id → key name map of the published keys.
fn key_names() -> Vec<(String, &'static str)> {
    let keys = Keys::fixed();
    keys.all()
        .iter()
        .map(|k| (k.principal.clone(), k.name))
        .collect()
}

/// `value` with every SerializedDCT's `token` decoded (as `decoded`) and every published
/// principal id annotated with its key name.
pub fn annotate(value: &Value, names: &[(String, &'static str)]) -> Value {
    match value {
        Value::String(s) => match names.iter().find(|(p, _)| p == s) {
            Some((_, name)) => Value::String(format!("{s} (key {name})")),
            None => value.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(|v| annotate(v, names)).collect()),
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                out.insert(k.clone(), annotate(v, names));
            }
            if let (Some(Value::String(token)), Some(Value::String(_))) =
                (map.get("token"), map.get("format"))
            {
                let decoded = match b64u_decode(token) {
                    Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                        Ok(v) => annotate(&v, names),
                        Err(e) => json!(format!("(not JSON: {e})")),
                    },
                    Err(e) => json!(format!("(not strict base64url: {e})")),
                };
                out.insert("decoded".to_owned(), decoded);
            }
            Value::Object(out)
        }
        _ => value.clone(),
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

fn indented(out: &mut String, text: &str, prefix: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{prefix}{line}");
    }
}

/// An implementation's answer: JSON, except an `errored` or `threw` answer's message (a
/// traceback, a stack), which is printed as its text lines rather than one string of `\n`
/// escapes.
fn actual(out: &mut String, answer: &Value) {
    if let (Some(outcome @ ("errored" | "threw")), Some(Value::String(message))) = (
        answer.get("outcome").and_then(Value::as_str),
        answer.get("message"),
    ) {
        let _ = writeln!(out, "  {outcome}:");
        indented(out, message, "    ");
        let mut rest = answer.as_object().cloned().unwrap_or_default();
        rest.remove("outcome");
        rest.remove("message");
        if !rest.is_empty() {
            indented(out, &pretty(&Value::Object(rest)), "  ");
        }
        return;
    }
    indented(out, &pretty(&annotate(answer, &key_names())), "  ");
}

/// The explanation of `case` (without an implementation's answer).
pub fn case(case: &Case, reqs: &Requirements) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}  ({}/{}, op {}, level {})",
        case.id,
        case.area,
        case.group,
        case.op,
        case.level.as_str()
    );
    let _ = writeln!(out, "  {}", case.description);
    let _ = writeln!(out, "\nRequirements:");
    for r in &case.requirements {
        match reqs.get(r) {
            Some(q) => {
                let _ = writeln!(out, "  {r} ({}): {} {}", q.section, q.level, q.text);
            }
            None => {
                let _ = writeln!(out, "  {r}: (not in spec/requirements.md)");
            }
        }
    }
    if !case.flags.is_empty() {
        let _ = writeln!(out, "\nFlags:");
        let model = severity::model();
        for f in &case.flags {
            let row = flags::index_row(f);
            let _ = writeln!(
                out,
                "  {f}: {}",
                row.as_ref()
                    .map_or("(not in the flag index)", |r| r.reason.as_str())
            );
            if let Some(r) = row {
                let _ = writeln!(
                    out,
                    "    decision {}, level {}, severity {}",
                    r.decision,
                    r.level.as_str(),
                    r.severity.as_str()
                );
            }
            if let Some(fix) = model.flag(f).and_then(|m| m.fix.as_deref()) {
                let _ = writeln!(out, "    fix: {fix}");
            }
        }
    }
    if let Some(rule) = severity::model().rule_for(&case.requirements) {
        let _ = writeln!(
            out,
            "\nSeverity model (spec/severity.md): rule `{}` — {} (names a failure no catalogued fault explains)",
            rule.name, rule.title
        );
    }
    let catching: Vec<String> = delegateos_vectors::faults::fingerprints()
        .fingerprints
        .iter()
        .filter_map(|(id, print)| {
            print
                .get(&case.id)
                .map(|d| format!("{id} ({})", d.as_str()))
        })
        .collect();
    if !catching.is_empty() {
        let _ = writeln!(
            out,
            "\nCatalogued faults that fail this case (spec/faults.md): {}",
            catching.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "\nInput (tokens decoded under `decoded`, published keys named):"
    );
    indented(
        &mut out,
        &pretty(&annotate(&case.input, &key_names())),
        "  ",
    );
    let _ = writeln!(out, "\nExpected:");
    indented(&mut out, &pretty(&case.expect_json()), "  ");
    out
}

/// The adapter frame that runs `case` (`spec/adapter-protocol.md`).
pub fn frame(case: &Case) -> String {
    json!({"type": "run", "seq": 1, "case": {"id": case.id, "op": case.op, "input": case.input}})
        .to_string()
}

/// How to reproduce `case` against `command`: the `run` command and the adapter frame.
pub fn reproduce(case: &Case, command: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\nReproduce:");
    let _ = writeln!(
        out,
        "  delegateos-conform run --id {} --impl '{}' --details",
        case.id, command
    );
    let _ = writeln!(out, "  adapter frame (after hello): {}", frame(case));
    if case.sequence.is_some() {
        let _ = writeln!(
            out,
            "  (a case of a stateful group: `run --id` runs its whole group, in order)"
        );
    }
    out
}

/// What `command` answered on the case `c`, its verdict and the finding it belongs to.
pub fn answer(command: &str, c: &CaseReport, finding: Option<&Finding>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "\nActual ({}):", command);
    if let Some(a) = &c.actual {
        actual(&mut out, a);
    } else if let Some(m) = &c.message {
        let _ = writeln!(out, "  {m}");
    }
    let _ = writeln!(out, "\nVerdict: {}", c.status.name());
    if let Some(diff) = &c.diff {
        indented(&mut out, diff, "  ");
    }
    if let Some(f) = finding {
        let _ = writeln!(
            out,
            "\nFinding: {} {} — {}  [{}]\n  fix: {}",
            f.severity.as_str().to_uppercase(),
            f.effect,
            f.title,
            f.key,
            f.fix
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_errored_message_is_printed_as_text_lines() {
        let mut out = String::new();
        actual(
            &mut out,
            &json!({"outcome": "errored", "message": "TypeError: boom\nTraceback (most recent call last):\n  File \"a.py\"\n"}),
        );
        assert_eq!(
            out,
            "  errored:\n    TypeError: boom\n    Traceback (most recent call last):\n      File \"a.py\"\n"
        );
        let mut out = String::new();
        actual(&mut out, &json!({"outcome": "ok", "output": {"hex": "00"}}));
        assert!(out.contains("\"outcome\": \"ok\""), "{out}");
    }
}
