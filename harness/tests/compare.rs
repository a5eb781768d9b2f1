//! `delegateos-conform compare` (issue 40) end to end: real `run --format json` reports of the
//! built-in reference, the Python example adapter and the js-chain red-team adapter, compared;
//! the overview and findings matrix checked against each report's own numbers, the readings
//! map against the decisions the adapters read differently, the `--impl` mode against the
//! aggregate of report files, and reports of different corpora refused.
//!
//! The runs are narrowed to `--area dct --area attestation` (the Python example's and
//! js-chain's divergent decisions live there; js-chain's hanging glob cases do not), so the
//! whole file takes a few seconds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");
const AREAS: [&str; 4] = ["--area", "dct", "--area", "attestation"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn work_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("conform-compare-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn python_command() -> Option<String> {
    let root = repo();
    let py = root.join("harness/adapters/python/.venv/bin/python");
    if !py.exists() {
        eprintln!(
            "skipping the Python example: {} is absent (see harness/adapters/python/README.md)",
            py.display()
        );
        return None;
    }
    Some(format!(
        "{} {}",
        py.display(),
        root.join("harness/adapters/python/adapter.py").display()
    ))
}

fn chain_command() -> Option<String> {
    let ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipping the js-chain red-team adapter: no `node` on PATH");
        return None;
    }
    Some(format!(
        "node {}",
        repo()
            .join("harness/adapters/redteam/js-chain/adapter.js")
            .display()
    ))
}

fn reference_command() -> String {
    format!("'{BIN}' reference-adapter")
}

