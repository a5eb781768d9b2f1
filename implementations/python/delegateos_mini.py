"""A small, independent Python implementation of the DelegateOS v0.1 core.

It is deliberately written from the spec (spec/operations.md, spec/decisions.md) and not from
the Rust reference, so that running the conformance suite against it means something. Only
the standard library and PyNaCl (libsodium) are used.

Contents, in order:
  1. strict JSON parsing and RFC 8785 canonical JSON       (D33, research §1)
  2. strict base64url, BLAKE2b-256, Ed25519 strict profile  (D9, D10)
  3. timestamps (RFC 3339 profile of D5), compared as instants
  4. resource globs and capability subset                  (§10.2, D1-D3)
  5. DCT decoding (step 1), revocation entries, and verification (§10.1, D4-D8, D16-D21)
  6. revocation lists (§4, D6, D22); 7. delegation chains (§8, D26, D44)
  8. checks and output verification (§6, §10.3, D12, D28-D30)
  9. task contracts and attestations (§5, §7, D11, D13, D25, D27)
  10. the MCP plugin's decisions (§11.3, spec/mcp-proxy.md §6, D15, D17, D32)

Errors are raised as `DelegateError(code, detail)` with the codes of spec/error-codes.md.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import sys
from typing import Any

import nacl.bindings
import nacl.exceptions
import nacl.signing

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import draft07  # noqa: E402  (JSON Schema draft-07, beside this file)
import ecmaregex  # noqa: E402  (ECMAScript patterns, beside this file)

TOKEN_FORMAT = "delegateos-sjt-v1"
MAX_SAFE_INTEGER = 2**53 - 1
MAX_JSON_DEPTH = 32
MAX_TOKEN_CHARS = 1 << 20


class DelegateError(Exception):
    """A failure with a stable code from spec/error-codes.md."""

    def __init__(self, code: str, detail: str = "", data: dict | None = None):
        super().__init__(f"{code}: {detail}")
        self.code = code
        # The DenialReason fields beyond `type` and `detail` (arch §2.5), for the MCP denials.
        self.data = data or {}
        self.detail = detail


# ---------------------------------------------------------------------------------------------
# 1. JSON: strict parsing (D33) and RFC 8785 canonicalization
# ---------------------------------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number {text} is out of range")
    return value


_DECODER = json.JSONDecoder(
    object_pairs_hook=_no_duplicates,
    parse_constant=_reject_constant,
    parse_float=_finite_float,
)


def _check_tree(value: Any, depth: int = 0) -> None:
    """Depth <= 32 (top-level container is depth 1), no lone surrogates, finite numbers."""
    if isinstance(value, (dict, list)):
        depth += 1
        if depth > MAX_JSON_DEPTH:
            raise ValueError("nesting deeper than 32")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(key, str):
                key.encode("utf-8")  # raises on a lone surrogate
            _check_tree(item, depth)
    elif isinstance(value, str):
        value.encode("utf-8")
    elif isinstance(value, int) and not isinstance(value, bool):
        float(value)  # OverflowError: outside the IEEE double range


def parse_json(text: str) -> Any:
    """Parses I-JSON text strictly (D33); raises ValueError on anything else."""
    if text.startswith("\ufeff"):
        raise ValueError("byte order mark")
    try:
        value = _DECODER.decode(text)
        _check_tree(value)
    except (ValueError, OverflowError, RecursionError, UnicodeEncodeError) as e:
        raise ValueError(str(e)) from e
    return value


def _es6_number(x: float) -> str:
    """ECMAScript Number.prototype.toString for a finite double (RFC 8785 §3.2.2.3)."""
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _es6_number(-x)
    # Python's repr is the shortest round-tripping decimal, as ECMAScript requires.
    mantissa, _, exp = repr(x).partition("e")
    int_part, _, frac_part = mantissa.partition(".")
    digits = (int_part + frac_part).lstrip("0")
    stripped = digits.rstrip("0")
    scale = int(exp or 0) - len(frac_part) + (len(digits) - len(stripped))
    digits = stripped
    k = len(digits)
    n = k + scale  # value = 0.<digits> * 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(e)}"


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _jcs_string(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canonicalize(value: Any) -> str:
    """RFC 8785 canonical JSON text of a parsed value."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return _es6_number(float(value))  # numbers are IEEE doubles in JCS
    if isinstance(value, float):
        return _es6_number(value)
    if isinstance(value, str):
        return _jcs_string(value)
    if isinstance(value, list):
        return "[" + ",".join(canonicalize(v) for v in value) + "]"
    if isinstance(value, dict):
        # Keys sort by their UTF-16 code units; big-endian UTF-16 bytes compare the same way.
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(_jcs_string(k) + ":" + canonicalize(value[k]) for k in keys) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def canonical_bytes(value: Any) -> bytes:
    return canonicalize(value).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# 2. base64url, BLAKE2b-256, Ed25519
# ---------------------------------------------------------------------------------------------

