//! Glob matching and subset on ordinary and hostile patterns; every built-in check function,
//! including `regex_match` on a catastrophic-backtracking pair and on a 1 MiB subject.
//!
//! Run: `cargo bench -p delegateos-reference --bench glob_checks` (see BENCHMARKS.md).
//!
//! Glob inputs (`glob/match/*`, `glob/covers/*`):
//! * `ordinary`: `/project/**` vs `/project/src/lib.rs`;
//! * `dstar32_vs_64`: 32 `**` segments then `z`, against a 64-segment path that does not end
//!   in `z` (every DP cell is live, no early exit);
//! * `star64_vs_64`: 64 `*` segments against a 64-segment path (many `*`);
//! * `long_path_4096`: `/project/**` vs a 4096-segment path (long paths);
//! * `dstar{8,16,32,64}_vs_64` and `dstar32_vs_{64,128,256}`: scaling series; time per
//!   (pattern segments × resource segments) should stay flat if matching is O(P×R).

// A benchmark whose set-up fails should abort loudly; these are not library code paths.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use serde_json::{json, Value};

use delegateos_reference::checks::builtin::BUILTINS;
use delegateos_reference::checks::CheckError;
use delegateos_reference::glob::{covers, matches};

fn path(segments: usize, last: &str) -> String {
    let mut p: String = (0..segments.saturating_sub(1))
        .map(|i| format!("/s{i}"))
        .collect();
    p.push('/');
    p.push_str(last);
    p
}

fn dstar(n: usize) -> String {
    format!("{}/z", "/**".repeat(n))
}

fn glob_inputs() -> Vec<(String, String, String)> {
    let mut v = vec![
        (
            "ordinary".to_owned(),
            "/project/**".to_owned(),
            "/project/src/lib.rs".to_owned(),
        ),
        ("dstar32_vs_64".to_owned(), dstar(32), path(64, "y")),
        (
            "star64_vs_64".to_owned(),
            "/*".repeat(64),
            // A 64-segment path (leading empty segment + 63) so that `*` can never finish.
            path(64, "y"),
        ),
        (
            "long_path_4096".to_owned(),
            "/project/**".to_owned(),
            format!("/project{}", path(4095, "x")),
        ),
    ];
    for p in [8, 16, 64] {
        v.push((format!("dstar{p}_vs_64"), dstar(p), path(64, "y")));
    }
    for r in [128, 256] {
        v.push((format!("dstar32_vs_{r}"), dstar(32), path(r, "y")));
    }
    v
}

fn bench_glob(c: &mut Criterion) {
    let inputs = glob_inputs();
    assert!(matches(&inputs[0].1, &inputs[0].2));
    assert!(!matches(&dstar(32), &path(64, "y")));
    assert!(matches(&dstar(32), &path(64, "z")));
    let mut g = c.benchmark_group("glob/match");
    for (name, pattern, resource) in &inputs {
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| matches(black_box(pattern), black_box(resource)));
        });
    }
    g.finish();
    // Subset: the same shapes as (parent, child); the child is itself a pattern.
    let mut g = c.benchmark_group("glob/covers");
    for (name, pattern, resource) in &inputs {
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| covers(black_box(pattern), black_box(resource)));
        });
    }
    let child = format!("{}/**", "/*".repeat(63));
    g.bench_function("dstar32_vs_star63_dstar", |b| {
        b.iter(|| covers(black_box(&dstar(32)), black_box(&child)));
    });
    g.finish();
}

type Check =
    fn(&Value, Option<&Value>) -> Result<delegateos_reference::checks::CheckResult, CheckError>;

fn check(name: &str) -> Check {
    BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, f)| *f)
        .unwrap()
}

fn bench_checks(c: &mut Criterion) {
    let output = json!({
        "exitCode": 0,
        "stdout": "All 42 tests passed in 1.3s",
        "result": {"files": ["a.rs", "b.rs", "c.rs"], "summary": {"ok": true, "count": 3}},
    });
    let cases: Vec<(&str, &str, Value, Value)> = vec![
        (
            "regex_match",
            "ordinary",
            output.clone(),
            json!({"pattern": "^All \\d+ tests passed", "field": "stdout"}),
        ),
        (
            "regex_match",
            "redos_(a+)+$_30a!",
            json!(format!("{}!", "a".repeat(30))),
            json!({"pattern": "^(a+)+$"}),
        ),
        (
            "regex_match",
            "1MiB_subject_no_match",
            json!("ab ".repeat((1 << 20) / 3) + "a"),
            json!({"pattern": "^[ab ]*c"}),
        ),
        (
            "regex_match",
            "redos_(a+)+$_1MiB",
            json!(format!("{}!", "a".repeat((1 << 20) - 1))),
            json!({"pattern": "^(a+)+$"}),
        ),
        (
            "json_schema",
            "ordinary",
            output.clone(),
            json!({"schema": {
                "type": "object",
                "required": ["exitCode", "result"],
                "properties": {
                    "exitCode": {"type": "integer"},
                    "result": {"type": "object", "properties": {
                        "files": {"type": "array", "items": {"type": "string"}, "minItems": 1}
                    }}
                }
            }}),
        ),
        (
            "string_length",
            "ordinary",
            output.clone(),
            json!({"field": "stdout", "min": 1, "max": 100}),
        ),
        (
            "array_length",
            "ordinary",
            output.clone(),
            json!({"field": "result.files", "min": 1}),
        ),
        (
            "field_exists",
            "ordinary",
            output.clone(),
            json!({"fields": ["exitCode", "result.summary.ok", "result.files.2"]}),
        ),
        (
            "exit_code",
            "ordinary",
            output.clone(),
            json!({"expected": 0}),
        ),
        (
            "output_equals",
            "ordinary",
            output.clone(),
            json!({"expected": output.clone()}),
        ),
    ];
    let mut g = c.benchmark_group("check");
    for (name, label, out, params) in &cases {
        let f = check(name);
        // Every case must give a verdict (pass or fail), never an error.
        f(out, Some(params)).unwrap();
        g.bench_function(BenchmarkId::new(*name, label), |b| {
            b.iter(|| f(black_box(out), Some(black_box(params))).unwrap());
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = bench_glob, bench_checks
}
criterion_main!(benches);
