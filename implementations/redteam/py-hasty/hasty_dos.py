"""RED TEAM — DELIBERATELY DEFECTIVE. Do not copy.

A "hasty" Python DelegateOS verifier, stdlib only, seeded with Python-typical bugs. Each bug is
guarded by `bug("name")`; the list comes from the environment variable REDTEAM_BUGS
(comma-separated; unset = DEFAULT_BUGS = all of them; empty = the careful path). The careful
path started as a copy of implementations/python/delegateos_mini.py with PyNaCl replaced by a
pure-Python RFC 8032 verifier (cofactorless, no small-order / torsion checks: realistic, and
NOT the strict profile of D10 — see README.md for the careful path's known failures).

Contents, in order:
  1. strict JSON parsing and RFC 8785 canonical JSON       (D33, research §1)
  2. strict base64url, BLAKE2b-256, Ed25519 strict profile  (D9, D10)
  3. timestamps (RFC 3339 profile of D5), compared as instants
  4. resource globs and capability subset                  (§10.2, D1-D3)
  5. DCT decoding (step 1), revocation entries, and verification (§10.1, D4-D8, D16-D21)

Errors are raised as `DelegateError(code, detail)` with the codes of spec/error-codes.md.
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import functools
import hashlib
import json
import os
import re
from datetime import datetime, timezone
from pathlib import PurePosixPath
from typing import Any

BUG_NAMES = [
    "json-nan",               # json.loads: NaN / Infinity / -Infinity accepted
    "json-dupes-last",        # json.loads: duplicate member names, the last one wins
    "json-loads-token",       # token text decoded with plain json.loads (dupes last-wins), no canonical re-check
    "canon-json-dumps",       # canonicalize = json.dumps(sort_keys=True, separators=(",", ":"))
    "b64-lenient",            # base64.urlsafe_b64decode(s + padding): junk, padding, trailing bits
    "iso-timestamps",         # datetime.fromisoformat (3.11): naive = UTC, space, µs truncation
    "tz-naive",               # offsets dropped: wall clocks compared (naive datetimes)
    "fnmatch-glob",           # fnmatch.fnmatchcase for resource globs
    "subset-startswith",      # subset: child.startswith(parent.rstrip("*"))
    "bool-as-int",            # isinstance(True, int): booleans are integers (budget `true`, covers False == 0)
    "float-ints",             # isinstance(v, (int, float)): 1.5 is a budget
    "int-range-unchecked",    # Python ints never overflow: no 2^53-1 bound
    "missing-members-default",  # dict.get: a missing authority member means "no limit"
    "extra-members-ignored",  # unknown members anywhere are ignored
    "or-defaults",            # `t.get(k) or inherited`: 0 / [] in an attenuation mean "inherit"
    "empty-resource-wildcard",  # `cap.get("resource") or "*"`: an empty resource pattern grants everything
    "regex-dollar-newline",   # re.match(r"...$"): `$` also matches before a trailing "\n"
    "regex-unicode-digits",   # r"\d" matches any Unicode decimal digit, and int() parses them
    "strptime-timestamps",    # datetime.strptime("%Y-%m-%dT%H:%M:%S%z"): "2026-3-1T…", "+0000" accepted
    "jcs-codepoint-sort",     # JCS, but keys sorted by code point (sorted(dict)), not UTF-16 units
    "pathlib-match",          # PurePosixPath(resource).match(pattern): right-anchored, "//", "." collapsed
    "revocations-by-id-dict",  # {e["revocationId"]: e["revokedBy"]}: a later entry for the same id hides an earlier one
    "expiry-min-string",      # effective expiry = min(expiresAt strings): lexicographic, not by instant
    "authority-or-defaults",  # `authority.get(k) or UNLIMITED`: a zero budget / maxChainDepth in the authority means "no limit"
    "null-means-unlimited",   # an attenuation restriction set to null passes the type check and means "no limit" (replacing the parent's)
    "sigs-by-covers-dict",    # {s["covers"]: s for s in signatures}: last duplicate wins, no count
    "sig-any-key",            # verify{Attestation,Contract}Signature(obj, key): true under the key passed OR the object's principal/issuer
    "verify-memo",            # verification results cached by token text ("verifying is expensive"): context ignored on a hit
    "revocations-accumulate",  # one process-wide revocation list: every context's entries are added to it, never removed
    "signer-key",             # verifies each signature under signatures[i]["signer"]
]
DEFAULT_BUGS = list(BUG_NAMES)
_env = os.environ.get("REDTEAM_BUGS")
BUGS = set(DEFAULT_BUGS) if _env is None else {b.strip() for b in _env.split(",") if b.strip()}


def bug(name: str) -> bool:
    assert name in BUG_NAMES, name
    return name in BUGS

TOKEN_FORMAT = "delegateos-sjt-v1"
MAX_SAFE_INTEGER = 2**53 - 1
MAX_JSON_DEPTH = 32
MAX_TOKEN_CHARS = 1 << 20


class DelegateError(Exception):
    """A failure with a stable code from spec/error-codes.md."""

    def __init__(self, code: str, detail: str = "", **data: Any):
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
        self.data = data  # DenialReason fields (revocationId, limit/spent, max/actual)


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
    if bug("json-nan") and isinstance(value, float):
        return
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


def _last_wins(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return dict(pairs)


def parse_json(text: str) -> Any:
    """Parses I-JSON text strictly (D33); raises ValueError on anything else."""
    if text.startswith("\ufeff"):
        raise ValueError("byte order mark")
    try:
        decoder = json.JSONDecoder(
            object_pairs_hook=_last_wins if bug("json-dupes-last") else _no_duplicates,
            parse_constant=float if bug("json-nan") else _reject_constant,
            parse_float=float if bug("json-nan") else _finite_float,
        )
        value = decoder.decode(text)
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
    if bug("canon-json-dumps"):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
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
        keys = sorted(value) if bug("jcs-codepoint-sort") else sorted(value, key=lambda k: k.encode("utf-16-be"))
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
    if bug("b64-lenient"):
        try:
            return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError, TypeError) as e:
            raise DelegateError("invalid_encoding", str(e)) from e
    if not isinstance(text, str) or not _B64URL_RE.fullmatch(text) or len(text) % 4 == 1:
        raise DelegateError("invalid_encoding", "not strict base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url_encode(data) != text:
        raise DelegateError("invalid_encoding", "non-zero trailing bits")
    return data


def blake2b256(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=32).digest()


_L = 2**252 + 27742317777372353535851937790883648493  # order of the prime-order subgroup


# --- pure-Python Ed25519 (RFC 8032 §5.1, cofactorless, no point-validity checks) ---

_P = 2**255 - 19
_D = -121665 * pow(121666, _P - 2, _P) % _P
_I = pow(2, (_P - 1) // 4, _P)


def _xrecover(y: int, sign: int) -> int | None:
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _I % _P
    if (x * x - x2) % _P != 0:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = _P - x
    return x


_BY = 4 * pow(5, _P - 2, _P) % _P
_B = (_xrecover(_BY, 0), _BY, 1, _xrecover(_BY, 0) * _BY % _P)


def _add(p: tuple, q: tuple) -> tuple:
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % _P
    b = (y1 + x1) * (y2 + x2) % _P
    c = t1 * 2 * _D * t2 % _P
    d = z1 * 2 * z2 % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _mul(k: int, p: tuple) -> tuple:
    q = (0, 1, 1, 0)
    while k:
        if k & 1:
            q = _add(q, p)
        p = _add(p, p)
        k >>= 1
    return q


def _encode(p: tuple) -> bytes:
    x, y, z, _ = p
    zi = pow(z, _P - 2, _P)
    x, y = x * zi % _P, y * zi % _P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _decode(b: bytes) -> tuple | None:
    n = int.from_bytes(b, "little")
    y, sign = n & ((1 << 255) - 1), n >> 255
    if y >= _P:
        return None
    x = _xrecover(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % _P)


def _h(m: bytes) -> int:
    return int.from_bytes(hashlib.sha512(m).digest(), "little")


def _expand(seed: bytes) -> tuple[int, bytes]:
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, h[32:]


# Speed-up, not a bug switch: the three Ed25519 functions are pure (their answers depend on
# their byte arguments alone), so memoising them changes no answer; pure-Python point
# multiplication dominates a run otherwise. Unrelated to the `verify-memo` bug, which caches
# whole verification results by token text and ignores the context.
@functools.lru_cache(maxsize=65536)
def ed25519_public_key(seed: bytes) -> bytes:
    return _encode(_mul(_expand(seed)[0], _B))


@functools.lru_cache(maxsize=65536)
def ed25519_sign(seed: bytes, message: bytes) -> bytes:
    a, prefix = _expand(seed)
    pub = _encode(_mul(a, _B))
    r = _h(prefix + message) % _L
    rb = _encode(_mul(r, _B))
    k = _h(rb + pub + message) % _L
    return rb + ((r + k * a) % _L).to_bytes(32, "little")


def ed25519_verify(public_key: Any, message: Any, signature: Any) -> bool:
    """RFC 8032 verify (memoised: a pure function of its three byte strings)."""
    if not all(isinstance(x, bytes) for x in (public_key, message, signature)):
        return _ed25519_verify(public_key, message, signature)
    return _ed25519_verify_memo(public_key, message, signature)


@functools.lru_cache(maxsize=65536)
def _ed25519_verify_memo(public_key: bytes, message: bytes, signature: bytes) -> bool:
    return _ed25519_verify(public_key, message, signature)


def _ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """RFC 8032 verify: S < L, A decodes; [S]B == R + [k]A compared as encodings."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    s_int = int.from_bytes(signature[32:], "little")
    if s_int >= _L:
        return False
    a = _decode(public_key)
    if a is None:
        return False
    k = _h(signature[:32] + public_key + message) % _L
    # R' = [S]B - [k]A; compare its encoding with R's bytes.
    neg_a = ((_P - a[0]) % _P, a[1], a[2], (_P - a[3]) % _P)
    r_check = _add(_mul(s_int, _B), _mul(k, neg_a))
    return _encode(r_check) == signature[:32]


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


