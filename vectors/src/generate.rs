//! The vector generator framework: areas, groups, cases, byte-deterministic files.
//!
//! Area authors write one file in `areas/` with a `build(&mut Area)` function and add one
//! line to [`crate::areas::AREAS`]. Inside, they open groups and add cases with explicit
//! numbers:
//!
//! ```ignore
//! pub fn build(area: &mut Area) {
//!     let k = area.keys().clone();
//!     let g = area.group("match", "Resource glob matching (§10.2, D1, D2).");
//!     g.case(1, "`/project/*` matches one segment", &["GLOB-STAR-SEGMENT"], &["SpecExample"],
//!            "glob.match", json!({"pattern": "/project/*", "resource": "/project/foo"}),
//!            Expectation::valid(json!({"matches": true})));
//! }
//! ```
//!
//! Ids are `<area>-<group>-<NNNN>` from the number the author passes; nothing is ever
//! renumbered, so adding a case never changes another case's id. Removing a case means adding
//! its id to `vectors/RETIRED-IDS.txt`; the generator refuses duplicated and retired ids.
//!
//! [`crate::regenerate::generate`] builds every area, **asserts that the reference agrees** with every case
//! (running it in-process through `delegateos_reference::ops::run` and [`judge`]; for an
//! `acceptable` case the reference must give the first outcome), and writes
//! `<out>/<area>/<group>.json`. A disagreement is an error naming the cases: the expectation
//! comes from how the case was built and what the spec says, so a disagreement is a bug to
//! investigate, never a vector to rewrite. [`crate::regenerate::check`] regenerates in memory and diffs against
//! a directory.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::audit;
use crate::flags;
use crate::format::{
    Case, Expectation, Generator, Ground, Level, Note, Stake, VectorFile, SCHEMA_ID,
};
use crate::grounds;
use crate::keys::Keys;

/// `specVersion` of every file.
pub use crate::format::SPEC_VERSION;
/// `generator.name` of every file.
pub const GENERATOR_NAME: &str = "delegateos-conform vectors generate";
/// `generator.version` of every file: bump when the output of an unchanged area changes.
pub const GENERATOR_VERSION: &str = "1";

/// Ids that were published once and removed; they may never be used again.
pub(crate) const RETIRED_IDS: &str = include_str!("../RETIRED-IDS.txt");

/// One area generator: its directory name and its build function.
#[derive(Debug, Clone, Copy)]
pub struct AreaDef {
    /// Directory under `vectors/` and first component of every id.
    pub name: &'static str,
    /// Adds the area's groups and cases.
    pub build: fn(&mut Area),
}

/// The groups of one area under construction.
#[derive(Debug)]
pub struct Area {
    name: &'static str,
    keys: Keys,
    groups: Vec<Group>,
}

impl Area {
    fn new(name: &'static str, keys: Keys) -> Self {
        Self {
            name,
            keys,
            groups: Vec::new(),
        }
    }

    /// An area built only to read its cases: companion groups derive their cases from another
    /// area's (e.g. `companions` from `primitives` and `glob`), so both stay one table.
    pub(crate) fn scratch(name: &'static str, keys: Keys) -> Self {
        Self::new(name, keys)
    }

    /// Every case added so far, group by group.
    pub(crate) fn cases(&self) -> impl Iterator<Item = &Case> {
        self.groups.iter().flat_map(|g| g.cases.iter())
    }

    /// The fixed key set.
    pub fn keys(&self) -> &Keys {
        &self.keys
    }

    /// Opens group `name` (the file `vectors/<area>/<name>.json`).
    pub fn group(&mut self, name: &str, description: &str) -> &mut Group {
        let group = Group {
            area: self.name.to_owned(),
            name: name.to_owned(),
            description: description.to_owned(),
            cases: Vec::new(),
            local_notes: BTreeMap::new(),
            errors: Vec::new(),
            stateful: false,
        };
        if self.groups.iter().any(|g| g.name == name) {
            let mut dup = group;
            dup.errors.push(format!(
                "group {:?} opened twice in area {:?}",
                name, self.name
            ));
            self.groups.push(dup);
        } else {
            self.groups.push(group);
        }
        let last = self.groups.len() - 1;
        &mut self.groups[last]
    }
}

/// One behaviour group under construction (one vector file).
#[derive(Debug)]
pub struct Group {
    area: String,
    name: String,
    description: String,
    cases: Vec<Case>,
    local_notes: BTreeMap<String, Note>,
    errors: Vec<String>,
    stateful: bool,
}

