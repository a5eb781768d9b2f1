//! Rendering of `compare` (issue 40): the comparison's model, as `compare` builds it and
//! `--format json` writes it (schema `delegateos-conform-compare/1`, documented in
//! `crate::compare`), and its text, Markdown and HTML ([`html`]) forms; the over-time form is
//! [`over_time`]. `compare` itself reads reports, runs implementations and computes; it
//! writes no text.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::report::escape::markdown_cell as md_cell;

pub mod html;
pub mod over_time;

/// The `schema` of the JSON comparison.
pub const SCHEMA: &str = "delegateos-conform-compare/1";

/// Severities, critical first.
pub(crate) const SEVERITIES: [&str; 4] = ["critical", "high", "medium", "low"];

/// How many divergent cases the text and Markdown formats show per decision or pair.
const SHOWN: usize = 5;

/// The formats of `compare` are the one set ([`super::Format`], [`super::format::COMPARE`]):
/// text, Markdown, JSON and HTML (a comparison is not one verdict: no JUnit, no badge).
pub use super::Format;

// ---------------------------------------------------------------------------------------------
// The model.

/// Counts per status of a report (`$defs/counts`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    /// Cases.
    pub total: u64,
    /// Passed (the reference reading).
    pub passed: u64,
    /// Failed.
    pub failed: u64,
    /// Skipped.
    pub skipped: u64,
    /// Another accepted reading.
    pub acceptable: u64,
    /// Expected failures.
    pub xfail: u64,
    /// Listed as expected failures but passed.
    pub stale: u64,
    /// Errored.
    pub errored: u64,
    /// Rejected with another code of the family.
    pub other_code: u64,
}

/// One implementation in the overview.
#[derive(Debug, Clone, Serialize)]
pub struct Overview {
    /// The column label.
    pub label: String,
    /// `implementation.name` of its report.
    pub name: String,
    /// `implementation.version`.
    pub version: String,
    /// `implementation.language`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The report file, or `run --impl CMD`.
    pub source: String,
    /// PASSED, FAILED, STALE BASELINE, SETUP ERROR or INTERRUPTED.
    pub verdict: String,
    /// The run's exit code (from its report).
    pub exit_code: i32,
    /// The signal that interrupted the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// The report's `totals` (normative and decision cases).
    pub totals: Counts,
    /// The report's `hardening.totals`.
    pub hardening_totals: Counts,
    /// Counted cases: total − skipped.
    pub counted: u64,
    /// passed + acceptable.
    pub counted_passed: u64,
    /// 100 × counted_passed / counted (0 when nothing was counted), one decimal.
    pub pass_rate: f64,
    /// Operations of the counted cases with a case not skipped: `run`'s `N of M operations`
    /// (issue 46: compare once said `1/37` where `run` said `1 of 36`).
    pub operations_run: u64,
    /// Operations of the counted cases (normative and decision): the M of `N of M operations`.
    pub operations_total: u64,
    /// The options it declared in `hello.options` (issue 49).
    pub options: Vec<String>,
    /// Number of findings (root causes) per severity.
    pub findings: BTreeMap<String, u64>,
    /// Cases of those findings per severity.
    pub finding_cases: BTreeMap<String, u64>,
}

/// One implementation's finding in the matrix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindingCell {
    /// Its severity in that implementation.
    pub severity: String,
    /// Its case count.
    pub cases: u64,
    /// Whether it counts in that run's exit code.
    pub counted: bool,
}

/// A row of the findings matrix.
#[derive(Debug, Clone, Serialize)]
pub struct FindingRow {
    /// The finding key (one per root cause).
    pub key: String,
    /// Its title (from the first report that has it).
    pub title: String,
    /// The highest severity it has anywhere.
    pub severity: String,
    /// One cell per implementation, `null` where it was not found.
    pub cells: Vec<Option<FindingCell>>,
}

/// The reading of one case by one implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reading {
    /// Outcome N of the case's accepted outcomes (0: the reference reading).
    Outcome(usize),
    /// `acceptable`, but which outcome is unknown (no expectation or no actual).
    Acceptable,
    /// Failed or errored: none of the accepted outcomes.
    None,
    /// Rejected with another code of the expected code's family.
    OtherCode,
    /// Skipped by the adapter.
    Skipped,
    /// Not in the report.
    NotRun,
}

impl Reading {
    /// The name used in every format: `reference` for the first accepted outcome, `reading N`
    /// for accepted outcome N (the one notation of issue 46, also in [`reading_name`]).
    pub fn name(self) -> String {
        match self {
            Self::Outcome(n) => reading_name(n),
            Self::Acceptable => "acceptable".to_owned(),
            Self::None => "none".to_owned(),
            Self::OtherCode => "other_code".to_owned(),
            Self::Skipped => "skipped".to_owned(),
            Self::NotRun => "not_run".to_owned(),
        }
    }

