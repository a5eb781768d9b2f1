//! Resource glob matching and capability subset (spec §10.2; decisions D1–D3).
//!
//! Patterns are split on `/` into segments. A pattern that is exactly `*` or `**` matches every
//! resource. Otherwise a segment `**` matches zero or more segments, a segment `*` exactly one
//! non-empty segment, and any other segment (including `a*`, `?`, `[x]`) only itself. Both
//! [`matches`] and [`covers`] are segment-wise dynamic programs, O(|pattern| × |resource|)
//! segments with one row of state, so hostile patterns (`/**/**/…`) cannot blow up.

use crate::faults;
use crate::token::Capability;

fn is_match_all(pattern: &str) -> bool {
    pattern == "*" || pattern == "**"
}

/// True if `pattern` matches `resource` (D1, D2).
pub fn matches(pattern: &str, resource: &str) -> bool {
    let pattern = faults::empty_as_star(pattern);
    if is_match_all(pattern) {
        return true;
    }
    let (pattern, resource) = faults::normalized_paths(pattern, resource);
    let (pattern, resource) = (pattern.as_ref(), resource.as_ref());
    if faults::on("glob.prefix-match") {
        return faults::prefix_match(pattern, resource);
    }
    if let Some(matched) = faults::other_matcher(pattern, resource) {
        return matched;
    }
    let res: Vec<&str> = resource.split('/').collect();
    // row[j]: the pattern segments seen so far match the first j resource segments.
    let mut row = vec![false; res.len() + 1];
    if let Some(first) = row.first_mut() {
        *first = true;
    }
    for seg in pattern.split('/') {
        let mut next = vec![false; res.len() + 1];
        match seg {
            "**" if faults::on("glob.double-star-one-or-more") => {
                faults::double_star_one_or_more(&row, &mut next);
            }
            "**" => {
                let mut any = false;
                for (n, r) in next.iter_mut().zip(&row) {
                    any |= *r;
                    *n = any;
                }
            }
            // `*` matches exactly one non-empty segment.
            "*" if faults::on("glob.star-crosses-segments") => {
                faults::star_any_run(&row, &mut next)
            }
            "*" => {
                for ((n, r), s) in next.iter_mut().skip(1).zip(&row).zip(&res) {
                    *n = *r && !s.is_empty();
                }
            }
            // Any other segment (`a*`, `?`, `[x]` included) matches only itself.
            _ => {
                for ((n, r), s) in next.iter_mut().skip(1).zip(&row).zip(&res) {
                    *n = *r && *s == seg;
                }
            }
        }
        row = next;
    }
    row.last().copied().unwrap_or(false)
}

/// True if every resource matched by `child` is matched by `parent` under the conservative,
/// sound rule of D3.
pub fn covers(parent: &str, child: &str) -> bool {
    let parent = faults::empty_as_star(parent);
    if faults::on("subset.child-matched-as-resource") || faults::on("glob.fnmatch") {
        return matches(parent, child);
    }
    if is_match_all(parent) || parent == child {
        return true;
    }
    if is_match_all(child) {
        return false;
    }
    let c: Vec<&str> = child.split('/').collect();
    let mut row = vec![false; c.len() + 1];
    if let Some(first) = row.first_mut() {
        *first = true;
    }
    for seg in parent.split('/') {
        let mut next = vec![false; c.len() + 1];
        match seg {
            // A parent `**` absorbs any run of child segments, wildcards included.
            "**" => {
                let mut any = false;
                for (n, r) in next.iter_mut().zip(&row) {
                    any |= *r;
                    *n = any;
                }
            }
            // A parent `*` absorbs one child segment that is itself one non-empty segment.
            "*" => {
                for ((n, r), s) in next.iter_mut().skip(1).zip(&row).zip(&c) {
                    *n = *r && !s.is_empty() && *s != "**";
                }
            }
            // A literal absorbs only the identical literal (never a child wildcard).
            _ => {
                for ((n, r), s) in next.iter_mut().skip(1).zip(&row).zip(&c) {
                    *n = *r && *s == seg;
                }
            }
        }
        row = next;
    }
    row.last().copied().unwrap_or(false)
}

/// Actions are compared byte for byte: an action `*` is an action like any other, not a
/// wildcard (D3).
fn same_action(granted: &str, wanted: &str) -> bool {
    same_name(granted, wanted)
        || (faults::on("capability.action-star-wildcard") && faults::is_star(granted))
}

/// Namespaces and actions are compared byte for byte (case included).
fn same_name(a: &str, b: &str) -> bool {
    a == b || (faults::on("capability.names-case-insensitive") && faults::same_lowercase(a, b))
}

/// D3: same namespace, same action, and `covers(parent.resource, child.resource)`.
pub fn capability_subset(child: &Capability, parent: &Capability) -> bool {
    if faults::on("subset.resource-prefix") {
        return mistakes::prefix_subset(child, parent);
    }
    same_name(&child.namespace, &parent.namespace)
        && same_action(&parent.action, &child.action)
        && covers(&parent.resource, &child.resource)
}

