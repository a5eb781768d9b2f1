//! Exploration first: which disagreements are minimized, and which are counted as repeats of
//! a kind already known (issue 39).
//!
//! A finding kind is a [`Signature`]: what kind of failure, the reference's outcome, the
//! implementation's outcome class, and the fields the mutations touched. The fields are only
//! known for sure after minimization, which costs adapter sessions; against a buggy
//! implementation re-minimizing every repeat would spend the run learning what it knows. So
//! a candidate is minimized only when its kind cannot be told from its mutation record:
//!
//! 1. its signature was seen before (exactly, or as the result of a minimization): a repeat;
//! 2. a known kind of the same class (failure kind, reference, implementation outcome) whose
//!    fields are a subset of the candidate's explains it: a repeat of that kind (the smallest
//!    such kind; a kind reached on the unmutated seed explains nothing else);
//! 3. otherwise it is minimized — at most [`DEFAULT_MINIMIZE_BUDGET`] times per class (a count,
//!    not a time: the same run makes the same decisions on any machine); past the budget it is
//!    counted as unclassified.
//!
//! Workers minimize ahead of the commit a disagreement the triage would minimize as it stands
//! ([`Triage::would_minimize`]); the commit still decides, in batch order, and uses that result
//! (a function of the candidate alone) or minimizes itself — so which worker minimized what
//! never changes the findings. The time spent minimizing is measured and reported as a share
//! of the workers' time.

use std::collections::BTreeMap;
use std::time::Duration;

use delegateos_vectors::format::Severity;
use delegateos_vectors::fuzz::finding::{Finding, FindingKind};

/// Minimizations per class (failure kind × reference outcome × implementation outcome).
pub const DEFAULT_MINIMIZE_BUDGET: usize = 16;

/// A finding kind (see the module docs): the core's signature.
pub(crate) use delegateos_vectors::fuzz::finding::Signature;

fn class(s: &Signature) -> (FindingKind, &str, &str) {
    (s.kind, &s.reference, &s.actual)
}

/// Whether known kind `known` explains `other` (same class, fields a subset).
fn explains(known: &Signature, other: &Signature) -> bool {
    class(known) == class(other)
        && known.fields != ["seed"]
        && known.fields.iter().all(|f| other.fields.contains(f))
}

/// What to do with a candidate that disagreed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// A repeat of this known kind.
    Known(Signature),
    /// Minimize it to learn its kind.
    Minimize,
    /// Its class's minimization budget is spent: counted, not minimized.
    Unclassified,
}

/// Which kinds are known, which findings they are, and what minimizing cost.
#[derive(Debug, Default)]
pub(crate) struct Triage {
    /// Signature before minimization → the kind it minimized to.
    resolved: BTreeMap<Signature, Signature>,
    /// Kind → index of its finding (`None`: past `--max-findings`).
    kinds: BTreeMap<Signature, Option<usize>>,
    /// Minimizations per class.
    spent: BTreeMap<(FindingKind, String, String), usize>,
    budget: usize,
    /// Repeats of known kinds.
    pub duplicates: usize,
    /// Distinct kinds past `--max-findings`.
    pub suppressed: usize,
    /// Disagreements past their class's budget.
    pub unclassified: usize,
    /// Minimizations run.
    pub minimizations: usize,
    /// Wall time spent minimizing.
    pub minimizing: Duration,
}

impl Triage {
    /// A triage with `budget` minimizations per class.
    pub(crate) fn new(budget: usize) -> Self {
        Self {
            budget,
            ..Self::default()
        }
    }

    /// Decides on a candidate's signature (before minimization).
    pub(crate) fn decide(&mut self, sig: &Signature) -> Decision {
        if let Some(known) = self.resolved.get(sig) {
            return Decision::Known(known.clone());
        }
        if self.kinds.contains_key(sig) {
            return Decision::Known(sig.clone());
        }
        let explained = self
            .kinds
            .keys()
            .filter(|k| explains(k, sig))
            .min_by_key(|k| k.fields.len());
        if let Some(k) = explained {
            return Decision::Known(k.clone());
        }
        let class = (sig.kind, sig.reference.clone(), sig.actual.clone());
        let spent = self.spent.entry(class).or_insert(0);
        if *spent >= self.budget {
            self.unclassified += 1;
            return Decision::Unclassified;
        }
        *spent += 1;
        self.minimizations += 1;
        Decision::Minimize
    }

