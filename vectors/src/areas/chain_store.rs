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
use crate::tables::Ids;

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

/// `base` and `n` more tokens, each one attenuation longer than the last.
fn tokens(k: &Keys, base: Chain, n: usize) -> Vec<Chain> {
    let mut toks = vec![base];
    for _ in 0..n {
        let next = toks
            .last()
            .cloned()
            .unwrap_or_else(|| Chain::root(k))
            .delegate_n(1);
        toks.push(next);
    }
    toks
}

/// The delegation records of `toks`, linked root first.
fn records(k: &Keys, toks: &[Chain]) -> Vec<Value> {
    let mut d: Vec<Value> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let (parent, from) = match d.last() {
            None => ("del_000000000000".to_owned(), k.root.principal.clone()),
            Some(p) => (str_of(p, "id"), str_of(p, "to")),
        };
        d.push(delegation(t, &parent, &from, i as u64));
    }
    d
}

/// The chain every case starts from: tokens with 0..=3 attenuations and their records.
struct Fx<'a> {
    k: &'a Keys,
    toks: Vec<Chain>,
    d: Vec<Value>,
    /// The id of carol → dave.
    leaf: String,
}

impl Fx<'_> {
    /// The input for this store and leaf, no revocations.
    fn inp(&self, store: &[Value], leaf: &str) -> Value {
        input(self.k, store, leaf, vec![])
    }

    /// The four records in `order`, leaf carol → dave.
    fn order(&self, order: &[usize]) -> Value {
        self.inp(&pick(&self.d, order), &self.leaf)
    }

    /// The id of record `i`.
    fn id(&self, i: usize) -> String {
        str_of(&self.d[i], "id")
    }

    /// Record `i` with `key` set to `x`, the records in the order 2, 0, 3, 1, leaf carol → dave.
    fn with(&self, i: usize, key: &str, x: Value) -> Value {
        let mut v = self.d.clone();
        v[i] = set(v[i].clone(), key, x);
        self.inp(&pick(&v, &[2, 0, 3, 1]), &self.leaf)
    }
}

/// A sibling branch: bob → agent5 next to bob → carol.
fn sibling(f: &Fx) -> Value {
    let sib_tok = f.toks[1]
        .clone()
        .delegate(&f.k.agents[0], |a| a.delegation_id = del(0x1ff));
    delegation(&sib_tok, &f.id(1), &str_of(&f.d[1], "to"), 2)
}

/// The records with the sibling inserted after alice → bob.
fn with_sibling(f: &Fx) -> Vec<Value> {
    let mut with_sib = f.d.clone();
    with_sib.insert(2, sibling(f));
    with_sib
}

/// The records with alice → bob's parentId naming bob → carol.
fn cyclic(f: &Fx) -> Vec<Value> {
    let cyc = set(f.d[1].clone(), "parentId", json!(f.id(2)));
    vec![f.d[0].clone(), cyc, f.d[2].clone(), f.d[3].clone()]
}

/// bob → carol with `from` mallory (a second record with its id).
fn duplicate(f: &Fx) -> Value {
    set(f.d[2].clone(), "from", json!(f.k.mallory.principal))
}

/// Root DCT maxChainDepth 1, a chain of depth 2 stored leaf first.
fn shallow_store(f: &Fx) -> Value {
    let shallow = tokens(
        f.k,
        Chain::root(f.k).with_authority(|a| a.max_chain_depth = 1),
        2,
    );
    let sd = records(f.k, &shallow);
    f.inp(&pick(&sd, &[2, 1, 0]), &str_of(&sd[2], "id"))
}

/// bob's revocation of his block bob → carol, the records in the order 3, 1, 0, 2.
fn revoked_store(f: &Fx) -> Value {
    let rid = f.toks[2]
        .revocation_ids()
        .get(2)
        .cloned()
        .unwrap_or_default();
    let revocations = vec![revocation_entry(&f.k.bob, &rid, false)];
    input(f.k, &pick(&f.d, &[3, 1, 0, 2]), &f.leaf, revocations)
}

