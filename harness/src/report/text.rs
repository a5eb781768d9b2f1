//! The human summary: header, a table per spec section, then every failure with its diff,
//! errored cases and adapter incidents with stderr tails, acceptable divergences, baseline
//! bookkeeping, requirement coverage and the verdict line.

use std::fmt::Write as _;

use super::findings_view::{self, indent};
use super::{CaseReport, Report};
use crate::findings;
use crate::runner::Status;
use delegateos_vectors::format::{Level, Severity};

/// Longest diff printed per failure; the JSON report always has the whole diff.
const MAX_DIFF_LINES: usize = 80;
/// Longest stderr tail printed per incident.
const MAX_TAIL_LINES: usize = 20;

fn tail(text: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(max_lines);
    lines[start..].join("\n")
}

fn case_head(out: &mut String, mark: &str, c: &CaseReport) {
    let _ = writeln!(
        out,
        "{mark} {}  [{}]  ({})",
        c.id,
        c.requirements.join(", "),
        c.op
    );
    let _ = writeln!(out, "    {}", c.description);
}

fn finding(out: &mut String, c: &CaseReport) {
    let _ = writeln!(
        out,
        "✗ {} [{}, {}] {}",
        c.id,
        c.level.as_str(),
        c.severity.map_or("?", |s| s.as_str()),
        c.did.as_deref().unwrap_or("")
    );
    let _ = writeln!(
        out,
        "    {}  [{}]  ({})",
        c.description,
        c.requirements.join(", "),
        c.op
    );
    if let Some(diff) = &c.diff {
        indent(out, diff, "    ", MAX_DIFF_LINES);
    }
}

/// The verdict of a report, with what it covers (`Report::verdict`).
fn verdict(r: &Report) -> String {
    match &r.interrupted {
        Some(sig) => format!("INTERRUPTED by {sig}, partial"),
        None => r.verdict(),
    }
}

/// The opening screen: verdict, counts and one line per finding, every critical and high one
/// included.
fn summary(out: &mut String, r: &Report) {
    let t = &r.totals;
    let _ = writeln!(
        out,
        "DelegateOS conformance — {}: {} (exit {}){}",
        r.implementation_label(),
        verdict(r),
        r.exit_code,
        r.corpus_warning
            .as_deref()
            .map_or_else(String::new, |w| format!(" — {w}"))
    );
    let _ = writeln!(
        out,
        "{} counted cases: {} passed, {} failed, {} errored, {} skipped, {} acceptable, {} xfail; hardening: {} of {} failed ({})",
        t.total,
        t.passed,
        t.failed,
        t.errored,
        t.skipped,
        t.acceptable,
        t.xfail,
        r.hardening.totals.failed + r.hardening.totals.errored,
        r.hardening.totals.total,
        if r.hardening.fail_on_hardening {
            "counted"
        } else {
            "not counted unless critical"
        }
    );
    if let Some(line) = r.parallel_line() {
        let _ = writeln!(out, "{line}");
    }
    let [c, ..] = findings::tally(&r.findings);
    if r.findings.is_empty() && r.expected_critical.is_empty() {
        let _ = writeln!(
            out,
            "Critical findings: none. No findings (severity model: {}).",
            r.severity_model
        );
        return;
    }
    if c == 0 || !r.expected_critical.is_empty() {
        let _ = writeln!(out, "{}.", r.critical_line());
    }
    // A critical finding the baseline expects stays on the first screen.
    for (rank, f) in r.expected_critical.iter().enumerate() {
        let _ = writeln!(
            out,
            "XC{:<2} {:<8} {:<24} {:>4} case{} {} [expected by the baseline: xfail, not counted] — e.g. {}",
            rank + 1,
            "CRITICAL",
            f.effect,
            f.cases,
            if f.cases == 1 { " " } else { "s" },
            f.title,
            f.example
        );
    }
    if r.findings.is_empty() {
        return;
    }
    findings_view::text_index(out, &r.findings, &r.severity_model);
}

