//! The comparison rule of `spec/adapter-protocol.md`: one expectation, one actual outcome,
//! one verdict, with a readable diff when they disagree.
//!
//! - `valid` passes iff the outcome is `ok` and every key of the expected output equals the
//!   actual output's value under [`json_equal`] (keys the expectation does not list are
//!   ignored, so implementations may add diagnostics);
//! - `invalid` passes iff the outcome is `error` with exactly the expected code (`detail`
//!   and `stage` are never compared);
//! - `acceptable` passes iff the outcome satisfies one of the listed outcomes; matching the
//!   first (the reference's reading) is [`Verdict::Passed`], any other is
//!   [`Verdict::Acceptable`].
//!
//! `skipped` and `errored` outcomes are never a pass; the runner normally reports them before
//! judging, and [`judge`] fails them so that nobody can mistake one for a pass.

use serde_json::{json, Map, Value};
use similar::TextDiff;

use crate::format::{Expectation, Expected};
use delegateos_reference::ops::Outcome;

/// Absolute tolerance for comparing non-integer numbers (scores, decision D12).
pub const FLOAT_TOLERANCE: f64 = 1e-9;

/// What an implementation answered for one case.
#[derive(Debug, Clone, PartialEq)]
pub enum ActualOutcome {
    /// `ok` with an output object.
    Ok {
        /// The output.
        output: Value,
    },
    /// `error` with a code.
    Error {
        /// The code.
        code: String,
        /// Free text, never compared.
        detail: Option<String>,
    },
    /// The adapter skipped the case.
    Skipped {
        /// Why.
        reason: String,
    },
    /// The adapter failed.
    Errored {
        /// What went wrong.
        message: String,
    },
    /// The implementation threw (an exception, a panic inside the library) on this input; the
    /// adapter itself is fine (`spec/adapter-protocol.md` §2.2).
    Threw {
        /// The exception.
        message: String,
    },
}

impl From<&Outcome> for ActualOutcome {
    fn from(outcome: &Outcome) -> Self {
        match outcome {
            Outcome::Ok { output } => Self::Ok {
                output: output.clone(),
            },
            Outcome::Error { code, detail } => Self::Error {
                code: code.clone(),
                detail: Some(detail.clone()),
            },
            Outcome::Unsupported { reason } => Self::Skipped {
                reason: reason.clone(),
            },
        }
    }
}

impl ActualOutcome {
    /// The outcome as JSON, in the adapter reply's shape (without `seq`).
    pub fn to_json(&self) -> Value {
        match self {
            Self::Ok { output } => json!({ "outcome": "ok", "output": output }),
            Self::Error { code, detail } => match detail {
                Some(detail) => json!({ "outcome": "error", "code": code, "detail": detail }),
                None => json!({ "outcome": "error", "code": code }),
            },
            Self::Skipped { reason } => json!({ "outcome": "skipped", "reason": reason }),
            Self::Errored { message } => json!({ "outcome": "errored", "message": message }),
            Self::Threw { message } => json!({ "outcome": "threw", "message": message }),
        }
    }
}

/// The verdict on one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The outcome is the expected one (for `acceptable`: the first listed outcome).
    Passed,
    /// An `acceptable` case matched outcome `matched` (≥ 1): the other reading of a decision.
    Acceptable {
        /// Index into the expectation's `outcomes`.
        matched: usize,
    },
    /// A correct rejection with another code of the expected code's family
    /// (`spec/error-codes.md` §11): a hardening-level, low-severity finding, never a wrong
    /// verdict and never an acceptance. Only [`judge_case`] returns it.
    OtherCode {
        /// The family.
        family: String,
        /// The code the expectation names.
        expected_code: String,
        /// The code the implementation gave.
        actual_code: String,
        /// Unified diff from the expectation to the actual outcome.
        diff: String,
    },
    /// The outcome violates the expectation.
    Failed {
        /// The expectation, pretty JSON.
        expected: String,
        /// The actual outcome, pretty JSON (adapter reply shape).
        actual: String,
        /// Unified diff from `expected` to `actual`.
        diff: String,
        /// What kind of violation.
        kind: FailureKind,
    },
}

