//! What an implementation did on one case, judged once (issue 37), and the one way it is graded.
//!
//! Every producer of results — the runner (`run`), the MCP proxy suite (`mcp`), both
//! differential fuzzers (`fuzz`, `delegateos_inprocess::fuzz`) and the in-process runner
//! (`delegateos_inprocess`) — turns what it saw into an [`Outcome`]. [`assess`] is the only
//! entry into the severity model (`spec/severity.md`): it reads the case's facts
//! ([`Subject`]) and the outcome, derives the direction (§1) and returns the
//! [`Assessment`]. [`fails_run`] is the one exit rule for a case: whether its outcome makes a
//! run exit 1.

use serde_json::Value;

use crate::format::{Expectation, Expected, Level, Stake};
use crate::judge::{FailureKind, Verdict};
use crate::severity::{self, Assessment, Direction, Failure};

/// Why a case has no verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The implementation exited (or panicked) while the case was in flight.
    Crash,
    /// No reply within the per-case deadline.
    Timeout,
    /// The reply violated the adapter protocol.
    ProtocolError,
    /// The implementation replied `errored` (or an error without a code).
    AdapterErrored,
    /// The adapter replied `threw`: the implementation threw on this input (an exception, a
    /// panic inside the library) while the adapter kept working. Graded as a crash on the
    /// case's input, by its stake (`crashOrHang`): a throw on untrusted input is a crash on
    /// untrusted input.
    Threw,
    /// The adapter could not be restarted for this case.
    RestartFailed,
    /// Not sent: too many consecutive errors before it.
    Abandoned,
    /// The case ran but its result could not be judged (the MCP suite's `errored` case: the
    /// proxy or the harness failed before the case's own check).
    #[serde(rename = "errored")]
    Unjudged,
}

impl ErrorKind {
    /// snake_case name (reports, finding keys).
    pub fn name(self) -> &'static str {
        match self {
            Self::Crash => "crash",
            Self::Timeout => "timeout",
            Self::ProtocolError => "protocol_error",
            Self::AdapterErrored => "adapter_errored",
            Self::Threw => "threw",
            Self::RestartFailed => "restart_failed",
            Self::Abandoned => "abandoned",
            Self::Unjudged => "errored",
        }
    }
}

/// What an implementation did on one case, once judged against the case's expectation.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Matched the expectation (or its first acceptable outcome).
    Passed,
    /// Matched an acceptable outcome other than the first: the other reading of a decision.
    Acceptable,
    /// Did not match.
    Failed {
        /// What kind of violation.
        kind: FailureKind,
        /// Unified diff, expected (`-`) vs actual (`+`).
        diff: String,
        /// The output the implementation answered, when it succeeded.
        output: Option<Value>,
    },
    /// Refused as expected, with another code of the expected code's family
    /// (`spec/error-codes.md` §11): a hardening finding, never an acceptance.
    OtherCode {
        /// The family.
        family: String,
        /// Unified diff, expected (`-`) vs actual (`+`).
        diff: String,
    },
    /// Not run: the operation is unsupported, or the implementation answered `skipped`.
    Skipped,
    /// No verdict.
    Errored(ErrorKind),
}

impl Outcome {
    /// The judge's verdict as an outcome; `output` is what the implementation answered when
    /// it succeeded (read by the severity model's output members).
    pub fn judged(verdict: Verdict, output: Option<&Value>) -> Self {
        match verdict {
            Verdict::Passed => Self::Passed,
            Verdict::Acceptable { .. } => Self::Acceptable,
            Verdict::Failed { diff, kind, .. } => Self::Failed {
                kind,
                diff,
                output: output.cloned(),
            },
            Verdict::OtherCode { diff, family, .. } => Self::OtherCode { family, diff },
        }
    }

    /// True when the outcome is a finding: failed, another code of the family, or errored.
    pub fn is_finding(&self) -> bool {
        matches!(
            self,
            Self::Failed { .. } | Self::OtherCode { .. } | Self::Errored(_)
        )
    }

    /// The unified diff of a failure or another code (expected → actual).
    pub fn diff(&self) -> Option<&str> {
        match self {
            Self::Failed { diff, .. } | Self::OtherCode { diff, .. } => Some(diff),
            _ => None,
        }
    }
}

/// An outcome that is a finding whatever the case: what a differential fuzzer saw on a
/// candidate where the implementation and the reference disagree. [`assess_fault`] grades it
/// and always answers; as an [`Outcome`] it is the variant of the same name.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// A judged violation ([`Outcome::Failed`]); `output` is what the implementation answered
    /// when it succeeded.
    Failed {
        /// What kind of violation.
        kind: FailureKind,
        /// The output the implementation answered, when it succeeded.
        output: Option<Value>,
    },
    /// Another code of the expected code's family ([`Outcome::OtherCode`]).
    OtherCode {
        /// The family.
        family: String,
    },
    /// No verdict ([`Outcome::Errored`]).
    Errored(ErrorKind),
}

