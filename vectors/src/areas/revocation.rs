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

use serde_json::{json, Map, Value};

use delegateos_reference::crypto::blake2b256;
use delegateos_reference::encoding::b64u_encode;
use delegateos_reference::ops::OPERATIONS;

use crate::format::Expectation;
use crate::generate::{Area, Group};
use crate::keys::{Key, Keys};

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

fn define_s_flag(g: &mut Group) {
    g.define_flag(
        "SNotReduced",
        "SIGNATURE_MALLEABILITY",
        "D10",
        "S is not below the group order L (RFC 8032 §5.1.7 requires 0 <= S < L).",
        "A valid signature can be malleated into another valid one.",
    );
}

fn verify_ok() -> Expectation {
    Expectation::valid(json!({ "valid": true }))
}

fn entry(g: &mut Group, k: &Keys) {
    define_s_flag(g);
    let id1 = rid("block-1");
    // create_entry: exact bytes (the signature is deterministic).
    let creates: &[(u16, &Key, &str, &str, &str, &str)] = &[
        (
            1,
            &k.alice,
            "block-1",
            AT,
            "block",
            "alice revokes a block (scope block)",
        ),
        (
            2,
            &k.alice,
            "block-1",
            AT,
            "chain",
            "alice revokes a block (scope chain)",
        ),
        (
            3,
            &k.bob,
            "block-2",
            "2026-03-01T09:00:00.123Z",
            "block",
            "a fractional revokedAt is kept as given",
        ),
        (
            4,
            &k.root,
            "block-3",
            "2030-12-31T23:59:59Z",
            "chain",
            "the root revokes its authority block",
        ),
    ];
    for &(n, key, label, at, scope, desc) in creates {
        let id = rid(label);
        g.case(n, &format!("create_entry: {desc}; exact entry bytes"),
            &["REV-ENTRY-PAYLOAD", "REV-ENTRY-SCOPE", "PRIM-HASH-SIGNED-DIGEST"], &[],
            "revocation.create_entry",
            json!({ "revokerSeed": key.seed_hex(), "revocationId": id, "revokedAt": at, "scope": scope }),
            Expectation::valid(json!({ "entry": entry_by(key, &id, at, scope) })));
    }
    let cbad = |g: &mut Group,
                n: u16,
                desc: &str,
                reqs: &[&str],
                at: &str,
                scope: &str,
                code: &str,
                stage: &str| {
        g.case(n, desc, reqs, &[], "revocation.create_entry",
            json!({ "revokerSeed": k.alice.seed_hex(), "revocationId": rid("block-1"), "revokedAt": at, "scope": scope }),
            Expectation::invalid(code, stage));
    };
    cbad(
        g,
        10,
        "create_entry: scope `tree` is refused",
        &["REV-ENTRY-SCOPE"],
        AT,
        "tree",
        "invalid_scope",
        "4.1/scope",
    );
    cbad(
        g,
        11,
        "create_entry: scope `Block` (case matters)",
        &["REV-ENTRY-SCOPE"],
        AT,
        "Block",
        "invalid_scope",
        "4.1/scope",
    );
    cbad(
        g,
        12,
        "create_entry: empty scope",
        &["REV-ENTRY-SCOPE"],
        AT,
        "",
        "invalid_scope",
        "4.1/scope",
    );
    cbad(
        g,
        13,
        "create_entry: revokedAt 30 February",
        &["PRIM-TIME-CALENDAR"],
        "2026-02-30T00:00:00Z",
        "block",
        "invalid_timestamp",
        "1.2/time",
    );
    cbad(
        g,
        14,
        "create_entry: revokedAt with a leap second",
        &["PRIM-TIME-LEAP-SECOND"],
        "2016-12-31T23:59:60Z",
        "block",
        "invalid_timestamp",
        "1.2/time",
    );
    cbad(
        g,
        15,
        "create_entry: revokedAt without offset",
        &["PRIM-TIME-REJECT-FORMS"],
        "2026-03-01T09:00:00",
        "block",
        "invalid_timestamp",
        "1.2/time",
    );
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
    let good = entry_by(&k.alice, &id1, AT, "block");
    let good_chain = entry_by(&k.alice, &id1, AT, "chain");
    let ve = |g: &mut Group,
              n: u16,
              desc: &str,
              reqs: &[&str],
              flags: &[&str],
              e: Value,
              x: Expectation| {
        g.case(
            n,
            desc,
            reqs,
            flags,
            "revocation.verify_entry",
            json!({ "entry": e }),
            x,
        );
    };
    let sig = |code: &str| {
        Expectation::invalid(
            code,
            match code {
                "malformed_entry" => "4.1/shape",
                "invalid_scope" => "4.1/scope",
                _ => "4.1/signature",
            },
        )
    };
    ve(
        g,
        20,
        "a correctly signed block entry",
        &["REV-ENTRY-PAYLOAD", "REV-ENTRY-SIGNATURE"],
        &[],
        good.clone(),
        verify_ok(),
    );
    ve(
        g,
        21,
        "a correctly signed chain entry",
        &["REV-ENTRY-PAYLOAD", "REV-ENTRY-SCOPE"],
        &[],
        good_chain.clone(),
        verify_ok(),
    );
    ve(
        g,
        22,
        "members in another order (JSON objects are unordered)",
        &["REV-ENTRY-SHAPE"],
        &[],
        {
            let mut m = Map::new();
            for key in [
                "signature",
                "scope",
                "revokedBy",
                "revokedAt",
                "revocationId",
            ] {
                m.insert(key.to_owned(), good[key].clone());
            }
            Value::Object(m)
        },
        verify_ok(),
    );
    ve(
        g,
        23,
        "an entry with an offset revokedAt, signed over that text",
        &["REV-ENTRY-PAYLOAD", "PRIM-TIME-OFFSET"],
        &[],
        entry_by(
            &k.bob,
            &rid("block-2"),
            "2026-03-01T10:00:00+01:00",
            "chain",
        ),
        verify_ok(),
    );
    // Tampering with each signed member.
    ve(
        g,
        30,
        "revocationId replaced by another well-formed id",
        &["REV-ENTRY-SIGNATURE", "REV-ENTRY-PAYLOAD"],
        &[],
        with(&good, "revocationId", json!(rid("block-2"))),
        sig("invalid_signature"),
    );
    ve(
        g,
        31,
        "revokedAt changed by one second",
        &["REV-ENTRY-SIGNATURE", "REV-ENTRY-PAYLOAD"],
        &[],
        with(&good, "revokedAt", json!("2026-03-01T09:00:01Z")),
        sig("invalid_signature"),
    );
    ve(
        g,
        32,
        "revokedAt respelled as the same instant (`.000Z`): the signature covers the text",
        &["REV-ENTRY-SIGNATURE", "REV-ENTRY-PAYLOAD"],
        &[],
        with(&good, "revokedAt", json!("2026-03-01T09:00:00.000Z")),
        sig("invalid_signature"),
    );
    ve(
        g,
        33,
        "scope changed from block to chain",
        &["REV-ENTRY-SIGNATURE", "REV-ENTRY-PAYLOAD"],
        &[],
        with(&good, "scope", json!("chain")),
        sig("invalid_signature"),
    );
    ve(
        g,
        34,
        "revokedBy replaced by bob (signature is alice's)",
        &["REV-ENTRY-SIGNATURE"],
        &[],
        with(&good, "revokedBy", json!(k.bob.principal)),
        sig("invalid_signature"),
    );
    ve(
        g,
        35,
        "signed by mallory while revokedBy names alice",
        &["REV-ENTRY-SIGNATURE"],
        &[],
        with(
            &good,
            "signature",
            json!(sign_text(
                &k.mallory,
                &payload(&id1, &k.alice.principal, AT, "block")
            )),
        ),
        sig("invalid_signature"),
    );
    ve(
        g,
        36,
        "signature over the canonical text itself instead of its BLAKE2b-256 digest",
        &["REV-ENTRY-PAYLOAD", "PRIM-HASH-SIGNED-DIGEST"],
        &[],
        with(
            &good,
            "signature",
            json!(b64u_encode(&k.alice.keypair().sign_message(
                payload(&id1, &k.alice.principal, AT, "block").as_bytes()
            ))),
        ),
        sig("invalid_signature"),
    );
    ve(g, 37, "signature over a non-canonical payload (members in declaration order)",
        &["REV-ENTRY-PAYLOAD"], &[],
        with(&good, "signature", json!(sign_text(&k.alice, &format!(
            "{{\"revocationId\":\"{id1}\",\"revokedBy\":\"{}\",\"revokedAt\":\"{AT}\",\"scope\":\"block\"}}",
            k.alice.principal)))), sig("invalid_signature"));
    ve(g, 38, "signature over the payload with whitespace (`JSON.stringify(x, null, 1)` style)",
        &["REV-ENTRY-PAYLOAD"], &[],
        with(&good, "signature", json!(sign_text(&k.alice, &format!(
            "{{\n \"revocationId\": \"{id1}\",\n \"revokedAt\": \"{AT}\",\n \"revokedBy\": \"{}\",\n \"scope\": \"block\"\n}}",
            k.alice.principal)))), sig("invalid_signature"));
    ve(
        g,
        39,
        "signature over the payload without revokedBy",
        &["REV-ENTRY-PAYLOAD"],
        &[],
        with(
            &good,
            "signature",
            json!(sign_text(
                &k.alice,
                &format!(
                    "{{\"revocationId\":\"{id1}\",\"revokedAt\":\"{AT}\",\"scope\":\"block\"}}"
                )
            )),
        ),
        sig("invalid_signature"),
    );
    ve(
        g,
        40,
        "the signature of another entry",
        &["REV-ENTRY-SIGNATURE"],
        &[],
        with(&good, "signature", good_chain["signature"].clone()),
        sig("invalid_signature"),
    );
    ve(
        g,
        41,
        "S of a valid signature malleated to S + L (86 characters, S ≥ L)",
        &["REV-ENTRY-SIGNATURE", "PRIM-SIG-S-RANGE"],
        &["SNotReduced"],
        with(
            &good,
            "signature",
            json!(malleate_s(&s(&good, "signature"))),
        ),
        sig("invalid_signature"),
    );
    ve(
        g,
        42,
        "an all-zero signature (86 characters)",
        &["REV-ENTRY-SIGNATURE"],
        &[],
        with(&good, "signature", json!(b64u_encode(&[0u8; 64]))),
        sig("invalid_signature"),
    );
    // Well-formed principal ids that are not usable keys (D10).
    let identity = {
        let mut b = [0u8; 32];
        b[0] = 1;
        b64u_encode(&b)
    };
    ve(
        g,
        43,
        "revokedBy is the identity point (well-formed id, small order): no signature verifies",
        &["PRIM-ID-PRINCIPAL-POINT", "PRIM-SIG-SMALL-ORDER"],
        &[],
        with(&good, "revokedBy", json!(identity)),
        sig("invalid_signature"),
    );
    let not_on_curve = {
        let mut b = [0u8; 32];
        b[0] = 2;
        b64u_encode(&b)
    };
    ve(
        g,
        44,
        "revokedBy encodes y = 2, which is not on the curve: no signature verifies",
        &["PRIM-ID-PRINCIPAL-POINT"],
        &[],
        with(&good, "revokedBy", json!(not_on_curve)),
        sig("invalid_signature"),
    );
    let noncanon = {
        let mut b = [0xffu8; 32];
        b[0] = 0xee;
        b[31] = 0x7f;
        b64u_encode(&b)
    };
    ve(
        g,
        45,
        "revokedBy encodes y = p + 1 (non-canonical point): no signature verifies",
        &["PRIM-ID-PRINCIPAL-POINT", "PRIM-SIG-NONCANONICAL"],
        &[],
        with(&good, "revokedBy", json!(noncanon)),
        sig("invalid_signature"),
    );

    // Scope (after shape, before signature).
    ve(
        g,
        50,
        "scope `tree`",
        &["REV-ENTRY-SCOPE"],
        &[],
        with(&good, "scope", json!("tree")),
        sig("invalid_scope"),
    );
    ve(
        g,
        51,
        "scope `tree` with a signature made over `tree`: still refused",
        &["REV-ENTRY-SCOPE"],
        &[],
        entry_by(&k.alice, &id1, AT, "tree"),
        sig("invalid_scope"),
    );
    ve(
        g,
        52,
        "scope `BLOCK`",
        &["REV-ENTRY-SCOPE"],
        &[],
        with(&good, "scope", json!("BLOCK")),
        sig("invalid_scope"),
    );
    ve(
        g,
        53,
        "empty scope",
        &["REV-ENTRY-SCOPE"],
        &[],
        with(&good, "scope", json!("")),
        sig("invalid_scope"),
    );
    ve(
        g,
        54,
        "scope `block ` with a trailing space",
        &["REV-ENTRY-SCOPE"],
        &[],
        with(&good, "scope", json!("block ")),
        sig("invalid_scope"),
    );
    ve(
        g,
        55,
        "scope is a number: a shape fault, not a scope value",
        &["REV-ENTRY-SHAPE"],
        &[],
        with(&good, "scope", json!(1)),
        sig("malformed_entry"),
    );
    ve(
        g,
        56,
        "scope is null",
        &["REV-ENTRY-SHAPE"],
        &[],
        with(&good, "scope", Value::Null),
        sig("malformed_entry"),
    );
    ve(
        g,
        57,
        "bad scope and a malformed revokedAt: shape is checked first",
        &["REV-ENTRY-SHAPE", "REV-ENTRY-SCOPE"],
        &[],
        with(
            &with(&good, "scope", json!("tree")),
            "revokedAt",
            json!("yesterday"),
        ),
        sig("malformed_entry"),
    );

    // Shape.
    const SH: &[&str] = &["REV-ENTRY-SHAPE"];
    for (n, m) in [
        (60u16, "revocationId"),
        (61, "revokedBy"),
        (62, "revokedAt"),
        (63, "scope"),
        (64, "signature"),
    ] {
        ve(
            g,
            n,
            &format!("member `{m}` missing"),
            SH,
            &[],
            without(&good, m),
            sig("malformed_entry"),
        );
    }
    ve(
        g,
        65,
        "an extra member `reason`",
        SH,
        &[],
        with(&good, "reason", json!("compromised")),
        sig("malformed_entry"),
    );
    ve(
        g,
        66,
        "the entry is a string",
        SH,
        &[],
        json!("entry"),
        sig("malformed_entry"),
    );
    ve(
        g,
        67,
        "the entry is an array",
        SH,
        &[],
        json!([good.clone()]),
        sig("malformed_entry"),
    );
    ve(
        g,
        68,
        "the entry is null",
        SH,
        &[],
        Value::Null,
        sig("malformed_entry"),
    );
    ve(
        g,
        69,
        "the entry is an empty object",
        SH,
        &[],
        json!({}),
        sig("malformed_entry"),
    );
    ve(
        g,
        70,
        "revocationId of 42 characters",
        &["REV-ENTRY-SHAPE", "PRIM-B64-EXACT-LENGTH"],
        &[],
        with(&good, "revocationId", json!(&id1[..42])),
        sig("malformed_entry"),
    );
    ve(
        g,
        71,
        "revocationId of 44 characters (decodes to 33 bytes)",
        &["REV-ENTRY-SHAPE", "PRIM-B64-EXACT-LENGTH"],
        &[],
        with(&good, "revocationId", json!(b64u_encode(&[7u8; 33]))),
        sig("malformed_entry"),
    );
    ve(
        g,
        72,
        "revocationId with `=` padding",
        &["REV-ENTRY-SHAPE", "PRIM-B64-STRICT-DECODE"],
        &[],
        with(&good, "revocationId", json!(format!("{id1}="))),
        sig("malformed_entry"),
    );
    ve(
        g,
        73,
        "empty revocationId",
        SH,
        &[],
        with(&good, "revocationId", json!("")),
        sig("malformed_entry"),
    );
    ve(
        g,
        74,
        "revocationId is a number",
        SH,
        &[],
        with(&good, "revocationId", json!(1)),
        sig("malformed_entry"),
    );
    // The id-length faults again, with the entry signed by its revoker over the bad id: the
    // signature verifies, so only the shape rule (a revocation id is base64url of a 32-byte
    // BLAKE2b-256 digest, §10.1 step 2) refuses them. (0070/0071 are also refused by their
    // signature, which was made over another id.)
    let id33 = b64u_encode(&[7u8; 33]);
    let id31 = b64u_encode(&[7u8; 31]);
    ve(
        g,
        46,
        "revocationId of 44 characters (decodes to 33 bytes), the entry signed over it: \
         refused for its shape",
        &["REV-ENTRY-SHAPE", "PRIM-B64-EXACT-LENGTH"],
        &[],
        entry_by(&k.alice, &id33, AT, "block"),
        sig("malformed_entry"),
    );
    ve(
        g,
        47,
        "revocationId of 42 characters (strict base64url of 31 bytes), the entry signed over \
         it: refused for its shape",
        &["REV-ENTRY-SHAPE", "PRIM-B64-EXACT-LENGTH"],
        &[],
        entry_by(&k.alice, &id31, AT, "block"),
        sig("malformed_entry"),
    );
    let alice = &k.alice.principal;
    ve(
        g,
        75,
        "revokedBy with `=` padding",
        &[
            "REV-ENTRY-SHAPE",
            "PRIM-ID-PRINCIPAL",
            "PRIM-B64-STRICT-DECODE",
        ],
        &[],
        with(&good, "revokedBy", json!(format!("{alice}="))),
        sig("malformed_entry"),
    );
    ve(
        g,
        76,
        "revokedBy of 44 characters",
        &[
            "REV-ENTRY-SHAPE",
            "PRIM-ID-PRINCIPAL",
            "PRIM-B64-EXACT-LENGTH",
        ],
        &[],
        with(&good, "revokedBy", json!(format!("{alice}A"))),
        sig("malformed_entry"),
    );
    ve(
        g,
        77,
        "revokedBy in the standard alphabet (`/`, `+`)",
        &["REV-ENTRY-SHAPE", "PRIM-B64-STRICT-DECODE"],
        &[],
        with(
            &good,
            "revokedBy",
            json!(k.bob.principal.replace('_', "/").replace('-', "+")),
        ),
        sig("malformed_entry"),
    );
    // alice's id ends in `c`; `d` keeps the 43 characters but sets unused bits.
    let mut trailing = alice.clone();
    let last = trailing.pop().unwrap_or('A');
    let bumped = match last {
        'A' => 'B',
        'Q' => 'R',
        'g' => 'h',
        'w' => 'x',
        'E' => 'F',
        'I' => 'J',
        'M' => 'N',
        'U' => 'V',
        'Y' => 'Z',
        'c' => 'd',
        'k' => 'l',
        'o' => 'p',
        's' => 't',
        '0' => '1',
        '4' => '5',
        '8' => '9',
        other => other,
    };
    trailing.push(bumped);
    ve(
        g,
        78,
        "revokedBy whose last character has non-zero unused bits",
        &[
            "REV-ENTRY-SHAPE",
            "PRIM-ID-PRINCIPAL",
            "PRIM-B64-TRAILING-BITS",
        ],
        &[],
        with(&good, "revokedBy", json!(trailing)),
        sig("malformed_entry"),
    );
    ve(
        g,
        79,
        "revokedAt 30 February",
        &["REV-ENTRY-SHAPE", "PRIM-TIME-CALENDAR"],
        &[],
        with(&good, "revokedAt", json!("2026-02-30T09:00:00Z")),
        sig("malformed_entry"),
    );
    ve(
        g,
        80,
        "revokedAt in lowercase",
        &["REV-ENTRY-SHAPE", "PRIM-TIME-REJECT-FORMS"],
        &[],
        with(&good, "revokedAt", json!("2026-03-01t09:00:00z")),
        sig("malformed_entry"),
    );
    ve(
        g,
        81,
        "revokedAt as Unix milliseconds",
        SH,
        &[],
        with(&good, "revokedAt", json!(1_772_355_600_000u64)),
        sig("malformed_entry"),
    );
    let gsig = s(&good, "signature");
    ve(
        g,
        82,
        "signature of 85 characters",
        &["REV-ENTRY-SHAPE", "PRIM-B64-EXACT-LENGTH"],
        &[],
        with(&good, "signature", json!(&gsig[..85])),
        sig("malformed_entry"),
    );
    ve(
        g,
        83,
        "signature of 87 characters",
        &["REV-ENTRY-SHAPE", "PRIM-B64-EXACT-LENGTH"],
        &[],
        with(&good, "signature", json!(format!("{gsig}A"))),
        sig("malformed_entry"),
    );
    ve(
        g,
        84,
        "signature with `==` padding",
        &["REV-ENTRY-SHAPE", "PRIM-B64-STRICT-DECODE"],
        &[],
        with(&good, "signature", json!(format!("{gsig}=="))),
        sig("malformed_entry"),
    );
    ve(
        g,
        85,
        "signature in hex",
        SH,
        &[],
        with(
            &good,
            "signature",
            json!(hex::encode(
                delegateos_reference::encoding::b64u_decode(&gsig).unwrap_or_default()
            )),
        ),
        sig("malformed_entry"),
    );
}