    /// An accepted answer: reference, another outcome, or acceptable.
    pub(crate) fn accepted(self) -> Option<Option<usize>> {
        match self {
            Self::Outcome(n) => Some(Some(n)),
            Self::Acceptable => Some(None),
            _ => None,
        }
    }
}

/// Accepted outcome `n` of a case as every format names it: `reference` (0, the reference's
/// reading, the first listed) or `reading N`.
pub fn reading_name(n: usize) -> String {
    if n == 0 {
        "reference".to_owned()
    } else {
        format!("reading {n}")
    }
}

/// What the readings map says each name means (the legend of every human format).
pub(crate) const READINGS_LEGEND: &str = "reference = the first accepted outcome (the \
    reference's reading), reading N = accepted outcome N of the case, acceptable = an accepted \
    outcome not known, none = failed or errored, other code = rejected with another code of the \
    family";

/// Where a decision is explained, for a reader with no source tree (issue 46).
pub(crate) const DECISIONS_WHERE: &str = "spec/decisions.md explains each decision under its \
    heading (in a source checkout; with an installed binary, `delegateos-conform vectors export \
    DIR` writes it to DIR/spec/decisions.md)";

/// One alternative outcome's count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Alternative {
    /// Index in the case's outcomes (≥ 1).
    pub outcome: usize,
    /// Cases.
    pub cases: u64,
}

/// What one implementation did on one decision's cases.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ReadingCell {
    /// Cases answered with the reference reading.
    pub reference: u64,
    /// Cases answered with another accepted outcome, per outcome index.
    pub alternatives: Vec<Alternative>,
    /// Cases `acceptable` whose outcome index is unknown.
    pub acceptable_unknown: u64,
    /// Failed or errored cases.
    pub none: u64,
    /// Rejected with another code of the family.
    pub other_code: u64,
    /// Skipped.
    pub skipped: u64,
    /// Not in the report.
    pub not_run: u64,
}

impl ReadingCell {
    pub(crate) fn add(&mut self, r: Reading) {
        match r {
            Reading::Outcome(0) => self.reference += 1,
            Reading::Outcome(n) => match self.alternatives.iter_mut().find(|a| a.outcome == n) {
                Some(a) => a.cases += 1,
                None => {
                    self.alternatives.push(Alternative {
                        outcome: n,
                        cases: 1,
                    });
                    self.alternatives.sort_by_key(|a| a.outcome);
                }
            },
            Reading::Acceptable => self.acceptable_unknown += 1,
            Reading::None => self.none += 1,
            Reading::OtherCode => self.other_code += 1,
            Reading::Skipped => self.skipped += 1,
            Reading::NotRun => self.not_run += 1,
        }
    }

    /// Whether any executed case departs from the reference reading.
    pub fn differs(&self) -> bool {
        !self.alternatives.is_empty()
            || self.acceptable_unknown > 0
            || self.none > 0
            || self.other_code > 0
    }

    /// The cell's parts, count first: `61 reference`, `29 reading 1`, `12 none`.
    pub(crate) fn parts(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if self.reference > 0 {
            parts.push(format!("{} {}", self.reference, reading_name(0)));
        }
        for a in &self.alternatives {
            parts.push(format!("{} {}", a.cases, reading_name(a.outcome)));
        }
        for (n, name) in [
            (self.acceptable_unknown, "acceptable"),
            (self.none, "none"),
            (self.other_code, "other code"),
            (self.skipped, "skipped"),
            (self.not_run, "not run"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {name}"));
            }
        }
        parts
    }