_B64URL_RE = re.compile(r"[A-Za-z0-9_-]*")


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def b64url_decode(text: str) -> bytes:
    """Strict base64url (D9): no padding, URL alphabet only, zero trailing bits."""
    if not isinstance(text, str) or not _B64URL_RE.fullmatch(text) or len(text) % 4 == 1:
        raise DelegateError("invalid_encoding", "not strict base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url_encode(data) != text:
        raise DelegateError("invalid_encoding", "non-zero trailing bits")
    return data


def blake2b256(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=32).digest()


_L = 2**252 + 27742317777372353535851937790883648493  # order of the prime-order subgroup


def ed25519_public_key(seed: bytes) -> bytes:
    return nacl.signing.SigningKey(seed).verify_key.encode()


def ed25519_sign(seed: bytes, message: bytes) -> bytes:
    return nacl.signing.SigningKey(seed).sign(message).signature


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """The strict profile of D10: canonical, torsion-free, not-small-order A and R; S < L;
    then the cofactorless equation with R compared as bytes (libsodium)."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    r_bytes, s_bytes = signature[:32], signature[32:]
    if int.from_bytes(s_bytes, "little") >= _L:
        return False
    # libsodium's is_valid_point: canonical encoding, on the curve, not of small order, and in
    # the prime-order subgroup (torsion-free).
    for point in (public_key, r_bytes):
        if not nacl.bindings.crypto_core_ed25519_is_valid_point(point):
            return False
    try:
        nacl.bindings.crypto_sign_open(signature + message, public_key)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError):
        return False
    return True


_PRINCIPAL_RE = re.compile(r"[A-Za-z0-9_-]{43}")
_SIGNATURE_RE = re.compile(r"[A-Za-z0-9_-]{86}")


def principal_key(principal: Any) -> bytes | None:
    """The 32-byte key of a well-formed principal id, else None."""
    if not isinstance(principal, str) or not _PRINCIPAL_RE.fullmatch(principal):
        return None
    try:
        return b64url_decode(principal)
    except DelegateError:
        return None


def signature_bytes(text: Any) -> bytes | None:
    if not isinstance(text, str) or not _SIGNATURE_RE.fullmatch(text):
        return None
    try:
        return b64url_decode(text)
    except DelegateError:
        return None


def principal_from_seed(seed: bytes) -> str:
    return b64url_encode(ed25519_public_key(seed))


# ---------------------------------------------------------------------------------------------
# 3. Timestamps (D5): RFC 3339 profile, compared as instants (integer nanoseconds)
# ---------------------------------------------------------------------------------------------

_TIMESTAMP_RE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]{1,9}))?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _days_in_month(y: int, m: int) -> int:
    if m == 2:
        return 29 if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 else 28
    return 30 if m in (4, 6, 9, 11) else 31


def parse_timestamp(text: Any) -> int:
    """Nanoseconds since the Unix epoch; raises DelegateError('invalid_timestamp')."""
    match = _TIMESTAMP_RE.fullmatch(text) if isinstance(text, str) else None
    if not match:
        raise DelegateError("invalid_timestamp", f"not a profile timestamp: {text!r}")
    y, mo, d, h, mi, s = (int(g) for g in match.groups()[:6])
    fraction, offset = match.group(7), match.group(8)
    if not (1 <= mo <= 12 and 1 <= d <= _days_in_month(y, mo) and h <= 23 and mi <= 59 and s <= 59):
        raise DelegateError("invalid_timestamp", f"impossible date or time: {text!r}")
    offset_seconds = 0
    if offset != "Z":
        oh, om = int(offset[1:3]), int(offset[4:6])
        if oh > 23 or om > 59:
            raise DelegateError("invalid_timestamp", f"bad offset: {text!r}")
        offset_seconds = (oh * 3600 + om * 60) * (1 if offset[0] == "+" else -1)
    seconds = _days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset_seconds
    nanos = int((fraction or "").ljust(9, "0"))
    return seconds * 1_000_000_000 + nanos


def compare_timestamps(a: str, b: str) -> int:
    x, y = parse_timestamp(a), parse_timestamp(b)
    return (x > y) - (x < y)


# ---------------------------------------------------------------------------------------------
# 4. Globs and capability subset (§10.2, D1-D3)
# ---------------------------------------------------------------------------------------------


def glob_match(pattern: str, resource: str) -> bool:
    """D1/D2: bare `*` or `**` matches anything; inside a pattern a `*` segment is exactly one
    non-empty segment, `**` zero or more segments, anything else literal. Segment-wise DP,
    O(|pattern| x |resource|)."""
    if pattern in ("*", "**"):
        return True
    pat, res = pattern.split("/"), resource.split("/")
    # reach[j]: the pattern prefix processed so far matches res[:j]
    reach = [True] + [False] * len(res)
    for seg in pat:
        nxt = [False] * (len(res) + 1)
        if seg == "**":
            seen = False
            for j in range(len(res) + 1):
                seen = seen or reach[j]
                nxt[j] = seen
        else:
            for j in range(len(res)):
                if reach[j] and (res[j] == seg or (seg == "*" and res[j] != "")):
                    nxt[j + 1] = True
        reach = nxt
    return reach[len(res)]


def resource_covers(parent: str, child: str) -> bool:
    """D3: sound, conservative `every resource child matches, parent matches`."""
    if parent in ("*", "**") or parent == child:
        return True
    if child in ("*", "**"):
        return False  # a match-everything child needs a match-everything parent
    par, chi = parent.split("/"), child.split("/")
    reach = [True] + [False] * len(chi)
    for seg in par:
        nxt = [False] * (len(chi) + 1)
        if seg == "**":
            seen = False
            for j in range(len(chi) + 1):
                seen = seen or reach[j]
                nxt[j] = seen
        else:
            for j in range(len(chi)):
                c = chi[j]
                if not reach[j]:
                    continue
                if seg == "*":
                    ok = c != "" and c != "**"  # a non-empty literal or `*`
                else:
                    ok = c == seg and c not in ("*", "**")  # identical literal
                if ok:
                    nxt[j + 1] = True
        reach = nxt
    return reach[len(chi)]


def capability_subset(child: dict, parent: dict) -> bool:
    return (
        child["namespace"] == parent["namespace"]
        and child["action"] == parent["action"]
        and resource_covers(parent["resource"], child["resource"])
    )


# ---------------------------------------------------------------------------------------------
# 5. DCTs: decoding (step 1), revocation entries, verification (§10.1)
# ---------------------------------------------------------------------------------------------

_CONTRACT_ID_RE = re.compile(r"ct_[0-9a-f]{12}")
_DELEGATION_ID_RE = re.compile(r"del_[0-9a-f]{12}")

AUTHORITY_KEYS = {
    "issuer", "delegatee", "capabilities", "contractId", "delegationId", "parentDelegationId",
    "chainDepth", "maxChainDepth", "maxBudgetMicrocents", "expiresAt", "issuedAt",
}
ATTENUATION_REQUIRED = {"attenuator", "delegatee", "delegationId", "contractId"}
ATTENUATION_OPTIONAL = {"allowedCapabilities", "maxBudgetMicrocents", "expiresAt", "maxChainDepth"}


def is_protocol_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_SAFE_INTEGER


def is_capability(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and set(v) == {"namespace", "action", "resource"}
        and isinstance(v["namespace"], str) and v["namespace"] != ""
        and isinstance(v["action"], str) and v["action"] != ""
        and isinstance(v["resource"], str)
    )


def _is_timestamp(v: Any) -> bool:
    try:
        parse_timestamp(v)
        return True
    except DelegateError:
        return False


def _malformed(detail: str) -> DelegateError:
    return DelegateError("malformed_token", detail)


def _require(cond: bool, detail: str) -> None:
    if not cond:
        raise _malformed(detail)


def _check_capabilities(caps: Any, where: str) -> None:
    _require(isinstance(caps, list) and all(is_capability(c) for c in caps), f"{where}: bad capabilities")


def _check_authority(a: Any) -> None:
    _require(isinstance(a, dict) and set(a) == AUTHORITY_KEYS, "authority: wrong members")
    _require(principal_key(a["issuer"]) is not None, "authority.issuer: bad principal id")
    _require(principal_key(a["delegatee"]) is not None, "authority.delegatee: bad principal id")
    _check_capabilities(a["capabilities"], "authority")
    _require(isinstance(a["contractId"], str) and bool(_CONTRACT_ID_RE.fullmatch(a["contractId"])), "authority.contractId")
    for key in ("delegationId", "parentDelegationId"):
        _require(isinstance(a[key], str) and bool(_DELEGATION_ID_RE.fullmatch(a[key])), f"authority.{key}")
    for key in ("chainDepth", "maxChainDepth", "maxBudgetMicrocents"):
        _require(is_protocol_int(a[key]), f"authority.{key}: not a protocol integer")
    for key in ("expiresAt", "issuedAt"):
        _require(_is_timestamp(a[key]), f"authority.{key}: bad timestamp")


def _check_attenuation(t: Any, i: int) -> None:
    _require(isinstance(t, dict), f"attenuations[{i}]: not an object")
    keys = set(t)
    _require(ATTENUATION_REQUIRED <= keys <= ATTENUATION_REQUIRED | ATTENUATION_OPTIONAL, f"attenuations[{i}]: wrong members")
    _require(principal_key(t["attenuator"]) is not None, f"attenuations[{i}].attenuator")
    _require(principal_key(t["delegatee"]) is not None, f"attenuations[{i}].delegatee")
    _require(isinstance(t["delegationId"], str) and bool(_DELEGATION_ID_RE.fullmatch(t["delegationId"])), f"attenuations[{i}].delegationId")
    _require(isinstance(t["contractId"], str) and bool(_CONTRACT_ID_RE.fullmatch(t["contractId"])), f"attenuations[{i}].contractId")
    if "allowedCapabilities" in t:
        _check_capabilities(t["allowedCapabilities"], f"attenuations[{i}]")
    for key in ("maxBudgetMicrocents", "maxChainDepth"):
        if key in t:
            _require(is_protocol_int(t[key]), f"attenuations[{i}].{key}")
    if "expiresAt" in t:
        _require(_is_timestamp(t["expiresAt"]), f"attenuations[{i}].expiresAt")


def _check_signature_entry(s: Any, i: int) -> None:
    _require(isinstance(s, dict) and set(s) == {"signer", "signature", "covers"}, f"signatures[{i}]: wrong members")
    _require(principal_key(s["signer"]) is not None, f"signatures[{i}].signer")
    _require(signature_bytes(s["signature"]) is not None, f"signatures[{i}].signature")
    _require(s["covers"] == "authority" or is_protocol_int(s["covers"]), f"signatures[{i}].covers")


def decode_token(serialized: Any) -> dict:
    """§10.1 step 1 (D9, D19, D33): a SerializedDCT value → the decoded SignedJSONToken."""
    _require(isinstance(serialized, dict) and set(serialized) == {"token", "format"}, "SerializedDCT must be {token, format}")
    _require(serialized["format"] == TOKEN_FORMAT, "wrong format")
    text = serialized["token"]
    _require(isinstance(text, str) and len(text) <= MAX_TOKEN_CHARS, "token must be a string of at most 1 MiB")
    try:
        raw = b64url_decode(text)
    except DelegateError as e:
        raise _malformed(f"token: {e.detail}") from e
    _require(not raw.startswith(b"\xef\xbb\xbf"), "byte order mark")
    try:
        json_text = raw.decode("utf-8")  # strict: invalid UTF-8 and encoded surrogates fail
        token = parse_json(json_text)
    except (UnicodeDecodeError, ValueError) as e:
        raise _malformed(f"decoded token: {e}") from e
    _require(isinstance(token, dict), "decoded token is not an object")
    _require(canonicalize(token) == json_text, "decoded token is not canonical JSON (RFC 8785)")
    _require(set(token) == {"format", "authority", "attenuations", "signatures"}, "token: wrong members")
    _require(token["format"] == TOKEN_FORMAT, "token.format")
    _check_authority(token["authority"])
    _require(isinstance(token["attenuations"], list), "attenuations must be an array")
    for i, t in enumerate(token["attenuations"]):
        _check_attenuation(t, i)
    _require(isinstance(token["signatures"], list), "signatures must be an array")
    for i, s in enumerate(token["signatures"]):
        _check_signature_entry(s, i)
    return token


def revocation_id(block: dict) -> str:
    """§3.5: base64url(BLAKE2b-256(canonicalize(block)))."""
    return b64url_encode(blake2b256(canonical_bytes(block)))


def token_revocation_ids(token: dict) -> list[str]:
    return [revocation_id(token["authority"])] + [revocation_id(t) for t in token["attenuations"]]


ENTRY_KEYS = {"revocationId", "revokedBy", "revokedAt", "scope", "signature"}


def check_revocation_entry(entry: Any) -> None:
    """What RevocationList.add refuses (D6, D22): shape, then scope, then signature."""
    if not isinstance(entry, dict) or set(entry) != ENTRY_KEYS:
        raise DelegateError("malformed_entry", "entry must have exactly the §4.1 members")
    rid = entry["revocationId"]
    well_formed = (
        isinstance(rid, str) and bool(_PRINCIPAL_RE.fullmatch(rid)) and principal_key(rid) is not None
        and principal_key(entry["revokedBy"]) is not None
        and _is_timestamp(entry["revokedAt"])
        and isinstance(entry["scope"], str)
        and signature_bytes(entry["signature"]) is not None
    )
    if not well_formed:
        raise DelegateError("malformed_entry", "bad member value")
    if entry["scope"] not in ("block", "chain"):
        raise DelegateError("invalid_scope", f"scope {entry['scope']!r}")
    signed = {k: entry[k] for k in ("revocationId", "revokedBy", "revokedAt", "scope")}
    if not ed25519_verify(principal_key(entry["revokedBy"]), blake2b256(canonical_bytes(signed)), signature_bytes(entry["signature"])):
        raise DelegateError("invalid_signature", "entry signature does not verify under revokedBy")


class ChainState:
    """The effective values of §10.1 step 4 (also used by attenuate, §3.4)."""

    def __init__(self, authority: dict):
        self.caps = authority["capabilities"]
        self.budget = authority["maxBudgetMicrocents"]
        self.expiry = parse_timestamp(authority["expiresAt"])
        self.delegatee = authority["delegatee"]
        # D4: authority.maxChainDepth is absolute; what is left is counted down per attenuation.
        self.remaining = authority["maxChainDepth"] - authority["chainDepth"]
        # §10.1 step 8 reports effectiveMaxDepth: the last value set, else the authority's.
        self.effective_max_depth = authority["maxChainDepth"]
        if self.remaining < 0:
            raise DelegateError("chain_depth_exceeded", "authority.chainDepth > authority.maxChainDepth",
                                {"max": authority["maxChainDepth"], "actual": authority["chainDepth"]})
        self.depth = authority["chainDepth"]  # of the last block applied

    def apply(self, t: dict, i: int) -> None:
        """Steps 4a-4e for attenuation i, then narrow."""

        def violation(why: str) -> DelegateError:
            return DelegateError("attenuation_violation", f"attenuations[{i}]: {why}")

        if t["attenuator"] != self.delegatee:
            raise violation("attenuator is not the current delegatee")
        if "allowedCapabilities" in t:
            for cap in t["allowedCapabilities"]:
                if not any(capability_subset(cap, p) for p in self.caps):
                    raise violation("capability expansion")
            self.caps = t["allowedCapabilities"]
        if "maxBudgetMicrocents" in t:
            if t["maxBudgetMicrocents"] > self.budget:
                raise violation("budget expansion")
            self.budget = t["maxBudgetMicrocents"]
        if "expiresAt" in t:
            expiry = parse_timestamp(t["expiresAt"])
            if expiry > self.expiry:
                raise violation("expiry extension")
            self.expiry = expiry
        if self.remaining == 0:
            raise DelegateError("chain_depth_exceeded", f"attenuations[{i}] goes deeper than allowed",
                                {"max": self.depth, "actual": self.depth + 1})
        if "maxChainDepth" in t:
            if t["maxChainDepth"] >= self.remaining:
                raise violation("depth expansion")
            self.remaining = t["maxChainDepth"]
            self.effective_max_depth = t["maxChainDepth"]
        else:
            self.remaining -= 1
        self.depth += 1
        self.delegatee = t["delegatee"]


def verify_dct(serialized: Any, ctx: dict, check_request: bool = True) -> dict:
    """§10.1 VERIFY_DCT with the decisions D4-D8, D16, D20, D21. Returns the AuthorizedScope.

    `ctx` = {namespace, action, resource, now, spentMicrocents, rootPublicKey, revocations}
    (already shape-checked by the adapter; revocations is a list of raw entries)."""
    # Step 1: deserialize.
    token = decode_token(serialized)
    authority, attenuations, signatures = token["authority"], token["attenuations"], token["signatures"]

    # Step 2: revocations. Only well-formed, well-signed entries count (add() refuses the rest),
    # and only when revokedBy is the signer of the block they name (D6).
    valid_entries = set()
    for entry in ctx["revocations"]:
        try:
            check_revocation_entry(entry)
        except DelegateError:
            continue
        valid_entries.add((entry["revocationId"], entry["revokedBy"]))
    blocks = [(authority, authority["issuer"])] + [(t, t["attenuator"]) for t in attenuations]
    for block, signer in blocks:
        rid = revocation_id(block)
        if (rid, signer) in valid_entries:
            raise DelegateError("revoked", "a block of the token is revoked by its signer", {"revocationId": rid})

    # Step 3: signatures (D8, D16). Exactly one per block, covers/signer matching the block,
    # always verified under the block's key, never under `signer`.
    def bad_sig(detail: str) -> DelegateError:
        return DelegateError("invalid_signature", detail)

    if authority["issuer"] != ctx["rootPublicKey"]:
        raise bad_sig("authority.issuer is not the root key")
    if len(signatures) != 1 + len(attenuations):
        raise bad_sig("signature count is not 1 + attenuations")
    for i, sig in enumerate(signatures):
        if i == 0:
            key_id, covers = authority["issuer"], "authority"
            payload = {"authority": authority}
        else:
            key_id, covers = attenuations[i - 1]["attenuator"], i - 1
            payload = {"authority": authority, "attenuations": attenuations[:i]}
        if sig["covers"] != covers or isinstance(sig["covers"], bool):
            raise bad_sig(f"signatures[{i}].covers")
        if sig["signer"] != key_id:
            raise bad_sig(f"signatures[{i}].signer is not the block's signer")
        digest = blake2b256(canonical_bytes(payload))
        if not ed25519_verify(principal_key(key_id), digest, signature_bytes(sig["signature"])):
            raise bad_sig(f"signatures[{i}] does not verify")

    # Step 4: the attenuation chain, narrowing the effective values (D3, D4).
    chain = ChainState(authority)
    for i, t in enumerate(attenuations):
        chain.apply(t, i)

    # Step 5: expiry (now == expiry is not expired).
    try:
        now = parse_timestamp(ctx["now"])
    except DelegateError as e:
        raise _malformed(f"context.now: {e.detail}") from e
    if now > chain.expiry:
        raise DelegateError("expired", "now is after the effective expiry")

    # Step 6: budget (D21).
    if ctx["spentMicrocents"] >= chain.budget:
        raise DelegateError("budget_exceeded", "spent >= effective budget", {"limit": chain.budget, "spent": ctx["spentMicrocents"]})

    # Step 7: the requested capability (D20). (Chains verify through step 6 only, D26.)
    if check_request and not any(
        c["namespace"] == ctx["namespace"] and c["action"] == ctx["action"] and glob_match(c["resource"], ctx["resource"])
        for c in chain.caps
    ):
        raise DelegateError("capability_not_granted", "no effective capability grants the request")

    # Step 8: the authorized scope.
    last = attenuations[-1] if attenuations else authority
    return {
        "capabilities": chain.caps,
        "remainingBudgetMicrocents": chain.budget - ctx["spentMicrocents"],
        "chainDepth": authority["chainDepth"] + len(attenuations),
        "maxChainDepth": chain.effective_max_depth,
        "contractId": last["contractId"],
        "delegationId": last["delegationId"],
    }


def check_token_formats(token: dict) -> None:
    """The structural rules of step 1 on an already-parsed token (used by create/attenuate)."""
    _require(set(token) == {"format", "authority", "attenuations", "signatures"}, "token: wrong members")
    _check_authority(token["authority"])
    for i, t in enumerate(token["attenuations"]):
        _check_attenuation(t, i)
    for i, s in enumerate(token["signatures"]):
        _check_signature_entry(s, i)


def serialize(token: dict) -> dict:
    return {"token": b64url_encode(canonical_bytes(token)), "format": TOKEN_FORMAT}


def create_dct(issuer_seed: bytes, params: dict) -> dict:
    """§3.3 CREATE_DCT with D23: refuse what verify would reject."""
    authority = {"issuer": principal_from_seed(issuer_seed), **params}
    check_token_formats({"format": TOKEN_FORMAT, "authority": authority, "attenuations": [], "signatures": []})
    if authority["chainDepth"] > authority["maxChainDepth"]:
        raise DelegateError("chain_depth_exceeded", "chainDepth > maxChainDepth")
    digest = blake2b256(canonical_bytes({"authority": authority}))
    signature = {"signer": authority["issuer"], "signature": b64url_encode(ed25519_sign(issuer_seed, digest)), "covers": "authority"}
    return serialize({"format": TOKEN_FORMAT, "authority": authority, "attenuations": [], "signatures": [signature]})


def attenuate_dct(serialized: Any, attenuator_seed: bytes, params: dict) -> dict:
    """§3.4 ATTENUATE_DCT with D4/D23 (existing signatures are not re-checked)."""
    token = decode_token(serialized)
    chain = ChainState(token["authority"])
    for i, t in enumerate(token["attenuations"]):
        chain.apply(t, i)
    attenuation = {"attenuator": principal_from_seed(attenuator_seed), **params}
    attenuations = token["attenuations"] + [attenuation]
    check_token_formats({**token, "attenuations": attenuations, "signatures": []})
    chain.apply(attenuation, len(attenuations) - 1)
    digest = blake2b256(canonical_bytes({"authority": token["authority"], "attenuations": attenuations}))
    signature = {"signer": attenuation["attenuator"], "signature": b64url_encode(ed25519_sign(attenuator_seed, digest)), "covers": len(attenuations) - 1}
    return serialize({**token, "attenuations": attenuations, "signatures": token["signatures"] + [signature]})


# ---------------------------------------------------------------------------------------------
# 6. Revocation entries and the revocation list (§4, D6, D22)
# ---------------------------------------------------------------------------------------------


def create_revocation_entry(revoker_seed: bytes, revocation_id_: str, revoked_at: str, scope: str) -> dict:
    if scope not in ("block", "chain"):
        raise DelegateError("invalid_scope", f"scope {scope!r}")
    parse_timestamp(revoked_at)  # invalid_timestamp
    body = {"revocationId": revocation_id_, "revokedBy": principal_from_seed(revoker_seed), "revokedAt": revoked_at, "scope": scope}
    signature = b64url_encode(ed25519_sign(revoker_seed, blake2b256(canonical_bytes(body))))
    entry = {**body, "signature": signature}
    check_revocation_entry(entry)  # e.g. a revocationId that is not a 43-character digest
    return entry


class RevocationList:
    """§4.2 with D22: add() re-verifies; a repeated (revocationId, revokedBy) is a no-op."""

    def __init__(self) -> None:
        self.entries: list[dict] = []

    def add(self, entry: Any) -> None:
        check_revocation_entry(entry)
        if not any(e["revocationId"] == entry["revocationId"] and e["revokedBy"] == entry["revokedBy"] for e in self.entries):
            self.entries.append(entry)

    def is_revoked(self, revocation_id_: str) -> bool:
        return any(e["revocationId"] == revocation_id_ for e in self.entries)

    def to_json(self) -> str:
        return canonicalize(self.entries)

    @classmethod
    def from_json(cls, text: str) -> "RevocationList":
        try:
            value = parse_json(text)
        except ValueError as e:
            raise DelegateError("invalid_json", str(e)) from e
        if not isinstance(value, list):
            raise DelegateError("malformed_entry", "fromJSON text must be an array of entries")
        result = cls()
        for entry in value:
            # All or nothing, in order: the first bad entry (a non-object included) fails the list.
            result.add(entry)
        return result


# ---------------------------------------------------------------------------------------------
# 7. Delegation chains (§8, D26)
# ---------------------------------------------------------------------------------------------

ROOT_PARENT_ID = "del_000000000000"
DELEGATION_REQUIRED = {"id", "parentId", "from", "to", "contractId", "dct", "depth", "status", "createdAt"}
DELEGATION_OPTIONAL = {"completedAt", "attestationId"}
_ATTESTATION_ID_RE = re.compile(r"att_[0-9a-f]{12}")


def _check_delegation(d: Any) -> None:
    def ok(cond: bool, what: str) -> None:
        if not cond:
            raise DelegateError("malformed_delegation", what)

    ok(isinstance(d, dict) and DELEGATION_REQUIRED <= set(d) <= DELEGATION_REQUIRED | DELEGATION_OPTIONAL, "wrong members")
    for key in ("id", "parentId"):
        ok(isinstance(d[key], str) and bool(_DELEGATION_ID_RE.fullmatch(d[key])), key)
    ok(principal_key(d["from"]) is not None and principal_key(d["to"]) is not None, "from/to")
    ok(isinstance(d["contractId"], str) and bool(_CONTRACT_ID_RE.fullmatch(d["contractId"])), "contractId")
    ok(isinstance(d["dct"], dict) and set(d["dct"]) == {"token", "format"}, "dct")
    ok(is_protocol_int(d["depth"]), "depth")
    ok(d["status"] in ("active", "completed", "failed", "revoked"), "status")
    ok(_is_timestamp(d["createdAt"]), "createdAt")
    if "completedAt" in d:
        ok(_is_timestamp(d["completedAt"]), "completedAt")
    if "attestationId" in d:
        ok(isinstance(d["attestationId"], str) and bool(_ATTESTATION_ID_RE.fullmatch(d["attestationId"])), "attestationId")


def verify_chain(delegations: Any, root_public_key: str, now: str, revocations: list) -> None:
    """D26: per delegation, root first, the first failure of shape, root/parent link, from,
    depth, depth bound, one-attenuation step, the DCT through §10.1 steps 1-6, and whether
    the DCT describes the record (id, contractId, to, from)."""
    if not isinstance(delegations, list) or not delegations:
        raise DelegateError("malformed_delegation", "the chain must be a non-empty array")
    ctx = {"now": now, "spentMicrocents": 0, "rootPublicKey": root_public_key, "revocations": revocations}
    parent, parent_token, root_max = None, None, None
    for i, d in enumerate(delegations):
        _check_delegation(d)
        if parent is None:
            if d["parentId"] != ROOT_PARENT_ID or d["depth"] != 0:
                raise DelegateError("root_invalid", "root delegation needs parentId del_000000000000 and depth 0")
        else:
            if d["parentId"] != parent["id"]:
                raise DelegateError("parent_mismatch", f"delegations[{i}].parentId")
            if d["from"] != parent["to"]:
                raise DelegateError("from_mismatch", f"delegations[{i}].from")
            if d["depth"] != parent["depth"] + 1:
                raise DelegateError("depth_mismatch", f"delegations[{i}].depth")
        token = decode_token(d["dct"])
        if root_max is None:
            root_max = token["authority"]["maxChainDepth"]
        if d["depth"] > root_max:
            raise DelegateError("depth_exceeded", f"delegations[{i}].depth > root maxChainDepth")
        if parent_token is not None:
            n = len(parent_token["attenuations"])
            attenuated = (
                token["authority"] == parent_token["authority"]
                and len(token["attenuations"]) == n + 1
                and token["attenuations"][:n] == parent_token["attenuations"]
                and token["signatures"][: n + 1] == parent_token["signatures"]
            )
            if not attenuated:
                raise DelegateError("not_attenuated", f"delegations[{i}] is not its parent plus one attenuation")
        verify_dct(d["dct"], ctx, check_request=False)
        # The DCT must describe the record it sits in.
        last = token["attenuations"][-1] if token["attenuations"] else token["authority"]
        signer = last["attenuator"] if token["attenuations"] else last["issuer"]
        described = (
            last["delegationId"] == d["id"]
            and last["contractId"] == d["contractId"]
            and last["delegatee"] == d["to"]
            and signer == d["from"]
        )
        if not described:
            raise DelegateError("dct_mismatch", f"delegations[{i}]'s DCT does not describe the record")
        parent, parent_token = d, token


def verify_chain_store(delegations: Any, leaf_id: str, root_public_key: str, now: str, revocations: list) -> None:
    """D44: the chain ending at `leaf_id` in a store keyed by id (architecture §7 ChainStore),
    whatever the order of `delegations`: follow parentId from the leaf while the parent is
    stored and not yet on the path, then verify that path root first (D26)."""
    if not isinstance(delegations, list):
        raise DelegateError("malformed_delegation", "the store must be an array")
    store: dict[str, Any] = {}
    for d in delegations:
        key = d.get("id") if isinstance(d, dict) else None
        if isinstance(key, str):
            if key in store:
                raise DelegateError("malformed_delegation", f"two delegations with id {key!r}")
            store[key] = d
    path, seen, current = [], set(), leaf_id
    while isinstance(current, str) and current in store and current not in seen:
        seen.add(current)
        record = store[current]
        path.append(record)
        current = record.get("parentId")
        if current == ROOT_PARENT_ID:
            break
    verify_chain(list(reversed(path)), root_public_key, now, revocations)


# ---------------------------------------------------------------------------------------------
# Contracts and attestations: the spec-shaped functions only (architecture §5.1, §8)
# ---------------------------------------------------------------------------------------------
def verify_signature_under(obj: Any, public_key: Any) -> bool:
    """`verifyAttestationSignature(a, key)` / `verifyContractSignature(c, key)`: the signature
    over canonicalize(obj without signature) → BLAKE2b-256 → Ed25519, under the key PASSED
    (D42). Anything that cannot verify is False."""
    if not isinstance(obj, dict):
        return False
    key, sig = principal_key(public_key), signature_bytes(obj.get("signature"))
    if key is None or sig is None:
        return False
    payload = {k: v for k, v in obj.items() if k != "signature"}
    try:
        digest = blake2b256(canonical_bytes(payload))
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError):
        return False
    return ed25519_verify(key, digest, sig)


def check_contract_shape(contract: Any) -> None:
    """The parts of the contract shape (D27) that binding reads."""
    ok = (
        isinstance(contract, dict)
        and isinstance(contract.get("id"), str)
        and _CONTRACT_ID_RE.fullmatch(contract["id"]) is not None
        and isinstance(contract.get("constraints"), dict)
        and isinstance(contract["constraints"].get("requiredCapabilities"), list)
        and all(isinstance(r, str) for r in contract["constraints"]["requiredCapabilities"])
    )
    if not ok:
        raise DelegateError("malformed_contract", "contract id or requiredCapabilities")


def check_binding(contract: Any, serialized: Any) -> None:
    """§5.2 as written (D43, D11): on the decoded token, last contractId = contract.id and
    every required `ns:action` (split at the first `:`) has an effective capability."""
    check_contract_shape(contract)
    token = decode_token(serialized)
    last = token["attenuations"][-1] if token["attenuations"] else token["authority"]
    if last["contractId"] != contract["id"]:
        raise DelegateError("contract_mismatch", "token is bound to another contract")
    caps = token["authority"]["capabilities"]
    for t in token["attenuations"]:
        if "allowedCapabilities" in t:
            caps = t["allowedCapabilities"]
    for req in contract["constraints"]["requiredCapabilities"]:
        ns, _, action = req.partition(":")
        if not ns or not action or not any(c["namespace"] == ns and c["action"] == action for c in caps):
            raise DelegateError("capability_mismatch", f"{req} not granted")


# ---------------------------------------------------------------------------------------------
# 8. Checks and output verification (§6.2-§6.4, §10.3; D12, D28, D29, D30)
# ---------------------------------------------------------------------------------------------
# `ecmaregex` (ECMAScript patterns; its linear mode runs them as an automaton) and `draft07`
# (JSON Schema draft-07) sit beside this file. A failing check is a result (`passed: false`);
# a check that cannot be evaluated raises DelegateError with an output-verification code.

MAX_PATTERN_UNITS = 1024  # D12: pattern length in UTF-16 code units
MAX_SUBJECT_BYTES = 1 << 20  # D12: subject length in UTF-8 bytes
MAX_SPEC_DEPTH = 32  # D30: composite nesting
SCORE_TOLERANCE = 1e-9  # D12
VERIFICATION_KEYS = ("method", "schema", "checkName", "checkParams", "expectedResult", "steps", "mode", "weights", "passThreshold")


class Unsupported(Exception):
    """Something the standard library has no data for (a `\\p{Script=…}` property): skipped."""


def _params_error(detail: str) -> DelegateError:
    return DelegateError("invalid_params", detail)


def _result(passed: bool) -> dict:
    return {"passed": passed, "score": 1.0 if passed else 0.0}  # D28: every built-in scores 1/0


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_params(check: str, params: Any, allowed: tuple) -> dict:
    """D28: params are an object with only the documented members (absent or null = {})."""
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise _params_error(f"{check}: params must be an object")
    for key in params:
        if key not in allowed:
            raise _params_error(f"{check}: unknown param {key!r}")
    return params


def _opt_string(check: str, params: dict, key: str) -> str | None:
    value = params.get(key)
    if key in params and not isinstance(value, str):
        raise _params_error(f"{check}: {key} must be a string")
    return value


def _opt_count(check: str, params: dict, key: str) -> int | None:
    """D28: `min`/`max` are integers 0..2^53-1 (a zero-fraction number such as 3.0 counts)."""
    if key not in params:
        return None
    v = params[key]
    if not _is_number(v) or not float(v).is_integer() or not 0 <= v <= MAX_SAFE_INTEGER:
        raise _params_error(f"{check}: {key} must be a non-negative integer")
    return int(v)


def resolve_path(value: Any, path: str) -> tuple[bool, Any]:
    """D12/D28 dot-paths: own object keys; arrays by canonical decimal index; split on every `.`."""
    for key in path.split("."):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and re.fullmatch(r"0|[1-9][0-9]*", key) and int(key) < len(value):
            value = value[int(key)]
        else:
            return False, None
    return True, value


def _target(output: Any, field: str | None) -> tuple[bool, Any]:
    return (True, output) if field is None else resolve_path(output, field)


def utf16_length(text: str) -> int:
    """JavaScript `.length` (D12)."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def compile_pattern(pattern: str, flags: str, code: str = "invalid_params") -> "ecmaregex.LinearRegex":
    """D12: `new RegExp(pattern, flags)` on the linear-time engine. Flags `i m s u`, each once;
    pattern <= 1024 UTF-16 units; lookaround and backreferences are `unsupported_pattern`."""
    seen = set()
    for f in flags:
        if f not in "imsu" or f in seen:
            raise _params_error(f"flag {f!r} is not allowed (D12)")
        seen.add(f)
    if utf16_length(pattern) > MAX_PATTERN_UNITS:
        raise DelegateError("limit_exceeded", "pattern longer than 1024 UTF-16 units")
    try:
        return ecmaregex.compile_linear(pattern, flags)
    except ecmaregex.JsSyntaxError as e:
        raise DelegateError(code, f"SyntaxError: {e}") from e
    except ecmaregex.NotRegular as e:
        raise DelegateError("unsupported_pattern", str(e)) from e
    except ecmaregex.TooLarge as e:
        raise DelegateError("limit_exceeded", str(e)) from e
    except ecmaregex.Unsupported as e:
        raise Unsupported(str(e)) from e


def check_regex_match(output: Any, params: Any) -> dict:
    """§6.2 regex_match {pattern, flags?, field?} with D12: a missing field or a non-string
    value fails (never stringified); subject <= 1 MiB."""
    p = _check_params("regex_match", params, ("pattern", "flags", "field"))
    pattern = _opt_string("regex_match", p, "pattern")
    if pattern is None:
        raise _params_error("regex_match: pattern is required")
    flags = _opt_string("regex_match", p, "flags") or ""
    field = _opt_string("regex_match", p, "field")
    regex = compile_pattern(pattern, flags)
    found, subject = _target(output, field)
    if not found or not isinstance(subject, str):
        return _result(False)
    if len(subject.encode("utf-8", "surrogatepass")) > MAX_SUBJECT_BYTES:
        raise DelegateError("limit_exceeded", "subject longer than 1 MiB")
    return _result(regex.test(subject))


def validate_schema(schema: Any, instance: Any) -> bool:
    """§6.2 json_schema / §10.3 schema_match with D29: draft-07, ajv strict's refusals."""
    try:
        draft07.check_d29(schema)
        return draft07.valid(instance, schema, schema, linear=True)
    except draft07.SchemaError as e:
        raise DelegateError("invalid_schema", str(e)) from e
    except draft07.TooDeep as e:
        raise DelegateError("limit_exceeded", str(e)) from e
    except (draft07.Unsupported, ecmaregex.Unsupported) as e:
        raise Unsupported(str(e)) from e


def check_json_schema(output: Any, params: Any) -> dict:
    p = _check_params("json_schema", params, ("schema",))
    if "schema" not in p:
        raise _params_error("json_schema: schema is required")
    return _result(validate_schema(p["schema"], output))


def _length_check(check: str, output: Any, params: Any, measure) -> dict:
    """§6.2 string_length / array_length with D28: min > max is invalid_params; a missing or
    mistyped value fails."""
    p = _check_params(check, params, ("min", "max", "field"))
    lo, hi = _opt_count(check, p, "min"), _opt_count(check, p, "max")
    field = _opt_string(check, p, "field")
    if lo is not None and hi is not None and lo > hi:
        raise _params_error(f"{check}: min > max")
    found, value = _target(output, field)
    length = measure(value) if found else None
    if length is None:
        return _result(False)
    return _result((lo is None or length >= lo) and (hi is None or length <= hi))


def check_string_length(output: Any, params: Any) -> dict:
    return _length_check("string_length", output, params, lambda v: utf16_length(v) if isinstance(v, str) else None)


def check_array_length(output: Any, params: Any) -> dict:
    return _length_check("array_length", output, params, lambda v: len(v) if isinstance(v, list) else None)


def check_field_exists(output: Any, params: Any) -> dict:
    """§6.2 field_exists {fields} (D28): a present null exists; an empty list passes."""
    fields = _check_params("field_exists", params, ("fields",)).get("fields")
    if not isinstance(fields, list) or not all(isinstance(f, str) for f in fields):
        raise _params_error("field_exists: fields must be an array of strings")
    return _result(all(resolve_path(output, f)[0] for f in fields))


def check_exit_code(output: Any, params: Any) -> dict:
    """§6.2 exit_code {expected} (D28): `expected` an integral number; `output.exitCode` a number."""
    expected = _check_params("exit_code", params, ("expected",)).get("expected")
    if not _is_number(expected) or not float(expected).is_integer():
        raise _params_error("exit_code: expected must be an integer")
    actual = output.get("exitCode") if isinstance(output, dict) else None
    return _result(_is_number(actual) and float(actual) == float(expected))


def canonical_equal(a: Any, b: Any) -> bool:
    try:
        return canonical_bytes(a) == canonical_bytes(b)
    except (TypeError, ValueError, OverflowError) as e:
        raise _params_error(f"value cannot be canonicalized: {e}") from e


def check_output_equals(output: Any, params: Any) -> dict:
    """§6.2 output_equals {expected}: RFC 8785 canonical forms are equal (D12)."""
    p = _check_params("output_equals", params, ("expected",))
    if "expected" not in p:
        raise _params_error("output_equals: expected is required")
    return _result(canonical_equal(output, p["expected"]))


# §6.3 createDefaultRegistry: the seven built-ins.
REGISTRY = {
    "regex_match": check_regex_match,
    "json_schema": check_json_schema,
    "string_length": check_string_length,
    "array_length": check_array_length,
    "field_exists": check_field_exists,
    "exit_code": check_exit_code,
    "output_equals": check_output_equals,
}


def registry_get(name: Any):
    if not isinstance(name, str) or name not in REGISTRY:
        raise DelegateError("unknown_check", f"no check named {name!r}")
    return REGISTRY[name]


def run_check(name: Any, output: Any, params: Any = None) -> dict:
    return registry_get(name)(output, params)


def _spec_error(detail: str) -> DelegateError:
    return DelegateError("invalid_spec", detail)


def _check_spec_shape(spec: Any) -> None:
    """D30: the whole VerificationSpec tree is read before anything runs: known members only,
    a known `method` and `mode`, `checkName` a string, numeric weights and threshold (null
    counts as absent for `checkName`, `steps`, `mode`, `weights`, `passThreshold`)."""
    if not isinstance(spec, dict):
        raise _spec_error("a VerificationSpec is an object")
    for key in spec:
        if key not in VERIFICATION_KEYS:
            raise _spec_error(f"unknown member {key!r}")
    if spec.get("method") not in ("schema_match", "deterministic_check", "composite"):
        raise _spec_error(f"method {spec.get('method')!r}")  # v0.2 methods included
    if spec.get("checkName") is not None and not isinstance(spec["checkName"], str):
        raise _spec_error("checkName must be a string")
    if spec.get("mode") is not None and spec["mode"] not in ("all_pass", "majority", "weighted"):
        raise _spec_error(f"mode {spec['mode']!r}")
    weights = spec.get("weights")
    if weights is not None and (not isinstance(weights, list) or not all(_is_number(w) for w in weights)):
        raise _spec_error("weights must be an array of numbers")
    if spec.get("passThreshold") is not None and not _is_number(spec["passThreshold"]):
        raise _spec_error("passThreshold must be a number")
    steps = spec.get("steps")
    if steps is not None:
        if not isinstance(steps, list):
            raise _spec_error("steps must be an array")
        for step in steps:
            _check_spec_shape(step)


def _expected_result(value: Any) -> tuple[bool, float | None]:
    """D28: `expectedResult` is {passed, score?, details?}; details never compared."""
    if not isinstance(value, dict) or any(k not in ("passed", "score", "details") for k in value):
        raise _spec_error("expectedResult must be {passed, score?, details?}")
    if not isinstance(value.get("passed"), bool):
        raise _spec_error("expectedResult.passed must be a boolean")
    if "score" in value and not _is_number(value["score"]):
        raise _spec_error("expectedResult.score must be a number")
    if "details" in value and not isinstance(value["details"], str):
        raise _spec_error("expectedResult.details must be a string")
    return value["passed"], value.get("score")


def _in_unit(x: float) -> bool:
    return 0.0 <= x <= 1.0  # numbers from JSON are finite


def _verify(spec: dict, output: Any, depth: int) -> dict:
    present = lambda key: spec.get(key) is not None  # noqa: E731 (serde's Option: null = absent)
    has_schema = "schema" in spec
    has_check = present("checkName") or "checkParams" in spec or "expectedResult" in spec
    has_comp = any(present(k) for k in ("steps", "mode", "weights", "passThreshold"))
    method = spec["method"]
    # D30: members another method (or, for weights, another mode) uses are invalid_spec.
    extra = {
        "schema_match": has_check or has_comp,
        "deterministic_check": has_schema or has_comp,
        "composite": has_schema or has_check or (present("mode") and spec["mode"] != "weighted" and present("weights")),
    }[method]
    if extra:
        raise _spec_error("member not used by this method or mode (D30)")
    if method == "schema_match":
        if not has_schema:
            raise _spec_error("schema_match requires schema")
        return _result(validate_schema(spec["schema"], output))
    if method == "deterministic_check":
        if not present("checkName"):
            raise _spec_error("deterministic_check requires checkName")
        expected = _expected_result(spec["expectedResult"]) if "expectedResult" in spec else None
        check = registry_get(spec["checkName"])
        result = dict(check(output, spec.get("checkParams")))
        if expected is not None:  # D28: passed := (passed equal, and the score if one is expected)
            passed, score = expected
            result["passed"] = result["passed"] == passed and (
                score is None or ("score" in result and abs(score - result["score"]) <= SCORE_TOLERANCE)
            )
        return result
    return _composite(spec, output, depth + 1)


def _composite(spec: dict, output: Any, depth: int) -> dict:
    """§10.3 / §6.4 composite with D30."""
    if depth > MAX_SPEC_DEPTH:
        raise DelegateError("limit_exceeded", f"composite specs nested deeper than {MAX_SPEC_DEPTH}")
    steps, mode = spec.get("steps"), spec.get("mode")
    if not steps:
        raise _spec_error("composite requires non-empty steps")
    if mode is None:
        raise _spec_error("composite requires mode")
    if mode == "all_pass":  # stops at the first failing step
        for step in steps:
            if not _verify(step, output, depth)["passed"]:
                return {"passed": False, "score": 0.0}
        return {"passed": True, "score": 1.0}
    if mode == "majority":  # strictly more than half
        count = sum(1 for step in steps if _verify(step, output, depth)["passed"])
        return {"passed": 2 * count > len(steps), "score": count / len(steps)}
    weights = spec.get("weights")
    if weights is None or len(weights) != len(steps):
        raise _spec_error("weighted needs one weight per step")
    if not all(_in_unit(w) for w in weights):
        raise _spec_error("every weight must be in [0, 1]")
    weight_sum = 0.0
    for w in weights:  # summed left to right in IEEE double
        weight_sum += w
    if abs(weight_sum - 1.0) > 0.001:  # §6.4: sum to 1.0 (±0.001)
        raise _spec_error("weights must sum to 1 ± 0.001")
    threshold = spec.get("passThreshold")
    threshold = 0.7 if threshold is None else threshold
    if not _in_unit(threshold):
        raise _spec_error("passThreshold must be in [0, 1]")
    total = 0.0
    for w, step in zip(weights, steps):
        r = _verify(step, output, depth)
        total += w * r.get("score", 1.0 if r["passed"] else 0.0)
    return {"passed": total >= threshold - SCORE_TOLERANCE, "score": total}


def verify_output(spec: Any, output: Any) -> dict:
    """§10.3 VERIFY_OUTPUT with the default registry (D12, D28, D30)."""
    _check_spec_shape(spec)
    return _verify(spec, output, 0)


# ---------------------------------------------------------------------------------------------
# 9. Task contracts (§5, D11, D27) and attestations (§7, D13, D25)
# ---------------------------------------------------------------------------------------------
CONTRACT_VERSION = ATTESTATION_VERSION = "0.1"
CONTRACT_KEYS = {"id", "version", "issuer", "createdAt", "task", "verification", "constraints", "signature"}
TASK_KEYS = {"title", "description", "inputs", "outputSchema"}
CONSTRAINT_KEYS = {"maxBudgetMicrocents", "deadline", "maxChainDepth", "requiredCapabilities"}
ATTESTATION_KEYS = {"id", "version", "contractId", "delegationId", "principal", "createdAt", "type", "result", "childAttestations", "signature"}
RESULT_REQUIRED = {"success", "costMicrocents", "durationMs"}
RESULT_OPTIONAL = {"output", "outputHash", "verificationOutcome"}
OUTCOME_KEYS = {"method", "passed", "score", "details"}


def _exact(obj: Any, required: set, optional: set = frozenset()) -> bool:
    return isinstance(obj, dict) and required <= set(obj) <= required | optional


def _is_str(v: Any, pattern: "re.Pattern | None" = None) -> bool:
    return isinstance(v, str) and (pattern is None or pattern.fullmatch(v) is not None)


def split_required(entry: str) -> tuple[str, str] | None:
    """D11/D27: `ns:action` split at the FIRST `:`, both halves non-empty."""
    ns, colon, action = entry.partition(":")
    return (ns, action) if colon and ns and action else None


def contract_problem(c: Any) -> str | None:
    """D27: exactly the §5.1 members (and of `task`, `constraints`, the verification spec, D30),
    version 0.1, ids, principal, timestamps, protocol integers, `ns:action` entries, and a
    signature of 86 strict base64url characters. Returns what is wrong, or None."""
    if not _exact(c, CONTRACT_KEYS):
        return "contract members"
    task, cons = c["task"], c["constraints"]
    if not _exact(task, TASK_KEYS) or not _is_str(task["title"]) or not _is_str(task["description"]):
        return "task"
    if not isinstance(task["inputs"], dict) or not isinstance(task["outputSchema"], dict):
        return "task.inputs / task.outputSchema must be objects"
    try:
        _check_spec_shape(c["verification"])
    except DelegateError as e:
        return f"verification: {e.detail}"
    if not _exact(cons, CONSTRAINT_KEYS):
        return "constraints"
    if not is_protocol_int(cons["maxBudgetMicrocents"]) or not is_protocol_int(cons["maxChainDepth"]):
        return "constraint integers"
    reqs = cons["requiredCapabilities"]
    if not isinstance(reqs, list) or not all(isinstance(r, str) and split_required(r) for r in reqs):
        return "requiredCapabilities entries are ns:action"
    if c["version"] != CONTRACT_VERSION or not _is_str(c["id"], _CONTRACT_ID_RE) or principal_key(c["issuer"]) is None:
        return "version, id or issuer"
    if not _is_timestamp(c["createdAt"]) or not _is_timestamp(cons["deadline"]):
        return "createdAt / deadline"
    if signature_bytes(c["signature"]) is None:
        return "signature is not 86 characters of base64url"
    return None


def parse_contract(c: Any) -> dict:
    problem = contract_problem(c)
    if problem:
        raise DelegateError("malformed_contract", problem)
    return c


def _signing_digest(obj: dict, code: str) -> bytes:
    """BLAKE2b-256 of the canonical object without `signature`, as received (§5.1, §7.2)."""
    try:
        return blake2b256(canonical_bytes({k: v for k, v in obj.items() if k != "signature"}))
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError) as e:
        raise DelegateError(code, f"not canonicalizable: {e}") from e


