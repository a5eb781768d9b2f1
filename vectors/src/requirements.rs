//! Requirement ids and their spec sections, read from `spec/data/requirements.json` (schema:
//! `spec/data/README.md`), the single source of the requirements: the lists of
//! `spec/requirements.md` are generated from it ([`Requirements::markdown_lists`], checked by
//! `spec_tables_requirements_md_is_generated_from_the_data`). This module gives
//! id → (section, level, text) so reports can group results by section and measure coverage;
//! it does not judge the prose.

use std::path::Path;

/// One requirement.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Requirement {
    /// Stable id, e.g. `DCT-VERIFY-2-REVOKED-BLOCK`.
    pub id: String,
    /// RFC 2119 level (`MUST`, `SHOULD`, …), empty if absent.
    pub level: String,
    /// Section label, e.g. `§10`.
    pub section: String,
    /// Section title, e.g. `Verification`.
    pub section_title: String,
    /// Requirement text.
    pub text: String,
}

/// All requirements of the spec, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requirements {
    /// Requirements in file order.
    pub list: Vec<Requirement>,
    /// Where they were read from (for messages).
    pub source: String,
}

/// The requirements this harness was built with (`spec/data/requirements.json`), so an
/// installed binary needs no source tree.
pub const EMBEDDED: &str = include_str!("../spec/data/requirements.json");

/// The Markdown document whose lists are generated from [`EMBEDDED`] (its prose, for tests).
#[cfg(test)]
const MARKDOWN: &str = include_str!("../spec/requirements.md");

/// One requirement of `spec/data/requirements.json`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RequirementData {
    id: String,
    level: String,
    text: String,
}

/// One section of `spec/data/requirements.json`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SectionData {
    section: String,
    title: String,
    requirements: Vec<RequirementData>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RequirementsFile {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    sections: Vec<SectionData>,
}

/// The section used for case requirement ids not found in the spec.
pub const UNKNOWN_SECTION: &str = "(unknown)";

impl Requirements {
    /// Reads a `spec/data/requirements.json` text.
    pub fn from_json(text: &str, source: &str) -> Result<Self, String> {
        let file: RequirementsFile =
            serde_json::from_str(text).map_err(|e| format!("{source}: {e}"))?;
        let list = file
            .sections
            .into_iter()
            .flat_map(|s| {
                s.requirements.into_iter().map(move |r| Requirement {
                    id: r.id,
                    level: r.level,
                    section: s.section.clone(),
                    section_title: s.title.clone(),
                    text: r.text,
                })
            })
            .collect();
        Ok(Self {
            list,
            source: source.to_owned(),
        })
    }

    /// Reads `path`, a `spec/data/requirements.json`; a file that is not one (such as the
    /// Markdown `spec/requirements.md`) is an [`std::io::ErrorKind::InvalidData`] error.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        let text = std::fs::read_to_string(path)?;
        Self::from_json(&text, &path.display().to_string())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// The requirements embedded in this build (`spec/data/requirements.json`).
    pub fn embedded() -> Self {
        Self::from_json(EMBEDDED, "spec/data/requirements.json (embedded)").unwrap_or_default()
    }

    /// The requirement lists of `spec/requirements.md`, rendered from a
    /// `spec/data/requirements.json` text: per section, its heading (`## §1 Title`, which stays
    /// in the Markdown) and its block name (`requirements.json#§1`), and the list, one item
    /// `- **`ID`** LEVEL text` per requirement.
    pub fn markdown_lists(text: &str) -> Result<Vec<(String, String, String)>, String> {
        let file: RequirementsFile =
            serde_json::from_str(text).map_err(|e| format!("requirements.json: {e}"))?;
        Ok(file
            .sections
            .iter()
            .map(|s| {
                let list: String = s
                    .requirements
                    .iter()
                    .map(|r| {
                        let words: Vec<&str> = [r.level.as_str(), r.text.as_str()]
                            .into_iter()
                            .filter(|w| !w.is_empty())
                            .collect();
                        format!("- **`{}`** {}\n", r.id, words.join(" "))
                    })
                    .collect();
                (
                    format!("## {} {}", s.section, s.title),
                    format!("requirements.json#{}", s.section),
                    list,
                )
            })
            .collect())
    }

    /// Looks up an id.
    pub fn get(&self, id: &str) -> Option<&Requirement> {
        self.list.iter().find(|r| r.id == id)
    }

    /// `§N Title` for an id, or [`UNKNOWN_SECTION`].
    pub fn section_of(&self, id: &str) -> String {
        match self.get(id) {
            Some(r) if r.section_title.is_empty() => r.section.clone(),
            Some(r) => format!("{} {}", r.section, r.section_title),
            None => UNKNOWN_SECTION.to_owned(),
        }
    }

