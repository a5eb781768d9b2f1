//! `compare --baseline OLD.json NEW.json`: two reports of the same implementation over time (an
//! old release and a new one, `main` and a pull request) as **new**, **fixed** and
//! **unchanged** findings, matched by finding key (one per root cause), and, of the findings in
//! both, the **worse** ones (severity rose, or more of the cases both reports ran belong to it);
//! `--fail-on-new` exits 1 when a finding is new, `--fail-on-worse` when one is new or worse,
//! for CI regression gates.
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
//!   "worse": [ { the members of "unchanged", plus "why": [string] } ],
//!   "unchanged": [ { "key", "title", "severity", "cases", "counted",
//!                    "severity_before", "cases_before" } ] }
//! ```
//!
//! A finding in both reports is worse when its severity rose, or when its cases that the
//! baseline also ran outnumber its cases in the baseline (growth that comes only from cases the
//! baseline did not run is a corpus or filter change, not a regression; it stays unchanged).
//!
//! Exit codes: 0; 1 with `--fail-on-new` when `new` is not empty, with `--fail-on-worse` when
//! `new` or `worse` is not empty; 3 and 64 as `compare`.

use std::collections::{BTreeMap, BTreeSet};

use super::{corpus_digest, overview, severity_rank, Loaded};
pub use crate::report::compare::over_time::{
    render, CorpusChange, FindingEntry, OverTime, Side, UnchangedEntry, WorseEntry, SCHEMA,
};

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
    let mut unchanged: Vec<UnchangedEntry> = Vec::new();
    let mut worse: Vec<WorseEntry> = Vec::new();
    for (k, f) in &new_f {
        let Some(before) = old_f.get(k) else {
            continue;
        };
        let entry = UnchangedEntry {
            key: f.key.clone(),
            title: f.title.clone(),
            severity: f.severity.clone(),
            cases: f.cases,
            counted: f.counted,
            severity_before: before.severity.clone(),
            cases_before: before.cases,
        };
        let mut why = Vec::new();
        if severity_rank(&f.severity) < severity_rank(&before.severity) {
            why.push(format!(
                "severity rose from {} to {}",
                before.severity, f.severity
            ));
        }
        // Only the cases the baseline also ran: a case it did not run cannot be a regression.
        let comparable = f.ids.iter().filter(|i| old_ids.contains(*i)).count() as u64;
        if comparable > before.cases {
            let added = f.cases.saturating_sub(comparable);
            why.push(format!(
                "cases grew from {} to {}{}",
                before.cases,
                f.cases,
                if added == 0 {
                    String::new()
                } else {
                    format!(" ({added} of them not run by the baseline)")
                }
            ));
        }
        if why.is_empty() {
            unchanged.push(entry);
        } else {
            worse.push(WorseEntry { entry, why });
        }
    }
    by_severity(&mut added, |e| (e.severity.as_str(), e.key.as_str()));
    by_severity(&mut fixed, |e| (e.severity.as_str(), e.key.as_str()));
    by_severity(&mut unchanged, |e| (e.severity.as_str(), e.key.as_str()));
    by_severity(&mut worse, |e| {
        (e.entry.severity.as_str(), e.entry.key.as_str())
    });
    OverTime {
        schema: SCHEMA,
        notes,
        baseline: side(old),
        current: side(new),
        corpus,
        new: added,
        fixed,
        worse,
        unchanged,
    }
}
