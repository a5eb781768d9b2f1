//! `compare --baseline OLD.json NEW.json`: two reports of the same implementation over time (an
//! old release and a new one, `main` and a pull request) as **new**, **fixed** and
//! **unchanged** findings, matched by finding key (one per root cause); `--fail-on-new` exits 1
//! when a finding is new, for CI regression gates.
//!
//! Reports of different corpus versions (different digests in `vectors`) are not refused: case
//! ids are stable and never reused, so the comparison states the cases added (in the new
//! report's case lists only) and removed (in the old one's only) and compares findings anyway.
//! A new finding whose cases are all added cases, or a fixed one whose cases were all removed,
//! says so (`cases_not_in_other`), so that a corpus change is not mistaken for a regression
//! or a fix.
//!
//! ## JSON (`--format json`), schema `delegateos-conform-compare-baseline/1`
//!
//! ```text
//! { "schema": "delegateos-conform-compare-baseline/1", "notes": [string],
//!   "baseline": <overview of the old report, as in delegateos-conform-compare/1,
//!                plus "vectors" and "cases">,
//!   "current":  <the same for the new report>,
//!   "corpus": { "same": bool, "baseline", "current" (the vectors labels),
//!               "cases_added": [id], "cases_removed": [id] },
//!   "new":   [ { "key", "title", "severity", "cases", "counted", "cases_not_in_other" } ],
//!   "fixed": [ { same members; severity and cases as in the baseline } ],
//!   "unchanged": [ { "key", "title", "severity", "cases", "counted",
//!                    "severity_before", "cases_before" } ] }
//! ```
//!
//! Exit codes: 0; 1 with `--fail-on-new` when `new` is not empty; 3 and 64 as `compare`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::report::page::{esc, esc_code_spans, page_end, page_start};

use super::{corpus_digest, md_table, overview, severity_rank, text_table, Loaded, Overview};

/// The `schema` of the JSON output.
pub const SCHEMA: &str = "delegateos-conform-compare-baseline/1";

/// How many case ids the text and Markdown formats list per direction.
const SHOWN_IDS: usize = 20;

/// One side (baseline or current) of the comparison.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    /// As in the side-by-side overview.
    #[serde(flatten)]
    pub overview: Overview,
    /// The report's `vectors` label.
    pub vectors: String,
    /// Cases in the report (every section).
    pub cases: usize,
}

/// The corpora of the two reports.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusChange {
    /// Same corpus (same digest, or same label without digest).
    pub same: bool,
    /// The baseline's `vectors` label.
    pub baseline: String,
    /// The current report's `vectors` label.
    pub current: String,
    /// Case ids in the current report only.
    pub cases_added: Vec<String>,
    /// Case ids in the baseline only.
    pub cases_removed: Vec<String>,
}

/// A new or fixed finding.
#[derive(Debug, Clone, Serialize)]
pub struct FindingEntry {
    /// Finding key.
    pub key: String,
    /// Title.
    pub title: String,
    /// Severity (in the report that has it).
    pub severity: String,
    /// Its cases (in the report that has it).
    pub cases: u64,
    /// Whether it counts in that run's exit code.
    pub counted: bool,
    /// Of its cases, how many the other report does not contain (new: cases added or not run
    /// in the baseline; fixed: cases removed or not run now).
    pub cases_not_in_other: u64,
}

/// A finding in both reports.
#[derive(Debug, Clone, Serialize)]
pub struct UnchangedEntry {
    /// Finding key.
    pub key: String,
    /// Title.
    pub title: String,
    /// Severity now.
    pub severity: String,
    /// Cases now.
    pub cases: u64,
    /// Counted now.
    pub counted: bool,
    /// Severity in the baseline.
    pub severity_before: String,
    /// Cases in the baseline.
    pub cases_before: u64,
}

/// The whole comparison over time (the JSON format).
#[derive(Debug, Clone, Serialize)]
pub struct OverTime {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// Caveats: different corpora, case sets or implementations.
    pub notes: Vec<String>,
    /// The old report.
    pub baseline: Side,
    /// The new report.
    pub current: Side,
    /// Corpus versions and case sets.
    pub corpus: CorpusChange,
    /// Findings only in the current report, most severe first.
    pub new: Vec<FindingEntry>,
    /// Findings only in the baseline.
    pub fixed: Vec<FindingEntry>,
    /// Findings in both.
    pub unchanged: Vec<UnchangedEntry>,
}

fn side(l: &Loaded) -> Side {
    Side {
        overview: overview(l),
        vectors: l.report.vectors.clone(),
        cases: l.report.all_cases().count(),
    }
}

