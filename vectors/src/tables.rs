//! The table toolkit of the areas: a group list and its builder, the rows of a data table
//! (`areas/data/tables/<name>`), and cases written out as rows. The areas (`areas/`) call it;
//! `areas/mod.rs` is their registry only.

use serde::Deserialize;
use serde_json::Value;

use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::Keys;

/// Every data table of the areas, `areas/data/tables/<name>`, by name.
#[rustfmt::skip]
pub(crate) const TABLES: &[(&str, &str)] = &[
    ("attestation_output_hash.json", include_str!("areas/data/tables/attestation_output_hash.json")),
    ("attestation_verify.json", include_str!("areas/data/tables/attestation_verify.json")),
    ("binding_spec.json", include_str!("areas/data/tables/binding_spec.json")),
    ("chain.json", include_str!("areas/data/tables/chain.json")),
    ("checks.json", include_str!("areas/data/tables/checks.json")),
    ("contract.json", include_str!("areas/data/tables/contract.json")),
    ("contract_binding.json", include_str!("areas/data/tables/contract_binding.json")),
    ("dct_decode.json", include_str!("areas/data/tables/dct_decode.json")),
    ("dct_effects.json", include_str!("areas/data/tables/dct_effects.json")),
    ("dct_forged.json", include_str!("areas/data/tables/dct_forged.json")),
    ("dct_issue.json", include_str!("areas/data/tables/dct_issue.json")),
    ("dct_malformed.json", include_str!("areas/data/tables/dct_malformed.json")),
    ("dct_revoked.json", include_str!("areas/data/tables/dct_revoked.json")),
    ("dct_verify.json", include_str!("areas/data/tables/dct_verify.json")),
    ("glob.json", include_str!("areas/data/tables/glob.json")),
    ("jsonrpc.json", include_str!("areas/data/tables/jsonrpc.json")),
    ("primitives.json", include_str!("areas/data/tables/primitives.json")),
    ("revocation.json", include_str!("areas/data/tables/revocation.json")),
    ("stateful.json", include_str!("areas/data/tables/stateful.json")),
];

/// The text of table `name`; a name that is no table is a bug in the generator.
#[allow(clippy::panic)]
fn text_of(name: &str) -> &'static str {
    TABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("vectors/src/areas/data/tables/{name}: no such table"))
}

/// Requirement ids or flag names as a table cell.
pub(crate) type Ids = &'static [&'static str];

/// A group of an area: (name, description, the function that adds its cases).
pub(crate) type GroupDef = (&'static str, &'static str, fn(&mut Group, &Keys));

/// Adds `groups` to `area`, in order.
pub(crate) fn build_groups(area: &mut Area, groups: &[GroupDef]) {
    let keys = area.keys().clone();
    for &(name, description, build) in groups {
        build(area.group(name, description), &keys);
    }
}

/// The rows of a data table, `areas/data/tables/<name>`: a JSON array with one object per
/// case, read into the table's row type. A row names a published key as the descriptions do,
/// `{"key": "carol"}`: such an object (that one member alone) is read as the key's principal
/// id. A row's `ground` and `stake` (the case's facts, [`row_facts`]) are read by
/// `crate::grounds`, not by the row type. The generator's own data, so a malformed table is a
/// generator bug: it panics with the table's name (every table is read by the generator's
/// tests and `vectors check`).
#[allow(clippy::panic)]
pub(crate) fn rows<T: serde::de::DeserializeOwned>(name: &str) -> Vec<T> {
    let fail =
        |e: &dyn std::fmt::Display| -> ! { panic!("vectors/src/areas/data/tables/{name}: {e}") };
    let mut table: Value = serde_json::from_str(text_of(name)).unwrap_or_else(|e| fail(&e));
    if let Some(rows) = table.as_array_mut() {
        for row in rows.iter_mut().filter_map(Value::as_object_mut) {
            row.remove("ground");
            row.remove("stake");
        }
    }
    principals(&mut table, &Keys::fixed()).unwrap_or_else(|e| fail(&e));
    serde_json::from_value(table).unwrap_or_else(|e| fail(&e))
}

/// The facts the rows of every table state about their cases: (table, case id, the case's
/// entry — its `ground` members with its `stake` as `stake`), for `crate::grounds` (issue 48:
/// a case's ground and stake live in its row). A table that does not parse states none here
/// (its rows report it).
pub(crate) fn row_facts() -> Vec<(&'static str, String, Value)> {
    let mut out = Vec::new();
    for (name, text) in TABLES {
        let Ok(Value::Array(rows)) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        for row in rows {
            let (Some(id), Some(ground)) =
                (row.get("id").and_then(Value::as_str), row.get("ground"))
            else {
                continue;
            };
            let mut entry = ground.clone();
            if let (Some(m), Some(stake)) = (entry.as_object_mut(), row.get("stake")) {
                m.insert("stake".to_owned(), stake.clone());
            }
            out.push((*name, id.to_owned(), entry));
        }
    }
    out
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
pub(crate) fn case_rows(g: &mut Group, area: &str, set: &str, name: &str) {
    let prefix = format!("{area}-{}-", set.split('/').next().unwrap_or(set));
    let mut added = 0;
    for row in rows::<CaseRow>(name) {
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
pub(crate) fn case_number(table: &str, prefix: &str, id: &str) -> u16 {
    let number = id.strip_prefix(prefix).and_then(|n| n.parse().ok());
    number.unwrap_or_else(|| panic!("{table}: {id} is no case of {prefix}"))
}

/// A group whose cases need no keys: (name, description, the function that adds its cases).
pub(crate) type PlainGroupDef = (&'static str, &'static str, fn(&mut Group));

/// Adds `groups` to `area`, in order.
pub(crate) fn build_plain_groups(area: &mut Area, groups: &[PlainGroupDef]) {
    for &(name, description, build) in groups {
        build(area.group(name, description));
    }
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
