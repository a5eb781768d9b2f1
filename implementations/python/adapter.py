#!/usr/bin/env python3
"""Example DelegateOS conformance adapter, built on `delegateos-conform new-adapter --lang python`.

The skeleton's stubs are filled in with calls into `delegateos_mini.py` (beside this file, an
independent Python implementation, with `ecmaregex.py` for ECMAScript patterns and `draft07.py`
for JSON Schema); the protocol loop and helpers are the generated, unedited `delegateos_kit.py`. Stubs still raising TODO are not declared in `hello`, so their cases are
reported skipped. `main()` takes another library with the same functions: the red-team adapter
(implementations/redteam/py-hasty) and the spec-literal variant (implementations/python-literal)
reuse this file with theirs.

    delegateos-conform run --impl 'implementations/python/.venv/bin/python implementations/python/adapter.py'
"""

from __future__ import annotations

import os
import sys
from typing import Any, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # delegateos_kit.py, beside this file
import delegateos_kit as kit  # noqa: E402
from delegateos_kit import TODO, InvalidInput, Skip, SpecError, fields, hex_bytes, integer, seed, string  # noqa: E402,F401

# The library behind the operations (set by `main`).
dos: Any = None

IMPLEMENTATION = {
    "name": "delegateos-mini (Python example adapter)",
    "version": "0.1.0",
    "language": "python",
    "homepage": "implementations/README.md",
}


def library_error(error: BaseException) -> Optional[Tuple[str, str]]:
    """The library's own errors already carry spec codes."""
    if isinstance(error, dos.DelegateError):
        return error.code, error.detail
    return None


def unsupported_is_skip(function: Any, *args: Any) -> Any:
    """What the library cannot evaluate faithfully (a `\\p{Script=…}` property: no such data in
    the standard library) is answered `skipped`, never guessed."""
    try:
        return function(*args)
    except dos.Unsupported as e:
        raise Skip(str(e)) from e


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


CONTEXT_KEYS = ["namespace", "action", "resource", "now", "spentMicrocents", "rootPublicKey", "revocations"]
CREATE_STRINGS = ["delegatee", "contractId", "delegationId", "parentDelegationId", "expiresAt", "issuedAt"]
CREATE_INTS = ["chainDepth", "maxChainDepth", "maxBudgetMicrocents"]


# === §2 Primitives ===========================================================================


# json.canonicalize — 110 cases in the embedded corpus (spec/operations.md §2)
# input: `{text}` — JSON text (a string)
# output: `{canonical}` — RFC 8785 text
# errors: `invalid_json` (unparseable, duplicate keys, lone surrogates, BOM, nesting > 32, numbers
#         outside the I-JSON range)
# mirrors: `canonicalize`, `blake2b256`, `sign`, `verify`, `principalId` (arch §9)
def json_canonicalize(inp):
    text = string(fields(inp, ["text"])["text"], "text")
    try:
        value = dos.parse_json(text)
    except ValueError as e:
        raise SpecError("invalid_json", str(e)) from e
    return {"canonical": dos.canonicalize(value)}


# hash.blake2b256 — 7 cases in the embedded corpus (spec/operations.md §2)
# input: `{hex}`
# output: `{hex}` — 32-byte digest
# errors: —
# mirrors: `canonicalize`, `blake2b256`, `sign`, `verify`, `principalId` (arch §9)
def hash_blake2b256(inp):
    return {"hex": dos.blake2b256(hex_bytes(fields(inp, ["hex"])["hex"], "hex")).hex()}


# base64url.decode — 37 cases in the embedded corpus (spec/operations.md §2)
# input: `{text}`
# output: `{hex}`
# errors: `invalid_encoding` (padding, `+`/`/`, whitespace, non-zero trailing bits, length ≡ 1 mod
#         4)
# mirrors: the encoding of protocol §1.2 / §2 (no named function)
def base64url_decode(inp):
    return {"hex": dos.b64url_decode(string(fields(inp, ["text"])["text"], "text")).hex()}