def _sign_with(seed: bytes, obj: dict, code: str) -> dict:
    digest = _signing_digest(obj, code)
    return {**obj, "signature": b64url_encode(ed25519_sign(seed, digest))}


def _drop_nulls(obj: Any, keys: tuple) -> Any:
    """The typed wire form: an optional member given as null is absent."""
    return {k: v for k, v in obj.items() if not (k in keys and v is None)} if isinstance(obj, dict) else obj


def _typed_spec(spec: Any) -> Any:
    spec = _drop_nulls(spec, ("checkName", "steps", "mode", "weights", "passThreshold"))
    if isinstance(spec, dict) and isinstance(spec.get("steps"), list):
        spec = {**spec, "steps": [_typed_spec(s) for s in spec["steps"]]}
    return spec


def _complete_unsigned(obj: Any, signer_key: str, signer: str) -> dict:
    """The catalogue's convention (operations.md §1): `version` defaults to 0.1, the signer's
    member defaults to (and must equal) the seed's principal, no `signature` yet."""
    if not isinstance(obj, dict):
        raise DelegateError("invalid_input", "the object to sign must be a JSON object")
    if "signature" in obj:
        raise DelegateError("invalid_input", "the object to sign must not contain signature")
    if signer_key in obj and obj[signer_key] != signer:
        raise DelegateError("invalid_input", f"{signer_key} must be the principal of the signing seed")
    return {**obj, signer_key: signer, "version": obj.get("version", CONTRACT_VERSION)}


