//! Every vector file: valid against `spec/schemas/vector.schema.json`, internally consistent,
//! and every case agrees with the reference (run in-process through `ops::run` + `judge`).
//!
//! Plus `regenerates_identically`: the committed files are byte-identical to a fresh
//! generation (`delegateos-conform vectors check`).
//!
//! One test per file (datatest-stable), named by path, so `cargo nextest run -E
//! 'test(/glob/)'` selects an area. A failing file lists *all* its failing case ids with a
//! diff each, not just the first.

use std::path::Path;

use delegateos_reference::ops;
use delegateos_vectors::judge::{judge, judge_reference, ActualOutcome, Verdict};
use delegateos_vectors::load::parse_file;

/// A failure message printed verbatim (datatest-stable shows errors with `Debug`, which
/// would escape the newlines of the diffs).
struct Report(String);

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Report {}

fn vector_file(path: &Path, bytes: Vec<u8>) -> datatest_stable::Result<()> {
    let file = parse_file(path, &bytes).map_err(|e| Report(e.to_string()))?;
    let mut failures = Vec::new();
    for case in &file.cases {
        let outcome = ops::run(&case.op, &case.input);
        let actual = ActualOutcome::from(&outcome);
        // The reference must give its own reading (outcome 0 of an `acceptable` case).
        if let Verdict::Failed { diff, .. } = judge_reference(&case.expect, &actual) {
            let note = match judge(&case.expect, &actual) {
                Verdict::Acceptable { matched } => {
                    format!(" (matched acceptable outcome {matched}, not outcome 0)")
                }
                _ => String::new(),
            };
            failures.push(format!("{}:{note}\n{diff}", case.id));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        let ids: Vec<&str> = failures
            .iter()
            .filter_map(|f| f.split(':').next())
            .collect();
        Err(Report(format!(
            "{}: {} of {} cases disagree with the reference: {}\n\n{}",
            path.display(),
            failures.len(),
            file.cases.len(),
            ids.join(", "),
            failures.join("\n")
        ))
        .into())
    }
}

/// The committed corpus is exactly what the generator produces today (byte for byte, no
/// missing or extra files), and the reference agrees with every generated case. Hooked to
/// `RETIRED-IDS.txt` so it runs once, as one more datatest entry (this target has no libtest
/// main of its own).
fn regenerates_identically(path: &Path) -> datatest_stable::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("../vectors"));
    delegateos_vectors::check(dir)
        .map(|_| ())
        .map_err(|e| Report(e.to_string()).into())
}

datatest_stable::harness! {
    { test = vector_file, root = "../vectors", pattern = r"^[^/]+/[^/]+\.json$" },
    { test = regenerates_identically, root = "../vectors", pattern = r"^RETIRED-IDS\.txt$" },
}
