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
        // The reference proxy has every option (as the reference adapter declares them).
        options: delegateos_vectors::options::ALL
            .iter()
            .map(|o| o.name.to_owned())
            .collect(),
        ids: glob.map(str::to_owned).into_iter().collect(),
        case_timeout: Duration::from_secs(120),
        smoke: None,
        transport,
        session_vectors: None,
        jobs: 1,
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

/// `mcp --jobs N`: cases run side by side, each with its own proxy and upstream, and the
/// report is the same as one after another, apart from timings — passes and failures, their
/// order and their messages.
#[test]
fn every_number_of_jobs_gives_the_same_suite_report() {
    let facts = |jobs: usize| {
        let mut o = opts(" --fault no-strip", Some("mcp-*call*"));
        o.jobs = jobs;
        run_suite(&o)
            .cases
            .into_iter()
            .map(|c| (c.id, c.status, c.observed, c.message))
            .collect::<Vec<_>>()
    };
    let serial = facts(1);
    assert!(
        serial.iter().any(|c| c.1 == Status::Failed)
            && serial.iter().any(|c| c.1 == Status::Passed),
        "the fault must fail some cases and pass others: {serial:?}"
    );
    assert_eq!(facts(3), serial, "--jobs 3 differs from --jobs 1");
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
/// Issue 49: the MCP suite names options as `run` does. Without `--option strict-mode` the
/// strict-mode cases and the corpus's strict-mode session script (`mcp-session-0013`, whose
/// vector lists the option) are skipped with "needs option strict-mode", never a finding; with
/// it they run and the reference proxy passes them.
#[test]
fn the_strict_mode_cases_need_the_option_by_its_run_name() {
    let mut o = opts("", None);
    o.ids = vec![
        "mcp-strict-*".to_owned(),
        "mcp-session-0013".to_owned(),
        "mcp-session-0001".to_owned(),
    ];
    o.options = Vec::new();
    let report = run_suite(&o);
    let skipped: Vec<(&str, &str)> = report
        .cases
        .iter()
        .filter(|c| c.status == Status::Skipped)
        .map(|c| (c.id.as_str(), c.message.as_deref().unwrap_or_default()))
        .collect();
    let why = "needs option strict-mode (pass --option strict-mode if the proxy has it)";
    assert_eq!(
        skipped,
        [
            ("mcp-strict-missing-delegateos", why),
            ("mcp-strict-allowed-call", why),
            ("mcp-session-0013", why),
        ],
        "{}",
        summary(&report)
    );
    assert_eq!(report.count(Status::Passed), 1, "{}", summary(&report));
    o.options = vec![delegateos_vectors::options::STRICT_MODE.to_owned()];
    let report = run_suite(&o);
    assert_eq!(report.count(Status::Passed), 4, "{}", summary(&report));
}

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
    o.options = Vec::new();
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
        options: Vec::new(),
        format: delegateos_conform::mcp::cli::Format::Json,
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
        jobs: 1,
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
        parse_report_spec, progress_enabled, run_observed, Format, Progress,
    };
    let dir = temp_dir("reports");
    let mut args = cli_args("", "mcp-handshake", None);
    args.id.push("mcp-stdout-clean".into());
    args.format = Format::Text;
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
        "results" => -1,
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

/// Every `MCP-…` requirement in spec/data/requirements.json is checked by some case, and every
/// case cites only known ids.
#[test]
fn every_mcp_requirement_has_a_case() {
    let known: std::collections::BTreeSet<String> =
        delegateos_vectors::requirements::Requirements::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../spec/data/requirements.json"
        )))
        .unwrap()
        .list
        .into_iter()
        .map(|r| r.id)
        .filter(|id| id.starts_with("MCP-"))
        .collect();
    assert!(known.len() >= 30, "{known:?}");
    // The catalogue and the session scripts of the embedded corpus (spec/mcp-proxy.md §6.2),
    // which the suite runs after the catalogue.
    let catalogue = delegateos_conform::mcp::suite::case_catalogue();
    let scripts = delegateos_conform::mcp::suite::load_session_cases(None).unwrap();
    let cited: std::collections::BTreeSet<String> = catalogue
        .iter()
        .flat_map(|(_, _, r)| r.iter().cloned())
        .chain(scripts.iter().flat_map(|c| c.requirements.iter().cloned()))
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
// Session scripts (issue 15, spec/mcp-proxy.md §6.1–§6.2): a fixture in exactly the vector
// format (ids 0101+), expectations from the reference plugin; its scripts test the runner
// (acceptable outcomes, HTTP delivery) and are the proposed vector twins of the suite's Rust
// scenario cases.
// ---------------------------------------------------------------------------------------

mod session_fixture {
    use std::collections::BTreeSet;

    use serde_json::{json, Value};

    use delegateos_conform::mcp::tokens::{self, cap, RootSpec};
    use delegateos_reference::crypto::blake2b256;
    use delegateos_reference::mcp::{
        decide_call, filter_tools, BudgetTracker, CallDecision, McpConfig,
    };

