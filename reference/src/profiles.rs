//! Advisory lint rules: neighbouring delegation systems' invariants (OAP RFC 0004, OpenClaw's
//! delegation invariants, Vorion's delegation chains) and the spec's own recommendations,
//! checked over a decoded token or a delegation chain (`spec/neighbours.md`, requirement
//! section §A).
//!
//! Advisory findings never change a normative verdict: a token that `verify` accepts stays
//! accepted whatever these rules say. Every rule is a pure function of its input (and of the
//! optional `now` the caller passes); nothing here verifies signatures or reads a clock.
//!
//! Counting conventions (see `spec/neighbours.md` §Depth): DelegateOS numbers the root block
//! depth 0; OAP and Vorion number the first delegation hop 1. A DelegateOS block at
//! `chainDepth d` is therefore hop `d + 1` for the neighbours, and `maxChainDepth m` allows
//! `m + 1` hops.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::chain::{Delegation, DelegationStatus};
use crate::timestamp::Timestamp;
use crate::token::{Attenuation, Capability, SignedJsonToken};

/// A finding's severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Likely a mistake or a weaker setting than the neighbour allows.
    Warning,
    /// Worth knowing; common and often intended.
    Info,
}

impl Severity {
    /// `warning` / `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Warning => "warning",
            Self::Info => "info",
        }
    }
}

/// One advisory rule: stable id (a requirement id in `spec/requirements.md` §A), the neighbour
/// whose invariant it restates, the clause, and its severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// `ADV-…` id.
    pub id: &'static str,
    /// `oap`, `openclaw`, `vorion` or `delegateos` (the spec's own recommendations).
    pub neighbour: &'static str,
    /// Clause of the neighbour's document.
    pub clause: &'static str,
    /// Severity.
    pub severity: Severity,
    /// One-line summary.
    pub summary: &'static str,
}

macro_rules! rules {
    ($($name:ident = ($id:literal, $n:literal, $clause:literal, $sev:ident, $summary:literal);)*) => {
        $(
            #[doc = $summary]
            pub const $name: Rule = Rule {
                id: $id, neighbour: $n, clause: $clause, severity: Severity::$sev, summary: $summary,
            };
        )*
        /// Every rule, in report order (findings are always listed in this order).
        pub const RULES: &[Rule] = &[$($name),*];
    };
}

rules! {
    SELF_DELEGATION = ("ADV-VORION-NO-SELF-DELEGATION", "vorion", "Delegation Chains, safety check 1 (no self-delegation)", Warning,
        "A block or delegation whose delegatee is its own signer / delegator.");
    CIRCULAR_DELEGATION = ("ADV-VORION-NO-CIRCULAR-DELEGATION", "vorion", "Delegation Chains, safety check 2 (no circular delegation)", Warning,
        "A principal appears twice in the chain of principals, other than as an immediate self-delegation.");
    VORION_MAX_DEPTH = ("ADV-VORION-MAX-DEPTH", "vorion", "Delegation Chains, safety check 3 (max depth, default 5)", Warning,
        "The chain has more than 5 delegation hops (effective chainDepth + 1 > 5).");
    OAP_DEPTH_CEILING = ("ADV-OAP-DEPTH-CEILING", "oap", "RFC 0004 §3.5 (global ceiling max_delegation_depth = 5)", Warning,
        "The root's maxChainDepth allows more than 5 delegation hops (maxChainDepth + 1 > 5).");
    OAP_SHORT_EXPIRY = ("ADV-OAP-SHORT-EXPIRY", "oap", "RFC 0004 §5 (token theft: maximum 600 s)", Info,
        "The root block lives longer than 600 seconds (expiresAt − issuedAt).");
    OAP_NOOP_ATTENUATION = ("ADV-OAP-NOOP-ATTENUATION", "oap", "RFC 0004 §1, §3.2 (constrained delegation token)", Warning,
        "An attenuation narrows nothing: the delegatee receives its delegator's whole authority.");
    LIFETIME_MAX = ("ADV-DOS-LIFETIME-MAX", "delegateos", "§3.6 (maximum recommended lifetime 24 h)", Warning,
        "The root block lives longer than 24 hours.");
    LIFETIME_DEFAULT = ("ADV-DOS-LIFETIME-DEFAULT", "delegateos", "§3.6 (default lifetime 1 h)", Info,
        "The root block lives longer than the 1 hour default.");
    BORN_EXPIRED = ("ADV-DOS-BORN-EXPIRED", "delegateos", "§3.1, §3.6 (lifecycle CREATE → … → EXPIRE)", Warning,
        "The root block's expiresAt is not after its issuedAt.");
    ISSUED_IN_FUTURE = ("ADV-DOS-ISSUED-IN-FUTURE", "delegateos", "§3.1 (issuedAt), §13.2", Warning,
        "The root block's issuedAt is after the `now` given to the lint.");
    EMPTY_SCOPE = ("ADV-OPENCLAW-EMPTY-SCOPE", "openclaw", "CONFIRM: scope (what is authorized)", Warning,
        "The authority or an attenuation grants an empty capability list.");
    UNBOUNDED_TARGET = ("ADV-OPENCLAW-UNBOUNDED-TARGET", "openclaw", "CONFIRM: scope.targets (resource identifiers)", Info,
        "A root capability's resource is the bare `*`, which matches every resource (D1).");
    RECEIPT_MISSING = ("ADV-OPENCLAW-RECEIPT-MISSING", "openclaw", "RECEIPT (auditable record of what was executed)", Warning,
        "A completed or failed delegation names no attestation.");
    STOP_CHAIN = ("ADV-OPENCLAW-STOP-CHAIN", "openclaw", "STOP / TAKEOVER: stop_scope = chain", Warning,
        "A delegation below a revoked delegation is still active.");
}

