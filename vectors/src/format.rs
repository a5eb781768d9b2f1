//! The vector file format `delegateos-vectors/1` as serde types.
//!
//! One file holds one behaviour group (`vectors/<area>/<group>.json`). The JSON Schema of the
//! same format is `spec/schemas/vector.schema.json`; `vectors/README.md` explains every field.
//! Field order in these structs does not matter on disk: files are written with sorted keys.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The specification revision the expectations follow (every file's `specVersion`).
pub const SPEC_VERSION: &str = "0.2-draft (DelegateOS v0.1)";

/// The `schema` value of every file in this format.
pub const SCHEMA_ID: &str = "delegateos-vectors/1";

/// A whole vector file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VectorFile {
    /// Always [`SCHEMA_ID`].
    pub schema: String,
    /// The protocol specification revision the expectations follow.
    pub spec_version: String,
    /// The program that wrote the file.
    pub generator: Generator,
    /// The area (directory) of the group, e.g. `glob`.
    pub area: String,
    /// The group (file stem), e.g. `match`.
    pub group: String,
    /// What the group tests.
    pub description: String,
    /// A stateful group: its cases run in file order in one fresh adapter process, then are
    /// replayed in another (vectors/README.md "Stateful groups"). Every case's expectation
    /// still follows from its own input; the order is what exposes state an implementation
    /// keeps between requests. Absent (false) for every other group.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stateful: bool,
    /// The fixed keys, with their published seeds.
    pub keys: Vec<KeyEntry>,
    /// One entry for every flag used by a case of this file.
    pub notes: BTreeMap<String, Note>,
    /// `cases.len()`.
    pub number_of_cases: usize,
    /// The cases.
    pub cases: Vec<Case>,
}

/// `generator` in the header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generator {
    /// Program name.
    pub name: String,
    /// Program version.
    pub version: String,
}

/// One fixed key: anyone can re-derive the keypair from `seed`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeyEntry {
    /// Role name used in case descriptions (`root`, `alice`, …).
    pub name: String,
    /// The 32-byte Ed25519 seed, lowercase hex.
    pub seed: String,
    /// The principal id (base64url public key).
    pub principal: String,
}

/// How binding a case's expectation is (issue 12; `vectors/README.md` "Levels").
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The spec text requires this outcome.
    #[default]
    Normative,
    /// The spec is ambiguous or silent: every reasonable outcome is `acceptable`, ours first
    /// (or the case pins an outcome every reading of the decision shares).
    Decision,
    /// Safe behaviour beyond the spec text (resource limits, parameter validation, finer
    /// codes, strict envelopes, stricter dialects): reported apart, never in the default exit
    /// code.
    Hardening,
}

impl Level {
    /// The lowercase name (`normative`, `decision`, `hardening`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Normative => "normative",
            Self::Decision => "decision",
            Self::Hardening => "hardening",
        }
    }

    /// Parses the lowercase name.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "normative" => Some(Self::Normative),
            "decision" => Some(Self::Decision),
            "hardening" => Some(Self::Hardening),
            _ => None,
        }
    }
}

/// How bad a failure of a flagged case is (issue 12): critical = forgery accepted, scope,
/// budget, expiry or depth widened, revocation bypassed, crash or hang on untrusted input;
/// low = code granularity, diagnostics.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Code granularity, diagnostics.
    #[default]
    Low,
    /// Interoperability problems without a security consequence.
    Medium,
    /// Security-relevant, not directly exploitable.
    High,
    /// Forgery accepted, authority widened, revocation bypassed, crash or hang.
    Critical,
}

impl Severity {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Critical => "critical",
        }
    }

    /// Parses the lowercase name.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "low" => Some(Self::Low),
            "medium" => Some(Self::Medium),
            "high" => Some(Self::High),
            "critical" => Some(Self::Critical),
            _ => None,
        }
    }

    /// Every severity, most severe first (report order).
    pub const ORDER: [Severity; 4] = [Self::Critical, Self::High, Self::Medium, Self::Low];
}

/// The explanation of one flag (Wycheproof's `notes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Note {
    /// Class of bug a failing implementation has (e.g. `AUTH_BYPASS`, `AMBIGUITY`).
    pub bug_type: String,
    /// What the flagged cases exercise.
    pub description: String,
    /// The spec clause or decision (`§10.2`, `D1`).
    pub clause: String,
    /// What goes wrong in an implementation that fails these cases.
    pub effect: String,
    /// The flag's level (`spec/decisions.md` "Flag index").
    pub level: Level,
    /// The severity of a failure on a case carrying the flag (same table).
    pub severity: Severity,
}

/// One case (see `spec/adapter-protocol.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// `<area>-<group>-<NNNN>`: stable, never reused.
    pub id: String,
    /// What the case checks, in one sentence.
    pub description: String,
    /// Requirement ids from `spec/requirements.md`.
    pub requirements: Vec<String>,
    /// Flags, each explained in the file's `notes`.
    pub flags: Vec<String>,
    /// `normative`, `decision` or `hardening`: always the level of [`Case::ground`]
    /// ([`Ground::level`]; `vectors/tests/grounds.rs` checks every case).
    pub level: Level,
    /// What the expected outcome rests on: a verbatim quote of the upstream text, a decision
    /// with every outcome a reasonable implementation could give, or why it is hardening.
    pub ground: Ground,
    /// What each failing direction lets an attacker do: the effect (`spec/severity.md` §2)
    /// the severity model grades a failure of this case with.
    pub stake: Stake,
    /// Operation name from `spec/operations.md`.
    pub op: String,
    /// The options ([`crate::options`]) the case's input turns on: an adapter that does not
    /// declare one in `hello.options` has the case skipped ("needs option X"). Absent when
    /// none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// The operation input object.
    pub input: Value,
    /// The expected outcome.
    pub expect: Expectation,
}

