//! A fuzzer's finding: its kind, its signature (the finding kind's identity), its grade by
//! the severity model, and its finding file — for both fuzzers (the harness's token and
//! operation loops and its triage; `delegateos_inprocess::fuzz`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use delegateos_reference::ops::Outcome;
use serde_json::Value;

use super::expect::Candidate;
use super::mutate::Mutation;
use super::ops::edit::Edit;
use super::ops::{Fuzzable, Grading};
use super::seed::OpSeed;
use crate::differential::{
    assess_token, failure_kind, outcome_class, reference_code, requirement_of_outcome,
};
use crate::format::{self as vf, Expectation, Generator, Level, Note, Severity, VectorFile};
use crate::keys::Keys;
use crate::outcome::{ErrorKind, Fault};
use crate::severity::{Assessment, Direction};

/// What kind of problem a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// Different outcome (or different code) than the reference.
    Disagreement,
    /// The adapter exited during the case.
    Crash,
    /// No reply within the timeout.
    Timeout,
    /// The reply violated the adapter protocol.
    ProtocolError,
    /// The adapter replied `errored`, or could not be restarted.
    Errored,
    /// Rejected as the reference does, with another code of the family
    /// (`spec/error-codes.md` §11): a hardening finding.
    OtherCode,
}

impl FindingKind {
    /// snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Disagreement => "disagreement",
            Self::Crash => "crash",
            Self::Timeout => "timeout",
            Self::ProtocolError => "protocol_error",
            Self::Errored => "errored",
            Self::OtherCode => "other_code",
        }
    }
}

/// One minimized finding.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Kind.
    pub kind: FindingKind,
    /// The operation (`dct.verify` for the token fuzzer).
    pub op: String,
    /// Seed case it was derived from.
    pub origin: String,
    /// Requirement ids of the seed case.
    pub requirements: Vec<String>,
    /// The minimized mutation list (`dct.verify`).
    pub mutations: Vec<Mutation>,
    /// The minimized edit list of another operation (`fuzz::ops::edit::Edit`s, then the
    /// signing mode), serialized.
    pub edits: Vec<Value>,
    /// The input.
    pub input: Value,
    /// The reference's outcome.
    pub reference: Outcome,
    /// What the implementation was held to: the reference's outcome as a vector would pin it,
    /// with the outcomes a decision leaves open (`acceptable`); the finding file's `expect`.
    pub expectation: Option<Expectation>,
    /// What the implementation answered (`{"outcome": …}`), if anything.
    pub actual: Option<Value>,
    /// Runner message (error text).
    pub message: String,
    /// Time from the start of the run to the first (unminimized) detection.
    pub found_after: Duration,
    /// Cases executed before it was found.
    pub cases_before: usize,
    /// The level of the disagreement (the seed's, or hardening for a same-family code).
    pub level: Level,
    /// Its severity: the effect's (`spec/severity.md`).
    pub severity: Severity,
    /// The effect (`spec/severity.md` §2).
    pub effect: String,
    /// The run report's finding key for this failure (`decider/effect`, `spec/severity.md`).
    pub report_key: String,
    /// The finding kind: reference outcome × implementation outcome class × fields touched
    /// by the minimized mutations. One kind is one finding, whatever mutation set hit it.
    pub key: String,
    /// Candidates that hit this kind (the minimized one included).
    pub hits: usize,
}

impl Finding {
    /// The progress line printed when the finding is recorded as the `number`th kind found
    /// (discovery order: the summary ranks the kinds and numbers them as their files): `changes`
    /// minimized `unit`s (mutations or edits) of its seed.
    pub fn announcement(&self, number: usize, changes: usize, unit: &str) -> String {
        format!(
            "new kind #{number} [{}, {} {}] after {:.1}s ({} cases): {}; {changes} {unit}(s) of {}",
            self.level.as_str(),
            self.severity.as_str(),
            self.effect,
            self.found_after.as_secs_f64(),
            self.cases_before,
            self.key,
            self.origin,
        )
    }
}

impl Finding {
    /// One line: level, severity, effect, key, seed.
    pub fn summary(&self) -> String {
        let changes = if self.mutations.is_empty() {
            self.edits.len().saturating_sub(1)
        } else {
            self.mutations.len()
        };
        format!(
            "[{}, {} {}] {} ({changes} change(s) of {})",
            self.level.as_str(),
            self.severity.as_str(),
            self.effect,
            self.key,
            self.origin
        )
    }

