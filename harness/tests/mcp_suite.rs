//! The MCP proxy suite against the reference proxy (must pass completely) and against
//! deliberately broken variants of it (each must be caught).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::time::Duration;

use delegateos_conform::mcp::cli::find_smoke;
use delegateos_conform::mcp::config::Transport;
use delegateos_conform::mcp::suite::{run_suite, MockCommand, Status, SuiteOptions, SuiteReport};

fn opts(extra: &str, glob: Option<&str>) -> SuiteOptions {
    opts_on(Transport::Stdio, extra, glob)
}

fn opts_on(transport: Transport, extra: &str, glob: Option<&str>) -> SuiteOptions {
    let conform = env!("CARGO_BIN_EXE_delegateos-conform");
    SuiteOptions {
        proxy: format!("'{conform}' reference-proxy --config {{config}}{extra}"),
        mock_upstream: MockCommand::subcommand_of(PathBuf::from(conform)),
        strict_mode_cases: true,
        ids: glob.map(str::to_owned).into_iter().collect(),
        case_timeout: Duration::from_secs(120),
        smoke: None,
        transport,
        session_vectors: None,
    }
}

fn summary(report: &SuiteReport) -> String {
    report
        .cases
        .iter()
        .filter(|c| c.status != Status::Passed)
        .map(|c| {
            format!(
                "{} {:?}: {}\n{}",
                c.id,
                c.status,
                c.message.as_deref().unwrap_or(""),
                c.stderr_tail.as_deref().unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn reference_proxy_passes_every_case() {
    let report = run_suite(&opts("", None));
    let not_passed: Vec<_> = report
        .cases
        .iter()
        .filter(|c| {
            c.status != Status::Passed
                && !(c.id.starts_with("mcp-smoke-")
                    || (c.status == Status::Skipped && c.id.starts_with("mcp-http-")))
        })
        .collect();
    assert!(not_passed.is_empty(), "{}", summary(&report));
    assert!(
        report.count(Status::Passed) >= 45,
        "{}",
        report.count(Status::Passed)
    );
}

/// Issue 18: the same suite over MCP Streamable HTTP (`--transport http`): every case that is
/// meaningful over HTTP passes against the reference proxy's HTTP mode, the HTTP-only cases
/// included; only the stdio-framing case (and the smoke cases) skip.
#[test]
fn reference_proxy_passes_every_case_over_http() {
    let report = run_suite(&opts_on(Transport::Http, "", None));
    let skipped: Vec<&str> = report
        .cases
        .iter()
        .filter(|c| c.status == Status::Skipped)
        .map(|c| c.id.as_str())
        .collect();
    let not_passed: Vec<_> = report
        .cases
        .iter()
        .filter(|c| c.status != Status::Passed && c.status != Status::Skipped)
        .collect();
    assert!(not_passed.is_empty(), "{}", summary(&report));
    for id in &skipped {
        assert!(
            *id == "mcp-malformed-lines" || id.starts_with("mcp-smoke-"),
            "{id} skipped over HTTP"
        );
    }
    let http_cases = report
        .cases
        .iter()
        .filter(|c| c.id.starts_with("mcp-http-") && c.status == Status::Passed)
        .count();
    assert_eq!(http_cases, 6, "{}", summary(&report));
}

/// Issue 18: broken HTTP variants of the reference proxy are each caught by a named case.
#[test]
fn broken_http_proxies_are_caught_by_named_cases() {
    for (fault, glob, must_fail) in [
        ("no-strip", "mcp-call-allowed", "mcp-call-allowed"),
        (
            "forward-denied",
            "mcp-deny-capability-resource",
            "mcp-deny-capability-resource",
        ),
        (
            "forward-denied",
            "mcp-http-header-smuggling",
            "mcp-http-header-smuggling",
        ),
        (
            "shared-state",
            "mcp-http-concurrent-sessions",
            "mcp-http-concurrent-sessions",
        ),
    ] {
        let report = run_suite(&opts_on(
            Transport::Http,
            &format!(" --fault {fault}"),
            Some(glob),
        ));
        let failed = failing_ids(&report);
        assert_eq!(
            failed,
            vec![must_fail.to_owned()],
            "--fault {fault} over HTTP\n{}",
            summary(&report)
        );
    }
    // The stdio proxy has no sessions: `shared-state` changes nothing there.
    let report = run_suite(&opts(
        " --fault shared-state",
        Some("mcp-spend-budget-exhaustion"),
    ));
    assert!(failing_ids(&report).is_empty(), "{}", summary(&report));
}

fn failing_ids(report: &SuiteReport) -> Vec<String> {
    report
        .cases
        .iter()
        .filter(|c| c.status == Status::Failed)
        .map(|c| c.id.clone())
        .collect()
}

#[test]
fn a_proxy_that_does_not_strip_is_caught() {
    let report = run_suite(&opts(" --fault no-strip", Some("mcp-*call*")));
    let failed = failing_ids(&report);
    assert!(
        failed.contains(&"mcp-call-allowed".to_owned()),
        "{failed:?}\n{}",
        summary(&report)
    );
}

#[test]
fn a_proxy_that_forwards_denied_calls_is_caught() {
    let report = run_suite(&opts(" --fault forward-denied", Some("mcp-deny-*")));
    let failed = failing_ids(&report);
    assert!(
        failed.len() >= 15,
        "only {} deny cases failed: {failed:?}",
        failed.len()
    );
}

#[test]
fn a_proxy_that_does_not_filter_is_caught() {
    let report = run_suite(&opts(" --fault no-filter", Some("mcp-list-*")));
    let failed = failing_ids(&report);
    for id in [
        "mcp-list-filter",
        "mcp-list-pagination",
        "mcp-list-invalid-session-token",
    ] {
        assert!(
            failed.contains(&id.to_owned()),
            "{id} not caught: {failed:?}"
        );
    }
}

/// A transparent pass-through proxy (no DelegateOS at all) written in Python fails the
/// denial, stripping and filtering cases.
#[test]
fn a_python_pass_through_proxy_is_caught() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIP: python3 not available");
        return;
    }
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/mcp_passthrough_proxy.py"
    );
    let mut o = opts("", Some("mcp-*"));
    o.proxy = format!("python3 '{script}' {{config}}");
    o.strict_mode_cases = false;
    let report = run_suite(&o);
    let failed = failing_ids(&report);
    eprintln!(
        "python pass-through proxy: {} of {} cases failed:\n{}",
        failed.len(),
        report.cases.len(),
        summary(&report)
    );
    for id in ["mcp-call-allowed", "mcp-deny-expired", "mcp-list-filter"] {
        assert!(
            failed.contains(&id.to_owned()),
            "{id} not caught: {failed:?}"
        );
    }
}

/// The allowed-call and filtering cases against the real `@modelcontextprotocol/server-everything`
/// behind the recording tap. Skips (with a message) only when node or the package is absent.
#[test]
fn smoke_against_server_everything() {
    let Some(smoke) = find_smoke(None) else {
        eprintln!(
            "SKIP: node or harness/mcp-smoke/node_modules/@modelcontextprotocol/server-everything \
             is missing (install with: npm ci --prefix harness/mcp-smoke)"
        );
        return;
    };
    let mut o = opts("", Some("mcp-smoke-*"));
    o.smoke = Some(smoke);
    let report = run_suite(&o);
    assert_eq!(report.count(Status::Passed), 3, "{}", summary(&report));
}

fn cli_args(
    extra: &str,
    id: &str,
    baseline: Option<PathBuf>,
) -> delegateos_conform::mcp::cli::Args {
    delegateos_conform::mcp::cli::Args {
        proxy: format!(
            "'{}' reference-proxy --config {{config}}{extra}",
            env!("CARGO_BIN_EXE_delegateos-conform")
        ),
        strict_mode_cases: false,
        format: delegateos_conform::mcp::cli::McpFormat::Json,
        expected_failures: baseline,
        id: vec![id.to_owned()],
        output: None,
        report: Vec::new(),
        no_progress: true,
        mock_upstream: Some(PathBuf::from(env!("CARGO_BIN_EXE_delegateos-conform"))),
        smoke_dir: Some(PathBuf::from("/nonexistent")),
        case_timeout: 60,
        transport: delegateos_conform::mcp::cli::TransportArg::Stdio,
        session_vectors: None,
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `mcp` subcommand's reports and exit codes, including the shared expected-failures
/// baseline: a listed failure is xfail (exit 0), a listed pass is stale (exit 2).
#[test]
fn cli_exit_codes_and_baseline() {
    use delegateos_conform::mcp::cli::run;
    let out = run(&cli_args("", "mcp-handshake", None));
    assert_eq!(out.code, 0, "{out:?}");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["counts"]["passed"], 1);
    assert_eq!(report["cases"][0]["result"], "passed");

    let out = run(&cli_args(" --fault no-strip", "mcp-call-allowed", None));
    assert_eq!(out.code, 1, "{out:?}");

    let dir = temp_dir("cli");
    let baseline = dir.join("expected.txt");
    std::fs::write(
        &baseline,
        "mcp-call-allowed  our proxy forwards _delegateos (known bug)\n",
    )
    .unwrap();
    let out = run(&cli_args(
        " --fault no-strip",
        "mcp-call-allowed",
        Some(baseline.clone()),
    ));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("\"xfail\""), "{out:?}");
    let out = run(&cli_args("", "mcp-call-allowed", Some(baseline)));
    assert_eq!(out.code, 2, "{out:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn report_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/schemas/mcp-report.schema.json"
    ))
    .unwrap();
    jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
}

