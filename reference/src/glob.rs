//! TODO: module owned by the reference work; see lib.rs.
