//! `delegateos-conform explain CASE`: one case in full — description, requirements with their
//! text, flags with their notes and severity model row, the input with every token decoded and
//! every published key named, the expectation, the exact command and adapter frame that
//! reproduce it, and (with `--impl`) what the implementation answered, the verdict and the
//! finding it belongs to.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde_json::{json, Value};

use crate::exit::ConformExitCode;
use crate::expected::ExpectedFailures;
use crate::filter::Filter;
use crate::report::{Report, ReportContext};
use crate::runner::case::{load_corpus, Case};
use crate::runner::{self, Quiet, RunConfig};
use delegateos_reference::encoding::b64u_decode;
use delegateos_vectors::keys::Keys;
use delegateos_vectors::requirements::Requirements;
use delegateos_vectors::{flags, severity, CorpusSource};

/// `explain`
#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// The case id (e.g. `dct-forged-0020`).
    pub case: String,
    /// Also run the case against this adapter command and show its answer and finding.
    #[arg(long = "impl", value_name = "COMMAND")]
    pub implementation: Option<String>,
    /// Vector directory (default: the embedded corpus).
    #[arg(long, value_name = "DIR")]
    pub vectors: Option<PathBuf>,
    /// Per-case timeout in milliseconds (with `--impl`).
    #[arg(long, value_name = "MS", default_value_t = runner::DEFAULT_TIMEOUT_MS)]
    pub timeout_ms: u64,
}

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

/// An implementation's answer: JSON, except an `errored` answer's message (a traceback, a
/// stack), which is printed as its text lines rather than one string of `\n` escapes.
fn actual(out: &mut String, answer: &Value) {
    if let (Some("errored"), Some(Value::String(message))) = (
        answer.get("outcome").and_then(Value::as_str),
        answer.get("message"),
    ) {
        let _ = writeln!(out, "  errored:");
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

/// Renders the explanation of `case` (without an implementation's answer).
pub fn render_case(case: &Case, reqs: &Requirements) -> String {
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
            if let Some(m) = model.flag(f).filter(|m| m.fix != "—") {
                let _ = writeln!(out, "    fix: {}", m.fix);
            }
        }
    }
    if let Some(rule) = severity::model().rule_for(&case.requirements) {
        let _ = writeln!(
            out,
            "\nSeverity model (spec/severity.md): rule `{}` — {}",
            rule.name, rule.title
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

/// `explain`: returns the exit code (0 explained, 1 with `--impl` when the case does not
/// pass, 64 usage, 3 setup error).
pub fn run(args: &ExplainArgs) -> i32 {
    let source = CorpusSource::from_option(args.vectors.as_deref());
    let all = match load_corpus(&source) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("delegateos-conform: {e}");
            return ConformExitCode::SETUP_ERROR;
        }
    };
    let Some(case) = all.iter().find(|c| c.id == args.case) else {
        let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        let near = crate::filter::suggest(&args.case, &ids);
        eprintln!(
            "delegateos-conform: no case {:?}{}",
            args.case,
            if near.is_empty() {
                String::new()
            } else {
                format!(" (did you mean {}?)", near.join(", "))
            }
        );
        return ConformExitCode::USAGE;
    };
    let reqs = Requirements::embedded();
    let mut out = render_case(case, &reqs);
    let command = args
        .implementation
        .clone()
        .unwrap_or_else(|| "<your adapter command>".to_owned());
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
    let mut code = ConformExitCode::OK;
    if let Some(cmd) = &args.implementation {
        let selected: Vec<Case> = all
            .iter()
            .filter(|c| c.id == case.id || (case.sequence.is_some() && c.sequence == case.sequence))
            .cloned()
            .collect();
        let config = RunConfig {
            command: cmd.clone(),
            timeout: Duration::from_millis(args.timeout_ms.max(1)),
            hello_timeout: Duration::from_millis(runner::DEFAULT_HELLO_TIMEOUT_MS),
            max_line: crate::protocol::MAX_LINE_BYTES,
            max_consecutive_errors: runner::DEFAULT_MAX_CONSECUTIVE_ERRORS,
            jobs: 1,
        };
        let baseline = ExpectedFailures::default();
        let output = match runner::run(&selected, &baseline, &config, &mut Quiet) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("delegateos-conform: {e}");
                return ConformExitCode::SETUP_ERROR;
            }
        };
        let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        let label = source.label();
        let filter = Filter::default();
        let report = Report::build(
            &selected,
            &output,
            &ReportContext {
                command: cmd,
                vectors: &label,
                filter: &filter,
                requirements: &reqs,
                baseline: &baseline,
                baseline_file: None,
                all_ids: &ids,
                profile: "delegateos-v0.1",
                fail_on_advisory: false,
                fail_on_hardening: false,
                critical_fails: true,
                mcp_requirements: &crate::mcp::suite::requirement_ids(),
            },
        );
        let this = report
            .cases
            .iter()
            .chain(&report.hardening.cases)
            .chain(&report.advisory.cases)
            .find(|c| c.id == case.id);
        if let Some(c) = this {
            let _ = writeln!(out, "\nActual ({}):", cmd);
            if let Some(a) = &c.actual {
                actual(&mut out, a);
            } else if let Some(m) = &c.message {
                let _ = writeln!(out, "  {m}");
            }
            let _ = writeln!(out, "\nVerdict: {}", c.status.name());
            if let Some(diff) = &c.diff {
                indented(&mut out, diff, "  ");
            }
            if let Some(f) = report.findings.iter().find(|f| f.ids.contains(&c.id)) {
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
            if matches!(
                c.status,
                runner::Status::Failed | runner::Status::Errored | runner::Status::OtherCode
            ) {
                code = ConformExitCode::FAILURES;
            }
        }
    }
    print!("{out}");
    code
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
