#!/usr/bin/env python3
"""Example DelegateOS conformance adapter (adapter protocol v1, spec/adapter-protocol.md).

The harness writes one JSON object per line to stdin (`hello`, `run`, `bye`) and reads one
reply per line from stdout. This file is the whole adapter: the protocol loop, decoding of
operation inputs (`invalid_input`), and the mapping of the library's errors to spec codes.
The library itself is `delegateos_mini.py` beside it.

Run it through the harness:
    delegateos-conform run --impl 'harness/adapters/python/.venv/bin/python harness/adapters/python/adapter.py'
"""

from __future__ import annotations

import json
import re
import sys
import traceback
from typing import Any, Callable

# The library behind the operations: `delegateos_mini` (beside this file) unless `main()` is
# given another module with the same functions — the red-team adapter reuses this protocol
# loop with its deliberately defective library (harness/adapters/redteam/py-hasty).
dos: Any = None

IMPLEMENTATION = {
    "name": "delegateos-mini (Python example adapter)",
    "version": "0.1.0",
    "language": "python",
    "homepage": "harness/adapters/README.md",
}


class InvalidInput(Exception):
    """The operation input does not have the shape spec/operations.md requires."""


# --- input helpers -----------------------------------------------------------------------------

_HEX_RE = re.compile(r"(?:[0-9a-f]{2})*")


def fields(value: Any, required: list[str], optional: tuple[str, ...] = ()) -> dict:
    if not isinstance(value, dict):
        raise InvalidInput("input must be an object")
    missing = [k for k in required if k not in value]
    unknown = [k for k in value if k not in required and k not in optional]
    if missing or unknown:
        raise InvalidInput(f"missing {missing}, unknown {unknown}")
    return value


def string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a string")
    return value


def hex_bytes(value: Any, name: str) -> bytes:
    if not isinstance(value, str) or not _HEX_RE.fullmatch(value):
        raise InvalidInput(f"{name} must be lowercase hex")
    return bytes.fromhex(value)


def seed(value: Any, name: str) -> bytes:
    data = hex_bytes(value, name)
    if len(data) != 32:
        raise InvalidInput(f"{name} must be 32 bytes")
    return data


def capability(value: Any, name: str) -> dict:
    """A Capability-shaped object (value rules such as non-empty names are the library's)."""
    fields(value, ["namespace", "action", "resource"])
    for key in ("namespace", "action", "resource"):
        string(value[key], f"{name}.{key}")
    return value


def capabilities(value: Any, name: str) -> list:
    if not isinstance(value, list):
        raise InvalidInput(f"{name} must be an array")
    return [capability(c, name) for c in value]


