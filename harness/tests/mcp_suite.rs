//! The MCP proxy suite against the reference proxy (must pass completely) and against
//! deliberately broken variants of it (each must be caught).

use std::path::PathBuf;
use std::time::Duration;

use delegateos_conform::mcp::cli::find_smoke;
use delegateos_conform::mcp::suite::{run_suite, MockCommand, Status, SuiteOptions, SuiteReport};

fn opts(extra: &str, glob: Option<&str>) -> SuiteOptions {
    let conform = env!("CARGO_BIN_EXE_delegateos-conform");
    SuiteOptions {
        proxy: format!("'{conform}' reference-proxy --config {{config}}{extra}"),
        mock_upstream: MockCommand::subcommand_of(PathBuf::from(conform)),
        strict_mode_cases: true,
        id_glob: glob.map(str::to_owned),
        case_timeout: Duration::from_secs(120),
        smoke: None,
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
        .filter(|c| c.status != Status::Passed && !c.id.starts_with("mcp-smoke-"))
        .collect();
    assert!(not_passed.is_empty(), "{}", summary(&report));
    assert!(
        report.count(Status::Passed) >= 45,
        "{}",
        report.count(Status::Passed)
    );
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
        id: Some(id.to_owned()),
        mock_upstream: Some(PathBuf::from(env!("CARGO_BIN_EXE_delegateos-conform"))),
        smoke_dir: Some(PathBuf::from("/nonexistent")),
        case_timeout: 60,
    }
}

/// The `mcp` subcommand's reports and exit codes, including the shared expected-failures
/// baseline: a listed failure is xfail (exit 0), a listed pass is stale (exit 2).
#[test]
fn cli_exit_codes_and_baseline() {
    use delegateos_conform::mcp::cli::run;
    let (json_text, code) = run(&cli_args("", "mcp-handshake", None));
    assert_eq!(code, 0, "{json_text}");
    let report: serde_json::Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(report["counts"]["passed"], 1);
    assert_eq!(report["cases"][0]["result"], "passed");

    let (text, code) = run(&cli_args(" --fault no-strip", "mcp-call-allowed", None));
    assert_eq!(code, 1, "{text}");

    let dir = std::env::temp_dir().join(format!("mcp-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let baseline = dir.join("expected.txt");
    std::fs::write(
        &baseline,
        "mcp-call-allowed  our proxy forwards _delegateos (known bug)\n",
    )
    .unwrap();
    let (text, code) = run(&cli_args(
        " --fault no-strip",
        "mcp-call-allowed",
        Some(baseline.clone()),
    ));
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("\"xfail\""), "{text}");
    let (text, code) = run(&cli_args("", "mcp-call-allowed", Some(baseline)));
    assert_eq!(code, 2, "{text}");
    let _ = std::fs::remove_dir_all(&dir);
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
