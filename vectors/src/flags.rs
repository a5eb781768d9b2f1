//! Every flag a case may carry, with its note (copied into each file's `notes`).
//!
//! A flag names *why* a case exists or why it is `acceptable`: the decision it pins, or the
//! class of bug it catches. An area that needs a flag adds a row here (one line of the
//! table) or, for a flag used by one group only, calls `Group::define_flag`.

use crate::format::{Level, Note, Severity};

/// `spec/decisions.md`, embedded (its prose: the decisions the cases cite).
pub const DECISIONS: &str = include_str!("../spec/decisions.md");

/// `spec/data/flags.json`, embedded: the single source of every flag's level and severity
/// (read by [`index`]; the "Flag index" table of `spec/decisions.md` is generated from it, and
/// nothing here repeats those columns).
pub const INDEX_DATA: &str = include_str!("../spec/data/flags.json");

/// One row of the "Flag index" table of `spec/decisions.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexRow {
    /// Flag name.
    pub flag: String,
    /// Decision (`D3`), clause (`§10.2`) or `neighbours`.
    pub decision: String,
    /// Level of a case carrying the flag (unless the audit overrides the case).
    pub level: Level,
    /// Severity of a failure on such a case.
    pub severity: Severity,
    /// Why.
    pub reason: String,
}

/// One entry of `flags` in `spec/data/flags.json` (schema: `spec/data/README.md`).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RowData {
    flag: String,
    decision: String,
    level: String,
    severity: String,
    reason: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexFile {
    #[serde(rename = "$comment")]
    _comment: Option<String>,
    flags: Vec<RowData>,
}

/// Reads a `flags.json` text. Rows that do not read (a bad level or severity) and a file that
/// does not parse are returned as errors, one line each, so a typo cannot go unnoticed.
pub fn index_from_json(text: &str) -> (Vec<IndexRow>, Vec<String>) {
    let file: IndexFile = match serde_json::from_str(text) {
        Ok(f) => f,
        Err(e) => return (Vec::new(), vec![format!("flags.json: {e}")]),
    };
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    for r in file.flags {
        match (Level::parse(&r.level), Severity::parse(&r.severity)) {
            (Some(level), Some(severity)) => rows.push(IndexRow {
                flag: r.flag,
                decision: r.decision,
                level,
                severity,
                reason: r.reason,
            }),
            _ => errors.push(format!(
                "flag index row {:?}: bad level or severity",
                r.flag
            )),
        }
    }
    (rows, errors)
}

/// The "Flag index" table of `spec/decisions.md` as Markdown.
pub fn index_markdown(rows: &[IndexRow]) -> String {
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.flag.clone(),
                r.decision.clone(),
                r.level.as_str().to_owned(),
                r.severity.as_str().to_owned(),
                r.reason.clone(),
            ]
        })
        .collect();
    crate::spec_tables::table(&["flag", "decision", "level", "severity", "reason"], &rows)
}

/// The flag index of the embedded `spec/data/flags.json` (read once).
pub fn index() -> &'static [IndexRow] {
    static INDEX: std::sync::OnceLock<Vec<IndexRow>> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| index_from_json(INDEX_DATA).0)
}

/// The index row of `flag`, if the table lists it.
pub fn index_row(flag: &str) -> Option<IndexRow> {
    index().iter().find(|r| r.flag == flag).cloned()
}

/// `(flag, bugType, clause, description, effect)`.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

