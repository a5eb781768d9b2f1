//! Structure-aware edits of a JSON document (an operation's input, or its decoded view): the
//! replayable unit the per-operation mutators produce and the minimizer drops one at a time.
//!
//! An edit whose path no longer exists (an earlier edit removed it, or minimization dropped the
//! edit that created it) is a no-op: every edit list builds some document, never a panic.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::text::TextEdit;
use crate::fuzz::entropy::Entropy;
use crate::fuzz::mutate::Seg;

/// Nodes visited when picking a random node (bounds time on huge inputs).
const MAX_NODES: usize = 4096;
/// Deepest node a random pick descends to.
const MAX_DEPTH: usize = 16;

/// One edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum Edit {
    /// Replace (or add, in an object) the node at `path`.
    Set {
        /// Where.
        path: Vec<Seg>,
        /// The new value.
        value: Value,
    },
    /// Remove the member or element at `path`.
    Remove {
        /// Where.
        path: Vec<Seg>,
    },
    /// Duplicate the array element at `path` (the copy goes right after it).
    Duplicate {
        /// Where.
        path: Vec<Seg>,
    },
    /// Swap the array element at `path` with the next one.
    Swap {
        /// Where.
        path: Vec<Seg>,
    },
    /// A textual edit of the string at `path` of the encoded input (JSON text fields:
    /// `json.canonicalize`'s `text`, `revocation.from_json`'s `json`), applied after the
    /// structured edits and re-signing.
    Text {
        /// Where (in the encoded input).
        path: Vec<Seg>,
        /// What.
        text: TextEdit,
    },
}

impl Edit {
    /// The field the edit touched, for finding kinds: the path with array indices as `[]`
    /// (`contract.task.title`, `entries[].scope`), and the text edit's kind for text edits.
    pub fn field(&self) -> String {
        match self {
            Self::Set { path, .. } => label(path),
            Self::Remove { path } => format!("{}:removed", label(path)),
            Self::Duplicate { path } => format!("{}:duplicated", label(path)),
            Self::Swap { path } => format!("{}:swapped", label(path)),
            Self::Text { path, text } => format!("{}:{}", label(path), text.kind()),
        }
    }

    /// True for [`Edit::Text`].
    pub fn is_text(&self) -> bool {
        matches!(self, Self::Text { .. })
    }
}

/// A path as a label: keys joined by `.`, indices as `[]`.
pub fn label(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Index(_) => out.push_str("[]"),
        }
    }
    if out.is_empty() {
        "input".to_owned()
    } else {
        out
    }
}

/// The node at `path`.
pub fn get<'v>(root: &'v Value, path: &[Seg]) -> Option<&'v Value> {
    path.iter().try_fold(root, |v, seg| match seg {
        Seg::Key(k) => v.as_object()?.get(k),
        Seg::Index(i) => v.as_array()?.get(*i),
    })
}

fn get_mut<'v>(root: &'v mut Value, path: &[Seg]) -> Option<&'v mut Value> {
    path.iter().try_fold(root, |v, seg| match seg {
        Seg::Key(k) => v.as_object_mut()?.get_mut(k),
        Seg::Index(i) => v.as_array_mut()?.get_mut(*i),
    })
}

/// Applies one structured edit to `doc` ([`Edit::Text`] is applied by the caller to the
/// encoded input, see [`apply_text`]).
pub fn apply(doc: &mut Value, edit: &Edit) {
    match edit {
        Edit::Set { path, value } => {
            let Some((last, parent)) = path.split_last() else {
                *doc = value.clone();
                return;
            };
            match (get_mut(doc, parent), last) {
                (Some(Value::Object(m)), Seg::Key(k)) => {
                    m.insert(k.clone(), value.clone());
                }
                (Some(Value::Array(a)), Seg::Index(i)) => {
                    if let Some(slot) = a.get_mut(*i) {
                        *slot = value.clone();
                    }
                }
                _ => {}
            }
        }
        Edit::Remove { path } => {
            let Some((last, parent)) = path.split_last() else {
                return;
            };
            match (get_mut(doc, parent), last) {
                (Some(Value::Object(m)), Seg::Key(k)) => {
                    m.remove(k);
                }
                (Some(Value::Array(a)), Seg::Index(i)) if *i < a.len() => {
                    a.remove(*i);
                }
                _ => {}
            }
        }
        Edit::Duplicate { path } | Edit::Swap { path } => {
            let Some((Seg::Index(i), parent)) = path.split_last() else {
                return;
            };
            let Some(Value::Array(a)) = get_mut(doc, parent) else {
                return;
            };
            if matches!(edit, Edit::Duplicate { .. }) {
                if let Some(v) = a.get(*i).cloned() {
                    a.insert(*i + 1, v);
                }
            } else if *i + 1 < a.len() {
                a.swap(*i, *i + 1);
            }
        }
        Edit::Text { .. } => {}
    }
}

/// Applies a text edit to the string at its path of the encoded input.
pub fn apply_text(input: &mut Value, edit: &Edit) {
    if let Edit::Text { path, text } = edit {
        if let Some(Value::String(s)) = get_mut(input, path) {
            *s = text.apply(s);
        }
    }
}

