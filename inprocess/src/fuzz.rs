//! In-process differential fuzzing (feature `fuzz`): the adapter-path `delegateos-conform fuzz`
//! for a Rust library, one fuzzer input at a time and without a process.
//!
//! [`Fuzzer::step`] turns fuzzer bytes into one case and judges the library against the
//! reference on it:
//!
//! The mutators, edits, re-signing, seeds, expectation, grading and finding files are the
//! fuzz core's, `delegateos_vectors::fuzz`, the same code `delegateos-conform fuzz` runs, with
//! the fuzzer's bytes as the source of randomness ([`Bytes`]); this module keeps what is
//! in-process: calling the library, panic capture, and stepping one input at a time.
//!
//! 1. the bytes ([`Bytes`]) pick a seed, a case of the embedded corpus of one of
//!    [`FUZZED_OPERATIONS`] (for `dct.verify`, as `fuzz` does, the builtin chains and the cases
//!    of area `dct` the reference accepts; for the others every case of a group that is not
//!    stateful), and 1–3 changes of it, exactly as `fuzz` makes them: for `dct.verify`,
//!    structural token mutations **re-signed with the published test key of each block's
//!    declared signer** ([`delegateos_vectors::keys`]) unless a mutation forges or keeps a
//!    signature, so a mutation reaches the checks after the signature step; for the others,
//!    structure-aware edits of the operation's view, then (per the drawn signing mode)
//!    **contracts, attestations, revocation entries and lists re-signed** (an attestation's
//!    `outputHash` recomputed first), then JSON-text edits;
//! 2. the reference answers ([`delegateos_reference::ops::run`]) and its answer becomes the
//!    expectation exactly as `fuzz` builds it (`delegateos_vectors::fuzz::expect`);
//! 3. the library answers through its [`Implementation`] and is judged with
//!    [`delegateos_vectors::judge::judge_case`] under the seed's flags, so a rejection with
//!    another code of the expected code's family is a hardening finding ([`Kind::OtherCode`]),
//!    never a disagreement; skipped answers are no finding;
//! 4. a disagreement is minimized (changes dropped one at a time while the reference's answer
//!    and the library's outcome class stay the same) and graded by the severity model exactly
//!    as `fuzz` grades it; the [`Finding`] writes itself as a vector file ([`Finding::file`],
//!    [`Finding::write_new`], the core's writer) that `delegateos-conform run --vectors DIR`
//!    and [`crate::cases_in`] replay.
//!
//! A panic in the library's method is a [`Kind::Crash`] finding, not a fuzzer crash (unless
//! [`Fuzzer::propagate_panics`]); under libFuzzer, whose panic hook aborts, call
//! [`install_panic_hook`] once first. There is no deadline in process: a hang is left to
//! libFuzzer's `-timeout`. The same bytes give the same case and the same finding.
//!
//! ```no_run
//! use delegateos_inprocess::fuzz::{Fuzzer, Step};
//! # struct Mine;
//! # impl delegateos_inprocess::Implementation for Mine {}
//! let fuzzer = Fuzzer::new().expect("the embedded corpus loads");
//! if let Step::Finding(f) = fuzzer.step(&Mine, b"fuzzer bytes") {
//!     eprintln!("{}", f.summary());
//!     f.write_new(std::path::Path::new("fuzz-findings")).expect("writable");
//! }
//! ```

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use delegateos_reference::ops::{self, Outcome};
use delegateos_vectors::differential::{outcome_class, reference_code};
pub use delegateos_vectors::format::Severity;
use delegateos_vectors::format::{Expectation, VectorFile};
pub use delegateos_vectors::fuzz::entropy::{fnv, Bytes, Entropy};
/// A candidate as the core builds it: a seed's changes (token mutations for `dct.verify`,
/// edits and a signing mode for the others), the input they build, the reference's answer and
/// the expectation.
pub use delegateos_vectors::fuzz::expect::Candidate as Case;
use delegateos_vectors::fuzz::expect::{candidate, changes};
/// What kind of problem a finding is (the core's kinds; in process: a disagreement, a crash —
/// a panic or [`Answer::Threw`] —, an error answer, or another code of the family).
pub use delegateos_vectors::fuzz::finding::FindingKind as Kind;
use delegateos_vectors::fuzz::finding::{self as core, fault_of, grade, Signature, IN_PROCESS};
pub use delegateos_vectors::fuzz::mutate::{Encoding, Mutation, Seed, Seg, Stage};
pub use delegateos_vectors::fuzz::ops::edit::Edit;
use delegateos_vectors::fuzz::ops::{operation, Changes, Fuzzable};
pub use delegateos_vectors::fuzz::ops::{Signing, OPERATIONS as FUZZED_OPERATIONS};
use delegateos_vectors::fuzz::seed::OpSeed;
use delegateos_vectors::judge::{judge_case, ActualOutcome, FailureKind, Verdict};
use delegateos_vectors::keys::Keys;
use delegateos_vectors::outcome::assess_fault;
use serde_json::{json, Value};