    /// Section labels in file order, each once.
    pub fn sections(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.list {
            let s = self.section_of(&r.id);
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every section's heading is in the Markdown, its list follows it, generated from the data.
    #[test]
    fn spec_tables_requirements_md_is_generated_from_the_data() {
        let lists = Requirements::markdown_lists(EMBEDDED).expect("requirements.json");
        assert!(lists.len() >= 12, "{}", lists.len());
        let mut after = 0;
        let mut drift = Vec::new();
        for (heading, block, list) in &lists {
            let at = MARKDOWN[after..]
                .find(&format!("\n{heading}\n"))
                .map(|i| after + i)
                .unwrap_or_else(|| panic!("no heading {heading:?} after the previous section"));
            let begin = crate::spec_tables::begin_marker(block);
            let next = MARKDOWN[at + 1..]
                .find("\n## ")
                .map_or(MARKDOWN.len(), |i| at + 1 + i);
            assert!(
                MARKDOWN[at..next].contains(&begin),
                "section {heading:?}: no block {begin}"
            );
            after = at + 1;
            drift.extend(crate::spec_tables::in_step("requirements.md", block, list).err());
        }
        assert!(drift.is_empty(), "{}", drift.join("\n"));
    }

    #[test]
    fn reads_sections_and_items() {
        let data = r#"{"$comment": "c", "sections": [
            {"section": "§3", "title": "Tokens", "requirements": [
                {"id": "DCT-CREATE-1", "level": "MUST", "text": "create it."}]},
            {"section": "§10", "title": "Verification", "requirements": [
                {"id": "DCT-VERIFY-2-REVOKED-BLOCK", "level": "MUST", "text": "Deny."}]}]}"#;
        let r = Requirements::from_json(data, "t").expect("reads");
        assert_eq!(r.list.len(), 2);
        assert_eq!(r.list[1].section, "§10");
        assert_eq!(r.list[1].level, "MUST");
        assert_eq!(r.section_of("DCT-CREATE-1"), "§3 Tokens");
        assert_eq!(r.section_of("NOPE"), UNKNOWN_SECTION);
        assert_eq!(r.sections(), vec!["§3 Tokens", "§10 Verification"]);
        let lists = Requirements::markdown_lists(data).expect("renders");
        assert_eq!(lists[0].0, "## §3 Tokens");
        assert_eq!(lists[0].1, "requirements.json#§3");
        assert_eq!(lists[0].2, "- **`DCT-CREATE-1`** MUST create it.\n");
        // Unknown members and Markdown are refused, with the source named.
        let extra = data.replace("\"text\": \"Deny.\"", "\"text\": \"Deny.\", \"x\": 1");
        assert!(Requirements::from_json(&extra, "t").is_err());
        let md = Requirements::from_json("# Requirements\n## §1 A\n", "r.md").unwrap_err();
        assert!(md.starts_with("r.md: "), "{md}");
    }

    /// The data file keeps its reviewable layout: one requirement per line, each section's
    /// label and title on their own lines (what an edit must keep, so a change reads as a
    /// one-line diff).
    #[test]
    fn requirements_json_keeps_one_requirement_per_line() {
        let file: RequirementsFile = serde_json::from_str(EMBEDDED).expect("requirements.json");
        let s = |v: &str| serde_json::to_string(v).unwrap_or_default();
        let sections: Vec<String> = file
            .sections
            .iter()
            .map(|sec| {
                let reqs: Vec<String> = sec
                    .requirements
                    .iter()
                    .map(|r| {
                        format!(
                            "        {{\"id\": {}, \"level\": {}, \"text\": {}}}",
                            s(&r.id),
                            s(&r.level),
                            s(&r.text)
                        )
                    })
                    .collect();
                format!(
                    "    {{\n      \"section\": {},\n      \"title\": {},\n      \
                     \"requirements\": [\n{}\n      ]\n    }}",
                    s(&sec.section),
                    s(&sec.title),
                    reqs.join(",\n")
                )
            })
            .collect();
        let expected = format!(
            "{{\n  \"$comment\": {},\n  \"sections\": [\n{}\n  ]\n}}\n",
            s(file._comment.as_deref().unwrap_or_default()),
            sections.join(",\n")
        );
        assert!(
            EMBEDDED == expected,
            "spec/data/requirements.json: keep one requirement per line, laid out as:\n{expected}"
        );
    }

    #[test]
    fn the_embedded_requirements_read() {
        let r = Requirements::embedded();
        assert!(r.list.len() > 250, "{}", r.list.len());
        assert_eq!(
            r.section_of("PRIM-JCS-NEG-ZERO"),
            "§1 Cryptographic primitives and encodings"
        );
        let ids: std::collections::BTreeSet<&str> = r.list.iter().map(|q| q.id.as_str()).collect();
        assert_eq!(ids.len(), r.list.len(), "duplicate ids");
    }

    #[test]
    fn every_requirement_states_its_level() {
        const LEVELS: &[&str] = &["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"];
        for q in &Requirements::embedded().list {
            assert!(
                LEVELS.contains(&q.level.as_str()),
                "{}: level {:?}",
                q.id,
                q.level
            );
            let first = q.text.split([' ', ',']).next().unwrap_or_default();
            assert!(
                !LEVELS.contains(&first),
                "{}: the level is in the text",
                q.id
            );
        }
    }
}
