//! The HTML report: one self-contained file (inline CSS, no script, no network: a
//! Content-Security-Policy forbids scripts and every external load) that opens with the critical
//! findings, then the verdict, per-section bars, failures by severity with side-by-side
//! expected/actual and the diff, the hardening section, adapter incidents with stderr tails,
//! advisory cases and requirement coverage. Also the shields.io endpoint badge ([`badge`]).
//!
//! Everything that comes from a case or an adapter is hostile: every string goes through
//! [`esc`]; no attribute takes case data except `id`-free `class`/`style` values computed here.

use std::fmt::Write as _;

use serde_json::Value;

use super::{findings_view, CaseReport, Counts, Report};
pub use crate::report::page::esc;
use crate::report::page::{esc_code_spans, page_end, page_start};
use crate::runner::Status;
use delegateos_vectors::format::{Level, Severity};

/// At most this many findings get a detailed, expandable entry; the rest are one line each.
const MAX_DETAILED: usize = 200;
/// Longest diff or stderr tail shown per entry (lines); the JSON report has everything.
const MAX_LINES: usize = 120;

fn severity_tag(s: Option<Severity>, fallback: &str) -> String {
    match s {
        Some(s) => format!("<span class=\"sev sev-{0}\">{0}</span>", esc(s.as_str())),
        None => format!("<span class=\"sev sev-low\">{}</span>", esc(fallback)),
    }
}

/// A stacked bar of `counts`, widths in per cent of the total.
fn bar(counts: &Counts) -> String {
    let mut out = String::from("<div class=\"bar\">");
    if counts.total > 0 {
        for st in Status::ALL {
            let n = counts.get(st);
            if n == 0 {
                continue;
            }
            // Cast is exact enough for a width (counts are far below 2^52).
            #[allow(clippy::cast_precision_loss)]
            let pct = n as f64 * 100.0 / counts.total as f64;
            let _ = write!(
                out,
                "<span class=\"s-{0}\" style=\"width:{pct:.3}%\" title=\"{0}: {n}\"></span>",
                st.name()
            );
        }
    }
    out.push_str("</div>");
    out
}

fn legend() -> String {
    let mut out = String::from("<p class=\"legend\">");
    for st in Status::ALL {
        let _ = write!(out, "<span><i class=\"s-{0}\"></i>{0}</span>", st.name());
    }
    out.push_str("</p>");
    out
}

fn pre_lines(text: &str, from_end: bool) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let (shown, note) = if lines.len() <= MAX_LINES {
        (lines, String::new())
    } else if from_end {
        let skipped = lines.len() - MAX_LINES;
        (
            lines[skipped..].to_vec(),
            format!("… {skipped} earlier lines (see the JSON report)\n"),
        )
    } else {
        let more = lines.len() - MAX_LINES;
        (
            lines[..MAX_LINES].to_vec(),
            format!("\n… {more} more lines (see the JSON report)"),
        )
    };
    if from_end {
        format!("<pre>{}{}</pre>", esc(&note), esc(&shown.join("\n")))
    } else {
        format!("<pre>{}{}</pre>", esc(&shown.join("\n")), esc(&note))
    }
}

fn diff_block(diff: &str) -> String {
    let mut out = String::from("<pre class=\"diff\">");
    let lines: Vec<&str> = diff.lines().collect();
    for line in lines.iter().take(MAX_LINES) {
        let class = if line.starts_with("+++") || line.starts_with("---") || line.starts_with("@@")
        {
            "d-hunk"
        } else if line.starts_with('+') {
            "d-add"
        } else if line.starts_with('-') {
            "d-del"
        } else {
            ""
        };
        if class.is_empty() {
            let _ = writeln!(out, "{}", esc(line));
        } else {
            let _ = writeln!(out, "<span class=\"{class}\">{}</span>", esc(line));
        }
    }
    if lines.len() > MAX_LINES {
        let _ = write!(
            out,
            "… {} more lines (see the JSON report)",
            lines.len() - MAX_LINES
        );
    }
    out.push_str("</pre>");
    out
}

