"""A deliberately small DelegateOS "implementation" for the examples and packages/ci.sh: strict
base64url (protocol §1.2), BLAKE2b-256, and a naive json.canonicalize (json.loads + sorted-key
json.dumps: not RFC 8785 on numbers, duplicate keys, lone surrogates or nesting, so some cases
fail). Every other op is missing, so its cases are skipped. example/adapter.py wraps the same
class for ``delegateos-conform run --impl``.

    pytest --delegateos-impl tiny_impl:TinyImpl      (with example/ on sys.path)
"""

import base64
import binascii
import hashlib
import json
import re

from delegateos_vectors import error, ok

_B64 = re.compile(r"[A-Za-z0-9_-]*")


class TinyImpl:
    def base64url_encode(self, input):
        text = base64.urlsafe_b64encode(bytes.fromhex(input["hex"])).decode("ascii")
        return ok({"text": text.rstrip("=")})

    def base64url_decode(self, input):
        text = input["text"]
        if not isinstance(text, str) or not _B64.fullmatch(text) or len(text) % 4 == 1:
            return error("invalid_encoding", "not unpadded base64url")
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            return error("invalid_encoding", "undecodable")
        if base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=") != text:
            return error("invalid_encoding", "non-zero trailing bits")
        return ok({"hex": raw.hex()})

    def hash_blake2b256(self, input):
        return ok({"hex": hashlib.blake2b(bytes.fromhex(input["hex"]), digest_size=32).hexdigest()})

    def json_canonicalize(self, input):
        try:
            value = json.loads(input["text"])
        except ValueError:
            return error("invalid_json", "unparseable")
        return ok({"canonical": json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)})
