//! The case changes of `spec/audit-v0.2.md` §2 (issue 12), applied by the generator framework
//! to the cases the areas build (so no area call site repeats them). A case's level is not
//! decided here: it is its ground's (`crate::grounds`, issue 36).
//!
//! [`amend`] turns the cases the audit lists into `acceptable` ones: the reference's reading
//! stays outcome 0 (the generator still asserts the reference gives it), and the other
//! reading is added as written by the audit. Where the other reading is a success whose exact
//! output the spec does not determine (a depth countdown the literal text does not apply, a
//! list without the entries that could never revoke), the added outcome is a success with an
//! empty `output` object: it pins the verdict, not the output.
//!
//! No rule here reads a case's description (issue 48): the clause a case names where its
//! requirements do not (a token member of the wrong JSON type, I-JSON input, a wrong revoker)
//! and the `expired` reading of an expiry that is no time are fields of the case's entry in
//! `src/areas/data/grounds/<area>.json` (`clause`, `amend`), applied by `crate::grounds`.

use serde_json::json;

use crate::format::{Case, Expectation, Expected};

/// How the audit turns a case into an `acceptable` one.
#[derive(Debug, Clone, Copy)]
enum Amend {
    /// Add the other outcome `Expected` (built by the function from outcome 0), the flag
    /// naming the decision, under decision `D…`.
    Add {
        decision: &'static str,
        flag: &'static str,
        other: fn(&Expected) -> Option<Expected>,
    },
}

fn success(_: &Expected) -> Option<Expected> {
    Some(Expected::valid(json!({})))
}

fn subset_rejects(_: &Expected) -> Option<Expected> {
    Some(Expected::invalid("attenuation_violation", "10.1/4b"))
}

fn check_fails(_: &Expected) -> Option<Expected> {
    Some(Expected::valid(json!({"passed": false, "score": 0})))
}

fn chain_valid(_: &Expected) -> Option<Expected> {
    Some(Expected::valid(json!({"valid": true})))
}

/// §8.2 invariant 2 (`child.from === parent.to`), the fault a five-invariant check reports.
fn from_mismatch(_: &Expected) -> Option<Expected> {
    Some(Expected::invalid("from_mismatch", "8.2/2"))
}

/// D13: the same BLAKE2b-256 digest, lowercase hex instead of base64url.
fn hex_digest(first: &Expected) -> Option<Expected> {
    let Expected::Valid { output } = first else {
        return None;
    };
    let b64 = output.get("outputHash")?.as_str()?;
    let bytes = delegateos_reference::encoding::b64u_decode(b64).ok()?;
    Some(Expected::valid(json!({ "outputHash": hex::encode(bytes) })))
}

/// D11: the other reading of `contract.bind` flips the contract-id verdict.
fn other_binding(first: &Expected) -> Option<Expected> {
    match first {
        Expected::Valid { .. } => Some(Expected::invalid("contract_mismatch", "5.2/contract")),
        Expected::Invalid { code, .. } if code == "contract_mismatch" => {
            Some(Expected::valid(json!({"bound": true})))
        }
        Expected::Invalid { .. } => None,
    }
}

/// D18: an implementation that refuses an empty authority capability list as malformed.
fn empty_caps_malformed(_: &Expected) -> Option<Expected> {
    Some(Expected::invalid("malformed_token", "10.1/1"))
}

/// D32: a proxy that hides the argument-resource tools whose capability exists only for
/// other resources lists nothing here.
fn tools_hidden(_: &Expected) -> Option<Expected> {
    Some(Expected::valid(json!({"tools": []})))
}

