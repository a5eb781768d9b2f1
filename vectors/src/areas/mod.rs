//! The registry of the area generators, one file each. To add an area: write
//! `areas/<name>.rs` with `pub fn build(area: &mut Area)` and add one line to [`AREAS`]; the
//! table toolkit the areas call is `crate::tables`.

use super::generate::{Area, AreaDef};

pub mod advisory;
pub mod attestation;
pub mod binding_spec;
pub mod chain;
pub mod chain_store;
pub mod checks;
pub mod companions;
pub mod contract;
pub mod dct;
pub mod dct_attacks;
pub mod dct_redteam;
pub mod dct_redteam_py;
pub mod dct_support;
pub mod glob;
pub mod glob_redteam;
pub mod jsonrpc;
pub mod mcp;
pub mod mcp_session;
pub mod primitives;
pub mod primitives_redteam;
pub mod revocation;
pub mod signature_keys;
pub mod stateful;

/// Every area the generator builds, in output order.
#[rustfmt::skip]
pub const AREAS: &[AreaDef] = &[
    AreaDef { name: "glob", build: glob::build },
    AreaDef { name: "dct", build: dct::build },
    AreaDef { name: "primitives", build: primitives::build },
    AreaDef { name: "revocation", build: revocation::build },
    AreaDef { name: "chain", build: chain_area },
    AreaDef { name: "jsonrpc", build: jsonrpc::build },
    AreaDef { name: "contract", build: contract_area },
    AreaDef { name: "checks", build: checks::build },
    AreaDef { name: "attestation", build: attestation_area },
    AreaDef { name: "advisory", build: advisory::build },
    AreaDef { name: "mcp", build: mcp_area },
    AreaDef { name: "companions", build: companions::build },
    AreaDef { name: "stateful", build: stateful::build },
];

/// The chain area: ordered-list verification, then the same chains from a store (any order).
fn chain_area(area: &mut Area) {
    chain::build(area);
    chain_store::build(area);
}

/// The contract area: contract groups, keyed signature verification, binding as §5.2 states it.
fn contract_area(area: &mut Area) {
    contract::build(area);
    signature_keys::contract(area);
    binding_spec::build(area);
}

/// The mcp area: the plugin's one-message decisions (`mcp.rs`), then the session scripts
/// (`mcp_session.rs`, which builds on the decisions' helpers).
fn mcp_area(area: &mut Area) {
    mcp::build(area);
    let keys = area.keys().clone();
    mcp_session::build(
        area.group(
            "session",
            "mcp.session: ordered scripts of client and upstream messages — interleaved and \
             out-of-order responses, notifications, server requests, cancellation — with what the \
             client receives, what reaches the upstream and the spend per delegation after each \
             step (spec/mcp-proxy.md §6.1; the proxy suite runs the same scripts, §6.2).",
        ),
        &keys,
    );
}

/// The attestation area: attestation groups, then keyed signature verification.
fn attestation_area(area: &mut Area) {
    attestation::build(area);
    signature_keys::attestation(area);
}