# base64url.encode — 10 cases in the embedded corpus (spec/operations.md §2)
# input: `{hex}`
# output: `{text}` — no padding
# errors: —
# mirrors: the encoding of protocol §1.2 / §2 (no named function)
def base64url_encode(inp):
    return {"text": dos.b64url_encode(hex_bytes(fields(inp, ["hex"])["hex"], "hex"))}


# ed25519.sign — 5 cases in the embedded corpus (spec/operations.md §2)
# input: `{seed, message}` (hex)
# output: `{publicKey, signature}` (hex)
# errors: —
# mirrors: `canonicalize`, `blake2b256`, `sign`, `verify`, `principalId` (arch §9)
def ed25519_sign(inp):
    fields(inp, ["seed", "message"])
    key, message = seed(inp["seed"], "seed"), hex_bytes(inp["message"], "message")
    return {"publicKey": dos.ed25519_public_key(key).hex(), "signature": dos.ed25519_sign(key, message).hex()}


# ed25519.verify — 48 cases in the embedded corpus (spec/operations.md §2)
# input: `{publicKey, message, signature}` (hex)
# output: `{valid: bool}` — strict profile (D10); wrong lengths are `valid: false`, not errors
# errors: —
# mirrors: `canonicalize`, `blake2b256`, `sign`, `verify`, `principalId` (arch §9)
def ed25519_verify(inp):
    fields(inp, ["publicKey", "message", "signature"])
    return {"valid": dos.ed25519_verify(*[hex_bytes(inp[k], k) for k in ("publicKey", "message", "signature")])}


# principal.from_seed — 13 cases in the embedded corpus (spec/operations.md §2)
# input: `{seed}`
# output: `{principal}` — principal id
# errors: —
# mirrors: `canonicalize`, `blake2b256`, `sign`, `verify`, `principalId` (arch §9)
def principal_from_seed(inp):
    return {"principal": dos.principal_from_seed(seed(fields(inp, ["seed"])["seed"], "seed"))}


# timestamp.compare — 87 cases in the embedded corpus (spec/operations.md §2)
# input: `{a, b}` — timestamps
# output: `{order: -1 | 0 | 1}` — instant of `a` compared with `b`
# errors: `invalid_timestamp`
# mirrors: none: the instant comparison inside `verifyDCT` steps 1 and 5. Companion: every case has
#          a `dct.verify` twin in `companions/timestamp*` (same number; a root token expiring at
#          `a`, verified at `now = b`)
def timestamp_compare(inp):
    fields(inp, ["a", "b"])
    return {"order": dos.compare_timestamps(string(inp["a"], "a"), string(inp["b"], "b"))}


# === §3 Delegation capability tokens (§3, §10.1) ===========================================


# dct.create — 32 cases in the embedded corpus (spec/operations.md §3)
# input: `{issuerSeed, params}`; `params` = `{delegatee, capabilities, contractId, delegationId,
#        parentDelegationId, chainDepth, maxChainDepth, maxBudgetMicrocents, expiresAt,
#        issuedAt}` (all required; the issuer is the seed's principal)
# output: `{token: SerializedDCT}`
# errors: `malformed_token` (stage `3.3`: a parameter outside the token profile — bad id,
#         principal, timestamp, empty namespace/action, an integer that is not in 0..=2^53−1, a
#         value of the wrong JSON type), `chain_depth_exceeded` (`3.3`: `chainDepth >
#         maxChainDepth`)
# mirrors: `createDCT`, `attenuateDCT`, `verifyDCT`, `inspectDCT`, `getRevocationIds` (arch §2.5)
def dct_create(inp):
    fields(inp, ["issuerSeed", "params"])
    params = fields(inp["params"], CREATE_STRINGS + CREATE_INTS + ["capabilities"])
    for key in CREATE_STRINGS:
        string(params[key], key)
    for key in CREATE_INTS:
        integer(params[key], key)
    capabilities(params["capabilities"], "capabilities")
    return {"token": dos.create_dct(seed(inp["issuerSeed"], "issuerSeed"), params)}