use crate::{dispatch, panic_text, Answer, Implementation};

/// Minimization rounds.
const MAX_ROUNDS: usize = 8;

/// The seeds of one fuzzed operation: its registry entry and its corpus cases (for
/// `dct.verify`, the builtin chains too) in its mutator's view.
#[derive(Clone)]
struct Seeds {
    fz: &'static dyn Fuzzable,
    seeds: Vec<OpSeed>,
}

impl std::fmt::Debug for Seeds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Seeds")
            .field("op", &self.fz.name())
            .field("seeds", &self.seeds.len())
            .finish()
    }
}

/// One generated case: a seed, its changes, and the input they build (the core's candidate
/// of the seed's operation).
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Which operation's seeds, and which seed.
    at: (usize, usize),
    /// The seed case's id.
    pub origin: String,
    /// The operation.
    pub op: String,
    /// The changes, the input they build, the reference's answer and the expectation.
    pub case: Case,
}

impl Candidate {
    /// The input.
    pub fn input(&self) -> &Value {
        &self.case.input
    }

    /// The reference's answer.
    pub fn reference(&self) -> &Outcome {
        &self.case.reference
    }

    /// What the implementation is held to (`None`: the reference does not support the input,
    /// or it is above the size bound; the case is not run).
    pub fn expectation(&self) -> Option<&Expectation> {
        self.case.expectation.as_ref()
    }

    /// `dct.verify`'s token mutations (empty for another operation).
    pub fn mutations(&self) -> &[Mutation] {
        &self.case.mutations
    }

    /// Another operation's edits (empty for `dct.verify`).
    pub fn edits(&self) -> &[Edit] {
        &self.case.edits
    }

    fn changes(&self) -> usize {
        self.case.changes()
    }

    /// The candidate's changes without its `i`th.
    fn without(&self, i: usize) -> Changes {
        let keep: Vec<usize> = (0..self.changes()).filter(|&k| k != i).collect();
        self.case.keeping(&keep)
    }
}

/// One minimized, graded disagreement with the reference: the core's finding
/// (`delegateos_vectors::fuzz::finding::Finding`, every field readable through it), written
/// one file per finding kind.
#[derive(Debug, Clone)]
pub struct Finding(pub core::Finding);

impl std::ops::Deref for Finding {
    type Target = core::Finding;

    fn deref(&self) -> &core::Finding {
        &self.0
    }
}

/// The result of one [`Fuzzer::step`].
#[derive(Debug, Clone)]
pub enum Step {
    /// The implementation's answer is one the reference's allows.
    Agreed,
    /// Not run: the reference does not support the input, or it is above the size bound.
    NotRun,
    /// The implementation skipped the case (`todo` or `skip`).
    Skipped,
    /// A finding.
    Finding(Box<Finding>),
}

thread_local! {
    static IN_USER_CALL: Cell<bool> = const { Cell::new(false) };
}

/// Installs (once) a panic hook that stays silent for a panic inside a method the fuzzer
/// calls (it becomes a [`Kind::Crash`] finding) and defers to the previous hook otherwise.
/// libFuzzer's hook aborts the process on any panic: a fuzz target calls this in its `init`.
pub fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !IN_USER_CALL.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// The classified answer of the implementation on one candidate.
struct Judged {
    kind: Option<Kind>,
    skipped: bool,
    actual: Value,
    actual_output: Option<Value>,
    message: String,
    failure: Option<FailureKind>,
    family: Option<String>,
}

/// The in-process differential fuzzer: the seeds of the embedded corpus and the published
/// test keys. Build it once (loading the corpus takes a moment), then call [`Fuzzer::step`]
/// per input.
#[derive(Debug, Clone)]
pub struct Fuzzer {
    seeds: Vec<Seeds>,
    /// Every seed as (operation index, seed index): what the first choice picks from.
    picks: Vec<(usize, usize)>,
    keys: Keys,
    propagate_panics: bool,
}

