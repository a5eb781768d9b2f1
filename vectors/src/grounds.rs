//! Ground and stake of every case, as data (issue 36).
//!
//! A case says what its expected outcome rests on ([`Ground`]) and what each failing
//! direction lets an attacker do ([`Stake`]); its level is read from the ground. Nothing here
//! infers either from a case's requirements, flags or description: the generator copies them
//! from the data files below into each case.
//!
//! - `spec/grounds/requirement-quotes.json`: for each requirement id, the verbatim words of the
//!   upstream protocol spec or architecture document (`spec/upstream/`) it restates, or `null`
//!   where the text does not decide it. A normative case names the requirement whose quote
//!   decides it (`"requirement"`) or carries its own `"quote"`.
//! - a case written as a row of a table (`vectors/src/areas/data/tables/`) states them in its
//!   row, as the members `ground` (the entry below without its stake) and `stake`;
//! - `vectors/src/areas/data/grounds/<area>.json`: the current state of every other case of
//!   the area (those built in Rust), one entry per case id and the only statement of it (issue 48: the baseline of issue
//!   36 and the re-level files of its audits and of the census were folded into these) —
//!   `level`, and for `normative` a `requirement` or `quote`, for `decision` the `decision`
//!   (with `also`: the outcomes other reasonable readings give, added to the expectation; or a
//!   `reason` why the text admits one), for `hardening` the `reason`; a `stake` where it
//!   differs from its group's; `audit`, the reviewers' notes (one or a list, not copied into
//!   the case). Each file also has `stakes`: the stake of each `<area>/<group>` of the area.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::format::{Case, Expectation, Expected, Ground, Level, Stake};

/// The requirement quotes.
const REQUIREMENT_QUOTES: &str = include_str!("../spec/grounds/requirement-quotes.json");

/// The case files, one per area: each case and each group is stated in exactly one.
const CASE_FILES: &[(&str, &str)] = &[
    (
        "advisory.json",
        include_str!("areas/data/grounds/advisory.json"),
    ),
    (
        "attestation.json",
        include_str!("areas/data/grounds/attestation.json"),
    ),
    ("chain.json", include_str!("areas/data/grounds/chain.json")),
    (
        "checks.json",
        include_str!("areas/data/grounds/checks.json"),
    ),
    (
        "companions.json",
        include_str!("areas/data/grounds/companions.json"),
    ),
    (
        "contract.json",
        include_str!("areas/data/grounds/contract.json"),
    ),
    ("dct.json", include_str!("areas/data/grounds/dct.json")),
    ("glob.json", include_str!("areas/data/grounds/glob.json")),
    (
        "jsonrpc.json",
        include_str!("areas/data/grounds/jsonrpc.json"),
    ),
    ("mcp.json", include_str!("areas/data/grounds/mcp.json")),
    (
        "primitives.json",
        include_str!("areas/data/grounds/primitives.json"),
    ),
    (
        "revocation.json",
        include_str!("areas/data/grounds/revocation.json"),
    ),
    (
        "stateful.json",
        include_str!("areas/data/grounds/stateful.json"),
    ),
];

/// A quote of the upstream text.
#[derive(Debug, Clone, Deserialize)]
pub struct Quote {
    /// `spec` or `architecture`.
    pub source: String,
    /// Where in the document.
    pub section: String,
    /// The words.
    pub quote: String,
}

/// A partial stake (the directions where a case differs from its group).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PartialStake {
    granted: Option<String>,
    refused: Option<String>,
    wrong_output: Option<String>,
    crash_or_hang: Option<String>,
}

impl PartialStake {
    fn over(&self, base: &Stake) -> Stake {
        Stake {
            granted: self.granted.clone().unwrap_or_else(|| base.granted.clone()),
            refused: self.refused.clone().unwrap_or_else(|| base.refused.clone()),
            wrong_output: self
                .wrong_output
                .clone()
                .unwrap_or_else(|| base.wrong_output.clone()),
            crash_or_hang: self
                .crash_or_hang
                .clone()
                .unwrap_or_else(|| base.crash_or_hang.clone()),
        }
    }
}