#[rustfmt::skip]
const FLAGS: &[Row] = &[
    ("SpecExample", "FUNCTIONALITY", "§10.2",
     "An example given verbatim in the specification text.",
     "The implementation contradicts the specification's own example."),
    ("ScopeWidening", "SCOPE_WIDENING", "§10.2, D3",
     "A child capability that matches resources its parent does not; a subset check must reject it.",
     "A delegatee can mint an attenuation that grants more than it was given."),
    ("GlobBareStar", "AMBIGUITY", "D1",
     "The pattern that is exactly `*` matches every resource, including ones containing `/` and the empty string.",
     "A bare-`*` capability grants less (or, in subset checks, more) than the issuer intended."),
    ("GlobEmptySegment", "AMBIGUITY", "D1",
     "A `*` segment does not match an empty segment (`/a/*` vs `/a/`); the other reading is acceptable.",
     "Resources with empty segments are granted by one-segment wildcards."),
    ("GlobPartialWildcard", "AMBIGUITY", "D1",
     "A segment with `*` plus other characters (`*.md`) is literal text in v0.1; a partial-wildcard reading is acceptable for matching, never for subset.",
     "A partial-wildcard matcher grants resources the reference does not."),
    ("GlobLiteralMeta", "EDGE_CASE", "D1",
     "`?`, `[...]`, `{a,b}` and `\\` are literal characters, not glob syntax.",
     "A pattern grants resources it does not name."),
    ("GlobDoubleStarZero", "AMBIGUITY", "D2",
     "`/a/**` matches `/a` (zero segments); matchers such as globset's do not, which is acceptable.",
     "A capability on a directory's subtree does or does not include the directory itself."),
    ("GlobHostile", "DENIAL_OF_SERVICE", "D2",
     "A pattern and resource built to make backtracking matchers take exponential time.",
     "A verifier hangs on an attacker-chosen capability."),
    ("SubsetConservative", "AMBIGUITY", "D3",
     "A sound narrowing that a strictly-prefix subset check may reject (parent `/p/*`, child `/p/x`); rejecting is acceptable.",
     "Legitimate attenuations are refused."),
    ("DepthSemantics", "AMBIGUITY", "D4",
     "Chain-depth arithmetic: maxChainDepth as an absolute maximum at the authority and as further attenuations allowed after an attenuation.",
     "Chains are allowed deeper, or cut shorter, than the issuer intended."),
    ("ExpiryBoundary", "EDGE_CASE", "D5",
     "`now` equal to the effective expiry is not expired (the spec's `>` is strict).",
     "Tokens live one instant too long or too short."),
    ("TimestampOffset", "AMBIGUITY", "D5",
     "Timestamps with a numeric UTC offset compare as instants; rejecting offsets is acceptable.",
     "Expiry is computed on the wrong instant."),
    ("TimestampFraction", "EDGE_CASE", "D5",
     "Fractional seconds compare as instants, not as strings.",
     "Expiry is computed on the wrong instant."),
    ("RevocationWrongRevoker", "AUTH_BYPASS", "D6",
     "A revocation entry signed by someone other than the revoked block's signer must not revoke.",
     "Anyone who has seen a token can revoke it."),
    ("RevocationScope", "EDGE_CASE", "D6",
     "`block` and `chain` revocation scopes.",
     "A revoked token keeps working, or an unrelated one stops."),
    ("Precedence", "EDGE_CASE", "D7",
     "Several faults at once: the first failing step of §10.1 determines the reported denial.",
     "Denial reasons depend on the implementation, so callers cannot rely on them."),
    ("SignatureStructure", "AUTH_BYPASS", "D8",
     "The structure of `signatures[]`: count, `covers`, `signer`; a `malformed_token` answer is acceptable.",
     "Signatures are checked against the wrong block or the wrong key."),
    ("NonCanonicalToken", "MALLEABILITY", "D9",
     "A token whose decoded JSON is not its RFC 8785 form; accepting it is acceptable.",
     "Two encodings of one token get different revocation ids or signatures."),
    ("MalformedExpiryBypass", "AUTH_BYPASS", "§3, §10.1 steps 1 and 5, D23",
     "A malformed expiry (wrong type, null, not a profile timestamp) in a token presented after every expiry; the answer is malformed_token.",
     "Accepting the malformed field lifts the expiry: an expired delegation still authorizes."),
    ("MalformedBudgetBypass", "AUTH_BYPASS", "§3, §10.1 steps 1 and 6, D23",
     "A malformed budget (string, null, boolean, negative, fraction, above 2^53-1) in a token presented with spend far above every budget; the answer is malformed_token.",
     "Accepting the malformed field lifts the budget: unlimited spend."),
    ("MalformedDepthBypass", "AUTH_BYPASS", "§3, §10.1 steps 1 and 4e, D4, D23",
     "A malformed maxChainDepth in a token deeper than its valid limits allow; the answer is malformed_token.",
     "Accepting the malformed field lifts the depth limit: re-delegation beyond what the issuer allowed."),
    ("MalformedScopeBypass", "AUTH_BYPASS", "§3, §10.1 steps 1 and 7, D23",
     "A malformed capability or capability list in a token presented for a resource outside the root's scope; the answer is malformed_token.",
     "Accepting the malformed field widens the scope: a resource nobody granted is authorized."),
    ("UnknownField", "MALLEABILITY", "D9",
     "A token with a field the format does not define; accepting it is acceptable.",
     "Unsigned or ignored data rides along in a token."),
    ("IdFormat", "EDGE_CASE", "D9",
     "Identifier formats (`ct_`/`del_`/`att_` + 12 lowercase hex); accepting others is acceptable.",
     "Identifiers collide or fail to round-trip."),
    ("Ed25519Cofactored", "AMBIGUITY", "D10",
     "A signature that RFC 8032 lets a cofactored verifier accept; the strict profile rejects it.",
     "Verifiers disagree on which signatures are valid."),
    ("BindingContractId", "AMBIGUITY", "D11",
     "Contract binding uses the last contractId in the chain.",
     "A token is bound to a contract it was not attenuated for."),
    ("RegexDialect", "EDGE_CASE", "D12",
     "ECMAScript regular-expression semantics in `regex_match`.",
     "Checks pass or fail differently from the JavaScript reference."),
    ("RegexUnsupported", "AMBIGUITY", "D12",
     "Backreferences and lookaround are refused by a linear-time engine; evaluating them is acceptable.",
     "A hostile pattern hangs the verifier."),
    ("SchemaStrict", "AMBIGUITY", "D12",
     "JSON Schema strict mode: unknown keywords or formats make the schema invalid.",
     "Typos in schemas silently accept everything."),
    ("Utf16Length", "EDGE_CASE", "D12",
     "`string_length` counts UTF-16 code units, as JavaScript `.length` does.",
     "Length limits differ for non-BMP text."),
    ("AttenuationStripping", "PROTOCOL_LIMITATION", "D14",
     "Dropping trailing attenuations yields a token with the parent's wider scope; advisory.",
     "A holder can regain the scope its delegator had."),
    ("McpStrictMode", "AMBIGUITY", "D15",
     "`tools/call` without `_delegateos`: passed through in spec mode, denied in strict mode.",
     "Unauthenticated calls reach the upstream server."),
    ("ExpectedResultDetails", "AMBIGUITY", "D28",
     "§10.3 compares `deepEqual(result, expectedResult)`, which includes `details`; D28 compares `passed` and `score` only. Both readings are acceptable.",
     "An expected result with details passes or fails depending on the reading."),
    ("SchemaDialect", "AMBIGUITY", "D29",
     "§6.2 names ajv: ajv 8's answers (`$ref` siblings applied, float `multipleOf` by division) are acceptable next to strict draft-07's.",
     "A schema check passes under one validator and fails under another."),
    ("OutputHashEncoding", "AMBIGUITY", "D13",
     "Architecture §5.1 gives BLAKE2b-256 of the output but no text encoding; lowercase hex is acceptable next to our base64url.",
     "Output hashes computed by two implementations do not compare equal."),
    ("RevocationListAtomic", "AMBIGUITY", "D6",
     "`fromJSON` with a bad entry: refusing the whole list is ours; skipping entries that could never revoke is acceptable.",
     "A corrupted revocation list loads differently in two implementations."),
    ("ChainAttenuationCount", "AMBIGUITY", "D26",
     "§8.2/5 \"attenuated from parent\": exactly one attenuation per hop (ours) or at least one (acceptable).",
     "A chain record skipping a hop is accepted by one verifier and refused by another."),
    // Shared copy of the dct group's local definition, for the contract.bind cases (audit §12).
    ("EmptyCapabilities", "AMBIGUITY", "D18",
     "An empty capability list is a valid token that grants nothing; `allowedCapabilities: []` restricts to nothing (never \"inherit\"). Reporting an empty authority list as malformed_token is acceptable.",
     "An intended total restriction becomes a total grant, or valid tokens are refused."),
    ("CheckScore", "AMBIGUITY", "D28",
     "§6.2 defines a score only for `regex_match` and `json_schema`; `CheckResult.score` is optional, so the other checks may omit it (D28 returns 1/0; both acceptable).",
     "A check result without a score is reported as a wrong output."),
    ("McpListFilter", "AMBIGUITY", "D32",
     "§11.3 step 4 \"filter to only tools matching DCT capabilities\": a tool whose resource comes from its arguments is listed by namespace and action (ours) or hidden when the capability exists only for other resources (acceptable).",
     "Two proxies list different tools for the same session token."),
    ("McpBinding", "AUTH_BYPASS", "D17",
     "`_delegateos` fields must agree with the token; spend is keyed by the token's delegation id.",
     "Spend is recorded against the wrong delegation."),
];

