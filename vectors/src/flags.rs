//! Every flag a case may carry, with its note (copied into each file's `notes`).
//!
//! A flag names *why* a case exists or why it is `acceptable`: the decision it pins, or the
//! class of bug it catches. Each flag is one record of `spec/data/flags.json`: its decision,
//! level, severity and reason (the "Flag index" of `spec/decisions.md`), its effects and fix
//! (`spec/severity.md` §5) and its note; only the advisory flags have none there: their notes
//! derive from the profile rules (`areas/advisory.rs`, `Group::define_flag`).

use crate::format::{Level, Note, Severity};

/// `spec/decisions.md`, embedded (its prose: the decisions the cases cite).
pub const DECISIONS: &str = include_str!("../spec/decisions.md");

/// `spec/data/flags.json`, embedded: the single source of every flag's facts (read by
/// [`index`]; the "Flag index" table of `spec/decisions.md` and the flags table of
/// `spec/severity.md` are generated from it).
pub const INDEX_DATA: &str = include_str!("../spec/data/flags.json");

/// One flag's record in `spec/data/flags.json`: its row of the "Flag index" table of
/// `spec/decisions.md`, its effect columns of `spec/severity.md` §5 and the note every vector
/// file carrying it copies (none for an advisory flag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexRow {
    /// Flag name.
    pub flag: String,
    /// Decision (`D3`), clause (`§10.2`) or `neighbours`.
    pub decision: String,
    /// Level of a case carrying the flag (unless the audit overrides the case).
    pub level: Level,
    /// Severity of a failure on such a case.
    pub severity: Severity,
    /// Why.
    pub reason: String,
    /// Effect of a granted failure: none for the direction's default, `(rule)` when the flag
    /// keys the finding and the rules give the effect, else an effect name.
    pub granted: Option<String>,
    /// Effect of a refused failure (as `granted`).
    pub refused: Option<String>,
    /// Effect of a wrong output (as `granted`).
    pub wrong_output: Option<String>,
    /// How to fix it; none when the rules' hint applies.
    pub fix: Option<String>,
    /// The flag's note; none for an advisory flag, whose note its group derives from the
    /// profile rules (`Group::define_flag`).
    pub note: Option<FlagNote>,
}

/// The note columns of a shared flag (a vector file's `notes` add its level and severity).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FlagNote {
    /// The bug class (`SCOPE_WIDENING`).
    pub bug_type: String,
    /// The clause or decision.
    pub clause: String,
    /// What a case carrying it checks.
    pub description: String,
    /// What an implementation failing it lets happen.
    pub effect: String,
}

/// One entry of `flags` in `spec/data/flags.json` (schema: `spec/data/README.md`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RowData {
    flag: String,
    decision: String,
    level: String,
    severity: String,
    reason: String,
    granted: Option<String>,
    refused: Option<String>,
    wrong_output: Option<String>,
    fix: Option<String>,
    note: Option<FlagNote>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexFile {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    flags: Vec<RowData>,
}

/// Reads a `flags.json` text. Rows that do not read (a bad level or severity) and a file that
/// does not parse are returned as errors, one line each, so a typo cannot go unnoticed.
pub fn index_from_json(text: &str) -> (Vec<IndexRow>, Vec<String>) {
    let file: IndexFile = match serde_json::from_str(text) {
        Ok(f) => f,
        Err(e) => return (Vec::new(), vec![format!("flags.json: {e}")]),
    };
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for r in file.flags {
        match (Level::parse(&r.level), Severity::parse(&r.severity)) {
            (Some(level), Some(severity)) => rows.push(IndexRow {
                flag: r.flag,
                decision: r.decision,
                level,
                severity,
                reason: r.reason,
                granted: r.granted,
                refused: r.refused,
                wrong_output: r.wrong_output,
                fix: r.fix,
                note: r.note,
            }),
            _ => errors.push(format!(
                "flag index row {:?}: bad level or severity",
                r.flag
            )),
        }
    }
    (rows, errors)
}

