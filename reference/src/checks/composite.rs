//! `VERIFY_OUTPUT` (§10.3): evaluates a [`VerificationSpec`] against an output.
//!
//! Rules beyond the spec's pseudocode (D12 and the decisions reported with this module):
//! - `schema_match` requires `schema`; `deterministic_check` requires `checkName`; `composite`
//!   requires non-empty `steps` and a `mode`; otherwise `invalid_spec`. Fields that belong to
//!   another method are ignored. Unknown fields and unknown methods are `invalid_spec`.
//! - `checkParams: null` is handed to the check as absent.
//! - `expectedResult` (present, even `null`) must be an object with a boolean `passed`, an
//!   optional number `score` and an optional string `details`, and no other key; otherwise
//!   `invalid_spec`. The spec's `deepEqual(result, expectedResult)` is evaluated as:
//!   `passed` equal, and, **only when `expectedResult.score` is present**, the result has a score
//!   within 1e-9 of it. `details` is never compared: its text is implementation-defined.
//!   The returned result is the check's result with `passed` replaced by that comparison.
//! - `all_pass` stops at the first failing step and returns
//!   `{passed: false, score: 0.0, details: "Step i failed: …"}` (0-based `i`); errors in later
//!   steps are then not reached. `majority` and `weighted` run every step; the first error
//!   aborts the whole verification.
//! - `majority`: `passed = 2·passCount > n`, `score = passCount / n`.
//! - `weighted`: `weights` required, same length as `steps`, each finite and in [0, 1], sum
//!   within 1 ± 0.001; `passThreshold` (default 0.7) finite and in [0, 1]; otherwise
//!   `invalid_spec`. A step without a score counts 1.0 if passed, else 0.0.
//!   `passed = Σ ≥ threshold − 1e-9`, `score = Σ`.
//! - Composites nest at most [`MAX_SPEC_DEPTH`] levels; deeper is `limit_exceeded`.

use serde_json::Value;

use super::{
    CheckError, CheckResult, CompositeMode, Registry, VerificationMethod, VerificationSpec,
    SCORE_TOLERANCE,
};

/// Maximum composite nesting (a top-level composite is depth 1).
pub const MAX_SPEC_DEPTH: usize = 32;

/// Default `passThreshold` for `weighted`.
pub const DEFAULT_PASS_THRESHOLD: f64 = 0.7;

/// Tolerance on the sum of `weights`.
pub const WEIGHT_SUM_TOLERANCE: f64 = 0.001;

/// [`verify_output`] on a JSON spec; a spec that does not deserialize is `invalid_spec`.
pub fn verify_output_value(
    spec: &Value,
    output: &Value,
    registry: &Registry,
) -> Result<CheckResult, CheckError> {
    let spec: VerificationSpec =
        serde_json::from_value(spec.clone()).map_err(|e| CheckError::InvalidSpec(e.to_string()))?;
    verify_output(&spec, output, registry)
}

/// §10.3 `VERIFY_OUTPUT` for one spec.
pub fn verify_output(
    spec: &VerificationSpec,
    output: &Value,
    registry: &Registry,
) -> Result<CheckResult, CheckError> {
    verify_at(spec, output, registry, 0)
}

fn verify_at(
    spec: &VerificationSpec,
    output: &Value,
    registry: &Registry,
    depth: usize,
) -> Result<CheckResult, CheckError> {
    unused_members(spec)?;
    match spec.method {
        VerificationMethod::SchemaMatch => {
            let schema = spec
                .schema
                .as_ref()
                .ok_or_else(|| CheckError::InvalidSpec("schema_match requires 'schema'".into()))?;
            super::schema::validate(schema, output)
        }
        VerificationMethod::DeterministicCheck => deterministic(spec, output, registry),
        VerificationMethod::Composite => composite(spec, output, registry, depth + 1),
    }
}

/// D30: members another method (or, for `weights`, another mode) uses are `invalid_spec`.
fn unused_members(spec: &VerificationSpec) -> Result<(), CheckError> {
    let schema = spec.schema.is_some();
    let check =
        spec.check_name.is_some() || spec.check_params.is_some() || spec.expected_result.is_some();
    let comp = spec.steps.is_some()
        || spec.mode.is_some()
        || spec.weights.is_some()
        || spec.pass_threshold.is_some();
    let extra = match spec.method {
        VerificationMethod::SchemaMatch => check || comp,
        VerificationMethod::DeterministicCheck => schema || comp,
        VerificationMethod::Composite => {
            schema
                || check
                || (spec.mode.is_some_and(|m| m != CompositeMode::Weighted)
                    && spec.weights.is_some())
        }
    };
    if extra {
        return Err(CheckError::InvalidSpec(
            "member not used by this method or mode (D30)".into(),
        ));
    }
    Ok(())
}

fn deterministic(
    spec: &VerificationSpec,
    output: &Value,
    registry: &Registry,
) -> Result<CheckResult, CheckError> {
    let name = spec.check_name.as_deref().ok_or_else(|| {
        CheckError::InvalidSpec("deterministic_check requires 'checkName'".into())
    })?;
    let expected = spec
        .expected_result
        .as_ref()
        .map(ExpectedResult::parse)
        .transpose()?;
    let f = registry.get(name)?;
    let params = spec.check_params.as_ref().filter(|v| !v.is_null());
    let mut result = f(output, params)?;
    if let Some(expected) = expected {
        result.passed = expected.matches(&result);
    }
    Ok(result)
}

/// The comparable part of `expectedResult`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ExpectedResult {
    passed: bool,
    score: Option<f64>,
}

