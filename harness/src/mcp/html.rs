//! `mcp --format html`: the proxy suite's report as one self-contained page, on the same
//! skeleton, stylesheet and escaping as the `run` report (`crate::html_page`). It opens with
//! the verdict, then every failing, errored or stale case expanded (message, requirements, the
//! proxy's stderr tail), then the whole suite as a table.
//!
//! Everything that comes from the proxy is hostile: every string goes through [`esc`].

use std::fmt::Write as _;

use super::suite::{CaseResult, SuiteReport};
use crate::html_page::{esc, page_end, page_start};

/// Longest stderr tail shown per case (lines, from the end); the JSON report has all of it.
const MAX_STDERR_LINES: usize = 60;

/// Labels that make the verdict fail, in the order their cases are listed first.
const FINDING_LABELS: [&str; 3] = ["failed", "errored", "stale"];

/// Renders the page. `labels` gives each case's result (after the baseline), `stale` the
/// baseline entries that matched nothing, `interrupted` the signal that stopped the run.
pub fn render(
    report: &SuiteReport,
    labels: &[(String, &'static str)],
    stale: &[String],
    interrupted: Option<&str>,
) -> String {
    let label_of = |c: &CaseResult| {
        labels
            .iter()
            .find(|(id, _)| *id == c.id)
            .map_or("?", |(_, l)| *l)
    };
    let count = |l: &str| labels.iter().filter(|(_, x)| *x == l).count();
    let title = "DelegateOS MCP proxy conformance";
    let mut out = page_start(title);

    let findings = FINDING_LABELS.iter().map(|l| count(l)).sum::<usize>() + stale.len();
    let (class, word) = if findings == 0 {
        ("pass", "PASS")
    } else {
        ("fail", "FAIL")
    };
    let _ = write!(
        out,
        "<h1>{}</h1>\n<p><code>{}</code></p>\n<div id=\"verdict\" class=\"verdict {class}\">{word}: \
         <span id=\"passed\">{}</span>/<span id=\"total\">{}</span> passed, \
         <span id=\"failed\">{}</span> failed, <span id=\"errored\">{}</span> errored, \
         <span id=\"skipped\">{}</span> skipped, <span id=\"xfail\">{}</span> xfail</div>\n",
        esc(title),
        esc(&report.proxy),
        count("passed"),
        labels.len(),
        count("failed"),
        count("errored"),
        count("skipped"),
        count("xfail"),
    );
    if let Some(sig) = interrupted {
        let _ = writeln!(
            out,
            "<p class=\"critical\" id=\"interrupted\"><strong>Interrupted by {}</strong>: \
             every proxy was killed; unfinished cases are listed as errored.</p>",
            esc(sig)
        );
    }

    // Findings first, expanded.
    let _ = writeln!(out, "<h2 id=\"findings\">Findings ({findings})</h2>");
    if findings == 0 {
        out.push_str("<p>None.</p>\n");
    }
    for label in FINDING_LABELS {
        for c in report.cases.iter().filter(|c| label_of(c) == label) {
            let _ = write!(
                out,
                "<details open class=\"finding\"><summary><span class=\"sev sev-high\">{}</span> \
                 <code>{}</code> <span class=\"desc\">{}</span></summary>",
                esc(label),
                esc(&c.id),
                esc(&c.description)
            );
            let _ = write!(
                out,
                "<p>Requirements: {}</p>",
                esc(&c.requirements.join(", "))
            );
            if let Some(m) = &c.message {
                let _ = write!(out, "<pre>{}</pre>", esc(m));
            }
            if let Some(t) = &c.stderr_tail {
                let lines: Vec<&str> = t.lines().collect();
                let from = lines.len().saturating_sub(MAX_STDERR_LINES);
                let _ = write!(
                    out,
                    "<h4>Proxy stderr (last {} lines)</h4><pre>{}</pre>",
                    lines.len() - from,
                    esc(&lines[from..].join("\n"))
                );
            }
            out.push_str("</details>\n");
        }
    }
    if !stale.is_empty() {
        out.push_str("<h3>Stale baseline entries</h3><ul>");
        for s in stale {
            let _ = write!(out, "<li>{}</li>", esc(s));
        }
        out.push_str("</ul>\n");
    }

    // Every case.
    out.push_str(
        "<h2>All cases</h2>\n<table id=\"cases\"><tr><th>case</th><th>result</th>\
         <th>requirements</th><th>ms</th></tr>\n",
    );
    for c in &report.cases {
        let label = label_of(c);
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td><span class=\"s-{}\">&nbsp;</span> {}</td>\
             <td>{}</td><td class=\"n\">{:.0}</td></tr>",
            esc(&c.id),
            esc(label),
            esc(label),
            esc(&c.requirements.join(", ")),
            c.duration_ms
        );
    }
    out.push_str("</table>\n");
    out.push_str(&page_end(&format!(
        "{} {} · {:.1} s",
        esc(env!("CARGO_PKG_NAME")),
        esc(env!("CARGO_PKG_VERSION")),
        report.duration_ms / 1000.0
    )));
    out
}