    /// Whether [`Self::decide`] would now answer [`Decision::Minimize`] (without counting
    /// anything): a worker asks before minimizing ahead of the commit.
    pub(crate) fn would_minimize(&self, sig: &Signature) -> bool {
        !self.resolved.contains_key(sig)
            && !self.kinds.contains_key(sig)
            && !self.kinds.keys().any(|k| explains(k, sig))
            && self
                .spent
                .get(&(sig.kind, sig.reference.clone(), sig.actual.clone()))
                .is_none_or(|&n| n < self.budget)
    }

    /// Counts a repeat of `kind`; returns its finding's index to add the hit to.
    pub(crate) fn repeat(&mut self, kind: &Signature) -> Option<usize> {
        self.duplicates += 1;
        self.kinds.get(kind).copied().flatten()
    }

    /// Records that `before` minimized to `kind`. Returns `Err(index)` when `kind` was already
    /// known (a repeat; the index of its finding if written), `Ok(true)` when it is a new kind
    /// to write as the next finding, `Ok(false)` when it is new but past `max_findings`.
    pub(crate) fn minimized(
        &mut self,
        before: Signature,
        kind: Signature,
        findings: usize,
        max_findings: usize,
    ) -> Result<bool, Option<usize>> {
        self.resolved.insert(before, kind.clone());
        if self.kinds.contains_key(&kind) {
            return Err(self.repeat(&kind));
        }
        if findings >= max_findings {
            self.suppressed += 1;
            self.kinds.insert(kind, None);
            return Ok(false);
        }
        self.kinds.insert(kind, Some(findings));
        Ok(true)
    }
}

/// What the commit does with a disagreement before minimizing ([`Triage::before_minimizing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Next {
    /// Nothing more: a repeat (its hit counted) or past its class's budget.
    Skip,
    /// Minimize it to learn its kind.
    Minimize,
    /// A repeat graded more severe than finding `.0`, the example of kind `.1`: minimize it,
    /// and if it stays that kind it becomes the example.
    Upgrade(usize, Signature),
}

/// What the commit does with a minimized disagreement ([`Triage::after_minimizing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum After {
    /// Nothing more (a repeat, its hit counted, or a new kind past `--max-findings`).
    Skip,
    /// Keep the more severe of it and finding `.0` ([`super::drive::keep_more_severe`]).
    Upgrade(usize),
    /// A new kind: the next finding.
    New,
}

impl Triage {
    /// Decides on a disagreement of signature `sig`; a repeat's hit is counted on its finding
    /// in `findings`, and `severity` (asked only for a repeat of a written finding) is the
    /// candidate's, for [`Next::Upgrade`].
    pub(crate) fn before_minimizing(
        &mut self,
        sig: &Signature,
        findings: &mut [Finding],
        severity: impl FnOnce() -> Option<Severity>,
    ) -> Next {
        match self.decide(sig) {
            Decision::Minimize => Next::Minimize,
            Decision::Unclassified => Next::Skip,
            Decision::Known(known) => {
                let Some((i, f)) = self
                    .repeat(&known)
                    .and_then(|i| Some((i, findings.get_mut(i)?)))
                else {
                    return Next::Skip;
                };
                f.hits += 1;
                if severity().is_some_and(|s| s > f.severity) {
                    Next::Upgrade(i, known)
                } else {
                    Next::Skip
                }
            }
        }
    }

    /// Records that `before` (decided as `next`) minimized to `kind`.
    pub(crate) fn after_minimizing(
        &mut self,
        next: Next,
        before: Signature,
        kind: &Signature,
        findings: &mut [Finding],
        max_findings: usize,
    ) -> After {
        if let Next::Upgrade(i, known) = next {
            if known == *kind {
                return After::Upgrade(i);
            }
        }
        match self.minimized(before, kind.clone(), findings.len(), max_findings) {
            Err(index) => {
                if let Some(f) = index.and_then(|i| findings.get_mut(i)) {
                    f.hits += 1;
                }
                After::Skip
            }
            Ok(false) => After::Skip,
            Ok(true) => After::New,
        }
    }
}