impl Group {
    /// The number of case `id` of this group (`<area>-<group>-NNNN`), named by a row of table
    /// `table`: an id of another group is a bug in the table (the generator's own data: it
    /// panics with the table's name, and every table is read by the generator's tests).
    #[allow(clippy::panic)]
    pub fn number_of(&self, table: &str, id: &str) -> u16 {
        let prefix = format!("{}-{}-", self.area, self.name);
        case_number(table, &prefix, id)
    }

    /// Marks the group stateful: its cases run in file order in one fresh adapter process and
    /// are replayed after a restart (vectors/README.md "Stateful groups"). Each case's
    /// expectation must still follow from its own input alone.
    pub fn stateful(&mut self) -> &mut Self {
        self.stateful = true;
        self
    }

    /// Adds case number `number` (1..=9999): id `<area>-<group>-<NNNN>`.
    ///
    /// `requirements` are ids from `spec/requirements.md`; `flags` must be known (see
    /// [`flags`]) or defined with [`Group::define_flag`]; `op` is an operation of
    /// `spec/operations.md`. Problems are collected and reported by [`generate`].
    #[allow(clippy::too_many_arguments)] // Mirrors the case's fields one for one.
    pub fn case(
        &mut self,
        number: u16,
        description: &str,
        requirements: &[&str],
        flags: &[&str],
        op: &str,
        input: Value,
        expect: Expectation,
    ) -> &mut Self {
        let id = format!("{}-{}-{:04}", self.area, self.name, number);
        if !(1..=9999).contains(&number) {
            self.errors
                .push(format!("{id}: case numbers are 1..=9999, got {number}"));
        }
        let mut case = Case {
            id,
            description: description.to_owned(),
            requirements: requirements.iter().map(|s| (*s).to_owned()).collect(),
            flags: flags.iter().map(|s| (*s).to_owned()).collect(),
            level: Level::Normative,
            ground: Ground::Hardening {
                reason: String::new(),
            },
            stake: Stake {
                granted: String::new(),
                refused: String::new(),
                wrong_output: String::new(),
                crash_or_hang: String::new(),
            },
            op: op.to_owned(),
            options: crate::options::needed_by(&input),
            input,
            expect,
        };
        // D45: a revocation entry a case hands to verification is signed both ways (not in an
        // MCP proxy's configuration, whose list refuses an entry that does not verify).
        if !op.starts_with("mcp.") {
            both_readings(&mut case.input);
        }
        // The audit's case changes (spec/audit-v0.2.md §2), then the case's ground and stake
        // as the data files state them (issue 36): its level is its ground's.
        grounds::amend(&mut case);
        audit::amend(&mut case);
        if let Err(e) = grounds::apply(&mut case, &format!("{}/{}", self.area, self.name)) {
            self.errors.push(e);
        }
        self.cases.push(case);
        self
    }

    /// Defines the note of a flag whose note derives from other data (the advisory flags,
    /// from the profile rules); every other flag's note is its record in
    /// `spec/data/flags.json` ([`flags`]). Its level and severity come from that record, which
    /// must exist.
    pub fn define_flag(
        &mut self,
        flag: &str,
        bug_type: &str,
        clause: &str,
        description: &str,
        effect: &str,
    ) -> &mut Self {
        match flags::index_row(flag) {
            Some(row) if row.note.is_some() => self.errors.push(format!(
                "flag {flag:?} (group {}) has its note in spec/data/flags.json: one place only",
                self.name
            )),
            Some(row) => {
                self.local_notes.insert(
                    flag.to_owned(),
                    Note {
                        bug_type: bug_type.to_owned(),
                        description: description.to_owned(),
                        clause: clause.to_owned(),
                        effect: effect.to_owned(),
                        level: row.level,
                        severity: row.severity,
                    },
                );
            }
            None => self.errors.push(format!(
                "flag {flag:?} (group {}) has no row in spec/decisions.md's Flag index",
                self.name
            )),
        }
        self
    }

