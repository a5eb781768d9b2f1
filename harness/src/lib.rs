//! DelegateOS conformance harness library.
