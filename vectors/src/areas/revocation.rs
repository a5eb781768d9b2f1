//! Area `revocation`: revocation entries and the revocation list (spec §4; decisions D6, D22).
//!
//! Entries are built here from their definition: the payload is the canonical JSON of the four
//! signed members, written out by hand (keys in RFC 8785 order `revocationId`, `revokedAt`,
//! `revokedBy`, `scope`; every value is ASCII without characters that need escaping), hashed
//! with BLAKE2b-256 and signed with Ed25519. The exact bytes of one entry were cross-checked
//! with an independent Python computation (hashlib + RFC 8032 §6 code, see
//! `data/ed25519_edge.py`). Every negative case starts from a valid entry and changes one thing.
//!
//! Groups whose operations the reference does not implement yet are not built (the generator
//! asserts agreement with the reference, so it cannot emit cases for unsupported operations).

// A row of a data table naming a construction, key or message this file does not define is a
// bug in the table: the generator panics with the row and the name (run in CI, it fails at once).
#![allow(clippy::panic)]

use serde::Deserialize;
use serde_json::{json, Map, Value};

use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::b64u_encode;
use delegateos_reference::ops::OPERATIONS;

use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};
use crate::tables::Ids;

/// `revokedAt` of most entries.
const AT: &str = "2026-03-01T09:00:00Z";

fn supported(ops: &[&str]) -> bool {
    ops.iter().all(|op| OPERATIONS.contains(op))
}

/// Builds the `revocation` area.
pub fn build(area: &mut Area) {
    let keys = area.keys().clone();
    if supported(&["revocation.create_entry", "revocation.verify_entry"]) {
        entry(
            area.group(
                "entry",
                "revocation.create_entry / revocation.verify_entry: signed entries (§4.1, D6, D22).",
            ),
            &keys,
        );
    }
    if supported(&["revocation.list"]) {
        list(
            area.group(
                "list",
                "revocation.list: add / isRevoked / list / toJSON round trip (§4.2, D6, D22).",
            ),
            &keys,
        );
    }
    if supported(&["revocation.from_json"]) {
        from_json(
            area.group(
                "from-json",
                "revocation.from_json: all-or-nothing loading with re-verification (§4.2, D6, D22).",
            ),
            &keys,
        );
    }
}

/// A revocation id: base64url of BLAKE2b-256 of `label` (any 32 bytes are a well-formed id).
fn rid(label: &str) -> String {
    b64u_encode(&blake2b256(format!("revocation-vector/{label}").as_bytes()))
}

/// The canonical payload of an entry, written out by hand (RFC 8785 key order).
fn payload(id: &str, by: &str, at: &str, scope: &str) -> String {
    format!(
        "{{\"revocationId\":\"{id}\",\"revokedAt\":\"{at}\",\"revokedBy\":\"{by}\",\"scope\":\"{scope}\"}}"
    )
}

/// Ed25519 over BLAKE2b-256(`text`) with `key`, base64url.
fn sign_text(key: &Key, text: &str) -> String {
    b64u_encode(&key.keypair().sign_digest(&blake2b256(text.as_bytes())))
}

/// A correctly signed entry.
fn entry_by(key: &Key, id: &str, at: &str, scope: &str) -> Value {
    let by = &key.principal;
    json!({
        "revocationId": id,
        "revokedBy": by,
        "revokedAt": at,
        "scope": scope,
        "signature": sign_text(key, &payload(id, by, at, scope)),
    })
}

/// `entry` with member `k` replaced by `v` (signature unchanged).
fn with(entry: &Value, k: &str, v: Value) -> Value {
    let mut e = entry.clone();
    if let Some(m) = e.as_object_mut() {
        m.insert(k.to_owned(), v);
    }
    e
}

/// `entry` without member `k`.
fn without(entry: &Value, k: &str) -> Value {
    let mut e = entry.clone();
    if let Some(m) = e.as_object_mut() {
        m.remove(k);
    }
    e
}

fn s(v: &Value, k: &str) -> String {
    v[k].as_str().unwrap_or_default().to_owned()
}

