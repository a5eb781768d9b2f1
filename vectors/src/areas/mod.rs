//! Area generators, one file each. To add an area: write `areas/<name>.rs` with
//! `pub fn build(area: &mut Area)` and add one line to [`AREAS`].

use serde::Deserialize;
use serde_json::Value;

use super::format::Expectation;
use super::generate::{Area, AreaDef, Group};
use super::keys::Keys;

pub mod advisory;
pub mod attestation;
pub mod binding_spec;
pub mod chain;
pub mod chain_store;
pub mod checks;
pub mod companions;
pub mod contract;
pub mod dct;
pub mod dct_attacks;
pub mod dct_redteam;
pub mod dct_redteam_py;
pub mod dct_support;
pub mod glob;
pub mod glob_redteam;
pub mod jsonrpc;
pub mod mcp;
pub mod mcp_session;
pub mod primitives;
pub mod primitives_redteam;
pub mod revocation;
pub mod signature_keys;
pub mod stateful;

/// Every area the generator builds, in output order.
#[rustfmt::skip]
pub const AREAS: &[AreaDef] = &[
    AreaDef { name: "glob", build: glob::build },
    AreaDef { name: "dct", build: dct::build },
    AreaDef { name: "primitives", build: primitives::build },
    AreaDef { name: "revocation", build: revocation::build },
    AreaDef { name: "chain", build: chain_area },
    AreaDef { name: "jsonrpc", build: jsonrpc::build },
    AreaDef { name: "contract", build: contract_area },
    AreaDef { name: "checks", build: checks::build },
    AreaDef { name: "attestation", build: attestation_area },
    AreaDef { name: "advisory", build: advisory::build },
    AreaDef { name: "mcp", build: mcp_area },
    AreaDef { name: "companions", build: companions::build },
    AreaDef { name: "stateful", build: stateful::build },
];

/// Requirement ids or flag names as a table cell.
type Ids = &'static [&'static str];

/// A group of an area: (name, description, the function that adds its cases).
pub(super) type GroupDef = (&'static str, &'static str, fn(&mut Group, &Keys));

/// Adds `groups` to `area`, in order.
pub(super) fn build_groups(area: &mut Area, groups: &[GroupDef]) {
    let keys = area.keys().clone();
    for &(name, description, build) in groups {
        build(area.group(name, description), &keys);
    }
}

/// The rows of a data table, `areas/data/tables/<name>` (embedded with `include_str!`): a
/// JSON array with one object per case, read into the table's row type. A row names a
/// published key as the descriptions do, `{"key": "carol"}`: such an object (that one member
/// alone) is read as the key's principal id. The generator's own data, so a malformed table
/// is a generator bug: it panics with the table's name (every table is read by the
/// generator's tests and `vectors check`).
#[allow(clippy::panic)]
pub(super) fn rows<T: serde::de::DeserializeOwned>(name: &str, text: &str) -> Vec<T> {
    let fail =
        |e: &dyn std::fmt::Display| -> ! { panic!("vectors/src/areas/data/tables/{name}: {e}") };
    let mut table: Value = serde_json::from_str(text).unwrap_or_else(|e| fail(&e));
    principals(&mut table, &Keys::fixed()).unwrap_or_else(|e| fail(&e));
    serde_json::from_value(table).unwrap_or_else(|e| fail(&e))
}

/// Replaces every `{"key": NAME}` in `v` by the principal id of the published key NAME.
fn principals(v: &mut Value, keys: &Keys) -> Result<(), String> {
    match v {
        Value::Object(m) if m.len() == 1 && m.get("key").is_some_and(Value::is_string) => {
            let name = m["key"].as_str().unwrap_or_default().to_owned();
            let key = keys.all().into_iter().find(|k| k.name == name);
            *v = Value::String(
                key.ok_or(format!("no published key {name:?}"))?
                    .principal
                    .clone(),
            );
            Ok(())
        }
        Value::Object(m) => m.values_mut().try_for_each(|x| principals(x, keys)),
        Value::Array(a) => a.iter_mut().try_for_each(|x| principals(x, keys)),
        _ => Ok(()),
    }
}
/// A case written out as data: one row of a table in `areas/data/tables/` (one object per
/// line), with the case's id, description, requirement ids, flags, operation, input and
/// expectation exactly as the corpus states them. `set` names the part of the generator that
/// adds the row: a set's rows are added together, in table order, between the cases that
/// are built in Rust.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseRow {
    id: String,
    set: String,
    description: String,
    requirements: Vec<String>,
    flags: Vec<String>,
    op: String,
    input: Value,
    expect: Expectation,
}