impl Fuzzer {
    /// Seeds of every operation of [`FUZZED_OPERATIONS`].
    pub fn new() -> Result<Self, String> {
        Self::for_operations(&FUZZED_OPERATIONS)
    }

    /// Seeds of the operations `DELEGATEOS_FUZZ_OPS` lists (comma-separated), else of every
    /// operation of [`FUZZED_OPERATIONS`]: a fuzz target names the operations its
    /// implementation answers, so no time goes to cases it would skip.
    pub fn from_env() -> Result<Self, String> {
        match std::env::var("DELEGATEOS_FUZZ_OPS") {
            Ok(list) if !list.trim().is_empty() => {
                let ops: Vec<&str> = list
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect();
                Self::for_operations(&ops)
            }
            _ => Self::new(),
        }
    }

    /// Seeds of `ops` only (each one of [`FUZZED_OPERATIONS`]), in the order of
    /// [`FUZZED_OPERATIONS`].
    pub fn for_operations(ops: &[&str]) -> Result<Self, String> {
        if let Some(op) = ops.iter().find(|o| !FUZZED_OPERATIONS.contains(o)) {
            return Err(format!(
                "{op} is not fuzzed (the operations are {})",
                FUZZED_OPERATIONS.join(", ")
            ));
        }
        let files = delegateos_vectors::corpus::load_embedded().map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        let keys = Keys::fixed();
        let seeds: Vec<Seeds> = FUZZED_OPERATIONS
            .iter()
            .filter(|op| ops.contains(op))
            .filter_map(|op| operation(op))
            .map(|fz| Seeds {
                fz,
                seeds: fz.seeds(&files, &keys),
            })
            .collect();
        let picks: Vec<(usize, usize)> = seeds
            .iter()
            .enumerate()
            .flat_map(|(o, s)| (0..s.seeds.len()).map(move |i| (o, i)))
            .collect();
        if picks.is_empty() {
            return Err(format!(
                "no corpus case of {} to seed the fuzzer",
                ops.join(", ")
            ));
        }
        Ok(Self {
            seeds,
            picks,
            keys,
            propagate_panics: false,
        })
    }

    /// Let a panic in the implementation's method unwind out of [`Fuzzer::step`] instead of
    /// making it a [`Kind::Crash`] finding.
    pub fn propagate_panics(mut self, yes: bool) -> Self {
        self.propagate_panics = yes;
        self
    }

    /// The number of seed cases.
    pub fn seeds(&self) -> usize {
        self.picks.len()
    }

    /// The candidate of seed `at` with these changes (the core builds, re-signs, runs the
    /// reference and states the expectation).
    fn candidate_of(&self, at: (usize, usize), ch: Changes) -> Option<Candidate> {
        let Seeds { fz, seeds } = self.seeds.get(at.0)?;
        let origin = seeds.get(at.1)?.origin.clone();
        Some(Candidate {
            at,
            origin,
            op: fz.name().to_owned(),
            case: candidate(*fz, seeds, at.1, ch, &self.keys),
        })
    }

    /// The case `bytes` decide: a seed, then its changes as `fuzz` draws them
    /// ([`Fuzzable::random_changes`]), with the bytes as the source of randomness.
    pub fn candidate(&self, bytes: &[u8]) -> Candidate {
        let mut src = Bytes::new(bytes);
        let at = self
            .picks
            .get(src.below(self.picks.len()))
            .copied()
            .unwrap_or_default();
        let Seeds { fz, seeds } = &self.seeds[at.0];
        let ch = changes(*fz, &mut src, seeds.get(at.1), &self.keys);
        Candidate {
            at,
            origin: seeds
                .get(at.1)
                .map(|s| s.origin.clone())
                .unwrap_or_default(),
            op: fz.name().to_owned(),
            case: candidate(*fz, seeds, at.1, ch, &self.keys),
        }
    }

    fn seed(&self, at: (usize, usize)) -> Option<&OpSeed> {
        self.seeds.get(at.0)?.seeds.get(at.1)
    }

    fn flags(&self, at: (usize, usize)) -> &[String] {
        self.seed(at)
            .map(|s| s.flags.as_slice())
            .unwrap_or_default()
    }