    pub(crate) fn summary(&self) -> String {
        let parts = self.parts();
        if parts.is_empty() {
            "-".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// One accepted outcome of a case, summarized.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeSummary {
    /// Its index (0: the reference reading).
    pub outcome: usize,
    /// `ok {…}` or `error CODE`.
    pub answer: String,
}

/// A case of a decision some implementation reads differently from the reference.
#[derive(Debug, Clone, Serialize)]
pub struct DivergentCase {
    /// Case id.
    pub id: String,
    /// Operation.
    pub op: String,
    /// The accepted outcomes.
    pub outcomes: Vec<OutcomeSummary>,
    /// One reading per implementation.
    pub readings: Vec<String>,
}

/// A row of the readings map.
#[derive(Debug, Clone, Serialize)]
pub struct DecisionRow {
    /// `Dn`.
    pub decision: String,
    /// Its title in `spec/decisions.md` (`Time`; empty when this binary's copy lacks it).
    pub title: String,
    /// Where to read it: its heading in `spec/decisions.md`.
    pub read_at: String,
    /// Cases of the decision in the compared reports.
    pub cases: u64,
    /// One cell per implementation.
    pub cells: Vec<ReadingCell>,
    /// The cases where some implementation did not take the reference reading.
    pub divergent: Vec<DivergentCase>,
}

/// Two implementations that both pass a case with different outcomes: how many cases.
#[derive(Debug, Clone, Serialize)]
pub struct InteropPair {
    /// First implementation's label.
    pub a: String,
    /// Second implementation's label.
    pub b: String,
    /// Cases both pass with different outcomes.
    pub cases: u64,
}

/// A case two implementations pass with different outcomes.
#[derive(Debug, Clone, Serialize)]
pub struct InteropCase {
    /// Case id.
    pub id: String,
    /// Operation.
    pub op: String,
    /// Its decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<String>,
    /// Per implementation: the accepted outcome index it gave, `null` if it did not pass.
    pub readings: Vec<Option<usize>>,
}

/// Interoperability: accepted answers that differ.
#[derive(Debug, Clone, Serialize)]
pub struct Interop {
    /// Per pair of implementations with at least one such case.
    pub pairs: Vec<InteropPair>,
    /// The cases.
    pub cases: Vec<InteropCase>,
}

/// One implementation and one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OperationCell {
    /// Declared in its `hello`.
    pub declared: bool,
    /// Cases of the op it ran (not skipped).
    pub ran: u64,
    /// Cases of the op it skipped.
    pub skipped: u64,
}

/// A row of the operations table.
#[derive(Debug, Clone, Serialize)]
pub struct OperationRow {
    /// Operation name.
    pub op: String,
    /// One cell per implementation.
    pub cells: Vec<OperationCell>,
}

/// The whole comparison (the JSON format).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The corpus every report ran.
    pub corpus: String,
    /// Where decisions and accepted outcomes come from.
    pub decisions_from: String,
    /// Caveats (different filters, unknown decisions…).
    pub notes: Vec<String>,
    /// Overview, one per implementation, in the command line's order.
    pub implementations: Vec<Overview>,
    /// The findings matrix, most severe first.
    pub findings: Vec<FindingRow>,
    /// The readings map: decisions at least one implementation reads differently.
    pub readings: Vec<DecisionRow>,
    /// Decisions every implementation reads the reference way on every case it ran.
    pub decisions_agreeing: Vec<String>,
    /// Interoperability.
    pub interoperability: Interop,
    /// Operations supported.
    pub operations: Vec<OperationRow>,
}

/// The rank of a severity name, critical first (unknown names last).
pub(crate) fn severity_rank(s: &str) -> usize {
    SEVERITIES
        .iter()
        .position(|x| *x == s)
        .unwrap_or(SEVERITIES.len())
}

/// `D12` sorts as 12 (then by name), after every numbered decision otherwise.
pub(crate) fn decision_number(d: &str) -> (u64, String) {
    (
        d.trim_start_matches('D').parse().unwrap_or(u64::MAX),
        d.to_owned(),
    )
}

// ---------------------------------------------------------------------------------------------
// Rendering.

/// A plain-text table: the first row is the header.
pub(crate) fn text_table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (n, r) in rows.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        out.push_str("  ");
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if n == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str("  ");
            out.push_str(&rule.join("  "));
            out.push('\n');
        }
    }
    out
}

pub(crate) fn md_table(rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    for (n, r) in rows.iter().enumerate() {
        let cells: Vec<String> = r.iter().map(|c| md_cell(c)).collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
        if n == 0 {
            out.push_str(&format!("|{}\n", "---|".repeat(r.len())));
        }
    }
    out
}

