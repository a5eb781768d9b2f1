//! The HTML report and the badge in a real headless browser (issue 16 item 10): `run --format
//! html` against the built-in reference and against a failing fake adapter whose case data is
//! hostile, and `mcp --format html` against the reference proxy and a broken one; Chromium loads
//! each page, its DOM shows the right counts, no injected markup became an element or ran, and
//! the page logged nothing to the console (no error, no CSP violation: Chromium's
//! `--enable-logging=stderr` prints every console message as a `:CONSOLE` line, and the control
//! test proves such lines are seen). Skips (printing `SKIPPED:`) when no Chromium is installed.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

/// Hostile case data: closes any script or pre, and tries to run code two ways.
const PAYLOAD: &str = "</script></pre><img src=x onerror=\"document.body.setAttribute('data-pwned','img')\"><script>document.body.setAttribute('data-pwned','script')</script>";

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

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("delegateos-html-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

/// The DOM of `page` after Chromium loaded it (scripts, if any ran, have run), after checking
/// that the page logged nothing to the console.
fn dump_dom(browser: &str, page: &Path) -> String {
    let (dom, console) = load(browser, page);
    assert!(
        console.is_empty(),
        "the page logged to the console:\n{}",
        console.join("\n")
    );
    dom
}

/// The DOM of `page` and every console message it produced (errors, CSP violations, logs).
fn load(browser: &str, page: &Path) -> (String, Vec<String>) {
    let out = Command::new(browser)
        .args(browser_args(page.parent().unwrap()))
        .arg("--enable-logging=stderr")
        .arg("--v=0")
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(dom.contains("</html>"), "no DOM: {dom}");
    let console = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_owned)
        .collect();
    (dom, console)
}

