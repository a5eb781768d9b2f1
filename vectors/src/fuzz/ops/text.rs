//! Edits of JSON *text* (`json.canonicalize`'s `text`, `revocation.from_json`'s `json`): number
//! spellings, string escapes, duplicate keys, nesting depth, unicode, BOM, whitespace and
//! trailing garbage, spliced at value positions a small scanner finds (outside strings).

use serde::{Deserialize, Serialize};

use crate::fuzz::entropy::Entropy;

/// Number spellings: exponent forms, negative zero, I-JSON edges and beyond, non-JSON forms.
pub const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "1.0",
    "1e2",
    "1E+2",
    "1e-7",
    "1e21",
    "1e20",
    "0.1",
    "5e-324",
    "1e400",
    "-1e400",
    "9007199254740993",
    "123456789012345678901234567890",
    "1.7976931348623157e308",
    "0.000001",
    "1e-6",
    "2.5E-3",
    "01",
    "+1",
    ".5",
    "1.",
    "0x10",
    "NaN",
    "Infinity",
    "-",
];

/// String spellings: escapes (valid and not), lone surrogates, non-BMP, line separators.
pub const STRINGS: &[&str] = &[
    r#""""#,
    r#""\u00e9""#,
    "\"é\"",
    r#""\ud800""#,
    r#""\udc00x""#,
    r#""\ud83d\ude00""#,
    "\"😀\"",
    r#""\/""#,
    r#""\u0000""#,
    r#""\u001f""#,
    "\"\u{7f}\"",
    "\"\u{2028}\"",
    r#""\x41""#,
    r#""\'""#,
    "\"tab\there\"",
    r#""\uDBFF\uDFFF""#,
    "\"\u{fffd}\"",
    r#""\u20ac""#,
    "\"e\u{301}\"",
    r#""a\"b""#,
];

/// Other scalar and container spellings.
pub const OTHERS: &[&str] = &[
    "true",
    "false",
    "null",
    "True",
    "nul",
    "[]",
    "{}",
    "[1,]",
    "{\"a\":1,}",
    "[1 2]",
    "{\"a\" 1}",
    "'x'",
    "[[[]]]",
];

/// Keys whose order differs between UTF-16 code units and code points (RFC 8785 sorts by
/// UTF-16), plus an empty key and escapes.
pub const KEYS: &[&str] = &[
    "a", "b", "", "\u{e000}", "😀", "\u{ffff}", "é", "e\u{301}", "A", "aa", "\\u0061", "1", "10",
    "2",
];

/// One textual edit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TextEdit {
    /// Replace the `n`-th value (mod the number of values) with `with`.
    ReplaceValue {
        /// Which value.
        n: usize,
        /// Its new spelling.
        with: String,
    },
    /// Insert member `"key":value,` at the start of the `n`-th object (a duplicate when the
    /// key is already there).
    InsertMember {
        /// Which object.
        n: usize,
        /// Member name (JSON-escaped already).
        key: String,
        /// Member value spelling.
        value: String,
    },
    /// Wrap the whole text in `depth` arrays.
    Nest {
        /// How deep.
        depth: usize,
    },
    /// Text before and after (BOM, whitespace, garbage).
    Surround {
        /// Before.
        before: String,
        /// After.
        after: String,
    },
    /// Replace the whole text.
    Whole {
        /// The new text.
        text: String,
    },
}

impl TextEdit {
    /// Kind label for finding kinds.
    pub fn kind(&self) -> String {
        match self {
            Self::ReplaceValue { with, .. } => format!("value:{}", spelling_class(with)),
            Self::InsertMember { .. } => "member".to_owned(),
            Self::Nest { .. } => "nesting".to_owned(),
            Self::Surround { .. } => "surround".to_owned(),
            Self::Whole { .. } => "whole".to_owned(),
        }
    }

