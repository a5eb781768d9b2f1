"""DelegateOS adapter kit for Python 3.9+ (standard library only).

Written by `delegateos-conform new-adapter --lang python`; you should not need to edit it.
It speaks adapter protocol v1 (spec/adapter-protocol.md) on stdin/stdout: one JSON object per
line, `seq` echoed, `hello` declaring exactly the operations whose stub in adapter.py was
filled in, `bye`. A stub is "not filled in" while its body (after the docstring) is the single
statement `raise TODO`; such operations are not declared, so their cases are reported
`skipped` by the harness and never fail the run.

In an operation function:
- return a dict (the operation's `ok` output);
- raise SpecError(code, detail) for a spec error code (spec/error-codes.md);
- raise InvalidInput(text) when the input does not have the catalogue's shape (`invalid_input`);
- raise Skip(reason) for an input your library cannot represent (`skipped`);
- raise TODO to leave an input unimplemented for now (`skipped`, "not implemented yet").
Any other exception is reported `threw` (the implementation threw on this input, graded as a crash
on it: spec/adapter-protocol.md §2.2), its message leading with the exception's type and text
(`TypeError: ...`, what the report shows) and then its traceback, and the adapter keeps running;
map your library's own error type onto codes in adapter.py's `library_error`.
"""

from __future__ import annotations

import ast
import base64
import binascii
import inspect
import json
import re
import sys
import textwrap
import traceback
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

PROTOCOL = 1


class TODO(Exception):
    """Raised by a stub that is not filled in yet."""


class Skip(Exception):
    """This case cannot be run (reported `skipped` with the message as reason)."""


class SpecError(Exception):
    """A spec error code (reported `error`; `detail` is free text, never compared)."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class InvalidInput(Exception):
    """The operation input does not have the shape spec/operations.md requires."""


# --- which stubs are filled in ------------------------------------------------------------------


def _is_todo(node: Any) -> bool:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id == "TODO"
    return isinstance(node, ast.Attribute) and node.attr == "TODO"


def is_stub(fn: Callable) -> bool:
    """True while the function's body (after its docstring) is only `raise TODO`."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return False
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs:
        return False
    body = list(defs[0].body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    return len(body) == 1 and isinstance(body[0], ast.Raise) and _is_todo(body[0].exc)


def declared(stubs: Dict[str, Callable]) -> Dict[str, Callable]:
    """The operations whose stub is filled in: what `hello` declares."""
    return {name: fn for name, fn in stubs.items() if not is_stub(fn)}


# --- input helpers ------------------------------------------------------------------------------

_HEX_RE = re.compile(r"(?:[0-9a-f]{2})*")


def fields(value: Any, required: list, optional: tuple = ()) -> dict:
    """`value` as an object with exactly the `required` keys plus any of `optional`."""
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


def integer(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidInput(f"{name} must be an integer")
    return value


def hex_bytes(value: Any, name: str) -> bytes:
    """Lowercase, even-length hex (spec/operations.md §1); anything else is `invalid_input`."""
    if not isinstance(value, str) or not _HEX_RE.fullmatch(value):
        raise InvalidInput(f"{name} must be lowercase hex")
    return bytes.fromhex(value)


def seed(value: Any, name: str) -> bytes:
    """A 32-byte Ed25519 seed given as 64 lowercase hex characters."""
    data = hex_bytes(value, name)
    if len(data) != 32:
        raise InvalidInput(f"{name} must be 32 bytes")
    return data


_B64URL_RE = re.compile(r"[A-Za-z0-9_-]*")


def b64url_decode(text: str) -> bytes:
    """Strict base64url (no padding, URL alphabet, zero trailing bits); `invalid_encoding`."""
    if not isinstance(text, str) or not _B64URL_RE.fullmatch(text) or len(text) % 4 == 1:
        raise SpecError("invalid_encoding", "not unpadded base64url")
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as e:
        raise SpecError("invalid_encoding", str(e)) from e
    if b64url_encode(data) != text:
        raise SpecError("invalid_encoding", "non-zero trailing bits")
    return data


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def principal_key(principal: Any) -> bytes:
    """Decodes a principal id (base64url of a 32-byte Ed25519 public key, 43 characters, no
    padding) to the key bytes; raises ValueError for anything else."""
    if not isinstance(principal, str) or len(principal) != 43:
        raise ValueError("a principal id is 43 base64url characters")
    try:
        return b64url_decode(principal)
    except SpecError as e:
        raise ValueError(f"not a principal id: {e.detail}") from e


# ASCII digits only (`\d` is Unicode in Python: fullwidth or Arabic-Indic digits would pass and
# int() would read them) and an upper-case `T` and `Z`: the reference's reading (decision D5).
_TS_RE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:(Z)|([+-])([0-9]{2}):([0-9]{2}))"
)


