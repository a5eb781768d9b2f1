//! `delegateos-conform lint`: one token or delegation chain, its normative findings (verify
//! steps 1–4, decoded summary, effective scope; for a chain, `chain.verify`) and its advisory
//! neighbour-profile findings (`spec/neighbours.md`, `delegateos_reference::profiles`).
//!
//! Input (positional, a file path, `-` for stdin, or the text itself): a base64url token
//! string, a SerializedDCT object `{token, format}`, a JSON string holding a token, a
//! root-first array of §8.1 Delegations, or an object with a `delegations` array (the
//! `chain.verify` / `profile.lint` input shape).
//!
//! Steps 1–4 are evaluated with no revocations, at an instant before any token (so expiry
//! cannot interfere) and with nothing spent (a `budget_exceeded` there only means a zero
//! budget: steps 1–4 passed). The root key defaults to the token's own issuer, so step 3a
//! only proves self-consistency unless `--root` names the trusted key.

use std::io::Read;
use std::path::PathBuf;

use serde_json::{json, Value};

use delegateos_reference::chain::{verify_chain, Delegation};
use delegateos_reference::profiles::{self, Finding};
use delegateos_reference::revocation::RevocationList;
use delegateos_reference::timestamp::Timestamp;
use delegateos_reference::token::{self, SerializedDct, FORMAT};
use delegateos_reference::verify::{evaluate, AuthorizedScope, Denial};

use crate::exit::ConformExitCode;
use crate::report::format::{self, Format};

/// The earliest instant of the timestamp profile: "before every token".
const BEFORE_EVERYTHING: &str = "0000-01-01T00:00:00Z";

/// `lint`
#[derive(Debug, Clone, clap::Args)]
pub struct LintArgs {
    /// A file, `-` (stdin), or the token / JSON text itself.
    #[arg(value_name = "TOKEN|FILE|-")]
    pub input: String,
    /// Trusted root principal id for step 3a (default: the token's own issuer).
    #[arg(long, value_name = "PRINCIPAL")]
    pub root: Option<String>,
    /// The instant for expiry and the issue-time advisory rule (default: the system clock).
    #[arg(long, value_name = "TIMESTAMP")]
    pub now: Option<String>,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = format::parser(format::LINT))]
    pub format: Format,
    /// Exit 1 when there is any advisory finding of severity `warning`.
    #[arg(long)]
    pub fail_on_advisory: bool,
}

/// What the input turned out to be.
#[derive(Debug)]
pub enum LintInput {
    /// One token.
    Token(SerializedDct),
    /// A root-first delegation chain (raw JSON values; decoded during the lint).
    Chain(Vec<Value>),
}

/// Reads the positional argument: `-` is stdin, an existing path is read, else the text.
fn read_input(arg: &str) -> Result<String, String> {
    if arg == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        return Ok(s);
    }
    let path = PathBuf::from(arg);
    if arg.len() < 4096 && path.is_file() {
        return std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()));
    }
    if looks_like_path(arg) {
        return Err(if path.exists() {
            format!("{arg}: not a regular file")
        } else {
            format!(
                "{arg}: no such file (an argument that looks like a path is read as a file, \
                 never linted as a token; pass the token text itself or `-` for stdin)"
            )
        });
    }
    Ok(arg.to_owned())
}

/// Whether a positional argument is meant as a file: it has a path separator or starts with
/// `.` or `~` (characters a base64url token never has), or ends in a file extension a token
/// or chain is kept under. JSON text (`{`, `[`, `"`) never is.
fn looks_like_path(arg: &str) -> bool {
    let t = arg.trim();
    if t.is_empty() || t.starts_with(['{', '[', '"']) || t.contains(char::is_whitespace) {
        return false;
    }
    let lower = t.to_ascii_lowercase();
    t.contains(['/', '\\'])
        || t.starts_with(['.', '~'])
        || [".json", ".txt", ".dct", ".token", ".tok", ".jsonl"]
            .iter()
            .any(|ext| lower.ends_with(ext))
}

