//! `VERIFY_OUTPUT` (§10.3): methods, expectedResult, composite modes, spec errors.

// Test helpers unwrap: a panic is the failure report here.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_reference::checks::composite::{check_weights, majority, weighted};
use delegateos_reference::checks::{
    default_registry, verify_output_value, CheckError, CheckResult, Registry,
};
use proptest::prelude::*;
use serde_json::{json, Value};

fn verify(spec: Value, output: Value) -> Result<CheckResult, CheckError> {
    verify_output_value(&spec, &output, &default_registry())
}

fn regex(p: &str) -> Value {
    json!({"method": "deterministic_check", "checkName": "regex_match", "checkParams": {"pattern": p}})
}

#[test]
fn schema_match() {
    let spec = json!({"method": "schema_match", "schema": {"type": "integer"}});
    assert_eq!(verify(spec.clone(), json!(3)).unwrap(), CheckResult::pass());
    assert!(!verify(spec, json!("3")).unwrap().passed);
    assert_eq!(
        verify(json!({"method": "schema_match"}), json!(3))
            .unwrap_err()
            .code(),
        "invalid_spec"
    );
    assert_eq!(
        verify(
            json!({"method": "schema_match", "schema": {"bogus": 1}}),
            json!(3)
        )
        .unwrap_err()
        .code(),
        "invalid_schema"
    );
}

#[test]
fn spec_shape_errors() {
    for bad in [
        json!({"method": "llm_judge"}),
        json!({"method": "schema_match", "schema": {}, "extra": 1}),
        json!({"method": "deterministic_check"}),
        json!({"method": "composite", "mode": "all_pass", "steps": []}),
        json!({"method": "composite", "mode": "all_pass"}),
        json!({"method": "composite", "steps": [regex("a")]}),
        json!({"method": "composite", "mode": "any", "steps": [regex("a")]}),
        json!("schema_match"),
    ] {
        assert_eq!(
            verify(bad.clone(), json!("a")).unwrap_err().code(),
            "invalid_spec",
            "{bad}"
        );
    }
    let unknown = json!({"method": "deterministic_check", "checkName": "nope"});
    assert_eq!(
        verify(unknown, json!("a")).unwrap_err().code(),
        "unknown_check"
    );
}

#[test]
fn deterministic_check_with_expected_result() {
    let mut spec = regex("^a");
    spec["expectedResult"] = json!({"passed": false});
    // The check fails on "b", which is what was expected: passed becomes true.
    let r = verify(spec.clone(), json!("b")).unwrap();
    assert!(r.passed);
    assert_eq!(r.score, Some(0.0));
    assert!(!verify(spec.clone(), json!("a")).unwrap().passed);
    spec["expectedResult"] = json!({"passed": true, "score": 1.0, "details": "ignored"});
    assert!(verify(spec.clone(), json!("a")).unwrap().passed);
    spec["expectedResult"] = json!({"passed": true, "score": 0.5});
    assert!(!verify(spec.clone(), json!("a")).unwrap().passed);
    for bad in [
        json!(null),
        json!(true),
        json!({"score": 1}),
        json!({"passed": true, "x": 1}),
        json!({"passed": true, "score": "1"}),
    ] {
        spec["expectedResult"] = bad.clone();
        assert_eq!(
            verify(spec.clone(), json!("a")).unwrap_err().code(),
            "invalid_spec",
            "{bad}"
        );
    }
    let null_params =
        json!({"method": "deterministic_check", "checkName": "string_length", "checkParams": null});
    assert!(verify(null_params, json!("a")).unwrap().passed);
}

#[test]
fn all_pass_short_circuits() {
    let failing_then_erroring = json!({"method": "composite", "mode": "all_pass", "steps": [
        regex("^a"), regex("^b"), {"method": "deterministic_check", "checkName": "nope"}
    ]});
    let r = verify(failing_then_erroring, json!("a")).unwrap();
    assert!(!r.passed);
    assert_eq!(r.score, Some(0.0));
    assert!(r.details.unwrap().starts_with("Step 1 failed"));
    let ok = json!({"method": "composite", "mode": "all_pass", "steps": [regex("a"), regex("b")]});
    assert_eq!(verify(ok, json!("ab")).unwrap(), CheckResult::pass());
}

#[test]
fn majority_is_strict() {
    let spec =
        |steps: Vec<Value>| json!({"method": "composite", "mode": "majority", "steps": steps});
    let r = verify(spec(vec![regex("a"), regex("x")]), json!("a")).unwrap();
    assert!(!r.passed);
    assert_eq!(r.score, Some(0.5));
    let r = verify(spec(vec![regex("a"), regex("x"), regex("^a")]), json!("a")).unwrap();
    assert!(r.passed);
    // Majority runs every step, so a later error surfaces.
    let err = spec(vec![
        regex("x"),
        json!({"method": "deterministic_check", "checkName": "nope"}),
    ]);
    assert_eq!(verify(err, json!("a")).unwrap_err().code(), "unknown_check");
}

