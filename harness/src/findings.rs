//! Findings: failing cases grouped by root cause (`spec/severity.md` §3), ranked by what the
//! implementation's behaviour lets an attacker do.
//!
//! A leaf shared by the three reports that judge implementations — `run` (`report/`), `mcp`
//! (`mcp/cli.rs`) and `fuzz` (`fuzz/drive.rs`) — so none of them imports another. Each turns its
//! own failing cases into [`Member`]s (one assessed case each, see
//! [`delegateos_vectors::severity::Model::assess`]); [`group`] makes one [`Finding`] per
//! finding key, with the smallest case as its example. [`assess`] grades one failing case of
//! a run (the run report's and `fuzz --op`'s cases alike); it depends only on the runner's
//! result types.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::Value;

use crate::runner::case::Case;
use crate::runner::CaseResult;
use delegateos_vectors::faults::{self, Diagnosis};
use delegateos_vectors::format::Severity;
use delegateos_vectors::outcome::{self, Subject};
use delegateos_vectors::requirements::Requirements;
use delegateos_vectors::severity::{self, Assessment, Direction, Hint};

/// Where every report cites the severity model from.
pub const SEVERITY_MODEL: &str = "spec/severity.md";

/// Requirement texts quoted per finding, most cited first.
const MAX_REQUIREMENTS: usize = 3;

/// One failing case, assessed.
#[derive(Debug, Clone)]
pub struct Member {
    /// The case as every finding shows it.
    pub case: CaseView,
    /// Requirement ids.
    pub requirements: Vec<String>,
    /// The model's verdict.
    pub assessment: Assessment,
    /// True when the case decides the exit code (normative or decision level, not another
    /// code of the family, not advisory).
    pub counted: bool,
}

/// A requirement with its text from `spec/requirements.md`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RequirementText {
    /// The id.
    pub id: String,
    /// Its text (keyword and sentence), empty when the id is unknown.
    pub text: String,
}

/// One failing case as the findings show it (the one case view of `run`, `mcp` and `fuzz`):
/// a finding's example is its smallest member's view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseView {
    /// Case id.
    pub id: String,
    /// Case description.
    pub description: String,
    /// Operation.
    pub op: String,
    /// What the implementation did.
    pub did: String,
    /// Input size in bytes (serialized JSON): the smallest case is a finding's example.
    pub input_bytes: usize,
    /// The expectation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// What the implementation answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// Unified diff, expected → actual.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// The operation of the MCP proxy suite's cases (`mcp`): scripts run against a proxy, not
/// corpus cases with an input (`explain` does not know them).
pub const MCP_SUITE_OP: &str = "mcp";

impl CaseView {
    /// Whether the case is a corpus case (it has an input, and `explain` shows it), not a
    /// proxy-suite case.
    pub fn from_corpus(&self) -> bool {
        self.op != MCP_SUITE_OP
    }
}

/// One root cause.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The finding key (`spec/severity.md` §3), e.g. `root-signature/granted`.
    pub key: String,
    /// Severity of its effect.
    pub severity: Severity,
    /// The effect (`spec/severity.md` §2).
    pub effect: String,
    /// What the implementation did.
    pub direction: Direction,
    /// What is broken, in one line.
    pub title: String,
    /// How to fix it.
    pub fix: String,
    /// False when no case of the finding counts in the exit code (hardening level, another
    /// code of the family).
    pub counted: bool,
    /// Number of cases.
    pub cases: usize,
    /// Every case id, sorted.
    pub ids: Vec<String>,
    /// The requirements its cases cite most, with their text.
    pub requirements: Vec<RequirementText>,
    /// The smallest case.
    pub example: CaseView,
    /// The catalogue fault that explains the finding's cases (`spec/data/faults.json`), with
    /// how well its fingerprint matches the run: the finding names the implementation's own
    /// defect, not the topic of the first case that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultEvidence>,
    /// True when the run was diagnosed and no catalogued fault explains these cases: the
    /// finding is named by the severity model's rules (a signal for the catalogue).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unexplained: bool,
}

/// How a catalogue fault matches a run (`spec/data/faults.json`, issue 47).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FaultEvidence {
    /// The fault id.
    pub id: String,
    /// The spec step it breaks.
    pub step: String,
    /// Failures of this run it explains.
    pub explained: usize,
    /// Cases its fingerprint holds.
    pub predicted: usize,
    /// Cases it predicts to fail that passed in this run.
    pub mispredicted: usize,
    /// Failures of this run it does not predict, filed under it because they share the
    /// rule-based finding of failures it explains, and no other named fault's do
    /// (`Diagnosis::join_by_effect`).
    pub joined: usize,
}