def parse_timestamp(text: str) -> datetime:
    """An RFC 3339 timestamp as an aware datetime (fractions below a microsecond are cut).
    Raises ValueError. The spec's exact profile is decision D5; this is a convenience."""
    m = _TS_RE.fullmatch(text) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    micro = int((m.group(7) or "0").ljust(6, "0")[:6])
    offset = timedelta(0)
    if m.group(9):
        if int(m.group(10)) > 23 or int(m.group(11)) > 59:
            raise ValueError(f"offset out of range: {text!r}")
        offset = timedelta(hours=int(m.group(10)), minutes=int(m.group(11)))
        if m.group(9) == "-":
            offset = -offset
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=timezone(offset))


def fixed_clock(text: str) -> Callable[[], datetime]:
    """A clock that always answers the instant `text` (e.g. a case's `issuedAt` or `now`), for
    a library whose create operations read the time: pass it where the library takes a clock."""
    instant = parse_timestamp(text)
    return lambda: instant


# The published test keys of the corpus (vectors/src/keys.rs): name -> seed (hex), principal id.
TEST_KEYS: Dict[str, Dict[str, str]] = {
    "root": {"seed": "ccdcfb0d237ff31ee147ab32c445327d770b7b92676bd6bdf190d7a5bbf7cbcc", "principal": "fcNLaHpUPv7O_hQ3ctznNQSmYufIapwhvueWnldOjbs"},
    "alice": {"seed": "fa9dc0df6eeb95c73c8c12aedd2f61993195d38555a0b8a85b9593f5d547a8a5", "principal": "6YohcZzzs0NuDu3pZwiXaAmpOdArZ2STo7MT4bIbvZc"},
    "bob": {"seed": "81b7bf8d66a0b17c17f0d84139a9bfbba32ad01b5504a462c4fea420ef42a5d6", "principal": "_7JLorgU-31mfXp5TXJEo8CUD2MHdCbsvtXxyDPdJQQ"},
    "carol": {"seed": "1e41b5deb4ca38b2ddb3898352397bea354dec96fb831f85985ee822c784586d", "principal": "i98chMeaAps1vIXcE6meOR9z0rOmwpewUI3AzHRcxVU"},
    "dave": {"seed": "56578a0f3adbacaade41899bcdb7f38707040c465b10801ead053f84d5a33b65", "principal": "jRwKswyI6GKXtwnMdCOItDF23sYukDfNQ_O3yqDjG50"},
    "mallory": {"seed": "3d818f6e5e442a1faa6948ffbec7bce58f81969c57f9cfe3709a4c19944d84d7", "principal": "calYKpZvj-LP1iGuELwJvkpw3Bn8LE54ANqLZsdyaPI"},
    "other_root": {"seed": "b7439bb27727d474a7000f014e7deb771ded7d7497488db3c78373b4b319f8ca", "principal": "tQokqljCQSCGFE6SU46I3SPLpJqyobBtbs75l3n4h1g"},
    "agent5": {"seed": "35c3a315e68f517eb363b6661eeb4ed0a24cb22e7ce5d7921b1df7aabc00a96f", "principal": "PQfCpZ7LrjGkyCBqnQDUDB7YAlsoV2Y8pdY71lGI2pY"},
    "agent6": {"seed": "90474b7b114ba45749d1fa1b7f481cab4824c8a849ef5f19e7cc2c4b2f6ff291", "principal": "SCjiTCEotCADupcSdR0-NCXRlhG8FJZ2_2F8qQ0engw"},
    "agent7": {"seed": "67bbcbcc819af497b9cf4e707bdcd00adb0e29e5c8e1563d6afc35d97ff9d1ac", "principal": "bptkJCuP3azB3_eem8RA2RoCd4du9ztP0cgT0ITYhnc"},
    "agent8": {"seed": "c2bc31de50126fee4c02fabc3fd4692eb334f67b0fe5af889fecc32c863eef41", "principal": "rNo7lbdQos_qBlpAq-LNcl_BET0cP9ONMSHwXdu7DO8"},
    "agent9": {"seed": "29ac6a462c8f40b1ce3a847556f40bd4f010444fe32c119dee2373bbc3a5ff42", "principal": "Cl46qXCgNBNJaBL0g9Vxbae7xRlWioHf4DIslmfN7T8"},
}


