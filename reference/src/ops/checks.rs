//! Output verification: one built-in check, or a whole VerificationSpec (spec §6, §10.3;
//! decision D12). Outputs carry `passed` and `score` only: `details` is free text.

use serde_json::{Map, Value};

use super::input::Input;
use super::{OpError, OpResult};
use crate::checks::composite::verify_output_value;
use crate::checks::{default_registry, CheckError, CheckResult};

/// Operations of this area, in catalogue order.
pub(crate) const OPERATIONS: &[&str] = &["check.run", "output.verify"];

pub(crate) fn run(op: &str, input: &Value) -> Option<OpResult> {
    Some(match op {
        "check.run" => check_run(input),
        "output.verify" => output_verify(input),
        _ => return None,
    })
}

pub(crate) fn check_code(e: &CheckError) -> OpError {
    OpError::new(e.code(), e.to_string())
}

/// `{passed, score?}` of a check result, without `details`.
pub(crate) fn result_output(r: &CheckResult) -> Value {
    let mut out = Map::new();
    out.insert("passed".to_owned(), Value::Bool(r.passed));
    if let Some(score) = r.score.and_then(serde_json::Number::from_f64) {
        out.insert("score".to_owned(), Value::Number(score));
    }
    Value::Object(out)
}

fn check_run(input: &Value) -> OpResult {
    let input = Input::new(input, &["name", "output"], &["params"])?;
    let registry = default_registry();
    let check = registry
        .get(input.str("name")?)
        .map_err(|e| check_code(&e))?;
    let result = check(input.value("output")?, input.opt("params")).map_err(|e| check_code(&e))?;
    Ok(result_output(&result))
}

fn output_verify(input: &Value) -> OpResult {
    let input = Input::new(input, &["verification", "output"], &[])?;
    let result = verify_output_value(
        input.value("verification")?,
        input.value("output")?,
        &default_registry(),
    )
    .map_err(|e| check_code(&e))?;
    Ok(result_output(&result))
}
