//! `fuzz --op`: the loop over the operations beyond `dct.verify` ([`engine`]); their
//! mutators, edits and re-signing are the fuzz core's (`delegateos_vectors::fuzz::ops`,
//! re-exported here).

pub mod engine;

pub use delegateos_vectors::fuzz::ops::*;
