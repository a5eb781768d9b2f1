#!/usr/bin/env python3
"""Spec-literal variant of the example Python adapter (issue 12).

It follows the TEXT of the DelegateOS protocol spec v0.2 and architecture v0.2, but none of
our decisions (spec/decisions.md) where the text is silent: at every such point it takes the
*other* reasonable reading. Against it, a default run of the suite must fail only on real spec
violations; every other difference must show as `acceptable` or as a hardening finding.

How it is built: a private copy of the careful library (implementations/python/
delegateos_mini.py) is loaded and a handful of its functions / constants are overridden below,
each with a comment naming the decision it takes the other side of. The protocol loop, input
decoding and error mapping are the example adapter's (implementations/python/adapter.py).
`check.run` and `output.verify` are its own (§6.2-§6.4, §10.3 as written; `regex_match` through
`ecmaregex.py`, ECMAScript semantics on Python `re` — `DELEGATEOS_LITERAL_REGEX=re` uses `re`
itself; JSON Schema draft-07 with ajv strict's refusals through `draft07.py`), and so are `attestation.create`/`verify`,
`contract.create`/`verify_signature`/`bind` (§5, §7) and the libsodium-only Ed25519 verify (D10),
and `mcp.filter_tools` / `mcp.call` / `mcp.session` (§11.3, arch §6), at the end of this file.
Needs the example adapter's venv (PyNaCl): `bash implementations/python/setup.sh`, then
    delegateos-conform run --impl 'implementations/python/.venv/bin/python implementations/python-literal/adapter.py'
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE_DIR = os.path.join(HERE, "..", "python")


def _load(name: str, path: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A private copy, so the overrides below never touch the careful library's own module.
lib = _load("delegateos_literal", os.path.join(EXAMPLE_DIR, "delegateos_mini.py"))
example = _load("example_adapter", os.path.join(EXAMPLE_DIR, "adapter.py"))
DelegateError = lib.DelegateError

# --- D33 / D9: no resource limits ----------------------------------------------------------------
# D33 (nesting depth <= 32) and D9 (token text <= 1 MiB) are hardening: the spec states no limit.
# A literal implementation parses whatever its JSON parser parses (Python's recursive decoder:
# about 1000 levels; deeper input is a parse error, i.e. invalid_json / malformed_token).
lib.MAX_JSON_DEPTH = 10**9
lib.MAX_TOKEN_CHARS = 10**12
sys.setrecursionlimit(20000)


# --- D9: lenient base64url -----------------------------------------------------------------------
# D9 decodes base64url strictly (no padding, zero trailing bits). RFC 4648 §3.5 lets a decoder
# accept non-zero pad bits, and padding is only excluded by the spec for principal ids (§2, whose
# 43-character rule the careful library still checks). Literal: accept `=` padding and non-zero
# trailing bits; characters outside the URL alphabet are still refused.
def b64url_decode(text: str) -> bytes:
    import base64
    import binascii
    import re

    if not isinstance(text, str) or not re.fullmatch(r"[A-Za-z0-9_-]*={0,2}", text):
        raise DelegateError("invalid_encoding", "not base64url")
    body = text.rstrip("=")
    if len(body) % 4 == 1 or (text != body and len(text) % 4 != 0):
        raise DelegateError("invalid_encoding", "bad length")
    try:
        return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError) as e:
        raise DelegateError("invalid_encoding", str(e)) from e


lib.b64url_decode = b64url_decode


# --- D5: ISO 8601 as the text says ("Timestamps: ISO 8601 UTC", §1.2) ------------------------------
# D5 accepts only an RFC 3339 profile. Literal: every ISO 8601 (2004) date-time in UTC or with an
# offset — calendar, ordinal or week date, extended or basic format used consistently, reduced
# precision (no seconds), a decimal point or comma, `24:00:00` (end of day), an hour-only offset,
# an expanded year with its sign, and second 60 on the dates that had a positive leap second
# (read as the instant after 23:59:59). Still refused: what ISO 8601 has not (month 13, February
# 30, second 60 elsewhere, lowercase designators, a space separator, no UTC designator or
# offset, a basic offset after an extended time, non-ASCII digits, more than 9 fraction digits).
_strict_parse_timestamp = lib.parse_timestamp

_LEAP_SECOND_DATES = {
    "1972-06-30", "1972-12-31", "1973-12-31", "1974-12-31", "1975-12-31", "1976-12-31",
    "1977-12-31", "1978-12-31", "1979-12-31", "1981-06-30", "1982-06-30", "1983-06-30",
    "1985-06-30", "1987-12-31", "1989-12-31", "1990-12-31", "1992-06-30", "1993-06-30",
    "1994-06-30", "1995-12-31", "1997-06-30", "1998-12-31", "2005-12-31", "2008-12-31",
    "2012-06-30", "2015-06-30", "2016-12-31",
}
_YEAR = r"(?P<year>[+-][0-9]{6}|[0-9]{4})"
_EXT = re.compile(
    _YEAR + r"-(?:(?P<month>[0-9]{2})-(?P<day>[0-9]{2})|W(?P<week>[0-9]{2})-(?P<wday>[0-9])|(?P<yday>[0-9]{3}))"
    r"T(?P<hour>[0-9]{2}):(?P<minute>[0-9]{2})(?::(?P<second>[0-9]{2}))?(?:[.,](?P<fraction>[0-9]{1,9}))?"
    r"(?P<offset>Z|[+-][0-9]{2}(?::[0-9]{2})?)",
    re.ASCII,
)
_BASIC = re.compile(
    _YEAR + r"(?:(?P<month>[0-9]{2})(?P<day>[0-9]{2})|W(?P<week>[0-9]{2})(?P<wday>[0-9])|(?P<yday>[0-9]{3}))"
    r"T(?P<hour>[0-9]{2})(?P<minute>[0-9]{2})(?P<second>[0-9]{2})?(?:[.,](?P<fraction>[0-9]{1,9}))?"
    r"(?P<offset>Z|[+-][0-9]{2}(?:[0-9]{2})?)",
    re.ASCII,
)


def _iso_days(m: "re.Match") -> int:
    """Days since 1970-01-01 of the date part; raises on a date ISO 8601 does not have."""
    y = int(m.group("year"))
    bad = DelegateError("invalid_timestamp", "no such date")
    if m.group("month") is not None:
        mo, d = int(m.group("month")), int(m.group("day"))
        if not (1 <= mo <= 12 and 1 <= d <= lib._days_in_month(y, mo)):
            raise bad
        return lib._days_from_civil(y, mo, d)
    if m.group("yday") is not None:
        n = int(m.group("yday"))
        length = 366 if lib._days_in_month(y, 2) == 29 else 365
        if not 1 <= n <= length:
            raise bad
        return lib._days_from_civil(y, 1, 1) + n - 1
    week, wday = int(m.group("week")), int(m.group("wday"))
    jan4 = lib._days_from_civil(y, 1, 4)
    monday1 = jan4 - ((jan4 + 3) % 7)  # 1970-01-01 was a Thursday
    next_jan4 = lib._days_from_civil(y + 1, 1, 4)
    weeks = (next_jan4 - ((next_jan4 + 3) % 7) - monday1) // 7
    if not (1 <= week <= weeks and 1 <= wday <= 7):
        raise bad
    return monday1 + (week - 1) * 7 + wday - 1


def parse_timestamp_iso8601(text: Any) -> int:
    try:
        return _strict_parse_timestamp(text)
    except DelegateError:
        pass
    m = (_EXT.fullmatch(text) or _BASIC.fullmatch(text)) if isinstance(text, str) else None
    if m is None:
        raise DelegateError("invalid_timestamp", f"not an ISO 8601 UTC time: {text!r}")
    days = _iso_days(m)
    h, mi = int(m.group("hour")), int(m.group("minute"))
    sec = int(m.group("second") or 0)
    fraction = m.group("fraction") or ""
    offset = m.group("offset")
    if offset == "Z":
        off = 0
    else:
        oh, om = int(offset[1:3]), int(offset[3:].lstrip(":") or 0)
        if oh > 23 or om > 59:
            raise DelegateError("invalid_timestamp", "bad offset")
        off = (oh * 3600 + om * 60) * (1 if offset[0] == "+" else -1)
    if h == 24:
        if mi or sec or fraction.strip("0"):
            raise DelegateError("invalid_timestamp", "24 is only 24:00:00")
    elif h > 23 or mi > 59:
        raise DelegateError("invalid_timestamp", "no such time")
    if sec == 60:
        date = text[: text.index("T")]
        if not (off == 0 and h == 23 and mi == 59 and date in _LEAP_SECOND_DATES):
            raise DelegateError("invalid_timestamp", "second 60 outside a leap second")
    elif sec > 59:
        raise DelegateError("invalid_timestamp", "no such second")
    seconds = days * 86400 + h * 3600 + mi * 60 + sec - off
    return seconds * 1_000_000_000 + int(fraction.ljust(9, "0"))


lib.parse_timestamp = parse_timestamp_iso8601


# --- Caller errors (product guide §4, issue 27) ----------------------------------------------------
# `now` and `rootPublicKey` are the caller's arguments, not parts of the token: one that is not a
# timestamp of the operation catalogue's profile (spec/operations.md §1: "`now` is always an
# input" in D5's profile) or not a principal id is refused as `invalid_input` before the token is
# looked at.
def _caller_context(ctx: Any) -> None:
    if not isinstance(ctx, dict):
        return
    if "now" in ctx:
        try:
            _strict_parse_timestamp(ctx["now"])
        except DelegateError as e:
            raise example.InvalidInput(f"now: {e.detail}") from e
    if "rootPublicKey" in ctx and lib.principal_key(ctx["rootPublicKey"]) is None:
        raise example.InvalidInput("rootPublicKey is not a principal id")


def _with_caller_checks(op: Any, where: str | None) -> Any:
    def run(inp: Any) -> dict:
        if isinstance(inp, dict):
            _caller_context(inp.get(where) if where else inp)
        return op(inp)

    return run


for _name, _where in (("dct.verify", "context"), ("chain.verify", None), ("chain.verify_store", None)):
    example.OPERATIONS[_name] = _with_caller_checks(example.OPERATIONS[_name], _where)


# --- D2: `/a/**` does not match `/a` -------------------------------------------------------------
# D2 reads "** matches zero or more path segments" so that `/a/**` matches `/a`. The other
# reading (globset, and most path-glob libraries): a trailing `/**` needs the `/`, so it matches
# `/a/` and `/a/x/...` but not `/a`. Subset (D3) agrees with the matcher.
def _trailing_double_star(pattern: str) -> bool:
    return pattern not in ("*", "**") and pattern.endswith("/**")


_careful_glob_match = lib.glob_match
_careful_resource_covers = lib.resource_covers


def glob_match(pattern: str, resource: str) -> bool:
    if _careful_glob_match(pattern, resource) and _trailing_double_star(pattern):
        # zero segments for the trailing `**`: the resource is exactly the prefix before `/**`
        return resource != pattern[: -len("/**")]
    return _careful_glob_match(pattern, resource)


def resource_covers(parent: str, child: str) -> bool:
    if not _careful_resource_covers(parent, child):
        return False
    if _trailing_double_star(parent) and not _trailing_double_star(child):
        # the child names the bare prefix (or ends in it) which the parent no longer matches
        prefix = parent[: -len("/**")]
        return child != prefix
    return True


lib.glob_match = glob_match
lib.resource_covers = resource_covers


# --- D9: lenient decoding of the token JSON ------------------------------------------------------
# D9 requires the decoded JSON to be exactly its RFC 8785 form and refuses unknown members. The
# spec says the token *is* base64url of canonical JSON but never that a verifier must refuse
# other spellings, and its TypeScript interfaces are open. Literal: accept non-canonical JSON
# and ignore unknown members (signatures are computed over re-canonicalized blocks anyway).
_careful_canonicalize = lib.canonicalize
_KNOWN = {
    "token": {"format", "authority", "attenuations", "signatures"},
    "authority": set(lib.AUTHORITY_KEYS),
    "attenuation": lib.ATTENUATION_REQUIRED | lib.ATTENUATION_OPTIONAL,
    "signature": {"signer", "signature", "covers"},
}


def _strip_unknown(token: Any) -> Any:
    if not isinstance(token, dict):
        return token
    out = {k: v for k, v in token.items() if k in _KNOWN["token"]}
    if isinstance(out.get("authority"), dict):
        out["authority"] = {k: v for k, v in out["authority"].items() if k in _KNOWN["authority"]}
    if isinstance(out.get("attenuations"), list):
        out["attenuations"] = [
            {k: v for k, v in t.items() if k in _KNOWN["attenuation"]} if isinstance(t, dict) else t
            for t in out["attenuations"]
        ]
    if isinstance(out.get("signatures"), list):
        out["signatures"] = [
            {k: v for k, v in s.items() if k in _KNOWN["signature"]} if isinstance(s, dict) else s
            for s in out["signatures"]
        ]
    return out


_careful_decode_token = lib.decode_token


def decode_token(serialized: Any) -> dict:
    """Step 1 as the careful library does it, minus the canonical-form and closed-member rules:
    the typed structure of the known members is checked on a copy without the unknown ones;
    the token itself keeps them (they are covered by the signatures and revocation ids)."""
    lib._require(isinstance(serialized, dict) and {"token", "format"} <= set(serialized), "SerializedDCT must have token and format")
    lib._require(serialized["format"] == lib.TOKEN_FORMAT, "wrong format")
    text = serialized["token"]
    lib._require(isinstance(text, str), "token must be a string")
    try:
        raw = lib.b64url_decode(text)
        token = lib.parse_json(raw.decode("utf-8"))
    except (DelegateError, UnicodeDecodeError, ValueError) as e:
        raise lib._malformed(f"token: {e}") from e
    known = _strip_unknown(token)
    _careful_decode_token({"token": lib.b64url_encode(lib.canonical_bytes(known)), "format": lib.TOKEN_FORMAT})
    return token


lib.decode_token = decode_token


# --- D4: spec-literal depth (§10.1 step 4e and step 8) -------------------------------------------
# D4 reads an attenuation's maxChainDepth as "further attenuations allowed", counts every
# attenuation down from it and returns the remaining depth. §10.1 step 4e literally only compares
# a *set* attenuation maxChainDepth with effectiveMaxDepth (< required, else
# attenuation_violation) and step 8 returns `maxChainDepth: effectiveMaxDepth`. The one count the
# text does state is §8.2 invariant 4 (depth <= the root DCT's maxChainDepth, with depth =
# authority.chainDepth + attenuations as in step 8) and the DenialReason chain_depth_exceeded
# {max, actual} of architecture §2.5: that absolute bound is kept.
class LiteralChainState:
    def __init__(self, authority: dict):
        self.caps = authority["capabilities"]
        self.budget = authority["maxBudgetMicrocents"]
        self.expiry = lib.parse_timestamp(authority["expiresAt"])
        self.delegatee = authority["delegatee"]
        self.max_depth = authority["maxChainDepth"]  # effectiveMaxDepth
        self.remaining = self.max_depth  # what step 8 reports (the careful code reads .remaining)
        self.root_max = authority["maxChainDepth"]
        self.depth = authority["chainDepth"]
        if self.depth > self.root_max:
            raise DelegateError("chain_depth_exceeded", "authority.chainDepth > authority.maxChainDepth (§8.2/4)")

    def apply(self, t: dict, i: int) -> None:
        def violation(why: str) -> DelegateError:
            return DelegateError("attenuation_violation", f"attenuations[{i}]: {why}")

        if t["attenuator"] != self.delegatee:
            raise violation("attenuator mismatch")
        if "allowedCapabilities" in t:
            for cap in t["allowedCapabilities"]:
                if not any(lib.capability_subset(cap, p) for p in self.caps):
                    raise violation("capability expansion")
            self.caps = t["allowedCapabilities"]
        if "maxBudgetMicrocents" in t:
            if t["maxBudgetMicrocents"] > self.budget:
                raise violation("budget expansion")
            self.budget = t["maxBudgetMicrocents"]
        if "expiresAt" in t:
            expiry = lib.parse_timestamp(t["expiresAt"])
            if expiry > self.expiry:
                raise violation("expiry extension")
            self.expiry = expiry
        self.depth += 1
        if self.depth > self.root_max:
            raise DelegateError("chain_depth_exceeded", f"attenuations[{i}] is deeper than the root maxChainDepth (§8.2/4)")
        if "maxChainDepth" in t:
            if not t["maxChainDepth"] < self.max_depth:
                raise violation("depth expansion")
            self.max_depth = t["maxChainDepth"]
            self.remaining = self.max_depth
        self.delegatee = t["delegatee"]

    @property
    def effective_max_depth(self) -> int:
        # What step 8 reports (the example library now reads this, as the text does).
        return self.max_depth


lib.ChainState = LiteralChainState

# dct.create: §3.3 builds the authority "from params" and validates nothing about depth
# (D23 refuses chainDepth > maxChainDepth with chain_depth_exceeded).
_careful_create_dct = lib.create_dct


def create_dct(issuer_seed: bytes, params: dict) -> dict:
    authority = {"issuer": lib.principal_from_seed(issuer_seed), **params}
    lib.check_token_formats({"format": lib.TOKEN_FORMAT, "authority": authority, "attenuations": [], "signatures": []})
    digest = lib.blake2b256(lib.canonical_bytes({"authority": authority}))
    signature = {"signer": authority["issuer"], "signature": lib.b64url_encode(lib.ed25519_sign(issuer_seed, digest)), "covers": "authority"}
    return lib.serialize({"format": lib.TOKEN_FORMAT, "authority": authority, "attenuations": [], "signatures": [signature]})


lib.create_dct = create_dct


# --- D8: `signatures[]` exactly as §10.1 step 3 reads ---------------------------------------------
# D8 requires exactly 1 + attenuations entries, `covers` = position and `signer` = the block's
# key. Step 3 literally verifies signatures[0] (which must cover 'authority') under
# authority.issuer and signatures[i+1] under attenuations[i].attenuator; it never reads
# `signer`, never reads the `covers` of later entries and ignores surplus entries. Every
# signature is still verified under the key the spec names, never under `signer`.
_careful_verify_dct = lib.verify_dct


def verify_dct(serialized: Any, ctx: dict, check_request: bool = True) -> dict:
    token = lib.decode_token(serialized)
    authority, attenuations, signatures = token["authority"], token["attenuations"], token["signatures"]
    n = 1 + len(attenuations)
    if len(signatures) >= n:
        fixed = []
        for i, sig in enumerate(signatures[:n]):
            key = authority["issuer"] if i == 0 else attenuations[i - 1]["attenuator"]
            covers = sig["covers"] if i == 0 else i - 1
            fixed.append({**sig, "signer": key, "covers": covers})
        token = {**token, "signatures": fixed}
        serialized = {"token": lib.b64url_encode(lib.canonical_bytes(token)), "format": lib.TOKEN_FORMAT}
    return _careful_verify_dct(serialized, ctx, check_request)


lib.verify_dct = verify_dct


# --- D6 / D22: revocation entries without codes ---------------------------------------------------
# §4.2 `add(entry): Result<void, string>` defines no error codes: a literal list has one generic
# error. It maps every refusal to `malformed_entry` (D22 distinguishes invalid_scope and
# invalid_signature — finer codes are hardening). `fromJSON` (D6: all or nothing) skips entries
# that do not verify and loads the rest; text that is not a JSON array still fails.
_careful_check_entry = lib.check_revocation_entry


def check_revocation_entry(entry: Any) -> None:
    try:
        _careful_check_entry(entry)
    except DelegateError as e:
        raise DelegateError("malformed_entry", e.detail) from e


lib.check_revocation_entry = check_revocation_entry


# `toJSON(): string` (§4.2) gives no format (D22 picks a bare array of entries). This list
# writes its own: an object with a format tag and the entries in insertion order, and `fromJSON`
# reads exactly that. So it declares no `revocation.from_json` (whose cases feed D22's array
# text); its round trip is `revocation.list`'s `roundtrip` (issue 27).
LIST_FORMAT = "delegateos-literal-revocations-1"


def _to_json(self: Any) -> str:
    import json as _json

    return _json.dumps({"format": LIST_FORMAT, "entries": self.entries}, ensure_ascii=False)


def _from_json(cls: Any, text: str) -> Any:
    try:
        value = lib.parse_json(text)
    except ValueError as e:
        raise DelegateError("invalid_json", str(e)) from e
    if not isinstance(value, dict) or value.get("format") != LIST_FORMAT:
        raise DelegateError("malformed_entry", f"fromJSON reads {LIST_FORMAT} text")
    entries = value.get("entries")
    if not isinstance(entries, list):
        raise DelegateError("malformed_entry", "fromJSON text without an entries array")
    result = cls()
    for entry in entries:
        try:
            result.add(entry)
        except DelegateError:
            continue  # D6's all-or-nothing is a decision: an entry that cannot revoke is skipped
    return result


lib.RevocationList.to_json = _to_json
lib.RevocationList.from_json = classmethod(_from_json)
del example.OPERATIONS["revocation.from_json"]


# --- D26: delegation chains with §8.2 only --------------------------------------------------------
# §8.2 lists five invariants and no codes; D26 adds the parentId link, "exactly one more
# attenuation", "the DCT describes the record" and the verification of every delegation's DCT
# through steps 1-6, each with its own code. Literal (issue 27): the five invariants only, every
# structural invariant failure reported with one code (root_invalid). The tokens themselves are
# verified separately, where they are used (`dct.verify`), not here: an expired, revoked or
# wrongly rooted root DCT breaks no invariant. Invariant 5, "Child DCT must be attenuated from
# parent DCT", is read with §3.4: the child token is the parent token plus at least one
# attenuation, and each added block is an attenuation — made by the current delegatee, narrowing
# (§3.4 step 4, the checks of §10.1 step 4) and signed by its attenuator over its prefix (§3.4
# steps 6-7); such a failure keeps its own code (attenuation_violation, invalid_signature).
# Invariant 4 needs the root DCT's maxChainDepth, so the DCTs are decoded (step 1).
def _added_blocks_are_attenuations(token: dict, first_new: int) -> None:
    authority, attenuations, signatures = token["authority"], token["attenuations"], token["signatures"]
    state = lib.ChainState(authority)
    for i, t in enumerate(attenuations):
        state.apply(t, i)
    for i in range(first_new, len(attenuations)):
        sig = signatures[i + 1] if i + 1 < len(signatures) else None
        payload = {"authority": authority, "attenuations": attenuations[: i + 1]}
        digest = lib.blake2b256(lib.canonical_bytes(payload))
        key = lib.principal_key(attenuations[i]["attenuator"])
        raw = lib.signature_bytes(sig.get("signature")) if isinstance(sig, dict) else None
        if key is None or raw is None or not lib.ed25519_verify(key, digest, raw):
            raise DelegateError("invalid_signature", f"attenuations[{i}] is not signed by its attenuator (§3.4 step 7)")


def verify_chain(delegations: Any, root_public_key: str, now: str, revocations: list) -> None:
    if not isinstance(delegations, list) or not delegations:
        raise DelegateError("malformed_delegation", "the chain must be a non-empty array")

    def broken(why: str) -> DelegateError:
        return DelegateError("root_invalid", why)  # one code for every §8.2 invariant

    parent, parent_token, root_max = None, None, None
    for i, d in enumerate(delegations):
        lib._check_delegation(d)
        if parent is None:
            if d["parentId"] != lib.ROOT_PARENT_ID or d["depth"] != 0:
                raise broken("8.2/1 root")
        else:
            if d["from"] != parent["to"]:
                raise broken(f"8.2/2 delegations[{i}].from")
            if d["depth"] != parent["depth"] + 1:
                raise broken(f"8.2/3 delegations[{i}].depth")
        token = lib.decode_token(d["dct"])
        if root_max is None:
            root_max = token["authority"]["maxChainDepth"]
        if d["depth"] > root_max:
            raise broken(f"8.2/4 delegations[{i}].depth")
        if parent_token is not None:
            k = len(parent_token["attenuations"])
            attenuated = (
                token["authority"] == parent_token["authority"]
                and len(token["attenuations"]) > k
                and token["attenuations"][:k] == parent_token["attenuations"]
            )
            if not attenuated:
                raise broken(f"8.2/5 delegations[{i}]")
            _added_blocks_are_attenuations(token, k)
        parent, parent_token = d, token


lib.verify_chain = verify_chain


# --- D13: outputHash encoding ---------------------------------------------------------------------
# Architecture §5.1: "BLAKE2b-256 of JSON.stringify(output)", encoding unstated. D13 picks
# base64url of canonical JSON; the other reading is the hex digest (blakejs `blake2bHex`) of
# JSON.stringify, which for the suite's sorted-key inputs is the same text as the canonical form.
def op_output_hash(inp: dict) -> dict:
    output = example.fields(inp, ["output"])["output"]
    try:
        text = lib.canonical_bytes(output)
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError) as e:
        raise example.InvalidInput(f"output is not a JSON value: {e}") from e
    return {"outputHash": lib.blake2b256(text).hex()}


example.OPERATIONS["attestation.output_hash"] = op_output_hash

# D33 again: without a depth limit, Python's own recursion limit is the parser's limit. Input
# nested beyond it is refused as invalid_json (a JavaScript implementation has a limit too).
_careful_canonicalize_op = example.OPERATIONS["json.canonicalize"]


def op_canonicalize(inp: dict) -> dict:
    try:
        return _careful_canonicalize_op(inp)
    except RecursionError as e:
        raise DelegateError("invalid_json", "nesting beyond the parser's recursion limit") from e


example.OPERATIONS["json.canonicalize"] = op_canonicalize


# --- D31: jsonrpc.classify as §9 and JSON-RPC 2.0 state it --------------------------------------
# §9 gives five examples, not schemas. Literal: the JSON-RPC 2.0 envelope (an object, `jsonrpc`
# exactly "2.0", `params` structured if present, a response has `id` and exactly one of `result`
# / `error`) and its id rules (a String, Number or Null — null ids and fractional numbers are
# only discouraged, "SHOULD NOT"); the §9 method decides the kind of a request or notification
# (§9.1 has an id, §9.4/§9.5 have none), `result.accepted` that of a response (§9.2/§9.3). No
# member sets, no nested shapes, no id formats (D31's closed schemas are hardening).
RPC_METHODS = {
    "delegateos/delegate": ("delegate_request", True),
    "delegateos/complete": ("complete", False),
    "delegateos/revoke": ("revoke", False),
}


def _bad(detail: str) -> Exception:
    return DelegateError("invalid_message", detail)


def _id_ok(value: Any) -> bool:
    return value is None or isinstance(value, str) or (
        isinstance(value, (int, float)) and not isinstance(value, bool)
    )


def op_jsonrpc_classify(inp: dict) -> dict:
    msg = example.fields(inp, ["message"])["message"]
    if not isinstance(msg, dict):
        raise _bad("not a JSON-RPC object (a batch is not one §9 message)")
    if msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("jsonrpc"), str):
        raise _bad('jsonrpc is not exactly "2.0"')
    if "id" in msg and not _id_ok(msg["id"]):
        raise _bad("id is not a String, Number or Null")
    if "method" in msg:
        method = msg["method"]
        if not isinstance(method, str) or method not in RPC_METHODS:
            raise _bad("not a §9 method")
        if "params" in msg and not isinstance(msg["params"], (dict, list)):
            raise _bad("params is not structured")
        kind, request = RPC_METHODS[method]
        if request and "id" not in msg:
            raise _bad("§9.1 is a request: it has an id")
        if not request and "id" in msg:
            raise _bad("§9.4/§9.5 are notifications: no id")
        return {"kind": kind}
    if "id" not in msg:
        raise _bad("a response has an id")
    if ("result" in msg) == ("error" in msg):
        raise _bad("a response has exactly one of result and error")
    if "error" in msg:
        raise _bad("an error response is not a §9 message")
    result = msg["result"]
    accepted = result.get("accepted") if isinstance(result, dict) else None
    if accepted is True:
        return {"kind": "delegate_accept"}
    if accepted is False:
        return {"kind": "delegate_reject"}
    raise _bad("result.accepted is not a boolean")


example.OPERATIONS["jsonrpc.classify"] = op_jsonrpc_classify



# --- §6.2 / §6.3 / §6.4 / §10.3: checks and output verification, from the text alone -------------
# D12/D28/D29/D30 are not consulted. Each built-in is what a TypeScript implementation of the
# §6.2 sentences would do; where the text is silent, the most lenient such implementation is
# taken and the silence is named in a comment. What `ecmaregex` / `draft07` cannot render
# faithfully is answered `skipped`, never guessed.
class Unsupported(Exception):
    """The case needs something this adapter cannot do faithfully (reported `skipped`)."""


_example_run_case = example.run_case


def _run_case_with_skip(case: dict) -> dict:
    op = example.OPERATIONS.get(case.get("op"))
    if op in (op_check_run, op_output_verify) or op in LITERAL_OPS.values():
        try:
            return {"outcome": "ok", "output": op(case.get("input"))}
        except Unsupported as e:
            return {"outcome": "skipped", "reason": str(e)}
        except DelegateError as e:
            return {"outcome": "error", "code": e.code, "detail": e.detail}
        except example.InvalidInput as e:
            return {"outcome": "error", "code": "invalid_input", "detail": str(e)}
        except RecursionError:
            # nesting beyond Python's recursion limit: a JavaScript engine overflows its stack too
            return {"outcome": "error", "code": "limit_exceeded", "detail": "nesting too deep"}
    return _example_run_case(case)


class _Undefined:
    """JavaScript `undefined` (a JSON value can never be it)."""


UNDEFINED = _Undefined()


class _JsFunction:
    """A non-undefined, non-JSON value: a method found on a JavaScript prototype."""


JS_FUNCTION = _JsFunction()

# JavaScript property lookup, as `obj?.[key]` does it in the dot-path walk a TypeScript
# implementation of "extracts output[field] (dot-path)" / "checks the value exists and is not
# undefined" would write (§6.2 is silent on own vs inherited members, so the JS answer is taken).
_OBJECT_PROTO = {
    "constructor", "__proto__", "toString", "toLocaleString", "valueOf", "hasOwnProperty",
    "isPrototypeOf", "propertyIsEnumerable", "__defineGetter__", "__defineSetter__",
    "__lookupGetter__", "__lookupSetter__",
}
_ARRAY_PROTO = {
    "at", "concat", "copyWithin", "entries", "every", "fill", "filter", "find", "findIndex",
    "findLast", "findLastIndex", "flat", "flatMap", "forEach", "includes", "indexOf", "join",
    "keys", "lastIndexOf", "map", "pop", "push", "reduce", "reduceRight", "reverse", "shift",
    "slice", "some", "sort", "splice", "toLocaleString", "toReversed", "toSorted", "toSpliced",
    "toString", "unshift", "values", "with",
}
_STRING_PROTO = {
    "at", "charAt", "charCodeAt", "codePointAt", "concat", "endsWith", "includes", "indexOf",
    "isWellFormed", "lastIndexOf", "localeCompare", "match", "matchAll", "normalize", "padEnd",
    "padStart", "repeat", "replace", "replaceAll", "search", "slice", "split", "startsWith",
    "substring", "substr", "toLocaleLowerCase", "toLocaleUpperCase", "toLowerCase", "toString",
    "toUpperCase", "toWellFormed", "trim", "trimEnd", "trimStart", "valueOf",
}
_NUMBER_PROTO = {"toExponential", "toFixed", "toLocaleString", "toPrecision", "toString", "valueOf"}
_BOOLEAN_PROTO = {"toString", "valueOf"}
_FUNCTION_PROTO = {"apply", "bind", "call", "length", "name", "toString"}


def _utf16_units(text: str) -> list:
    """`text` as a list of UTF-16 code units (the regex module's conversion; it is imported below)."""
    return list(ecmaregex.utf16_units(text))


def js_length(text: str) -> int:
    """JavaScript `String.prototype.length`: UTF-16 code units (§6.2 string_length)."""
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


_INDEX_RE = re.compile(r"0|[1-9][0-9]*")


def _array_index(key: str) -> int | None:
    # ECMAScript array index: the canonical decimal spelling of an integer (ToString(ToUint32)).
    return int(key) if _INDEX_RE.fullmatch(key) else None


def _indexed_get(items: list, key: str, proto) -> Any:
    """An array's or a string's (as UTF-16 units) member: an index, `length`, or a prototype's."""
    i = _array_index(key)
    if i is not None:
        return items[i] if i < len(items) else UNDEFINED
    if key == "length":
        return len(items)
    return JS_FUNCTION if key in proto | _OBJECT_PROTO else UNDEFINED


def js_get(value: Any, key: str) -> Any:
    if value is None or value is UNDEFINED:
        return UNDEFINED  # `?.` — the lenient walk yields undefined instead of throwing
    if isinstance(value, dict):
        if key in value:
            return value[key]
        return JS_FUNCTION if key in _OBJECT_PROTO else UNDEFINED
    if isinstance(value, list):
        return _indexed_get(value, key, _ARRAY_PROTO)
    if isinstance(value, str):
        return _indexed_get(_utf16_units(value), key, _STRING_PROTO)
    if isinstance(value, bool):
        return JS_FUNCTION if key in _BOOLEAN_PROTO | _OBJECT_PROTO else UNDEFINED
    if isinstance(value, (int, float)):
        return JS_FUNCTION if key in _NUMBER_PROTO | _OBJECT_PROTO else UNDEFINED
    if value is JS_FUNCTION:
        if key == "length":
            return 0
        return JS_FUNCTION if key in _FUNCTION_PROTO | _OBJECT_PROTO else UNDEFINED
    return UNDEFINED


def dot_path(value: Any, path: str) -> Any:
    # §6.2 "extracts output[field] (dot-path)": split on "." and walk, nothing more.
    for key in path.split("."):
        value = js_get(value, key)
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _params(params: Any) -> dict:
    # §6.2 types params as objects but states no validation: anything that is not an object is
    # read as "no params" (destructuring `params ?? {}` in TypeScript reads no member of it).
    return params if isinstance(params, dict) else {}


def _extract(output: Any, p: dict) -> Any:
    # §6.2 "from field or entire output": a `field` that is not a string is treated as unset
    # (the text types it `string`; what a wrong type means is unstated).
    field = p.get("field")
    return dot_path(output, field) if isinstance(field, str) else output


def _within(length: int, p: dict) -> bool:
    # §6.2 "Checks min <= length <= max": an absent bound is no bound; a bound that is not a
    # number is ignored (silence); min > max simply fails (silence: no error named).
    lo, hi = p.get("min"), p.get("max")
    return (not _is_number(lo) or length >= lo) and (not _is_number(hi) or length <= hi)


def check_string_length(output: Any, params: Any) -> dict:
    p = _params(params)
    value = _extract(output, p)
    # "Extracts string ... if string": anything else is not within bounds (no error named).
    if not isinstance(value, str):
        return {"passed": False}  # §6.2 gives string_length no score (CheckResult.score is optional)
    return {"passed": _within(js_length(value), p)}


def check_array_length(output: Any, params: Any) -> dict:
    p = _params(params)
    value = _extract(output, p)
    # "Same as string_length but for arrays": a non-array fails.
    if not isinstance(value, list):
        return {"passed": False}  # no score in §6.2
    return {"passed": _within(len(value), p)}


def check_field_exists(output: Any, params: Any) -> dict:
    fields = _params(params).get("fields")
    # §6.2 types `fields: string[]` and says nothing of a missing or wrong list: a missing list
    # checks nothing ("all fields exist" holds vacuously); a non-string entry (silence) is used
    # as the property key JavaScript would make of it, String(entry).
    if not isinstance(fields, list):
        fields = []
    for f in fields:
        path = f if isinstance(f, str) else _js_string(f)
        if dot_path(output, path) is UNDEFINED:  # "exists and is not undefined": null exists
            return {"passed": False}
    return {"passed": True}  # no score in §6.2


def _js_string(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _js_number(value)
    if isinstance(value, list):
        return ",".join("" if v is None else _js_string(v) for v in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _js_number(x: Any) -> str:
    return lib.canonical_bytes(x).decode("utf-8")


def check_exit_code(output: Any, params: Any) -> dict:
    expected = _params(params).get("expected", UNDEFINED)
    # "Expects output to have shape { exitCode: number }. Checks equality." Another shape is
    # not an error the text names: `output?.exitCode === expected` is simply false.
    actual = js_get(output, "exitCode") if isinstance(output, dict) else UNDEFINED
    passed = _is_number(actual) and _is_number(expected) and actual == expected
    return {"passed": bool(passed)}  # no score in §6.2


def _canonical(value: Any) -> bytes | None:
    try:
        return lib.canonical_bytes(value)
    except Exception:  # noqa: BLE001 — not representable canonically: compare structurally
        return None


def _deep_equal(a: Any, b: Any) -> bool:
    # §6.2 output_equals: "Deep-equality comparison (JSON.stringify canonical form)".
    ca, cb = _canonical(a), _canonical(b)
    if ca is not None and cb is not None:
        return ca == cb
    return _structural_equal(a, b)


def _structural_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return set(a) == set(b) and all(_structural_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_structural_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def check_output_equals(output: Any, params: Any) -> dict:
    p = _params(params)
    # A missing `expected` is `undefined`, which no JSON output equals (silence: no error named).
    if "expected" not in p:
        return {"passed": False}
    return {"passed": _deep_equal(output, p["expected"])}  # no score in §6.2


# §6.2 regex_match: "If field is set, extracts output[field] (dot-path). Tests against
# new RegExp(pattern, flags). Score: 1.0 if match, 0.0 if not." `ecmaregex` parses the pattern
# with ECMAScript's grammar and runs it through Python `re` with ECMAScript's meaning (see its
# docstring); `new RegExp` throwing (a SyntaxError) is reported as `invalid_params`, the code the
# suite uses for a check's bad params. `RegExp.prototype.test` stringifies its argument, so a
# missing field is "undefined" and a non-string output its JavaScript String(…) (the text says
# nothing else). DELEGATEOS_LITERAL_REGEX=re runs Python's own `re` on the pattern instead — the
# dialect mistake an implementation in Python makes; it must fail only regex_match cases.
sys.path.insert(0, HERE)
sys.path.insert(0, EXAMPLE_DIR)  # ecmaregex.py and draft07.py live beside the example library
import ecmaregex  # noqa: E402

REGEX_ENGINE = os.environ.get("DELEGATEOS_LITERAL_REGEX", "ecmascript")


def _test_stdlib_re(pattern: str, flags: str, subject: str) -> bool:
    table = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "u": 0}
    bits = 0
    for f in flags:
        if f not in table:
            raise DelegateError("invalid_params", f"flag {f!r}")
        bits |= table[f]
    try:
        height = ecmaregex.translate(pattern, flags)[2]
    except (ecmaregex.JsSyntaxError, ecmaregex.Unsupported):
        height = 0
    if height >= 2 and len(subject) > 24:
        raise Unsupported("nested quantifiers on a long subject: exponential backtracking in re")
    try:
        return re.search(pattern, subject, bits) is not None
    except re.error as e:
        raise DelegateError("invalid_params", f"re: {e}") from e


def check_regex_match(output: Any, params: Any) -> dict:
    p = _params(params)
    pattern = p.get("pattern", UNDEFINED)
    pattern = "(?:)" if pattern is UNDEFINED else _js_string(pattern)  # new RegExp(undefined) = /(?:)/
    flags = p.get("flags", UNDEFINED)
    flags = "" if flags is UNDEFINED else _js_string(flags)
    value = _extract(output, p)
    subject = "undefined" if value is UNDEFINED else _js_string(value)
    if REGEX_ENGINE == "re":
        matched = _test_stdlib_re(pattern, flags, subject)
    else:
        try:
            matched = ecmaregex.test(pattern, flags, subject)
        except ecmaregex.JsSyntaxError as e:
            raise DelegateError("invalid_params", f"new RegExp throws: {e}") from e
        except ecmaregex.Unsupported as e:
            raise Unsupported(f"regex_match: {e}") from e
    return {"passed": matched, "score": 1.0 if matched else 0.0}


# §6.2 json_schema: "Validates output against JSON Schema draft-07 using ajv strict mode. Pass:
# Valid. Score: 1.0 if valid, 0.0 if not." `draft07.py` is that validator (stdlib only): a schema
# ajv strict refuses to compile is `invalid_schema`; what it cannot render faithfully is skipped.
import draft07  # noqa: E402


def ajv_validate(schema: Any, output: Any) -> bool:
    try:
        if output is UNDEFINED:  # ajv.validate(schema, undefined): only an empty schema passes
            draft07.check_schema(schema, schema)
            return schema is True or schema == {}
        return draft07.validate(schema, output)
    except draft07.SchemaError as e:
        raise DelegateError("invalid_schema", str(e)) from e
    except draft07.Unsupported as e:
        raise Unsupported(f"json_schema: {e}") from e


def check_json_schema(output: Any, params: Any) -> dict:
    schema = _params(params).get("schema", UNDEFINED)
    if schema is UNDEFINED:
        raise DelegateError("invalid_schema", "ajv.compile(undefined) throws")
    ok = ajv_validate(schema, output)
    return {"passed": ok, "score": 1.0 if ok else 0.0}


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
    # §6.3 `get(name)`: "throws if not found".
    fn = REGISTRY.get(name) if isinstance(name, str) else None
    if fn is None:
        raise DelegateError("unknown_check", f"no check named {name!r}")
    return fn


def op_check_run(inp: dict) -> dict:
    inp = example.fields(inp, ["name", "output"], ("params",))
    fn = registry_get(inp["name"])
    return fn(inp["output"], inp.get("params"))


def _bad_spec(detail: str) -> DelegateError:
    return DelegateError("invalid_spec", detail)


def verify_output(spec: Any, output: Any) -> dict:
    """§10.3 VERIFY_OUTPUT as written (the contract reduced to its `verification`)."""
    if not isinstance(spec, dict):
        raise _bad_spec("verification is not an object")
    method = spec.get("method")
    if method == "schema_match":
        # §10.3: `ajv.validate(contract.verification.schema, output) ? {passed: true, score: 1.0}
        # : {passed: false, score: 0.0, …}`.
        schema = spec.get("schema", UNDEFINED)
        if schema is UNDEFINED:
            raise DelegateError("invalid_schema", "ajv.validate(undefined, …) throws")
        ok = ajv_validate(schema, output)
        return {"passed": ok, "score": 1.0 if ok else 0.0}
    if method == "deterministic_check":
        fn = registry_get(spec.get("checkName"))  # "throws if not found"
        result = dict(fn(output, spec.get("checkParams")))
        if "expectedResult" in spec:  # "!== undefined" (a JSON null is defined)
            result["passed"] = _deep_equal(result, spec["expectedResult"])
        return result
    if method == "composite":
        steps = spec.get("steps")
        mode = spec.get("mode")
        # The text iterates `steps`; a missing or non-array list is unstated: nothing to iterate
        # is not a spec (§6.1 types it VerificationSpec[] for composites).
        if not isinstance(steps, list):
            raise _bad_spec("composite without a steps array")
        # §6.4 "weights must have same length as steps and sum to 1.0 (±0.001 tolerance)".
        if mode == "weighted":
            weights = spec.get("weights")
            if not isinstance(weights, list) or len(weights) != len(steps) or not all(_is_number(w) for w in weights):
                raise _bad_spec("weights must have same length as steps")
            if abs(sum(weights) - 1.0) > 0.001:
                raise _bad_spec("weights must sum to 1.0 (±0.001)")
        results = []
        for i, step in enumerate(steps):
            r = verify_output(step, output)
            results.append(r)
            if mode == "all_pass" and not r["passed"]:
                return {"passed": False, "score": 0.0}
        if mode == "all_pass":
            return {"passed": True, "score": 1.0}
        if mode == "majority":
            count = sum(1 for r in results if r["passed"])
            # an empty steps list divides by zero: JavaScript's NaN, serialized as null
            score = count / len(results) if results else None
            return {"passed": count > len(results) / 2, "score": score}
        if mode == "weighted":
            total = 0.0
            for w, r in zip(spec["weights"], results):
                s = r.get("score")
                total += w * (s if _is_number(s) else (1.0 if r["passed"] else 0.0))
            threshold = spec.get("passThreshold")
            # "Default passThreshold: 0.7" (`?? 0.7`); a non-number threshold is unstated: default.
            if not _is_number(threshold):
                threshold = 0.7
            return {"passed": total >= threshold, "score": total}
        # §10.3's switch has no other mode: the text gives no result, so the spec is refused.
        raise _bad_spec(f"composite mode {mode!r} is none of §6.4's")
    # §10.3's switch covers three methods; any other has no result.
    raise _bad_spec(f"method {method!r} is none of §10.3's")


def op_output_verify(inp: dict) -> dict:
    inp = example.fields(inp, ["verification", "output"])
    return verify_output(inp["verification"], inp["output"])


example.OPERATIONS["check.run"] = op_check_run
example.OPERATIONS["output.verify"] = op_output_verify
example.run_case = _run_case_with_skip


# --- D10: Ed25519 verification as libsodium does it -----------------------------------------------
# §1.2 names "Ed25519 (RFC 8032) via @noble/ed25519" and nothing beyond RFC 8032. D10's strict
# profile adds refusals RFC 8032 does not state (small-order / mixed-order A and R, torsion).
# Literal: libsodium's crypto_sign_open (PyNaCl) and nothing else. What it refuses: a key or
# signature of the wrong length (→ false here, D10 WrongLength), S >= L (RFC 8032 §5.1.7), a
# non-canonical or small-order A, a small-order R; R is compared as bytes, so a non-canonical R
# never verifies (RFC 8032 §5.1.3 / §5.1.7). What it accepts and D10 refuses: A with a torsion
# component (mixed order) when the cofactorless equation holds. It is cofactorless, so a
# signature only a cofactored verifier accepts is refused (D10's `Ed25519Cofactored` is
# acceptable either way). noble v2's default (ZIP 215, cofactored, non-canonical encodings
# accepted) would be more lenient still; libsodium is what the brief of this adapter uses.
def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    import nacl.bindings
    import nacl.exceptions

    if len(public_key) != 32 or len(signature) != 64:
        return False  # noble's verify returns false on bad input rather than throwing
    try:
        nacl.bindings.crypto_sign_open(signature + message, public_key)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError, nacl.exceptions.CryptoError):
        return False
    return True


lib.ed25519_verify = ed25519_verify


# --- §5.1 / §7.2 / arch §5.1, §8: signed contracts and attestations -------------------------------
# "Signature covers: canonicalize(attestation_without_signature_field) → BLAKE2b → Ed25519.sign"
# (§7.2). §5.1 says of the contract only "Ed25519 signature over canonical JSON of all fields
# except 'signature'" — the very wording architecture §5.1 uses for the attestation, which §7.2
# spells out with BLAKE2b; §4.1 (revocation entries) is read the same way. So both objects are
# signed over BLAKE2b-256 of their canonical form without `signature` (audit §12, suspected).
def _payload_digest(obj: dict) -> bytes:
    return lib.blake2b256(lib.canonical_bytes({k: v for k, v in obj.items() if k != "signature"}))


def _sign_object(seed_bytes: bytes, obj: dict) -> str:
    return lib.b64url_encode(lib.ed25519_sign(seed_bytes, _payload_digest(obj)))


def _verify_object(obj: dict, principal: Any) -> bool:
    """`verify…Signature(obj, publicKey)`: the signature under the key the principal id names.
    The text gives no shape rule: anything that cannot be decoded simply does not verify."""
    try:
        key = lib.b64url_decode(principal) if isinstance(principal, str) else None
        sig = lib.b64url_decode(obj.get("signature")) if isinstance(obj.get("signature"), str) else None
    except DelegateError:
        return False
    if key is None or sig is None or len(key) != 32 or len(sig) != 64:
        return False
    try:
        digest = _payload_digest(obj)
    except (TypeError, ValueError, OverflowError, UnicodeEncodeError):
        return False
    return lib.ed25519_verify(key, digest, sig)


def _object(value: Any, code: str, what: str) -> dict:
    # The text has no shape rules (D25 step 1 / D27 are ours); only a value that is not an
    # object at all cannot be read as one.
    if not isinstance(value, dict):
        raise DelegateError(code, f"{what} is not an object")
    return value


def _create_signed(seed_hex: Any, obj: Any, code: str, what: str, key_member: str) -> dict:
    seed_bytes = example.seed(seed_hex, "seed")
    obj = dict(_object(obj, code, what))
    obj.pop("signature", None)
    # createContract(issuer, …) / createCompletionAttestation(signer, …) set the version and
    # the signer's principal themselves; the text validates none of the other members.
    obj.setdefault("version", "0.1")
    obj[key_member] = lib.principal_from_seed(seed_bytes)
    obj["signature"] = _sign_object(seed_bytes, obj)
    return obj


def op_attestation_create(inp: dict) -> dict:
    inp = example.fields(inp, ["principalSeed", "attestation"])
    return {"attestation": _create_signed(inp["principalSeed"], inp["attestation"], "malformed_attestation", "attestation", "principal")}


def op_contract_create(inp: dict) -> dict:
    inp = example.fields(inp, ["issuerSeed", "contract"])
    return {"contract": _create_signed(inp["issuerSeed"], inp["contract"], "malformed_contract", "contract", "issuer")}


def op_contract_verify_signature(inp: dict) -> dict:
    contract = _object(example.fields(inp, ["contract"])["contract"], "malformed_contract", "contract")
    # verifyContractSignature(contract, contract.issuer) returns a boolean; false is a refusal.
    if not _verify_object(contract, contract.get("issuer")):
        raise DelegateError("invalid_signature", "the contract's signature does not verify under its issuer")
    return {"valid": True}


def _member(obj: Any, key: str, code: str) -> Any:
    # Reading a member of something that is not an object is a TypeError in the text's
    # TypeScript: reported with the domain's code.
    if not isinstance(obj, dict) or key not in obj:
        raise DelegateError(code, f"missing {key}")
    return obj[key]


def op_attestation_verify(inp: dict) -> dict:
    inp = example.fields(inp, ["attestation", "contract"])
    contract = _object(inp["contract"], "malformed_contract", "contract")
    att = _object(inp["attestation"], "malformed_attestation", "attestation")
    # §7.3 step 1: "Verify signature against claimed principal's public key".
    if not _verify_object(att, att.get("principal")):
        raise DelegateError("invalid_signature", "the attestation does not verify under its principal")
    result = att.get("result")
    output = result.get("output", UNDEFINED) if isinstance(result, dict) else UNDEFINED
    verification = _member(contract, "verification", "malformed_contract")
    # Step 2: "Verify output against contract's outputSchema (if schema_match)" (ajv, draft-07).
    if isinstance(verification, dict) and verification.get("method") == "schema_match":
        task = contract.get("task")
        schema = task.get("outputSchema", UNDEFINED) if isinstance(task, dict) else UNDEFINED
        if schema is UNDEFINED:
            raise DelegateError("malformed_contract", "schema_match without task.outputSchema")
        if not ajv_validate(schema, output):
            raise DelegateError("schema_mismatch", "the output does not match task.outputSchema")
    # Step 3: "Run contract's verification spec against output" (§10.3, as output.verify).
    if not verify_output(verification, output)["passed"]:
        raise DelegateError("verification_failed", "the contract's verification spec did not pass")
    # Step 4: "Check costMicrocents ≤ contract.constraints.maxBudgetMicrocents" (JavaScript `<=`:
    # a missing or non-number operand makes the comparison false, so the check fails).
    cost = result.get("costMicrocents") if isinstance(result, dict) else None
    budget = _member(contract, "constraints", "malformed_contract")
    budget = budget.get("maxBudgetMicrocents") if isinstance(budget, dict) else None
    if not (_is_number(cost) and _is_number(budget) and cost <= budget):
        raise DelegateError("budget_exceeded", "costMicrocents > maxBudgetMicrocents")
    # The text has no outputHash, contractId or shape check here (D25 steps 1, 2, 4 are ours).
    return {"valid": True}


# --- D11 / D43: contract binding as §5.2 words it ---------------------------------------------
# §5.2: "A DCT is bound to a contract via authority.contractId. The verifier MUST reject a DCT if:
# contractId doesn't match the contract being executed; the DCT's capabilities don't cover the
# contract's requiredCapabilities". D11 compares the LAST contractId and the effective
# capabilities; literal: authority.contractId and the authority's capabilities (the same
# "authority" the sentence names), the "ns:action" split at the last `:` (D11's other option).
def _literal_binding(contract: dict, token: dict) -> None:
    required = _member(_member(contract, "constraints", "malformed_contract"), "requiredCapabilities", "malformed_contract")
    if not isinstance(required, list):
        raise DelegateError("malformed_contract", "requiredCapabilities is not an array")
    authority = token["authority"]
    if authority["contractId"] != contract.get("id"):
        raise DelegateError("contract_mismatch", "authority.contractId is not contract.id")
    for req in required:
        if not isinstance(req, str):
            raise DelegateError("malformed_contract", "a requiredCapabilities entry is not a string")
        ns, _, action = req.rpartition(":")
        if not any(c["namespace"] == ns and c["action"] == action for c in authority["capabilities"]):
            raise DelegateError("capability_mismatch", f"{req} is not covered")


def op_contract_bind(inp: dict) -> dict:
    inp = example.fields(inp, ["contract", "token", "now", "rootPublicKey", "revocations"])
    contract = _object(inp["contract"], "malformed_contract", "contract")
    if not isinstance(inp["revocations"], list):
        raise example.InvalidInput("revocations must be an array")
    ctx = {
        "now": example.string(inp["now"], "now"),
        "spentMicrocents": 0,
        "rootPublicKey": example.string(inp["rootPublicKey"], "rootPublicKey"),
        "revocations": inp["revocations"],
    }
    lib.verify_dct(inp["token"], ctx, check_request=False)  # steps 1-6 (operations.md: combined)
    _literal_binding(contract, lib.decode_token(inp["token"]))
    return {"bound": True}


LITERAL_OPS = {
    "attestation.create": op_attestation_create,
    "attestation.verify": op_attestation_verify,
    "contract.create": op_contract_create,
    "contract.verify_signature": op_contract_verify_signature,
    "contract.bind": op_contract_bind,
}
example.OPERATIONS.update(LITERAL_OPS)
example.OPERATIONS["contract.bind"] = _with_caller_checks(op_contract_bind, None)


# --- §11 / architecture §6: the MCP plugin, from the text alone ---------------------------------
# None of D15/D17/D32/D34-D40 (spec/mcp-proxy.md §3.2-§3.3) is consulted. The plugin is what a
# TypeScript `createMCPPlugin` (arch §6.2) following §11.3 and arch §6.3's flow would do:
#   Has _delegateos? no -> pass through; deserialize DCT (fail -> -32001); map tool name ->
#   capability (not found -> -32001); verifyDCT (denied -> -32001 + reason); strip _delegateos,
#   forward; record spend.
# The launch-config shape (`tools`, `spendPerCall`, `sessionToken`, `trustedRoots`) is the
# harness's configuration of that plugin, not a reading, and is taken as given.
DENIAL_MESSAGE = "DCT verification failed"  # §11.2


def _mcp_config(value: Any) -> dict:
    cfg = example.fields(value, ["trustedRoots", "tools"], ("revocations", "spendPerCall", "strict", "sessionToken"))
    if not isinstance(cfg["trustedRoots"], list) or not isinstance(cfg["tools"], dict):
        raise example.InvalidInput("trustedRoots must be an array, tools an object")
    revocations = cfg.get("revocations", [])
    if not isinstance(revocations, list):
        raise example.InvalidInput("revocations must be an array")
    return {
        "trustedRoots": cfg["trustedRoots"],
        "tools": cfg["tools"],
        "revocations": revocations,
        "spendPerCall": cfg.get("spendPerCall", 0),
        # `strict` (D15) is a switch of the harness's configuration, not a reading: the text
        # describes the default mode ("Extract _delegateos (if present)"), which is what this
        # plugin does unless the configuration opts in to strict mode.
        "strict": cfg.get("strict", False) is True,
        "sessionToken": cfg.get("sessionToken"),
    }


def _spent(value: Any) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise example.InvalidInput("spent must be an object")
    return value


def _root_for(token: dict, roots: list) -> str:
    # arch §6.2 `trustedRoots: string[]` vs §10.1 ctx.rootPublicKey (one key): silent on how the
    # list becomes the one key. Literal: the issuer if it is trusted, else the first root
    # (verification then fails at step 3a); no roots -> a key that matches nothing.
    issuer = token["authority"]["issuer"]
    if issuer in roots:
        return issuer
    return roots[0] if roots and isinstance(roots[0], str) else ""


def _denial_data(e: DelegateError, token: dict | None, ctx: dict) -> dict:
    """The architecture §2.5 DenialReason of a verifyDCT failure (fields as §2.5 lists them)."""
    data: dict = {"type": e.code}
    if e.code == "revoked" and token is not None:
        valid = set()
        for entry in ctx["revocations"]:
            try:
                lib.check_revocation_entry(entry)
            except DelegateError:
                continue
            valid.add((entry["revocationId"], entry["revokedBy"]))
        blocks = [(token["authority"], token["authority"]["issuer"])] + [(t, t["attenuator"]) for t in token["attenuations"]]
        for block, signer in blocks:
            rid = lib.revocation_id(block)
            if (rid, signer) in valid:
                data["revocationId"] = rid
                break
    elif e.code == "budget_exceeded":
        scope = lib.verify_dct(ctx["serialized"], {**ctx, "spentMicrocents": 0}, check_request=False)
        data["limit"] = scope["remainingBudgetMicrocents"]
        data["spent"] = ctx["spentMicrocents"]
    elif e.code == "chain_depth_exceeded" and token is not None:
        state = lib.ChainState(token["authority"]) if token["authority"]["chainDepth"] <= token["authority"]["maxChainDepth"] else None
        if state is None:
            data["max"], data["actual"] = token["authority"]["maxChainDepth"], token["authority"]["chainDepth"]
        else:
            try:
                for i, t in enumerate(token["attenuations"]):
                    state.apply(t, i)
            except DelegateError:
                pass
            data["max"], data["actual"] = state.root_max, state.depth
    elif e.code in ("invalid_signature", "attenuation_violation", "malformed_token"):
        # §2.5: only these three carry `detail`; `expired` is `{ type: 'expired' }` alone.
        data["detail"] = e.detail
    return data


def _deny(request: dict, data: dict) -> dict:
    if "id" not in request:
        # JSON-RPC 2.0 §4.1: a notification is never answered (the denial is dropped).
        return {"decision": "drop", "data": data}
    response = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32001, "message": DENIAL_MESSAGE, "data": data}}
    error = {**response["error"], "data": {k: v for k, v in data.items() if k != "detail"}}
    return {"decision": "deny", "response": response, "id": request["id"], "error": error}