/// What a case's expected outcome rests on (issue 36). The case's level is read from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum Ground {
    /// The upstream text decides the outcome: the case is `normative`.
    Text {
        /// `spec` (the protocol specification) or `architecture` (the architecture document).
        source: String,
        /// Where the quote is, e.g. `§10.1 step 2`.
        section: String,
        /// The words, verbatim (whitespace-normalized) from `spec/upstream/`.
        quote: String,
    },
    /// The text is ambiguous or silent: the case is `decision`, and its expectation accepts
    /// every outcome a reasonable implementation could give (`acceptable`), or `reason` says
    /// why the text admits only the one it pins.
    Decision {
        /// The decision of `spec/decisions.md` (`D5`).
        decision: String,
        /// Why a single outcome is the only reasonable one (required when the expectation
        /// is not `acceptable`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Safer than the text requires: the case is `hardening`.
    Hardening {
        /// Why the behaviour is safer than the text.
        reason: String,
    },
    /// Only in a fuzzer's finding file, never in the corpus: the expectation is the
    /// reference's answer on a mutated input, at the level of the case it was mutated from.
    Differential {
        /// The seed case's level.
        level: Level,
        /// Where the input came from.
        reason: String,
    },
}

impl Ground {
    /// The level this ground gives a case.
    pub fn level(&self) -> Level {
        match self {
            Self::Text { .. } => Level::Normative,
            Self::Decision { .. } => Level::Decision,
            Self::Hardening { .. } => Level::Hardening,
            Self::Differential { level, .. } => *level,
        }
    }
}

/// What each failing direction of a case lets an attacker do (issue 36): one effect name of
/// `spec/severity.md` §2 per direction. The severity model grades a failure with the effect
/// of its direction; a rule, flag or output member may name the finding and its fix, never
/// lower the effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Stake {
    /// It accepted, or answered more than expected, where the expectation refuses.
    pub granted: String,
    /// It refused, or answered less, where the expectation accepts.
    pub refused: String,
    /// The verdict is right and the output differs otherwise.
    pub wrong_output: String,
    /// It crashed or hung on the input.
    pub crash_or_hang: String,
}

/// A single expected outcome: success with an output, or an error code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "lowercase", deny_unknown_fields)]
pub enum Expected {
    /// The operation succeeds; every key of `output` must equal the actual output's value.
    Valid {
        /// Expected output keys.
        output: Value,
    },
    /// The operation fails with exactly `code`.
    Invalid {
        /// Expected error code.
        code: String,
        /// Spec step or stage the code belongs to (informational, e.g. `10.1/2`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stage: Option<String>,
    },
}

/// The expectation of a case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "lowercase", deny_unknown_fields)]
pub enum Expectation {
    /// See [`Expected::Valid`].
    Valid {
        /// Expected output keys.
        output: Value,
    },
    /// See [`Expected::Invalid`].
    Invalid {
        /// Expected error code.
        code: String,
        /// Spec step or stage (informational).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stage: Option<String>,
    },
    /// The spec allows several outcomes; the first is the reference's reading.
    Acceptable {
        /// Allowed outcomes, the reference's first.
        outcomes: Vec<Expected>,
        /// The decision in `spec/decisions.md` that explains the alternatives.
        decision: String,
    },
}

impl Expected {
    /// Success with `output`.
    pub fn valid(output: Value) -> Self {
        Self::Valid { output }
    }

    /// Failure with `code` at `stage`.
    pub fn invalid(code: &str, stage: &str) -> Self {
        Self::Invalid {
            code: code.to_owned(),
            stage: Some(stage.to_owned()),
        }
    }
}

impl Expectation {
    /// Success with `output`.
    pub fn valid(output: Value) -> Self {
        Self::Valid { output }
    }

    /// Failure with `code` at `stage` (e.g. `invalid("revoked", "10.1/2")`).
    pub fn invalid(code: &str, stage: &str) -> Self {
        Self::Invalid {
            code: code.to_owned(),
            stage: Some(stage.to_owned()),
        }
    }

    /// Several outcomes allowed by `decision`; `outcomes[0]` is the reference's reading.
    pub fn acceptable(decision: &str, outcomes: Vec<Expected>) -> Self {
        Self::Acceptable {
            outcomes,
            decision: decision.to_owned(),
        }
    }

    /// The outcomes this expectation allows, the preferred one first.
    pub fn outcomes(&self) -> Vec<Expected> {
        match self {
            Self::Valid { output } => vec![Expected::Valid {
                output: output.clone(),
            }],
            Self::Invalid { code, stage } => vec![Expected::Invalid {
                code: code.clone(),
                stage: stage.clone(),
            }],
            Self::Acceptable { outcomes, .. } => outcomes.clone(),
        }
    }
}

/// Recursively rebuilds objects with keys in byte order (independent of whether serde_json
/// was built with `preserve_order`).
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted(v)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}
