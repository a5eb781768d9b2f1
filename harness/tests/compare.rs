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
    let py = root.join("implementations/python/.venv/bin/python");
    if !py.exists() {
        eprintln!(
            "skipping the Python example: {} is absent (run `bash implementations/python/setup.sh`; see implementations/README.md)",
            py.display()
        );
        return None;
    }
    Some(format!(
        "{} {}",
        py.display(),
        root.join("implementations/python/adapter.py").display()
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
            .join("implementations/redteam/js-chain/adapter.js")
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
    // The spec-literal variant of the Python example: the text's readings where ours differ.
    if let Some(py) = python_command() {
        let literal = py.replace(
            "implementations/python/adapter.py",
            "implementations/python-literal/adapter.py",
        );
        let p = dir.join("literal.json");
        let r = run_report(Some(&literal), &p, &AREAS);
        reports.push(("literal".into(), p, r));
    }
    if let Some(chain) = chain_command() {
        let p = dir.join("js-chain.json");
        let r = run_report(Some(&chain), &p, &AREAS);
        reports.push(("js-chain".into(), p, r));
        let hasty = chain.replace("js-chain", "js-hasty");
        let p = dir.join("js-hasty.json");
        let r = run_report(Some(&hasty), &p, &AREAS);
        reports.push(("js-hasty".into(), p, r));
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
    // The JSON is described by spec/schemas/compare.schema.json.
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("spec/schemas/compare.schema.json"))
            .expect("compare schema"),
    )
    .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&cmp)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "compare JSON violates its schema: {errors:#?}"
    );
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

    // The committed vectors directory, run with `--vectors`, is byte for byte the embedded
    // corpus: its report carries the same digest and compares as the same corpus (issue 49
    // item 5; it used to be refused as a directory without a digest).
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
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
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

// ---------------------------------------------------------------------------------------------
// `--format html` in a real browser, and `--baseline` over time.

/// Hostile implementation name: closes any element and tries to run code two ways.
const HOSTILE: &str = "<img src=x onerror=alert(1)></td><script>document.body.setAttribute('data-pwned','1')</script>";

fn chromium() -> Option<String> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(str::to_owned)
}

fn browser_args(dir: &Path) -> Vec<String> {
    vec![
        "--headless".into(),
        "--disable-gpu".into(),
        "--no-sandbox".into(),
        "--no-first-run".into(),
        "--disable-dev-shm-usage".into(),
        "--disable-extensions".into(),
        format!("--user-data-dir={}", dir.join("profile").display()),
    ]
}

