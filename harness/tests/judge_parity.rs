//! One judge, three languages (issue 30 part 3): the Rust judge
//! (`delegateos_vectors::judge::judge_case`, what `delegateos-conform run` uses) is the oracle;
//! the npm package's judge (`packages/npm`, run by node) and the PyPI package's judge
//! (`packages/python`, run by python3) must give the identical verdict — class, acceptable
//! outcome index, family, expected/actual code, failure kind — on every recorded
//! (case, actual output) pair — and the same for the stricter reference reading
//! (`judge_reference`: only an acceptable expectation's first outcome passes).
//!
//! The pairs:
//! - **recorded**: every case of the corpus (advisory included) run through the real adapter
//!   protocol against the built-in reference adapter and the red-team adapters `js-hasty`,
//!   `js-chain` (node) and `py-hasty` (python3) with their default bug lists: passing,
//!   failing, acceptable and other-code outcomes as real implementations produce them;
//! - **derived**: for every case, outcomes built from its expectation that reach every branch
//!   of the judge: each allowed outcome (passed, acceptable), with extra keys, integers as
//!   floats, floats nudged inside and outside the 1e-9 tolerance, a changed or missing key,
//!   per-entry codes swapped within each code family, every other code of every family (inside
//!   and outside its scope), an unknown code, the opposite verdict, skipped and errored.
//!
//! The code families each package reads from `spec/data/error-codes.json` must equal
//! `delegateos_vectors::families::all()` field by field. The pairs go to a JSONL file (`{source, case_id, actual, rust}`) in a temp dir; both
//! packages' `parity` scripts judge them from their own staged copy of the corpus (whose digest
//! and version must equal the embedded corpus's), and every verdict must equal the Rust one.
//! Counts per verdict class are printed (`cargo test -p delegateos-conform --test judge_parity
//! -- --nocapture`). `broken_js_and_python_judges_are_caught` shows the comparison has teeth:
//! either package's judge with its code families removed, or with acceptable outcomes reported
//! as passed, must be reported.
//!
//! Needs `node` (≥ 18) and `python3` (≥ 3.9). Without them the tests print a message and
//! return, as the other red-team tests do.

// Test helpers outside `#[test]` functions may fail loudly: a panic here is a test failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use delegateos_conform::expected::ExpectedFailures;
use delegateos_conform::runner::case::{load_corpus, Case};
use delegateos_conform::runner::{self, Quiet, RunConfig};
use delegateos_vectors::format::Expected;
use delegateos_vectors::judge::{judge_case, judge_reference, ActualOutcome, Verdict};
use delegateos_vectors::CorpusSource;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ has a parent")
        .to_path_buf()
}

fn available(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// One (case, actual) pair and where it came from.
struct Pair {
    source: String,
    case_id: String,
    actual: ActualOutcome,
}

/// The comparable part of a verdict (the diff texts are the Rust judge's presentation).
fn verdict_json(v: &Verdict) -> Value {
    match v {
        Verdict::Passed => json!({"verdict": "passed"}),
        Verdict::Acceptable { matched } => json!({"verdict": "acceptable", "matched": matched}),
        Verdict::OtherCode {
            family,
            expected_code,
            actual_code,
            ..
        } => json!({
            "verdict": "other_code",
            "family": family,
            "expected_code": expected_code,
            "actual_code": actual_code,
        }),
        Verdict::Failed { kind, .. } => json!({"verdict": "failed", "kind": kind}),
    }
}

/// The class of a pair's `judge_case` verdict: `passed`, `acceptable/1`, `other_code/chain`,
/// `failed/wrong_code`, …
fn class(v: &Value) -> String {
    let v = &v["case"];
    let verdict = v["verdict"].as_str().unwrap_or("?");
    match verdict {
        "acceptable" => format!("acceptable/{}", v["matched"]),
        "other_code" => format!("other_code/{}", v["family"].as_str().unwrap_or("?")),
        "failed" => format!("failed/{}", v["kind"].as_str().unwrap_or("?")),
        other => other.to_owned(),
    }
}

fn actual_from_json(v: &Value) -> Option<ActualOutcome> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(match v.get("outcome")?.as_str()? {
        "ok" => ActualOutcome::Ok {
            output: v.get("output").cloned().unwrap_or(Value::Null),
        },
        "error" => ActualOutcome::Error {
            code: text("code")?,
            detail: text("detail"),
        },
        "skipped" => ActualOutcome::Skipped {
            reason: text("reason").unwrap_or_default(),
        },
        "errored" => ActualOutcome::Errored {
            message: text("message").unwrap_or_default(),
        },
        _ => return None,
    })
}

