//! Group `chain/store`: delegation chains read from a store keyed by `id` and linked by
//! `parentId` (architecture §7 `ChainStore` / `MemoryChainStore`), in any order
//! (`chain.verify_store`, decision D44).
//!
//! The chain is built like `chain/invariants`' (root → alice → bob → carol → dave, delegation
//! *i* holding the root token plus *i* attenuations). Each case lists the store's records in an
//! order other than root first; the expected verdict is the one `chain.verify` gives for the
//! same chain root first (D26), because the order of a store is not information. Cases about
//! the walk itself (a leaf that is not stored, a missing parent, a cycle, two records with one
//! id) follow D44.

use serde_json::{json, Value};

use super::dct_support::{del, revocation_entry, Chain, NOW};
use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::Keys;

const OP: &str = "chain.verify_store";
const CREATED: &str = "2026-03-01T00:30:00Z";

/// The delegation record of `token`.
fn delegation(token: &Chain, parent_id: &str, from: &str, depth: u64) -> Value {
    json!({
        "id": token.last_delegation_id(),
        "parentId": parent_id,
        "from": from,
        "to": token.current_delegatee(),
        "contractId": token.last_contract_id(),
        "dct": token.serialized(),
        "depth": depth,
        "status": "active",
        "createdAt": CREATED,
    })
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn set(mut v: Value, k: &str, x: Value) -> Value {
    if let Some(m) = v.as_object_mut() {
        m.insert(k.to_owned(), x);
    }
    v
}

/// `records` in the order `order` (indices into `records`).
fn pick(records: &[Value], order: &[usize]) -> Vec<Value> {
    order
        .iter()
        .filter_map(|i| records.get(*i).cloned())
        .collect()
}

fn input(keys: &Keys, store: &[Value], leaf: &str, revocations: Vec<Value>) -> Value {
    json!({
        "delegations": store,
        "leafId": leaf,
        "rootPublicKey": keys.root.principal,
        "now": NOW,
        "revocations": revocations,
    })
}

fn ok() -> Expectation {
    Expectation::valid(json!({ "valid": true }))
}

fn fail(code: &str, stage: &str) -> Expectation {
    Expectation::invalid(code, stage)
}

/// Adds group `store` to area `chain`.
#[allow(clippy::too_many_lines)] // One case list.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g: &mut Group = area.group(
        "store",
        "chain.verify_store: the chain ending at leafId in a store of delegations linked by parentId (architecture §7 ChainStore), whatever the order of the records — same verdicts as chain.verify root first (§8.2, D26, D44).",
    );
    g.define_flag(
        "StoreDuplicateId",
        "AMBIGUITY",
        "D44",
        "Two records in the store have the same id; a map-backed store keeps whichever was put last, so the verdict would depend on the order of the records. Refused as malformed_delegation.",
        "A chain's verdict depends on the order records were stored in.",
    );
    // The chain: tokens with 0..=3 attenuations, records linked root first.
    let mut toks = vec![Chain::root(&k)];
    for _ in 0..3 {
        let next = toks
            .last()
            .cloned()
            .unwrap_or_else(|| Chain::root(&k))
            .delegate_n(1);
        toks.push(next);
    }
    let mut d: Vec<Value> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let (parent, from) = match d.last() {
            None => ("del_000000000000".to_owned(), k.root.principal.clone()),
            Some(p) => (str_of(p, "id"), str_of(p, "to")),
        };
        d.push(delegation(t, &parent, &from, i as u64));
    }
    let leaf = str_of(&d[3], "id");
    let walk = &["CHAIN-STORE-WALK", "CHAIN-STORE-ORDER"];
    let all = &[
        "CHAIN-STORE-ORDER",
        "CHAIN-ROOT",
        "CHAIN-FROM-TO",
        "CHAIN-DEPTH-STEP",
        "CHAIN-ATTENUATED-FROM",
        "CHAIN-DCT-VERIFY",
    ];

    // Valid chains in several orders.
    g.case(
        1,
        "root → alice → bob → carol → dave stored root first, leaf carol → dave: valid.",
        all,
        &[],
        OP,
        input(&k, &d, &leaf, vec![]),
        ok(),
    );
    g.case(
        2,
        "The same four records stored leaf first (reversed): valid.",
        all,
        &[],
        OP,
        input(&k, &pick(&d, &[3, 2, 1, 0]), &leaf, vec![]),
        ok(),
    );
    g.case(
        3,
        "The same four records in the order 2, 0, 3, 1: valid.",
        all,
        &[],
        OP,
        input(&k, &pick(&d, &[2, 0, 3, 1]), &leaf, vec![]),
        ok(),
    );
    g.case(
        4,
        "The same four records in the order 1, 3, 0, 2: valid.",
        all,
        &[],
        OP,
        input(&k, &pick(&d, &[1, 3, 0, 2]), &leaf, vec![]),
        ok(),
    );
    g.case(5, "Leaf = bob → carol (depth 2): its descendant in the store is not part of its chain; valid.", walk, &[], OP,
        input(&k, &pick(&d, &[3, 1, 2, 0]), &str_of(&d[2], "id"), vec![]), ok());
    g.case(
        6,
        "Leaf = the root delegation in a store of four: valid.",
        walk,
        &[],
        OP,
        input(&k, &pick(&d, &[2, 3, 0, 1]), &str_of(&d[0], "id"), vec![]),
        ok(),
    );
    // A sibling branch: bob → agent5 next to bob → carol.
    let sib_tok = toks[1]
        .clone()
        .delegate(&k.agents[0], |a| a.delegation_id = del(0x1ff));
    let sib = delegation(&sib_tok, &str_of(&d[1], "id"), &str_of(&d[1], "to"), 2);
    let mut with_sib = d.clone();
    with_sib.insert(2, sib.clone());
    g.case(7, "A store with a second branch (bob → agent5 next to bob → carol), leaf carol → dave: the other branch is not on the path; valid.", walk, &[], OP,
        input(&k, &pick(&with_sib, &[4, 2, 0, 3, 1]), &leaf, vec![]), ok());
    g.case(
        8,
        "The same store, leaf = the sibling bob → agent5: valid.",
        walk,
        &[],
        OP,
        input(
            &k,
            &pick(&with_sib, &[4, 2, 0, 3, 1]),
            &str_of(&sib, "id"),
            vec![],
        ),
        ok(),
    );

    // The walk (D44).
    g.case(20, "leafId names no stored delegation: the chain is empty, malformed_delegation (as chain.verify on an empty list).", walk, &[], OP,
        input(&k, &pick(&d, &[3, 1, 0, 2]), &del(0xdead), vec![]), fail("malformed_delegation", "8.1"));
    g.case(
        21,
        "An empty store: malformed_delegation.",
        walk,
        &[],
        OP,
        input(&k, &[], &leaf, vec![]),
        fail("malformed_delegation", "8.1"),
    );
    g.case(22, "alice → bob is missing from the store: the topmost record found (bob → carol) is not a root, root_invalid.", walk, &[], OP,
        input(&k, &pick(&d, &[3, 0, 2]), &leaf, vec![]), fail("root_invalid", "8.2/1"));
    g.case(
        23,
        "The root record is missing from the store: root_invalid.",
        walk,
        &[],
        OP,
        input(&k, &pick(&d, &[2, 3, 1]), &leaf, vec![]),
        fail("root_invalid", "8.2/1"),
    );
    let cyc = set(d[1].clone(), "parentId", json!(str_of(&d[2], "id")));
    let cyclic = vec![d[0].clone(), cyc, d[2].clone(), d[3].clone()];
    g.case(24, "A parentId cycle (alice → bob's parentId names bob → carol): the walk stops at the first repeated id and the topmost record is not a root, root_invalid — not a hang.", walk, &[], OP,
        input(&k, &pick(&cyclic, &[3, 1, 2, 0]), &leaf, vec![]), fail("root_invalid", "8.2/1"));
    let self_parent = set(d[3].clone(), "parentId", json!(leaf.clone()));
    g.case(
        25,
        "The leaf names itself as parent: root_invalid, not a hang.",
        walk,
        &[],
        OP,
        input(
            &k,
            &[d[1].clone(), self_parent, d[0].clone(), d[2].clone()],
            &leaf,
            vec![],
        ),
        fail("root_invalid", "8.2/1"),
    );
    let dup = set(d[2].clone(), "from", json!(k.mallory.principal));
    g.case(26, "Two records with the id of bob → carol, one of them with a wrong `from`: malformed_delegation whatever the order (a map-backed store keeps whichever was put last).", &["CHAIN-STORE-DUPLICATE"], &["StoreDuplicateId"], OP,
        input(&k, &[d[2].clone(), d[0].clone(), d[3].clone(), dup.clone(), d[1].clone()], &leaf, vec![]), fail("malformed_delegation", "8.1"));
    g.case(
        27,
        "The same two records in the other order: malformed_delegation.",
        &["CHAIN-STORE-DUPLICATE"],
        &["StoreDuplicateId"],
        OP,
        input(
            &k,
            &[dup, d[0].clone(), d[3].clone(), d[2].clone(), d[1].clone()],
            &leaf,
            vec![],
        ),
        fail("malformed_delegation", "8.1"),
    );

    // chain.verify's invariants, records shuffled.
    let with = |i: usize, key: &str, x: Value| -> Vec<Value> {
        let mut v = d.clone();
        v[i] = set(v[i].clone(), key, x);
        pick(&v, &[2, 0, 3, 1])
    };
    g.case(
        40,
        "Stored in the order 2, 0, 3, 1: the root record has depth 1, root_invalid.",
        &["CHAIN-ROOT", "CHAIN-STORE-ORDER"],
        &[],
        OP,
        input(&k, &with(0, "depth", json!(1)), &leaf, vec![]),
        fail("root_invalid", "8.2/1"),
    );
    g.case(
        41,
        "Stored in the order 2, 0, 3, 1: bob → carol's `from` is mallory, from_mismatch.",
        &["CHAIN-FROM-TO", "CHAIN-STORE-ORDER"],
        &[],
        OP,
        input(
            &k,
            &with(2, "from", json!(k.mallory.principal)),
            &leaf,
            vec![],
        ),
        fail("from_mismatch", "8.2/2"),
    );
    g.case(
        42,
        "Stored in the order 2, 0, 3, 1: bob → carol's depth is 3, depth_mismatch.",
        &["CHAIN-DEPTH-STEP", "CHAIN-STORE-ORDER"],
        &[],
        OP,
        input(&k, &with(2, "depth", json!(3)), &leaf, vec![]),
        fail("depth_mismatch", "8.2/3"),
    );
    g.case(43, "Stored in the order 2, 0, 3, 1: bob → carol's DCT is its parent's (no further attenuation), not_attenuated.", &["CHAIN-ATTENUATED-FROM", "CHAIN-STORE-ORDER"], &[], OP,
        input(&k, &with(2, "dct", d[1]["dct"].clone()), &leaf, vec![]), fail("not_attenuated", "8.2/5"));
    g.case(
        44,
        "Stored in the order 2, 0, 3, 1: bob → carol's status is `paused`, malformed_delegation.",
        &["CHAIN-SHAPE", "CHAIN-STORE-ORDER"],
        &[],
        OP,
        input(&k, &with(2, "status", json!("paused")), &leaf, vec![]),
        fail("malformed_delegation", "8.1"),
    );
    let rid = toks[2].revocation_ids().get(2).cloned().unwrap_or_default();
    g.case(45, "Stored in the order 3, 1, 0, 2: bob revoked his block bob → carol, so that delegation's DCT is denied with revoked.", &["CHAIN-DCT-VERIFY", "CHAIN-STORE-ORDER"], &[], OP,
        input(&k, &pick(&d, &[3, 1, 0, 2]), &leaf, vec![revocation_entry(&k.bob, &rid, false)]), fail("revoked", "10.1/2"));
    let shallow: Vec<Chain> = {
        let mut v = vec![Chain::root(&k).with_authority(|a| a.max_chain_depth = 1)];
        for _ in 0..2 {
            let next = v
                .last()
                .cloned()
                .unwrap_or_else(|| Chain::root(&k))
                .delegate_n(1);
            v.push(next);
        }
        v
    };
    let mut sd: Vec<Value> = Vec::new();
    for (i, t) in shallow.iter().enumerate() {
        let (parent, from) = match sd.last() {
            None => ("del_000000000000".to_owned(), k.root.principal.clone()),
            Some(p) => (str_of(p, "id"), str_of(p, "to")),
        };
        sd.push(delegation(t, &parent, &from, i as u64));
    }
    g.case(
        46,
        "Root DCT maxChainDepth 1, a chain of depth 2 stored leaf first: depth_exceeded.",
        &["CHAIN-DEPTH-MAX", "CHAIN-STORE-ORDER"],
        &[],
        OP,
        input(&k, &pick(&sd, &[2, 1, 0]), &str_of(&sd[2], "id"), vec![]),
        fail("depth_exceeded", "8.2/4"),
    );
    g.case(47, "Wrong root key (other_root) with the records shuffled: the root DCT's denial, invalid_signature.", &["CHAIN-DCT-VERIFY", "CHAIN-STORE-ORDER"], &[], OP,
        {
            let mut v = input(&k, &pick(&d, &[1, 2, 3, 0]), &leaf, vec![]);
            if let Some(m) = v.as_object_mut() {
                m.insert("rootPublicKey".to_owned(), json!(k.other_root.principal));
            }
            v
        },
        fail("invalid_signature", "10.1/3a"));
}
