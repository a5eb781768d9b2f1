//! Area generators, one file each. To add an area: write `areas/<name>.rs` with
//! `pub fn build(area: &mut Area)` and add one line to [`AREAS`].

use super::generate::AreaDef;

pub mod advisory;
pub mod dct;
pub mod dct_attacks;
pub mod dct_support;
pub mod glob;
pub mod primitives;
pub mod contract;
pub mod checks;
pub mod attestation;
pub mod revocation;
pub mod chain;
pub mod jsonrpc;

/// Every area the generator builds, in output order.
pub const AREAS: &[AreaDef] = &[
    AreaDef { name: "glob", build: glob::build },
    AreaDef { name: "dct", build: dct::build },
    AreaDef { name: "primitives", build: primitives::build },
    AreaDef { name: "revocation", build: revocation::build },
    AreaDef { name: "chain", build: chain::build },
    AreaDef { name: "jsonrpc", build: jsonrpc::build },
    AreaDef { name: "contract", build: contract::build },
    AreaDef { name: "checks", build: checks::build },
    AreaDef { name: "attestation", build: attestation::build },
    AreaDef { name: "advisory", build: advisory::build },
];