/// Adds `L` (the Ed25519 group order) to S of a base64url signature (S ≥ L afterwards).
fn malleate_s(sig_b64: &str) -> String {
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut bytes = delegateos_reference::encoding::b64u_decode(sig_b64).unwrap_or_default();
    if bytes.len() != 64 {
        return sig_b64.to_owned();
    }
    let mut carry = 0u16;
    for (i, l) in L.iter().enumerate() {
        let sum = u16::from(bytes[32 + i]) + u16::from(*l) + carry;
        bytes[32 + i] = (sum & 0xff) as u8;
        carry = sum >> 8;
    }
    b64u_encode(&bytes)
}

/// A key of the fixture.
type KeyOf = for<'a> fn(&'a Keys) -> &'a Key;

/// create_entry with exact bytes (the signature is deterministic): number, revoker, id label,
/// revokedAt, scope, description.
#[rustfmt::skip]
const CREATES: &[(u16, KeyOf, &str, &str, &str, &str)] = &[
    (1, |k| &k.alice, "block-1", AT, "block", "alice revokes a block (scope block)"),
    (2, |k| &k.alice, "block-1", AT, "chain", "alice revokes a block (scope chain)"),
    (3, |k| &k.bob, "block-2", "2026-03-01T09:00:00.123Z", "block", "a fractional revokedAt is kept as given"),
    (4, |k| &k.root, "block-3", "2030-12-31T23:59:59Z", "chain", "the root revokes its authority block"),
];

/// create_entry refusals (alice, id `block-1`): number, description, requirements, revokedAt,
/// scope, code, stage.
type RefusalRow = (
    u16,
    &'static str,
    Ids,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

#[rustfmt::skip]
const CREATE_REFUSALS: &[RefusalRow] = &[
    (10, "create_entry: scope `tree` is refused", &["REV-ENTRY-SCOPE"], AT, "tree", "invalid_scope", "4.1/scope"),
    (11, "create_entry: scope `Block` (case matters)", &["REV-ENTRY-SCOPE"], AT, "Block", "invalid_scope", "4.1/scope"),
    (12, "create_entry: empty scope", &["REV-ENTRY-SCOPE"], AT, "", "invalid_scope", "4.1/scope"),
    (13, "create_entry: revokedAt 30 February", &["PRIM-TIME-CALENDAR"], "2026-02-30T00:00:00Z", "block", "invalid_timestamp", "1.2/time"),
    (14, "create_entry: revokedAt with a leap second", &["PRIM-TIME-LEAP-SECOND"], "2016-12-31T23:59:60Z", "block", "invalid_timestamp", "1.2/time"),
    (15, "create_entry: revokedAt without offset", &["PRIM-TIME-REJECT-FORMS"], "2026-03-01T09:00:00", "block", "invalid_timestamp", "1.2/time"),
];

/// What verify_entry cases start from: alice's entry for `block-1`, scope block and chain.
struct EntryFx<'a> {
    k: &'a Keys,
    id1: String,
    good: Value,
    good_chain: Value,
}

impl EntryFx<'_> {
    /// The good entry with member `m` replaced by `v` (signature unchanged).
    fn with(&self, m: &str, v: Value) -> Value {
        with(&self.good, m, v)
    }

    /// The good entry with the signature of alice over `text`.
    fn signed_over(&self, text: &str) -> Value {
        self.with("signature", json!(sign_text(&self.k.alice, text)))
    }

    /// The good entry's signature.
    fn sig(&self) -> String {
        s(&self.good, "signature")
    }
}

/// The good entry's members in another order.
fn reordered(f: &EntryFx) -> Value {
    let mut m = Map::new();
    for key in [
        "signature",
        "scope",
        "revokedBy",
        "revokedAt",
        "revocationId",
    ] {
        m.insert(key.to_owned(), f.good[key].clone());
    }
    Value::Object(m)
}

/// A verify_entry case of `data/tables/revocation.json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VerifyRow {
    id: String,
    description: String,
    requirements: Vec<String>,
    #[serde(default)]
    flags: Vec<String>,
    entry: EntryOf,
    expect: Expectation,
}

/// How a row's entry is built.
#[derive(Deserialize)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
enum EntryOf {
    /// Alice's entry for `block-1` (`good`: scope block, `good-chain`: scope chain) with
    /// members set and removed, the signature unchanged.
    Edit {
        from: String,
        #[serde(default)]
        set: Map<String, Value>,
        #[serde(default)]
        remove: Vec<String>,
    },
    /// This JSON value, as written.
    Value(Value),
    /// An entry signed otherwise, or with a signature derived from the good one: see
    /// [`verify_case`].
    Build(String),
}