/// Neighbour hop ceiling (OAP §3.5 recommendation, Vorion default maxDepth).
pub const NEIGHBOUR_MAX_HOPS: u64 = 5;
/// OAP's recommended maximum delegation-token lifetime, seconds.
pub const OAP_MAX_LIFETIME_SECS: i128 = 600;
/// Spec §3.6 default lifetime, seconds.
pub const DEFAULT_LIFETIME_SECS: i128 = 3600;
/// Spec §3.6 maximum recommended lifetime, seconds.
pub const MAX_LIFETIME_SECS: i128 = 24 * 3600;

/// One finding: the rule plus a human detail (the detail is never compared).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// What triggered it (e.g. which block).
    pub detail: String,
}

impl Finding {
    /// The comparable JSON form `{rule, neighbour, clause, severity}` (no detail).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "rule": self.rule.id,
            "neighbour": self.rule.neighbour,
            "clause": self.rule.clause,
            "severity": self.rule.severity.as_str(),
        })
    }
}

/// Collects findings; at most one per rule (the first detail wins), emitted in [`RULES`] order.
#[derive(Debug, Default)]
struct Findings(Vec<Finding>);

impl Findings {
    fn add(&mut self, rule: Rule, detail: impl Into<String>) {
        if !self.0.iter().any(|f| f.rule.id == rule.id) {
            self.0.push(Finding {
                rule,
                detail: detail.into(),
            });
        }
    }

    fn finish(mut self) -> Vec<Finding> {
        let pos = |f: &Finding| {
            RULES
                .iter()
                .position(|r| r.id == f.rule.id)
                .unwrap_or(usize::MAX)
        };
        self.0.sort_by_key(pos);
        self.0
    }
}

fn nanos_between(from: &str, to: &str) -> Option<i128> {
    let a = Timestamp::parse(from).ok()?;
    let b = Timestamp::parse(to).ok()?;
    Some(b.unix_nanos() - a.unix_nanos())
}

fn same_instant(a: &str, b: &str) -> bool {
    nanos_between(a, b) == Some(0)
}

fn cap_set(caps: &[Capability]) -> BTreeSet<(&str, &str, &str)> {
    caps.iter()
        .map(|c| (c.namespace.as_str(), c.action.as_str(), c.resource.as_str()))
        .collect()
}

/// Principals in hop order with a repeat at distance ≥ 2 (distance 1 is self-delegation).
fn first_cycle(principals: &[&str]) -> Option<String> {
    for (j, p) in principals.iter().enumerate() {
        if principals[..j.saturating_sub(1)].contains(p) {
            return Some(format!("principal {p} appears again at position {j}"));
        }
    }
    None
}