# dct.attenuate — 46 cases in the embedded corpus (spec/operations.md §3)
# input: `{token: SerializedDCT, attenuatorSeed, params}`; `params` = `{delegatee, delegationId,
#        contractId, allowedCapabilities?, maxBudgetMicrocents?, expiresAt?, maxChainDepth?}`
# output: `{token: SerializedDCT}`
# errors: `malformed_token` (`3.4/1`), `attenuation_violation` (`3.4/2` attenuator is not the
#         current delegatee; `3.4/4` any widening), `chain_depth_exceeded` (`3.4/4`)
# mirrors: `createDCT`, `attenuateDCT`, `verifyDCT`, `inspectDCT`, `getRevocationIds` (arch §2.5)
def dct_attenuate(inp):
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


# dct.verify — 932 cases in the embedded corpus (spec/operations.md §3)
# input: `{token: SerializedDCT, context}`; `context` = `{namespace, action, resource, now,
#        spentMicrocents, rootPublicKey, revocations: [RevocationEntry]}`
# output: `{scope: AuthorizedScope}`
# errors: the denial types of §10.1 (first failing step wins, D7)
# mirrors: `createDCT`, `attenuateDCT`, `verifyDCT`, `inspectDCT`, `getRevocationIds` (arch §2.5)
def dct_verify(inp):
    fields(inp, ["token", "context"])
    ctx = fields(inp["context"], CONTEXT_KEYS)
    for key in ("namespace", "action", "resource", "now", "rootPublicKey"):
        string(ctx[key], f"context.{key}")
    if not dos.is_protocol_int(ctx["spentMicrocents"]):
        raise InvalidInput("context.spentMicrocents must be a protocol integer")
    if not isinstance(ctx["revocations"], list):
        raise InvalidInput("context.revocations must be an array")
    return {"scope": dos.verify_dct(inp["token"], ctx)}


# dct.inspect — 12 cases in the embedded corpus (spec/operations.md §3)
# input: `{token: SerializedDCT}`
# output: `{issuer, delegatee, contractId, delegationId, capabilities, expiresAt, chainDepth,
#         revocationIds, decoded}` — the effective (last) delegatee / ids / capabilities, the
#         earliest expiry (its original text), `authority.chainDepth + len(attenuations)`, and
#         `decoded`, the SignedJSONToken as a JSON object (D24)
# errors: `malformed_token` (`10.1/1`; step 1 only: no signature or chain checks)
# mirrors: `createDCT`, `attenuateDCT`, `verifyDCT`, `inspectDCT`, `getRevocationIds` (arch §2.5)
def dct_inspect(inp):
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


# dct.revocation_ids — 10 cases in the embedded corpus (spec/operations.md §3)
# input: `{token: SerializedDCT}`
# output: `{revocationIds}` — authority first, then each attenuation (§3.5)
# errors: `malformed_token` (`10.1/1`)
# mirrors: `createDCT`, `attenuateDCT`, `verifyDCT`, `inspectDCT`, `getRevocationIds` (arch §2.5)
def dct_revocation_ids(inp):
    token = dos.decode_token(fields(inp, ["token"])["token"])
    return {"revocationIds": dos.token_revocation_ids(token)}


# === §4 Glob and capability subset (§10.2, D1–D3) =========================================


# glob.match — 92 cases in the embedded corpus (spec/operations.md §4)
# input: `{pattern, resource}` — strings
# output: `{matches: bool}`
# errors: —
# mirrors: the §10.2 matching and subset rules (no named function). Companion: every
#          `capability.subset` case has a `dct.verify` twin in `companions/subset*` (the root
#          grants `parent`, an attenuation narrows to `child`: accepted iff subset, step 4b);
#          `glob.match` is exercised by every `dct.verify` request
def glob_match(inp):
    fields(inp, ["pattern", "resource"])
    return {"matches": dos.glob_match(string(inp["pattern"], "pattern"), string(inp["resource"], "resource"))}


# capability.subset — 36 cases in the embedded corpus (spec/operations.md §4)
# input: `{child, parent}` — Capability objects
# output: `{subset: bool}`
# errors: `invalid_input` (not a Capability)
# mirrors: the §10.2 matching and subset rules (no named function). Companion: every
#          `capability.subset` case has a `dct.verify` twin in `companions/subset*` (the root
#          grants `parent`, an attenuation narrows to `child`: accepted iff subset, step 4b);
#          `glob.match` is exercised by every `dct.verify` request
def capability_subset(inp):
    fields(inp, ["child", "parent"])
    return {"subset": dos.capability_subset(capability(inp["child"], "child"), capability(inp["parent"], "parent"))}


