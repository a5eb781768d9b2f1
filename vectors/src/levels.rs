//! The level rule of issue 27: a case is `normative` only if the clause of the protocol spec or
//! the architecture document that decides its outcome is named; a case whose cited
//! requirements rest on a decision inherits that decision's level unless a clause is named.
//!
//! What counts as *naming a clause* (machine-checked, so it cannot drift):
//! - a requirement of `spec/requirements.md` that carries `(decision Dn)` rests on decision
//!   Dn, unless its text also names a clause as `(spec §…)` or `(architecture §…)`: then the
//!   text decides, and the decision only fills in what the clause leaves open;
//! - a requirement without `(decision …)` restates the clause of its section (`## §N`), which
//!   its heading names;
//! - a case names a clause when its description contains `(spec §…)` or `(architecture §…)`
//!   (for a case the requirement's clause does not cover: say which sentence decides it).
//!
//! The *ceiling* of a case is the lowest level among its cited requirements (a requirement
//! resting on Dn has Dn's `Level:` line in `spec/decisions.md`; one naming a clause is
//! normative), or `normative` when the case itself names a clause. The generator derives
//! every case's level as the lower of its ceiling and what its flags and expectation give
//! ([`crate::format::Level`]; `audit::level_of`), and `vectors/tests/levels_rule.rs` lists
//! every committed case above its ceiling.

use std::collections::BTreeMap;

use crate::flags::DECISIONS;
use crate::format::Level;
use crate::requirements::{Requirement, Requirements};

/// Orders levels from most to least binding: `hardening` < `decision` < `normative`.
pub fn rank(level: Level) -> u8 {
    match level {
        Level::Hardening => 0,
        Level::Decision => 1,
        Level::Normative => 2,
    }
}

/// The lower (less binding) of two levels.
pub fn lower(a: Level, b: Level) -> Level {
    if rank(a) <= rank(b) {
        a
    } else {
        b
    }
}

/// Every decision's `Level:` line in a `decisions.md` text (`D34–D40` gives each number of
/// the range the same level).
pub fn parse_decision_levels(text: &str) -> BTreeMap<String, Level> {
    let mut out = BTreeMap::new();
    let mut pending: Vec<String> = Vec::new();
    for line in text.lines() {
        if let Some(head) = line.strip_prefix("## D") {
            let word = head.split_whitespace().next().unwrap_or_default();
            let (a, b) = word.split_once('–').unwrap_or((word, word));
            let a: Option<u32> = a.parse().ok();
            let b: Option<u32> = b.trim_start_matches('D').parse().ok();
            pending = match (a, b) {
                (Some(a), Some(b)) if a <= b => (a..=b).map(|n| format!("D{n}")).collect(),
                _ => Vec::new(),
            };
            continue;
        }
        if line.starts_with("## ") {
            pending.clear();
            continue;
        }
        if let Some(level) = line.strip_prefix("Level:").and_then(Level::parse) {
            for d in pending.drain(..) {
                out.insert(d, level);
            }
        }
    }
    out
}

/// The decision levels of the embedded `spec/decisions.md` (parsed once).
pub fn decision_levels() -> &'static BTreeMap<String, Level> {
    static LEVELS: std::sync::OnceLock<BTreeMap<String, Level>> = std::sync::OnceLock::new();
    LEVELS.get_or_init(|| parse_decision_levels(DECISIONS))
}

/// The clause a text names as `(spec §…)` or `(architecture §…)`: the parenthesis's content.
pub fn named_clause(text: &str) -> Option<&str> {
    ["(spec §", "(architecture §"].iter().find_map(|open| {
        let start = text.find(open)? + 1;
        let rest = &text[start..];
        Some(rest.split(')').next().unwrap_or(rest))
    })
}

/// The decision a requirement's text rests on (`(decision Dn)`).
pub fn decision_of(text: &str) -> Option<&str> {
    let start = text.find("(decision ")? + "(decision ".len();
    let rest = &text[start..];
    let end = rest.find(')')?;
    Some(&rest[..end])
}