fn pretty(v: Option<&Value>) -> String {
    match v {
        Some(v) => serde_json::to_string_pretty(v).unwrap_or_default(),
        None => "(no answer)".to_owned(),
    }
}

fn case_detail(out: &mut String, c: &CaseReport, open: bool) {
    let _ =
        write!(
        out,
        "<details{}><summary>{} <code>{}</code> [{}] {} <span class=\"desc\">{}</span></summary>",
        if open { " open" } else { "" },
        severity_tag(c.severity, c.status.name()),
        esc(&c.id),
        esc(c.level.as_str()),
        esc(c.did.as_deref().unwrap_or(c.status.name())),
        // `did` already ends with the description for an accepted-invalid case.
        if c.did.as_deref().is_some_and(|d| d.ends_with(c.description.as_str())) {
            String::new()
        } else {
            format!("— {}", esc(&c.description))
        }
    );
    let _ = write!(
        out,
        "<p class=\"muted\">status {} · op <code>{}</code> · requirements {} · flags {} · {}</p>",
        esc(c.status.name()),
        esc(&c.op),
        esc(&c.requirements.join(", ")),
        esc(&if c.flags.is_empty() {
            "none".to_owned()
        } else {
            c.flags.join(", ")
        }),
        esc(&c.file)
    );
    if c.expected.is_some() || c.actual.is_some() {
        let _ = write!(
            out,
            "<div class=\"sbs\"><div><h4>expected</h4>{}</div><div><h4>actual</h4>{}</div></div>",
            pre_lines(&pretty(c.expected.as_ref()), false),
            pre_lines(&pretty(c.actual.as_ref()), false)
        );
    }
    if let Some(diff) = &c.diff {
        out.push_str("<h4>diff</h4>");
        out.push_str(&diff_block(diff));
    }
    if let Some(m) = &c.message {
        out.push_str("<h4>message</h4>");
        out.push_str(&pre_lines(m, false));
    }
    if let Some(t) = &c.stderr_tail {
        if !t.trim().is_empty() {
            out.push_str("<h4>adapter stderr (tail)</h4>");
            out.push_str(&pre_lines(t, true));
        }
    }
    if let Some(x) = &c.expected_failure {
        let _ = write!(out, "<p>baseline: {}</p>", esc(x));
    }
    out.push_str("</details>\n");
}

fn counts_row(out: &mut String, name: &str, counts: &Counts) {
    let _ = write!(out, "<tr><td>{}</td><td>{}</td>", esc(name), bar(counts));
    let _ = write!(out, "<td class=\"n\">{}</td>", counts.total);
    for st in Status::ALL {
        let _ = write!(out, "<td class=\"n\">{}</td>", counts.get(st));
    }
    out.push_str("</tr>\n");
}

fn counts_head(out: &mut String, first: &str) {
    let _ = write!(
        out,
        "<table><tr><th>{}</th><th></th><th>total</th>",
        esc(first)
    );
    for st in Status::ALL {
        let _ = write!(out, "<th>{}</th>", st.name());
    }
    out.push_str("</tr>\n");
}

