//! The Markdown summary for CI pages (`$GITHUB_STEP_SUMMARY` and the like): a verdict line, the
//! per-section table, failures with collapsible diffs (capped), incidents, coverage.

use std::fmt::Write as _;

use super::escape::markdown_cell as cell;
use super::{findings_view, Report};
use crate::runner::Status;

/// At most this many failures are detailed; the rest are counted.
const MAX_DETAILED: usize = 50;

/// Renders the Markdown summary.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    // Opens with the verdict strip (issue 38 item 7), then the findings, one row per root
    // cause, most severe first.
    let _ = writeln!(
        out,
        "**{} {}**\n",
        if r.exit_code == 0 { "✅" } else { "❌" },
        cell(&r.verdict_strip())
    );
    if let Some(line) = r.parallel_line() {
        let _ = writeln!(out, "⚠️ {}\n", cell(&line));
    }
    let _ = writeln!(out, "**{}**\n", cell(&r.critical_line()));
    let _ = writeln!(out, "{}\n", cell(&r.options_line()));
    for f in &r.expected_critical {
        let _ = writeln!(
            out,
            "- 🛑 critical `{}` ({} case{}) expected by the baseline (xfail, not counted): {} — e.g. `{}`",
            cell(&f.effect),
            f.cases,
            if f.cases == 1 { "" } else { "s" },
            cell(&f.title),
            f.example
        );
    }
    if !r.expected_critical.is_empty() {
        out.push('\n');
    }
    findings_view::markdown_table(&mut out, &r.findings, &r.severity_model);
    let t = &r.totals;
    let icon = if r.exit_code == 0 { "✅" } else { "❌" };
    let _ = writeln!(
        out,
        "## {icon} DelegateOS conformance: {} {}\n",
        cell(&r.implementation.name),
        cell(&r.implementation.version)
    );
    let _ = writeln!(
        out,
        "**{} cases**: {} passed, {} failed, {} skipped, {} acceptable, {} xfail, {} stale, {} errored — exit {}\n",
        t.total, t.passed, t.failed, t.skipped, t.acceptable, t.xfail, t.stale, t.errored, r.exit_code
    );
    if let Some(sig) = &r.interrupted {
        let _ = writeln!(
            out,
            "**⚠️ Interrupted by {sig}**: partial results; unfinished cases are errored.\n"
        );
    }
    out.push_str("| section |");
    for s in Status::ALL {
        let _ = write!(out, " {} |", s.name());
    }
    out.push_str("\n|---|");
    for _ in Status::ALL {
        out.push_str("---:|");
    }
    out.push('\n');
    for s in &r.sections {
        let _ = write!(out, "| {} |", cell(&s.section));
        for st in Status::ALL {
            let _ = write!(out, " {} |", s.counts.get(st));
        }
        out.push('\n');
    }

    let mut problems: Vec<_> = r
        .cases
        .iter()
        .filter(|c| matches!(c.status, Status::Failed | Status::Errored | Status::Stale))
        .collect();
    // Failures by severity, most severe first.
    problems.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| a.id.cmp(&b.id)));
    if !problems.is_empty() {
        let _ = writeln!(
            out,
            "\n### Failures, errors and stale entries ({})\n",
            problems.len()
        );
        for c in problems.iter().take(MAX_DETAILED) {
            let _ = writeln!(
                out,
                "<details><summary><code>{}</code> — {} — {} — {}</summary>\n",
                c.id,
                c.severity.map_or(c.status.name(), |s| s.as_str()),
                cell(c.did.as_deref().unwrap_or(c.status.name())),
                cell(&c.description)
            );
            let _ = writeln!(out, "Requirements: {}\n", c.requirements.join(", "));
            let body = c
                .diff
                .as_deref()
                .or(c.message.as_deref())
                .unwrap_or("")
                .replace("```", "``\u{200b}`");
            let _ = writeln!(out, "```diff\n{}\n```\n</details>\n", body.trim_end());
        }
        if problems.len() > MAX_DETAILED {
            let _ = writeln!(
                out,
                "…and {} more (see the JSON report).\n",
                problems.len() - MAX_DETAILED
            );
        }
    }
    let hardening: Vec<_> = r
        .failing_cases()
        .into_iter()
        .filter(|c| {
            c.status != Status::Xfail
                && (c.level == delegateos_vectors::format::Level::Hardening
                    || c.status == Status::OtherCode)
        })
        .collect();
    let _ = writeln!(
        out,
        "\n### Hardening findings ({}) — {}\n",
        hardening.len(),
        if r.hardening.fail_on_hardening {
            "counted in the exit code"
        } else {
            "not counted in the exit code (`--fail-on hardening` to count them)"
        }
    );
    for c in hardening.iter().take(MAX_DETAILED) {
        let _ = writeln!(
            out,
            "- `{}` {} — {}",
            c.id,
            c.severity.map_or("?", |s| s.as_str()),
            cell(c.did.as_deref().unwrap_or(""))
        );
    }
    if !r.incidents.is_empty() {
        let _ = writeln!(out, "\n### Adapter incidents ({})\n", r.incidents.len());
        for i in r.incidents.iter().take(MAX_DETAILED) {
            let _ = writeln!(
                out,
                "- `{}` {}: {}",
                i.case_id.as_deref().unwrap_or("-"),
                cell(&i.kind),
                cell(&i.message)
            );
        }
    }
    if !r.expected_failures.unused.is_empty() {
        let _ = writeln!(out, "\n### Unused baseline entries\n");
        for e in &r.expected_failures.unused {
            let _ = writeln!(
                out,
                "- line {}: `{}` — {}",
                e.line,
                cell(&e.pattern),
                cell(&e.reason)
            );
        }
    }
    let a = &r.advisory;
    if a.totals.total > 0 {
        let t = &a.totals;
        let _ = writeln!(
            out,
            "\n### Advisory (neighbour profiles, profile `{}`)\n\n{} cases: {} passed, {} failed, {} skipped, {} errored — {}.\n",
            r.profile,
            t.total,
            t.passed,
            t.failed,
            t.skipped,
            t.errored,
            if a.fail_on_advisory { "counted in the exit code (`--fail-on-advisory`)" } else { "not counted in the exit code" }
        );
        for c in a
            .cases
            .iter()
            .filter(|c| matches!(c.status, Status::Failed | Status::Errored))
            .take(MAX_DETAILED)
        {
            let _ = writeln!(
                out,
                "- `{}` {} — {}",
                c.id,
                c.status.name(),
                cell(&c.description)
            );
        }
    }
    let c = &r.coverage;
    if c.total > 0 {
        let _ = writeln!(
            out,
            "\nRequirement coverage: **{}/{}** requirements have an executed vector case; \
             {} more are covered by the MCP proxy suite (`delegateos-conform mcp`).",
            c.executed,
            c.total,
            c.mcp_suite.len()
        );
    }
    if let Some(next) = &c.next_operation {
        let _ = writeln!(out, "\n{}", next.replace('`', ""));
    }
    if !c.skipped_operations.is_empty() {
        out.push_str(
            "\n**What the skips cost**\n\n| operation | skipped cases | requirement ids no executed case checked |\n|---|---:|---|\n",
        );
        for s in &c.skipped_operations {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                cell(&s.op),
                s.cases,
                if s.unchecked_requirements.is_empty() {
                    "none".to_owned()
                } else {
                    cell(&s.unchecked_requirements.join(", "))
                }
            );
        }
    }
    out
}
