//! The table toolkit of the areas: a group list and its builder, the rows of a data table
//! (`areas/data/tables/<name>`), and cases written out as rows. The areas (`areas/`) call it;
//! `areas/mod.rs` is their registry only.

use serde::Deserialize;
use serde_json::Value;

use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::Keys;

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
    let mut table: Value =
        serde_json::from_str(crate::table_data::text_of(name)).unwrap_or_else(|e| fail(&e));
    if let Some(rows) = table.as_array_mut() {
        for row in rows.iter_mut().filter_map(Value::as_object_mut) {
            row.remove("ground");
            row.remove("stake");
        }
    }
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
pub(crate) fn case_rows(g: &mut Group, area: &str, set: &str, name: &str) {
    let prefix = format!("{area}-{}-", set.split('/').next().unwrap_or(set));
    let mut added = 0;
    for row in rows::<CaseRow>(name) {
        if row.set != set {
            continue;
        }
        let number = crate::generate::case_number(name, &prefix, &row.id);
        let reqs: Vec<&str> = row.requirements.iter().map(String::as_str).collect();
        let flags: Vec<&str> = row.flags.iter().map(String::as_str).collect();
        let (desc, op) = (&row.description, &row.op);
        g.case(number, desc, &reqs, &flags, op, row.input, row.expect);
        added += 1;
    }
    assert!(added > 0, "{name}: no rows in set {set}");
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
