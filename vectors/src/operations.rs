//! The operation catalogue of `spec/operations.md`: the names an adapter may declare in
//! `hello` and a vector may use as `op`, with each operation's documentation.
//!
//! The catalogue's tables are data, `spec/data/operations.json` (their single source: the
//! Markdown tables are generated from it): the operation tables of §2–§10, the operations §11
//! and §11a specify in prose (named in the data; their documentation is that section's text,
//! read from the Markdown), and the §11b table of the spec function each mirrors.

/// `spec/operations.md`, embedded at build time (the prose of §11 and §11a).
pub const EMBEDDED: &str = include_str!("../spec/operations.md");

/// `spec/data/operations.json`, embedded at build time.
pub const DATA: &str = include_str!("../spec/data/operations.json");

/// True if `s` has the shape of an operation name (`area.name`).
pub fn is_op_name(s: &str) -> bool {
    let mut parts = s.split('.');
    let first_ok = parts.next().is_some_and(|p| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    });
    let rest: Vec<&str> = parts.collect();
    first_ok
        && !rest.is_empty()
        && rest.iter().all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
}

/// One operation of the catalogue as `spec/operations.md` describes it: the single source of
/// the stubs `delegateos-conform new-adapter` writes in every language and of the methods of the
/// in-process trait (`delegateos-inprocess`), so neither can drift from the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationDoc {
    /// `dct.verify`.
    pub name: String,
    /// The catalogue section it is listed in, e.g. `3`.
    pub section: String,
    /// That section's title, e.g. `Delegation capability tokens (§3, §10.1)`.
    pub section_title: String,
    /// The input cell (markdown); for the operations specified in prose, the section's prose.
    pub input: String,
    /// The "ok output" cell.
    pub output: String,
    /// The "error codes" cell (`—` when none).
    pub errors: String,
    /// The spec function it mirrors (§11b), if listed.
    pub mirrors: String,
    /// What the kit's code needs to know about it: denial or not, what its output grants, its
    /// wire schemas, its fuzz family.
    pub facts: Facts,
}

/// The per-operation rules of an operation's row (`spec/data/README.md`): the severity model
/// (`vectors/src/severity.rs`), the wire-schema tests (`tests/tests/wire_schemas.rs`) and the
/// fuzz registry (`vectors/src/fuzz/ops/mod.rs`) read them here rather than in tables of
/// their own. Every row states all four (`every_operation_states_all_its_facts`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facts {
    /// It answers with §10.1's denial types (`spec/severity.md` §4 and §7: accepting what a
    /// denial refuses is at least that denial's bypass).
    pub denial: bool,
    /// How its output compares on the axis of authority, when it answers a yes/no question
    /// of authority (`spec/severity.md` §1).
    pub grants: Option<Grants>,
    /// The wire schemas of `spec/schemas/` its input or output values follow.
    pub schemas: Vec<SchemaCheck>,
    /// The module of `vectors/src/fuzz/ops/` whose `Fuzzable` fuzzes it (`token`, `checks`, …),
    /// when it is fuzzed.
    pub fuzz: Option<String>,
}

/// What an output grants (`spec/severity.md` §1): one of a few named comparisons of an
/// expected and an actual output, each reading the members the row names.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum Grants {
    /// A boolean member: `true` grants (`{matches: bool}`).
    Verdict {
        /// The member.
        member: String,
    },
    /// A member naming a decision: the `allow` values grant, the `deny` values refuse.
    Decision {
        /// The member.
        member: String,
        /// The values that let the request through.
        allow: Vec<String>,
        /// The values that stop it.
        deny: Vec<String>,
        /// Where an output that stops it names its denial (a dot-path, e.g. `error.data.type`
        /// of `mcp.call`'s `deny`): what the output answers, as an error's code does (the
        /// fuzzers grade a finding by the answer's requirements). `None`: the output names none.
        #[serde(default)]
        code: Option<String>,
    },
    /// An array of booleans, compared position by position; `granting` is the value that
    /// grants (`revoked[i]`: `false` keeps a revoked token working).
    Each {
        /// The member.
        member: String,
        /// The value that grants.
        granting: bool,
    },
    /// An array of names (each an entry's `name` member, or the entry as a string): a name
    /// the expected list lacks grants.
    Names {
        /// The member.
        member: String,
        /// The member of an entry that names it.
        name: String,
    },
    /// An array of entries, each with an array `count`: a longer one at some position grants
    /// (messages forwarded upstream).
    Counts {
        /// The member.
        member: String,
        /// The array of each entry that is counted.
        count: String,
    },
}