fn amendment(id: &str) -> Option<Amend> {
    let add = |decision, flag, other| {
        Some(Amend::Add {
            decision,
            flag,
            other,
        })
    };
    let n = |prefix: &str| -> Option<u32> { id.strip_prefix(prefix)?.parse().ok() };
    if id == "dct-redteam-0043" {
        return add("D3", "SubsetConservative", subset_rejects);
    }
    if id == "checks-output-verification-0027" {
        return add("D28", "ExpectedResultDetails", check_fails);
    }
    if matches!(
        id,
        "checks-json_schema-0030"
            | "checks-json_schema-0031"
            | "checks-json_schema-0032"
            | "checks-output-verification-0006"
    ) {
        return add("D29", "SchemaDialect", check_fails);
    }
    if matches!(
        id,
        "dct-attenuate-0038"
            | "dct-expanded-0102"
            | "dct-expanded-0105"
            | "dct-expanded-0106"
            | "dct-redteam-0005"
            | "dct-redteam-0006"
    ) {
        return add("D4", "DepthSemantics", success);
    }
    if let Some(k) = n("dct-forged-") {
        if matches!(k, 23 | 29 | 73 | 74 | 81 | 82 | 83 | 84) {
            return add("D8", "SignatureStructure", success);
        }
    }
    if id == "dct-malformed-0504" {
        return add("D9", "UnknownField", success);
    }
    if let Some(k) = n("revocation-from-json-") {
        if (10..=16).contains(&k) || (31..=34).contains(&k) {
            return add("D6", "RevocationListAtomic", success);
        }
    }
    if id == "chain-invariants-0081" {
        return add("D26", "ChainAttenuationCount", chain_valid);
    }
    // Issue 27 (D26 option (c)): §8.2 lists five invariants; a chain check that is exactly
    // those (each token verified separately, where it is used) finds nothing wrong with a
    // chain whose only fault is a delegation's DCT failing steps 1–6 (expired, wrong root key,
    // revoked, zero budget), or reports the invariant the text names when there is one.
    if matches!(
        id,
        "chain-invariants-0090"
            | "chain-invariants-0092"
            | "chain-invariants-0093"
            | "chain-invariants-0097"
            | "chain-invariants-0114"
            | "chain-store-0045"
            | "chain-store-0047"
    ) {
        return add("D26", "ChainAttenuationCount", chain_valid);
    }
    if id == "chain-invariants-0107" {
        return add("D26", "ChainAttenuationCount", from_mismatch);
    }
    if let Some(k) = n("attestation-output-hash-") {
        if (1..=15).contains(&k) || k == 20 || k == 21 {
            return add("D13", "OutputHashEncoding", hex_digest);
        }
    }
    if let Some(k) = n("contract-binding-") {
        // 25, 26, 29 (audit §15): positive capability cases on tokens whose last attenuation
        // carries the contract's id and the authority another one; the authority reading binds
        // nothing there (its rejections 24, 27, 28 are `contract_mismatch`, same family).
        if matches!(k, 3..=7 | 9 | 10 | 25 | 26 | 29) {
            return add("D11", "BindingContractId", other_binding);
        }
    }
    if id == "attestation-verify-0032" {
        return add("D13", "OutputHashEncoding", success);
    }
    if let Some(k) = n("contract-binding-") {
        if matches!(k, 50 | 52 | 53) {
            return add("D18", "EmptyCapabilities", empty_caps_malformed);
        }
    }
    if id == "mcp-filter_tools-0003" {
        return add("D32", "McpListFilter", tools_hidden);
    }
    None
}

/// Applies the audit's expectation changes to `case` (no-op for cases it does not list).
/// Returns an error line if the audit names a case whose expectation it cannot amend.
pub fn amend(case: &mut Case) -> Result<(), String> {
    amend_listed(case)?;
    if case.id == "chain-invariants-0114" {
        // Also D26's order: a check that reads every record's shape before any DCT reports the
        // next delegation's shape fault (the `chain` family).
        add_outcome(
            case,
            "D26",
            "ChainAttenuationCount",
            Expected::invalid("malformed_delegation", "8.1"),
        );
    }
    amend_check_score(case);
    amend_caller_input(case);
    amend_depth_at_issuance(case);
    amend_iso8601(case);
    Ok(())
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

/// The amendments of the cases the audit lists by id.
fn amend_listed(case: &mut Case) -> Result<(), String> {
    let Some(Amend::Add {
        decision,
        flag,
        other,
    }) = amendment(&case.id)
    else {
        return Ok(());
    };
    let mut outcomes = case.expect.outcomes();
    let Some(first) = outcomes.first().cloned() else {
        return Err(format!(
            "{}: the audit amends a case without outcomes",
            case.id
        ));
    };
    let Some(extra) = other(&first) else {
        return Err(format!(
            "{}: the audit's other reading does not apply to outcome 0",
            case.id
        ));
    };
    if !outcomes.contains(&extra) {
        outcomes.push(extra);
    }
    let decision = match &case.expect {
        Expectation::Acceptable { decision, .. } => decision.clone(),
        _ => decision.to_owned(),
    };
    case.expect = Expectation::Acceptable { outcomes, decision };
    if !case.flags.iter().any(|f| f == flag) {
        case.flags.push(flag.to_owned());
    }
    Ok(())
}

/// The audit's ids that must exist in the corpus (a renamed case must not silently lose its
/// override).
pub fn listed_ids() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |prefix: &str, nums: &[u32]| {
        for k in nums {
            out.push(format!("{prefix}{k:04}"));
        }
    };
    push("dct-forged-", &[23, 29, 73, 74, 81, 82, 83, 84]);
    push(
        "revocation-from-json-",
        &[10, 11, 12, 13, 14, 15, 16, 31, 32, 33, 34],
    );
    push(
        "attestation-output-hash-",
        &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21],
    );
    push(
        "contract-binding-",
        &[3, 4, 5, 6, 7, 9, 10, 25, 26, 29, 50, 52, 53],
    );
    push("dct-expanded-", &[102, 105, 106]);
    push("chain-invariants-", &[90, 92, 93, 97, 107, 114]);
    push("chain-store-", &[45, 47]);
    push("dct-redteam-", &[5, 6, 43]);
    for id in [
        "dct-attenuate-0038",
        "dct-malformed-0504",
        "chain-invariants-0081",
        "checks-output-verification-0027",
        "checks-json_schema-0030",
        "checks-json_schema-0031",
        "checks-json_schema-0032",
        "checks-output-verification-0006",
        "attestation-verify-0032",
        "mcp-filter_tools-0003",
    ] {
        out.push(id.to_owned());
    }
    out
}