# === §5 Revocation (§4, D6) =================================================================


# revocation.create_entry — 11 cases in the embedded corpus (spec/operations.md §5)
# input: `{revokerSeed, revocationId, revokedAt, scope}`
# output: `{entry: RevocationEntry}` — `revokedBy` is the seed's principal
# errors: `invalid_scope`, `invalid_timestamp`, `malformed_entry` (revocationId not base64url of
#         32 bytes)
# mirrors: creating a `RevocationEntry` (§4.1); `RevocationList.add` / `isRevoked` / `list` /
#          `toJSON` / `fromJSON` (arch §3.1) — no keyed entry verification exists (see §5 above)
def revocation_create_entry(inp):
    fields(inp, ["revokerSeed", "revocationId", "revokedAt", "scope"])
    key = seed(inp["revokerSeed"], "revokerSeed")
    return {"entry": dos.create_revocation_entry(key, *[string(inp[k], k) for k in ("revocationId", "revokedAt", "scope")])}


# revocation.verify_entry — 56 cases in the embedded corpus (spec/operations.md §5)
# input: `{entry}` — any JSON value
# output: `{valid: true}`
# errors: `malformed_entry`, `invalid_scope`, `invalid_signature`
# mirrors: creating a `RevocationEntry` (§4.1); `RevocationList.add` / `isRevoked` / `list` /
#          `toJSON` / `fromJSON` (arch §3.1) — no keyed entry verification exists (see §5 above)
def revocation_verify_entry(inp):
    dos.check_revocation_entry(fields(inp, ["entry"])["entry"])
    return {"valid": True}


# revocation.list — 14 cases in the embedded corpus (spec/operations.md §5)
# input: `{add: [entry…], query: [revocationId (string)…]}`
# output: `{added: ["ok" | code…], revoked: [bool…], listed: [revocationId…], roundtrip:
#         [revocationId…]}`
# errors: —
# mirrors: creating a `RevocationEntry` (§4.1); `RevocationList.add` / `isRevoked` / `list` /
#          `toJSON` / `fromJSON` (arch §3.1) — no keyed entry verification exists (see §5 above)
def revocation_list(inp):
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


# revocation.from_json — 29 cases in the embedded corpus (spec/operations.md §5)
# input: `{json}` — a string, the output of a list's `toJSON` or a corruption of it
# output: `{revocationIds}` — in `list()` order
# errors: `invalid_json`, `malformed_entry`, `invalid_scope`, `invalid_signature`
# mirrors: creating a `RevocationEntry` (§4.1); `RevocationList.add` / `isRevoked` / `list` /
#          `toJSON` / `fromJSON` (arch §3.1) — no keyed entry verification exists (see §5 above)
def revocation_from_json(inp):
    rl = dos.RevocationList.from_json(string(fields(inp, ["json"])["json"], "json"))
    return {"revocationIds": [e["revocationId"] for e in rl.entries]}


# === §6 Task contracts (§5, D11) ============================================================


# contract.create — 21 cases in the embedded corpus (spec/operations.md §6)
# input: `{issuerSeed, contract}` — the contract without `signature`; `issuer`, if present, must
#        be the seed's principal (else `invalid_input`)
# output: `{contract}` — signed
# errors: `malformed_contract`
# mirrors: `createContract` (arch §8)
def contract_create(inp):
    fields(inp, ["issuerSeed", "contract"])
    if not isinstance(inp["contract"], dict):
        raise InvalidInput("contract must be an object")
    return {"contract": dos.create_contract(seed(inp["issuerSeed"], "issuerSeed"), inp["contract"])}


# contract.verify_signature — 66 cases in the embedded corpus (spec/operations.md §6)
# input: `{contract}`
# output: `{valid: true}`
# errors: `malformed_contract`, `invalid_signature`
# mirrors: *combined*: `verifyContractSignature(contract, contract.issuer)`
def contract_verify_signature(inp):
    dos.verify_contract(fields(inp, ["contract"])["contract"])
    return {"valid": True}