#[test]
fn weighted_threshold_and_weights() {
    let spec = |w: Value, t: Option<f64>| {
        let mut s = json!({"method": "composite", "mode": "weighted", "weights": w, "steps": [regex("a"), regex("x")]});
        if let Some(t) = t {
            s["passThreshold"] = json!(t);
        }
        s
    };
    let r = verify(spec(json!([0.7, 0.3]), None), json!("a")).unwrap();
    assert!(r.passed, "0.7 >= default 0.7");
    assert!(
        !verify(spec(json!([0.6, 0.4]), None), json!("a"))
            .unwrap()
            .passed
    );
    assert!(
        verify(spec(json!([0.6, 0.4]), Some(0.6)), json!("a"))
            .unwrap()
            .passed
    );
    assert!(
        verify(spec(json!([0.5, 0.5005]), Some(0.5)), json!("a"))
            .unwrap()
            .passed
    );
    for bad in [
        json!([0.5, 0.502]),
        json!([1.0]),
        json!([1.5, -0.5]),
        json!(null),
    ] {
        assert_eq!(
            verify(spec(bad.clone(), None), json!("a"))
                .unwrap_err()
                .code(),
            "invalid_spec",
            "{bad}"
        );
    }
    assert_eq!(
        verify(spec(json!([0.5, 0.5]), Some(1.5)), json!("a"))
            .unwrap_err()
            .code(),
        "invalid_spec"
    );
}

fn no_score(_: &Value, _: Option<&Value>) -> Result<CheckResult, CheckError> {
    Ok(CheckResult {
        passed: true,
        score: None,
        details: None,
    })
}

fn half(_: &Value, _: Option<&Value>) -> Result<CheckResult, CheckError> {
    Ok(CheckResult {
        passed: false,
        score: Some(0.5),
        details: None,
    })
}

#[test]
fn weighted_score_fallback_and_custom_checks() {
    let mut reg: Registry = default_registry();
    reg.register("no_score", no_score);
    reg.register("half", half);
    let spec = json!({"method": "composite", "mode": "weighted", "weights": [0.5, 0.5], "steps": [
        {"method": "deterministic_check", "checkName": "no_score"},
        {"method": "deterministic_check", "checkName": "half"}
    ]});
    let r = verify_output_value(&spec, &json!(null), &reg).unwrap();
    assert!(r.passed);
    assert!((r.score.unwrap() - 0.75).abs() < 1e-12);
}

#[test]
fn nesting_limit() {
    let mut spec = regex("a");
    for _ in 0..32 {
        spec = json!({"method": "composite", "mode": "all_pass", "steps": [spec]});
    }
    assert!(verify(spec.clone(), json!("a")).unwrap().passed);
    spec = json!({"method": "composite", "mode": "all_pass", "steps": [spec]});
    assert_eq!(
        verify(spec, json!("a")).unwrap_err().code(),
        "limit_exceeded"
    );
}

proptest! {
    #[test]
    fn majority_matches_definition(n in 1usize..200, k in 0usize..200) {
        let k = k % (n + 1);
        let r = majority(k, n);
        prop_assert_eq!(r.passed, 2 * k > n);
        prop_assert!((r.score.unwrap() - k as f64 / n as f64).abs() < 1e-12);
    }

    #[test]
    fn weighted_is_dot_product(raw in proptest::collection::vec((1u32..1000, 0u32..=100), 1..20), t in 0u32..=100) {
        let total: u32 = raw.iter().map(|(w, _)| w).sum();
        let weights: Vec<f64> = raw.iter().map(|(w, _)| f64::from(*w) / f64::from(total)).collect();
        let scores: Vec<f64> = raw.iter().map(|(_, s)| f64::from(*s) / 100.0).collect();
        let w = check_weights(Some(&weights), weights.len()).unwrap();
        let threshold = f64::from(t) / 100.0;
        let r = weighted(w, &scores, threshold);
        let expect: f64 = weights.iter().zip(&scores).map(|(a, b)| a * b).sum();
        prop_assert!((r.score.unwrap() - expect).abs() < 1e-12);
        prop_assert_eq!(r.passed, expect >= threshold - 1e-9);
        prop_assert!(check_weights(Some(&weights), weights.len() + 1).is_err());
    }

    #[test]
    fn weights_off_by_more_than_tolerance_are_rejected(n in 1usize..10, off in 0.0011f64..0.5) {
        let mut w = vec![1.0 / n as f64; n];
        w[0] += off;
        if w[0] <= 1.0 {
            prop_assert!(check_weights(Some(&w), n).is_err());
        }
    }
}
