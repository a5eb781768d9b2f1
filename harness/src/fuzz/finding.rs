//! A fuzzer's finding: its kind and the minimized disagreement (shared by the token fuzzer
//! `diff.rs`, the operation fuzzer `ops/` and the triage `triage.rs`, so that neither of the
//! last two imports the first).

use std::time::Duration;

use delegateos_reference::ops::Outcome;
use serde_json::Value;

use super::mutate::Mutation;
use delegateos_vectors::format::{Expectation, Level, Severity};

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
    pub(crate) fn announcement(&self, number: usize, changes: usize, unit: &str) -> String {
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