/// What a failed case's implementation did wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Wrong verdict: succeeded where every allowed outcome is a rejection.
    AcceptedInvalid,
    /// Wrong verdict: rejected where every allowed outcome is a success.
    RejectedValid,
    /// Rejected as expected, with a code outside the expected code's family.
    WrongCode,
    /// Succeeded as expected, with an output that differs (the verdict is right).
    OutputMismatch,
    /// No verdict: skipped or errored.
    NoAnswer,
}

impl FailureKind {
    /// True for a wrong verdict (accepted where it must reject, or vice versa).
    pub fn is_wrong_verdict(self) -> bool {
        matches!(self, Self::AcceptedInvalid | Self::RejectedValid)
    }

    /// Human name used by the reports.
    pub fn label(self) -> &'static str {
        match self {
            Self::AcceptedInvalid => "wrong verdict: accepted",
            Self::RejectedValid => "wrong verdict: rejected",
            Self::WrongCode => "wrong code",
            Self::OutputMismatch => "output mismatch",
            Self::NoAnswer => "no answer",
        }
    }
}

impl Verdict {
    /// True for [`Verdict::Passed`] and [`Verdict::Acceptable`].
    pub fn is_success(&self) -> bool {
        matches!(self, Self::Passed | Self::Acceptable { .. })
    }
}

fn failure_kind(outcomes: &[Expected], actual: &ActualOutcome) -> FailureKind {
    let any_valid = outcomes.iter().any(|o| matches!(o, Expected::Valid { .. }));
    let any_invalid = outcomes
        .iter()
        .any(|o| matches!(o, Expected::Invalid { .. }));
    match actual {
        ActualOutcome::Ok { .. } if any_valid => FailureKind::OutputMismatch,
        ActualOutcome::Ok { .. } => FailureKind::AcceptedInvalid,
        ActualOutcome::Error { .. } if any_invalid => FailureKind::WrongCode,
        ActualOutcome::Error { .. } => FailureKind::RejectedValid,
        ActualOutcome::Skipped { .. }
        | ActualOutcome::Errored { .. }
        | ActualOutcome::Threw { .. } => FailureKind::NoAnswer,
    }
}

/// Judges `actual` for a case of operation `op` carrying `flags`: [`judge`], except that a
/// rejection with another code of the expected code's family (`spec/error-codes.md` §11,
/// within the family's operations and stages) is [`Verdict::OtherCode`].
pub fn judge_case(
    op: &str,
    flags: &[String],
    expect: &Expectation,
    actual: &ActualOutcome,
) -> Verdict {
    let verdict = judge(expect, actual);
    // An output that differs only in per-entry codes of one family (revocation.list's
    // `added`): the same finding as a rejection with another code.
    if let (
        Verdict::Failed {
            diff,
            kind: FailureKind::OutputMismatch,
            ..
        },
        ActualOutcome::Ok { output: got },
    ) = (&verdict, actual)
    {
        for o in expect.outcomes() {
            let Expected::Valid { output: want } = o else {
                continue;
            };
            for f in crate::families::all() {
                if f.ops.iter().any(|x| x == op) && output_matches_with(&want, got, &f.codes) {
                    return Verdict::OtherCode {
                        family: f.name.clone(),
                        expected_code: "(in output)".to_owned(),
                        actual_code: "(in output)".to_owned(),
                        diff: diff.clone(),
                    };
                }
            }
        }
        return verdict;
    }
    let Verdict::Failed {
        diff,
        kind: FailureKind::WrongCode,
        ..
    } = &verdict
    else {
        return verdict;
    };
    let ActualOutcome::Error { code: got, .. } = actual else {
        return verdict;
    };
    for o in expect.outcomes() {
        if let Expected::Invalid { code, stage } = o {
            if let Some(f) = crate::families::family_for(op, stage.as_deref(), flags, &code, got) {
                return Verdict::OtherCode {
                    family: f.name.clone(),
                    expected_code: code,
                    actual_code: got.clone(),
                    diff: diff.clone(),
                };
            }
        }
    }
    verdict
}