def _ts_match(text: str):
    pattern = _TIMESTAMP_RE.pattern
    if bug("regex-unicode-digits"):
        pattern = pattern.replace("[0-9]", r"\d")
    if bug("regex-dollar-newline"):
        return re.match(pattern + "$", text)
    return re.fullmatch(pattern, text)


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


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _parse_iso(text: Any) -> int:
    """The hasty parser: datetime.fromisoformat, whatever it accepts."""
    try:
        dt = datetime.fromisoformat(text)
    except (ValueError, TypeError) as e:
        raise DelegateError("invalid_timestamp", str(e)) from e
    if bug("tz-naive"):
        dt = dt.replace(tzinfo=timezone.utc)  # wall clock, offset dropped
    elif dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)  # "naive means UTC"
    delta = dt - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000


def parse_timestamp(text: Any) -> int:
    """Nanoseconds since the Unix epoch; raises DelegateError('invalid_timestamp')."""
    if bug("iso-timestamps"):
        return _parse_iso(text)
    if bug("tz-naive") and isinstance(text, str):
        # keep the strict profile, but compare wall clocks: the offset is dropped
        m = _ts_match(text)
        if m and m.group(8) != "Z":
            return _parse_profile(text[: m.start(8)] + "Z")
    return _parse_profile(text)