/// The entries built by name.
fn verify_case(f: &EntryFx, name: &str) -> Value {
    let (k, id1) = (f.k, &f.id1);
    let alice_payload = || payload(id1, &k.alice.principal, AT, "block");
    let over = |members: &str| {
        f.signed_over(&members.replace("ID", id1).replace("BY", &k.alice.principal))
    };
    match name {
        "reordered" => reordered(f),
        "bob-offset-revokedAt" => entry_by(&k.bob, &rid("block-2"), "2026-03-01T10:00:00+01:00", "chain"),
        "signed-by-mallory" => f.with("signature", json!(sign_text(&k.mallory, &alice_payload()))),
        "signed-over-text-not-digest" => {
            let sig = k.alice.keypair().sign_message(alice_payload().as_bytes());
            f.with("signature", json!(b64u_encode(&sig)))
        }
        "signed-over-declaration-order" => over(&format!(
            "{{\"revocationId\":\"ID\",\"revokedBy\":\"BY\",\"revokedAt\":\"{AT}\",\"scope\":\"block\"}}"
        )),
        "signed-over-pretty-text" => over(&format!(
            "{{\n \"revocationId\": \"ID\",\n \"revokedAt\": \"{AT}\",\n \"revokedBy\": \"BY\",\n \"scope\": \"block\"\n}}"
        )),
        "signed-without-revokedBy" => over(&format!(
            "{{\"revocationId\":\"ID\",\"revokedAt\":\"{AT}\",\"scope\":\"block\"}}"
        )),
        // alice signs the entry without its revocationId; the entry is then pointed at
        // another block (id `block-2`), which she never revoked.
        "signed-without-revocationId-retargeted" => with(
            &over(&format!("{{\"revokedAt\":\"{AT}\",\"revokedBy\":\"BY\",\"scope\":\"block\"}}")),
            "revocationId",
            json!(rid("block-2")),
        ),
        "signature-of-chain-entry" => f.with("signature", f.good_chain["signature"].clone()),
        "signature-s-plus-l" => f.with("signature", json!(malleate_s(&f.sig()))),
        "all-zero-signature" => f.with("signature", json!(b64u_encode(&[0u8; 64]))),
        "signed-with-scope-tree" => entry_by(&k.alice, id1, AT, "tree"),
        // The id-length faults with the entry signed by its revoker over the bad id: the
        // signature verifies, so only the shape rule (a revocation id is base64url of a 32-byte
        // BLAKE2b-256 digest, §10.1 step 2) refuses them.
        "signed-id-33-bytes" => entry_by(&k.alice, &b64u_encode(&[7u8; 33]), AT, "block"),
        "signed-id-31-bytes" => entry_by(&k.alice, &b64u_encode(&[7u8; 31]), AT, "block"),
        "array-of-good" => json!([f.good.clone()]),
        "signature-85-chars" => f.with("signature", json!(&f.sig()[..85])),
        "signature-87-chars" => f.with("signature", json!(format!("{}A", f.sig()))),
        "signature-padded" => f.with("signature", json!(format!("{}==", f.sig()))),
        "signature-hex" => {
            let bytes = delegateos_reference::encoding::b64u_decode(&f.sig()).unwrap_or_default();
            f.with("signature", json!(hex::encode(bytes)))
        }
        _ => panic!("revocation.json: no construction {name}"),
    }
}

