//! `delegateos-conform new-adapter`: adapter kits, a runnable skeleton per language.
//!
//! Every language gets the same thing: a kit file that speaks the adapter protocol (framing,
//! `seq`, `hello` declaring exactly the operations whose stub was filled in, `bye`, `skipped`
//! for the rest, any exception → `errored` with its text) and carries the helpers the catalogue
//! needs (input checks, strict base64url, principal ids, a fixed clock, the published test
//! keys), and one file of stubs the implementer edits: one function per operation, grouped by
//! catalogue section, with its input, output and error codes as comments. The stubs come from
//! one source, [`delegateos_vectors::operations::docs`] (the parsed `spec/operations.md`), and
//! the keys from [`delegateos_vectors::keys`], so no language's skeleton can drift from the spec.
//! Rust gets the in-process form instead (`delegateos-inprocess`): a test crate implementing
//! its trait.
//!
//! The templates are embedded (`templates/<lang>/`); the output is a pure function of the
//! language, this binary and (Rust only) where `delegateos-inprocess` is found ([`render`],
//! [`locate_inprocess`]), written by [`write`] into a new or empty directory.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use delegateos_vectors::keys::Keys;
use delegateos_vectors::operations::{self, OperationDoc};

/// A skeleton's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// Node 18+, no dependencies (type-checked JavaScript modules, `// @ts-check`).
    Typescript,
    /// Python 3.9+, standard library only.
    Python,
    /// Go, standard library only.
    Go,
    /// Rust, in-process: a `cargo test` crate implementing `delegateos_inprocess::Implementation`.
    Rust,
}

impl Lang {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Typescript => "typescript",
            Self::Python => "python",
            Self::Go => "go",
            Self::Rust => "rust",
        }
    }
}

/// One file of a skeleton.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KitFile {
    /// Path relative to the skeleton's directory.
    pub path: &'static str,
    /// Content.
    pub text: String,
    /// Mark executable (the adapter entry points with a `#!` line).
    pub executable: bool,
}

mod tpl {
    pub const PY_KIT: &str = include_str!("templates/python/delegateos_kit.py");
    pub const PY_ADAPTER: &str = include_str!("templates/python/adapter.py");
    pub const TS_KIT: &str = include_str!("templates/typescript/delegateos-kit.mjs");
    pub const TS_ADAPTER: &str = include_str!("templates/typescript/adapter.mjs");
    pub const GO_KIT: &str = include_str!("templates/go/kit.go");
    pub const GO_OPS: &str = include_str!("templates/go/ops.go");
    pub const GO_MOD: &str = include_str!("templates/go/go.mod");
    // Not named `Cargo.toml`: `cargo package` leaves out a directory holding one (a nested
    // package), and the published crate would not build.
    pub const RS_CARGO: &str = include_str!("templates/rust/Cargo.toml.template");
    pub const RS_LIB: &str = include_str!("templates/rust/lib.rs");
    pub const RS_TEST: &str = include_str!("templates/rust/conformance.rs");
    pub const RS_FUZZ_CARGO: &str = include_str!("templates/rust/fuzz/Cargo.toml.template");
    pub const RS_FUZZ_TARGET: &str = include_str!("templates/rust/fuzz/differential.rs");
    pub const RS_FUZZ_GITIGNORE: &str = include_str!("templates/rust/fuzz/gitignore");
}

/// `dct.revocation_ids` → `dct_revocation_ids`.
pub fn snake_name(op: &str) -> String {
    op.replace('.', "_")
}

