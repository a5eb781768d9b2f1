//! Output verification: check functions, the registry, and `VERIFY_OUTPUT` (§6, §10.3, D12).
//!
//! This module owns the [`CheckResult`] / [`CheckError`] vocabulary, the [`Registry`] of named
//! check functions with the seven built-ins of §6.2 ([`default_registry`]), the
//! [`VerificationSpec`] wire type of §6.1, and [`verify_output`], which evaluates a spec
//! (`schema_match`, `deterministic_check`, `composite`) against an output. It stops at the
//! output: contracts, attestations and budgets live in `contract` and `attestation`.
//!
//! Submodules: [`builtin`] (the seven checks and their parameter rules), [`ecma_regex`]
//! (ECMAScript patterns on a linear-time engine), [`schema`] (draft-07 with an ajv-strict-like
//! meta-check), [`composite`] (the §10.3 algorithm).
//!
//! Every check is a pure function `fn(&Value, Option<&Value>) -> Result<CheckResult, CheckError>`.
//! A check *fails* (`passed: false`) when the output does not satisfy it; it *errors* when the
//! check itself cannot be evaluated (bad parameters, an unsupported pattern, an invalid schema,
//! a limit). Errors carry stable codes ([`CheckError::code`]).

pub mod builtin;
pub mod composite;
pub mod ecma_regex;
pub mod schema;

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

pub use composite::{verify_output, verify_output_value, MAX_SPEC_DEPTH};

/// Tolerance used whenever two scores are compared (D12).
pub const SCORE_TOLERANCE: f64 = 1e-9;

/// The result of one check or of a whole verification (§6.2 `CheckResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckResult {
    /// Whether the output satisfied the check.
    pub passed: bool,
    /// Score in 0.0–1.0, when the check produces one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Human-readable explanation; its text is not normative.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
}

impl CheckResult {
    /// `{passed: true, score: 1.0}`.
    pub fn pass() -> CheckResult {
        CheckResult {
            passed: true,
            score: Some(1.0),
            details: None,
        }
    }

    /// `{passed: false, score: 0.0, details}`.
    pub fn fail(details: impl Into<String>) -> CheckResult {
        CheckResult {
            passed: false,
            score: Some(0.0),
            details: Some(details.into()),
        }
    }

    /// Pass or fail on a boolean, with `details` on failure only.
    pub fn from_bool(passed: bool, details: impl FnOnce() -> String) -> CheckResult {
        if passed {
            CheckResult::pass()
        } else {
            CheckResult::fail(details())
        }
    }
}

/// Why a check or a verification spec could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// `checkName` is not in the registry.
    #[error("unknown check function: {0}")]
    UnknownCheck(String),
    /// Check parameters are missing, mistyped, out of range, or a pattern has a syntax error.
    #[error("invalid check params: {0}")]
    InvalidParams(String),
    /// A valid ECMAScript pattern that needs a backtracking engine or an unsupported feature.
    #[error("unsupported pattern: {0}")]
    UnsupportedPattern(String),
    /// A JSON Schema that is not a valid strict draft-07 schema.
    #[error("invalid schema: {0}")]
    InvalidSchema(String),
    /// A `VerificationSpec` that is malformed (unknown method, empty steps, bad weights, ...).
    #[error("invalid verification spec: {0}")]
    InvalidSpec(String),
    /// An input exceeded a documented size or depth limit.
    #[error("limit exceeded: {0}")]
    LimitExceeded(String),
}

impl CheckError {
    /// The stable code of this error, as used in vectors.
    pub fn code(&self) -> &'static str {
        match self {
            CheckError::UnknownCheck(_) => "unknown_check",
            CheckError::InvalidParams(_) => "invalid_params",
            CheckError::UnsupportedPattern(_) => "unsupported_pattern",
            CheckError::InvalidSchema(_) => "invalid_schema",
            CheckError::InvalidSpec(_) => "invalid_spec",
            CheckError::LimitExceeded(_) => "limit_exceeded",
        }
    }

    /// The human-readable detail (not normative).
    pub fn detail(&self) -> &str {
        match self {
            CheckError::UnknownCheck(s)
            | CheckError::InvalidParams(s)
            | CheckError::UnsupportedPattern(s)
            | CheckError::InvalidSchema(s)
            | CheckError::InvalidSpec(s)
            | CheckError::LimitExceeded(s) => s,
        }
    }
}

/// A check function: `(output, params?) -> CheckResult` (§6.2). Pure and synchronous.
pub type CheckFunction = fn(&Value, Option<&Value>) -> Result<CheckResult, CheckError>;

/// Named check functions (§6.3). Names are listed in sorted order.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    fns: BTreeMap<String, CheckFunction>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers `f` under `name`, replacing and returning any previous function.
    pub fn register(&mut self, name: impl Into<String>, f: CheckFunction) -> Option<CheckFunction> {
        self.fns.insert(name.into(), f)
    }

    /// The function registered under `name`, or `unknown_check`.
    pub fn get(&self, name: &str) -> Result<CheckFunction, CheckError> {
        self.fns
            .get(name)
            .copied()
            .ok_or_else(|| CheckError::UnknownCheck(name.to_owned()))
    }
}

/// A registry holding the seven built-in checks of §6.2.
pub fn default_registry() -> Registry {
    let mut r = Registry::new();
    for (name, f) in builtin::BUILTINS {
        r.register(*name, *f);
    }
    r
}

/// `VerificationSpec.method` (§6.1). v0.2 methods (`llm_judge`, `human_review`) are not
/// accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificationMethod {
    /// Validate the output against `schema`.
    SchemaMatch,
    /// Run the registered check `checkName`.
    DeterministicCheck,
    /// Combine `steps` by `mode`.
    Composite,
}

/// `VerificationSpec.mode` for composites (§6.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompositeMode {
    /// Every step passes; stops at the first failure.
    AllPass,
    /// Strictly more than half of the steps pass.
    Majority,
    /// Σ weightᵢ·scoreᵢ ≥ passThreshold.
    Weighted,
}

/// §6.1 `VerificationSpec`. Unknown fields are rejected. `expectedResult: null` is kept as
/// `Some(Value::Null)` (the spec tests `!== undefined`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerificationSpec {
    /// The verification method.
    pub method: VerificationMethod,
    /// `schema_match`: the draft-07 schema.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub schema: Option<Value>,
    /// `deterministic_check`: registry name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_name: Option<String>,
    /// `deterministic_check`: parameters handed to the check.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub check_params: Option<Value>,
    /// `deterministic_check`: the result the check must produce.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub expected_result: Option<Value>,
    /// `composite`: sub-specs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<Vec<VerificationSpec>>,
    /// `composite`: combination mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<CompositeMode>,
    /// `weighted`: one weight per step, summing to 1 ± 0.001.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights: Option<Vec<f64>>,
    /// `weighted`: threshold, default 0.7.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_threshold: Option<f64>,
}

/// Deserializes a present field (including `null`) as `Some`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}
