//! Code families of `spec/error-codes.md` §11, read from their data file
//! `spec/data/error-codes.json` (the single source: the two §11 tables are generated from it,
//! and the npm and Python judges read the same file). Where the spec defines no distinct codes,
//! an `invalid` expectation naming one code of a family is met by another code of the same
//! family: the judge reports it as "rejected with another code" (hardening level, low
//! severity), never as a wrong verdict.

use std::collections::BTreeMap;

use serde::Deserialize;

/// `spec/data/error-codes.json`, embedded at build time.
pub const DATA: &str = include_str!("../spec/data/error-codes.json");

/// One family with its scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// Family name (`revocation-entry`, `chain`, …).
    pub name: String,
    /// Its codes.
    pub codes: Vec<String>,
    /// Operations it applies to.
    pub ops: Vec<String>,
    /// Stages it applies to (empty: any); `8.2/*` matches every `8.2/…` stage.
    pub stages: Vec<String>,
    /// A flag the case must carry (`only on \`Flag\` cases`), if any.
    pub only_flag: Option<String>,
}

/// One entry of `families` in `spec/data/error-codes.json` (schema: `spec/data/README.md`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FamilyData {
    /// Family name.
    pub name: String,
    /// Its codes.
    pub codes: Vec<String>,
    /// The spec basis (Markdown), shown in the first §11 table.
    pub basis: String,
    /// Operations it applies to.
    pub ops: Vec<String>,
    /// A remark per operation (Markdown), shown after it in the scope table.
    #[serde(default)]
    pub op_notes: BTreeMap<String, String>,
    /// Stages it applies to (empty: any).
    pub stages: Vec<String>,
    /// A remark on the stages (Markdown), shown after them in the scope table.
    #[serde(default)]
    pub stages_note: Option<String>,
    /// A flag the case must carry, if any.
    #[serde(default)]
    pub only_flag: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    families: Vec<FamilyData>,
}

/// Reads an `error-codes.json` text.
pub fn from_json(text: &str) -> Result<Vec<FamilyData>, serde_json::Error> {
    serde_json::from_str::<File>(text).map(|f| f.families)
}

impl From<&FamilyData> for Family {
    fn from(d: &FamilyData) -> Self {
        Self {
            name: d.name.clone(),
            codes: d.codes.clone(),
            ops: d.ops.clone(),
            stages: d.stages.clone(),
            only_flag: d.only_flag.clone(),
        }
    }
}

/// The embedded `spec/data/error-codes.json` (read once).
pub fn data() -> &'static [FamilyData] {
    static DATA_ROWS: std::sync::OnceLock<Vec<FamilyData>> = std::sync::OnceLock::new();
    DATA_ROWS.get_or_init(|| {
        #[allow(clippy::expect_used)]
        from_json(DATA).expect("spec/data/error-codes.json (checked by the families tests)")
    })
}

/// The families of the embedded `spec/data/error-codes.json` (read once).
pub fn all() -> &'static [Family] {
    static ALL: std::sync::OnceLock<Vec<Family>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| data().iter().map(Family::from).collect())
}

/// The two tables of `spec/error-codes.md` §11 as Markdown: `(families, scopes)`.
pub fn markdown_tables(data: &[FamilyData]) -> (String, String) {
    let families = data
        .iter()
        .map(|f| vec![f.name.clone(), f.codes.join(", "), f.basis.clone()])
        .collect::<Vec<_>>();
    let scopes = data
        .iter()
        .map(|f| {
            let ops = f
                .ops
                .iter()
                .map(|op| match f.op_notes.get(op) {
                    Some(note) => format!("{op} ({note})"),
                    None => op.clone(),
                })
                .collect::<Vec<_>>()
                .join(", ");
            let mut stages = f.stages.join(", ");
            if let Some(note) = &f.stages_note {
                stages.push_str(&format!(" ({note})"));
            }
            if let Some(flag) = &f.only_flag {
                if !stages.is_empty() {
                    stages.push_str(", ");
                }
                stages.push_str(&format!("only on `{flag}` cases"));
            }
            if stages.is_empty() {
                stages = "—".to_owned();
            }
            vec![f.name.clone(), ops, stages]
        })
        .collect::<Vec<_>>();
    (
        crate::spec_tables::table(&["family", "codes", "spec basis"], &families),
        crate::spec_tables::table(&["family", "ops", "stages"], &scopes),
    )
}