def create_contract(issuer_seed: bytes, fields: Any) -> dict:
    """createContract (arch §8): fill in, sign, and refuse what verification would (D27)."""
    contract = _complete_unsigned(fields, "issuer", principal_from_seed(issuer_seed))
    contract = {**contract, "verification": _typed_spec(contract.get("verification"))}
    problem = contract_problem({**contract, "signature": "A" * 86})
    if problem:
        raise DelegateError("malformed_contract", problem)
    return _sign_with(issuer_seed, contract, "malformed_contract")


def verify_contract(contract: Any) -> None:
    """verifyContractSignature(contract, contract.issuer): shape, then the signature."""
    parse_contract(contract)
    if not verify_signature_under(contract, contract["issuer"]):
        raise DelegateError("invalid_signature", "the contract signature does not verify under its issuer")


def _required_covered(required: list, caps: list) -> None:
    for req in required:
        ns, action = split_required(req)
        if not any(c["namespace"] == ns and c["action"] == action for c in caps):
            raise DelegateError("capability_mismatch", f"{req} is not granted")


def bind_contract(contract: Any, serialized: Any, now: str, root_public_key: str, revocations: list) -> None:
    """D11: the token verifies (§10.1 steps 1-6, nothing spent), its LAST contractId is the
    contract's, and every required `ns:action` has an effective capability (any resource).
    The contract's own signature is not checked here."""
    parse_contract(contract)
    ctx = {"now": now, "spentMicrocents": 0, "rootPublicKey": root_public_key, "revocations": revocations}
    scope = verify_dct(serialized, ctx, check_request=False)
    if scope["contractId"] != contract["id"]:
        raise DelegateError("contract_mismatch", "the token is bound to another contract")
    _required_covered(contract["constraints"]["requiredCapabilities"], scope["capabilities"])


