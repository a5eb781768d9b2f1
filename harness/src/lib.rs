//! DelegateOS conformance harness library.
pub mod mcp;