    /// Whether the finding is at or above `threshold` (`None`: never).
    pub fn at_least(&self, threshold: Option<Severity>) -> bool {
        threshold.is_some_and(|t| self.severity >= t)
    }

    /// The finding as a replayable vector file (area `fuzz`, group `group`, one case flagged
    /// `DifferentialFinding`, ground `differential`): the expectation is the reference's
    /// outcome as the implementation was held to it. `writer` names the fuzzer.
    pub fn file(&self, group: &str, keys: &Keys, writer: &Writer) -> VectorFile {
        let mut notes = BTreeMap::new();
        notes.insert(
            "DifferentialFinding".to_owned(),
            Note {
                // The schema has no differential bug type: the case is a mutated (modified)
                // parameter set.
                bug_type: "MODIFIED_PARAMETER".to_owned(),
                description: format!(
                    "Found by `{}`: a structurally mutated (re-signed where signed) {} case on \
                     which the implementation disagreed with the reference (or {}). The \
                     expectation is the reference's outcome, not a constructed verdict: this is \
                     a finding to triage, not a corpus vector.",
                    writer.found_by, self.op, writer.misbehaviour
                ),
                clause: "§10.1".to_owned(),
                effect: format!(
                    "The implementation answers this {} case differently from the reference.",
                    self.op
                ),
                level: self.level,
                severity: self.severity,
            },
        );
        let changes = if self.edits.is_empty() {
            serde_json::to_string(&self.mutations).unwrap_or_default()
        } else {
            serde_json::to_string(&self.edits).unwrap_or_default()
        };
        let expect = self.expectation.clone().unwrap_or(Expectation::Invalid {
            code: "skipped".to_owned(),
            stage: None,
        });
        let requirements = if self.requirements.is_empty() {
            vec!["DCT-VERIFY-1-MALFORMED".to_owned()]
        } else {
            self.requirements.clone()
        };
        let stake = crate::severity::model().rule_stake(
            &self.op,
            &["DifferentialFinding".to_owned()],
            &requirements,
            &expect,
        );
        let after = if writer.timed {
            format!(", after {:.1}s", self.found_after.as_secs_f64())
        } else {
            String::new()
        };
        VectorFile {
            schema: vf::SCHEMA_ID.to_owned(),
            spec_version: vf::SPEC_VERSION.to_owned(),
            generator: Generator {
                name: writer.generator.to_owned(),
                version: "1".to_owned(),
            },
            area: "fuzz".to_owned(),
            group: group.to_owned(),
            stateful: false,
            description: format!(
                "DifferentialFinding ({}): reference {} vs implementation {}",
                self.kind.name(),
                reference_code(&self.reference),
                code_of(self.actual.as_ref())
            ),
            keys: keys.header(),
            notes,
            number_of_cases: 1,
            cases: vec![vf::Case {
                id: format!("fuzz-{group}-0001"),
                description: format!(
                    "DifferentialFinding ({}{after}): {} mutated by {changes}; implementation answered {}{}",
                    self.kind.name(),
                    self.origin,
                    self.actual
                        .as_ref()
                        .map_or_else(|| "nothing".to_owned(), Value::to_string),
                    if self.message.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", self.message)
                    },
                ),
                requirements,
                flags: vec!["DifferentialFinding".to_owned()],
                level: self.level,
                ground: vf::Ground::Differential {
                    level: self.level,
                    reason: format!(
                        "the reference's answer on {} mutated (the level is the seed's)",
                        self.origin
                    ),
                },
                stake,
                op: self.op.clone(),
                options: if writer.options {
                    crate::options::needed_by(&self.input)
                } else {
                    Vec::new()
                },
                input: self.input.clone(),
                expect,
            }],
        }
    }

    /// Writes [`Finding::file`] to `dir/<group>.json` (sorted-key pretty JSON; `dir` created).
    pub fn write(&self, dir: &Path, group: &str, writer: &Writer) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let file = self.file(group, &Keys::fixed(), writer);
        let value =
            serde_json::to_value(&file).unwrap_or_else(|_| Value::Object(Default::default()));
        let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
        text.push('\n');
        let path = dir.join(format!("{group}.json"));
        std::fs::write(&path, text)?;
        Ok(path)
    }
}

/// Which fuzzer writes a finding file, and what its files say of it.
#[derive(Debug, Clone, Copy)]
pub struct Writer {
    /// The file's generator name.
    pub generator: &'static str,
    /// Who found it (in the note).
    pub found_by: &'static str,
    /// What else than a disagreement it reports (in the note).
    pub misbehaviour: &'static str,
    /// Whether the case description says when the finding was first seen.
    pub timed: bool,
    /// Whether the case declares the options its input needs.
    pub options: bool,
}

