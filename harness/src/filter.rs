//! Case selection: the `--id`, `--requirement`, `--area`, `--group`, `--flag` and `--op`
//! filters of `delegateos-conform run`, and the small glob used for ids (here and in the
//! expected-failures file).
//!
//! Semantics: values of one filter kind are alternatives (OR); different kinds must all hold
//! (AND). An empty filter selects everything. Filtered-out cases are not run and do not
//! appear in reports (they are not "skipped": skipping is the adapter's answer).

use crate::runner::case::Case;

pub use crate::id_glob::glob_match;

/// The selection given on the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Filter {
    /// Case id globs.
    pub ids: Vec<String>,
    /// Requirement ids or id prefixes (`DCT-VERIFY` selects `DCT-VERIFY-2-REVOKED-BLOCK`).
    pub requirements: Vec<String>,
    /// Vector areas (file header `area`).
    pub areas: Vec<String>,
    /// Vector groups (file header `group`).
    pub groups: Vec<String>,
    /// Case flags.
    pub flags: Vec<String>,
    /// Operation names (globs allowed, e.g. `dct.*`).
    pub ops: Vec<String>,
}

impl Filter {
    /// True when no filter was given.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
            && self.requirements.is_empty()
            && self.areas.is_empty()
            && self.groups.is_empty()
            && self.flags.is_empty()
            && self.ops.is_empty()
    }

    /// Whether `case` is selected.
    pub fn selects(&self, case: &Case) -> bool {
        let any = |list: &[String], f: &dyn Fn(&str) -> bool| {
            list.is_empty() || list.iter().any(|v| f(v))
        };
        FilterKind::ALL
            .iter()
            .all(|kind| any(kind.values(self), &|v| kind.selects(v, case)))
    }
}

/// One kind of filter: its command-line flag and the values the corpus offers for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKind {
    /// `--id`
    Id,
    /// `--requirement`
    Requirement,
    /// `--area`
    Area,
    /// `--group`
    Group,
    /// `--flag`
    Flag,
    /// `--op`
    Op,
}

impl FilterKind {
    /// Every kind, in command-line order.
    pub const ALL: [FilterKind; 6] = [
        FilterKind::Id,
        FilterKind::Requirement,
        FilterKind::Area,
        FilterKind::Group,
        FilterKind::Flag,
        FilterKind::Op,
    ];

    /// The command-line flag.
    pub fn flag(self) -> &'static str {
        match self {
            FilterKind::Id => "--id",
            FilterKind::Requirement => "--requirement",
            FilterKind::Area => "--area",
            FilterKind::Group => "--group",
            FilterKind::Flag => "--flag",
            FilterKind::Op => "--op",
        }
    }

    /// The `delegateos-conform list` topic that shows the valid values.
    pub fn topic(self) -> &'static str {
        match self {
            FilterKind::Id => "cases",
            FilterKind::Requirement => "requirements",
            FilterKind::Area => "areas",
            FilterKind::Group => "groups",
            FilterKind::Flag => "flags",
            FilterKind::Op => "ops",
        }
    }

    /// The values `filter` gives for this kind.
    pub fn values(self, filter: &Filter) -> &[String] {
        match self {
            FilterKind::Id => &filter.ids,
            FilterKind::Requirement => &filter.requirements,
            FilterKind::Area => &filter.areas,
            FilterKind::Group => &filter.groups,
            FilterKind::Flag => &filter.flags,
            FilterKind::Op => &filter.ops,
        }
    }

    /// Whether `value` (of this kind) selects `case`.
    pub fn selects(self, value: &str, case: &Case) -> bool {
        match self {
            FilterKind::Id => glob_match(value, &case.id),
            FilterKind::Requirement => case
                .requirements
                .iter()
                .any(|c| requirement_matches(value, c)),
            FilterKind::Area => value == case.area,
            FilterKind::Group => value == case.group || glob_match(value, &case.group),
            FilterKind::Flag => case.flags.iter().any(|c| c == value),
            FilterKind::Op => glob_match(value, &case.op),
        }
    }

    /// The values `case` offers for this kind (what a filter could name).
    pub fn offered(self, case: &Case) -> Vec<&str> {
        match self {
            FilterKind::Id => vec![case.id.as_str()],
            FilterKind::Requirement => case.requirements.iter().map(String::as_str).collect(),
            FilterKind::Area => vec![case.area.as_str()],
            FilterKind::Group => vec![case.group.as_str()],
            FilterKind::Flag => case.flags.iter().map(String::as_str).collect(),
            FilterKind::Op => vec![case.op.as_str()],
        }
    }
}