    /// The edited text (the text itself when the edit does not apply).
    pub fn apply(&self, text: &str) -> String {
        match self {
            Self::ReplaceValue { n, with } => {
                let spans = value_spans(text);
                match spans.get(n % spans.len().max(1)) {
                    Some(&(start, end)) => {
                        format!(
                            "{}{with}{}",
                            text.get(..start).unwrap_or(""),
                            text.get(end..).unwrap_or("")
                        )
                    }
                    None => text.to_owned(),
                }
            }
            Self::InsertMember { n, key, value } => {
                let objects = object_starts(text);
                let Some(&at) = objects.get(n % objects.len().max(1)) else {
                    return text.to_owned();
                };
                let rest = text.get(at + 1..).unwrap_or("");
                let empty = rest.trim_start().starts_with('}');
                let sep = if empty { "" } else { "," };
                format!(
                    "{}\"{key}\":{value}{sep}{rest}",
                    text.get(..=at).unwrap_or("")
                )
            }
            Self::Nest { depth } => {
                let d = (*depth).min(64);
                format!("{}{text}{}", "[".repeat(d), "]".repeat(d))
            }
            Self::Surround { before, after } => format!("{before}{text}{after}"),
            Self::Whole { text } => text.clone(),
        }
    }
}

fn spelling_class(s: &str) -> &'static str {
    match s.chars().next() {
        Some('"') => "string",
        Some('[' | '{') => "container",
        Some('-' | '+' | '.' | '0'..='9') => "number",
        _ => "literal",
    }
}

/// Byte spans of every value in `text` (scalars and containers), outside strings, in order.
/// Scans at most 64 KiB.
fn value_spans(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let limit = bytes.len().min(64 * 1024);
    let mut spans = Vec::new();
    let mut expect_value = true;
    let mut stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < limit {
        let c = bytes.get(i).copied().unwrap_or(b' ');
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'"' => {
                let end = string_end(bytes, i);
                // A string followed by ':' is a key.
                let mut j = end;
                while matches!(bytes.get(j), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                    j += 1;
                }
                if bytes.get(j) != Some(&b':') && expect_value {
                    spans.push((i, end));
                }
                expect_value = false;
                i = end;
            }
            b'[' | b'{' => {
                stack.push(i);
                expect_value = c == b'[';
                i += 1;
            }
            b']' | b'}' => {
                if let Some(start) = stack.pop() {
                    spans.push((start, i + 1));
                }
                expect_value = false;
                i += 1;
            }
            b',' | b':' => {
                expect_value = true;
                i += 1;
            }
            _ => {
                let start = i;
                while i < limit
                    && !matches!(
                        bytes.get(i),
                        Some(b',' | b']' | b'}' | b':' | b' ' | b'\t' | b'\n' | b'\r' | b'"')
                    )
                {
                    i += 1;
                }
                if expect_value {
                    spans.push((start, i));
                }
                expect_value = false;
            }
        }
    }
    // Only spans on char boundaries (always true for ASCII delimiters; defensive).
    spans.retain(|&(s, e)| text.is_char_boundary(s) && text.is_char_boundary(e));
    spans.sort_unstable();
    spans
}

fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn object_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len().min(64 * 1024) {
        match bytes.get(i) {
            Some(b'"') => i = string_end(bytes, i),
            Some(b'{') => {
                out.push(i);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The keys of `text`'s objects (raw, still escaped), for duplicate-key edits.
fn keys_of(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len().min(64 * 1024) {
        if bytes.get(i) == Some(&b'"') {
            let end = string_end(bytes, i);
            let mut j = end;
            while matches!(bytes.get(j), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                j += 1;
            }
            if bytes.get(j) == Some(&b':') {
                if let Some(k) = text.get(i + 1..end.saturating_sub(1)) {
                    out.push(k.to_owned());
                }
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

fn pick_str(rng: &mut impl Entropy, items: &[&str]) -> String {
    rng.pick(items)
        .map_or_else(String::new, |s| (*s).to_owned())
}

/// A random value spelling.
pub fn random_value(rng: &mut impl Entropy) -> String {
    match rng.below(4) {
        0 | 1 => pick_str(rng, NUMBERS),
        2 => pick_str(rng, STRINGS),
        _ => pick_str(rng, OTHERS),
    }
}

/// A small random JSON-ish document (objects with tricky keys, numbers, strings).
pub fn random_document(rng: &mut impl Entropy, depth: usize) -> String {
    if depth == 0 {
        return random_value(rng);
    }
    match rng.below(3) {
        0 => {
            let n = rng.below(4);
            let members: Vec<String> = (0..n)
                .map(|_| {
                    format!(
                        "\"{}\":{}",
                        pick_str(rng, KEYS),
                        random_document(rng, depth - 1)
                    )
                })
                .collect();
            format!("{{{}}}", members.join(","))
        }
        1 => {
            let n = rng.below(4);
            let items: Vec<String> = (0..n).map(|_| random_document(rng, depth - 1)).collect();
            format!("[{}]", items.join(","))
        }
        _ => random_value(rng),
    }
}

/// A random text edit of `text`.
pub fn random(rng: &mut impl Entropy, text: &str) -> TextEdit {
    match rng.below(12) {
        0..=4 => TextEdit::ReplaceValue {
            n: rng.below(64),
            with: if rng.below(4) == 0 {
                random_document(rng, 2)
            } else {
                random_value(rng)
            },
        },
        5..=7 => {
            let existing = keys_of(text);
            let key = if rng.below(2) == 0 && !existing.is_empty() {
                rng.pick(&existing).cloned().unwrap_or_default()
            } else {
                pick_str(rng, KEYS)
            };
            TextEdit::InsertMember {
                n: rng.below(16),
                key,
                value: random_value(rng),
            }
        }
        8 => TextEdit::Nest {
            depth: 28 + rng.below(8),
        },
        9 => {
            let options = [
                ("\u{feff}", ""),
                (" ", "\n"),
                ("", " x"),
                ("", ","),
                ("\t", "\r\n"),
                ("", "\u{0}"),
            ];
            let (b, a) = rng.pick(&options).copied().unwrap_or(("", ""));
            TextEdit::Surround {
                before: b.to_owned(),
                after: a.to_owned(),
            }
        }
        _ => TextEdit::Whole {
            text: random_document(rng, 3),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_spans_find_scalars_and_containers_not_keys() {
        let t = r#"{"a":1,"b":[true,"x"]}"#;
        let spans: Vec<&str> = value_spans(t)
            .into_iter()
            .filter_map(|(s, e)| t.get(s..e))
            .collect();
        assert_eq!(spans, vec![t, "1", "[true,\"x\"]", "true", "\"x\""]);
    }

    /// Any edit on any text (multibyte, unbalanced, empty) yields a string: no panic.
    #[test]
    fn random_edits_never_panic() {
        let texts = [
            "",
            "{",
            "}}]]",
            "\"unterminated",
            "{\"é\":\"😀\",\"a\":[1,{\"b\":\"\\\"\"}]}",
            "[\"\u{2028}\", -0, 1e400]",
            "😀😀😀",
        ];
        let mut rng = crate::fuzz::entropy::Rng::new(9);
        for t in texts {
            for _ in 0..200 {
                let e = random(&mut rng, t);
                let out = e.apply(t);
                assert!(out.len() <= t.len() + 4096, "bounded growth");
            }
        }
    }

    #[test]
    fn edits_apply() {
        let t = r#"{"a":1}"#;
        let dup = TextEdit::InsertMember {
            n: 0,
            key: "a".to_owned(),
            value: "2".to_owned(),
        };
        assert_eq!(dup.apply(t), r#"{"a":2,"a":1}"#);
        let num = TextEdit::ReplaceValue {
            n: 1,
            with: "1e400".to_owned(),
        };
        assert_eq!(num.apply(t), r#"{"a":1e400}"#);
        assert_eq!(TextEdit::Nest { depth: 2 }.apply("1"), "[[1]]");
        let empty = TextEdit::InsertMember {
            n: 0,
            key: "k".to_owned(),
            value: "0".to_owned(),
        };
        assert_eq!(empty.apply("{}"), r#"{"k":0}"#);
    }
}