def _extract_resource(mapping: dict, arguments: Any) -> Any:
    # arch §6.2: `resourceExtractor?: (args) => string`; absent -> '*' (the config's default).
    # A dot path is walked as JavaScript's `args?.[k]` would; a value that is not a string
    # (missing, number, ...) is silent in the text: it then matches no capability (a glob
    # matches strings only), reported as `resource: null`.
    res = mapping.get("resource")
    if not isinstance(res, dict):
        return "*"
    if "constant" in res:
        return res["constant"]
    value: Any = arguments
    for key in str(res.get("argument", "")).split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value if isinstance(value, str) else None


def op_mcp_call(inp: dict) -> dict:
    inp = example.fields(inp, ["request", "config", "now"], ("spent",))
    cfg = _mcp_config(inp["config"])
    spent = _spent(inp.get("spent"))
    request = inp["request"]
    if not isinstance(request, dict):
        raise example.InvalidInput("request must be an object")
    # §11.3 step 6: only tools/call is intercepted; every other method passes through.
    if request.get("method") != "tools/call":
        return {"decision": "pass_through"}
    params = request.get("params")
    # "Extract _delegateos (if present)" / arch §6.3 "Has _delegateos? No -> pass through":
    # read as a TypeScript `if (!params?._delegateos)` (null and absent are both "not present").
    envelope = params.get("_delegateos") if isinstance(params, dict) else None
    if envelope is None or envelope is False or envelope == "" or envelope == 0:
        if cfg["strict"]:
            return _deny(request, {"type": "malformed_token", "detail": "missing _delegateos"})
        return {"decision": "pass_through"}
    # Deserialize DCT: `{token: _delegateos.dct, format: _delegateos.format}` (arch §2.5
    # SerializedDCT); the envelope's other members are not validated (the text names none).
    serialized = {
        "token": envelope.get("dct") if isinstance(envelope, dict) else None,
        "format": envelope.get("format") if isinstance(envelope, dict) else None,
    }
    try:
        token = lib.decode_token(serialized)
    except DelegateError as e:
        return _deny(request, {"type": "malformed_token", "detail": e.detail})
    # Map tool name -> capability (arch §6.3: before verifyDCT). Not found -> -32001; its
    # DenialReason is silent: the nearest §2.5 type, capability_not_granted, with the tool name.
    name = params.get("name")
    mapping = cfg["tools"].get(name) if isinstance(name, str) else None
    if not isinstance(mapping, dict):
        return _deny(request, {"type": "capability_not_granted", "tool": name, "detail": "tool not in the capability map"})
    # BudgetTracker.getSpent(delegationId) (arch §6.2): the text does not say whose id; the one
    # the request carries (`_delegateos.delegationId`) is what the interface hands a plugin,
    # else the token's last delegation (inspectDCT).
    last = token["attenuations"][-1] if token["attenuations"] else token["authority"]
    delegation = envelope.get("delegationId") if isinstance(envelope.get("delegationId"), str) else last["delegationId"]
    spent_now = spent.get(delegation, 0)
    resource = _extract_resource(mapping, params.get("arguments"))
    ctx = {
        "namespace": mapping["namespace"],
        "action": mapping["action"],
        "resource": resource,
        "now": inp["now"],
        "spentMicrocents": spent_now,
        "rootPublicKey": _root_for(token, cfg["trustedRoots"]),
        "revocations": cfg["revocations"],
        "serialized": serialized,
    }
    try:
        scope = lib.verify_dct(serialized, ctx, check_request=False)  # steps 1-6
    except DelegateError as e:
        return _deny(request, _denial_data(e, token, ctx))
    # Step 7 with the DenialReason of arch §2.5 (requested, granted).
    requested = {"namespace": mapping["namespace"], "action": mapping["action"], "resource": resource}
    if not any(
        c["namespace"] == requested["namespace"] and c["action"] == requested["action"] and isinstance(resource, str) and lib.glob_match(c["resource"], resource)
        for c in scope["capabilities"]
    ):
        return _deny(request, {"type": "capability_not_granted", "requested": requested, "granted": scope["capabilities"]})
    # Strip _delegateos, forward; record spend (per-tool `spend`, else spendPerCall).
    forwarded = {**request, "params": {k: v for k, v in params.items() if k != "_delegateos"}}
    cost = mapping.get("spend", cfg["spendPerCall"])
    return {"decision": "forward", "request": forwarded, "delegationId": delegation, "spend": cost}


