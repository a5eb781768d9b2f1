//! The data tables of the areas (`areas/data/tables/<name>`), embedded once, and the facts
//! (ground and stake) their rows state about their cases: a leaf, read by the table toolkit
//! (`crate::tables`) and by `crate::grounds`.

use serde_json::Value;

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
pub(crate) fn text_of(name: &str) -> &'static str {
    TABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        .unwrap_or_else(|| panic!("vectors/src/areas/data/tables/{name}: no such table"))
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