def attestation_problem(a: Any) -> str | None:
    """D25 step 1: exactly the §7.1 members with well-formed values (null optional members of
    `result` and of `verificationOutcome` count as absent)."""
    if not _exact(a, ATTESTATION_KEYS):
        return "attestation members"
    r = a["result"]
    if not _exact(r, RESULT_REQUIRED, RESULT_OPTIONAL) or not isinstance(r["success"], bool):
        return "result"
    if not is_protocol_int(r["costMicrocents"]) or not is_protocol_int(r["durationMs"]):
        return "result integers"
    if r.get("outputHash") is not None and not isinstance(r["outputHash"], str):
        return "result.outputHash"
    o = r.get("verificationOutcome")
    if o is not None:
        if not _exact(o, {"method", "passed"}, {"score", "details"}) or not isinstance(o["method"], str) or not isinstance(o["passed"], bool):
            return "result.verificationOutcome"
        if o.get("score") is not None and not _is_number(o["score"]):
            return "verificationOutcome.score"
        if o.get("details") is not None and not isinstance(o["details"], str):
            return "verificationOutcome.details"
    if a["type"] not in ("completion", "delegation_verification"):
        return "type"
    children = a["childAttestations"]
    if not isinstance(children, list) or not all(_is_str(x) for x in children):
        return "childAttestations"
    if a["version"] != ATTESTATION_VERSION or not _is_str(a["id"], _ATTESTATION_ID_RE):
        return "version or id"
    if not _is_str(a["contractId"], _CONTRACT_ID_RE) or not _is_str(a["delegationId"], _DELEGATION_ID_RE):
        return "contractId or delegationId"
    if principal_key(a["principal"]) is None or not all(_ATTESTATION_ID_RE.fullmatch(x) for x in children):
        return "principal or childAttestations ids"
    if not _is_timestamp(a["createdAt"]):
        return "createdAt"
    if signature_bytes(a["signature"]) is None:
        return "signature is not 86 characters of base64url"
    return None


