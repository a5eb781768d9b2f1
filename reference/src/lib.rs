//! Pure reference implementation of the DelegateOS v0.1 protocol.
//!
//! Every function here is a function of its inputs: no I/O, no clock, no randomness.
//! Time (`now`), keys, revocation entries and spend are parameters. Module map (one module
//! per spec concept):
//!
//! | module | spec |
//! |---|---|
//! | [`json`] | strict JSON decoding (duplicate keys, depth, BOM, number profile) |
//! | [`canonical`] | RFC 8785 canonical JSON (§1.2) |
//! | [`crypto`] | BLAKE2b-256, Ed25519 strict profile, principal ids (§1.2, §2) |
//! | [`encoding`] | strict base64url, identifier formats |
//! | [`timestamp`] | the RFC 3339 profile and instant comparison |
//! | [`token`] | SignedJSONToken / SerializedDCT types, decode + encode, inspect, revocation ids (§3.1–3.2, §3.5) |
//! | [`glob`] | resource glob matching and capability subset (§10.2) |
//! | [`attenuate`] | token creation and attenuation (§3.3–3.4) |
//! | [`verify`] | DCT verification, all steps in order (§10.1) |
//! | [`revocation`] | revocation entries and the revocation list (§4) |
//! | [`contract`] | task contracts, signing, DCT binding (§5) |
//! | [`checks`] | check functions, registry, output verification (§6, §10.3) |
//! | [`attestation`] | attestations and one-level chain integrity (§7) |
//! | [`chain`] | delegation-chain invariants (§8) |
//! | [`jsonrpc`] | JSON-RPC message schemas (§9) |
//! | [`mcp`] | MCP plugin decisions: tools/list filtering, tools/call verdicts, spend (§11) |
//! | [`profiles`] | advisory lint rules: neighbouring systems' delegation invariants (`spec/neighbours.md`) |
//! | [`ops`] | the adapter-protocol operations as pure JSON-in / JSON-out functions |
//! | [`fuzzing`] | fuzz entry points with oracles (cargo-fuzz targets and regression tests call these) |

pub mod attenuate;
pub mod attestation;
pub mod canonical;
pub mod chain;
pub mod checks;
pub mod contract;
pub mod crypto;
pub mod encoding;
pub mod faults;
pub mod fuzzing;
pub mod glob;
pub mod json;
pub mod jsonrpc;
pub mod mcp;
pub mod mcp_session;
pub mod ops;
pub mod profiles;
pub mod revocation;
pub mod timestamp;
pub mod token;
pub mod verify;