/// Up to this many mutations, minimization tries every proper subset in one adapter session
/// (at most 15 candidates) and keeps the smallest that still disagrees the same way; above it,
/// one mutation is dropped per session while the disagreement persists.
pub(crate) const SUBSETS_UP_TO: usize = 4;

/// The proper subsets of `0..n` (as index lists in order), smallest first, each size in
/// lexicographic order: the empty set first.
pub(crate) fn proper_subsets(n: usize) -> Vec<Vec<usize>> {
    let mut all: Vec<Vec<usize>> = (0u32..(1u32 << n) - 1)
        .map(|mask| (0..n).filter(|i| mask & (1 << i) != 0).collect())
        .collect();
    all.sort_by(|a: &Vec<usize>, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(kind: FindingKind, actual: &str, fields: &[&str]) -> Signature {
        Signature {
            kind,
            reference: "expired".to_owned(),
            actual: actual.to_owned(),
            fields: fields.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    #[test]
    fn a_known_kind_explains_supersets_of_its_fields_in_its_class_only() {
        let mut t = Triage::new(2);
        let a = sig(FindingKind::Disagreement, "accepted", &["token:expiresAt"]);
        assert_eq!(t.decide(&a), Decision::Minimize);
        assert_eq!(t.minimized(a.clone(), a.clone(), 0, 10), Ok(true));
        let wider = sig(
            FindingKind::Disagreement,
            "accepted",
            &["forge", "token:expiresAt"],
        );
        assert_eq!(t.decide(&wider), Decision::Known(a.clone()));
        // Another class (a crash) with the same fields is not explained by it.
        let crash = sig(FindingKind::Crash, "none", &["token:expiresAt"]);
        assert_eq!(t.decide(&crash), Decision::Minimize);
        // Fields that do not contain the known kind's are not explained either.
        let other = sig(FindingKind::Disagreement, "accepted", &["forge"]);
        assert_eq!(t.decide(&other), Decision::Minimize);
        assert_eq!(t.minimizations, 3);
    }

    #[test]
    fn the_budget_is_a_count_per_class_and_seed_kinds_explain_nothing_else() {
        let mut t = Triage::new(1);
        let seed = sig(FindingKind::Disagreement, "refused", &["seed"]);
        assert_eq!(t.decide(&seed), Decision::Minimize);
        assert_eq!(t.minimized(seed.clone(), seed.clone(), 0, 10), Ok(true));
        let mutated = sig(FindingKind::Disagreement, "refused", &["token:budget"]);
        // Not explained by the seed kind, and the class's one minimization is spent.
        assert_eq!(t.decide(&mutated), Decision::Unclassified);
        assert_eq!(t.unclassified, 1);
        // A repeat of the exact seed kind is still a repeat.
        assert_eq!(t.decide(&seed), Decision::Known(seed.clone()));
        assert_eq!(t.repeat(&seed), Some(0));
    }

    #[test]
    fn proper_subsets_come_smallest_first() {
        assert_eq!(proper_subsets(1), vec![Vec::<usize>::new()]);
        assert_eq!(
            proper_subsets(3),
            vec![
                vec![],
                vec![0],
                vec![1],
                vec![2],
                vec![0, 1],
                vec![0, 2],
                vec![1, 2]
            ]
        );
        assert_eq!(proper_subsets(4).len(), 15);
    }

    #[test]
    fn a_minimization_reaching_a_known_kind_is_a_repeat_and_the_cap_suppresses() {
        let mut t = Triage::new(5);
        let a = sig(FindingKind::Disagreement, "accepted", &["x"]);
        assert_eq!(t.minimized(a.clone(), a.clone(), 0, 1), Ok(true));
        let b = sig(FindingKind::Disagreement, "accepted", &["y", "z"]);
        assert_eq!(t.minimized(b.clone(), a.clone(), 1, 1), Err(Some(0)));
        assert_eq!(t.decide(&b), Decision::Known(a));
        let c = sig(FindingKind::Timeout, "none", &["w"]);
        assert_eq!(t.minimized(c.clone(), c, 1, 1), Ok(false));
        assert_eq!((t.duplicates, t.suppressed), (1, 1));
    }
}