    fn answer<I: Implementation + ?Sized>(
        &self,
        imp: &I,
        op: &str,
        input: &Value,
    ) -> (Answer, bool) {
        if self.propagate_panics {
            let a = dispatch(imp, op, input)
                .unwrap_or_else(|| Answer::Skip(format!("operation {op:?} is not catalogued")));
            return (a, false);
        }
        let was = IN_USER_CALL.with(|c| c.replace(true));
        let result = catch_unwind(AssertUnwindSafe(|| dispatch(imp, op, input)));
        IN_USER_CALL.with(|c| c.set(was));
        match result {
            Ok(Some(a)) => (a, false),
            Ok(None) => (
                Answer::Skip(format!("operation {op:?} is not catalogued")),
                false,
            ),
            Err(payload) => (
                Answer::Errored(format!("panicked: {}", panic_text(payload.as_ref()))),
                true,
            ),
        }
    }

    fn judge<I: Implementation + ?Sized>(&self, imp: &I, c: &Candidate) -> Option<Judged> {
        let expectation = c.expectation()?;
        let flags = self.flags(c.at);
        // An input that turns on an option the implementation does not declare is not its
        // behaviour to answer (`Implementation::options`): skipped, as `run` skips such a case.
        let declared = imp.options();
        let undeclared = delegateos_vectors::options::needed_by(c.input())
            .iter()
            .any(|o| !declared.contains(&o.as_str()));
        let (answer, panicked) = if undeclared {
            (Answer::Skip("needs an undeclared option".to_owned()), false)
        } else {
            self.answer(imp, &c.op, c.input())
        };
        let mut j = Judged {
            kind: None,
            skipped: false,
            actual: Value::Null,
            actual_output: None,
            message: String::new(),
            failure: None,
            family: None,
        };
        let actual = match answer {
            Answer::Todo | Answer::Skip(_) => {
                j.skipped = true;
                return Some(j);
            }
            Answer::Threw(message) => {
                j.kind = Some(Kind::Crash);
                j.actual = ActualOutcome::Threw {
                    message: message.clone(),
                }
                .to_json();
                j.message = message;
                return Some(j);
            }
            Answer::Errored(message) => {
                j.kind = Some(if panicked { Kind::Crash } else { Kind::Errored });
                j.actual = ActualOutcome::Errored {
                    message: message.clone(),
                }
                .to_json();
                j.message = message;
                return Some(j);
            }
            Answer::Error { code, .. } if code.is_empty() => {
                j.kind = Some(Kind::Errored);
                j.message = "an error answer needs a non-empty code".to_owned();
                j.actual = json!({"outcome": "error", "code": ""});
                return Some(j);
            }
            Answer::Ok(output) => ActualOutcome::Ok { output },
            Answer::Error { code, detail } => ActualOutcome::Error {
                code,
                detail: Some(detail),
            },
        };
        j.actual = actual.to_json();
        if let ActualOutcome::Ok { output } = &actual {
            j.actual_output = Some(output.clone());
        }
        match judge_case(&c.op, flags, expectation, &actual) {
            Verdict::Passed | Verdict::Acceptable { .. } => {}
            Verdict::OtherCode { diff, family, .. } => {
                j.kind = Some(Kind::OtherCode);
                j.message = diff;
                j.family = Some(family);
            }
            Verdict::Failed { diff, kind, .. } => {
                j.kind = Some(Kind::Disagreement);
                j.message = format!("{}\n{diff}", kind.label());
                j.failure = Some(kind);
            }
        }
        Some(j)
    }

    /// Runs the case `bytes` decide through `imp` and the reference; on a disagreement, the
    /// minimized and graded finding.
    pub fn step<I: Implementation + ?Sized>(&self, imp: &I, bytes: &[u8]) -> Step {
        let c = self.candidate(bytes);
        let Some(j) = self.judge(imp, &c) else {
            return Step::NotRun;
        };
        if j.skipped {
            return Step::Skipped;
        }
        let Some(kind) = j.kind else {
            return Step::Agreed;
        };
        let (c, j) = self.minimize(imp, c, kind, j);
        Step::Finding(Box::new(self.finding(kind, c, j)))
    }

    /// Drops changes one at a time while the same finding (kind, reference outcome,
    /// implementation outcome class) persists.
    fn minimize<I: Implementation + ?Sized>(
        &self,
        imp: &I,
        c: Candidate,
        kind: Kind,
        j: Judged,
    ) -> (Candidate, Judged) {
        let class = |c: &Candidate, j: &Judged| {
            (
                reference_code(c.reference()),
                outcome_class(Some(&j.actual)),
            )
        };
        let want = class(&c, &j);
        let (mut best, mut judged) = (c, j);
        for _ in 0..MAX_ROUNDS {
            let mut improved = false;
            for i in 0..best.changes() {
                let Some(t) = self.candidate_of(best.at, best.without(i)) else {
                    continue;
                };
                if let Some(tj) = self.judge(imp, &t) {
                    if tj.kind == Some(kind) && class(&t, &tj) == want {
                        best = t;
                        judged = tj;
                        improved = true;
                        break;
                    }
                }
            }
            if !improved || best.changes() == 0 {
                break;
            }
        }
        (best, judged)
    }