    pub const DIR: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/session-vectors"
    );
    pub const FILE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/session-vectors/mcp/session.json"
    );
    const NOW: &str = "2026-03-01T10:00:00Z";

    type Caps<'a> = &'a [(&'a str, &'a str, &'a str)];

    fn spec(delegation: &str, budget: u64, caps: Caps) -> RootSpec {
        let mut spec = RootSpec::new(caps.iter().map(|(n, a, r)| cap(n, a, r)).collect());
        spec.delegation_id = delegation.into();
        spec.contract_id = format!("ct_{}", &delegation[4..]);
        spec.budget = budget;
        spec
    }

    fn token(delegation: &str, budget: u64, caps: Caps) -> Value {
        tokens::envelope(&spec(delegation, budget, caps).sign(&tokens::root()))
    }

    fn call(id: Value, tool: &str, args: Value, env: Option<&Value>) -> Value {
        let mut m = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args}});
        if let Some(env) = env {
            m["params"]["_delegateos"] = env.clone();
        }
        m
    }

    fn read(id: Value, path: &str, env: &Value) -> Value {
        call(id, "read_file", json!({"path": path}), Some(env))
    }

    fn answer(id: &Value, text: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}]}})
    }

    fn tool(name: &str) -> Value {
        json!({"name": name, "description": format!("the {name} tool"), "inputSchema": {"type": "object"}})
    }

    /// §6.1: a denial's `error.data` is reduced to `type`; other errors lose `detail`.
    fn no_detail(mut m: Value) -> Value {
        let denial = m.pointer("/error/code") == Some(&json!(-32001));
        if let Some(d) = m.pointer_mut("/error/data").and_then(Value::as_object_mut) {
            if denial {
                d.retain(|k, _| k == "type");
            } else {
                d.remove("detail");
            }
        }
        m
    }

    /// The expected outputs, from the reference plugin (`decide_call`, `filter_tools`) with
    /// the §6.1 rules: a tools/list response is filtered because its id is pending.
    struct Script {
        config: McpConfig,
        tracker: BudgetTracker,
        lists: BTreeSet<String>,
        pairs: Vec<(Value, Value)>,
    }

    impl Script {
        fn new(config: &Value) -> Self {
            let mut launch = config.clone();
            launch["version"] = json!(1);
            launch["upstream"] = json!({"command": "unused"});
            let path = std::env::temp_dir().join(format!(
                "delegateos-session-fixture-{}-{}.json",
                std::process::id(),
                blake2b256(launch.to_string().as_bytes())[0]
            ));
            std::fs::write(&path, launch.to_string()).unwrap();
            let (config, _) = delegateos_conform::mcp::proxy::load_config(&path, false).unwrap();
            let _ = std::fs::remove_file(&path);
            Script {
                config,
                tracker: BudgetTracker::new(),
                lists: BTreeSet::new(),
                pairs: Vec::new(),
            }
        }

        fn client(&mut self, msg: Value) -> &mut Self {
            let method = msg.get("method").and_then(Value::as_str);
            let (to_client, to_upstream) = if method == Some("tools/call") {
                match decide_call(&msg, &self.config, &mut self.tracker, NOW) {
                    CallDecision::PassThrough => (vec![], vec![msg.clone()]),
                    CallDecision::Forward { request, .. } => (vec![], vec![request]),
                    CallDecision::Deny { response } => (vec![no_detail(response)], vec![]),
                    CallDecision::Drop { .. } => (vec![], vec![]),
                }
            } else {
                if method == Some("tools/list") {
                    if let Some(id) = msg.get("id") {
                        self.lists.insert(id.to_string());
                    }
                }
                (vec![], vec![msg.clone()])
            };
            self.pairs.push((
                json!({"client": msg}),
                json!({"toClient": to_client, "toUpstream": to_upstream}),
            ));
            self
        }

        fn upstream(&mut self, msg: Value) -> &mut Self {
            let mut out = msg.clone();
            let is_response = msg.get("method").is_none();
            let pending = msg
                .get("id")
                .map(Value::to_string)
                .filter(|k| is_response && self.lists.remove(k));
            if let (Some(_), Some(tools)) = (
                pending,
                msg.pointer("/result/tools").and_then(Value::as_array),
            ) {
                if self.config.session_token.is_some() {
                    out["result"]["tools"] =
                        json!(filter_tools(tools, &self.config, &self.tracker, NOW));
                }
            }
            self.pairs.push((
                json!({"upstream": msg}),
                json!({"toClient": [out], "toUpstream": []}),
            ));
            self
        }

        fn spent(&mut self, ids: &[&str]) -> &mut Self {
            let spent: serde_json::Map<String, Value> = ids
                .iter()
                .map(|d| ((*d).to_owned(), json!(self.tracker.spent(d))))
                .collect();
            self.pairs
                .push((json!({"spent": ids}), json!({"spent": spent})));
            self
        }

        fn steps(&self) -> (Vec<Value>, Vec<Value>) {
            self.pairs.iter().cloned().unzip()
        }
    }

    fn config(extra: Value) -> Value {
        let mut c = json!({
            "trustedRoots": [tokens::root().principal_id()],
            "tools": {
                "read_file": {"namespace": "docs", "action": "read", "resource": {"argument": "path"}},
                "nested": {"namespace": "docs", "action": "read", "resource": {"argument": "target.path"}},
                "delete_file": {"namespace": "docs", "action": "delete", "resource": {"argument": "path"}},
                "search": {"namespace": "web", "action": "search"},
                "run": {"namespace": "compute", "action": "execute", "resource": {"constant": "*"}, "spend": 500},
            },
            "spendPerCall": 100,
        });
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        c
    }

    const READ: Caps = &[("docs", "read", "/project/**"), ("web", "search", "*")];
    const BIG: u64 = 1_000_000;

    struct Meta<'a> {
        description: &'a str,
        requirements: &'a [&'a str],
        flags: &'a [&'a str],
        level: &'a str,
        /// The Rust scenario case this script is the twin of.
        twin: &'a str,
    }

    fn case(
        n: u32,
        meta: &Meta,
        config: &Value,
        script: &Script,
        alternative: Option<(&str, Vec<Value>)>,
    ) -> Value {
        let (steps, out) = script.steps();
        let expect = match alternative {
            None => json!({"result": "valid", "output": {"steps": out}}),
            Some((decision, alt)) => {
                json!({"result": "acceptable", "decision": decision, "outcomes": [
                    {"result": "valid", "output": {"steps": out}},
                    {"result": "valid", "output": {"steps": alt}},
                ]})
            }
        };
        let description = if meta.twin.is_empty() {
            meta.description.to_owned()
        } else {
            format!("{} (twin of {})", meta.description, meta.twin)
        };
        json!({
            // 0101+: never the ids of vectors/mcp/session.json.
            "id": format!("mcp-session-{:04}", 100 + n),
            "description": description,
            "requirements": meta.requirements,
            "flags": meta.flags,
            "level": meta.level,
            "ground": match meta.level {
                "normative" => json!({"kind": "text", "source": "spec", "section": "§11.3",
                    "quote": "Extract _delegateos (if present)"}),
                "decision" => json!({"kind": "decision", "decision": "D32",
                    "reason": "a session fixture of the proxy suite"}),
                _ => json!({"kind": "hardening", "reason": "a session fixture of the proxy suite"}),
            },
            "stake": {"granted": "authorization-bypass", "refused": "valid-input-refused",
                "wrongOutput": "wrong-output", "crashOrHang": "crash-or-hang"},
            "op": "mcp.session",
            "input": {"config": config, "now": NOW, "steps": steps},
            "expect": expect,
        })
    }

    fn cases() -> Vec<Value> {
        let mut out = Vec::new();
        let plain = config(json!({}));

        // 1. Red team `last-authorized-spend`.
        let (a, b) = (
            token("del_5e5500000001", 200, READ),
            token("del_5e5500000002", 200, READ),
        );
        let ids = ["del_5e5500000001", "del_5e5500000002"];
        let mut s = Script::new(&plain);
        s.client(read(json!("a-1"), "/project/a.md", &a))
            .client(read(json!("b-1"), "/project/b.md", &b))
            .upstream(answer(&json!("b-1"), "contents of b"))
            .upstream(answer(&json!("a-1"), "contents of a"))
            .spent(&ids)
            .client(read(json!("b-2"), "/project/b.md", &b))
            .upstream(answer(&json!("b-2"), "contents of b"))
            .client(read(json!("a-2"), "/project/a.md", &a))
            .upstream(answer(&json!("a-2"), "contents of a"))
            .spent(&ids)
            .client(read(json!("a-3"), "/project/a.md", &a))
            .client(read(json!("b-3"), "/project/b.md", &b));
        out.push(case(1, &Meta {
            description: "calls of two delegations (budget 200, cost 100) in flight together and answered in reverse order are each charged to their own delegation: one more call of each is allowed, the third of each is budget_exceeded with spent 200",
            requirements: &["MCP-SPEND-PER-DELEGATION", "MCP-SPEND-BUDGET", "MCP-CALL-RELAY"], flags: &["McpSessionState"], level: "normative", twin: "" }, &plain, &s, None));

        // 2. Red team `list-filter-last-method`.
        let session = tokens::serialize(
            &spec("del_5e5500000004", BIG, &[("docs", "read", "/project/**")])
                .sign(&tokens::root()),
        );
        let cfg = config(json!({"sessionToken": session}));
        let a = token("del_5e5500000003", BIG, READ);
        let mut s = Script::new(&cfg);
        s.client(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}))
            .client(read(json!(2), "/project/a.md", &a))
            .upstream(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool("search"), tool("read_file"), tool("delete_file"), tool("mystery")], "nextCursor": "page-2"}}))
            .upstream(json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "contents of a"}], "tools": [tool("search")]}}))
            .client(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"cursor": "page-2"}}))
            .client(read(json!(4), "/project/b.md", &a))
            .upstream(answer(&json!(4), "contents of b"))
            .upstream(json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [tool("delete_file"), tool("read_file")]}}));
        out.push(case(2, &Meta {
            description: "with a session DCT, a tools/list response is filtered because its id is a pending tools/list request, also when a tools/call was sent after it or answered before it; a tools/call result carrying a tools member is relayed unchanged",
            requirements: &["MCP-LIST-FILTER", "MCP-LIST-PRESERVE", "MCP-LIST-PAGINATION", "MCP-CALL-RELAY"], flags: &["McpSessionState"], level: "normative", twin: "" }, &cfg, &s, None));

        // 3. Pass-through both ways.
        let a = token("del_5e5500000005", BIG, READ);
        let mut c = read(json!("c-1"), "/project/a.md", &a);
        c["params"]["_meta"] = json!({"progressToken": "tok-1"});
        let mut s = Script::new(&plain);
        s.client(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}))
            .upstream(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "hello"}}))
            .upstream(json!({"jsonrpc": "2.0", "id": "p", "result": {}}))
            .client(json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}))
            .upstream(json!({"jsonrpc": "2.0", "id": "s-1", "method": "roots/list", "params": {}}))
            .client(json!({"jsonrpc": "2.0", "id": "s-1", "result": {"roots": [{"uri": "file:///project", "name": "project"}]}}))
            .client(c)
            .upstream(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "tok-1", "progress": 1, "total": 2}}))
            .client(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "c-1", "reason": "user"}}))
            .client(json!({"jsonrpc": "2.0", "id": 7, "method": "x/unknown", "params": {"k": [1, 2]}}))
            .upstream(json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32601, "message": "Method not found", "data": {"method": "x/unknown"}}}));
        out.push(case(3, &Meta {
            description: "requests, responses, notifications both ways, a server→client request with the client's answer, a cancellation and an unknown method pass through unchanged, in order",
            requirements: &["MCP-PASS-THROUGH", "MCP-NOTIFY-UPSTREAM-TO-CLIENT", "MCP-NOTIFY-CLIENT-TO-UPSTREAM", "MCP-SERVER-REQUESTS", "MCP-ID-PRESERVE", "MCP-NO-RESPONSE-TO-NOTIFICATION"],
            flags: &[], level: "normative", twin: "" }, &plain, &s, None));

        // 4. Overdraw: acceptable (D32).
        let c = token("del_5e5500000006", 250, READ);
        let mut s = Script::new(&plain);
        for i in 1..=4 {
            s.client(read(json!(format!("o-{i}")), "/project/a.md", &c));
        }
        for i in 1..=3 {
            s.upstream(answer(&json!(format!("o-{i}")), "ok"));
        }
        s.spent(&["del_5e5500000006"])
            .client(read(json!("o-5"), "/project/a.md", &c));
        let (_, mut alt) = s.steps();
        // Recorded as answers arrive: the fourth call is authorized (spent 0) and forwarded.
        let mut fourth = read(json!("o-4"), "/project/a.md", &c);
        fourth["params"]
            .as_object_mut()
            .unwrap()
            .remove("_delegateos");
        alt[3] = json!({"toClient": [], "toUpstream": [fourth]});
        out.push(case(4, &Meta {
            description: "three calls in flight on a 250 budget (cost 100): a fourth is budget_exceeded with spent 300 when spend is recorded at authorization (D32), or forwarded when it is recorded as answers arrive; after the three answers a fifth is budget_exceeded with spent 300 either way",
            requirements: &["MCP-SPEND-CONCURRENT", "MCP-SPEND-BUDGET"], flags: &["McpSpendAtAuthorization"], level: "hardening", twin: "mcp-spend-concurrent-overdraw" }, &plain, &s, Some(("D32", alt))));

        out.extend(migrated());
        out
    }

    /// Twins of the proxy suite's scenario cases (issue 15: "migrate where they fit").
    fn migrated() -> Vec<Value> {
        let mut out = Vec::new();
        let plain = config(json!({}));
        let a = token("del_5e5500000010", BIG, READ);
        let ping = |id: Value| json!({"jsonrpc": "2.0", "id": id, "method": "ping", "params": {}});
        let empty = |id: Value| json!({"jsonrpc": "2.0", "id": id, "result": {}});

        // 5. mcp-pass-through
        let mut s = Script::new(&plain);
        s.client(ping(json!(1))).upstream(empty(json!(1)))
            .client(json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list", "params": {}}))
            .upstream(json!({"jsonrpc": "2.0", "id": 2, "result": {"resources": [{"uri": "file:///project/readme.md", "name": "readme"}]}}))
            .client(json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/list", "params": {}}))
            .upstream(json!({"jsonrpc": "2.0", "id": 3, "result": {"prompts": [{"name": "summarize"}]}}))
            .client(json!({"jsonrpc": "2.0", "id": 4, "method": "no/such/method", "params": {"x": 1}}))
            .upstream(json!({"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found", "data": {"method": "no/such/method"}}}))
            .client(json!({"jsonrpc": "2.0", "id": 5, "method": "mock/fail", "params": {"why": "scripted"}}))
            .upstream(json!({"jsonrpc": "2.0", "id": 5, "error": {"code": -32042, "message": "scripted failure", "data": {"echo": {"why": "scripted"}}}}));
        out.push(case(5, &Meta { description: "ping, resources/list, prompts/list, an unknown method (-32601 with data) and an upstream error (-32042 with data) pass through unchanged both ways",
            requirements: &["MCP-PASS-THROUGH"], flags: &[], level: "normative", twin: "mcp-pass-through" }, &plain, &s, None));

        // 6. mcp-id-preservation
        let mut s = Script::new(&plain);
        for id in [
            json!("abc"),
            json!(7),
            json!(0),
            json!(9_007_199_254_740_993_u64),
            json!(-3),
            json!("ü✓😀"),
            json!(""),
        ] {
            s.client(ping(id.clone())).upstream(empty(id));
        }
        let narrow = token("del_5e5500000011", BIG, &[("docs", "read", "/project/**")]);
        for id in [json!(0), json!("ü✓😀"), json!(9_007_199_254_740_993_u64)] {
            s.client(call(id, "search", json!({"q": "x"}), Some(&narrow)));
        }
        s.client(json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
        out.push(case(6, &Meta { description: "string, integer, 0, 2^53+1, negative, unicode and empty-string ids come back identical on pass-through, and 0, unicode and 2^53+1 on proxy-built denials; a notification gets no response",
            requirements: &["MCP-ID-PRESERVE", "MCP-NO-RESPONSE-TO-NOTIFICATION"], flags: &[], level: "normative", twin: "mcp-id-preservation" }, &plain, &s, None));

        // 7. mcp-notify-upstream-to-client
        let mut c = read(json!("n-1"), "/project/a.md", &a);
        c["params"]["_meta"] = json!({"progressToken": "pt-7"});
        let mut s = Script::new(&plain);
        s.client(c)
            .upstream(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
            .upstream(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}}));
        for i in 1..=3 {
            s.upstream(json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "pt-7", "progress": i, "total": 3}}));
        }
        s.upstream(answer(&json!("n-1"), "done"));
        out.push(case(7, &Meta { description: "upstream notifications (tools/list_changed, message, three progress) reach the client in order, before the response of the call they belong to",
            requirements: &["MCP-NOTIFY-UPSTREAM-TO-CLIENT"], flags: &[], level: "normative", twin: "mcp-notify-upstream-to-client" }, &plain, &s, None));

        // 8. mcp-notify-client-to-upstream
        let mut s = Script::new(&plain);
        s.client(read(json!("slow"), "/project/a.md", &a))
            .client(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow", "reason": "changed my mind"}}))
            .client(json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
        out.push(case(8, &Meta { description: "client notifications, including the cancellation of an in-flight call, reach the upstream unchanged; nothing answers them",
            requirements: &["MCP-NOTIFY-CLIENT-TO-UPSTREAM", "MCP-NO-RESPONSE-TO-NOTIFICATION"], flags: &[], level: "normative", twin: "mcp-notify-client-to-upstream" }, &plain, &s, None));

        // 9. mcp-server-request
        let mut s = Script::new(&plain);
        s.client(read(json!("ask"), "/project/a.md", &a))
            .upstream(json!({"jsonrpc": "2.0", "id": "mock-ask-1", "method": "roots/list", "params": {}}))
            .client(json!({"jsonrpc": "2.0", "id": "mock-ask-1", "result": {"roots": [{"uri": "file:///project"}]}}))
            .upstream(answer(&json!("ask"), "asked the client"));
        out.push(case(9, &Meta { description: "an upstream roots/list request reaches the client, the client's answer reaches the upstream, then the call is answered",
            requirements: &["MCP-SERVER-REQUESTS"], flags: &[], level: "normative", twin: "mcp-server-request" }, &plain, &s, None));

        // 10–13. Listing.
        let tools = json!([
            tool("read_file"),
            tool("search"),
            tool("delete_file"),
            tool("nested"),
            tool("unmapped")
        ]);
        let list = |id: i64, cursor: Option<&str>| json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": cursor.map_or(json!({}), |c| json!({"cursor": c}))});
        let page = |id: i64, tools: Value, next: Option<&str>| {
            let mut r = json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}});
            if let Some(n) = next {
                r["result"]["nextCursor"] = json!(n);
            }
            r
        };
        let mut s = Script::new(&plain);
        s.client(list(1, None))
            .upstream(page(1, tools.clone(), None));
        out.push(case(
            10,
            &Meta {
                description: "without a session DCT tools/list is relayed unfiltered",
                requirements: &["MCP-LIST-UNFILTERED", "MCP-LIST-PRESERVE"],
                flags: &[],
                level: "normative",
                twin: "mcp-list-unfiltered",
            },
            &plain,
            &s,
            None,
        ));

        let session = |caps: Caps, expires: Option<&str>, issuer: &str| {
            let mut sp = spec("del_5e5500000012", BIG, caps);
            if let Some(e) = expires {
                sp.expires_at = e.into();
            }
            tokens::serialize(&sp.sign(&tokens::key(issuer)))
        };
        // The resource is ignored: a grant on /elsewhere/** still lists read_file.
        let cfg = config(
            json!({"sessionToken": session(&[("docs", "read", "/elsewhere/**"), ("web", "search", "*")], None, "root")}),
        );
        let mut s = Script::new(&cfg);
        s.client(list(1, None))
            .upstream(page(1, tools.clone(), None));
        out.push(case(11, &Meta { description: "with a session DCT only mapped, granted tools are listed (namespace and action; the resource is ignored), tool objects unchanged and in order",
            requirements: &["MCP-LIST-FILTER", "MCP-LIST-UNMAPPED-HIDDEN", "MCP-LIST-PRESERVE"], flags: &[], level: "normative", twin: "mcp-list-filter" }, &cfg, &s, None));

        let cfg = config(json!({"sessionToken": session(&[("web", "search", "*")], None, "root")}));
        let mut s = Script::new(&cfg);
        s.client(list(1, None))
            .upstream(page(
                1,
                json!([tool("read_file"), tool("delete_file")]),
                Some("page-2"),
            ))
            .client(list(2, Some("page-2")))
            .upstream(page(
                2,
                json!([tool("search"), tool("unmapped")]),
                Some("page-4"),
            ))
            .client(list(3, Some("page-4")))
            .upstream(page(3, json!([tool("nested")]), None));
        out.push(case(12, &Meta { description: "every page is filtered, the first to empty; nextCursor is relayed unchanged; hidden names appear on no page",
            requirements: &["MCP-LIST-PAGINATION", "MCP-LIST-FILTER"], flags: &[], level: "normative", twin: "mcp-list-pagination" }, &cfg, &s, None));

        for (n, (expires, issuer, what)) in [
            (Some(tokens::PAST), "root", "an expired"),
            (None, "other-root", "an untrusted"),
        ]
        .into_iter()
        .enumerate()
        {
            let cfg = config(json!({"sessionToken": session(READ, expires, issuer)}));
            let mut s = Script::new(&cfg);
            s.client(list(1, None))
                .upstream(page(1, tools.clone(), None));
            out.push(case(
                13 + n as u32,
                &Meta {
                    description: &format!("{what} session DCT lists no tools"),
                    requirements: &["MCP-LIST-INVALID-SESSION-TOKEN"],
                    flags: &[],
                    level: "normative",
                    twin: "mcp-list-invalid-session-token",
                },
                &cfg,
                &s,
                None,
            ));
        }

        // 15. mcp-call-nested-resource
        let mut s = Script::new(&plain);
        s.client(call(
            json!(1),
            "nested",
            json!({"target": {"path": "/project/x.md"}}),
            Some(&a),
        ))
        .upstream(answer(&json!(1), "nested ok"))
        .client(call(json!(2), "nested", json!({"target": {}}), Some(&a)))
        .client(call(
            json!(3),
            "nested",
            json!({"target": {"path": 5}}),
            Some(&a),
        ))
        .client(call(
            json!(4),
            "nested",
            json!({"target": {"path": "/secret/x"}}),
            Some(&a),
        ));
        out.push(case(15, &Meta { description: "the resource comes from a dot-path argument: allowed inside the grant; a missing or non-string argument is capability_not_granted with requested.resource null; a path outside the grant is capability_not_granted",
            requirements: &["MCP-CALL-VERIFY", "MCP-DENY-CAPABILITY-DATA"], flags: &[], level: "normative", twin: "mcp-call-nested-resource" }, &plain, &s, None));

        // 16. mcp-call-error-relayed
        let mut s = Script::new(&plain);
        s.client(read(json!(1), "/project/a.md", &a))
            .upstream(json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "tool failed"}], "isError": true}}))
            .client(read(json!(2), "/project/b.md", &a))
            .upstream(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "upstream broke", "data": {"why": [1, 2]}}}));
        out.push(case(16, &Meta { description: "an isError result and a JSON-RPC error answering allowed calls are relayed unchanged",
            requirements: &["MCP-CALL-RELAY"], flags: &[], level: "normative", twin: "mcp-call-error-relayed" }, &plain, &s, None));

        // 17. mcp-missing-delegateos-pass-through
        let mut s = Script::new(&plain);
        s.client(call(
            json!(1),
            "delete_file",
            json!({"path": "/etc/passwd"}),
            None,
        ))
        .upstream(answer(&json!(1), "deleted"));
        out.push(case(
            17,
            &Meta {
                description:
                    "a tools/call without _delegateos is forwarded unchanged in the default mode",
                requirements: &["MCP-MISSING-DELEGATEOS"],
                flags: &[],
                level: "normative",
                twin: "mcp-missing-delegateos-pass-through",
            },
            &plain,
            &s,
            None,
        ));

        // 18. mcp-strict-missing-delegateos + mcp-strict-allowed-call
        let strict = config(json!({"strict": true}));
        let mut s = Script::new(&strict);
        s.client(call(
            json!(1),
            "read_file",
            json!({"path": "/project/a.md"}),
            None,
        ))
        .client(read(json!(2), "/project/a.md", &a))
        .upstream(answer(&json!(2), "ok"));
        out.push(case(18, &Meta { description: "strict mode denies a tools/call without _delegateos with malformed_token and forwards nothing; a verified call is still forwarded",
            requirements: &["MCP-STRICT-MODE", "MCP-DENY-NOT-FORWARDED", "MCP-CALL-STRIP"], flags: &[], level: "normative", twin: "mcp-strict-missing-delegateos, mcp-strict-allowed-call" }, &strict, &s, None));

        // 19. mcp-deny-hidden-tool
        let cfg = config(
            json!({"sessionToken": tokens::serialize(&spec("del_5e5500000013", BIG, READ).sign(&tokens::root()))}),
        );
        let mut s = Script::new(&cfg);
        s.client(list(1, None))
            .upstream(page(1, tools.clone(), None))
            .client(call(
                json!(2),
                "delete_file",
                json!({"path": "/project/a.md"}),
                Some(&a),
            ));
        out.push(case(
            19,
            &Meta {
                description: "a tool hidden from tools/list is denied when called anyway",
                requirements: &[
                    "MCP-LIST-FILTER",
                    "MCP-DENY-EVERY-TYPE",
                    "MCP-DENY-NOT-FORWARDED",
                ],
                flags: &[],
                level: "normative",
                twin: "mcp-deny-hidden-tool",
            },
            &cfg,
            &s,
            None,
        ));

        // 20. mcp-deny-non-blocking
        let mut s = Script::new(&plain);
        s.client(read(json!("slow"), "/project/a.md", &a))
            .client(read(json!("denied"), "/secret/a.md", &a))
            .upstream(answer(&json!("slow"), "finally"));
        out.push(case(
            20,
            &Meta {
                description:
                    "a denial is answered while an allowed call sent before it is still unanswered",
                requirements: &["MCP-DENY-NON-BLOCKING"],
                flags: &[],
                level: "normative",
                twin: "mcp-deny-non-blocking",
            },
            &plain,
            &s,
            None,
        ));

        // 21. mcp-denied-notification-silent
        let one = token("del_5e5500000014", 100, READ);
        let mut s = Script::new(&plain);
        let mut denied = read(json!(0), "/secret/a.md", &one);
        denied.as_object_mut().unwrap().remove("id");
        let mut allowed = read(json!(0), "/project/a.md", &one);
        allowed.as_object_mut().unwrap().remove("id");
        s.client(denied)
            .client(allowed)
            .spent(&["del_5e5500000014"])
            .client(read(json!(1), "/project/a.md", &one));
        out.push(case(21, &Meta { description: "a denied tools/call notification is dropped without an answer; an authorized one is forwarded and charged (the next call on the 100 budget is budget_exceeded)",
            requirements: &["MCP-NO-RESPONSE-TO-NOTIFICATION", "MCP-DENY-NOT-FORWARDED", "MCP-SPEND-BUDGET"], flags: &[], level: "normative", twin: "mcp-denied-notification-silent" }, &plain, &s, None));

        // 22. mcp-resource-non-string
        let star = token("del_5e5500000015", BIG, &[("docs", "read", "*")]);
        let mut s = Script::new(&plain);
        for (i, v) in [
            json!(["/project/a.md"]),
            json!(42),
            json!({"p": "/project/a.md"}),
            json!(true),
        ]
        .into_iter()
        .enumerate()
        {
            s.client(call(json!(i), "read_file", json!({"path": v}), Some(&star)));
        }
        out.push(case(22, &Meta { description: "under a bare * grant, a non-string resource argument (array, number, object, boolean) is capability_not_granted with requested.resource null (D36), never coerced to text",
            requirements: &["MCP-CALL-VERIFY", "MCP-DENY-CAPABILITY-DATA", "MCP-DENY-NOT-FORWARDED"], flags: &[], level: "normative", twin: "mcp-resource-non-string" }, &plain, &s, None));

        // 23. mcp-spend-concurrent
        let (ta, tb) = (
            token("del_5e5500000016", 400, READ),
            token("del_5e5500000017", BIG, READ),
        );
        let mut s = Script::new(&plain);
        for i in 0..8 {
            let (t, who) = if i % 2 == 0 { (&ta, "a") } else { (&tb, "b") };
            s.client(read(
                json!(format!("{who}-{i}")),
                &format!("/project/{i}.md"),
                t,
            ));
        }
        for i in (0..8).rev() {
            let who = if i % 2 == 0 { "a" } else { "b" };
            s.upstream(answer(
                &json!(format!("{who}-{i}")),
                &format!("/project/{i}.md"),
            ));
        }
        s.spent(&["del_5e5500000016", "del_5e5500000017"])
            .client(read(json!("a-8"), "/project/8.md", &ta))
            .client(read(json!("b-8"), "/project/8.md", &tb))
            .upstream(answer(&json!("b-8"), "/project/8.md"));
        out.push(case(23, &Meta { description: "8 calls on two delegations in flight together, answered in reverse order: each answer reaches its own id; delegation A (budget 400) is then budget_exceeded with limit 400 and spent 400 while B still works",
            requirements: &["MCP-SPEND-PER-DELEGATION", "MCP-SPEND-CONCURRENT", "MCP-SPEND-BUDGET"], flags: &["McpSessionState"], level: "normative", twin: "mcp-spend-concurrent" }, &plain, &s, None));

        // 24. mcp-spend-budget-exhaustion
        let t = token("del_5e5500000018", 250, READ);
        let mut s = Script::new(&plain);
        s.client(read(json!(1), "/project/1.md", &t)).upstream(answer(&json!(1), "1"))
            .client(read(json!(2), "/project/2.md", &t))
            .upstream(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "failed upstream"}}))
            .client(read(json!(3), "/project/3.md", &t)).upstream(answer(&json!(3), "3"))
            .spent(&["del_5e5500000018"])
            .client(read(json!(4), "/project/4.md", &t));
        out.push(case(24, &Meta { description: "spend accumulates across calls, an upstream error included, until budget_exceeded: budget 250, cost 100, the fourth call is denied with spent 300",
            requirements: &["MCP-SPEND-BUDGET", "MCP-SPEND-PER-DELEGATION"], flags: &[], level: "normative", twin: "mcp-spend-budget-exhaustion" }, &plain, &s, None));

        // 25. mcp-spend-envelope-variants
        let full = token("del_5e5500000019", 250, READ);
        let mut bare = full.clone();
        bare.as_object_mut().unwrap().remove("delegationId");
        bare.as_object_mut().unwrap().remove("contractId");
        let mut s = Script::new(&plain);
        s.client(read(json!(1), "/project/1.md", &full))
            .upstream(answer(&json!(1), "1"))
            .client(read(json!(2), "/project/2.md", &bare))
            .upstream(answer(&json!(2), "2"))
            .client(read(json!(3), "/project/3.md", &full))
            .upstream(answer(&json!(3), "3"))
            .spent(&["del_5e5500000019"])
            .client(read(json!(4), "/project/4.md", &bare));
        out.push(case(25, &Meta { description: "spend is keyed by the token's delegation, not by the optional _delegateos.delegationId: calls with and without it share one budget (250: the fourth is budget_exceeded with spent 300)",
            requirements: &["MCP-SPEND-PER-DELEGATION", "MCP-SPEND-BUDGET"], flags: &["McpSessionState"], level: "normative", twin: "mcp-spend-envelope-variants" }, &plain, &s, None));
        out
    }

    fn key_entry(name: &str) -> Value {
        let seed = blake2b256(format!("delegateos-mcp-suite/{name}").as_bytes());
        json!({"name": name.replace('-', "_"), "seed": hex::encode(seed), "principal": tokens::key(name).principal_id()})
    }

    pub fn file() -> Value {
        let cases = cases();
        json!({
            "schema": "delegateos-vectors/1",
            "specVersion": delegateos_vectors::format::SPEC_VERSION,
            "generator": {"name": "harness/tests/mcp_suite.rs (session fixture)", "version": "1"},
            "area": "mcp",
            "group": "session",
            "description": "FIXTURE (issue 15): session scripts (mcp.session) in the vector format for the proxy suite's session runner tests (acceptable outcomes, HTTP delivery) and the proposed vector twins of the suite's Rust scenario cases; ids 0101+ do not collide with vectors/mcp/session.json",
            "keys": [key_entry("root"), key_entry("agent"), key_entry("other-root")],
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
    assert_eq!(cases.len(), 25);
}

/// The session scripts run against the reference proxy (stdio) and pass.
#[test]
fn reference_proxy_passes_the_session_scripts() {
    let mut o = opts("", Some("mcp-session-*"));
    o.session_vectors = Some(PathBuf::from(session_fixture::DIR));
    let report = run_suite(&o);
    assert_eq!(report.cases.len(), 25, "{}", summary(&report));
    assert_eq!(report.count(Status::Passed), 25, "{}", summary(&report));
}

/// The session scripts over MCP Streamable HTTP: upstream notifications and requests that
/// wait for a request stream (§2.1) are checked in their own order, then delivered by a ping.
#[test]
fn reference_proxy_passes_the_session_scripts_over_http() {
    let mut o = opts_on(Transport::Http, "", Some("mcp-session-*"));
    o.session_vectors = Some(PathBuf::from(session_fixture::DIR));
    let report = run_suite(&o);
    assert_eq!(report.count(Status::Passed), 25, "{}", summary(&report));
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
