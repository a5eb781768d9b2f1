//! The fuzz core (feature `fuzz`): what both differential fuzzers — `delegateos-conform fuzz`
//! (the harness: adapter processes, the pool, triage) and `delegateos_inprocess::fuzz` (a
//! library in process: panic capture, libtest) — share, written once, generic over the source
//! of randomness ([`entropy::Entropy`]: the harness's seeded [`entropy::Rng`], libFuzzer's
//! [`entropy::Bytes`]).
//!
//! | module | concern |
//! |---|---|
//! | [`entropy`] | the source of choices |
//! | [`mutate`] | `dct.verify`: structural token mutations, re-signing of every block, revocation entries |
//! | [`ops`] | the other operations: the registry of fuzzable operations, edits, text edits, re-signing of contracts, attestations and revocation lists |
//! | [`seed`] | a seed from the corpus, a candidate's bounds, and what a mutated token is held to (a leaf) |
//! | [`expect`] | seeds of an operation, candidates and their changes, and what the implementation is held to |
//! | [`finding`] | a finding, its kind, its grade and its finding file |

pub mod entropy;
pub mod expect;
pub mod finding;
pub mod mutate;
pub mod ops;
pub mod seed;