/// `delegateos-conform fuzz`'s finding files.
pub const HARNESS: Writer = Writer {
    generator: "delegateos-conform fuzz",
    found_by: "delegateos-conform fuzz",
    misbehaviour: "crashed, hung, or broke the protocol",
    timed: true,
    options: false,
};

/// `delegateos_inprocess::fuzz`'s finding files.
pub const IN_PROCESS: Writer = Writer {
    generator: "delegateos-inprocess fuzz",
    found_by: "delegateos_inprocess::fuzz",
    misbehaviour: "panicked, or errored",
    timed: false,
    options: true,
};

/// The reply's outcome as a code: the error code, the outcome, `?`, or `none`.
pub fn code_of(v: Option<&Value>) -> String {
    match v {
        Some(v) => match v.get("outcome").and_then(Value::as_str) {
            Some("error") => v
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned(),
            Some(o) => o.to_owned(),
            None => "?".to_owned(),
        },
        None => "none".to_owned(),
    }
}

/// A finding kind's identity: kind × reference outcome × implementation outcome class ×
/// fields the minimized changes touched. One signature is one finding, whichever changes
/// reached it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Signature {
    /// The kind.
    pub kind: FindingKind,
    /// The reference's code ([`reference_code`]).
    pub reference: String,
    /// The implementation's outcome class ([`outcome_class`], for two accepted answers with
    /// what the output does).
    pub actual: String,
    /// Sorted, deduplicated; `["seed"]` for a disagreement of the unmutated seed, `["any"]`
    /// when the kind does not depend on the fields.
    pub fields: Vec<String>,
}

impl Signature {
    /// The finding key printed and written: `<op >kind: reference … / implementation … /
    /// fields` (`prefix` is the operation and a space, or empty for `dct.verify`).
    pub fn key(&self, prefix: &str) -> String {
        format!(
            "{prefix}{}: reference {} / implementation {} / {}",
            self.kind.name(),
            self.reference,
            self.actual,
            self.fields.join("+")
        )
    }

    fn new(kind: FindingKind, reference: &Outcome, actual: String, fields: Vec<String>) -> Self {
        let mut fields = fields;
        fields.sort();
        fields.dedup();
        let reference = reference_code(reference);
        if actual == "refused" && reference != "ok" {
            // Another refusal than the reference's: one precedence or mapping mistake per
            // reference code (as `run` keys wrong codes), whichever fields led there.
            fields = vec!["any".to_owned()];
        } else if fields.is_empty() {
            fields.push("seed".to_owned());
        }
        Self {
            kind,
            reference,
            actual,
            fields,
        }
    }

    /// The signature of a token finding: the fields its mutations touched.
    pub fn of_token(
        kind: FindingKind,
        mutations: &[Mutation],
        reference: &Outcome,
        actual: Option<&Value>,
    ) -> Self {
        let fields = mutations.iter().map(Mutation::field).collect();
        Self::new(kind, reference, outcome_class(actual), fields)
    }

    /// The signature of another operation's finding: the fields its edits touched; when both
    /// accepted, what the output does (`direction`, the assessment's).
    pub fn of_op(
        kind: FindingKind,
        edits: &[Edit],
        reference: &Outcome,
        actual: Option<&Value>,
        direction: Option<Direction>,
    ) -> Self {
        let fields = edits.iter().map(Edit::field).collect();
        let mut actual_class = outcome_class(actual);
        if actual_class == "accepted" && matches!(reference, Outcome::Ok { .. }) {
            // Both succeeded: what the output does (grants more, less, or differs otherwise).
            if let Some(d) = direction {
                actual_class = format!("accepted ({})", direction_name(d));
            }
        }
        Self::new(kind, reference, actual_class, fields)
    }

    /// The signature of a finding on candidate `c` of an operation graded `grading`: the
    /// fields its mutations ([`Signature::of_token`]) or edits ([`Signature::of_op`],
    /// `direction` the assessment's) touched.
    pub fn of(
        grading: Grading,
        kind: FindingKind,
        c: &Candidate,
        actual: Option<&Value>,
        direction: Option<Direction>,
    ) -> Self {
        match grading {
            Grading::ByStep => Self::of_token(kind, &c.mutations, &c.reference, actual),
            Grading::BySeed => Self::of_op(kind, &c.edits, &c.reference, actual, direction),
        }
    }

