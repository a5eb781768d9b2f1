#!/usr/bin/env python3
"""A stdio adapter (spec/adapter-protocol.md) around example/tiny_impl.py, so
``delegateos-conform run --impl 'python3 example/adapter.py'`` judges the same implementation the
pytest plugin judges in-process (packages/ci.sh compares the two)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from delegateos_vectors import answer, method_name  # noqa: E402
from tiny_impl import TinyImpl  # noqa: E402

impl = TinyImpl()
OPS = ["base64url.encode", "base64url.decode", "hash.blake2b256", "json.canonicalize"]
assert all(callable(getattr(impl, method_name(op), None)) for op in OPS)


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    if req["cmd"] == "hello":
        send({
            "seq": req["seq"],
            "protocol": 1,
            "implementation": {"name": "delegateos-vectors tiny example (python)", "version": "0.1.0", "language": "python"},
            "operations": OPS,
        })
    elif req["cmd"] == "run":
        send({"seq": req["seq"], **answer(impl, req["case"])})
    elif req["cmd"] == "bye":
        send({"seq": req["seq"], "outcome": "ok"})
        break
