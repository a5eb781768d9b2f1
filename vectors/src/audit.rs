//! The audit's rules over a case's input (`spec/audit-v0.2.md` §2, issue 12; issue 27),
//! applied by the generator framework to the cases the areas build (so no area call site
//! repeats them). A case's level is not decided here: it is its ground's (`crate::grounds`,
//! issue 36).
//!
//! [`amend`] adds the outcome another reasonable reading gives to cases whose *input* has the
//! trait the reading turns on (a caller's malformed `now` or root key, a token deeper than its
//! bound at issuance, an ISO 8601 form outside the D5 profile, a scoreless check's `score`):
//! the reference's reading stays outcome 0 (the generator still asserts the reference gives
//! it). Where the other reading is a success whose exact output the spec does not determine,
//! the added outcome is a success with an empty `output` object: it pins the verdict, not the
//! output.
//!
//! No rule here names a case or reads its description (issue 48): the amendments the audit
//! once listed by id, the clause a case names where its requirements do not (a token member
//! of the wrong JSON type, I-JSON input, a wrong revoker) and the `expired` reading of an
//! expiry that is no time are fields of the case's entry in
//! `src/areas/data/grounds/<area>.json` (`amend`, `clause`), applied by `crate::grounds`.

use serde_json::json;

use crate::format::{Case, Expectation, Expected};

/// Applies the audit's rules over inputs to `case`.
pub fn amend(case: &mut Case) {
    amend_check_score(case);
    amend_caller_input(case);
    amend_depth_at_issuance(case);
    amend_iso8601(case);
}

/// Adds `extra` to the case's outcomes (making it `acceptable` under `decision` unless it
/// already is), with `flag`.
fn add_outcome(case: &mut Case, decision: &str, flag: &str, extra: Expected) {
    let mut outcomes = case.expect.outcomes();
    if outcomes.contains(&extra) {
        return;
    }
    outcomes.push(extra);
    let decision = match &case.expect {
        Expectation::Acceptable { decision, .. } => decision.clone(),
        _ => decision.to_owned(),
    };
    case.expect = Expectation::Acceptable { outcomes, decision };
    if !case.flags.iter().any(|f| f == flag) {
        case.flags.push(flag.to_owned());
    }
}

/// The operations whose input carries the caller's `now` and `rootPublicKey` (in `context`
/// or at the top level).
const CONTEXT_OPS: &[&str] = &[
    "dct.verify",
    "contract.bind",
    "chain.verify",
    "chain.verify_store",
];

/// Issue 27 / product guide §4: a malformed `context.now` or a `rootPublicKey` that is not a
/// principal id is the *caller's* bad argument, not the token's. Refusing the argument
/// (`invalid_input`, spec/operations.md §1) is as reasonable as reporting `malformed_token`,
/// so every case whose context carries such a value accepts `invalid_input` too (decision
/// D7's malformed-`now` reading: which is reported first, the caller's bad argument or the
/// token's verdict, is an order the text does not fix; flag `Precedence` until the flag index
/// has a caller-input flag).
fn amend_caller_input(case: &mut Case) {
    if !CONTEXT_OPS.contains(&case.op.as_str()) {
        return;
    }
    let field = |name: &str| {
        case.input
            .get("context")
            .and_then(|c| c.get(name))
            .or_else(|| case.input.get(name))
            .cloned()
    };
    let bad_now = field("now").is_some_and(|v| {
        v.as_str()
            .is_none_or(|s| delegateos_reference::timestamp::Timestamp::parse(s).is_err())
    });
    let bad_root = field("rootPublicKey").is_some_and(|v| {
        v.as_str()
            .is_none_or(|s| !delegateos_reference::encoding::is_principal_id(s))
    });
    if bad_now || bad_root {
        add_outcome(
            case,
            "D7",
            "Precedence",
            Expected::invalid("invalid_input", "input"),
        );
    }
}

