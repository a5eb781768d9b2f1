//! The judge's number rule (`spec/adapter-protocol.md`, "Numbers"), pinned by the cases of
//! `spec/data/number-equality.json`; the npm and Python judges run the same cases
//! (packages/npm/test/number-rule.test.js, packages/python/tests/test_number_rule.py).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use delegateos_vectors::judge::json_equal;
use serde_json::Value;

#[test]
fn the_number_rule_holds_on_every_case_of_the_data_file() {
    let text = include_str!("../spec/data/number-equality.json");
    let doc: Value = serde_json::from_str(text).unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 15);
    let mut wrong = Vec::new();
    for c in cases {
        let a: Value = serde_json::from_str(c["a"].as_str().unwrap()).unwrap();
        let b: Value = serde_json::from_str(c["b"].as_str().unwrap()).unwrap();
        let equal = c["equal"].as_bool().unwrap();
        for (x, y) in [(&a, &b), (&b, &a)] {
            if json_equal(x, y) != equal {
                wrong.push(format!("{x} vs {y}: expected equal={equal} ({})", c["why"]));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