impl FaultEvidence {
    /// "explains 14 failures; its other 2 cases passed", for the reports.
    pub fn summary(&self) -> String {
        let rest = match self.mispredicted {
            0 => String::new(),
            1 => "; 1 other case it predicts passed".to_owned(),
            n => format!("; {n} other cases it predicts passed"),
        };
        let joined = match self.joined {
            0 => String::new(),
            n => format!(
                "; {n} failure(s) of the same rule and effect it does not predict joined it"
            ),
        };
        format!(
            "fault {} ({}): explains {} failure{}{rest}{joined}",
            self.id,
            self.step,
            self.explained,
            if self.explained == 1 { "" } else { "s" }
        )
    }
}

/// The finding key of a case explained by catalogue fault `id`.
pub fn fault_key(id: &str) -> String {
    format!("fault:{id}")
}

/// A run's failures explained by the fault catalogue: `failed` is each failing corpus case's
/// id, operation, behaviour group (`area/group`) and assessment, `passed` the cases that ran
/// and passed (`delegateos_vectors::faults::diagnose`, then `join_by_effect`).
pub fn diagnose<'a>(
    failed: impl Iterator<Item = (&'a str, &'a str, String, &'a Assessment)>,
    passed: impl Iterator<Item = &'a str>,
) -> Diagnosis {
    let failed: Vec<(&str, &str, String, &Assessment)> = failed.collect();
    let directions: BTreeMap<String, Direction> = failed
        .iter()
        .map(|(id, _, _, a)| ((*id).to_owned(), a.direction))
        .collect();
    let keys: BTreeMap<String, String> = failed
        .iter()
        .map(|(id, _, _, a)| ((*id).to_owned(), a.key.clone()))
        .collect();
    let ops: BTreeMap<String, String> = failed
        .iter()
        .map(|(id, op, _, _)| ((*id).to_owned(), (*op).to_owned()))
        .collect();
    let groups: BTreeMap<String, String> = failed
        .iter()
        .map(|(id, _, group, _)| ((*id).to_owned(), group.clone()))
        .collect();
    let passed: BTreeSet<String> = passed.map(str::to_owned).collect();
    let mut d = faults::diagnose(&directions, &passed);
    d.join_by_effect(&keys, &ops, &groups);
    d
}

/// The finding a failing case is filed under: its diagnosed fault when the run has one that
/// explains it, else [`finding_key`]'s rule-based key.
pub fn case_key(
    id: &str,
    a: &Assessment,
    keys: &BTreeSet<String>,
    diagnosis: &Diagnosis,
) -> String {
    match diagnosis.fault_of(id) {
        Some(m) => fault_key(&m.fault),
        None => finding_key(a, keys).to_owned(),
    }
}

/// The finding keys a run's assessments name by themselves (before any joins).
pub fn own_keys<'a>(assessments: impl Iterator<Item = &'a Assessment>) -> BTreeSet<String> {
    assessments.map(|a| a.key.clone()).collect()
}

/// The finding an assessment belongs to, given the run's [`own_keys`]: a case keyed by a flag
/// or output member joins its rule's finding where the run has one (`spec/severity.md` §3) —
/// the general defect explains the flagged cases too, and its finding shows the flag's fix as
/// a hint. Without such a finding the flag keys its own.
pub fn finding_key<'a>(a: &'a Assessment, keys: &BTreeSet<String>) -> &'a str {
    match &a.joins {
        Some(rule) if keys.contains(rule) => rule,
        _ => &a.key,
    }
}

/// Groups `members` into findings: one per finding key, sorted by severity, counted first,
/// effect rank, case count, then key (`spec/severity.md` §3).
pub fn group(members: Vec<Member>, reqs: &Requirements) -> Vec<Finding> {
    group_diagnosed(members, reqs, None)
}