/// The facts of a case the severity model reads: a corpus case, a fuzzer's candidate (no
/// flags and no stake once mutated), or a proxy case (no expectation).
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    /// The operation (`mcp` for a proxy case).
    pub op: &'a str,
    /// The case's flags.
    pub flags: &'a [String],
    /// The case's requirement ids.
    pub requirements: &'a [String],
    /// The case's expectation (a proxy case has none).
    pub expectation: Option<&'a Expectation>,
    /// The case's stated stake (every corpus case has one; inputs no case states are graded by
    /// the rules alone).
    pub stake: Option<&'a Stake>,
}

/// The severity model's assessment of `outcome` on `subject` (`spec/severity.md`); `None` for
/// an outcome that is no finding (passed, acceptable, skipped). The one function that grades.
pub fn assess(subject: &Subject<'_>, outcome: &Outcome) -> Option<Assessment> {
    let fault = match outcome {
        Outcome::Passed | Outcome::Acceptable | Outcome::Skipped => return None,
        Outcome::Failed { kind, output, .. } => FaultRef::Failed(*kind, output.as_ref()),
        Outcome::OtherCode { family, .. } => FaultRef::OtherCode(family),
        Outcome::Errored(kind) => FaultRef::Errored(*kind),
    };
    Some(grade(subject, fault))
}

/// [`assess`] for an outcome that is always a finding: total, so a fuzzer needs no fallback.
pub fn assess_fault(subject: &Subject<'_>, fault: &Fault) -> Assessment {
    grade(
        subject,
        match fault {
            Fault::Failed { kind, output } => FaultRef::Failed(*kind, output.as_ref()),
            Fault::OtherCode { family } => FaultRef::OtherCode(family),
            Fault::Errored(kind) => FaultRef::Errored(*kind),
        },
    )
}

/// A finding's outcome, borrowed from an [`Outcome`] or a [`Fault`].
#[derive(Clone, Copy)]
enum FaultRef<'a> {
    Failed(FailureKind, Option<&'a Value>),
    OtherCode(&'a str),
    Errored(ErrorKind),
}

/// The severity model's input from the case's facts and the finding's outcome.
fn grade(subject: &Subject<'_>, fault: FaultRef<'_>) -> Assessment {
    let (direction, output, family, error) = match fault {
        FaultRef::Failed(kind, output) => (direction(subject, kind, output), output, None, None),
        FaultRef::OtherCode(family) => (Direction::OtherCode, None, Some(family), None),
        FaultRef::Errored(ErrorKind::Crash | ErrorKind::Threw) => {
            (Direction::Crash, None, None, None)
        }
        FaultRef::Errored(ErrorKind::Timeout) => (Direction::Hang, None, None, None),
        FaultRef::Errored(kind) => (Direction::Errored, None, None, Some(kind.name())),
    };
    let expected_code = subject.expectation.map(first_code);
    severity::model().assess(&Failure {
        op: subject.op,
        flags: subject.flags,
        requirements: subject.requirements,
        direction,
        expected_code: expected_code.as_deref(),
        family,
        error_kind: error,
        expectation: subject.expectation,
        actual_output: output,
        stake: subject.stake,
    })
}

/// The direction of a judged failure (`spec/severity.md` §1); without an expectation (a proxy
/// case) the judge's kind alone.
fn direction(subject: &Subject<'_>, kind: FailureKind, output: Option<&Value>) -> Direction {
    match subject.expectation {
        Some(e) => severity::direction_of(subject.op, kind, e, output),
        None => match kind {
            FailureKind::AcceptedInvalid => Direction::Granted,
            FailureKind::RejectedValid => Direction::Refused,
            FailureKind::WrongCode => Direction::WrongCode,
            FailureKind::OutputMismatch => Direction::WrongOutput,
            FailureKind::NoAnswer => Direction::Errored,
        },
    }
}

/// The first outcome an expectation allows, as a code (`valid` for a success): the
/// reference's reading, which keys a wrong code.
fn first_code(expectation: &Expectation) -> String {
    match expectation.outcomes().first() {
        Some(Expected::Invalid { code, .. }) => code.clone(),
        Some(Expected::Valid { .. }) | None => "valid".to_owned(),
    }
}

/// What makes a run exit 1 besides its normative and decision failures (`run --fail-on`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FailOn {
    /// `--fail-on hardening` (or `--profile strict`): hardening findings and other codes of the
    /// family count.
    pub hardening: bool,
    /// `--fail-on advisory`: advisory cases count.
    pub advisory: bool,
    /// `--fail-on levels`: only levels decide; a critical finding of the hardening level does
    /// not count by itself.
    pub levels_only: bool,
}

