//! Area `primitives`: canonical JSON, BLAKE2b-256, Ed25519, base64url, timestamps and
//! principal ids (spec §1.2, §2; decisions D5, D9, D10, D33).
//!
//! Expectations come from published data and independent construction, never from the
//! reference:
//! - canonicalization: RFC 8785 (§3.2.2 example, §3.2.3 sorting example, Appendix B number
//!   table) and ECMAScript `Number.prototype.toString`; rejections from D33;
//! - hash: BLAKE2b-256 values computed with Python `hashlib.blake2b(digest_size=32)` and
//!   cross-checked with coreutils `b2sum -l 256` (RFC 7693 gives the 512-bit `abc` digest
//!   `ba80a53f…`, whose truncation is the trap);
//! - ed25519: RFC 8032 §7.1 TEST 1, 2, 3 and TEST SHA(abc), typed from the RFC and checked
//!   against an independent Python implementation of RFC 8032 §6; edge cases built by
//!   `data/ed25519_edge.py` (same Python code, not the Rust reference) and stored in
//!   `data/ed25519_edge.json`;
//! - base64url: RFC 4648 §10 test vectors (url alphabet) and research §4's malleability rows;
//! - timestamps: the D5 profile and research §5's table;
//! - principal ids: RFC 8032 public keys re-encoded in base64url, and the fixed keys' seeds.

use serde_json::{json, Value};

use super::Ids;
use crate::format::{Expectation, Expected};
use crate::generate::{Area, Group};

const EDGE: &str = include_str!("data/ed25519_edge.json");

/// The groups, in output order: (name, description, builder).
#[rustfmt::skip]
const GROUPS: &[super::PlainGroupDef] = &[
    ("canonicalization", "json.canonicalize: RFC 8785 output and the strict JSON profile of D33.", canonicalization),
    ("hash", "hash.blake2b256: unkeyed BLAKE2b with a 32-byte output (§1.2).", hash),
    ("ed25519", "ed25519.sign / ed25519.verify: RFC 8032 known answers and the strict profile (D10).", ed25519),
    ("base64url", "base64url.encode / base64url.decode: strict, unpadded, one encoding per byte string (D9).", base64url),
    ("timestamp", "timestamp.compare: the RFC 3339 profile of D5, compared as instants.", timestamp),
    ("principal", "principal.from_seed: base64url of the RFC 8032 public key of a seed (§2).", principal),
];

/// Builds the `primitives` area.
pub fn build(area: &mut Area) {
    super::build_plain_groups(area, GROUPS);
    super::primitives_redteam::build(area);
}

// ---------------------------------------------------------------------------------------
// canonicalization

fn canon_ok(g: &mut Group, n: u16, desc: &str, reqs: &[&str], text: &str, canonical: &str) {
    let expect = Expectation::valid(json!({ "canonical": canonical }));
    let input = json!({ "text": text });
    g.case(n, desc, reqs, &[], "json.canonicalize", input, expect);
}

fn canon_bad(g: &mut Group, n: u16, desc: &str, reqs: &[&str], text: &str) {
    let expect = Expectation::invalid("invalid_json", "1.2/json");
    let input = json!({ "text": text });
    g.case(n, desc, reqs, &[], "json.canonicalize", input, expect);
}

const NUM: &[&str] = &["PRIM-JCS-NUMBERS"];
const KEY: &[&str] = &["PRIM-JCS-KEY-ORDER"];
const STR: &[&str] = &["PRIM-JCS-STRINGS"];
const DUP: &[&str] = &["PRIM-JSON-DUPLICATE-KEY"];
const SUR: &[&str] = &["PRIM-JSON-LONE-SURROGATE"];
const RANGE: &[&str] = &["PRIM-JSON-NUMBER-RANGE"];
const TRAIL: &[&str] = &["PRIM-JSON-TRAILING"];
const SYN: &[&str] = &["PRIM-JSON-TRAILING"];
const DEPTH: &[&str] = &["PRIM-JSON-DEPTH"];

/// A refused text (`invalid_json`).
const REJECTED: Option<&str> = None;

