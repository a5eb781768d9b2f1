//! `compare`: several implementations side by side (issue 40), from the JSON reports of
//! `run --format json` (`compare a.json b.json …`, so that a CI matrix uploads one report per
//! job and aggregates them in a final one) or by running each `--impl NAME=CMD` as `run` does.
//!
//! Every compared report must have run the same corpus (the `vectors` label of the report,
//! which names the embedded corpus's BLAKE2b-256 digest): otherwise `compare` exits 64 naming
//! both. Reports of different filters or profiles are compared over the union of their
//! cases; a case a report does not contain reads `not_run`.
//!
//! What it shows (text, Markdown, JSON, or one self-contained HTML page: see [`html`]):
//!
//! - **overview**: per implementation, the verdict and exit code of its run, the counted pass
//!   rate (passed + acceptable over total − skipped, the badge's number) and its findings per
//!   severity, critical first;
//! - **findings matrix**: each finding key (one per root cause) × implementation, with the
//!   severity and case count in each;
//! - **readings map**: per decision `Dn` of `spec/decisions.md`, which of the accepted
//!   outcomes each implementation took on the decision's cases: `reference` (the first listed
//!   outcome, status `passed`), `reading N` (another listed outcome, status `acceptable`; N is
//!   the index in the case's `outcomes`, 0 being the reference reading), `none` (failed or
//!   errored), `other_code` (rejected with another code of the family), `skipped`; listed for
//!   every decision at least one implementation reads differently from the reference, each
//!   with its title and the heading of `spec/decisions.md` that explains it (an installed
//!   binary writes that file with `vectors export DIR`);
//! - **interoperability**: cases that two implementations both pass (`passed` or
//!   `acceptable`) with different outcomes, the pairs that disagree in production although
//!   both conform, with a count per pair;
//! - **operations**: per operation of the corpus, whether each implementation declared it in
//!   `hello` and how many of its cases ran and were skipped; per implementation, `N of M
//!   operations` exactly as `run`'s verdict counts them (the operations of the counted cases,
//!   and those of them with a case not skipped), and the options it declared in `hello`.
//!
//! The decision and the accepted outcomes of a case come from the corpus embedded in this
//! binary when the reports' digest is its digest (or from the `--vectors` directory a report
//! names, if it exists), else from each report's `expected` (present on acceptable and failed
//! cases only).
//!
//! ## JSON (`--format json`), schema `delegateos-conform-compare/1`
//!
//! ```text
//! { "schema": "delegateos-conform-compare/1",
//!   "corpus": "<the reports' vectors label>", "decisions_from": "embedded corpus" | …,
//!   "notes": [string],
//!   "implementations": [ { "label", "name", "version", "language"?, "source",
//!       "verdict", "exit_code", "interrupted"?, "totals": {counts of the report},
//!       "hardening_totals": {counts}, "counted", "counted_passed", "pass_rate" (percent),
//!       "operations_run", "operations_total" (`run`'s N of M operations),
//!       "options": [the hello.options it declared],
//!       "findings": {"critical","high","medium","low"}  (number of findings),
//!       "finding_cases": {"critical","high","medium","low"} (cases of those findings) } ],
//!   "findings": [ { "key", "title", "severity" (the highest), "cells": [ null |
//!       { "severity", "cases", "counted" } ] } ],          // cells[i] ↔ implementations[i]
//!   "readings": [ { "decision", "title", "read_at", "cases", "cells": [ { "reference", "alternatives":
//!       [ {"outcome", "cases"} ], "acceptable_unknown", "none", "other_code", "skipped",
//!       "not_run" } ], "divergent": [ { "id", "op", "outcomes": [ {"outcome", "answer"} ],
//!       "readings": [ "reference" | "reading N" | "acceptable" | "none" | "other_code" |
//!       "skipped" | "not_run" ] } ] } ],
//!   "decisions_agreeing": ["Dn"],
//!   "interoperability": { "pairs": [ { "a", "b", "cases" } ],
//!       "cases": [ { "id", "op", "decision"?, "readings": [ null | N ] } ] },
//!   "operations": [ { "op", "cells": [ { "declared", "ran", "skipped" } ] } ] }
//! ```
//!
//! **Over time** (`--baseline OLD.json NEW.json`, see [`over_time`]): two reports of the same
//! implementation as new, fixed and unchanged findings; across corpus versions it states the
//! cases added and removed instead of refusing; `--fail-on-new` exits 1 when a finding is new.
//!
//! Exit codes: 0 the comparison was written; 3 a report could not be read or is not a
//! `delegateos-conform-report/1`, or an implementation could not be run (a setup error of one
//! implementation is a setup error of the comparison: the cause is said, no comparison is
//! written); 64 usage (fewer than two implementations, a bad `NAME=CMD`, or reports of
//! different corpora); 130 interrupted (SIGINT, SIGTERM, SIGHUP): the message first, then the
//! comparison of the partial reports the interrupted runs wrote.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde::Deserialize;
use serde_json::Value;

