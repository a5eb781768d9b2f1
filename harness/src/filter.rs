//! Case selection: the `--id`, `--requirement`, `--area`, `--group`, `--flag` and `--op`
//! filters of `delegateos-conform run`, and the small glob used for ids (here and in the
//! expected-failures file).
//!
//! Semantics: values of one filter kind are alternatives (OR); different kinds must all hold
//! (AND). An empty filter selects everything. Filtered-out cases are not run and do not
//! appear in reports (they are not "skipped": skipping is the adapter's answer).

use crate::runner::case::Case;

/// Matches `text` against a glob where `*` is any run of characters (including `/`) and `?` is
/// exactly one character; everything else is literal. Runs in O(|pattern| × |text|) worst case
/// with no recursion, so a hostile pattern cannot hang the harness.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

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
        any(&self.ids, &|g| glob_match(g, &case.id))
            && any(&self.requirements, &|r| {
                case.requirements.iter().any(|c| requirement_matches(r, c))
            })
            && any(&self.areas, &|a| a == case.area)
            && any(&self.groups, &|g| {
                g == case.group || glob_match(g, &case.group)
            })
            && any(&self.flags, &|f| case.flags.iter().any(|c| c == f))
            && any(&self.ops, &|o| glob_match(o, &case.op))
    }
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
    fn requirement_prefix() {
        assert!(requirement_matches("DCT-VERIFY", "DCT-VERIFY-2-REVOKED"));
        assert!(requirement_matches("DCT-VERIFY-2", "DCT-VERIFY-2"));
        assert!(!requirement_matches("DCT-VER", "DCT-VERIFY-2"));
    }
}
