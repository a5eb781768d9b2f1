//! JSON Schema draft-07 validation with an ajv-strict-like meta-check (§6.2 `json_schema`,
//! §10.3 `schema_match`, D12).
//!
//! This module owns the decision "is this a schema we accept" and the validation verdict; it
//! does not promise ajv's error texts (vectors assert verdicts only).
//!
//! A schema is `invalid_schema` when:
//! - it is neither an object nor a boolean, or fails the draft-07 meta-schema;
//! - `$schema` is present and is not the draft-07 URI (`http://json-schema.org/draft-07/schema`
//!   with or without the trailing `#`);
//! - any schema object, at any depth reachable through schema-valued keywords, has a keyword
//!   outside the draft-07 vocabulary (ajv `strictSchema`). Known: the draft-07 validation and
//!   annotation keywords plus ajv's core extras `$defs`, `$vocabulary`, `$comment`;
//! - it has a `format` keyword at all (D29: ajv strict without a format plugin knows no
//!   format);
//! - a `$ref` cannot be resolved locally (nothing is fetched), or a `pattern` cannot be
//!   compiled by the linear-time engine (lookaround and backreferences are refused).
//!
//! Not enforced (divergences from ajv strict, flag `SchemaStrict`): `strictTypes` (e.g.
//! `properties` without `type: "object"`), `strictTuples`, `strictRequired`. Known verdict
//! differences with ajv (research §6): `$ref` siblings are ignored as draft-07 says, and
//! `multipleOf` uses exact decimal arithmetic where ajv uses float division.
//!
//! Formats are asserted. Schema objects nested deeper than [`MAX_SCHEMA_DEPTH`] are
//! `limit_exceeded`.

use serde_json::Value;

use super::{CheckError, CheckResult};

/// Deepest schema nesting walked by the meta-check.
pub const MAX_SCHEMA_DEPTH: usize = 64;

const DRAFT7_URIS: &[&str] = &[
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
];

/// Keywords whose value is a schema.
const SCHEMA_KEYWORDS: &[&str] = &[
    "additionalItems",
    "additionalProperties",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "not",
];
/// Keywords whose value is a schema or an array of schemas.
const SCHEMA_OR_ARRAY_KEYWORDS: &[&str] = &["items"];
/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf"];
/// Keywords whose value is an object mapping names to schemas.
const SCHEMA_MAP_KEYWORDS: &[&str] = &["properties", "patternProperties", "definitions", "$defs"];
/// Keywords whose value is not a schema.
const PLAIN_KEYWORDS: &[&str] = &[
    "$id",
    "$schema",
    "$ref",
    "$comment",
    "$vocabulary",
    "title",
    "description",
    "default",
    "readOnly",
    "writeOnly",
    "examples",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxProperties",
    "minProperties",
    "required",
    "format",
    "contentMediaType",
    "contentEncoding",
];

/// Checks the strict-mode rules of the module doc (not the meta-schema).
pub fn strict_check(schema: &Value) -> Result<(), CheckError> {
    if let Some(uri) = schema.get("$schema") {
        if !uri.as_str().is_some_and(|u| DRAFT7_URIS.contains(&u)) {
            return Err(CheckError::InvalidSchema(format!(
                "$schema {uri} is not draft-07"
            )));
        }
    }
    walk(schema, "#", 0)
}

fn walk(schema: &Value, path: &str, depth: usize) -> Result<(), CheckError> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(CheckError::LimitExceeded(format!(
            "schema nested deeper than {MAX_SCHEMA_DEPTH} at {path}"
        )));
    }
    let obj = match schema {
        Value::Bool(_) => return Ok(()),
        Value::Object(o) => o,
        _ => {
            return Err(CheckError::InvalidSchema(format!(
                "{path}: a schema must be an object or a boolean"
            )))
        }
    };
    for (k, v) in obj {
        let here = format!("{path}/{k}");
        let key = k.as_str();
        if SCHEMA_KEYWORDS.contains(&key) {
            walk(v, &here, depth + 1)?;
        } else if SCHEMA_OR_ARRAY_KEYWORDS.contains(&key) || SCHEMA_ARRAY_KEYWORDS.contains(&key) {
            match v {
                Value::Array(items) => {
                    for (i, s) in items.iter().enumerate() {
                        walk(s, &format!("{here}/{i}"), depth + 1)?;
                    }
                }
                _ if SCHEMA_OR_ARRAY_KEYWORDS.contains(&key) => walk(v, &here, depth + 1)?,
                _ => {
                    return Err(CheckError::InvalidSchema(format!(
                        "{here}: must be an array"
                    )))
                }
            }
        } else if SCHEMA_MAP_KEYWORDS.contains(&key) {
            let Value::Object(m) = v else {
                return Err(CheckError::InvalidSchema(format!(
                    "{here}: must be an object"
                )));
            };
            for (name, s) in m {
                walk(s, &format!("{here}/{name}"), depth + 1)?;
            }
        } else if key == "dependencies" {
            let Value::Object(m) = v else {
                return Err(CheckError::InvalidSchema(format!(
                    "{here}: must be an object"
                )));
            };
            for (name, s) in m {
                if !s.is_array() {
                    walk(s, &format!("{here}/{name}"), depth + 1)?;
                }
            }
        } else if key == "format" {
            // D29: strict ajv without a format plugin knows no format at all.
            return Err(CheckError::InvalidSchema(format!(
                "{here}: format {v} is not supported (D29)"
            )));
        } else if !PLAIN_KEYWORDS.contains(&key) {
            return Err(CheckError::InvalidSchema(format!(
                "{path}: unknown keyword '{k}'"
            )));
        }
    }
    Ok(())
}

/// Compiles `schema` (after [`strict_check`]) as a draft-07 validator.
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, CheckError> {
    strict_check(schema)?;
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .should_validate_formats(true)
        .should_ignore_unknown_formats(false)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .map_err(|e| CheckError::InvalidSchema(e.to_string()))
}

/// Validates `instance` against `schema`: score 1.0/0.0, details listing errors on failure.
pub fn validate(schema: &Value, instance: &Value) -> Result<CheckResult, CheckError> {
    // (Stateful faults of the catalogue: a schema kept by `$id` from an earlier check.)
    let kept = crate::faults::schema_by_id(schema)
        .transpose()
        .map_err(CheckError::InvalidSchema)?;
    let validator = compile(kept.as_ref().unwrap_or(schema))?;
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .take(32)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!("{}: {e}", if at.is_empty() { "/" } else { at.as_str() })
        })
        .collect();
    Ok(CheckResult::from_bool(errors.is_empty(), || {
        errors.join("; ")
    }))
}