    /// Same kind, reference outcome and implementation outcome class (what minimization
    /// keeps).
    pub fn same_class(&self, other: &Signature) -> bool {
        self.kind == other.kind && self.reference == other.reference && self.actual == other.actual
    }
}

fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Granted => "grants more",
        Direction::Refused => "grants less",
        _ => "other output",
    }
}

/// The severity model's fault for a finding of `kind` (`failure`: the judge's kind of a
/// disagreement, `output`: the implementation's output).
pub fn fault_of(
    kind: FindingKind,
    failure: crate::judge::FailureKind,
    output: Option<Value>,
    family: impl FnOnce() -> String,
) -> Fault {
    match kind {
        FindingKind::OtherCode => Fault::OtherCode { family: family() },
        FindingKind::Crash => Fault::Errored(ErrorKind::Crash),
        FindingKind::Timeout => Fault::Errored(ErrorKind::Timeout),
        FindingKind::ProtocolError => Fault::Errored(ErrorKind::ProtocolError),
        FindingKind::Errored => Fault::Errored(ErrorKind::AdapterErrored),
        FindingKind::Disagreement => Fault::Failed {
            kind: failure,
            output,
        },
    }
}

/// The level and assessment of a token finding, by the severity model (`spec/severity.md`):
/// accepting what the reference refuses is at least the bypass of the reference's denial;
/// another code of the family is hardening and low. `level` is the seed's.
pub fn grade_token(
    kind: FindingKind,
    level: Level,
    reference: &Outcome,
    actual: Option<&Value>,
) -> (Level, Assessment) {
    let family = || {
        crate::families::family_for(
            "dct.verify",
            None,
            &[],
            &reference_code(reference),
            actual
                .and_then(|a| a.get("code"))
                .and_then(Value::as_str)
                .unwrap_or("?"),
        )
        .map_or_else(|| "?".to_owned(), |f| f.name.clone())
    };
    let fault = fault_of(
        kind,
        failure_kind(reference, actual),
        actual.and_then(|a| a.get("output")).cloned(),
        family,
    );
    let a = assess_token(reference, &fault);
    let level = if kind == FindingKind::OtherCode {
        Level::Hardening
    } else {
        level
    };
    (level, a)
}

