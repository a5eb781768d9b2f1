//! The byte-level handling of one client line by the reference proxy (`spec/mcp-proxy.md`,
//! D35): cut every `_delegateos` member out of `params` while keeping every other byte of the
//! line (so `arguments` reach the upstream byte-identical), and refuse duplicate member names at
//! the top level and in `params`, on which parsers disagree.
//!
//! This is framing, not a plugin decision: the decisions are `delegateos_reference::mcp`'s, on
//! the parsed message; the proxy suite (`mcp-escaped-member-names`, `mcp-duplicate-members`,
//! `mcp-raw-line-separators`) tests what the proxy does with these bytes.

/// Why [`strip_delegateos_raw`] refused a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawError {
    /// Not a single JSON object.
    NotAnObject,
    /// The top-level object or its `params` has a duplicate member name; parsers disagree on
    /// which one wins, so such a `tools/call` must not be forwarded.
    DuplicateKey,
}

/// Removes every `_delegateos` member from the top-level `params` object of a raw JSON-RPC
/// line, keeping every other byte of every other member (so `arguments` stay byte-identical).
/// Whitespace between the members of `params` is normalised away. Rejects duplicate member
/// names at the top level and inside `params`.
pub fn strip_delegateos_raw(line: &[u8]) -> Result<Vec<u8>, RawError> {
    let top = object_members(line, skip_ws(line, 0)).ok_or(RawError::NotAnObject)?;
    if line[top.end..].iter().any(|b| !is_ws(*b)) {
        return Err(RawError::NotAnObject);
    }
    check_unique(&top.members)?;
    let mut out = Vec::with_capacity(line.len());
    let mut cursor = 0;
    for m in &top.members {
        if m.key != "params" || line.get(m.value_start) != Some(&b'{') {
            continue;
        }
        let params = object_members(line, m.value_start).ok_or(RawError::NotAnObject)?;
        check_unique(&params.members)?;
        out.extend_from_slice(&line[cursor..m.value_start]);
        out.push(b'{');
        let kept: Vec<&[u8]> = params
            .members
            .iter()
            .filter(|pm| pm.key != "_delegateos")
            .map(|pm| &line[pm.key_start..pm.value_end])
            .collect();
        out.extend_from_slice(&kept.join(&b","[..]));
        out.push(b'}');
        cursor = m.value_end;
    }
    out.extend_from_slice(&line[cursor..]);
    Ok(out)
}

struct Member {
    key: String,
    key_start: usize,
    value_start: usize,
    value_end: usize,
}

struct Object {
    members: Vec<Member>,
    end: usize,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && is_ws(s[i]) {
        i += 1;
    }
    i
}

fn check_unique(members: &[Member]) -> Result<(), RawError> {
    let mut seen = std::collections::BTreeSet::new();
    for m in members {
        if !seen.insert(m.key.as_str()) {
            return Err(RawError::DuplicateKey);
        }
    }
    Ok(())
}

/// End (exclusive) of the JSON string starting at `i` (which must be `"`).
fn scan_string(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    while j < s.len() {
        match s[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// End (exclusive) of the JSON value starting at `i`. Iterative, so deep nesting cannot
/// overflow the stack.
fn scan_value(s: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut j = i;
    loop {
        j = skip_ws(s, j);
        let c = *s.get(j)?;
        match c {
            b'"' => j = scan_string(s, j)?,
            b'{' | b'[' => {
                depth += 1;
                j += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                j += 1;
            }
            b',' | b':' if depth > 0 => j += 1,
            _ => {
                let start = j;
                while j < s.len() && !matches!(s[j], b',' | b']' | b'}' | b':') && !is_ws(s[j]) {
                    j += 1;
                }
                if j == start {
                    return None;
                }
            }
        }
        if depth == 0 {
            return Some(j);
        }
    }
}

fn object_members(s: &[u8], start: usize) -> Option<Object> {
    if s.get(start) != Some(&b'{') {
        return None;
    }
    let mut members = Vec::new();
    let mut i = skip_ws(s, start + 1);
    if s.get(i) == Some(&b'}') {
        return Some(Object {
            members,
            end: i + 1,
        });
    }
    loop {
        let key_start = i;
        let key_end = scan_string(s, key_start)?;
        let key: String = serde_json::from_slice(&s[key_start..key_end]).ok()?;
        i = skip_ws(s, key_end);
        if s.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(s, i + 1);
        let value_end = scan_value(s, value_start)?;
        members.push(Member {
            key,
            key_start,
            value_start,
            value_end,
        });
        i = skip_ws(s, value_end);
        match s.get(i) {
            Some(b',') => i = skip_ws(s, i + 1),
            Some(b'}') => {
                return Some(Object {
                    members,
                    end: i + 1,
                })
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_strip_keeps_other_bytes() {
        let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{ "_delegateos" : {"dct":"a,}"}, "name":"t","arguments":{ "b" :1,"a":[1, 2]} ,"_meta":{}}}"#;
        let out = strip_delegateos_raw(line).unwrap();
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{ "b" :1,"a":[1, 2]},"_meta":{}}}"#
        );
        let escaped = br#"{"params":{"\u005fdelegateos":1,"name":"t"}}"#;
        assert_eq!(
            strip_delegateos_raw(escaped).unwrap(),
            br#"{"params":{"name":"t"}}"#.to_vec()
        );
        assert_eq!(
            strip_delegateos_raw(br#"{"params":{"a":1,"a":2}}"#),
            Err(RawError::DuplicateKey)
        );
        assert_eq!(
            strip_delegateos_raw(br#"{"params":{},"params":{}}"#),
            Err(RawError::DuplicateKey)
        );
        assert_eq!(strip_delegateos_raw(b"[1]"), Err(RawError::NotAnObject));
        assert_eq!(
            strip_delegateos_raw(br#"{"a":1} x"#),
            Err(RawError::NotAnObject)
        );
        let deep = format!(
            "{{\"params\":{{\"a\":{}{}}}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(strip_delegateos_raw(deep.as_bytes()).is_ok());
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;
        use serde_json::{json, Map, Value};

        fn json_value() -> impl Strategy<Value = Value> {
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(|n| json!(n)),
                "[a-z\\\\\"\u{e9}\u{2028}_ ,:{}\\[\\]]{0,8}".prop_map(Value::String),
            ];
            leaf.prop_recursive(4, 32, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    prop::collection::btree_map("[a-z_]{1,4}", inner, 0..4)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                ]
            })
        }

        proptest! {
            /// Stripping never panics on arbitrary bytes.
            #[test]
            fn never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
                let _ = strip_delegateos_raw(&bytes);
            }

            /// On valid JSON the result parses to the input minus `params._delegateos`.
            #[test]
            fn agrees_with_the_parsed_view(params in prop::collection::btree_map("[a-z_]{1,4}", json_value(), 0..5),
                                          envelope in json_value(), pretty in any::<bool>()) {
                let mut params: Map<String, Value> = params.into_iter().collect();
                params.insert("_delegateos".into(), envelope);
                let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
                let text = if pretty { serde_json::to_string_pretty(&msg).unwrap() } else { msg.to_string() };
                let out = strip_delegateos_raw(text.as_bytes()).unwrap();
                let parsed: Value = serde_json::from_slice(&out).unwrap();
                let mut expected = msg.clone();
                expected["params"].as_object_mut().unwrap().remove("_delegateos");
                prop_assert_eq!(parsed, expected);
            }
        }
    }
}