/// Number, description, requirements, text, canonical text (or [`REJECTED`]).
type CanonRow = (u16, &'static str, Ids, &'static str, Option<&'static str>);

/// Key order (RFC 8785 §3.2.2, §3.2.3 and more).
#[rustfmt::skip]
const CANON_KEYS: &[CanonRow] = &[
    // RFC 8785 §3.2.2 example (whitespace removed, numbers, escapes, literals).
    (1, "RFC 8785 §3.2.2 example: numbers, string escapes and literals", &["PRIM-JCS-NUMBERS", "PRIM-JCS-STRINGS", "PRIM-JCS-KEY-ORDER"], "{\n  \"numbers\": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n  \"literals\": [null, true, false]\n}", Some("{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\"string\":\"\u{20ac}$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}")),
    // RFC 8785 §3.2.3 sorting example.
    (2, "RFC 8785 §3.2.3 example: keys sorted by UTF-16 code units", KEY, "{\n  \"\\u20ac\": \"Euro Sign\",\n  \"\\r\": \"Carriage Return\",\n  \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\",\n  \"1\": \"One\",\n  \"\\ud83d\\ude00\": \"Emoji: Grinning Face\",\n  \"\\u0080\": \"Control\",\n  \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"\n}", Some("{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\"\u{f6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20ac}\":\"Euro Sign\",\"\u{1f600}\":\"Emoji: Grinning Face\",\"\u{fb33}\":\"Hebrew Letter Dalet With Dagesh\"}")),
    (3, "U+E000 sorts after U+10000 (UTF-16 surrogates 0xD800 < 0xE000), unlike code-point order", KEY, r#"{"\ue000":1,"\ud800\udc00":2}"#, Some("{\"\u{10000}\":2,\"\u{e000}\":1}")),
    (4, "ASCII keys sort by code unit: `A` < `_` < `a` < `aa` < `b`", KEY, r#"{"b":1,"aa":5,"a":2,"_":4,"A":3}"#, Some(r#"{"A":3,"_":4,"a":2,"aa":5,"b":1}"#)),
    (5, "the empty key sorts first", KEY, r#"{" ":2,"":1}"#, Some(r#"{"":1," ":2}"#)),
    (6, "nested objects are sorted recursively; array order is kept", KEY, r#"{"b":[{"z":1,"y":2},3,1],"a":{"d":{"f":1,"e":2}}}"#, Some(r#"{"a":{"d":{"e":2,"f":1}},"b":[{"y":2,"z":1},3,1]}"#)),
    (7, "insignificant whitespace (space, TAB, CR, LF) is removed, trailing included", KEY, "  {\n \"a\" : [ 1 , 2 ] ,\t\"b\":true\r\n}  \n\t", Some(r#"{"a":[1,2],"b":true}"#)),
    (8, "empty object", KEY, "{ }", Some("{}")),
    (9, "empty array", KEY, "[ ]", Some("[]")),
    (10, "a key that differs only by case sorts uppercase first", KEY, r#"{"a":1,"B":2}"#, Some(r#"{"B":2,"a":1}"#)),
    (11, "a key that is a prefix of another sorts first", KEY, r#"{"ab":1,"a":2}"#, Some(r#"{"a":2,"ab":1}"#)),
    (12, "keys compare after unescaping (`\\u0062` is `b`)", KEY, r#"{"\u0062":1,"a":2}"#, Some(r#"{"a":2,"b":1}"#)),
];

/// Numbers: RFC 8785 Appendix B and ES6 Number.prototype.toString: number, input, output,
/// what.
#[rustfmt::skip]
const CANON_NUMBERS: &[(u16, &str, &str, &str)] = &[
    (20, "1.0", "1", "a trailing `.0` is dropped"),
    (21, "1E2", "100", "an uppercase exponent is expanded"),
    (22, "4.50", "4.5", "trailing fraction zeros are dropped"),
    (23, "1e21", "1e+21", "10^21 switches to exponent form with an explicit `+`"),
    (24, "1e20", "100000000000000000000", "10^20 is written out in full"),
    (25, "999999999999999900000", "999999999999999900000", "the largest ES6 decimal form below 1e21 (B: 0x444b1ae4d6e2ef4f)"),
    (26, "0.0000001", "1e-7", "10^-7 switches to exponent form"),
    (27, "0.000001", "0.000001", "10^-6 stays in decimal form (B: 0x3eb0c6f7a0b5ed8d)"),
    (28, "9.999999999999997e-7", "9.999999999999997e-7", "ES6 line 0x3eb0c6f7a0b5ed8c"),
    (29, "9007199254740993", "9007199254740992", "2^53+1 is not a double; rounds to 2^53"),
    (30, "9007199254740994", "9007199254740994", "2^53+2 is exact"),
    (31, "9007199254740995", "9007199254740996", "2^53+3 rounds half to even (2^53+4)"),
    (32, "5e-324", "5e-324", "the smallest subnormal (B: 0x0000000000000001)"),
    (33, "-5e-324", "-5e-324", "the largest negative subnormal (B: 0x8000000000000001)"),
    (34, "1.7976931348623157e308", "1.7976931348623157e+308", "the largest double (B: 0x7fefffffffffffff)"),
    (35, "-1.7976931348623157e308", "-1.7976931348623157e+308", "the most negative double (B: 0xffefffffffffffff)"),
    (36, "9.999999999999997e+22", "9.999999999999997e+22", "B: 0x44b52d02c7e14af5"),
    (37, "1e23", "1e+23", "B: 0x44b52d02c7e14af6"),
    (38, "1.0000000000000001e+23", "1.0000000000000001e+23", "B: 0x44b52d02c7e14af7"),
    (39, "295147905179352830000", "295147905179352830000", "2^68 (B: 0x4430000000000000)"),
    (40, "333333333.3333332", "333333333.3333332", "B: 0x41b3de4355555553"),
    (41, "333333333.33333325", "333333333.33333325", "B: 0x41b3de4355555554"),
    (42, "333333333.33333343", "333333333.33333343", "B: 0x41b3de4355555557"),
    (43, "-0.0000033333333333333333", "-0.0000033333333333333333", "B: 0xbecbf647612f3696"),
    (44, "1424953923781206.2", "1424953923781206.2", "B: 0x43143ff3c1cb0959"),
    (45, "-9223372036854775808", "-9223372036854776000", "i64::MIN is printed as the nearest double"),
    (46, "18446744073709551616", "18446744073709552000", "2^64 is printed as the nearest double"),
    (47, "0.1", "0.1", "shortest round-trip digits"),
    (48, "0.30000000000000004", "0.30000000000000004", "17 significant digits when needed"),
    (49, "-1.5e-7", "-1.5e-7", "negative small exponent form"),
    (50, "123456789012345678901", "123456789012345680000", "a 21-digit integer below 1e21 is printed with trailing zeros"),
    (51, "4.9e-324", "5e-324", "a long spelling of the smallest subnormal"),
    (52, "1E+2", "100", "an explicit `+` in the input exponent"),
    (53, "0e10", "0", "zero with an exponent"),
    (54, "100e-2", "1", "a scaled spelling of one"),
];

/// Negative zero, strings, idempotence and ordinary names.
#[rustfmt::skip]
const CANON_STRINGS: &[CanonRow] = &[
    (60, "negative zero is serialized as 0", &["PRIM-JCS-NEG-ZERO"], r#"{"n":-0}"#, Some(r#"{"n":0}"#)),
    (61, "negative zero with a fraction is serialized as 0", &["PRIM-JCS-NEG-ZERO"], "[-0.0,-0e5]", Some("[0,0]")),
    // Strings.
    (70, "U+2028, DEL and `\\/` are emitted raw; U+001F is escaped", STR, r#"["\u2028\u007f\/\u001f"]"#, Some("[\"\u{2028}\u{7f}/\\u001f\"]")),
    (71, "the five short escapes are used where they exist", STR, r#"["\u0008\u0009\u000a\u000c\u000d"]"#, Some(r#"["\b\t\n\f\r"]"#)),
    (72, "other control characters use lowercase `\\u00xx`", STR, r#"["\u0000\u000B\u001F\u0001"]"#, Some(r#"["\u0000\u000b\u001f\u0001"]"#)),
    (73, "`\"` and `\\` are escaped with a backslash", STR, r#"["\u0022\u005c"]"#, Some(r#"["\"\\"]"#)),
    (74, "non-ASCII escapes are emitted as raw UTF-8", STR, r#"["\u00e9\u4e2d\ud83d\ude00"]"#, Some("[\"\u{e9}\u{4e2d}\u{1f600}\"]")),
    (75, "raw non-ASCII text is kept as is", STR, "[\"é中😀\"]", Some("[\"é中😀\"]")),
    (76, "a raw DEL character inside a string is allowed and kept", STR, "[\"a\u{7f}b\"]", Some("[\"a\u{7f}b\"]")),
    (77, "U+FEFF inside a string (not at the start of the text) is kept", STR, "[\"\u{feff}\"]", Some("[\"\u{feff}\"]")),
    (78, "keys are escaped like values", &["PRIM-JCS-STRINGS", "PRIM-JCS-KEY-ORDER"], r#"{"\n":1,"\u001f":2}"#, Some(r#"{"\n":1,"\u001f":2}"#)),
    // Idempotence and ordinary names.
    (80, "canonical text is a fixed point", &["PRIM-JCS-IDEMPOTENT"], r#"{"a":[1,"x",{"b":null}],"c":1e+21}"#, Some(r#"{"a":[1,"x",{"b":null}],"c":1e+21}"#)),
    (81, "canonical text with escapes is a fixed point", &["PRIM-JCS-IDEMPOTENT"], "{\"\\u001f\":\"\u{2028}\",\"k\":\"\\\\\"}", Some("{\"\\u001f\":\"\u{2028}\",\"k\":\"\\\\\"}")),
    (82, "`__proto__` is an ordinary key (sorted, kept)", &["PRIM-JSON-PROTO-KEY"], r#"{"a":1,"__proto__":{"admin":true}}"#, Some(r#"{"__proto__":{"admin":true},"a":1}"#)),
    (83, "`constructor` and `prototype` are ordinary keys", &["PRIM-JSON-PROTO-KEY"], r#"{"prototype":2,"constructor":1}"#, Some(r#"{"constructor":1,"prototype":2}"#)),
];

/// `n` nested arrays.
fn arr(n: usize) -> String {
    format!("{}{}", "[".repeat(n), "]".repeat(n))
}

/// `n` nested objects around `1`.
fn obj(n: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n))
}

/// Arrays and objects alternating to depth 32.
fn mixed() -> String {
    format!("{}1{}", "[{\"a\":".repeat(16), "}]".repeat(16))
}

/// A text built at generation time.
type MakeText = fn() -> String;

/// Depth (D33: the top-level container is depth 1; 32 accepted, 33 rejected): number,
/// description, text, accepted (then the canonical text is the text).
#[rustfmt::skip]
const CANON_DEPTHS: &[(u16, &str, MakeText, bool)] = &[
    (90, "32 nested arrays (the limit) are accepted", || arr(32), true),
    (91, "33 nested arrays exceed the depth limit", || arr(33), false),
    (92, "32 nested objects are accepted", || obj(32), true),
    (93, "33 nested objects exceed the depth limit", || obj(33), false),
    (94, "10000 nested arrays are rejected without crashing", || arr(10_000), false),
    (95, "10000 unclosed arrays are rejected without crashing", || "[".repeat(10_000), false),
    (96, "arrays and objects alternating to depth 32 are accepted", mixed, true),
    (97, "one more array around depth 32 is rejected", || format!("[{}]", mixed()), false),
];

/// Rejections (D33).
#[rustfmt::skip]
const CANON_REJECTED: &[CanonRow] = &[
    (100, "duplicate key at the top level", DUP, r#"{"a":1,"a":2}"#, REJECTED),
    (101, "duplicate key in a nested object", DUP, r#"{"x":{"a":1,"a":1}}"#, REJECTED),
    (102, "duplicate key after unescaping (`a` and `\\u0061`)", DUP, r#"{"a":1,"\u0061":2}"#, REJECTED),
    (103, "duplicate key inside an array element", DUP, r#"[{"b":1,"c":2,"b":3}]"#, REJECTED),
    (110, "lone high surrogate in a value", SUR, r#"["\ud800"]"#, REJECTED),
    (111, "lone low surrogate as a key", SUR, r#"{"\udc00":1}"#, REJECTED),
    (112, "surrogates in the wrong order", SUR, r#"["\udc00\ud800"]"#, REJECTED),
    (113, "high surrogate at the end of a string", SUR, r#"["a\ud83d"]"#, REJECTED),
    (114, "high surrogate followed by a non-surrogate escape", SUR, r#"["\ud83d\u0041"]"#, REJECTED),
    (120, "`1e400` overflows a double", RANGE, r#"{"n":1e400}"#, REJECTED),
    (121, "`-1e400` overflows a double", RANGE, "[-1e400]", REJECTED),
    (122, "`1.8e308` overflows a double", RANGE, "[1.8e308]", REJECTED),
    (123, "`NaN` is not JSON", RANGE, "[NaN]", REJECTED),
    (124, "`Infinity` is not JSON", RANGE, "[Infinity]", REJECTED),
    (125, "`-Infinity` is not JSON", RANGE, "[-Infinity]", REJECTED),
    (130, "a byte-order mark before the text", &["PRIM-JSON-BOM"], "\u{feff}{}", REJECTED),
    (131, "a byte-order mark before an array", &["PRIM-JSON-BOM"], "\u{feff}[1]", REJECTED),
    (140, "trailing text after the value", TRAIL, "{} x", REJECTED),
    (141, "two top-level values", TRAIL, "{}{}", REJECTED),
    (142, "trailing comma in an array", TRAIL, "[1,2,]", REJECTED),
    (143, "trailing comma in an object", TRAIL, r#"{"a":1,}"#, REJECTED),
    (144, "trailing NBSP (not JSON whitespace)", TRAIL, "{}\u{a0}", REJECTED),
    (145, "trailing NUL", TRAIL, "{}\u{0}", REJECTED),
    (146, "a trailing line comment", TRAIL, "{} // x", REJECTED),
    (147, "two arrays separated by a newline", TRAIL, "[1]\n[2]", REJECTED),
    (148, "trailing vertical tab (not JSON whitespace)", TRAIL, "[]\u{b}", REJECTED),
    (150, "the empty text", SYN, "", REJECTED),
    (151, "whitespace only", SYN, " \n", REJECTED),
    (152, "single-quoted strings", SYN, "{'a':1}", REJECTED),
    (153, "an unquoted key", SYN, "{a:1}", REJECTED),
    (154, "a leading zero", SYN, "[01]", REJECTED),
    (155, "a leading `+`", SYN, "[+1]", REJECTED),
    (156, "a fraction without integer part", SYN, "[.5]", REJECTED),
    (157, "a fraction without digits", SYN, "[1.]", REJECTED),
    (158, "a hexadecimal number", SYN, "[0x10]", REJECTED),
    (159, "a raw TAB inside a string", &["PRIM-JCS-STRINGS"], "[\"a\tb\"]", REJECTED),
    (160, "a raw newline inside a string", &["PRIM-JCS-STRINGS"], "[\"a\nb\"]", REJECTED),
    (161, "an unknown escape `\\x41`", &["PRIM-JCS-STRINGS"], r#"["\x41"]"#, REJECTED),
    (162, "an uppercase `\\U` escape", &["PRIM-JCS-STRINGS"], r#"["\U0041"]"#, REJECTED),
    (163, "an unterminated string", SYN, "[\"abc]", REJECTED),
];

fn canon_rows(g: &mut Group, rows: &[CanonRow]) {
    for &(n, desc, reqs, text, canonical) in rows {
        match canonical {
            Some(canonical) => canon_ok(g, n, desc, reqs, text, canonical),
            None => canon_bad(g, n, desc, reqs, text),
        }
    }
}

fn canonicalization(g: &mut Group) {
    canon_rows(g, CANON_KEYS);
    for &(n, input, out, what) in CANON_NUMBERS {
        canon_ok(
            g,
            n,
            &format!("number `{input}` → `{out}`: {what}"),
            NUM,
            &format!("[{input}]"),
            &format!("[{out}]"),
        );
    }
    canon_rows(g, CANON_STRINGS);
    for &(n, desc, text, accepted) in CANON_DEPTHS {
        let text = text();
        if accepted {
            canon_ok(g, n, desc, DEPTH, &text, &text);
        } else {
            canon_bad(g, n, desc, DEPTH, &text);
        }
    }
    canon_rows(g, CANON_REJECTED);
}

// ---------------------------------------------------------------------------------------
// hash

const HASH: &[&str] = &["PRIM-HASH-BLAKE2B256"];

/// The bytes 00..ff four times (1 KiB), in hex.
fn one_kib() -> String {
    (0..4)
        .flat_map(|_| 0u8..=255)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Number, description, requirements, input bytes (hex), BLAKE2b-256 (hex).
#[rustfmt::skip]
const HASHES: &[(u16, &str, &[&str], MakeText, &str)] = &[
    (1, "empty input", HASH, || "".into(), "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8"),
    (2, "`abc`: BLAKE2b-256 is bddd813c…2319, not the truncated BLAKE2b-512 ba80a53f…a2d1", HASH, || "616263".into(), "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"),
    (3, "one zero byte", HASH, || "00".into(), "03170a2e7597b7b7e3d84c05391d139a62b157e78786d8c082f29dcf4c111314"),
    (4, "exactly one 128-byte block of zeros", HASH, || "00".repeat(128), "378d0caaaa3855f1b38693c1d6ef004fd118691c95c959d4efa950d6d6fcf7c1"),
    (5, "129 zero bytes (one byte into the second block)", HASH, || "00".repeat(129), "baadfb64c3bd2cd187b54accc5e61a0720ed86bf48c28017873536cf9015d1b8"),
    (6, "1 KiB: bytes 00..ff repeated four times", HASH, one_kib, "f1551feeb252c7e60bb362205bd1ac2f70b145260a91d41e8c5d0a187549a5f2"),
    (7, "the canonical JSON bytes `{\"a\":1}` (the digest a signature covers)", &["PRIM-HASH-BLAKE2B256", "PRIM-HASH-SIGNED-DIGEST"], || "7b2261223a317d".into(), "10a7ff3e312baec0c356be489739b93f63af84416c40f1c13023eb96c7ed50aa"),
];

fn hash(g: &mut Group) {
    for &(n, desc, reqs, hex_in, out) in HASHES {
        let input = json!({ "hex": hex_in() });
        let expect = Expectation::valid(json!({ "hex": out }));
        g.case(n, desc, reqs, &[], "hash.blake2b256", input, expect);
    }
}

// ---------------------------------------------------------------------------------------
// ed25519

/// RFC 8032 §7.1: (name, secret key, public key, message, signature).
const RFC8032: &[(&str, &str, &str, &str, &str)] = &[
    ("TEST 1 (empty message)",
     "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
    ("TEST 2 (one byte)",
     "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ("TEST 3 (two bytes)",
     "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
    ("TEST SHA(abc) (64-byte message)",
     "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
     "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"),
];

fn verify_case(
    g: &mut Group,
    n: u16,
    desc: &str,
    reqs: &[&str],
    flags: &[&str],
    (pk, msg, sig): (&str, &str, &str),
    expect: Expectation,
) {
    let input = json!({ "publicKey": pk, "message": msg, "signature": sig });
    g.case(n, desc, reqs, flags, "ed25519.verify", input, expect);
}

fn valid(v: bool) -> Expectation {
    Expectation::valid(json!({ "valid": v }))
}

/// The flags of the ed25519 group: name, category, decision, condition, risk.
#[rustfmt::skip]
const ED25519_FLAGS: &[(&str, &str, &str, &str, &str)] = &[
    ("SmallOrderA", "SIGNATURE_MALLEABILITY", "D10", "The public key is one of the 8 points of small order.", "A key under which signatures verify for many messages is accepted."),
    ("SmallOrderR", "SIGNATURE_MALLEABILITY", "D10", "The signature's R is a point of small order.", "Verifiers disagree on which signatures are valid."),
    ("MixedOrderA", "SIGNATURE_MALLEABILITY", "D10", "The public key has a torsion component (prime-order point plus a small-order point).", "Cofactored and cofactorless verifiers disagree."),
    ("MixedOrderR", "SIGNATURE_MALLEABILITY", "D10", "R has a torsion component.", "Cofactored and cofactorless verifiers disagree."),
    ("NonCanonicalA", "SIGNATURE_MALLEABILITY", "D10", "The public key is a non-canonical encoding (y >= p, or x = 0 with the sign bit set), which RFC 8032 §5.1.3 refuses to decode.", "Several byte strings name one key."),
    ("NonCanonicalR", "SIGNATURE_MALLEABILITY", "D10", "R is a non-canonical encoding, which RFC 8032 §5.1.3 refuses to decode.", "Several signatures exist for one message."),
    ("SNotReduced", "SIGNATURE_MALLEABILITY", "D10", "S is not below the group order L (RFC 8032 §5.1.7 requires 0 <= S < L).", "A valid signature can be malleated into another valid one."),
    ("InvalidA", "EDGE_CASE", "D10", "The public key bytes decode to no curve point.", "A crash or an accepting default on an invalid key."),
    ("InvalidR", "EDGE_CASE", "D10", "R decodes to no curve point.", "A crash or an accepting default on an invalid signature."),
    ("WrongLength", "EDGE_CASE", "D10", "A signature that is not 64 bytes or a key that is not 32 bytes: `valid: false`, never an error.", "The verifier throws (noble: \"Uint8Array expected\") instead of answering."),
];

/// A change of a hex string.
type HexEdit = fn(&str) -> String;
const SAME: HexEdit = str::to_owned;

/// Wrong lengths of RFC 8032 TEST 2 (`valid: false`, never an error, D10): number, what,
/// public key, signature.
#[rustfmt::skip]
const WRONG_LENGTHS: &[(u16, &str, HexEdit, HexEdit)] = &[
    (30, "empty signature", SAME, |_| String::new()),
    (31, "63-byte signature (last byte dropped)", SAME, |sig| sig[..126].into()),
    (32, "65-byte signature (a zero byte appended)", SAME, |sig| format!("{sig}00")),
    (33, "32-byte signature (R only)", SAME, |sig| sig[..64].into()),
    (34, "128-byte signature (doubled)", SAME, |sig| format!("{sig}{sig}")),
    (35, "31-byte public key", |pk| pk[..62].into(), SAME),
    (36, "33-byte public key", |pk| format!("{pk}00"), SAME),
    (37, "empty public key", |_| String::new(), SAME),
    (38, "64-byte public key (key twice)", |pk| format!("{pk}{pk}"), SAME),
];

fn ed25519(g: &mut Group) {
    for &(name, category, decision, condition, risk) in ED25519_FLAGS {
        g.define_flag(name, category, decision, condition, risk);
    }

    // RFC 8032 known answers: sign, then verify.
    for (i, &(name, sk, pk, msg, sig)) in RFC8032.iter().enumerate() {
        let i = u16::try_from(i).unwrap_or(0);
        g.case(
            1 + i,
            &format!("RFC 8032 §7.1 {name}: sign"),
            &["PRIM-SIG-ED25519"],
            &[],
            "ed25519.sign",
            json!({ "seed": sk, "message": msg }),
            Expectation::valid(json!({ "publicKey": pk, "signature": sig })),
        );
        verify_case(
            g,
            11 + i,
            &format!("RFC 8032 §7.1 {name}: verify"),
            &["PRIM-SIG-ED25519"],
            &[],
            (pk, msg, sig),
            valid(true),
        );
    }
    // Signing the 32-byte BLAKE2b-256 digest of canonical JSON (the protocol's only use).
    let digest = "10a7ff3e312baec0c356be489739b93f63af84416c40f1c13023eb96c7ed50aa";
    let dsig = "c2954aac6ca1d50d76a36e70c9cf6eb88fdfcb4a8cbe84f505e275462cf68d0aff06d795efe3da00aaa1d8fa3a40fd4f004439035535d4be848aec8e849cbc03";
    g.case(
        20,
        "sign BLAKE2b-256(`{\"a\":1}`) with the RFC 8032 TEST 1 key (Python RFC 8032 §6 code)",
        &["PRIM-HASH-SIGNED-DIGEST", "PRIM-SIG-ED25519"],
        &[],
        "ed25519.sign",
        json!({ "seed": RFC8032[0].1, "message": digest }),
        Expectation::valid(json!({ "publicKey": RFC8032[0].2, "signature": dsig })),
    );
    verify_case(
        g,
        21,
        "verify the digest signature",
        &["PRIM-HASH-SIGNED-DIGEST", "PRIM-SIG-ED25519"],
        &[],
        (RFC8032[0].2, digest, dsig),
        valid(true),
    );
    verify_case(
        g,
        22,
        "the digest signature does not verify over the canonical text itself",
        &["PRIM-HASH-SIGNED-DIGEST"],
        &[],
        (RFC8032[0].2, "7b2261223a317d", dsig),
        valid(false),
    );

    // Wrong lengths: `valid: false`, never an error (D10).
    let (pk, msg, sig) = (RFC8032[1].2, RFC8032[1].3, RFC8032[1].4);
    for &(n, what, k, s) in WRONG_LENGTHS {
        verify_case(
            g,
            n,
            &format!("RFC 8032 TEST 2 with a {what}: not valid"),
            &["PRIM-SIG-LENGTH"],
            &["WrongLength"],
            (&k(pk), msg, &s(sig)),
            valid(false),
        );
    }
    ed25519_edge(g);
}

/// Edge cases built by data/ed25519_edge.py.
fn ed25519_edge(g: &mut Group) {
    let edge: Value = serde_json::from_str(EDGE).unwrap_or(Value::Null);
    let cases = edge["cases"].as_array().cloned().unwrap_or_default();
    for (i, c) in cases.iter().enumerate() {
        let n = 100 + u16::try_from(i).unwrap_or(0);
        let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
        let flags: Vec<String> = c["flags"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let mut reqs: Vec<&str> = Vec::new();
        for f in &flags {
            let r = match f.as_str() {
                "SNotReduced" => "PRIM-SIG-S-RANGE",
                "SmallOrderA" | "SmallOrderR" => "PRIM-SIG-SMALL-ORDER",
                "MixedOrderA" | "MixedOrderR" => "PRIM-SIG-TORSION",
                "NonCanonicalA" | "NonCanonicalR" => "PRIM-SIG-NONCANONICAL",
                _ => "PRIM-SIG-ED25519",
            };
            if !reqs.contains(&r) {
                reqs.push(r);
            }
        }
        if reqs.is_empty() {
            reqs.push("PRIM-SIG-ED25519");
        }
        let name = s("name");
        // Research §3: dalek's batch verifier accepted Wycheproof tc 151, an R of `0100…80`.
        if name == "noncanon-r-identity-sign" {
            reqs.push("PRIM-SIG-NO-BATCH");
        }
        let mut flag_refs: Vec<&str> = flags.iter().map(String::as_str).collect();
        let verdict = c["verdict"].as_str().unwrap_or_default();
        let expect = match verdict {
            "valid" => valid(true),
            "acceptable" => {
                flag_refs.push("Ed25519Cofactored");
                Expectation::acceptable(
                    "D10",
                    vec![
                        Expected::valid(json!({ "valid": false })),
                        Expected::valid(json!({ "valid": true })),
                    ],
                )
            }
            _ => valid(false),
        };
        let info = &c["construction"];
        let eqs = format!(
            "cofactorless equation {}, cofactored {}",
            if info["cofactorless"] == json!(true) {
                "holds"
            } else {
                "fails"
            },
            if info["cofactored"] == json!(true) {
                "holds"
            } else {
                "fails"
            }
        );
        let mut desc = format!("{} ({name}; {eqs})", s("description"));
        if flags.iter().any(|f| f == "NonCanonicalA") {
            // Measured with @noble/ed25519 2.3.0, the library §1.2 names: its default
            // `verify` (ZIP 215) accepts these keys; RFC 8032 §5.1.3, which §1.2 also names,
            // refuses them.
            desc.push_str(
                ". RFC 8032 §5.1.3: decoding fails for y >= p. @noble/ed25519 v2's default \
                 verify ({zip215: true}) accepts this key; { zip215: false } refuses it",
            );
        }
        verify_case(
            g,
            n,
            &desc,
            &reqs,
            &flag_refs,
            (&s("publicKey"), &s("message"), &s("signature")),
            expect,
        );
    }
}

// ---------------------------------------------------------------------------------------
// base64url

const ALPHA: &[&str] = &["PRIM-B64-ALPHABET"];
const STRICT: &[&str] = &["PRIM-B64-STRICT-DECODE"];
const BITS: &[&str] = &["PRIM-B64-TRAILING-BITS"];
/// The research §4 key, and its bytes in hex.
const B64_KEY: &str = "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg";
const B64_KEY_HEX: &str = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8";

/// RFC 4648 §10 (unpadded, url alphabet): hex, text.
const RFC4648: &[(&str, &str)] = &[
    ("", ""),
    ("66", "Zg"),
    ("666f", "Zm8"),
    ("666f6f", "Zm9v"),
    ("666f6f62", "Zm9vYg"),
    ("666f6f6261", "Zm9vYmE"),
    ("666f6f626172", "Zm9vYmFy"),
];

/// A text built at generation time.
type Text = fn() -> String;

/// What a base64url case checks about its text: it is the encoding of these bytes (hex), it
/// decodes to these bytes, or decoding refuses it.
#[derive(Clone, Copy)]
enum B64 {
    Encode(&'static str),
    Decode(Text),
    Refused,
}

const REFUSED: B64 = B64::Refused;

/// Number, description, requirements, text, what is checked.
type B64Row = (u16, &'static str, &'static [&'static str], Text, B64);

#[rustfmt::skip]
const B64_CASES: &[B64Row] = &[
    (20, "bytes fb ff use `-` and `_` (standard base64 would give `+/8=`)", ALPHA, || "-_8".into(), B64::Encode("fbff")),
    (21, "`-_8` decodes to fb ff", ALPHA, || "-_8".into(), B64::Decode(|| "fbff".into())),
    (22, "bytes 3e 3f c0 map to `Pj_A` (`_` for 63)", ALPHA, || "Pj_A".into(), B64::Encode("3e3fc0")),
    (23, "a 32-byte key encodes to 43 characters", ALPHA, || B64_KEY.into(), B64::Encode(B64_KEY_HEX)),
    (24, "research §4 key: canonical 43 characters decode to 32 bytes", ALPHA, || B64_KEY.into(), B64::Decode(|| B64_KEY_HEX.into())),
    // Research §4 rows.
    (30, "`=` padding appended to a key", STRICT, || format!("{B64_KEY}="), REFUSED),
    (31, "last character `g`→`h`: non-zero trailing bits", BITS, || B64_KEY.replace("Mbg", "Mbh"), REFUSED),
    (32, "`/` instead of `_` (standard alphabet)", STRICT, || B64_KEY.replace('_', "/"), REFUSED),
    (33, "`+` instead of `-` (standard alphabet)", STRICT, || "+_8".into(), REFUSED),
    (34, "`/` in a short string", STRICT, || "-/8".into(), REFUSED),
    (35, "a space inside", STRICT, || format!("{} {}", &B64_KEY[..20], &B64_KEY[20..]), REFUSED),
    (36, "a trailing newline", STRICT, || format!("{B64_KEY}\n"), REFUSED),
    (37, "a leading TAB", STRICT, || format!("\t{B64_KEY}"), REFUSED),
    (38, "truncated to 42 characters (last symbol has non-zero unused bits)", BITS, || B64_KEY[..42].into(), REFUSED),
    (39, "45 characters (length ≡ 1 mod 4)", STRICT, || format!("{B64_KEY}AA"), REFUSED),
    (40, "44 characters decode to 33 bytes: a generic decoder has no length to enforce", &["PRIM-B64-EXACT-LENGTH"], || format!("{B64_KEY}A"), B64::Decode(|| format!("{B64_KEY_HEX}00"))),
    (41, "`=` in the middle", STRICT, || format!("{}={}", &B64_KEY[..8], &B64_KEY[9..]), REFUSED),
    (42, "`AA==` (padded)", STRICT, || "AA==".into(), REFUSED),
    (43, "`AA=` (partially padded)", STRICT, || "AA=".into(), REFUSED),
    (44, "`AA` decodes to one zero byte", ALPHA, || "AA".into(), B64::Decode(|| "00".into())),
    (45, "`AB`: non-zero trailing bits", BITS, || "AB".into(), REFUSED),
    (46, "`Zh`: non-zero trailing bits (canonical `Zg`)", BITS, || "Zh".into(), REFUSED),
    (47, "`Zm9`: non-zero trailing bits (canonical `Zm8`)", BITS, || "Zm9".into(), REFUSED),
    (48, "a `.` inside", STRICT, || format!("{}.", &B64_KEY[..42]), REFUSED),
    (49, "a non-ASCII character inside", STRICT, || "Zm9v\u{e9}g".into(), REFUSED),
    (50, "the empty string decodes to zero bytes", ALPHA, || "".into(), B64::Decode(|| "".into())),
    (51, "a single character (length ≡ 1 mod 4)", STRICT, || "A".into(), REFUSED),
    (52, "five characters (length ≡ 1 mod 4)", STRICT, || "AAAAA".into(), REFUSED),
    (53, "`Zg==` (RFC 4648 padded form)", STRICT, || "Zg==".into(), REFUSED),
    (54, "padding only", STRICT, || "====".into(), REFUSED),
    (55, "a fullwidth letter", STRICT, || "Ｚg".into(), REFUSED),
    (56, "a NUL character", STRICT, || "Zg\u{0}".into(), REFUSED),
    (57, "a percent-encoded `=`", STRICT, || "Zg%3D%3D".into(), REFUSED),
];

fn base64url(g: &mut Group) {
    for (i, &(h, t)) in RFC4648.iter().enumerate() {
        let i = u16::try_from(i).unwrap_or(0);
        g.case(
            1 + i,
            &format!("RFC 4648 §10 vector {t:?}: encode without padding"),
            ALPHA,
            &[],
            "base64url.encode",
            json!({ "hex": h }),
            Expectation::valid(json!({ "text": t })),
        );
        g.case(
            11 + i,
            &format!("RFC 4648 §10 vector {t:?}: decode"),
            ALPHA,
            &[],
            "base64url.decode",
            json!({ "text": t }),
            Expectation::valid(json!({ "hex": h })),
        );
    }
    for &(n, desc, reqs, text, b64) in B64_CASES {
        let text = text();
        let (op, input, expect) = match b64 {
            B64::Encode(hex) => (
                "base64url.encode",
                json!({ "hex": hex }),
                Expectation::valid(json!({ "text": text })),
            ),
            B64::Decode(hex) => (
                "base64url.decode",
                json!({ "text": text }),
                Expectation::valid(json!({ "hex": hex() })),
            ),
            B64::Refused => (
                "base64url.decode",
                json!({ "text": text }),
                Expectation::invalid("invalid_encoding", "1.2/base64url"),
            ),
        };
        g.case(n, desc, reqs, &[], op, input, expect);
    }
}

// ---------------------------------------------------------------------------------------
// timestamp

fn order(o: i8) -> Expectation {
    Expectation::valid(json!({ "order": o }))
}

fn order_or_reject(o: i8) -> Expectation {
    Expectation::acceptable(
        "D5",
        vec![
            Expected::valid(json!({ "order": o })),
            Expected::invalid("invalid_timestamp", "1.2/time"),
        ],
    )
}

fn order_or_truncated(o: i8, truncated: i8) -> Expectation {
    Expectation::acceptable(
        "D5",
        vec![
            Expected::valid(json!({ "order": o })),
            Expected::valid(json!({ "order": truncated })),
        ],
    )
}

const INSTANT: &[&str] = &["PRIM-TIME-INSTANT"];
const PROFILE: &[&str] = &["PRIM-TIME-PROFILE"];
const OFFSET: &[&str] = &["PRIM-TIME-OFFSET", "PRIM-TIME-INSTANT"];
const LEAP: &[&str] = &["PRIM-TIME-LEAP-SECOND"];
const CALENDAR: &[&str] = &["PRIM-TIME-CALENDAR"];
const FORMS: &[&str] = &["PRIM-TIME-REJECT-FORMS"];
const TOFF: &[&str] = &["TimestampOffset"];
const TFR: &[&str] = &["TimestampFraction"];
/// The operand most cases compare with.
const Z: &str = "2026-01-01T00:00:00Z";

/// What timestamp.compare returns: the order; the order or, under D5, a refusal; the order or,
/// under D5, the order after truncating the fraction; or `invalid_timestamp`.
#[derive(Clone, Copy)]
enum Cmp {
    Is(i8),
    OrReject(i8),
    OrTruncated(i8, i8),
    Invalid,
}

const INVALID: Cmp = Cmp::Invalid;

/// Number, description, requirements, flags, a, b, outcome.
type CmpRow = (u16, &'static str, Ids, Ids, &'static str, &'static str, Cmp);

/// Instants, offsets and fractions.
#[rustfmt::skip]
const COMPARISONS: &[CmpRow] = &[
    (1, "identical strings are the same instant", PROFILE, &[], Z, Z, Cmp::Is(0)),
    (2, "`.000Z` equals `Z` although it sorts first as a string", INSTANT, &["TimestampFraction"], "2026-01-01T00:00:00.000Z", Z, Cmp::Is(0)),
    (3, "`.5Z` is later than `Z` although it sorts first as a string", INSTANT, &["TimestampFraction"], "2026-01-01T00:00:00.5Z", Z, Cmp::Is(1)),
    (4, "`Z` is earlier than `.5Z`", INSTANT, &["TimestampFraction"], Z, "2026-01-01T00:00:00.5Z", Cmp::Is(-1)),
    (5, "`.1Z` equals `.100000000Z`", INSTANT, &["TimestampFraction"], "2026-01-01T00:00:00.1Z", "2026-01-01T00:00:00.100000000Z", Cmp::Is(0)),
    (6, "one second earlier", INSTANT, &[], "2025-12-31T23:59:59Z", Z, Cmp::Is(-1)),
    (7, "the last nanosecond before the epoch", INSTANT, &[], "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z", Cmp::Is(1)),
    (8, "years compare before months", INSTANT, &[], "2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z", Cmp::Is(-1)),
    (9, "year 9999 is accepted and later", &["PRIM-TIME-PROFILE", "PRIM-TIME-INSTANT"], &[], "9999-12-31T23:59:59Z", Z, Cmp::Is(1)),
    (10, "year 0000 is accepted and earlier than 0001", PROFILE, &[], "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", Cmp::Is(-1)),
    (11, "29 February of a leap year exists", &["PRIM-TIME-CALENDAR"], &[], "2024-02-29T12:00:00Z", "2024-03-01T00:00:00Z", Cmp::Is(-1)),
    (12, "29 February 2000 exists (divisible by 400)", &["PRIM-TIME-CALENDAR"], &[], "2000-02-29T00:00:00Z", "2000-03-01T00:00:00Z", Cmp::Is(-1)),
    (13, "23:59:59.999999999 is the last instant of a day", PROFILE, &[], "2026-01-01T23:59:59.999999999Z", "2026-01-02T00:00:00Z", Cmp::Is(-1)),
    // Offsets (acceptable: implementations that require `Z`).
    (20, "`01:00:00+01:00` is the instant `00:00:00Z`", OFFSET, TOFF, "2026-01-01T01:00:00+01:00", Z, Cmp::OrReject(0)),
    (21, "`-00:00` is UTC", OFFSET, TOFF, "2026-01-01T00:00:00-00:00", Z, Cmp::OrReject(0)),
    (22, "`+00:00` is UTC", OFFSET, TOFF, "2026-01-01T00:00:00+00:00", Z, Cmp::OrReject(0)),
    (23, "a negative offset crossing the year boundary", OFFSET, TOFF, "2025-12-31T23:00:00-01:00", Z, Cmp::OrReject(0)),
    (24, "lexically later but earlier as an instant (`10:00+05:00` = 05:00Z < 06:00Z)", OFFSET, TOFF, "2026-01-01T10:00:00+05:00", "2026-01-01T06:00:00Z", Cmp::OrReject(-1)),
    (25, "lexically earlier but later as an instant (`23:30-01:00` = next day 00:30Z)", OFFSET, TOFF, "2026-01-01T23:30:00-01:00", "2026-01-02T00:00:00Z", Cmp::OrReject(1)),
    (26, "`+14:00` is accepted", OFFSET, TOFF, "2026-01-01T14:00:00+14:00", Z, Cmp::OrReject(0)),
    (27, "an offset with minutes (`+05:30`)", OFFSET, TOFF, "2026-01-01T05:30:00+05:30", Z, Cmp::OrReject(0)),
    // Sub-millisecond fractions (acceptable where millisecond truncation changes the verdict).
    (30, "nanoseconds are significant (`.123456789` > `.123456788`)", INSTANT, TFR, "2026-01-01T00:00:00.123456789Z", "2026-01-01T00:00:00.123456788Z", Cmp::OrTruncated(1, 0)),
    (31, "`.9999Z` is later than `.999Z`", INSTANT, TFR, "2026-01-01T00:00:00.9999Z", "2026-01-01T00:00:00.999Z", Cmp::OrTruncated(1, 0)),
    (32, "`.0001Z` is later than `Z`", INSTANT, TFR, "2026-01-01T00:00:00.0001Z", Z, Cmp::OrTruncated(1, 0)),
    (33, "`.123456789Z` is earlier than `.12345679Z`", INSTANT, TFR, "2026-01-01T00:00:00.123456789Z", "2026-01-01T00:00:00.12345679Z", Cmp::OrTruncated(-1, 0)),
];

/// Rejections (against [`Z`]), then offsets at the limits and around 29 February.
#[rustfmt::skip]
const REJECTIONS: &[CmpRow] = &[
    (40, "leap second `23:59:60` (a real one, 2016-12-31)", LEAP, &[], "2016-12-31T23:59:60Z", Z, INVALID),
    (41, "second 60 on an ordinary minute", LEAP, &[], "2026-01-01T00:00:60Z", Z, INVALID),
    (42, "second 60 with a fraction", LEAP, &[], "2016-12-31T23:59:60.5Z", Z, INVALID),
    (43, "30 February", CALENDAR, &[], "2026-02-30T00:00:00Z", Z, INVALID),
    (44, "29 February of a non-leap year", CALENDAR, &[], "2025-02-29T00:00:00Z", Z, INVALID),
    (45, "29 February 1900 (divisible by 100, not 400)", CALENDAR, &[], "1900-02-29T00:00:00Z", Z, INVALID),
    (46, "31 April", CALENDAR, &[], "2026-04-31T00:00:00Z", Z, INVALID),
    (47, "month 13", CALENDAR, &[], "2026-13-01T00:00:00Z", Z, INVALID),
    (48, "month 00", CALENDAR, &[], "2026-00-01T00:00:00Z", Z, INVALID),
    (49, "day 00", CALENDAR, &[], "2026-01-00T00:00:00Z", Z, INVALID),
    (50, "day 32", CALENDAR, &[], "2026-01-32T00:00:00Z", Z, INVALID),
    (51, "hour 24 (`24:00:00`)", CALENDAR, &[], "2026-01-01T24:00:00Z", Z, INVALID),
    (52, "minute 60", CALENDAR, &[], "2026-01-01T00:60:00Z", Z, INVALID),
    (53, "lowercase `t`", FORMS, &[], "2026-01-01t00:00:00Z", Z, INVALID),
    (54, "lowercase `z`", FORMS, &[], "2026-01-01T00:00:00z", Z, INVALID),
    (55, "a space instead of `T`", FORMS, &[], "2026-01-01 00:00:00Z", Z, INVALID),
    (56, "no offset (local time in JavaScript)", FORMS, &[], "2026-01-01T00:00:00", Z, INVALID),
    (57, "a date without a time", FORMS, &[], "2026-01-01", Z, INVALID),
    (58, "10 fraction digits", FORMS, &[], "2026-01-01T00:00:00.1234567890Z", Z, INVALID),
    (59, "a `.` without fraction digits", FORMS, &[], "2026-01-01T00:00:00.Z", Z, INVALID),
    (60, "`+0000` offset without a colon", FORMS, &[], "2026-01-01T00:00:00+0000", Z, INVALID),
    (61, "`+00` offset without minutes", FORMS, &[], "2026-01-01T00:00:00+00", Z, INVALID),
    (62, "no seconds", FORMS, &[], "2026-01-01T00:00Z", Z, INVALID),
    (63, "an expanded year `+002026`", FORMS, &[], "+002026-01-01T00:00:00Z", Z, INVALID),
    (64, "an RFC 9557 suffix `[UTC]`", FORMS, &[], "2026-01-01T00:00:00Z[UTC]", Z, INVALID),
    (65, "ISO 8601 basic format", FORMS, &[], "20260101T000000Z", Z, INVALID),
    (66, "a comma as the decimal sign", FORMS, &[], "2026-01-01T00:00:00,5Z", Z, INVALID),
    (67, "a fullwidth digit", FORMS, &[], "２026-01-01T00:00:00Z", Z, INVALID),
    (68, "a trailing space", FORMS, &[], "2026-01-01T00:00:00Z ", Z, INVALID),
    (69, "a leading space", FORMS, &[], " 2026-01-01T00:00:00Z", Z, INVALID),
    (70, "offset hour 24", FORMS, &[], "2026-01-01T00:00:00+24:00", Z, INVALID),
    (71, "offset minute 60", FORMS, &[], "2026-01-01T00:00:00+00:60", Z, INVALID),
    (72, "a one-digit month", FORMS, &[], "2026-1-01T00:00:00Z", Z, INVALID),
    (73, "a five-digit year", FORMS, &[], "20260-01-01T00:00:00Z", Z, INVALID),
    (74, "both `Z` and an offset", FORMS, &[], "2026-01-01T00:00:00Z+00:00", Z, INVALID),
    (75, "the empty string", FORMS, &[], "", Z, INVALID),
    (76, "an ISO week date", FORMS, &[], "2026-W01-4T00:00:00Z", Z, INVALID),
    (77, "an ordinal date", FORMS, &[], "2026-001T00:00:00Z", Z, INVALID),
    (78, "a bad second operand is rejected too", FORMS, &[], Z, "2026-02-30T00:00:00Z", INVALID),
    // The largest offsets RFC 3339 allows (hour 23, minute 59) are valid and exact: each names
    // the instant 23 h 59 min away from the same wall clock in UTC.
    // Acceptable, like every offset case: D5 lets an implementation require `Z`.
    (79, "offset +23:59 (the largest hour and minute): 2026-03-01T23:59:00+23:59 is \
         2026-03-01T00:00:00Z", OFFSET, TOFF, "2026-03-01T23:59:00+23:59", "2026-03-01T00:00:00Z", Cmp::OrReject(0)),
    (80, "offset -23:59: 2026-03-01T00:00:00-23:59 is 2026-03-01T23:59:00Z", OFFSET, TOFF, "2026-03-01T00:00:00-23:59", "2026-03-01T23:59:00Z", Cmp::OrReject(0)),
    // Non-digits in a digit field whose byte value minus `0` is a plausible digit value
    // (`:` is `0` + 10, `O` is `0` + 31): a parser that subtracts `'0'` without checking would
    // read a real date.
    (81, "month `0:` (a colon, not a digit)", FORMS, &[], "2026-0:-01T00:00:00Z", Z, INVALID),
    (82, "year `2O26` (a letter O, not a zero)", FORMS, &[], "2O26-01-01T00:00:00Z", Z, INVALID),
    (83, "offset hour `0:` (a colon, not a digit)", FORMS, &[], "2026-01-01T00:00:00+0::00", Z, INVALID),
    // The last day of a 30-day month exists.
    (84, "30 April exists and is the day before 1 May", &["PRIM-TIME-CALENDAR", "PRIM-TIME-INSTANT"], &[], "2026-04-30T00:00:00Z", "2026-05-01T00:00:00Z", Cmp::Is(-1)),
    // Offsets that move an instant across the end of February: the civil dates differ, the
    // instants are compared (acceptable: implementations that require `Z`). 1 March 2000
    // starts a 400-year cycle of the proleptic Gregorian calendar; 1900 and 2100 are century
    // years without 29 February, 2024 an ordinary leap year.
    (85, "`2000-03-01T00:00:00+01:00` is the instant `2000-02-29T23:00:00Z`", OFFSET, TOFF, "2000-03-01T00:00:00+01:00", "2000-02-29T23:00:00Z", Cmp::OrReject(0)),
    (86, "`2000-02-29T23:00:00-01:00` is the instant `2000-03-01T00:00:00Z`", OFFSET, TOFF, "2000-02-29T23:00:00-01:00", "2000-03-01T00:00:00Z", Cmp::OrReject(0)),
    (87, "a later civil date but an earlier instant across 1 March 2000 (`00:30+01:00` = 29 February 23:30Z < 23:45Z)", OFFSET, TOFF, "2000-03-01T00:30:00+01:00", "2000-02-29T23:45:00Z", Cmp::OrReject(-1)),
    (88, "`1900-03-01T00:00:00+01:00` is `1900-02-28T23:00:00Z` (1900 has no 29 February)", OFFSET, TOFF, "1900-03-01T00:00:00+01:00", "1900-02-28T23:00:00Z", Cmp::OrReject(0)),
    (89, "`2100-03-01T00:00:00+01:00` is `2100-02-28T23:00:00Z` (2100 has no 29 February)", OFFSET, TOFF, "2100-03-01T00:00:00+01:00", "2100-02-28T23:00:00Z", Cmp::OrReject(0)),
    (90, "`2024-03-01T00:00:00+01:00` is `2024-02-29T23:00:00Z` (a leap year)", OFFSET, TOFF, "2024-03-01T00:00:00+01:00", "2024-02-29T23:00:00Z", Cmp::OrReject(0)),
];

fn timestamp(g: &mut Group) {
    for &(n, desc, reqs, flags, a, b, cmp) in COMPARISONS.iter().chain(REJECTIONS) {
        let e = match cmp {
            Cmp::Is(o) => order(o),
            Cmp::OrReject(o) => order_or_reject(o),
            Cmp::OrTruncated(o, truncated) => order_or_truncated(o, truncated),
            Cmp::Invalid => Expectation::invalid("invalid_timestamp", "1.2/time"),
        };
        let input = json!({ "a": a, "b": b });
        g.case(n, desc, reqs, flags, "timestamp.compare", input, e);
    }
}

// ---------------------------------------------------------------------------------------
// principal

fn principal_case(g: &mut Group, n: u16, desc: &str, seed: &str, id: &str) {
    g.case(
        n,
        desc,
        &["PRIM-ID-FROM-SEED", "PRIM-ID-PRINCIPAL"],
        &[],
        "principal.from_seed",
        json!({ "seed": seed }),
        Expectation::valid(json!({ "principal": id })),
    );
}

/// Number, description, seed (hex), principal id.
#[rustfmt::skip]
const PRINCIPALS: &[(u16, &str, MakeText, &str)] = &[
    // RFC 8032 §7.1 public keys in base64url (d75a98…511a → 11qYAYKx…URo).
    (1, "RFC 8032 TEST 1 secret key → base64url of its public key d75a9801…", || RFC8032[0].1.into(), "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"),
    (2, "RFC 8032 TEST 2 secret key → base64url of 3d4017c3…", || RFC8032[1].1.into(), "PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw"),
    (3, "RFC 8032 TEST 3 secret key → base64url of fc51cd8e…", || RFC8032[2].1.into(), "_FHNjmIYoaONpH7QAjDwWAgW7RO6MwOsXeuRFUiQgCU"),
    (4, "RFC 8032 TEST SHA(abc) secret key → base64url of ec172b93…", || RFC8032[3].1.into(), "7Bcrk61eVjv0kyxw4SRQNMNUZ-8u_U1k6_gZaDRn4r8"),
    (5, "the all-zero seed", || "00".repeat(32), "O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik"),
    (6, "the all-ones seed", || "ff".repeat(32), "dqFZIESm5PURJlvKc6YE2QsFKdHfYCvjChmpJXZg0fU"),
];

/// The fixed keys of every vector file (seeds = BLAKE2b-256 of their names; principals
/// computed with the Python RFC 8032 code): name, seed (hex), principal id.
#[rustfmt::skip]
const FIXED_KEYS: &[(&str, &str, &str)] = &[
    ("root", "ccdcfb0d237ff31ee147ab32c445327d770b7b92676bd6bdf190d7a5bbf7cbcc", "fcNLaHpUPv7O_hQ3ctznNQSmYufIapwhvueWnldOjbs"),
    ("alice", "fa9dc0df6eeb95c73c8c12aedd2f61993195d38555a0b8a85b9593f5d547a8a5", "6YohcZzzs0NuDu3pZwiXaAmpOdArZ2STo7MT4bIbvZc"),
    ("bob", "81b7bf8d66a0b17c17f0d84139a9bfbba32ad01b5504a462c4fea420ef42a5d6", "_7JLorgU-31mfXp5TXJEo8CUD2MHdCbsvtXxyDPdJQQ"),
    ("carol", "1e41b5deb4ca38b2ddb3898352397bea354dec96fb831f85985ee822c784586d", "i98chMeaAps1vIXcE6meOR9z0rOmwpewUI3AzHRcxVU"),
    ("dave", "56578a0f3adbacaade41899bcdb7f38707040c465b10801ead053f84d5a33b65", "jRwKswyI6GKXtwnMdCOItDF23sYukDfNQ_O3yqDjG50"),
    ("mallory", "3d818f6e5e442a1faa6948ffbec7bce58f81969c57f9cfe3709a4c19944d84d7", "calYKpZvj-LP1iGuELwJvkpw3Bn8LE54ANqLZsdyaPI"),
    ("other_root", "b7439bb27727d474a7000f014e7deb771ded7d7497488db3c78373b4b319f8ca", "tQokqljCQSCGFE6SU46I3SPLpJqyobBtbs75l3n4h1g"),
];

fn principal(g: &mut Group) {
    for &(n, desc, seed, id) in PRINCIPALS {
        principal_case(g, n, desc, &seed(), id);
    }
    for (i, &(name, seed, id)) in FIXED_KEYS.iter().enumerate() {
        let n = 10 + u16::try_from(i).unwrap_or(0);
        principal_case(
            g,
            n,
            &format!("the fixed key `{name}` of the vector headers"),
            seed,
            id,
        );
    }
}