fn list(g: &mut Group, k: &Keys) {
    define_s_flag(g);
    let (a, b, c) = (rid("list-a"), rid("list-b"), rid("list-c"));
    let ea = entry_by(&k.alice, &a, AT, "block");
    let eb = entry_by(&k.bob, &b, AT, "chain");
    let ec = entry_by(&k.carol, &c, AT, "block");
    let run = |g: &mut Group,
               n: u16,
               desc: &str,
               reqs: &[&str],
               flags: &[&str],
               add: Vec<Value>,
               query: Vec<&String>,
               out: Value| {
        g.case(
            n,
            desc,
            reqs,
            flags,
            "revocation.list",
            json!({ "add": add, "query": query }),
            Expectation::valid(out),
        );
    };
    run(
        g,
        1,
        "an empty list revokes nothing",
        &["REV-LIST-IS-REVOKED"],
        &[],
        vec![],
        vec![&a],
        json!({ "added": [], "revoked": [false], "listed": [], "roundtrip": [] }),
    );
    run(
        g,
        2,
        "two entries: both ids revoked, a third is not",
        &["REV-LIST-ADD", "REV-LIST-IS-REVOKED", "REV-LIST-ROUNDTRIP"],
        &[],
        vec![ea.clone(), eb.clone()],
        vec![&a, &b, &c],
        json!({ "added": ["ok", "ok"], "revoked": [true, true, false], "listed": [a, b], "roundtrip": [a, b] }),
    );
    run(
        g,
        3,
        "list() is insertion order, not sorted",
        &["REV-LIST-ORDER", "REV-LIST-ROUNDTRIP"],
        &[],
        vec![ec.clone(), ea.clone(), eb.clone()],
        vec![&a],
        json!({ "added": ["ok", "ok", "ok"], "revoked": [true], "listed": [c, a, b], "roundtrip": [c, a, b] }),
    );
    run(
        g,
        4,
        "adding the same entry twice is accepted and lists it once",
        &["REV-LIST-DUPLICATE", "REV-LIST-ORDER"],
        &[],
        vec![ea.clone(), eb.clone(), ea.clone()],
        vec![&a, &b],
        json!({ "added": ["ok", "ok", "ok"], "revoked": [true, true], "listed": [a, b], "roundtrip": [a, b] }),
    );
    run(
        g,
        5,
        "a second entry for the same id by the same revoker (other scope and time) is a no-op",
        &["REV-LIST-DUPLICATE"],
        &[],
        vec![
            ea.clone(),
            entry_by(&k.alice, &a, "2026-03-01T11:00:00Z", "chain"),
        ],
        vec![&a],
        json!({ "added": ["ok", "ok"], "revoked": [true], "listed": [a], "roundtrip": [a] }),
    );
    // Refused entries revoke nothing and are not listed.
    let tampered = with(&eb, "scope", json!("block"));
    run(
        g,
        10,
        "an entry with a bad signature is refused and revokes nothing",
        &["REV-LIST-ADD", "REV-ENTRY-SIGNATURE", "REV-LIST-IS-REVOKED"],
        &[],
        vec![ea.clone(), tampered.clone()],
        vec![&a, &b],
        json!({ "added": ["ok", "invalid_signature"], "revoked": [true, false], "listed": [a], "roundtrip": [a] }),
    );
    run(
        g,
        11,
        "an entry with scope `tree` is refused",
        &["REV-LIST-ADD", "REV-ENTRY-SCOPE"],
        &[],
        vec![with(&ec, "scope", json!("tree"))],
        vec![&c],
        json!({ "added": ["invalid_scope"], "revoked": [false], "listed": [], "roundtrip": [] }),
    );
    run(
        g,
        12,
        "a malformed entry (extra member) is refused",
        &["REV-LIST-ADD", "REV-ENTRY-SHAPE"],
        &[],
        vec![with(&ea, "note", json!("x")), eb.clone()],
        vec![&a, &b],
        json!({ "added": ["malformed_entry", "ok"], "revoked": [false, true], "listed": [b], "roundtrip": [b] }),
    );
    run(
        g,
        13,
        "non-object entries are refused as malformed",
        &["REV-LIST-ADD", "REV-ENTRY-SHAPE"],
        &[],
        vec![json!(a), Value::Null, json!([])],
        vec![&a],
        json!({ "added": ["malformed_entry", "malformed_entry", "malformed_entry"], "revoked": [false], "listed": [], "roundtrip": [] }),
    );
    run(
        g,
        14,
        "a refused entry followed by a valid one for the same id: the valid one revokes",
        &["REV-LIST-ADD", "REV-LIST-IS-REVOKED"],
        &[],
        vec![
            with(&ea, "revokedAt", json!("2026-03-01T09:00:01Z")),
            ea.clone(),
        ],
        vec![&a],
        json!({ "added": ["invalid_signature", "ok"], "revoked": [true], "listed": [a], "roundtrip": [a] }),
    );
    run(
        g,
        15,
        "an entry whose signature is S + L (malleated) is refused",
        &["REV-LIST-ADD", "PRIM-SIG-S-RANGE"],
        &["SNotReduced"],
        vec![with(
            &ea,
            "signature",
            json!(malleate_s(&s(&ea, "signature"))),
        )],
        vec![&a],
        json!({ "added": ["invalid_signature"], "revoked": [false], "listed": [], "roundtrip": [] }),
    );
    // The list cannot know the revoked block's signer: a well-signed entry by anyone is stored;
    // verification decides whether it takes effect (D6 (c)).
    run(g, 20, "a well-signed entry by mallory is stored (whether it revokes a token is decided by verify)",
        &["REV-LIST-ADD", "REV-LIST-IS-REVOKED"], &["RevocationWrongRevoker"],
        vec![entry_by(&k.mallory, &c, AT, "chain")], vec![&c],
        json!({ "added": ["ok"], "revoked": [true], "listed": [c], "roundtrip": [c] }));
    run(
        g,
        21,
        "querying an id twice, and an id that is not base64url",
        &["REV-LIST-IS-REVOKED"],
        &[],
        vec![ea.clone()],
        vec![&a, &a, &"not-an-id".to_owned()],
        json!({ "added": ["ok"], "revoked": [true, true, false], "listed": [a], "roundtrip": [a] }),
    );
    let many: Vec<Value> = (0..20)
        .map(|i| {
            entry_by(
                &k.dave,
                &rid(&format!("many-{i}")),
                AT,
                if i % 2 == 0 { "block" } else { "chain" },
            )
        })
        .collect();
    let many_ids: Vec<String> = (0..20).map(|i| rid(&format!("many-{i}"))).collect();
    run(
        g,
        22,
        "twenty entries keep their insertion order through toJSON/fromJSON",
        &["REV-LIST-ORDER", "REV-LIST-ROUNDTRIP"],
        &[],
        many,
        vec![&many_ids[0], &many_ids[19]],
        json!({ "added": vec!["ok"; 20], "revoked": [true, true], "listed": many_ids, "roundtrip": many_ids }),
    );
}