use delegateos_vectors::format::{Expectation, Expected, Ground};
use delegateos_vectors::judge::{judge, ActualOutcome, Verdict};

use crate::exit::ConformExitCode;

pub mod over_time;

use crate::report::compare::{decision_number, severity_rank, SEVERITIES};
pub use crate::report::compare::{
    html, render, Alternative, Comparison, Counts, DecisionRow, DivergentCase, FindingCell,
    FindingRow, Format, Interop, InteropCase, InteropPair, OperationCell, OperationRow,
    OutcomeSummary, Overview, Reading, ReadingCell, SCHEMA,
};

/// `compare`
#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// JSON reports written by `run --format json`; `NAME=FILE` labels one (default label: the
    /// report's implementation name).
    #[arg(value_name = "REPORT")]
    pub reports: Vec<String>,
    /// Run an implementation as `run --impl CMD` would and compare its report; repeatable.
    /// Arguments after `--` are passed to every run (e.g. `-- --area dct`).
    #[arg(long = "impl", value_name = "NAME=CMD")]
    pub implementations: Vec<String>,
    /// Output format.
    #[arg(long, default_value = "text", value_parser = crate::report::format::parser(crate::report::format::COMPARE))]
    pub format: Format,
    /// Write the comparison to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Keep the JSON report of each `--impl` run as DIR/NAME.json (default: a temporary
    /// directory, removed afterwards).
    #[arg(long, value_name = "DIR")]
    pub save_reports: Option<PathBuf>,
    /// Over time: compare the one REPORT (or `--impl` run) with this earlier report of the same
    /// implementation, as new, fixed and unchanged findings (by finding key). Reports of
    /// different corpus versions are compared anyway, stating the cases added and removed.
    #[arg(long, value_name = "OLD.json")]
    pub baseline: Option<PathBuf>,
    /// With `--baseline`: exit 1 when a finding is new (0 otherwise).
    #[arg(long, requires = "baseline")]
    pub fail_on_new: bool,
    /// With `--baseline`: exit 1 when a finding is new or worse (its severity rose, or its
    /// cases grew among the cases both reports ran); 0 otherwise.
    #[arg(long, requires = "baseline")]
    pub fail_on_worse: bool,
    /// Cores for the `--impl` runs (default: the number of available cores): up to that many
    /// implementations run at once, and the cores are shared among them (each run's `--jobs`,
    /// unless given after `--`). The comparison is the same for every N.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,
    /// Extra `run` arguments for every `--impl` run (after `--`).
    #[arg(last = true, value_name = "RUN-ARGS")]
    pub run_args: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// The report, as read back (only what the comparison needs; unknown members are ignored).

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct RawImplementation {
    name: String,
    version: String,
    language: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct RawSection {
    totals: Counts,
    cases: Vec<RawCase>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct RawCase {
    id: String,
    op: String,
    status: String,
    raw_status: String,
    expected: Option<Value>,
    actual: Option<Value>,
    message: Option<String>,
    error_kind: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct RawFinding {
    key: String,
    severity: String,
    title: String,
    counted: bool,
    cases: u64,
    ids: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct RawReport {
    schema: String,
    implementation: RawImplementation,
    operations: Vec<String>,
    options: Vec<String>,
    vectors: String,
    interrupted: Option<String>,
    totals: Counts,
    cases: Vec<RawCase>,
    hardening: RawSection,
    advisory: RawSection,
    exit_code: i32,
    findings: Vec<RawFinding>,
}

/// One implementation's report with its label and where it came from.
#[derive(Debug, Clone)]
struct Loaded {
    label: String,
    source: String,
    report: RawReport,
}

impl RawReport {
    /// A report of a run that could not start (`report::setup`): exit 3, its one case the
    /// errored `setup-error` entry.
    fn is_setup_error(&self) -> bool {
        self.exit_code == ConformExitCode::SETUP_ERROR
            && self.interrupted.is_none()
            && self
                .all_cases()
                .all(|c| c.id == crate::report::setup::SETUP_CASE_ID)
    }

    /// Why the run could not start: the setup-error entry's message.
    fn setup_reason(&self) -> String {
        self.all_cases()
            .find_map(|c| c.message.as_deref())
            .map(|m| m.trim_start_matches("setup error: ").trim_end().to_owned())
            .unwrap_or_else(|| "(no reason given)".to_owned())
    }

    /// Every case of the report: main, hardening and advisory sections.
    fn all_cases(&self) -> impl Iterator<Item = &RawCase> {
        self.cases
            .iter()
            .chain(&self.hardening.cases)
            .chain(&self.advisory.cases)
    }
}

/// The corpus digest a `vectors` label names (`… blake2b-256 <hex>)`), if any.
pub fn corpus_digest(label: &str) -> Option<&str> {
    let rest = &label[label.find("blake2b-256 ")? + "blake2b-256 ".len()..];
    let hex: &str = rest
        .split(|c: char| !c.is_ascii_hexdigit())
        .next()
        .unwrap_or("");
    (hex.len() == 64).then_some(hex)
}

// ---------------------------------------------------------------------------------------------
// The comparison.

/// What the corpus says about one case.
#[derive(Debug, Clone)]
struct CaseInfo {
    decision: Option<String>,
    expect: Option<Expectation>,
}

fn verdict_word(r: &RawReport) -> String {
    if r.interrupted.is_some() {
        return "INTERRUPTED".to_owned();
    }
    match r.exit_code {
        0 => "PASSED",
        2 => "STALE BASELINE",
        3 if r.is_setup_error() => "SETUP ERROR",
        // `run`'s word for an adapter that failed every request (issue 46).
        3 => "ADAPTER ERROR",
        _ => "FAILED",
    }
    .to_owned()
}

fn overview(l: &Loaded) -> Overview {
    let r = &l.report;
    let t = &r.totals;
    let counted = t.total.saturating_sub(t.skipped);
    let counted_passed = t.passed + t.acceptable;
    let pass_rate = if counted == 0 {
        0.0
    } else {
        (counted_passed as f64 * 1000.0 / counted as f64).round() / 10.0
    };
    // Operations as `run`'s verdict counts them (`Report::coverage_note`): those of the counted
    // cases (the main section), and those with a case sent (neither skipped nor left unsent).
    let ops: BTreeSet<&str> = r.cases.iter().map(|c| c.op.as_str()).collect();
    let ran: BTreeSet<&str> = r
        .cases
        .iter()
        .filter(|c| {
            reading_of(Some(c), None) != Reading::Skipped
                && c.error_kind.as_deref() != Some("abandoned")
        })
        .map(|c| c.op.as_str())
        .collect();
    let mut findings: BTreeMap<String, u64> =
        SEVERITIES.iter().map(|s| ((*s).to_owned(), 0)).collect();
    let mut finding_cases = findings.clone();
    for f in &r.findings {
        *findings.entry(f.severity.clone()).or_default() += 1;
        *finding_cases.entry(f.severity.clone()).or_default() += f.cases;
    }
    Overview {
        label: l.label.clone(),
        name: r.implementation.name.clone(),
        version: r.implementation.version.clone(),
        language: r.implementation.language.clone(),
        source: l.source.clone(),
        verdict: verdict_word(r),
        exit_code: r.exit_code,
        interrupted: r.interrupted.clone(),
        totals: t.clone(),
        hardening_totals: r.hardening.totals.clone(),
        counted,
        counted_passed,
        pass_rate,
        operations_run: ran.len() as u64,
        operations_total: ops.len() as u64,
        options: r.options.clone(),
        findings,
        finding_cases,
    }
}

/// The title of each decision of `spec/decisions.md` (as embedded in this binary) and the
/// heading to read it under: `D5` → (`Time`, `spec/decisions.md, "D5 Time"`); a heading of a
/// range (`D34–D40 MCP stdio proxy behaviour`) titles each decision of it. The flags a heading
/// lists in parentheses are not part of the title.
pub fn decision_titles() -> HashMap<String, (String, String)> {
    let mut out = HashMap::new();
    for line in delegateos_vectors::flags::DECISIONS.lines() {
        let Some(rest) = line.strip_prefix("## D") else {
            continue;
        };
        let (ids, title) = rest.split_once(' ').unwrap_or((rest, ""));
        let title = match title.rfind(" (") {
            Some(i)
                if title[i + 2..].starts_with("flag") || title[i + 2..].starts_with("no flag") =>
            {
                &title[..i]
            }
            _ => title,
        };
        let numbers: Vec<u64> = ids
            .split(['–', '-'])
            .map(|n| n.trim_start_matches('D').parse().ok())
            .collect::<Option<Vec<u64>>>()
            .unwrap_or_default();
        let (first, last) = match numbers.as_slice() {
            [n] => (*n, *n),
            [a, b] if a <= b => (*a, *b),
            _ => continue,
        };
        let heading = format!("spec/decisions.md, \"D{ids} {title}\"");
        for n in first..=last {
            out.insert(format!("D{n}"), (title.to_owned(), heading.clone()));
        }
    }
    out
}

fn findings_matrix(loaded: &[Loaded]) -> Vec<FindingRow> {
    let mut rows: BTreeMap<String, FindingRow> = BTreeMap::new();
    for (i, l) in loaded.iter().enumerate() {
        for f in &l.report.findings {
            let row = rows.entry(f.key.clone()).or_insert_with(|| FindingRow {
                key: f.key.clone(),
                title: f.title.clone(),
                severity: f.severity.clone(),
                cells: vec![None; loaded.len()],
            });
            if severity_rank(&f.severity) < severity_rank(&row.severity) {
                row.severity = f.severity.clone();
            }
            if let Some(cell) = row.cells.get_mut(i) {
                *cell = Some(FindingCell {
                    severity: f.severity.clone(),
                    cases: f.cases,
                    counted: f.counted,
                });
            }
        }
    }
    let mut rows: Vec<FindingRow> = rows.into_values().collect();
    let total = |r: &FindingRow| -> u64 { r.cells.iter().flatten().map(|c| c.cases).sum() };
    rows.sort_by(|a, b| {
        severity_rank(&a.severity)
            .cmp(&severity_rank(&b.severity))
            .then(total(b).cmp(&total(a)))
            .then(a.key.cmp(&b.key))
    });
    rows
}

/// The report's `actual` as the judge's outcome.
fn actual_outcome(v: &Value) -> Option<ActualOutcome> {
    match v.get("outcome")?.as_str()? {
        "ok" => Some(ActualOutcome::Ok {
            output: v.get("output").cloned().unwrap_or(Value::Null),
        }),
        "error" => Some(ActualOutcome::Error {
            code: v.get("code")?.as_str()?.to_owned(),
            detail: None,
        }),
        _ => None,
    }
}

fn reading_of(case: Option<&RawCase>, info: Option<&CaseInfo>) -> Reading {
    let Some(case) = case else {
        return Reading::NotRun;
    };
    let status = if case.raw_status.is_empty() {
        case.status.as_str()
    } else {
        case.raw_status.as_str()
    };
    match status {
        "passed" | "stale" => Reading::Outcome(0),
        "acceptable" => {
            let expect = info.and_then(|i| i.expect.clone()).or_else(|| {
                case.expected
                    .as_ref()
                    .and_then(|e| serde_json::from_value::<Expectation>(e.clone()).ok())
            });
            let actual = case.actual.as_ref().and_then(actual_outcome);
            match (expect, actual) {
                (Some(e), Some(a)) => match judge(&e, &a) {
                    Verdict::Acceptable { matched } => Reading::Outcome(matched),
                    Verdict::Passed => Reading::Outcome(0),
                    _ => Reading::Acceptable,
                },
                _ => Reading::Acceptable,
            }
        }
        "other_code" => Reading::OtherCode,
        "skipped" => Reading::Skipped,
        _ => Reading::None,
    }
}

fn answer_summary(e: &Expected) -> String {
    match e {
        Expected::Valid { output } => {
            let s = output.to_string();
            if s.chars().count() > 60 {
                format!("ok {}…", s.chars().take(59).collect::<String>())
            } else {
                format!("ok {s}")
            }
        }
        Expected::Invalid { code, .. } => format!("error {code}"),
    }
}

/// The corpus's knowledge of each case: from the embedded corpus when the digest matches, a
/// vectors directory that exists, or else nothing.
fn corpus_info(label: &str) -> (HashMap<String, CaseInfo>, String) {
    let embedded = delegateos_vectors::corpus::embedded_digest();
    let source = if corpus_digest(label) == Some(embedded.as_str()) {
        Some((
            delegateos_vectors::CorpusSource::Embedded,
            "embedded corpus".to_owned(),
        ))
    } else if corpus_digest(label).is_none() && Path::new(label).is_dir() {
        Some((
            delegateos_vectors::CorpusSource::Dir(PathBuf::from(label)),
            format!("vectors directory {label}"),
        ))
    } else {
        None
    };
    let Some((source, name)) = source else {
        return (
            HashMap::new(),
            "the reports' expected outcomes (the corpus is not this binary's)".to_owned(),
        );
    };
    let Ok(files) = source.load() else {
        return (
            HashMap::new(),
            format!("the reports' expected outcomes ({name} could not be loaded)"),
        );
    };
    let mut map = HashMap::new();
    for f in files {
        for c in f.file.cases {
            let decision = match (&c.expect, &c.ground) {
                (Expectation::Acceptable { decision, .. }, _) => Some(decision.clone()),
                (_, Ground::Decision { decision, .. }) => Some(decision.clone()),
                _ => None,
            };
            map.insert(
                c.id.clone(),
                CaseInfo {
                    decision,
                    expect: Some(c.expect),
                },
            );
        }
    }
    (map, name)
}

/// Compares loaded reports; `Err` is a usage error (different corpora).
fn compare(loaded: &[Loaded]) -> Result<Comparison, String> {
    let first = loaded.first().ok_or("nothing to compare")?;
    let corpus = first.report.vectors.clone();
    for l in &loaded[1..] {
        let same = match (corpus_digest(&corpus), corpus_digest(&l.report.vectors)) {
            (Some(a), Some(b)) => a == b,
            _ => corpus == l.report.vectors,
        };
        if !same {
            return Err(format!(
                "the reports ran different corpora, they cannot be compared side by side:\n  \
                 {} ({}): {} (digest {})\n  {} ({}): {} (digest {})",
                first.label,
                first.source,
                corpus,
                corpus_digest(&corpus).unwrap_or("none"),
                l.label,
                l.source,
                l.report.vectors,
                corpus_digest(&l.report.vectors).unwrap_or("none"),
            ));
        }
    }
    let mut notes = Vec::new();
    let (mut info, decisions_from) = corpus_info(&corpus);
    // Every case id of every report, in first-seen order, with its op.
    let mut order: Vec<(String, String)> = Vec::new();
    let mut seen = BTreeSet::new();
    let by_id: Vec<HashMap<&str, &RawCase>> = loaded
        .iter()
        .map(|l| l.report.all_cases().map(|c| (c.id.as_str(), c)).collect())
        .collect();
    for l in loaded {
        for c in l.report.all_cases() {
            if seen.insert(c.id.clone()) {
                order.push((c.id.clone(), c.op.clone()));
            }
            // Without the corpus, a report's expectation names the decision.
            if let Some(e) = &c.expected {
                let entry = info.entry(c.id.clone()).or_insert(CaseInfo {
                    decision: None,
                    expect: None,
                });
                if entry.decision.is_none() {
                    entry.decision = e.get("decision").and_then(Value::as_str).map(str::to_owned);
                }
                if entry.expect.is_none() {
                    entry.expect = serde_json::from_value(e.clone()).ok();
                }
            }
        }
    }
    let sizes: BTreeSet<usize> = by_id.iter().map(HashMap::len).collect();
    if sizes.len() > 1 || by_id.iter().any(|m| m.len() != order.len()) {
        notes.push(format!(
            "the reports ran different case sets (filters or profile): compared over the union of \
             {} cases; a case missing from a report reads not_run",
            order.len()
        ));
    }
    if decisions_from.starts_with("the reports'") {
        notes.push(
            "passed cases carry no expectation in a report: decisions are known only for the \
             cases some report lists as acceptable or failed"
                .to_owned(),
        );
    }
    if loaded.iter().any(|l| l.report.is_setup_error()) {
        notes.push("a run ended in a setup error: its report has no case".to_owned());
    }

    // Readings per case.
    let titles = decision_titles();
    let mut decisions: BTreeMap<String, DecisionRow> = BTreeMap::new();
    let mut interop_cases = Vec::new();
    let n = loaded.len();
    let mut pair_counts = vec![vec![0u64; n]; n];
    for (id, op) in &order {
        let ci = info.get(id);
        let readings: Vec<Reading> = by_id
            .iter()
            .map(|m| reading_of(m.get(id.as_str()).copied(), ci))
            .collect();
        let decision = ci.and_then(|c| c.decision.clone());
        if let Some(d) = &decision {
            let row = decisions.entry(d.clone()).or_insert_with(|| {
                let (title, read_at) = titles.get(d).cloned().unwrap_or_else(|| {
                    (
                        String::new(),
                        "spec/decisions.md (not in this binary's copy)".to_owned(),
                    )
                });
                DecisionRow {
                    decision: d.clone(),
                    title,
                    read_at,
                    cases: 0,
                    cells: vec![ReadingCell::default(); n],
                    divergent: Vec::new(),
                }
            });
            row.cases += 1;
            for (cell, r) in row.cells.iter_mut().zip(&readings) {
                cell.add(*r);
            }
            if readings
                .iter()
                .any(|r| !matches!(r, Reading::Outcome(0) | Reading::Skipped | Reading::NotRun))
            {
                let outcomes = ci
                    .and_then(|c| c.expect.as_ref())
                    .map(|e| {
                        e.outcomes()
                            .iter()
                            .enumerate()
                            .map(|(i, o)| OutcomeSummary {
                                outcome: i,
                                answer: answer_summary(o),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                row.divergent.push(DivergentCase {
                    id: id.clone(),
                    op: op.clone(),
                    outcomes,
                    readings: readings.iter().map(|r| r.name()).collect(),
                });
            }
        }
        // Interoperability: accepted answers that differ (an unknown acceptable index
        // differs from the reference but not from another unknown one).
        let accepted: Vec<Option<Option<usize>>> = readings.iter().map(|r| r.accepted()).collect();
        let mut differ = false;
        for a in 0..n {
            for b in a + 1..n {
                if let (Some(x), Some(y)) = (accepted[a], accepted[b]) {
                    let disagree = match (x, y) {
                        (Some(x), Some(y)) => x != y,
                        (None, Some(y)) | (Some(y), None) => y == 0,
                        (None, None) => false,
                    };
                    if disagree {
                        pair_counts[a][b] += 1;
                        differ = true;
                    }
                }
            }
        }
        if differ {
            interop_cases.push(InteropCase {
                id: id.clone(),
                op: op.clone(),
                decision,
                readings: accepted.iter().map(|a| a.flatten()).collect(),
            });
        }
    }
    let mut pairs = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            if pair_counts[a][b] > 0 {
                pairs.push(InteropPair {
                    a: loaded[a].label.clone(),
                    b: loaded[b].label.clone(),
                    cases: pair_counts[a][b],
                });
            }
        }
    }
    let mut decisions: Vec<DecisionRow> = decisions.into_values().collect();
    decisions.sort_by_key(|d| decision_number(&d.decision));
    let (readings, agreeing): (Vec<DecisionRow>, Vec<DecisionRow>) = decisions
        .into_iter()
        .partition(|d| d.cells.iter().any(ReadingCell::differs));

    // Operations.
    let mut ops: BTreeMap<String, Vec<OperationCell>> = BTreeMap::new();
    let blank = OperationCell {
        declared: false,
        ran: 0,
        skipped: 0,
    };
    for (i, l) in loaded.iter().enumerate() {
        for c in l.report.all_cases() {
            let cells = ops.entry(c.op.clone()).or_insert_with(|| vec![blank; n]);
            if reading_of(Some(c), None) == Reading::Skipped {
                cells[i].skipped += 1;
            } else {
                cells[i].ran += 1;
            }
        }
    }
    for (i, l) in loaded.iter().enumerate() {
        for op in &l.report.operations {
            ops.entry(op.clone()).or_insert_with(|| vec![blank; n])[i].declared = true;
        }
    }
    let operations = ops
        .into_iter()
        .map(|(op, cells)| OperationRow { op, cells })
        .collect();

    Ok(Comparison {
        schema: SCHEMA,
        corpus,
        decisions_from,
        notes,
        implementations: loaded.iter().map(overview).collect(),
        findings: findings_matrix(loaded),
        readings,
        decisions_agreeing: agreeing.into_iter().map(|d| d.decision).collect(),
        interoperability: Interop {
            pairs,
            cases: interop_cases,
        },
        operations,
    })
}

// ---------------------------------------------------------------------------------------------
// The command.

fn error(message: impl std::fmt::Display) {
    let _ = writeln!(std::io::stderr(), "delegateos-conform compare: {message}");
}

fn read_report(path: &Path) -> Result<RawReport, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let report: RawReport = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not a JSON report of `run --format json`: {e}",
            path.display()
        )
    })?;
    if report.schema != "delegateos-conform-report/1" {
        return Err(format!(
            "{} has schema {:?}, not delegateos-conform-report/1",
            path.display(),
            report.schema
        ));
    }
    Ok(report)
}

/// `NAME=VALUE` with a plain NAME (letters, digits, `.`, `_`, `-`).
fn split_name(s: &str) -> Option<(&str, &str)> {
    let (name, value) = s.split_once('=')?;
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    plain.then_some((name, value))
}

/// How `compare --impl` runs one implementation: `run` with these arguments (after the
/// program name), in this process, returning its exit code or a usage message. The command
/// line layer passes it in (`cli::run_from_args`), so this module never imports `cli`.
pub type RunWith<'a> = &'a (dyn Fn(&[String]) -> Result<i32, String> + Sync);

/// Runs `run --impl CMD --format json` through `runner`, writing the report to `path`.
fn run_one(
    runner: RunWith<'_>,
    command: &str,
    path: &Path,
    extra: &[String],
) -> Result<i32, String> {
    let mut argv: Vec<String> = vec![
        "run".into(),
        "--impl".into(),
        command.into(),
        "--format".into(),
        "json".into(),
        "--no-progress".into(),
        "--output".into(),
        path.display().to_string(),
    ];
    argv.extend(extra.iter().cloned());
    runner(&argv)
}

/// `compare`: returns the exit code.
pub fn run(args: &CompareArgs, runner: RunWith<'_>) -> i32 {
    if !args.run_args.is_empty() && args.implementations.is_empty() {
        error("arguments after `--` apply to --impl runs only");
        return ConformExitCode::USAGE;
    }
    let mut loaded = Vec::new();
    let mut interrupted = false;
    let mut not_started: Vec<String> = Vec::new();
    if let Some(old) = &args.baseline {
        match read_report(old) {
            Ok(report) => loaded.push(Loaded {
                label: report.implementation.name.clone(),
                source: old.display().to_string(),
                report,
            }),
            Err(e) => {
                error(e);
                return ConformExitCode::SETUP_ERROR;
            }
        }
    }
    for r in &args.reports {
        let (label, path) = match split_name(r) {
            Some((name, file)) if !Path::new(r).exists() => (Some(name.to_owned()), file),
            _ => (None, r.as_str()),
        };
        match read_report(Path::new(path)) {
            Ok(report) => loaded.push(Loaded {
                label: label.unwrap_or_else(|| report.implementation.name.clone()),
                source: path.to_owned(),
                report,
            }),
            Err(e) => {
                error(e);
                return ConformExitCode::SETUP_ERROR;
            }
        }
    }
    let mut impls = Vec::new();
    for i in &args.implementations {
        match split_name(i) {
            Some((name, cmd)) if !cmd.trim().is_empty() => impls.push((name, cmd)),
            _ => {
                error(format!(
                    "--impl {i:?}: expected NAME=CMD (NAME: letters, digits, `.`, `_`, `-`)"
                ));
                return ConformExitCode::USAGE;
            }
        }
    }
    if args.baseline.is_some() && loaded.len() + impls.len() != 2 {
        error("--baseline OLD.json compares with exactly one report (or one --impl NAME=CMD)");
        return ConformExitCode::USAGE;
    }
    if loaded.len() + impls.len() < 2 {
        error("give at least two implementations: JSON reports and/or --impl NAME=CMD");
        return ConformExitCode::USAGE;
    }
    let names: BTreeSet<&str> = impls.iter().map(|(n, _)| *n).collect();
    if names.len() != impls.len() {
        error("--impl names must be distinct");
        return ConformExitCode::USAGE;
    }
    if !impls.is_empty() {
        let (dir, temporary) = match &args.save_reports {
            Some(d) => (d.clone(), false),
            None => (
                std::env::temp_dir().join(format!("delegateos-compare-{}", std::process::id())),
                true,
            ),
        };
        if let Err(e) = std::fs::create_dir_all(&dir) {
            error(format!("cannot create {}: {e}", dir.display()));
            return ConformExitCode::SETUP_ERROR;
        }
        // Up to `cores` implementations at once, the cores shared among them.
        let cores = args
            .jobs
            .map_or_else(crate::runner::available_jobs, usize::from);
        let at_once = cores.min(impls.len()).max(1);
        let mut run_args = args.run_args.clone();
        if !run_args
            .iter()
            .any(|a| a == "--jobs" || a.starts_with("--jobs="))
        {
            run_args.extend(["--jobs".to_owned(), (cores / at_once).max(1).to_string()]);
        }
        let mut codes: Vec<Result<i32, String>> = Vec::new();
        for chunk in impls.chunks(at_once) {
            let chunk_codes: Vec<Result<i32, String>> = std::thread::scope(|scope| {
                let handles: Vec<_> = chunk
                    .iter()
                    .map(|(name, cmd)| {
                        let path = dir.join(format!("{name}.json"));
                        let run_args = &run_args;
                        let _ = writeln!(std::io::stderr(), "compare: running {name}: {cmd}");
                        scope.spawn(move || run_one(runner, cmd, &path, run_args))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err("internal error: a run panicked".to_owned()))
                    })
                    .collect()
            });
            let stop = chunk_codes.iter().any(|c| {
                matches!(
                    c,
                    Ok(ConformExitCode::INTERRUPTED | ConformExitCode::USAGE) | Err(_)
                )
            });
            codes.extend(chunk_codes);
            if stop {
                break;
            }
        }
        let mut result = Ok(());
        let started = codes.len();
        for ((name, cmd), code) in impls.iter().zip(codes) {
            let path = dir.join(format!("{name}.json"));
            match code {
                // An interrupted run wrote its partial report: compared as it is (issue 46).
                Ok(ConformExitCode::INTERRUPTED) => {
                    interrupted = true;
                    if let Ok(report) = read_report(&path) {
                        loaded.push(Loaded {
                            label: (*name).to_owned(),
                            source: format!("run --impl {cmd}"),
                            report,
                        });
                    }
                    continue;
                }
                Ok(ConformExitCode::USAGE) => {
                    result = Err(ConformExitCode::USAGE);
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    error(e);
                    result = Err(ConformExitCode::USAGE);
                    break;
                }
            }
            match read_report(&path) {
                Ok(report) => loaded.push(Loaded {
                    label: (*name).to_owned(),
                    source: format!("run --impl {cmd}"),
                    report,
                }),
                Err(e) => {
                    error(e);
                    result = Err(ConformExitCode::SETUP_ERROR);
                    break;
                }
            }
        }
        if temporary {
            let _ = std::fs::remove_dir_all(&dir);
        }
        if let Err(code) = result {
            return code;
        }
        if interrupted {
            not_started = impls[started..]
                .iter()
                .map(|(n, _)| (*n).to_owned())
                .collect();
        }
    }
    if interrupted || crate::runner::interrupt::interrupted().is_some() {
        return write_interrupted(args, &mut loaded, &not_started);
    }
    // A setup error of one implementation is a setup error of the comparison (issue 46): it
    // once exited 0 with a setup-error row and a note that the case sets differ.
    let setup: Vec<&Loaded> = loaded
        .iter()
        .filter(|l| l.report.is_setup_error())
        .collect();
    if !setup.is_empty() {
        for l in &setup {
            error(format!(
                "setup error: {} ({}) could not be run: {}",
                l.label,
                l.source,
                l.report.setup_reason()
            ));
        }
        error(format!(
            "no comparison written: a setup error of one implementation is a setup error of the \
             comparison (exit {})",
            ConformExitCode::SETUP_ERROR
        ));
        return ConformExitCode::SETUP_ERROR;
    }
    if args.baseline.is_some() {
        let o = over_time::compare(&loaded[0], &loaded[1]);
        if let Err(code) = write_output(args, &over_time::render(&o, args.format)) {
            return code;
        }
        let worse = !o.new.is_empty() || !o.worse.is_empty();
        return if (args.fail_on_new && !o.new.is_empty()) || (args.fail_on_worse && worse) {
            ConformExitCode::FAILURES
        } else {
            ConformExitCode::OK
        };
    }
    // Distinct labels: a repeated one gets its source appended.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for l in &loaded {
        *counts.entry(l.label.clone()).or_default() += 1;
    }
    for l in &mut loaded {
        if counts.get(&l.label).copied().unwrap_or(0) > 1 {
            l.label = format!("{} [{}]", l.label, l.source);
        }
    }
    let comparison = match compare(&loaded) {
        Ok(c) => c,
        Err(e) => {
            error(e);
            return ConformExitCode::USAGE;
        }
    };
    match write_output(args, &render(&comparison, args.format)) {
        Ok(()) => ConformExitCode::OK,
        Err(code) => code,
    }
}

