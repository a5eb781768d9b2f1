//! What a run of the suite yields: each case's status and result, the suite's report, and the
//! requirements a failure at the transport or at shutdown violates whatever the case was about.

use serde::Serialize;

/// The requirement a proxy that writes non-JSON to stdout violates.
pub const STDOUT_CLEAN: &str = "MCP-STDOUT-CLEAN";

/// The requirement a proxy that does not exit, or leaves its upstream running, on client EOF
/// violates.
pub const CLIENT_EOF: &str = "MCP-CLIENT-EOF";

/// One violation a case observed and went on past (`Session::observe`): a case reports every
/// such violation it sees, so one bug does not hide another that the same case would show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Observation {
    /// What was violated, stable across runs: `stdout-clean` (a non-JSON stdout line,
    /// MCP-STDOUT-CLEAN), `client-eof` (no exit, or an orphaned upstream, after client EOF:
    /// MCP-CLIENT-EOF), and of a call that must be denied: `answered` (the client got a result
    /// for it), `no-denial` (no denial came), `denial-id` (the denial carries another id),
    /// `denial-form` (wrong code, message or `data.type`), `denial-data` (the denial's other
    /// `data` members: `requested`, `limit`, `spent`, …), `forwarded` (it reached the
    /// upstream); `notification-answered` (a denied notification got an answer);
    /// `duplicate-accepted` and `not-stripped` (`mcp-escaped-member-names`: a `\u`-spelled
    /// duplicate member not refused, a `\u`-spelled `_delegateos` or the token forwarded).
    pub tag: String,
    /// What was seen.
    pub message: String,
}

impl Observation {
    /// The requirements an observation with `tag` violates: its own for the transport and the
    /// shutdown, else the case's.
    pub fn requirements<'a>(tag: &str, case: &'a [String]) -> std::borrow::Cow<'a, [String]> {
        match tag {
            "stdout-clean" => vec![STDOUT_CLEAN.to_owned()].into(),
            "client-eof" => vec![CLIENT_EOF.to_owned()].into(),
            _ => case.into(),
        }
    }
}

/// Outcome of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The proxy behaved as specified.
    Passed,
    /// The proxy violated a requirement.
    Failed,
    /// Not run (with a reason).
    Skipped,
    /// The case could not be judged (deadline, harness trouble).
    Errored,
}

/// One case's result (JSON: camelCase, `spec/schemas/mcp-report.schema.json`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseResult {
    /// Stable case id.
    pub id: String,
    /// What the case checks.
    pub description: String,
    /// Requirement ids.
    pub requirements: Vec<String>,
    /// Outcome.
    pub status: Status,
    /// Every violation the case observed and went on past, in the order seen (one per tag).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub observed: Vec<Observation>,
    /// Whether the case ended at a failure of its own (`message`), besides what it `observed`.
    #[serde(skip)]
    pub stopped: bool,
    /// Why it failed, errored or was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Proxy stderr tail for failures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// Wall time.
    pub duration_ms: f64,
}

/// The suite's result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteReport {
    /// The proxy command template.
    pub proxy: String,
    /// Results in suite order.
    pub cases: Vec<CaseResult>,
    /// Total wall time.
    pub duration_ms: f64,
}

impl CaseResult {
    /// The failures this case shows, each a key with the requirements it violates: one per
    /// observed violation (`case#tag`), and the case id itself when the case stopped at a
    /// failure of its own or could not be judged. A proxy fault's fingerprint over the suite
    /// holds such keys (`spec/data/mcp-fingerprints.json`), so one case can witness several
    /// faults.
    pub fn failure_keys(&self) -> Vec<(String, std::borrow::Cow<'_, [String]>)> {
        if !matches!(self.status, Status::Failed | Status::Errored) {
            return Vec::new();
        }
        let mut keys: Vec<(String, std::borrow::Cow<'_, [String]>)> = self
            .observed
            .iter()
            .map(|o| {
                (
                    delegateos_vectors::faults::suite_key(&self.id, &o.tag),
                    Observation::requirements(&o.tag, &self.requirements),
                )
            })
            .collect();
        if self.stopped || self.status == Status::Errored {
            keys.push((self.id.clone(), self.requirements.as_slice().into()));
        }
        keys
    }
}

impl SuiteReport {
    /// Number of cases with `status`.
    pub fn count(&self, status: Status) -> usize {
        self.cases.iter().filter(|c| c.status == status).count()
    }
}