    /// The finding of minimized candidate `c`, graded and keyed by the core as `fuzz` grades
    /// and keys it.
    fn finding(&self, kind: Kind, c: Candidate, j: Judged) -> Finding {
        let actual = Some(j.actual.clone());
        let failure = j.failure.unwrap_or(FailureKind::NoAnswer);
        let seed = self.seed(c.at);
        let family = j.family.clone();
        let fault = fault_of(kind, failure, j.actual_output.clone(), || {
            family.unwrap_or_else(|| "?".to_owned())
        });
        let fz = self.seeds[c.at.0].fz;
        let a = grade(fz, kind, seed, &c.case, actual.as_ref(), |s| {
            Some(assess_fault(s, &fault))
        });
        let direction = a.as_ref().map(|a| a.direction);
        let sig = Signature::of(fz, kind, &c.case, actual.as_ref(), direction);
        Finding(core::Finding::of(
            fz,
            kind,
            seed,
            c.case,
            actual,
            j.message,
            a.as_ref(),
            &sig,
        ))
    }
}

impl Finding {
    /// The file's group (and stem): `finding-` and 16 hex digits of the finding key's hash, so
    /// one finding kind is one file.
    pub fn group(&self) -> String {
        format!("finding-{:016x}", fnv(self.key.as_bytes()))
    }

    /// The finding as a vector file (the core's writer, as `delegateos-conform fuzz` writes
    /// its findings): replayable by `delegateos-conform run --vectors DIR` and by
    /// [`crate::cases_in`].
    pub fn file(&self) -> VectorFile {
        self.0.file(&self.group(), &Keys::fixed(), &IN_PROCESS)
    }

    /// Writes [`Finding::file`] to `dir/<group>.json` (sorted-key pretty JSON; `dir` created)
    /// unless that file exists: the path written, or `None` for a finding kind already saved.
    pub fn write_new(&self, dir: &Path) -> std::io::Result<Option<PathBuf>> {
        let group = self.group();
        if dir.join(format!("{group}.json")).exists() {
            return Ok(None);
        }
        self.0.write(dir, &group, &IN_PROCESS).map(Some)
    }
}

/// The severity at which a fuzz target stops, from `DELEGATEOS_FUZZ_STOP_AT`
/// (`low`, `medium`, `high`, `critical`, or `never`), else `default`.
pub fn stop_at_from_env(default: Option<Severity>) -> Option<Severity> {
    match std::env::var("DELEGATEOS_FUZZ_STOP_AT").as_deref() {
        Ok("low") => Some(Severity::Low),
        Ok("medium") => Some(Severity::Medium),
        Ok("high") => Some(Severity::High),
        Ok("critical") => Some(Severity::Critical),
        Ok("never") => None,
        _ => default,
    }
}

/// The reference as an [`Implementation`] (every operation answered by
/// [`delegateos_reference::ops::run`]): the fuzzer against it finds nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reference;

impl Implementation for Reference {
    fn fallback(&self, op: &str, input: &Value) -> Answer {
        ActualOutcome::from(&ops::run(op, input)).into()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// The only test that sets `DELEGATEOS_FUZZ_OPS`.
    #[test]
    fn the_operations_come_from_the_environment() {
        std::env::set_var("DELEGATEOS_FUZZ_OPS", " glob.match ,");
        let glob = Fuzzer::from_env().unwrap();
        assert!(glob.seeds.iter().all(|s| s.fz.name() == "glob.match") && glob.seeds() > 10);
        std::env::set_var("DELEGATEOS_FUZZ_OPS", "glob.match,dct.create");
        let refused = Fuzzer::from_env().unwrap_err();
        assert!(refused.contains("dct.create is not fuzzed"), "{refused}");
        std::env::remove_var("DELEGATEOS_FUZZ_OPS");
        assert_eq!(
            Fuzzer::from_env().unwrap().seeds(),
            Fuzzer::new().unwrap().seeds()
        );
    }
}
