//! SIGINT, SIGTERM and SIGHUP during `delegateos-conform mcp` (issue 16 item 1): every proxy
//! process group and everything it started (its upstream, a grandchild that left the group
//! with `setsid`) is killed, the requested reports are written marked interrupted, and the
//! command exits 130. No duration is asserted: waits are hang guards only.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => !matches!(
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next()),
            Some('Z' | 'X') | None
        ),
    }
}

/// Waits (hang guard only: no duration is asserted) until `pred` holds.
fn wait_until(what: &str, mut pred: impl FnMut() -> bool) {
    let guard = Instant::now() + Duration::from_secs(120);
    while !pred() {
        assert!(Instant::now() < guard, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pids(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// A proxy that is the reference proxy on its first start (the suite's set-up check) and on
/// every later start records its pid, starts a mock upstream (its own process group, like a
/// real proxy's upstream) and a `setsid` grandchild, then never answers.
fn proxy_script(dir: &Path) -> PathBuf {
    let script = dir.join("proxy.sh");
    std::fs::write(
        &script,
        format!(
            r#"#!/bin/sh
d='{d}'
n=$(cat "$d/starts" 2>/dev/null || echo 0)
echo $((n + 1)) > "$d/starts"
if [ "$n" = 0 ]; then exec '{bin}' reference-proxy --config "$1"; fi
echo $$ >> "$d/pids"
setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >> "$d/pids"
sleep 300 </dev/null >/dev/null 2>&1 &
echo $! >> "$d/pids"
echo hang >> "$d/mark"
exec sleep 300
"#,
            d = dir.display(),
            bin = BIN
        ),
    )
    .unwrap();
    script
}

#[test]
fn signals_during_mcp_kill_every_proxy_write_interrupted_reports_and_exit_130() {
    for signal in ["INT", "TERM", "HUP"] {
        let dir = std::env::temp_dir().join(format!(
            "delegateos-mcp-signal-{}-{signal}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let script = proxy_script(&dir);
        let json = dir.join("report.json");
        let junit = dir.join("report.xml");
        let mut child = Command::new(BIN)
            .args([
                "mcp",
                "--proxy",
                &format!("sh '{}' {{config}}", script.display()),
                "--id",
                "mcp-handshake",
                "--id",
                "mcp-pass-through",
                "--case-timeout",
                "600",
                "--no-progress",
                "--format",
                "json",
                "--output",
                &json.display().to_string(),
                "--report",
                &format!("junit={}", junit.display()),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mark = dir.join("mark");
        wait_until("the proxy to hang", || {
            std::fs::read_to_string(&mark).is_ok_and(|m| m.contains("hang"))
        });
        let status = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let guard = Instant::now() + Duration::from_secs(120);
        let code = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s.code();
            }
            if Instant::now() > guard {
                let _ = child.kill();
                panic!("SIG{signal}: the harness did not exit");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        assert_eq!(code, Some(130), "SIG{signal}: {stderr}");
        assert!(
            stderr.contains(&format!("interrupted by SIG{signal}")),
            "{stderr}"
        );
        let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let schema: Value = serde_json::from_str(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("../spec/schemas/mcp-report.schema.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&report)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}\n{report:#}");
        assert_eq!(report["interrupted"], format!("SIG{signal}"));
        let cases = report["cases"].as_array().unwrap();
        assert_eq!(cases.len(), 2, "{report:#}");
        for (case, what) in cases
            .iter()
            .zip(["while the case was in flight", "not run"])
        {
            assert_eq!(case["result"], "errored", "{case}");
            let message = case["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("interrupted by SIG{signal}")) && message.contains(what),
                "{message}"
            );
        }
        let xml = std::fs::read_to_string(&junit).unwrap();
        assert!(xml.contains("interrupted by"), "{xml}");
        let started = pids(&dir.join("pids"));
        assert_eq!(
            started.len(),
            3,
            "proxy, setsid grandchild, upstream stand-in"
        );
        for pid in started {
            wait_until(&format!("pid {pid} to die"), || !alive(pid));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