/// The assessment of a disagreement of `kind` on candidate `c` of `fz` (`None`: not run):
/// [`grade_token`] for an operation graded by step, [`grade_op`] (through `assess`, the
/// fuzzer's entry into the severity model) for one graded by its seed.
pub fn grade(
    fz: &dyn Fuzzable,
    kind: FindingKind,
    seed: Option<&OpSeed>,
    c: &Candidate,
    actual: Option<&Value>,
    assess: impl FnOnce(&crate::outcome::Subject<'_>) -> Option<Assessment>,
) -> Option<Assessment> {
    match fz.grading() {
        Grading::ByStep => {
            let level = seed.map_or(Level::Normative, |s| s.level);
            Some(grade_token(kind, level, &c.reference, actual).1)
        }
        Grading::BySeed => grade_op(fz.name(), seed, c, assess),
    }
}

impl Finding {
    /// The finding of a minimized candidate `c` of `fz` on `seed`, graded `assessment` (not
    /// yet timed: `found_after` and `cases_before` are the loop's to set); an operation graded
    /// by step is graded again here on `c` ([`Finding::of_token`]).
    #[allow(clippy::too_many_arguments)]
    pub fn of(
        fz: &dyn Fuzzable,
        kind: FindingKind,
        seed: Option<&OpSeed>,
        c: Candidate,
        actual: Option<Value>,
        message: String,
        assessment: Option<&Assessment>,
        sig: &Signature,
    ) -> Self {
        match fz.grading() {
            Grading::ByStep => Self::of_token(fz.name(), kind, seed, c, actual, message, sig),
            Grading::BySeed => {
                Self::of_op(fz.name(), kind, seed, c, actual, message, assessment, sig)
            }
        }
    }

    /// The finding of a minimized token candidate `c` of `seed`. It cites the requirement of
    /// the step the mutated token breaks, the one it is graded by ([`assess_token`]), never
    /// the seed's, so its finding file replays to the same grade.
    fn of_token(
        op: &str,
        kind: FindingKind,
        seed: Option<&OpSeed>,
        c: Candidate,
        actual: Option<Value>,
        message: String,
        sig: &Signature,
    ) -> Self {
        let level = seed.map_or(Level::Normative, |s| s.level);
        let (level, a) = grade_token(kind, level, &c.reference, actual.as_ref());
        Self {
            kind,
            op: op.to_owned(),
            origin: seed.map(|s| s.origin.clone()).unwrap_or_default(),
            requirements: vec![requirement_of_outcome(&c.reference).to_owned()],
            mutations: c.mutations,
            edits: Vec::new(),
            input: c.input,
            reference: c.reference,
            expectation: c.expectation,
            actual,
            message,
            found_after: Duration::ZERO,
            cases_before: 0,
            level,
            severity: a.severity,
            effect: a.effect,
            report_key: a.key,
            key: sig.key(""),
            hits: 1,
        }
    }

    /// The finding of a minimized candidate `c` of `op` on `seed`, graded `assessment`.
    #[allow(clippy::too_many_arguments)]
    fn of_op(
        op: &str,
        kind: FindingKind,
        seed: Option<&OpSeed>,
        c: Candidate,
        actual: Option<Value>,
        message: String,
        assessment: Option<&Assessment>,
        sig: &Signature,
    ) -> Self {
        let level = if kind == FindingKind::OtherCode {
            Level::Hardening
        } else {
            seed.map_or(Level::Normative, |s| s.level)
        };
        let (severity, effect, report_key) = assessment.map_or_else(
            || (Severity::Medium, "unassessed".to_owned(), String::new()),
            |a| (a.severity, a.effect.clone(), a.key.clone()),
        );
        Self {
            kind,
            op: op.to_owned(),
            origin: seed.map(|s| s.origin.clone()).unwrap_or_default(),
            requirements: seed.map(|s| s.requirements.clone()).unwrap_or_default(),
            mutations: Vec::new(),
            edits: c
                .edits
                .iter()
                .map(|e| serde_json::to_value(e).unwrap_or(Value::Null))
                .chain(std::iter::once(
                    serde_json::to_value(c.signing).unwrap_or(Value::Null),
                ))
                .collect(),
            input: c.input,
            reference: c.reference,
            expectation: c.expectation,
            actual,
            message,
            found_after: Duration::ZERO,
            cases_before: 0,
            level,
            severity,
            effect,
            report_key,
            key: sig.key(&format!("{op} ")),
            hits: 1,
        }
    }
}

/// The assessment of a disagreement on candidate `c` of `op` (not `dct.verify`), graded as
/// `run` grades its case: an unmutated seed exactly as its corpus case (its flags and stated
/// stake); a mutated one without the seed's flags, which name the seed's own trap, by its
/// requirements' rule, and, when the reference refused, against the reference's own refusal
/// (a seed's `valid` readings carried over do not make another refusal of a refused input a
/// refusal of a valid one). `assess` is the severity model's entry the fuzzer has at hand
/// (`outcome::assess` on the runner's outcome, `outcome::assess_fault` on a [`Fault`]) applied
/// to that subject. `None` for a candidate that was not run.
pub fn grade_op(
    op: &str,
    seed: Option<&OpSeed>,
    c: &Candidate,
    assess: impl FnOnce(&crate::outcome::Subject<'_>) -> Option<Assessment>,
) -> Option<Assessment> {
    let mut expectation = c.expectation.clone()?;
    let mutated = !c.edits.is_empty();
    if mutated && matches!(c.reference, Outcome::Error { .. }) {
        if let Some(e) = crate::differential::expectation_of(&c.reference) {
            expectation = e;
        }
    }
    let no_flags: Vec<String> = Vec::new();
    let flags = match seed {
        Some(s) if !mutated => &s.flags,
        _ => &no_flags,
    };
    // A mutated case's ground is differential, so it states no stake.
    let stake = seed
        .filter(|s| !mutated && !matches!(s.ground, vf::Ground::Differential { .. }))
        .map(|s| &s.stake);
    let mut requirements = seed.map(|s| s.requirements.clone()).unwrap_or_default();
    // A mutated input the reference refuses with another code than its refused seed's cites
    // the requirement of that refusal (issue 47: the step the mutation broke).
    if let (true, Outcome::Error { code, .. }) = (mutated, &c.reference) {
        // Only for a seed that is itself a refusal: a valid seed's requirements describe what
        // the mutated input would be accepted as; a refused seed's name a trap the mutation
        // may have left for another one.
        let seed_code = seed.and_then(|s| crate::differential::expected_code(&s.expect));
        if seed_code.is_some() && seed_code.as_deref() != Some(code.as_str()) {
            if let Some(r) = crate::differential::requirements_of_code(op, code) {
                requirements = r;
            }
        }
    }
    let subject = crate::outcome::Subject {
        op,
        flags,
        requirements: &requirements,
        expectation: Some(&expectation),
        stake,
    };
    assess(&subject)
}
