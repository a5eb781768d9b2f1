#!/usr/bin/env python3
"""Checks that every quote in the given JSON files is verbatim text of the upstream documents.

A quote is any JSON object with a "quote" member (and "source": "spec" | "architecture"). It
must occur in the named document after whitespace normalization (every run of whitespace is
one space, both sides). Usage: check-quotes.py FILE.json [...]; exit 1 on any miss.
The Rust test `vectors/tests/grounds.rs` applies the same rule to every case of the corpus.
"""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = {
    "spec": "delegateos-protocol-spec-v0.2.txt",
    "architecture": "delegateos-architecture-v0.2.md",
}


def norm(s):
    return re.sub(r"\s+", " ", s).strip()


TEXT = {k: norm(open(os.path.join(HERE, v), encoding="utf-8").read()) for k, v in DOCS.items()}


def quotes(value, path):
    if isinstance(value, dict):
        if "quote" in value and isinstance(value["quote"], str):
            yield path, value
        for k, v in value.items():
            yield from quotes(v, path + "/" + k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from quotes(v, path + "/" + str(i))


bad = 0
seen = 0
for f in sys.argv[1:]:
    data = json.load(open(f, encoding="utf-8"))
    for path, q in quotes(data, ""):
        seen += 1
        src = q.get("source", "spec")
        if src not in TEXT:
            print(f"{f}{path}: unknown source {src!r}")
            bad += 1
        elif not norm(q["quote"]) or norm(q["quote"]) not in TEXT[src]:
            print(f"{f}{path}: not verbatim in {DOCS[src]}: {q['quote'][:120]!r}")
            bad += 1
print(f"{seen} quotes checked, {bad} not verbatim")
sys.exit(1 if bad else 0)
