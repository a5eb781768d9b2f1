//! The wire schemas of `spec/schemas/` against the reference's own outputs.
//!
//! (a) every schema is itself valid for its declared draft (meta-validation);
//! (b) with all schemas in one registry (their `$id`s are
//!     `https://delegateos.dev/conformance/schemas/<name>.schema.json` and they `$ref` each
//!     other by relative name), the objects the reference produces or accepts as valid validate
//!     against the matching wire schema: decoded tokens (SignedJSONToken, authority,
//!     attenuations, signatures) and SerializedDCTs of the valid `dct.*` cases, AuthorizedScope
//!     outputs, the DenialReason of every `Denial` variant, revocation entries, contracts,
//!     attestations, delegations of valid chains, the JSON-RPC messages `jsonrpc.classify`
//!     accepts, check results, and the MCP tools/call requests and -32001 denial bodies.
//!
//! Vector files against `vector.schema.json` are checked by `tests/vectors.rs` (the loader
//! validates every file), so they are not repeated here.
//!
//! Both the expected outputs in the vectors and the reference's actual outputs (run in-process
//! through `ops::run`) are validated: a schema that rejects either is wrong, or the reference is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use delegateos_reference::encoding::b64u_decode;
use delegateos_reference::ops::{self, Outcome};
use delegateos_reference::revocation::{RevocationEntry, RevocationList};
use delegateos_reference::token::{Capability, SerializedDct};
use delegateos_reference::verify::{self, Denial, VerificationContext};
use delegateos_vectors::format::{Case, Expectation, Expected};
use delegateos_vectors::CorpusSource;

const BASE: &str = "https://delegateos.dev/conformance/schemas/";
const HARNESS_BASE: &str = "https://delegateos.invalid/conformance/";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Every schema file: name (`serialized-dct`) → JSON.
fn schemas() -> &'static BTreeMap<String, Value> {
    static S: OnceLock<BTreeMap<String, Value>> = OnceLock::new();
    S.get_or_init(|| {
        let mut out = BTreeMap::new();
        for entry in std::fs::read_dir(root().join("spec/schemas")).expect("spec/schemas") {
            let path = entry.expect("entry").path();
            let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".schema.json"))
            else {
                continue;
            };
            let text = std::fs::read_to_string(&path).expect("read schema");
            let value: Value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
            out.insert(name.to_owned(), value);
        }
        assert!(out.len() > 20, "only {} schemas found", out.len());
        out
    })
}