/// `dct.revocation_ids` → `dctRevocationIds`.
pub fn camel_name(op: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in op.chars() {
        if c == '.' || c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Greedy word wrap of `text` to lines of at most `width` characters (a longer word stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// Cases per operation in the embedded corpus, as `run` counts them by default, and the
/// advisory ones `--profile strict` adds (0 when the corpus cannot be loaded, which a test
/// rules out).
fn case_counts() -> BTreeMap<String, (usize, usize)> {
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    if let Ok(files) = delegateos_vectors::corpus::load_embedded() {
        for f in files {
            let advisory_file = f.file.area == "advisory";
            for c in f.file.cases {
                let entry = counts.entry(c.op).or_default();
                if advisory_file || c.flags.iter().any(|f| f.eq_ignore_ascii_case("advisory")) {
                    entry.1 += 1;
                } else {
                    entry.0 += 1;
                }
            }
        }
    }
    counts
}

/// The comment lines documenting one operation (without comment markers), from the catalogue:
/// `cases` as `run` counts them, `advisory` more with `--profile strict`.
pub fn doc_lines(doc: &OperationDoc, (cases, advisory): (usize, usize)) -> Vec<String> {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let strict = if advisory == 0 {
        String::new()
    } else {
        format!(", {advisory} more advisory with --profile strict")
    };
    let mut lines = vec![format!(
        "{} — {} case{} in the embedded corpus{strict} (spec/operations.md §{})",
        doc.name,
        cases,
        plural(cases),
        doc.section
    )];
    let mut field = |label: &str, text: &str| {
        if text.is_empty() {
            return;
        }
        let pad = " ".repeat(label.len() + 2);
        for (i, l) in wrap(text, 88).into_iter().enumerate() {
            lines.push(if i == 0 {
                format!("{label}: {l}")
            } else {
                format!("{pad}{l}")
            });
        }
    };
    if doc.output.is_empty() {
        field("spec", &doc.input);
    } else {
        field("input", &doc.input);
        field("output", &doc.output);
        field("errors", &doc.errors);
    }
    field("mirrors", &doc.mirrors);
    lines
}

/// Sections in catalogue order, each with its operations.
fn sections() -> Vec<(String, Vec<&'static OperationDoc>)> {
    let mut out: Vec<(String, Vec<&OperationDoc>)> = Vec::new();
    for d in operations::docs() {
        let title = format!("§{} {}", d.section, d.section_title);
        match out.last_mut() {
            Some((t, ops)) if *t == title => ops.push(d),
            _ => out.push((title, vec![d])),
        }
    }
    out
}

fn comment(prefix: &str, lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| {
            format!("{prefix}{l}\n")
                .replace(&format!("{prefix}\n"), &format!("{}\n", prefix.trim_end()))
        })
        .collect()
}

fn banner(prefix: &str, title: &str) -> String {
    let rule = "=".repeat(96usize.saturating_sub(prefix.len() + title.len() + 5));
    format!("{prefix}=== {title} {rule}\n")
}

fn stubs(lang: Lang) -> (String, String) {
    let counts = case_counts();
    let (mut body, mut registry) = (String::new(), String::new());
    for (title, ops) in sections() {
        match lang {
            Lang::Python => {
                let _ = write!(body, "\n\n{}", banner("# ", &title));
            }
            Lang::Typescript | Lang::Go => {
                let _ = write!(body, "\n{}", banner("// ", &title));
            }
            Lang::Rust => {
                let _ = write!(body, "\n{}", banner("    // ", &title));
            }
        }
        for d in ops {
            let lines = doc_lines(d, counts.get(&d.name).copied().unwrap_or((0, 0)));
            match lang {
                Lang::Python => {
                    let f = snake_name(&d.name);
                    let _ = write!(
                        body,
                        "\n\n{}def {f}(inp):\n    raise TODO\n",
                        comment("# ", &lines)
                    );
                    let _ = writeln!(registry, "    \"{}\": {f},", d.name);
                }
                Lang::Typescript => {
                    let f = camel_name(&d.name);
                    let _ = write!(
                        body,
                        "\n{}/** @param {{any}} input */\nfunction {f}(input) {{\n  throw TODO;\n}}\n",
                        comment("// ", &lines)
                    );
                    let _ = writeln!(registry, "  \"{}\": {f},", d.name);
                }
                Lang::Go => {
                    let f = camel_name(&d.name);
                    let _ = write!(
                        body,
                        "\n{}func {f}(in Input) (Output, error) {{\n\treturn nil, TODO\n}}\n",
                        comment("// ", &lines)
                    );
                    let _ = writeln!(registry, "\t{{\"{}\", \"{f}\", {f}}},", d.name);
                }
                Lang::Rust => {
                    let f = snake_name(&d.name);
                    let _ = write!(
                        body,
                        "\n{}    fn {f}(&self, input: &Value) -> Answer {{\n        Answer::todo()\n    }}\n",
                        comment("    // ", &lines)
                    );
                }
            }
        }
    }
    (body, registry)
}

fn test_keys(lang: Lang) -> String {
    let keys = Keys::fixed();
    let mut out = String::new();
    for k in keys.all() {
        let (seed, principal) = (k.seed_hex(), &k.principal);
        let _ = match lang {
            Lang::Python => writeln!(
                out,
                "    \"{}\": {{\"seed\": \"{seed}\", \"principal\": \"{principal}\"}},",
                k.name
            ),
            Lang::Typescript => writeln!(
                out,
                "  {}: {{ seed: \"{seed}\", principal: \"{principal}\" }},",
                k.name
            ),
            Lang::Go => writeln!(
                out,
                "\t\"{}\": {{Seed: \"{seed}\", Principal: \"{principal}\"}},",
                k.name
            ),
            Lang::Rust => Ok(()),
        };
    }
    out.trim_end_matches('\n').to_owned()
}

/// The options (`delegateos_vectors::options`), one commented line each, for the adapter's
/// `OPTIONS` list (commented out: the author uncomments what the implementation has).
fn option_lines(indent: &str, comment: &str) -> String {
    delegateos_vectors::options::ALL
        .iter()
        .map(|o| {
            format!(
                "{indent}{comment} \"{}\",  {comment} {}",
                o.name,
                o.summary.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn fill(template: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (key, value) in pairs {
        out = out.replace(&format!("@@{key}@@"), value);
    }
    out
}

/// The environment variable naming, at generation time, where the generated Rust crate finds
/// `delegateos-inprocess`: the kit checkout or its `inprocess/` directory.
pub const INPROCESS_ENV: &str = "DELEGATEOS_INPROCESS_PATH";

/// The path written when no checkout is known: a sibling clone of the kit, which the user sets.
pub const INPROCESS_PLACEHOLDER: &str = "../delegateos-conformance/inprocess";

/// Where the generated Rust crate finds `delegateos-inprocess`. It is not on crates.io, so the
/// dependency is a path into a checkout of the kit; which one is decided at generation time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inprocess {
    /// Named by [`INPROCESS_ENV`].
    Given(PathBuf),
    /// The checkout this binary was built from (`cargo install --path harness`, `cargo run`),
    /// which still exists.
    BuiltFrom(PathBuf),
    /// Neither (a binary installed from a package, copied, or whose checkout is gone): a
    /// placeholder the user must set.
    Unknown,
}

impl Inprocess {
    /// The path written into `Cargo.toml`.
    pub fn path(&self) -> String {
        match self {
            Self::Given(p) | Self::BuiltFrom(p) => p.display().to_string(),
            Self::Unknown => INPROCESS_PLACEHOLDER.to_owned(),
        }
    }

    /// The path written into `fuzz/Cargo.toml`, one directory down: the same directory.
    pub fn fuzz_path(&self) -> String {
        match self {
            Self::Given(p) | Self::BuiltFrom(p) if p.is_absolute() => p.display().to_string(),
            _ => format!("../{}", self.path()),
        }
    }

    fn comment(&self) -> &'static str {
        match self {
            Self::Given(_) => {
                "# `delegateos-inprocess` is not on crates.io: a path into a checkout of the kit, the one\n\
                 # named by DELEGATEOS_INPROCESS_PATH when this crate was generated."
            }
            Self::BuiltFrom(_) => {
                "# `delegateos-inprocess` is not on crates.io: a path into a checkout of the kit, the one\n\
                 # `delegateos-conform` was built from. If that checkout moves, point the path at it."
            }
            Self::Unknown => {
                "# SET THIS PATH: `delegateos-inprocess` is not on crates.io, and no checkout of the kit was\n\
                 # known when this crate was generated. Clone the kit's repository and point the path at its\n\
                 # `inprocess/` directory (or regenerate with DELEGATEOS_INPROCESS_PATH=<checkout>)."
            }
        }
    }
}

/// The `delegateos-inprocess` crate directory `dir` names: the crate itself or a checkout
/// holding it as `inprocess/`.
fn inprocess_crate(dir: &Path) -> Option<PathBuf> {
    [dir.to_path_buf(), dir.join("inprocess")]
        .into_iter()
        .find(|d| {
            std::fs::read_to_string(d.join("Cargo.toml")).is_ok_and(|t| {
                t.lines()
                    .any(|l| l.trim() == "name = \"delegateos-inprocess\"")
            })
        })
}

/// Decides where the generated Rust crate finds `delegateos-inprocess`: `given` (canonical)
/// when set, else the checkout `built_from` when it still holds the crate, else [`Inprocess::Unknown`].
pub fn locate_inprocess(given: Option<&Path>, built_from: &Path) -> Result<Inprocess, KitError> {
    if let Some(dir) = given {
        let dir = if dir.is_absolute() {
            dir.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(dir)
        };
        return inprocess_crate(&dir)
            .map(|d| Inprocess::Given(d.canonicalize().unwrap_or(d)))
            .ok_or_else(|| KitError::NoInprocess(dir.display().to_string()));
    }
    Ok(inprocess_crate(built_from).map_or(Inprocess::Unknown, Inprocess::BuiltFrom))
}

/// The checkout this binary was built from (it may no longer exist).
pub fn built_from() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// `text` as the inside of a TOML basic string.
fn toml_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

fn readme(lang: Lang, inprocess: &Inprocess) -> String {
    let (files, run, fill_in) = match lang {
        Lang::Python => (
            "- `adapter.py`: one function per operation (the file you edit), `IMPLEMENTATION`, `library_error`\n\
             - `delegateos_kit.py`: the protocol loop and helpers (no need to edit)",
            "delegateos-conform run --impl 'python3 -u adapter.py'\n\n\
             or, with your library installed in a virtualenv, its interpreter (no need to activate it):\n\n    \
             python3 -m venv .venv && .venv/bin/pip install -e /path/to/your/library\n    \
             delegateos-conform run --impl '.venv/bin/python -u adapter.py'",
            "replace `raise TODO` in `dct_verify` with a call into your library",
        ),
        Lang::Typescript => (
            "- `adapter.mjs`: one function per operation (the file you edit), `IMPLEMENTATION`, `libraryError`\n\
             - `delegateos-kit.mjs`: the protocol loop and helpers (no need to edit)",
            "delegateos-conform run --impl 'node adapter.mjs'",
            "replace `throw TODO;` in `dctVerify` with a call into your library",
        ),
        Lang::Go => (
            "- `ops.go`: one function per operation (the file you edit), `Implementation`, `libraryError`\n\
             - `kit.go`: the protocol loop and helpers (no need to edit); `go.mod`",
            "go build -o adapter . && delegateos-conform run --impl ./adapter",
            "replace `return nil, TODO` in `dctVerify` with a call into your library",
        ),
        Lang::Rust => (
            "- `tests/conformance.rs`: one method per operation of `delegateos_inprocess::Implementation` (the file you edit)\n\
             - `Cargo.toml`: the dev-dependency on `delegateos-inprocess` (a path into a checkout of the kit: see above)\n\
             - `fuzz/`: a cargo-fuzz target, `differential`, that fuzzes `Mine` against the reference (see below)",
            "cargo test --test conformance            # or: cargo test --test conformance -- dct-forged",
            "replace `Answer::todo()` in `dct_verify` with a call into your library",
        ),
    };
    let lang_note = match lang {
        Lang::Typescript => {
            "\nThe files are JavaScript modules with JSDoc types (`// @ts-check`): Node 18+ runs them \
             without a compiler or any dependency, and `tsc --allowJs --checkJs --strict` \
             type-checks them. Import your TypeScript library's compiled output as usual.\n\n\
             Node's `crypto` has Ed25519 but no BLAKE2b-256 (`blake2b512` is a different function, not a \
             prefix of it): for `hash.blake2b256`, if your library does not bring one, `npm install \
             @noble/hashes` and call `blake2b(bytes, { dkLen: 32 })` (imported from \
             `@noble/hashes/blake2b` in 1.x, `@noble/hashes/blake2.js` in 2.x), or `npm install blakejs` \
             and call `blake2b(bytes, undefined, 32)`.\n"
        }
        Lang::Python => "\nPython 3.9+, standard library only.\n",
        Lang::Go => "\nGo 1.18+, standard library only.\n",
        Lang::Rust => "",
    };
    let lang_note = if lang == Lang::Rust {
        let source = match inprocess {
            Inprocess::Given(_) => "the checkout named by `DELEGATEOS_INPROCESS_PATH` when this crate was generated".to_owned(),
            Inprocess::BuiltFrom(_) => "the checkout `delegateos-conform` was built from (it still existed when this crate was generated)".to_owned(),
            Inprocess::Unknown => "**not known when this crate was generated: set it before the first build**".to_owned(),
        };
        format!(
            "\nIn-process: no adapter process. Each case is one test named by its id, judged \
             exactly as `delegateos-conform run` judges; `DELEGATEOS_FAIL_ON=hardening` and \
             `DELEGATEOS_PROFILE=strict` mirror `run`'s flags.\n\n\
             `delegateos-inprocess` is not published on crates.io, so `Cargo.toml` depends on it by path, \
             into a checkout of the kit's repository (the `inprocess/` directory beside `harness/`). \
             `new-adapter` chooses the path when it writes the crate: the directory named by the \
             `{env}` environment variable (a checkout or its `inprocess/`) if set, else the checkout \
             the running `delegateos-conform` was built from (as with `cargo install --path harness`) \
             if it still exists, else the placeholder `{placeholder}` for you to set. Here the path is \
             `{path}`: {source}. Use the checkout of the kit version whose `delegateos-conform` you run, \
             so both judge the same corpus.\n\n\
             Dependencies build at Cargo's default (unoptimized) test profile, which keeps the first \
             build short; if your library's cryptography makes the suite slow, add \
             `[profile.dev.package.\"*\"]` with `opt-level = 2` to your `Cargo.toml`.\n\n\
             ## Differential fuzzing\n\n\
             Once the corpus passes, `fuzz/` looks for what it does not cover: each input of the \
             cargo-fuzz target `differential` becomes a corpus case of a fuzzed operation \
             (`dct.verify`, `glob.match`, `mcp.call`, …) mutated structure-aware (tokens decoded, \
             edited and re-signed with the published test keys, so edits reach past the signature \
             check), answered by your `Mine` (the same `tests/conformance.rs`) and by the reference \
             in the same process, and judged and graded as `delegateos-conform fuzz` does. Each \
             finding kind is written once, minimized, to `fuzz/fuzz-findings/` as a vector file \
             (`delegateos-conform run --vectors fuzz/fuzz-findings` replays it); a panic in your \
             method is a `crash` finding; findings of severity `high` or above also stop libFuzzer \
             (`DELEGATEOS_FUZZ_STOP_AT=low|medium|high|critical|never` chooses); \
             `DELEGATEOS_FUZZ_OPS=dct.verify,glob.match` limits it to the operations you implement. With \
             `cargo install cargo-fuzz` once, with a nightly toolchain (`rustup toolchain install \
             nightly`; cargo-fuzz passes nightly-only flags):\n\n    \
             cd fuzz && cargo +nightly fuzz run differential -- -max_total_time=300\n\n\
             Without a nightly toolchain, `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run differential` \
             is an escape hatch: it makes a stable compiler accept those flags, which the Rust \
             project does not support (this kit's own CI uses it); prefer a nightly when you have \
             one. The target needs `Mine` to be `pub(crate)`, as generated. Operations you \
             answer `todo` are skipped, so start fuzzing as soon as `dct_verify` is filled in.\n",
            env = INPROCESS_ENV,
            placeholder = INPROCESS_PLACEHOLDER,
            path = inprocess.path(),
        )
    } else {
        lang_note.to_owned()
    };
    let options_list = match lang {
        Lang::Python => "`OPTIONS` in `adapter.py`",
        Lang::Typescript => "`OPTIONS` in `adapter.mjs`",
        Lang::Go => "`Options` in `ops.go`",
        Lang::Rust => "`options()` in `tests/conformance.rs`",
    };
    let skip_note = format!(
        "{} Options (`spec/adapter-protocol.md` §2.1) are behaviours the corpus tests beyond the \
         text's required ones ({}): {options_list} lists each on a commented line; uncomment \
         those your implementation has. A case that needs another is skipped (\"needs option \
         X\"), never a finding.",
        if lang == Lang::Rust {
            "A method that answers `Answer::todo()` (the default) leaves its cases `ignored`."
        } else {
            "`hello` declares exactly the operations whose stub you filled in; the other operations' \
             cases are reported `skipped` and never fail the run."
        },
        delegateos_vectors::options::ALL
            .iter()
            .map(|o| format!("`{}`", o.name))
            .collect::<Vec<_>>()
            .join(", "),
    );
    format!(
        "# DelegateOS conformance adapter ({lang})\n\n\
         Generated by `delegateos-conform new-adapter --lang {lang}` from `spec/operations.md`.\n{lang_note}\n\
         {files}\n\n\
         Start with `dct.verify`, the operation most cases check: {fill_in}, then run\n\n    {run}\n\n\
         {skip_note} Every stub's comment gives the operation's input, output and error codes;\n\
         the full catalogue is `spec/operations.md`, the codes `spec/error-codes.md`, the protocol\n\
         `spec/adapter-protocol.md`. After each run the harness names the next most valuable\n\
         operation. Return a spec error code for a rejection, `invalid_input` for an input that\n\
         does not have the catalogue's shape, and skip an input your library cannot represent\n\
         rather than guessing.\n",
        lang = lang.name(),
    )
}

/// The skeleton of `lang`: its files, in a fixed order. Deterministic for a given binary.
pub fn render(lang: Lang, inprocess: &Inprocess) -> Vec<KitFile> {
    let (body, registry) = stubs(lang);
    let keys = test_keys(lang);
    let file = |path, text, executable| KitFile {
        path,
        text,
        executable,
    };
    let mut files = match lang {
        Lang::Python => vec![
            file(
                "adapter.py",
                fill(
                    tpl::PY_ADAPTER,
                    &[
                        ("STUBS", body.trim_end()),
                        ("REGISTRY", registry.trim_end()),
                        ("OPTIONS", &option_lines("    ", "#")),
                    ],
                ),
                true,
            ),
            file("delegateos_kit.py", fill(tpl::PY_KIT, &[("TEST_KEYS", &keys)]), false),
        ],
        Lang::Typescript => vec![
            file(
                "adapter.mjs",
                fill(
                    tpl::TS_ADAPTER,
                    &[
                        ("STUBS", body.trim_end()),
                        ("REGISTRY", registry.trim_end()),
                        ("OPTIONS", &option_lines("  ", "//")),
                    ],
                ),
                false,
            ),
            file("delegateos-kit.mjs", fill(tpl::TS_KIT, &[("TEST_KEYS", &keys)]), false),
            file(
                "package.json",
                "{\n  \"name\": \"delegateos-adapter\",\n  \"private\": true,\n  \"type\": \"module\",\n  \"engines\": { \"node\": \">=18\" }\n}\n".to_owned(),
                false,
            ),
        ],
        Lang::Go => vec![
            file(
                "ops.go",
                fill(
                    tpl::GO_OPS,
                    &[
                        ("STUBS", body.trim_end()),
                        ("REGISTRY", registry.trim_end()),
                        ("OPTIONS", &option_lines("\t", "//")),
                    ],
                ),
                false,
            ),
            file("kit.go", fill(tpl::GO_KIT, &[("TEST_KEYS", &keys)]), false),
            file("go.mod", tpl::GO_MOD.to_owned(), false),
        ],
        Lang::Rust => vec![
            file(
                "Cargo.toml",
                fill(
                    tpl::RS_CARGO,
                    &[
                        ("INPROCESS_COMMENT", inprocess.comment()),
                        ("INPROCESS_PATH", &toml_escape(&inprocess.path())),
                    ],
                ),
                false,
            ),
            file("src/lib.rs", tpl::RS_LIB.to_owned(), false),
            file(
                "tests/conformance.rs",
                fill(
                    tpl::RS_TEST,
                    &[
                        ("STUBS", body.trim_matches('\n')),
                        ("OPTIONS", &option_lines("            ", "//")),
                    ],
                ),
                false,
            ),
            file(
                "fuzz/Cargo.toml",
                fill(
                    tpl::RS_FUZZ_CARGO,
                    &[
                        ("INPROCESS_COMMENT", inprocess.comment()),
                        ("INPROCESS_PATH", &toml_escape(&inprocess.fuzz_path())),
                    ],
                ),
                false,
            ),
            file(
                "fuzz/fuzz_targets/differential.rs",
                tpl::RS_FUZZ_TARGET.to_owned(),
                false,
            ),
            file("fuzz/.gitignore", tpl::RS_FUZZ_GITIGNORE.to_owned(), false),
        ],
    };
    files.push(file("README.md", readme(lang, inprocess), false));
    files
}

/// Why a skeleton could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KitError {
    /// The directory exists and is not empty (nothing is overwritten).
    #[error("{0} exists and is not empty: new-adapter writes only into a new or empty directory")]
    NotEmpty(String),
    /// The path names an existing file, not a directory.
    #[error(
        "{0} exists and is not a directory: new-adapter writes only into a new or empty directory"
    )]
    NotADirectory(String),
    /// `DELEGATEOS_INPROCESS_PATH` names no `delegateos-inprocess` crate.
    #[error("DELEGATEOS_INPROCESS_PATH={0} is neither a checkout of the kit nor its `inprocess/` directory (no delegateos-inprocess Cargo.toml there)")]
    NoInprocess(String),
    /// An I/O error.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// Writes the skeleton of `lang` into `dir` (created if absent; it must be empty) and returns
/// the paths written.
pub fn write(lang: Lang, dir: &Path, inprocess: &Inprocess) -> Result<Vec<PathBuf>, KitError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| KitError::Io { path, source }
    };
    if dir.exists() && !dir.is_dir() {
        return Err(KitError::NotADirectory(dir.display().to_string()));
    }
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(io(dir))?;
        if entries.next().is_some() {
            return Err(KitError::NotEmpty(dir.display().to_string()));
        }
    }
    let mut written = Vec::new();
    for f in render(lang, inprocess) {
        let path = dir.join(f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, &f.text).map_err(io(&path))?;
        #[cfg(unix)]
        if f.executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                .map_err(io(&path))?;
        }
        written.push(path);
    }
    Ok(written)
}

