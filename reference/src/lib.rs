//! Pure reference implementation of the DelegateOS v0.1 protocol.
//!
//! Every function here is a function of its inputs: no I/O, no clock, no randomness.
//! Time (`now`), keys, revocation entries and spend are parameters.
