//! Fuzzing on the harness side: entry points for its parsers ([`targets`]) and the
//! differential fuzzer `delegateos-conform fuzz` ([`cli`], the loop [`drive`] and its target
//! [`ops::engine`], one for every operation of the core's registry).
//!
//! The differential fuzzer takes valid `dct.verify` cases, mutates them structurally,
//! re-signs them with the published test keys (so mutations reach the semantic checks of the
//! implementation under test), runs the reference in-process and the implementation through
//! the adapter protocol (via [`crate::runner`]), and reports crashes, timeouts and
//! disagreements, each minimized and saved as a replayable vector-format case. `fuzz --op`
//! does the same for the other operations that take untrusted input ([`ops`]).
//!
//! What the fuzzer does to an input — mutators, edits, re-signing, seeds, expectation,
//! grading, finding files — is the fuzz core below the harness, `delegateos_vectors::fuzz`,
//! shared with `delegateos_inprocess::fuzz`; the harness keeps the loop over adapter
//! processes, the pool and the triage.

pub use delegateos_vectors::fuzz::{finding, mutate};

pub mod cli;
pub mod drive;
pub mod ops;
pub(crate) mod pool;
pub mod targets;
pub mod triage;