/// [`group`], with the cases `diagnosis` explains filed under their catalogue fault: one
/// finding per fault, titled and fixed by the catalogue, its severity and effect the most
/// severe of its cases' stated stakes; every other finding is marked unexplained.
pub fn group_diagnosed(
    members: Vec<Member>,
    reqs: &Requirements,
    diagnosis: Option<&Diagnosis>,
) -> Vec<Finding> {
    let keys = own_keys(members.iter().map(|m| &m.assessment));
    let mut by_key: BTreeMap<String, Vec<Member>> = BTreeMap::new();
    for m in members {
        let key = match diagnosis {
            Some(d) => case_key(&m.case.id, &m.assessment, &keys, d),
            None => finding_key(&m.assessment, &keys).to_owned(),
        };
        by_key.entry(key).or_default().push(m);
    }
    let mut out: Vec<Finding> = by_key
        .into_iter()
        .filter_map(|(key, mut ms)| {
            // The example: a counted case before a hardening one, then the smallest input,
            // then the id.
            ms.sort_by(|a, b| {
                b.counted
                    .cmp(&a.counted)
                    .then(a.case.input_bytes.cmp(&b.case.input_bytes))
                    .then_with(|| a.case.id.cmp(&b.case.id))
            });
            let first = ms.first()?;
            // The most severe of the key's own members decides (they share one assessment,
            // except `(rule)` flags whose effect follows the rule of each case); members that
            // joined the key have its effect and contribute their hints.
            let matched = diagnosis.and_then(|d| {
                let id = key.strip_prefix("fault:")?;
                let m = d.faults.iter().find(|m| m.fault == id)?;
                Some((faults::fault(id)?, m))
            });
            let lead = ms
                .iter()
                .filter(|m| matched.is_some() || m.assessment.key == key)
                .max_by(|a, b| {
                    a.assessment
                        .severity
                        .cmp(&b.assessment.severity)
                        .then_with(|| b.case.id.cmp(&a.case.id))
                })
                .unwrap_or(first);
            let mut cited: BTreeMap<&str, usize> = BTreeMap::new();
            for m in &ms {
                for r in &m.requirements {
                    *cited.entry(r.as_str()).or_default() += 1;
                }
            }
            let mut cited: Vec<(&str, usize)> = cited.into_iter().collect();
            cited.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
            let requirements = cited
                .into_iter()
                .take(MAX_REQUIREMENTS)
                .map(|(id, _)| RequirementText {
                    id: id.to_owned(),
                    text: reqs
                        .get(id)
                        .map(|r| format!("{} {}", r.level, r.text))
                        .unwrap_or_default(),
                })
                .collect();
            let mut ids: Vec<String> = ms.iter().map(|m| m.case.id.clone()).collect();
            ids.sort();
            let (title, fix) = match matched {
                Some((fault, _)) => (fault.title.clone(), fault.fix.clone()),
                None => (
                    lead.assessment.title.clone(),
                    with_hints(
                        &lead.assessment.fix,
                        ms.iter().filter(|m| m.assessment.key != key),
                    ),
                ),
            };
            Some(Finding {
                key,
                severity: lead.assessment.severity,
                effect: lead.assessment.effect.clone(),
                direction: lead.assessment.direction,
                title,
                fix,
                counted: ms.iter().any(|m| m.counted),
                cases: ms.len(),
                ids,
                requirements,
                example: first.case.clone(),
                fault: matched.map(|(fault, m)| FaultEvidence {
                    id: fault.id.clone(),
                    step: fault.step.clone(),
                    explained: m.explained.len(),
                    predicted: m.predicted,
                    mispredicted: m.mispredicted,
                    joined: ms
                        .iter()
                        .filter(|x| !m.explained.contains(&x.case.id))
                        .count(),
                }),
                unexplained: diagnosis.is_some() && matched.is_none(),
            })
        })
        .collect();
    // Severity, then counted before not counted, then the effect's rank (forgery,
    // authorization and revocation bypass before scope, budget, expiry, depth, spend and
    // crash: spec/severity.md §2), then the catalogue's order of diagnosed faults, then case count.
    let model = severity::model();
    out.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(b.counted.cmp(&a.counted))
            .then_with(|| {
                model
                    .effect_rank(&a.effect)
                    .cmp(&model.effect_rank(&b.effect))
            })
            // Within one effect, diagnosed faults in the catalogue's order, which follows the
            // spec's steps (a forged root before a forged attenuation), then the rest.
            .then_with(|| catalogue_rank(a).cmp(&catalogue_rank(b)))
            .then(b.cases.cmp(&a.cases))
            .then_with(|| a.key.cmp(&b.key))
    });
    out
}

/// A finding's fault's position in the catalogue (`usize::MAX` when it names none).
fn catalogue_rank(f: &Finding) -> usize {
    f.fault
        .as_ref()
        .and_then(|e| faults::catalogue().iter().position(|c| c.id == e.id))
        .unwrap_or(usize::MAX)
}