/// The note of a known flag (its level and severity from the flag index; `None` if the flag
/// is unknown or the index does not list it).
pub fn note(flag: &str) -> Option<Note> {
    let row = index_row(flag)?;
    FLAGS
        .iter()
        .find(|r| r.0 == flag)
        .map(|&(_, bug_type, clause, description, effect)| Note {
            bug_type: bug_type.to_owned(),
            description: description.to_owned(),
            clause: clause.to_owned(),
            effect: effect.to_owned(),
            level: row.level,
            severity: row.severity,
        })
}

/// Every known flag name.
pub fn names() -> impl Iterator<Item = &'static str> {
    FLAGS.iter().map(|row| row.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_tables_decisions_md_flag_index_is_generated_from_the_data() {
        let (rows, errors) = index_from_json(INDEX_DATA);
        assert!(errors.is_empty(), "{errors:?}");
        let r =
            crate::spec_tables::in_step("decisions.md", "flags.json#index", &index_markdown(&rows));
        if let Err(e) = r {
            panic!("{e}");
        }
        let bad = INDEX_DATA.replacen("\"critical\"", "\"fatal\"", 1);
        assert_eq!(
            index_from_json(&bad).1.len(),
            1,
            "a bad severity is reported"
        );
        assert!(!index_from_json("{\"flags\": [{}]}").1.is_empty());
    }

    #[test]
    fn the_flag_index_parses_and_lists_every_shared_flag() {
        let (rows, errors) = index_from_json(INDEX_DATA);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(rows.len() >= FLAGS.len());
        for name in names() {
            assert!(
                rows.iter().any(|r| r.flag == name),
                "flag {name} has no row in spec/decisions.md's Flag index"
            );
            assert!(note(name).is_some(), "{name}");
        }
        let mut seen = std::collections::BTreeSet::new();
        for r in &rows {
            assert!(seen.insert(r.flag.as_str()), "flag {} listed twice", r.flag);
        }
    }

    #[test]
    fn index_cells_are_read_as_written() {
        let row = index_row("ScopeWidening").expect("row");
        assert_eq!(
            (row.level, row.severity),
            (Level::Normative, Severity::Critical)
        );
        let row = index_row("GlobHostile").expect("row");
        assert_eq!(
            (row.level, row.severity),
            (Level::Hardening, Severity::Critical)
        );
    }
}
