//! Test vectors: the file format, loading and validation, the comparison rule, and the
//! generator that writes `vectors/`.
//!
//! - [`format`]: serde types of `delegateos-vectors/1` files;
//! - [`load`]: reading files, JSON Schema validation (`spec/schemas/vector.schema.json`);
//! - [`judge`]: expectation × actual outcome → verdict with a unified diff;
//! - [`generate`]: the generator framework, [`generate::generate`] and [`generate::check`];
//! - [`keys`], [`flags`]: the fixed keys and the flag notes shared by all files;
//! - [`areas`]: one generator file per area, registered in [`areas::AREAS`].
//!
//! The generator runs the reference in-process only to *assert agreement*; running an
//! implementation under test goes through the adapter protocol (the runner), never here.

pub mod areas;
pub mod flags;
pub mod format;
pub mod generate;
pub mod judge;
pub mod keys;
pub mod load;

pub use format::{Case, Expectation, Expected, VectorFile};
pub use generate::{check, generate, Area, AreaDef, Group};
pub use judge::{judge, ActualOutcome, Verdict};
