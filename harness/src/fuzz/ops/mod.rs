//! `fuzz --op`: the target of the loop for every fuzzed operation, `dct.verify` among them
//! ([`engine`]); their registry, mutators, edits and re-signing are the fuzz core's
//! (`delegateos_vectors::fuzz::ops`, re-exported here).

pub mod engine;

pub use delegateos_vectors::fuzz::ops::*;