fn from_json(g: &mut Group, k: &Keys) {
    let (a, b) = (rid("json-a"), rid("json-b"));
    let ea = entry_by(&k.alice, &a, AT, "block");
    let eb = entry_by(&k.bob, &b, AT, "chain");
    let text = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    // Every case feeds D22's array text: it applies to an implementation whose `toJSON` writes
    // that format (REV-LIST-JSON-ARRAY, issue 27); the format-free round trip is
    // `revocation.list`'s `roundtrip`.
    let with_format = |reqs: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = reqs.iter().map(|r| (*r).to_owned()).collect();
        v.push("REV-LIST-JSON-ARRAY".to_owned());
        v
    };
    let ok = |g: &mut Group, n: u16, desc: &str, reqs: &[&str], json_text: String, ids: Value| {
        let reqs = with_format(reqs);
        let reqs: Vec<&str> = reqs.iter().map(String::as_str).collect();
        g.case(
            n,
            desc,
            &reqs,
            &[],
            "revocation.from_json",
            json!({ "json": json_text }),
            Expectation::valid(json!({ "revocationIds": ids })),
        );
    };
    let bad = |g: &mut Group, n: u16, desc: &str, reqs: &[&str], json_text: String, code: &str| {
        let stage = match code {
            "invalid_json" => "4.2/from_json",
            "malformed_entry" => "4.1/shape",
            "invalid_scope" => "4.1/scope",
            _ => "4.1/signature",
        };
        let reqs = with_format(reqs);
        let reqs: Vec<&str> = reqs.iter().map(String::as_str).collect();
        g.case(
            n,
            desc,
            &reqs,
            &[],
            "revocation.from_json",
            json!({ "json": json_text }),
            Expectation::invalid(code, stage),
        );
    };
    ok(
        g,
        1,
        "an array of two valid entries",
        &["REV-LIST-FROMJSON-VERIFY", "REV-LIST-ROUNDTRIP"],
        text(&json!([ea, eb])),
        json!([a, b]),
    );
    ok(
        g,
        2,
        "the empty array",
        &["REV-LIST-ROUNDTRIP"],
        "[]".into(),
        json!([]),
    );
    ok(
        g,
        3,
        "order is kept (b before a)",
        &["REV-LIST-ORDER"],
        text(&json!([eb, ea])),
        json!([b, a]),
    );
    ok(
        g,
        4,
        "pretty-printed JSON is accepted (canonical text is not required)",
        &["REV-LIST-ROUNDTRIP"],
        serde_json::to_string_pretty(&json!([ea, eb])).unwrap_or_default(),
        json!([a, b]),
    );
    ok(
        g,
        5,
        "the same entry twice loads as one",
        &["REV-LIST-DUPLICATE"],
        text(&json!([ea, ea])),
        json!([a]),
    );
    ok(
        g,
        6,
        "a well-signed entry by mallory loads (signer checks happen in verify)",
        &["REV-LIST-FROMJSON-VERIFY"],
        text(&json!([entry_by(&k.mallory, &a, AT, "block")])),
        json!([a]),
    );
    // All or nothing (D6).
    bad(
        g,
        10,
        "one tampered entry after a good one fails the whole load",
        &["REV-LIST-FROMJSON-VERIFY"],
        text(&json!([ea, with(&eb, "scope", json!("block"))])),
        "invalid_signature",
    );
    bad(
        g,
        11,
        "a tampered entry first fails the whole load",
        &["REV-LIST-FROMJSON-VERIFY"],
        text(&json!([with(&ea, "revokedBy", json!(k.bob.principal)), eb])),
        "invalid_signature",
    );
    bad(
        g,
        12,
        "an entry with scope `tree` fails the load",
        &["REV-LIST-FROMJSON-VERIFY", "REV-ENTRY-SCOPE"],
        text(&json!([ea, with(&eb, "scope", json!("tree"))])),
        "invalid_scope",
    );
    bad(
        g,
        13,
        "an entry with an extra member fails the load",
        &["REV-LIST-FROMJSON-VERIFY", "REV-ENTRY-SHAPE"],
        text(&json!([ea, with(&eb, "extra", json!(1))])),
        "malformed_entry",
    );
    bad(
        g,
        14,
        "the first bad entry's code is reported (bad signature before a malformed entry)",
        &["REV-LIST-FROMJSON-VERIFY"],
        text(&json!([with(&ea, "scope", json!("chain")), json!({})])),
        "invalid_signature",
    );
    bad(
        g,
        15,
        "the first bad entry's code is reported (malformed before a bad signature)",
        &["REV-LIST-FROMJSON-VERIFY"],
        text(&json!([
            without(&ea, "signature"),
            with(&eb, "scope", json!("block"))
        ])),
        "malformed_entry",
    );
    bad(
        g,
        16,
        "an unsigned entry (signature member missing)",
        &["REV-LIST-FROMJSON-VERIFY", "REV-ENTRY-SHAPE"],
        text(&json!([without(&ea, "signature")])),
        "malformed_entry",
    );
    // Not JSON / not an array of objects (D22).
    const SH: &[&str] = &["REV-LIST-FROMJSON-SHAPE"];
    bad(g, 20, "truncated JSON", SH, "[{".into(), "invalid_json");
    bad(g, 21, "the empty text", SH, String::new(), "invalid_json");
    bad(
        g,
        22,
        "trailing garbage after the array",
        &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-TRAILING"],
        format!("{} x", text(&json!([ea]))),
        "invalid_json",
    );
    bad(
        g,
        23,
        "a byte-order mark before the array",
        &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-BOM"],
        format!("\u{feff}{}", text(&json!([ea]))),
        "invalid_json",
    );
    let dup = text(&ea).replacen('{', &format!("{{\"revocationId\":\"{b}\","), 1);
    bad(
        g,
        24,
        "a duplicated member inside an entry (two revocationIds)",
        &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-DUPLICATE-KEY"],
        format!("[{dup}]"),
        "invalid_json",
    );
    bad(
        g,
        25,
        "a lone surrogate escape inside the text",
        &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-LONE-SURROGATE"],
        r#"[{"revocationId":"\ud800"}]"#.into(),
        "invalid_json",
    );
    bad(
        g,
        26,
        "a number out of double range",
        &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-NUMBER-RANGE"],
        "[1e400]".into(),
        "invalid_json",
    );
    bad(
        g,
        27,
        "an object instead of an array",
        SH,
        text(&ea),
        "malformed_entry",
    );
    bad(
        g,
        28,
        "an object keyed by id (the other toJSON reading of D22)",
        SH,
        text(&Value::Object(Map::from_iter([(a.clone(), ea.clone())]))),
        "malformed_entry",
    );
    bad(g, 29, "`null`", SH, "null".into(), "malformed_entry");
    bad(g, 30, "a string", SH, "\"[]\"".into(), "malformed_entry");
    bad(
        g,
        31,
        "an array of numbers",
        SH,
        "[1]".into(),
        "malformed_entry",
    );
    bad(
        g,
        32,
        "an array containing null",
        SH,
        "[null]".into(),
        "malformed_entry",
    );
    bad(
        g,
        33,
        "an array of arrays",
        SH,
        format!("[[{}]]", text(&ea)),
        "malformed_entry",
    );
    bad(
        g,
        34,
        "an array of revocation ids (the 'set of ids' reading of §4.2)",
        SH,
        text(&json!([a])),
        "malformed_entry",
    );
    let deep = format!("{}{}", "[".repeat(40), "]".repeat(40));
    bad(
        g,
        35,
        "nesting deeper than 32",
        &["REV-LIST-FROMJSON-SHAPE", "PRIM-JSON-DEPTH"],
        deep,
        "invalid_json",
    );
}
