//! Issue 27's rule, over the committed corpus: a case is `normative` only if the clause of the
//! protocol spec or the architecture document that decides its outcome is named (in a
//! requirement it cites or in the case's description), and a case whose cited requirements rest
//! on a decision (`(decision Dn)` in `spec/requirements.md`) has at most that decision's level
//! (`Level:` in `spec/decisions.md`) unless such a clause is named. See
//! `delegateos_vectors::levels` for what "named" means.
//!
//! The test lists every violation (one line each: the case, its level, its ceiling and why),
//! so a new case or a changed requirement cannot silently claim more than the text says.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_vectors::corpus::load_embedded;
use delegateos_vectors::levels::{basis, ceiling, rank, Basis};
use delegateos_vectors::requirements::Requirements;

#[test]
fn no_case_is_above_the_level_its_clauses_and_decisions_allow() {
    let reqs = Requirements::embedded();
    let files = load_embedded().unwrap_or_else(|e| panic!("corpus does not load: {e:?}"));
    let mut violations = Vec::new();
    let mut checked = 0usize;
    for file in &files {
        for case in &file.file.cases {
            checked += 1;
            let (limit, why) = ceiling(&reqs, &case.requirements, &case.description);
            if rank(case.level) > rank(limit) {
                violations.push(format!(
                    "{}: level {} above its ceiling {} ({why})",
                    case.id,
                    case.level.as_str(),
                    limit.as_str()
                ));
            }
        }
    }
    assert!(checked > 1000, "only {checked} cases checked");
    assert!(
        violations.is_empty(),
        "{} case(s) claim more than the text they name:\n{}",
        violations.len(),
        violations.join("\n")
    );
}

#[test]
fn every_cited_decision_exists_with_a_level() {
    let reqs = Requirements::embedded();
    let missing: Vec<String> = reqs
        .list
        .iter()
        .filter_map(|r| match basis(r) {
            Basis::Decision(d, _)
                if !delegateos_vectors::levels::decision_levels().contains_key(&d) =>
            {
                Some(format!("{} cites {d}, which has no `Level:` line", r.id))
            }
            _ => None,
        })
        .collect();
    assert!(missing.is_empty(), "{missing:#?}");
}