/// The decoded SignedJSONToken of a `dct.verify` input, if it decodes.
fn decoded_token(case: &Case) -> Option<serde_json::Value> {
    let text = case.input.get("token")?.get("token")?.as_str()?;
    let bytes = delegateos_reference::encoding::b64u_decode(text).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Issue 27: a token whose depth (step 8's `authority.chainDepth + attenuations.length`)
/// already exceeds `authority.maxChainDepth` — at issuance, or with the attenuations it carries —
/// breaks the §8.2/4 bound in its structure; a verifier that rejects it in step 1 as
/// `malformed_token` ("validate structure") takes a reasonable reading (D4, flag
/// `DepthSemantics`).
fn amend_depth_at_issuance(case: &mut Case) {
    if case.op != "dct.verify" {
        return;
    }
    let Some(token) = decoded_token(case) else {
        return;
    };
    let authority = token.get("authority");
    let get = |k: &str| {
        authority
            .and_then(|a| a.get(k))
            .and_then(serde_json::Value::as_u64)
    };
    let attenuations = token
        .get("attenuations")
        .and_then(serde_json::Value::as_array)
        .map_or(0, Vec::len) as u64;
    if let (Some(depth), Some(max)) = (get("chainDepth"), get("maxChainDepth")) {
        if depth.saturating_add(attenuations) > max {
            add_outcome(
                case,
                "D4",
                "DepthSemantics",
                Expected::invalid("malformed_token", "10.1/1"),
            );
        }
    }
}

/// ISO 8601 spellings outside the D5 profile that name an instant, with the profile spelling
/// of that instant (issue 27): week and ordinal dates, the basic format, a decimal comma,
/// `24:00` (end of day, ISO 8601:2004 §4.2.3), an hour-only offset, no seconds (reduced
/// precision), an expanded year, and the real leap second of 2016-12-31 (ordered here as the
/// next instant; every case compares it with a 2026 time). The spec says "ISO 8601 UTC"
/// (§1.2), so accepting them with the right instant is as reasonable as D5's profile.
/// Forms ISO 8601 does not have (month 13, day 32, second 60 outside a leap second, lowercase
/// designators, a space separator, no offset, an offset mixing basic and extended format)
/// stay refusals.
pub(crate) const ISO8601_FORMS: &[(&str, &str)] = &[
    ("2016-12-31T23:59:60Z", "2017-01-01T00:00:00Z"),
    ("2016-12-31T23:59:60.5Z", "2017-01-01T00:00:00.5Z"),
    ("2026-01-01T24:00:00Z", "2026-01-02T00:00:00Z"),
    ("2026-03-01T24:00:00Z", "2026-03-02T00:00:00Z"),
    ("2026-01-01T00:00:00+00", "2026-01-01T00:00:00Z"),
    ("2026-01-01T00:00Z", "2026-01-01T00:00:00Z"),
    ("+002026-01-01T00:00:00Z", "2026-01-01T00:00:00Z"),
    ("20260101T000000Z", "2026-01-01T00:00:00Z"),
    ("2026-01-01T00:00:00,5Z", "2026-01-01T00:00:00.5Z"),
    ("2026-W01-4T00:00:00Z", "2026-01-01T00:00:00Z"),
    ("2026-001T00:00:00Z", "2026-01-01T00:00:00Z"),
    ("2026-03-01T11:30Z", "2026-03-01T11:30:00Z"),
    ("+002026-03-01T11:30:00Z", "2026-03-01T11:30:00Z"),
];

/// The profile spelling of an ISO 8601 form of [`ISO8601_FORMS`].
pub(crate) fn iso8601_equivalent(text: &str) -> Option<&'static str> {
    ISO8601_FORMS
        .iter()
        .find(|(form, _)| *form == text)
        .map(|(_, profile)| *profile)
}

fn contains_iso_form(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::String(s) => iso8601_equivalent(s).is_some(),
        serde_json::Value::Array(a) => a.iter().any(contains_iso_form),
        serde_json::Value::Object(o) => o.values().any(contains_iso_form),
        _ => false,
    }
}