def _tool_allowed(mapping: Any, caps: list) -> bool:
    # §11.3 step 4 "filter to only tools matching DCT capabilities": namespace and action; the
    # resource of an argument-resource tool is unknown when listing (silent; D32 ignores it too).
    return isinstance(mapping, dict) and any(c["namespace"] == mapping.get("namespace") and c["action"] == mapping.get("action") for c in caps)


def op_mcp_filter_tools(inp: dict) -> dict:
    inp = example.fields(inp, ["tools", "config", "now"], ("spent",))
    cfg = _mcp_config(inp["config"])
    spent = _spent(inp.get("spent"))
    tools = inp["tools"]
    if not isinstance(tools, list):
        raise example.InvalidInput("tools must be an array")
    session = cfg["sessionToken"]
    if session is None:
        return {"tools": tools}
    # "If session has active DCT": read as a session token that verifies (steps 1-6, with its
    # delegation's spend). One that does not is not active, so the list is not filtered (the
    # text's only other branch; D32's empty list is hardening).
    try:
        token = lib.decode_token(session)
        last = token["attenuations"][-1] if token["attenuations"] else token["authority"]
        ctx = {
            "now": inp["now"],
            "spentMicrocents": spent.get(last["delegationId"], 0),
            "rootPublicKey": _root_for(token, cfg["trustedRoots"]),
            "revocations": cfg["revocations"],
        }
        scope = lib.verify_dct(session, ctx, check_request=False)
    except DelegateError:
        return {"tools": tools}
    caps = scope["capabilities"]
    return {"tools": [t for t in tools if isinstance(t, dict) and _tool_allowed(cfg["tools"].get(t.get("name")), caps)]}