/// `fix` followed by the distinct hints of the joined members `ms` (flags and output members
/// whose cases joined a rule's finding, `spec/severity.md` §3), most frequent first.
fn with_hints<'m>(fix: &str, ms: impl Iterator<Item = &'m Member>) -> String {
    let mut hints: BTreeMap<&Hint, usize> = BTreeMap::new();
    for m in ms {
        if let Some(h) = &m.assessment.hint {
            *hints.entry(h).or_default() += 1;
        }
    }
    let mut hints: Vec<(&Hint, usize)> = hints.into_iter().collect();
    hints.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut out = fix.to_owned();
    for (h, _) in hints {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&format!("In particular ({}): {}", h.from, h.fix));
    }
    out
}

/// Counts per severity, most severe first: `[critical, high, medium, low]`.
pub fn tally(findings: &[Finding]) -> [usize; 4] {
    let mut out = [0; 4];
    for f in findings {
        if let Some(i) = Severity::ORDER.iter().position(|s| *s == f.severity) {
            out[i] += 1;
        }
    }
    out
}

/// The model's assessment of a case's outcome (`None` for passed, acceptable and skipped
/// cases): direction, effect, severity and finding key (`spec/severity.md`), through the one
/// entry [`delegateos_vectors::outcome::assess`]. The run report and `fuzz --op` grade their
/// cases with it. The severity follows the effect of what the implementation did, never the
/// operation.
pub fn assess(case: &Case, result: &CaseResult) -> Option<Assessment> {
    outcome::assess(&subject(case), &result.outcome)
}

