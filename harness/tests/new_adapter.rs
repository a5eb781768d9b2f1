//! `delegateos-conform new-adapter`, tested for real: every language's skeleton is generated,
//! two operations are filled in with standard-library code (the fixture below), the adapter is
//! run through `delegateos-conform run --impl …`, and those operations' cases must pass while
//! every other case is skipped (and the run names the next operation to implement). An unfilled
//! skeleton declares nothing: exit 3, "start with `dct.verify`". A language whose toolchain is
//! absent prints SKIPPED (CI installs Go from Debian's `golang-go`).
//!
//! Rust's skeleton is an in-process `cargo test` crate: its filled-in form is committed as
//! `inprocess/tests/skeleton.rs` and built with the workspace; the generated manifests (the
//! crate's and its cargo-fuzz target's) are resolved with `cargo tree`, which may fetch what an
//! empty cargo home lacks, as cargo itself does.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_delegateos-conform");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("delegateos-kit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn has(tool: &str, arg: &str) -> bool {
    Command::new(tool)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn generate(lang: &str, dir: &Path) {
    let out = Command::new(BIN)
        .args(["new-adapter", "--lang", lang])
        .arg(dir)
        .env_remove("DELEGATEOS_INPROCESS_PATH")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "new-adapter --lang {lang}: {}",
        text(&out)
    );
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Replaces exactly one occurrence of `stub` in `file`.
fn fill(file: &Path, stub: &str, body: &str) {
    let source = std::fs::read_to_string(file).unwrap();
    assert_eq!(
        source.matches(stub).count(),
        1,
        "{stub:?} in {}",
        file.display()
    );
    std::fs::write(file, source.replace(stub, body)).unwrap();
}