/// Classifies input text.
pub fn parse_input(text: &str) -> Result<LintInput, String> {
    let t = text.trim();
    if t.starts_with('{') || t.starts_with('[') || t.starts_with('"') {
        let v: Value = serde_json::from_str(t).map_err(|e| format!("input is not JSON: {e}"))?;
        return match v {
            Value::String(s) => Ok(token_of(&s)),
            Value::Array(a) => Ok(LintInput::Chain(a)),
            Value::Object(ref m) if m.contains_key("delegations") => match m.get("delegations") {
                Some(Value::Array(a)) => Ok(LintInput::Chain(a.clone())),
                _ => Err("\"delegations\" must be an array".to_owned()),
            },
            Value::Object(ref m) if m.contains_key("token") && !m.contains_key("format") => {
                // `{token: SerializedDCT}` (the profile.lint input shape).
                let inner = m.get("token").cloned().unwrap_or(Value::Null);
                match inner {
                    Value::String(s) => Ok(token_of(&s)),
                    other => SerializedDct::from_value(&other)
                        .map(LintInput::Token)
                        .map_err(|e| format!("not a SerializedDCT: {}", e.detail)),
                }
            }
            Value::Object(_) => SerializedDct::from_value(&v)
                .map(LintInput::Token)
                .map_err(|e| format!("not a SerializedDCT: {}", e.detail)),
            _ => Err("expected a token, a SerializedDCT or a delegation chain".to_owned()),
        };
    }
    Ok(token_of(t))
}

fn token_of(s: &str) -> LintInput {
    LintInput::Token(SerializedDct {
        token: s.trim().to_owned(),
        format: FORMAT.to_owned(),
    })
}

/// Steps 1–4 of one token: `Ok(scope or None for a zero budget)` or the denial.
fn steps_1_to_4(dct: &SerializedDct, root: &str) -> Result<Option<AuthorizedScope>, Denial> {
    match evaluate(dct, BEFORE_EVERYTHING, 0, root, &RevocationList::new()) {
        Ok(s) => Ok(Some(s)),
        Err(Denial::BudgetExceeded { .. }) => Ok(None),
        Err(d) => Err(d),
    }
}

fn denial_json(d: &Denial) -> Value {
    json!({ "code": d.code(), "step": format!("10.1/{}", d.step()), "reason": d.to_json() })
}

/// The normative part for one token, as JSON.
fn token_normative(dct: &SerializedDct, root: Option<&str>, now: &str) -> Value {
    let inspection = token::inspect(dct);
    let root = root.map(str::to_owned).or_else(|| {
        inspection
            .as_ref()
            .ok()
            .map(|i| i.decoded.authority.issuer.clone())
    });
    let root = root.unwrap_or_default();
    let steps = steps_1_to_4(dct, &root);
    let mut out = json!({
        "rootPublicKey": root,
        "steps1to4": match &steps {
            Ok(_) => json!({"result": "pass"}),
            Err(d) => json!({"result": "fail", "denial": denial_json(d)}),
        },
    });
    if let Ok(i) = &inspection {
        out["summary"] = json!({
            "issuer": i.decoded.authority.issuer,
            "delegatee": i.delegatee,
            "contractId": i.contract_id,
            "delegationId": i.delegation_id,
            "issuedAt": i.decoded.authority.issued_at,
            "expiresAt": i.expires_at,
            "chainDepth": i.chain_depth,
            "attenuations": i.decoded.attenuations.len(),
            "revocationIds": i.revocation_ids,
        });
    }
    match &steps {
        Ok(Some(scope)) => {
            out["effectiveScope"] = serde_json::to_value(scope).unwrap_or(Value::Null)
        }
        Ok(None) => {
            out["effectiveScope"] = json!("zero effective budget: step 6 denies every request")
        }
        Err(_) => {}
    }
    if steps.is_ok() {
        out["atNow"] = match evaluate(dct, now, 0, &root, &RevocationList::new()) {
            Ok(_) => json!({"now": now, "result": "valid"}),
            Err(d) => json!({"now": now, "result": d.code()}),
        };
    }
    out
}