impl ExpectedResult {
    fn parse(v: &Value) -> Result<ExpectedResult, CheckError> {
        let bad = |m: &str| CheckError::InvalidSpec(format!("expectedResult: {m}"));
        let obj = v.as_object().ok_or_else(|| bad("must be an object"))?;
        if let Some(k) = obj
            .keys()
            .find(|k| !matches!(k.as_str(), "passed" | "score" | "details"))
        {
            return Err(bad(&format!("unknown key '{k}'")));
        }
        let passed = obj
            .get("passed")
            .and_then(Value::as_bool)
            .ok_or_else(|| bad("'passed' must be a boolean"))?;
        let score = match obj.get("score") {
            None => None,
            Some(s) => Some(s.as_f64().ok_or_else(|| bad("'score' must be a number"))?),
        };
        if obj.get("details").is_some_and(|d| !d.is_string()) {
            return Err(bad("'details' must be a string"));
        }
        Ok(ExpectedResult { passed, score })
    }

    fn matches(&self, r: &CheckResult) -> bool {
        r.passed == self.passed
            && match (self.score, r.score) {
                (None, _) => true,
                (Some(e), Some(a)) => (e - a).abs() <= SCORE_TOLERANCE,
                (Some(_), None) => false,
            }
    }
}

fn in_unit(x: f64) -> bool {
    x.is_finite() && (0.0..=1.0).contains(&x)
}

fn composite(
    spec: &VerificationSpec,
    output: &Value,
    registry: &Registry,
    depth: usize,
) -> Result<CheckResult, CheckError> {
    if depth > MAX_SPEC_DEPTH {
        return Err(CheckError::LimitExceeded(format!(
            "composite specs nested deeper than {MAX_SPEC_DEPTH}"
        )));
    }
    let steps = spec
        .steps
        .as_deref()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| CheckError::InvalidSpec("composite requires non-empty 'steps'".into()))?;
    let mode = spec
        .mode
        .ok_or_else(|| CheckError::InvalidSpec("composite requires 'mode'".into()))?;
    let mode = match mode {
        CompositeMode::AllPass if crate::faults::on("composite.all-pass-as-majority") => {
            CompositeMode::Majority
        }
        mode => mode,
    };
    match mode {
        CompositeMode::AllPass => {
            for (i, step) in steps.iter().enumerate() {
                let r = verify_at(step, output, registry, depth)?;
                if !r.passed {
                    let why = r.details.as_deref().unwrap_or("no details");
                    return Ok(CheckResult {
                        passed: false,
                        score: Some(0.0),
                        details: Some(format!("Step {i} failed: {why}")),
                    });
                }
            }
            Ok(CheckResult {
                passed: true,
                score: Some(1.0),
                details: None,
            })
        }
        CompositeMode::Majority => {
            let mut pass_count = 0usize;
            for step in steps {
                if verify_at(step, output, registry, depth)?.passed {
                    pass_count += 1;
                }
            }
            Ok(majority(pass_count, steps.len()))
        }
        CompositeMode::Weighted => {
            let weights = check_weights(spec.weights.as_deref(), steps.len())?;
            let threshold = spec.pass_threshold.unwrap_or(DEFAULT_PASS_THRESHOLD);
            if !in_unit(threshold) {
                return Err(CheckError::InvalidSpec(
                    "passThreshold must be in [0, 1]".into(),
                ));
            }
            let mut scores = Vec::with_capacity(steps.len());
            for step in steps {
                let r = verify_at(step, output, registry, depth)?;
                scores.push(r.score.unwrap_or(if r.passed { 1.0 } else { 0.0 }));
            }
            Ok(weighted(weights, &scores, threshold))
        }
    }
}

/// Validates `weights` for `n` steps (see the module doc).
pub fn check_weights(weights: Option<&[f64]>, n: usize) -> Result<&[f64], CheckError> {
    let w = weights.ok_or_else(|| CheckError::InvalidSpec("weighted requires 'weights'".into()))?;
    if w.len() != n {
        return Err(CheckError::InvalidSpec(format!(
            "{} weights for {n} steps",
            w.len()
        )));
    }
    if !w.iter().all(|&x| in_unit(x)) {
        return Err(CheckError::InvalidSpec(
            "every weight must be in [0, 1]".into(),
        ));
    }
    let sum: f64 = w.iter().sum();
    if (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE
        && crate::faults::off("composite.weights-sum-unchecked")
    {
        return Err(CheckError::InvalidSpec(format!(
            "weights sum to {sum}, not 1 ± 0.001"
        )));
    }
    Ok(w)
}

/// The `majority` result for `pass_count` of `n` (n > 0) steps.
pub fn majority(pass_count: usize, n: usize) -> CheckResult {
    #[allow(clippy::cast_precision_loss)]
    let score = pass_count as f64 / n.max(1) as f64;
    CheckResult {
        passed: if crate::faults::on("composite.majority-tie-passes") {
            crate::faults::at_least(pass_count.saturating_mul(2), n)
        } else {
            pass_count.saturating_mul(2) > n
        },
        score: Some(score),
        details: None,
    }
}

/// The `weighted` result for validated weights and per-step scores.
pub fn weighted(weights: &[f64], scores: &[f64], threshold: f64) -> CheckResult {
    let total: f64 = weights.iter().zip(scores).map(|(w, s)| w * s).sum();
    CheckResult {
        passed: total >= threshold - SCORE_TOLERANCE,
        score: Some(total),
        details: None,
    }
}