fn entry(g: &mut Group, k: &Keys) {
    for &(n, key, label, at, scope, desc) in CREATES {
        let (key, id) = (key(k), rid(label));
        g.case(n, &format!("create_entry: {desc}; exact entry bytes"),
            &["REV-ENTRY-PAYLOAD", "REV-ENTRY-SCOPE", "PRIM-HASH-SIGNED-DIGEST"], &[],
            "revocation.create_entry",
            json!({ "revokerSeed": key.seed_hex(), "revocationId": id, "revokedAt": at, "scope": scope }),
            Expectation::valid(json!({ "entry": entry_by(key, &id, at, scope) })));
    }
    for &(n, desc, reqs, at, scope, code, stage) in CREATE_REFUSALS {
        g.case(n, desc, reqs, &[], "revocation.create_entry",
            json!({ "revokerSeed": k.alice.seed_hex(), "revocationId": rid("block-1"), "revokedAt": at, "scope": scope }),
            Expectation::invalid(code, stage));
    }
    // A well-formed time with a revocationId that is not base64url of 32 bytes (found by the
    // `ops` fuzz target's coverage: no case reached this check past a valid time).
    g.case(
        16,
        "create_entry: revocationId `AAAA` (3 bytes, not 32) with a valid revokedAt",
        &["REV-ENTRY-SHAPE"],
        &[],
        "revocation.create_entry",
        json!({ "revokerSeed": k.alice.seed_hex(), "revocationId": "AAAA", "revokedAt": AT, "scope": "block" }),
        Expectation::invalid("malformed_entry", "4.1/shape"),
    );

    // verify_entry.
    let id1 = rid("block-1");
    let f = EntryFx {
        k,
        good: entry_by(&k.alice, &id1, AT, "block"),
        good_chain: entry_by(&k.alice, &id1, AT, "chain"),
        id1,
    };
    for row in crate::tables::rows::<VerifyRow>("revocation.json") {
        let n = g.number_of("revocation.json", &row.id);
        let entry = match row.entry {
            EntryOf::Edit { from, set, remove } => {
                let start = if from == "good" {
                    &f.good
                } else {
                    &f.good_chain
                };
                let e = set
                    .into_iter()
                    .fold(start.clone(), |e, (m, v)| with(&e, &m, v));
                remove.iter().fold(e, |e, m| without(&e, m))
            }
            EntryOf::Value(v) => v,
            EntryOf::Build(name) => verify_case(&f, &name),
        };
        let reqs: Vec<&str> = row.requirements.iter().map(String::as_str).collect();
        let flags: Vec<&str> = row.flags.iter().map(String::as_str).collect();
        let input = json!({ "entry": entry });
        let (desc, op) = (&row.description, "revocation.verify_entry");
        g.case(n, desc, &reqs, &flags, op, input, row.expect);
    }
}

/// What list cases start from: entries by alice, bob (scope chain) and carol.
struct ListFx<'a> {
    k: &'a Keys,
    a: String,
    b: String,
    c: String,
    ea: Value,
    eb: Value,
    ec: Value,
}

/// Twenty entries by dave for ids `many-i`, scopes alternating block, chain.
fn many(k: &Keys) -> Vec<Value> {
    (0..20)
        .map(|i| {
            entry_by(
                &k.dave,
                &rid(&format!("many-{i}")),
                AT,
                if i % 2 == 0 { "block" } else { "chain" },
            )
        })
        .collect()
}

fn many_ids() -> Vec<String> {
    (0..20).map(|i| rid(&format!("many-{i}"))).collect()
}

/// Number, description, requirements, flags, entries added, ids queried, expected output.
type ListRow = (
    u16,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    fn(&ListFx) -> Vec<Value>,
    fn(&ListFx) -> Vec<String>,
    fn(&ListFx) -> Value,
);

