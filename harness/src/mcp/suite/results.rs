//! What a run of the suite yields: each case's status and result, the suite's report, and the
//! requirements a failure at the transport or at shutdown violates whatever the case was about.

use serde::Serialize;

/// The requirement a proxy that writes non-JSON to stdout violates.
pub const STDOUT_CLEAN: &str = "MCP-STDOUT-CLEAN";

/// The requirement a proxy that does not exit, or leaves its upstream running, on client EOF
/// violates.
pub const CLIENT_EOF: &str = "MCP-CLIENT-EOF";

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
    /// The requirements a failure observed violated: the case's own, or `MCP-STDOUT-CLEAN`
    /// when the proxy broke the transport first (graded by those; not in the JSON report).
    #[serde(skip)]
    pub violated: Vec<String>,
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

impl SuiteReport {
    /// Number of cases with `status`.
    pub fn count(&self, status: Status) -> usize {
        self.cases.iter().filter(|c| c.status == status).count()
    }
}