    fn into_file(self, keys: &Keys, errors: &mut Vec<String>) -> VectorFile {
        errors.extend(self.errors);
        let mut notes = BTreeMap::new();
        for case in &self.cases {
            if case.requirements.is_empty() {
                errors.push(format!("{}: cites no requirement id", case.id));
            }
            if case.description.trim().is_empty() {
                errors.push(format!("{}: has no description", case.id));
            }
            if !case.input.is_object() {
                errors.push(format!("{}: input is not a JSON object", case.id));
            }
            for flag in &case.flags {
                match self
                    .local_notes
                    .get(flag)
                    .cloned()
                    .or_else(|| flags::note(flag))
                {
                    Some(note) => {
                        notes.insert(flag.clone(), note);
                    }
                    None => errors.push(format!("{}: unknown flag {flag:?}", case.id)),
                }
            }
            if let Expectation::Acceptable { outcomes, decision } = &case.expect {
                if outcomes.len() < 2 {
                    errors.push(format!("{}: acceptable needs ≥ 2 outcomes", case.id));
                }
                if case.flags.is_empty() && !matches!(case.ground, Ground::Decision { .. }) {
                    errors.push(format!(
                        "{}: acceptable (decision {decision}) without a flag or a decision \
                         ground naming it",
                        case.id
                    ));
                }
            }
        }
        VectorFile {
            schema: SCHEMA_ID.to_owned(),
            spec_version: SPEC_VERSION.to_owned(),
            generator: Generator {
                name: GENERATOR_NAME.to_owned(),
                version: GENERATOR_VERSION.to_owned(),
            },
            area: self.area,
            group: self.name,
            description: self.description,
            stateful: self.stateful,
            keys: keys.header(),
            notes,
            number_of_cases: self.cases.len(),
            cases: self.cases,
        }
    }
}

/// Runs one area's `build` and turns its groups into files (problems go to `errors`).
pub(crate) fn build_area(def: &AreaDef, keys: &Keys, errors: &mut Vec<String>) -> Vec<VectorFile> {
    let mut area = Area::new(def.name, keys.clone());
    (def.build)(&mut area);
    area.groups
        .into_iter()
        .map(|group| group.into_file(keys, errors))
        .collect()
}

/// D45 (issue 48): whether a revocation entry's signature covers the BLAKE2b-256 digest of its
/// canonical payload (our reading) or the canonical bytes themselves (the literal §4.1) is a
/// decision, so a case that hands a well-signed entry to verification (`revocations` in a
/// `dct.verify`, `contract.bind`, `chain.*` or stateful input, at any depth) carries it signed
/// both ways: right after every entry whose digest signature verifies under a published key,
/// the same entry signed over the canonical bytes. Each reading honours one of the two and
/// ignores the other (an entry whose signature does not verify revokes nothing, §10.1 step 2
/// with D6), so the case's outcome and stake hold under both readings. Entries that do not
/// verify (tampered, malformed, unknown signer) get no twin.
fn both_readings(input: &mut Value) {
    match input {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if key == "revocations" {
                    if let Value::Array(entries) = value {
                        let mut out = Vec::with_capacity(entries.len() * 2);
                        for entry in entries.drain(..) {
                            let twin = literal_twin(&entry);
                            out.push(entry);
                            out.extend(twin);
                        }
                        *entries = out;
                        continue;
                    }
                }
                both_readings(value);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(both_readings),
        _ => {}
    }
}

/// The entry signed over its canonical bytes (D45's literal reading), when `entry` is an entry
/// whose digest signature verifies under one of the published keys.
fn literal_twin(entry: &Value) -> Option<Value> {
    use delegateos_reference::encoding::b64u_encode;
    use delegateos_reference::revocation::{entry_from_value, entry_payload};
    let parsed = entry_from_value(entry).ok()?;
    let keys = Keys::fixed();
    let key = keys
        .all()
        .into_iter()
        .find(|k| k.principal == parsed.revoked_by)?;
    let payload = entry_payload(
        &parsed.revocation_id,
        &parsed.revoked_by,
        &parsed.revoked_at,
        parsed.scope,
    );
    let mut twin = entry.clone();
    twin["signature"] = Value::String(b64u_encode(&key.keypair().sign_message(payload.as_bytes())));
    Some(twin)
}

/// The number of case `id` of table `table`, whose ids all start with `prefix`
/// (`<area>-<group>-`); an id that does not is a bug in the table.
#[allow(clippy::panic)]
pub(crate) fn case_number(table: &str, prefix: &str, id: &str) -> u16 {
    let number = id.strip_prefix(prefix).and_then(|n| n.parse().ok());
    number.unwrap_or_else(|| panic!("{table}: {id} is no case of {prefix}"))
}