/// The "Flag index" table of `spec/decisions.md` as Markdown.
pub fn index_markdown(rows: &[IndexRow]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.flag.clone(),
                r.decision.clone(),
                r.level.as_str().to_owned(),
                r.severity.as_str().to_owned(),
                r.reason.clone(),
            ]
        })
        .collect();
    crate::spec_tables::table(&["flag", "decision", "level", "severity", "reason"], &rows)
}

/// The flag index of the embedded `spec/data/flags.json` (read once).
pub fn index() -> &'static [IndexRow] {
    static INDEX: std::sync::OnceLock<Vec<IndexRow>> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| index_from_json(INDEX_DATA).0)
}

/// The index row of `flag`, if the table lists it.
pub fn index_row(flag: &str) -> Option<IndexRow> {
    index().iter().find(|r| r.flag == flag).cloned()
}

/// The note of a known flag (its level and severity from its record; `None` if the flag is
/// unknown or an advisory flag, whose group defines it).
pub fn note(flag: &str) -> Option<Note> {
    let row = index().iter().find(|r| r.flag == flag)?;
    row.note.as_ref().map(|n| Note {
        bug_type: n.bug_type.clone(),
        description: n.description.clone(),
        clause: n.clause.clone(),
        effect: n.effect.clone(),
        level: row.level,
        severity: row.severity,
    })
}

/// Every shared flag's name (the flags with a note), in table order.
pub fn names() -> impl Iterator<Item = &'static str> {
    index()
        .iter()
        .filter(|r| r.note.is_some())
        .map(|r| r.flag.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_tables_decisions_md_flag_index_is_generated_from_the_data() {
        let (rows, errors) = index_from_json(INDEX_DATA);
        assert!(errors.is_empty(), "{errors:?}");
        let r =
            crate::spec_tables::in_step("decisions.md", "flags.json#index", &index_markdown(&rows));
        if let Err(e) = r {
            panic!("{e}");
        }
        let bad = INDEX_DATA.replacen("\"critical\"", "\"fatal\"", 1);
        assert_eq!(
            index_from_json(&bad).1.len(),
            1,
            "a bad severity is reported"
        );
        assert!(!index_from_json("{\"flags\": [{}]}").1.is_empty());
    }

    /// A flag's note is in its record (issue 50: a case's facts in one place); only the
    /// advisory flags, whose notes derive from the profile rules, have none there.
    #[test]
    fn every_flag_but_the_advisory_ones_has_its_note_in_its_record() {
        let (rows, _) = index_from_json(INDEX_DATA);
        let missing: Vec<&str> = rows
            .iter()
            .filter(|r| r.note.is_none() && r.decision != "neighbours")
            .map(|r| r.flag.as_str())
            .collect();
        assert!(missing.is_empty(), "flags without a note: {missing:?}");
        assert!(rows
            .iter()
            .any(|r| r.note.is_none() && r.decision == "neighbours"));
    }

    #[test]
    fn the_flag_index_parses_and_lists_every_shared_flag() {
        let (rows, errors) = index_from_json(INDEX_DATA);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(rows.len() >= names().count());
        for name in names() {
            assert!(
                rows.iter().any(|r| r.flag == name),
                "flag {name} has no row in spec/decisions.md's Flag index"
            );
            assert!(note(name).is_some(), "{name}");
        }
        let mut seen = std::collections::BTreeSet::new();
        for r in &rows {
            assert!(seen.insert(r.flag.as_str()), "flag {} listed twice", r.flag);
        }
    }

    #[test]
    fn index_cells_are_read_as_written() {
        let row = index_row("ScopeWidening").expect("row");
        assert_eq!(
            (row.level, row.severity),
            (Level::Normative, Severity::Critical)
        );
        let row = index_row("GlobHostile").expect("row");
        assert_eq!(
            (row.level, row.severity),
            (Level::Hardening, Severity::Critical)
        );
    }
}
