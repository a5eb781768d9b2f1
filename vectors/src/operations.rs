//! The operation catalogue of `spec/operations.md` (embedded): the names an adapter may
//! declare in `hello` and a vector may use as `op`.
//!
//! Names are read from the catalogue itself (the first cell of each operation table row, and
//! the operations §11 and §11a name in prose), so the list has a single source.

/// `spec/operations.md`, embedded at build time.
pub const EMBEDDED: &str = include_str!("../../spec/operations.md");

fn is_op_name(s: &str) -> bool {
    let mut parts = s.split('.');
    let first_ok = parts.next().is_some_and(|p| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    });
    let rest: Vec<&str> = parts.collect();
    first_ok
        && !rest.is_empty()
        && rest.iter().all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
}

fn backticked(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

/// Parses the operation names of an `operations.md` text, sorted and deduplicated.
pub fn parse(text: &str) -> Vec<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut prose_section = false;
    for line in text.lines() {
        if line.starts_with("## ") {
            prose_section = line.starts_with("## 11. ") || line.starts_with("## 11a. ");
            continue;
        }
        if let Some(cell) = line.strip_prefix("| `") {
            if let Some(name) = cell.split('`').next() {
                if is_op_name(name) {
                    out.insert(name.to_owned());
                }
            }
        } else if prose_section {
            for name in backticked(line).filter(|n| is_op_name(n)) {
                out.insert(name.to_owned());
            }
        }
    }
    out.into_iter().collect()
}

/// The operation names of the embedded catalogue.
pub fn names() -> Vec<&'static str> {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES
        .get_or_init(|| parse(EMBEDDED))
        .iter()
        .map(String::as_str)
        .collect()
}

/// True if `op` is in the catalogue.
pub fn is_known(op: &str) -> bool {
    names().contains(&op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalogue_lists_every_operation_family() {
        let n = names();
        for op in [
            "json.canonicalize",
            "dct.verify",
            "glob.match",
            "capability.subset",
            "revocation.from_json",
            "check.run",
            "output.verify",
            "chain.verify",
            "jsonrpc.classify",
            "mcp.call",
            "mcp.filter_tools",
            "profile.lint",
        ] {
            assert!(n.contains(&op), "{op} missing from {n:?}");
        }
        assert!(!is_known("dct.verfy"));
    }
}
