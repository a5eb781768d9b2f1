//! Options: behaviours the corpus tests beyond the text's required behaviour, which an
//! implementation may not have (issue 49 item 1). A case whose configuration turns one on lists
//! it in its `options`; an adapter declares the options it has in `hello.options`
//! (`spec/adapter-protocol.md` §2.1), and `run` skips a case that needs an undeclared one with
//! "needs option X", never a finding.

use serde_json::Value;

/// One option: its name (in vectors, `hello.options` and reports) and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionDoc {
    /// The name, e.g. `strict-mode`.
    pub name: &'static str,
    /// What an implementation that declares it does.
    pub summary: &'static str,
}

/// Every option, in the order kits and reports list them.
pub const ALL: [OptionDoc; 2] = [
    OptionDoc {
        name: STRICT_MODE,
        summary: "the proxy's strict mode (`config.strict`, decision D15): a tools/call without \
                  `_delegateos` is denied `malformed_token` instead of forwarded",
    },
    OptionDoc {
        name: PER_TOOL_SPEND,
        summary: "a tool's own `spend` in the proxy configuration overrides `spendPerCall` for \
                  calls of that tool",
    },
];

/// `config.strict`.
pub const STRICT_MODE: &str = "strict-mode";
/// A per-tool `spend` that differs from `spendPerCall`.
pub const PER_TOOL_SPEND: &str = "per-tool-spend";

/// Whether `name` is an option of [`ALL`].
pub fn is_known(name: &str) -> bool {
    ALL.iter().any(|o| o.name == name)
}

/// The options a case's input turns on, in [`ALL`]'s order: `strict-mode` when
/// `config.strict` is `true`; `per-tool-spend` when the input calls (`tools/call`, anywhere in
/// it) a tool whose configured `spend` differs from `spendPerCall`.
pub fn needed_by(input: &Value) -> Vec<String> {
    let Some(config) = input.get("config").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if config.get("strict") == Some(&Value::Bool(true)) {
        out.push(STRICT_MODE.to_owned());
    }
    let per_call = config.get("spendPerCall");
    let mut called = Vec::new();
    if let Some(rest) = input.as_object() {
        for (k, v) in rest {
            if k != "config" {
                tools_called(v, &mut called);
            }
        }
    }
    let overrides = config
        .get("tools")
        .and_then(Value::as_object)
        .is_some_and(|tools| {
            called.iter().any(|name| {
                tools
                    .get(name.as_str())
                    .and_then(|t| t.get("spend"))
                    .is_some_and(|spend| Some(spend) != per_call)
            })
        });
    if overrides {
        out.push(PER_TOOL_SPEND.to_owned());
    }
    out
}

fn tools_called(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if map.get("method").and_then(Value::as_str) == Some("tools/call") {
                if let Some(name) = map
                    .get("params")
                    .and_then(|p| p.get("name"))
                    .and_then(Value::as_str)
                {
                    out.push(name.to_owned());
                }
            }
            for x in map.values() {
                tools_called(x, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|x| tools_called(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_mode_and_an_overriding_spend_of_a_called_tool_are_options() {
        let config = json!({"spendPerCall": 100, "tools": {"run": {"spend": 500}, "read": {}}});
        let call = |tool: &str| json!({"method": "tools/call", "params": {"name": tool}});
        let input = |strict: bool, tool: &str| {
            let mut c = config.clone();
            c["strict"] = Value::Bool(strict);
            json!({"config": c, "request": call(tool)})
        };
        assert_eq!(needed_by(&input(false, "read")), Vec::<String>::new());
        assert_eq!(needed_by(&input(true, "read")), [STRICT_MODE]);
        assert_eq!(needed_by(&input(false, "run")), [PER_TOOL_SPEND]);
        assert_eq!(
            needed_by(&input(true, "run")),
            [STRICT_MODE, PER_TOOL_SPEND]
        );
        // A spend equal to spendPerCall overrides nothing; no config, no option.
        let same = json!({"config": {"spendPerCall": 500, "tools": {"run": {"spend": 500}}},
                          "steps": [{"client": call("run")}]});
        assert!(needed_by(&same).is_empty());
        assert!(needed_by(&json!({"request": call("run")})).is_empty());
        assert!(ALL.iter().all(|o| is_known(o.name)) && !is_known("strict"));
    }
}