# --- the protocol loop --------------------------------------------------------------------------

LibraryError = Callable[[BaseException], Optional[Tuple[str, str]]]


def describe(error: BaseException) -> str:
    """An `errored` message: the exception's last traceback line (`TypeError: ...`) first, since a
    report shows a message's first line, then the traceback."""
    kind = type(error).__qualname__
    if type(error).__module__ not in ("builtins", "__main__"):
        kind = f"{type(error).__module__}.{kind}"
    try:
        text = str(error)
    except Exception:  # noqa: BLE001 - a __str__ that raises
        text = "<unprintable>"
    head = f"{kind}: {text}" if text else kind
    tb = "".join(traceback.format_exception(type(error), error, error.__traceback__, limit=8))
    return f"{head}\n{tb}"


def run_case(case: Any, operations: Dict[str, Callable], library_error: Optional[LibraryError] = None) -> dict:
    """One `run` frame's case -> the reply's outcome fields."""
    case = case if isinstance(case, dict) else {}
    fn = operations.get(case.get("op"))
    if fn is None:  # never sent for undeclared operations
        return {"outcome": "skipped", "reason": f"operation {case.get('op')!r} not declared"}
    try:
        output = fn(case.get("input"))
    except TODO:
        return {"outcome": "skipped", "reason": "not implemented yet (the stub raised TODO)"}
    except Skip as e:
        return {"outcome": "skipped", "reason": str(e)}
    except SpecError as e:
        return {"outcome": "error", "code": e.code, "detail": e.detail}
    except InvalidInput as e:
        return {"outcome": "error", "code": "invalid_input", "detail": str(e)}
    except Exception as e:  # noqa: BLE001 - a bug or a library error: report it, keep running
        mapped = None
        if library_error is not None:
            try:
                mapped = library_error(e)
            except Exception:  # noqa: BLE001
                mapped = None
        if mapped is not None:
            return {"outcome": "error", "code": str(mapped[0]), "detail": str(mapped[1])}
        return {"outcome": "threw", "message": describe(e)}
    if not isinstance(output, dict):
        return {"outcome": "errored", "message": f"{case.get('op')} returned {type(output).__name__}, not a dict"}
    return {"outcome": "ok", "output": output}


def _write(reply: dict) -> None:
    # ensure_ascii: the line stays pure ASCII, so lone surrogates cannot break UTF-8.
    sys.stdout.write(json.dumps(reply, ensure_ascii=True, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def serve(implementation: dict, operations: Callable[[], Dict[str, Callable]], run: Callable[[Any], dict],
          options: Sequence[str] = ()) -> None:
    """Answers frames on stdin until `bye` or end of input. `operations()` is asked at each
    `hello`; `run(case)` answers one case; `options` are declared in `hello.options`."""
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "surrogateescape").strip()
        if not line:
            continue
        try:
            frame = json.loads(line)
        except ValueError as e:
            _write({"seq": None, "outcome": "errored", "message": f"frame is not JSON: {e}"})
            continue
        if not isinstance(frame, dict):
            _write({"seq": None, "outcome": "errored", "message": "frame is not an object"})
            continue
        cmd, seq = frame.get("cmd"), frame.get("seq")
        if cmd == "hello":
            names = sorted(operations())
            print(f"adapter: declaring {len(names)} operation(s): {', '.join(names) or 'none'}", file=sys.stderr)
            _write({"seq": seq, "protocol": PROTOCOL, "implementation": implementation, "operations": names,
                    "options": list(options)})
        elif cmd == "run":
            try:
                reply = run(frame.get("case"))
            except Exception as e:  # noqa: BLE001 - never let one case end the adapter
                reply = {"outcome": "errored", "message": describe(e)}
            _write({"seq": seq, **reply})
        elif cmd == "bye":
            _write({"seq": seq, "outcome": "ok"})
            return
        else:
            _write({"seq": seq, "outcome": "errored", "message": f"unknown cmd {cmd!r}"})
