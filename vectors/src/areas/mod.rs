//! Area generators, one file each. To add an area: write `areas/<name>.rs` with
//! `pub fn build(area: &mut Area)` and add one line to [`AREAS`].

use super::generate::AreaDef;

pub mod advisory;
pub mod attestation;
pub mod binding_spec;
pub mod chain;
pub mod chain_store;
pub mod checks;
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
pub mod primitives;
pub mod primitives_redteam;
pub mod revocation;
pub mod signature_keys;

/// Every area the generator builds, in output order.
pub const AREAS: &[AreaDef] = &[
    AreaDef {
        name: "glob",
        build: glob::build,
    },
    AreaDef {
        name: "dct",
        build: dct::build,
    },
    AreaDef {
        name: "primitives",
        build: primitives::build,
    },
    AreaDef {
        name: "revocation",
        build: revocation::build,
    },
    AreaDef {
        name: "chain",
        build: chain::build,
    },
    AreaDef {
        name: "jsonrpc",
        build: jsonrpc::build,
    },
    AreaDef {
        name: "contract",
        build: contract::build,
    },
    AreaDef {
        name: "checks",
        build: checks::build,
    },
    AreaDef {
        name: "attestation",
        build: attestation::build,
    },
    AreaDef {
        name: "advisory",
        build: advisory::build,
    },
    AreaDef {
        name: "mcp",
        build: mcp::build,
    },
];
