//! The spec's machine-read tables are data (`spec/data/*.json`, schema in
//! `spec/data/README.md`): each is read once per language by one loader (here: serde in
//! [`crate::families`], [`crate::flags`], [`crate::severity`], [`crate::operations`],
//! [`crate::requirements`]). The Markdown documents keep
//! their tables for people to read; each table is *generated* from the data between two marker
//! comments, and a test of the owning module ([`assert_in_step`]) fails when the text between
//! the markers differs from what the data renders. `DELEGATEOS_SPEC_BLESS=1 cargo test -p
//! delegateos-vectors spec_tables` rewrites the Markdown instead.

/// Renders one Markdown table: a header row, the separator, one row per entry. A `|` inside a
/// cell is escaped (`\|`).
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let line = |cells: &mut dyn Iterator<Item = String>| {
        let cells: Vec<String> = cells.map(|c| c.replace('|', "\\|")).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = line(&mut header.iter().map(|h| (*h).to_owned()));
    out.push_str(&format!("|{}\n", "---|".repeat(header.len())));
    for row in rows {
        out.push_str(&line(&mut row.iter().cloned()));
    }
    out
}

/// The marker comment opening the generated block `name` (e.g. `error-codes.json#families`).
pub fn begin_marker(name: &str) -> String {
    format!(
        "<!-- generated from spec/data/{name}: edit the JSON, then run \
         DELEGATEOS_SPEC_BLESS=1 cargo test -p delegateos-vectors spec_tables -->"
    )
}

/// The marker comment closing a generated block.
pub const END_MARKER: &str = "<!-- end of generated table -->";

/// `markdown` with the block `name` replaced by `rendered`; `None` if the markers are missing.
pub fn splice(markdown: &str, name: &str, rendered: &str) -> Option<String> {
    let begin = begin_marker(name);
    let start = markdown.find(&begin)? + begin.len();
    let end = start + markdown[start..].find(END_MARKER)?;
    Some(format!(
        "{}\n{}{}",
        &markdown[..start],
        rendered,
        &markdown[end..]
    ))
}

/// Checks that `spec/<file>` holds `rendered` between the markers of block `name`; with
/// `DELEGATEOS_SPEC_BLESS` set, rewrites the file instead. Returns a message on drift.
pub fn in_step(file: &str, name: &str, rendered: &str) -> Result<(), String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("spec")
        .join(file);
    let markdown =
        std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let Some(spliced) = splice(&markdown, name, rendered) else {
        return Err(format!(
            "spec/{file}: no block `{}` … `{END_MARKER}`",
            begin_marker(name)
        ));
    };
    if spliced == markdown {
        return Ok(());
    }
    if std::env::var_os("DELEGATEOS_SPEC_BLESS").is_some() {
        return std::fs::write(&path, spliced).map_err(|e| format!("{}: {e}", path.display()));
    }
    Err(format!(
        "spec/{file}: the table generated from spec/data/{name} differs from the Markdown; \
         edit the JSON (the single source), then run DELEGATEOS_SPEC_BLESS=1 cargo test -p \
         delegateos-vectors spec_tables. Expected:\n{rendered}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_tables_render_and_splice() {
        let t = table(&["a", "b"], &[vec!["x".into(), "-1 | 0".into()]]);
        assert_eq!(t, "| a | b |\n|---|---|\n| x | -1 \\| 0 |\n");
        let md = format!(
            "intro\n{}\nold\n{END_MARKER}\nrest\n",
            begin_marker("f.json#t")
        );
        let new = splice(&md, "f.json#t", &t).expect("markers");
        assert_eq!(
            new,
            format!(
                "intro\n{}\n{t}{END_MARKER}\nrest\n",
                begin_marker("f.json#t")
            )
        );
        assert!(splice("no markers", "f.json#t", &t).is_none());
    }
}