#[rustfmt::skip]
const LISTS: &[ListRow] = &[
    (1, "an empty list revokes nothing", &["REV-LIST-IS-REVOKED"], &[], |_| vec![], |f| vec![f.a.clone()],
        |_| json!({ "added": [], "revoked": [false], "listed": [], "roundtrip": [] })),
    (2, "two entries: both ids revoked, a third is not", &["REV-LIST-ADD", "REV-LIST-IS-REVOKED", "REV-LIST-ROUNDTRIP"], &[],
        |f| vec![f.ea.clone(), f.eb.clone()], |f| vec![f.a.clone(), f.b.clone(), f.c.clone()],
        |f| json!({ "added": ["ok", "ok"], "revoked": [true, true, false], "listed": [f.a, f.b], "roundtrip": [f.a, f.b] })),
    (3, "list() is insertion order, not sorted", &["REV-LIST-ORDER", "REV-LIST-ROUNDTRIP"], &[],
        |f| vec![f.ec.clone(), f.ea.clone(), f.eb.clone()], |f| vec![f.a.clone()],
        |f| json!({ "added": ["ok", "ok", "ok"], "revoked": [true], "listed": [f.c, f.a, f.b], "roundtrip": [f.c, f.a, f.b] })),
    (4, "adding the same entry twice is accepted and lists it once", &["REV-LIST-DUPLICATE", "REV-LIST-ORDER"], &[],
        |f| vec![f.ea.clone(), f.eb.clone(), f.ea.clone()], |f| vec![f.a.clone(), f.b.clone()],
        |f| json!({ "added": ["ok", "ok", "ok"], "revoked": [true, true], "listed": [f.a, f.b], "roundtrip": [f.a, f.b] })),
    (5, "a second entry for the same id by the same revoker (other scope and time) is a no-op", &["REV-LIST-DUPLICATE"], &[],
        |f| vec![f.ea.clone(), entry_by(&f.k.alice, &f.a, "2026-03-01T11:00:00Z", "chain")], |f| vec![f.a.clone()],
        |f| json!({ "added": ["ok", "ok"], "revoked": [true], "listed": [f.a], "roundtrip": [f.a] })),
    // Refused entries revoke nothing and are not listed.
    (10, "an entry with a bad signature is refused and revokes nothing", &["REV-LIST-ADD", "REV-ENTRY-SIGNATURE", "REV-LIST-IS-REVOKED"], &[],
        |f| vec![f.ea.clone(), with(&f.eb, "scope", json!("block"))], |f| vec![f.a.clone(), f.b.clone()],
        |f| json!({ "added": ["ok", "invalid_signature"], "revoked": [true, false], "listed": [f.a], "roundtrip": [f.a] })),
    (11, "an entry with scope `tree` is refused", &["REV-LIST-ADD", "REV-ENTRY-SCOPE"], &[],
        |f| vec![with(&f.ec, "scope", json!("tree"))], |f| vec![f.c.clone()],
        |_| json!({ "added": ["invalid_scope"], "revoked": [false], "listed": [], "roundtrip": [] })),
    (12, "a malformed entry (extra member) is refused", &["REV-LIST-ADD", "REV-ENTRY-SHAPE"], &[],
        |f| vec![with(&f.ea, "note", json!("x")), f.eb.clone()], |f| vec![f.a.clone(), f.b.clone()],
        |f| json!({ "added": ["malformed_entry", "ok"], "revoked": [false, true], "listed": [f.b], "roundtrip": [f.b] })),
    (13, "non-object entries are refused as malformed", &["REV-LIST-ADD", "REV-ENTRY-SHAPE"], &[],
        |f| vec![json!(f.a), Value::Null, json!([])], |f| vec![f.a.clone()],
        |_| json!({ "added": ["malformed_entry", "malformed_entry", "malformed_entry"], "revoked": [false], "listed": [], "roundtrip": [] })),
    (14, "a refused entry followed by a valid one for the same id: the valid one revokes", &["REV-LIST-ADD", "REV-LIST-IS-REVOKED"], &[],
        |f| vec![with(&f.ea, "revokedAt", json!("2026-03-01T09:00:01Z")), f.ea.clone()], |f| vec![f.a.clone()],
        |f| json!({ "added": ["invalid_signature", "ok"], "revoked": [true], "listed": [f.a], "roundtrip": [f.a] })),
    (15, "an entry whose signature is S + L (malleated) is refused", &["REV-LIST-ADD", "PRIM-SIG-S-RANGE"], &["SNotReduced"],
        |f| vec![with(&f.ea, "signature", json!(malleate_s(&s(&f.ea, "signature"))))], |f| vec![f.a.clone()],
        |_| json!({ "added": ["invalid_signature"], "revoked": [false], "listed": [], "roundtrip": [] })),
    // The list cannot know the revoked block's signer: a well-signed entry by anyone is stored;
    // verification decides whether it takes effect (D6 (c)).
    (20, "a well-signed entry by mallory is stored (whether it revokes a token is decided by verify)",
        &["REV-LIST-ADD", "REV-LIST-IS-REVOKED"], &["RevocationWrongRevoker"],
        |f| vec![entry_by(&f.k.mallory, &f.c, AT, "chain")], |f| vec![f.c.clone()],
        |f| json!({ "added": ["ok"], "revoked": [true], "listed": [f.c], "roundtrip": [f.c] })),
    (21, "querying an id twice, and an id that is not base64url", &["REV-LIST-IS-REVOKED"], &[],
        |f| vec![f.ea.clone()], |f| vec![f.a.clone(), f.a.clone(), "not-an-id".to_owned()],
        |f| json!({ "added": ["ok"], "revoked": [true, true, false], "listed": [f.a], "roundtrip": [f.a] })),
    (22, "twenty entries keep their insertion order through toJSON/fromJSON", &["REV-LIST-ORDER", "REV-LIST-ROUNDTRIP"], &[],
        |f| many(f.k), |_| vec![many_ids()[0].clone(), many_ids()[19].clone()],
        |_| json!({ "added": vec!["ok"; 20], "revoked": [true, true], "listed": many_ids(), "roundtrip": many_ids() })),
];