/// The DOM of `page` after Chromium loaded it, checking it logged nothing to the console (no
/// error, no CSP violation).
fn dump_dom(browser: &str, page: &Path) -> String {
    let out = Command::new(browser)
        .args(browser_args(page.parent().unwrap()))
        .args(["--enable-logging=stderr", "--v=0", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let console: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_owned)
        .collect();
    assert!(console.is_empty(), "console:\n{}", console.join("\n"));
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(dom.contains("</html>"), "no DOM: {dom}");
    dom
}

/// Layout of `page` in a 1366×900 frame, measured by a wrapper page next to it (the page itself
/// runs no script): the overview's top and bottom, the matrix table's right edge, the widest
/// matrix cell overflow (scrollWidth − clientWidth of its header cells), the document's
/// scroll width, the readings and operations cells measured, the most lines such a cell takes
/// beyond its parts (one line per kind of reading or per count), and the widest cut of one
/// (scrollWidth − clientWidth).
fn layout(browser: &str, page: &Path) -> Vec<f64> {
    let wrapper = page.with_file_name("measure.html");
    let name = page.file_name().unwrap().to_string_lossy();
    std::fs::write(
        &wrapper,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\">\
             <iframe id=\"f\" src=\"{name}\" style=\"width:1366px;height:900px;border:0\"></iframe>\
             <pre id=\"out\">pending</pre><script>\
             document.getElementById('f').addEventListener('load', () => {{\
               const d = document.getElementById('f').contentDocument;\
               const o = d.getElementById('overview').getBoundingClientRect();\
               const t = d.querySelector('#matrix table').getBoundingClientRect();\
               let over = 0;\
               d.querySelectorAll('#matrix th.imp').forEach(h => {{\
                 over = Math.max(over, h.scrollWidth - h.clientWidth); }});\
               let cells = 0, extra = 0, cut = 0;\
               d.querySelectorAll('#readings td.c, #operations td.c').forEach(c => {{\
                 const st = getComputedStyle(c);\
                 const lh = parseFloat(st.lineHeight) || parseFloat(st.fontSize) * 1.25;\
                 const r = d.createRange(); r.selectNodeContents(c);\
                 const lines = Math.round(r.getBoundingClientRect().height / lh);\
                 const parts = Math.max(1, c.querySelectorAll('span').length);\
                 cells += 1; extra = Math.max(extra, lines - parts);\
                 cut = Math.max(cut, c.scrollWidth - c.clientWidth); }});\
               document.getElementById('out').textContent =\
                 `box ${{o.top}} ${{o.bottom}} ${{t.right}} ${{over}} ${{d.documentElement.scrollWidth}} ${{cells}} ${{extra}} ${{cut}} end`;\
             }});</script></body></html>"
        ),
    )
    .unwrap();
    let out = Command::new(browser)
        .args(browser_args(page.parent().unwrap()))
        .args([
            "--allow-file-access-from-files",
            "--virtual-time-budget=10000",
            "--window-size=1366,1000",
            "--dump-dom",
        ])
        .arg(format!("file://{}", wrapper.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("box ")
        .unwrap_or_else(|| panic!("nothing measured: {dom}"));
    dom[start + 4..]
        .split_whitespace()
        .take(8)
        .map(|n| n.parse().unwrap())
        .collect()
}

/// The text of the element `id="{id}"` in `dom`.
fn by_id<'a>(dom: &'a str, id: &str) -> &'a str {
    let key = format!("id=\"{id}\">");
    let start = dom
        .find(&key)
        .unwrap_or_else(|| panic!("no #{id} in the page"))
        + key.len();
    dom[start..].split('<').next().unwrap()
}