/// One case's entry in its area's file: the case's current ground and stake.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    level: Level,
    #[serde(default)]
    requirement: Option<String>,
    #[serde(default)]
    quote: Option<Quote>,
    #[serde(default)]
    decision: Option<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    also: Vec<Expected>,
    #[serde(default)]
    stake: Option<PartialStake>,
    /// The clause that decides the case where its cited requirements name none (issue 27's
    /// level rule), appended to its description as ` (<clause>)`.
    #[serde(default)]
    clause: Option<String>,
    /// Outcomes another reading gives, each added with its decision and flag before the
    /// audit's rules over inputs and before `also` (the amendments of `spec/audit-v0.2.md`
    /// §2 and issue 27, stated with the case instead of listed by id or inferred from its
    /// description in `audit.rs`).
    #[serde(default)]
    amend: Vec<Amendment>,
    /// The reviewers' notes, one or a list (not copied into the case).
    #[serde(default)]
    #[allow(dead_code)]
    audit: Option<Value>,
}

/// An outcome another reading gives, with the decision and the flag that name it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Amendment {
    decision: String,
    flag: String,
    outcome: Expected,
}

/// Adds `extra` to the case's outcomes (making it `acceptable` under `decision` unless it
/// already is), with `flag` (nothing if the case already allows it).
fn add_outcome(case: &mut Case, decision: &str, flag: &str, extra: &Expected) {
    let mut outcomes = case.expect.outcomes();
    if outcomes.contains(extra) {
        return;
    }
    outcomes.push(extra.clone());
    let decision = match &case.expect {
        Expectation::Acceptable { decision, .. } => decision.clone(),
        _ => decision.to_owned(),
    };
    case.expect = Expectation::Acceptable { outcomes, decision };
    if !case.flags.iter().any(|f| f == flag) {
        case.flags.push(flag.to_owned());
    }
}

/// One area's file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    #[serde(default)]
    stakes: BTreeMap<String, Stake>,
    #[serde(default)]
    cases: BTreeMap<String, Entry>,
}

/// Every statement, parsed once.
struct Data {
    quotes: BTreeMap<String, Option<Quote>>,
    stakes: BTreeMap<String, Stake>,
    /// Per case: its file and its entry.
    entries: BTreeMap<String, (&'static str, Entry)>,
    errors: Vec<String>,
}

fn data() -> &'static Data {
    static DATA: std::sync::OnceLock<Data> = std::sync::OnceLock::new();
    DATA.get_or_init(|| {
        let mut errors = Vec::new();
        let quotes = serde_json::from_str(REQUIREMENT_QUOTES).unwrap_or_else(|e| {
            errors.push(format!("spec/grounds/requirement-quotes.json: {e}"));
            BTreeMap::new()
        });
        let mut stakes = BTreeMap::new();
        let mut entries: BTreeMap<String, (&'static str, Entry)> = BTreeMap::new();
        for (name, text) in CASE_FILES {
            match serde_json::from_str::<CaseFile>(text) {
                Ok(file) => {
                    for (group, stake) in file.stakes {
                        if stakes.insert(group.clone(), stake).is_some() {
                            errors.push(format!("{name}: group {group} is stated twice"));
                        }
                    }
                    for (id, entry) in file.cases {
                        if let Some((other, _)) = entries.insert(id.clone(), (*name, entry)) {
                            errors.push(format!("{id}: stated in {other} and {name}"));
                        }
                    }
                }
                Err(e) => errors.push(format!("vectors/src/areas/data/grounds/{name}: {e}")),
            }
        }
        // The cases written as table rows state their facts in the row (issue 48).
        for (table, id, entry) in crate::table_data::row_facts() {
            match serde_json::from_value::<Entry>(entry) {
                Ok(entry) => {
                    if let Some((other, _)) = entries.insert(id.clone(), (table, entry)) {
                        errors.push(format!("{id}: stated in {other} and in its row of {table}"));
                    }
                }
                Err(e) => errors.push(format!(
                    "vectors/src/areas/data/tables/{table}: {id}: ground or stake: {e}"
                )),
            }
        }
        Data {
            quotes,
            stakes,
            entries,
            errors,
        }
    })
}

/// Problems with the data files themselves (a file that does not parse).
pub fn data_errors() -> Vec<String> {
    data().errors.clone()
}

/// Every case id the data files name (the driver reports ids that name no case).
pub fn listed_ids() -> Vec<String> {
    data().entries.keys().cloned().collect()
}

/// The quote of a requirement, if the text decides it.
pub fn requirement_quote(id: &str) -> Option<&'static Quote> {
    data().quotes.get(id).and_then(Option::as_ref)
}