/// Judges `actual` against `expect`.
pub fn judge(expect: &Expectation, actual: &ActualOutcome) -> Verdict {
    let outcomes = expect.outcomes();
    if let Some(matched) = outcomes.iter().position(|o| satisfies(o, actual)) {
        return if matched == 0 {
            Verdict::Passed
        } else {
            Verdict::Acceptable { matched }
        };
    }
    let expected = pretty(&expectation_json(expect));
    // Show the actual outcome restricted to what the expectation compares, so the diff
    // highlights the disagreement rather than extra diagnostics the implementation returned.
    let actual_json = comparable_actual(&outcomes, actual);
    let actual_text = pretty(&actual_json);
    let diff = unified_diff(&expected, &actual_text, "expected", "actual");
    Verdict::Failed {
        kind: failure_kind(&outcomes, actual),
        expected,
        actual: actual_text,
        diff,
    }
}

/// Judges `actual` against the *reference reading* only: for an `acceptable` expectation,
/// only its first outcome passes; any other outcome fails with a diff against that first
/// outcome. The generator and the corpus tests hold the reference to this stricter rule.
pub fn judge_reference(expect: &Expectation, actual: &ActualOutcome) -> Verdict {
    match expect {
        Expectation::Acceptable { outcomes, .. } => match outcomes.first() {
            Some(Expected::Valid { output }) => judge(&Expectation::valid(output.clone()), actual),
            Some(Expected::Invalid { code, stage }) => judge(
                &Expectation::Invalid {
                    code: code.clone(),
                    stage: stage.clone(),
                },
                actual,
            ),
            None => judge(expect, actual),
        },
        _ => judge(expect, actual),
    }
}

/// A unified diff of two texts, or an empty string if they are equal.
pub fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

fn satisfies(expected: &Expected, actual: &ActualOutcome) -> bool {
    match (expected, actual) {
        (Expected::Valid { output }, ActualOutcome::Ok { output: got }) => {
            output_matches(output, got)
        }
        (Expected::Invalid { code, .. }, ActualOutcome::Error { code: got, .. }) => code == got,
        _ => false,
    }
}

/// Every key of `expected` is present in `actual` with a [`json_equal`] value.
fn output_matches(expected: &Value, actual: &Value) -> bool {
    match (expected.as_object(), actual.as_object()) {
        (Some(want), Some(got)) => want
            .iter()
            .all(|(k, v)| got.get(k).is_some_and(|g| json_equal(v, g))),
        _ => json_equal(expected, actual),
    }
}

/// [`output_matches`], where two strings that are both codes of `family` compare equal.
fn output_matches_with(expected: &Value, actual: &Value, family: &[String]) -> bool {
    fn eq(a: &Value, b: &Value, family: &[String]) -> bool {
        match (a, b) {
            (Value::String(x), Value::String(y)) => {
                x == y || (family.contains(x) && family.contains(y))
            }
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(a, b)| eq(a, b, family))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| eq(v, w, family)))
            }
            _ => json_equal(a, b),
        }
    }
    match (expected.as_object(), actual.as_object()) {
        (Some(want), Some(got)) => want
            .iter()
            .all(|(k, v)| got.get(k).is_some_and(|g| eq(v, g, family))),
        _ => eq(expected, actual, family),
    }
}