#[test]
fn html_page_is_inert_and_its_overview_equals_the_reports() {
    let dir = work_dir("html");
    let ref_path = dir.join("reference.json");
    let reference = run_report(None, &ref_path, &AREAS);
    // The second implementation: js-chain if node is there, else the reference again.
    let mut second = match chain_command() {
        Some(c) => run_report(Some(&c), &dir.join("js-chain.json"), &AREAS),
        None => reference.clone(),
    };
    second["implementation"]["name"] = Value::String(HOSTILE.to_owned());
    if let Some(f) = second["findings"]
        .as_array_mut()
        .and_then(|f| f.first_mut())
    {
        f["title"] = Value::String(format!("`{HOSTILE}` {HOSTILE}"));
    }
    let hostile_path = dir.join("hostile.json");
    std::fs::write(&hostile_path, serde_json::to_vec(&second).unwrap()).unwrap();
    let page = dir.join("compare.html");
    let args = [
        ref_path.to_str().unwrap(),
        hostile_path.to_str().unwrap(),
        "--format",
        "html",
        "--output",
        page.to_str().unwrap(),
    ];
    let o = compare(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("<script") && !html.contains("<img"),
        "{html}"
    );
    assert!(html.contains("default-src 'none'"), "the CSP is missing");
    let reports = [&reference, &second];

    let Some(browser) = chromium() else {
        println!("SKIPPED: no chromium, chromium-browser or google-chrome on PATH");
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    let dom = dump_dom(&browser, &page);
    assert!(!dom.contains("data-pwned=\""), "injected code ran");
    assert!(!dom.contains("<img"), "injected markup became an element");
    assert!(!dom.contains("<script"), "a script element exists");
    assert!(
        dom.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "the hostile name is not shown as text"
    );
    // The overview comes first, then the matrix, readings, interoperability, operations.
    let at = |id: &str| {
        dom.find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("no #{id}"))
    };
    let order = [
        at("overview"),
        at("matrix"),
        at("readings"),
        at("interop"),
        at("operations"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    // Its numbers are the reports' own.
    for (i, r) in reports.iter().enumerate() {
        let t = &r["totals"];
        let n = |k: &str| t[k].as_u64().unwrap();
        let counted = n("total") - n("skipped");
        let passed = n("passed") + n("acceptable");
        assert_eq!(by_id(&dom, &format!("ov-{i}-counted")), counted.to_string());
        assert_eq!(
            by_id(&dom, &format!("ov-{i}-counted-passed")),
            passed.to_string()
        );
        let rate = if counted == 0 {
            0.0
        } else {
            (passed as f64 * 1000.0 / counted as f64).round() / 10.0
        };
        assert_eq!(
            by_id(&dom, &format!("ov-{i}-pass-rate")),
            format!("{rate:.1}")
        );
        let verdict = if r["exit_code"] == 0 {
            "PASSED"
        } else {
            "FAILED"
        };
        assert_eq!(by_id(&dom, &format!("ov-{i}-verdict")), verdict);
        for sev in ["critical", "high", "medium", "low"] {
            let count = r["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["severity"] == sev)
                .count();
            assert_eq!(
                by_id(&dom, &format!("ov-{i}-{sev}")),
                count.to_string(),
                "{i} {sev}"
            );
        }
    }

    // Six implementations at 1366 px: the overview is on the first screen, the matrix fits
    // the width and its short headers are not clipped.
    let six = dir.join("six.html");
    let mut args: Vec<String> = (0..6)
        .map(|i| {
            let path = if i % 2 == 0 { &ref_path } else { &hostile_path };
            format!("implementation-number-{i}={}", path.display())
        })
        .collect();
    args.extend(["--format".into(), "html".into(), "--output".into()]);
    args.push(six.display().to_string());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(compare(&refs).status.code(), Some(0));
    dump_dom(&browser, &six);
    let m = layout(&browser, &six);
    let (top, bottom, right, overflow, width) = (m[0], m[1], m[2], m[3], m[4]);
    assert!(
        top < 200.0 && bottom <= 900.0,
        "overview at {top}..{bottom}"
    );
    assert!(
        right <= 1366.0 && width <= 1366.0,
        "matrix to {right}, page {width}"
    );
    assert!(
        overflow <= 0.0,
        "a column header is clipped by {overflow} px"
    );
    // Issue 46: a readings cell once wrapped `ref 61, #1 29, none 12` into four lines and the
    // operations cells were cut short: each kind of reading and each count is one line, and
    // no cell is clipped.
    let (cells, extra, cut) = (m[5], m[6], m[7]);
    assert!(cells >= 1.0, "no reading or operation cell measured");
    assert!(
        extra <= 0.0,
        "a reading or operation cell wraps into {extra} more line(s) than it has parts"
    );
    assert!(
        cut <= 0.0,
        "a readings or operations cell is cut by {cut} px"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn keys(report: &Value) -> Vec<String> {
    let mut k: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap().to_owned())
        .collect();
    k.sort();
    k
}

fn entry_keys(v: &Value, list: &str) -> Vec<String> {
    let mut k: Vec<String> = v[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["key"].as_str().unwrap().to_owned())
        .collect();
    k.sort();
    k
}

fn over_time(old: &Path, new: &Path, extra: &[&str]) -> (i32, Value) {
    let mut args = vec![
        "--baseline",
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let o = compare(&args);
    let code = o.status.code().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&o.stderr));
    });
    // Every `--baseline` JSON is described by spec/schemas/compare-baseline.schema.json.
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("spec/schemas/compare-baseline.schema.json"))
            .expect("compare-baseline schema"),
    )
    .expect("schema JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&v)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "compare --baseline JSON violates its schema: {errors:#?}"
    );
    (code, v)
}

