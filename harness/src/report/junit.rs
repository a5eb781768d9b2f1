//! JUnit XML: one `<testsuite>` per vector area/group, one `<testcase>` per case.
//!
//! Mapping: failed → `<failure>` with the diff; stale → `<failure type="stale">`; errored →
//! `<error type="<kind>">` with the stderr tail; skipped and xfail → `<skipped>` with the reason;
//! passed and acceptable → an empty testcase (acceptable carries `<system-out>`). Adapter text can
//! contain anything, so every string is escaped and characters XML 1.0 forbids are replaced.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{CaseReport, Report};
use crate::runner::Status;
use delegateos_vectors::format::Level;

use super::escape::xml as escape;

fn secs(ms: f64) -> String {
    format!("{:.3}", ms / 1000.0)
}

/// Renders the JUnit report.
pub fn render(r: &Report) -> String {
    let mut suites: BTreeMap<String, Vec<&CaseReport>> = BTreeMap::new();
    for c in &r.cases {
        suites
            .entry(format!("{}/{}", c.area, c.group))
            .or_default()
            .push(c);
    }
    for c in &r.hardening.cases {
        suites
            .entry(format!("hardening/{}/{}", c.area, c.group))
            .or_default()
            .push(c);
    }
    let t = &r.totals;
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    // Opens with the critical line (a critical finding the baseline expects included), then
    // the findings, one comment line per root cause, most severe first.
    if let Some(w) = &r.corpus_warning {
        let _ = writeln!(out, "<!-- {} -->", escape(w).replace("--", "- -"));
    }
    let _ = writeln!(
        out,
        "<!-- {} -->",
        escape(&r.critical_line()).replace("--", "- -")
    );
    for f in &r.expected_critical {
        let _ = writeln!(
            out,
            "<!-- CRITICAL {} ({} case{}, expected by the baseline: xfail, not counted): {} e.g. {} -->",
            escape(&f.effect).replace("--", "- -"),
            f.cases,
            if f.cases == 1 { "" } else { "s" },
            escape(&f.title).replace("--", "- -"),
            escape(&f.example).replace("--", "- -")
        );
    }
    for f in &r.findings {
        let _ = writeln!(
            out,
            "<!-- {} {} ({} case{}{}): {} e.g. {} -->",
            f.severity.as_str().to_uppercase(),
            escape(&f.effect).replace("--", "- -"),
            f.cases,
            if f.cases == 1 { "" } else { "s" },
            if f.counted { "" } else { ", not counted" },
            escape(&f.title).replace("--", "- -"),
            escape(&f.example.id).replace("--", "- -")
        );
    }
    let _ = writeln!(
        out,
        "<testsuites name=\"delegateos-conform: {}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
        escape(&r.implementation.name),
        t.total,
        t.failed + t.stale,
        t.errored,
        t.skipped + t.xfail,
        secs(r.duration_ms)
    );
    for (name, cases) in &suites {
        let count = |s: Status| cases.iter().filter(|c| c.status == s).count();
        let time: f64 = cases.iter().map(|c| c.duration_ms).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
            escape(name),
            cases.len(),
            count(Status::Failed) + count(Status::Stale),
            count(Status::Errored),
            count(Status::Skipped) + count(Status::Xfail),
            secs(time)
        );
        for c in cases {
            testcase(&mut out, c, r);
        }
        out.push_str("  </testsuite>\n");
    }
    // Advisory cases: their own suites, named `advisory: <area>/<group>`.
    let mut advisory: BTreeMap<String, Vec<&CaseReport>> = BTreeMap::new();
    for c in &r.advisory.cases {
        advisory
            .entry(format!("advisory: {}/{}", c.area, c.group))
            .or_default()
            .push(c);
    }
    for (name, cases) in &advisory {
        let count = |s: Status| cases.iter().filter(|c| c.status == s).count();
        let time: f64 = cases.iter().map(|c| c.duration_ms).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
            escape(name),
            cases.len(),
            count(Status::Failed) + count(Status::Stale),
            count(Status::Errored),
            count(Status::Skipped) + count(Status::Xfail),
            secs(time)
        );
        for c in cases {
            testcase(&mut out, c, r);
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn testcase(out: &mut String, c: &CaseReport, r: &Report) {
    let fail_on_hardening = r.hardening.fail_on_hardening;
    // The critical finding an xfail case belongs to, if any: its skip message says so.
    let expected_critical = r
        .expected_critical
        .iter()
        .find(|f| f.ids.contains(&c.id))
        .map(|f| f.effect.as_str());
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{}.{}\" time=\"{}\"",
        escape(&c.id),
        escape(&c.area),
        escape(&c.group),
        secs(c.duration_ms)
    );
    let msg = c.message.as_deref().unwrap_or("");
    let reason = c.expected_failure.as_deref().unwrap_or("");
    let hardening_finding = matches!(c.status, Status::Failed | Status::OtherCode)
        && (c.level == Level::Hardening || c.status == Status::OtherCode);
    // A critical finding counts whatever its level (issue 36): never shown as skipped.
    let critical = c.severity == Some(delegateos_vectors::format::Severity::Critical);
    // The failure's severity and effect, for test UIs (issue 38 item 7).
    let graded = match (c.severity, c.effect.as_deref()) {
        (Some(s), Some(e)) => format!("{} {e}", s.as_str()),
        _ => "failed".to_owned(),
    };
    let body = match c.status {
        _ if hardening_finding && !fail_on_hardening && !critical => Some(format!(
            "      <skipped message=\"{}\"/>\n",
            escape(&format!(
                "hardening finding (not counted): {}",
                c.did.as_deref().unwrap_or("")
            ))
        )),
        Status::Passed => None,
        Status::Acceptable => Some(format!(
            "      <system-out>{}</system-out>\n",
            escape(&format!(
                "acceptable divergence (flags: {})",
                c.flags.join(", ")
            ))
        )),
        Status::Failed => Some(format!(
            "      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
            escape(&graded),
            escape(&format!(
                "{}: {} [{}]",
                graded.to_uppercase(),
                c.description,
                c.requirements.join(", ")
            )),
            escape(c.diff.as_deref().unwrap_or(""))
        )),
        Status::OtherCode => Some(format!(
            "      <failure type=\"other_code\" message=\"{}\">{}</failure>\n",
            escape(c.did.as_deref().unwrap_or("rejected with another code")),
            escape(c.diff.as_deref().unwrap_or(""))
        )),
        Status::Stale => Some(format!(
            "      <failure type=\"stale\" message=\"{}\"/>\n",
            escape(&format!(
                "listed as an expected failure ({reason}) but passed"
            ))
        )),
        Status::Errored => Some(format!(
            "      <error type=\"{}\" message=\"{}\">{}</error>\n",
            c.error_kind.map(|k| k.name()).unwrap_or("errored"),
            escape(msg),
            escape(c.stderr_tail.as_deref().unwrap_or(""))
        )),
        Status::Skipped => Some(format!("      <skipped message=\"{}\"/>\n", escape(msg))),
        Status::Xfail => Some(format!(
            "      <skipped message=\"{}\"/>\n",
            escape(&match expected_critical {
                Some(effect) =>
                    format!("CRITICAL {effect}, expected by the baseline (not counted): {reason}"),
                None => format!("expected failure: {reason}"),
            })
        )),
    };
    match body {
        None => out.push_str("/>\n"),
        Some(b) => {
            out.push_str(">\n");
            out.push_str(&b);
            out.push_str("    </testcase>\n");
        }
    }
}