def _parse_profile(text: Any) -> int:
    if bug("strptime-timestamps") and isinstance(text, str):
        for fmt in ("%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%dT%H:%M:%S.%f%z"):
            try:
                dt = datetime.strptime(text, fmt)
            except ValueError:
                continue
            delta = dt - _EPOCH
            return (delta.days * 86400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
        raise DelegateError("invalid_timestamp", f"strptime: {text!r}")
    match = _ts_match(text) if isinstance(text, str) else None
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
    if "ts-microseconds" in BUGS:  # NOT a defect: D5 allows truncating fractions (flag TimestampFraction)
        fraction = (fraction or "")[:6]
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
    if bug("empty-resource-wildcard"):
        pattern = pattern or "*"
    if bug("fnmatch-glob"):
        return fnmatch.fnmatchcase(resource, pattern)
    if bug("pathlib-match"):
        return pattern in ("*", "**") or PurePosixPath(resource).match(pattern)
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
    if bug("empty-resource-wildcard"):
        parent = parent or "*"
    if bug("subset-startswith"):
        return child.startswith(parent.rstrip("*"))
    if bug("fnmatch-glob"):
        return fnmatch.fnmatchcase(child, parent)
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

class _IdRe:
    """`fullmatch`, or with regex-dollar-newline `re.match(pattern + "$")`."""

    def __init__(self, pattern: str):
        self.strict = re.compile(pattern)
        self.dollar = re.compile(pattern + "$")

    def fullmatch(self, text: str):
        return self.dollar.match(text) if bug("regex-dollar-newline") else self.strict.fullmatch(text)


_CONTRACT_ID_RE = _IdRe(r"ct_[0-9a-f]{12}")
_DELEGATION_ID_RE = _IdRe(r"del_[0-9a-f]{12}")

AUTHORITY_KEYS = {
    "issuer", "delegatee", "capabilities", "contractId", "delegationId", "parentDelegationId",
    "chainDepth", "maxChainDepth", "maxBudgetMicrocents", "expiresAt", "issuedAt",
}
ATTENUATION_REQUIRED = {"attenuator", "delegatee", "delegationId", "contractId"}
ATTENUATION_OPTIONAL = {"allowedCapabilities", "maxBudgetMicrocents", "expiresAt", "maxChainDepth"}


def is_protocol_int(v: Any) -> bool:
    kinds = (int, float) if bug("float-ints") else int
    if not isinstance(v, kinds) or (isinstance(v, bool) and not bug("bool-as-int")):
        return False
    return 0 <= v and (bug("int-range-unchecked") or v <= MAX_SAFE_INTEGER)


def is_capability(v: Any) -> bool:
    return (
        members_ok(v, {"namespace", "action", "resource"})
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


DEFAULTABLE = {"chainDepth", "maxChainDepth", "maxBudgetMicrocents", "issuedAt", "parentDelegationId"}


def members_ok(value: Any, required: set, optional: set = frozenset(), defaultable: set = frozenset()) -> bool:
    if not isinstance(value, dict):
        return False
    keys = set(value)
    if bug("missing-members-default"):
        required = required - defaultable
    if not required <= keys:
        return False
    return bug("extra-members-ignored") or keys <= required | optional | defaultable


def _check_capabilities(caps: Any, where: str) -> None:
    _require(isinstance(caps, list) and all(is_capability(c) for c in caps), f"{where}: bad capabilities")


def _check_authority(a: Any) -> None:
    _require(members_ok(a, AUTHORITY_KEYS, defaultable=DEFAULTABLE), "authority: wrong members")
    _require(principal_key(a["issuer"]) is not None, "authority.issuer: bad principal id")
    _require(principal_key(a["delegatee"]) is not None, "authority.delegatee: bad principal id")
    _check_capabilities(a["capabilities"], "authority")
    _require(isinstance(a["contractId"], str) and bool(_CONTRACT_ID_RE.fullmatch(a["contractId"])), "authority.contractId")
    for key in ("delegationId", "parentDelegationId"):
        if key not in a:
            continue
        _require(isinstance(a[key], str) and bool(_DELEGATION_ID_RE.fullmatch(a[key])), f"authority.{key}")
    for key in ("chainDepth", "maxChainDepth", "maxBudgetMicrocents"):
        if key in a:
            _require(is_protocol_int(a[key]), f"authority.{key}: not a protocol integer")
    for key in ("expiresAt", "issuedAt"):
        if key in a:
            _require(_is_timestamp(a[key]), f"authority.{key}: bad timestamp")


def _check_attenuation(t: Any, i: int) -> None:
    _require(isinstance(t, dict), f"attenuations[{i}]: not an object")
    _require(members_ok(t, ATTENUATION_REQUIRED, ATTENUATION_OPTIONAL), f"attenuations[{i}]: wrong members")
    _require(principal_key(t["attenuator"]) is not None, f"attenuations[{i}].attenuator")
    _require(principal_key(t["delegatee"]) is not None, f"attenuations[{i}].delegatee")
    _require(isinstance(t["delegationId"], str) and bool(_DELEGATION_ID_RE.fullmatch(t["delegationId"])), f"attenuations[{i}].delegationId")
    _require(isinstance(t["contractId"], str) and bool(_CONTRACT_ID_RE.fullmatch(t["contractId"])), f"attenuations[{i}].contractId")
    if "allowedCapabilities" in t:
        _check_capabilities(t["allowedCapabilities"], f"attenuations[{i}]")
    nulls_pass = bug("null-means-unlimited")
    for key in ("maxBudgetMicrocents", "maxChainDepth"):
        if key in t and not (nulls_pass and t[key] is None):
            _require(is_protocol_int(t[key]), f"attenuations[{i}].{key}")
    if "expiresAt" in t and not (nulls_pass and t["expiresAt"] is None):
        _require(_is_timestamp(t["expiresAt"]), f"attenuations[{i}].expiresAt")


def _check_signature_entry(s: Any, i: int) -> None:
    _require(members_ok(s, {"signer", "signature", "covers"}), f"signatures[{i}]: wrong members")
    _require(principal_key(s["signer"]) is not None, f"signatures[{i}].signer")
    _require(signature_bytes(s["signature"]) is not None, f"signatures[{i}].signature")
    _require(s["covers"] == "authority" or is_protocol_int(s["covers"]), f"signatures[{i}].covers")


def decode_token(serialized: Any) -> dict:
    """§10.1 step 1 (D9, D19, D33): a SerializedDCT value → the decoded SignedJSONToken."""
    _require(members_ok(serialized, {"token", "format"}), "SerializedDCT must be {token, format}")
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
        token = json.loads(json_text) if bug("json-loads-token") else parse_json(json_text)
    except (UnicodeDecodeError, ValueError) as e:
        raise _malformed(f"decoded token: {e}") from e
    _require(isinstance(token, dict), "decoded token is not an object")
    if not bug("json-loads-token"):  # json.loads: duplicates last-wins, no canonical re-check
        _require(canonicalize(token) == json_text, "decoded token is not canonical JSON (RFC 8785)")
    _require(members_ok(token, {"format", "authority", "attenuations", "signatures"}), "token: wrong members")
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
        # missing-members-default: dict.get — a missing limit is "no limit"
        self.budget = authority.get("maxBudgetMicrocents", MAX_SAFE_INTEGER)
        if bug("authority-or-defaults"):
            self.budget = authority.get("maxBudgetMicrocents") or MAX_SAFE_INTEGER
        self.expiry = parse_timestamp(authority["expiresAt"])
        self.delegatee = authority["delegatee"]
        # D4: authority.maxChainDepth is absolute; what is left is counted down per attenuation.
        self.remaining = authority.get("maxChainDepth", 2**53) - authority.get("chainDepth", 0)
        if bug("authority-or-defaults"):
            self.remaining = (authority.get("maxChainDepth") or 2**53) - (authority.get("chainDepth") or 0)
        self.depth = authority.get("chainDepth", 0)
        # §10.1 step 8 reports effectiveMaxDepth: the last maxChainDepth set, else the authority's.
        self.effective_max_depth = authority.get("maxChainDepth", 2**53)
        if self.remaining < 0:
            raise DelegateError("chain_depth_exceeded", "authority.chainDepth > authority.maxChainDepth", max=authority["maxChainDepth"], actual=self.depth)

    def apply(self, t: dict, i: int) -> None:
        """Steps 4a-4e for attenuation i, then narrow."""

        def violation(why: str) -> DelegateError:
            return DelegateError("attenuation_violation", f"attenuations[{i}]: {why}")

        if t["attenuator"] != self.delegatee:
            raise violation("attenuator is not the current delegatee")
        lenient = bug("or-defaults")
        if bug("null-means-unlimited"):
            # `None` is "no limit": it replaces the parent's value instead of narrowing it.
            if "maxBudgetMicrocents" in t and t["maxBudgetMicrocents"] is None:
                self.budget = MAX_SAFE_INTEGER
                t = {k: v for k, v in t.items() if k != "maxBudgetMicrocents"}
            if "expiresAt" in t and t["expiresAt"] is None:
                self.expiry = None
                t = {k: v for k, v in t.items() if k != "expiresAt"}
            if "maxChainDepth" in t and t["maxChainDepth"] is None:
                self.remaining = 2**53
                t = {k: v for k, v in t.items() if k != "maxChainDepth"}
        if t.get("allowedCapabilities") if lenient else "allowedCapabilities" in t:
            for cap in t["allowedCapabilities"]:
                if not any(capability_subset(cap, p) for p in self.caps):
                    raise violation("capability expansion")
            self.caps = t["allowedCapabilities"]
        if t.get("maxBudgetMicrocents") if lenient else "maxBudgetMicrocents" in t:
            if t["maxBudgetMicrocents"] > self.budget:
                raise violation("budget expansion")
            self.budget = t["maxBudgetMicrocents"]
        if "expiresAt" in t:
            expiry = parse_timestamp(t["expiresAt"])
            if self.expiry is not None and expiry > self.expiry:
                raise violation("expiry extension")
            self.expiry = expiry
        if self.remaining == 0:
            raise DelegateError("chain_depth_exceeded", f"attenuations[{i}] goes deeper than allowed", max=self.depth, actual=self.depth + 1)
        if t.get("maxChainDepth") if lenient else "maxChainDepth" in t:
            if t["maxChainDepth"] >= self.remaining:
                raise violation("depth expansion")
            self.remaining = t["maxChainDepth"]
            self.effective_max_depth = t["maxChainDepth"]
        else:
            self.remaining -= 1
        self.delegatee = t["delegatee"]
        self.depth += 1


_VERIFY_MEMO: dict = {}
_ALL_REVOCATIONS: list = []


def verify_dct(serialized: Any, ctx: dict, check_request: bool = True) -> dict:
    """verify_dct_uncached, behind a result cache keyed by the token text under `verify-memo`."""
    if not (bug("verify-memo") and check_request):
        return verify_dct_uncached(serialized, ctx, check_request)
    key = json.dumps(serialized, sort_keys=True)
    if key in _VERIFY_MEMO:
        ok, value = _VERIFY_MEMO[key]
        if ok:
            return value
        raise value
    try:
        scope = verify_dct_uncached(serialized, ctx, check_request)
    except DelegateError as e:
        _VERIFY_MEMO[key] = (False, e)
        raise
    _VERIFY_MEMO[key] = (True, scope)
    return scope


def verify_dct_uncached(serialized: Any, ctx: dict, check_request: bool = True) -> dict:
    """§10.1 VERIFY_DCT with the decisions D4-D8, D16, D20, D21. Returns the AuthorizedScope.

    `ctx` = {namespace, action, resource, now, spentMicrocents, rootPublicKey, revocations}
    (already shape-checked by the adapter; revocations is a list of raw entries)."""
    # Step 1: deserialize.
    token = decode_token(serialized)
    authority, attenuations, signatures = token["authority"], token["attenuations"], token["signatures"]

    # Step 2: revocations. Only well-formed, well-signed entries count (add() refuses the rest),
    # and only when revokedBy is the signer of the block they name (D6).
    valid_entries = set()
    entries = ctx["revocations"]
    if bug("revocations-accumulate"):
        _ALL_REVOCATIONS.extend(entries)
        entries = _ALL_REVOCATIONS
    for entry in entries:
        try:
            check_revocation_entry(entry)
        except DelegateError:
            continue
        valid_entries.add((entry["revocationId"], entry["revokedBy"]))
    if bug("revocations-by-id-dict"):
        by_id = {}
        for entry in ctx["revocations"]:
            try:
                check_revocation_entry(entry)
            except DelegateError:
                continue
            by_id[entry["revocationId"]] = entry["revokedBy"]  # the last entry per id wins
        valid_entries = set(by_id.items())
    blocks = [(authority, authority["issuer"])] + [(t, t["attenuator"]) for t in attenuations]
    for block, signer in blocks:
        if (revocation_id(block), signer) in valid_entries:
            raise DelegateError("revoked", "a block of the token is revoked by its signer", revocationId=revocation_id(block))

    # Step 3: signatures (D8, D16). Exactly one per block, covers/signer matching the block,
    # always verified under the block's key, never under `signer`.
    def bad_sig(detail: str) -> DelegateError:
        return DelegateError("invalid_signature", detail)

    if authority["issuer"] != ctx["rootPublicKey"]:
        raise bad_sig("authority.issuer is not the root key")
    by_covers = {s["covers"]: s for s in signatures} if bug("sigs-by-covers-dict") else None
    if by_covers is None and len(signatures) != 1 + len(attenuations):
        raise bad_sig("signature count is not 1 + attenuations")
    for i in range(1 + len(attenuations)):
        if by_covers is not None:
            sig = by_covers.get("authority" if i == 0 else i - 1)
            if sig is None:
                raise bad_sig(f"no signature covers block {i}")
        else:
            sig = signatures[i]
        if i == 0:
            key_id, covers = authority["issuer"], "authority"
            payload = {"authority": authority}
        else:
            key_id, covers = attenuations[i - 1]["attenuator"], i - 1
            payload = {"authority": authority, "attenuations": attenuations[:i]}
        if sig["covers"] != covers or (isinstance(sig["covers"], bool) and not bug("bool-as-int")):
            raise bad_sig(f"signatures[{i}].covers")
        if bug("signer-key"):
            key_id = sig["signer"]
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
    if bug("expiry-min-string"):
        texts = [authority["expiresAt"]] + [t["expiresAt"] for t in attenuations if "expiresAt" in t]
        chain.expiry = parse_timestamp(min(texts))
    if chain.expiry is not None and now > chain.expiry:
        raise DelegateError("expired", "now is after the effective expiry")

    # Step 6: budget (D21).
    if ctx["spentMicrocents"] >= chain.budget:
        raise DelegateError("budget_exceeded", "spent >= effective budget", limit=chain.budget, spent=ctx["spentMicrocents"])

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
        "chainDepth": authority.get("chainDepth", 0) + len(attenuations),
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
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise DelegateError("malformed_entry", "fromJSON text must be an array of entries")
        result = cls()
        for entry in value:
            result.add(entry)  # all or nothing: the first bad entry fails the whole list
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
    if ed25519_verify(key, digest, sig):
        return True
    if bug("sig-any-key"):
        # "Whichever key verifies": also try the key the object names for itself.
        for field in ("principal", "issuer"):
            own = principal_key(obj.get(field))
            if own is not None and ed25519_verify(own, digest, sig):
                return True
    return False


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
