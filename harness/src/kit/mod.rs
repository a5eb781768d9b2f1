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
//! language and this binary ([`render`]), written by [`write`] into a new or empty directory.

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

/// Cases per operation in the embedded corpus (0 when it cannot be loaded, which a test rules out).
fn case_counts() -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    if let Ok(files) = delegateos_vectors::corpus::load_embedded() {
        for f in files {
            for c in f.file.cases {
                *counts.entry(c.op).or_insert(0) += 1;
            }
        }
    }
    counts
}

/// The comment lines documenting one operation (without comment markers), from the catalogue.
pub fn doc_lines(doc: &OperationDoc, cases: usize) -> Vec<String> {
    let mut lines = vec![format!(
        "{} — {} case{} in the embedded corpus (spec/operations.md §{})",
        doc.name,
        cases,
        if cases == 1 { "" } else { "s" },
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
            let lines = doc_lines(d, counts.get(&d.name).copied().unwrap_or(0));
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

fn fill(template: &str, pairs: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (key, value) in pairs {
        out = out.replace(&format!("@@{key}@@"), value);
    }
    out
}

/// Where the generated Rust crate finds `delegateos-inprocess`: the kit's source checkout this
/// binary was built from.
pub fn inprocess_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("inprocess"), |p| p.join("inprocess"))
}

fn readme(lang: Lang) -> String {
    let (files, run, fill_in) = match lang {
        Lang::Python => (
            "- `adapter.py`: one function per operation (the file you edit), `IMPLEMENTATION`, `library_error`\n\
             - `delegateos_kit.py`: the protocol loop and helpers (no need to edit)",
            "delegateos-conform run --impl 'python3 -u adapter.py'",
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
             - `Cargo.toml`: the dev-dependency on `delegateos-inprocess` (a path into the kit's checkout; adjust it)",
            "cargo test --test conformance            # or: cargo test --test conformance -- dct-forged",
            "replace `Answer::todo()` in `dct_verify` with a call into your library",
        ),
    };
    let lang_note = match lang {
        Lang::Typescript => {
            "\nThe files are JavaScript modules with JSDoc types (`// @ts-check`): Node 18+ runs them \
             without a compiler or any dependency, and `tsc --allowJs --checkJs --strict` \
             type-checks them. Import your TypeScript library's compiled output as usual.\n"
        }
        Lang::Python => "\nPython 3.9+, standard library only.\n",
        Lang::Go => "\nGo 1.18+, standard library only.\n",
        Lang::Rust => {
            "\nIn-process: no adapter process. Each case is one test named by its id, judged \
             exactly as `delegateos-conform run` judges; `DELEGATEOS_FAIL_ON=hardening` and \
             `DELEGATEOS_PROFILE=strict` mirror `run`'s flags.\n"
        }
    };
    let skip_note = if lang == Lang::Rust {
        "A method that answers `Answer::todo()` (the default) leaves its cases `ignored`."
    } else {
        "`hello` declares exactly the operations whose stub you filled in; the other operations' \
         cases are reported `skipped` and never fail the run."
    };
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
pub fn render(lang: Lang) -> Vec<KitFile> {
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
                fill(tpl::PY_ADAPTER, &[("STUBS", body.trim_end()), ("REGISTRY", registry.trim_end())]),
                true,
            ),
            file("delegateos_kit.py", fill(tpl::PY_KIT, &[("TEST_KEYS", &keys)]), false),
        ],
        Lang::Typescript => vec![
            file(
                "adapter.mjs",
                fill(tpl::TS_ADAPTER, &[("STUBS", body.trim_end()), ("REGISTRY", registry.trim_end())]),
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
                fill(tpl::GO_OPS, &[("STUBS", body.trim_end()), ("REGISTRY", registry.trim_end())]),
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
                    &[("INPROCESS_PATH", &inprocess_path().display().to_string())],
                ),
                false,
            ),
            file("src/lib.rs", tpl::RS_LIB.to_owned(), false),
            file(
                "tests/conformance.rs",
                fill(tpl::RS_TEST, &[("STUBS", body.trim_matches('\n'))]),
                false,
            ),
        ],
    };
    files.push(file("README.md", readme(lang), false));
    files
}

/// Why a skeleton could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KitError {
    /// The directory exists and is not empty (nothing is overwritten).
    #[error("{0} exists and is not empty: new-adapter writes only into a new or empty directory")]
    NotEmpty(String),
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
pub fn write(lang: Lang, dir: &Path) -> Result<Vec<PathBuf>, KitError> {
    let io = |path: &Path| {
        let path = path.display().to_string();
        move |source| KitError::Io { path, source }
    };
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).map_err(io(dir))?;
        if entries.next().is_some() {
            return Err(KitError::NotEmpty(dir.display().to_string()));
        }
    }
    let mut written = Vec::new();
    for f in render(lang) {
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

/// `new-adapter`: writes the skeleton and prints what to do next; returns the exit code.
pub fn new_adapter(lang: Lang, dir: &Path) -> i32 {
    match write(lang, dir) {
        Ok(paths) => {
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
                let _ = writeln!(
                    out,
                    "next: fill in `dct_verify` in {}/tests/conformance.rs, then `cargo test --test conformance`",
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
                KitError::NotEmpty(_) => crate::exit::ConformExitCode::USAGE,
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
        let written = write(Lang::Go, &dir).expect("writes into a new directory");
        assert_eq!(written.len(), render(Lang::Go).len());
        assert!(dir.join("ops.go").is_file() && dir.join("kit.go").is_file());
        assert!(matches!(write(Lang::Go, &dir), Err(KitError::NotEmpty(_))));
        assert_eq!(
            new_adapter(Lang::Python, &dir),
            crate::exit::ConformExitCode::USAGE
        );
        let _ = std::fs::remove_dir_all(&dir);
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
            let files = render(lang);
            assert_eq!(files, render(lang), "{lang:?} output differs between calls");
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