/// Effective values the no-op check compares an attenuation against.
struct Effective<'a> {
    caps: &'a [Capability],
    budget: u64,
    expiry: &'a str,
    remaining: u64,
}

/// An attenuation narrows nothing if every restriction it sets equals the effective value it
/// would narrow (capabilities as a set, budget, expiry instant, and maxChainDepth equal to the
/// implicit `remaining − 1`), or it sets none.
fn is_noop(att: &Attenuation, eff: &Effective<'_>) -> bool {
    let caps_same = att
        .allowed_capabilities
        .as_deref()
        .is_none_or(|c| cap_set(c) == cap_set(eff.caps));
    let budget_same = att.max_budget_microcents.is_none_or(|b| b == eff.budget);
    let expiry_same = att
        .expires_at
        .as_deref()
        .is_none_or(|t| same_instant(t, eff.expiry));
    let depth_same = att
        .max_chain_depth
        .is_none_or(|m| m == eff.remaining.saturating_sub(1));
    caps_same && budget_same && expiry_same && depth_same
}

/// Lints a decoded token (no signature or chain checks: run normative verification for those).
/// `now`, when given, enables [`ISSUED_IN_FUTURE`].
pub fn lint_token(token: &SignedJsonToken, now: Option<&str>) -> Vec<Finding> {
    let mut f = Findings::default();
    lint_token_into(&mut f, token, now);
    f.finish()
}

fn lint_token_into(f: &mut Findings, token: &SignedJsonToken, now: Option<&str>) {
    let a = &token.authority;
    // Principals in hop order: issuer, authority delegatee, each attenuation's delegatee.
    if a.delegatee == a.issuer {
        f.add(SELF_DELEGATION, "authority: delegatee == issuer");
    }
    for (i, att) in token.attenuations.iter().enumerate() {
        if att.delegatee == att.attenuator {
            f.add(
                SELF_DELEGATION,
                format!("attenuation {i}: delegatee == attenuator"),
            );
        }
    }
    let mut principals: Vec<&str> = vec![&a.issuer, &a.delegatee];
    principals.extend(token.attenuations.iter().map(|x| x.delegatee.as_str()));
    if let Some(d) = first_cycle(&principals) {
        f.add(CIRCULAR_DELEGATION, d);
    }
    let depth = a
        .chain_depth
        .saturating_add(token.attenuations.len() as u64);
    if depth.saturating_add(1) > NEIGHBOUR_MAX_HOPS {
        f.add(
            VORION_MAX_DEPTH,
            format!(
                "effective chainDepth {depth} = {} hops",
                depth.saturating_add(1)
            ),
        );
    }
    if a.max_chain_depth.saturating_add(1) > NEIGHBOUR_MAX_HOPS {
        f.add(
            OAP_DEPTH_CEILING,
            format!(
                "authority.maxChainDepth {} allows {} hops",
                a.max_chain_depth,
                a.max_chain_depth.saturating_add(1)
            ),
        );
    }
    if let Some(nanos) = nanos_between(&a.issued_at, &a.expires_at) {
        let secs = nanos.div_euclid(1_000_000_000);
        let over = |limit: i128| nanos > limit * 1_000_000_000;
        if over(OAP_MAX_LIFETIME_SECS) {
            f.add(OAP_SHORT_EXPIRY, format!("lifetime {secs} s"));
        }
        if over(MAX_LIFETIME_SECS) {
            f.add(LIFETIME_MAX, format!("lifetime {secs} s"));
        }
        if over(DEFAULT_LIFETIME_SECS) {
            f.add(LIFETIME_DEFAULT, format!("lifetime {secs} s"));
        }
        if nanos <= 0 {
            f.add(
                BORN_EXPIRED,
                format!("expiresAt is {} s after issuedAt", secs),
            );
        }
    }
    if let Some(now) = now {
        if nanos_between(now, &a.issued_at).is_some_and(|n| n > 0) {
            f.add(ISSUED_IN_FUTURE, "issuedAt is after now");
        }
    }
    // Walk the attenuations with the effective values (unparseable values stop the walk: the
    // token is then malformed and normative verification reports it).
    let mut eff = Effective {
        caps: &a.capabilities,
        budget: a.max_budget_microcents,
        expiry: &a.expires_at,
        remaining: a.max_chain_depth.saturating_sub(a.chain_depth),
    };
    if a.capabilities.is_empty() {
        f.add(EMPTY_SCOPE, "authority.capabilities is empty");
    }
    for (i, att) in token.attenuations.iter().enumerate() {
        if is_noop(att, &eff) {
            f.add(
                OAP_NOOP_ATTENUATION,
                format!("attenuation {i} narrows nothing"),
            );
        }
        if att.allowed_capabilities.as_ref().is_some_and(Vec::is_empty) {
            f.add(
                EMPTY_SCOPE,
                format!("attenuation {i}: allowedCapabilities is empty"),
            );
        }
        if let Some(c) = &att.allowed_capabilities {
            eff.caps = c;
        }
        if let Some(b) = att.max_budget_microcents {
            eff.budget = b;
        }
        if let Some(t) = &att.expires_at {
            eff.expiry = t;
        }
        eff.remaining = att
            .max_chain_depth
            .unwrap_or_else(|| eff.remaining.saturating_sub(1));
    }
    if let Some(c) = a.capabilities.iter().find(|c| c.resource == "*") {
        f.add(
            UNBOUNDED_TARGET,
            format!(
                "authority capability {}:{} has resource `*`",
                c.namespace, c.action
            ),
        );
    }
}