/// `run --format json` of `command` (None: the default reference) into `out`.
fn run_report(command: Option<&str>, out: &Path, extra: &[&str]) -> Value {
    let mut cmd = Command::new(BIN);
    cmd.args(["run", "--format", "json", "--no-progress", "--output"])
        .arg(out)
        .args(extra);
    if let Some(c) = command {
        cmd.args(["--impl", c]);
    }
    let o = cmd.output().expect("run");
    let code = o.status.code().expect("exit code");
    assert!(
        code == 0 || code == 1,
        "run {command:?} exited {code}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&std::fs::read(out).expect("report written")).expect("JSON report")
}

fn compare(args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("compare")
        .args(args)
        .output()
        .expect("compare")
}

fn compare_json(args: &[&str]) -> Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let o = compare(&all);
    assert_eq!(
        o.status.code(),
        Some(0),
        "compare failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("compare JSON")
}

/// The overview and findings matrix of `cmp` agree with each report's own numbers.
fn check_against_reports(cmp: &Value, reports: &[(&str, &Value)]) {
    let imps = cmp["implementations"].as_array().expect("implementations");
    assert_eq!(imps.len(), reports.len());
    for (i, (label, report)) in reports.iter().enumerate() {
        let o = &imps[i];
        assert_eq!(o["label"], *label);
        assert_eq!(o["name"], report["implementation"]["name"]);
        assert_eq!(o["exit_code"], report["exit_code"], "{label}");
        assert_eq!(o["totals"], report["totals"], "{label}: totals");
        assert_eq!(
            o["hardening_totals"], report["hardening"]["totals"],
            "{label}"
        );
        let t = &report["totals"];
        let n = |k: &str| t[k].as_u64().expect("count");
        assert_eq!(o["counted"].as_u64(), Some(n("total") - n("skipped")));
        assert_eq!(
            o["counted_passed"].as_u64(),
            Some(n("passed") + n("acceptable"))
        );
        let verdict = if report["exit_code"] == 0 {
            "PASSED"
        } else {
            "FAILED"
        };
        assert_eq!(o["verdict"], verdict, "{label}");
        let findings = report["findings"].as_array().expect("findings");
        for sev in ["critical", "high", "medium", "low"] {
            let of_sev: Vec<&Value> = findings.iter().filter(|f| f["severity"] == sev).collect();
            assert_eq!(
                o["findings"][sev].as_u64(),
                Some(of_sev.len() as u64),
                "{label} {sev}"
            );
            let cases: u64 = of_sev
                .iter()
                .map(|f| f["cases"].as_u64().unwrap_or(0))
                .sum();
            assert_eq!(
                o["finding_cases"][sev].as_u64(),
                Some(cases),
                "{label} {sev}"
            );
        }
        // Every finding of the report is in the matrix with its severity and case count,
        // and the matrix has no other finding in this column.
        let rows = cmp["findings"].as_array().expect("matrix");
        for f in findings {
            let row = rows
                .iter()
                .find(|r| r["key"] == f["key"])
                .unwrap_or_else(|| panic!("{label}: finding {} not in the matrix", f["key"]));
            let cell = &row["cells"][i];
            assert_eq!(cell["severity"], f["severity"], "{label} {}", f["key"]);
            assert_eq!(cell["cases"], f["cases"], "{label} {}", f["key"]);
        }
        let in_column = rows.iter().filter(|r| !r["cells"][i].is_null()).count();
        assert_eq!(in_column, findings.len(), "{label}: matrix column");
    }
}

/// The readings map's cell of implementation `i` departs from the reference somewhere.
fn departing_decisions(cmp: &Value, i: usize) -> Vec<String> {
    cmp["readings"]
        .as_array()
        .expect("readings")
        .iter()
        .filter(|d| {
            let c = &d["cells"][i];
            !c["alternatives"]
                .as_array()
                .expect("alternatives")
                .is_empty()
                || c["none"].as_u64() > Some(0)
                || c["other_code"].as_u64() > Some(0)
                || c["acceptable_unknown"].as_u64() > Some(0)
        })
        .map(|d| d["decision"].as_str().expect("decision").to_owned())
        .collect()
}

#[test]
fn compares_reference_python_and_js_chain() {
    let dir = work_dir("three");
    let ref_path = dir.join("reference.json");
    let reference = run_report(None, &ref_path, &AREAS);
    let mut reports: Vec<(String, PathBuf, Value)> =
        vec![("reference".into(), ref_path, reference)];
    if let Some(py) = python_command() {
        let p = dir.join("python.json");
        let r = run_report(Some(&py), &p, &AREAS);
        reports.push(("python".into(), p, r));
    }
    if let Some(chain) = chain_command() {
        let p = dir.join("js-chain.json");
        let r = run_report(Some(&chain), &p, &AREAS);
        reports.push(("js-chain".into(), p, r));
    }
    if reports.len() < 2 {
        eprintln!("skipping: neither the Python example nor node is available");
        return;
    }
    let args: Vec<String> = reports
        .iter()
        .map(|(l, p, _)| format!("{l}={}", p.display()))
        .collect();
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let cmp = compare_json(&arg_refs);
    assert_eq!(cmp["schema"], "delegateos-conform-compare/1");
    assert_eq!(cmp["corpus"], reports[0].2["vectors"]);
    assert_eq!(cmp["decisions_from"], "embedded corpus");
    let pairs: Vec<(&str, &Value)> = reports.iter().map(|(l, _, r)| (l.as_str(), r)).collect();
    check_against_reports(&cmp, &pairs);

    // The reference takes the reference reading everywhere; the others depart somewhere.
    assert!(departing_decisions(&cmp, 0).is_empty());
    for (i, (label, _, report)) in reports.iter().enumerate().skip(1) {
        let departing = departing_decisions(&cmp, i);
        assert!(
            !departing.is_empty(),
            "{label}: no decision read differently"
        );
        // Every decision of an acceptable case of the report is in the readings map.
        for c in report["cases"].as_array().expect("cases") {
            if c["status"] == "acceptable" {
                let d = c["expected"]["decision"].as_str().expect("decision");
                assert!(departing.iter().any(|x| x == d), "{label}: {d} missing");
            }
        }
    }
    if reports.iter().any(|(l, _, _)| l == "python") {
        let py = reports
            .iter()
            .position(|(l, _, _)| l == "python")
            .expect("python");
        assert!(
            departing_decisions(&cmp, py).contains(&"D42".to_owned()),
            "the Python example reads D42 (boolean verify of a malformed object) its own way"
        );
        // Its acceptable cases are interoperability cases against the reference.
        let pair = cmp["interoperability"]["pairs"]
            .as_array()
            .expect("pairs")
            .iter()
            .find(|p| p["a"] == "reference" && p["b"] == "python")
            .expect("reference ↔ python pair");
        assert_eq!(pair["cases"], reports[py].2["totals"]["acceptable"]);
    }
    // Operations: each implementation's declared ones as in its report.
    for (i, (_, _, report)) in reports.iter().enumerate() {
        let declared: Vec<&str> = cmp["operations"]
            .as_array()
            .expect("operations")
            .iter()
            .filter(|o| o["cells"][i]["declared"] == true)
            .map(|o| o["op"].as_str().expect("op"))
            .collect();
        let mut want: Vec<&str> = report["operations"]
            .as_array()
            .expect("ops")
            .iter()
            .map(|o| o.as_str().expect("op"))
            .collect();
        want.sort_unstable();
        assert_eq!(declared, want);
    }

    // The human formats carry every section.
    for format in ["text", "markdown"] {
        let mut a = arg_refs.clone();
        a.extend(["--format", format]);
        let o = compare(&a);
        assert_eq!(o.status.code(), Some(0));
        let out = String::from_utf8_lossy(&o.stdout);
        for section in [
            "Overview",
            "Findings matrix",
            "Readings map",
            "Interoperability",
            "Operations supported",
        ] {
            assert!(out.contains(section), "{format}: {section} missing");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn impl_mode_equals_aggregating_the_reports() {
    let Some(py) = python_command() else {
        return;
    };
    let dir = work_dir("impl");
    let area = ["--area", "attestation"];
    let r = dir.join("r.json");
    let p = dir.join("p.json");
    run_report(Some(&reference_command()), &r, &area);
    run_report(Some(&py), &p, &area);
    let aggregate = compare_json(&[
        &format!("ref={}", r.display()),
        &format!("py={}", p.display()),
    ]);
    let direct = compare_json(&[
        "--impl",
        &format!("ref={}", reference_command()),
        "--impl",
        &format!("py={py}"),
        "--",
        "--area",
        "attestation",
    ]);
    let strip = |mut v: Value| {
        for o in v["implementations"]
            .as_array_mut()
            .expect("implementations")
        {
            o.as_object_mut().expect("object").remove("source");
        }
        v
    };
    assert_eq!(strip(aggregate), strip(direct));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reports_of_different_corpora_are_refused() {
    let dir = work_dir("corpora");
    let a = dir.join("a.json");
    let report = run_report(None, &a, &["--area", "glob"]);
    let label = report["vectors"]
        .as_str()
        .expect("vectors label")
        .to_owned();
    let digest = label
        .split("blake2b-256 ")
        .nth(1)
        .expect("digest")
        .trim_end_matches(')')
        .to_owned();
    // The same report, as if run on another corpus version.
    let other_digest = "0".repeat(64);
    let mut other = report.clone();
    other["vectors"] = Value::String(label.replace(&digest, &other_digest));
    let b = dir.join("b.json");
    std::fs::write(&b, serde_json::to_vec(&other).expect("json")).expect("write");
    let o = compare(&[a.to_str().expect("path"), b.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(64));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&digest) && err.contains(&other_digest),
        "{err}"
    );
    assert!(o.stdout.is_empty());

    // A real other corpus: the committed vectors directory, run with `--vectors` (a directory
    // has no digest in the report: its label must be the same).
    let c = dir.join("c.json");
    let vectors = repo().join("vectors");
    run_report(
        None,
        &c,
        &[
            "--area",
            "glob",
            "--vectors",
            vectors.to_str().expect("path"),
        ],
    );
    let o = compare(&[a.to_str().expect("path"), c.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(64));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&digest) && err.contains(vectors.to_str().expect("path")),
        "{err}"
    );

    // Fewer than two implementations, or a file that is no report.
    assert_eq!(
        compare(&[a.to_str().expect("path")]).status.code(),
        Some(64)
    );
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{}").expect("write");
    assert_eq!(
        compare(&[a.to_str().expect("path"), junk.to_str().expect("path")])
            .status
            .code(),
        Some(3)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