impl Grants {
    /// The denial an accepted `output` answers with, when it refuses and the row says where it
    /// names it ([`Grants::Decision`]'s `code`): `mcp.call`'s `deny` with its `error.data.type`.
    pub fn denial_code(&self, output: &serde_json::Value) -> Option<String> {
        let Grants::Decision {
            member,
            deny,
            code: Some(code),
            ..
        } = self
        else {
            return None;
        };
        let decision = output.get(member)?.as_str()?;
        if !deny.iter().any(|d| d == decision) {
            return None;
        }
        code.split('.')
            .try_fold(output, |v, k| v.get(k))?
            .as_str()
            .map(str::to_owned)
    }
}

/// One wire-schema check of an operation's values: the value at `input` (of the case's input)
/// or `output` (of the expected output, and of the reference's actual output) follows
/// `schema`, or the schema that `byOutput`'s member of the expected output selects in
/// `schemas`. A path is members joined by `.`, `[]` after a member meaning each element of
/// that array; the empty path is the whole value.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SchemaCheck {
    /// A path in the case's input.
    #[serde(default)]
    pub input: Option<String>,
    /// A path in the output.
    #[serde(default)]
    pub output: Option<String>,
    /// The schema (`authorized-scope` for `spec/schemas/authorized-scope.schema.json`).
    #[serde(default)]
    pub schema: Option<String>,
    /// The expected output's member whose value selects the schema in `schemas`.
    #[serde(default)]
    pub by_output: Option<String>,
    /// With `byOutput`: value → schema; other values are not checked.
    #[serde(default)]
    pub schemas: std::collections::BTreeMap<String, String>,
    /// Only these members of the value are checked (a missing one as `null`).
    #[serde(default)]
    pub only: Vec<String>,
    /// Only when the expected output's boolean member of this name is `true`.
    #[serde(default)]
    pub when: Option<String>,
}

/// `spec/data/operations.json` (schema: `spec/data/README.md`).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Catalogue {
    /// The operation tables, in catalogue order.
    pub sections: Vec<Section>,
    /// The sections that specify operations in prose.
    pub prose_sections: Vec<ProseSection>,
    /// The §11b table.
    pub mirrors: Vec<Mirror>,
    #[serde(rename = "$comment")]
    _comment: Option<String>,
}

/// One operation table.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// `3`.
    pub section: String,
    /// The heading after the number.
    pub title: String,
    /// Its rows.
    pub operations: Vec<Operation>,
}

/// One row of an operation table (cells in Markdown).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// The operation.
    pub name: String,
    /// The input.
    pub input: String,
    /// The ok output.
    pub output: String,
    /// The error codes (`null` when it has none; the table shows `—`).
    pub errors: Option<String>,
    /// What the kit's code needs to know about it (its other members, none unknown).
    #[serde(flatten)]
    pub facts: Facts,
}

/// A section that specifies operations in prose.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProseSection {
    /// `11`.
    pub section: String,
    /// The heading after the number.
    pub title: String,
    /// The operations it specifies.
    pub operations: Vec<ProseOperation>,
}

/// An operation specified in prose: its name and facts (its documentation is the section's
/// text).
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProseOperation {
    /// The operation.
    pub name: String,
    /// What the kit's code needs to know about it (its other members, none unknown).
    #[serde(flatten)]
    pub facts: Facts,
}

/// One row of the §11b table.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mirror {
    /// The operations.
    pub ops: Vec<String>,
    /// The spec function they mirror (Markdown).
    pub function: String,
}