/// Adds the rows of `set` (`<group>/<part>` or `<group>`) of table `name` (text `text`) to `g`,
/// a group of `area`. Every row's id must be `<area>-<group>-<NNNN>`.
#[allow(clippy::panic)]
pub(super) fn case_rows(g: &mut Group, area: &str, set: &str, name: &str, text: &str) {
    let prefix = format!("{area}-{}-", set.split('/').next().unwrap_or(set));
    let mut added = 0;
    for row in rows::<CaseRow>(name, text) {
        if row.set != set {
            continue;
        }
        let number = case_number(name, &prefix, &row.id);
        let reqs: Vec<&str> = row.requirements.iter().map(String::as_str).collect();
        let flags: Vec<&str> = row.flags.iter().map(String::as_str).collect();
        let (desc, op) = (&row.description, &row.op);
        g.case(number, desc, &reqs, &flags, op, row.input, row.expect);
        added += 1;
    }
    assert!(added > 0, "{name}: no rows in set {set}");
}

/// The number of case `id` of table `table`, whose ids all start with `prefix`
/// (`<area>-<group>-`); an id that does not is a bug in the table.
#[allow(clippy::panic)]
pub(super) fn case_number(table: &str, prefix: &str, id: &str) -> u16 {
    let number = id.strip_prefix(prefix).and_then(|n| n.parse().ok());
    number.unwrap_or_else(|| panic!("{table}: {id} is no case of {prefix}"))
}

/// A group whose cases need no keys: (name, description, the function that adds its cases).
pub(super) type PlainGroupDef = (&'static str, &'static str, fn(&mut Group));

/// Adds `groups` to `area`, in order.
pub(super) fn build_plain_groups(area: &mut Area, groups: &[PlainGroupDef]) {
    for &(name, description, build) in groups {
        build(area.group(name, description));
    }
}

/// The chain area: ordered-list verification, then the same chains from a store (any order).
fn chain_area(area: &mut Area) {
    chain::build(area);
    chain_store::build(area);
}

/// The contract area: contract groups, keyed signature verification, binding as §5.2 states it.
fn contract_area(area: &mut Area) {
    contract::build(area);
    signature_keys::contract(area);
    binding_spec::build(area);
}

/// The mcp area: the plugin's one-message decisions (`mcp.rs`), then the session scripts
/// (`mcp_session.rs`, which builds on the decisions' helpers).
fn mcp_area(area: &mut Area) {
    mcp::build(area);
    let keys = area.keys().clone();
    mcp_session::build(
        area.group(
            "session",
            "mcp.session: ordered scripts of client and upstream messages — interleaved and \
             out-of-order responses, notifications, server requests, cancellation — with what the \
             client receives, what reaches the upstream and the spend per delegation after each \
             step (spec/mcp-proxy.md §6.1; the proxy suite runs the same scripts, §6.2).",
        ),
        &keys,
    );
}

/// The attestation area: attestation groups, then keyed signature verification.
fn attestation_area(area: &mut Area) {
    attestation::build(area);
    signature_keys::attestation(area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_row_names_a_published_key_by_name() {
        let keys = Keys::fixed();
        let mut v = json!([{"from": {"key": "carol"}, "to": [{"key": "root"}]}, {"key": "x", "suffix": "="}]);
        principals(&mut v, &keys).expect("known keys");
        assert_eq!(v[0]["from"], json!(keys.carol.principal));
        assert_eq!(v[0]["to"][0], json!(keys.root.principal));
        assert_eq!(
            v[1],
            json!({"key": "x", "suffix": "="}),
            "only a lone `key` member is a name"
        );
        let mut typo = json!({"key": "carl"});
        assert_eq!(
            principals(&mut typo, &keys),
            Err("no published key \"carl\"".to_owned())
        );
    }
}
