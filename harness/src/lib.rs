//! DelegateOS conformance harness library.
//!
//! `delegateos-conform` is glue over these modules; the binary only parses arguments and maps
//! outcomes to exit codes.
//!
//! | module | owns |
//! |---|---|
//! | [`adapter_server`] | the stdio adapter serving the built-in reference |
//! | [`protocol`] | adapter protocol v1 frames and their validation |
//! | [`runner`] | adapter processes, timeouts, restarts, one result per case |
//! | [`filter`] | case selection and the id glob |
//! | [`expected`] | the expected-failures baseline |
//! | [`requirements`] | requirement ids and sections from `spec/requirements.md` |
//! | [`report`] | text, JSON, JUnit and Markdown reports |
//! | [`cli`] | the command line and exit codes |
//! | [`vectors`] | vector file format, loading, judging, the generator |

pub mod adapter_server;
pub mod cli;
pub mod expected;
pub mod filter;
pub mod fuzz;
pub mod lint;
pub mod mcp;
pub mod protocol;
pub mod report;
pub mod requirements;
pub mod runner;
pub mod vectors;