fn by_severity<T>(v: &mut [T], sev: impl Fn(&T) -> (&str, &str)) {
    v.sort_by(|a, b| {
        let (sa, ka) = sev(a);
        let (sb, kb) = sev(b);
        severity_rank(sa).cmp(&severity_rank(sb)).then(ka.cmp(kb))
    });
}

/// Compares `old` (the baseline) with `new`.
pub(super) fn compare(old: &Loaded, new: &Loaded) -> OverTime {
    let ids =
        |l: &Loaded| -> BTreeSet<String> { l.report.all_cases().map(|c| c.id.clone()).collect() };
    let (old_ids, new_ids) = (ids(old), ids(new));
    let (a, b) = (&old.report.vectors, &new.report.vectors);
    let same = match (corpus_digest(a), corpus_digest(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    };
    let corpus = CorpusChange {
        same,
        baseline: a.clone(),
        current: b.clone(),
        cases_added: new_ids.difference(&old_ids).cloned().collect(),
        cases_removed: old_ids.difference(&new_ids).cloned().collect(),
    };
    let mut notes = Vec::new();
    if !same {
        notes.push(format!(
            "the reports ran different corpus versions (digest {} → {}): {} case(s) added, {} \
             removed; findings compared anyway, by finding key",
            corpus_digest(a).unwrap_or(a),
            corpus_digest(b).unwrap_or(b),
            corpus.cases_added.len(),
            corpus.cases_removed.len()
        ));
    } else if !corpus.cases_added.is_empty() || !corpus.cases_removed.is_empty() {
        notes.push(format!(
            "the reports ran different case sets of one corpus (filters or profile): {} case(s) \
             only in the current report, {} only in the baseline",
            corpus.cases_added.len(),
            corpus.cases_removed.len()
        ));
    }
    if old.report.implementation.name != new.report.implementation.name {
        notes.push(format!(
            "the reports are of different implementations ({:?} and {:?}): --baseline is meant \
             for two runs of the same one",
            old.report.implementation.name, new.report.implementation.name
        ));
    }
    for (l, role) in [(old, "baseline"), (new, "current report")] {
        if l.report.exit_code == 3 {
            notes.push(format!(
                "the {role} ended in a setup error: it has no case and no finding"
            ));
        }
        if l.report.interrupted.is_some() {
            notes.push(format!(
                "the {role} was interrupted: its findings are partial"
            ));
        }
    }

    let old_f: BTreeMap<&str, &super::RawFinding> = old
        .report
        .findings
        .iter()
        .map(|f| (f.key.as_str(), f))
        .collect();
    let new_f: BTreeMap<&str, &super::RawFinding> = new
        .report
        .findings
        .iter()
        .map(|f| (f.key.as_str(), f))
        .collect();
    let entry = |f: &super::RawFinding, other: &BTreeSet<String>| FindingEntry {
        key: f.key.clone(),
        title: f.title.clone(),
        severity: f.severity.clone(),
        cases: f.cases,
        counted: f.counted,
        cases_not_in_other: f.ids.iter().filter(|i| !other.contains(*i)).count() as u64,
    };
    let mut added: Vec<FindingEntry> = new_f
        .iter()
        .filter(|(k, _)| !old_f.contains_key(*k))
        .map(|(_, f)| entry(f, &old_ids))
        .collect();
    let mut fixed: Vec<FindingEntry> = old_f
        .iter()
        .filter(|(k, _)| !new_f.contains_key(*k))
        .map(|(_, f)| entry(f, &new_ids))
        .collect();
    let mut unchanged: Vec<UnchangedEntry> = new_f
        .iter()
        .filter_map(|(k, f)| {
            let before = old_f.get(k)?;
            Some(UnchangedEntry {
                key: f.key.clone(),
                title: f.title.clone(),
                severity: f.severity.clone(),
                cases: f.cases,
                counted: f.counted,
                severity_before: before.severity.clone(),
                cases_before: before.cases,
            })
        })
        .collect();
    by_severity(&mut added, |e| (e.severity.as_str(), e.key.as_str()));
    by_severity(&mut fixed, |e| (e.severity.as_str(), e.key.as_str()));
    by_severity(&mut unchanged, |e| (e.severity.as_str(), e.key.as_str()));
    OverTime {
        schema: SCHEMA,
        notes,
        baseline: side(old),
        current: side(new),
        corpus,
        new: added,
        fixed,
        unchanged,
    }
}

fn entry_note(e: &FindingEntry, what: &str) -> String {
    if e.cases_not_in_other == 0 {
        String::new()
    } else if e.cases_not_in_other >= e.cases {
        format!("all its cases {what}")
    } else {
        format!("{} of its cases {what}", e.cases_not_in_other)
    }
}

type Section = (String, String, Vec<Vec<String>>);

fn sections(o: &OverTime) -> Vec<Section> {
    let mut out = Vec::new();
    let mut rows = vec![[
        "",
        "report",
        "version",
        "verdict",
        "exit",
        "pass rate",
        "cases",
        "critical",
        "high",
        "medium",
        "low",
    ]
    .map(str::to_owned)
    .to_vec()];
    for (role, s) in [("baseline", &o.baseline), ("current", &o.current)] {
        let v = &s.overview;
        let mut row = vec![
            role.to_owned(),
            v.source.clone(),
            v.version.clone(),
            v.verdict.clone(),
            v.exit_code.to_string(),
            format!("{:.1}%", v.pass_rate),
            s.cases.to_string(),
        ];
        for sev in super::SEVERITIES {
            row.push(v.findings.get(sev).copied().unwrap_or(0).to_string());
        }
        rows.push(row);
    }
    out.push((
        "Overview".to_owned(),
        format!(
            "{} new, {} fixed, {} unchanged finding(s) (by finding key).",
            o.new.len(),
            o.fixed.len(),
            o.unchanged.len()
        ),
        rows,
    ));
    for (title, list, what, intro) in [
        (
            "New findings",
            &o.new,
            "are not in the baseline",
            "finding(s) in the current report only.",
        ),
        (
            "Fixed findings",
            &o.fixed,
            "are not in the current report",
            "finding(s) in the baseline only.",
        ),
    ] {
        let mut rows = vec![["finding", "severity", "cases", "title", "note"]
            .map(str::to_owned)
            .to_vec()];
        for e in list {
            rows.push(vec![
                e.key.clone(),
                e.severity.clone(),
                e.cases.to_string(),
                e.title.clone(),
                entry_note(e, what),
            ]);
        }
        out.push((title.to_owned(), format!("{} {intro}", list.len()), rows));
    }
    let mut rows = vec![["finding", "severity", "cases", "before"]
        .map(str::to_owned)
        .to_vec()];
    for e in &o.unchanged {
        let before = if e.severity_before == e.severity && e.cases_before == e.cases {
            "same".to_owned()
        } else {
            format!("{} ×{}", e.severity_before, e.cases_before)
        };
        rows.push(vec![
            e.key.clone(),
            e.severity.clone(),
            e.cases.to_string(),
            before,
        ]);
    }
    out.push((
        "Unchanged findings".to_owned(),
        format!("{} finding(s) in both reports.", o.unchanged.len()),
        rows,
    ));
    let c = &o.corpus;
    let mut rows = vec![["change", "cases", "ids"].map(str::to_owned).to_vec()];
    for (what, ids) in [("added", &c.cases_added), ("removed", &c.cases_removed)] {
        let mut shown: Vec<String> = ids.iter().take(SHOWN_IDS).cloned().collect();
        if ids.len() > SHOWN_IDS {
            shown.push(format!("… {} more", ids.len() - SHOWN_IDS));
        }
        rows.push(vec![
            what.to_owned(),
            ids.len().to_string(),
            shown.join(", "),
        ]);
    }
    out.push((
        "Cases".to_owned(),
        if c.same {
            format!("One corpus: {}.", c.current)
        } else {
            format!(
                "Corpus versions: baseline {}, current {} (all ids in --format json).",
                c.baseline, c.current
            )
        },
        rows,
    ));
    out
}

/// The comparison over time in `format`.
pub fn render(o: &OverTime, format: super::CompareFormat) -> String {
    use super::CompareFormat;
    let title = format!(
        "DelegateOS conformance over time: {} new, {} fixed, {} unchanged finding(s)",
        o.new.len(),
        o.fixed.len(),
        o.unchanged.len()
    );
    match format {
        CompareFormat::Json => {
            let mut s = serde_json::to_string_pretty(o).unwrap_or_default();
            s.push('\n');
            s
        }
        CompareFormat::Text => {
            let mut out = format!(
                "{title}\nbaseline: {}\ncurrent:  {}\n",
                o.baseline.overview.source, o.current.overview.source
            );
            for n in &o.notes {
                out.push_str(&format!("note: {n}\n"));
            }
            for (t, intro, rows) in sections(o) {
                out.push_str(&format!("\n{t}\n{intro}\n\n"));
                if rows.len() > 1 {
                    out.push_str(&text_table(&rows));
                }
            }
            out
        }
        CompareFormat::Markdown => {
            let mut out = format!(
                "# {title}\n\nBaseline `{}`, current `{}`.\n",
                o.baseline.overview.source.replace('`', "'"),
                o.current.overview.source.replace('`', "'")
            );
            for n in &o.notes {
                out.push_str(&format!("\n> Note: {n}\n"));
            }
            for (t, intro, rows) in sections(o) {
                out.push_str(&format!("\n## {t}\n\n{intro}\n\n"));
                if rows.len() > 1 {
                    out.push_str(&md_table(&rows));
                }
            }
            out
        }
        CompareFormat::Html => html(o, &title),
    }
}

fn sev_badge(s: &str) -> String {
    format!("<span class=\"sev sev-{0}\">{0}</span>", esc(s))
}

fn html(o: &OverTime, title: &str) -> String {
    let mut h = page_start(title);
    h.push_str(&format!("<h1>{}</h1>\n", esc(title)));
    let class = if o.new.is_empty() { "pass" } else { "fail" };
    h.push_str(&format!(
        "<section id=\"overview\"><div class=\"verdict {class}\"><span id=\"new-count\">{}</span> \
         new, <span id=\"fixed-count\">{}</span> fixed, <span id=\"unchanged-count\">{}</span> \
         unchanged finding(s)</div>\n",
        o.new.len(),
        o.fixed.len(),
        o.unchanged.len()
    ));
    for n in &o.notes {
        h.push_str(&format!("<p class=\"critical\">Note: {}</p>\n", esc(n)));
    }
    h.push_str(
        "<table><tr><th></th><th>report</th><th>implementation</th><th>verdict</th>\
         <th>pass rate</th><th>cases</th><th>critical</th><th>high</th><th>medium</th>\
         <th>low</th></tr>\n",
    );
    for (role, s) in [("baseline", &o.baseline), ("current", &o.current)] {
        let v = &s.overview;
        h.push_str(&format!(
            "<tr><td>{role}</td><td><code>{}</code></td><td>{} {}</td><td>{}</td>\
             <td class=\"n\">{:.1}%</td><td class=\"n\">{}</td>",
            esc(&v.source),
            esc(&v.name),
            esc(&v.version),
            esc(&v.verdict),
            v.pass_rate,
            s.cases
        ));
        for sev in super::SEVERITIES {
            h.push_str(&format!(
                "<td class=\"n\">{}</td>",
                v.findings.get(sev).copied().unwrap_or(0)
            ));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table></section>\n");
    for (id, t, list, what) in [
        ("new", "New findings", &o.new, "are not in the baseline"),
        (
            "fixed",
            "Fixed findings",
            &o.fixed,
            "are not in the current report",
        ),
    ] {
        h.push_str(&format!(
            "<section id=\"{id}\"><h2>{t} ({})</h2>\n",
            list.len()
        ));
        if list.is_empty() {
            h.push_str("<p class=\"muted\">None.</p>");
        } else {
            h.push_str(
                "<table><tr><th>finding</th><th>severity</th><th>cases</th><th>title</th>\
                 <th>note</th></tr>\n",
            );
            for e in list {
                h.push_str(&format!(
                    "<tr><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td>\
                     <td>{}</td><td class=\"muted\">{}</td></tr>\n",
                    esc(&e.key),
                    sev_badge(&e.severity),
                    e.cases,
                    esc_code_spans(&e.title),
                    esc(&entry_note(e, what))
                ));
            }
            h.push_str("</table>");
        }
        h.push_str("</section>\n");
    }
    h.push_str(&format!(
        "<section id=\"unchanged\"><h2>Unchanged findings ({})</h2>\n",
        o.unchanged.len()
    ));
    if !o.unchanged.is_empty() {
        h.push_str(
            "<table><tr><th>finding</th><th>severity</th><th>cases</th><th>before</th></tr>\n",
        );
        for e in &o.unchanged {
            h.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td>{} ×{}</td>\
                 </tr>\n",
                esc(&e.key),
                sev_badge(&e.severity),
                e.cases,
                esc(&e.severity_before),
                e.cases_before
            ));
        }
        h.push_str("</table>");
    }
    h.push_str("</section>\n<section id=\"cases\"><h2>Cases</h2>\n");
    let c = &o.corpus;
    h.push_str(&format!(
        "<p>Baseline corpus <code>{}</code>; current <code>{}</code>.</p>\n",
        esc(&c.baseline),
        esc(&c.current)
    ));
    for (what, ids) in [("added", &c.cases_added), ("removed", &c.cases_removed)] {
        h.push_str(&format!(
            "<details><summary>{} case(s) {what}</summary><p>{}</p></details>\n",
            ids.len(),
            esc(&ids.join(", "))
        ));
    }
    h.push_str("</section>\n");
    h.push_str(&page_end(&format!(
        "delegateos-conform compare --baseline · schema {SCHEMA}"
    )));
    h
}
