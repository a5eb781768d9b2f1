//! The comparison rule that decides every verdict (`vectors/src/judge.rs`, the code families of
//! `vectors/src/families.rs`), case by case: what passes, what is acceptable, what is another
//! code of the family, and what kind of failure the rest is (issue 26: the code that decides
//! verdicts is tested like the reference).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_vectors::families::{all, family_for};
use delegateos_vectors::format::{Expectation, Expected};
use delegateos_vectors::judge::{
    json_equal, judge, judge_case, ActualOutcome, FailureKind, Verdict,
};
use serde_json::{json, Value};

fn valid(output: Value) -> Expectation {
    Expectation::Valid { output }
}

fn invalid(code: &str, stage: Option<&str>) -> Expectation {
    Expectation::Invalid {
        code: code.to_owned(),
        stage: stage.map(str::to_owned),
    }
}

fn ok(output: Value) -> ActualOutcome {
    ActualOutcome::Ok { output }
}

fn err(code: &str) -> ActualOutcome {
    ActualOutcome::Error {
        code: code.to_owned(),
        detail: None,
    }
}

fn kind(v: &Verdict) -> Option<FailureKind> {
    match v {
        Verdict::Failed { kind, .. } => Some(*kind),
        _ => None,
    }
}

#[test]
fn failure_kinds_name_what_went_wrong() {
    let e = invalid("revoked", None);
    assert_eq!(
        kind(&judge(&e, &ok(json!({})))),
        Some(FailureKind::AcceptedInvalid)
    );
    assert_eq!(
        kind(&judge(&e, &err("expired"))),
        Some(FailureKind::WrongCode)
    );
    assert_eq!(judge(&e, &err("revoked")), Verdict::Passed);
    let v = valid(json!({"matches": true}));
    assert_eq!(
        kind(&judge(&v, &err("expired"))),
        Some(FailureKind::RejectedValid)
    );
    assert_eq!(
        kind(&judge(&v, &ok(json!({"matches": false})))),
        Some(FailureKind::OutputMismatch)
    );
    let skipped = ActualOutcome::Skipped {
        reason: "no".into(),
    };
    assert_eq!(kind(&judge(&v, &skipped)), Some(FailureKind::NoAnswer));
    // An acceptable expectation with a success and a refusal: another refusal is a wrong
    // code, a success with another output an output mismatch.
    let both = Expectation::Acceptable {
        outcomes: vec![
            Expected::Valid {
                output: json!({"x": 1}),
            },
            Expected::Invalid {
                code: "malformed_token".into(),
                stage: None,
            },
        ],
        decision: "D5".into(),
    };
    assert_eq!(
        kind(&judge(&both, &err("expired"))),
        Some(FailureKind::WrongCode)
    );
    assert_eq!(
        kind(&judge(&both, &ok(json!({"x": 2})))),
        Some(FailureKind::OutputMismatch)
    );
    assert_eq!(judge(&both, &ok(json!({"x": 1}))), Verdict::Passed);
    assert_eq!(
        judge(&both, &err("malformed_token")),
        Verdict::Acceptable { matched: 1 }
    );
    let refusals = Expectation::Acceptable {
        outcomes: vec![
            Expected::Invalid {
                code: "expired".into(),
                stage: None,
            },
            Expected::Invalid {
                code: "malformed_token".into(),
                stage: None,
            },
        ],
        decision: "D5".into(),
    };
    assert_eq!(
        kind(&judge(&refusals, &ok(json!({})))),
        Some(FailureKind::AcceptedInvalid)
    );
}

#[test]
fn wrong_verdicts_and_labels() {
    assert!(FailureKind::AcceptedInvalid.is_wrong_verdict());
    assert!(FailureKind::RejectedValid.is_wrong_verdict());
    assert!(!FailureKind::WrongCode.is_wrong_verdict());
    assert!(!FailureKind::OutputMismatch.is_wrong_verdict());
    assert!(!FailureKind::NoAnswer.is_wrong_verdict());
    assert_eq!(
        FailureKind::AcceptedInvalid.label(),
        "wrong verdict: accepted"
    );
    assert_eq!(FailureKind::WrongCode.label(), "wrong code");
}