/// Runs every case through an adapter and records what it answered.
fn record(name: &str, command: &str, cases: &[Case]) -> Vec<Pair> {
    let mut config = RunConfig::new(command);
    // Backtracking red-team globs hang on the hostile cases: a timeout records no pair, so
    // there is no point waiting the default 5 s.
    config.timeout = Duration::from_millis(2_000);
    config.max_consecutive_errors = 1_000_000;
    let out = runner::run(cases, &ExpectedFailures::default(), &config, &mut Quiet)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    out.results
        .iter()
        .filter_map(|r| {
            let actual = actual_from_json(r.actual.as_ref()?)?;
            Some(Pair {
                source: name.to_owned(),
                case_id: cases[r.index].id.clone(),
                actual,
            })
        })
        .collect()
}

fn ok(output: Value) -> ActualOutcome {
    ActualOutcome::Ok { output }
}

fn err(code: &str) -> ActualOutcome {
    ActualOutcome::Error {
        code: code.to_owned(),
        detail: Some("detail is never compared".to_owned()),
    }
}

/// Every number rewritten by `f` (integers and floats alike).
fn map_numbers(v: &Value, f: &dyn Fn(&serde_json::Number) -> Value) -> Value {
    match v {
        Value::Number(n) => f(n),
        Value::Array(a) => Value::Array(a.iter().map(|x| map_numbers(x, f)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), map_numbers(x, f)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn has_number(v: &Value, pred: &dyn Fn(&serde_json::Number) -> bool) -> bool {
    match v {
        Value::Number(n) => pred(n),
        Value::Array(a) => a.iter().any(|x| has_number(x, pred)),
        Value::Object(m) => m.values().any(|x| has_number(x, pred)),
        _ => false,
    }
}

/// Every string that is a code of `codes` replaced by the next code of the list.
fn swap_codes(v: &Value, codes: &[String]) -> Value {
    match v {
        Value::String(s) => match codes.iter().position(|c| c == s) {
            Some(i) => Value::String(codes[(i + 1) % codes.len()].clone()),
            None => v.clone(),
        },
        Value::Array(a) => Value::Array(a.iter().map(|x| swap_codes(x, codes)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), swap_codes(x, codes)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The first leaf changed to a different value of another kind.
fn change_first_leaf(v: &Value) -> Value {
    match v {
        Value::Object(m) if !m.is_empty() => {
            let mut m = m.clone();
            let first = m.keys().next().cloned().unwrap_or_default();
            let changed = change_first_leaf(&m[&first]);
            m.insert(first, changed);
            Value::Object(m)
        }
        Value::Array(a) if !a.is_empty() => {
            let mut a = a.clone();
            a[0] = change_first_leaf(&a[0]);
            Value::Array(a)
        }
        Value::Bool(b) => Value::Bool(!b),
        Value::String(s) => Value::String(format!("{s}~")),
        Value::Number(n) => json!(n.as_f64().unwrap_or(0.0) + 1.0),
        Value::Null => json!(0),
        _ => json!("changed"),
    }
}

/// Outcomes derived from a case's expectation that reach every branch of the judge.
fn derived(case: &Case) -> Vec<ActualOutcome> {
    let families = delegateos_vectors::families::all();
    let mut out = Vec::new();
    for o in case.expect.outcomes() {
        match o {
            Expected::Valid { output } => {
                out.push(ok(output.clone()));
                if let Value::Object(m) = &output {
                    let mut extra = m.clone();
                    extra.insert("diagnosticsNotCompared".into(), json!({"x": [1, 2.5]}));
                    out.push(ok(Value::Object(extra)));
                    if let Some(k) = m.keys().next() {
                        let mut missing = m.clone();
                        missing.remove(k);
                        out.push(ok(Value::Object(missing)));
                    }
                }
                out.push(ok(change_first_leaf(&output)));
                out.push(ok(json!([output.clone()])));
                if has_number(&output, &|_| true) {
                    // Integers as floats (`1` → `1.0`): equal as numbers.
                    out.push(ok(map_numbers(&output, &|n| {
                        serde_json::Number::from_f64(n.as_f64().unwrap_or(0.0))
                            .map_or(Value::Null, Value::Number)
                    })));
                    // Every number moved by 4e-10 (inside the tolerance) and by 1e-6 (outside).
                    for delta in [4e-10, 1e-6] {
                        out.push(ok(map_numbers(&output, &|n| {
                            json!(n.as_f64().unwrap_or(0.0) + delta)
                        })));
                    }
                    // Integers + 1.
                    out.push(ok(map_numbers(
                        &output,
                        &|n| match (n.as_i64(), n.as_u64()) {
                            (Some(i), _) => json!(i.wrapping_add(1)),
                            (None, Some(u)) => json!(u.wrapping_sub(1)),
                            _ => Value::Number(n.clone()),
                        },
                    )));
                }
                for f in families {
                    let swapped = swap_codes(&output, &f.codes);
                    if swapped != output {
                        out.push(ok(swapped));
                    }
                }
                out.push(err("invalid_input"));
            }
            Expected::Invalid { code, .. } => {
                out.push(err(&code));
                for f in families.iter().filter(|f| f.codes.contains(&code)) {
                    for other in f.codes.iter().filter(|c| **c != code) {
                        out.push(err(other));
                    }
                }
                out.push(err("no_such_code"));
                out.push(ok(json!({})));
            }
        }
    }
    out.push(ActualOutcome::Skipped {
        reason: "not implemented".into(),
    });
    out.push(ActualOutcome::Errored {
        message: "boom".into(),
    });
    out.dedup();
    out
}

/// Writes the pairs with the Rust verdicts as JSONL; returns the file and the Rust verdicts.
fn write_pairs(dir: &Path, cases: &BTreeMap<&str, &Case>, pairs: &[Pair]) -> (PathBuf, Vec<Value>) {
    let mut text = String::new();
    let mut verdicts = Vec::new();
    for p in pairs {
        let case = cases[p.case_id.as_str()];
        let v = json!({
            "case": verdict_json(&judge_case(&case.op, &case.flags, &case.expect, &p.actual)),
            "reference": verdict_json(&judge_reference(&case.expect, &p.actual)),
        });
        let line = json!({
            "source": p.source,
            "case_id": p.case_id,
            "actual": p.actual.to_json(),
            "rust": v,
        });
        writeln!(text, "{line}").unwrap();
        verdicts.push(v);
    }
    let path = dir.join("pairs.jsonl");
    std::fs::write(&path, text).unwrap();
    (path, verdicts)
}

/// Stages both packages' corpora once per test process: the two tests run side by side, and a
/// second staging (which deletes and rewrites `data/`) under a judge that is reading it made
/// the other test fail now and then.
fn stage_packages() {
    static STAGED: std::sync::Once = std::sync::Once::new();
    STAGED.call_once(stage_packages_now);
}

fn stage_packages_now() {
    let r = root();
    let npm = Command::new("node")
        .arg(r.join("packages/npm/scripts/build.mjs"))
        .output()
        .unwrap();
    assert!(
        npm.status.success(),
        "npm build: {}",
        String::from_utf8_lossy(&npm.stderr)
    );
    let py = Command::new("python3")
        .arg(r.join("packages/python/scripts/stage_corpus.py"))
        .output()
        .unwrap();
    assert!(
        py.status.success(),
        "python stage: {}",
        String::from_utf8_lossy(&py.stderr)
    );
}

/// Runs one package's parity script; returns (header, verdicts).
fn judge_with(lang: &str, pairs: &Path, mutant: &str) -> (Value, Vec<Value>) {
    let r = root();
    let mut cmd = match lang {
        "js" => {
            let mut c = Command::new("node");
            c.arg(r.join("packages/npm/scripts/parity.mjs"));
            c
        }
        _ => {
            let mut c = Command::new("python3");
            c.arg(r.join("packages/python/scripts/parity.py"))
                .env("PYTHONPATH", r.join("packages/python/src"));
            c
        }
    };
    let out = cmd
        .arg(pairs)
        .env("DELEGATEOS_PARITY_MUTANT", mutant)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{lang} judge failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines = std::str::from_utf8(&out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let header = lines.next().expect("header line");
    (header, lines.collect())
}

/// Every pair whose verdict differs from the Rust one: `(index, rust, other)`.
fn mismatches(rust: &[Value], other: &[Value]) -> Vec<(usize, Value, Value)> {
    assert_eq!(rust.len(), other.len(), "one verdict per pair");
    rust.iter()
        .zip(other)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| (i, a.clone(), b.clone()))
        .collect()
}

fn report_mismatches(lang: &str, pairs: &[Pair], m: &[(usize, Value, Value)]) -> String {
    let mut s = format!("{lang}: {} of {} verdicts differ\n", m.len(), pairs.len());
    for (i, rust, other) in m.iter().take(25) {
        let p = &pairs[*i];
        let _ = writeln!(
            s,
            "  {} [{}] actual {}\n    rust {rust}\n    {lang} {other}",
            p.case_id,
            p.source,
            p.actual.to_json()
        );
    }
    s
}

fn tempdir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "delegateos-judge-parity-{tag}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn corpus() -> Vec<Case> {
    load_corpus(&CorpusSource::Embedded).expect("embedded corpus loads")
}

fn derived_pairs(cases: &[Case]) -> Vec<Pair> {
    cases
        .iter()
        .flat_map(|c| {
            derived(c).into_iter().map(|actual| Pair {
                source: "derived".to_owned(),
                case_id: c.id.clone(),
                actual,
            })
        })
        .collect()
}

/// The corpus, with both packages staged; `None` (the test prints SKIPPED) without node and
/// python3.
fn staged_corpus() -> Option<Vec<Case>> {
    if !available("node") || !available("python3") {
        println!("SKIPPED: judge_parity needs node and python3");
        return None;
    }
    stage_packages();
    Some(corpus())
}

#[test]
fn npm_and_python_judges_agree_with_the_rust_judge_on_every_pair() {
    let Some(cases) = staged_corpus() else {
        return;
    };
    let by_id: BTreeMap<&str, &Case> = cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let r = root();
    let adapters = [
        ("reference", format!("'{BIN}' reference-adapter")),
        (
            "js-hasty",
            format!(
                "node '{}'",
                r.join("implementations/redteam/js-hasty/adapter.js")
                    .display()
            ),
        ),
        (
            "js-chain",
            format!(
                "node '{}'",
                r.join("implementations/redteam/js-chain/adapter.js")
                    .display()
            ),
        ),
        (
            "py-hasty",
            format!(
                "python3 '{}'",
                r.join("implementations/redteam/py-hasty/adapter.py")
                    .display()
            ),
        ),
    ];
    let mut pairs = Vec::new();
    for (name, command) in &adapters {
        let recorded = record(name, command, &cases);
        assert!(
            !recorded.is_empty(),
            "{name}: no outcome recorded (adapter not runnable?)"
        );
        pairs.extend(recorded);
    }
    let recorded = pairs.len();
    pairs.extend(derived_pairs(&cases));

    let dir = tempdir("all");
    let (file, rust) = write_pairs(&dir, &by_id, &pairs);
    let embedded = delegateos_vectors::corpus::embedded_digest();
    let mut failures = String::new();
    let mut table: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for (p, v) in pairs.iter().zip(&rust) {
        let source = if p.source == "derived" {
            "derived"
        } else {
            "recorded"
        };
        *table
            .entry(class(v))
            .or_default()
            .entry(source.to_owned())
            .or_default() += 1;
    }
    for lang in ["js", "python"] {
        let (header, verdicts) = judge_with(lang, &file, "");
        assert_eq!(
            header["digest"], embedded,
            "{lang} package digest is not the embedded corpus's"
        );
        assert_eq!(header["corpusVersion"], env!("CARGO_PKG_VERSION"));
        // The code families as each package read them from spec/data/error-codes.json.
        let rust_families: Vec<Value> = delegateos_vectors::families::all()
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "codes": f.codes,
                    "ops": f.ops,
                    "stages": f.stages,
                    "only_flag": f.only_flag,
                })
            })
            .collect();
        assert_eq!(
            header["families"],
            Value::Array(rust_families),
            "{lang} parses the code families differently"
        );
        let m = mismatches(&rust, &verdicts);
        if !m.is_empty() {
            failures.push_str(&report_mismatches(lang, &pairs, &m));
        }
    }
    let mut summary = format!(
        "judge parity: {} pairs ({recorded} recorded from {} adapters, {} derived), {} cases; \
         pairs in {}\n{:<40} {:>9} {:>9}\n",
        pairs.len(),
        adapters.len(),
        pairs.len() - recorded,
        cases.len(),
        file.display(),
        "verdict class (identical in rust, js, python)",
        "recorded",
        "derived"
    );
    for (class, by_source) in &table {
        let n = |s: &str| by_source.get(s).copied().unwrap_or(0);
        let _ = writeln!(
            summary,
            "{class:<40} {:>9} {:>9}",
            n("recorded"),
            n("derived")
        );
    }
    println!("{summary}");
    assert!(failures.is_empty(), "{summary}\n{failures}");
    // Every verdict class the judge has must be exercised, by recorded outcomes where a real
    // adapter produces it.
    for needed in [
        "passed",
        "acceptable/1",
        "failed/output_mismatch",
        "failed/wrong_code",
        "failed/accepted_invalid",
        "failed/rejected_valid",
        "failed/no_answer",
    ] {
        assert!(table.contains_key(needed), "no pair of class {needed}");
    }
    for needed in ["passed", "failed/wrong_code", "failed/accepted_invalid"] {
        assert!(
            table[needed].contains_key("recorded"),
            "no recorded pair of class {needed}"
        );
    }
    assert!(
        table
            .keys()
            .filter(|k| k.starts_with("other_code/"))
            .count()
            >= 5,
        "other_code pairs cover fewer than 5 families: {:?}",
        table.keys().collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn broken_js_and_python_judges_are_caught() {
    let Some(cases) = staged_corpus() else {
        return;
    };
    let by_id: BTreeMap<&str, &Case> = cases.iter().map(|c| (c.id.as_str(), c)).collect();
    let pairs = derived_pairs(&cases);
    let dir = tempdir("mutant");
    let (file, rust) = write_pairs(&dir, &by_id, &pairs);
    for lang in ["js", "python"] {
        let (_, sound) = judge_with(lang, &file, "");
        let m = mismatches(&rust, &sound);
        assert!(
            m.is_empty(),
            "the unbroken {lang} judge must agree\n{}",
            report_mismatches(lang, &pairs, &m)
        );
        for mutant in ["no-families", "acceptable-is-passed"] {
            let (_, broken) = judge_with(lang, &file, mutant);
            let m = mismatches(&rust, &broken);
            println!(
                "{}",
                report_mismatches(&format!("{lang} ({mutant})"), &pairs, &m)
                    .lines()
                    .take(4)
                    .collect::<Vec<_>>()
                    .join("\n")
            );
            assert!(
                !m.is_empty(),
                "the {lang} judge broken by {mutant} was not caught"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
