//! `chain.verify_store` (D44) is `chain.verify` without the order: for every `chain.verify`
//! case of the corpus whose list is a well-linked chain (distinct string ids, the first a root
//! by `parentId`, each later one naming its predecessor), the reference gives the same outcome
//! (ok, or the same code) when the records are handed over as a store in other orders with
//! the last record as the leaf.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use delegateos_reference::ops::{self, Outcome};
use delegateos_vectors::corpus::load_embedded;
use serde_json::{json, Value};

fn linked(delegations: &[Value]) -> Option<Vec<String>> {
    let ids: Vec<String> = delegations
        .iter()
        .map(|d| d.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect::<Option<_>>()?;
    if ids.is_empty() || ids.iter().collect::<BTreeSet<_>>().len() != ids.len() {
        return None;
    }
    for (i, d) in delegations.iter().enumerate() {
        let parent = d.get("parentId").and_then(Value::as_str)?;
        let want = if i == 0 {
            "del_000000000000"
        } else {
            &ids[i - 1]
        };
        if parent != want {
            return None;
        }
    }
    Some(ids)
}

fn verdict(o: &Outcome) -> String {
    match o {
        Outcome::Ok { .. } => "ok".to_owned(),
        Outcome::Error { code, .. } => code.clone(),
        Outcome::Unsupported { reason } => format!("unsupported: {reason}"),
    }
}

#[test]
fn store_order_never_changes_a_chain_verify_verdict() {
    let files = load_embedded().expect("embedded corpus loads");
    let mut checked = 0;
    let mut problems = Vec::new();
    for f in &files {
        for case in f.file.cases.iter().filter(|c| c.op == "chain.verify") {
            let Some(list) = case.input.get("delegations").and_then(Value::as_array) else {
                continue;
            };
            let Some(ids) = linked(list) else { continue };
            let ordered = verdict(&ops::run("chain.verify", &case.input));
            let n = list.len();
            let orders: Vec<Vec<usize>> = vec![
                (0..n).rev().collect(),
                (0..n).map(|i| (i + 1) % n).collect(),
                (1..n).step_by(2).chain((0..n).step_by(2)).collect(),
            ];
            for order in orders {
                let store: Vec<Value> =
                    order.iter().filter_map(|i| list.get(*i).cloned()).collect();
                let mut input = case.input.clone();
                input["delegations"] = json!(store);
                input["leafId"] = json!(ids[n - 1]);
                let got = verdict(&ops::run("chain.verify_store", &input));
                if got != ordered {
                    problems.push(format!(
                        "{} order {order:?}: store {got}, list {ordered}",
                        case.id
                    ));
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} linked chain.verify cases");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
