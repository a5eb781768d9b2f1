//! Spend (`MCP-SPEND-*`, D17, D21): charged per effective delegation at authorization,
//! atomically with the budget check, whatever the upstream answers.

use serde_json::json;

use super::context::Ctx;
use super::fixtures::{read_args, standard_caps, T};
use super::judge::{call_msg, ensure, expect_result};
use super::session::{Session, Setup};
use crate::mcp::tokens::{self, RootSpec};

pub(super) fn spend_concurrent(ctx: &Ctx) -> Result<(), String> {
    let mut a = RootSpec::new(standard_caps());
    a.delegation_id = "del_aaaaaaaaaaaa".into();
    a.budget = 400;
    let mut b = RootSpec::new(standard_caps());
    b.delegation_id = "del_bbbbbbbbbbbb".into();
    b.budget = 1000;
    let (ta, tb) = (a.sign(&tokens::root()), b.sign(&tokens::root()));
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    // Delays 400, 300, 200, 100 ms: later calls finish first.
    for i in 0..8u64 {
        let token = if i % 2 == 0 { &ta } else { &tb };
        let tool = format!("d{}", i / 2 + 1);
        s.send(&call_msg(
            &json!(i),
            &tool,
            json!({"n": i}),
            Some(tokens::envelope(token)),
        ))?;
    }
    let mut arrival = Vec::new();
    for _ in 0..8 {
        let m = s
            .proxy
            .next(T)
            .ok_or("fewer than 8 answers to concurrent calls")?;
        if m.get("method").is_some() {
            continue;
        }
        let id = m["id"].clone();
        let r = expect_result(&m)?;
        ensure(
            r["structuredContent"]["received_params"]["arguments"]["n"] == id,
            || format!("answer for id {id} carries another call's arguments: {m}"),
        )?;
        arrival.push(id);
    }
    let mut sorted = arrival.clone();
    sorted.sort_by_key(|v| v.as_u64());
    sorted.dedup();
    ensure(sorted.len() == 8, || {
        format!("duplicate or missing answers: {arrival:?}")
    })?;
    // Delegation A has spent 4 × 100 = its budget; B has 600 left.
    let denial = s.call_denied(
        json!("a5"),
        "read_file",
        read_args(),
        Some(tokens::envelope(&ta)),
        "budget_exceeded",
    )?;
    s.check_data(denial, |data| {
        ensure(data["limit"] == 400 && data["spent"] == 400, || {
            format!("delegation A should show limit 400, spent 400: {data}")
        })
    });
    let rb = s.call(
        json!("b5"),
        "read_file",
        read_args(),
        Some(tokens::envelope(&tb)),
    )?;
    expect_result(&rb).map_err(|e| format!("delegation B was charged for A's calls: {e}"))?;
    s.finish()
}

pub(super) fn spend_exhaustion(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 250;
    let token = spec.sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    expect_result(&s.call(json!(1), "read_file", read_args(), Some(env.clone()))?)?;
    let r2 = s.call(json!(2), "fail_rpc", json!({}), Some(env.clone()))?;
    ensure(r2["error"]["code"] == -32050, || {
        format!("the upstream error should be relayed: {r2}")
    })?;
    expect_result(&s.call(json!(3), "read_file", read_args(), Some(env.clone()))?)?;
    let denial = s.call_denied(
        json!(4),
        "read_file",
        read_args(),
        Some(env),
        "budget_exceeded",
    )?;
    s.check_data(denial, |data| {
        ensure(data["limit"] == 250 && data["spent"] == 300, || {
            format!("expected limit 250, spent 300 (three calls of 100): {data}")
        })
    });
    s.finish()
}

/// Red team (py-proxy `spend-race`): a proxy that reads the spend at authorization but records
/// it when the upstream answers lets concurrent calls overdraw the budget (D21: the cost is
/// recorded at authorization, atomically with the check).
pub(super) fn spend_concurrent_overdraw(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 250;
    let token = spec.sign(&tokens::root());
    let env = tokens::envelope(&token);
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    for i in 1..=4u64 {
        s.send(&call_msg(
            &json!(i),
            "slow",
            json!({"n": i}),
            Some(env.clone()),
        ))?;
    }
    // Calls 1-3 are authorized at spent 0, 100, 200 (< 250); call 4 sees 300 and is denied,
    // whether or not the three slow calls (1.5 s upstream) have answered: a proxy that records
    // spend late authorizes it.
    let denial = s.denied(&json!(4), "budget_exceeded")?;
    s.check_data(denial, |data| {
        ensure(data["limit"] == 250 && data["spent"] == 300, || {
            format!("expected limit 250, spent 300 (three authorized calls of 100): {data}")
        })
    });
    for i in 1..=3u64 {
        expect_result(&s.proxy.response(&json!(i), T)?)?;
    }
    s.finish()
}

/// Red team (py-proxy `spend-by-client-id`): the optional `_delegateos.delegationId` is a
/// client claim (D17 only checks it when present); spend belongs to the token's effective
/// delegationId, so leaving the claim out must not open a second budget.
pub(super) fn spend_envelope_variants(ctx: &Ctx) -> Result<(), String> {
    let mut spec = RootSpec::new(standard_caps());
    spec.budget = 250;
    let token = spec.sign(&tokens::root());
    let full = tokens::envelope(&token);
    let bare = json!({"dct": full["dct"], "format": full["format"]});
    let contract_only =
        json!({"dct": full["dct"], "format": full["format"], "contractId": full["contractId"]});
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    expect_result(&s.call(json!(1), "read_file", read_args(), Some(full.clone()))?)?;
    expect_result(&s.call(json!(2), "read_file", read_args(), Some(bare.clone()))?)?;
    expect_result(&s.call(json!(3), "read_file", read_args(), Some(contract_only))?)?;
    let denial = s.call_denied(
        json!(4),
        "read_file",
        read_args(),
        Some(bare),
        "budget_exceeded",
    )?;
    s.check_data(denial, |data| {
        ensure(data["limit"] == 250 && data["spent"] == 300, || {
            format!("calls with and without _delegateos.delegationId must share the delegation's budget (expected limit 250, spent 300): {data}")
        })
    });
    s.finish()
}
