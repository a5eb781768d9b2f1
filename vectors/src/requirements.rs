//! Requirement ids and their spec sections, parsed from `spec/requirements.md`.
//!
//! The file's shape (owned by the spec authors): sections are `## §N Title` headings, and a
//! requirement is a list item `- **`ID`** (LEVEL) text`. This module only extracts
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

fn is_keyword(w: &str) -> bool {
    matches!(
        w,
        "MUST" | "MUST NOT" | "SHOULD" | "SHOULD NOT" | "MAY" | "REQUIRED" | "RECOMMENDED"
    )
}

/// The requirements this harness was built with, so an installed binary needs no source tree.
pub const EMBEDDED: &str = include_str!("../spec/requirements.md");

/// `spec/data/requirements.json`, embedded: the single source of the requirements (schema:
/// `spec/data/README.md`).
pub const EMBEDDED_JSON: &str = include_str!("../spec/data/requirements.json");

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
    /// Parses requirements markdown.
    pub fn parse(text: &str, source: &str) -> Self {
        let mut list = Vec::new();
        let (mut section, mut title) = (String::new(), String::new());
        for line in text.lines() {
            let trimmed = line.trim_start();
            if let Some(h) = trimmed.strip_prefix("## ") {
                let h = h.trim();
                match h.split_once(char::is_whitespace) {
                    Some((s, t)) if s.starts_with('§') => {
                        section = s.trim_end_matches(['.', ':']).to_owned();
                        title = t.trim().to_owned();
                    }
                    _ => {
                        section = h.to_owned();
                        title = String::new();
                    }
                }
                continue;
            }
            let Some(item) = trimmed
                .strip_prefix("- ")
                .or_else(|| trimmed.strip_prefix("* "))
            else {
                continue;
            };
            let Some(rest) = item.trim_start().strip_prefix("**`") else {
                continue;
            };
            let Some((id, after)) = rest.split_once("`**") else {
                continue;
            };
            let after = after.trim_start();
            let (level, text) = match after.strip_prefix('(').and_then(|a| a.split_once(')')) {
                Some((l, t)) => (l.trim().to_owned(), t.trim().to_owned()),
                None => match after.split_once(' ') {
                    Some((w, t)) if is_keyword(w) => (w.to_owned(), t.trim().to_owned()),
                    _ if is_keyword(after) => (after.to_owned(), String::new()),
                    _ => (String::new(), after.to_owned()),
                },
            };
            list.push(Requirement {
                id: id.trim().to_owned(),
                level,
                section: section.clone(),
                section_title: title.clone(),
                text,
            });
        }
        Self {
            list,
            source: source.to_owned(),
        }
    }

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

    /// Reads `path`.
    pub fn load(path: &Path) -> std::io::Result<Self> {
        let text = std::fs::read_to_string(path)?;
        Ok(Self::parse(&text, &path.display().to_string()))
    }

    /// The requirements embedded in this build (`spec/requirements.md`).
    pub fn embedded() -> Self {
        Self::parse(EMBEDDED, "spec/requirements.md (embedded)")
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
        let lists = Requirements::markdown_lists(EMBEDDED_JSON).expect("requirements.json");
        assert!(lists.len() >= 12, "{}", lists.len());
        let mut after = 0;
        let mut drift = Vec::new();
        for (heading, block, list) in &lists {
            let at = EMBEDDED[after..]
                .find(&format!("\n{heading}\n"))
                .map(|i| after + i)
                .unwrap_or_else(|| panic!("no heading {heading:?} after the previous section"));
            let begin = crate::spec_tables::begin_marker(block);
            let next = EMBEDDED[at + 1..].find("\n## ").map_or(EMBEDDED.len(), |i| at + 1 + i);
            assert!(
                EMBEDDED[at..next].contains(&begin),
                "section {heading:?}: no block {begin}"
            );
            after = at + 1;
            drift.extend(crate::spec_tables::in_step("requirements.md", block, list).err());
        }
        assert!(drift.is_empty(), "{}", drift.join("\n"));
    }

    /// The data file says exactly what the hand parser read from the Markdown: every id, level,
    /// section, section title and text, in order.
    #[test]
    fn requirements_json_equals_the_markdown_parse() {
        let md = Requirements::parse(EMBEDDED, "md");
        let json = Requirements::from_json(EMBEDDED_JSON, "json").expect("requirements.json");
        assert_eq!(md.list.len(), json.list.len());
        assert!(md.list.len() > 250, "{}", md.list.len());
        for (a, b) in md.list.iter().zip(&json.list) {
            assert_eq!(a.id, b.id);
            assert_eq!(a.level, b.level, "{}", a.id);
            assert_eq!(a.section, b.section, "{}", a.id);
            assert_eq!(a.section_title, b.section_title, "{}", a.id);
            assert_eq!(a.text, b.text, "{}", a.id);
        }
        assert_eq!(md.list, json.list);
        assert_eq!(md.sections(), json.sections());
    }

    #[test]
    fn parses_sections_and_items() {
        let md = "# Req\n\n## §3 Tokens\n\n- **`DCT-CREATE-1`** MUST create it.\n\
                  text\n## §10 Verification\n- **`DCT-VERIFY-2-REVOKED-BLOCK`** (MUST) Deny.\n\
                  - plain item\n";
        let r = Requirements::parse(md, "t");
        assert_eq!(r.list.len(), 2);
        assert_eq!(r.list[1].section, "§10");
        assert_eq!(r.list[1].level, "MUST");
        assert_eq!(r.section_of("DCT-CREATE-1"), "§3 Tokens");
        assert_eq!(r.section_of("NOPE"), UNKNOWN_SECTION);
        assert_eq!(r.sections(), vec!["§3 Tokens", "§10 Verification"]);
    }
}