LITERAL_OPS["mcp.call"] = op_mcp_call
LITERAL_OPS["mcp.filter_tools"] = op_mcp_filter_tools
example.OPERATIONS.update(LITERAL_OPS)


# --- mcp.session: the plugin over one session (§11.3, arch §6.1-§6.3) ----------------------------
# A client tools/call is decided as op_mcp_call decides it with the spend recorded so far; a
# forwarded request is remembered by its id (same JSON type) until the upstream's response, so
# `handleResponse(req, res)` can pair them. §11.3 step 5 "Strip _delegateos, forward to upstream;
# Record spend, return response": spend is recorded when the response comes back (D32 records
# at authorization; a case depending on that carries McpSpendAtAuthorization, hardening); a
# tools/call notification gets no response, so it is charged when forwarded (silent).
# BUT: recorded on the response, calls in flight together all pass step 6 and overrun the
# budget (mcp-session-0009, a critical hardening finding, reported in audit §16 as a finding
# about the text). By default this adapter therefore records when it forwards — the same
# handler of §11.3 step 5, which lists "Record spend" with the forward —; set
# DELEGATEOS_LITERAL_SPEND_AT_RESPONSE=1 for the on-response reading. A
# tools/list response (a response whose id is a pending client tools/list) is filtered; every
# other message is relayed unchanged (§11.3 step 6, arch §6.1 "Pass through").
def _is_response(message: Any) -> bool:
    return isinstance(message, dict) and "method" not in message and "id" in message and ("result" in message or "error" in message)


