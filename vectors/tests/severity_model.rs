//! The severity model of `spec/severity.md` (issue 26; its tables are `spec/data/severity.json`):
//! the tables read, every flag of the
//! flag index has a row whose granted effect agrees with the index's severity, and the model
//! rates the classic defects by their effect, not by the operation that saw them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_vectors::format::{Expectation, Severity, Stake};
use delegateos_vectors::judge::FailureKind;
use delegateos_vectors::outcome::{self, ErrorKind, Fault, Outcome, Subject};
use delegateos_vectors::severity::{
    direction_of, model, parse, parse_with_flags, Assessment, Cell, Direction, SEVERITY_DATA,
};
use serde_json::json;

/// `spec/data/severity.json` with the entry of `table` whose `key` is `name` changed by `edit`.
fn edited(table: &str, key: &str, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut data: serde_json::Value = serde_json::from_str(SEVERITY_DATA).unwrap();
    let entry = data[table]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e[key] == name)
        .unwrap();
    edit(entry);
    data.to_string()
}

fn ids(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

fn invalid(code: &str) -> Expectation {
    Expectation::Invalid {
        code: code.to_owned(),
        stage: None,
    }
}

/// The outcome that gives `direction` by itself (without an output to compare): a wrong
/// verdict, a wrong code, another code of the `depth` family, a crash, a hang, a protocol
/// error.
fn outcome_of(direction: Direction) -> Outcome {
    let failed = |kind| Outcome::Failed {
        kind,
        diff: String::new(),
        output: None,
    };
    match direction {
        Direction::Granted => failed(FailureKind::AcceptedInvalid),
        Direction::Refused => failed(FailureKind::RejectedValid),
        Direction::WrongCode => failed(FailureKind::WrongCode),
        Direction::WrongOutput => failed(FailureKind::OutputMismatch),
        Direction::OtherCode => Outcome::OtherCode {
            family: "depth".to_owned(),
            diff: String::new(),
        },
        Direction::Crash => Outcome::Errored(ErrorKind::Crash),
        Direction::Hang => Outcome::Errored(ErrorKind::Timeout),
        Direction::Errored => Outcome::Errored(ErrorKind::ProtocolError),
    }
}

/// The model's assessment of the outcome that gives `direction`, through the one entry
/// [`outcome::assess`]; without an expectation, a wrong code misses `malformed_token`.
fn assess(
    op: &str,
    flags: &[&str],
    reqs: &[&str],
    direction: Direction,
    e: Option<&Expectation>,
) -> Assessment {
    let (flags, reqs) = (ids(flags), ids(reqs));
    let malformed = invalid("malformed_token");
    let expectation = e.or((direction == Direction::WrongCode).then_some(&malformed));
    let subject = Subject {
        op,
        flags: &flags,
        requirements: &reqs,
        expectation,
        stake: None,
    };
    let outcome = outcome_of(direction);
    let a = outcome::assess(&subject, &outcome).expect("a finding");
    assert_eq!(a.direction, direction, "{op} {reqs:?}");
    assert_eq!(
        outcome::assess_fault(&subject, &fault_of(&outcome)),
        a,
        "the fuzzers' total entry grades as the run does"
    );
    a
}

/// The [`Fault`] a fuzzer builds for `outcome` (a finding).
fn fault_of(outcome: &Outcome) -> Fault {
    match outcome {
        Outcome::Failed { kind, output, .. } => Fault::Failed {
            kind: *kind,
            output: output.clone(),
        },
        Outcome::OtherCode { family, .. } => Fault::OtherCode {
            family: family.clone(),
        },
        Outcome::Errored(kind) => Fault::Errored(*kind),
        other => panic!("{other:?} is no finding"),
    }
}

/// The model's verdict on a wrong output of `op`.
fn assess_output(
    op: &str,
    reqs: &[&str],
    e: &Expectation,
    actual: &serde_json::Value,
) -> Assessment {
    let reqs = ids(reqs);
    let subject = Subject {
        op,
        flags: &[],
        requirements: &reqs,
        expectation: Some(e),
        stake: None,
    };
    let failed = Outcome::Failed {
        kind: FailureKind::OutputMismatch,
        diff: String::new(),
        output: Some(actual.clone()),
    };
    let a = outcome::assess(&subject, &failed).expect("a finding");
    assert_eq!(outcome::assess_fault(&subject, &fault_of(&failed)), a);
    a
}

#[test]
fn the_tables_parse_without_errors() {
    let (m, errors) = parse(SEVERITY_DATA);
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(m.effects.len() >= 15 && m.rules.len() >= 30 && m.outputs.len() >= 3);
    assert_eq!(m.denials.len(), 7);
}

#[test]
fn a_broken_row_is_reported() {
    let text = edited("effects", "name", "forgery", |e| {
        e["severity"] = json!("fatal")
    });
    assert!(parse(&text).1.iter().any(|e| e.contains("forgery")));
    // A flag's effects are in its record of spec/data/flags.json.
    let mut flags: serde_json::Value =
        serde_json::from_str(delegateos_vectors::flags::INDEX_DATA).unwrap();
    let entry = flags["flags"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["flag"] == "ScopeWidening")
        .unwrap();
    entry["granted"] = json!("widening");
    let errors = parse_with_flags(SEVERITY_DATA, &flags.to_string()).1;
    assert!(
        errors.iter().any(|e| e.contains("ScopeWidening")),
        "{errors:?}"
    );
}

#[test]
fn every_flag_has_a_row_and_agrees_with_the_flag_index() {
    let m = model();
    for row in delegateos_vectors::flags::index() {
        let f = m
            .flag(&row.flag)
            .unwrap_or_else(|| panic!("flag {} has no row in spec/severity.md §5", row.flag));
        if let Cell::Effect(effect) = &f.granted {
            assert_eq!(
                m.severity_of(effect),
                row.severity,
                "flag {}: the flag index says {}, its effect {effect} is {}",
                row.flag,
                row.severity.as_str(),
                m.severity_of(effect).as_str()
            );
        }
    }
}

#[test]
fn a_forged_root_signature_accepted_is_critical_forgery() {
    let a = assess(
        "dct.verify",
        &[],
        &["DCT-VERIFY-3A-NOT-SIGNER-FIELD", "DCT-VERIFY-3A-ROOT-SIG"],
        Direction::Granted,
        Some(&invalid("invalid_signature")),
    );
    assert_eq!(
        (a.severity, a.effect.as_str()),
        (Severity::Critical, "forgery")
    );
    assert_eq!(a.key, "root-signature/forgery");
}

#[test]
fn lenient_parsing_is_medium_and_its_acceptance_effect_is_critical() {
    let e = invalid("malformed_token");
    let a = assess(
        "dct.verify",
        &[],
        &[
            "DCT-FORMAT-PRINCIPALS",
            "PRIM-B64-STRICT-DECODE",
            "DCT-VERIFY-1-MALFORMED",
        ],
        Direction::Granted,
        Some(&e),
    );
    assert_eq!(
        (a.severity, a.key.as_str()),
        (Severity::Medium, "base64url/lenient-input")
    );
    let a = assess(
        "dct.verify",
        &["MalformedExpiryBypass"],
        &[
            "DCT-FORMAT-ATTENUATION-FIELDS",
            "DCT-VERIFY-1-MALFORMED",
            "DCT-VERIFY-5-EXPIRED",
        ],
        Direction::Granted,
        Some(&e),
    );
    assert_eq!(
        (a.severity, a.key.as_str()),
        (Severity::Critical, "MalformedExpiryBypass/expiry-bypass")
    );
}

#[test]
fn the_denial_floor_applies_to_verify_only_and_never_overrides_a_deliberate_high() {
    let revoked = invalid("revoked");
    // A bad entry's case accepted on dct.verify: the token was revoked by a valid entry too.
    let a = assess(
        "dct.verify",
        &[],
        &["DCT-VERIFY-2-BAD-ENTRY"],
        Direction::Granted,
        Some(&revoked),
    );
    assert_eq!(a.effect, "revocation-bypass");
    // Malleability stays high although step 3's code is expected.
    let sig = invalid("invalid_signature");
    let a = assess(
        "dct.verify",
        &[],
        &["DCT-VERIFY-3A-ROOT-SIG", "PRIM-SIG-S-RANGE"],
        Direction::Granted,
        Some(&sig),
    );
    assert_eq!(
        (a.severity, a.effect.as_str()),
        (Severity::High, "signature-malleability")
    );
    // The same rule on an operation without §10.1 denials keeps its own effect.
    let a = assess(
        "revocation.verify_entry",
        &[],
        &["REV-ENTRY-SIGNATURE"],
        Direction::Granted,
        Some(&sig),
    );
    assert_eq!(
        (a.severity, a.effect.as_str()),
        (Severity::High, "unauthorized-revocation")
    );
}

#[test]
fn refusals_codes_crashes_and_protocol_errors_have_their_own_effects() {
    let a = assess(
        "dct.verify",
        &["RevocationWrongRevoker"],
        &["DCT-VERIFY-2-REVOKER"],
        Direction::Refused,
        None,
    );
    assert_eq!(
        (a.severity, a.effect.as_str()),
        (Severity::High, "unauthorized-revocation")
    );
    let a = assess("glob.match", &[], &["GLOB-EXACT"], Direction::Refused, None);
    assert_eq!(
        (a.severity, a.key.as_str()),
        (Severity::Medium, "glob/valid-input-refused")
    );
    let a = assess(
        "dct.verify",
        &[],
        &["DCT-VERIFY-ORDER"],
        Direction::WrongCode,
        None,
    );
    assert_eq!(
        (a.severity, a.key.as_str()),
        (Severity::Medium, "code malformed_token/wrong-code-family")
    );
    let a = assess(
        "dct.verify",
        &[],
        &["DCT-VERIFY-ORDER"],
        Direction::OtherCode,
        None,
    );
    assert_eq!(
        (a.severity, a.key.as_str()),
        (Severity::Low, "family depth/same-family-code")
    );
    let a = assess("glob.match", &[], &["GLOB-LINEAR"], Direction::Hang, None);
    assert_eq!(
        (a.severity, a.key.as_str()),
        (Severity::Critical, "hang glob.match/crash-or-hang")
    );
    let a = assess("glob.match", &[], &["GLOB-LINEAR"], Direction::Crash, None);
    assert_eq!(a.key, "crash glob.match/crash-or-hang");
    let a = assess(
        "glob.match",
        &[],
        &["GLOB-LINEAR"],
        Direction::Errored,
        None,
    );
    assert_eq!(
        (a.severity, a.key.as_str()),
        (Severity::Medium, "errored protocol_error/adapter-error")
    );
    let a = assess(
        "x",
        &["Advisory"],
        &["ADV-OAP-SHORT-EXPIRY"],
        Direction::Granted,
        None,
    );
    assert_eq!(a.severity, Severity::Low);
}

#[test]
fn outputs_grant_more_or_less_by_their_members() {
    let valid = |output| Expectation::Valid { output };
    let scope = |caps: serde_json::Value, budget: u64| json!({"scope": {"capabilities": caps, "remainingBudgetMicrocents": budget, "maxChainDepth": 3}});
    let one = json!([{"namespace": "docs", "action": "read", "resource": "/a"}]);
    let two = json!([{"namespace": "docs", "action": "read", "resource": "/a"},
                     {"namespace": "docs", "action": "write", "resource": "/a"}]);
    let e = valid(scope(one.clone(), 10));
    let m = model();
    let wider = scope(two.clone(), 10);
    let (row, more) = m.output_member("dct.verify", &e, &wider).unwrap();
    assert!(more && row.member == "scope.capabilities");
    let richer = scope(one.clone(), 11);
    let (row, more) = m.output_member("dct.verify", &e, &richer).unwrap();
    assert!(more && row.member == "scope.remainingBudgetMicrocents");
    let poorer = scope(one.clone(), 9);
    assert!(!m.output_member("dct.verify", &e, &poorer).unwrap().1);
    assert!(m.output_member("dct.verify", &e, &scope(one, 10)).is_none());
    let a = assess_output("dct.verify", &["DCT-VERIFY-8-SCOPE"], &e, &wider);
    assert_eq!(
        (a.direction, a.effect.as_str()),
        (Direction::Granted, "scope-widening")
    );
    // mcp.call: less spend recorded is a spend bypass.
    let e = valid(json!({"decision": "forward", "spend": 100, "delegationId": "del_1"}));
    let less = json!({"decision": "forward", "spend": 0, "delegationId": "del_1"});
    let (row, more) = m.output_member("mcp.call", &e, &less).unwrap();
    assert!(more && row.member == "spend");
    let elsewhere = json!({"decision": "forward", "spend": 100, "delegationId": "del_2"});
    assert_eq!(
        m.output_member("mcp.call", &e, &elsewhere)
            .unwrap()
            .0
            .member,
        "delegationId"
    );
}

#[test]
fn directions_follow_what_the_output_grants() {
    let valid = |output| Expectation::Valid { output };
    let e = valid(json!({"matches": false}));
    let d = |op, e: &Expectation, a| direction_of(op, FailureKind::OutputMismatch, e, Some(&a));
    assert_eq!(
        d("glob.match", &e, json!({"matches": true})),
        Direction::Granted
    );
    let e2 = valid(json!({"matches": true}));
    assert_eq!(
        d("glob.match", &e2, json!({"matches": false})),
        Direction::Refused
    );
    assert_eq!(
        d(
            "hash.blake2b256",
            &valid(json!({"hex": "00"})),
            json!({"hex": "01"})
        ),
        Direction::WrongOutput
    );
    let deny = valid(json!({"decision": "deny"}));
    assert_eq!(
        d("mcp.call", &deny, json!({"decision": "forward"})),
        Direction::Granted
    );
    let fwd = valid(json!({"decision": "forward"}));
    assert_eq!(
        d("mcp.call", &fwd, json!({"decision": "deny"})),
        Direction::Refused
    );
    let rl = valid(json!({"revoked": [true, false]}));
    assert_eq!(
        d("revocation.list", &rl, json!({"revoked": [false, false]})),
        Direction::Granted
    );
    assert_eq!(
        d("revocation.list", &rl, json!({"revoked": [true, true]})),
        Direction::Refused
    );
    let tools = valid(json!({"tools": [{"name": "a"}]}));
    assert_eq!(
        d(
            "mcp.filter_tools",
            &tools,
            json!({"tools": [{"name": "a"}, {"name": "b"}]})
        ),
        Direction::Granted
    );
    assert_eq!(
        d("mcp.filter_tools", &tools, json!({"tools": []})),
        Direction::Refused
    );
    let session = valid(json!({"steps": [{"toUpstream": []}]}));
    assert_eq!(
        d(
            "mcp.session",
            &session,
            json!({"steps": [{"toUpstream": [{}]}]})
        ),
        Direction::Granted
    );
    // Verdict kinds map one to one; another denial where `valid` is allowed is a refusal.
    let inv = invalid("revoked");
    assert_eq!(
        direction_of("dct.verify", FailureKind::AcceptedInvalid, &inv, None),
        Direction::Granted
    );
    assert_eq!(
        direction_of("dct.verify", FailureKind::RejectedValid, &inv, None),
        Direction::Refused
    );
    assert_eq!(
        direction_of("dct.verify", FailureKind::WrongCode, &inv, None),
        Direction::WrongCode
    );
    assert_eq!(
        direction_of("dct.verify", FailureKind::NoAnswer, &inv, None),
        Direction::Errored
    );
    let either = Expectation::Acceptable {
        outcomes: vec![
            delegateos_vectors::Expected::Valid { output: json!({}) },
            delegateos_vectors::Expected::Invalid {
                code: "malformed_token".into(),
                stage: None,
            },
        ],
        decision: "D5".into(),
    };
    assert_eq!(
        direction_of("dct.verify", FailureKind::WrongCode, &either, None),
        Direction::Refused
    );
}

#[test]
fn a_rule_may_not_defer_to_itself_and_ties_keep_the_first_denial() {
    let text = edited("rules", "name", "glob", |r| r["granted"] = json!("(rule)"));
    assert!(parse(&text).1.iter().any(|e| e.contains("rule glob")));
    // Two allowed denials of equal severity: the first listed decides the effect's name.
    let both = Expectation::Acceptable {
        outcomes: vec![
            delegateos_vectors::Expected::Invalid {
                code: "revoked".into(),
                stage: None,
            },
            delegateos_vectors::Expected::Invalid {
                code: "expired".into(),
                stage: None,
            },
        ],
        decision: "D7".into(),
    };
    let a = assess(
        "dct.verify",
        &[],
        &["DCT-VERIFY-1-MALFORMED"],
        Direction::Granted,
        Some(&both),
    );
    assert_eq!(a.effect, "revocation-bypass");
    // One allowed outcome without a denial effect: no floor.
    let lenient = Expectation::Acceptable {
        outcomes: vec![
            delegateos_vectors::Expected::Invalid {
                code: "revoked".into(),
                stage: None,
            },
            delegateos_vectors::Expected::Invalid {
                code: "malformed_token".into(),
                stage: None,
            },
        ],
        decision: "D7".into(),
    };
    let a = assess(
        "dct.verify",
        &[],
        &["DCT-VERIFY-1-MALFORMED"],
        Direction::Granted,
        Some(&lenient),
    );
    assert_eq!(a.effect, "lenient-input");
}

#[test]
fn each_direction_reads_its_own_column() {
    let reqs = ["DCT-VERIFY-2-EVERY-BLOCK"];
    let a = assess("dct.verify", &[], &reqs, Direction::Refused, None);
    assert_eq!(a.key, "revocation/wrongful-revocation");
    let a = assess(
        "dct.revocation_ids",
        &[],
        &["DCT-REVID-BLOCK"],
        Direction::WrongOutput,
        None,
    );
    assert_eq!(a.key, "revocation/revocation-bypass");
    let a = assess("dct.verify", &[], &reqs, Direction::Granted, None);
    assert_eq!(a.key, "revocation/revocation-bypass");
    // A refused finding is titled by its effect and row, not by the granted direction's title.
    let a = assess("glob.match", &[], &["GLOB-EXACT"], Direction::Refused, None);
    assert_eq!(a.title, "valid input was refused (glob)");
    let a = assess("x", &[], &["NO-SUCH-REQUIREMENT"], Direction::Granted, None);
    assert_eq!(
        (a.key.as_str(), a.effect.as_str()),
        ("unclassified/lenient-input", "lenient-input")
    );
}

#[test]
fn an_output_granting_less_is_a_refusal_titled_as_such() {
    let e = Expectation::Valid {
        output: json!({"scope": {"capabilities": [], "remainingBudgetMicrocents": 10, "maxChainDepth": 3}}),
    };
    let less =
        json!({"scope": {"capabilities": [], "remainingBudgetMicrocents": 9, "maxChainDepth": 3}});
    let a = assess_output("dct.verify", &["DCT-VERIFY-6-BUDGET"], &e, &less);
    assert_eq!(a.direction, Direction::Refused);
    assert_eq!(
        a.key,
        "dct.verify scope.remainingBudgetMicrocents/valid-input-refused"
    );
    assert!(a.title.contains("grants less"), "{}", a.title);
}

#[test]
fn a_wrong_code_is_keyed_by_the_first_allowed_code() {
    let (flags, reqs) = (ids(&[]), ids(&["DCT-VERIFY-1-MALFORMED"]));
    let either = Expectation::Acceptable {
        outcomes: vec![
            delegateos_vectors::Expected::Invalid {
                code: "malformed_token".into(),
                stage: None,
            },
            delegateos_vectors::Expected::Invalid {
                code: "invalid_input".into(),
                stage: None,
            },
        ],
        decision: "D5".into(),
    };
    let subject = Subject {
        op: "dct.verify",
        flags: &flags,
        requirements: &reqs,
        expectation: Some(&either),
        stake: None,
    };
    let a = outcome::assess(&subject, &outcome_of(Direction::WrongCode)).expect("a finding");
    assert_eq!(a.key, "code malformed_token/wrong-code-family");
    assert!(a.title.contains("`malformed_token`"), "{}", a.title);
}

#[test]
fn ties_between_flags_keep_the_first_and_a_flag_reads_the_refused_column() {
    let e = invalid("malformed_token");
    let a = assess(
        "dct.verify",
        &["MalformedExpiryBypass", "MalformedBudgetBypass"],
        &["DCT-VERIFY-1-MALFORMED"],
        Direction::Granted,
        Some(&e),
    );
    assert_eq!(a.key, "MalformedExpiryBypass/expiry-bypass");
    let a = assess(
        "dct.verify",
        &["RevocationWrongRevoker"],
        &["DCT-VERIFY-1-MALFORMED"],
        Direction::Refused,
        None,
    );
    assert_eq!(a.key, "RevocationWrongRevoker/unauthorized-revocation");
}

#[test]
fn mixed_output_differences_are_neither_granted_nor_refused() {
    let valid = |output| Expectation::Valid { output };
    let d = |op, e: &Expectation, a| direction_of(op, FailureKind::OutputMismatch, e, Some(&a));
    let sub = valid(json!({"subset": false}));
    assert_eq!(
        d("capability.subset", &sub, json!({"subset": true})),
        Direction::Granted
    );
    let tools = valid(json!({"tools": [{"name": "a"}]}));
    assert_eq!(
        d(
            "mcp.filter_tools",
            &tools,
            json!({"tools": [{"name": "b"}]})
        ),
        Direction::WrongOutput
    );
    let session = valid(json!({"steps": [{"toUpstream": [{"id": 1}]}]}));
    assert_eq!(
        d(
            "mcp.session",
            &session,
            json!({"steps": [{"toUpstream": [{"id": 2}]}]})
        ),
        Direction::WrongOutput
    );
    let rl = valid(json!({"revoked": [true, false]}));
    assert_eq!(
        d("revocation.list", &rl, json!({"revoked": [false, true]})),
        Direction::WrongOutput
    );
}

#[test]
fn a_flag_or_output_member_with_its_rules_effect_names_the_rule_finding_it_joins() {
    let expired = invalid("expired");
    // ExpiryBoundary gives expiry-bypass, as the expiry rule does: the case may join it.
    let a = assess(
        "dct.verify",
        &["ExpiryBoundary"],
        &["DCT-VERIFY-5-EXPIRED"],
        Direction::Granted,
        Some(&expired),
    );
    assert_eq!(a.key, "ExpiryBoundary/expiry-bypass");
    assert_eq!(a.joins.as_deref(), Some("expiry/expiry-bypass"));
    let hint = a.hint.expect("the flag's fix");
    assert_eq!(hint.from, "ExpiryBoundary");
    assert!(hint.fix.contains("boundary instant"), "{}", hint.fix);
    // The flag changes the effect of a structure rule (lenient → expiry bypass): its own.
    let a = assess(
        "dct.verify",
        &["MalformedExpiryBypass"],
        &["DCT-FORMAT-ATTENUATION-FIELDS", "DCT-VERIFY-1-MALFORMED"],
        Direction::Granted,
        Some(&invalid("malformed_token")),
    );
    assert_eq!(
        (a.key.as_str(), a.joins.as_deref()),
        ("MalformedExpiryBypass/expiry-bypass", None)
    );
    // A `(rule)` flag keys its own finding whatever the rule's.
    let a = assess(
        "check.run",
        &["RegexDialect"],
        &["CHECK-REGEX-ECMASCRIPT"],
        Direction::Granted,
        None,
    );
    assert_eq!(
        (a.key.as_str(), a.joins.as_deref()),
        ("RegexDialect/integrity-check-missing", None)
    );
    // No rule: nothing to join.
    let a = assess(
        "x",
        &["ScopeWidening"],
        &["NO-SUCH-REQUIREMENT"],
        Direction::Granted,
        None,
    );
    assert_eq!(
        (a.key.as_str(), a.joins.as_deref()),
        ("ScopeWidening/scope-widening", None)
    );
    // An output member granting less joins the rule's refusal.
    let e = Expectation::Valid {
        output: json!({"scope": {"capabilities": [], "remainingBudgetMicrocents": 10, "maxChainDepth": 3}}),
    };
    let less =
        json!({"scope": {"capabilities": [], "remainingBudgetMicrocents": 9, "maxChainDepth": 3}});
    let a = assess_output("dct.verify", &["DCT-VERIFY-6-BUDGET"], &e, &less);
    assert_eq!(a.joins.as_deref(), Some("budget/valid-input-refused"));
    // One granting more than a rule of another effect keys its own.
    let more =
        json!({"scope": {"capabilities": [], "remainingBudgetMicrocents": 10, "maxChainDepth": 4}});
    let a = assess_output("dct.verify", &["DCT-VERIFY-6-BUDGET"], &e, &more);
    assert_eq!(
        (a.key.as_str(), a.joins.as_deref()),
        ("dct.verify scope.maxChainDepth/depth-bypass", None)
    );
}

/// Issue 36: a case's stated stake gives the effect of its direction; a rule or flag never
/// lowers it, an output member may raise a wrong output, and a stated effect the rules do not
/// give keys and titles the finding.
#[test]
fn the_stated_stake_decides_the_effect_and_no_rule_lowers_it() {
    use delegateos_vectors::format::Stake;
    let stake = |granted: &str| Stake {
        granted: granted.to_owned(),
        refused: "valid-input-refused".to_owned(),
        wrong_output: "wrong-output".to_owned(),
        crash_or_hang: "issuer-pattern-hang".to_owned(),
    };
    let (flags, reqs) = (ids(&[]), ids(&["CONTRACT-VERIFY-SIGNATURE-KEY"]));
    let e = Expectation::Valid {
        output: json!({"valid": false}),
    };
    let with = |s: &Stake, direction: Direction| {
        let subject = Subject {
            op: "contract.verify_signature_with_key",
            flags: &flags,
            requirements: &reqs,
            expectation: Some(&e),
            stake: Some(s),
        };
        outcome::assess(&subject, &outcome_of(direction)).expect("a finding")
    };
    // By the rules alone a key check that accepts is forgery.
    let ruled = assess(
        "contract.verify_signature_with_key",
        &[],
        &["CONTRACT-VERIFY-SIGNATURE-KEY"],
        Direction::Granted,
        Some(&e),
    );
    assert_eq!(ruled.effect, "forgery");
    // The padded right key: the case states lenient-input, and that is what it is.
    let lenient = with(&stake("lenient-input"), Direction::Granted);
    assert_eq!(lenient.effect, "lenient-input");
    assert_eq!(lenient.severity, Severity::Medium);
    // Named by the case's rule that gives the stated effect (one root cause per effect),
    // the deciding row's fix kept as a hint.
    assert_eq!(lenient.key, "contracts/lenient-input");
    assert!(
        lenient.title.contains("parsed differently"),
        "{}",
        lenient.title
    );
    assert_eq!(lenient.joins, None);
    assert_eq!(
        lenient.hint.as_ref().map(|h| h.from.as_str()),
        Some("contract-signature")
    );
    // A stated effect equal to the rules' leaves the rules' finding as it was.
    assert_eq!(with(&stake("forgery"), Direction::Granted), ruled);
    // A hang takes the stated crashOrHang effect.
    let hang = with(&stake("forgery"), Direction::Hang);
    assert_eq!(hang.effect, "issuer-pattern-hang");
    assert_eq!(hang.severity, Severity::Medium);
    // An output member that grants more raises a wrong output above the stated effect.
    let scope = Expectation::Valid {
        output: json!({"scope": {"maxChainDepth": 2}}),
    };
    let depth = ids(&["DCT-VERIFY-8-DEPTH"]);
    let lenient = stake("lenient-input");
    let subject = Subject {
        op: "dct.verify",
        flags: &flags,
        requirements: &depth,
        expectation: Some(&scope),
        stake: Some(&lenient),
    };
    let deeper = Outcome::Failed {
        kind: FailureKind::OutputMismatch,
        diff: String::new(),
        output: Some(json!({"scope": {"maxChainDepth": 9}})),
    };
    let member = outcome::assess(&subject, &deeper).expect("a finding");
    assert_eq!(member.effect, "depth-bypass");
    assert_eq!(member.severity, Severity::Critical);
}

/// The rules' stake of a case is what the rules give each direction (how the baseline of
/// stated stakes was written, and how a fuzzer's finding file is staked).
#[test]
fn the_rule_stake_is_the_rules_effect_per_direction() {
    let e = invalid("revoked");
    let s = model().rule_stake("dct.verify", &ids(&[]), &ids(&["DCT-VERIFY-2-REVOKED"]), &e);
    assert_eq!(s.granted, "revocation-bypass");
    assert_eq!(s.refused, "wrongful-revocation");
    assert_eq!(s.crash_or_hang, "crash-or-hang");
}

/// A superset member that lists fewer items than required grants less: the wrong output is a
/// refusal (`compare_member`'s missing-only arm), and one that lists more grants more.
#[test]
fn a_member_listing_fewer_items_refuses_and_more_grants() {
    let caps = |v: &[&str]| json!({"scope": {"capabilities": v}});
    let e = Expectation::Valid {
        output: caps(&["a", "b"]),
    };
    let fewer = assess_output("dct.verify", &["DCT-VERIFY-8-SCOPE"], &e, &caps(&["a"]));
    assert_eq!(fewer.direction, Direction::Refused, "{fewer:?}");
    let more = assess_output(
        "dct.verify",
        &["DCT-VERIFY-8-SCOPE"],
        &e,
        &caps(&["a", "b", "c"]),
    );
    assert_eq!(more.direction, Direction::Granted, "{more:?}");
    assert_eq!(more.effect, "scope-widening");
    // Both extra and missing: neither grants more nor less.
    let both = assess_output(
        "dct.verify",
        &["DCT-VERIFY-8-SCOPE"],
        &e,
        &caps(&["a", "c"]),
    );
    assert_eq!(both.direction, Direction::WrongOutput, "{both:?}");
}

/// The single-verdict operations grant by one member: a check or output verification that
/// passes what must fail is a grant, one that fails what must pass a refusal.
#[test]
fn a_check_that_passes_what_must_fail_grants() {
    let ops = [
        ("check.run", "passed"),
        ("output.verify", "passed"),
        ("ed25519.verify", "valid"),
        ("contract.verify_signature_with_key", "valid"),
        ("attestation.verify_signature", "valid"),
        ("glob.match", "matches"),
        ("capability.subset", "subset"),
    ];
    for (op, member) in ops {
        let must_fail = Expectation::Valid {
            output: json!({ member: false }),
        };
        let granted = json!({ member: true });
        assert_eq!(
            direction_of(op, FailureKind::OutputMismatch, &must_fail, Some(&granted)),
            Direction::Granted,
            "{op}"
        );
        let must_pass = Expectation::Valid {
            output: json!({ member: true }),
        };
        let refused = json!({ member: false });
        assert_eq!(
            direction_of(op, FailureKind::OutputMismatch, &must_pass, Some(&refused)),
            Direction::Refused,
            "{op}"
        );
    }
}

/// A member equal as the judge compares numbers (`2` and `2.0`) grants neither more nor less:
/// an output that differs elsewhere is a wrong output, not a refusal.
#[test]
fn a_member_written_differently_but_equal_grants_neither() {
    let e = Expectation::Valid {
        output: json!({"scope": {"maxChainDepth": 2, "contractId": "ct_a"}}),
    };
    let actual = json!({"scope": {"maxChainDepth": 2.0, "contractId": "ct_b"}});
    let a = assess_output("dct.verify", &["DCT-VERIFY-8-SCOPE"], &e, &actual);
    assert_eq!(a.direction, Direction::WrongOutput, "{a:?}");
}

/// Findings of one severity are ordered by their effect's row in §2 (forgery first); an effect
/// the table lacks ranks last.
#[test]
fn effects_rank_by_their_row_and_unknown_ones_last() {
    let m = model();
    assert_eq!(m.effect_rank(&m.effects[0].name), 0);
    assert_eq!(m.effect_rank(&m.effects[3].name), 3);
    assert!(m.effect_rank("forgery") < m.effect_rank("scope-widening"));
    assert_eq!(m.effect_rank("no-such-effect"), usize::MAX);
}

fn stake_of(granted: &str, refused: &str, wrong_output: &str) -> Stake {
    Stake {
        granted: granted.to_owned(),
        refused: refused.to_owned(),
        wrong_output: wrong_output.to_owned(),
        crash_or_hang: "crash-or-hang".to_owned(),
    }
}

/// The assessment of `outcome` on a dct.verify case with `flags`, `reqs` and `stake`.
fn staked(
    flags: &[&str],
    reqs: &[&str],
    e: &Expectation,
    stake: Option<&Stake>,
    direction: Direction,
) -> Assessment {
    let (flags, reqs) = (ids(flags), ids(reqs));
    let subject = Subject {
        op: "dct.verify",
        flags: &flags,
        requirements: &reqs,
        expectation: Some(e),
        stake,
    };
    outcome::assess(&subject, &outcome_of(direction)).expect("a finding")
}

/// A stake that states the rules' own effect for every direction changes nothing: the rules'
/// finding (key, title, fix) stands, for a grant, a refusal and a wrong output alike.
#[test]
fn a_stake_equal_to_the_rules_leaves_the_finding_as_the_rules_name_it() {
    let revoked = invalid("revoked");
    let reqs = ["DCT-VERIFY-2-EVERY-BLOCK"];
    let same = stake_of(
        "revocation-bypass",
        "wrongful-revocation",
        "revocation-bypass",
    );
    for direction in [
        Direction::Granted,
        Direction::Refused,
        Direction::WrongOutput,
    ] {
        let ruled = staked(&[], &reqs, &revoked, None, direction);
        assert_eq!(
            staked(&[], &reqs, &revoked, Some(&same), direction),
            ruled,
            "{direction:?}"
        );
    }
}

/// A stated effect that a rule of the case gives names the finding by that rule (its title
/// and fix), the deciding flag's fix kept as a hint, and joins nothing: the flag's root cause
/// is not the stated one.
#[test]
fn a_stated_effect_a_rule_of_the_case_gives_is_named_by_that_rule() {
    let e = invalid("expired");
    let reqs = ["DCT-VERIFY-5-EXPIRED"];
    let ruled = staked(&["ExpiryBoundary"], &reqs, &e, None, Direction::Granted);
    assert!(ruled.joins.is_some() && ruled.hint.is_some(), "{ruled:?}");
    let lenient = stake_of("lenient-input", "valid-input-refused", "wrong-output");
    let a = staked(
        &["ExpiryBoundary"],
        &reqs,
        &e,
        Some(&lenient),
        Direction::Granted,
    );
    let rule = model()
        .rules
        .iter()
        .filter(|r| r.matches("DCT-VERIFY-5-EXPIRED"))
        .find(|r| r.granted == Cell::Effect("lenient-input".to_owned()))
        .expect("a rule of the case gives lenient-input");
    assert_eq!(
        (a.effect.as_str(), a.severity),
        ("lenient-input", Severity::Medium)
    );
    assert_eq!(a.key, format!("{}/lenient-input", rule.name));
    assert_eq!((&a.title, &a.fix), (&rule.title, &rule.fix));
    assert_eq!(a.joins, None);
    assert_eq!(
        a.hint.as_ref().map(|h| (h.from.as_str(), h.fix.as_str())),
        Some(("ExpiryBoundary", ruled.fix.as_str()))
    );
}

/// A stated effect no rule of the case gives (and not critical) keys and titles the finding by
/// the deciding rule and the effect, without a join or a hint.
#[test]
fn a_stated_effect_no_rule_gives_keys_its_own_finding() {
    let e = invalid("expired");
    let reqs = ["DCT-VERIFY-5-EXPIRED"];
    let ruled = staked(&["ExpiryBoundary"], &reqs, &e, None, Direction::Granted);
    let odd = stake_of("wrong-output", "valid-input-refused", "wrong-output");
    assert!(
        !model()
            .rules
            .iter()
            .any(|r| r.matches("DCT-VERIFY-5-EXPIRED")
                && r.granted == Cell::Effect("wrong-output".to_owned())),
        "the test needs an effect no rule of the case gives"
    );
    let a = staked(
        &["ExpiryBoundary"],
        &reqs,
        &e,
        Some(&odd),
        Direction::Granted,
    );
    let decider = ruled
        .key
        .rsplit_once('/')
        .map(|(d, _)| d)
        .expect("decider/effect");
    assert_eq!(a.effect, "wrong-output");
    assert_eq!(a.key, format!("{decider}/wrong-output"));
    let meaning = &model().effect("wrong-output").expect("effect").meaning;
    assert_eq!(
        a.title,
        format!(
            "{meaning} ({})",
            delegateos_vectors::severity::flag_words(decider)
        )
    );
    assert_eq!((a.joins, a.hint), (None, None));
    assert_eq!(a.fix, ruled.fix);
}

/// Of several flags the most severe decides, wherever it stands; a flag without its own fix
/// (`—`) shows the rule's.
#[test]
fn the_most_severe_flag_decides_and_a_flag_without_a_fix_shows_the_rules() {
    // A code without a §7 denial entry: no floor raises the effect.
    let e = invalid("malformed_token");
    let reqs = ["DCT-VERIFY-5-EXPIRED"];
    let a = assess(
        "dct.verify",
        &["AdvDosBornExpired", "ExpiryBoundary"],
        &reqs,
        Direction::Granted,
        Some(&e),
    );
    assert_eq!(a.effect, "expiry-bypass", "{a:?}");
    let low = assess(
        "dct.verify",
        &["AdvDosBornExpired"],
        &reqs,
        Direction::Granted,
        Some(&e),
    );
    let flag = model().flag("AdvDosBornExpired").expect("a flag row");
    assert_eq!(flag.fix, None, "the test needs a flag without its own fix");
    let rule = model().rule_for(&ids(&reqs)).expect("a rule");
    assert!(low.fix.starts_with(&rule.fix), "{low:?}");
}

/// A session script that sends fewer messages upstream than expected grants less; more, more.
#[test]
fn a_session_forwarding_fewer_messages_refuses() {
    let script = |n: usize| json!({"steps": [{"toUpstream": vec![json!({}); n]}]});
    let e = Expectation::Valid { output: script(2) };
    assert_eq!(
        direction_of(
            "mcp.session",
            FailureKind::OutputMismatch,
            &e,
            Some(&script(1))
        ),
        Direction::Refused
    );
    assert_eq!(
        direction_of(
            "mcp.session",
            FailureKind::OutputMismatch,
            &e,
            Some(&script(3))
        ),
        Direction::Granted
    );
}

/// A refusal's stated effect that another rule of the case gives in its refused column names
/// the finding by that rule, the deciding rule's fix kept as a hint.
#[test]
fn a_stated_refusal_is_named_by_the_rule_whose_refused_column_gives_it() {
    let e = Expectation::Valid {
        output: json!({"valid": true}),
    };
    // Decided by entry-shape (refused: lenient-input); revocation's BAD-ENTRY row refuses
    // with unauthorized-revocation.
    let reqs = ["REV-ENTRY-SHAPE", "DCT-VERIFY-2-BAD-ENTRY"];
    let ruled = staked(&[], &reqs, &e, None, Direction::Refused);
    let decider = ruled
        .key
        .rsplit_once('/')
        .map(|(d, _)| d)
        .expect("decider/effect");
    assert_eq!(decider, "entry-shape", "{ruled:?}");
    let stake = stake_of("expiry-bypass", "unauthorized-revocation", "wrong-output");
    let a = staked(&[], &reqs, &e, Some(&stake), Direction::Refused);
    assert_eq!(a.key, "revocation/unauthorized-revocation", "{a:?}");
    assert_eq!(a.hint.as_ref().map(|h| h.from.as_str()), Some(decider));
}

/// A stated effect that the deciding rule's own name gives in another row keys the finding by
/// that name with the deciding row's fix, and no hint (the root cause is the same rule).
#[test]
fn a_stated_effect_of_the_deciding_rule_keeps_its_fix_without_a_hint() {
    let e = Expectation::Valid {
        output: json!({"valid": true}),
    };
    let reqs = ["DCT-VERIFY-2-EVERY-BLOCK", "DCT-VERIFY-2-REVOKER"];
    let ruled = staked(&[], &reqs, &e, None, Direction::Refused);
    assert_eq!(ruled.key, "revocation/unauthorized-revocation", "{ruled:?}");
    let stake = stake_of(
        "revocation-bypass",
        "wrongful-revocation",
        "revocation-bypass",
    );
    let a = staked(&[], &reqs, &e, Some(&stake), Direction::Refused);
    assert_eq!(a.key, "revocation/wrongful-revocation");
    assert_eq!(
        (a.fix.as_str(), a.hint.as_ref()),
        (ruled.fix.as_str(), None)
    );
}

/// A wrong output an output member turned into a grant keeps the member's effect only when it
/// is more severe than the stated one; of equal severity the stated effect stands.
#[test]
fn an_output_member_of_equal_severity_does_not_replace_the_stated_effect() {
    let e = Expectation::Valid {
        output: json!({"scope": {"maxChainDepth": 2}}),
    };
    let reqs = ids(&["DCT-VERIFY-8-DEPTH"]);
    let stake = stake_of("lenient-input", "valid-input-refused", "scope-widening");
    let subject = Subject {
        op: "dct.verify",
        flags: &[],
        requirements: &reqs,
        expectation: Some(&e),
        stake: Some(&stake),
    };
    let deeper = Outcome::Failed {
        kind: FailureKind::OutputMismatch,
        diff: String::new(),
        output: Some(json!({"scope": {"maxChainDepth": 9}})),
    };
    let a = outcome::assess(&subject, &deeper).expect("a finding");
    assert_eq!(
        model().severity_of("depth-bypass"),
        model().severity_of("scope-widening")
    );
    assert_eq!(a.effect, "scope-widening", "{a:?}");
}

/// Issue 46: a finding's title is words, never a flag's CamelCase name: every corpus case
/// with flags, graded as accepted where refused, refused where valid and answered wrongly.
#[test]
fn no_finding_title_carries_a_flag_name() {
    let files = delegateos_vectors::corpus::load_embedded().expect("corpus");
    let flags: Vec<String> = model().flags.iter().map(|f| f.flag.clone()).collect();
    let mut leaks = std::collections::BTreeSet::new();
    for case in files
        .iter()
        .flat_map(|f| &f.file.cases)
        .filter(|c| !c.flags.is_empty())
    {
        let subject = Subject {
            op: &case.op,
            flags: &case.flags,
            requirements: &case.requirements,
            expectation: Some(&case.expect),
            stake: Some(&case.stake),
        };
        for kind in [
            FailureKind::AcceptedInvalid,
            FailureKind::RejectedValid,
            FailureKind::WrongCode,
        ] {
            let a = outcome::assess_fault(&subject, &Fault::Failed { kind, output: None });
            for flag in flags.iter().filter(|f| a.title.contains(f.as_str())) {
                leaks.insert(format!("{flag}: {}", a.title));
            }
        }
    }
    assert!(leaks.is_empty(), "{leaks:#?}");
}