/// How the catalogue's table and the stubs show an operation without error codes.
pub const NO_ERRORS: &str = "—";

/// Reads an `operations.json` text.
pub fn catalogue_from_json(text: &str) -> Result<Catalogue, serde_json::Error> {
    serde_json::from_str(text)
}

/// The text of section `number` of an `operations.md` text (between its `## number. ` heading
/// and the next heading), whitespace-normalized.
fn section_prose(markdown: &str, number: &str) -> String {
    let heading = format!("## {number}. ");
    let mut inside = false;
    let mut words: Vec<&str> = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("## ") {
            inside = line.starts_with(&heading);
            continue;
        }
        if inside {
            words.extend(line.split_whitespace());
        }
    }
    words.join(" ")
}

/// The catalogue's operations, one [`OperationDoc`] per operation in catalogue order: the
/// tables of `catalogue`, the prose operations documented by their section's text in
/// `markdown`, and the §11b functions.
pub fn docs_of(catalogue: &Catalogue, markdown: &str) -> Vec<OperationDoc> {
    let mut docs: Vec<OperationDoc> = Vec::new();
    for s in &catalogue.sections {
        for o in &s.operations {
            if docs.iter().any(|d| d.name == o.name) {
                continue;
            }
            docs.push(OperationDoc {
                name: o.name.clone(),
                section: s.section.clone(),
                section_title: s.title.clone(),
                input: o.input.clone(),
                output: o.output.clone(),
                errors: o.errors.clone().unwrap_or_else(|| NO_ERRORS.to_string()),
                mirrors: String::new(),
                facts: o.facts.clone(),
            });
        }
    }
    for s in &catalogue.prose_sections {
        let prose = section_prose(markdown, &s.section);
        for o in &s.operations {
            if docs.iter().any(|d| d.name == o.name) {
                continue;
            }
            docs.push(OperationDoc {
                name: o.name.clone(),
                section: s.section.clone(),
                section_title: s.title.clone(),
                input: prose.clone(),
                output: String::new(),
                errors: String::new(),
                mirrors: String::new(),
                facts: o.facts.clone(),
            });
        }
    }
    for m in &catalogue.mirrors {
        for name in &m.ops {
            if let Some(d) = docs.iter_mut().find(|d| d.name == *name) {
                d.mirrors = m.function.clone();
            }
        }
    }
    docs
}

/// The documentation of every operation: the tables of the embedded
/// `spec/data/operations.json`, the prose operations documented by their section's text in
/// `markdown` (an `operations.md` text). Panics if the embedded data does not read (the
/// operations tests read it).
pub fn parse_docs(markdown: &str) -> Vec<OperationDoc> {
    #[allow(clippy::expect_used)]
    let catalogue = catalogue_from_json(DATA).expect("spec/data/operations.json");
    docs_of(&catalogue, markdown)
}

/// [`parse_docs`] of the embedded catalogue.
pub fn docs() -> &'static [OperationDoc] {
    static DOCS: std::sync::OnceLock<Vec<OperationDoc>> = std::sync::OnceLock::new();
    DOCS.get_or_init(|| parse_docs(EMBEDDED))
}

/// The operation names of the embedded catalogue, sorted.
pub fn names() -> Vec<&'static str> {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES
        .get_or_init(|| {
            let mut n: Vec<String> = docs().iter().map(|d| d.name.clone()).collect();
            n.sort_unstable();
            n.dedup();
            n
        })
        .iter()
        .map(String::as_str)
        .collect()
}

/// True if `op` is in the catalogue.
pub fn is_known(op: &str) -> bool {
    names().contains(&op)
}

