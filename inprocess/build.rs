//! Generates the [`Implementation`] trait (one method per operation), `OPERATIONS` and
//! `dispatch` from the operation catalogue, `spec/data/operations.json`, read by the same code the
//! vectors crate and `delegateos-conform new-adapter` use (`vectors/src/operations.rs`), so the
//! trait cannot drift from the spec or from the other languages' stubs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;

#[allow(dead_code)]
// `build/operations.rs` links to `vectors/src/operations.rs`, which embeds
// `../spec/operations.md` (`inprocess/spec` links to the spec folder); `cargo package` copies
// both in, so the packaged crate builds alone.
#[path = "build/operations.rs"]
mod operations;

fn main() {
    println!("cargo:rerun-if-changed=spec/operations.md");
    println!("cargo:rerun-if-changed=spec/data/operations.json");
    println!("cargo:rerun-if-changed=build/operations.rs");
    let docs = operations::parse_docs(operations::EMBEDDED);
    assert!(!docs.is_empty(), "spec/operations.md lists no operation");
    let mut methods = String::new();
    let mut names = String::new();
    let mut arms = String::new();
    for d in &docs {
        let method = d.name.replace('.', "_");
        let mut doc = vec![format!(
            "`{}` (spec/operations.md §{} {}).",
            d.name, d.section, d.section_title
        )];
        if d.output.is_empty() {
            doc.push(String::new());
            doc.push(d.input.clone());
        } else {
            doc.push(String::new());
            doc.push(format!("- input: {}", d.input));
            doc.push(format!("- output: {}", d.output));
            doc.push(format!("- errors: {}", d.errors));
        }
        if !d.mirrors.is_empty() {
            doc.push(format!("- mirrors: {}", d.mirrors));
        }
        doc.push(String::new());
        doc.push("Default: [`Implementation::fallback`] (unimplemented).".to_owned());
        for line in &doc {
            // Markdown links in the catalogue text are not rustdoc intra-doc links.
            let line = line.replace('[', "\\[").replace(']', "\\]");
            writeln!(methods, "    #[doc = {line:?}]").unwrap();
        }
        writeln!(
            methods,
            "    fn {method}(&self, input: &Value) -> Answer {{\n        self.fallback({:?}, input)\n    }}\n",
            d.name
        )
        .unwrap();
        writeln!(names, "    {:?},", d.name).unwrap();
        writeln!(arms, "        {:?} => Some(imp.{method}(input)),", d.name).unwrap();
    }
    let code = format!(
        "/// A DelegateOS implementation under test, in-process: one method per operation of\n\
         /// `spec/operations.md` (generated from it). Every method defaults to\n\
         /// [`Implementation::fallback`], which answers [`Answer::Todo`] (the case is skipped), so\n\
         /// an implementation overrides only what it has.\n\
         pub trait Implementation {{\n{methods}\
         \x20   /// The options the implementation has (`spec/adapter-protocol.md` §2.1, the names of\n\
         \x20   /// `hello.options`: `strict-mode`, `per-tool-spend`): behaviours the corpus tests beyond\n\
         \x20   /// the text's required ones. A case that needs an option not listed here is skipped\n\
         \x20   /// (\"needs option X\"), never a finding; an unknown name is an error of the run.\n\
         \x20   /// Default: none.\n\
         \x20   fn options(&self) -> &[&str] {{\n\
         \x20       &[]\n\
         \x20   }}\n\n\
         \x20   /// What every method that is not overridden answers: [`Answer::Todo`]. Override it to\n\
         \x20   /// route every operation through one function of yours (`op` is the catalogue name).\n\
         \x20   fn fallback(&self, op: &str, input: &Value) -> Answer {{\n\
         \x20       let _ = (op, input);\n\
         \x20       Answer::Todo\n\
         \x20   }}\n\
         }}\n\n\
         /// Every catalogued operation, in catalogue order.\n\
         pub const OPERATIONS: &[&str] = &[\n{names}];\n\n\
         /// Calls `imp`'s method for `op`; `None` when `op` is not catalogued.\n\
         pub fn dispatch<I: Implementation + ?Sized>(imp: &I, op: &str, input: &Value) -> Option<Answer> {{\n\
         \x20   match op {{\n{arms}        _ => None,\n    }}\n}}\n"
    );
    let out = std::path::Path::new(&std::env::var("OUT_DIR").unwrap()).join("operations.rs");
    std::fs::write(out, code).unwrap();
}