/// Whether one case's outcome makes the run exit 1 (`spec/severity.md` §9, the README's exit
/// codes): a failed or errored normative or decision case; a critical failure of any level
/// (unless `--fail-on levels`); a hardening failure or another code of the family under
/// `--fail-on hardening`; an advisory case only under `--fail-on advisory`.
pub fn fails_run(
    level: Level,
    advisory: bool,
    outcome: &Outcome,
    critical: bool,
    fail_on: FailOn,
) -> bool {
    if advisory {
        return fail_on.advisory && matches!(outcome, Outcome::Failed { .. } | Outcome::Errored(_));
    }
    match outcome {
        Outcome::Failed { .. } | Outcome::Errored(_) => {
            level != Level::Hardening || fail_on.hardening || (critical && !fail_on.levels_only)
        }
        Outcome::OtherCode { .. } => fail_on.hardening,
        Outcome::Passed | Outcome::Acceptable | Outcome::Skipped => false,
    }
}

/// What implementing one more operation would add to a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextOperation {
    /// The operation, e.g. `dct.verify`.
    pub op: String,
    /// Its skipped cases.
    pub cases: usize,
    /// Requirement ids its skipped cases cite that no executed case (passed, acceptable or
    /// failed) of the run checked.
    pub requirements: usize,
}

/// The operations whose cases were skipped, most valuable first: the one whose implementation
/// would check the most requirement ids nothing else checked, then the one with the most
/// cases, then by name. The one ranking of `run`'s guidance line, its reports'
/// `coverage.next_operation` and `delegateos-inprocess`; `cases` gives each case's operation,
/// requirement ids and outcome.
pub fn next_operations<'a>(
    cases: impl IntoIterator<Item = (&'a str, &'a [String], &'a Outcome)>,
) -> Vec<NextOperation> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut executed: BTreeSet<&str> = BTreeSet::new();
    let mut skipped: BTreeMap<&str, (usize, BTreeSet<&str>)> = BTreeMap::new();
    for (op, requirements, outcome) in cases {
        match outcome {
            Outcome::Passed | Outcome::Acceptable | Outcome::Failed { .. } => {
                executed.extend(requirements.iter().map(String::as_str));
            }
            Outcome::Skipped => {
                let entry = skipped.entry(op).or_default();
                entry.0 += 1;
                entry.1.extend(requirements.iter().map(String::as_str));
            }
            Outcome::OtherCode { .. } | Outcome::Errored(_) => {}
        }
    }
    let mut out: Vec<NextOperation> = skipped
        .into_iter()
        .map(|(op, (n, ids))| NextOperation {
            op: op.to_owned(),
            cases: n,
            requirements: ids.iter().filter(|id| !executed.contains(*id)).count(),
        })
        .collect();
    out.sort_by(|a, b| {
        b.requirements
            .cmp(&a.requirements)
            .then(b.cases.cmp(&a.cases))
            .then_with(|| a.op.cmp(&b.op))
    });
    out
}

/// The outcome classes [`fails_run`] tells apart, by their report names.
const STATUSES: [&str; 6] = [
    "passed",
    "acceptable",
    "failed",
    "other_code",
    "skipped",
    "errored",
];

/// An outcome of the class `status` (a report status name), for the exit-rule table.
fn of_status(status: &str) -> Option<Outcome> {
    Some(match status {
        "passed" => Outcome::Passed,
        "acceptable" => Outcome::Acceptable,
        "failed" => Outcome::Failed {
            kind: FailureKind::AcceptedInvalid,
            diff: String::new(),
            output: None,
        },
        "other_code" => Outcome::OtherCode {
            family: String::new(),
            diff: String::new(),
        },
        "skipped" => Outcome::Skipped,
        "errored" => Outcome::Errored(ErrorKind::Crash),
        _ => return None,
    })
}