/// JSON equality where numbers compare as numbers, by the rule of `spec/adapter-protocol.md`
/// "Numbers" (pinned by `spec/data/number-equality.json` in Rust, JS and Python): integers in
/// [−2^63, 2^64−1] exactly, other numbers as binary64 within [`FLOAT_TOLERANCE`] (so `1`,
/// `1.0` and `0.9999999999` all equal a score of `1`). Exact parsing relies on serde_json's
/// `float_roundtrip` feature, on for the workspace.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            if let (Some(x), Some(y)) = (x.as_i64(), y.as_i64()) {
                return x == y;
            }
            if let (Some(x), Some(y)) = (x.as_u64(), y.as_u64()) {
                return x == y;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => (x - y).abs() <= FLOAT_TOLERANCE,
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

fn expectation_json(expect: &Expectation) -> Value {
    let outcomes: Vec<Value> = expect.outcomes().iter().map(expected_json).collect();
    match expect {
        Expectation::Acceptable { decision, .. } => {
            json!({ "result": "acceptable", "decision": decision, "outcomes": outcomes })
        }
        _ => outcomes.into_iter().next().unwrap_or(Value::Null),
    }
}

fn expected_json(expected: &Expected) -> Value {
    match expected {
        Expected::Valid { output } => json!({ "outcome": "ok", "output": output }),
        Expected::Invalid { code, .. } => json!({ "outcome": "error", "code": code }),
    }
}

fn comparable_actual(outcomes: &[Expected], actual: &ActualOutcome) -> Value {
    match actual {
        ActualOutcome::Ok { output } => {
            // Restrict to the keys some expected output lists, when there is one and the
            // reply has all of them; otherwise show everything, so a reply whose keys are
            // misnamed or all unexpected never shows as an empty `{}`.
            let keys: Vec<&String> = outcomes
                .iter()
                .filter_map(|o| match o {
                    Expected::Valid { output } => output.as_object(),
                    Expected::Invalid { .. } => None,
                })
                .flat_map(|m| m.keys())
                .collect();
            let shown = match output.as_object() {
                Some(map) if !keys.is_empty() && keys.iter().all(|k| map.contains_key(*k)) => {
                    let restricted: Map<String, Value> = map
                        .iter()
                        .filter(|(k, _)| keys.contains(k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    Value::Object(restricted)
                }
                _ => output.clone(),
            };
            json!({ "outcome": "ok", "output": shown })
        }
        ActualOutcome::Error { code, .. } => json!({ "outcome": "error", "code": code }),
        other => other.to_json(),
    }
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(v: Value) -> ActualOutcome {
        ActualOutcome::Ok { output: v }
    }

    fn err(code: &str) -> ActualOutcome {
        ActualOutcome::Error {
            code: code.into(),
            detail: Some("whatever".into()),
        }
    }

    #[test]
    fn valid_ignores_extra_keys_and_compares_numbers_as_numbers() {
        let e = Expectation::valid(json!({"passed": true, "score": 1}));
        assert_eq!(
            judge(
                &e,
                &ok(json!({"passed": true, "score": 1.0, "details": "x"}))
            ),
            Verdict::Passed
        );
        assert!(!judge(&e, &ok(json!({"passed": true}))).is_success());
        assert!(!judge(&e, &err("x")).is_success());
    }

    #[test]
    fn invalid_compares_code_only() {
        let e = Expectation::invalid("revoked", "10.1/2");
        assert_eq!(judge(&e, &err("revoked")), Verdict::Passed);
        let Verdict::Failed { diff, .. } = judge(&e, &err("expired")) else {
            panic!("must fail")
        };
        assert!(diff.contains("-  \"code\": \"revoked\""), "{diff}");
        assert!(diff.contains("+  \"code\": \"expired\""), "{diff}");
        assert!(!judge(&e, &ok(json!({}))).is_success());
    }

    #[test]
    fn acceptable_distinguishes_the_reference_reading() {
        let e = Expectation::acceptable(
            "D2",
            vec![
                Expected::valid(json!({"matches": true})),
                Expected::valid(json!({"matches": false})),
            ],
        );
        assert_eq!(judge(&e, &ok(json!({"matches": true}))), Verdict::Passed);
        assert_eq!(
            judge(&e, &ok(json!({"matches": false}))),
            Verdict::Acceptable { matched: 1 }
        );
        assert!(!judge(&e, &err("invalid_input")).is_success());
    }

    #[test]
    fn reference_reading_is_outcome_zero() {
        let e = Expectation::acceptable(
            "D1",
            vec![
                Expected::valid(json!({"matches": false})),
                Expected::valid(json!({"matches": true})),
            ],
        );
        assert_eq!(
            judge_reference(&e, &ok(json!({"matches": false}))),
            Verdict::Passed
        );
        assert!(!judge_reference(&e, &ok(json!({"matches": true}))).is_success());
    }

    #[test]
    fn skipped_is_never_a_pass() {
        let e = Expectation::valid(json!({}));
        let skipped = ActualOutcome::Skipped {
            reason: "n/a".into(),
        };
        assert!(!judge(&e, &skipped).is_success());
    }
}
