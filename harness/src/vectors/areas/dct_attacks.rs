//! Area `dct`, attack groups (forged, malformed, revoked): owned by helper-8.

use crate::vectors::generate::Area;

/// Adds the attack groups to the `dct` area.
pub fn build(_area: &mut Area) {}