def output_hash(output: Any) -> str:
    """D13: base64url(BLAKE2b-256(canonicalize(output)))."""
    return b64url_encode(blake2b256(canonical_bytes(output)))


def create_attestation(principal_seed: bytes, fields: Any) -> dict:
    """createCompletionAttestation (arch §5.1, §7.2): fill in, sign, refuse what D25 would."""
    att = _complete_unsigned(fields, "principal", principal_from_seed(principal_seed))
    if isinstance(att.get("result"), dict):
        result = _drop_nulls(att["result"], ("outputHash", "verificationOutcome"))
        if isinstance(result.get("verificationOutcome"), dict):
            result["verificationOutcome"] = _drop_nulls(result["verificationOutcome"], ("score", "details"))
        att = {**att, "result": result}
    problem = attestation_problem({**att, "signature": "A" * 86})
    if problem:
        raise DelegateError("malformed_attestation", problem)
    return _sign_with(principal_seed, att, "malformed_attestation")


def verify_attestation(att: Any, contract: Any) -> None:
    """§7.3 one-level verification in the order of D25: shape, outputHash (when present with
    output), signature under `principal`, contractId, outputSchema (schema_match only), the
    verification spec, cost <= budget. The contract's own signature is not checked (D25)."""
    parse_contract(contract)
    problem = attestation_problem(att)
    if problem:
        raise DelegateError("malformed_attestation", problem)
    result = att["result"]
    has_output = "output" in result  # a present null is an output
    try:
        actual = output_hash(result["output"]) if has_output else None
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError) as e:
        raise DelegateError("malformed_attestation", f"output: {e}") from e
    if has_output and result.get("outputHash") is not None and result["outputHash"] != actual:
        raise DelegateError("output_hash_mismatch", "outputHash is not the hash of output")
    if not verify_signature_under(att, att["principal"]):
        raise DelegateError("invalid_signature", "the attestation signature does not verify under its principal")
    if att["contractId"] != contract["id"]:
        raise DelegateError("contract_mismatch", "the attestation is for another contract")
    schema_match = contract["verification"]["method"] == "schema_match"
    if not has_output:
        raise DelegateError("schema_mismatch" if schema_match else "verification_failed", "no output")
    if schema_match and not validate_schema(contract["task"]["outputSchema"], result["output"]):
        raise DelegateError("schema_mismatch", "output does not match task.outputSchema")
    if not verify_output(contract["verification"], result["output"])["passed"]:
        raise DelegateError("verification_failed", "the verification spec does not pass")
    if result["costMicrocents"] > contract["constraints"]["maxBudgetMicrocents"]:
        raise DelegateError("budget_exceeded", "costMicrocents > maxBudgetMicrocents")