# contract.bind — 37 cases in the embedded corpus (spec/operations.md §6)
# input: `{contract, token: SerializedDCT, now, rootPublicKey, revocations}`
# output: `{bound: true}`
# errors: `malformed_contract` (structure only: binding does not re-check the contract's
#         signature), then the steps 1–6 denial of the token (nothing spent), then
#         `contract_mismatch`, then `capability_mismatch` (D11)
# mirrors: *combined*: `verifyDCT` (steps 1–6) then §5.2 (D11)
def contract_bind(inp):
    fields(inp, ["contract", "token", "now", "rootPublicKey", "revocations"])
    if not isinstance(inp["revocations"], list):
        raise InvalidInput("revocations must be an array")
    now, root = string(inp["now"], "now"), string(inp["rootPublicKey"], "rootPublicKey")
    dos.bind_contract(inp["contract"], inp["token"], now, root, inp["revocations"])
    return {"bound": True}


# contract.verify_signature_with_key — 24 cases in the embedded corpus (spec/operations.md §6)
# input: `{contract, publicKey}` — `publicKey` a principal id
# output: `{valid: bool}` — the signature verifies under `publicKey` (not necessarily the
#         `issuer`'s, D42); a key that is not a principal id is `valid: false`
# errors: `malformed_contract`
# mirrors: `verifyContractSignature(contract, issuerPublicKey)` (arch §8)
def contract_verify_signature_with_key(inp):
    fields(inp, ["contract", "publicKey"])
    return {"valid": dos.verify_signature_under(inp["contract"], string(inp["publicKey"], "publicKey"))}


# contract.check_binding — 17 cases in the embedded corpus (spec/operations.md §6)
# input: `{contract, token: SerializedDCT}`
# output: `{bound: true}` — §5.2 on the decoded token, not verified (D43)
# errors: `malformed_contract`, `malformed_token` (step 1), `contract_mismatch`,
#         `capability_mismatch` (D11)
# mirrors: §5.2 Contract-DCT binding as written
def contract_check_binding(inp):
    fields(inp, ["contract", "token"])
    dos.check_binding(inp["contract"], inp["token"])
    return {"bound": True}


# === §7 Output verification (§6, §10.3, D12) ===============================================


# check.run — 469 cases in the embedded corpus (spec/operations.md §7)
# input: `{name, params?, output}` — one built-in check of the default registry
# output: `{passed, score?}`
# errors: `unknown_check`, `invalid_params`, `unsupported_pattern`, `invalid_schema`,
#         `limit_exceeded`
# mirrors: `CheckFunctionRegistry` / `createDefaultRegistry` (arch §4.1.2), `verifyOutput` (arch
#          §8, protocol §10.3)
def check_run(inp):
    fields(inp, ["name", "output"], ("params",))
    return unsupported_is_skip(dos.run_check, string(inp["name"], "name"), inp["output"], inp.get("params"))


# output.verify — 88 cases in the embedded corpus (spec/operations.md §7)
# input: `{verification: VerificationSpec, output}` — §10.3 with the default registry
# output: `{passed, score}`
# errors: `invalid_spec`, `limit_exceeded`, and the `check.run` codes
# mirrors: `CheckFunctionRegistry` / `createDefaultRegistry` (arch §4.1.2), `verifyOutput` (arch
#          §8, protocol §10.3)
def output_verify(inp):
    fields(inp, ["verification", "output"])
    return unsupported_is_skip(dos.verify_output, inp["verification"], inp["output"])


# === §8 Attestations (§7, D13) ==============================================================


# attestation.create — 16 cases in the embedded corpus (spec/operations.md §8)
# input: `{principalSeed, attestation}` — without `signature`; `principal`, if present, must be
#        the seed's principal
# output: `{attestation}` — signed
# errors: `malformed_attestation`
# mirrors: `createCompletionAttestation` (arch §5.1), D13
def attestation_create(inp):
    fields(inp, ["principalSeed", "attestation"])
    if not isinstance(inp["attestation"], dict):
        raise InvalidInput("attestation must be an object")
    return {"attestation": dos.create_attestation(seed(inp["principalSeed"], "principalSeed"), inp["attestation"])}


