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

/// The entries of a kept-corpus archive (`fuzz/corpus/<target>.zip`): the canonical form
/// `fuzz/campaign.py` writes (stored, no data descriptors), read through its local headers.
/// `campaign.py check` guards the form; anything else fails here rather than being skipped.
fn stored_zip_entries(path: &Path) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]) as usize;
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap()) as usize;
    let mut out = Vec::new();
    let mut at = 0;
    // Local file headers (PK\x03\x04) come first; the central directory (PK\x01\x02) ends them.
    while bytes.len() >= at + 30 && u32_at(at) == 0x0403_4b50 {
        let (flags, method) = (u16_at(at + 6), u16_at(at + 8));
        let (size, name_len, extra_len) = (u32_at(at + 18), u16_at(at + 26), u16_at(at + 28));
        assert!(
            method == 0 && flags & 0x8 == 0,
            "{}: not the canonical stored form (run `python3 fuzz/campaign.py check`)",
            path.display()
        );
        let name_at = at + 30;
        let data_at = name_at + name_len + extra_len;
        let name = String::from_utf8(bytes[name_at..name_at + name_len].to_vec()).unwrap();
        out.push((name, bytes[data_at..data_at + size].to_vec()));
        at = data_at + size;
    }
    out
}

/// The kept corpora (`fuzz/corpus/<target>.zip`, committed, grown by campaigns) hold every input
/// a campaign found new coverage with. Replaying them here runs each oracle over that coverage on
/// every `cargo test`, without cargo-fuzz or nightly: a change that makes the reference panic
/// or break an oracle on an input a campaign once reached fails here, not only in the next
/// campaign. Every target must have a non-empty kept corpus.
#[test]
fn kept_corpora_satisfy_the_oracles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/fuzz_targets");
    let mut targets: Vec<String> = std::fs::read_dir(manifest)
        .unwrap()
        .flatten()
        .map(|f| f.path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    targets.sort();
    let mut replayed = 0;
    for name in &targets {
        let archive = root.join(format!("{name}.zip"));
        let entries = stored_zip_entries(&archive);
        assert!(
            !entries.is_empty(),
            "fuzz/corpus/{name}.zip is empty or missing"
        );
        let f = entry_point(name).unwrap_or_else(|| panic!("unknown fuzz target {name:?}"));
        for (_, data) in &entries {
            f(data);
        }
        replayed += entries.len();
    }
    println!("replayed {replayed} kept-corpus inputs");
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