/// Adds the outcomes the case's entry lists in `amend` (each with its decision and flag),
/// in order. The generator calls it before the audit's rules over inputs (`crate::audit`)
/// and [`apply`].
pub fn amend(case: &mut Case) {
    if let Some((_, entry)) = data().entries.get(&case.id) {
        for a in &entry.amend {
            add_outcome(case, &a.decision, &a.flag, &a.outcome);
        }
    }
}

/// Sets `case.ground`, `case.stake` and `case.level` from the data files, adds the outcomes
/// other readings give (`also`) to its expectation, and names its `clause` in its
/// description. `group` is `<area>/<group>`.
pub fn apply(case: &mut Case, group: &str) -> Result<(), String> {
    let d = data();
    let Some((file, entry)) = d.entries.get(&case.id) else {
        return Err(format!(
            "{}: no ground (state it in the case's table row, or for a case built in Rust in \
             vectors/src/areas/data/grounds/<area>.json)",
            case.id
        ));
    };
    let Some(base) = d.stakes.get(group) else {
        return Err(format!(
            "{}: group {group} has no stake in vectors/src/areas/data/grounds/",
            case.id
        ));
    };
    let stake = entry
        .stake
        .as_ref()
        .map_or_else(|| base.clone(), |s| s.over(base));
    if let Some(clause) = &entry.clause {
        case.description = format!("{} ({clause})", case.description);
    }
    let ground = ground_of(&case.id, file, entry)?;
    let also = entry.also.clone();
    if !also.is_empty() {
        let Ground::Decision { decision, .. } = &ground else {
            return Err(format!(
                "{}: `also` outcomes need a decision ground",
                case.id
            ));
        };
        let mut outcomes = case.expect.outcomes();
        for o in also {
            if !outcomes.contains(&o) {
                outcomes.push(o);
            }
        }
        let decision = match &case.expect {
            Expectation::Acceptable { decision, .. } => decision.clone(),
            _ => decision.clone(),
        };
        case.expect = Expectation::Acceptable { outcomes, decision };
    }
    case.level = ground.level();
    case.ground = ground;
    case.stake = stake;
    Ok(())
}

fn ground_of(id: &str, file: &str, e: &Entry) -> Result<Ground, String> {
    let level = e.level;
    let missing = |what: &str| format!("{id} ({file}): a {} ground needs {what}", level.as_str());
    Ok(match level {
        Level::Normative => {
            let q = match (&e.quote, &e.requirement) {
                (Some(q), _) => q.clone(),
                (None, Some(r)) => requirement_quote(r)
                    .cloned()
                    .ok_or_else(|| format!("{id} ({file}): requirement {r} has no quote"))?,
                (None, None) => return Err(missing("a `quote` or a quoted `requirement`")),
            };
            Ground::Text {
                source: q.source,
                section: q.section,
                quote: q.quote,
            }
        }
        Level::Decision => Ground::Decision {
            decision: e.decision.clone().ok_or_else(|| missing("a `decision`"))?,
            reason: e.reason.clone(),
        },
        Level::Hardening => Ground::Hardening {
            reason: e.reason.clone().ok_or_else(|| missing("a `reason`"))?,
        },
    })
}