/// For every filter value that selects no case of `cases` on its own: a message naming the
/// flag and the value, with the nearest valid values (a case-insensitive match first, then by
/// edit distance or containment) and the `list` topic showing them all.
pub fn unmatched_values(filter: &Filter, cases: &[Case]) -> Vec<String> {
    let mut messages = Vec::new();
    for kind in FilterKind::ALL {
        for value in kind.values(filter) {
            if cases.iter().any(|c| kind.selects(value, c)) {
                continue;
            }
            let mut valid: Vec<&str> = cases.iter().flat_map(|c| kind.offered(c)).collect();
            valid.sort_unstable();
            valid.dedup();
            let hint = match suggest(value, &valid).as_slice() {
                [] => String::new(),
                [one] if one.eq_ignore_ascii_case(value) => {
                    format!("; did you mean `{one}`? (values are case-sensitive)")
                }
                near => format!(
                    "; did you mean {}?",
                    near.iter()
                        .map(|s| format!("`{s}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            messages.push(format!(
                "{} {value:?} matches no case{hint} (all values: `delegateos-conform list {}`)",
                kind.flag(),
                kind.topic()
            ));
        }
    }
    messages
}

/// At most three of `valid` nearest to `value`: a case-insensitive equal value alone if there
/// is one, else those within a small edit distance (case-insensitive) or containing `value`,
/// nearest first.
pub fn suggest<'a>(value: &str, valid: &[&'a str]) -> Vec<&'a str> {
    if let Some(same) = valid.iter().find(|v| v.eq_ignore_ascii_case(value)) {
        return vec![same];
    }
    let lower = value.to_lowercase();
    let limit = (lower.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = valid
        .iter()
        .filter_map(|v| {
            let candidate = v.to_lowercase();
            let d = edit_distance(&lower, &candidate);
            if d <= limit {
                Some((d, *v))
            } else if !lower.is_empty() && candidate.contains(lower.trim_matches('*')) {
                Some((limit + 1, *v))
            } else {
                None
            }
        })
        .collect();
    scored.sort_unstable();
    scored.into_iter().take(3).map(|(_, v)| v).collect()
}

/// Levenshtein distance over chars (two rows, O(|a| × |b|)).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0usize; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// `filter` selects requirement `id` if equal, or a prefix ending at a `-` boundary.
fn requirement_matches(filter: &str, id: &str) -> bool {
    let filter = filter.trim_end_matches('-');
    id == filter
        || (id.len() > filter.len()
            && id.starts_with(filter)
            && id[filter.len()..].starts_with('-'))
        || glob_match(filter, id)
}

/// Case selection flags shared by `run` and `coverage`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FilterArgs {
    /// Only case ids matching GLOB (`*`, `?`); repeatable.
    #[arg(long = "id", value_name = "GLOB")]
    pub ids: Vec<String>,
    /// Only cases citing requirement ID, or an id starting with `ID-`; repeatable.
    #[arg(long = "requirement", value_name = "ID")]
    pub requirements: Vec<String>,
    /// Only cases of vector area AREA (e.g. `dct`); repeatable.
    #[arg(long = "area", value_name = "AREA")]
    pub areas: Vec<String>,
    /// Only cases of vector group GROUP; repeatable.
    #[arg(long = "group", value_name = "GROUP")]
    pub groups: Vec<String>,
    /// Only cases carrying FLAG; repeatable.
    #[arg(long = "flag", value_name = "FLAG")]
    pub flags: Vec<String>,
    /// Only cases of operation OP (glob, e.g. `dct.*`); repeatable.
    #[arg(long = "op", value_name = "OP")]
    pub ops: Vec<String>,
}

impl FilterArgs {
    /// The selection as a [`Filter`].
    pub fn to_filter(&self) -> Filter {
        Filter {
            ids: self.ids.clone(),
            requirements: self.requirements.clone(),
            areas: self.areas.clone(),
            groups: self.groups.clone(),
            flags: self.flags.clone(),
            ops: self.ops.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("dct-*", "dct-verify-0001"));
        assert!(glob_match("*-000?", "dct-verify-0001"));
        assert!(glob_match("*", ""));
        assert!(!glob_match("dct-?", "dct-"));
        assert!(glob_match("a*b*c", "axxbyyc"));
        assert!(!glob_match("a*b*c", "axxbyy"));
        assert!(glob_match("exact", "exact"));
        assert!(!glob_match("exact", "exactly"));
        let long = "a".repeat(5000);
        assert!(!glob_match(&("*a".repeat(200) + "b"), &long));
    }

    #[test]
    fn suggestions() {
        let valid = ["Precedence", "Revocation", "GlobStar", "dct-verify-0001"];
        assert_eq!(suggest("precedence", &valid), ["Precedence"]);
        assert_eq!(suggest("Revokation", &valid), ["Revocation"]);
        assert_eq!(suggest("dct-verify-0002", &valid), ["dct-verify-0001"]);
        assert!(suggest("zzzzzzzzzzzz", &valid).is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn requirement_prefix() {
        assert!(requirement_matches("DCT-VERIFY", "DCT-VERIFY-2-REVOKED"));
        assert!(requirement_matches("DCT-VERIFY-2", "DCT-VERIFY-2"));
        assert!(!requirement_matches("DCT-VER", "DCT-VERIFY-2"));
    }
}