fn findings_json(findings: &[Finding]) -> Value {
    Value::Array(
        findings
            .iter()
            .map(|f| {
                let mut v = f.to_json();
                v["detail"] = json!(f.detail);
                v
            })
            .collect(),
    )
}

/// Lints parsed input; returns the JSON result and whether the normative part passed.
pub fn lint(input: &LintInput, root: Option<&str>, now: &str) -> (Value, bool) {
    match input {
        LintInput::Token(dct) => {
            let normative = token_normative(dct, root, now);
            let pass = normative["steps1to4"]["result"] == "pass";
            let findings = match token::decode(dct) {
                Ok(t) => findings_json(&profiles::lint_token(&t, Some(now))),
                Err(_) => json!([]),
            };
            (
                json!({"kind": "token", "normative": normative, "advisory": findings}),
                pass,
            )
        }
        LintInput::Chain(values) => {
            let decoded: Result<Vec<Delegation>, String> = values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    serde_json::from_value(v.clone()).map_err(|e| format!("delegation {i}: {e}"))
                })
                .collect();
            let delegations = match decoded {
                Ok(d) => d,
                Err(e) => {
                    return (
                        json!({"kind": "chain", "normative": {"chain": {"result": "malformed_delegation", "detail": e}}, "advisory": []}),
                        false,
                    )
                }
            };
            let leaf = delegations.last().map(|d| &d.dct);
            let root = root.map(str::to_owned).or_else(|| {
                delegations
                    .first()
                    .and_then(|d| token::decode(&d.dct).ok())
                    .map(|t| t.authority.issuer)
            });
            let root_s = root.clone().unwrap_or_default();
            let chain = match verify_chain(
                delegations.iter().map(Ok),
                &root_s,
                now,
                &RevocationList::new(),
            ) {
                Ok(()) => json!({"result": "valid", "now": now}),
                Err(e) => json!({"result": e.code(), "detail": e.to_string(), "now": now}),
            };
            let pass = chain["result"] == "valid";
            let leaf_token = leaf.and_then(|d| token::decode(d).ok());
            let findings = profiles::lint_chain(&delegations, leaf_token.as_ref(), Some(now));
            let mut normative = json!({"chain": chain, "delegations": delegations.len()});
            if let Some(d) = leaf {
                normative["leaf"] = token_normative(d, root.as_deref(), now);
            }
            (
                json!({"kind": "chain", "normative": normative, "advisory": findings_json(&findings)}),
                pass,
            )
        }
    }
}