fn stage_matches(pattern: &str, stage: &str) -> bool {
    match pattern.strip_suffix("/*") {
        Some(prefix) => stage == prefix || stage.starts_with(&format!("{prefix}/")),
        None => stage == pattern,
    }
}

impl Family {
    /// True if this family makes `actual` an acceptable substitute for `expected` in a case
    /// of `op` at `stage` carrying `flags`.
    pub fn covers(
        &self,
        op: &str,
        stage: Option<&str>,
        flags: &[String],
        expected: &str,
        actual: &str,
    ) -> bool {
        let has = |c: &str| self.codes.iter().any(|x| x == c);
        let stage_ok = self.stages.is_empty()
            || stage.is_some_and(|s| self.stages.iter().any(|p| stage_matches(p, s)));
        let flag_ok = self
            .only_flag
            .as_ref()
            .is_none_or(|f| flags.iter().any(|x| x == f));
        expected != actual
            && has(expected)
            && has(actual)
            && self.ops.iter().any(|o| o == op)
            && stage_ok
            && flag_ok
    }
}

/// The family (if any) under which `actual` substitutes for `expected`.
pub fn family_for(
    op: &str,
    stage: Option<&str>,
    flags: &[String],
    expected: &str,
    actual: &str,
) -> Option<&'static Family> {
    all()
        .iter()
        .find(|f| f.covers(op, stage, flags, expected, actual))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_tables_error_codes_md_section_11_is_generated_from_the_data() {
        let data = from_json(DATA).expect("spec/data/error-codes.json");
        let (families, scopes) = markdown_tables(&data);
        let drift: Vec<String> = [("families", families), ("scopes", scopes)]
            .into_iter()
            .filter_map(|(name, table)| {
                let block = format!("error-codes.json#{name}");
                crate::spec_tables::in_step("error-codes.md", &block, &table).err()
            })
            .collect();
        assert!(drift.is_empty(), "{}", drift.join("\n"));
        for f in &data {
            for op in f.op_notes.keys() {
                assert!(
                    f.ops.contains(op),
                    "{}: a note on {op}, not one of its ops",
                    f.name
                );
            }
            for op in &f.ops {
                assert!(
                    crate::operations::is_known(op),
                    "{}: unknown op {op}",
                    f.name
                );
            }
        }
        let mut names: Vec<&str> = data.iter().map(|f| f.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), data.len(), "a family listed twice");
    }

    #[test]
    fn the_section_11_tables_parse_with_scopes() {
        let fams = all();
        let names: Vec<&str> = fams.iter().map(|f| f.name.as_str()).collect();
        for n in [
            "revocation-entry",
            "chain",
            "depth",
            "signature-structure",
            "binding",
            "attestation",
            "contract",
            "output-verification",
            "json-text",
            "jsonrpc",
        ] {
            assert!(names.contains(&n), "{n} missing: {names:?}");
        }
        for f in fams {
            assert!(!f.codes.is_empty(), "{}: no codes", f.name);
            assert!(!f.ops.is_empty(), "{}: no ops (scope table row)", f.name);
        }
        let chain = fams.iter().find(|f| f.name == "chain").expect("chain");
        assert!(chain.covers(
            "chain.verify",
            Some("8.2/3"),
            &[],
            "from_mismatch",
            "root_invalid"
        ));
        assert!(!chain.covers(
            "dct.verify",
            Some("8.2/3"),
            &[],
            "from_mismatch",
            "root_invalid"
        ));
        let sig = fams
            .iter()
            .find(|f| f.name == "signature-structure")
            .expect("sig");
        assert_eq!(sig.only_flag.as_deref(), Some("SignatureStructure"));
        let depth = fams.iter().find(|f| f.name == "depth").expect("depth");
        assert!(depth.covers(
            "dct.verify",
            Some("10.1/4e"),
            &[],
            "chain_depth_exceeded",
            "attenuation_violation"
        ));
        assert!(!depth.covers(
            "dct.verify",
            Some("10.1/4b"),
            &[],
            "attenuation_violation",
            "chain_depth_exceeded"
        ));
        assert!(family_for("dct.verify", Some("10.1/2"), &[], "revoked", "expired").is_none());
    }
}