/// Lints a root-first delegation chain (§8.1 objects, already deserialized) and, when given,
/// the decoded DCT of its last delegation (which carries the whole attenuation chain, D26).
pub fn lint_chain(
    delegations: &[Delegation],
    leaf_token: Option<&SignedJsonToken>,
    now: Option<&str>,
) -> Vec<Finding> {
    let mut f = Findings::default();
    for (i, d) in delegations.iter().enumerate() {
        if d.from == d.to {
            f.add(SELF_DELEGATION, format!("delegation {i}: from == to"));
        }
    }
    let mut principals: Vec<&str> = Vec::new();
    if let Some(first) = delegations.first() {
        principals.push(&first.from);
    }
    principals.extend(delegations.iter().map(|d| d.to.as_str()));
    if let Some(d) = first_cycle(&principals) {
        f.add(CIRCULAR_DELEGATION, d);
    }
    if let Some(max) = delegations.iter().map(|d| d.depth).max() {
        if max.saturating_add(1) > NEIGHBOUR_MAX_HOPS {
            f.add(
                VORION_MAX_DEPTH,
                format!("delegation depth {max} = {} hops", max.saturating_add(1)),
            );
        }
    }
    for (i, d) in delegations.iter().enumerate() {
        let done = matches!(
            d.status,
            DelegationStatus::Completed | DelegationStatus::Failed
        );
        if done && d.attestation_id.is_none() {
            f.add(
                RECEIPT_MISSING,
                format!("delegation {i} is {:?} without attestationId", d.status),
            );
        }
    }
    if let Some(r) = delegations
        .iter()
        .position(|d| d.status == DelegationStatus::Revoked)
    {
        if let Some(j) = delegations[r + 1..]
            .iter()
            .position(|d| d.status == DelegationStatus::Active)
        {
            f.add(
                STOP_CHAIN,
                format!(
                    "delegation {} is active below revoked delegation {r}",
                    r + 1 + j
                ),
            );
        }
    }
    if let Some(t) = leaf_token {
        lint_token_into(&mut f, t, now);
    }
    f.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_and_advisory() {
        let ids: BTreeSet<&str> = RULES.iter().map(|r| r.id).collect();
        assert_eq!(ids.len(), RULES.len());
        assert!(RULES.iter().all(|r| r.id.starts_with("ADV-")));
    }

    #[test]
    fn cycles_skip_immediate_repeats() {
        assert!(first_cycle(&["a", "a"]).is_none());
        assert!(first_cycle(&["a", "b", "c"]).is_none());
        assert!(first_cycle(&["a", "b", "a"]).is_some());
        assert!(first_cycle(&["a", "b", "c", "b"]).is_some());
    }
}