/// The tables every human format shows, as (title, intro, rows) with rows[0] the header.
fn sections(c: &Comparison) -> Vec<(String, String, Vec<Vec<String>>)> {
    let labels: Vec<String> = c.implementations.iter().map(|o| o.label.clone()).collect();
    let mut out = Vec::new();

    let mut rows = vec![[
        "implementation",
        "version",
        "verdict",
        "exit",
        "pass rate",
        "passed/counted",
        "acceptable",
        "failed",
        "errored",
        "skipped",
        "operations",
        "options",
        "critical",
        "high",
        "medium",
        "low",
    ]
    .map(str::to_owned)
    .to_vec()];
    for o in &c.implementations {
        let mut row = vec![
            o.label.clone(),
            o.version.clone(),
            o.verdict.clone(),
            o.exit_code.to_string(),
            format!("{:.1}%", o.pass_rate),
            format!("{}/{}", o.counted_passed, o.counted),
            o.totals.acceptable.to_string(),
            o.totals.failed.to_string(),
            o.totals.errored.to_string(),
            o.totals.skipped.to_string(),
            operations_phrase(o),
            options_phrase(o),
        ];
        for s in SEVERITIES {
            let n = o.findings.get(s).copied().unwrap_or(0);
            let k = o.finding_cases.get(s).copied().unwrap_or(0);
            row.push(findings_cell(n, k));
        }
        rows.push(row);
    }
    out.push((
        "Overview".to_owned(),
        "Per implementation: the verdict and exit code of its run, the counted pass rate \
         (passed + acceptable over the cases not skipped), the operations it ran (as `run` \
         counts them: of the counted cases' operations, those with a case not skipped), the \
         options it declared in hello, and its findings per severity (root causes, with their \
         cases)."
            .to_owned(),
        rows,
    ));

    let mut rows = vec![["finding", "severity"]
        .map(str::to_owned)
        .into_iter()
        .chain(labels.iter().cloned())
        .collect::<Vec<_>>()];
    for f in &c.findings {
        let mut row = vec![f.key.clone(), f.severity.clone()];
        for cell in &f.cells {
            row.push(match cell {
                Some(x) => format!(
                    "{} ×{}{}",
                    x.severity,
                    x.cases,
                    if x.counted { "" } else { " (not counted)" }
                ),
                None => "-".to_owned(),
            });
        }
        rows.push(row);
    }
    out.push((
        "Findings matrix".to_owned(),
        format!(
            "{} finding(s), one per root cause: severity and number of cases in each \
             implementation.",
            c.findings.len()
        ),
        rows,
    ));

    let mut rows = vec![["decision", "title", "cases"]
        .map(str::to_owned)
        .into_iter()
        .chain(labels.iter().cloned())
        .collect::<Vec<_>>()];
    for d in &c.readings {
        let mut row = vec![d.decision.clone(), d.title.clone(), d.cases.to_string()];
        row.extend(d.cells.iter().map(ReadingCell::summary));
        rows.push(row);
    }
    out.push((
        "Readings map".to_owned(),
        format!(
            "{} decision(s) read differently from the reference by at least one implementation \
             ({READINGS_LEGEND}); {DECISIONS_WHERE}. {} decision(s) read the reference way by \
             all: {}.",
            c.readings.len(),
            c.decisions_agreeing.len(),
            if c.decisions_agreeing.is_empty() {
                "-".to_owned()
            } else {
                c.decisions_agreeing.join(", ")
            }
        ),
        rows,
    ));

    let mut rows = vec![["decision", "case", "accepted outcomes"]
        .map(str::to_owned)
        .into_iter()
        .chain(labels.iter().cloned())
        .collect::<Vec<_>>()];
    for d in &c.readings {
        for case in d.divergent.iter().take(SHOWN) {
            let outcomes: Vec<String> = case
                .outcomes
                .iter()
                .map(|o| format!("{}: {}", reading_name(o.outcome), o.answer))
                .collect();
            let mut row = vec![d.decision.clone(), case.id.clone(), outcomes.join("; ")];
            row.extend(case.readings.iter().cloned());
            rows.push(row);
        }
        if d.divergent.len() > SHOWN {
            rows.push(vec![
                d.decision.clone(),
                format!("… {} more", d.divergent.len() - SHOWN),
            ]);
        }
    }
    out.push((
        "Readings map: cases".to_owned(),
        format!(
            "The first {SHOWN} cases of each decision where an implementation departs from the \
             reference reading (all of them in --format json)."
        ),
        rows,
    ));

    let mut rows = vec![
        ["implementations", "cases both pass with different outcomes"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for p in &c.interoperability.pairs {
        rows.push(vec![format!("{} ↔ {}", p.a, p.b), p.cases.to_string()]);
    }
    let mut by_decision: BTreeMap<(u64, String), Vec<&InteropCase>> = BTreeMap::new();
    for ic in &c.interoperability.cases {
        by_decision
            .entry(decision_number(ic.decision.as_deref().unwrap_or("(none)")))
            .or_default()
            .push(ic);
    }
    out.push((
        "Interoperability".to_owned(),
        format!(
            "{} case(s) where two implementations both pass (passed or acceptable) with \
             different accepted outcomes: they will disagree in production although both \
             conform.",
            c.interoperability.cases.len()
        ),
        rows,
    ));
    let mut rows = vec![["decision", "case"]
        .map(str::to_owned)
        .into_iter()
        .chain(labels.iter().cloned())
        .collect::<Vec<_>>()];
    for ((_, d), cases) in &by_decision {
        for ic in cases.iter().take(SHOWN) {
            let mut row = vec![d.clone(), ic.id.clone()];
            row.extend(ic.readings.iter().map(|r| match r {
                Some(n) => reading_name(*n),
                None => "-".to_owned(),
            }));
            rows.push(row);
        }
        if cases.len() > SHOWN {
            rows.push(vec![d.clone(), format!("… {} more", cases.len() - SHOWN)]);
        }
    }
    if rows.len() > 1 {
        out.push((
            "Interoperability: cases".to_owned(),
            format!(
                "The first {SHOWN} per decision (- = did not pass; an acceptable case whose \
                 outcome is unknown shows - as well)."
            ),
            rows,
        ));
    }

    let mut rows = vec![["operation"]
        .map(str::to_owned)
        .into_iter()
        .chain(labels.iter().cloned())
        .collect::<Vec<_>>()];
    for o in &c.operations {
        let mut row = vec![o.op.clone()];
        row.extend(o.cells.iter().map(|x| {
            let mut s = if x.declared { "yes" } else { "no" }.to_owned();
            if x.ran > 0 || x.skipped > 0 {
                s.push_str(&format!(" ({} ran", x.ran));
                if x.skipped > 0 {
                    s.push_str(&format!(", {} skipped", x.skipped));
                }
                s.push(')');
            }
            s
        }));
        rows.push(row);
    }
    out.push((
        "Operations supported".to_owned(),
        format!(
            "Declared in hello (cases run and skipped). Operations run, as `run` counts them: \
             {}.",
            operations_summary(c)
        ),
        rows,
    ));
    out
}

/// The comparison in `format` (one of [`super::format::COMPARE`]; the command line takes no
/// other, and any other is rendered as text).
pub fn render(c: &Comparison, format: Format) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(c).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Html => html::page(c),
        Format::Text | Format::Junit | Format::Badge => {
            let mut out = format!(
                "DelegateOS conformance: {} implementations compared\ncorpus: {}\ndecisions \
                 from: {}\n",
                c.implementations.len(),
                c.corpus,
                c.decisions_from
            );
            for n in &c.notes {
                out.push_str(&format!("note: {n}\n"));
            }
            for (title, intro, rows) in sections(c) {
                out.push_str(&format!("\n{title}\n{intro}\n\n"));
                out.push_str(&text_table(&rows));
            }
            out
        }
        Format::Markdown => {
            let mut out = format!(
                "# DelegateOS conformance: {} implementations compared\n\nCorpus: `{}`; \
                 decisions from {}.\n",
                c.implementations.len(),
                c.corpus.replace('`', "'"),
                c.decisions_from
            );
            for n in &c.notes {
                out.push_str(&format!("\n> Note: {n}\n"));
            }
            for (title, intro, rows) in sections(c) {
                out.push_str(&format!("\n## {title}\n\n{intro}\n\n"));
                if rows.len() > 1 {
                    out.push_str(&md_table(&rows));
                }
            }
            out
        }
    }
}