#[test]
fn outputs_compare_listed_keys_and_numbers_as_numbers() {
    let v = valid(json!({"a": "x", "n": 1, "o": {"k": [1, 2]}}));
    // Extra keys in the reply are ignored; every listed key must be equal.
    assert_eq!(
        judge(
            &v,
            &ok(json!({"a": "x", "n": 1.0, "o": {"k": [1, 2]}, "extra": 0}))
        ),
        Verdict::Passed
    );
    assert!(!judge(&v, &ok(json!({"a": "y", "n": 1, "o": {"k": [1, 2]}}))).is_success());
    assert!(!judge(&v, &ok(json!({"n": 1, "o": {"k": [1, 2]}}))).is_success());
    assert!(!judge(&v, &ok(json!({"a": "x", "n": 1, "o": {"k": [2, 1]}}))).is_success());
    assert!(!judge(
        &v,
        &ok(json!({"a": "x", "n": 1, "o": {"k": [1, 2], "j": 0}}))
    )
    .is_success());
    assert!(!judge(&v, &ok(json!({"a": "x", "n": 1, "o": {"j": [1, 2]}}))).is_success());
    assert!(json_equal(&json!(0.9999999999), &json!(1)));
    assert!(!json_equal(&json!(0.99), &json!(1)));
    assert!(!json_equal(
        &json!(9007199254740993u64),
        &json!(9007199254740992u64)
    ));
    assert!(!json_equal(&json!(-1), &json!(1)));
    assert!(json_equal(
        &json!({"a": [1, {"b": 2}]}),
        &json!({"a": [1, {"b": 2.0}]})
    ));
    assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    assert!(!json_equal(&json!({"a": 1}), &json!({"b": 1})));
    assert!(!json_equal(&json!([1]), &json!([1, 1])));
    assert!(!json_equal(&json!("1"), &json!(1)));
}

#[test]
fn another_code_of_the_family_is_other_code_within_its_ops_and_stages() {
    let e = invalid("malformed_entry", Some("4.1/shape"));
    let v = judge_case(
        "revocation.verify_entry",
        &[],
        &e,
        &err("invalid_signature"),
    );
    assert!(
        matches!(v, Verdict::OtherCode { ref family, .. } if family == "revocation-entry"),
        "{v:?}"
    );
    // The same codes on an operation outside the family's scope stay a wrong code.
    let v = judge_case("dct.verify", &[], &e, &err("invalid_signature"));
    assert_eq!(kind(&v), Some(FailureKind::WrongCode));
    // The depth family is scoped to stages: 10.1/4e yes, another stage no.
    let d = invalid("chain_depth_exceeded", Some("10.1/4e"));
    assert!(matches!(
        judge_case("dct.verify", &[], &d, &err("attenuation_violation")),
        Verdict::OtherCode { .. }
    ));
    let d2 = invalid("chain_depth_exceeded", Some("10.1/8"));
    assert_eq!(
        kind(&judge_case(
            "dct.verify",
            &[],
            &d2,
            &err("attenuation_violation")
        )),
        Some(FailureKind::WrongCode)
    );
    // A `/*` stage pattern covers its sub-stages and itself, not a sibling prefix.
    assert!(family_for(
        "chain.verify",
        Some("8.2/parent"),
        &[],
        "parent_mismatch",
        "root_invalid"
    )
    .is_some());
    assert!(family_for(
        "chain.verify",
        Some("8.2"),
        &[],
        "parent_mismatch",
        "root_invalid"
    )
    .is_some());
    assert!(family_for(
        "chain.verify",
        Some("8.20"),
        &[],
        "parent_mismatch",
        "root_invalid"
    )
    .is_none());
    // Flag-scoped family: only on SignatureStructure cases.
    let flag = vec!["SignatureStructure".to_owned()];
    assert!(family_for(
        "dct.verify",
        Some("10.1/3a"),
        &flag,
        "invalid_signature",
        "malformed_token"
    )
    .is_some());
    assert!(family_for(
        "dct.verify",
        Some("10.1/3a"),
        &[],
        "invalid_signature",
        "malformed_token"
    )
    .is_none());
    // The same code is never "another" code; a code outside the family never substitutes.
    assert!(family_for(
        "revocation.verify_entry",
        Some("4.1/shape"),
        &[],
        "malformed_entry",
        "malformed_entry"
    )
    .is_none());
    assert!(family_for(
        "revocation.verify_entry",
        Some("4.1/shape"),
        &[],
        "malformed_entry",
        "expired"
    )
    .is_none());
    assert!(!all().is_empty());
}

