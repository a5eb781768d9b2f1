//! The operation catalogue of `spec/operations.md` (embedded): the names an adapter may
//! declare in `hello` and a vector may use as `op`.
//!
//! Names are read from the catalogue itself (the first cell of each operation table row, and
//! the operations §11 and §11a name in prose), so the list has a single source.

/// `spec/operations.md`, embedded at build time.
pub const EMBEDDED: &str = include_str!("../spec/operations.md");

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

/// One operation of the catalogue as `spec/operations.md` describes it: the single source of
/// the stubs `delegateos-conform new-adapter` writes in every language and of the methods of the
/// in-process trait (`delegateos-inprocess`), so neither can drift from the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationDoc {
    /// `dct.verify`.
    pub name: String,
    /// The catalogue section it is listed in, e.g. `3`.
    pub section: String,
    /// That section's title, e.g. `Delegation capability tokens (§3, §10.1)`.
    pub section_title: String,
    /// The input cell (markdown, `\|` unescaped); for the operations specified in prose, the
    /// section's prose.
    pub input: String,
    /// The "ok output" cell.
    pub output: String,
    /// The "error codes" cell (`—` when none).
    pub errors: String,
    /// The spec function it mirrors (§11b), if listed.
    pub mirrors: String,
}

/// Splits a markdown table row into its cells (`\|` is an escaped bar inside a cell).
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                if let Some(last) = out.last_mut() {
                    last.push('|');
                }
            }
            '|' => out.push(String::new()),
            c => {
                if let Some(last) = out.last_mut() {
                    last.push(c);
                }
            }
        }
    }
    out.into_iter().map(|c| c.trim().to_owned()).collect()
}

/// Parses the catalogue's operation tables (and the operations §11 and §11a specify in prose)
/// into one [`OperationDoc`] per operation, in catalogue order. Every name [`parse`] returns is
/// present.
pub fn parse_docs(text: &str) -> Vec<OperationDoc> {
    let mut docs: Vec<OperationDoc> = Vec::new();
    let mut mirrors: Vec<(String, String)> = Vec::new();
    let (mut section, mut title) = (String::new(), String::new());
    let mut prose = String::new();
    let flush_prose = |docs: &mut Vec<OperationDoc>, section: &str, title: &str, prose: &str| {
        if !(section == "11" || section == "11a") {
            return;
        }
        let text = prose.split_whitespace().collect::<Vec<_>>().join(" ");
        for name in prose
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|n| is_op_name(n))
        {
            if !docs.iter().any(|d| d.name == name) {
                docs.push(OperationDoc {
                    name: name.to_owned(),
                    section: section.to_owned(),
                    section_title: title.to_owned(),
                    input: text.clone(),
                    output: String::new(),
                    errors: String::new(),
                    mirrors: String::new(),
                });
            }
        }
    };
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            flush_prose(&mut docs, &section, &title, &prose);
            prose.clear();
            let (num, rest) = heading.split_once(". ").unwrap_or(("", heading));
            section = num.to_owned();
            title = rest.trim().to_owned();
            continue;
        }
        if section == "11" || section == "11a" {
            prose.push_str(line);
            prose.push('\n');
            continue;
        }
        if !line.starts_with("| `") {
            continue;
        }
        let row = cells(line);
        if section == "11b" {
            if let (Some(ops), Some(function)) = (row.first(), row.get(1)) {
                for name in ops.split('`').skip(1).step_by(2).filter(|n| is_op_name(n)) {
                    mirrors.push((name.to_owned(), function.clone()));
                }
            }
            continue;
        }
        let Some(name) = row.first().and_then(|c| c.split('`').nth(1)) else {
            continue;
        };
        if !is_op_name(name) || docs.iter().any(|d| d.name == name) {
            continue;
        }
        let cell = |i: usize| row.get(i).cloned().unwrap_or_default();
        docs.push(OperationDoc {
            name: name.to_owned(),
            section: section.clone(),
            section_title: title.clone(),
            input: cell(1),
            output: cell(2),
            errors: cell(3),
            mirrors: String::new(),
        });
    }
    flush_prose(&mut docs, &section, &title, &prose);
    for (name, function) in mirrors {
        if let Some(d) = docs.iter_mut().find(|d| d.name == name) {
            d.mirrors = function;
        }
    }
    docs
}

/// [`parse_docs`] of the embedded catalogue.
pub fn docs() -> &'static [OperationDoc] {
    static DOCS: std::sync::OnceLock<Vec<OperationDoc>> = std::sync::OnceLock::new();
    DOCS.get_or_init(|| parse_docs(EMBEDDED))
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

    #[test]
    fn every_catalogued_operation_has_its_documentation() {
        let docs = docs();
        let mut names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, names_sorted(), "parse_docs and parse disagree");
        let verify = docs
            .iter()
            .find(|d| d.name == "dct.verify")
            .expect("dct.verify");
        assert_eq!(verify.section, "3");
        assert!(
            verify
                .input
                .starts_with("`{token: SerializedDCT, context}`"),
            "{verify:?}"
        );
        assert_eq!(verify.output, "`{scope: AuthorizedScope}`");
        assert!(verify.mirrors.contains("verifyDCT"), "{verify:?}");
        let order = docs
            .iter()
            .find(|d| d.name == "timestamp.compare")
            .expect("compare");
        assert!(
            order.output.contains("-1 | 0 | 1"),
            "escaped bars: {order:?}"
        );
        assert_eq!(order.errors, "`invalid_timestamp`");
        let lint = docs
            .iter()
            .find(|d| d.name == "profile.lint")
            .expect("profile.lint");
        assert_eq!(lint.section, "11a");
        assert!(lint.input.contains("findings"), "{lint:?}");
    }

    fn names_sorted() -> Vec<&'static str> {
        let mut n = names();
        n.sort_unstable();
        n
    }
}