/// The records in the order 1, 2, 3, 0 with other_root as the root key.
fn other_root_store(f: &Fx) -> Value {
    let mut v = f.inp(&pick(&f.d, &[1, 2, 3, 0]), &f.leaf);
    if let Some(m) = v.as_object_mut() {
        m.insert("rootPublicKey".to_owned(), json!(f.k.other_root.principal));
    }
    v
}

/// valid (`None`) or (code, stage).
type Verdict = Option<(&'static str, &'static str)>;
const VALID: Verdict = None;
const MALFORMED: Verdict = Some(("malformed_delegation", "8.1"));
const ROOT_INVALID: Verdict = Some(("root_invalid", "8.2/1"));
const WALK: &[&str] = &["CHAIN-STORE-WALK", "CHAIN-STORE-ORDER"];
const ALL: &[&str] = &[
    "CHAIN-STORE-ORDER",
    "CHAIN-ROOT",
    "CHAIN-FROM-TO",
    "CHAIN-DEPTH-STEP",
    "CHAIN-ATTENUATED-FROM",
    "CHAIN-DCT-VERIFY",
];
const DUP: &[&str] = &["CHAIN-STORE-DUPLICATE"];
const DUP_FLAG: &[&str] = &["StoreDuplicateId"];

/// Number, description, requirements, flags, input, verdict.
type StoreRow = (u16, &'static str, Ids, Ids, fn(&Fx) -> Value, Verdict);

#[rustfmt::skip]
const STORES: &[StoreRow] = &[
    // Valid chains in several orders.
    (1, "root → alice → bob → carol → dave stored root first, leaf carol → dave: valid.", ALL, &[], |f| f.inp(&f.d, &f.leaf), VALID),
    (2, "The same four records stored leaf first (reversed): valid.", ALL, &[], |f| f.order(&[3, 2, 1, 0]), VALID),
    (3, "The same four records in the order 2, 0, 3, 1: valid.", ALL, &[], |f| f.order(&[2, 0, 3, 1]), VALID),
    (4, "The same four records in the order 1, 3, 0, 2: valid.", ALL, &[], |f| f.order(&[1, 3, 0, 2]), VALID),
    (5, "Leaf = bob → carol (depth 2): its descendant in the store is not part of its chain; valid.", WALK, &[],
        |f| f.inp(&pick(&f.d, &[3, 1, 2, 0]), &f.id(2)), VALID),
    (6, "Leaf = the root delegation in a store of four: valid.", WALK, &[], |f| f.inp(&pick(&f.d, &[2, 3, 0, 1]), &f.id(0)), VALID),
    (7, "A store with a second branch (bob → agent5 next to bob → carol), leaf carol → dave: the other branch is not on the path; valid.", WALK, &[],
        |f| f.inp(&pick(&with_sibling(f), &[4, 2, 0, 3, 1]), &f.leaf), VALID),
    (8, "The same store, leaf = the sibling bob → agent5: valid.", WALK, &[],
        |f| f.inp(&pick(&with_sibling(f), &[4, 2, 0, 3, 1]), &str_of(&sibling(f), "id")), VALID),
    // The walk (D44).
    (20, "leafId names no stored delegation: the chain is empty, malformed_delegation (as chain.verify on an empty list).", WALK, &[],
        |f| f.inp(&pick(&f.d, &[3, 1, 0, 2]), &del(0xdead)), MALFORMED),
    (21, "An empty store: malformed_delegation.", WALK, &[], |f| f.inp(&[], &f.leaf), MALFORMED),
    (22, "alice → bob is missing from the store: the topmost record found (bob → carol) is not a root, root_invalid.", WALK, &[],
        |f| f.order(&[3, 0, 2]), ROOT_INVALID),
    (23, "The root record is missing from the store: root_invalid.", WALK, &[], |f| f.order(&[2, 3, 1]), ROOT_INVALID),
    (24, "A parentId cycle (alice → bob's parentId names bob → carol): the walk stops at the first repeated id and the topmost record is not a root, root_invalid — not a hang.", WALK, &[],
        |f| f.inp(&pick(&cyclic(f), &[3, 1, 2, 0]), &f.leaf), ROOT_INVALID),
    (25, "The leaf names itself as parent: root_invalid, not a hang.", WALK, &[],
        |f| f.inp(&[f.d[1].clone(), set(f.d[3].clone(), "parentId", json!(f.leaf.clone())), f.d[0].clone(), f.d[2].clone()], &f.leaf), ROOT_INVALID),
    (26, "Two records with the id of bob → carol, one of them with a wrong `from`: malformed_delegation whatever the order (a map-backed store keeps whichever was put last).", DUP, DUP_FLAG,
        |f| f.inp(&[f.d[2].clone(), f.d[0].clone(), f.d[3].clone(), duplicate(f), f.d[1].clone()], &f.leaf), MALFORMED),
    (27, "The same two records in the other order: malformed_delegation.", DUP, DUP_FLAG,
        |f| f.inp(&[duplicate(f), f.d[0].clone(), f.d[3].clone(), f.d[2].clone(), f.d[1].clone()], &f.leaf), MALFORMED),
    // chain.verify's invariants, records shuffled.
    (40, "Stored in the order 2, 0, 3, 1: the root record has depth 1, root_invalid.", &["CHAIN-ROOT", "CHAIN-STORE-ORDER"], &[],
        |f| f.with(0, "depth", json!(1)), ROOT_INVALID),
    (41, "Stored in the order 2, 0, 3, 1: bob → carol's `from` is mallory, from_mismatch.", &["CHAIN-FROM-TO", "CHAIN-STORE-ORDER"], &[],
        |f| f.with(2, "from", json!(f.k.mallory.principal)), Some(("from_mismatch", "8.2/2"))),
    (42, "Stored in the order 2, 0, 3, 1: bob → carol's depth is 3, depth_mismatch.", &["CHAIN-DEPTH-STEP", "CHAIN-STORE-ORDER"], &[],
        |f| f.with(2, "depth", json!(3)), Some(("depth_mismatch", "8.2/3"))),
    (43, "Stored in the order 2, 0, 3, 1: bob → carol's DCT is its parent's (no further attenuation), not_attenuated.", &["CHAIN-ATTENUATED-FROM", "CHAIN-STORE-ORDER"], &[],
        |f| f.with(2, "dct", f.d[1]["dct"].clone()), Some(("not_attenuated", "8.2/5"))),
    (44, "Stored in the order 2, 0, 3, 1: bob → carol's status is `paused`, malformed_delegation.", &["CHAIN-SHAPE", "CHAIN-STORE-ORDER"], &[],
        |f| f.with(2, "status", json!("paused")), MALFORMED),
    (45, "Stored in the order 3, 1, 0, 2: bob revoked his block bob → carol, so that delegation's DCT is denied with revoked.", &["CHAIN-DCT-VERIFY", "CHAIN-STORE-ORDER"], &[],
        revoked_store, Some(("revoked", "10.1/2"))),
    (46, "Root DCT maxChainDepth 1, a chain of depth 2 stored leaf first: depth_exceeded.", &["CHAIN-DEPTH-MAX", "CHAIN-STORE-ORDER"], &[],
        shallow_store, Some(("depth_exceeded", "8.2/4"))),
    (47, "Wrong root key (other_root) with the records shuffled: the root DCT's denial, invalid_signature.", &["CHAIN-DCT-VERIFY", "CHAIN-STORE-ORDER"], &[],
        other_root_store, Some(("invalid_signature", "10.1/3a"))),
];

/// Adds group `store` to area `chain`.
pub fn build(area: &mut Area) {
    let k = area.keys().clone();
    let g: &mut Group = area.group(
        "store",
        "chain.verify_store: the chain ending at leafId in a store of delegations linked by parentId (architecture §7 ChainStore), whatever the order of the records — same verdicts as chain.verify root first (§8.2, D26, D44).",
    );
    // The chain: tokens with 0..=3 attenuations, records linked root first.
    let toks = tokens(&k, Chain::root(&k), 3);
    let d = records(&k, &toks);
    let f = Fx {
        k: &k,
        leaf: str_of(&d[3], "id"),
        toks,
        d,
    };
    for &(n, desc, reqs, flags, input, verdict) in STORES {
        let expect = match verdict {
            None => Expectation::valid(json!({ "valid": true })),
            Some((code, stage)) => Expectation::invalid(code, stage),
        };
        g.case(n, desc, reqs, flags, OP, input(&f), expect);
    }
}