# ---------------------------------------------------------------------------------------------
# 10. The MCP plugin's decisions (§11.3, arch §6; spec/mcp-proxy.md §3 and §6; D15, D17, D32)
# ---------------------------------------------------------------------------------------------
DENIAL_CODE = -32001
DENIAL_MESSAGE = "DCT verification failed"
CONFIG_KEYS = ({"trustedRoots", "tools"}, {"revocations", "spendPerCall", "strict", "sessionToken"})


def _bad_input(detail: str) -> DelegateError:
    return DelegateError("invalid_input", detail)


def _is_u64(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**64


def mcp_config(config: Any) -> dict:
    """The launch config without `version`/`upstream` (mcp-proxy.md §6); anything else is
    `invalid_input`. Tool map entries: {namespace, action, resource?: {argument | constant},
    spend?}; every configured revocation entry must be accepted by a list (D6)."""
    required, optional = CONFIG_KEYS
    if not _exact(config, required, optional):
        raise _bad_input("config members")
    roots = config["trustedRoots"]
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        raise _bad_input("trustedRoots must be an array of strings")
    tools = config["tools"]
    if not isinstance(tools, dict):
        raise _bad_input("tools must be an object")
    for name, t in tools.items():
        if not _exact(t, {"namespace", "action"}, {"resource", "spend"}) or not _is_str(t["namespace"]) or not _is_str(t["action"]):
            raise _bad_input(f"tools.{name}")
        res = t.get("resource")
        if res is not None and not (isinstance(res, dict) and len(res) == 1 and next(iter(res)) in ("argument", "constant") and _is_str(next(iter(res.values())))):
            raise _bad_input(f"tools.{name}.resource is {{argument}} or {{constant}}")
        if t.get("spend") is not None and not _is_u64(t["spend"]):
            raise _bad_input(f"tools.{name}.spend")
    revocations = config.get("revocations", [])
    if not isinstance(revocations, list):
        raise _bad_input("revocations must be an array")
    for entry in revocations:
        try:
            check_revocation_entry(entry)
        except DelegateError as e:
            raise _bad_input(f"revocation entry refused: {e.detail}") from e
    if "spendPerCall" in config and not _is_u64(config["spendPerCall"]):
        raise _bad_input("spendPerCall must be a non-negative integer")
    if "strict" in config and not isinstance(config["strict"], bool):
        raise _bad_input("strict must be a boolean")
    session = config.get("sessionToken")
    if session is not None:
        if not isinstance(session, dict) or not _is_str(session.get("token")) or not _is_str(session.get("format")):
            raise _bad_input("sessionToken must be a SerializedDCT")
        session = {"token": session["token"], "format": session["format"]}
    return {
        "roots": roots, "tools": tools, "revocations": revocations, "session": session,
        "spendPerCall": config.get("spendPerCall", 0), "strict": config.get("strict", False),
    }


def mcp_spent(spent: Any) -> dict:
    if spent is None:
        return {}
    if not isinstance(spent, dict) or not all(_is_u64(v) for v in spent.values()):
        raise _bad_input("spent maps delegation ids to non-negative integers")
    return dict(spent)


def _verify_for_roots(serialized: dict, cfg: dict, spent: dict, now: str) -> dict:
    """§10.1 steps 1-6 with the trusted root equal to the token's issuer, else the first one
    (so step 3a says invalid_signature while steps 1-2 keep precedence), none at all →
    invalid_signature (D32); spent = the spend of the token's own delegation (D17)."""
    try:
        token = decode_token(serialized)
        last = token["attenuations"][-1] if token["attenuations"] else token["authority"]
        issuer, delegation = token["authority"]["issuer"], last["delegationId"]
    except DelegateError:
        issuer, delegation = "", ""
    roots = cfg["roots"]
    root = issuer if issuer in roots else (roots[0] if roots else None)
    if root is None:
        raise DelegateError("invalid_signature", "no trusted roots configured")
    ctx = {"now": now, "spentMicrocents": spent.get(delegation, 0), "rootPublicKey": root, "revocations": cfg["revocations"]}
    return verify_dct(serialized, ctx, check_request=False)


def mcp_filter_tools(tools: list, cfg: dict, spent: dict, now: str) -> list:
    """§11.3 step 4 with D32: no session token → unfiltered; one that does not verify → empty;
    else the mapped tools whose namespace and action an effective capability holds."""
    if cfg["session"] is None:
        return tools
    try:
        caps = _verify_for_roots(cfg["session"], cfg, spent, now)["capabilities"]
    except DelegateError:
        return []
    kept = []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        mapped = cfg["tools"].get(name) if isinstance(name, str) else None
        if mapped and any(c["namespace"] == mapped["namespace"] and c["action"] == mapped["action"] for c in caps):
            kept.append(tool)
    return kept


def _denial_data(e: DelegateError) -> dict:
    """The DenialReason of a verification failure (arch §2.5)."""
    if e.code in ("malformed_token", "invalid_signature", "attenuation_violation"):
        return {"type": e.code, "detail": e.detail}
    return {"type": e.code, **e.data}


def _extract_resource(mapping: dict, arguments: Any) -> str | None:
    """D32: the configured argument (a dot path over objects), a constant, or `*`."""
    source = mapping.get("resource")
    if source is None:
        return "*"
    if "constant" in source:
        return source["constant"]
    value = arguments
    for key in source["argument"].split("."):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value if isinstance(value, str) else None


def mcp_call(request: Any, cfg: dict, spent: dict, now: str) -> dict:
    """spec/mcp-proxy.md §3.3: pass through what is not a tools/call or carries no
    `_delegateos` (D15: strict mode denies it); else, first failure wins: the envelope,
    steps 1-6, the D17 binding of the envelope ids, the tool map and resource, step 7.
    An authorized call is charged to the token's delegation and forwarded stripped."""
    if not isinstance(request, dict) or request.get("method") != "tools/call":
        return {"decision": "pass_through"}

    def deny(data: dict) -> dict:
        if "id" not in request:  # a notification is never answered
            return {"decision": "drop", "data": data}
        error = {"code": DENIAL_CODE, "message": DENIAL_MESSAGE, "data": data}
        response = {"jsonrpc": "2.0", "id": request["id"], "error": error}
        comparable = {**error, "data": {k: v for k, v in data.items() if k != "detail"}}
        return {"decision": "deny", "response": response, "id": request["id"], "error": comparable}

    params = request.get("params") if isinstance(request.get("params"), dict) else None
    if params is None or "_delegateos" not in params:
        if cfg["strict"]:
            return deny({"type": "malformed_token", "detail": "missing _delegateos"})
        return {"decision": "pass_through"}
    env = params["_delegateos"]
    optional_ids = ("delegationId", "contractId")
    envelope_ok = (
        _exact(env, {"dct", "format"}, set(optional_ids))
        and _is_str(env["dct"]) and _is_str(env["format"])
        and all(env.get(k) is None or isinstance(env[k], str) for k in optional_ids)
    )
    if not envelope_ok or env["format"] != TOKEN_FORMAT:
        return deny({"type": "malformed_token", "detail": "invalid _delegateos envelope"})
    try:
        scope = _verify_for_roots({"token": env["dct"], "format": env["format"]}, cfg, spent, now)
    except DelegateError as e:
        return deny(_denial_data(e))
    for key in optional_ids:  # D17: the envelope ids must be the token's effective ones
        if env.get(key) is not None and env[key] != scope[key]:
            return deny({"type": "malformed_token", "detail": f"_delegateos.{key} differs from the token's"})
    name = params.get("name") if isinstance(params.get("name"), str) else ""
    mapping = cfg["tools"].get(name)
    granted = scope["capabilities"]
    if mapping is None:
        return deny({"type": "capability_not_granted", "detail": "tool not in the map", "tool": name, "granted": granted})
    resource = _extract_resource(mapping, params.get("arguments"))
    requested = {"namespace": mapping["namespace"], "action": mapping["action"], "resource": resource}
    if resource is None:
        return deny({"type": "capability_not_granted", "detail": "no string resource argument", "requested": requested, "granted": granted})
    if not any(c["namespace"] == requested["namespace"] and c["action"] == requested["action"] and glob_match(c["resource"], resource) for c in granted):
        return deny({"type": "capability_not_granted", "requested": requested, "granted": granted})
    cost = mapping["spend"] if mapping.get("spend") is not None else cfg["spendPerCall"]
    spent[scope["delegationId"]] = spent.get(scope["delegationId"], 0) + cost  # at authorization (D32)
    forwarded = {**request, "params": {k: v for k, v in params.items() if k != "_delegateos"}}
    return {"decision": "forward", "request": forwarded, "delegationId": scope["delegationId"], "spend": cost}


class McpSession:
    """One session of the plugin (arch §6.1, spec/mcp-proxy.md §6.1): what it keeps between
    messages is the spend per delegation (charged at authorization, D32) and the ids of the
    client's pending `tools/list` requests, whose responses are filtered (§11.3 step 4)."""

    def __init__(self, cfg: dict, now: str):
        self.cfg, self.now = cfg, now
        self.spend: dict = {}
        self.pending_lists: set = set()

    @staticmethod
    def _id_key(value: Any) -> str:
        return json.dumps(value, sort_keys=True)

    def client(self, message: Any) -> tuple[list, list]:
        """(to the client, to the upstream) for one client message."""
        if not isinstance(message, dict):  # not a JSON-RPC request object (mcp-proxy.md §3.5)
            return [{"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}], []
        decision = mcp_call(message, self.cfg, self.spend, self.now)
        kind = decision["decision"]
        if kind == "forward":
            return [], [decision["request"]]
        if kind == "deny":
            return [decision["response"]], []
        if kind == "drop":
            return [], []
        if message.get("method") == "tools/list" and "id" in message:
            self.pending_lists.add(self._id_key(message["id"]))
        return [], [message]

    def upstream(self, message: Any) -> tuple[list, list]:
        """A response to a pending client `tools/list` is filtered; anything else is relayed."""
        is_response = not (isinstance(message, dict) and "method" in message)
        key = self._id_key(message["id"]) if is_response and isinstance(message, dict) and "id" in message else None
        if key is None or key not in self.pending_lists:
            return [message], []
        self.pending_lists.discard(key)
        result = message.get("result")
        if isinstance(result, dict) and isinstance(result.get("tools"), list):
            kept = mcp_filter_tools(result["tools"], self.cfg, self.spend, self.now)
            message = {**message, "result": {**result, "tools": kept}}
        return [message], []


def session_view(message: Any) -> Any:
    """mcp-proxy.md §6.1: a -32001 denial's data reduced to `type`; other errors lose `detail`."""
    error = message.get("error") if isinstance(message, dict) else None
    data = error.get("data") if isinstance(error, dict) else None
    if not isinstance(data, dict):
        return message
    code = error.get("code")
    if type(code) is int and code == DENIAL_CODE:
        data = {k: v for k, v in data.items() if k == "type"}
    else:
        data = {k: v for k, v in data.items() if k != "detail"}
    return {**message, "error": {**error, "data": data}}


# ---------------------------------------------------------------------------------------------
# 11. JSON-RPC messages of §9 (D31): which of the five a message is, or invalid_message
# ---------------------------------------------------------------------------------------------


def _message_error(detail: str) -> DelegateError:
    return DelegateError("invalid_message", detail)


def _rpc_id(msg: dict) -> None:
    """D31: a request's id is a string or an integer (not null, not fractional)."""
    v = msg.get("id")
    ok = isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63)
    if not ok:
        raise _message_error("id must be a string or an integer")


def _members(obj: Any, required: set, optional: set, what: str) -> dict:
    if not _exact(obj, required, optional):
        raise _message_error(f"{what} must have exactly the §9 members")
    return obj


def _rpc_del_id(obj: dict, key: str) -> str:
    if not _is_str(obj[key], _DELEGATION_ID_RE):
        raise _message_error(f"{key} is not del_ + 12 lowercase hex")
    return obj[key]


def classify_message(msg: Any) -> str:
    """§9 with D31: exact members, JSON-RPC 2.0 id rules, nested objects well-formed (shape
    only, signatures are the receiver's next step), completion ids consistent."""
    if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
        raise _message_error('not a JSON-RPC 2.0 object (jsonrpc must be "2.0")')
    if "method" not in msg:
        return _classify_response(msg)
    _members(msg, {"jsonrpc", "method"}, {"id", "params"}, "message")
    method = msg["method"]
    if method == "delegateos/delegate":
        _rpc_id(msg)
        p = _members(msg.get("params"), {"contract", "dct", "dctFormat", "delegationId", "parentDelegationId"}, set(), "params")
        if contract_problem(p["contract"]):
            raise _message_error("params.contract is malformed")
        if not _is_str(p["dct"]) or not p["dct"]:
            raise _message_error("params.dct must be a non-empty string")
        try:
            b64url_decode(p["dct"])
        except DelegateError as e:
            raise _message_error("params.dct is not strict base64url") from e
        if p["dctFormat"] != TOKEN_FORMAT:
            raise _message_error("params.dctFormat")
        _rpc_del_id(p, "delegationId")
        _rpc_del_id(p, "parentDelegationId")
        return "delegate_request"
    if method not in ("delegateos/complete", "delegateos/revoke"):
        raise _message_error(f"unknown method {method!r}")
    if "id" in msg:
        raise _message_error(f"{method} is a notification: no id")
    if method == "delegateos/complete":
        p = _members(msg.get("params"), {"delegationId", "attestation"}, set(), "params")
        _rpc_del_id(p, "delegationId")
        if attestation_problem(p["attestation"]):
            raise _message_error("params.attestation is malformed")
        if p["attestation"]["delegationId"] != p["delegationId"]:
            raise _message_error("params.attestation.delegationId differs from params.delegationId")
        return "complete"
    p = _members(msg.get("params"), {"revocation"}, set(), "params")
    try:
        check_revocation_entry(p["revocation"])
    except DelegateError as e:
        raise _message_error(f"params.revocation: {e.detail}") from e
    return "revoke"


def _classify_response(msg: dict) -> str:
    if "error" in msg:
        raise _message_error("an error response is not a §9 message")
    _members(msg, {"jsonrpc", "id", "result"}, set(), "response")
    _rpc_id(msg)
    r = msg["result"]
    accepted = r.get("accepted") if isinstance(r, dict) else None
    if accepted is True:
        _members(r, {"accepted", "delegationId"}, {"estimatedDurationMs", "estimatedCostMicrocents"}, "result")
        _rpc_del_id(r, "delegationId")
        for key in ("estimatedDurationMs", "estimatedCostMicrocents"):
            if key in r and not is_protocol_int(r[key]):
                raise _message_error(f"result.{key} must be a non-negative integer")
        return "delegate_accept"
    if accepted is False:
        _members(r, {"accepted", "reason"}, {"details"}, "result")
        if not _is_str(r["reason"]) or not r["reason"]:
            raise _message_error("result.reason must be a non-empty string")
        if "details" in r and not _is_str(r["details"]):
            raise _message_error("result.details must be a string")
        return "delegate_reject"
    raise _message_error("result.accepted must be a boolean")