fn list(g: &mut Group, k: &Keys) {
    let (a, b, c) = (rid("list-a"), rid("list-b"), rid("list-c"));
    let f = ListFx {
        k,
        ea: entry_by(&k.alice, &a, AT, "block"),
        eb: entry_by(&k.bob, &b, AT, "chain"),
        ec: entry_by(&k.carol, &c, AT, "block"),
        a,
        b,
        c,
    };
    for &(n, desc, reqs, flags, add, query, out) in LISTS {
        let input = json!({ "add": add(&f), "query": query(&f) });
        let expect = Expectation::valid(out(&f));
        g.case(n, desc, reqs, flags, "revocation.list", input, expect);
    }
}

/// What from_json cases start from: entries by alice (block) and bob (chain).
struct JsonFx<'a> {
    k: &'a Keys,
    a: String,
    b: String,
    ea: Value,
    eb: Value,
}

fn text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// from_json: the ids loaded, or the code of the refusal.
#[derive(Clone, Copy)]
enum Loaded {
    Ids(fn(&JsonFx) -> Value),
    Refused(&'static str),
}

const BAD_JSON: Loaded = Loaded::Refused("invalid_json");
const BAD_ENTRY: Loaded = Loaded::Refused("malformed_entry");
const BAD_SIGNATURE: Loaded = Loaded::Refused("invalid_signature");
const FV: &[&str] = &["REV-LIST-FROMJSON-VERIFY"];
const FS: &[&str] = &["REV-LIST-FROMJSON-SHAPE"];

/// Number, description, requirements (REV-LIST-JSON-ARRAY is added), JSON text, outcome.
type JsonRow = (u16, &'static str, Ids, fn(&JsonFx) -> String, Loaded);

#[rustfmt::skip]
const JSON_TEXTS: &[JsonRow] = &[
    (1, "an array of two valid entries", &["REV-LIST-FROMJSON-VERIFY", "REV-LIST-ROUNDTRIP"], |f| text(&json!([f.ea, f.eb])), Loaded::Ids(|f| json!([f.a, f.b]))),
    (2, "the empty array", &["REV-LIST-ROUNDTRIP"], |_| "[]".into(), Loaded::Ids(|_| json!([]))),
    (3, "order is kept (b before a)", &["REV-LIST-ORDER"], |f| text(&json!([f.eb, f.ea])), Loaded::Ids(|f| json!([f.b, f.a]))),
    (4, "pretty-printed JSON is accepted (canonical text is not required)", &["REV-LIST-ROUNDTRIP"],
        |f| serde_json::to_string_pretty(&json!([f.ea, f.eb])).unwrap_or_default(), Loaded::Ids(|f| json!([f.a, f.b]))),
    (5, "the same entry twice loads as one", &["REV-LIST-DUPLICATE"], |f| text(&json!([f.ea, f.ea])), Loaded::Ids(|f| json!([f.a]))),
    (6, "a well-signed entry by mallory loads (signer checks happen in verify)", FV,
        |f| text(&json!([entry_by(&f.k.mallory, &f.a, AT, "block")])), Loaded::Ids(|f| json!([f.a]))),
    // All or nothing (D6).
    (10, "one tampered entry after a good one fails the whole load", FV, |f| text(&json!([f.ea, with(&f.eb, "scope", json!("block"))])), BAD_SIGNATURE),
    (11, "a tampered entry first fails the whole load", FV, |f| text(&json!([with(&f.ea, "revokedBy", json!(f.k.bob.principal)), f.eb])), BAD_SIGNATURE),
    (12, "an entry with scope `tree` fails the load", &["REV-LIST-FROMJSON-VERIFY", "REV-ENTRY-SCOPE"],
        |f| text(&json!([f.ea, with(&f.eb, "scope", json!("tree"))])), Loaded::Refused("invalid_scope")),
    (13, "an entry with an extra member fails the load", &["REV-LIST-FROMJSON-VERIFY", "REV-ENTRY-SHAPE"],
        |f| text(&json!([f.ea, with(&f.eb, "extra", json!(1))])), BAD_ENTRY),
    (14, "the first bad entry's code is reported (bad signature before a malformed entry)", FV,
        |f| text(&json!([with(&f.ea, "scope", json!("chain")), json!({})])), BAD_SIGNATURE),
    (15, "the first bad entry's code is reported (malformed before a bad signature)", FV,
        |f| text(&json!([without(&f.ea, "signature"), with(&f.eb, "scope", json!("block"))])), BAD_ENTRY),
    (16, "an unsigned entry (signature member missing)", &["REV-LIST-FROMJSON-VERIFY", "REV-ENTRY-SHAPE"], |f| text(&json!([without(&f.ea, "signature")])), BAD_ENTRY),
    // Not JSON / not an array of objects (D22).
    (20, "truncated JSON", FS, |_| "[{".into(), BAD_JSON),
    (21, "the empty text", FS, |_| String::new(), BAD_JSON),
    (22, "trailing garbage after the array", &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-TRAILING"], |f| format!("{} x", text(&json!([f.ea]))), BAD_JSON),
    (23, "a byte-order mark before the array", &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-BOM"], |f| format!("\u{feff}{}", text(&json!([f.ea]))), BAD_JSON),
    (24, "a duplicated member inside an entry (two revocationIds)", &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-DUPLICATE-KEY"],
        |f| format!("[{}]", text(&f.ea).replacen('{', &format!("{{\"revocationId\":\"{}\",", f.b), 1)), BAD_JSON),
    (25, "a lone surrogate escape inside the text", &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-LONE-SURROGATE"], |_| r#"[{"revocationId":"\ud800"}]"#.into(), BAD_JSON),
    (26, "a number out of double range", &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-NUMBER-RANGE"], |_| "[1e400]".into(), BAD_JSON),
    (27, "an object instead of an array", FS, |f| text(&f.ea), BAD_ENTRY),
    (28, "an object keyed by id (the other toJSON reading of D22)", FS, |f| text(&Value::Object(Map::from_iter([(f.a.clone(), f.ea.clone())]))), BAD_ENTRY),
    (29, "`null`", FS, |_| "null".into(), BAD_ENTRY),
    (30, "a string", FS, |_| "\"[]\"".into(), BAD_ENTRY),
    (31, "an array of numbers", FS, |_| "[1]".into(), BAD_ENTRY),
    (32, "an array containing null", FS, |_| "[null]".into(), BAD_ENTRY),
    (33, "an array of arrays", FS, |f| format!("[[{}]]", text(&f.ea)), BAD_ENTRY),
    (34, "an array of revocation ids (the 'set of ids' reading of §4.2)", FS, |f| text(&json!([f.a])), BAD_ENTRY),
    (35, "nesting deeper than 32", &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-DEPTH"], |_| format!("{}{}", "[".repeat(40), "]".repeat(40)), BAD_JSON),
];

fn from_json(g: &mut Group, k: &Keys) {
    let (a, b) = (rid("json-a"), rid("json-b"));
    let f = JsonFx {
        k,
        ea: entry_by(&k.alice, &a, AT, "block"),
        eb: entry_by(&k.bob, &b, AT, "chain"),
        a,
        b,
    };
    // Every case feeds D22's array text: it applies to an implementation whose `toJSON` writes
    // that format (REV-LIST-JSON-ARRAY, issue 27); the format-free round trip is
    // `revocation.list`'s `roundtrip`.
    for &(n, desc, reqs, json_text, loaded) in JSON_TEXTS {
        let mut reqs = reqs.to_vec();
        reqs.push("REV-LIST-JSON-ARRAY");
        let expect = match loaded {
            Loaded::Ids(ids) => Expectation::valid(json!({ "revocationIds": ids(&f) })),
            Loaded::Refused(code) => {
                let stage = match code {
                    "invalid_json" => "4.2/from_json",
                    "malformed_entry" => "4.1/shape",
                    "invalid_scope" => "4.1/scope",
                    _ => "4.1/signature",
                };
                Expectation::invalid(code, stage)
            }
        };
        let input = json!({ "json": json_text(&f) });
        g.case(n, desc, &reqs, &[], "revocation.from_json", input, expect);
    }
}
