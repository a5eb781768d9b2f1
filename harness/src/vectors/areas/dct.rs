//! Area `dct`: DCT creation, attenuation, inspection and verification (§3, §10.1).

use crate::vectors::generate::Area;

/// Builds the `dct` area.
pub fn build(area: &mut Area) {
    super::dct_attacks::build(area);
}
