//! The whole vector corpus: in-process through `reference::ops::run` vs through the reference
//! adapter binary over the adapter protocol (`runner::run`: spawn, hello, one `run` frame per
//! case, frame validation, judging, bye). The ratio of the two is the harness overhead.
//!
//! Run: `cargo bench -p delegateos-conform --bench corpus` (see BENCHMARKS.md).

// A benchmark whose set-up fails should abort loudly; these are not library code paths.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};

use delegateos_conform::expected::ExpectedFailures;
use delegateos_conform::runner::case::{load_corpus, Case};
use delegateos_conform::runner::{run, Quiet, RunConfig, Status};
use delegateos_reference::ops;
use delegateos_vectors::CorpusSource;

const CONFORM: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn corpus() -> Vec<Case> {
    load_corpus(&CorpusSource::Embedded).unwrap()
}

fn in_process(cases: &[Case]) -> usize {
    cases
        .iter()
        .filter(|c| {
            matches!(
                black_box(ops::run(&c.op, &c.input)),
                ops::Outcome::Ok { .. }
            )
        })
        .count()
}

fn through_adapter(cases: &[Case], config: &RunConfig) -> usize {
    let out = run(cases, &ExpectedFailures::default(), config, &mut Quiet).unwrap();
    let bad: Vec<&str> = out
        .results
        .iter()
        .filter(|r| !matches!(r.status, Status::Passed | Status::Acceptable))
        .map(|r| cases[r.index].id.as_str())
        .collect();
    assert!(bad.is_empty(), "reference adapter did not pass: {bad:?}");
    out.results.len()
}

fn bench_corpus(c: &mut Criterion) {
    let cases = corpus();
    let config = RunConfig::new(format!("'{CONFORM}' reference-adapter"));
    through_adapter(&cases, &config);
    let mut g = c.benchmark_group("corpus");
    g.throughput(Throughput::Elements(cases.len() as u64));
    g.bench_function("in_process", |b| b.iter(|| in_process(&cases)));
    g.bench_function("adapter", |b| b.iter(|| through_adapter(&cases, &config)));
    g.finish();
}

/// Alternating rounds (adapter, then in-process) so both halves see similar machine load;
/// prints the median per-round ratio.
fn paired_ratio() {
    let cases = corpus();
    let config = RunConfig::new(format!("'{CONFORM}' reference-adapter"));
    let mut rounds = Vec::new();
    for _ in 0..7 {
        let t0 = Instant::now();
        through_adapter(&cases, &config);
        let a = t0.elapsed();
        let t1 = Instant::now();
        in_process(&cases);
        let p = t1.elapsed();
        rounds.push((a, p));
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut ratios: Vec<f64> = rounds
        .iter()
        .map(|(a, p)| a.as_secs_f64() / p.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    let mut a: Vec<f64> = rounds.iter().map(|r| ms(r.0)).collect();
    let mut p: Vec<f64> = rounds.iter().map(|r| ms(r.1)).collect();
    a.sort_by(f64::total_cmp);
    p.sort_by(f64::total_cmp);
    println!(
        "\npaired corpus ({} cases, median of 7 alternating rounds): adapter {:.1} ms, \
         in-process {:.1} ms, ratio {:.3}",
        cases.len(),
        a[3],
        p[3],
        ratios[3]
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = bench_corpus
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    if std::env::args().any(|a| a == "--bench") {
        paired_ratio();
    }
}
