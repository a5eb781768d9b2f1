#!/usr/bin/env python3
"""RED TEAM — DELIBERATELY DEFECTIVE: seeded bugs in the operations no other red-team adapter
implements (contracts, attestations, output checks, MCP decisions), for `fuzz --op`.

The adapter is a thin layer over a correct implementation — the reference adapter, started as
`sys.argv[1:]` (default `delegateos-conform reference-adapter`) — and each seeded bug is a
transformation of one operation's input or answer that is *exactly* what a realistic defect
would do (see README.md). Bugs are switched by REDTEAM_BUGS (comma-separated; unset = all,
`REDTEAM_BUGS=` = the careful path, which answers as the reference does).
"""

import json
import os
import subprocess
import sys

BUG_NAMES = [
    "contract-unknown-members-stripped",  # contract.verify_signature: typed deserialization drops unknown members before the signature check
    "attestation-budget-unchecked",       # attestation.verify: the cost-vs-budget step (last, D25) is never run
    "regex-coerces-to-string",            # check.run regex_match: a non-string subject is matched as its JSON text (JS `re.test(value)`, Python `str(value)`)
    "composite-all-pass-as-majority",     # output.verify composite: mode all_pass falls through to the majority rule
    "mcp-tool-name-casefold",             # mcp.call: tools looked up case-insensitively
]
_env = os.environ.get("REDTEAM_BUGS")
BUGS = set(BUG_NAMES) if _env is None else {b.strip() for b in _env.split(",") if b.strip()}
OPERATIONS = ["check.run", "output.verify", "contract.verify_signature", "attestation.verify", "mcp.call"]
CONTRACT_MEMBERS = {"id", "version", "issuer", "createdAt", "task", "constraints", "verification", "signature"}


def bug(name):
    assert name in BUG_NAMES, name
    return name in BUGS


def before(op, inp):
    """Input transformations (the defect changes what the correct logic sees)."""
    if not isinstance(inp, dict):
        return inp
    if op == "contract.verify_signature" and bug("contract-unknown-members-stripped"):
        c = inp.get("contract")
        if isinstance(c, dict):
            inp = {**inp, "contract": {k: v for k, v in c.items() if k in CONTRACT_MEMBERS}}
    if op == "output.verify" and bug("composite-all-pass-as-majority"):
        v = inp.get("verification")
        if isinstance(v, dict) and v.get("method") == "composite" and v.get("mode") == "all_pass":
            inp = {**inp, "verification": {**v, "mode": "majority"}}
    if op == "check.run" and bug("regex-coerces-to-string"):
        params = inp.get("params")
        if inp.get("name") == "regex_match" and isinstance(params, dict):
            field = params.get("field")
            out = inp.get("output")
            if field is None and isinstance(out, (int, float, bool)):
                inp = {**inp, "output": json.dumps(out)}
            elif isinstance(field, str) and "." not in field and isinstance(out, dict):
                value = out.get(field)
                if isinstance(value, (int, float, bool)):
                    inp = {**inp, "output": {**out, field: json.dumps(value)}}
    if op == "mcp.call" and bug("mcp-tool-name-casefold"):
        try:
            params = inp["request"]["params"]
            tools = inp["config"]["tools"]
            name = params["name"]
            if isinstance(name, str) and name not in tools:
                match = [t for t in tools if t.lower() == name.lower()]
                if match:
                    request = {**inp["request"], "params": {**params, "name": match[0]}}
                    inp = {**inp, "request": request}
        except (KeyError, TypeError, AttributeError):
            pass
    return inp


def reworded(reply):
    """Every free text worded differently from the reference — not a defect, on every path
    (bugs or careful): texts are never compared (spec/adapter-protocol.md, spec/mcp-proxy.md §6),
    so a careful path that words them its own way must still agree with the reference."""
    if reply.get("outcome") == "error" and "detail" in reply:
        reply = {**reply, "detail": "py-wrap: " + str(reply["detail"])[::-1]}
    output = reply.get("output")
    if reply.get("outcome") == "ok" and isinstance(output, dict):
        for path in (("response", "error", "data"), ("data",)):
            node = output
            for key in path:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict) and isinstance(node.get("detail"), str):
                node["detail"] = "py-wrap: " + node["detail"][::-1]
    return reply


def after(op, inp, reply):
    """Answer transformations (the defect skips a step whose failure the reference reports)."""
    reply = reworded(reply)
    if op == "attestation.verify" and bug("attestation-budget-unchecked"):
        if reply.get("outcome") == "error" and reply.get("code") == "budget_exceeded":
            return {"seq": reply["seq"], "outcome": "ok", "output": {"valid": True}}
    return reply


def main():
    command = sys.argv[1:] or ["delegateos-conform", "reference-adapter"]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8")
    for line in sys.stdin:
        try:
            frame = json.loads(line)
        except ValueError:
            frame = None
        case = frame.get("case") if isinstance(frame, dict) and frame.get("cmd") == "run" else None
        op = case.get("op") if isinstance(case, dict) else None
        if op is not None:
            frame = {**frame, "case": {**case, "input": before(op, case.get("input"))}}
            line = json.dumps(frame, ensure_ascii=False) + "\n"
        child.stdin.write(line if line.endswith("\n") else line + "\n")
        child.stdin.flush()
        reply_line = child.stdout.readline()
        if not reply_line:
            break
        reply = json.loads(reply_line)
        if isinstance(frame, dict) and frame.get("cmd") == "hello" and isinstance(reply, dict):
            reply["implementation"] = {
                "name": "py-wrap (RED TEAM, deliberately defective)",
                "version": "0.1.0",
                "language": "python",
                "homepage": "implementations/redteam/README.md",
            }
            reply["operations"] = [o for o in reply.get("operations", []) if o in OPERATIONS]
        elif op is not None and isinstance(reply, dict):
            reply = after(op, case.get("input"), reply)
        sys.stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sys.stdout.flush()
        if isinstance(frame, dict) and frame.get("cmd") == "bye":
            break
    child.stdin.close()
    child.wait()


if __name__ == "__main__":
    main()