/// An interrupted `compare --impl` (issue 46): says so first, then writes the comparison of the
/// partial reports the runs wrote (each lists its unfinished cases), like `run` and `fuzz`;
/// exit 130.
fn write_interrupted(args: &CompareArgs, loaded: &mut [Loaded], not_started: &[String]) -> i32 {
    let signal = crate::runner::interrupt::interrupted()
        .map(crate::runner::interrupt::signal_name)
        .or_else(|| loaded.iter().find_map(|l| l.report.interrupted.clone()))
        .unwrap_or_else(|| "a signal".to_owned());
    let partial: Vec<&str> = loaded
        .iter()
        .filter(|l| l.report.interrupted.is_some())
        .map(|l| l.label.as_str())
        .collect();
    let mut message = format!("interrupted by {signal}: ");
    if loaded.is_empty() {
        message.push_str("no run wrote a report, nothing to compare");
    } else {
        message.push_str(&format!(
            "the comparison below covers the cases each run finished{}",
            if partial.is_empty() {
                String::new()
            } else {
                format!(
                    " (partial: {}; their unfinished cases read errored)",
                    partial.join(", ")
                )
            }
        ));
    }
    if !not_started.is_empty() {
        message.push_str(&format!("; not run: {}", not_started.join(", ")));
    }
    error(&message);
    if !loaded.is_empty() {
        if args.baseline.is_some() || loaded.len() < 2 {
            // Nothing side by side: the one report is the run's own.
        } else if let Ok(mut comparison) = compare(loaded) {
            comparison.notes.insert(
                0,
                format!("{message} (exit {})", ConformExitCode::INTERRUPTED),
            );
            let _ = write_output(args, &render(&comparison, args.format));
        }
    }
    ConformExitCode::INTERRUPTED
}

/// Writes `text` to `--output` or stdout; `Err` is the exit code.
fn write_output(args: &CompareArgs, text: &str) -> Result<(), i32> {
    match &args.output {
        Some(p) => std::fs::write(p, text).map_err(|e| {
            error(format!("cannot write {}: {e}", p.display()));
            ConformExitCode::SETUP_ERROR
        }),
        None => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_is_read_from_the_label() {
        let d = "9f6688234b58ac9e0527bcd8bd3ab5a06fc449f09fab7ca533f61d6f21ef28c7";
        let label = format!("embedded delegateos-vectors 0.1.0 (64 files, blake2b-256 {d})");
        assert_eq!(corpus_digest(&label), Some(d));
        assert_eq!(corpus_digest("/some/dir"), None);
    }

    #[test]
    fn names_split_only_when_plain() {
        assert_eq!(split_name("py=python a.py"), Some(("py", "python a.py")));
        assert_eq!(
            split_name("REDTEAM_BUGS=x node a.js"),
            Some(("REDTEAM_BUGS", "x node a.js"))
        );
        assert_eq!(split_name("a b=c"), None);
        assert_eq!(split_name("=c"), None);
    }
}
