//! Your DelegateOS library. The conformance suite runs in-process from
//! `tests/conformance.rs` (`cargo test --test conformance`): no adapter process, no protocol.
