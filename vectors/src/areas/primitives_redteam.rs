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
//! expected answer is `invalid_timestamp`, whatever the other operand.

use serde_json::json;

use crate::format::Expectation;
use crate::generate::{Area, Group};

/// Adds group `timestamp-redteam` to area `primitives`.
pub fn build(area: &mut Area) {
    timestamps(area.group(
        "timestamp-redteam",
        "timestamp.compare: forms Python parsers accept that the D5 profile rejects (red team).",
    ));
}

const Z: &str = "2026-01-01T00:00:00Z";

/// (number, description, a, b). Expected: invalid_timestamp.
#[rustfmt::skip]
const CASES: &[(u16, &str, &str, &str)] = &[
    (1, "a trailing newline (`…Z\\n`)", "2026-01-01T00:00:00Z\n", Z),
    (2, "a trailing newline in the second operand", Z, "2026-01-01T00:00:00Z\n"),
    (3, "a trailing newline after an offset", "2026-01-01T01:00:00+01:00\n", Z),
    (4, "a trailing CRLF", "2026-01-01T00:00:00Z\r\n", Z),
    (10, "Arabic-Indic digits in the year (`٢٠٢٦`)", "\u{662}\u{660}\u{662}\u{666}-01-01T00:00:00Z", Z),
    (11, "a Devanagari digit in the minutes", "2026-01-01T00:0\u{967}:00Z", Z),
    (12, "a fullwidth digit in the fraction", "2026-01-01T00:00:00.\u{ff15}Z", Z),
    (13, "a Bengali digit in the offset", "2026-01-01T00:00:00+0\u{9e7}:00", Z),
    (20, "one-digit day and hour (strptime accepts `%d`/`%H` without padding)", "2026-01-1T0:00:00Z", Z),
    (22, "offset with seconds (`+00:00:00`)", "2026-01-01T00:00:00+00:00:00", Z),
    (23, "another separator character (`X`) between date and time", "2026-01-01X00:00:00Z", Z),
];

fn timestamps(g: &mut Group) {
    for &(n, desc, a, b) in CASES {
        let input = json!({ "a": a, "b": b });
        let expect = Expectation::invalid("invalid_timestamp", "1.2/time");
        let reqs = &["PRIM-TIME-REJECT-FORMS"];
        g.case(n, desc, reqs, &[], "timestamp.compare", input, expect);
    }
}
