#!/usr/bin/env python3
"""Regenerates the curated seeds in fuzz/seeds/ (committed) through the reference adapter.

    cargo build -p delegateos-conform --bins && python3 fuzz/make_seeds.py   # from the repo root

Tokens are made with dct.create / dct.attenuate and the published test keys, so the seeds are
valid inputs that reach deep into each target.
"""
import json, subprocess, base64, hashlib, os
seed = lambda n: hashlib.blake2b(f"delegateos-conformance/key/{n}".encode(), digest_size=32).hexdigest()
def call(reqs):
    lines = [json.dumps({"cmd":"hello","seq":0,"protocol":1})] + [json.dumps({"cmd":"run","seq":i+1,"case":{"id":"x","op":op,"input":inp}}) for i,(op,inp) in enumerate(reqs)]
    out = subprocess.run(["target/debug/delegateos-conform", "reference-adapter"], input=("\n".join(lines)+"\n").encode(), capture_output=True).stdout.decode().splitlines()
    return [json.loads(l) for l in out[1:]]
pr = {n: call([("principal.from_seed", {"seed": seed(n)})])[0] for n in ["root","alice","bob"]}
print(pr["alice"])
P = {n: v["output"]["principal"] for n, v in pr.items()}
params = {"delegatee":P["alice"],"capabilities":[{"namespace":"web","action":"read","resource":"/project/**"},{"namespace":"docs","action":"write","resource":"*"}],
  "contractId":"ct_0123456789ab","delegationId":"del_000000000001","parentDelegationId":"del_000000000000","chainDepth":0,"maxChainDepth":3,
  "maxBudgetMicrocents":1000000,"expiresAt":"2030-01-01T00:00:00Z","issuedAt":"2026-01-01T00:00:00Z"}
tok = call([("dct.create", {"issuerSeed": seed("root"), "params": params})])[0]["output"]["token"]
att = call([("dct.attenuate", {"token": tok, "attenuatorSeed": seed("alice"), "params": {"delegatee": P["bob"], "delegationId":"del_000000000002","contractId":"ct_0123456789ab",
   "allowedCapabilities":[{"namespace":"web","action":"read","resource":"/project/a/*"}],"maxBudgetMicrocents":5000,"expiresAt":"2029-01-01T00:00:00+01:00","maxChainDepth":1}})])[0]["output"]["token"]
d = lambda t: base64.urlsafe_b64decode(t["token"] + "=" * (-len(t["token"]) % 4))
os.makedirs("fuzz/seeds/token_decode", exist_ok=True)
for name, t in [("root", tok), ("attenuated", att)]:
    open(f"fuzz/seeds/token_decode/{name}.json","wb").write(d(t))
    open(f"fuzz/seeds/canonical/{name}.json","wb").write(d(t))
os.makedirs("fuzz/seeds/ops", exist_ok=True)
ctx = {"namespace":"web","action":"read","resource":"/project/a/b","now":"2026-06-01T00:00:00Z","spentMicrocents":10,"rootPublicKey":P["root"],"revocations":[]}
open("fuzz/seeds/ops/verify.bin","wb").write(bytes([10]) + json.dumps({"token": att, "context": ctx}).encode())
os.makedirs("fuzz/seeds/adapter_line", exist_ok=True)
open("fuzz/seeds/adapter_line/verify.json","w").write(json.dumps({"cmd":"run","seq":1,"case":{"id":"x","op":"dct.verify","input":{"token": att, "context": ctx}}}))
open("fuzz/seeds/glob/doublestar.bin","wb").write(b"\x01/project/**/b/*\x00/project/a/x/b/c")
open("fuzz/seeds/glob/structured.bin","wb").write(bytes([0,0,4,3,1,0xf0,0,2,1,1]))
open("fuzz/seeds/checks/composite.json","wb").write(b"\x00" + json.dumps({"spec":{"method":"composite","mode":"weighted","weights":[0.5,0.5],"steps":[
  {"method":"deterministic_check","checkName":"regex_match","checkParams":{"pattern":"^a+b$","flags":"i"}},
  {"method":"schema_match","schema":{"type":"string","maxLength":10}}]},"output":"aaB"}).encode())
open("fuzz/seeds/checks/regex.bin","wb").write(b"\x01(a|b)*c\\d{2,}\x00iu\x00xxabac12")
# Static seeds (no adapter needed) for the targets the vectors do not feed (seeds.py extracts
# nothing for them): subset (structured parent/child paths + fillers), mcp_line (buffer size,
# line limit, NDJSON text), verify_chain (bytes the `arbitrary` ChainSpec decoder consumes).
import hashlib as _h
def _static(target, name, data):
    os.makedirs(f"fuzz/seeds/{target}", exist_ok=True)
    open(f"fuzz/seeds/{target}/{name}", "wb").write(data)
_static("subset", "wildcards.bin", bytes([4, 0, 2, 3, 1, 4, 0, 1, 2, 3, 7, 1, 2, 3, 4, 5, 6, 7]))
_static("subset", "doublestar.bin", bytes([3, 0, 1, 3, 3, 0, 1, 2, 9, 9, 9, 9]))
_static("mcp_line", "frames.bin", b"\x03\x40" + b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n{"jsonrpc":"2.0","method":"x"}\n\n')
_static("mcp_line", "overflow.bin", b"\x00\x08" + b"0123456789abcdef\nshort\nlast-without-newline")
for _i in range(3):
    _static("verify_chain", f"blake2b-{_i}.bin", b"".join(_h.blake2b(f"delegateos-conformance/fuzz/verify_chain/{_i}/{j}".encode()).digest() for j in range(6)))
# Coverage seeds (issue 29 part 2): regions the vectors did not reach.
# revocation.rs entry_from_value: a non-string revokedBy / signature (the other fields' type
# errors are reached by the vectors).
_entry = {"revocationId": "dSIXf-F4Ub04ymCTpik8Z1CG6--RK2Gykx8M9c9Qh3A", "revokedAt": "2026-03-01T09:00:00Z",
          "revokedBy": "6YohcZzzs0NuDu3pZwiXaAmpOdArZ2STo7MT4bIbvZc", "scope": "block",
          "signature": "38XfGShetQY9g5dGIbGqQHV2oPABCyqdjB8aYwSJFeWEfrbwNulYBuyOfMcZhkG1LJbaykm5GcTt5lqLH0-yAA"}
_static("revocation", "revokedby-not-string.json", json.dumps(dict(_entry, revokedBy=1)).encode())
_static("revocation", "signature-not-string.json", json.dumps(dict(_entry, signature=1)).encode())
# ops revocation.create_entry (op index 15): valid timestamp, malformed revocationId
# (create_entry_checked's id check; no vector has this combination).
_static("ops", "create-entry-bad-id.bin", bytes([15]) + json.dumps({"revocationId": "AAAA", "revokedAt": "2026-03-01T09:00:00Z",
        "revokerSeed": "fa9dc0df6eeb95c73c8c12aedd2f61993195d38555a0b8a85b9593f5d547a8a5", "scope": "block"}).encode())
# token.rs check_formats: an attenuation whose attenuator is not a principal (the authority
# being well-formed), edited into the curated attenuated token (canonical form is kept).
_att = open("fuzz/seeds/token_decode/attenuated.json", "rb").read()
_tok = json.loads(_att)
_static("token_decode", "bad-attenuator.json", _att.replace(_tok["attenuations"][0]["attenuator"].encode(), b"not-a-principal", 1))
