//! Lints that keep every case's ground and stake right (issue 48). Each lint is a function from
//! cases (and the data it needs) to problems; one test runs it on the corpus (no problem
//! allowed) and one plants the fault it exists for and shows that it is caught:
//!
//! 1. accepting a token with a block that carries no usable signature is stated as `forgery`;
//! 2. cases of one class (operation, expected code, stage, flags and requirements) share level
//!    and `granted` stake, unless the case that differs has an `audit` note saying why;
//! 3. a decision ground names the decision the `acceptable` expectation names;
//! 4. a ground's reason is a complete sentence;
//! 5. a quote is words of the upstream text, not a section heading;
//! 6. a `valid` expectation states a `granted` effect that some output member of the operation
//!    can grant (a `false` answer that could be `true`, a denial that could be a forward, an
//!    output member of `spec/severity.md` §6), else a harmless one;
//! 7. a fix hint's comparison agrees with the requirement text it restates;
//! 8. a reason shared by several cases describes each of them: where it names operations of
//!    the catalogue, every case that shares it runs one of them (a reason written for one
//!    operation's cases, copied onto another's, says nothing true about those);
//! 9. a critical `wrongOutput` effect on a case that can answer `valid` is one an output member
//!    of the operation carries (`spec/severity.md` §6): a wrong id in an AuthorizedScope is no
//!    expiry or revocation bypass.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use delegateos_reference::encoding::b64u_decode;
use delegateos_vectors::corpus::load_embedded;
use delegateos_vectors::format::{Case, Expectation, Expected, Ground};
use serde_json::Value;

/// The ground files, one per area (`vectors/src/grounds.rs`).
const GROUND_FILES: &[&str] = &[
    include_str!("../src/areas/data/grounds/advisory.json"),
    include_str!("../src/areas/data/grounds/attestation.json"),
    include_str!("../src/areas/data/grounds/chain.json"),
    include_str!("../src/areas/data/grounds/checks.json"),
    include_str!("../src/areas/data/grounds/companions.json"),
    include_str!("../src/areas/data/grounds/contract.json"),
    include_str!("../src/areas/data/grounds/dct.json"),
    include_str!("../src/areas/data/grounds/glob.json"),
    include_str!("../src/areas/data/grounds/jsonrpc.json"),
    include_str!("../src/areas/data/grounds/mcp.json"),
    include_str!("../src/areas/data/grounds/primitives.json"),
    include_str!("../src/areas/data/grounds/revocation.json"),
    include_str!("../src/areas/data/grounds/stateful.json"),
];
const SEVERITY: &str = include_str!("../spec/data/severity.json");
const REQUIREMENT_QUOTES: &str = include_str!("../spec/grounds/requirement-quotes.json");

fn cases() -> Vec<Case> {
    load_embedded()
        .expect("the embedded corpus loads")
        .into_iter()
        .flat_map(|f| f.file.cases)
        .collect()
}

fn case<'a>(all: &'a [Case], id: &str) -> &'a Case {
    all.iter().find(|c| c.id == id).unwrap()
}

