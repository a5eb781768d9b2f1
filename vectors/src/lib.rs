//! DelegateOS conformance vectors: what "correct" means, as data.
//!
//! The middle layer of the kit: `delegateos-reference` (algorithms) → this crate (the corpus
//! and how to read and judge it) → `delegateos-conform` (driving implementations, reports,
//! MCP, fuzzing, CLI). Another tool that wants the corpus needs only this crate.
//!
//! | module | owns |
//! |---|---|
//! | [`corpus`] | the committed corpus embedded at build time; corpus sources and digest |
//! | [`differential`] | how both token fuzzers grade a mutated token (its expectation, requirement and judge's kind) |
//! | [`export`] | the corpus for another language: manifest (version, digest, counts), published keys, spec files |
//! | [`faults`] | the fault catalogue (`spec/data/faults.json`), its computed fingerprints and the diagnosis of a run's failures |
//! | [`families`] | code families of `spec/error-codes.md` §11 (read from `spec/data/error-codes.json`) |
//! | `fuzz` | (feature `fuzz`) the fuzz core both differential fuzzers share: mutators, edits, re-signing, seeds, expectation, grading, finding files |
//! | [`format`] | serde types of `delegateos-vectors/1` files |
//! | [`load`] | reading files, JSON Schema validation (`spec/schemas/vector.schema.json`) |
//! | [`judge`] | expectation × actual outcome → verdict with a unified diff |
//! | [`keys`], [`flags`] | the fixed published keys; every flag's note (level and severity from `spec/data/flags.json`) |
//! | [`operations`] | the operation catalogue of `spec/operations.md` (read from `spec/data/operations.json`) |
//! | [`requirements`] | requirement ids and sections from `spec/data/requirements.json` (embedded) |
//! | [`severity`] | the severity model of `spec/severity.md` (read from `spec/data/severity.json`): direction, effect, severity and finding key of a failure |
//! | [`spec_tables`] | the spec's tables as data (`spec/data/*.json`): Markdown rendering and the drift check |
//! | `grounds` | (feature `generator`) each case's ground and stake, read from the data files (issue 36) |
//! | `generate`, `tables`, `areas`, `regenerate` | (feature `generator`) the framework area authors write against, the table toolkit beside it (group lists, table rows, cases written out as rows), the areas (`areas/mod.rs` is their registry only, one module per area), and the driver that builds, checks and writes the corpus |
//!
//! The generator runs the reference in-process only to *assert agreement*; running an
//! implementation under test goes through the adapter protocol (the harness), never here.

#[cfg(feature = "generator")]
pub mod areas;
#[cfg(feature = "generator")]
pub mod audit;
pub mod corpus;
pub mod differential;
pub mod export;
pub mod families;
pub mod faults;
pub mod flags;
pub mod format;
#[cfg(feature = "fuzz")]
pub mod fuzz;
#[cfg(feature = "generator")]
pub mod generate;
#[cfg(feature = "generator")]
pub mod grounds;
pub mod judge;
pub mod keys;
pub mod load;
pub mod operations;
pub mod options;
pub mod outcome;
#[cfg(feature = "generator")]
pub mod regenerate;
pub mod requirements;
pub mod severity;
pub mod spec_tables;
#[cfg(feature = "generator")]
mod table_data;
#[cfg(feature = "generator")]
mod tables;

pub use corpus::CorpusSource;
pub use format::{Case, Expectation, Expected, VectorFile};
#[cfg(feature = "generator")]
pub use generate::{Area, AreaDef, Group};
pub use judge::{judge, ActualOutcome, Verdict};
#[cfg(feature = "generator")]
pub use regenerate::{check, generate};
