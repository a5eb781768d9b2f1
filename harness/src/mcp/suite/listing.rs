//! `tools/list` (`MCP-LIST-*`, D32): unfiltered without a session token, filtered per page
//! with one, empty with an invalid one.

use serde_json::{json, Value};

use super::context::Ctx;
use super::fixtures::{standard_caps, tool_object, STANDARD_TOOLS};
use super::judge::{ensure, short};
use super::session::{list_all, names, Session, Setup};
use crate::mcp::tokens::{self, cap, RootSpec};

pub(super) fn list_unfiltered(ctx: &Ctx) -> Result<(), String> {
    let mut s = Session::start(ctx, &Setup::standard())?;
    s.init()?;
    let (_, tools) = list_all(&mut s)?;
    let expected: Vec<Value> = STANDARD_TOOLS.iter().map(|n| tool_object(n)).collect();
    ensure(tools == expected, || {
        format!(
            "expected the upstream's {} tools unchanged, got {:?}",
            expected.len(),
            names(&tools)
        )
    })?;
    s.finish()
}

pub(super) fn list_filter(ctx: &Ctx) -> Result<(), String> {
    // docs:read only, on a narrow resource: read_file and nested (docs/read) survive; the
    // resource is ignored for listing (D32).
    let token = RootSpec::new(vec![
        cap("docs", "read", "/project/only-this"),
        cap("web", "search", "*"),
    ])
    .sign(&tokens::root());
    let mut s = Session::start(ctx, &Setup::standard().with_session(&token))?;
    s.init()?;
    let (_, tools) = list_all(&mut s)?;
    let expected: Vec<Value> = ["read_file", "search", "nested"]
        .iter()
        .map(|n| tool_object(n))
        .collect();
    ensure(tools == expected, || {
        format!(
            "expected [read_file, search, nested] unchanged and in order, got {:?}",
            names(&tools)
        )
    })?;
    s.finish()
}

pub(super) fn list_pagination(ctx: &Ctx) -> Result<(), String> {
    let order = [
        "search",
        "write_file",
        "read_file",
        "unmapped_tool",
        "slow",
        "nested",
        "fail_rpc",
    ];
    let mut setup = Setup::standard();
    setup.script["tools"] = json!(order.iter().map(|n| tool_object(n)).collect::<Vec<_>>());
    setup.script["pageSize"] = json!(2);
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let mut s = Session::start(ctx, &setup.with_session(&token))?;
    s.init()?;
    let (responses, tools) = list_all(&mut s)?;
    ensure(responses.len() == 4, || {
        format!("expected 4 pages (2 per page), got {}", responses.len())
    })?;
    let first = responses[0]["result"]["tools"]
        .as_array()
        .map_or(0, Vec::len);
    ensure(first == 0, || {
        format!("page 1 must filter to empty, got {first} tools")
    })?;
    for resp in &responses {
        let upstream = s
            .upstream_answer(&resp["id"])
            .ok_or("a page never reached the upstream")?;
        ensure(
            resp["result"].get("nextCursor") == upstream["result"].get("nextCursor"),
            || {
                format!(
                    "nextCursor changed: client {}, upstream {}",
                    short(resp),
                    short(&upstream)
                )
            },
        )?;
        let text = resp.to_string();
        for hidden in ["search", "write_file", "unmapped_tool", "slow", "fail_rpc"] {
            ensure(!text.contains(&format!("\"{hidden}\"")), || {
                format!("hidden tool {hidden} leaked: {text}")
            })?;
        }
    }
    let expected: Vec<Value> = ["read_file", "nested"]
        .iter()
        .map(|n| tool_object(n))
        .collect();
    ensure(tools == expected, || {
        format!(
            "expected [read_file, nested] across pages, got {:?}",
            names(&tools)
        )
    })?;
    s.finish()
}

/// One page alone: the first page of a paginated list, filtered, keeps the upstream's
/// `nextCursor` (a proxy that rebuilds the result drops it even on a first page, where a proxy
/// that filters only first pages is right).
pub(super) fn list_first_page_members(ctx: &Ctx) -> Result<(), String> {
    let mut setup = Setup::standard();
    setup.script["tools"] = json!(["read_file", "search", "nested"]
        .iter()
        .map(|n| tool_object(n))
        .collect::<Vec<_>>());
    setup.script["pageSize"] = json!(2);
    let token = RootSpec::new(vec![cap("docs", "read", "/project/**")]).sign(&tokens::root());
    let mut s = Session::start(ctx, &setup.with_session(&token))?;
    s.init()?;
    let id = s.fresh_id();
    let resp = s.request(id, "tools/list", json!({}), super::fixtures::T)?;
    let upstream = s
        .upstream_answer(&resp["id"])
        .ok_or("the page never reached the upstream")?;
    let members = |v: &Value| -> Vec<String> {
        v["result"]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    ensure(members(&resp) == members(&upstream), || {
        format!(
            "the filtered page's result members differ from the upstream's: client {}, upstream {}",
            short(&resp),
            short(&upstream)
        )
    })?;
    ensure(
        resp["result"].get("nextCursor") == upstream["result"].get("nextCursor"),
        || {
            format!(
                "nextCursor changed: client {}, upstream {}",
                short(&resp),
                short(&upstream)
            )
        },
    )?;
    let expected: Vec<Value> = vec![tool_object("read_file")];
    ensure(
        resp["result"]["tools"].as_array() == Some(&expected),
        || format!("expected [read_file] on page 1, got {}", short(&resp)),
    )?;
    s.finish()
}

pub(super) fn list_invalid_session(ctx: &Ctx) -> Result<(), String> {
    let mut expired = RootSpec::new(standard_caps());
    expired.expires_at = tokens::PAST.into();
    let variants = [
        ("expired", expired.sign(&tokens::root())),
        (
            "untrusted issuer",
            RootSpec::new(standard_caps()).sign(&tokens::key("other-root")),
        ),
    ];
    for (what, token) in variants {
        let mut s = Session::start(ctx, &Setup::standard().with_session(&token))?;
        s.init()?;
        let (_, tools) = list_all(&mut s)?;
        ensure(tools.is_empty(), || {
            format!(
                "{what} session DCT: expected no tools, got {:?}",
                names(&tools)
            )
        })?;
        s.finish()?;
    }
    Ok(())
}
