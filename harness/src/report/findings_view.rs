//! The findings as every command's report shows them (issue 50: one vocabulary): `run` and
//! `mcp` render their findings — one per root cause, most severe first, labelled `C1`, `H2`, …
//! — with these functions, in text (an index, then the detail), Markdown (a table) and HTML
//! (expandable entries).

use std::fmt::Write as _;

use super::escape::markdown_cell as cell;
use super::page::{esc, esc_code_spans};
use crate::findings::Finding;
use delegateos_vectors::format::Severity;

/// Lines of the opening screen given to the findings index before the rest is summarised
/// ("… N more"); critical and high findings are always listed.
const SCREEN_FINDINGS: usize = 30;
/// Case ids listed per finding in the detail section.
const MAX_IDS: usize = 12;
/// Diff lines of a finding's example.
const EXAMPLE_DIFF_LINES: usize = 24;

/// Writes `text` indented by `prefix`, at most `max_lines` lines (then how many more).
pub(crate) fn indent(out: &mut String, text: &str, prefix: &str, max_lines: usize) {
    let lines: Vec<&str> = text.lines().collect();
    for line in lines.iter().take(max_lines) {
        let _ = writeln!(out, "{prefix}{line}");
    }
    if lines.len() > max_lines {
        let _ = writeln!(
            out,
            "{prefix}… {} more lines (see the JSON report)",
            lines.len() - max_lines
        );
    }
}

/// `C1`, `H2`, `M3`, `L4`: a finding's label, by severity and rank.
pub fn label(f: &Finding, rank: usize) -> String {
    let letter = match f.severity {
        Severity::Critical => 'C',
        Severity::High => 'H',
        Severity::Medium => 'M',
        Severity::Low => 'L',
    };
    format!("{letter}{}", rank + 1)
}

/// One line of the findings index.
fn index_line(out: &mut String, f: &Finding, rank: usize) {
    let _ = writeln!(
        out,
        "{:<4} {:<8} {:<24} {:>4} case{} {}{} — e.g. {}",
        label(f, rank),
        f.severity.as_str().to_uppercase(),
        f.effect,
        f.cases,
        if f.cases == 1 { " " } else { "s" },
        f.title,
        if f.counted {
            ""
        } else {
            " [not counted in the exit code]"
        },
        f.example.id
    );
}

/// The findings index of a text report: a count per severity, then one line per finding
/// (`C1 CRITICAL forgery …`), every critical and high one included.
pub(crate) fn text_index(out: &mut String, findings: &[Finding], severity_model: &str) {
    if findings.is_empty() {
        return;
    }
    let [c, h, m, l] = crate::findings::tally(findings);
    let cases: usize = findings.iter().map(|f| f.cases).sum();
    let _ = writeln!(
        out,
        "Findings (one per root cause, severity by effect: {}): {c} critical, {h} high, {m} medium, {l} low — {cases} failing case(s)\n",
        severity_model
    );
    let always = c + h;
    let shown = always.max(SCREEN_FINDINGS.min(findings.len()));
    let mut ranks = Ranks::default();
    for f in findings.iter().take(shown) {
        let rank = ranks.next(f.severity);
        index_line(out, f, rank);
    }
    if findings.len() > shown {
        let _ = writeln!(
            out,
            "… {} more finding(s) of lower severity in the detail below",
            findings.len() - shown
        );
    }
}

/// Numbers findings per severity (`C1`, `C2`, `H1`, …) in report order.
#[derive(Default)]
struct Ranks([usize; 4]);

impl Ranks {
    fn next(&mut self, s: Severity) -> usize {
        let i = Severity::ORDER.iter().position(|x| *x == s).unwrap_or(3);
        let rank = self.0[i];
        self.0[i] += 1;
        rank
    }
}