/// The facts of a corpus case the severity model reads.
pub fn subject(case: &Case) -> Subject<'_> {
    Subject {
        op: &case.op,
        flags: &case.flags,
        requirements: &case.requirements,
        expectation: Some(&case.expect),
        stake: case.stated_stake(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn member(id: &str, key: &str, severity: Severity, counted: bool, bytes: usize) -> Member {
        Member {
            case: CaseView {
                id: id.to_owned(),
                description: format!("case {id}"),
                op: "dct.verify".to_owned(),
                input_bytes: bytes,
                did: format!("did {id}"),
                expected: Some(json!({"result": "invalid", "code": "expired"})),
                actual: Some(json!({"outcome": "ok"})),
                diff: Some(format!("diff {id}")),
            },
            requirements: vec!["DCT-VERIFY-5-EXPIRED".to_owned(), format!("REQ-{id}")],
            assessment: Assessment {
                direction: Direction::Granted,
                effect: format!("effect-of-{key}"),
                severity,
                key: key.to_owned(),
                title: format!("title of {key}"),
                fix: format!("fix {key}"),
                joins: None,
                hint: None,
            },
            counted,
        }
    }

    #[test]
    fn one_finding_per_key_with_the_smallest_counted_case_as_example() {
        let reqs = Requirements::embedded();
        let fs = group(
            vec![
                member("c-3", "a", Severity::Critical, true, 300),
                member("c-1", "a", Severity::Critical, false, 10),
                member("c-2", "a", Severity::Critical, true, 200),
                member("m-1", "b", Severity::Medium, true, 5),
            ],
            &reqs,
        );
        assert_eq!(fs.len(), 2);
        let a = &fs[0];
        assert_eq!((a.key.as_str(), a.cases, a.counted), ("a", 3, true));
        assert_eq!(a.ids, vec!["c-1", "c-2", "c-3"]);
        // A counted case comes before a smaller hardening one.
        assert_eq!(a.example.id, "c-2");
        assert_eq!(a.example.input_bytes, 200);
        assert_eq!(a.example.did, "did c-2");
        assert_eq!(a.example.diff.as_deref(), Some("diff c-2"));
        assert_eq!(a.title, "title of a");
        assert_eq!(a.fix, "fix a");
        assert_eq!(a.effect, "effect-of-a");
        // The most cited requirement first, with its text from spec/requirements.md.
        assert_eq!(a.requirements[0].id, "DCT-VERIFY-5-EXPIRED");
        assert!(
            a.requirements[0].text.starts_with("MUST"),
            "{:?}",
            a.requirements
        );
        assert_eq!(a.requirements.len(), MAX_REQUIREMENTS);
        assert_eq!(a.requirements[1].text, "");
        assert_eq!(fs[1].key, "b");
        assert_eq!(tally(&fs), [1, 0, 1, 0]);
    }

    #[test]
    fn findings_sort_by_severity_then_cases_then_key_and_count_only_counted_cases() {
        let reqs = Requirements::embedded();
        let fs = group(
            vec![
                member("h-1", "h", Severity::High, false, 1),
                member("z-1", "z", Severity::Critical, true, 1),
                member("y-1", "y", Severity::Critical, true, 1),
                member("y-2", "y", Severity::Critical, true, 1),
                member("x-1", "x", Severity::Critical, true, 1),
                member("l-1", "l", Severity::Low, true, 1),
            ],
            &reqs,
        );
        let keys: Vec<&str> = fs.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, vec!["y", "x", "z", "h", "l"]);
        assert!(!fs[3].counted);
        assert_eq!(tally(&fs), [3, 1, 0, 1]);
        assert_eq!(tally(&[]), [0, 0, 0, 0]);
    }

    /// A runner case's outcome is graded with the case's facts: a failure gives its finding,
    /// a pass none.
    #[test]
    fn a_runner_case_is_graded_through_the_one_assess() {
        use crate::runner::{CaseResult, Outcome, Status};
        use delegateos_vectors::judge::FailureKind;
        let cases = crate::runner::case::load_corpus(&delegateos_vectors::CorpusSource::Embedded)
            .expect("corpus");
        let case = cases
            .iter()
            .find(|c| {
                c.requirements
                    .iter()
                    .any(|r| r == "DCT-VERIFY-2-EVERY-BLOCK")
            })
            .expect("a revocation case");
        let result = |outcome: Outcome| CaseResult {
            index: 0,
            status: Status::Failed,
            outcome,
            actual: None,
            message: None,
            stderr_tail: None,
            expected_failure: None,
            duration: std::time::Duration::ZERO,
        };
        let failed = result(Outcome::Failed {
            kind: FailureKind::AcceptedInvalid,
            diff: String::new(),
            output: None,
        });
        let a = assess(case, &failed).expect("a finding");
        assert_eq!(a.direction, Direction::Granted);
        assert_eq!(a.effect, case.stake.granted);
        assert_eq!(assess(case, &result(Outcome::Passed)), None);
    }

    /// The requirements a finding quotes are its cases' most cited first, whatever their names.
    #[test]
    fn the_most_cited_requirement_comes_first() {
        let reqs = Requirements::embedded();
        let with = |id: &str, ids: &[&str]| {
            let mut m = member(id, "k", Severity::High, true, 1);
            m.requirements = ids.iter().map(|s| (*s).to_owned()).collect();
            m
        };
        let fs = group(
            vec![
                with("a-1", &["ZZZ-MANY", "AAA-ONCE"]),
                with("a-2", &["ZZZ-MANY"]),
            ],
            &reqs,
        );
        let ids: Vec<&str> = fs[0].requirements.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, vec!["ZZZ-MANY", "AAA-ONCE"]);
    }

    #[test]
    fn the_most_severe_member_leads_a_mixed_key() {
        let reqs = Requirements::embedded();
        let mut low = member("a-1", "k", Severity::Medium, true, 1);
        low.assessment.title = "medium title".to_owned();
        let high = member("a-2", "k", Severity::Critical, true, 9);
        let fs = group(vec![low, high], &reqs);
        assert_eq!(fs.len(), 1);
        assert_eq!(fs[0].severity, Severity::Critical);
        assert_eq!(fs[0].title, "title of k");
        assert_eq!(fs[0].example.id, "a-1");
    }

    #[test]
    fn a_flagged_case_joins_its_rule_finding_only_where_the_run_has_one() {
        let reqs = Requirements::embedded();
        let flagged = |id: &str, flag: &str, joins: &str| {
            let mut m = member(id, &format!("{flag}/e"), Severity::Critical, true, 1);
            m.assessment.joins = Some(joins.to_owned());
            m.assessment.hint = Some(Hint {
                from: flag.to_owned(),
                fix: format!("fix of {flag}"),
            });
            m
        };
        let fs = group(
            vec![
                member("r-1", "rule/e", Severity::Critical, true, 50),
                flagged("f-1", "Alpha", "rule/e"),
                flagged("f-2", "Often", "rule/e"),
                flagged("f-3", "Often", "rule/e"),
                // Its rule has no finding in this run: the flag keys its own.
                flagged("g-1", "Alone", "other/e"),
            ],
            &reqs,
        );
        let keys: Vec<(&str, usize)> = fs.iter().map(|f| (f.key.as_str(), f.cases)).collect();
        assert_eq!(keys, vec![("rule/e", 4), ("Alone/e", 1)]);
        // The rule's own member leads (title, fix); the smallest case is still the example.
        assert_eq!(fs[0].title, "title of rule/e");
        assert_eq!(fs[0].example.id, "f-1");
        assert_eq!(
            fs[0].fix,
            "fix rule/e In particular (Often): fix of Often In particular (Alpha): fix of Alpha"
        );
        assert_eq!(fs[1].fix, "fix Alone/e");
    }
}