def _normalise(message: Any) -> Any:
    # spec/mcp-proxy.md §6.1: a -32001 denial's data reduced to `type`; other errors lose `detail`.
    if isinstance(message, dict) and isinstance(message.get("error"), dict) and isinstance(message["error"].get("data"), dict):
        error = message["error"]
        if error.get("code") == -32001 and error.get("message") == DENIAL_MESSAGE:
            data = {"type": error["data"].get("type")}
        else:
            data = {k: v for k, v in error["data"].items() if k != "detail"}
        return {**message, "error": {**error, "data": data}}
    return message


def op_mcp_session(inp: dict) -> dict:
    inp = example.fields(inp, ["config", "now", "steps"])
    config = inp["config"]
    _mcp_config(config)
    if not isinstance(inp["steps"], list):
        raise example.InvalidInput("steps must be an array")
    spent: dict = {}
    pending: dict = {}  # json id -> ("tools/list", None) | ("tools/call", (delegationId, cost))
    out = []
    for step in inp["steps"]:
        if not isinstance(step, dict) or len(step) != 1:
            raise example.InvalidInput("each step has exactly one member")
        (kind, message), = step.items()
        to_client: list = []
        to_upstream: list = []
        if kind == "spent":
            if not isinstance(message, list):
                raise example.InvalidInput("spent must be an array")
            out.append({"spent": {d: spent.get(d, 0) for d in message}})
            continue
        if kind == "client":
            method = message.get("method") if isinstance(message, dict) else None
            has_id = isinstance(message, dict) and "id" in message
            if method == "tools/call":
                decision = op_mcp_call({"request": message, "config": config, "now": inp["now"], "spent": spent})
                if decision["decision"] == "deny":
                    to_client.append(decision["response"])
                elif decision["decision"] == "forward":
                    to_upstream.append(decision["request"])
                    charge = (decision["delegationId"], decision["spend"])
                    if has_id and os.environ.get("DELEGATEOS_LITERAL_SPEND_AT_RESPONSE") == "1":
                        pending[_id_key(message["id"])] = ("tools/call", charge)
                    else:
                        if has_id:
                            pending[_id_key(message["id"])] = ("other", None)
                        spent[charge[0]] = spent.get(charge[0], 0) + charge[1]
                elif decision["decision"] == "pass_through":
                    to_upstream.append(message)
                    if has_id:
                        pending[_id_key(message["id"])] = ("other", None)
            else:
                to_upstream.append(message)
                if method is not None and has_id:
                    pending[_id_key(message["id"])] = ("tools/list" if method == "tools/list" else "other", None)
        elif kind == "upstream":
            relayed = message
            if _is_response(message) and _id_key(message["id"]) in pending:
                what, charge = pending.pop(_id_key(message["id"]))
                if what == "tools/call" and charge is not None:
                    spent[charge[0]] = spent.get(charge[0], 0) + charge[1]
                elif what == "tools/list" and isinstance(message.get("result"), dict) and isinstance(message["result"].get("tools"), list):
                    kept = op_mcp_filter_tools({"tools": message["result"]["tools"], "config": config, "now": inp["now"], "spent": spent})["tools"]
                    relayed = {**message, "result": {**message["result"], "tools": kept}}
            to_client.append(relayed)
        else:
            raise example.InvalidInput(f"unknown step {kind!r}")
        out.append({"toClient": [_normalise(m) for m in to_client], "toUpstream": to_upstream})
    return {"steps": out}


def _id_key(value: Any) -> str:
    import json as _json

    return _json.dumps(value, sort_keys=True)


LITERAL_OPS["mcp.session"] = op_mcp_session
example.OPERATIONS.update(LITERAL_OPS)


if __name__ == "__main__":
    example.main(
        lib,
        {
            "name": "delegateos-mini, spec-literal variant (issue 12)",
            "version": "0.1.0",
            "language": "python",
            "homepage": "implementations/python-literal/README.md",
        },
    )
