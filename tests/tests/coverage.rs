//! Requirement coverage: every id in `spec/data/requirements.json` is cited by at least one vector
//! case or one MCP proxy suite case, and every id cited by either exists in the spec.
//!
//! Mirrors `delegateos-conform coverage` (which must exit 0), but reads the committed files
//! directly so a broken coverage command cannot hide a gap.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use delegateos_conform::cli::{coverage_table, mcp_suite_catalogue};
use delegateos_vectors::requirements::Requirements;
use delegateos_vectors::CorpusSource;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Case id → cited requirement ids, for every committed vector case.
fn vector_citations() -> BTreeMap<String, Vec<String>> {
    let files = CorpusSource::Dir(root().join("vectors"))
        .load()
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(!files.is_empty(), "no vector files found");
    let mut out = BTreeMap::new();
    for loaded in files {
        for case in loaded.file.cases {
            out.insert(case.id, case.requirements);
        }
    }
    out
}

fn spec() -> Requirements {
    let r = Requirements::load(&root().join("spec/data/requirements.json"))
        .expect("spec/data/requirements.json");
    assert!(
        r.list.len() > 100,
        "requirements.json read as {} ids",
        r.list.len()
    );
    r
}

#[test]
fn every_requirement_is_cited_by_a_vector_or_mcp_suite_case() {
    let reqs = spec();
    let vectors = vector_citations();
    let suite = mcp_suite_catalogue();
    assert!(!suite.is_empty(), "the MCP suite catalogue is empty");
    let cited: BTreeSet<&str> = vectors
        .values()
        .chain(suite.iter().map(|(_, r)| r))
        .flatten()
        .map(String::as_str)
        .collect();
    let uncovered: Vec<&str> = reqs
        .list
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| !cited.contains(id))
        .collect();
    assert!(
        uncovered.is_empty(),
        "requirements cited by no vector case and no MCP suite case: {uncovered:?}"
    );
}

#[test]
fn every_cited_requirement_exists() {
    let reqs = spec();
    let mut unknown = Vec::new();
    for (case, ids) in vector_citations() {
        for id in ids {
            if reqs.get(&id).is_none() {
                unknown.push(format!("vector case {case} cites {id}"));
            }
        }
    }
    for (case, ids) in mcp_suite_catalogue() {
        assert!(
            !ids.is_empty(),
            "MCP suite case {case} cites no requirement"
        );
        for id in ids {
            if reqs.get(&id).is_none() {
                unknown.push(format!("MCP suite case {case} cites {id}"));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "unknown requirement ids:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn mcp_transport_ids_are_covered_only_through_the_suite() {
    // The coverage command's table agrees with the direct count, and the transport-level ids
    // (which no adapter operation can exercise) are credited to the suite.
    let reqs = spec();
    let source = CorpusSource::Dir(root().join("vectors"));
    let cases = delegateos_conform::runner::case::load_corpus(&source).expect("load vectors");
    let suite = mcp_suite_catalogue();
    let table = coverage_table(&cases, &suite, &reqs);
    assert!(table.uncovered.is_empty(), "{:?}", table.uncovered);
    assert!(table.unknown.is_empty(), "{:?}", table.unknown);
    for id in ["MCP-UPSTREAM-CRASH", "MCP-CLIENT-EOF", "MCP-STDOUT-CLEAN"] {
        assert!(
            table.suite_counts.get(id).copied().unwrap_or(0) > 0,
            "{id} has no MCP suite case"
        );
    }
    // The decision-level ids have vector cases too.
    for id in [
        "MCP-CALL-STRIP",
        "MCP-DENY-SHAPE",
        "MCP-DELEGATEOS-CONSISTENT",
        "MCP-LIST-FILTER",
    ] {
        assert!(
            table.counts.get(id).copied().unwrap_or(0) > 0,
            "{id} has no vector case"
        );
    }
}
