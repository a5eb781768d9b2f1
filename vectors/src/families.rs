//! Code families of `spec/error-codes.md` §11 (embedded and parsed: the tables there are the
//! single source). Where the spec defines no distinct codes, an `invalid` expectation naming
//! one code of a family is met by another code of the same family: the judge reports it as
//! "rejected with another code" (hardening level, low severity), never as a wrong verdict.

/// `spec/error-codes.md`, embedded at build time.
pub const EMBEDDED: &str = include_str!("../spec/error-codes.md");

/// One family with its scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Family {
    /// Family name (`revocation-entry`, `chain`, …).
    pub name: String,
    /// Its codes.
    pub codes: Vec<String>,
    /// Operations it applies to.
    pub ops: Vec<String>,
    /// Stages it applies to (empty: any); `8.2/*` matches every `8.2/…` stage.
    pub stages: Vec<String>,
    /// A flag the case must carry (`only on \`Flag\` cases`), if any.
    pub only_flag: Option<String>,
}

fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn cells(line: &str) -> Vec<&str> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(str::trim)
        .collect()
}

fn is_stage(token: &str) -> bool {
    token.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// Parses the two tables of §11 of an `error-codes.md` text.
pub fn parse(text: &str) -> Vec<Family> {
    let mut in_section = false;
    let mut families: Vec<Family> = Vec::new();
    for line in text.lines() {
        if line.starts_with("## ") {
            in_section = line.starts_with("## 11.");
            continue;
        }
        if !in_section || !line.starts_with('|') {
            continue;
        }
        let c = cells(line);
        let (Some(name), Some(second)) = (c.first(), c.get(1)) else {
            continue;
        };
        if *name == "family" || name.starts_with("---") {
            continue;
        }
        if let Some(f) = families.iter_mut().find(|f| f.name == *name) {
            // Scope table: `| family | ops | stages |`.
            f.ops = second
                .split(',')
                .filter_map(|s| s.split_whitespace().next())
                .map(|s| s.trim_matches('`').to_owned())
                .filter(|s| s.contains('.'))
                .collect();
            let stages = c.get(2).copied().unwrap_or("");
            f.stages = stages
                .split([',', ' '])
                .map(|s| s.trim().trim_matches('`'))
                .filter(|s| is_stage(s))
                .map(str::to_owned)
                .collect();
            f.only_flag = stages
                .split("only on")
                .nth(1)
                .and_then(|rest| backticked(rest).into_iter().next());
        } else {
            // Family table: `| family | codes | spec basis |`.
            families.push(Family {
                name: (*name).to_owned(),
                codes: second
                    .split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect(),
                ops: Vec::new(),
                stages: Vec::new(),
                only_flag: None,
            });
        }
    }
    families
}

/// The families of the embedded `spec/error-codes.md` (parsed once).
pub fn all() -> &'static [Family] {
    static ALL: std::sync::OnceLock<Vec<Family>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| parse(EMBEDDED))
}

fn stage_matches(pattern: &str, stage: &str) -> bool {
    match pattern.strip_suffix("/*") {
        Some(prefix) => stage == prefix || stage.starts_with(&format!("{prefix}/")),
        None => stage == pattern,
    }
}

impl Family {
    /// True if this family makes `actual` an acceptable substitute for `expected` in a case
    /// of `op` at `stage` carrying `flags`.
    pub fn covers(
        &self,
        op: &str,
        stage: Option<&str>,
        flags: &[String],
        expected: &str,
        actual: &str,
    ) -> bool {
        let has = |c: &str| self.codes.iter().any(|x| x == c);
        let stage_ok = self.stages.is_empty()
            || stage.is_some_and(|s| self.stages.iter().any(|p| stage_matches(p, s)));
        let flag_ok = self
            .only_flag
            .as_ref()
            .is_none_or(|f| flags.iter().any(|x| x == f));
        expected != actual
            && has(expected)
            && has(actual)
            && self.ops.iter().any(|o| o == op)
            && stage_ok
            && flag_ok
    }
}

/// The family (if any) under which `actual` substitutes for `expected`.
pub fn family_for(
    op: &str,
    stage: Option<&str>,
    flags: &[String],
    expected: &str,
    actual: &str,
) -> Option<&'static Family> {
    all()
        .iter()
        .find(|f| f.covers(op, stage, flags, expected, actual))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_11_tables_parse_with_scopes() {
        let fams = all();
        let names: Vec<&str> = fams.iter().map(|f| f.name.as_str()).collect();
        for n in [
            "revocation-entry",
            "chain",
            "depth",
            "signature-structure",
            "binding",
            "attestation",
            "contract",
            "output-verification",
            "json-text",
            "jsonrpc",
        ] {
            assert!(names.contains(&n), "{n} missing: {names:?}");
        }
        for f in fams {
            assert!(!f.codes.is_empty(), "{}: no codes", f.name);
            assert!(!f.ops.is_empty(), "{}: no ops (scope table row)", f.name);
        }
        let chain = fams.iter().find(|f| f.name == "chain").expect("chain");
        assert!(chain.covers(
            "chain.verify",
            Some("8.2/3"),
            &[],
            "from_mismatch",
            "root_invalid"
        ));
        assert!(!chain.covers(
            "dct.verify",
            Some("8.2/3"),
            &[],
            "from_mismatch",
            "root_invalid"
        ));
        let sig = fams
            .iter()
            .find(|f| f.name == "signature-structure")
            .expect("sig");
        assert_eq!(sig.only_flag.as_deref(), Some("SignatureStructure"));
        let depth = fams.iter().find(|f| f.name == "depth").expect("depth");
        assert!(depth.covers(
            "dct.verify",
            Some("10.1/4e"),
            &[],
            "chain_depth_exceeded",
            "attenuation_violation"
        ));
        assert!(!depth.covers(
            "dct.verify",
            Some("10.1/4b"),
            &[],
            "attenuation_violation",
            "chain_depth_exceeded"
        ));
        assert!(family_for("dct.verify", Some("10.1/2"), &[], "revoked", "expired").is_none());
    }
}