/// Every node's path (bounded by `MAX_NODES` and `MAX_DEPTH`) under `prefix` (the part
/// of the document the mutator may edit), the prefix node included, the root excluded.
pub fn paths(doc: &Value, prefix: &[Seg]) -> Vec<Vec<Seg>> {
    let mut out = Vec::new();
    let Some(start) = get(doc, prefix) else {
        return out;
    };
    let mut stack = vec![(prefix.to_vec(), start)];
    while let Some((path, v)) = stack.pop() {
        if out.len() >= MAX_NODES {
            break;
        }
        // The prefix node itself too (a scalar `output` is replaced whole), never the root.
        if !path.is_empty() {
            out.push(path.clone());
        }
        if path.len() >= MAX_DEPTH {
            continue;
        }
        match v {
            Value::Object(m) => {
                for (k, child) in m {
                    let mut p = path.clone();
                    p.push(Seg::Key(k.clone()));
                    stack.push((p, child));
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    let mut p = path.clone();
                    p.push(Seg::Index(i));
                    stack.push((p, child));
                }
            }
            _ => {}
        }
    }
    // Stable order whatever the traversal: the same seed picks the same node.
    out.sort_by_key(|p| label(p));
    out
}

/// Values of another JSON type (or an edge of the same type), for any node.
pub fn type_changes() -> Vec<Value> {
    vec![
        Value::Null,
        Value::Bool(true),
        Value::Bool(false),
        Value::from(0),
        Value::from(-1),
        Value::from(1.5),
        Value::from(9_007_199_254_740_992_u64),
        Value::from(""),
        Value::from("x"),
        Value::Array(Vec::new()),
        Value::Object(Map::new()),
    ]
}

/// A value of another JSON type that loose comparisons take for equal (`1` ↔ `1.0` ↔ `true`,
/// `0` ↔ `false`, a number ↔ its string), or `None`.
pub fn retyped(v: &Value) -> Option<Value> {
    match v {
        Value::Bool(b) => Some(Value::from(u8::from(*b))),
        Value::Number(n) => match n.as_f64() {
            Some(x) if x == 1.0 || x == 0.0 => Some(Value::Bool(x == 1.0)),
            Some(x) if n.is_f64() && x.fract() == 0.0 && x.abs() < 1e15 => {
                // Exact: |x| < 1e15 and integral.
                #[allow(clippy::cast_possible_truncation)]
                Some(Value::from(x as i64))
            }
            Some(x) => serde_json::Number::from_f64(x)
                .filter(|_| !n.is_f64())
                .map(Value::Number)
                .or_else(|| Some(Value::from(n.to_string()))),
            None => None,
        },
        Value::String(s) => s.parse::<i64>().ok().map(Value::from),
        _ => None,
    }
}

/// A tweak of a string: case flip, truncation, doubling, surrounding whitespace, a NUL, a
/// combining mark, a trailing newline.
pub fn tweak_string(rng: &mut impl Entropy, s: &str) -> String {
    match rng.below(9) {
        0 => s.to_uppercase(),
        1 => s.to_lowercase(),
        2 => s.chars().take(s.chars().count() / 2).collect(),
        3 => format!("{s}{s}"),
        4 => format!(" {s}"),
        5 => format!("{s}\n"),
        6 => format!("{s}\u{0}"),
        7 => format!("{s}\u{301}"),
        _ => {
            let mut c: Vec<char> = s.chars().collect();
            if !c.is_empty() {
                let i = rng.below(c.len());
                c.remove(i);
            }
            c.into_iter().collect()
        }
    }
}

/// A generic structure-aware edit of a random node under `prefix`: a value from
/// `dictionary(key)` (the operation's interesting values for a member of that name), a
/// type change, a string tweak, removal, duplication or reordering of an array element, or
/// an unknown member. `None` when there is no node.
pub fn random(
    rng: &mut impl Entropy,
    doc: &Value,
    prefix: &[Seg],
    dictionary: &dyn Fn(&str) -> Vec<Value>,
) -> Option<Edit> {
    let all = paths(doc, prefix);
    let path = rng.pick(&all)?.clone();
    let node = get(doc, &path)?;
    let key = path
        .iter()
        .rev()
        .find_map(|s| match s {
            Seg::Key(k) => Some(k.as_str()),
            Seg::Index(_) => None,
        })
        .unwrap_or("");
    let in_array = matches!(path.last(), Some(Seg::Index(_)));
    let edit = match rng.below(11) {
        10 => match retyped(node) {
            Some(value) => Edit::Set { path, value },
            None => Edit::Remove { path },
        },
        0..=3 => {
            let dict = dictionary(key);
            match rng.pick(&dict) {
                Some(v) => Edit::Set {
                    path,
                    value: v.clone(),
                },
                None => Edit::Set {
                    path,
                    value: rng.pick(&type_changes()).cloned().unwrap_or(Value::Null),
                },
            }
        }
        4 => Edit::Set {
            path,
            value: rng.pick(&type_changes()).cloned().unwrap_or(Value::Null),
        },
        5 => match node {
            Value::String(s) => Edit::Set {
                value: Value::String(tweak_string(rng, s)),
                path,
            },
            Value::Number(n) => Edit::Set {
                value: n
                    .as_i64()
                    .map_or(Value::from(0), |i| Value::from(i.saturating_add(1))),
                path,
            },
            _ => Edit::Remove { path },
        },
        6 => Edit::Remove { path },
        7 if in_array => Edit::Duplicate { path },
        7 => {
            let mut p = path;
            p.pop();
            p.push(Seg::Key("x-unknown".to_owned()));
            Edit::Set {
                path: p,
                value: Value::from(1),
            }
        }
        8 if in_array => Edit::Swap { path },
        _ => {
            // A dictionary value for a sibling member that may be absent.
            let dict = dictionary(key);
            Edit::Set {
                value: rng.pick(&dict).cloned().unwrap_or(Value::Null),
                path,
            }
        }
    };
    Some(edit)
}
