//! The human summary: header, a table per spec section, then every failure with its diff,
//! errored cases and adapter incidents with stderr tails, acceptable divergences, baseline
//! bookkeeping, requirement coverage and the verdict line.

use std::fmt::Write as _;

use super::{CaseReport, Report};
use crate::runner::Status;
use delegateos_vectors::format::{Level, Severity};

/// Longest diff printed per failure; the JSON report always has the whole diff.
const MAX_DIFF_LINES: usize = 80;
/// Longest stderr tail printed per incident.
const MAX_TAIL_LINES: usize = 20;

fn indent(out: &mut String, text: &str, prefix: &str, max_lines: usize) {
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

/// Renders the text report.
pub fn render(r: &Report) -> String {
    let mut out = String::new();
    // The report opens with the critical findings, one line each.
    if r.critical.is_empty() {
        let _ = writeln!(out, "Critical findings: none");
    } else {
        let _ = writeln!(out, "Critical findings ({}):", r.critical.len());
        for c in &r.critical {
            let _ = writeln!(out, "CRITICAL {} [{}]: {}", c.id, c.level.as_str(), c.did);
        }
    }
    out.push('\n');
    let imp = &r.implementation;
    let _ = writeln!(
        out,
        "DelegateOS conformance — {} {}{}",
        imp.name,
        imp.version,
        imp.language
            .as_deref()
            .map(|l| format!(" ({l})"))
            .unwrap_or_default()
    );
    let _ = writeln!(
        out,
        "adapter `{}`, protocol {}, vectors {}, {} cases, {:.1} s, {} restart(s)",
        r.command,
        r.protocol,
        r.vectors,
        r.totals.total,
        r.duration_ms / 1000.0,
        r.restarts
    );
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

    let findings = r.findings();
    let is_hardening_finding =
        |c: &CaseReport| c.level == Level::Hardening || c.status == Status::OtherCode;
    let failed: Vec<&CaseReport> = findings
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
            "not counted in"
        },
        r.hardening.totals.total,
        r.totals.other_code + r.hardening.totals.other_code
    );
    for c in hardening {
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
            "\nRequirement coverage: spec/requirements.md not found; sections unknown"
        );
    }

    let t = &r.totals;
    let verdict = match (&r.interrupted, r.exit_code) {
        (Some(sig), _) => format!("INTERRUPTED by {sig}, partial"),
        (None, 0) => "PASSED".to_owned(),
        (None, 2) => "STALE BASELINE".to_owned(),
        (None, _) => "FAILED".to_owned(),
    };
    let _ = writeln!(
        out,
        "\n{verdict} (exit {}): {} passed, {} failed, {} skipped, {} acceptable, {} xfail, {} stale, {} errored; {} rejected with another code; hardening: {} of {} failed{}",
        r.exit_code, t.passed, t.failed, t.skipped, t.acceptable, t.xfail, t.stale, t.errored,
        t.other_code + r.hardening.totals.other_code,
        r.hardening.totals.failed + r.hardening.totals.errored,
        r.hardening.totals.total,
        if r.hardening.fail_on_hardening { " (counted)" } else { " (not counted)" }
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