/// True if `cap` grants `(namespace, action, resource)` (§10.1 step 7): same namespace, same
/// action, and `matches(cap.resource, resource)`.
pub fn capability_matches(cap: &Capability, namespace: &str, action: &str, resource: &str) -> bool {
    (same_name(&cap.namespace, namespace) || faults::on("verify.7.namespace-ignored"))
        && (same_action(&cap.action, action) || faults::on("verify.7.action-ignored"))
        && (matches(&cap.resource, resource)
            || (faults::on("verify.7.request-as-pattern") && matches(resource, &cap.resource)))
}

/// The catalogue's mistakes at these steps (`spec/faults.md`), computed only when their fault
/// is on (`faults::on`): beside the steps they break, so that `faults.rs` (the switches)
/// imports nothing of the reference.
mod mistakes {
    /// Capability subset with resources compared as string prefixes.
    pub(crate) fn prefix_subset(
        child: &crate::token::Capability,
        parent: &crate::token::Capability,
    ) -> bool {
        child.namespace == parent.namespace
            && child.action == parent.action
            && child
                .resource
                .starts_with(parent.resource.split('*').next().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn spec_examples() {
        assert!(matches("/project/*", "/project/foo"));
        assert!(!matches("/project/*", "/project/foo/bar"));
        assert!(matches("/project/**", "/project/foo/bar/baz"));
        assert!(matches("*", "anything/at/all"));
        assert!(matches("*", ""));
        assert!(matches("**", "/a/b"));
        assert!(matches("/a/**", "/a"));
        assert!(matches("/a/**", "/a/"));
        assert!(!matches("/a/*", "/a/"));
        assert!(!matches("/a/*", "/a/b/c"));
        assert!(!matches("/a/b*", "/a/bb"));
        assert!(matches("/a/b*", "/a/b*"));
        assert!(!matches("/a/?", "/a/b"));
        assert!(!matches("/project/**", "/projectX/a"));
        assert!(matches("arxiv.org/*", "arxiv.org/abs"));
    }

    #[test]
    fn subset_examples() {
        assert!(covers("*", "arxiv.org/*"));
        assert!(covers("/p/**", "/p/x/**"));
        assert!(covers("/p/*", "/p/x"));
        assert!(!covers("/project/**", "/projectX/**"));
        assert!(!covers("/a/*", "/a/**"));
        assert!(!covers("/a/*/**", "/a/**/x"));
        assert!(!covers("/a/**", "*"));
        assert!(covers("/a/**", "/a/*/b"));
        let c = Capability::new("web", "search", "arxiv.org/*");
        assert!(capability_subset(
            &c,
            &Capability::new("web", "search", "*")
        ));
        assert!(!capability_subset(&c, &Capability::new("web", "*", "*")));
        assert!(!capability_subset(
            &c,
            &Capability::new("docs", "search", "*")
        ));
    }

    #[test]
    fn hostile_patterns_are_fast() {
        let pattern = vec!["**"; 32].join("/");
        let resource = vec!["x"; 64].join("/");
        let start = std::time::Instant::now();
        for _ in 0..100 {
            assert!(matches(&pattern, &resource));
            assert!(!matches(&format!("{pattern}/y"), &resource));
            assert!(covers(&pattern, &resource));
        }
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }

    fn seg() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["", "*", "**", "a", "b", "ab"])
    }
    fn path(max: usize) -> impl Strategy<Value = String> {
        prop::collection::vec(seg(), 1..max).prop_map(|v| v.join("/"))
    }
    fn resource() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(vec!["", "a", "b", "ab", "*"]), 1..6)
            .prop_map(|v| v.join("/"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn covers_is_sound(p in path(5), c in path(5), rs in prop::collection::vec(resource(), 32)) {
            if covers(&p, &c) {
                for r in &rs {
                    prop_assert!(!matches(&c, r) || matches(&p, r), "p={p:?} c={c:?} r={r:?}");
                }
            }
        }

        #[test]
        fn covers_is_sound_on_child_instances(p in path(5), c in path(5)) {
            // Instantiate the child's wildcards to concrete resources so that positive
            // examples of the child exist (random resources rarely hit them).
            if covers(&p, &c) {
                for fill in [vec![], vec!["a"], vec!["a", "b"]] {
                    let r = c.split('/').map(|s| match s {
                        "*" => "z".to_owned(),
                        "**" => fill.join("/"),
                        lit => lit.to_owned(),
                    }).collect::<Vec<_>>().join("/");
                    if matches(&c, &r) {
                        prop_assert!(matches(&p, &r), "p={p:?} c={c:?} r={r:?}");
                    }
                }
            }
        }

        #[test]
        fn covers_is_reflexive(p in path(6)) {
            prop_assert!(covers(&p, &p));
        }

        #[test]
        fn project_never_covers_project_x(rest in path(4)) {
            let child = format!("/projectX/{rest}");
            prop_assert!(!covers("/project/**", &child));
            prop_assert!(!matches("/project/**", &child));
        }
    }
}