# attestation.output_hash — 17 cases in the embedded corpus (spec/operations.md §8)
# input: `{output}` — any JSON value
# output: `{outputHash}` — base64url(BLAKE2b-256(canonicalize(output)))
# errors: —
# mirrors: `createCompletionAttestation` (arch §5.1), D13
def attestation_output_hash(inp):
    output = fields(inp, ["output"])["output"]  # D13: base64url(BLAKE2b-256(canonicalize(output)))
    try:
        canonical = dos.canonical_bytes(output)
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError) as e:
        raise InvalidInput(f"output is not a JSON value: {e}") from e
    return {"outputHash": dos.b64url_encode(dos.blake2b256(canonical))}


# attestation.verify_signature — 24 cases in the embedded corpus (spec/operations.md §8)
# input: `{attestation, publicKey}` — `publicKey` a principal id
# output: `{valid: bool}` — the signature verifies under `publicKey` (not necessarily the
#         `principal`'s, D42); a key that is not a principal id is `valid: false`
# errors: `malformed_attestation`
# mirrors: `verifyAttestationSignature(attestation, signerPublicKey)` (arch §5.1)
def attestation_verify_signature(inp):
    fields(inp, ["attestation", "publicKey"])
    return {"valid": dos.verify_signature_under(inp["attestation"], string(inp["publicKey"], "publicKey"))}


# attestation.verify — 80 cases in the embedded corpus (spec/operations.md §8)
# input: `{attestation, contract}`
# output: `{valid: true}`
# errors: `malformed_contract` (the contract's structure; its signature is
#         `contract.verify_signature`'s job), then in order (D25): `malformed_attestation`,
#         `invalid_signature`, `contract_mismatch`, `output_hash_mismatch`, `schema_mismatch`,
#         `verification_failed` (or a check code), `budget_exceeded` — see `spec/error-codes.md`
#         §7
# mirrors: *combined*: §7.3 one-level verification (signature under the claimed principal, schema,
#          spec, cost)
def attestation_verify(inp):
    fields(inp, ["attestation", "contract"])
    unsupported_is_skip(dos.verify_attestation, inp["attestation"], inp["contract"])
    return {"valid": True}


# === §9 Delegation chains (§8) ==============================================================


# chain.verify — 71 cases in the embedded corpus (spec/operations.md §9)
# input: `{delegations: [Delegation…], rootPublicKey, now, revocations}` — root first
# output: `{valid: true}`
# errors: in order (D26): `malformed_delegation`, `root_invalid`, `parent_mismatch`,
#         `from_mismatch`, `depth_mismatch`, `depth_exceeded`, `not_attenuated`, the steps 1–6
#         denial of a delegation's DCT, `dct_mismatch` — see `spec/error-codes.md` §8
# mirrors: §8.2 over an ordered list (root first)
def chain_verify(inp):
    fields(inp, ["delegations", "rootPublicKey", "now", "revocations"])
    if not isinstance(inp["revocations"], list):
        raise InvalidInput("revocations must be an array")
    dos.verify_chain(inp["delegations"], string(inp["rootPublicKey"], "rootPublicKey"), string(inp["now"], "now"), inp["revocations"])
    return {"valid": True}


# chain.verify_store — 24 cases in the embedded corpus (spec/operations.md §9)
# input: `{delegations: [Delegation…] in any order, leafId, rootPublicKey, now, revocations}` — a
#        `ChainStore`'s contents
# output: `{valid: true}`
# errors: `malformed_delegation` (two records with one `id`; `leafId` not stored), then the chain
#         from the leaf up through `parentId`, root first, as `chain.verify` (D44)
# mirrors: §8.2 over a `ChainStore` / `MemoryChainStore` (arch §7), order-free
def chain_verify_store(inp):
    fields(inp, ["delegations", "leafId", "rootPublicKey", "now", "revocations"])
    if not isinstance(inp["revocations"], list) or not isinstance(inp["delegations"], list):
        raise InvalidInput("delegations and revocations must be arrays")
    dos.verify_chain_store(inp["delegations"], *[string(inp[k], k) for k in ("leafId", "rootPublicKey", "now")], inp["revocations"])
    return {"valid": True}