fn assert_schema_valid(v: &jsonschema::Validator, doc: &serde_json::Value) {
    let errors: Vec<String> = v
        .iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{doc:#}");
}

/// Every member name of the JSON report is camelCase (no `duration_ms` beside `durationMs`).
fn assert_camel_case(v: &serde_json::Value) {
    match v {
        serde_json::Value::Object(o) => {
            for (k, x) in o {
                assert!(
                    !k.contains('_') && !k.contains('-'),
                    "member {k:?} is not camelCase"
                );
                assert_camel_case(x);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(assert_camel_case),
        _ => {}
    }
}

/// Issue 16 item 5: a proxy that cannot start is ONE setup error (exit 3) carrying its stderr,
/// and every requested report is still written (JSON with `setupError`, JUnit with one error).
#[test]
fn mcp_proxy_that_cannot_start_is_one_setup_error_with_its_stderr() {
    use delegateos_conform::mcp::cli::{parse_report_spec, run};
    let dir = temp_dir("setup");
    let mut args = cli_args("", "mcp-*", None);
    args.proxy = "sh -c 'echo proxy-cannot-start: missing libfoo >&2; exit 7' {config}".into();
    args.output = Some(dir.join("report.json"));
    args.report =
        vec![parse_report_spec(&format!("junit={}", dir.join("r.xml").display())).unwrap()];
    let out = run(&args);
    assert_eq!(out.code, 3, "{out:?}");
    assert!(
        out.stderr.contains("proxy-cannot-start: missing libfoo"),
        "{out:?}"
    );
    assert_eq!(
        out.stderr.matches("delegateos-conform mcp:").count(),
        1,
        "{out:?}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    assert_schema_valid(&report_validator(), &doc);
    assert_camel_case(&doc);
    assert!(
        doc["setupError"]["stderrTail"]
            .as_str()
            .unwrap()
            .contains("proxy-cannot-start"),
        "{doc:#}"
    );
    assert_eq!(doc["cases"].as_array().unwrap().len(), 0);
    let junit = std::fs::read_to_string(dir.join("r.xml")).unwrap();
    assert_eq!(junit.matches("<error").count(), 1, "{junit}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 16 item 5: usage errors (exit 64) for a `--proxy` without `{config}` and for an
/// `--id` that selects nothing; both say what is wrong and run nothing.
#[test]
fn mcp_usage_errors_for_missing_config_placeholder_and_empty_selection() {
    use delegateos_conform::mcp::cli::run;
    let mut args = cli_args("", "mcp-handshake", None);
    args.proxy = "my-proxy --config".into();
    let out = run(&args);
    assert_eq!(out.code, 64, "{out:?}");
    assert!(
        out.stderr.contains("{config}") && out.stdout.is_empty(),
        "{out:?}"
    );

    let out = run(&cli_args("", "mcp-no-such-case-*", None));
    assert_eq!(out.code, 64, "{out:?}");
    assert!(out.stderr.contains("mcp-no-such-case-*"), "{out:?}");

    // Through the binary too: clap rejects a malformed --report with the usage status.
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_delegateos-conform"))
        .args(["mcp", "--proxy", "x {config}", "--report", "html"])
        .output()
        .unwrap();
    assert_eq!(status.status.code(), Some(64), "{status:?}");
}

/// Issue 16 item 5: `--id` is repeatable, `--output` and `--report FORMAT=FILE` write every
/// format, the JSON validates against spec/schemas/mcp-report.schema.json and is camelCase,
/// and live progress reports each case.
#[test]
fn mcp_repeatable_ids_report_files_schema_and_progress() {
    use delegateos_conform::mcp::cli::{
        parse_report_spec, progress_enabled, run_observed, McpFormat, Progress,
    };
    let dir = temp_dir("reports");
    let mut args = cli_args("", "mcp-handshake", None);
    args.id.push("mcp-stdout-clean".into());
    args.format = McpFormat::Text;
    args.output = Some(dir.join("out.txt"));
    for f in ["json", "junit", "markdown", "text"] {
        args.report.push(
            parse_report_spec(&format!("{f}={}", dir.join(format!("r.{f}")).display())).unwrap(),
        );
    }
    let mut progress = Progress::new(Vec::new());
    let out = run_observed(&args, &mut progress);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.is_empty(),
        "--output takes the --format report: {out:?}"
    );
    let drawn = String::from_utf8(progress.into_inner()).unwrap();
    assert!(
        drawn.contains("[1/2] mcp-handshake") && drawn.contains("[2/2] mcp-stdout-clean"),
        "{drawn:?}"
    );
    assert!(drawn.contains("2 cases done"), "{drawn:?}");
    let text = std::fs::read_to_string(dir.join("out.txt")).unwrap();
    assert!(text.contains("2 passed"), "{text}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_schema_valid(&report_validator(), &doc);
    assert_camel_case(&doc);
    let ids: Vec<&str> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["mcp-handshake", "mcp-stdout-clean"]);
    assert!(std::fs::read_to_string(dir.join("r.junit"))
        .unwrap()
        .contains("tests=\"2\""));
    assert!(std::fs::read_to_string(dir.join("r.markdown"))
        .unwrap()
        .contains("| `mcp-stdout-clean` | passed |"));
    assert!(std::fs::read_to_string(dir.join("r.text"))
        .unwrap()
        .contains("2 passed"));
    // Progress only on a terminal, and never with --no-progress.
    assert!(progress_enabled(false, true));
    assert!(!progress_enabled(true, true));
    assert!(!progress_enabled(false, false));
    assert!(
        parse_report_spec("pdf=x").is_err()
            && parse_report_spec("html=x").is_ok()
            && parse_report_spec("json").is_err()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 13: the split kept the catalogue: the same case ids with the same requirement ids,
/// in the same order, as the single-file suite had (frozen in tests/fixtures).
#[test]
fn the_split_suite_keeps_every_case_and_requirement_id() {
    let frozen: Vec<(String, Vec<String>)> = include_str!("fixtures/mcp-catalogue.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut parts = l.split(' ').map(str::to_owned);
            let id = parts.next().unwrap();
            (id, parts.collect())
        })
        .collect();
    let now: Vec<(String, Vec<String>)> = delegateos_conform::mcp::suite::case_catalogue()
        .into_iter()
        .map(|(id, _, reqs)| (id, reqs))
        .collect();
    assert_eq!(now, frozen);
}

/// Issue 13: the suite is a module directory split by concern; no file is a monolith, and the
/// modules form layers (judge/fixtures/context → session → case modules → mod.rs, the
/// catalogue and runner): every `super::` path names a module of a lower layer, so there is
/// no import cycle and no case module depends on another.
#[test]
fn the_suite_is_split_by_concern_without_cycles() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/mcp"));
    assert!(
        !root.join("suite.rs").exists(),
        "suite.rs is still one file"
    );
    let layer = |name: &str| match name {
        "judge" | "fixtures" | "context" => 0,
        "session" => 1,
        "mod" => 3,
        _ => 2,
    };
    let mut seen = Vec::new();
    for entry in std::fs::read_dir(root.join("suite")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines = text.lines().count();
        assert!(lines <= 700, "{name}.rs has {lines} lines");
        if name != "mod" {
            for (_, rest) in text
                .match_indices("super::")
                .map(|(i, _)| ((), &text[i + 7..]))
            {
                let target: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                assert!(
                    root.join("suite").join(format!("{target}.rs")).exists(),
                    "{name}.rs uses super::{target}, which is not a sibling module"
                );
                assert!(
                    layer(&target) < layer(&name),
                    "{name}.rs imports {target} (same or higher layer)"
                );
            }
        }
        seen.push(name);
    }
    for m in [
        "handshake",
        "listing",
        "calls_denials",
        "spend",
        "transport",
        "smoke",
    ] {
        assert!(seen.iter().any(|n| n == m), "no {m}.rs");
    }
}

/// Every `MCP-…` requirement in spec/requirements.md is checked by some case, and every case
/// cites only known ids.
#[test]
fn every_mcp_requirement_has_a_case() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../spec/requirements.md"
    ))
    .unwrap();
    let known: std::collections::BTreeSet<String> = text
        .split("**`")
        .skip(1)
        .filter_map(|s| s.split('`').next())
        .filter(|id| id.starts_with("MCP-"))
        .map(str::to_owned)
        .collect();
    assert!(known.len() >= 30, "{known:?}");
    let catalogue = delegateos_conform::mcp::suite::case_catalogue();
    let cited: std::collections::BTreeSet<String> = catalogue
        .iter()
        .flat_map(|(_, _, r)| r.iter().cloned())
        .collect();
    let uncovered: Vec<_> = known.difference(&cited).collect();
    let unknown: Vec<_> = cited.difference(&known).collect();
    assert!(
        uncovered.is_empty(),
        "requirements without a case: {uncovered:?}"
    );
    assert!(
        unknown.is_empty(),
        "cases cite unknown requirements: {unknown:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Session scripts (issue 15, spec/mcp-proxy.md §6.1–§6.2): a development fixture in exactly
// the vector format, until `vectors/mcp/session.json` is generated; its scripts are the
// proposed vector twins of the red-team cases and of migrated scenario cases.
// ---------------------------------------------------------------------------------------

mod session_fixture {
    use serde_json::{json, Value};

    use delegateos_conform::mcp::tokens::{self, cap, RootSpec};
    use delegateos_reference::crypto::blake2b256;

    pub const DIR: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/session-vectors"
    );
    pub const FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/session-vectors/mcp/session.json"
    );

    fn token(delegation: &str, contract: &str, budget: u64, caps: &[(&str, &str, &str)]) -> Value {
        let mut spec = RootSpec::new(caps.iter().map(|(n, a, r)| cap(n, a, r)).collect());
        spec.delegation_id = delegation.into();
        spec.contract_id = contract.into();
        spec.budget = budget;
        tokens::envelope(&spec.sign(&tokens::root()))
    }

    fn call(id: Value, tool: &str, path: &str, env: &Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"path": path}, "_delegateos": env}})
    }

    fn stripped(msg: &Value) -> Value {
        let mut m = msg.clone();
        m["params"].as_object_mut().unwrap().remove("_delegateos");
        m
    }

    fn answer(id: &Value, text: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
    }

    fn budget_denial(id: &Value, limit: u64, spent: u64) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32001, "message": "DCT verification failed",
            "data": {"type": "budget_exceeded", "limit": limit, "spent": spent}}})
    }

    /// A script as (step, expected output) pairs.
    struct Script(Vec<(Value, Value)>);

    impl Script {
        fn client(&mut self, msg: Value, to_client: Vec<Value>, to_upstream: Vec<Value>) {
            self.0.push((
                json!({"client": msg}),
                json!({"toClient": to_client, "toUpstream": to_upstream}),
            ));
        }
        fn forwarded(&mut self, msg: Value) {
            let up = stripped(&msg);
            self.client(msg, vec![], vec![up]);
        }
        fn relayed(&mut self, msg: Value) {
            self.client(msg.clone(), vec![], vec![msg]);
        }
        fn upstream(&mut self, msg: Value) {
            self.0.push((
                json!({"upstream": msg.clone()}),
                json!({"toClient": [msg], "toUpstream": []}),
            ));
        }
        fn upstream_as(&mut self, msg: Value, to_client: Value) {
            self.0.push((
                json!({"upstream": msg}),
                json!({"toClient": [to_client], "toUpstream": []}),
            ));
        }
        fn spent(&mut self, spent: Value) {
            let ids: Vec<String> = spent.as_object().unwrap().keys().cloned().collect();
            self.0
                .push((json!({"spent": ids}), json!({"spent": spent})));
        }
        fn split(self) -> (Vec<Value>, Vec<Value>) {
            self.0.into_iter().unzip()
        }
    }

    fn config(extra: Value) -> Value {
        let mut c = json!({
            "trustedRoots": [tokens::root().principal_id()],
            "tools": {
                "read_file": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}},
                "delete_file": {"namespace": "docs", "action": "delete", "resource": {"argument": "path"}},
                "search": {"namespace": "web", "action": "search"},
            },
            "spendPerCall": 100,
        });
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    }

    const READ: &[(&str, &str, &str)] = &[("docs", "read", "/project/**"), ("web", "search", "*")];
    const NOW: &str = "2026-03-01T10:00:00Z";

    #[allow(clippy::too_many_arguments)]
    fn case(
        n: u32,
        description: &str,
        requirements: &[&str],
        flags: &[&str],
        level: &str,
        config: Value,
        script: Script,
        alternative: Option<(&str, Script)>,
    ) -> Value {
        let (steps, out) = script.split();
        let expect = match alternative {
            None => json!({"result": "valid", "output": {"steps": out}}),
            Some((decision, alt)) => {
                let (_, alt_out) = alt.split();
                json!({"result": "acceptable", "decision": decision, "outcomes": [
                    {"result": "valid", "output": {"steps": out}},
                    {"result": "valid", "output": {"steps": alt_out}},
                ]})
            }
        };
        json!({
            "id": format!("mcp-session-{n:04}"),
            "description": description,
            "requirements": requirements,
            "flags": flags,
            "level": level,
            "op": "mcp.session",
            "input": {"config": config, "now": NOW, "steps": steps},
            "expect": expect,
        })
    }

    /// Interleaved calls of two delegations answered in reverse order, then calls that reveal
    /// each delegation's spend through allow/deny (catches `last-authorized-spend`).
    fn interleaved() -> Value {
        let a = token("del_5e5500000001", "ct_5e5500000001", 200, READ);
        let b = token("del_5e5500000002", "ct_5e5500000002", 200, READ);
        let mut s = Script(Vec::new());
        let (a1, b1) = (
            call(json!("a-1"), "read_file", "/project/a.md", &a),
            call(json!("b-1"), "read_file", "/project/b.md", &b),
        );
        s.forwarded(a1);
        s.forwarded(b1);
        s.upstream(answer(&json!("b-1"), "contents of b"));
        s.upstream(answer(&json!("a-1"), "contents of a"));
        s.spent(json!({"del_5e5500000001": 100, "del_5e5500000002": 100}));
        s.forwarded(call(json!("b-2"), "read_file", "/project/b.md", &b));
        s.upstream(answer(&json!("b-2"), "contents of b"));
        s.forwarded(call(json!("a-2"), "read_file", "/project/a.md", &a));
        s.upstream(answer(&json!("a-2"), "contents of a"));
        s.spent(json!({"del_5e5500000001": 200, "del_5e5500000002": 200}));
        s.client(
            call(json!("a-3"), "read_file", "/project/a.md", &a),
            vec![budget_denial(&json!("a-3"), 200, 200)],
            vec![],
        );
        s.client(
            call(json!("b-3"), "read_file", "/project/b.md", &b),
            vec![budget_denial(&json!("b-3"), 200, 200)],
            vec![],
        );
        case(1, "calls of two delegations (budget 200, cost 100) in flight together and answered in reverse order are each charged to their own delegation: one more call of each is allowed, the third of each is budget_exceeded with spent 200",
            &["MCP-SPEND-PER-DELEGATION", "MCP-SPEND-BUDGET", "MCP-CALL-RELAY"], &["McpSessionState"], "normative", config(json!({})), s, None)
    }

    /// A tools/list whose response arrives after a tools/call was sent is still filtered
    /// (by its id), and the call's result is never filtered (catches `list-filter-last-method`).
    fn list_after_call() -> Value {
        let a = token("del_5e5500000003", "ct_5e5500000003", 1_000_000, READ);
        let session = tokens::serialize(&{
            let mut spec = RootSpec::new(vec![cap("docs", "read", "/project/**")]);
            spec.delegation_id = "del_5e5500000004".into();
            spec.sign(&tokens::root())
        });
        let tool = |name: &str| json!({"name": name, "description": format!("the {name} tool"), "inputSchema": {"type": "object"}});
        let mut s = Script(Vec::new());
        s.relayed(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}));
        s.forwarded(call(json!(2), "read_file", "/project/a.md", &a));
        s.upstream_as(
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool("search"), tool("read_file"), tool("delete_file"), tool("mystery")], "nextCursor": "page-2"}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool("read_file")], "nextCursor": "page-2"}}),
        );
        s.upstream(json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "contents of a"}], "tools": [tool("search")]}}));
        s.relayed(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "page-2"}}));
        s.forwarded(call(json!(4), "read_file", "/project/b.md", &a));
        s.upstream(json!({"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": "contents of b"}]}}));
        s.upstream_as(
            json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [tool("delete_file"), tool("read_file")]}}),
            json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [tool("read_file")]}}),
        );
        case(2, "with a session DCT, a tools/list response is filtered because its id is a pending tools/list request, also when a tools/call was sent after it or answered before it; a tools/call result carrying a tools member is relayed unchanged",
            &["MCP-LIST-FILTER", "MCP-LIST-PRESERVE", "MCP-LIST-PAGINATION", "MCP-CALL-RELAY"], &["McpSessionState"], "normative",
            config(json!({"sessionToken": session})), s, None)
    }

    /// Pass-through both ways: a request and its answer, notifications from either side, a
    /// server→client request and the client's answer, cancellation, an unknown method.
    fn pass_through() -> Value {
        let a = token("del_5e5500000005", "ct_5e5500000005", 1_000_000, READ);
        let mut s = Script(Vec::new());
        s.relayed(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}));
        s.upstream(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello"}}));
        s.upstream(json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
        s.relayed(json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
        s.upstream(json!({"jsonrpc": "2.0", "id": "s-1", "method": "roots/list", "params": {}}));
        s.relayed(json!({"jsonrpc": "2.0", "id": "s-1", "result": {"roots": [{"uri": "file:///project", "name": "project"}]}}));
        let mut c = call(json!("c-1"), "read_file", "/project/a.md", &a);
        c["params"]["_meta"] = json!({"progressToken": "tok-1"});
        s.forwarded(c);
        s.upstream(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok-1", "progress": 1, "total": 2}}));
        s.relayed(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c-1", "reason": "user"}}));
        s.relayed(
            json!({"jsonrpc": "2.0", "id": 7, "method": "x/unknown", "params": {"k": [1, 2]}}),
        );
        s.upstream(json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found", "data": {"method": "x/unknown"}}}));
        case(3, "requests, responses, notifications both ways, a server→client request with the client's answer, a cancellation and an unknown method pass through unchanged, in order",
            &["MCP-PASS-THROUGH", "MCP-NOTIFY-UPSTREAM-TO-CLIENT", "MCP-NOTIFY-CLIENT-TO-UPSTREAM", "MCP-SERVER-REQUESTS", "MCP-ID-PRESERVE", "MCP-NO-RESPONSE-TO-NOTIFICATION"],
            &[], "normative", config(json!({})), s, None)
    }

    /// Three calls in flight on a 250 budget (cost 100): a fourth is denied at authorization
    /// (D32) or, under the reading that records spend when the answer arrives, forwarded.
    fn overdraw() -> Value {
        let c = token("del_5e5500000006", "ct_5e5500000006", 250, READ);
        let build = |at_authorization: bool| {
            let mut s = Script(Vec::new());
            for i in 1..=3 {
                s.forwarded(call(
                    json!(format!("o-{i}")),
                    "read_file",
                    "/project/a.md",
                    &c,
                ));
            }
            let fourth = call(json!("o-4"), "read_file", "/project/a.md", &c);
            if at_authorization {
                s.client(fourth, vec![budget_denial(&json!("o-4"), 250, 300)], vec![]);
            } else {
                s.forwarded(fourth);
            }
            for i in 1..=3 {
                s.upstream(answer(&json!(format!("o-{i}")), "ok"));
            }
            s.spent(json!({"del_5e5500000006": 300}));
            s.client(
                call(json!("o-5"), "read_file", "/project/a.md", &c),
                vec![budget_denial(&json!("o-5"), 250, 300)],
                vec![],
            );
            s
        };
        case(4, "three calls in flight on a 250 budget (cost 100): a fourth is budget_exceeded with spent 300 when spend is recorded at authorization (D32), or forwarded when it is recorded as answers arrive; after the answers a fifth is budget_exceeded with spent 300 either way",
            &["MCP-SPEND-CONCURRENT", "MCP-SPEND-BUDGET"], &["McpSpendAtAuthorization"], "hardening",
            config(json!({})), build(true), Some(("D32", build(false))))
    }

    fn key_entry(name: &str) -> Value {
        let seed = blake2b256(format!("delegateos-mcp-suite/{name}").as_bytes());
        json!({"name": name, "seed": hex::encode(seed), "principal": tokens::key(name).principal_id()})
    }

    pub fn file() -> Value {
        let cases = vec![interleaved(), list_after_call(), pass_through(), overdraw()];
        json!({
            "schema": "delegateos-vectors/1",
            "specVersion": delegateos_vectors::format::SPEC_VERSION,
            "generator": {"name": "harness/tests/mcp_suite.rs (session fixture)", "version": "1"},
            "area": "mcp",
            "group": "session",
            "description": "DEVELOPMENT FIXTURE (issue 15): session scripts (mcp.session) in the vector format, for the proxy suite's session runner until vectors/mcp/session.json exists",
            "keys": [key_entry("root"), key_entry("agent")],
            "notes": {
                "McpSessionState": {"bugType": "AUTH_BYPASS", "description": "state kept between requests (spend per delegation, pending tools/list ids) must follow each message, not the last one seen",
                    "clause": "§13.4, D32", "effect": "spend charged to the wrong delegation, or tools/list responses relayed unfiltered", "level": "normative", "severity": "critical"},
                "McpSpendAtAuthorization": {"bugType": "AMBIGUITY", "description": "spend is recorded at authorization, atomically with the budget check",
                    "clause": "D32", "effect": "concurrent calls overdraw a budget", "level": "hardening", "severity": "high"},
            },
            "numberOfCases": cases.len(),
            "cases": cases,
        })
    }
}

/// The committed session fixture is what its generator writes (`REGENERATE_SESSION_FIXTURE=1`
/// rewrites it).
#[test]
fn session_fixture_is_generated() {
    let text = serde_json::to_string_pretty(&session_fixture::file()).unwrap() + "\n";
    if std::env::var_os("REGENERATE_SESSION_FIXTURE").is_some() {
        std::fs::create_dir_all(
            std::path::Path::new(session_fixture::FILE)
                .parent()
                .unwrap(),
        )
        .unwrap();
        std::fs::write(session_fixture::FILE, &text).unwrap();
    }
    let committed = std::fs::read_to_string(session_fixture::FILE).unwrap_or_default();
    assert!(committed == text, "{} is stale: REGENERATE_SESSION_FIXTURE=1 cargo test -p delegateos-conform --test mcp_suite session_fixture", session_fixture::FILE);
    let cases = delegateos_conform::mcp::suite::load_session_cases(Some(std::path::Path::new(
        session_fixture::DIR,
    )))
    .unwrap();
    assert_eq!(cases.len(), 4);
}

/// The session scripts run against the reference proxy (stdio) and pass.
#[test]
fn reference_proxy_passes_the_session_scripts() {
    let mut o = opts("", Some("mcp-session-*"));
    o.session_vectors = Some(PathBuf::from(session_fixture::DIR));
    let report = run_suite(&o);
    assert_eq!(report.cases.len(), 4, "{}", summary(&report));
    assert_eq!(report.count(Status::Passed), 4, "{}", summary(&report));
}

/// The session scripts over MCP Streamable HTTP: upstream notifications and requests that
/// wait for a request stream (§2.1) are checked in their own order, then delivered by a ping.
#[test]
fn reference_proxy_passes_the_session_scripts_over_http() {
    let mut o = opts_on(Transport::Http, "", Some("mcp-session-*"));
    o.session_vectors = Some(PathBuf::from(session_fixture::DIR));
    let report = run_suite(&o);
    assert_eq!(report.count(Status::Passed), 4, "{}", summary(&report));
}

/// Puppet mode of the mock (spec/mcp-proxy.md §4): writes exactly what it is told, refuses a
/// control line that is not JSON without writing anything, records stdin like the scripted
/// mock, and exits on stdin EOF.
#[test]
fn puppet_mock_writes_what_it_is_told_and_exits_on_stdin_eof() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::net::UnixListener;
    use std::process::{Command, Stdio};
    use std::time::Instant;

    let dir = std::env::temp_dir().join(format!("delegateos-puppet-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let sock = dir.join("c.sock");
    let record = dir.join("record.jsonl");
    let listener = UnixListener::bind(&sock).unwrap();
    listener.set_nonblocking(true).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_delegateos-conform"))
        .arg("mock-upstream")
        .arg("--puppet")
        .arg(&sock)
        .arg("--record")
        .arg(&record)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let control = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(_) if started.elapsed() < Duration::from_secs(15) => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("the puppet never connected: {e}"),
        }
    };
    control.set_nonblocking(false).unwrap();
    control
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut acks = BufReader::new(control.try_clone().unwrap());
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut tell = |line: &str| {
        (&control).write_all(line.as_bytes()).unwrap();
        let mut ack = String::new();
        acks.read_line(&mut ack).unwrap();
        ack
    };
    // Exact bytes: member order, spacing and number spelling are the harness's.
    let msg = "{\"method\":\"notifications/message\", \"jsonrpc\":\"2.0\",\"params\":{\"n\":1e3}}";
    assert_eq!(tell(&format!("{msg}\n")), "ok\n");
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line, format!("{msg}\n"));
    assert!(tell("not json\n").starts_with("error "));
    assert_eq!(
        tell("{\"id\":2,\"jsonrpc\":\"2.0\",\"result\":{}}\n"),
        "ok\n"
    );
    line.clear();
    out.read_line(&mut line).unwrap();
    assert_eq!(
        line, "{\"id\":2,\"jsonrpc\":\"2.0\",\"result\":{}}\n",
        "the refused line was written"
    );
    {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"{\"b\":1, \"a\":2}\ngarbage\n").unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "the puppet did not exit on stdin EOF"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert!(status.success());
    let events: Vec<serde_json::Value> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "start",
            "out",
            "puppetRefused",
            "out",
            "in",
            "in",
            "unparsed",
            "eof",
            "exit"
        ],
        "{events:?}"
    );
    assert_eq!(events[0]["mode"], "puppet");
    assert_eq!(events[4]["raw"], "{\"b\":1, \"a\":2}");
    assert_eq!(events[5]["raw"], "garbage");
    let _ = std::fs::remove_dir_all(&dir);
}