fn normalized(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn upstream(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("spec/upstream")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every outcome the case allows refuses.
fn refuses_only(case: &Case) -> bool {
    case.expect
        .outcomes()
        .iter()
        .all(|o| matches!(o, Expected::Invalid { .. }))
}

// ---------------------------------------------------------------------------------------------
// 1. No usable signature: accepting is forgery.

/// The decoded token of a `dct.verify` or `contract.bind` input, if it decodes.
fn decoded_token(case: &Case) -> Option<Value> {
    if !matches!(case.op.as_str(), "dct.verify" | "contract.bind") {
        return None;
    }
    let text = case.input.get("token")?.get("token")?.as_str()?;
    serde_json::from_slice(&b64u_decode(text).ok()?).ok()
}

/// Whether some block of the token has no signature entry with a signature string.
fn unsigned_block(token: &Value) -> bool {
    if !token.is_object() {
        // Not a token at all (an array or string holding one): the lint has nothing to count.
        return false;
    }
    let blocks = 1 + token
        .get("attenuations")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let Some(signatures) = token.get("signatures").and_then(Value::as_array) else {
        return true;
    };
    signatures.len() < blocks
        || signatures
            .iter()
            .take(blocks)
            .any(|s| !s.get("signature").is_some_and(Value::is_string))
}

fn lint_unsigned_is_forgery(all: &[Case]) -> Vec<String> {
    all.iter()
        .filter(|c| refuses_only(c) && c.stake.granted != "forgery")
        .filter(|c| decoded_token(c).is_some_and(|t| unsigned_block(&t)))
        .map(|c| {
            format!(
                "{}: a block has no usable signature, so accepting it is forgery, not {}",
                c.id, c.stake.granted
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 2. One class, one level and one stake, unless a case says why it differs.

/// Every case's ground entry: those of the ground files, and the `ground` of each table row.
fn ground_entries() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for text in GROUND_FILES {
        let v: Value = serde_json::from_str(text).unwrap();
        let cases = v.get("cases").unwrap_or(&v).as_object().unwrap();
        out.extend(cases.iter().map(|(id, e)| (id.clone(), e.clone())));
    }
    let tables = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/areas/data/tables");
    for file in std::fs::read_dir(&tables).unwrap() {
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        let rows: Value = serde_json::from_str(&text).unwrap();
        for row in rows.as_array().unwrap() {
            if let (Some(id), Some(g)) = (row["id"].as_str(), row.get("ground")) {
                out.push((id.to_owned(), g.clone()));
            }
        }
    }
    out
}

/// Per case: whether its ground entry (in a ground file or its table row) gives it an `audit`
/// note.
fn audited() -> BTreeSet<String> {
    let note = |a: &Value| a.as_str().is_some_and(|a| !a.trim().is_empty());
    ground_entries()
        .into_iter()
        .filter(|(_, e)| {
            e.get("audit")
                .is_some_and(|a| note(a) || a.as_array().is_some_and(|l| l.iter().any(note)))
        })
        .map(|(id, _)| id)
        .collect()
}

fn most_common<'a>(values: impl Iterator<Item = &'a str>) -> &'a str {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for v in values {
        *counts.entry(v).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by_key(|(_, n)| *n)
        .map_or("", |(v, _)| v)
}

fn lint_class_agrees(all: &[Case], audited: &BTreeSet<String>) -> Vec<String> {
    let mut classes: BTreeMap<String, Vec<&Case>> = BTreeMap::new();
    for c in all {
        let Expectation::Invalid { code, stage } = &c.expect else {
            continue;
        };
        let mut flags = c.flags.clone();
        flags.sort();
        let mut reqs = c.requirements.clone();
        reqs.sort();
        let key = format!("{} {code} {stage:?} {flags:?} {reqs:?}", c.op);
        classes.entry(key).or_default().push(c);
    }
    let mut out = Vec::new();
    for members in classes.values() {
        let level = most_common(members.iter().map(|c| c.level.as_str()));
        let granted = most_common(members.iter().map(|c| c.stake.granted.as_str()));
        for c in members {
            let differs = c.level.as_str() != level || c.stake.granted != granted;
            if differs && !audited.contains(&c.id) {
                out.push(format!(
                    "{}: {} / {} where the rest of its class is {level} / {granted}, with no \
                     `audit` note saying why",
                    c.id,
                    c.level.as_str(),
                    c.stake.granted
                ));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// 3. ground.decision == expect.decision.

fn lint_decision_agrees(all: &[Case]) -> Vec<String> {
    all.iter()
        .filter_map(|c| match (&c.ground, &c.expect) {
            (Ground::Decision { decision: g, .. }, Expectation::Acceptable { decision: e, .. })
                if g != e =>
            {
                Some(format!("{}: ground names {g}, the expectation {e}", c.id))
            }
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 4. Reasons are complete sentences.

fn complete_sentence(reason: &str) -> bool {
    let r = reason.trim();
    let first = r.split_whitespace().next().unwrap_or("");
    // A sentence may open with a code identifier (`field_exists`, `attenuations[0].expiresAt`).
    let starts = first
        .chars()
        .next()
        .is_some_and(|ch| ch.is_uppercase() || ch.is_ascii_digit() || "`\"'§(".contains(ch))
        || first.contains(['_', '.', '[', '/']);
    let body = r.trim_end_matches(['"', ')', '`', '\'', '”']);
    let ends = body.ends_with(['.', '!', '?']);
    starts && ends && r.split_whitespace().count() >= 4
}

fn lint_reasons_are_sentences(all: &[Case]) -> Vec<String> {
    all.iter()
        .filter_map(|c| {
            let reason = match &c.ground {
                Ground::Hardening { reason } => Some(reason.as_str()),
                Ground::Decision { reason, .. } => reason.as_deref(),
                _ => None,
            }?;
            (!complete_sentence(reason)).then(|| {
                format!(
                    "{}: the reason is not a complete sentence: {reason:?}",
                    c.id
                )
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 5. A quote is not a heading.

/// The upstream text without its section headings (normalized), and the headings.
fn without_headings(text: &str, markdown: bool) -> (String, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut body = Vec::new();
    let mut headings = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let blank = |j: Option<usize>| {
            j.and_then(|j| lines.get(j))
                .is_none_or(|l| l.trim().is_empty())
        };
        let heading = if markdown {
            line.starts_with('#')
        } else {
            // "9. Message Schemas (JSON-RPC 2.0)", "10.1 DCT Verification (SJT)": a numbered
            // line at the margin, alone between blank lines, that states nothing.
            let numbered = line.split_once(' ').is_some_and(|(n, rest)| {
                !n.is_empty()
                    && n.trim_end_matches('.')
                        .split('.')
                        .all(|p| p.parse::<u32>().is_ok())
                    && rest.chars().next().is_some_and(char::is_uppercase)
            });
            numbered
                && !line.contains([':', '→', '='])
                && blank(i.checked_sub(1))
                && blank(Some(i + 1))
        };
        if heading {
            headings.push(normalized(line));
            body.push("¶");
        } else {
            body.push(line);
        }
    }
    (normalized(&body.join("\n")), headings)
}

fn lint_quotes_are_not_headings(all: &[Case], spec: &str, architecture: &str) -> Vec<String> {
    let (spec_body, _) = without_headings(spec, false);
    let (arch_body, _) = without_headings(architecture, true);
    all.iter()
        .filter_map(|c| {
            let Ground::Text { source, quote, .. } = &c.ground else {
                return None;
            };
            let body = if source == "architecture" {
                &arch_body
            } else {
                &spec_body
            };
            (!body.contains(&normalized(quote))).then(|| {
                format!(
                    "{}: the quote is (or runs through) a section heading: {quote:?}",
                    c.id
                )
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 6. `granted` on a `valid` expectation: an operation whose output has no member that answers
// a yes/no question of authority can grant only what its output members of §6 grant.

/// Effects that grant nothing: what a `valid` case may state for `granted` when no member of
/// its operation's output can grant more.
const HARMLESS: &[&str] = &["lenient-input", "wrong-output", "diagnostics"];
/// Boolean output members whose `true` grants (spec/severity.md §1).
const GRANTING_BOOLEANS: &[&str] = &["matches", "subset", "valid", "passed", "bound"];

/// Whether an expected `output` has a member that answers a yes/no question of authority
/// (spec/severity.md §1: `matches`, `subset`, `valid`, `passed`, `bound`, or whatever the
/// operation's catalogue row says its output `grants` — a revocation query, an MCP decision, a
/// tool list, a session's forwarded messages): such a member can grant whatever the case is
/// about.
fn has_granting_member(op: &str, output: &Value) -> bool {
    let Some(obj) = output.as_object() else {
        return false;
    };
    GRANTING_BOOLEANS
        .iter()
        .any(|k| obj.get(*k).is_some_and(Value::is_boolean))
        || delegateos_vectors::operations::facts(op).is_some_and(|f| f.grants.is_some())
}

/// The effects an operation's output can grant: anything where some case's output has a
/// granting member, else its output members of spec/severity.md §6 and the harmless effects.
fn grantable(all: &[Case]) -> BTreeMap<String, Option<BTreeSet<String>>> {
    let v: Value = serde_json::from_str(SEVERITY).unwrap();
    let mut members: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for row in v["outputs"].as_array().unwrap() {
        members
            .entry(row["op"].as_str().unwrap().to_owned())
            .or_default()
            .insert(row["granted"].as_str().unwrap().to_owned());
    }
    let mut out: BTreeMap<String, Option<BTreeSet<String>>> = BTreeMap::new();
    for c in all {
        let any =
            c.expect.outcomes().iter().any(
                |o| matches!(o, Expected::Valid { output } if has_granting_member(&c.op, output)),
            );
        let entry = out.entry(c.op.clone()).or_insert_with(|| {
            let mut set: BTreeSet<String> = HARMLESS.iter().map(|s| (*s).to_owned()).collect();
            set.extend(members.get(&c.op).cloned().unwrap_or_default());
            Some(set)
        });
        if any {
            *entry = None;
        }
    }
    out
}

fn lint_granted_on_valid(
    all: &[Case],
    grantable: &BTreeMap<String, Option<BTreeSet<String>>>,
) -> Vec<String> {
    all.iter()
        .filter(|c| {
            c.expect
                .outcomes()
                .iter()
                .all(|o| matches!(o, Expected::Valid { .. }))
        })
        .filter_map(|c| {
            let allowed = grantable.get(&c.op)?.as_ref()?;
            let g = c.stake.granted.as_str();
            (!allowed.contains(g)).then(|| {
                format!(
                    "{}: `valid` with granted {g}, which no output member of {} can grant",
                    c.id, c.op
                )
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 7. Fix hints agree with the requirement text.

/// `(operand, operator)` of every comparison in `text` (`ctx.` dropped, ≥ ≤ spelled out).
fn comparisons(text: &str) -> Vec<(String, String)> {
    let t = text.replace('≥', ">=").replace('≤', "<=");
    let tokens: Vec<&str> = t
        .split(|ch: char| ch.is_whitespace() || ch == '`')
        .filter(|s| !s.is_empty())
        .collect();
    let mut out = Vec::new();
    for w in tokens.windows(2) {
        if matches!(w[1], ">" | ">=" | "<" | "<=") {
            let operand = w[0].trim_start_matches("ctx.");
            if operand
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
                && !operand.is_empty()
            {
                out.push((operand.to_owned(), w[1].to_owned()));
            }
        }
    }
    out
}

fn matches_pattern(pattern: &str, id: &str) -> bool {
    pattern
        .strip_suffix('*')
        .map_or(pattern == id, |prefix| id.starts_with(prefix))
}

fn lint_fix_hints(severity: &Value, quotes: &Value) -> Vec<String> {
    let quotes = quotes.as_object().unwrap();
    let mut out = Vec::new();
    for row in severity["rules"].as_array().unwrap() {
        let fix = row["fix"].as_str().unwrap_or("");
        let patterns: Vec<&str> = row["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let texts: Vec<&str> = quotes
            .iter()
            .filter(|(id, _)| patterns.iter().any(|p| matches_pattern(p, id)))
            .filter_map(|(_, q)| q.get("quote").and_then(Value::as_str))
            .collect();
        for (operand, op) in comparisons(fix) {
            for text in &texts {
                for (o2, op2) in comparisons(text) {
                    if o2 == operand && op2 != op {
                        out.push(format!(
                            "rule {}: the fix says `{operand} {op}`, the requirement text `{operand} {op2}`",
                            row["name"].as_str().unwrap_or("?")
                        ));
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------------------------
// 8. A shared reason describes every case that shares it.

/// The catalogued operations a reason names (`dct.verify`, `json.canonicalize`, …), as whole
/// words.
fn operations_named(reason: &str) -> BTreeSet<&'static str> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    delegateos_vectors::operations::names()
        .into_iter()
        .filter(|op| {
            reason.match_indices(op).any(|(at, _)| {
                let before = reason[..at].chars().next_back();
                let after = reason[at + op.len()..].chars().next();
                !before.is_some_and(|c| word(c) || c == '.') && !after.is_some_and(word)
            })
        })
        .collect()
}

fn lint_shared_reasons_describe(all: &[Case]) -> Vec<String> {
    let mut by: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    for c in all {
        let reason = match &c.ground {
            Ground::Hardening { reason } => Some(reason.as_str()),
            Ground::Decision { reason, .. } => reason.as_deref(),
            _ => None,
        };
        if let Some(r) = reason {
            by.entry(r).or_default().push(c);
        }
    }
    let mut out = Vec::new();
    for (reason, cases) in by {
        let named = operations_named(reason);
        if cases.len() < 2 || named.is_empty() {
            continue;
        }
        for c in cases {
            if !named.contains(c.op.as_str()) {
                out.push(format!(
                    "{}: a {} case shares a reason about {}: {reason:?}",
                    c.id,
                    c.op,
                    named.iter().copied().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// 9. A critical wrong output is one an output member can carry.

fn lint_wrong_output_effects(all: &[Case], severity: &Value) -> Vec<String> {
    let critical: BTreeSet<&str> = severity["effects"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["severity"] == "critical")
        .filter_map(|e| e["name"].as_str())
        .collect();
    let mut carried: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for row in severity["outputs"].as_array().unwrap() {
        if let (Some(op), Some(effect)) = (row["op"].as_str(), row["granted"].as_str()) {
            carried.entry(op).or_default().insert(effect);
        }
    }
    all.iter()
        .filter(|c| {
            c.expect
                .outcomes()
                .iter()
                .any(|o| matches!(o, Expected::Valid { .. }))
        })
        .filter_map(|c| {
            let members = carried.get(c.op.as_str())?;
            let w = c.stake.wrong_output.as_str();
            (critical.contains(w) && w != "crash-or-hang" && !members.contains(w)).then(|| {
                format!(
                    "{}: wrongOutput {w} on a case that can answer `valid`, but no output member \
                     of {} carries it",
                    c.id, c.op
                )
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// 10. A hardening case refuses what it hardens against: one that accepts a refusal and an
// acceptance alike takes no side, so it is a decision (issue 48, session 15: 48 such cases).

fn lint_hardening_takes_a_side(all: &[Case]) -> Vec<String> {
    all.iter()
        .filter(|c| matches!(c.ground, Ground::Hardening { .. }))
        .filter_map(|c| {
            let outcomes = c.expect.outcomes();
            let refuses = outcomes.iter().any(|o| matches!(o, Expected::Invalid { .. }));
            // `{valid: false}` answers a verification with a refusal, not an acceptance.
            let accepts = outcomes.iter().any(|o| {
                matches!(o, Expected::Valid { output } if output.get("valid") != Some(&Value::Bool(false)))
            });
            (refuses && accepts).then(|| {
                format!(
                    "{}: a hardening case that accepts both a refusal and `valid` hardens \
                     nothing: state it as a decision",
                    c.id
                )
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The corpus passes every lint.

#[test]
fn the_corpus_passes_every_lint() {
    let all = cases();
    let spec = upstream("delegateos-protocol-spec-v0.2.txt");
    let architecture = upstream("delegateos-architecture-v0.2.md");
    let mut problems = Vec::new();
    problems.extend(lint_unsigned_is_forgery(&all));
    problems.extend(lint_class_agrees(&all, &audited()));
    problems.extend(lint_decision_agrees(&all));
    problems.extend(lint_reasons_are_sentences(&all));
    problems.extend(lint_quotes_are_not_headings(&all, &spec, &architecture));
    problems.extend(lint_granted_on_valid(&all, &grantable(&all)));
    problems.extend(lint_shared_reasons_describe(&all));
    problems.extend(lint_hardening_takes_a_side(&all));
    problems.extend(lint_wrong_output_effects(
        &all,
        &serde_json::from_str(SEVERITY).unwrap(),
    ));
    problems.extend(lint_fix_hints(
        &serde_json::from_str(SEVERITY).unwrap(),
        &serde_json::from_str(REQUIREMENT_QUOTES).unwrap(),
    ));
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Each lint catches the fault it exists for (planted in a copy of a real case).

#[test]
fn lint_1_catches_an_unsigned_block_stated_as_lenient_input() {
    let all = cases();
    let mut planted = case(&all, "dct-malformed-0004").clone();
    assert!(lint_unsigned_is_forgery(std::slice::from_ref(&planted)).is_empty());
    planted.stake.granted = "lenient-input".to_owned();
    assert_eq!(lint_unsigned_is_forgery(&[planted]).len(), 1);
}

#[test]
fn lint_2_catches_a_class_member_with_another_stake_and_no_reason() {
    let all = cases();
    let class: Vec<Case> = [
        "dct-malformed-0005",
        "dct-malformed-0006",
        "dct-malformed-0008",
    ]
    .iter()
    .map(|id| case(&all, id).clone())
    .collect();
    let none = BTreeSet::new();
    assert!(lint_class_agrees(&class, &none).is_empty());
    let mut planted = class.clone();
    planted[2].stake.granted = "budget-bypass".to_owned();
    assert_eq!(lint_class_agrees(&planted, &none).len(), 1);
    let mut relevel = class.clone();
    relevel[1].level = delegateos_vectors::format::Level::Hardening;
    assert_eq!(lint_class_agrees(&relevel, &none).len(), 1);
    let said = BTreeSet::from(["dct-malformed-0008".to_owned()]);
    assert!(lint_class_agrees(&planted, &said).is_empty());
}

#[test]
fn lint_3_catches_a_ground_naming_another_decision() {
    let all = cases();
    let mut planted = case(&all, "dct-expired-0080").clone();
    assert!(lint_decision_agrees(std::slice::from_ref(&planted)).is_empty());
    if let Ground::Decision { decision, .. } = &mut planted.ground {
        "D5".clone_into(decision);
    }
    assert_eq!(lint_decision_agrees(&[planted]).len(), 1);
}

#[test]
fn lint_4_catches_a_reason_that_ends_mid_sentence() {
    let all = cases();
    let mut planted = case(&all, "dct-malformed-0321").clone();
    assert!(lint_reasons_are_sentences(std::slice::from_ref(&planted)).is_empty());
    planted.ground = Ground::Hardening {
        reason: "D9 (Encodings) is hardening: The spec says the token is base64url of canonical \
                 JSON and gives open TypeScript interfaces;"
            .to_owned(),
    };
    assert_eq!(lint_reasons_are_sentences(&[planted]).len(), 1);
}

#[test]
fn lint_5_catches_a_heading_used_as_a_quote() {
    let all = cases();
    let spec = upstream("delegateos-protocol-spec-v0.2.txt");
    let architecture = upstream("delegateos-architecture-v0.2.md");
    let mut planted = case(&all, "dct-malformed-0004").clone();
    assert!(
        lint_quotes_are_not_headings(std::slice::from_ref(&planted), &spec, &architecture)
            .is_empty()
    );
    planted.ground = Ground::Text {
        source: "spec".to_owned(),
        section: "§9".to_owned(),
        quote: "Message Schemas (JSON-RPC 2.0)".to_owned(),
    };
    assert_eq!(
        lint_quotes_are_not_headings(&[planted.clone()], &spec, &architecture).len(),
        1
    );
    planted.ground = Ground::Text {
        source: "architecture".to_owned(),
        section: "§3.1".to_owned(),
        quote: "In-Process Revocation List".to_owned(),
    };
    assert_eq!(
        lint_quotes_are_not_headings(&[planted], &spec, &architecture).len(),
        1
    );
}

#[test]
fn lint_6_catches_a_granted_effect_no_output_member_can_grant() {
    let all = cases();
    let grantable = grantable(&all);
    let mut planted = case(&all, "dct-valid-0001").clone();
    assert!(lint_granted_on_valid(std::slice::from_ref(&planted), &grantable).is_empty());
    planted.stake.granted = "forgery".to_owned();
    assert_eq!(lint_granted_on_valid(&[planted], &grantable).len(), 1);
    // `matches` can grant whatever a glob case is about: the lint leaves glob.match alone.
    let mut matcher = case(&all, "glob-match-0001").clone();
    matcher.stake.granted = "forgery".to_owned();
    assert!(lint_granted_on_valid(&[matcher], &grantable).is_empty());
}

#[test]
fn lint_7_catches_a_fix_hint_with_the_boundary_off_by_one() {
    let severity: Value = serde_json::from_str(SEVERITY).unwrap();
    let quotes: Value = serde_json::from_str(REQUIREMENT_QUOTES).unwrap();
    assert!(lint_fix_hints(&severity, &quotes).is_empty());
    let mut planted = severity.clone();
    for row in planted["rules"].as_array_mut().unwrap() {
        if row["name"] == "budget" {
            row["fix"] = Value::String(
                "Deny `budget_exceeded` when `spentMicrocents > effective budget`.".to_owned(),
            );
        }
    }
    assert_eq!(lint_fix_hints(&planted, &quotes).len(), 1);
}

#[test]
fn lint_8_catches_a_reason_shared_by_a_case_of_another_operation() {
    let all = cases();
    let reason = Ground::Hardening {
        reason: "The text does not limit nesting, so refusing deep input in `json.canonicalize` \
                 without crashing is safer behaviour."
            .to_owned(),
    };
    let mut planted: Vec<Case> = [
        "primitives-canonicalization-0094",
        "primitives-canonicalization-0095",
    ]
    .iter()
    .map(|id| {
        let mut c = case(&all, id).clone();
        c.ground = reason.clone();
        c
    })
    .collect();
    assert!(lint_shared_reasons_describe(&planted).is_empty());
    // The same reason on a `dct.verify` case it does not describe.
    let mut other = case(&all, "dct-malformed-0335").clone();
    other.ground = reason;
    planted.push(other);
    let problems = lint_shared_reasons_describe(&planted);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("dct-malformed-0335: a dct.verify case"));
}

#[test]
fn lint_9_catches_an_expiry_bypass_stated_for_a_wrong_scope() {
    let all = cases();
    let severity: Value = serde_json::from_str(SEVERITY).unwrap();
    let mut planted = case(&all, "dct-expired-0055").clone();
    assert!(lint_wrong_output_effects(std::slice::from_ref(&planted), &severity).is_empty());
    // What the case stated before the sample of seed 11.
    planted.stake.wrong_output = "expiry-bypass".to_owned();
    assert_eq!(lint_wrong_output_effects(&[planted], &severity).len(), 1);
}

#[test]
fn lint_10_catches_a_hardening_case_that_accepts_both_readings() {
    let all = cases();
    let mut planted = case(&all, "dct-malformed-0300").clone();
    assert!(lint_hardening_takes_a_side(std::slice::from_ref(&planted)).is_empty());
    planted.ground = Ground::Hardening {
        reason: "Refusing an unknown member is ours.".to_owned(),
    };
    planted.level = delegateos_vectors::format::Level::Hardening;
    assert_eq!(lint_hardening_takes_a_side(&[planted]).len(), 1);
}