/// `1 of 36 operations`, `run`'s words and numbers (issue 46).
pub(crate) fn operations_phrase(o: &Overview) -> String {
    format!("{} of {} operations", o.operations_run, o.operations_total)
}

/// `strict-mode, per-tool-spend`, or `none`.
pub(crate) fn options_phrase(o: &Overview) -> String {
    if o.options.is_empty() {
        "none".to_owned()
    } else {
        o.options.join(", ")
    }
}

/// `a 1 of 36 operations, ref 36 of 36 operations`.
pub(crate) fn operations_summary(c: &Comparison) -> String {
    c.implementations
        .iter()
        .map(|o| format!("{} {}", o.label, operations_phrase(o)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An overview cell: `n` findings of `k` cases (`1 (1 case)`, not `1 (1 cases)`: issue 46).
fn findings_cell(n: u64, k: u64) -> String {
    match (n, k) {
        (0, _) => "0".to_owned(),
        (n, 1) => format!("{n} (1 case)"),
        (n, k) => format!("{n} ({k} cases)"),
    }
}

#[cfg(test)]
mod cell_tests {
    #[test]
    fn one_case_is_singular() {
        assert_eq!(super::findings_cell(0, 0), "0");
        assert_eq!(super::findings_cell(1, 1), "1 (1 case)");
        assert_eq!(super::findings_cell(2, 7), "2 (7 cases)");
    }
}