/// Every finding: requirement text, smallest case with expected vs actual, fix, case ids.
pub(crate) fn text_detail(out: &mut String, findings: &[Finding]) {
    if findings.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nFindings in detail");
    let mut ranks = Ranks::default();
    for f in findings {
        let rank = ranks.next(f.severity);
        let _ = writeln!(
            out,
            "\n{} {} {} — {}  [{}]",
            label(f, rank),
            f.severity.as_str().to_uppercase(),
            f.effect,
            f.title,
            f.key
        );
        let _ = writeln!(
            out,
            "    {} case(s), {}",
            f.cases,
            if f.counted {
                "counted in the exit code"
            } else {
                "not counted in the exit code (hardening level or another code of the family)"
            }
        );
        if let Some(fault) = &f.fault {
            let _ = writeln!(out, "    diagnosis: {}", fault.summary());
        } else if f.unexplained {
            let _ = writeln!(
                out,
                "    diagnosis: no catalogued fault explains these cases (named by the severity model's rules)"
            );
        }
        for q in &f.requirements {
            let _ = writeln!(out, "    {}: {}", q.id, q.text);
        }
        let e = &f.example;
        if e.from_corpus() {
            let _ = writeln!(
                out,
                "    smallest case: {} ({}, {} input bytes) — {}",
                e.id, e.op, e.input_bytes, e.description
            );
        } else {
            let _ = writeln!(out, "    case: {} — {}", e.id, e.description);
        }
        let _ = writeln!(out, "      did: {}", e.did);
        if let Some(diff) = &e.diff {
            indent(out, diff, "      ", EXAMPLE_DIFF_LINES);
        }
        if !f.fix.is_empty() {
            let _ = writeln!(out, "    fix: {}", f.fix);
        }
        let more = f.ids.len().saturating_sub(MAX_IDS);
        let _ = writeln!(
            out,
            "    cases: {}{}",
            f.ids
                .iter()
                .take(MAX_IDS)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if more > 0 {
                format!(" … and {more} more")
            } else {
                String::new()
            }
        );
        if e.from_corpus() {
            let _ = writeln!(out, "    explain: delegateos-conform explain {}", e.id);
        }
    }
}

/// The findings of a Markdown report: one table row per finding, most severe first.
pub(crate) fn markdown_table(out: &mut String, findings: &[Finding], severity_model: &str) {
    if !findings.is_empty() {
        let _ = writeln!(
            out,
            "| severity | effect | cases | finding | smallest case | fix |\n|---|---|---:|---|---|---|"
        );
        for f in findings {
            let _ = writeln!(
                out,
                "| {}{} | {} | {} | {}{} | `{}` | {} |",
                if f.severity == Severity::Critical {
                    "🛑 "
                } else {
                    ""
                },
                f.severity.as_str(),
                f.effect,
                f.cases,
                cell(&match &f.fault {
                    Some(fault) => format!("{} (fault `{}`)", f.title, fault.id),
                    None => f.title.clone(),
                }),
                if f.counted { "" } else { " (not counted)" },
                f.example.id,
                cell(&f.fix)
            );
        }
        let _ = writeln!(
            out,
            "\nSeverity by effect: `{}`; one finding per root cause.\n",
            severity_model
        );
    }
}

/// The findings of an HTML report: one expandable entry per finding, with its requirements,
/// smallest case, diagnosis and fix.
pub(crate) fn html_section(out: &mut String, findings: &[Finding], severity_model: &str) {
    if !findings.is_empty() {
        let _ = writeln!(
            out,
            "<section id=\"findings\"><h2>Findings ({}, one per root cause; severity by effect: <code>{}</code>)</h2>",
            findings.len(),
            esc(severity_model)
        );
        for f in findings {
            let _ = write!(
                out,
                "<details class=\"finding\"><summary><span class=\"sev sev-{}\">{}</span> <strong>{}</strong> — {} ({} case(s){})</summary>",
                f.severity.as_str(),
                f.severity.as_str(),
                esc(&f.effect),
                esc_code_spans(&f.title),
                f.cases,
                if f.counted { "" } else { ", not counted in the exit code" }
            );
            out.push_str("<ul>");
            for q in &f.requirements {
                let _ = write!(
                    out,
                    "<li><code>{}</code>: {}</li>",
                    esc(&q.id),
                    esc_code_spans(&q.text)
                );
            }
            out.push_str("</ul>");
            let e = &f.example;
            let size = if e.from_corpus() {
                format!(" ({}, {} input bytes)", esc(&e.op), e.input_bytes)
            } else {
                String::new()
            };
            let _ = write!(
                out,
                "<p>{} <code>{}</code>{size}: {}<br>{}</p>",
                if e.from_corpus() {
                    "Smallest case"
                } else {
                    "Case"
                },
                esc(&e.id),
                esc(&e.description),
                esc(&e.did)
            );
            if let Some(d) = &e.diff {
                let _ = write!(out, "<pre>{}</pre>", esc(d));
            }
            if let Some(fault) = &f.fault {
                let _ = write!(
                    out,
                    "<p class=\"muted\">Diagnosis: {}</p>",
                    esc(&fault.summary())
                );
            }
            let _ = writeln!(
                out,
                "<p><strong>Fix:</strong> {}</p><p class=\"muted\">{}</p></details>",
                esc_code_spans(&f.fix),
                esc(&f.ids.join(", "))
            );
        }
        out.push_str("</section>\n");
    }
}