#[test]
fn an_output_differing_only_in_family_codes_is_other_code() {
    let e = valid(json!({"added": ["ok", "malformed_entry"], "revoked": [true]}));
    let v = judge_case(
        "revocation.list",
        &[],
        &e,
        &ok(json!({"added": ["ok", "invalid_signature"], "revoked": [true]})),
    );
    assert!(matches!(v, Verdict::OtherCode { .. }), "{v:?}");
    // A code outside the family, or another difference, stays an output mismatch.
    let v = judge_case(
        "revocation.list",
        &[],
        &e,
        &ok(json!({"added": ["ok", "expired"], "revoked": [true]})),
    );
    assert_eq!(kind(&v), Some(FailureKind::OutputMismatch));
    let v = judge_case(
        "revocation.list",
        &[],
        &e,
        &ok(json!({"added": ["ok", "invalid_signature"], "revoked": [false]})),
    );
    assert_eq!(kind(&v), Some(FailureKind::OutputMismatch));
    let v = judge_case(
        "revocation.list",
        &[],
        &e,
        &ok(json!({"added": ["ok"], "revoked": [true]})),
    );
    assert_eq!(kind(&v), Some(FailureKind::OutputMismatch));
    // Outside the family's operations the same difference is a mismatch.
    let v = judge_case(
        "dct.verify",
        &[],
        &e,
        &ok(json!({"added": ["ok", "invalid_signature"], "revoked": [true]})),
    );
    assert_eq!(kind(&v), Some(FailureKind::OutputMismatch));
}

#[test]
fn the_diff_shows_only_the_listed_keys_unless_some_are_missing() {
    let v = valid(json!({"a": 1}));
    let Verdict::Failed { actual, .. } = judge(&v, &ok(json!({"a": 2, "noise": true}))) else {
        panic!("must fail");
    };
    assert!(
        actual.contains("\"a\": 2") && !actual.contains("noise"),
        "{actual}"
    );
    let Verdict::Failed { actual, .. } = judge(&v, &ok(json!({"b": 2, "noise": true}))) else {
        panic!("must fail");
    };
    assert!(
        actual.contains("noise") && actual.contains("\"b\""),
        "{actual}"
    );
}

/// `is_success`: passed and acceptable (another reading of a decision) are successes; a
/// failure and another code of the family are not.
#[test]
fn success_is_passed_or_acceptable_only() {
    let either = Expectation::Acceptable {
        outcomes: vec![
            Expected::Invalid {
                code: "malformed_token".into(),
                stage: None,
            },
            Expected::Valid { output: json!({}) },
        ],
        decision: "D5".into(),
    };
    assert!(judge(&either, &err("malformed_token")).is_success());
    let acceptable = judge(&either, &ok(json!({})));
    assert_eq!(acceptable, Verdict::Acceptable { matched: 1 });
    assert!(acceptable.is_success());
    assert!(!judge(&either, &err("expired")).is_success());
    let other = Verdict::OtherCode {
        family: "f".into(),
        expected_code: "a".into(),
        actual_code: "b".into(),
        diff: String::new(),
    };
    assert!(!other.is_success());
}

