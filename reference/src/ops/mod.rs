//! The adapter-protocol operations as pure JSON-in / JSON-out functions.
//!
//! This is the reference's side of `spec/operations.md`: [`run`] takes an operation name and
//! its input object and returns an [`Outcome`] shaped like an adapter reply. It owns input
//! decoding (strict: unknown or mistyped fields are `invalid_input`) and the mapping of each
//! domain's errors onto the stable codes; the algorithms themselves live in the domain
//! modules (`token`, `verify`, `glob`, …). Nothing here reads a clock, a file or randomness,
//! and no input can make it panic.
//!
//! One submodule per area; an operation is registered by adding its name to the area's
//! `OPERATIONS` list and a match arm to the area's `run`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

mod attestation;
mod chain;
mod checks;
mod contract;
mod dct;
mod glob;
mod input;
mod jsonrpc;
mod mcp;
mod mistakes;
mod primitives;
mod profiles;
mod revocation;

// MCP registration point: the decision operations `mcp.filter_tools` and `mcp.call` go in
// `mod mcp;` (reference/src/ops/mcp.rs); add it here, its `OPERATIONS` to `AREAS` and its
// `run` to the chain in [`run`] (each spot is marked "MCP registration point").

/// The result of one operation, serialised exactly as the adapter reply's outcome fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// The operation succeeded with this output object.
    Ok {
        /// The output object (`spec/operations.md`).
        output: Value,
    },
    /// The operation failed with a stable code; `detail` is free text, never compared.
    Error {
        /// The stable error code.
        code: String,
        /// Human-readable explanation.
        detail: String,
    },
    /// The operation is not implemented (an adapter reports this as `skipped`).
    #[serde(rename = "skipped")]
    Unsupported {
        /// Why the operation cannot run.
        reason: String,
    },
}

/// An operation failure before it becomes an [`Outcome::Error`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OpError {
    pub(crate) code: String,
    pub(crate) detail: String,
}

impl OpError {
    pub(crate) fn new(code: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            detail: detail.into(),
        }
    }
}

type OpResult = Result<Value, OpError>;

/// Serializes a reference type into an output value. The types involved serialize infallibly
/// (string keys only); the error arm exists so that nothing here can panic.
pub(crate) fn to_output<T: Serialize>(value: &T) -> OpResult {
    serde_json::to_value(value)
        .map_err(|e| OpError::new("internal_error", format!("cannot serialize output: {e}")))
}

/// Every operation area: its name prefix and operations, in catalogue order.
const AREAS: &[&[&str]] = &[
    primitives::OPERATIONS,
    dct::OPERATIONS,
    glob::OPERATIONS,
    revocation::OPERATIONS,
    contract::OPERATIONS,
    checks::OPERATIONS,
    attestation::OPERATIONS,
    chain::OPERATIONS,
    jsonrpc::OPERATIONS,
    mcp::OPERATIONS,
    profiles::OPERATIONS,
];

/// Every operation the reference supports (the `operations` of the adapter's hello reply).
pub static OPERATIONS: &[&str] = &concat_ops();

const fn total_ops() -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < AREAS.len() {
        n += AREAS[i].len();
        i += 1;
    }
    n
}

const fn concat_ops() -> [&'static str; total_ops()] {
    let mut out = [""; total_ops()];
    let mut n = 0;
    let mut i = 0;
    while i < AREAS.len() {
        let mut j = 0;
        while j < AREAS[i].len() {
            out[n] = AREAS[i][j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Runs operation `op` on `input`.
pub fn run(op: &str, input: &Value) -> Outcome {
    // Each area answers `None` for an operation it does not own.
    let result = primitives::run(op, input)
        .or_else(|| dct::run(op, input))
        .or_else(|| glob::run(op, input))
        .or_else(|| revocation::run(op, input))
        .or_else(|| contract::run(op, input))
        .or_else(|| checks::run(op, input))
        .or_else(|| attestation::run(op, input))
        .or_else(|| chain::run(op, input))
        .or_else(|| jsonrpc::run(op, input))
        .or_else(|| mcp::run(op, input))
        .or_else(|| profiles::run(op, input));
    match result {
        Some(Ok(output)) => Outcome::Ok { output },
        Some(Err(e)) => Outcome::Error {
            code: e.code,
            detail: e.detail,
        },
        None => Outcome::Unsupported {
            reason: format!("operation {op:?} is not supported by the reference"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Map};

    /// Every key any operation reads, so junk reaches past the first presence check.
    const KEYS: &[&str] = &[
        "text",
        "hex",
        "seed",
        "message",
        "publicKey",
        "signature",
        "a",
        "b",
        "issuerSeed",
        "params",
        "token",
        "attenuatorSeed",
        "context",
        "pattern",
        "resource",
        "child",
        "parent",
        "revokerSeed",
        "revocationId",
        "revokedAt",
        "scope",
        "entry",
        "add",
        "query",
        "json",
        "contract",
        "now",
        "rootPublicKey",
        "revocations",
        "name",
        "output",
        "verification",
        "principalSeed",
        "attestation",
        "delegations",
        "leafId",
    ];

    fn junk() -> Vec<Value> {
        vec![
            Value::Null,
            json!(true),
            json!(-1),
            json!(1.5),
            json!(9_007_199_254_740_993u64),
            json!(""),
            json!("zz"),
            json!("00"),
            json!("0".repeat(64)),
            json!([]),
            json!([null, {}, "x"]),
            json!({}),
            json!({"token": "e30", "format": "delegateos-sjt-v1"}),
            json!({"namespace": "a", "action": "b", "resource": "c"}),
        ]
    }

    #[test]
    fn every_operation_survives_junk_input() {
        for op in OPERATIONS {
            for input in junk() {
                let outcome = run(op, &input);
                assert!(!matches!(outcome, Outcome::Unsupported { .. }), "{op}");
            }
            for value in junk() {
                let input: Map<String, Value> = KEYS
                    .iter()
                    .map(|k| ((*k).to_owned(), value.clone()))
                    .collect();
                let _ = run(op, &Value::Object(input));
                for key in KEYS {
                    let _ = run(op, &json!({ *key: value.clone() }));
                }
            }
        }
    }

    #[test]
    fn unknown_operations_are_unsupported_and_lists_are_unique() {
        assert!(matches!(
            run("no.such_op", &json!({})),
            Outcome::Unsupported { .. }
        ));
        let mut names: Vec<&str> = OPERATIONS.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OPERATIONS.len());
    }

    #[test]
    fn unknown_input_fields_are_invalid_input() {
        let outcome = run(
            "glob.match",
            &json!({"pattern": "*", "resource": "x", "extra": 1}),
        );
        assert!(
            matches!(&outcome, Outcome::Error { code, .. } if code == "invalid_input"),
            "{outcome:?}"
        );
    }

    #[test]
    fn outcomes_serialize_as_adapter_replies() {
        let ok = serde_json::to_value(Outcome::Ok {
            output: json!({"a": 1}),
        })
        .ok();
        assert_eq!(ok, Some(json!({"outcome": "ok", "output": {"a": 1}})));
        let skipped = serde_json::to_value(Outcome::Unsupported { reason: "r".into() }).ok();
        assert_eq!(skipped, Some(json!({"outcome": "skipped", "reason": "r"})));
    }
}