fn registry() -> &'static jsonschema::Registry<'static> {
    static R: OnceLock<jsonschema::Registry<'static>> = OnceLock::new();
    R.get_or_init(|| {
        let mut builder = jsonschema::Registry::new();
        for (name, schema) in schemas() {
            // Each schema at its own `$id` (the harness-side schemas use another base).
            let uri = schema
                .get("$id")
                .and_then(Value::as_str)
                .map_or_else(|| format!("{BASE}{name}.schema.json"), str::to_owned);
            builder = builder
                .add(uri, schema.clone())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        builder.prepare().expect("registry")
    })
}

/// The validator of schema `name`, resolving `$ref`s through the registry.
fn validator(name: &str) -> jsonschema::Validator {
    let schema = schemas()
        .get(name)
        .unwrap_or_else(|| panic!("no schema {name}"));
    jsonschema::options()
        .with_registry(registry())
        .build(schema)
        .unwrap_or_else(|e| panic!("{name}: cannot build a validator: {e}"))
}

/// Collects violations instead of stopping at the first, so one run lists every problem.
struct Checker {
    validators: BTreeMap<String, jsonschema::Validator>,
    checked: BTreeMap<String, usize>,
    problems: Vec<String>,
}

impl Checker {
    fn new() -> Self {
        Self {
            validators: BTreeMap::new(),
            checked: BTreeMap::new(),
            problems: Vec::new(),
        }
    }

    fn check(&mut self, schema: &str, what: &str, instance: &Value) {
        let v = self
            .validators
            .entry(schema.to_owned())
            .or_insert_with(|| validator(schema));
        *self.checked.entry(schema.to_owned()).or_default() += 1;
        let errors: Vec<String> = v
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        if !errors.is_empty() && self.problems.len() < 200 {
            let text = instance.to_string();
            let shown: String = text.chars().take(400).collect();
            self.problems.push(format!(
                "{schema}: {what}: {}\n    instance: {shown}",
                errors.join("; ")
            ));
        }
    }

    fn finish(self, expect_at_least: &[(&str, usize)]) {
        let mut problems = self.problems;
        for (schema, n) in expect_at_least {
            let got = self.checked.get(*schema).copied().unwrap_or(0);
            if got < *n {
                problems.push(format!(
                    "{schema}: only {got} instances checked, expected ≥ {n}"
                ));
            }
        }
        assert!(
            problems.is_empty(),
            "{} schema problem(s):\n{}",
            problems.len(),
            problems.join("\n")
        );
    }
}

fn all_cases() -> Vec<Case> {
    let files = CorpusSource::Dir(root().join("vectors"))
        .load()
        .unwrap_or_else(|e| panic!("{e:?}"));
    let mut out = Vec::new();
    for loaded in files {
        out.extend(loaded.file.cases);
    }
    assert!(out.len() > 1000, "only {} cases", out.len());
    out
}

/// The expected output of a case whose expectation is `valid` (not `acceptable`: those may
/// carry inputs the format forbids, such as unknown token fields), or our outcome of a D45 case
/// (issue 48: the readings of the signing payload differ only in the signature's bytes).
fn valid_output(case: &Case) -> Option<&Value> {
    match &case.expect {
        Expectation::Valid { output } => Some(output),
        Expectation::Acceptable { outcomes, decision } if decision == "D45" => {
            match outcomes.first() {
                Some(Expected::Valid { output }) => Some(output),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The reference's output for a case, if it succeeds.
fn actual_output(case: &Case) -> Option<Value> {
    match ops::run(&case.op, &case.input) {
        Outcome::Ok { output } => Some(output),
        _ => None,
    }
}

/// Validates a SerializedDCT and, decoded, the SignedJSONToken and each of its blocks.
fn check_token(c: &mut Checker, what: &str, dct: &Value) {
    c.check("serialized-dct", what, dct);
    let Some(text) = dct.get("token").and_then(Value::as_str) else {
        c.problems.push(format!("{what}: no token string"));
        return;
    };
    let Ok(bytes) = b64u_decode(text) else {
        c.problems.push(format!("{what}: token is not base64url"));
        return;
    };
    let Ok(decoded) = serde_json::from_slice::<Value>(&bytes) else {
        c.problems.push(format!("{what}: token is not JSON"));
        return;
    };
    c.check("signed-json-token", &format!("{what} (decoded)"), &decoded);
    c.check(
        "authority",
        &format!("{what} authority"),
        &decoded["authority"],
    );
    for (i, a) in decoded["attenuations"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        c.check("attenuation", &format!("{what} attenuations[{i}]"), a);
    }
    for (i, s) in decoded["signatures"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        c.check("token-signature", &format!("{what} signatures[{i}]"), s);
    }
}

#[test]
fn every_schema_is_valid_for_its_draft() {
    let mut problems = Vec::new();
    for (name, schema) in schemas() {
        let declared = schema.get("$schema").and_then(Value::as_str);
        if declared != Some("https://json-schema.org/draft/2020-12/schema") {
            problems.push(format!("{name}: declares $schema {declared:?}"));
        }
        // Wire schemas live under BASE; the harness's own formats (adapter protocol, MCP
        // launch/mock/record, report, vector files) under HARNESS_BASE.
        let id = schema.get("$id").and_then(Value::as_str).unwrap_or("");
        let wire = format!("{BASE}{name}.schema.json");
        let harness = format!("{HARNESS_BASE}{name}.schema.json");
        if id != wire && id != harness {
            problems.push(format!(
                "{name}: $id {id:?} is neither {wire} nor {harness}"
            ));
        }
        if let Err(e) = jsonschema::meta::validate(schema) {
            problems.push(format!(
                "{name}: not a valid schema: {e} at {}",
                e.instance_path()
            ));
        }
        // Every schema compiles with all its `$ref`s resolved through the registry.
        if let Err(e) = jsonschema::options()
            .with_registry(registry())
            .build(schema)
        {
            problems.push(format!("{name}: does not compile: {e}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn revocation_list(entries: &Value) -> Option<RevocationList> {
    let mut list = RevocationList::new();
    for e in entries.as_array()? {
        let entry: RevocationEntry = serde_json::from_value(e.clone()).ok()?;
        list.add(entry).ok()?;
    }
    Some(list)
}

#[test]
fn every_denial_variant_matches_the_denial_reason_schema() {
    let mut c = Checker::new();
    let mut seen = BTreeSet::new();
    let mut check = |c: &mut Checker, what: &str, d: &Denial| {
        let json = d.to_json();
        seen.insert(json["type"].as_str().unwrap_or("?").to_owned());
        c.check("denial-reason", what, &json);
    };
    // Every denial the reference reaches on the dct.verify corpus, through `verify::verify`.
    for case in all_cases() {
        if case.op != "dct.verify" {
            continue;
        }
        let Ok(token) = serde_json::from_value::<SerializedDct>(case.input["token"].clone()) else {
            continue;
        };
        let ctx = &case.input["context"];
        let (Some(now), Some(spent), Some(root_key)) = (
            ctx["now"].as_str(),
            ctx["spentMicrocents"].as_u64(),
            ctx["rootPublicKey"].as_str(),
        ) else {
            continue;
        };
        let Some(revocations) = revocation_list(&ctx["revocations"]) else {
            continue;
        };
        let vctx = VerificationContext {
            namespace: ctx["namespace"].as_str().unwrap_or_default().to_owned(),
            operation: ctx["action"].as_str().unwrap_or_default().to_owned(),
            resource: ctx["resource"].as_str().unwrap_or_default().to_owned(),
            now: now.to_owned(),
            spent_microcents: spent,
            root_public_key: root_key.to_owned(),
            revocations: &revocations,
        };
        if let Err(d) = verify::verify(&token, &vctx) {
            check(&mut c, &case.id, &d);
        }
    }
    // And each variant built directly, with edge values.
    let cap = Capability::new("docs", "read", "/p/**");
    for (what, d) in [
        ("malformed", Denial::Malformed { detail: "x".into() }),
        (
            "revoked",
            Denial::Revoked {
                revocation_id: "dSIXf-F4Ub04ymCTpik8Z1CG6--RK2Gykx8M9c9Qh3A".into(),
            },
        ),
        (
            "invalid_signature",
            Denial::InvalidSignature {
                detail: "x".into(),
                index: Some(1),
            },
        ),
        (
            "chain_depth",
            Denial::ChainDepthExceeded { max: 0, actual: 1 },
        ),
        ("expired", Denial::Expired),
        (
            "budget",
            Denial::BudgetExceeded {
                limit: 9_007_199_254_740_991,
                spent: 9_007_199_254_740_991,
            },
        ),
        (
            "capability",
            Denial::CapabilityNotGranted {
                requested: cap.clone(),
                granted: vec![],
            },
        ),
    ] {
        check(&mut c, what, &d);
    }
    let all: BTreeSet<String> = [
        "malformed_token",
        "revoked",
        "invalid_signature",
        "attenuation_violation",
        "chain_depth_exceeded",
        "expired",
        "budget_exceeded",
        "capability_not_granted",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    let missing: Vec<&String> = all.difference(&seen).collect();
    assert!(
        missing.is_empty(),
        "denial types never produced: {missing:?}"
    );
    c.finish(&[("denial-reason", 100)]);
}

/// The values at `path` of `v` (members joined by `.`, `[]` after a member for each element
/// of that array; the empty path is `v`), labelled with their place; a missing member is
/// `null` (and fails its schema).
fn values_at<'v>(v: &'v Value, path: &str) -> Vec<(String, &'v Value)> {
    static NULL: Value = Value::Null;
    let mut out = vec![(String::new(), v)];
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        let (member, each) = match segment.strip_suffix("[]") {
            Some(m) => (m, true),
            None => (segment, false),
        };
        out = out
            .into_iter()
            .flat_map(|(label, v)| {
                let label = if label.is_empty() {
                    member.to_owned()
                } else {
                    format!("{label}.{member}")
                };
                let inner = v.get(member).unwrap_or(&NULL);
                if each {
                    inner
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                        .map(|(i, x)| (format!("{label}[{i}]"), x))
                        .collect::<Vec<_>>()
                } else {
                    vec![(label, inner)]
                }
            })
            .collect();
    }
    out
}

/// Every valid case's values against the wire schemas its operation's catalogue row names
/// (`spec/data/operations.json`, `schemas`): inputs as the case gives them, outputs both as
/// expected and as the reference answers; a SerializedDCT is checked decoded, block by block.
#[test]
fn catalogued_values_match_their_wire_schemas() {
    let mut c = Checker::new();
    for case in all_cases() {
        let Some(expected) = valid_output(&case) else {
            continue;
        };
        let Some(facts) = delegateos_vectors::operations::facts(&case.op) else {
            continue;
        };
        let actual = actual_output(&case);
        let id = case.id.as_str();
        for check in &facts.schemas {
            if let Some(member) = &check.when {
                if expected[member.as_str()] != Value::Bool(true) {
                    continue;
                }
            }
            let schema = match (&check.schema, &check.by_output) {
                (Some(schema), _) => schema.as_str(),
                (None, Some(member)) => {
                    match expected[member.as_str()]
                        .as_str()
                        .and_then(|k| check.schemas.get(k))
                    {
                        Some(schema) => schema.as_str(),
                        None => continue,
                    }
                }
                (None, None) => panic!("{}: a schema check without a schema", case.op),
            };
            let mut values: Vec<(String, Value)> = Vec::new();
            if let Some(path) = &check.input {
                for (label, v) in values_at(&case.input, path) {
                    values.push((format!("{id} input {label}"), v.clone()));
                }
            }
            if let Some(path) = &check.output {
                let sides = [("expected", Some(expected)), ("actual", actual.as_ref())];
                for (side, output) in sides {
                    let Some(output) = output else { continue };
                    for (label, v) in values_at(output, path) {
                        values.push((format!("{id} {side} {label}"), v.clone()));
                    }
                }
            }
            for (what, v) in values {
                let v = if check.only.is_empty() {
                    v
                } else {
                    Value::Object(
                        check
                            .only
                            .iter()
                            .map(|m| (m.clone(), v[m.as_str()].clone()))
                            .collect(),
                    )
                };
                if schema == "serialized-dct" {
                    check_token(&mut c, &what, &v);
                } else {
                    c.check(schema, &what, &v);
                }
            }
        }
    }
    c.finish(&[
        ("serialized-dct", 100),
        ("signed-json-token", 100),
        ("authority", 100),
        ("attenuation", 50),
        ("token-signature", 100),
        ("authorized-scope", 100),
        ("revocation-entry", 5),
        ("task-contract", 5),
        ("attestation", 5),
        ("check-result", 100),
        ("delegation", 10),
        ("delegate-request", 1),
        ("delegate-accept", 1),
        ("delegate-reject", 1),
        ("complete-notification", 1),
        ("revoke-notification", 1),
    ]);
}

#[test]
fn mcp_requests_and_denials_match_the_wire_schemas() {
    let mut c = Checker::new();
    for case in all_cases() {
        if case.op != "mcp.call" {
            continue;
        }
        let id = case.id.as_str();
        let request = &case.input["request"];
        let actual = actual_output(&case);
        let decision = actual.as_ref().and_then(|a| a["decision"].as_str());
        let is_call_request =
            request["method"] == "tools/call" && request.get("id").is_some_and(|i| !i.is_null());
        // A request the reference forwards (or passes through) is a well-formed augmented
        // tools/call.
        if is_call_request && matches!(decision, Some("forward" | "pass_through")) {
            c.check("tools-call-request", id, request);
        }
        if let (Some(a), Some("deny")) = (&actual, decision) {
            c.check(
                "tools-call-denial",
                &format!("{id} actual response"),
                &a["response"],
            );
        }
        if let Some(out) = valid_output(&case) {
            if let Some(r) = out.get("response") {
                c.check("tools-call-denial", &format!("{id} expected response"), r);
            }
        }
    }
    c.finish(&[("tools-call-request", 10), ("tools-call-denial", 40)]);
}

#[test]
fn the_skipped_expectation_forms_exist() {
    // Sanity: the expectation forms these tests skip (acceptable, invalid) exist, so skipping
    // them is a choice, not an accident of an empty corpus.
    let cases = all_cases();
    let acceptable = cases
        .iter()
        .filter(|c| matches!(c.expect, Expectation::Acceptable { .. }))
        .count();
    let invalid = cases
        .iter()
        .filter(|c| {
            matches!(c.expect, Expectation::Invalid { .. })
                || matches!(&c.expect, Expectation::Acceptable { outcomes, .. }
                    if matches!(outcomes.first(), Some(Expected::Invalid { .. })))
        })
        .count();
    assert!(acceptable > 0 && invalid > 0);
}