/// `new-adapter`: writes the skeleton and prints what to do next; returns the exit code. For
/// Rust, the `delegateos-inprocess` path comes from [`INPROCESS_ENV`] (see [`locate_inprocess`]).
pub fn new_adapter(lang: Lang, dir: &Path) -> i32 {
    let given = std::env::var_os(INPROCESS_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    new_adapter_with(lang, dir, given.as_deref())
}

/// [`new_adapter`] with the `delegateos-inprocess` location given (e.g. by a command-line option).
pub fn new_adapter_with(lang: Lang, dir: &Path, inprocess_dir: Option<&Path>) -> i32 {
    let result = if lang == Lang::Rust {
        locate_inprocess(inprocess_dir, &built_from())
    } else {
        Ok(Inprocess::Unknown)
    };
    match result.and_then(|inprocess| write(lang, dir, &inprocess).map(|p| (p, inprocess))) {
        Ok((paths, inprocess)) => {
            let mut out = String::new();
            for p in &paths {
                let _ = writeln!(out, "wrote {}", p.display());
            }
            let next = match lang {
                Lang::Python => "python3 -u adapter.py",
                Lang::Typescript => "node adapter.mjs",
                Lang::Go => "./adapter",
                Lang::Rust => "",
            };
            if lang == Lang::Rust {
                if inprocess == Inprocess::Unknown {
                    let _ = writeln!(
                        out,
                        "note: no checkout of the kit is known, so {}/Cargo.toml depends on \
                         delegateos-inprocess at the placeholder {INPROCESS_PLACEHOLDER}: set it \
                         to a checkout's inprocess/ directory (or regenerate with \
                         {INPROCESS_ENV}=<checkout>); see README.md",
                        dir.display()
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "delegateos-inprocess: path {} (README.md explains the choice)",
                        inprocess.path()
                    );
                }
                let _ = writeln!(
                    out,
                    "next: fill in `dct_verify` in {}/tests/conformance.rs, then `cargo test --test conformance`; \
                     then fuzz it against the reference: `cd {}/fuzz && cargo +nightly fuzz run differential` (README.md: without nightly, `RUSTC_BOOTSTRAP=1` as an escape hatch)",
                    dir.display(),
                    dir.display()
                );
            } else {
                let build = if lang == Lang::Go {
                    "go build -o adapter . && "
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "next: fill in the `dct.verify` stub (README.md), then in {}: {build}delegateos-conform run --impl '{next}'",
                    dir.display()
                );
            }
            print!("{out}");
            crate::exit::ConformExitCode::OK
        }
        Err(e) => {
            eprintln!("delegateos-conform: new-adapter: {e}");
            match e {
                KitError::NotEmpty(_) | KitError::NotADirectory(_) | KitError::NoInprocess(_) => {
                    crate::exit::ConformExitCode::USAGE
                }
                KitError::Io { .. } => crate::exit::ConformExitCode::SETUP_ERROR,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_creates_the_files_and_never_overwrites() {
        let dir = std::env::temp_dir().join(format!("delegateos-kit-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let none = Inprocess::Unknown;
        let written = write(Lang::Go, &dir, &none).expect("writes into a new directory");
        assert_eq!(written.len(), render(Lang::Go, &none).len());
        assert!(dir.join("ops.go").is_file() && dir.join("kit.go").is_file());
        assert!(matches!(
            write(Lang::Go, &dir, &none),
            Err(KitError::NotEmpty(_))
        ));
        assert_eq!(
            new_adapter(Lang::Python, &dir),
            crate::exit::ConformExitCode::USAGE
        );
        // An existing file is a usage error too, not an I/O error.
        let file = dir.join("kit.go");
        assert!(matches!(
            write(Lang::Go, &file, &none),
            Err(KitError::NotADirectory(_))
        ));
        assert_eq!(
            new_adapter(Lang::Python, &file),
            crate::exit::ConformExitCode::USAGE
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_inprocess_path_is_chosen_at_generation_time() {
        let checkout = built_from();
        let cargo = |i: &Inprocess| {
            render(Lang::Rust, i)
                .into_iter()
                .find(|f| f.path == "Cargo.toml")
                .expect("Cargo.toml")
                .text
        };
        // The checkout this binary was built from, while it exists.
        let found = locate_inprocess(None, &checkout).expect("locates");
        assert_eq!(found, Inprocess::BuiltFrom(checkout.join("inprocess")));
        // Gone (an installed-from-package or copied binary): the placeholder, flagged.
        let gone = checkout.join("no-such-checkout");
        let unknown = locate_inprocess(None, &gone).expect("locates");
        assert_eq!(unknown, Inprocess::Unknown);
        let text = cargo(&unknown);
        assert!(
            text.contains(&format!("path = \"{INPROCESS_PLACEHOLDER}\"")),
            "{text}"
        );
        assert!(text.contains("# SET THIS PATH"), "{text}");
        assert!(!text.contains(env!("CARGO_MANIFEST_DIR")), "{text}");
        // Given: the checkout or its inprocess/ directory; anything else is refused.
        for dir in [checkout.clone(), checkout.join("inprocess")] {
            assert_eq!(
                locate_inprocess(Some(&dir), &gone).expect("given"),
                Inprocess::Given(checkout.join("inprocess").canonicalize().expect("exists"))
            );
        }
        assert!(matches!(
            locate_inprocess(Some(&gone), &checkout),
            Err(KitError::NoInprocess(_))
        ));
        // No profile override, no dependency the skeleton does not use.
        let text = cargo(&found);
        assert!(
            !text.contains("[profile") && !text.contains("opt-level"),
            "{text}"
        );
        let deps: Vec<&str> = text
            .lines()
            .filter(|l| l.contains(" = ") && !l.starts_with('#'))
            .filter_map(|l| l.split(" = ").next())
            .filter(|k| !["name", "version", "edition", "publish", "harness"].contains(k))
            .collect();
        assert_eq!(deps, ["delegateos-inprocess", "serde_json"], "{text}");
        // The fuzz target's manifest, one directory down, names the same directory.
        let fuzz_cargo = |i: &Inprocess| {
            render(Lang::Rust, i)
                .into_iter()
                .find(|f| f.path == "fuzz/Cargo.toml")
                .expect("fuzz/Cargo.toml")
                .text
        };
        let text = fuzz_cargo(&unknown);
        assert!(
            text.contains(&format!(
                "path = \"../{INPROCESS_PLACEHOLDER}\", features = [\"fuzz\"]"
            )),
            "{text}"
        );
        assert!(text.contains("# SET THIS PATH"), "{text}");
        let text = fuzz_cargo(&found);
        assert!(
            text.contains(&format!(
                "path = \"{}\", features = [\"fuzz\"]",
                checkout.join("inprocess").display()
            )),
            "{text}"
        );
        // A path TOML cannot take raw (Windows separators, quotes) is escaped.
        let odd = Inprocess::Given(PathBuf::from("C:\\kit \"x\"\\inprocess"));
        assert!(cargo(&odd).contains("path = \"C:\\\\kit \\\"x\\\"\\\\inprocess\""));
    }

    #[test]
    fn readmes_name_what_the_first_hour_needs() {
        let readme = |lang| {
            render(lang, &Inprocess::Unknown)
                .into_iter()
                .find(|f| f.path == "README.md")
                .expect("README.md")
                .text
        };
        let ts = readme(Lang::Typescript);
        assert!(
            ts.contains("no BLAKE2b-256")
                && ts.contains("@noble/hashes")
                && ts.contains("`blake2b(bytes, { dkLen: 32 })`"),
            "{ts}"
        );
        // Issue 46: a literal `{{` once leaked from a string that is not a format string.
        for lang in [Lang::Typescript, Lang::Python, Lang::Go, Lang::Rust] {
            let text = readme(lang);
            assert!(
                !text.contains("{{") && !text.contains("}}"),
                "{lang:?}: {text}"
            );
        }
        let py = readme(Lang::Python);
        assert!(
            py.contains("--impl '.venv/bin/python -u adapter.py'"),
            "{py}"
        );
        let rs = readme(Lang::Rust);
        assert!(
            rs.contains(INPROCESS_ENV) && rs.contains("set it before the first build"),
            "{rs}"
        );
        assert!(
            rs.contains("cd fuzz && cargo +nightly fuzz run differential")
                && rs.contains("DELEGATEOS_FUZZ_STOP_AT"),
            "{rs}"
        );
        // Issue 46: RUSTC_BOOTSTRAP is named as the escape hatch it is, after the nightly way.
        let nightly = rs.find("cargo +nightly fuzz").unwrap_or(usize::MAX);
        let bootstrap = rs.find("RUSTC_BOOTSTRAP=1").unwrap_or(0);
        assert!(nightly < bootstrap && rs.contains("escape hatch"), "{rs}");
    }

    #[test]
    fn names() {
        assert_eq!(camel_name("dct.revocation_ids"), "dctRevocationIds");
        assert_eq!(snake_name("hash.blake2b256"), "hash_blake2b256");
        assert_eq!(wrap("a bb ccc", 4), vec!["a bb", "ccc"]);
    }

    #[test]
    fn every_language_has_one_stub_per_catalogued_operation_and_is_deterministic() {
        let ops = operations::names();
        for lang in [Lang::Python, Lang::Typescript, Lang::Go, Lang::Rust] {
            let files = render(lang, &Inprocess::Unknown);
            assert_eq!(
                files,
                render(lang, &Inprocess::Unknown),
                "{lang:?} output differs between calls"
            );
            let text: String = files.iter().map(|f| f.text.as_str()).collect();
            assert!(!text.contains("@@"), "{lang:?}: unfilled placeholder");
            for op in &ops {
                let needle = match lang {
                    Lang::Python => format!("def {}(inp):", snake_name(op)),
                    Lang::Typescript => format!("function {}(input)", camel_name(op)),
                    Lang::Go => format!("func {}(in Input)", camel_name(op)),
                    Lang::Rust => format!("fn {}(&self", snake_name(op)),
                };
                assert_eq!(text.matches(&needle).count(), 1, "{lang:?}: {needle}");
                assert!(
                    text.contains(&format!("{op} — ")),
                    "{lang:?}: no doc for {op}"
                );
            }
        }
    }
}
