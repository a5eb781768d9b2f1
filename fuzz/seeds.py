#!/usr/bin/env python3
"""Builds seed corpora for the cargo-fuzz targets from the committed vectors.

    python3 fuzz/seeds.py [--vectors vectors] [--out fuzz/target/vector-seeds]

Walks vectors/**/*.json and writes one file per extracted input into
OUT/<target>/ (default fuzz/target/vector-seeds/, gitignored), named by the SHA-1 of its bytes
so reruns dedupe. It never writes into the kept corpora (fuzz/corpus/, committed): ci.sh passes
its output as a read-only extra corpus directory, and `campaign.py merge TARGET OUT/TARGET`
folds it into a kept corpus (minimized). Extracted inputs:

  token_decode   decoded JSON of every SerializedDCT (base64url-decoded `token`)
  canonical      every decoded token, plus every string that parses as a JSON container
  glob           `1 pattern NUL resource` (raw mode) for every case with pattern+resource
  checks         `0 {"spec":…,"output":…}` for cases with a verification spec
  revocation     every revocation entry / list found in inputs
  ops            `<op index> <input JSON>` for every case (op order from the adapter's hello)
  adapter_line   the `run` frame of every case
  protocol_reply a reply frame for every expectation
The curated seeds in fuzz/seeds/<target>/ are copied in as well.
"""
import argparse, base64, hashlib, json, os, shutil, subprocess, sys

def b64u_decode(s):
    try:
        return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    except Exception:
        return None

def walk(v):
    yield v
    if isinstance(v, dict):
        for x in v.values():
            yield from walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from walk(x)

def operations_from_source(root):
    """ops::OPERATIONS read from the reference source (AREAS order, each area's OPERATIONS),
    for machines without a built harness binary. [] if the layout is not what it expects."""
    import re
    ops_dir = os.path.join(root, "reference", "src", "ops")
    try:
        mod = open(os.path.join(ops_dir, "mod.rs")).read()
        areas = re.findall(r"(\w+)::OPERATIONS,", mod.split("const AREAS", 1)[1].split("];", 1)[0])
        out = []
        for area in areas:
            src = open(os.path.join(ops_dir, area + ".rs")).read()
            body = src.split("const OPERATIONS: &[&str] = &[", 1)[1].split("];", 1)[0]
            out += re.findall(r'"([^"]+)"', body)
        return out
    except (OSError, IndexError):
        return []

def operations(root):
    exe = os.path.join(root, "target", "debug", "delegateos-conform")
    if not os.path.exists(exe):
        return operations_from_source(root)
    try:
        out = subprocess.run([exe, "reference-adapter"], input=b'{"cmd":"hello","seq":0,"protocol":1}\n{"cmd":"bye","seq":1}\n',
                             capture_output=True, timeout=20).stdout.decode().splitlines()
        return json.loads(out[0])["operations"]
    except Exception:
        return []

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    ap = argparse.ArgumentParser()
    ap.add_argument("--vectors", default=os.path.join(root, "vectors"))
    ap.add_argument("--out", default=os.path.join(here, "target", "vector-seeds"))
    a = ap.parse_args()
    counts = {}
    def put(target, data):
        if isinstance(data, str):
            data = data.encode()
        d = os.path.join(a.out, target)
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, hashlib.sha1(data).hexdigest())
        if not os.path.exists(p):
            with open(p, "wb") as f:
                f.write(data)
            counts[target] = counts.get(target, 0) + 1
    ops = operations(root)
    for dirpath, _, files in os.walk(a.vectors):
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            try:
                doc = json.load(open(os.path.join(dirpath, name)))
            except Exception:
                continue
            cases = doc.get("cases") if isinstance(doc, dict) else None
            if not isinstance(cases, list):
                continue  # manifest.json, keys.json: no case list
            for case in cases:
                inp, op = case.get("input"), case.get("op", "")
                put("adapter_line", json.dumps({"cmd": "run", "seq": 1, "case": {"id": case.get("id"), "op": op, "input": inp}}))
                if op in ops and len(ops) < 255:
                    put("ops", bytes([ops.index(op)]) + json.dumps(inp).encode())
                exp = case.get("expect", {})
                if exp.get("result") == "valid":
                    put("protocol_reply", json.dumps({"seq": 1, "outcome": "ok", "output": exp.get("output")}))
                elif exp.get("result") == "invalid":
                    put("protocol_reply", json.dumps({"seq": 1, "outcome": "error", "code": exp.get("code"), "detail": "x"}))
                for v in walk(inp):
                    if isinstance(v, dict):
                        if isinstance(v.get("token"), str) and "format" in v:
                            raw = b64u_decode(v["token"])
                            if raw:
                                put("token_decode", raw)
                                put("canonical", raw)
                        if isinstance(v.get("pattern"), str) and isinstance(v.get("resource"), str):
                            put("glob", b"\x01" + v["pattern"].encode() + b"\x00" + v["resource"].encode())
                        if "revocationId" in v and "signature" in v:
                            put("revocation", json.dumps(v))
                        if "method" in v:
                            put("checks", b"\x00" + json.dumps({"spec": v, "output": inp.get("output")}).encode())
                    elif isinstance(v, list) and v and all(isinstance(x, dict) and "revocationId" in x for x in v):
                        put("revocation", json.dumps(v))
                    elif isinstance(v, str) and v[:1] in "{[":
                        try:
                            json.loads(v)
                            put("canonical", v)
                        except Exception:
                            pass
    seeds = os.path.join(here, "seeds")
    if os.path.isdir(seeds):
        for target in os.listdir(seeds):
            for f in os.listdir(os.path.join(seeds, target)):
                put(target, open(os.path.join(seeds, target, f), "rb").read())
    for t in sorted(counts):
        print(f"{t}: {counts[t]} new seed(s)")

if __name__ == "__main__":
    main()