fn render_text(v: &Value) -> String {
    let mut out = String::new();
    let kind = v["kind"].as_str().unwrap_or("");
    out.push_str(&format!("lint: {kind}\n\nNormative\n"));
    let token_part = |t: &Value, out: &mut String, indent: &str| {
        out.push_str(&format!(
            "{indent}root key: {}\n",
            t["rootPublicKey"].as_str().unwrap_or("")
        ));
        match t["steps1to4"]["result"].as_str() {
            Some("pass") => out.push_str(&format!("{indent}verify steps 1–4: pass\n")),
            _ => {
                let d = &t["steps1to4"]["denial"];
                out.push_str(&format!(
                    "{indent}verify steps 1–4: FAIL {} at {}\n{indent}  {}\n",
                    d["code"].as_str().unwrap_or(""),
                    d["step"].as_str().unwrap_or(""),
                    d["reason"]
                ));
            }
        }
        if let Some(s) = t.get("summary") {
            out.push_str(&format!(
                "{indent}issuer {}\n{indent}delegatee {} (chainDepth {}, {} attenuation(s))\n{indent}contract {} delegation {}\n{indent}issuedAt {} expiresAt {}\n",
                s["issuer"].as_str().unwrap_or(""),
                s["delegatee"].as_str().unwrap_or(""),
                s["chainDepth"],
                s["attenuations"],
                s["contractId"].as_str().unwrap_or(""),
                s["delegationId"].as_str().unwrap_or(""),
                s["issuedAt"].as_str().unwrap_or(""),
                s["expiresAt"].as_str().unwrap_or(""),
            ));
        }
        if let Some(scope) = t.get("effectiveScope") {
            if let Some(caps) = scope["capabilities"].as_array() {
                out.push_str(&format!(
                    "{indent}effective scope: budget {}, remaining depth {}\n",
                    scope["remainingBudgetMicrocents"], scope["maxChainDepth"]
                ));
                for c in caps {
                    out.push_str(&format!(
                        "{indent}  {}:{}:{}\n",
                        c["namespace"].as_str().unwrap_or(""),
                        c["action"].as_str().unwrap_or(""),
                        c["resource"].as_str().unwrap_or("")
                    ));
                }
            } else {
                out.push_str(&format!("{indent}effective scope: {scope}\n"));
            }
        }
        if let Some(n) = t.get("atNow") {
            out.push_str(&format!(
                "{indent}at {}: {}\n",
                n["now"].as_str().unwrap_or(""),
                n["result"].as_str().unwrap_or("")
            ));
        }
    };
    if kind == "token" {
        token_part(&v["normative"], &mut out, "  ");
    } else {
        let c = &v["normative"]["chain"];
        out.push_str(&format!(
            "  chain.verify: {}{}\n",
            c["result"].as_str().unwrap_or(""),
            c.get("detail")
                .and_then(Value::as_str)
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ));
        if let Some(leaf) = v["normative"].get("leaf") {
            out.push_str("  leaf DCT:\n");
            token_part(leaf, &mut out, "    ");
        }
    }
    let findings = v["advisory"].as_array().cloned().unwrap_or_default();
    out.push_str(&format!(
        "\nAdvisory (neighbour profiles): {} finding(s)\n",
        findings.len()
    ));
    for f in &findings {
        out.push_str(&format!(
            "  {:<7} {}  [{}: {}]\n          {}\n",
            f["severity"].as_str().unwrap_or(""),
            f["rule"].as_str().unwrap_or(""),
            f["neighbour"].as_str().unwrap_or(""),
            f["clause"].as_str().unwrap_or(""),
            f["detail"].as_str().unwrap_or("")
        ));
    }
    out
}

/// The current time in the D5 profile (seconds precision, `Z`).
fn system_now() -> String {
    crate::mcp::proxy::now_rfc3339()
}

/// Runs `lint`; returns the exit code (0 pass, 1 normative failure or — with
/// `--fail-on-advisory` — a warning finding, 3 unreadable input, 64 bad `--now`).
pub fn run(args: &LintArgs) -> i32 {
    let now = args.now.clone().unwrap_or_else(system_now);
    if Timestamp::parse(&now).is_err() {
        eprintln!("delegateos-conform: --now {now:?} is not a profile timestamp (D5)");
        return ConformExitCode::USAGE;
    }
    let text = match read_input(&args.input) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("delegateos-conform: {e}");
            return ConformExitCode::SETUP_ERROR;
        }
    };
    let input = match parse_input(&text) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("delegateos-conform: {e}");
            return ConformExitCode::FAILURES;
        }
    };
    let (result, pass) = lint(&input, args.root.as_deref(), &now);
    let rendered = match args.format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&result).unwrap_or_default();
            s.push('\n');
            s
        }
        _ => render_text(&result),
    };
    print!("{rendered}");
    let warned = result["advisory"]
        .as_array()
        .is_some_and(|a| a.iter().any(|f| f["severity"] == "warning"));
    if !pass || (args.fail_on_advisory && warned) {
        ConformExitCode::FAILURES
    } else {
        ConformExitCode::OK
    }
}