/// Every object with a string `id` and `status` anywhere in the JSON report.
fn statuses(report: &Value, out: &mut BTreeMap<String, String>) {
    match report {
        Value::Object(map) => {
            if let (Some(Value::String(id)), Some(Value::String(status))) =
                (map.get("id"), map.get("status"))
            {
                out.insert(id.clone(), status.clone());
            }
            map.values().for_each(|v| statuses(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| statuses(v, out)),
        _ => {}
    }
}

fn run(command: &str, dir: &Path) -> (Output, BTreeMap<String, String>) {
    let report = dir.join("report.json");
    let out = Command::new(BIN)
        .current_dir(dir)
        .args(["run", "--no-progress", "--format", "json", "--output"])
        .arg(&report)
        .args(["--impl", command])
        .output()
        .unwrap();
    let json: Value = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let mut map = BTreeMap::new();
    statuses(&json, &mut map);
    (out, map)
}

fn corpus_ops() -> BTreeMap<String, String> {
    let out = Command::new(BIN).args(["list", "cases"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    // `list cases` prints `<id>  <op>  …` per case.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            Some((words.next()?.to_owned(), words.next()?.to_owned()))
        })
        .collect()
}

/// Runs a filled adapter: the two operations' cases pass, everything else is skipped.
fn check(lang: &str, command: &str, dir: &Path, filled: [&str; 2]) {
    let (out, statuses) = run(command, dir);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{lang}: {all}");
    let ops = corpus_ops();
    let mut passed = 0;
    for (id, status) in &statuses {
        let Some(op) = ops.get(id) else { continue };
        if filled.contains(&op.as_str()) {
            assert_eq!(status, "passed", "{lang}: {id} ({op}) {status}\n{all}");
            passed += 1;
        } else {
            assert_eq!(status, "skipped", "{lang}: {id} ({op}) {status}");
        }
    }
    let expected = ops
        .values()
        .filter(|op| filled.contains(&op.as_str()))
        .count();
    assert_eq!(passed, expected, "{lang}: every case of {filled:?} ran");
    assert!(
        statuses.len() > 2000,
        "{lang}: the report lists {} cases",
        statuses.len()
    );
    // The guidance line is the report's `coverage.next_operation` (the text report prints it).
    let report: Value = std::fs::read_to_string(dir.join("report.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    let next = report["coverage"]["next_operation"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        next.starts_with("next most valuable operation: dct.verify ("),
        "{lang}: no guidance line: {next:?}\n{all}"
    );
    println!(
        "{lang}: {passed} cases of {filled:?} passed, the other {} skipped",
        statuses.len() - passed
    );
}

/// The unfilled skeleton declares nothing: a run that cannot fail, exit 3, and where to start.
fn check_empty(lang: &str, command: &str, dir: &Path) {
    let (out, _) = run(command, dir);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(3), "{lang}: {all}");
    assert!(all.contains("declares no operations"), "{lang}: {all}");
    assert!(all.contains("start with `dct.verify`: "), "{lang}: {all}");
}

#[test]
fn python_skeleton() {
    if !has("python3", "--version") {
        println!("SKIPPED: python3 not found");
        return;
    }
    let dir = scratch("python");
    generate("python", &dir);
    // The example adapter is built on this skeleton: its kit is the generated one, unedited.
    assert_eq!(
        std::fs::read_to_string(root().join("implementations/python/delegateos_kit.py")).unwrap(),
        std::fs::read_to_string(dir.join("delegateos_kit.py")).unwrap(),
        "implementations/python/delegateos_kit.py is not the generated kit (copy it from \
         `delegateos-conform new-adapter --lang python DIR`)"
    );
    let command = format!("python3 -u '{}'", dir.join("adapter.py").display());
    // Python 3.9 grammar (the kit's floor), whatever python3 runs the test.
    let syntax = Command::new("python3")
        .arg("-c")
        .arg("import ast, sys\nfor p in sys.argv[1:]: ast.parse(open(p).read(), p, feature_version=(3, 9))")
        .arg(dir.join("adapter.py"))
        .arg(dir.join("delegateos_kit.py"))
        .output()
        .unwrap();
    assert!(
        syntax.status.success(),
        "not Python 3.9 syntax: {}",
        text(&syntax)
    );
    check_empty("python", &command, &dir);
    let adapter = dir.join("adapter.py");
    fill(
        &adapter,
        "def hash_blake2b256(inp):\n    raise TODO\n",
        "def hash_blake2b256(inp):\n    import hashlib\n\n    data = hex_bytes(fields(inp, [\"hex\"])[\"hex\"], \"hex\")\n    return {\"hex\": hashlib.blake2b(data, digest_size=32).hexdigest()}\n",
    );
    fill(
        &adapter,
        "def base64url_decode(inp):\n    raise TODO\n",
        "def base64url_decode(inp):\n    return {\"hex\": kit.b64url_decode(string(fields(inp, [\"text\"])[\"text\"], \"text\")).hex()}\n",
    );
    check(
        "python",
        &command,
        &dir,
        ["hash.blake2b256", "base64url.decode"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 46: a helper a kit ships passes the corpus cases of what it helps with. The Python
/// kit's `parse_timestamp` once matched `\d` (Unicode digits: fullwidth and Arabic-Indic years
/// were read as numbers) and a lower-case `t`/`z`; filled into `timestamp.compare`, no case of
/// that operation may fail, hardening included (`--fail-on hardening`).
#[test]
fn python_kit_parse_timestamp_passes_the_timestamp_cases() {
    if !has("python3", "--version") {
        println!("SKIPPED: python3 not found");
        return;
    }
    let dir = scratch("python-timestamp");
    generate("python", &dir);
    fill(
        &dir.join("adapter.py"),
        "def timestamp_compare(inp):\n    raise TODO\n",
        "def timestamp_compare(inp):\n    f = fields(inp, [\"a\", \"b\"])\n    try:\n        a, b = (kit.parse_timestamp(string(f[k], k)) for k in (\"a\", \"b\"))\n    except ValueError as e:\n        raise SpecError(\"invalid_timestamp\", str(e)) from e\n    return {\"order\": (a > b) - (a < b)}\n",
    );
    let report = dir.join("report.json");
    let command = format!("python3 -u '{}'", dir.join("adapter.py").display());
    let out = Command::new(BIN)
        .current_dir(&dir)
        .args([
            "run",
            "--no-progress",
            "--fail-on",
            "hardening",
            "--id",
            "primitives-timestamp-*",
        ])
        .args(["--details", "--report"])
        .arg(format!("json={}", report.display()))
        .args(["--impl", &command])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let mut map = BTreeMap::new();
    statuses(&json, &mut map);
    let ops = corpus_ops();
    let mut ran = 0;
    for (id, status) in &map {
        if ops.get(id).map(String::as_str) == Some("timestamp.compare") {
            assert!(
                status == "passed" || status == "acceptable",
                "{id}: {status}\n{all}"
            );
            ran += 1;
        }
    }
    assert!(ran > 80, "only {ran} timestamp.compare cases ran\n{all}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The operations the TypeScript and Go kits' helpers help with, run through an adapter built
/// on the helpers alone: `b64urlDecode`/`b64urlEncode` and `hexBytes`/`toHex` (`base64url.*`),
/// `seed` and `principalKey` (`principal.from_seed`, the derived principal decoded back). Issue
/// 46: every helper a kit ships must pass the corpus cases of what it helps with, hardening
/// included (`--fail-on hardening`). (The clock helpers parse a case's own valid timestamps and
/// validate nothing; `timestamp.compare` needs a parser these kits do not ship.)
fn helpers_pass_their_cases(lang: &str, command: &str, dir: &Path) {
    let report = dir.join("helpers.json");
    let out = Command::new(BIN)
        .current_dir(dir)
        .args(["run", "--no-progress", "--fail-on", "hardening"])
        .args(["--op", "base64url.*", "--op", "principal.from_seed"])
        .args(["--details", "--report"])
        .arg(format!("json={}", report.display()))
        .args(["--impl", command])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{lang}: {all}");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let mut map = BTreeMap::new();
    statuses(&json, &mut map);
    let ops = corpus_ops();
    let mut ran = BTreeMap::<&str, usize>::new();
    for (id, status) in &map {
        let op = ops.get(id).map(String::as_str).unwrap_or_default();
        if op.starts_with("base64url.") || op == "principal.from_seed" {
            assert!(
                status == "passed" || status == "acceptable",
                "{lang}: {id} ({op}): {status}\n{all}"
            );
            *ran.entry(op).or_default() += 1;
        }
    }
    let expected: usize = ops
        .values()
        .filter(|op| op.starts_with("base64url.") || *op == "principal.from_seed")
        .count();
    assert_eq!(ran.values().sum::<usize>(), expected, "{lang}: {ran:?}");
    assert_eq!(ran.len(), 3, "{lang}: {ran:?}");
    println!("{lang}: the kit's helpers pass their cases: {ran:?}");
}

#[test]
fn typescript_kit_helpers_pass_their_cases() {
    if !has("node", "--version") {
        println!("SKIPPED: node not found");
        return;
    }
    let dir = scratch("typescript-helpers");
    generate("typescript", &dir);
    let adapter = dir.join("adapter.mjs");
    fill(
        &adapter,
        "import * as kit from \"./delegateos-kit.mjs\";\n",
        "import * as kit from \"./delegateos-kit.mjs\";\nimport crypto from \"node:crypto\";\n",
    );
    fill(
        &adapter,
        "function base64urlDecode(input) {\n  throw TODO;\n}\n",
        "function base64urlDecode(input) {\n  const { text } = fields(input, [\"text\"]);\n  return { hex: kit.toHex(kit.b64urlDecode(string(text, \"text\"))) };\n}\n",
    );
    fill(
        &adapter,
        "function base64urlEncode(input) {\n  throw TODO;\n}\n",
        "function base64urlEncode(input) {\n  return { text: kit.b64urlEncode(hexBytes(fields(input, [\"hex\"]).hex, \"hex\")) };\n}\n",
    );
    fill(
        &adapter,
        "function principalFromSeed(input) {\n  throw TODO;\n}\n",
        "function principalFromSeed(input) {\n  const s = seed(fields(input, [\"seed\"]).seed, \"seed\");\n  const der = Buffer.concat([Buffer.from(\"302e020100300506032b657004220420\", \"hex\"), s]);\n  const key = crypto.createPublicKey(crypto.createPrivateKey({ key: der, format: \"der\", type: \"pkcs8\" }));\n  const pub = Buffer.from(String(key.export({ format: \"jwk\" }).x), \"base64url\");\n  const principal = kit.b64urlEncode(pub);\n  if (!Buffer.from(kit.principalKey(principal)).equals(pub)) throw new Error(\"principalKey does not round-trip\");\n  return { principal };\n}\n",
    );
    let command = format!("node '{}'", adapter.display());
    helpers_pass_their_cases("typescript", &command, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn go_kit_helpers_pass_their_cases() {
    if !has("go", "version") {
        println!("SKIPPED: go not found (CI installs Debian's golang-go)");
        return;
    }
    let dir = scratch("go-helpers");
    generate("go", &dir);
    let ops = dir.join("ops.go");
    fill(
        &ops,
        "package main\n",
        "package main\n\nimport (\n\t\"bytes\"\n\t\"crypto/ed25519\"\n\t\"encoding/hex\"\n\t\"errors\"\n)\n",
    );
    fill(
        &ops,
        "func base64urlDecode(in Input) (Output, error) {\n\treturn nil, TODO\n}\n",
        "func base64urlDecode(in Input) (Output, error) {\n\tif err := Fields(in, []string{\"text\"}); err != nil {\n\t\treturn nil, err\n\t}\n\ttext, err := Str(in, \"text\")\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tb, err := B64urlDecode(text)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn Output{\"hex\": hex.EncodeToString(b)}, nil\n}\n",
    );
    fill(
        &ops,
        "func base64urlEncode(in Input) (Output, error) {\n\treturn nil, TODO\n}\n",
        "func base64urlEncode(in Input) (Output, error) {\n\tif err := Fields(in, []string{\"hex\"}); err != nil {\n\t\treturn nil, err\n\t}\n\tb, err := Hex(in, \"hex\")\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn Output{\"text\": B64urlEncode(b)}, nil\n}\n",
    );
    fill(
        &ops,
        "func principalFromSeed(in Input) (Output, error) {\n\treturn nil, TODO\n}\n",
        "func principalFromSeed(in Input) (Output, error) {\n\tif err := Fields(in, []string{\"seed\"}); err != nil {\n\t\treturn nil, err\n\t}\n\ts, err := Seed(in, \"seed\")\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tpub := ed25519.NewKeyFromSeed(s).Public().(ed25519.PublicKey)\n\tp := B64urlEncode(pub)\n\tif back, err := PrincipalKey(p); err != nil || !bytes.Equal(back, pub) {\n\t\treturn nil, errors.New(\"PrincipalKey does not round-trip\")\n\t}\n\treturn Output{\"principal\": p}, nil\n}\n",
    );
    let out = Command::new("go")
        .current_dir(&dir)
        .args(["build", "-o", "adapter", "."])
        .env("GOFLAGS", "-mod=mod")
        .env("GOTOOLCHAIN", "local")
        .output()
        .unwrap();
    assert!(out.status.success(), "go build: {}", text(&out));
    let command = format!("'{}'", dir.join("adapter").display());
    helpers_pass_their_cases("go", &command, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn typescript_skeleton() {
    if !has("node", "--version") {
        println!("SKIPPED: node not found");
        return;
    }
    let dir = scratch("typescript");
    generate("typescript", &dir);
    let command = format!("node '{}'", dir.join("adapter.mjs").display());
    check_empty("typescript", &command, &dir);
    let adapter = dir.join("adapter.mjs");
    fill(
        &adapter,
        "function base64urlDecode(input) {\n  throw TODO;\n}\n",
        "function base64urlDecode(input) {\n  const { text } = fields(input, [\"text\"]);\n  return { hex: kit.toHex(kit.b64urlDecode(string(text, \"text\"))) };\n}\n",
    );
    fill(
        &adapter,
        "function base64urlEncode(input) {\n  throw TODO;\n}\n",
        "function base64urlEncode(input) {\n  return { text: kit.b64urlEncode(hexBytes(fields(input, [\"hex\"]).hex, \"hex\")) };\n}\n",
    );
    check(
        "typescript",
        &command,
        &dir,
        ["base64url.decode", "base64url.encode"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn go_skeleton() {
    if !has("go", "version") {
        println!("SKIPPED: go not found (CI installs Debian's golang-go)");
        return;
    }
    let dir = scratch("go");
    generate("go", &dir);
    let build = || {
        let out = Command::new("go")
            .current_dir(&dir)
            .args(["build", "-o", "adapter", "."])
            .env("GOFLAGS", "-mod=mod")
            .env("GOTOOLCHAIN", "local")
            .output()
            .unwrap();
        assert!(out.status.success(), "go build: {}", text(&out));
    };
    build();
    let command = format!("'{}'", dir.join("adapter").display());
    check_empty("go", &command, &dir);
    let ops = dir.join("ops.go");
    fill(
        &ops,
        "package main\n",
        "package main\n\nimport \"encoding/hex\"\n",
    );
    fill(
        &ops,
        "func base64urlDecode(in Input) (Output, error) {\n\treturn nil, TODO\n}\n",
        "func base64urlDecode(in Input) (Output, error) {\n\tif err := Fields(in, []string{\"text\"}); err != nil {\n\t\treturn nil, err\n\t}\n\ttext, err := Str(in, \"text\")\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\tb, err := B64urlDecode(text)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn Output{\"hex\": hex.EncodeToString(b)}, nil\n}\n",
    );
    fill(
        &ops,
        "func base64urlEncode(in Input) (Output, error) {\n\treturn nil, TODO\n}\n",
        "func base64urlEncode(in Input) (Output, error) {\n\tif err := Fields(in, []string{\"hex\"}); err != nil {\n\t\treturn nil, err\n\t}\n\tb, err := Hex(in, \"hex\")\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn Output{\"text\": B64urlEncode(b)}, nil\n}\n",
    );
    build();
    let vet = Command::new("go")
        .current_dir(&dir)
        .args(["vet", "."])
        .env("GOTOOLCHAIN", "local")
        .output()
        .unwrap();
    assert!(vet.status.success(), "go vet: {}", text(&vet));
    check(
        "go",
        &command,
        &dir,
        ["base64url.decode", "base64url.encode"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// An uncaught exception in a Python stub: the report's line and `explain --impl` lead with
/// the exception (`TypeError: …`), and `explain` prints the traceback as lines, not `\n` escapes.
#[test]
fn python_errors_lead_with_the_exception() {
    if !has("python3", "--version") {
        println!("SKIPPED: python3 not found");
        return;
    }
    let dir = scratch("python-errors");
    generate("python", &dir);
    fill(
        &dir.join("adapter.py"),
        "def base64url_decode(inp):\n    raise TODO\n",
        "def base64url_decode(inp):\n    return len(5)\n",
    );
    let command = format!("python3 -u '{}'", dir.join("adapter.py").display());
    let id = corpus_ops()
        .into_iter()
        .find(|(_, op)| op == "base64url.decode")
        .unwrap()
        .0;
    let head = "TypeError: object of type 'int' has no len()";
    let out = Command::new(BIN)
        .args(["run", "--no-progress", "--id", &id, "--impl", &command])
        .output()
        .unwrap();
    let all = text(&out);
    assert!(
        // The kit reports an uncaught exception as the implementation throwing (`threw`,
        // issue 49 item 2), not as the adapter failing (`adapter_errored`).
        all.contains(&format!("threw: {head}")),
        "the report line is not the exception: {all}"
    );
    let out = Command::new(BIN)
        .args(["explain", &id, "--impl", &command])
        .output()
        .unwrap();
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let actual = all.split("\nActual (").nth(1).unwrap_or_default();
    assert!(
        actual.contains(&format!(
            "\n  threw:\n    {head}\n    Traceback (most recent call last):\n"
        )),
        "{all}"
    );
    assert!(actual.contains("\n    TypeError: "), "{all}");
    assert!(!actual.contains("\\n"), "escaped newlines: {all}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `new-adapter` into an existing file is a usage error (64), like a non-empty directory.
#[test]
fn new_adapter_into_a_file_or_a_non_empty_directory_is_a_usage_error() {
    let dir = scratch("usage");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("adapter.txt");
    std::fs::write(&file, "mine").unwrap();
    for (target, says) in [(&file, "is not a directory"), (&dir, "is not empty")] {
        let out = Command::new(BIN)
            .args(["new-adapter", "--lang", "python"])
            .arg(target)
            .output()
            .unwrap();
        let all = text(&out);
        assert_eq!(out.status.code(), Some(64), "{all}");
        assert!(all.contains(says), "{all}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Rust fixture: `base64url.encode` and `base64url.decode` with the standard library.
const RUST_FILLS: [(&str, &str); 2] = [
    (
        "    fn base64url_decode(&self, input: &Value) -> Answer {\n        Answer::todo()\n    }\n",
        r#"    fn base64url_decode(&self, input: &Value) -> Answer {
        let Some(text) = input["text"].as_str() else {
            return Answer::error("invalid_input", "text must be a string");
        };
        let mut bits = 0u32;
        let (mut n, mut out) = (0, Vec::new());
        for c in text.bytes() {
            let Some(v) = B64.iter().position(|a| *a == c) else {
                return Answer::error("invalid_encoding", "not base64url");
            };
            bits = (bits << 6) | v as u32;
            n += 6;
            if n >= 8 {
                n -= 8;
                out.push((bits >> n) as u8);
                bits &= (1 << n) - 1;
            }
        }
        if text.len() % 4 == 1 || bits != 0 {
            return Answer::error("invalid_encoding", "bad length or trailing bits");
        }
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        Answer::ok(json!({ "hex": hex }))
    }
"#,
    ),
    (
        "    fn base64url_encode(&self, input: &Value) -> Answer {\n        Answer::todo()\n    }\n",
        r#"    fn base64url_encode(&self, input: &Value) -> Answer {
        let hex = input["hex"].as_str().unwrap_or("-");
        if hex.len() % 2 == 1 || !hex.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            return Answer::error("invalid_input", "hex must be lowercase hex");
        }
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
            .collect();
        let mut text = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..=chunk.len() {
                text.push(char::from(B64[((n >> (18 - 6 * i)) & 63) as usize]));
            }
        }
        Answer::ok(json!({ "text": text }))
    }
"#,
    ),
];

/// The Rust skeleton is an in-process test crate. Building it on its own would compile every
/// dependency again, so its filled-in form is committed as `inprocess/tests/skeleton.rs` (a
/// test of the workspace, run by `cargo test -p delegateos-inprocess --test skeleton`): this
/// test regenerates the skeleton, fills the same two methods, and demands the committed file
/// be byte-identical (`DELEGATEOS_KIT_BLESS=1` rewrites it), and checks the generated
/// `Cargo.toml` resolves against this checkout (`cargo tree`).
///
/// `cargo tree` runs online (issue 46): the cargo-fuzz manifest needs `libfuzzer-sys`, which no
/// workspace member depends on, so on an empty cargo home it is in no cache and `--offline`
/// failed. Cargo fetches what the resolution needs the way `cargo build` would (the registry
/// index and crate files; nothing is built); with a warm cache it touches no network. A machine
/// without network runs it with `CARGO_NET_OFFLINE=true` and a warm cache.
#[test]
fn rust_skeleton() {
    let dir = scratch("rust");
    generate("rust", &dir);
    let test = dir.join("tests/conformance.rs");
    let header = "// DO NOT EDIT: `delegateos-conform new-adapter --lang rust` with base64url.encode and\n// base64url.decode filled in by harness/tests/new_adapter.rs (DELEGATEOS_KIT_BLESS=1 rewrites it).\n";
    for (stub, body) in RUST_FILLS {
        fill(&test, stub, body);
    }
    fill(&test, "struct Mine;\n", "struct Mine;\n\nconst B64: &[u8; 64] = b\"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_\";\n");
    let filled = format!("{header}{}", std::fs::read_to_string(&test).unwrap());
    let committed = root().join("inprocess/tests/skeleton.rs");
    if std::env::var_os("DELEGATEOS_KIT_BLESS").is_some() {
        std::fs::write(&committed, &filled).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&committed).unwrap_or_default(),
        filled,
        "inprocess/tests/skeleton.rs is not the generated skeleton with the fixture's two methods \
         (DELEGATEOS_KIT_BLESS=1 cargo test -p delegateos-conform --test new_adapter rust_skeleton)"
    );
    // The generated Cargo.toml names the checkout this binary was built from (it exists), has
    // no profile override, and depends on nothing the skeleton does not use.
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains(&format!(
            "delegateos-inprocess = {{ path = \"{}\" }}",
            root().join("inprocess").display()
        )),
        "{manifest}"
    );
    assert!(
        !manifest.contains("[profile") && !manifest.contains("jsonschema"),
        "{manifest}"
    );
    std::fs::copy(root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(&cargo)
        .current_dir(&dir)
        .args(["tree", "-e", "normal,dev", "--depth", "1"])
        .output()
        .unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains(&format!(
            "delegateos-inprocess v0.1.0 ({})",
            root().join("inprocess").display()
        )),
        "{all}"
    );
    // The cargo-fuzz target's manifest (its own workspace, one directory down) resolves too:
    // the skeleton crate, this checkout's delegateos-inprocess with the feature `fuzz` (which
    // brings the reference), libfuzzer-sys. (Building it takes minutes: not done here.)
    std::fs::copy(root().join("fuzz/Cargo.lock"), dir.join("fuzz/Cargo.lock")).unwrap();
    let out = Command::new(&cargo)
        .current_dir(dir.join("fuzz"))
        .args(["tree", "-e", "normal", "--depth", "2"])
        .output()
        .unwrap();
    let all = text(&out);
    assert!(out.status.success(), "{all}");
    for needle in [
        format!("delegateos-adapter v0.0.0 ({})", dir.display()),
        format!(
            "delegateos-inprocess v0.1.0 ({})",
            root().join("inprocess").display()
        ),
        "delegateos-reference v0.1.0".to_owned(),
        "libfuzzer-sys v0.4".to_owned(),
    ] {
        assert!(all.contains(&needle), "{needle}: {all}");
    }
    let target = std::fs::read_to_string(dir.join("fuzz/fuzz_targets/differential.rs")).unwrap();
    assert!(
        target.contains("#[path = \"../../tests/conformance.rs\"]")
            && target.contains("fuzzer().step(&conformance::Mine, data)"),
        "{target}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `DELEGATEOS_INPROCESS_PATH` chooses the `delegateos-inprocess` path at generation time (a
/// relative one is made absolute and canonical); one that names no such crate is a usage error.
#[test]
fn rust_skeleton_inprocess_path_from_the_environment() {
    let dir = scratch("rust-env");
    let out = Command::new(BIN)
        .current_dir(root().join("harness"))
        .args(["new-adapter", "--lang", "rust"])
        .arg(&dir)
        .env("DELEGATEOS_INPROCESS_PATH", "..")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let want = root().join("inprocess").canonicalize().unwrap();
    assert!(
        manifest.contains(&format!("path = \"{}\"", want.display())),
        "{manifest}"
    );
    assert!(std::fs::read_to_string(dir.join("README.md"))
        .unwrap()
        .contains("named by `DELEGATEOS_INPROCESS_PATH`"),);
    let bad = scratch("rust-env-bad");
    let out = Command::new(BIN)
        .args(["new-adapter", "--lang", "rust"])
        .arg(&bad)
        .env("DELEGATEOS_INPROCESS_PATH", &dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64), "{}", text(&out));
    assert!(!bad.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 38 item 10: a stub's case count is `run`'s (advisory cases, which only
/// `--profile strict` runs, are counted apart), and the two add up to `list ops`'s.
#[test]
fn stub_case_counts_are_runs_with_advisory_apart() {
    let dir = scratch("counts");
    generate("typescript", &dir);
    let adapter = std::fs::read_to_string(dir.join("adapter.mjs")).unwrap();
    let line = adapter
        .lines()
        .find(|l| l.contains("// dct.verify — "))
        .expect("the dct.verify stub's doc line");
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        line.contains("more advisory with --profile strict"),
        "{line}"
    );
    let (run, advisory) = (numbers[0], numbers[1]);
    let list = std::process::Command::new(BIN)
        .args(["list", "ops"])
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&list.stdout);
    let listed_line = listing
        .lines()
        .find(|l| l.starts_with("dct.verify "))
        .expect("list ops names dct.verify");
    let listed: usize = listed_line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("list ops counts dct.verify");
    assert_eq!(run + advisory, listed, "{line}");
    // Issue 46: `list ops` says how many of them are advisory, as the stub does.
    assert!(
        listed_line.ends_with(&format!(
            " cases ({advisory} advisory: run only with --profile strict)"
        )),
        "{listed_line}"
    );
    assert!(advisory > 0 && run > 0);
}

/// The Python and TypeScript kits list every option (spec/adapter-protocol.md §2.1) on a line
/// of its own in the adapter's `OPTIONS`, commented out, and declare that list in `hello`.
#[test]
fn kits_list_every_option_a_line_each_and_declare_the_list() {
    // (language, file, the list's opening, its closing, comment, how the list reaches hello)
    for (lang, file, open, close, comment, handed) in [
        ("python", "adapter.py", "OPTIONS = [", "]", "#", "OPTIONS)"),
        (
            "typescript",
            "adapter.mjs",
            "OPTIONS = [",
            "]",
            "//",
            "OPTIONS);",
        ),
        ("go", "ops.go", "var Options = []string{", "}", "//", ""),
        (
            "rust",
            "tests/conformance.rs",
            "fn options(&self) -> &[&str] {",
            "]",
            "//",
            "",
        ),
    ] {
        let dir = scratch(&format!("options-{lang}"));
        generate(lang, &dir);
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let start = text
            .find(open)
            .unwrap_or_else(|| panic!("{lang}: no options list"));
        let body = &text[start + open.len()..];
        let body = if lang == "rust" {
            &body[body.find("&[").unwrap() + 2..]
        } else {
            body
        };
        let list = &body[..body.find(close).unwrap()];
        for o in delegateos_vectors::options::ALL {
            let line = list
                .lines()
                .find(|l| l.contains(&format!("\"{}\"", o.name)))
                .unwrap_or_else(|| panic!("{lang}: no line for option {}", o.name));
            assert!(line.trim_start().starts_with(comment), "{lang}: {line}");
        }
        assert_eq!(
            list.lines().filter(|l| !l.trim().is_empty()).count(),
            delegateos_vectors::options::ALL.len(),
            "{lang}: one line per option\n{list}"
        );
        if !handed.is_empty() {
            assert!(
                text.contains(handed) || text.contains("OPTIONS)\n"),
                "{lang}: OPTIONS is not handed to serve"
            );
        }
        match lang {
            "go" => {
                let kit = std::fs::read_to_string(dir.join("kit.go")).unwrap();
                assert!(
                    kit.contains("Serve(Implementation, Declared(operations), Options)")
                        && kit.contains("\"options\": declared"),
                    "go: Options is not declared in hello"
                );
            }
            "rust" => assert!(text.contains("Answer::threw"), "rust: threw not documented"),
            _ => {}
        }
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        assert!(
            readme.contains("`strict-mode`, `per-tool-spend`") && readme.contains("needs option"),
            "{lang}: the README does not name the options"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