/// The exit rule as data (`spec/data/exit-rule.json`): [`fails_run`] for every level,
/// advisory or not, outcome class, critical or not, and `--fail-on` choice, one JSON object
/// per line. The npm and Python packages check their `fails` against this file, so the rule
/// is written once.
pub fn exit_rule_table() -> String {
    let mut rows = Vec::new();
    for level in [Level::Normative, Level::Decision, Level::Hardening] {
        for advisory in [false, true] {
            for status in STATUSES {
                for critical in [false, true] {
                    for (hardening, advisory_counts, levels_only) in
                        (0..8).map(|bits: u8| (bits & 1 != 0, bits & 2 != 0, bits & 4 != 0))
                    {
                        let Some(outcome) = of_status(status) else {
                            continue;
                        };
                        let fail_on = FailOn {
                            hardening,
                            advisory: advisory_counts,
                            levels_only,
                        };
                        let fails = fails_run(level, advisory, &outcome, critical, fail_on);
                        rows.push(format!(
                            "    {{\"level\": \"{}\", \"advisory\": {advisory}, \"status\": \"{status}\", \
                             \"critical\": {critical}, \"failOnHardening\": {hardening}, \
                             \"failOnAdvisory\": {advisory_counts}, \"levelsOnly\": {levels_only}, \
                             \"fails\": {fails}}}",
                            level.as_str()
                        ));
                    }
                }
            }
        }
    }
    format!(
        "{{\n  \"$comment\": \"Whether one case's outcome makes a run exit 1 (README 'Exit codes', \
         spec/severity.md): generated from vectors/src/outcome.rs fails_run by `cargo test -p \
         delegateos-vectors exit_rule` with DELEGATEOS_SPEC_BLESS=1; the npm and Python \
         packages' `fails` are tested against it. Schema: spec/data/README.md.\",\n  \"cases\": [\n{}\n  ]\n}}\n",
        rows.join(",\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Expectation;

    fn failed(kind: FailureKind) -> Outcome {
        Outcome::Failed {
            kind,
            diff: "d".to_owned(),
            output: None,
        }
    }

    #[test]
    fn a_normative_or_decision_failure_fails_and_a_pass_never_does() {
        let none = FailOn::default();
        for level in [Level::Normative, Level::Decision] {
            assert!(fails_run(
                level,
                false,
                &failed(FailureKind::WrongCode),
                false,
                none
            ));
            assert!(fails_run(
                level,
                false,
                &Outcome::Errored(ErrorKind::Timeout),
                false,
                none
            ));
            for quiet in [Outcome::Passed, Outcome::Acceptable, Outcome::Skipped] {
                assert!(!fails_run(
                    level,
                    false,
                    &quiet,
                    true,
                    FailOn {
                        hardening: true,
                        advisory: true,
                        levels_only: false
                    }
                ));
            }
        }
    }

    #[test]
    fn hardening_fails_only_when_asked_or_critical() {
        let f = failed(FailureKind::AcceptedInvalid);
        let other = Outcome::OtherCode {
            family: "f".to_owned(),
            diff: String::new(),
        };
        let none = FailOn::default();
        let hardening = FailOn {
            hardening: true,
            ..none
        };
        let levels = FailOn {
            levels_only: true,
            ..none
        };
        assert!(!fails_run(Level::Hardening, false, &f, false, none));
        assert!(fails_run(Level::Hardening, false, &f, false, hardening));
        assert!(fails_run(Level::Hardening, false, &f, true, none));
        assert!(!fails_run(Level::Hardening, false, &f, true, levels));
        // Another code of the family is hardening at every level, never critical.
        assert!(!fails_run(Level::Normative, false, &other, true, none));
        assert!(fails_run(Level::Normative, false, &other, false, hardening));
    }

    #[test]
    fn advisory_fails_only_under_fail_on_advisory() {
        let f = failed(FailureKind::RejectedValid);
        let advisory = FailOn {
            advisory: true,
            ..FailOn::default()
        };
        assert!(!fails_run(
            Level::Normative,
            true,
            &f,
            true,
            FailOn {
                hardening: true,
                ..FailOn::default()
            }
        ));
        assert!(fails_run(Level::Normative, true, &f, false, advisory));
        assert!(fails_run(
            Level::Hardening,
            true,
            &Outcome::Errored(ErrorKind::Crash),
            false,
            advisory
        ));
        assert!(!fails_run(
            Level::Normative,
            true,
            &Outcome::OtherCode {
                family: String::new(),
                diff: String::new()
            },
            false,
            advisory
        ));
        assert!(!fails_run(
            Level::Normative,
            true,
            &Outcome::Passed,
            false,
            advisory
        ));
    }

    #[test]
    fn assess_grades_findings_only_and_derives_the_direction() {
        let reqs = vec!["DCT-VERIFY-2-EVERY-BLOCK".to_owned()];
        let revoked = Expectation::Invalid {
            code: "revoked".to_owned(),
            stage: None,
        };
        let subject = Subject {
            op: "dct.verify",
            flags: &[],
            requirements: &reqs,
            expectation: Some(&revoked),
            stake: None,
        };
        for quiet in [Outcome::Passed, Outcome::Acceptable, Outcome::Skipped] {
            assert_eq!(assess(&subject, &quiet), None);
        }
        let granted = assess(&subject, &failed(FailureKind::AcceptedInvalid)).expect("finding");
        assert_eq!(granted.direction, Direction::Granted);
        assert_eq!(granted.key, "revocation/revocation-bypass");
        let wrong = assess(&subject, &failed(FailureKind::WrongCode)).expect("finding");
        assert_eq!(wrong.key, "code revoked/wrong-code-family");
        let hang = assess(&subject, &Outcome::Errored(ErrorKind::Timeout)).expect("finding");
        assert_eq!(hang.direction, Direction::Hang);
        let crash = assess(&subject, &Outcome::Errored(ErrorKind::Crash)).expect("finding");
        assert_eq!(crash.direction, Direction::Crash);
        let protocol =
            assess(&subject, &Outcome::Errored(ErrorKind::ProtocolError)).expect("finding");
        assert_eq!(protocol.key, "errored protocol_error/adapter-error");
        let other = Outcome::OtherCode {
            family: "revocation".to_owned(),
            diff: String::new(),
        };
        assert_eq!(
            assess(&subject, &other).expect("finding").key,
            "family revocation/same-family-code"
        );
        // Without an expectation (a proxy case) the judge's kind alone gives the direction.
        let proxy = Subject {
            expectation: None,
            ..subject
        };
        for (kind, direction) in [
            (FailureKind::AcceptedInvalid, Direction::Granted),
            (FailureKind::RejectedValid, Direction::Refused),
            (FailureKind::WrongCode, Direction::WrongCode),
            (FailureKind::OutputMismatch, Direction::WrongOutput),
            (FailureKind::NoAnswer, Direction::Errored),
        ] {
            assert_eq!(
                assess(&proxy, &failed(kind)).expect("finding").direction,
                direction
            );
        }
    }

    #[test]
    fn an_outcome_names_its_diff_and_whether_it_is_a_finding() {
        assert!(failed(FailureKind::WrongCode).is_finding());
        assert!(Outcome::Errored(ErrorKind::Abandoned).is_finding());
        assert!(!Outcome::Skipped.is_finding());
        assert_eq!(failed(FailureKind::WrongCode).diff(), Some("d"));
        assert_eq!(Outcome::Passed.diff(), None);
        assert_eq!(ErrorKind::Unjudged.name(), "errored");
        assert_eq!(
            Outcome::judged(Verdict::Acceptable { matched: 1 }, None),
            Outcome::Acceptable
        );
    }

    /// `next_operations`: most unchecked requirement ids first, then most cases, then name;
    /// a requirement any executed case checked does not count.
    #[test]
    fn the_next_operation_is_the_one_that_checks_most_of_what_nothing_checked() {
        let ids = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let (a, b, shared) = (ids(&["A1", "A2"]), ids(&["B1"]), ids(&["A1"]));
        let cases = [
            ("op.a", a.as_slice(), Outcome::Skipped),
            ("op.b", b.as_slice(), Outcome::Skipped),
            ("op.b", b.as_slice(), Outcome::Skipped),
            ("op.c", shared.as_slice(), Outcome::Passed),
            ("op.d", b.as_slice(), Outcome::Errored(ErrorKind::Crash)),
        ];
        let ranked = next_operations(cases.iter().map(|(op, r, o)| (*op, *r, o)));
        let got: Vec<(&str, usize, usize)> = ranked
            .iter()
            .map(|n| (n.op.as_str(), n.cases, n.requirements))
            .collect();
        // op.a: A2 only (A1 was checked by op.c); op.b: B1, twice skipped.
        assert_eq!(got, vec![("op.b", 2, 1), ("op.a", 1, 1)]);
    }

    #[test]
    fn exit_rule_spec_data_is_generated_from_fails_run() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/data/exit-rule.json");
        let table = exit_rule_table();
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk != table && std::env::var_os("DELEGATEOS_SPEC_BLESS").is_some() {
            std::fs::write(&path, &table).expect("write spec/data/exit-rule.json");
            return;
        }
        assert!(
            on_disk == table,
            "spec/data/exit-rule.json differs from fails_run: run DELEGATEOS_SPEC_BLESS=1 cargo test -p delegateos-vectors exit_rule"
        );
        let parsed: serde_json::Value = serde_json::from_str(&table).expect("valid JSON");
        assert_eq!(
            parsed["cases"].as_array().map(Vec::len),
            Some(3 * 2 * 6 * 2 * 8)
        );
    }
}
