//! Group `primitives/timestamp-redteam`: `timestamp.compare` cases found by running the
//! deliberately defective Python verifier (`implementations/redteam/py-hasty/`) against the
//! corpus: Python-typical timestamp parsers that the D5 profile must reject.
//!
//! - `re.match(r"…$")`: `$` also matches before one trailing `\n`;
//! - `\d` matches every Unicode decimal digit (and `int()` parses them), beyond the fullwidth
//!   digit of `primitives/timestamp`;
//! - `datetime.strptime("%Y-%m-%dT%H:%M:%S%z")`: one-digit fields;
//! - `datetime.fromisoformat` (Python 3.11): any separator character and `+HH:MM:SS` offsets.
//!
//! Every input is outside the D5 profile (`YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)`), so the
//! expected answer is `invalid_timestamp`, whatever the other operand. The cases are the rows
//! of set `timestamp-redteam` of `data/tables/primitives.json`.

use crate::generate::Area;

/// Adds group `timestamp-redteam` to area `primitives`.
pub fn build(area: &mut Area) {
    let g = area.group(
        "timestamp-redteam",
        "timestamp.compare: forms Python parsers accept that the D5 profile rejects (red team).",
    );
    crate::tables::case_rows(g, "primitives", "timestamp-redteam", "primitives.json");
}
