//! Rendering of `compare --baseline` (see `crate::compare::over_time`, which computes it):
//! the model, as `--format json` writes it (schema `delegateos-conform-compare-baseline/1`),
//! and its text, Markdown and HTML forms.

use serde::Serialize;

use crate::report::page::{esc, esc_code_spans, page_end, page_start};

use super::{md_table, text_table, Overview};

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

/// A finding in both reports that got worse: its severity rose, or its cases grew (among the
/// cases both reports ran).
#[derive(Debug, Clone, Serialize)]
pub struct WorseEntry {
    /// The finding, as an unchanged one is shown.
    #[serde(flatten)]
    pub entry: UnchangedEntry,
    /// What got worse, e.g. `cases grew from 4 to 34`.
    pub why: Vec<String>,
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
    /// Findings in both that got worse (severity rose, or cases grew), most severe first.
    pub worse: Vec<WorseEntry>,
    /// Findings in both, no worse.
    pub unchanged: Vec<UnchangedEntry>,
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
            "{} new, {} worse, {} fixed, {} unchanged finding(s) (by finding key).",
            o.new.len(),
            o.worse.len(),
            o.fixed.len(),
            o.unchanged.len()
        ),
        rows,
    ));
    let mut rows = vec![["finding", "severity", "cases", "before", "why"]
        .map(str::to_owned)
        .to_vec()];
    for w in &o.worse {
        let e = &w.entry;
        rows.push(vec![
            e.key.clone(),
            e.severity.clone(),
            e.cases.to_string(),
            format!("{} ×{}", e.severity_before, e.cases_before),
            w.why.join("; "),
        ]);
    }
    out.push((
        "Worse findings".to_owned(),
        format!(
            "{} finding(s) in both reports whose severity rose or whose cases grew.",
            o.worse.len()
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
pub fn render(o: &OverTime, format: super::Format) -> String {
    use crate::report::Format;
    let title = format!(
        "DelegateOS conformance over time: {} new, {} worse, {} fixed, {} unchanged finding(s)",
        o.new.len(),
        o.worse.len(),
        o.fixed.len(),
        o.unchanged.len()
    );
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(o).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Text | Format::Junit | Format::Badge => {
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
        Format::Markdown => {
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
        Format::Html => html(o, &title),
    }
}

fn sev_badge(s: &str) -> String {
    format!("<span class=\"sev sev-{0}\">{0}</span>", esc(s))
}

fn html(o: &OverTime, title: &str) -> String {
    let mut h = page_start(title);
    h.push_str(&format!("<h1>{}</h1>\n", esc(title)));
    let class = if o.new.is_empty() && o.worse.is_empty() {
        "pass"
    } else {
        "fail"
    };
    h.push_str(&format!(
        "<section id=\"overview\"><div class=\"verdict {class}\"><span id=\"new-count\">{}</span> \
         new, <span id=\"worse-count\">{}</span> worse, <span id=\"fixed-count\">{}</span> \
         fixed, <span id=\"unchanged-count\">{}</span> unchanged finding(s)</div>\n",
        o.new.len(),
        o.worse.len(),
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
        "<section id=\"worse\"><h2>Worse findings ({})</h2>\n",
        o.worse.len()
    ));
    if o.worse.is_empty() {
        h.push_str("<p class=\"muted\">None.</p>");
    } else {
        h.push_str(
            "<table><tr><th>finding</th><th>severity</th><th>cases</th><th>before</th>\
             <th>why</th></tr>\n",
        );
        for w in &o.worse {
            let e = &w.entry;
            h.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{}</td><td class=\"n\">{}</td><td>{} ×{}</td>\
                 <td>{}</td></tr>\n",
                esc(&e.key),
                sev_badge(&e.severity),
                e.cases,
                esc(&e.severity_before),
                e.cases_before,
                esc(&w.why.join("; "))
            ));
        }
        h.push_str("</table>");
    }
    h.push_str("</section>\n");
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
