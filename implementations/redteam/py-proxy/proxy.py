#!/usr/bin/env python3
"""RED TEAM — DELIBERATELY DEFECTIVE. Do not copy.

A naive DelegateOS MCP stdio proxy in Python (stdlib only), written independently of the
reference proxy, honouring the launch contract of spec/mcp-proxy.md (`--config FILE`). Token
verification (steps 1-6) is delegated to the careful path of the hasty verifier
(../py-hasty/hasty_dos.py, its own bugs switched off).

Seeded bugs, switched by REDTEAM_BUGS (comma-separated; unset = all; empty = careful path):
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from typing import Any

BUG_NAMES = {
    "forward-raw-line": "an authorized call is forwarded as the original line (_delegateos not stripped)",
    "forward-before-verdict": "a call with _delegateos is written upstream before the verdict (denials too)",
    "list-first-page-only": "tools/list is filtered only when the request has no cursor (first page)",
    "spend-by-client-id": "spend is keyed by the client-supplied _delegateos.delegationId (None when absent)",
    "spend-race": "spend is read at authorization but recorded when the upstream answers",
    "json-dupes-last": "json.loads: duplicate member names are accepted, the last one wins",
    "deny-id-null": "denials are answered with id null",
    "deny-id-string": "denials are answered with str(id)",
    "log-stdout": "log lines are printed to stdout",
    "splitlines": "each stdin line is split again with str.splitlines() (U+2028, U+0085, \\x0b… end lines)",
    "reserialize-forward": "an authorized call is forwarded as json.dumps(msg) without _delegateos (not byte-identical)",
    "envelope-truthiness": "`if not params.get('_delegateos')`: a falsy envelope (null, {}, \"\", 0, []) passes through unverified",
    "deny-notification-reply": "a denied tools/call notification is answered (with id null)",
    "list-drop-members": "a filtered tools/list result is rebuilt as {\"tools\": [...]} (nextCursor and other members lost)",
    "ignore-upstream-exit": "when the upstream exits, in-flight requests are not answered and the proxy keeps running",
    "no-signal-handler": "no SIGTERM/SIGINT/SIGHUP handler: the proxy dies, its upstream (own session) lives on",
    "resource-str-coerce": "a non-string resource argument is coerced with str() instead of being denied (M3)",
    "raw-text-shortcut": "fast path: a tools/call whose raw text lacks '\"_delegateos\"' is forwarded as is (a \\u-escaped name slips by)",
    "no-kill-upstream": "on client EOF the upstream's stdin is closed and the proxy exits without waiting or killing",
    "last-authorized-spend": "spend is recorded when a call's answer arrives, charged to the delegation of the LAST authorized call (one shared variable)",
    "list-filter-last-method": "an upstream response is filtered as a tools/list page when the last client request was tools/list, not because its id is a pending tools/list",
}
__doc__ += "".join(f"  {k}: {v}\n" for k, v in BUG_NAMES.items())
_env = os.environ.get("REDTEAM_BUGS")
BUGS = set(BUG_NAMES) if _env is None else {b.strip() for b in _env.split(",") if b.strip()}


def bug(name: str) -> bool:
    assert name in BUG_NAMES, name
    return name in BUGS


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "py-hasty"))
import hasty_dos as dos  # noqa: E402

dos.BUGS = set()  # the verifier's careful path: the defects under test are the proxy's own

MAX_LINE = 64 * 1024 * 1024
OUT_LOCK = threading.Lock()
STATE_LOCK = threading.Lock()
SPENT: dict[str, int] = {}
IN_FLIGHT: dict[str, Any] = {}  # json.dumps(id) -> id, forwarded client requests
LIST_IDS: dict[str, bool] = {}  # json.dumps(id) -> filter this page?
CALL_IDS: dict[str, tuple[str, int]] = {}  # spend-race: charge when answered
ANSWER_CHARGES: set[str] = set()  # last-authorized-spend: answered calls charge LAST_AUTHORIZED
LAST_AUTHORIZED: list = [None]  # last-authorized-spend: (spend key, cost) of the last authorized call
LAST_REQUEST_METHOD: list = [None]  # list-filter-last-method


def log(msg: str) -> None:
    stream = sys.stdout if bug("log-stdout") else sys.stderr
    with OUT_LOCK:
        stream.write(f"[py-proxy] {msg}\n")
        stream.flush()


def to_client(line: bytes) -> None:
    with OUT_LOCK:
        sys.stdout.buffer.write(line.rstrip(b"\r\n") + b"\n")
        sys.stdout.buffer.flush()


def send(obj: Any) -> None:
    to_client(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def rpc_error(id_: Any, code: int, message: str, data: Any = None) -> dict:
    err: dict = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": err}


class Duplicate(Exception):
    pass


def _strict_pairs(pairs: list) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise Duplicate(k)
        out[k] = v
    return out


def parse(text: str) -> Any:
    """Raises ValueError (not JSON) or Duplicate."""
    if bug("json-dupes-last"):
        return json.loads(text)
    return json.loads(text, object_pairs_hook=_strict_pairs)


# --- raw stripping of params._delegateos (arguments stay byte-identical) ---------------------


def _ws(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t\r\n":
        i += 1
    return i


def _skip_string(s: str, i: int) -> int:
    i += 1
    while s[i] != '"':
        i += 2 if s[i] == "\\" else 1
    return i + 1


def _skip_value(s: str, i: int) -> int:
    c = s[i]
    if c == '"':
        return _skip_string(s, i)
    if c in "{[":
        close = "}" if c == "{" else "]"
        i = _ws(s, i + 1)
        if s[i] == close:
            return i + 1
        while True:
            if c == "{":
                i = _ws(s, _skip_string(s, i))
                i = _ws(s, i + 1)  # ':'
            i = _ws(s, _skip_value(s, i))
            if s[i] == close:
                return i + 1
            i = _ws(s, i + 1)  # ','
    while i < len(s) and s[i] not in ",}] \t\r\n":
        i += 1
    return i


def _members(s: str, i: int) -> list[tuple[str, int, int, int]]:
    """(key, key_start, value_start, value_end) of the object at s[i] == '{'."""
    out = []
    i = _ws(s, i + 1)
    if s[i] == "}":
        return out
    while True:
        ks = i
        ke = _skip_string(s, i)
        key = json.loads(s[ks:ke])
        vs = _ws(s, _ws(s, ke) + 1)
        ve = _skip_value(s, vs)
        out.append((key, ks, vs, ve))
        i = _ws(s, ve)
        if s[i] == "}":
            return out
        i = _ws(s, i + 1)


def strip_delegateos(s: str) -> str:
    for key, _, vs, ve in _members(s, _ws(s, 0)):
        if key == "params" and s[vs] == "{":
            kept = [s[ks:pe] for k, ks, _, pe in _members(s, vs) if k != "_delegateos"]
            return s[:vs] + "{" + ",".join(kept) + "}" + s[ve:]
    return s


# --- decisions ------------------------------------------------------------------------------


def caps_json(caps: list) -> list:
    return [{"namespace": c["namespace"], "action": c["action"], "resource": c["resource"]} for c in caps]


def verify_steps_1_6(config: dict, dct: dict, spent_key: Any) -> dict:
    """Steps 1-6 → the scope; raises dos.DelegateError."""
    roots = config.get("trustedRoots") or []
    root = ""
    try:
        issuer = dos.decode_token(dct)["authority"]["issuer"]
        root = issuer if issuer in roots else (roots[0] if roots else "")
    except dos.DelegateError:
        root = roots[0] if roots else ""
    ctx = {
        "namespace": "", "action": "", "resource": "", "now": NOW(),
        "spentMicrocents": 0, "rootPublicKey": root, "revocations": config.get("revocations") or [],
    }
    scope = dos.verify_dct(dct, ctx, check_request=False)  # spend is checked below
    key = spent_key if spent_key is not None else scope["delegationId"]
    spent = SPENT.get(key, 0)
    ctx["spentMicrocents"] = spent
    scope = dos.verify_dct(dct, ctx, check_request=False)
    scope["spentKey"] = key
    return scope


def NOW() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def denial(code: str, detail: str = "", **data: Any) -> dict:
    body = {"type": code, **data}
    if code in ("invalid_signature", "attenuation_violation", "malformed_token"):
        body["detail"] = detail
    return body


def extract(spec: Any, arguments: Any) -> Any:
    if not isinstance(spec, dict) or (not spec):
        return "*"
    if "constant" in spec:
        return spec["constant"]
    value = arguments
    for part in spec.get("argument", "").split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    if bug("resource-str-coerce") and value is not None:
        return str(value)
    return value if isinstance(value, str) else None


def decide_call(config: dict, msg: dict) -> tuple[str, Any]:
    """('pass', None) | ('forward', (spend_key, cost)) | ('deny', data)."""
    params = msg.get("params")
    if bug("envelope-truthiness") and isinstance(params, dict) and not params.get("_delegateos"):
        params = None  # "no envelope"
    if not isinstance(params, dict) or "_delegateos" not in params:
        if config.get("strict"):
            return "deny", denial("malformed_token", "missing _delegateos")
        return "pass", None
    env = params["_delegateos"]
    if (
        not isinstance(env, dict)
        or not {"dct", "format"} <= set(env) <= {"dct", "format", "delegationId", "contractId"}
        or not isinstance(env["dct"], str)
        or env["format"] != dos.TOKEN_FORMAT
        or any(not isinstance(env[k], str) for k in ("delegationId", "contractId") if k in env)
    ):
        return "deny", denial("malformed_token", "bad _delegateos envelope")
    dct = {"token": env["dct"], "format": env["format"]}
    try:
        scope = verify_steps_1_6(config, dct, ("client", env.get("delegationId")) if bug("spend-by-client-id") else None)
    except dos.DelegateError as e:
        return "deny", denial(e.code, e.detail, **e.data)
    if "delegationId" in env and env["delegationId"] != scope["delegationId"]:
        return "deny", denial("malformed_token", "_delegateos.delegationId differs from the token's")
    if "contractId" in env and env["contractId"] != scope["contractId"]:
        return "deny", denial("malformed_token", "_delegateos.contractId differs from the token's")
    granted = caps_json(scope["capabilities"])
    name = params.get("name")
    tool = (config.get("tools") or {}).get(name) if isinstance(name, str) else None
    if tool is None:
        return "deny", denial("capability_not_granted", tool=name if isinstance(name, str) else "", granted=granted)
    resource = extract(tool.get("resource"), params.get("arguments"))
    requested = {"namespace": tool["namespace"], "action": tool["action"], "resource": resource}
    if resource is None or not any(
        c["namespace"] == tool["namespace"] and c["action"] == tool["action"] and dos.glob_match(c["resource"], resource)
        for c in scope["capabilities"]
    ):
        return "deny", denial("capability_not_granted", requested=requested, granted=granted)
    cost = tool.get("spend", config.get("spendPerCall", 0))
    return "forward", (scope["spentKey"], cost)


def session_scope(config: dict) -> dict | None:
    tok = config.get("sessionToken")
    if tok is None:
        return None
    try:
        return verify_steps_1_6(config, tok, None)
    except dos.DelegateError:
        return {"capabilities": []}


def filter_tools(config: dict, result: Any) -> Any:
    scope = session_scope(config)
    if scope is None or not isinstance(result, dict) or not isinstance(result.get("tools"), list):
        return result
    tools = config.get("tools") or {}
    held = {(c["namespace"], c["action"]) for c in scope["capabilities"]}
    keep = []
    for t in result["tools"]:
        m = tools.get(t.get("name")) if isinstance(t, dict) else None
        if m is not None and (m["namespace"], m["action"]) in held:
            keep.append(t)
    if bug("list-drop-members"):
        return {"tools": keep}
    return {**result, "tools": keep}


# --- the two directions ---------------------------------------------------------------------


def upstream_reader(config: dict, proc: subprocess.Popen) -> None:
    for raw in proc.stdout:
        try:
            msg = json.loads(raw.decode("utf-8"))
        except ValueError:
            log(f"dropping non-JSON upstream line ({len(raw)} bytes)")
            continue
        if isinstance(msg, dict) and "id" in msg and "method" not in msg:
            key = json.dumps(msg["id"])
            with STATE_LOCK:
                IN_FLIGHT.pop(key, None)
                filt = LIST_IDS.pop(key, None)
                if bug("list-filter-last-method"):
                    filt = LAST_REQUEST_METHOD[0] == "tools/list"
                charge = CALL_IDS.pop(key, None)
                if key in ANSWER_CHARGES:
                    ANSWER_CHARGES.discard(key)
                    charge = LAST_AUTHORIZED[0]
            if charge is not None:
                with STATE_LOCK:
                    SPENT[charge[0]] = SPENT.get(charge[0], 0) + charge[1]
            if filt and "result" in msg:
                msg["result"] = filter_tools(config, msg["result"])
                send(msg)
                continue
        to_client(raw)
    if bug("ignore-upstream-exit"):
        log("upstream closed its stdout")
        return
    if not SHUTTING_DOWN.is_set():
        code = proc.wait()
        with STATE_LOCK:
            pending = list(IN_FLIGHT.values())
            IN_FLIGHT.clear()
        for id_ in pending:
            send(rpc_error(id_, -32603, "Upstream MCP server exited", {"type": "upstream_exited", "exitCode": code}))
        kill_group(proc)
        os._exit(1)


SHUTTING_DOWN = threading.Event()


def kill_group(proc: subprocess.Popen) -> None:
    for sig, wait in ((signal.SIGTERM, 0.5), (signal.SIGKILL, 1.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def write_upstream(proc: subprocess.Popen, text: str) -> None:
    with UP_LOCK:
        proc.stdin.write(text.encode("utf-8") + b"\n")
        proc.stdin.flush()


UP_LOCK = threading.Lock()


def handle_line(config: dict, proc: subprocess.Popen, text: str) -> None:
    try:
        msg = parse(text)
    except Duplicate:
        try:
            id_ = json.loads(text).get("id")
        except Exception:
            id_ = None
        send(rpc_error(id_ if isinstance(id_, (str, int)) else None, -32600, "Invalid Request"))
        return
    except ValueError:
        send(rpc_error(None, -32700, "Parse error"))
        return
    if not isinstance(msg, dict) or not ("method" in msg or "result" in msg or "error" in msg):
        id_ = msg.get("id") if isinstance(msg, dict) else None
        send(rpc_error(id_ if isinstance(id_, (str, int)) and not isinstance(id_, bool) else None, -32600, "Invalid Request"))
        return
    method = msg.get("method")
    has_id = "id" in msg
    if method is not None and has_id:
        LAST_REQUEST_METHOD[0] = method
    if method == "tools/call" and bug("raw-text-shortcut") and '"_delegateos"' not in text and not config.get("strict"):
        write_upstream(proc, text)  # "no envelope: nothing to verify"
        return
    if method == "tools/call":
        early = bug("forward-before-verdict") and isinstance(msg.get("params"), dict) and "_delegateos" in msg["params"]
        if early:
            write_upstream(proc, strip_delegateos(text))
        verdict, info = decide_call(config, msg)
        if verdict == "deny":
            if has_id or bug("deny-notification-reply"):
                id_ = msg.get("id")
                if bug("deny-id-null"):
                    id_ = None
                elif bug("deny-id-string"):
                    id_ = str(id_)
                send(rpc_error(id_, -32001, "DCT verification failed", info))
            return
        if verdict == "forward":
            key, cost = info
            if bug("spend-race") and has_id:
                with STATE_LOCK:
                    CALL_IDS[json.dumps(msg["id"])] = (key, cost)
            elif bug("last-authorized-spend") and has_id:
                with STATE_LOCK:
                    LAST_AUTHORIZED[0] = (key, cost)
                    ANSWER_CHARGES.add(json.dumps(msg["id"]))
            else:
                with STATE_LOCK:
                    SPENT[key] = SPENT.get(key, 0) + cost
            out = text if bug("forward-raw-line") else strip_delegateos(text)
            if bug("reserialize-forward"):
                fwd = {**msg, "params": {k: v for k, v in msg["params"].items() if k != "_delegateos"}}
                out = json.dumps(fwd)
        else:
            out = text
        if has_id:
            with STATE_LOCK:
                IN_FLIGHT[json.dumps(msg["id"])] = msg["id"]
        if not early:
            write_upstream(proc, out)
        return
    if method is not None and has_id:
        with STATE_LOCK:
            IN_FLIGHT[json.dumps(msg["id"])] = msg["id"]
            if method == "tools/list":
                params = msg.get("params")
                first = not (isinstance(params, dict) and "cursor" in params)
                LIST_IDS[json.dumps(msg["id"])] = first or not bug("list-first-page-only")
    write_upstream(proc, text)


def main() -> None:
    args = sys.argv[1:]
    if len(args) < 2 or args[0] != "--config":
        print("usage: proxy.py --config FILE", file=sys.stderr)
        sys.exit(64)
    with open(args[1], encoding="utf-8") as f:
        config = json.load(f)
    if "--strict" in args:
        config["strict"] = True
    up = config["upstream"]
    env = {**os.environ, **(up.get("env") or {})}
    proc = subprocess.Popen(
        [up["command"], *up.get("args", [])], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        env=env, start_new_session=True,
    )
    log(f"upstream pid {proc.pid}")

    def on_signal(signum: int, _frame: Any) -> None:
        SHUTTING_DOWN.set()
        kill_group(proc)
        os._exit(128 + signum)

    if not bug("no-signal-handler"):
        for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(s, on_signal)
    reader = threading.Thread(target=upstream_reader, args=(config, proc), daemon=True)
    reader.start()

    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline(MAX_LINE + 1)
        if not raw:
            break
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            while True:  # discard the rest of the line
                more = stdin.readline(1 << 20)
                if not more or more.endswith(b"\n"):
                    break
            send(rpc_error(None, -32600, "Invalid Request"))
            continue
        try:
            text = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            send(rpc_error(None, -32700, "Parse error"))
            continue
        if not text.strip():
            continue
        try:
            for part in text.splitlines() if bug("splitlines") else [text]:
                if part.strip():
                    handle_line(config, proc, part)
        except BrokenPipeError:
            break
        except Exception as e:  # keep going
            log(f"error handling a line: {e!r}")

    # Client EOF.
    SHUTTING_DOWN.set()
    try:
        proc.stdin.close()
    except OSError:
        pass
    if bug("no-kill-upstream"):
        os._exit(0)
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        kill_group(proc)
    reader.join(timeout=1)
    os._exit(0)


if __name__ == "__main__":
    main()
