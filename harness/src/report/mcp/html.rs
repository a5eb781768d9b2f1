//! `mcp --format html`: the proxy suite's report as one self-contained page, on the same
//! skeleton, stylesheet and escaping as the `run` report ([`crate::report::page`]). It opens with
//! the verdict, then every failing, errored or stale case expanded (message, requirements, the
//! proxy's stderr tail), then the whole suite as a table.
//!
//! Everything that comes from the proxy is hostile: every string goes through [`esc`].

use std::fmt::Write as _;

use super::McpReport;
use crate::findings;
use crate::report::findings_view;
use crate::report::page::{esc, page_end, page_start};
use crate::runner::Status;

/// Longest stderr tail shown per case (lines, from the end); the JSON report has all of it.
const MAX_STDERR_LINES: usize = 60;

/// Statuses that make the verdict fail, in the order their cases are listed first.
const FINDING_STATUSES: [Status; 3] = [Status::Failed, Status::Errored, Status::Stale];

/// Renders the page.
pub fn render(report: &McpReport) -> String {
    let count = |s| report.count(s);
    let stale = &report.stale;
    let title = "DelegateOS MCP proxy conformance";
    let mut out = page_start(title);

    let findings = FINDING_STATUSES.iter().map(|s| count(*s)).sum::<usize>() + stale.len();
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
        count(Status::Passed),
        report.cases.len(),
        count(Status::Failed),
        count(Status::Errored),
        count(Status::Skipped),
        count(Status::Xfail),
    );
    if let Some(sig) = &report.interrupted {
        let _ = writeln!(
            out,
            "<p class=\"critical\" id=\"interrupted\"><strong>Interrupted by {}</strong>: \
             every proxy was killed; unfinished cases are listed as errored.</p>",
            esc(sig)
        );
    }

    // Findings first, as `run` shows them; then every failing case, expanded.
    if report.findings.is_empty() {
        out.push_str("<section id=\"findings\"><h2>Findings (0)</h2><p>None.</p></section>\n");
    } else {
        findings_view::html_section(&mut out, &report.findings, findings::SEVERITY_MODEL);
    }
    if findings > 0 {
        let _ = writeln!(out, "<h2 id=\"failing\">Failing cases ({findings})</h2>");
    }
    for status in FINDING_STATUSES {
        for c in report.cases.iter().filter(|c| c.status == status) {
            let _ = write!(
                out,
                "<details open class=\"finding\"><summary><span class=\"sev sev-high\">{}</span> \
                 <code>{}</code> <span class=\"desc\">{}</span></summary>",
                esc(status.name()),
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
        let label = c.status.name();
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