# === §10 JSON-RPC messages (§9) =============================================================


# jsonrpc.classify — 86 cases in the embedded corpus (spec/operations.md §10)
# input: `{message}` — any JSON value
# output: `{kind}` — one of `delegate_request` (§9.1), `delegate_accept` (§9.2), `delegate_reject`
#         (§9.3), `complete` (§9.4), `revoke` (§9.5)
# errors: `invalid_message`
# mirrors: the §9 message schemas: no spec function parses them (the architecture defines none, and
#          the MCP plugin of arch §6.2 handles MCP messages, not §9 ones), so no other operation
#          can carry these cases; `classify` is the schema check itself, `{message} → {kind} |
#          invalid_message`, and maps onto whatever validator or handler entry a library has for
#          incoming §9 messages
def jsonrpc_classify(inp):
    return {"kind": dos.classify_message(fields(inp, ["message"])["message"])}


# === §11 MCP decisions (§11) ================================================================


# mcp.filter_tools — 17 cases in the embedded corpus (spec/operations.md §11)
# spec: `mcp.filter_tools` and `mcp.call` (the pure decisions of the MCP plugin: which tools a
#       session token lets `tools/list` show, and whether a `tools/call` is passed through,
#       forwarded stripped with its spend, or denied with the -32001 body) are specified in
#       `spec/mcp-proxy.md` §6, next to the proxy launch contract, because their inputs mirror
#       the proxy's launch config. `mcp.session` (an ordered script of client and upstream
#       messages, with what the client received, what reached the upstream and the spend per
#       delegation after each step) is specified in `spec/mcp-proxy.md` §6.1; the proxy suite
#       runs the same cases against a running proxy (§6.2).
# mirrors: `createMCPPlugin` (arch §6.2)
def mcp_filter_tools(inp):
    fields(inp, ["tools", "config", "now"], ("spent",))
    if not isinstance(inp["tools"], list):
        raise InvalidInput("tools must be an array")
    cfg, spent = dos.mcp_config(inp["config"]), dos.mcp_spent(inp.get("spent"))
    return {"tools": dos.mcp_filter_tools(inp["tools"], cfg, spent, string(inp["now"], "now"))}


# mcp.call — 68 cases in the embedded corpus (spec/operations.md §11)
# spec: `mcp.filter_tools` and `mcp.call` (the pure decisions of the MCP plugin: which tools a
#       session token lets `tools/list` show, and whether a `tools/call` is passed through,
#       forwarded stripped with its spend, or denied with the -32001 body) are specified in
#       `spec/mcp-proxy.md` §6, next to the proxy launch contract, because their inputs mirror
#       the proxy's launch config. `mcp.session` (an ordered script of client and upstream
#       messages, with what the client received, what reached the upstream and the spend per
#       delegation after each step) is specified in `spec/mcp-proxy.md` §6.1; the proxy suite
#       runs the same cases against a running proxy (§6.2).
# mirrors: `createMCPPlugin` (arch §6.2)
def mcp_call(inp):
    fields(inp, ["request", "config", "now"], ("spent",))
    cfg, spent = dos.mcp_config(inp["config"]), dos.mcp_spent(inp.get("spent"))
    return dos.mcp_call(inp["request"], cfg, spent, string(inp["now"], "now"))