/// Renders the HTML report.
pub fn render(r: &Report) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let imp = &r.implementation;
    let title = format!(
        "DelegateOS conformance: {} {}",
        imp.name.as_str(),
        imp.version.as_str()
    );
    out.push_str(&page_start(&title));

    // 0. The verdict strip: verdict and coverage, implementation, corpus, counts, exit code
    // — the first line of the first screen (issue 38 item 7).
    let _ = writeln!(
        out,
        "<p id=\"verdict-strip\" class=\"verdict {}\"><strong>{}</strong></p>",
        match r.exit_code {
            0 => "pass",
            2 => "stale",
            _ => "fail",
        },
        esc(&r.verdict_strip())
    );

    // 1. Findings first: critical ones in the red box, then every finding with its example.
    if r.critical.is_empty() && r.expected_critical.is_empty() {
        out.push_str(
            "<section id=\"critical\" class=\"critical none\"><strong>Critical findings: \
             none</strong></section>\n",
        );
    } else if r.critical.is_empty() {
        // Critical findings the baseline expects: never hidden (issue 49 item 3).
        let _ = write!(
            out,
            "<section id=\"critical\" class=\"critical\"><strong>{}</strong><ul>",
            esc(&r.critical_line())
        );
        for c in &r.expected_critical {
            let _ = write!(
                out,
                "<li><strong>{}</strong>: {} — {} case(s) expected by the baseline (xfail, not \
                 counted), e.g. <code>{}</code></li>",
                esc(&c.effect),
                esc_code_spans(&c.title),
                c.cases,
                esc(&c.example)
            );
        }
        out.push_str("</ul></section>\n");
    } else {
        let _ = write!(
            out,
            "<section id=\"critical\" class=\"critical\"><strong>Critical findings ({})</strong><ul>",
            r.critical.len()
        );
        for c in &r.critical {
            let _ = write!(
                out,
                "<li><strong>{}</strong>: {} — {} case(s){}, e.g. <a href=\"#{}\"><code>{}</code></a></li>",
                esc(&c.effect),
                esc_code_spans(&c.title),
                c.cases,
                if c.counted { "" } else { " (not counted in the exit code)" },
                esc(&c.example),
                esc(&c.example)
            );
        }
        for c in &r.expected_critical {
            let _ = write!(
                out,
                "<li><strong>{}</strong>: {} — {} case(s) expected by the baseline (xfail, not \
                 counted), e.g. <code>{}</code></li>",
                esc(&c.effect),
                esc_code_spans(&c.title),
                c.cases,
                esc(&c.example)
            );
        }
        out.push_str("</ul></section>\n");
    }
    findings_view::html_section(&mut out, &r.findings, &r.severity_model);

    // 2. Verdict.
    let t = &r.totals;
    let (class, word) = match r.exit_code {
        0 => ("pass", "PASS"),
        2 => ("stale", "STALE BASELINE"),
        _ => ("fail", "FAIL"),
    };
    let _ = write!(
        out,
        "<h1>{}{}</h1>\n<div id=\"verdict\" class=\"verdict {class}\">{word}: \
         <span id=\"passed\">{}</span>/<span id=\"total\">{}</span> passed, \
         <span id=\"failed\">{}</span> failed, <span id=\"errored\">{}</span> errored \
         — exit {}</div>\n",
        esc(&title),
        imp.language
            .as_deref()
            .map(|l| format!(" ({})", esc(l)))
            .unwrap_or_default(),
        t.passed,
        t.total,
        t.failed,
        t.errored,
        r.exit_code
    );
    if let Some(sig) = &r.interrupted {
        let _ = writeln!(
            out,
            "<p class=\"critical\" id=\"interrupted\"><strong>Interrupted by {}</strong>: \
             unfinished cases are listed as errored.</p>",
            esc(sig)
        );
    }
    let _ = writeln!(
        out,
        "<p class=\"muted\">{} cases: {} passed, {} failed, {} other code, {} skipped, {} \
         acceptable, {} xfail, {} stale, {} errored · profile {} · {:.1} s · {} restart(s)</p>",
        t.total,
        t.passed,
        t.failed,
        t.other_code,
        t.skipped,
        t.acceptable,
        t.xfail,
        t.stale,
        t.errored,
        esc(&r.profile),
        r.duration_ms / 1000.0,
        r.restarts
    );

    // 3. Sections.
    out.push_str("<h2 id=\"sections\">Sections</h2>\n");
    out.push_str(&legend());
    counts_head(&mut out, "section");
    for s in &r.sections {
        counts_row(&mut out, &s.section, &s.counts);
    }
    counts_row(&mut out, "all (normative and decision)", &r.totals);
    if r.hardening.totals.total > 0 {
        counts_row(&mut out, "hardening level", &r.hardening.totals);
    }
    if r.advisory.totals.total > 0 {
        counts_row(&mut out, "advisory", &r.advisory.totals);
    }
    out.push_str("</table>\n");

    // 4. Failures by severity.
    let mut problems: Vec<&CaseReport> = r
        .cases
        .iter()
        .filter(|c| matches!(c.status, Status::Failed | Status::Errored | Status::Stale))
        .collect();
    problems.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| a.id.cmp(&b.id)));
    let _ = writeln!(
        out,
        "<h2 id=\"failures\">Failures, errors and stale entries ({})</h2>",
        problems.len()
    );
    if problems.is_empty() {
        out.push_str("<p>None.</p>\n");
    }
    let mut current: Option<Option<Severity>> = None;
    for (i, c) in problems.iter().enumerate() {
        if current != Some(c.severity) {
            current = Some(c.severity);
            let n = problems.iter().filter(|p| p.severity == c.severity).count();
            let _ = writeln!(
                out,
                "<h3>{} ({n})</h3>",
                esc(c.severity.map_or("stale", |s| s.as_str()))
            );
        }
        if i < MAX_DETAILED {
            case_detail(&mut out, c, i < 10 && c.severity >= Some(Severity::High));
        } else {
            let _ = writeln!(
                out,
                "<p>{} <code>{}</code> {}</p>",
                severity_tag(c.severity, c.status.name()),
                esc(&c.id),
                esc(c.did.as_deref().unwrap_or(""))
            );
        }
    }

    // 5. Hardening.
    let hardening: Vec<&CaseReport> = r
        .failing_cases()
        .into_iter()
        .filter(|c| {
            c.status != Status::Xfail
                && (c.level == Level::Hardening || c.status == Status::OtherCode)
        })
        .collect();
    let _ = write!(
        out,
        "<h2 id=\"hardening\">Hardening findings ({})</h2>\n<p class=\"muted\">{}</p>\n",
        hardening.len(),
        if r.hardening.fail_on_hardening {
            "Counted in the exit code."
        } else {
            "Not counted in the exit code (<code>--fail-on hardening</code> to count them)."
        }
    );
    for (i, c) in hardening.iter().enumerate() {
        if i < MAX_DETAILED {
            case_detail(&mut out, c, false);
        } else {
            let _ = writeln!(
                out,
                "<p>{} <code>{}</code> {}</p>",
                severity_tag(c.severity, c.status.name()),
                esc(&c.id),
                esc(c.did.as_deref().unwrap_or(""))
            );
        }
    }

    // 6. Incidents.
    let _ = writeln!(
        out,
        "<h2 id=\"incidents\">Adapter incidents ({})</h2>",
        r.incidents.len()
    );
    if r.incidents.is_empty() {
        out.push_str("<p>None: no crash, timeout or protocol error.</p>\n");
    }
    for (i, inc) in r.incidents.iter().enumerate().take(MAX_DETAILED) {
        let _ = write!(
            out,
            "<details{}><summary><strong>{}</strong> <code>{}</code> <span class=\"desc\">{}</span></summary>{}",
            if i < 5 { " open" } else { "" },
            esc(&inc.kind),
            esc(inc.case_id.as_deref().unwrap_or("-")),
            esc(inc.message.lines().next().unwrap_or("")),
            pre_lines(&inc.message, false)
        );
        if !inc.stderr_tail.trim().is_empty() {
            out.push_str("<h4>adapter stderr (tail)</h4>");
            out.push_str(&pre_lines(&inc.stderr_tail, true));
        }
        out.push_str("</details>\n");
    }
    if r.incidents.len() > MAX_DETAILED {
        let _ = writeln!(
            out,
            "<p>…and {} more (see the JSON report).</p>",
            r.incidents.len() - MAX_DETAILED
        );
    }

    // 7. Baseline, advisory.
    if !r.expected_failures.unused.is_empty() {
        out.push_str("<h2 id=\"baseline\">Unused baseline entries</h2><ul>");
        for e in &r.expected_failures.unused {
            let _ = write!(
                out,
                "<li>line {}: <code>{}</code> — {}</li>",
                e.line,
                esc(&e.pattern),
                esc(&e.reason)
            );
        }
        out.push_str("</ul>\n");
    }
    let a = &r.advisory;
    if a.totals.total > 0 {
        let _ = write!(
            out,
            "<h2 id=\"advisory\">Advisory (neighbour profiles)</h2>\n<p class=\"muted\">{} \
             cases, {} failed — {}.</p>\n",
            a.totals.total,
            a.totals.failed,
            if a.fail_on_advisory {
                "counted in the exit code"
            } else {
                "not counted in the exit code"
            }
        );
        for c in a
            .cases
            .iter()
            .filter(|c| matches!(c.status, Status::Failed | Status::Errored))
            .take(MAX_DETAILED)
        {
            case_detail(&mut out, c, false);
        }
    }

    // 8. Coverage.
    let c = &r.coverage;
    out.push_str("<h2 id=\"coverage\">Requirement coverage</h2>\n");
    if c.total > 0 {
        let cov = Counts {
            total: c.total,
            passed: c.executed,
            acceptable: c.mcp_suite.len(),
            errored: c.uncovered().len(),
            ..Counts::default()
        };
        let _ = writeln!(
            out,
            "<p><span id=\"coverage-executed\">{}</span>/{} requirements have an executed vector \
             case; {} more are covered by the MCP proxy suite (<code>delegateos-conform \
             mcp</code>).</p>{}",
            c.executed,
            c.total,
            c.mcp_suite.len(),
            bar(&cov)
        );
        let uncovered = c.uncovered();
        if !uncovered.is_empty() {
            let _ = writeln!(
                out,
                "<details><summary>Not executed in this run ({})</summary><p>{}</p></details>",
                uncovered.len(),
                uncovered
                    .iter()
                    .map(|id| format!("<code>{}</code>", esc(id)))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    } else {
        out.push_str("<p>No requirements file.</p>\n");
    }
    if let Some(next) = &c.next_operation {
        let _ = writeln!(out, "<p id=\"next-operation\">{}</p>", esc(next));
    }
    if !c.skipped_operations.is_empty() {
        out.push_str(
            "<h3 id=\"skip-cost\">What the skips cost</h3>\n<table><tr><th>operation</th>\
             <th>skipped cases</th><th>requirement ids no executed case checked</th></tr>\n",
        );
        for s in &c.skipped_operations {
            let _ = writeln!(
                out,
                "<tr><td><code>{}</code></td><td class=\"n\">{}</td><td>{}</td></tr>",
                esc(&s.op),
                s.cases,
                if s.unchecked_requirements.is_empty() {
                    "none".to_owned()
                } else {
                    s.unchecked_requirements
                        .iter()
                        .map(|id| format!("<code>{}</code>", esc(id)))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            );
        }
        out.push_str("</table>\n");
    }
    if !c.unknown.is_empty() {
        let _ = writeln!(
            out,
            "<p>Cited but not in the spec: {}</p>",
            esc(&c.unknown.join(", "))
        );
    }

    // Footer.
    out.push_str(&page_end(&format!(
        "{} {} · adapter protocol {} · adapter <code>{}</code> · vectors {} · operations {} · \
         <span id=\"options\">{}</span>",
        esc(&r.harness.name),
        esc(&r.harness.version),
        r.protocol,
        esc(&r.command),
        esc(&r.vectors),
        esc(&r.operations.join(", ")),
        esc(&r.options_line())
    )));
    out
}
