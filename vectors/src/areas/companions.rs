//! Area `companions`: the catalogue-only case classes again, through an operation a
//! spec-shaped library exposes (issue 19).
//!
//! `timestamp.compare` and `capability.subset` are catalogue operations: many libraries have no
//! such function and compare instants or capabilities only inside `verifyDCT` (architecture
//! §2). Each case of those two classes gets a companion here, numbered like its source case,
//! that asks the same question through `dct.verify` — so an implementation that skips the
//! catalogue operation is still judged on the behaviour:
//!
//! - `timestamp` / `timestamp-redteam` (from `primitives-timestamp[-redteam]-NNNN`, input
//!   `{a, b}`): a root token whose `authority.expiresAt` is `a`, verified at `now = b`.
//!   Comparison order `o` → `o ≥ 0` grants the request (`DCT-VERIFY-5-BOUNDARY` when equal),
//!   `o = −1` is `expired` at step 5; a comparison refused as `invalid_timestamp` (one operand
//!   is outside the profile, D5) → `malformed_token` at step 1, whichever operand it is (a
//!   malformed token field and a malformed `now` are both step-1 failures,
//!   `DCT-VERIFY-1-MALFORMED`).
//! - `subset` / `subset-redteam` (from `glob-subset-NNNN` and the `capability.subset` cases of
//!   `glob-redteam-NNNN`, input `{parent, child}`): a root token granting `[parent]`, attenuated
//!   by its delegatee to `[child]`, verified for a request the child grants (a concrete
//!   resource written from the child's pattern). `subset: true` → granted with the child as
//!   the effective scope; `false` → `attenuation_violation` at step 4b (§10.1 step 4b uses the
//!   same subset rule, D3).
//!
//! Flags, and therefore levels, are the source case's; an `acceptable` source (D3, D5) maps
//! each allowed outcome. The companion's expectation is derived from the source case's
//! expectation and the spec step named above, never from the reference's answer (the driver
//! then checks the reference agrees, as for every case).

use serde_json::{json, Value};

use super::dct_support::{cap, scope, verify, Chain, Ctx, BUDGET, MAX_DEPTH};
use crate::format::{Case, Expectation, Expected};
use crate::generate::{Area, Group};
use crate::keys::Keys;

/// Adds the area's groups.
pub fn build(area: &mut Area) {
    let keys = area.keys().clone();
    let mut primitives = Area::scratch("primitives", keys.clone());
    super::primitives::build(&mut primitives);
    let mut glob = Area::scratch("glob", keys.clone());
    super::glob::build(&mut glob);

    let timestamps: Vec<&Case> = primitives
        .cases()
        .filter(|c| c.op == "timestamp.compare")
        .collect();
    let subsets: Vec<&Case> = glob
        .cases()
        .filter(|c| c.op == "capability.subset")
        .collect();

    for (group, prefix, what) in [
        ("timestamp", "primitives-timestamp-", "primitives/timestamp"),
        (
            "timestamp-redteam",
            "primitives-timestamp-redteam-",
            "primitives/timestamp-redteam",
        ),
    ] {
        let g = area.group(
            group,
            &format!(
                "timestamp.compare's cases of {what} through dct.verify: a root token expiring \
                 at `a`, verified at `now = b` (§10.1 steps 1 and 5, D5)."
            ),
        );
        for src in timestamps
            .iter()
            .filter(|c| number(&c.id, prefix).is_some())
        {
            timestamp_companion(g, &keys, src, prefix);
        }
    }
    for (group, prefix, what) in [
        ("subset", "glob-subset-", "glob/subset"),
        ("subset-redteam", "glob-redteam-", "glob/redteam"),
    ] {
        let g = area.group(
            group,
            &format!(
                "capability.subset's cases of {what} through dct.verify: the root grants \
                 `parent`, its delegatee attenuates to `child` (§10.1 step 4b, D3)."
            ),
        );
        for src in subsets.iter().filter(|c| number(&c.id, prefix).is_some()) {
            subset_companion(g, &keys, src, prefix);
        }
    }
}