# mcp.session — 13 cases in the embedded corpus (spec/operations.md §11)
# spec: `mcp.filter_tools` and `mcp.call` (the pure decisions of the MCP plugin: which tools a
#       session token lets `tools/list` show, and whether a `tools/call` is passed through,
#       forwarded stripped with its spend, or denied with the -32001 body) are specified in
#       `spec/mcp-proxy.md` §6, next to the proxy launch contract, because their inputs mirror
#       the proxy's launch config. `mcp.session` (an ordered script of client and upstream
#       messages, with what the client received, what reached the upstream and the spend per
#       delegation after each step) is specified in `spec/mcp-proxy.md` §6.1; the proxy suite
#       runs the same cases against a running proxy (§6.2).
# mirrors: `createMCPPlugin`'s `handleRequest` / `handleResponse` over one session (arch §6.1–6.3,
#          spec §11.3)
def mcp_session(inp):
    fields(inp, ["config", "now", "steps"])
    cfg, steps = dos.mcp_config(inp["config"]), inp["steps"]
    if not isinstance(steps, list) or len(steps) > 10_000:
        raise InvalidInput("steps must be an array of at most 10000 steps")
    session, out = dos.McpSession(cfg, string(inp["now"], "now")), []
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or len(step) != 1:
            raise InvalidInput(f"steps[{i}] must be an object with one member")
        (kind, message), = step.items()
        if kind == "spent":
            if not isinstance(message, list) or not all(isinstance(d, str) for d in message):
                raise InvalidInput(f"steps[{i}].spent must be an array of delegation ids")
            out.append({"spent": {d: session.spend.get(d, 0) for d in message}})
        elif kind in ("client", "upstream"):
            to_client, to_upstream = (session.client if kind == "client" else session.upstream)(message)
            out.append({"toClient": [dos.session_view(m) for m in to_client], "toUpstream": to_upstream})
        else:
            raise InvalidInput(f"steps[{i}]: unknown step {kind!r}")
    return {"steps": out}


# === §11a Advisory profile lint ==============================================================


# profile.lint — 52 cases in the embedded corpus (spec/operations.md §11a)
# spec: `profile.lint` {token | delegations, now?} → {findings: [{rule, neighbour, clause,
#       severity}]}: the advisory (non-normative) findings of the neighbour profiles, one per
#       rule at most, in rule-table order. Rules and their ids (`ADV-…`) are specified in
#       `spec/neighbours.md`. Only run under `--profile strict`; a finding never changes a
#       normative verdict.
def profile_lint(inp):
    raise TODO

# --- registry (generated: one entry per operation of spec/operations.md) --------------------------

STUBS = {
    "json.canonicalize": json_canonicalize,
    "hash.blake2b256": hash_blake2b256,
    "base64url.decode": base64url_decode,
    "base64url.encode": base64url_encode,
    "ed25519.sign": ed25519_sign,
    "ed25519.verify": ed25519_verify,
    "principal.from_seed": principal_from_seed,
    "timestamp.compare": timestamp_compare,
    "dct.create": dct_create,
    "dct.attenuate": dct_attenuate,
    "dct.verify": dct_verify,
    "dct.inspect": dct_inspect,
    "dct.revocation_ids": dct_revocation_ids,
    "glob.match": glob_match,
    "capability.subset": capability_subset,
    "revocation.create_entry": revocation_create_entry,
    "revocation.verify_entry": revocation_verify_entry,
    "revocation.list": revocation_list,
    "revocation.from_json": revocation_from_json,
    "contract.create": contract_create,
    "contract.verify_signature": contract_verify_signature,
    "contract.bind": contract_bind,
    "contract.verify_signature_with_key": contract_verify_signature_with_key,
    "contract.check_binding": contract_check_binding,
    "check.run": check_run,
    "output.verify": output_verify,
    "attestation.create": attestation_create,
    "attestation.output_hash": attestation_output_hash,
    "attestation.verify_signature": attestation_verify_signature,
    "attestation.verify": attestation_verify,
    "chain.verify": chain_verify,
    "chain.verify_store": chain_verify_store,
    "jsonrpc.classify": jsonrpc_classify,
    "mcp.filter_tools": mcp_filter_tools,
    "mcp.call": mcp_call,
    "mcp.session": mcp_session,
    "profile.lint": profile_lint,
}

OPERATIONS = kit.declared(STUBS)


def run_case(case: dict) -> dict:
    return kit.run_case(case, OPERATIONS, library_error)


def main(library: Any = None, implementation: Optional[dict] = None) -> None:
    global dos
    if library is None:
        import delegateos_mini as library
    dos = library
    # Looked up at each call: python-literal extends OPERATIONS and replaces run_case.
    # delegateos_mini implements both options (config.strict, a tool's own spend).
    kit.serve(implementation or IMPLEMENTATION, lambda: OPERATIONS, lambda case: run_case(case),
              ["strict-mode", "per-tool-spend"])


if __name__ == "__main__":
    main()