/// What decides a requirement's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Basis {
    /// A clause the requirement names (`(spec §…)` / `(architecture §…)`).
    Clause(String),
    /// The clause of the requirement's section (no decision cited).
    Section(String),
    /// A decision, with its level.
    Decision(String, Level),
}

impl Basis {
    /// The level a case resting on this basis may have at most.
    pub fn level(&self) -> Level {
        match self {
            Self::Clause(_) | Self::Section(_) => Level::Normative,
            Self::Decision(_, level) => *level,
        }
    }
}

/// The basis of one requirement. A decision without a `Level:` line counts as `decision`.
pub fn basis(req: &Requirement) -> Basis {
    if let Some(clause) = named_clause(&req.text) {
        return Basis::Clause(clause.to_owned());
    }
    match decision_of(&req.text) {
        Some(d) => {
            let level = decision_levels().get(d).copied().unwrap_or(Level::Decision);
            Basis::Decision(d.to_owned(), level)
        }
        None => Basis::Section(req.section.clone()),
    }
}

/// The ceiling of a case and why: `(level, reason)`.
pub fn ceiling(
    requirements: &Requirements,
    cited: &[String],
    description: &str,
) -> (Level, String) {
    if let Some(clause) = named_clause(description) {
        return (Level::Normative, format!("the case names {clause}"));
    }
    let mut out = (
        Level::Normative,
        String::from("every cited requirement names its clause"),
    );
    for id in cited {
        let Some(req) = requirements.get(id) else {
            continue;
        };
        let b = basis(req);
        if rank(b.level()) < rank(out.0) {
            out = match b {
                Basis::Decision(d, level) => {
                    (level, format!("{id} rests on {d} ({})", level.as_str()))
                }
                Basis::Clause(_) | Basis::Section(_) => out,
            };
        }
    }
    out
}

/// The ceiling of a case against the embedded requirements.
pub fn ceiling_embedded(cited: &[String], description: &str) -> (Level, String) {
    static REQS: std::sync::OnceLock<Requirements> = std::sync::OnceLock::new();
    ceiling(REQS.get_or_init(Requirements::embedded), cited, description)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_levels_and_ranges() {
        let md = "## D4 Depth\nLevel: decision\n## D34–D36 Proxy\nLevel: hardening\n## Flag index\nLevel: normative\n";
        let l = parse_decision_levels(md);
        assert_eq!(l.get("D4"), Some(&Level::Decision));
        assert_eq!(l.get("D35"), Some(&Level::Hardening));
        assert_eq!(l.len(), 4);
    }

    #[test]
    fn every_decision_has_a_level() {
        let l = decision_levels();
        for n in 1..=44 {
            assert!(l.contains_key(&format!("D{n}")), "D{n} has no Level line");
        }
    }

    #[test]
    fn clauses_and_decisions_are_read_from_the_text() {
        assert_eq!(
            named_clause("x (spec §4.1: y) (decision D6)"),
            Some("spec §4.1: y")
        );
        assert_eq!(
            named_clause("x (architecture §3.1)"),
            Some("architecture §3.1")
        );
        assert_eq!(named_clause("x (spec/mcp-proxy.md §2.1)"), None);
        assert_eq!(decision_of("x (decision D26)"), Some("D26"));
        let reqs = Requirements::parse(
            "## §1 P\n- **`A`** MUST a. (decision D9)\n- **`B`** MUST b.\n\
             - **`C`** MUST c (spec §1.2: RFC 8032). (decision D10)\n",
            "t",
        );
        let cited = |ids: &[&str]| ids.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(ceiling(&reqs, &cited(&["B", "C"]), "d").0, Level::Normative);
        assert_eq!(ceiling(&reqs, &cited(&["A", "B"]), "d").0, Level::Hardening);
        assert_eq!(
            ceiling(&reqs, &cited(&["A"]), "d (spec §3.1: the type)").0,
            Level::Normative
        );
    }
}