#[test]
fn baseline_lists_new_and_fixed_findings_and_gates_on_new() {
    let Some(chain) = chain_command() else {
        return;
    };
    let dir = work_dir("baseline");
    let area = ["--area", "dct"];
    let r = dir.join("reference.json");
    let j = dir.join("js-chain.json");
    run_report(None, &r, &area);
    let chain_report = run_report(Some(&chain), &j, &area);
    let want = keys(&chain_report);
    assert!(!want.is_empty(), "js-chain has findings in dct");

    // Reference → js-chain: every js-chain finding is new; --fail-on-new fails.
    let (code, v) = over_time(&r, &j, &["--fail-on-new"]);
    assert_eq!(code, 1);
    assert_eq!(v["schema"], "delegateos-conform-compare-baseline/1");
    assert_eq!(entry_keys(&v, "new"), want);
    assert!(v["fixed"].as_array().unwrap().is_empty());
    assert!(v["unchanged"].as_array().unwrap().is_empty());
    assert_eq!(v["corpus"]["same"], true);
    assert_eq!(over_time(&r, &j, &[]).0, 0, "without --fail-on-new: 0");
    // The same in text: each key listed under "New findings".
    let o = compare(&[
        "--baseline",
        r.to_str().unwrap(),
        j.to_str().unwrap(),
        "--fail-on-new",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    let new_part = &text[text.find("New findings").unwrap()..text.find("Fixed findings").unwrap()];
    for k in &want {
        assert!(new_part.contains(k.as_str()), "{k} not listed as new");
    }

    // The reverse: all fixed, nothing new, --fail-on-new passes.
    let (code, v) = over_time(&j, &r, &["--fail-on-new"]);
    assert_eq!(code, 0);
    assert_eq!(entry_keys(&v, "fixed"), want);
    assert!(v["new"].as_array().unwrap().is_empty());

    // js-chain against itself: all unchanged.
    let (code, v) = over_time(&j, &j, &["--fail-on-new"]);
    assert_eq!(code, 0);
    assert_eq!(entry_keys(&v, "unchanged"), want);

    // HTML: a self-contained page with the new findings.
    let page = dir.join("over-time.html");
    let o = compare(&[
        "--baseline",
        r.to_str().unwrap(),
        j.to_str().unwrap(),
        "--format",
        "html",
        "--output",
        page.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("<script"));
    assert!(html.contains(&format!("<span id=\"new-count\">{}</span>", want.len())));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_exported_corpus_is_the_embedded_one_and_an_edited_one_is_named_as_modified() {
    let dir = work_dir("export");
    let export = Command::new(BIN)
        .args(["vectors", "export"])
        .arg(&dir)
        .output()
        .expect("vectors export");
    assert!(export.status.success(), "{export:?}");
    let vectors = dir.join("vectors");
    let only = ["--area", "jsonrpc"];
    let embedded = dir.join("embedded.json");
    let exported = dir.join("exported.json");
    let e = run_report(None, &embedded, &only);
    let mut with_dir = vec!["--vectors", vectors.to_str().unwrap()];
    with_dir.extend_from_slice(&only);
    let x = run_report(None, &exported, &with_dir);
    let digest = |r: &Value| {
        let label = r["vectors"].as_str().unwrap().to_owned();
        let at = label.find("blake2b-256 ").expect("a digest in the label") + 12;
        label[at..at + 64].to_owned()
    };
    assert_eq!(
        digest(&x),
        digest(&e),
        "{} / {}",
        x["vectors"],
        e["vectors"]
    );
    assert!(
        x["vectors"]
            .as_str()
            .unwrap()
            .contains("matches its manifest"),
        "{}",
        x["vectors"]
    );
    assert!(x.get("corpus_warning").is_none());
    // compare takes them as one corpus (it refuses different corpora with 64).
    let o = compare(&[embedded.to_str().unwrap(), exported.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // One byte changed in one file: named as modified, on the first line.
    let file = vectors
        .join("jsonrpc")
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let name = format!("jsonrpc/{}", file.file_name().unwrap().to_str().unwrap());
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.push(b'\n');
    std::fs::write(&file, bytes).unwrap();
    let out = Command::new(BIN)
        .args(["run", "--no-progress", "--vectors"])
        .arg(&vectors)
        .args(only)
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().unwrap_or("");
    assert!(
        first.contains("MODIFIED") && first.contains(&format!("changed {name}")),
        "{first}"
    );
    let modified = dir.join("modified.json");
    let m = run_report(None, &modified, &with_dir);
    assert_ne!(digest(&m), digest(&e));
    assert!(
        m["corpus_warning"].as_str().unwrap().contains(&name),
        "{}",
        m["corpus_warning"]
    );
    let o = compare(&[embedded.to_str().unwrap(), modified.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(64), "different corpora are refused");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn baseline_reports_a_grown_or_more_severe_finding_as_worse_and_fail_on_worse_fails() {
    let Some(chain) = chain_command() else {
        return;
    };
    let dir = work_dir("worse");
    let j = dir.join("js-chain.json");
    let report = run_report(Some(&chain), &j, &["--area", "dct"]);
    let findings = report["findings"].as_array().unwrap();
    // The baseline: the same run, with one finding of several cases smaller (one case) and
    // another one less severe, as an earlier release would have had them.
    let grown = findings
        .iter()
        .find(|f| f["cases"].as_u64().unwrap() >= 2)
        .expect("a finding of at least two cases")["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let rose = findings
        .iter()
        .find(|f| f["key"] != grown.as_str() && f["severity"] != "low")
        .expect("a second finding above low")["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut old = report.clone();
    for f in old["findings"].as_array_mut().unwrap() {
        if f["key"] == grown.as_str() {
            let first = f["ids"][0].clone();
            f["ids"] = Value::Array(vec![first]);
            f["cases"] = 1.into();
        } else if f["key"] == rose.as_str() {
            f["severity"] = "low".into();
        }
    }
    let o = dir.join("old.json");
    std::fs::write(&o, serde_json::to_string(&old).unwrap()).unwrap();

    let (code, v) = over_time(&o, &j, &["--fail-on-worse"]);
    assert_eq!(code, 1, "{v:#}");
    let mut want = vec![grown.clone(), rose.clone()];
    want.sort();
    assert_eq!(entry_keys(&v, "worse"), want);
    assert!(v["new"].as_array().unwrap().is_empty());
    assert!(!entry_keys(&v, "unchanged").contains(&grown));
    let why = |key: &str| -> String {
        v["worse"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["key"] == key)
            .unwrap()["why"]
            .to_string()
    };
    assert!(
        why(&grown).contains("cases grew from 1 to"),
        "{}",
        why(&grown)
    );
    assert!(
        why(&rose).contains("severity rose from low to"),
        "{}",
        why(&rose)
    );
    // --fail-on-new alone does not fail on a worse finding; nothing worse: 0.
    assert_eq!(over_time(&o, &j, &["--fail-on-new"]).0, 0);
    let (code, v) = over_time(&j, &j, &["--fail-on-worse"]);
    assert_eq!(code, 0);
    assert!(v["worse"].as_array().unwrap().is_empty());
    // Better is not worse: the current report against the smaller baseline, reversed.
    assert_eq!(over_time(&j, &o, &["--fail-on-worse"]).0, 0);
    // The text names it.
    let out = compare(&[
        "--baseline",
        o.to_str().unwrap(),
        j.to_str().unwrap(),
        "--fail-on-worse",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().next().unwrap().contains("2 worse"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn baseline_across_corpus_versions_states_cases_added_and_removed() {
    let dir = work_dir("versions");
    let a = dir.join("a.json");
    let report = run_report(None, &a, &["--area", "glob"]);
    let label = report["vectors"].as_str().unwrap().to_owned();
    let digest = label
        .split("blake2b-256 ")
        .nth(1)
        .unwrap()
        .trim_end_matches(')')
        .to_owned();
    // The "old release": another corpus version, one case fewer and one case since removed.
    let mut old = report.clone();
    old["vectors"] = Value::String(label.replace(&digest, &"0".repeat(64)));
    let cases = old["cases"].as_array_mut().unwrap();
    let dropped = cases.remove(0);
    let mut gone = cases[0].clone();
    gone["id"] = Value::String("glob-retired-9999".into());
    cases.push(gone);
    // …where the implementation had a finding since fixed.
    old["findings"] = serde_json::json!([{
        "key": "glob/scope-widening", "severity": "critical", "title": "old bug",
        "counted": true, "cases": 1, "ids": ["glob-retired-9999"] }]);
    let b = dir.join("old.json");
    std::fs::write(&b, serde_json::to_vec(&old).unwrap()).unwrap();

    // Side by side it is refused; over time it is compared.
    assert_eq!(
        compare(&[b.to_str().unwrap(), a.to_str().unwrap()])
            .status
            .code(),
        Some(64)
    );
    let (code, v) = over_time(&b, &a, &["--fail-on-new"]);
    assert_eq!(code, 0);
    assert_eq!(v["corpus"]["same"], false);
    assert_eq!(
        v["corpus"]["cases_added"],
        serde_json::json!([dropped["id"]])
    );
    assert_eq!(
        v["corpus"]["cases_removed"],
        serde_json::json!(["glob-retired-9999"])
    );
    assert_eq!(entry_keys(&v, "fixed"), vec!["glob/scope-widening"]);
    assert_eq!(v["fixed"][0]["cases_not_in_other"], 1);
    let notes = v["notes"].to_string();
    assert!(notes.contains(&digest), "{notes}");

    // Usage: --fail-on-new needs --baseline; --baseline takes one other report.
    assert_eq!(
        compare(&["--fail-on-new", a.to_str().unwrap(), b.to_str().unwrap()])
            .status
            .code(),
        Some(64)
    );
    assert_eq!(
        compare(&[
            "--baseline",
            b.to_str().unwrap(),
            a.to_str().unwrap(),
            a.to_str().unwrap()
        ])
        .status
        .code(),
        Some(64)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A wrapper of the reference adapter whose `hello` declares only `ops` and `options`: an
/// implementation of part of the catalogue.
fn partial_reference(dir: &Path, ops: &[&str], options: &[&str]) -> String {
    let script = dir.join("partial.py");
    std::fs::write(
        &script,
        format!(
            "import json, subprocess, sys\n\
             ref = subprocess.Popen([{BIN:?}, 'reference-adapter'], stdin=subprocess.PIPE, \
             stdout=subprocess.PIPE, text=True)\n\
             for line in sys.stdin:\n\
             \x20   ref.stdin.write(line); ref.stdin.flush()\n\
             \x20   reply = json.loads(ref.stdout.readline())\n\
             \x20   if json.loads(line).get('cmd') == 'hello':\n\
             \x20       reply['operations'] = {ops:?}\n\
             \x20       reply['options'] = {options:?}\n\
             \x20       reply['implementation']['name'] = 'partial'\n\
             \x20   print(json.dumps(reply), flush=True)\n"
        ),
    )
    .unwrap();
    format!("python3 '{}'", script.display())
}

/// Issue 46 and issue 49: the readings map names each decision with its title and where to
/// read it, in one notation (`reference`, `reading N`: no `#1`, `ref`, `outcome 1`), in every
/// format; `compare` counts operations in `run`'s words and numbers (`1 of M operations`, not
/// `1/M+1`); every format shows the options each implementation declared in hello.
#[test]
fn readings_are_titled_in_one_notation_and_operations_and_options_read_as_run_says() {
    let dir = work_dir("titles");
    let ref_path = dir.join("reference.json");
    run_report(None, &ref_path, &AREAS);
    let partial = partial_reference(&dir, &["dct.verify"], &["strict-mode"]);
    let part_path = dir.join("partial.json");
    let part = run_report(Some(&partial), &part_path, &AREAS);
    assert_eq!(part["options"], serde_json::json!(["strict-mode"]));
    // `run`'s own words: `… ; 1 of M operations)` in its verdict.
    let text = Command::new(BIN)
        .args(["run", "--no-progress", "--impl", &partial])
        .args(AREAS)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    let end = text
        .find(" operations)")
        .expect("run's verdict counts operations")
        + 11;
    let start = text[..end].rfind("; ").unwrap() + 2;
    let phrase = text[start..end].to_owned();
    assert!(phrase.starts_with("1 of "), "{phrase:?} in {text}");
    assert!(phrase.ends_with(" operations"), "{phrase:?} in {text}");

    // A third implementation that reads decisions differently, when node is there.
    let chain_path = dir.join("js-chain.json");
    let chain = chain_command().map(|c| run_report(Some(&c), &chain_path, &AREAS));
    let (a, b) = (ref_path.to_str().unwrap(), part_path.to_str().unwrap());
    let mut files = vec![a, b];
    if chain.is_some() {
        files.push(chain_path.to_str().unwrap());
    }
    let cmp = compare_json(&files);
    let ov = &cmp["implementations"][1];
    assert_eq!(
        format!(
            "{} of {} operations",
            ov["operations_run"], ov["operations_total"]
        ),
        phrase
    );
    assert_eq!(ov["options"], serde_json::json!(["strict-mode"]));
    assert_eq!(
        cmp["implementations"][0]["options"],
        serde_json::json!(["strict-mode", "per-tool-spend"])
    );
    let readings = cmp["readings"].as_array().unwrap();
    if chain.is_some() {
        assert!(
            !readings.is_empty(),
            "js-chain reads some decision differently"
        );
    }
    for d in readings {
        let n = d["decision"].as_str().unwrap();
        let title = d["title"].as_str().unwrap();
        assert!(
            !title.is_empty() && !title.contains("(flag"),
            "{n}: {title:?}"
        );
        assert!(
            d["read_at"]
                .as_str()
                .unwrap()
                .starts_with(&format!("spec/decisions.md, \"{n}")),
            "{}",
            d["read_at"]
        );
    }
    // The reference reading of D5 is titled as the spec titles it.
    let titles = delegateos_conform::compare::decision_titles();
    assert_eq!(titles["D5"].0, "Time");
    assert_eq!(titles["D1"].0, "Glob `*`");
    assert_eq!(titles["D38"].0, "MCP stdio proxy behaviour");
    assert_eq!(titles["D37"].0, "Check order for an MCP call");
    for format in ["text", "markdown", "html"] {
        let mut args = files.clone();
        args.extend(["--format", format]);
        let out = compare(&args);
        assert_eq!(out.status.code(), Some(0));
        let s = String::from_utf8_lossy(&out.stdout).into_owned();
        // One notation: none of the old ones, in cells, legends or accepted outcomes.
        for old in ["#1", "#0", "#N", "ref ", "outcome 1", "outcome 2"] {
            assert!(!s.contains(old), "{format}: {old:?} in\n{s}");
        }
        assert!(s.contains("reading N = accepted outcome N"), "{format}");
        assert!(s.contains("vectors export"), "{format}: where to read");
        for d in readings {
            assert!(
                s.contains(d["title"].as_str().unwrap().split('`').next().unwrap()),
                "{format}: {}",
                d["title"]
            );
        }
        assert!(s.contains(&phrase), "{format}: {phrase:?} in\n{s}");
        let total = ov["operations_total"].as_u64().unwrap();
        for old in [format!(" 1/{total}"), format!(" 1/{}", total + 1)] {
            assert!(!s.contains(&old), "{format}: {old:?} in\n{s}");
        }
        assert!(s.contains("strict-mode"), "{format}: options");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
