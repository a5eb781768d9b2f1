//! The RFC 3339 timestamp profile of decision D5 and instant comparison.
//!
//! Profile: `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)` with uppercase `T` and `Z`. Leap seconds,
//! impossible dates, `24:00`, lowercase, a space separator or a missing offset are rejected.
//! Timestamps compare as instants (nanoseconds since the Unix epoch), never as strings:
//! `…00.000Z` sorts before `…00Z` lexically although both are the same instant (research §5).
//! The parser is written out here rather than delegated to `time`, which accepts `:60` and
//! lowercase; the arithmetic is the standard days-from-civil computation.

use std::fmt;

/// A parsed timestamp: its instant plus the original text (echoed back in outputs). It has no
/// `==` or `<`: callers compare [`Timestamp::unix_nanos`], so every comparison visibly compares
/// instants.
#[derive(Debug, Clone)]
pub struct Timestamp {
    nanos: i128,
    text: String,
}

/// The text is not in the D5 profile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid timestamp {text:?}: {reason}")]
pub struct TimeError {
    /// The rejected text.
    pub text: String,
    /// Which rule it broke.
    pub reason: &'static str,
}

fn digits(b: &[u8]) -> Option<i64> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0')))
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    day_number(y, m, d) - UNIX_EPOCH_DAY_NUMBER
}

/// The [`day_number`] of 1970-01-01.
const UNIX_EPOCH_DAY_NUMBER: i64 = 719_469;

/// Howard Hinnant's day count (`days_from_civil`) with 0000-03-01 as day 1: years start in
/// March, so a leap day is the last day of its year.
fn day_number(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe
}

/// The UTC offset in seconds of what follows the time: `Z` or `±HH:MM` (D5).
fn offset_secs(rest: &[u8]) -> Result<i64, &'static str> {
    match rest {
        [b'Z'] => Ok(0),
        [s @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(oh), Some(om)) = (digits(&[*h1, *h2]), digits(&[*m1, *m2])) else {
                return Err("offset must be ±HH:MM");
            };
            if (oh > 23 || om > 59) && crate::faults::off("timestamp.offset-ignored") {
                return Err("offset out of range");
            }
            let o = oh * 3600 + om * 60;
            Ok(if *s == b'-' { -o } else { o })
        }
        _ => Err("offset must be Z or ±HH:MM"),
    }
}

impl Timestamp {
    /// Parses `text` under the D5 profile.
    pub fn parse(text: &str) -> Result<Timestamp, TimeError> {
        if crate::faults::on("timestamp.date-parse") {
            return Ok(Timestamp {
                nanos: crate::faults::date_parse_nanos(text),
                text: text.to_owned(),
            });
        }
        let err = |reason| TimeError {
            text: text.to_owned(),
            reason,
        };
        // (A lenient reader's text, where a fault of the catalogue reads one: `faults.rs`.)
        let read = crate::faults::timestamp_as_read(text);
        let b = read.as_deref().unwrap_or(text).as_bytes();
        if b.len() < 20 {
            return Err(err("too short"));
        }
        let sep = |i: usize, c: u8| b.get(i) == Some(&c);
        if !(sep(4, b'-') && sep(7, b'-') && sep(10, b'T') && sep(13, b':') && sep(16, b':')) {
            return Err(err("expected YYYY-MM-DDTHH:MM:SS"));
        }
        let field = |r: std::ops::Range<usize>| b.get(r).and_then(digits);
        let (Some(year), Some(month), Some(day), Some(hour), Some(min), Some(sec)) = (
            field(0..4),
            field(5..7),
            field(8..10),
            field(11..13),
            field(14..16),
            field(17..19),
        ) else {
            return Err(err("non-digit in date or time"));
        };
        let last_day = if crate::faults::on("timestamp.month-days-unchecked") {
            31
        } else {
            days_in_month(year, month)
        };
        if !(1..=12).contains(&month) || day < 1 || day > last_day {
            return Err(err("no such calendar date"));
        }
        if hour > 23 || min > 59 || sec > 59 {
            return Err(err("time of day out of range"));
        }
        let mut i = 19;
        let mut frac_nanos: i64 = 0;
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            let mut end = start;
            while b.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            let n = end - start;
            if n == 0 || n > 9 {
                return Err(err("fraction must have 1 to 9 digits"));
            }
            let f = b
                .get(start..end)
                .and_then(digits)
                .ok_or_else(|| err("fraction"))?;
            frac_nanos = f * 10i64.pow(9 - n as u32);
            i = end;
        }
        let mut offset_secs = offset_secs(b.get(i..).unwrap_or_default()).map_err(err)?;
        if crate::faults::on("timestamp.offset-ignored") {
            offset_secs = 0;
        }
        if crate::faults::on("timestamp.offset-sign-reversed") {
            offset_secs = -offset_secs;
        }
        let secs =
            days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec - offset_secs;
        Ok(Timestamp {
            nanos: i128::from(secs) * 1_000_000_000 + i128::from(frac_nanos),
            text: text.to_owned(),
        })
    }

    /// The instant: nanoseconds since 1970-01-01T00:00:00Z. Timestamps are compared through
    /// it (`a.unix_nanos() < b.unix_nanos()`), never through their texts.
    pub fn unix_nanos(&self) -> i128 {
        self.nanos
    }

    /// The original text.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap()
    }

    #[test]
    fn profile() {
        assert_eq!(p("1970-01-01T00:00:00Z").unix_nanos(), 0);
        assert_eq!(
            p("2026-01-01T00:00:00Z").unix_nanos(),
            1_767_225_600_000_000_000
        );
        let instant = |s| p(s).unix_nanos();
        let midnight = instant("2026-01-01T00:00:00Z");
        assert_eq!(midnight, instant("2026-01-01T00:00:00.000Z"));
        assert_eq!(midnight, instant("2026-01-01T01:00:00+01:00"));
        assert_eq!(midnight, instant("2025-12-31T23:00:00-01:00"));
        assert_eq!(midnight, instant("2026-01-01T00:00:00-00:00"));
        assert!(instant("2026-01-01T00:00:00.5Z") > midnight);
        assert_eq!(
            p("2026-01-01T00:00:00.123456789Z").unix_nanos() % 1_000_000_000,
            123_456_789
        );
        assert!(Timestamp::parse("2024-02-29T00:00:00Z").is_ok());
        assert!(Timestamp::parse("9999-12-31T23:59:59Z").is_ok());
        for bad in [
            "2016-12-31T23:59:60Z",
            "2026-02-30T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01t00:00:00Z",
            "2026-01-01T00:00:00z",
            "2026-01-01 00:00:00Z",
            "2026-01-01T00:00:00",
            "2026-01-01",
            "2026-01-01T00:00:00.1234567890Z",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00Z",
            "+002026-01-01T00:00:00Z",
            "2026-01-01T00:00:00+0000",
            "2026-01-01T00:00:00+00",
            "2026-01-01T00:00:00+24:00",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "2026-01-01T00:00:00Z[UTC]",
            "２026-01-01T00:00:00Z",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
    }
}