/// Issue 27 (D5): the other reading of an ISO 8601 form outside the profile. For
/// `timestamp.compare` the order of the two instants; for `dct.create` and
/// `revocation.create_entry` a created object (verdict only). `dct.verify` cases build their own other reading where they build the
/// token (the area knows the instant), and `companions` maps the `timestamp.compare` one.
fn amend_iso8601(case: &mut Case) {
    let refused = matches!(&case.expect, Expectation::Invalid { .. });
    if !refused {
        return;
    }
    match case.op.as_str() {
        "timestamp.compare" => {
            let parse = |k: &str| -> Option<i128> {
                let s = case.input.get(k)?.as_str()?;
                let s = iso8601_equivalent(s).unwrap_or(s);
                Some(
                    delegateos_reference::timestamp::Timestamp::parse(s)
                        .ok()?
                        .unix_nanos(),
                )
            };
            if !contains_iso_form(&case.input) {
                return;
            }
            if let (Some(a), Some(b)) = (parse("a"), parse("b")) {
                let order = match a.cmp(&b) {
                    std::cmp::Ordering::Less => -1,
                    std::cmp::Ordering::Equal => 0,
                    std::cmp::Ordering::Greater => 1,
                };
                add_outcome(
                    case,
                    "D5",
                    "TimestampOffset",
                    Expected::valid(json!({ "order": order })),
                );
            }
        }
        "dct.create" | "revocation.create_entry" if contains_iso_form(&case.input) => {
            add_outcome(case, "D5", "TimestampOffset", Expected::valid(json!({})));
        }
        _ => {}
    }
}

/// The checks whose §6.2 text gives no score (only `regex_match` and `json_schema` have one).
const SCORELESS_CHECKS: &[&str] = &[
    "string_length",
    "array_length",
    "field_exists",
    "exit_code",
    "output_equals",
];

/// Whether `case` runs one scoreless check directly (`check.run`, or `output.verify` of a
/// `deterministic_check`, whose §10.3 result is the check's own result).
fn runs_scoreless_check(case: &Case) -> bool {
    let name = match case.op.as_str() {
        "check.run" => case.input.get("name"),
        "output.verify" => case.input.get("verification").and_then(|v| {
            (v.get("method").and_then(serde_json::Value::as_str) == Some("deterministic_check"))
                .then(|| v.get("checkName"))
                .flatten()
        }),
        _ => None,
    };
    name.and_then(serde_json::Value::as_str)
        .is_some_and(|n| SCORELESS_CHECKS.contains(&n))
}

/// D28 / issue 14 review (audit §12): `CheckResult.score` is optional and §6.2 defines none
/// for the scoreless checks, so every success outcome that pins `score` gets a twin without
/// it (the verdict `passed` stays pinned). Flag `CheckScore`.
fn amend_check_score(case: &mut Case) {
    if !runs_scoreless_check(case) {
        return;
    }
    let mut outcomes = case.expect.outcomes();
    let twins: Vec<Expected> = outcomes
        .iter()
        .filter_map(|o| match o {
            Expected::Valid { output } if output.get("score").is_some() => {
                let mut out = output.clone();
                out.as_object_mut()?.remove("score");
                Some(Expected::Valid { output: out })
            }
            _ => None,
        })
        .collect();
    if twins.is_empty() {
        return;
    }
    for twin in twins {
        if !outcomes.contains(&twin) {
            outcomes.push(twin);
        }
    }
    let decision = match &case.expect {
        Expectation::Acceptable { decision, .. } => decision.clone(),
        _ => "D28".to_owned(),
    };
    case.expect = Expectation::Acceptable { outcomes, decision };
    if !case.flags.iter().any(|f| f == "CheckScore") {
        case.flags.push("CheckScore".to_owned());
    }
}