/// Renders the text report.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    // The report opens with the findings, one line per root cause, critical first.
    summary(&mut out, r);
    findings_view::text_detail(&mut out, &r.findings);
    out.push('\n');
    let _ = writeln!(
        out,
        "adapter `{}`, protocol {}, vectors {}, {} cases, {:.1} s, {} restart(s), {} job(s)",
        r.command,
        r.protocol,
        r.vectors,
        r.totals.total,
        r.duration_ms / 1000.0,
        r.restarts,
        r.jobs
    );
    let _ = writeln!(out, "{}", r.options_line());
    out.push('\n');

    let width = r
        .sections
        .iter()
        .map(|s| s.section.chars().count())
        .max()
        .unwrap_or(0)
        .max("section".len())
        .min(48);
    let _ = write!(out, "{:<width$}", "section");
    for s in Status::ALL {
        let _ = write!(out, " {:>10}", s.name());
    }
    out.push('\n');
    for s in &r.sections {
        let name: String = s.section.chars().take(width).collect();
        let _ = write!(out, "{name:<width$}");
        for st in Status::ALL {
            let _ = write!(out, " {:>10}", s.counts.get(st));
        }
        out.push('\n');
    }
    let _ = write!(out, "{:<width$}", "total");
    for st in Status::ALL {
        let _ = write!(out, " {:>10}", r.totals.get(st));
    }
    out.push('\n');

    let findings = r.failing_cases();
    if !r.details && !findings.is_empty() {
        let _ = writeln!(
            out,
            "\nPer-case detail of the {} failing case(s): --details (or --format json)",
            findings.len()
        );
    }
    let listed: Vec<&CaseReport> = if r.details {
        findings.clone()
    } else {
        Vec::new()
    };
    let is_hardening_finding =
        |c: &CaseReport| c.level == Level::Hardening || c.status == Status::OtherCode;
    let failed: Vec<&CaseReport> = listed
        .iter()
        .copied()
        .filter(|c| c.status == Status::Failed && !is_hardening_finding(c))
        .collect();
    if !failed.is_empty() {
        let _ = writeln!(out, "\nFailures by severity ({})", failed.len());
        for sev in Severity::ORDER {
            let these: Vec<&&CaseReport> =
                failed.iter().filter(|c| c.severity == Some(sev)).collect();
            if these.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{} ({})", sev.as_str().to_uppercase(), these.len());
            for c in these {
                finding(&mut out, c);
            }
        }
    }
    let hardening: Vec<&CaseReport> = findings
        .iter()
        .copied()
        .filter(|c| c.status != Status::Xfail && is_hardening_finding(c))
        .collect();
    let _ = writeln!(
        out,
        "\nHardening findings ({}; {} the exit code): {} hardening-level case(s) run, {} rejected \
         with another code of the family",
        hardening.len(),
        if r.hardening.fail_on_hardening {
            "counted in"
        } else {
            "only critical ones counted in"
        },
        r.hardening.totals.total,
        r.totals.other_code + r.hardening.totals.other_code
    );
    for c in hardening.iter().filter(|_| r.details) {
        finding(&mut out, c);
    }

    let stale: Vec<&CaseReport> = r.with_status(Status::Stale).collect();
    if !stale.is_empty() {
        let _ = writeln!(
            out,
            "\nStale expected failures: listed, but now passing ({}) — remove them from the baseline",
            stale.len()
        );
        for c in stale {
            let _ = writeln!(
                out,
                "! {}  (baseline reason: {})",
                c.id,
                c.expected_failure.as_deref().unwrap_or("")
            );
        }
    }
    if !r.expected_failures.unused.is_empty() {
        let _ = writeln!(
            out,
            "\nUnused expected-failure entries ({}): they match no case",
            r.expected_failures.unused.len()
        );
        for e in &r.expected_failures.unused {
            let _ = writeln!(out, "! line {}: {}  ({})", e.line, e.pattern, e.reason);
        }
    }

    let errored: Vec<&CaseReport> = r.with_status(Status::Errored).collect();
    if !errored.is_empty() {
        let _ = writeln!(out, "\nErrored ({})", errored.len());
        for c in errored {
            let _ = writeln!(
                out,
                "E {}  {}: {}",
                c.id,
                c.error_kind.map(|k| k.name()).unwrap_or("errored"),
                c.message.as_deref().unwrap_or("")
            );
        }
    }

    if !r.incidents.is_empty() {
        let _ = writeln!(
            out,
            "\nProtocol errors and adapter crashes ({})",
            r.incidents.len()
        );
        for i in &r.incidents {
            let _ = writeln!(
                out,
                "- {} [{}]: {}",
                i.case_id.as_deref().unwrap_or("(no case)"),
                i.kind,
                i.message
            );
            if !i.stderr_tail.trim().is_empty() {
                let _ = writeln!(out, "    stderr (tail):");
                indent(
                    &mut out,
                    &tail(&i.stderr_tail, MAX_TAIL_LINES),
                    "    | ",
                    MAX_TAIL_LINES,
                );
            }
        }
    }

    let acceptable: Vec<&CaseReport> = r.with_status(Status::Acceptable).collect();
    if !acceptable.is_empty() {
        let _ = writeln!(
            out,
            "\nAcceptable divergences ({}): the other reading of an ambiguity, not a failure",
            acceptable.len()
        );
        for c in acceptable {
            let decision = c
                .expected
                .as_ref()
                .and_then(|e| e.get("decision"))
                .and_then(|d| d.as_str())
                .unwrap_or("-");
            let _ = writeln!(
                out,
                "~ {}  decision {}  flags [{}]",
                c.id,
                decision,
                c.flags.join(", ")
            );
        }
    }

    let xfail: Vec<&CaseReport> = r.with_status(Status::Xfail).collect();
    if !xfail.is_empty() {
        let _ = writeln!(out, "\nExpected failures ({})", xfail.len());
        for c in xfail {
            let _ = writeln!(
                out,
                "x {}  ({})",
                c.id,
                c.expected_failure.as_deref().unwrap_or("")
            );
        }
    }

    let skipped = r.totals.skipped;
    if skipped > 0 {
        let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
        for c in r.with_status(Status::Skipped) {
            *reasons
                .entry(c.message.as_deref().unwrap_or(""))
                .or_default() += 1;
        }
        let _ = writeln!(out, "\nSkipped ({skipped})");
        for (reason, n) in reasons {
            let _ = writeln!(out, "- {n} × {reason}");
        }
    }
    let costs = &r.coverage.skipped_operations;
    if !costs.is_empty() {
        let _ = writeln!(
            out,
            "\nWhat the skips cost (requirement ids no executed case checked):"
        );
        for s in costs {
            let ids = if s.unchecked_requirements.is_empty() {
                "none (all checked by other cases)".to_owned()
            } else {
                s.unchecked_requirements.join(", ")
            };
            let _ = writeln!(
                out,
                "- {}: {} case(s) skipped; {} unchecked: {ids}",
                s.op,
                s.cases,
                s.unchecked_requirements.len()
            );
        }
    }

    if let Some(next) = &r.coverage.next_operation {
        let _ = writeln!(out, "\n{}{}", next[..1].to_uppercase(), &next[1..]);
    }

    advisory_section(&mut out, r);

    let cov = &r.coverage;
    if cov.total > 0 {
        let _ = writeln!(
            out,
            "\nRequirement coverage: {}/{} requirements have an executed vector case ({:.1}%); \
             {} more are covered by the MCP proxy suite (`delegateos-conform mcp`)",
            cov.executed,
            cov.total,
            100.0 * cov.executed as f64 / cov.total as f64,
            cov.mcp_suite.len()
        );
        let uncovered = cov.uncovered();
        if !uncovered.is_empty() && uncovered.len() <= 40 {
            let _ = writeln!(
                out,
                "  covered by neither in this run: {}",
                uncovered.join(", ")
            );
        }
        if !cov.unknown.is_empty() {
            let _ = writeln!(
                out,
                "  cited but not in the spec: {}",
                cov.unknown.join(", ")
            );
        }
    } else {
        let _ = writeln!(
            out,
            "\nRequirement coverage: no requirements read (spec/data/requirements.json); sections unknown"
        );
    }

    let t = &r.totals;
    let verdict = verdict(r);
    let _ = writeln!(
        out,
        "\n{verdict} (exit {}): {} passed, {} failed, {} skipped, {} acceptable, {} xfail, {} stale, {} errored; {} rejected with another code; hardening: {} of {} failed{}",
        r.exit_code, t.passed, t.failed, t.skipped, t.acceptable, t.xfail, t.stale, t.errored,
        t.other_code + r.hardening.totals.other_code,
        r.hardening.totals.failed + r.hardening.totals.errored,
        r.hardening.totals.total,
        if r.hardening.fail_on_hardening {
            " (counted)"
        } else {
            " (not counted unless critical)"
        }
    );
    out
}

/// The advisory (neighbour-profile) cases: their own counts and failures; they never count in
/// the totals or the verdict unless `--fail-on-advisory`.
fn advisory_section(out: &mut String, r: &Report) {
    let a = &r.advisory;
    if a.totals.total == 0 {
        return;
    }
    let t = &a.totals;
    let _ = writeln!(
        out,
        "\nAdvisory (neighbour profiles, profile {}{}): {} cases: {} passed, {} failed, {} skipped, {} errored",
        r.profile,
        if a.fail_on_advisory { ", --fail-on-advisory" } else { "; not in the verdict" },
        t.total,
        t.passed,
        t.failed,
        t.skipped,
        t.errored
    );
    for c in a
        .cases
        .iter()
        .filter(|c| matches!(c.status, Status::Failed | Status::Errored))
    {
        case_head(out, "△", c);
        if let Some(diff) = &c.diff {
            indent(out, diff, "    ", MAX_DIFF_LINES);
        } else if let Some(m) = &c.message {
            let _ = writeln!(out, "    {m}");
        }
    }
}