/// The case number of `id` if it is `<prefix>NNNN` (and not a longer group's id).
fn number(id: &str, prefix: &str) -> Option<u16> {
    let rest = id.strip_prefix(prefix)?;
    if rest.len() == 4 && rest.bytes().all(|b| b.is_ascii_digit()) {
        rest.parse().ok()
    } else {
        None
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// One expectation from the companion's mapping of each allowed source outcome; identical
/// mapped outcomes collapse, and one remaining outcome is a plain expectation.
fn mapped(src: &Case, map: impl Fn(&Expected) -> Expected) -> Expectation {
    let mut outcomes: Vec<Expected> = Vec::new();
    for o in src.expect.outcomes() {
        let m = map(&o);
        if !outcomes.contains(&m) {
            outcomes.push(m);
        }
    }
    match (&src.expect, outcomes.as_slice()) {
        (Expectation::Acceptable { decision, .. }, [_, _, ..]) => {
            Expectation::acceptable(decision, outcomes)
        }
        (_, [Expected::Valid { output }]) => Expectation::valid(output.clone()),
        (_, [Expected::Invalid { code, stage }]) => Expectation::Invalid {
            code: code.clone(),
            stage: stage.clone(),
        },
        _ => Expectation::acceptable("D5", outcomes),
    }
}

fn timestamp_companion(g: &mut Group, keys: &Keys, src: &Case, prefix: &str) {
    let Some(n) = number(&src.id, prefix) else {
        return;
    };
    let a = str_at(&src.input, "a");
    let b = str_at(&src.input, "b");
    let chain = Chain::root(keys).with_authority(|au| au.expires_at = a.to_owned());
    let ctx = Ctx::new(keys).now(b);
    let granted = scope(
        &chain,
        super::dct_support::default_caps(),
        BUDGET,
        MAX_DEPTH,
    );
    let expect = mapped(src, |o| match o {
        Expected::Valid { output } => match output.get("order").and_then(Value::as_i64) {
            Some(order) if order >= 0 => Expected::valid(granted.output()),
            _ => Expected::invalid("expired", "10.1/5"),
        },
        Expected::Invalid { .. } => Expected::invalid("malformed_token", "10.1/1"),
    });
    let mut reqs: Vec<&str> = src.requirements.iter().map(String::as_str).collect();
    for o in expect.outcomes() {
        reqs.push(match &o {
            Expected::Valid { .. } => "DCT-VERIFY-5-BOUNDARY",
            Expected::Invalid { code, .. } if code == "expired" => "DCT-VERIFY-5-EXPIRED",
            Expected::Invalid { .. } => "DCT-VERIFY-1-MALFORMED",
        });
    }
    // Only an equal instant is the boundary; a later expiry is plainly unexpired.
    let equal =
        src.expect.outcomes().iter().any(
            |o| matches!(o, Expected::Valid { output } if output.get("order") == Some(&json!(0))),
        );
    if !equal {
        reqs.retain(|r| *r != "DCT-VERIFY-5-BOUNDARY");
        reqs.push("DCT-VERIFY-5-EXPIRED");
    }
    reqs.sort_unstable();
    reqs.dedup();
    let flags: Vec<&str> = src.flags.iter().map(String::as_str).collect();
    verify(
        g,
        n,
        &format!(
            "companion of {}: a root token with expiresAt {a:?} verified at now {b:?} ({})",
            src.id, src.description
        ),
        &reqs,
        &flags,
        &chain,
        &ctx,
        expect,
    );
}

/// A concrete resource the glob `pattern` matches (D1): every `*` (and so every `**`) written
/// as `x`.
fn instance(pattern: &str) -> String {
    pattern.replace("**", "x").replace('*', "x")
}

fn capability_of(v: &Value) -> Option<(String, String, String)> {
    Some((
        v.get("namespace")?.as_str()?.to_owned(),
        v.get("action")?.as_str()?.to_owned(),
        v.get("resource")?.as_str()?.to_owned(),
    ))
}

fn subset_companion(g: &mut Group, keys: &Keys, src: &Case, prefix: &str) {
    let Some(n) = number(&src.id, prefix) else {
        return;
    };
    let (Some(parent), Some(child)) = (
        src.input.get("parent").and_then(capability_of),
        src.input.get("child").and_then(capability_of),
    ) else {
        // A malformed capability is a question for capability.subset's own input rules, not
        // one a token can carry: no companion.
        return;
    };
    let parent_cap = cap(&parent.0, &parent.1, &parent.2);
    let child_cap = cap(&child.0, &child.1, &child.2);
    let chain = Chain::root(keys)
        .caps(vec![parent_cap])
        .delegate(&keys.bob, |a| {
            a.allowed_capabilities = Some(vec![child_cap.clone()]);
        });
    let ctx = Ctx::new(keys).request(&child.0, &child.1, &instance(&child.2));
    let granted = scope(&chain, vec![child_cap], BUDGET, MAX_DEPTH - 1);
    let expect = mapped(src, |o| match o {
        Expected::Valid { output } if output.get("subset") == Some(&json!(true)) => {
            Expected::valid(granted.output())
        }
        _ => Expected::invalid("attenuation_violation", "10.1/4b"),
    });
    let mut reqs: Vec<&str> = src.requirements.iter().map(String::as_str).collect();
    reqs.push("DCT-VERIFY-4B-CAPABILITIES");
    reqs.sort_unstable();
    reqs.dedup();
    let flags: Vec<&str> = src.flags.iter().map(String::as_str).collect();
    verify(
        g,
        n,
        &format!(
            "companion of {}: the root grants {}:{}:{:?}, attenuated to {}:{}:{:?}, request {:?} \
             ({})",
            src.id,
            parent.0,
            parent.1,
            parent.2,
            child.0,
            child.1,
            child.2,
            instance(&child.2),
            src.description
        ),
        &reqs,
        &flags,
        &chain,
        &ctx,
        expect,
    );
}
