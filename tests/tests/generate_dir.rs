//! `vectors generate --out DIR` leaves DIR holding exactly the generated corpus (issue 16,
//! item 8): a vector file of a group that no longer exists is removed, so `run --vectors DIR`
//! never reads it; a `.json` file that is not a vector file is never deleted — generation
//! refuses and names it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use delegateos_vectors::load::load_dir;
use delegateos_vectors::regenerate::GenError;
use delegateos_vectors::{check, generate};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dos-generate-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn generate_removes_stale_vector_files_and_refuses_foreign_json() {
    let dir = temp_dir("stray");
    let first = generate(&dir).unwrap();
    assert!(first.removed.is_empty());
    // A group that was renamed away: a real vector file under a name the generator no longer
    // writes (copied from a generated one, so it is a well-formed vector file).
    let some_file = dir.join(&first.files[0]);
    let stale = dir.join("glob").join("renamed-away.json");
    std::fs::copy(&some_file, &stale).unwrap();
    // Something that is not a vector file, where a loader would read it.
    let foreign = dir.join("notes").join("todo.json");
    write(&foreign, "{\"todo\": true}\n");
    // A non-JSON file is not the corpus's business and is left alone.
    let readme = dir.join("glob").join("README.txt");
    write(&readme, "hand-written\n");

    let err = generate(&dir).unwrap_err();
    match &err {
        GenError::Foreign(paths) => {
            assert_eq!(paths, &[PathBuf::from("notes/todo.json")], "{err}")
        }
        other => panic!("expected Foreign, got {other}"),
    }
    assert!(err.to_string().contains("notes/todo.json"), "{err}");
    assert!(stale.exists(), "nothing is deleted when generation refuses");
    assert!(foreign.exists());

    std::fs::remove_file(&foreign).unwrap();
    let second = generate(&dir).unwrap();
    assert_eq!(second.removed, [PathBuf::from("glob/renamed-away.json")]);
    assert!(!stale.exists(), "the stale vector file is gone");
    assert!(readme.exists(), "non-JSON files are never touched");
    assert_eq!(check(&dir).unwrap(), second.files.len());
    // And the directory loads as a corpus again.
    load_dir(&dir).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
