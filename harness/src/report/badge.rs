//! The shields.io endpoint badge every command that gives a verdict writes (`--format badge`):
//! one vocabulary — `P/N passed`, `, F failing` when any failed or errored, `(N of T run)` when
//! cases were skipped — coloured by the exit status (0 green, 2 yellow, else red).

use serde_json::{json, Value};

/// The label of `run`'s badge.
pub const RUN_LABEL: &str = "DelegateOS conformance";

/// The label of `mcp`'s badge.
pub const MCP_LABEL: &str = "DelegateOS MCP proxy";

/// What a badge counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Passed (acceptable included).
    pub passed: usize,
    /// Failed or errored.
    pub failing: usize,
    /// Skipped (not run).
    pub skipped: usize,
    /// Every case, skipped included.
    pub total: usize,
}

/// The badge's message.
pub fn message(t: Tally) -> String {
    let counted = t.total.saturating_sub(t.skipped);
    let mut message = format!("{}/{counted} passed", t.passed);
    if t.failing > 0 {
        message.push_str(&format!(", {} failing", t.failing));
    }
    // A run that skipped cases says how much of the corpus it covers (issue 38 item 8).
    if t.skipped > 0 {
        message.push_str(&format!(" ({counted} of {} run)", t.total));
    }
    message
}

/// The badge JSON (`https://shields.io/badges/endpoint-badge`) of a verdict: `label`, the
/// message ([`message`], or e.g. `setup error`), the colour of `exit_code`.
pub fn value(label: &str, message: &str, exit_code: i32) -> Value {
    json!({
        "schemaVersion": 1,
        "label": label,
        "message": message,
        "color": match exit_code {
            0 => "brightgreen",
            2 => "yellow",
            _ => "red",
        },
    })
}

/// [`value`] as pretty JSON with a final newline.
pub fn render(label: &str, message: &str, exit_code: i32) -> String {
    let mut s = serde_json::to_string_pretty(&value(label, message, exit_code)).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_counts_what_ran_and_the_colour_follows_the_exit_status() {
        let t = |passed, failing, skipped, total| Tally {
            passed,
            failing,
            skipped,
            total,
        };
        assert_eq!(message(t(3, 0, 0, 3)), "3/3 passed");
        assert_eq!(message(t(1, 3, 0, 4)), "1/4 passed, 3 failing");
        assert_eq!(message(t(2, 0, 8, 10)), "2/2 passed (2 of 10 run)");
        assert_eq!(value("x", "m", 0)["color"], "brightgreen");
        assert_eq!(value("x", "m", 2)["color"], "yellow");
        assert_eq!(value("x", "m", 3)["color"], "red");
    }
}