def integer(value: Any, name: str) -> int:
    """A JSON integer. Its range is the token profile's business: create/attenuate refuse a
    value outside 0..2^53-1 with `malformed_token` (D23), like any other bad parameter."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidInput(f"{name} must be an integer")
    return value


# --- operations --------------------------------------------------------------------------------


def op_canonicalize(inp: dict) -> dict:
    text = string(fields(inp, ["text"])["text"], "text")
    try:
        value = dos.parse_json(text)
    except ValueError as e:
        raise dos.DelegateError("invalid_json", str(e)) from e
    return {"canonical": dos.canonicalize(value)}


def op_blake2b(inp: dict) -> dict:
    return {"hex": dos.blake2b256(hex_bytes(fields(inp, ["hex"])["hex"], "hex")).hex()}


def op_b64_decode(inp: dict) -> dict:
    return {"hex": dos.b64url_decode(string(fields(inp, ["text"])["text"], "text")).hex()}


def op_b64_encode(inp: dict) -> dict:
    return {"text": dos.b64url_encode(hex_bytes(fields(inp, ["hex"])["hex"], "hex"))}


def op_sign(inp: dict) -> dict:
    fields(inp, ["seed", "message"])
    key = seed(inp["seed"], "seed")
    message = hex_bytes(inp["message"], "message")
    return {"publicKey": dos.ed25519_public_key(key).hex(), "signature": dos.ed25519_sign(key, message).hex()}


def op_verify(inp: dict) -> dict:
    fields(inp, ["publicKey", "message", "signature"])
    args = [hex_bytes(inp[k], k) for k in ("publicKey", "message", "signature")]
    return {"valid": dos.ed25519_verify(*args)}


def op_principal(inp: dict) -> dict:
    return {"principal": dos.principal_from_seed(seed(fields(inp, ["seed"])["seed"], "seed"))}


def op_timestamp_compare(inp: dict) -> dict:
    fields(inp, ["a", "b"])
    return {"order": dos.compare_timestamps(string(inp["a"], "a"), string(inp["b"], "b"))}


def op_glob(inp: dict) -> dict:
    fields(inp, ["pattern", "resource"])
    return {"matches": dos.glob_match(string(inp["pattern"], "pattern"), string(inp["resource"], "resource"))}


def op_subset(inp: dict) -> dict:
    fields(inp, ["child", "parent"])
    return {"subset": dos.capability_subset(capability(inp["child"], "child"), capability(inp["parent"], "parent"))}


CONTEXT_KEYS = ["namespace", "action", "resource", "now", "spentMicrocents", "rootPublicKey", "revocations"]


def op_dct_verify(inp: dict) -> dict:
    fields(inp, ["token", "context"])
    ctx = fields(inp["context"], CONTEXT_KEYS)
    for key in ("namespace", "action", "resource", "now", "rootPublicKey"):
        string(ctx[key], f"context.{key}")
    if not dos.is_protocol_int(ctx["spentMicrocents"]):
        raise InvalidInput("context.spentMicrocents must be a protocol integer")
    if not isinstance(ctx["revocations"], list):
        raise InvalidInput("context.revocations must be an array")
    return {"scope": dos.verify_dct(inp["token"], ctx)}


CREATE_STRINGS = ["delegatee", "contractId", "delegationId", "parentDelegationId", "expiresAt", "issuedAt"]
CREATE_INTS = ["chainDepth", "maxChainDepth", "maxBudgetMicrocents"]


def op_dct_create(inp: dict) -> dict:
    fields(inp, ["issuerSeed", "params"])
    params = fields(inp["params"], CREATE_STRINGS + CREATE_INTS + ["capabilities"])
    for key in CREATE_STRINGS:
        string(params[key], key)
    for key in CREATE_INTS:
        integer(params[key], key)
    capabilities(params["capabilities"], "capabilities")
    return {"token": dos.create_dct(seed(inp["issuerSeed"], "issuerSeed"), params)}


def op_dct_attenuate(inp: dict) -> dict:
    fields(inp, ["token", "attenuatorSeed", "params"])
    optional = ("allowedCapabilities", "maxBudgetMicrocents", "expiresAt", "maxChainDepth")
    params = fields(inp["params"], ["delegatee", "delegationId", "contractId"], optional)
    for key in ("delegatee", "delegationId", "contractId", "expiresAt"):
        if key in params:
            string(params[key], key)
    for key in ("maxBudgetMicrocents", "maxChainDepth"):
        if key in params:
            integer(params[key], key)
    if "allowedCapabilities" in params:
        capabilities(params["allowedCapabilities"], "allowedCapabilities")
    return {"token": dos.attenuate_dct(inp["token"], seed(inp["attenuatorSeed"], "attenuatorSeed"), params)}


def op_dct_inspect(inp: dict) -> dict:
    token = dos.decode_token(fields(inp, ["token"])["token"])
    # The effective expiry: the earliest instant among the authority's and every attenuation's
    # expiresAt, reported in its original text (operations.md, D24).
    expiries = [token["authority"]["expiresAt"]] + [
        a["expiresAt"] for a in token["attenuations"] if a.get("expiresAt") is not None
    ]
    earliest = expiries[0]
    for e in expiries[1:]:
        if dos.compare_timestamps(e, earliest) < 0:
            earliest = e
    return {"decoded": token, "revocationIds": dos.token_revocation_ids(token), "expiresAt": earliest}


def op_dct_revocation_ids(inp: dict) -> dict:
    token = dos.decode_token(fields(inp, ["token"])["token"])
    return {"revocationIds": dos.token_revocation_ids(token)}


def op_revocation_create(inp: dict) -> dict:
    fields(inp, ["revokerSeed", "revocationId", "revokedAt", "scope"])
    key = seed(inp["revokerSeed"], "revokerSeed")
    args = [string(inp[k], k) for k in ("revocationId", "revokedAt", "scope")]
    return {"entry": dos.create_revocation_entry(key, *args)}


def op_revocation_verify(inp: dict) -> dict:
    dos.check_revocation_entry(fields(inp, ["entry"])["entry"])
    return {"valid": True}


def op_revocation_list(inp: dict) -> dict:
    fields(inp, ["add", "query"])
    if not isinstance(inp["add"], list) or not isinstance(inp["query"], list):
        raise InvalidInput("add and query must be arrays")
    queries = [string(q, "query") for q in inp["query"]]
    rl, added = dos.RevocationList(), []
    for entry in inp["add"]:
        try:
            rl.add(entry)
            added.append("ok")
        except dos.DelegateError as e:
            added.append(e.code)
    roundtrip = dos.RevocationList.from_json(rl.to_json())
    return {
        "added": added,
        "revoked": [rl.is_revoked(q) for q in queries],
        "listed": [e["revocationId"] for e in rl.entries],
        "roundtrip": [e["revocationId"] for e in roundtrip.entries],
    }


def op_revocation_from_json(inp: dict) -> dict:
    rl = dos.RevocationList.from_json(string(fields(inp, ["json"])["json"], "json"))
    return {"revocationIds": [e["revocationId"] for e in rl.entries]}


def op_chain_verify(inp: dict) -> dict:
    fields(inp, ["delegations", "rootPublicKey", "now", "revocations"])
    if not isinstance(inp["revocations"], list):
        raise InvalidInput("revocations must be an array")
    dos.verify_chain(inp["delegations"], string(inp["rootPublicKey"], "rootPublicKey"), string(inp["now"], "now"), inp["revocations"])
    return {"valid": True}


def op_chain_verify_store(inp: dict) -> dict:
    fields(inp, ["delegations", "leafId", "rootPublicKey", "now", "revocations"])
    if not isinstance(inp["revocations"], list):
        raise InvalidInput("revocations must be an array")
    if not isinstance(inp["delegations"], list):
        raise InvalidInput("delegations must be an array")
    args = [string(inp[k], k) for k in ("leafId", "rootPublicKey", "now")]
    dos.verify_chain_store(inp["delegations"], *args, inp["revocations"])
    return {"valid": True}


def op_attestation_verify_signature(inp: dict) -> dict:
    fields(inp, ["attestation", "publicKey"])
    return {"valid": dos.verify_signature_under(inp["attestation"], string(inp["publicKey"], "publicKey"))}


def op_contract_verify_signature_with_key(inp: dict) -> dict:
    fields(inp, ["contract", "publicKey"])
    return {"valid": dos.verify_signature_under(inp["contract"], string(inp["publicKey"], "publicKey"))}


def op_contract_check_binding(inp: dict) -> dict:
    fields(inp, ["contract", "token"])
    dos.check_binding(inp["contract"], inp["token"])
    return {"bound": True}


def op_output_hash(inp: dict) -> dict:
    """D13: base64url(BLAKE2b-256(canonicalize(output)))."""
    output = fields(inp, ["output"])["output"]
    try:
        canonical = dos.canonical_bytes(output)
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError) as e:
        raise InvalidInput(f"output is not a JSON value: {e}") from e
    return {"outputHash": dos.b64url_encode(dos.blake2b256(canonical))}


OPERATIONS: dict[str, Callable[[dict], dict]] = {
    "json.canonicalize": op_canonicalize,
    "hash.blake2b256": op_blake2b,
    "base64url.decode": op_b64_decode,
    "base64url.encode": op_b64_encode,
    "ed25519.sign": op_sign,
    "ed25519.verify": op_verify,
    "principal.from_seed": op_principal,
    "timestamp.compare": op_timestamp_compare,
    "glob.match": op_glob,
    "capability.subset": op_subset,
    "dct.create": op_dct_create,
    "dct.attenuate": op_dct_attenuate,
    "dct.verify": op_dct_verify,
    "dct.inspect": op_dct_inspect,
    "dct.revocation_ids": op_dct_revocation_ids,
    "attestation.output_hash": op_output_hash,
    "chain.verify": op_chain_verify,
    "chain.verify_store": op_chain_verify_store,
    "attestation.verify_signature": op_attestation_verify_signature,
    "contract.verify_signature_with_key": op_contract_verify_signature_with_key,
    "contract.check_binding": op_contract_check_binding,
    "revocation.create_entry": op_revocation_create,
    "revocation.verify_entry": op_revocation_verify,
    "revocation.list": op_revocation_list,
    "revocation.from_json": op_revocation_from_json,
}


# --- the protocol loop -------------------------------------------------------------------------


def run_case(case: dict) -> dict:
    """One `run` frame's case → the reply's outcome fields."""
    op = OPERATIONS.get(case.get("op"))
    if op is None:  # never sent for undeclared ops, but be safe
        return {"outcome": "skipped", "reason": f"operation {case.get('op')!r} not supported"}
    try:
        return {"outcome": "ok", "output": op(case.get("input"))}
    except dos.DelegateError as e:  # the library's own errors already carry spec codes
        return {"outcome": "error", "code": e.code, "detail": e.detail}
    except InvalidInput as e:
        return {"outcome": "error", "code": "invalid_input", "detail": str(e)}
    except Exception:  # a bug in the adapter or library: report it, keep running
        return {"outcome": "errored", "message": traceback.format_exc(limit=5)}


def main(library: Any = None, implementation: dict | None = None) -> None:
    global dos
    if library is None:
        import delegateos_mini as library
    dos = library
    implementation = implementation or IMPLEMENTATION
    out = sys.stdout
    for line in sys.stdin:
        frame = json.loads(line)
        cmd, seq = frame.get("cmd"), frame.get("seq")
        if cmd == "hello":
            reply = {"seq": seq, "protocol": 1, "implementation": implementation, "operations": sorted(OPERATIONS)}
        elif cmd == "run":
            reply = {"seq": seq, **run_case(frame["case"])}
        elif cmd == "bye":
            out.write(json.dumps({"seq": seq, "outcome": "ok"}) + "\n")
            out.flush()
            return
        else:
            print(f"unknown frame {cmd!r}", file=sys.stderr)
            continue
        # ensure_ascii keeps the line pure ASCII (lone surrogates in outputs cannot break UTF-8).
        out.write(json.dumps(reply, ensure_ascii=True, separators=(",", ":")) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