/// The facts of catalogued operation `op` (none for an operation outside the catalogue).
pub fn facts(op: &str) -> Option<&'static Facts> {
    docs().iter().find(|d| d.name == op).map(|d| &d.facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalogue's tables as Markdown (test-only: this file is also compiled into
    /// `delegateos-inprocess`'s build script, which has no `spec_tables`), with their block names: one per section (`2` … `10`),
    /// and `mirrors` (§11b).
    pub fn markdown_tables(catalogue: &Catalogue) -> Vec<(String, String)> {
        use crate::spec_tables::table;
        let mut out: Vec<(String, String)> = catalogue
            .sections
            .iter()
            .map(|s| {
                let rows: Vec<Vec<String>> = s
                    .operations
                    .iter()
                    .map(|o| {
                        vec![
                            format!("`{}`", o.name),
                            o.input.clone(),
                            o.output.clone(),
                            o.errors.clone().unwrap_or_else(|| NO_ERRORS.to_string()),
                        ]
                    })
                    .collect();
                (
                    s.section.clone(),
                    table(&["op", "input", "ok output", "error codes"], &rows),
                )
            })
            .collect();
        let rows: Vec<Vec<String>> = catalogue
            .mirrors
            .iter()
            .map(|m| {
                let ops: Vec<String> = m.ops.iter().map(|o| format!("`{o}`")).collect();
                vec![ops.join(", "), m.function.clone()]
            })
            .collect();
        out.push((
            "mirrors".to_owned(),
            table(
                &["op", "spec function (architecture v0.2 / protocol v0.2)"],
                &rows,
            ),
        ));
        out
    }

    #[test]
    fn spec_tables_operations_md_is_generated_from_the_data() {
        let catalogue = catalogue_from_json(DATA).expect("spec/data/operations.json");
        let drift: Vec<String> = markdown_tables(&catalogue)
            .into_iter()
            .filter_map(|(name, table)| {
                crate::spec_tables::in_step(
                    "operations.md",
                    &format!("operations.json#{name}"),
                    &table,
                )
                .err()
            })
            .collect();
        assert!(drift.is_empty(), "{}", drift.join("\n"));
        for s in &catalogue.sections {
            for o in &s.operations {
                assert!(is_op_name(&o.name), "{}", o.name);
            }
        }
        let names = names();
        for s in &catalogue.prose_sections {
            let heading = format!("\n## {}. {}\n", s.section, s.title);
            assert!(EMBEDDED.contains(&heading), "no heading {heading:?}");
            let prose = section_prose(EMBEDDED, &s.section);
            for op in s.operations.iter().map(|o| &o.name) {
                assert!(is_op_name(op), "{op}");
                assert!(
                    prose.contains(&format!("`{op}`")),
                    "§{} does not name {op}",
                    s.section
                );
            }
        }
        for m in &catalogue.mirrors {
            for op in &m.ops {
                assert!(names.contains(&op.as_str()), "§11b: unknown op {op}");
            }
        }
    }

    #[test]
    fn the_catalogue_lists_every_operation_family() {
        let n = names();
        for op in [
            "json.canonicalize",
            "dct.verify",
            "glob.match",
            "capability.subset",
            "revocation.from_json",
            "check.run",
            "output.verify",
            "chain.verify",
            "jsonrpc.classify",
            "mcp.call",
            "mcp.filter_tools",
            "profile.lint",
        ] {
            assert!(n.contains(&op), "{op} missing from {n:?}");
        }
        assert!(!is_known("dct.verfy"));
    }

    /// A row's facts are one `Facts` shared by both row types, and a member that is neither a
    /// cell nor a fact (a typo) is still refused, through the flattened `Facts`.
    #[test]
    fn a_row_with_an_unknown_member_is_refused() {
        let row = |extra: &str| {
            format!(
                r#"{{"sections": [{{"section": "9", "title": "t", "operations": [{{"name": "x.y", "input": "i", "output": "o", "errors": null, "denial": false, "grants": null, "schemas": [], "fuzz": null{extra}}}]}}], "proseSections": [{{"section": "11", "title": "p", "operations": [{{"name": "p.q", "denial": true, "grants": null, "schemas": [], "fuzz": null}}]}}], "mirrors": []}}"#
            )
        };
        let ok = catalogue_from_json(&row("")).expect("a well-formed row");
        assert_eq!(ok.sections[0].operations[0].errors, None);
        assert!(ok.prose_sections[0].operations[0].facts.denial);
        let err = catalogue_from_json(&row(r#", "denail": true"#)).unwrap_err();
        assert!(err.to_string().contains("denail"), "{err}");
        assert!(catalogue_from_json(&row("").replace(r#""denial": false, "#, "")).is_err());
    }

    /// Every row of the catalogue states each of its facts (`denial`, `grants`, `schemas`,
    /// `fuzz`: `false`, `null` and `[]` written out), so adding an operation decides them all;
    /// a granting member is one the output cell names, and a schema is a file of
    /// `spec/schemas/`.
    #[test]
    fn every_operation_states_all_its_facts() {
        let data: serde_json::Value = serde_json::from_str(DATA).expect("operations.json");
        let rows = ["sections", "proseSections"].into_iter().flat_map(|table| {
            data[table]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|s| s["operations"].as_array().into_iter().flatten())
        });
        let mut n = 0;
        for row in rows {
            n += 1;
            for fact in ["denial", "grants", "schemas", "fuzz"] {
                assert!(
                    row.get(fact).is_some(),
                    "{}: no {fact:?} (write false, null or [] when it has none)",
                    row["name"]
                );
            }
        }
        assert_eq!(n, names().len());
        let schema_files: Vec<&str> = crate::corpus::SPEC_FILES.iter().map(|(p, _)| *p).collect();
        for d in docs() {
            if let (Some(g), false) = (&d.facts.grants, d.output.is_empty()) {
                let member = match g {
                    Grants::Verdict { member }
                    | Grants::Decision { member, .. }
                    | Grants::Each { member, .. }
                    | Grants::Names { member, .. }
                    | Grants::Counts { member, .. } => member,
                };
                assert!(
                    d.output.contains(member.as_str()),
                    "{}: its output {:?} has no member {member}",
                    d.name,
                    d.output
                );
            }
            for c in &d.facts.schemas {
                assert!(
                    c.input.is_some() != c.output.is_some(),
                    "{}: a schema check names `input` or `output`: {c:?}",
                    d.name
                );
                assert!(
                    c.schema.is_some() != c.by_output.is_some(),
                    "{}: a schema check names `schema` or `byOutput`: {c:?}",
                    d.name
                );
                for schema in c.schema.iter().chain(c.schemas.values()) {
                    let file = format!("spec/schemas/{schema}.schema.json");
                    assert!(
                        schema_files.contains(&file.as_str()),
                        "{}: no schema {file}",
                        d.name
                    );
                }
            }
        }
        let denials: Vec<&str> = docs()
            .iter()
            .filter(|d| d.facts.denial)
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(
            denials,
            [
                "dct.verify",
                "contract.bind",
                "chain.verify",
                "chain.verify_store"
            ]
        );
    }

    #[test]
    fn every_catalogued_operation_has_its_documentation() {
        let docs = docs();
        let mut names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, names_sorted(), "an operation listed twice");
        let verify = docs
            .iter()
            .find(|d| d.name == "dct.verify")
            .expect("dct.verify");
        assert_eq!(verify.section, "3");
        assert!(
            verify
                .input
                .starts_with("`{token: SerializedDCT, context}`"),
            "{verify:?}"
        );
        assert_eq!(verify.output, "`{scope: AuthorizedScope}`");
        assert!(verify.mirrors.contains("verifyDCT"), "{verify:?}");
        let order = docs
            .iter()
            .find(|d| d.name == "timestamp.compare")
            .expect("compare");
        assert!(
            order.output.contains("-1 | 0 | 1"),
            "escaped bars: {order:?}"
        );
        assert_eq!(order.errors, "`invalid_timestamp`");
        let lint = docs
            .iter()
            .find(|d| d.name == "profile.lint")
            .expect("profile.lint");
        assert_eq!(lint.section, "11a");
        assert!(lint.input.contains("findings"), "{lint:?}");
    }

    fn names_sorted() -> Vec<&'static str> {
        let mut n = names();
        n.sort_unstable();
        n
    }
}
