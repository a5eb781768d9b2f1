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
//! | [`filter`] | case selection |
//! | [`id_glob`] | the id glob the filters and the baseline share (a leaf module) |
//! | [`expected`] | the expected-failures baseline |
//! | [`report`] | every report the harness writes — `run`'s (text, JSON, JUnit, Markdown, HTML, badge), the MCP suite's, a setup error's — with the one escaper per format and the HTML page skeleton |
//! | [`findings`] | failing cases grouped by root cause, ranked by effect (`spec/severity.md`), for `run`, `mcp` and `fuzz` |
//! | [`cli`] | the command line: every subcommand of the one binary |
//! | [`exit`] | the documented exit codes |
//! | [`mcp`] | the MCP proxy suite, the reference proxy and the recording mock upstream |
//! | [`fuzz`] | differential fuzzing against the reference |
//! | [`list`] | `list`: the corpus's areas, groups, flags, requirements, cases and ops |
//! | [`lint`] | `lint`: one token's normative steps and advisory findings |
//! | [`explain`] | `explain CASE`: one case in full, decoded, with how to reproduce it |
//! | [`kit`] | `new-adapter`: the per-language adapter skeletons, generated from the catalogue |
//! | [`guidance`] | what to implement next, from a run's skipped cases |
//!
//! The corpus, its format and the judge live in `delegateos-vectors`.

pub mod adapter_server;
pub mod cli;
pub mod compare;
pub mod exit;
pub mod expected;
pub mod explain;
pub mod filter;
pub mod findings;
pub mod fuzz;
pub mod guidance;
pub mod id_glob;
pub mod kit;
pub mod lint;
pub mod list;
pub mod mcp;
pub mod protocol;
pub mod report;
pub mod runner;
