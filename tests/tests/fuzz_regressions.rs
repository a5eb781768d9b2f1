//! Replays every saved fuzz input through the same entry points the cargo-fuzz targets call.
//!
//! Layout: `tests/fuzz-regressions/<target>/<name>` is an input that once crashed or violated
//! an oracle, and `<name>.reason` next to it states the root cause and the fix (required).
//! The curated seeds in `fuzz/seeds/<target>/` are replayed too, so every target's oracle runs
//! under `cargo test` even where no crash has been recorded. A target directory with an
//! unknown name fails the test, so a renamed entry point cannot silently skip its inputs.

use std::path::{Path, PathBuf};

use delegateos_conform::fuzz::targets as harness_targets;
use delegateos_reference::fuzzing as reference_targets;

fn entry_point(target: &str) -> Option<fn(&[u8])> {
    Some(match target {
        "token_decode" => reference_targets::fuzz_token_decode,
        "glob" => reference_targets::fuzz_glob,
        "subset" => reference_targets::fuzz_subset,
        "canonical" => reference_targets::fuzz_canonical,
        "verify_chain" => reference_targets::fuzz_verify_chain,
        "revocation" => reference_targets::fuzz_revocation,
        "checks" => reference_targets::fuzz_checks,
        "ops" => reference_targets::fuzz_ops,
        "adapter_line" => harness_targets::fuzz_adapter_line,
        "protocol_reply" => harness_targets::fuzz_protocol_reply,
        "mcp_line" => harness_targets::fuzz_mcp_line,
        _ => return None,
    })
}

fn inputs(root: &Path, need_reason: bool) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let Ok(dirs) = std::fs::read_dir(root) else {
        return out;
    };
    for dir in dirs.flatten() {
        let target = dir.file_name().to_string_lossy().into_owned();
        let Ok(files) = std::fs::read_dir(dir.path()) else {
            continue;
        };
        for f in files.flatten() {
            let path = f.path();
            if path.extension().is_some_and(|e| e == "reason") {
                continue;
            }
            if need_reason {
                let mut reason = path.clone().into_os_string();
                reason.push(".reason");
                assert!(
                    Path::new(&reason).is_file(),
                    "{} has no .reason file (root cause + fix)",
                    path.display()
                );
            }
            out.push((target.clone(), path));
        }
    }
    out.sort();
    out
}

fn replay(root: &Path, need_reason: bool) -> usize {
    let cases = inputs(root, need_reason);
    for (target, path) in &cases {
        let f = entry_point(target)
            .unwrap_or_else(|| panic!("{}: unknown fuzz target {target:?}", path.display()));
        let data = std::fs::read(path).unwrap();
        f(&data);
    }
    cases.len()
}

#[test]
fn crash_inputs_stay_fixed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz-regressions");
    replay(&root, true);
}

#[test]
fn curated_seeds_satisfy_the_oracles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds");
    assert!(replay(&root, false) > 0, "no seeds under fuzz/seeds");
}

/// The kept corpora (`fuzz/corpus/<target>/`, committed, grown by campaigns) hold every input a
/// campaign found new coverage with. Replaying them here runs each oracle over that coverage on
/// every `cargo test`, without cargo-fuzz or nightly: a change that makes the reference panic
/// or break an oracle on an input a campaign once reached fails here, not only in the next
/// campaign. Every target must have a non-empty kept corpus.
#[test]
fn kept_corpora_satisfy_the_oracles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let cases = inputs(&root, false);
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/fuzz_targets");
    for f in std::fs::read_dir(manifest).unwrap().flatten() {
        let name = f.path().file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            cases.iter().any(|(t, _)| *t == name),
            "fuzz/corpus/{name}/ is empty or missing"
        );
    }
    assert_eq!(replay(&root, false), cases.len());
    println!("replayed {} kept-corpus inputs", cases.len());
}

#[test]
fn every_target_has_an_entry_point() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/fuzz_targets");
    for f in std::fs::read_dir(manifest).unwrap().flatten() {
        let name = f.path().file_stem().unwrap().to_string_lossy().into_owned();
        assert!(
            entry_point(&name).is_some(),
            "fuzz target {name} is not replayed"
        );
    }
}
