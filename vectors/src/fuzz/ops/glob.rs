//! `glob.match`: patterns and resources from the wildcard / segment alphabet (`*`, `**`,
//! `?`, brackets, escapes, dots, empty segments, case and unicode variants), often a
//! resource instantiating the pattern so matches stay likely.

use serde_json::Value;

use super::edit::{self, Edit};
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::Seg;

const WILD: &[&str] = &[
    "*", "**", "***", "?", "[a]", "\\*", "*.md", "a*", "*a", "{a,b}",
];
const PLAIN: &[&str] = &[
    "a", "b", "ab", "A", ".", "..", "", "project", "é", "e\u{301}", "a b", "%2F", "a.md", "-",
];

fn segment(rng: &mut impl Entropy) -> String {
    let set = if rng.below(3) == 0 { WILD } else { PLAIN };
    rng.pick(set).map_or_else(String::new, |s| (*s).to_owned())
}

fn path(rng: &mut impl Entropy) -> String {
    let n = 1 + rng.below(4);
    let segs: Vec<String> = (0..n).map(|_| segment(rng)).collect();
    let lead = if rng.below(4) == 0 { "" } else { "/" };
    let trail = if rng.below(6) == 0 { "/" } else { "" };
    format!("{lead}{}{trail}", segs.join("/"))
}

/// A resource the pattern could match: each wildcard replaced by plain segments.
fn instantiate(rng: &mut impl Entropy, pattern: &str) -> String {
    pattern
        .split('/')
        .map(|seg| match seg {
            "**" => (0..rng.below(3))
                .map(|_| rng.pick(PLAIN).copied().unwrap_or("a").to_owned())
                .collect::<Vec<_>>()
                .join("/"),
            s if s.contains(['*', '?']) => {
                let fill = rng.pick(PLAIN).copied().unwrap_or("a");
                s.replace("**", fill).replace('*', fill).replace('?', "x")
            }
            s => s.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn splice(rng: &mut impl Entropy, s: &str) -> String {
    let mut segs: Vec<String> = s.split('/').map(str::to_owned).collect();
    let i = rng.below(segs.len());
    match rng.below(4) {
        0 => {
            let seg = segment(rng);
            segs.insert(i, seg);
        }
        1 if segs.len() > 1 => {
            segs.remove(i);
        }
        2 => {
            if let Some(s) = segs.get(i).cloned() {
                segs.insert(i, s);
            }
        }
        _ => {
            let seg = segment(rng);
            if let Some(slot) = segs.get_mut(i) {
                *slot = seg;
            }
        }
    }
    segs.join("/")
}

/// One edit of `pattern` or `resource`.
pub fn random_edit(rng: &mut impl Entropy, view: &Value) -> Option<Edit> {
    let pattern = view.get("pattern").and_then(Value::as_str).unwrap_or("*");
    let resource = view.get("resource").and_then(Value::as_str).unwrap_or("");
    let set = |k: &str, v: String| Edit::Set {
        path: vec![Seg::Key(k.to_owned())],
        value: Value::from(v),
    };
    Some(match rng.below(8) {
        0 => set("pattern", path(rng)),
        1 => set("pattern", splice(rng, pattern)),
        2 => set("resource", instantiate(rng, pattern)),
        3 => set("resource", splice(rng, resource)),
        4 => set("resource", path(rng)),
        5 => set("resource", edit::tweak_string(rng, resource)),
        6 => set("pattern", edit::tweak_string(rng, pattern)),
        _ => {
            let p = path(rng);
            let r = instantiate(rng, &p);
            // Two edits' worth in one: a fresh pattern with a resource it likely matches.
            return Some(Edit::Set {
                path: Vec::new(),
                value: serde_json::json!({ "pattern": p, "resource": r }),
            });
        }
    })
}

/// `glob.match`.
#[derive(Debug)]
pub struct Match;

impl super::Fuzzable for Match {
    fn name(&self) -> &'static str {
        "glob.match"
    }

    fn random_edit(&self, mut rng: &mut dyn Entropy, view: &Value, _input: &Value) -> Option<Edit> {
        random_edit(&mut rng, view)
    }
}

/// The operations this family fuzzes (the registry takes those whose catalogue row names
/// `glob`).
pub static FUZZABLE: &[&dyn super::Fuzzable] = &[&Match];