/// A failing acceptable case shows every outcome it allows, and its decision, as the expected
/// side of the diff.
#[test]
fn a_failed_acceptable_case_shows_its_decision_and_every_outcome() {
    let either = Expectation::Acceptable {
        outcomes: vec![
            Expected::Invalid {
                code: "malformed_token".into(),
                stage: None,
            },
            Expected::Valid {
                output: json!({"n": 1}),
            },
        ],
        decision: "D17".into(),
    };
    let Verdict::Failed { expected, diff, .. } = judge(&either, &err("expired")) else {
        panic!("expected a failure");
    };
    let shown: Value = serde_json::from_str(&expected).expect("pretty JSON");
    assert_eq!(shown["result"], "acceptable");
    assert_eq!(shown["decision"], "D17");
    assert_eq!(shown["outcomes"][0]["code"], "malformed_token");
    assert_eq!(shown["outcomes"][1]["output"]["n"], 1);
    assert!(diff.contains("D17"), "{diff}");
}

/// A nested object of an output that differs in a value (not a family code) of the same shape
/// stays an output mismatch: per-entry codes of one family are the only substitution.
#[test]
fn a_nested_value_difference_is_not_a_family_code() {
    let e = valid(json!({"added": [{"code": "malformed_entry", "index": 0}], "revoked": [true]}));
    let v = judge_case(
        "revocation.list",
        &[],
        &e,
        &ok(json!({"added": [{"code": "invalid_signature", "index": 0}], "revoked": [true]})),
    );
    assert!(matches!(v, Verdict::OtherCode { .. }), "{v:?}");
    // Members the expectation does not list are not compared, as for any output.
    let v = judge_case(
        "revocation.list",
        &[],
        &e,
        &ok(
            json!({"added": [{"code": "invalid_signature", "index": 0}], "revoked": [true], "n": 1}),
        ),
    );
    assert!(matches!(v, Verdict::OtherCode { .. }), "{v:?}");
    let v = judge_case(
        "revocation.list",
        &[],
        &e,
        &ok(json!({"added": [{"code": "invalid_signature", "index": 1}], "revoked": [true]})),
    );
    assert_eq!(kind(&v), Some(FailureKind::OutputMismatch));
}

/// The actual outcome as the reports show it: the adapter reply's shape without `seq`, and the
/// reference's outcome converted to it.
#[test]
fn an_actual_outcome_is_shown_in_the_reply_shape() {
    assert_eq!(
        ok(json!({"n": 1})).to_json(),
        json!({"outcome": "ok", "output": {"n": 1}})
    );
    assert_eq!(
        err("expired").to_json(),
        json!({"outcome": "error", "code": "expired"})
    );
    let with_detail = ActualOutcome::Error {
        code: "expired".into(),
        detail: Some("at 12:00".into()),
    };
    assert_eq!(
        with_detail.to_json(),
        json!({"outcome": "error", "code": "expired", "detail": "at 12:00"})
    );
    let skipped = ActualOutcome::Skipped {
        reason: "later".into(),
    };
    assert_eq!(
        skipped.to_json(),
        json!({"outcome": "skipped", "reason": "later"})
    );
    let errored = ActualOutcome::Errored {
        message: "boom".into(),
    };
    assert_eq!(
        errored.to_json(),
        json!({"outcome": "errored", "message": "boom"})
    );
    use delegateos_reference::ops::Outcome;
    let from = |o: &Outcome| ActualOutcome::from(o);
    assert_eq!(
        from(&Outcome::Ok {
            output: json!({"v": true})
        }),
        ok(json!({"v": true}))
    );
    assert_eq!(
        from(&Outcome::Error {
            code: "revoked".into(),
            detail: "d".into()
        }),
        ActualOutcome::Error {
            code: "revoked".into(),
            detail: Some("d".into())
        }
    );
    assert_eq!(
        from(&Outcome::Unsupported { reason: "r".into() }),
        ActualOutcome::Skipped { reason: "r".into() }
    );
}