fn screenshot(browser: &str, page: &Path, png: &Path) {
    let out = Command::new(browser)
        .args(browser_args(page.parent().unwrap()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1200,900")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
}

/// Where `#verdict-strip` of `page` lies in a 1366×900 viewport (issue 38 item 7): a wrapper
/// page next to it loads it in an iframe of that size and writes the element's box into its
/// own DOM (the report itself runs no script: its CSP forbids it). `(top, bottom)` in pixels.
fn verdict_strip_box(browser: &str, page: &Path) -> (f64, f64) {
    let wrapper = page.with_file_name("first-screen.html");
    let name = page.file_name().unwrap().to_string_lossy();
    std::fs::write(
        &wrapper,
        format!(
            "<!DOCTYPE html><html><body style=\"margin:0\">\
             <iframe id=\"f\" src=\"{name}\" style=\"width:1366px;height:900px;border:0\"></iframe>\
             <pre id=\"out\">pending</pre><script>\
             document.getElementById('f').addEventListener('load', () => {{\
               const d = document.getElementById('f').contentDocument;\
               const e = d && d.getElementById('verdict-strip');\
               const r = e ? e.getBoundingClientRect() : null;\
               document.getElementById('out').textContent =\
                 r ? `box ${{r.top}} ${{r.bottom}} end` : 'missing';\
             }});</script></body></html>"
        ),
    )
    .unwrap();
    let out = Command::new(browser)
        .args(browser_args(page.parent().unwrap()))
        .arg("--allow-file-access-from-files")
        .arg("--virtual-time-budget=10000")
        .arg("--window-size=1366,1000")
        .arg("--dump-dom")
        .arg(format!("file://{}", wrapper.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("box ")
        .unwrap_or_else(|| panic!("no verdict strip measured: {dom}"));
    let nums: Vec<f64> = dom[start + 4..]
        .split_whitespace()
        .take(2)
        .map(|n| n.parse().unwrap())
        .collect();
    (nums[0], nums[1])
}

fn span(dom: &str, id: &str) -> u64 {
    let key = format!("<span id=\"{id}\">");
    let start = dom
        .find(&key)
        .unwrap_or_else(|| panic!("no #{id} in {dom}"))
        + key.len();
    dom[start..]
        .split('<')
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("#{id}: {e}"))
}

fn run(args: &[String]) -> (i32, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_inert(dom: &str) {
    // The payload shows as text; only code that ran can set the attribute.
    assert!(!dom.contains("data-pwned=\""), "injected code ran");
    assert!(!dom.contains("<img"), "injected markup became an element");
    // One <script> would be ours; the report has none.
    assert!(!dom.contains("<script"), "a script element exists");
}

#[test]
fn the_browser_runs_injected_code_in_an_unescaped_page() {
    // The control: proves the checks below would see an executed payload.
    let Some(browser) = chromium() else {
        println!("SKIPPED: no chromium, chromium-browser or google-chrome on PATH");
        return;
    };
    let dir = scratch("control");
    let page = dir.join("control.html");
    std::fs::write(
        &page,
        format!("<!DOCTYPE html><html><body><pre>{PAYLOAD}</pre></body></html>"),
    )
    .unwrap();
    let (dom, _) = load(&browser, &page);
    assert!(dom.contains("data-pwned=\""), "{dom}");
    // And the console check sees what a broken page logs: an uncaught error, and a script or
    // a network load that the report's own Content-Security-Policy blocks.
    let errors = dir.join("errors.html");
    std::fs::write(
        &errors,
        "<!DOCTYPE html><html><body><script>undefinedFunction()</script></body></html>",
    )
    .unwrap();
    let (_, console) = load(&browser, &errors);
    assert!(
        console.iter().any(|l| l.contains("undefinedFunction")),
        "{console:?}"
    );
    let blocked = dir.join("blocked.html");
    std::fs::write(
        &blocked,
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" \
         content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"></head>\
         <body><script>1</script><img src=\"http://example.invalid/x.png\"></body></html>",
    )
    .unwrap();
    let (_, console) = load(&browser, &blocked);
    assert!(
        console
            .iter()
            .any(|l| l.contains("Content Security Policy")),
        "{console:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reference_run_html_and_badge_show_the_counts_in_a_browser() {
    let dir = scratch("reference");
    let html = dir.join("report.html");
    let json = dir.join("report.json");
    let badge = dir.join("badge.json");
    let (code, stderr) = run(&[
        "run".into(),
        "--area".into(),
        "glob".into(),
        "--no-progress".into(),
        "--format".into(),
        "html".into(),
        "--output".into(),
        html.display().to_string(),
        "--report".into(),
        format!("json={}", json.display()),
        "--report".into(),
        format!("badge={}", badge.display()),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let total = report["totals"]["total"].as_u64().unwrap();
    let passed = report["totals"]["passed"].as_u64().unwrap();
    assert!(total > 0);
    let badge: Value = serde_json::from_str(&std::fs::read_to_string(&badge).unwrap()).unwrap();
    assert_eq!(
        badge,
        json!({"schemaVersion": 1, "label": "DelegateOS conformance",
               "message": format!("{passed}/{total} passed"), "color": "brightgreen"})
    );
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(
        !text.contains("http://") && !text.contains("https://"),
        "no network"
    );
    let Some(browser) = chromium() else {
        println!("SKIPPED: no chromium, chromium-browser or google-chrome on PATH");
        return;
    };
    let dom = dump_dom(&browser, &html);
    assert_eq!(span(&dom, "total"), total);
    assert_eq!(span(&dom, "passed"), passed);
    assert_eq!(span(&dom, "failed"), 0);
    assert!(dom.contains("Critical findings: none"));
    assert!(dom.contains("verdict pass"));
    // Issue 49: the options the implementation declared in hello.
    let options = report["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect::<Vec<_>>()
        .join(", ");
    assert!(!options.is_empty());
    assert!(
        dom.contains(&format!(
            "<span id=\"options\">options declared (hello.options): {options}</span>"
        )),
        "{dom}"
    );
    // The verdict strip opens the first screen at 1366×900, and says what ran.
    let (top, bottom) = verdict_strip_box(&browser, &html);
    assert!(
        top >= 0.0 && bottom <= 200.0,
        "verdict strip at {top}..{bottom}"
    );
    assert!(dom.contains("id=\"verdict-strip\""), "{dom}");
    screenshot(&browser, &html, &dir.join("shot.png"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A one-file corpus for `fake_adapter.py` whose descriptions carry [`PAYLOAD`].
fn hostile_corpus(dir: &Path) {
    std::fs::create_dir_all(dir.join("vectors/fake")).unwrap();
    let hostile = json!({"x": PAYLOAD});
    let cases = [
        (
            json!({"mode": "ok", "output": {"x": 1}}),
            json!({"result": "valid", "output": {"x": 1}}),
        ),
        (
            json!({"mode": "ok", "output": hostile}),
            json!({"result": "valid", "output": {"x": "benign"}}),
        ),
        (
            json!({"mode": "crash"}),
            json!({"result": "valid", "output": {}}),
        ),
        (
            json!({"mode": "ok", "output": {}}),
            json!({"result": "invalid", "code": "expired"}),
        ),
    ];
    let cases: Vec<Value> = cases
        .iter()
        .enumerate()
        .map(|(i, (input, expect))| {
            json!({
                "id": format!("fake-echo-{:04}", i + 1),
                "description": format!("case {} {PAYLOAD}", i + 1),
                "requirements": ["FAKE-ONE"],
                "flags": [],
                "level": "normative",
                "ground": {"kind": "text", "source": "spec", "section": "§10.1 step 1", "quote": "1. DESERIALIZE: base64url decode → parse JSON → validate structure"},
                    "stake": {"granted": "lenient-input", "refused": "valid-input-refused", "wrongOutput": "wrong-output", "crashOrHang": "crash-or-hang"},
                "op": "fake.echo",
                "input": input,
                "expect": expect,
            })
        })
        .collect();
    let file = json!({
        "schema": "delegateos-vectors/1",
        "specVersion": "0.2",
        "generator": {"name": "test", "version": "0"},
        "area": "fake",
        "group": "echo",
        "description": "fake cases",
        "keys": [],
        "notes": {},
        "numberOfCases": cases.len(),
        "cases": cases,
    });
    std::fs::write(
        dir.join("vectors/fake/echo.json"),
        serde_json::to_string_pretty(&file).unwrap(),
    )
    .unwrap();
    std::fs::write(
        dir.join("requirements.json"),
        r#"{"sections": [{"section": "§1", "title": "Fake <b>one</b>", "requirements": [
  {"id": "FAKE-ONE", "level": "MUST", "text": "echo."}]}]}
"#,
    )
    .unwrap();
}

#[test]
fn failing_run_with_hostile_data_renders_inert_with_the_right_counts() {
    let dir = scratch("hostile");
    hostile_corpus(&dir);
    let html = dir.join("report.html");
    let badge = dir.join("badge.json");
    let adapter = format!(
        "python3 '{}'",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/fake_adapter.py")
            .display()
    );
    let (code, stderr) = run(&[
        "run".into(),
        "--impl".into(),
        adapter,
        "--vectors".into(),
        dir.join("vectors").display().to_string(),
        "--requirements".into(),
        dir.join("requirements.json").display().to_string(),
        "--extra-ops".into(),
        "fake.echo".into(),
        "--no-progress".into(),
        "--report".into(),
        format!("html={}", html.display()),
        "--report".into(),
        format!("badge={}", badge.display()),
    ]);
    assert_eq!(code, 1, "{stderr}");
    let badge: Value = serde_json::from_str(&std::fs::read_to_string(&badge).unwrap()).unwrap();
    assert_eq!(badge["message"], "1/4 passed, 3 failing");
    assert_eq!(badge["color"], "red");
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(
        !text.contains("<img") && !text.contains("<script"),
        "unescaped"
    );
    assert!(text.contains("Content-Security-Policy"));
    // The crash's stderr tail and the hostile output are shown (escaped).
    assert!(
        text.contains("Traceback: simulated crash &lt;&amp;&gt;"),
        "{text}"
    );
    assert!(text.contains("onerror=&quot;document.body"), "{text}");
    let Some(browser) = chromium() else {
        println!("SKIPPED: no chromium, chromium-browser or google-chrome on PATH");
        return;
    };
    let dom = dump_dom(&browser, &html);
    assert_inert(&dom);
    assert_eq!(span(&dom, "total"), 4);
    assert_eq!(span(&dom, "passed"), 1);
    assert_eq!(span(&dom, "failed"), 2);
    assert_eq!(span(&dom, "errored"), 1);
    assert!(dom.contains("verdict fail"));
    // The payload is visible as text in the page.
    assert!(dom.contains("&lt;img src=x onerror="), "{dom}");
    assert!(dom.contains("fake-echo-0002"));
    // A failing run opens with its verdict too, above the critical box (issue 38 item 7).
    let (top, bottom) = verdict_strip_box(&browser, &html);
    assert!(
        top >= 0.0 && bottom <= 200.0,
        "verdict strip at {top}..{bottom}"
    );
    let strip = dom.find("id=\"verdict-strip\"").unwrap();
    let critical = dom.find("id=\"critical\"").unwrap();
    assert!(strip < critical, "the verdict strip comes first");
    screenshot(&browser, &html, &dir.join("shot.png"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn setup_error_html_is_valid_and_inert_in_a_browser() {
    let dir = scratch("setup");
    let html = dir.join("setup.html");
    let badge = dir.join("badge.json");
    let script = dir.join("garbage.sh");
    std::fs::write(&script, format!("cat <<'EOF'\n{PAYLOAD}\nEOF\n")).unwrap();
    let (code, _) = run(&[
        "run".into(),
        "--impl".into(),
        format!("sh '{}'", script.display()),
        "--no-progress".into(),
        "--hello-timeout-ms".into(),
        "60000".into(),
        "--report".into(),
        format!("html={}", html.display()),
        "--report".into(),
        format!("badge={}", badge.display()),
    ]);
    assert_eq!(code, 3);
    let badge: Value = serde_json::from_str(&std::fs::read_to_string(&badge).unwrap()).unwrap();
    assert_eq!(badge["message"], "setup error");
    let Some(browser) = chromium() else {
        println!("SKIPPED: no chromium, chromium-browser or google-chrome on PATH");
        return;
    };
    let dom = dump_dom(&browser, &html);
    assert_inert(&dom);
    assert!(dom.contains("setup error"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `mcp --format html` (and `--report html=FILE`) against the reference proxy: one page with
/// the suite's counts; against a proxy that forwards denied calls, the page opens with the
/// findings. Both load in Chromium without console messages.
#[test]
fn mcp_html_report_shows_the_counts_and_the_findings_first() {
    let dir = scratch("mcp");
    let html = dir.join("mcp.html");
    let json = dir.join("mcp.json");
    let ids = [
        "mcp-call-allowed",
        "mcp-deny-capability-resource",
        "mcp-handshake",
    ];
    let mut args: Vec<String> = vec![
        "mcp".into(),
        "--proxy".into(),
        format!("{BIN} reference-proxy --config {{config}}"),
        "--format".into(),
        "html".into(),
        "--output".into(),
        html.display().to_string(),
        "--report".into(),
        format!("json={}", json.display()),
    ];
    for id in ids {
        args.extend(["--id".into(), id.into()]);
    }
    let (code, stderr) = run(&args);
    assert_eq!(code, 0, "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let total = report["counts"]["total"].as_u64().unwrap();
    let passed = report["counts"]["passed"].as_u64().unwrap();
    assert_eq!(total, passed);
    assert!(total >= 2, "{report}");
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.contains("Content-Security-Policy"));
    assert!(!text.contains("http://") && !text.contains("https://"));

    // The broken proxy: forwards calls the token denies.
    let broken_html = dir.join("broken.html");
    let mut broken: Vec<String> = vec![
        "mcp".into(),
        "--proxy".into(),
        format!("{BIN} reference-proxy --fault forward-denied --config {{config}}"),
        "--report".into(),
        format!("html={}", broken_html.display()),
        "--format".into(),
        "json".into(),
    ];
    for id in ids {
        broken.extend(["--id".into(), id.into()]);
    }
    let (code, stderr) = run(&broken);
    assert_eq!(code, 1, "{stderr}");
    let broken_text = std::fs::read_to_string(&broken_html).unwrap();
    let findings = broken_text.find("id=\"findings\"").unwrap();
    let all = broken_text.find("<h2>All cases</h2>").unwrap();
    let first_finding = broken_text.find("mcp-deny-capability-resource").unwrap();
    assert!(
        findings < first_finding && first_finding < all,
        "the denied-but-forwarded case is listed among the findings, before the table"
    );

    let Some(browser) = chromium() else {
        println!("SKIPPED: no chromium, chromium-browser or google-chrome on PATH");
        return;
    };
    let dom = dump_dom(&browser, &html);
    assert_eq!(span(&dom, "total"), total);
    assert_eq!(span(&dom, "passed"), passed);
    assert_eq!(span(&dom, "failed"), 0);
    assert!(dom.contains("verdict pass"));
    let dom = dump_dom(&browser, &broken_html);
    assert!(span(&dom, "failed") >= 1);
    assert!(dom.contains("verdict fail"));
    screenshot(&browser, &broken_html, &dir.join("shot.png"));
    let _ = std::fs::remove_dir_all(&dir);
}
