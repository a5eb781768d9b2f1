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
    /// The requirement ids it is graded by: `dct.verify`'s, the step the reference's answer
    /// names; another operation's, its seed's where the reference answers as to the seed, else
    /// those the corpus cites for the reference's answer ([`ground_of`]).
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
    /// The level of the disagreement (the seed's, or, for another operation than `dct.verify`
    /// whose reference answer is not its seed's, the level the corpus pins that answer at;
    /// hardening for a same-family code).
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
                        "the reference's answer on {} mutated (graded by that answer: the \
                         requirements of the step, or of the corpus cases, giving it; the \
                         seed's where both are accepted)",
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
    /// The reference's answer: its code ([`reference_code`]); for an operation graded by
    /// answer, a denial an accepted output names counts as its code
    /// ([`crate::differential::answer_of`]: `mcp.call`'s `capability_not_granted`).
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

    fn new(kind: FindingKind, reference: String, actual: String, fields: Vec<String>) -> Self {
        let mut fields = fields;
        fields.sort();
        fields.dedup();
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
        Self::new(
            kind,
            reference_code(reference),
            outcome_class(actual),
            fields,
        )
    }

    /// The signature of a finding of operation `op`: the reference's answer
    /// ([`crate::differential::answer_of`]), the fields its edits touched; when both accepted,
    /// what the output does (`direction`, the assessment's).
    pub fn of_op(
        op: &str,
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
        let answer = crate::differential::answer_of(op, reference);
        Self::new(kind, answer, actual_class, fields)
    }

    /// The signature of a finding on candidate `c` of `fz`: the fields its mutations
    /// ([`Signature::of_token`]) or edits ([`Signature::of_op`], `direction` the assessment's)
    /// touched.
    pub fn of(
        fz: &dyn Fuzzable,
        kind: FindingKind,
        c: &Candidate,
        actual: Option<&Value>,
        direction: Option<Direction>,
    ) -> Self {
        match fz.grading() {
            Grading::ByStep => Self::of_token(kind, &c.mutations, &c.reference, actual),
            Grading::ByAnswer => {
                Self::of_op(fz.name(), kind, &c.edits, &c.reference, actual, direction)
            }
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
/// fuzzer's entry into the severity model) for one graded by its answer.
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
        Grading::ByAnswer => grade_op(fz.name(), seed, c, assess),
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
            Grading::ByAnswer => {
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
        let ground = ground_of(op, seed, &c);
        let level = if kind == FindingKind::OtherCode {
            Level::Hardening
        } else {
            ground.level
        };
        let (severity, effect, report_key) = assessment.map_or_else(
            || (Severity::Medium, "unassessed".to_owned(), String::new()),
            |a| (a.severity, a.effect.clone(), a.key.clone()),
        );
        Self {
            kind,
            op: op.to_owned(),
            origin: seed.map(|s| s.origin.clone()).unwrap_or_default(),
            requirements: ground.requirements,
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

/// What a finding of an operation graded by answer cites: requirement ids and level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ground {
    /// The requirement ids it is graded by and its finding file cites.
    pub requirements: Vec<String>,
    /// Its level (before a same-family code makes it hardening).
    pub level: Level,
    /// Whether they are the seed's requirements: the candidate is its seed unchanged, or an
    /// input the reference accepts as it does the seed.
    pub seeds: bool,
}

/// The ground of candidate `c` of `op` on `seed` (not `dct.verify`): graded by what the
/// mutated input is, not by its seed's topic. The reference's answer
/// ([`crate::differential::answer_of`]: `ok`, an error's code, or the denial an accepted output
/// names) decides: a refusal is graded by what the corpus cites for that answer of `op`
/// ([`crate::differential::requirements_of_answer`]: a tool renamed in a spend case and now
/// denied `capability_not_granted` is that denial's finding, an authorization bypass, and so
/// is a renamed tool forwarded from a seed about the denial's shape), at the seed's level
/// where it is the seed's own answer, else at the strongest level the corpus pins it; an
/// accepted input the reference answers as it does the seed (or an unchanged seed) keeps the
/// seed's requirements and level. The seed's, too, when no case of `op` gives that answer. A
/// candidate whose kept signatures no longer cover its edits also carries that signature
/// fault, and is graded by it where accepting it is more severe so ([`by_signature`]).
pub fn ground_of(op: &str, seed: Option<&OpSeed>, c: &Candidate) -> Ground {
    let own = Ground {
        requirements: seed.map(|s| s.requirements.clone()).unwrap_or_default(),
        level: seed.map_or(Level::Normative, |s| s.level),
        seeds: true,
    };
    if c.changes() == 0 {
        return own;
    }
    let answer = crate::differential::answer_of(op, &c.reference);
    let seed_answer = seed.and_then(|s| {
        s.expect
            .outcomes()
            .first()
            .map(|o| crate::differential::answer_of_expected(op, o))
    });
    let seeds_answer = seed_answer.as_deref() == Some(answer.as_str());
    let by_answer = match crate::differential::requirements_of_answer(op, &answer) {
        // An accepted input the reference answers as it does the seed is what the seed is
        // about (a `json_schema` check stays a schema check, whatever the corpus's most cited
        // accepted case).
        _ if seeds_answer && answer == "ok" => own,
        Some(g) => Ground {
            requirements: g.requirements,
            level: if seeds_answer { own.level } else { g.level },
            seeds: false,
        },
        None => own,
    };
    by_signature(op, c, &by_answer.requirements).unwrap_or(by_answer)
}

/// The code of a signature that does not verify (`spec/error-codes.md`), in every operation
/// whose input is signed.
const BAD_SIGNATURE: &str = "invalid_signature";

/// The ground of a candidate whose kept signatures no longer cover its content
/// ([`Candidate::stale_signatures`]), when accepting it is graded more severe (by the rules'
/// `granted` effect) as that signature fault (what the corpus cites for [`BAD_SIGNATURE`] of `op`) than as the fault
/// the reference names first: a contract given an unknown member after signing is refused
/// `malformed_contract` by the reference, but an implementation that accepts it accepted
/// content its signature does not cover (a forgery, not only lenient input).
fn by_signature(op: &str, c: &Candidate, theirs: &[String]) -> Option<Ground> {
    if !c.stale_signatures {
        return None;
    }
    let expectation = c.expectation.as_ref()?;
    let g = crate::differential::requirements_of_answer(op, BAD_SIGNATURE)?;
    let model = crate::severity::model();
    let granted = |requirements: &[String]| {
        model.severity_of(&model.rule_stake(op, &[], requirements, expectation).granted)
    };
    (granted(&g.requirements) > granted(theirs)).then_some(Ground {
        requirements: g.requirements,
        level: g.level,
        seeds: false,
    })
}

/// The assessment of a disagreement on candidate `c` of `op` (not `dct.verify`), graded as
/// `run` grades a case: an unmutated seed exactly as its corpus case (its flags and stated
/// stake); a mutated one without the seed's flags, which name the seed's own trap, by the
/// rules of its [`ground_of`] (those the corpus cites for the reference's refusal; the seed's
/// where the reference accepts it as it does the seed), and, when the
/// reference refused, against the reference's own refusal (a seed's `valid` readings carried
/// over do not make another refusal of a refused input a refusal of a valid one). `assess` is
/// the severity model's entry the fuzzer has at hand (`outcome::assess` on the runner's
/// outcome, `outcome::assess_fault` on a [`Fault`]) applied to that subject. `None` for a
/// candidate that was not run.
pub fn grade_op(
    op: &str,
    seed: Option<&OpSeed>,
    c: &Candidate,
    assess: impl FnOnce(&crate::outcome::Subject<'_>) -> Option<Assessment>,
) -> Option<Assessment> {
    let mut expectation = c.expectation.clone()?;
    let mutated = c.changes() > 0;
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
    let requirements = ground_of(op, seed, c).requirements;
    let subject = crate::outcome::Subject {
        op,
        flags,
        requirements: &requirements,
        expectation: Some(&expectation),
        stake,
    };
    assess(&subject)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::fuzz::expect::{candidate, seeds};
    use crate::fuzz::mutate::Seg;
    use crate::fuzz::ops::{operation, Changes, Signing};
    use crate::judge::FailureKind;
    use crate::outcome::assess_fault;

    fn renamed(name: &str) -> Changes {
        Changes {
            signing: Signing::Resign,
            mutations: Vec::new(),
            edits: vec![Edit::Set {
                path: ["request", "params", "name"]
                    .iter()
                    .map(|k| Seg::Key((*k).to_owned()))
                    .collect(),
                value: Value::from(name),
            }],
        }
    }

    /// Issue 47, deliverable 4: a tool renamed in a spend case, which the reference now
    /// denies `capability_not_granted`, forwarded by the implementation (py-wrap's
    /// `mcp-tool-name-casefold`), is graded by that denial — the corpus's requirements for it,
    /// an authorization bypass — not by the spend seed's topic; a rename the reference still
    /// forwards keeps the seed's requirements.
    #[test]
    fn a_renamed_tool_in_a_spend_case_is_graded_by_the_denial_it_gets() {
        let keys = Keys::fixed();
        let call = operation("mcp.call").unwrap();
        let all = seeds(call, None, &keys);
        let (i, seed) = all
            .iter()
            .enumerate()
            .find(|(_, s)| {
                s.requirements.iter().any(|r| r.starts_with("MCP-SPEND-"))
                    && matches!(
                        s.expect.outcomes().first(),
                        Some(vf::Expected::Valid { output })
                            if output["decision"] == "forward"
                    )
            })
            .expect("a spend seed that forwards");
        let tool = seed.view.pointer("/request/params/name").unwrap();
        let upper = tool.as_str().unwrap().to_uppercase();
        let c = candidate(call, &all, i, renamed(&upper), &keys);
        assert_eq!(
            crate::differential::answer_of("mcp.call", &c.reference),
            "capability_not_granted",
            "{:?}",
            c.reference
        );
        let ground = ground_of("mcp.call", Some(seed), &c);
        assert!(!ground.seeds, "{ground:?}");
        assert!(
            ground.requirements.contains(&"MCP-CALL-VERIFY".to_owned()),
            "{ground:?}"
        );
        assert_eq!(ground.level, Level::Normative);
        // The implementation forwards as it did the seed.
        let forwarded = match seed.expect.outcomes().first() {
            Some(vf::Expected::Valid { output }) => output.clone(),
            _ => unreachable!(),
        };
        let fault = Fault::Failed {
            kind: FailureKind::OutputMismatch,
            output: Some(forwarded),
        };
        let a = grade_op("mcp.call", Some(seed), &c, |s| {
            Some(assess_fault(s, &fault))
        })
        .unwrap();
        assert_eq!(a.key, "mcp-authorization/authorization-bypass");
        assert_eq!(a.severity, Severity::Critical);

        // The same tool under its own name: the reference still forwards, the seed's ground.
        let same = candidate(call, &all, i, renamed(tool.as_str().unwrap()), &keys);
        assert_eq!(
            crate::differential::answer_of("mcp.call", &same.reference),
            "ok"
        );
        let ground = ground_of("mcp.call", Some(seed), &same);
        assert!(ground.seeds);
        assert_eq!(ground.requirements, seed.requirements);
    }

    /// Every answer of a fuzzed operation's seeds is one the corpus grounds (the index is
    /// keyed as the seeds are read), and a denial named in an accepted output is its own
    /// answer.
    #[test]
    fn the_corpus_grounds_every_seed_answer() {
        let keys = Keys::fixed();
        for fz in crate::fuzz::ops::REGISTRY
            .iter()
            .filter(|o| o.grading() == Grading::ByAnswer)
        {
            for s in seeds(*fz, None, &keys) {
                let first = s.expect.outcomes().into_iter().next().unwrap();
                let answer = crate::differential::answer_of_expected(fz.name(), &first);
                let g = crate::differential::requirements_of_answer(fz.name(), &answer)
                    .unwrap_or_else(|| panic!("{}: {answer} has no ground", s.origin));
                assert!(!g.requirements.is_empty(), "{} {answer}", fz.name());
            }
        }
        let deny = serde_json::json!({"decision": "deny", "error": {"data": {"type": "expired"}}});
        assert_eq!(
            crate::differential::answer_of_expected(
                "mcp.call",
                &vf::Expected::Valid { output: deny }
            ),
            "expired"
        );
    }

    /// A member added to a signed contract after signing, signatures kept: the reference
    /// refuses the unknown member first (`malformed_contract`), but accepting it accepts
    /// content its signature does not cover, graded as that signature fault (a forgery);
    /// re-signed, it is the unknown member alone (lenient input).
    #[test]
    fn an_unsigned_edit_is_graded_by_the_signature_it_breaks_where_that_is_worse() {
        let keys = Keys::fixed();
        let op = operation("contract.verify_signature").unwrap();
        let all = seeds(op, None, &keys);
        let added = |signing: Signing| Changes {
            signing,
            mutations: Vec::new(),
            edits: vec![Edit::Set {
                path: ["contract", "x-extension"]
                    .iter()
                    .map(|k| Seg::Key((*k).to_owned()))
                    .collect(),
                value: Value::from(1),
            }],
        };
        let i = all
            .iter()
            .position(|s| {
                matches!(
                    s.expect.outcomes().first(),
                    Some(vf::Expected::Valid { .. })
                ) && candidate(
                    op,
                    &all,
                    all.iter().position(|t| t.origin == s.origin).unwrap(),
                    added(Signing::Keep),
                    &keys,
                )
                .stale_signatures
            })
            .expect("a valid contract seed");
        let accepted = Fault::Failed {
            kind: FailureKind::AcceptedInvalid,
            output: Some(serde_json::json!({"valid": true})),
        };
        let grade = |c: &Candidate| {
            grade_op(op.name(), all.get(i), c, |s| {
                Some(assess_fault(s, &accepted))
            })
            .unwrap()
        };
        let kept = candidate(op, &all, i, added(Signing::Keep), &keys);
        assert_eq!(
            crate::differential::answer_of(op.name(), &kept.reference),
            "malformed_contract"
        );
        assert!(kept.stale_signatures);
        assert_eq!(grade(&kept).key, "contract-signature/forgery");
        let resigned = candidate(op, &all, i, added(Signing::Resign), &keys);
        assert!(!resigned.stale_signatures);
        assert_eq!(
            crate::differential::answer_of(op.name(), &resigned.reference),
            "malformed_contract"
        );
        assert_eq!(grade(&resigned).key, "contracts/lenient-input");
    }
}
