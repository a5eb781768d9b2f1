#!/usr/bin/env python3
"""Wrote relevel-census.json: the census of issue 48 (grounds and stakes read against the
seed text), then applied after every other ground file. Kept for its D45 computations (the
literal reading's outcomes from the published seeds, cited by spec/decisions.md D45): since the
fold of issue 48 (deliverable 5) the generator reads only the per-area files of this folder, in
which the census's statements now live, so the file this script writes is read by nothing; it
would need porting to write into the area files before it is run again.

Run from the repository root (`python3 vectors/src/areas/data/grounds/census.py`); it reads the
corpus of the commit before the census (`BASE`) from git for descriptions and expected outputs. The D45 outcomes of the literal
reading (Ed25519 over the canonical bytes, not their BLAKE2b-256 digest) are computed here from
the published seeds: each one is checked first by recomputing our digest signature and
comparing it with the corpus, so the canonical text signed is the reference's.
"""
import glob
import hashlib
import json
import re
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

OUT = "vectors/src/areas/data/grounds/relevel-census.json"


# The corpus the census read: the commit before it (the script reads it from git, so it gives the
# same file whenever it is run).
BASE = "ff56e5a2"


def load_cases():
    import subprocess

    names = subprocess.run(["git", "ls-tree", "-r", "--name-only", BASE, "vectors/"],
                           capture_output=True, text=True, check=True).stdout.split()
    cases = {}
    for f in sorted(names):
        parts = f.split("/")
        if len(parts) != 3 or not f.endswith(".json") or parts[1] in ("src", "spec", "tests"):
            continue
        if parts[2] in ("manifest.json", "keys.json"):
            continue
        text = subprocess.run(["git", "show", f"{BASE}:{f}"], capture_output=True, text=True, check=True).stdout
        for c in json.loads(text).get("cases", []):
            cases[c["id"]] = c
    return cases


CASES = load_cases()


def first_output(case):
    e = case["expect"]
    if e["result"] == "valid":
        return e["output"]
    if e["result"] == "acceptable":
        return e["outcomes"][0].get("output")
    return None


# --- canonical JSON (RFC 8785) for the payloads at hand: strings, integers, objects, arrays,
# and the few doubles of contract-create-0007 -------------------------------------------------


def jcs_number(x):
    if isinstance(x, bool):
        raise ValueError
    if isinstance(x, int):
        return str(x)
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if "e" in r:
        m, e = r.split("e")
        e = int(e)
        return f"{m}e{'+' if e > 0 else '-'}{abs(e)}"
    return r


def jcs(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return jcs_number(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(jcs(x) for x in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + jcs(v[k]) for k in keys) + "}"
    raise TypeError(v)


def b64u(b):
    import base64

    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def sign(seed_hex, message):
    return b64u(Ed25519PrivateKey.from_private_bytes(bytes.fromhex(seed_hex)).sign(message))


def literal_signature(seed_hex, payload_obj, ours):
    text = jcs(payload_obj).encode()
    digest = hashlib.blake2b(text, digest_size=32).digest()
    if sign(seed_hex, digest) != ours:
        sys.exit(f"canonical text differs from the reference's for {payload_obj}")
    return sign(seed_hex, text)


census = {}


def put(cid, audit, **entry):
    if cid not in CASES:
        sys.exit(f"{cid}: no such case")
    e = census.setdefault(cid, {})
    e.update(entry)
    e["audit"] = (e.get("audit", "") + " " + audit).strip() if audit else e.get("audit", "")


def stake(cid, audit, **s):
    e = census.setdefault(cid, {})
    st = e.setdefault("stake", {})
    st.update(s)
    e["audit"] = (e.get("audit", "") + " " + audit).strip()


def quote(source, section, words):
    return {"source": source, "section": section, "quote": words}


Q_STEP1 = quote(
    "spec",
    "§10.1 step 1",
    "DESERIALIZE: base64url decode → parse JSON → validate structure Fail → DenialReason { type: 'malformed_token' }",
)
Q_ATTEN_OPTIONAL = quote(
    "spec",
    "§3.1",
    "delegationId: string; contractId: string; allowedCapabilities?: Capability[]; maxBudgetMicrocents?: number; expiresAt?: string; maxChainDepth?: number;",
)
Q_CAPABILITY = quote(
    "spec", "§3.1", "interface Capability { namespace: string; action: string; resource: string;"
)
Q_AUTH_NUMBERS = quote(
    "spec", "§3.1", "maxChainDepth: number; maxBudgetMicrocents: number; expiresAt: string;"
)
Q_RETURN = quote(
    "spec",
    "§10.1 step 8",
    "RETURN AuthorizedScope { capabilities: effectiveCaps, remainingBudgetMicrocents: effectiveBudget - ctx.spentMicrocents,",
)
Q_EXPIRY = quote(
    "spec", "§10.1 step 5", "If ctx.now > effectiveExpiry → DenialReason { type: 'expired' }"
)
Q_STRIP = quote("spec", "§11.3 step 5", "Strip _delegateos, forward to upstream")
Q_ATTENUATE = quote(
    "spec",
    "§3.4 step 6",
    "Compute signedPayload = canonicalize({ authority, attenuations: [...existing, new] })",
)
Q_CONTRACT_SIG = quote(
    "spec", "§5.1", "Ed25519 signature over canonical JSON of all fields except 'signature'"
)
Q_SHORT_CIRCUIT = quote("spec", "§6.4", "Every step returns passed: true Short-circuits on first failure")
Q_RECURSE = quote(
    "spec", "§10.3", "r = VERIFY_OUTPUT({...contract, verification: step}, output, registry)"
)

# ---------------------------------------------------------------------------------------------
# 1. Stakes the issue lists.

NO_SIGNATURE = ["0004", "0106", "0107", "0160", "0161", "0025", "0027", "0164", "0165", "0168", "0169"]
for n in NO_SIGNATURE:
    stake(
        f"dct-malformed-{n}",
        "Issue 48: the block has no usable signature, so accepting the token accepts a signature "
        "that was never checked: forgery (as dct-forged-0070/0071 state for the same fault).",
        granted="forgery",
    )

for n, what in [("0321", "a root budget of 1.5 under an attenuation of 500000"), ("0325", "an attenuation budget of 2^53 + 2")]:
    stake(
        f"dct-malformed-{n}",
        f"Issue 48: accepting {what} widens a budget (a lenient parser drops or rounds it).",
        granted="budget-bypass",
    )

put(
    "mcp-call-0084",
    "Issue 48: §11.3 step 5 verifies the DCT and §10.1 step 5 denies an expired one, so the denial "
    "and its type are text; forwarding the call lets an expired token spend (expiry bypass).",
    level="normative",
    quote=Q_EXPIRY,
)
stake("mcp-call-0084", "", granted="expiry-bypass", wrongOutput="wrong-output")

stake(
    "contract-signature-0034",
    "Issue 48: the issuer signed the same contents (plus an empty `signature` member); accepting "
    "the signature lets nobody change a member the issuer did not sign: lenient input, not forgery.",
    granted="lenient-input",
)
for n, what in [
    ("0031", "only the informational `revokedAt` changed (D22: it is compared with nothing)"),
    ("0032", "`revokedAt` respelled as the same instant, which D22 compares with nothing"),
    ("0033", "only the scope changed, and both scopes revoke the same tokens in v0.1 (D6)"),
]:
    stake(
        f"revocation-entry-{n}",
        f"Issue 48: {what}; the revoker did sign a revocation of this block, so accepting the "
        "entry revokes nothing its revoker did not ask to revoke: lenient input.",
        granted="lenient-input",
    )

# revocation-list-0020: the list cannot know the block's signer (D6), but a list that does and
# refuses mallory's entry follows architecture §3.1 word for word.
c = CASES["revocation-list-0020"]
refused = {"added": ["invalid_signature"], "listed": [], "revoked": [False], "roundtrip": []}
put(
    "revocation-list-0020",
    "Issue 48: the case quoted arch §3.1 \"verified: signer must be the block creator\" yet required "
    "mallory's entry to be stored and graded a refusal as a critical revocation bypass.",
    level="decision",
    decision="D6",
    reason="A list sees only a revocation id, not the block, so D6 checks the revoker in verify and "
    "lets the list store a well-signed entry by anyone; a list that knows the block's signer and "
    "refuses mallory's entry, as architecture §3.1 asks, is the other reasonable reading, and "
    "neither changes whether a token is revoked (verify ignores her entry).",
    also=[{"result": "valid", "output": refused}],
)
stake("revocation-list-0020", "", granted="wrong-output", refused="wrong-output", wrongOutput="wrong-output")

# ---------------------------------------------------------------------------------------------
# 2. Under-claims.

for cid in ["dct-malformed-0200", "dct-malformed-0201", "dct-malformed-0202", "dct-malformed-0203",
            "dct-acceptance-effects-0001", "dct-acceptance-effects-0041", "dct-acceptance-effects-0081",
            "dct-acceptance-effects-0110"]:
    put(
        cid,
        "Issue 48: a `null` optional attenuation member is not of the interface's type (`?: number`, "
        "`?: string`, `?: Capability[]` admit absence, not null), the same fault dct-malformed-0141/0142 "
        "state normatively.",
        level="normative",
        quote=Q_ATTEN_OPTIONAL,
    )

for cid in ["dct-malformed-0020", "dct-malformed-0021", "dct-malformed-0022", "dct-malformed-0023",
            "dct-malformed-0061", "dct-malformed-0062", "dct-malformed-0063"]:
    put(cid, "Issue 48 census: a required member of the Capability interface is missing; step 1 "
        "validates structure.", level="normative", quote=Q_CAPABILITY)

for cid, why in [
    ("dct-malformed-0486", "trailing garbage after the JSON object is not JSON text (RFC 8259), so step 1's parse fails"),
    ("dct-malformed-0487", "two JSON objects back to back are not one JSON text, so step 1's parse fails"),
    ("dct-malformed-0491", "JSON truncated by one byte does not parse"),
    ("dct-malformed-0444", "the empty token decodes to no bytes, which do not parse as JSON"),
    ("dct-malformed-0445", "a token string that is not base64url fails step 1's decode"),
]:
    put(cid, f"Issue 48 census: {why} (D33 calls parse failures normative).", level="normative", quote=Q_STEP1)

for cid in ["dct-malformed-0327", "dct-malformed-0328"]:
    put(cid, "Issue 48: 2^53 − 1 is a JavaScript number of the interface's `number` type, exactly "
        "representable; the text requires a valid token so typed to verify.", level="normative", quote=Q_AUTH_NUMBERS)
    stake(cid, "", granted="lenient-input" if cid.endswith("0327") else "budget-bypass")

put("dct-malformed-0461", "Issue 48 census: the text sets no size limit, so a correctly signed 1 MiB "
    "token must verify; our limit is above it.", level="normative", quote=Q_RETURN)
stake("dct-malformed-0461", "", granted="lenient-input")

ADVISORY_VERIFY = ["advisory-delegateos-0003", "advisory-delegateos-0006", "advisory-delegateos-0009",
                   "advisory-delegateos-0014", "advisory-oap-0003", "advisory-oap-0006", "advisory-oap-0011",
                   "advisory-openclaw-0004", "advisory-vorion-0003", "advisory-vorion-0005",
                   "advisory-vorion-0007", "advisory-vorion-0010", "advisory-vorion-0012"]
for cid in ADVISORY_VERIFY:
    put(cid, "Issue 48: no step of §10.1 reads what the neighbouring design forbids here (lifetime, "
        "issuedAt, self-delegation, depth ceilings), so the text requires `dct.verify` to return the "
        "scope; only the advisory lint of the same token is the neighbours' opinion.",
        level="normative", quote=Q_RETURN)
    stake(cid, "", granted="lenient-input", refused="valid-input-refused", wrongOutput="wrong-output")

put("mcp-call-0001", "Issue 48: §11.3 step 5 strips `_delegateos` and forwards the rest; the spend key "
    "(D17) agrees with the envelope here, so both readings charge the same delegation.",
    level="normative", quote=Q_STRIP)
stake("mcp-call-0001", "", wrongOutput="wrong-output")
put("mcp-call-0002", "Issue 48: §11.3 verifies the DCT if present and forwards; nothing in §11.1 "
    "makes the binding ids required, and with none given the token's delegation is the only one "
    "to charge.", level="normative", quote=Q_STRIP)
stake("mcp-call-0002", "Forwarding is the expected outcome: granting more than forwarding is not "
      "possible, so the granted cell is lenient input.", granted="lenient-input")

put("dct-attenuate-0001", "Issue 48: with no optional restriction, §3.4 appends an attenuation with "
    "the four required members and signs { authority, attenuations } with the attenuator's key; "
    "Ed25519 is deterministic, so the bytes are fixed by the text.", level="normative", quote=Q_ATTENUATE)

# JSON-RPC id rules and the §9 heading: §9's only link to JSON-RPC 2.0 is its title, which is no
# requirement sentence; the rules JSON-RPC 2.0 itself states are the only reading (D31 with a
# reason), the others stay hardening.
RPC = {
    "jsonrpc-messages-0010": "JSON-RPC 2.0, which §9's messages are, allows a string id; the example's number is not the only type, so refusing a string id refuses a valid request.",
    "jsonrpc-messages-0033": "JSON-RPC 2.0 allows only a string, a number or null as an id, so an object id is no request of §9.",
    "jsonrpc-messages-0034": "JSON-RPC 2.0 allows only a string, a number or null as an id, so a boolean id is no request of §9.",
    "jsonrpc-messages-0035": "JSON-RPC 2.0 allows only a string, a number or null as an id, so an array id is no request of §9.",
    "jsonrpc-messages-0037": "JSON-RPC 2.0 requires a response to carry the id of its request, so an accept without id answers nothing.",
    "jsonrpc-messages-0020": "JSON-RPC 2.0 requires `jsonrpc` to be exactly \"2.0\", so a message saying \"1.0\" is no §9 message.",
    "jsonrpc-messages-0021": "JSON-RPC 2.0 requires the `jsonrpc` member, so a message without it is no §9 message.",
    "jsonrpc-messages-0022": "JSON-RPC 2.0 requires `jsonrpc` to be the string \"2.0\", so the number 2.0 is no §9 message.",
    "jsonrpc-messages-0023": "JSON-RPC 2.0 requires `jsonrpc` to be exactly \"2.0\", so \"2.0 \" with a space is no §9 message.",
    "jsonrpc-messages-0025": "A JSON-RPC 2.0 message is an object, so a string is no §9 message.",
    "jsonrpc-messages-0026": "A JSON-RPC 2.0 message is an object, so null is no §9 message.",
    "jsonrpc-messages-0027": "§9 defines the methods delegateos/delegate, delegateos/complete and delegateos/revoke, so a message with another method is none of its messages.",
    "jsonrpc-messages-0028": "JSON-RPC 2.0 method names are case-sensitive and §9 spells delegateos/delegate in lowercase, so another case is another, unknown method.",
    "jsonrpc-messages-0029": "§9.3 answers a refused delegation with a `result` whose `accepted` is false, so a JSON-RPC error response is none of §9's messages.",
}
for cid, reason in RPC.items():
    put(cid, "Issue 48: JSON-RPC 2.0 rules were hardening or quoted the §9 heading; the heading is no "
        "requirement, so they rest on D31 with the rule JSON-RPC 2.0 states.",
        level="decision", decision="D31", reason=reason)
put("jsonrpc-messages-0024", "Issue 48: JSON-RPC 2.0 allows batches, so refusing one is ours.",
    level="hardening",
    reason="JSON-RPC 2.0 allows a batch (an array of messages), which §9 never shows; classifying one "
    "message at a time and refusing the array keeps a receiver from acting on a mixture it "
    "classified as one message.")

# ---------------------------------------------------------------------------------------------
# 3. D45: both readings of the signing payload of contracts and revocation entries.

D45_AUDIT = "Issue 48 (D45): the case pinned our digest reading of the signing payload."
D45_REASON = ("Under D45 the literal reading (Ed25519 over the canonical bytes, not their BLAKE2b-256 "
              "digest) gives the added outcome.")


def d45(cid, also, audit=D45_AUDIT):
    """Adds the literal reading's outcome; a case already `acceptable` under another decision keeps
    it (expect.decision and ground.decision stay one) and says why D45 adds an outcome."""
    c = CASES[cid]
    e = c["expect"]
    if e["result"] == "acceptable" and e["decision"] != "D45":
        old = c["ground"]
        reason = old.get("reason") or ""
        reason = (reason + " " if reason else "") + D45_REASON
        put(cid, audit, level="decision", decision=e["decision"], reason=reason, also=also)
    else:
        put(cid, audit, level="decision", decision="D45", also=also)
        census[cid].pop("reason", None)
for cid, c in CASES.items():
    if c["op"] == "contract.create" and c["expect"]["result"] == "valid":
        out = c["expect"]["output"]["contract"]
        payload = {k: v for k, v in out.items() if k != "signature"}
        seed = c["input"]["issuerSeed"]
        lit = literal_signature(seed, payload, out["signature"])
        d45(cid, [{"result": "valid", "output": {"contract": dict(out, signature=lit)}}])
        stake(cid, "", granted="lenient-input", refused="valid-input-refused", wrongOutput="wrong-output")
    if c["op"] == "revocation.create_entry" and c["expect"]["result"] == "valid":
        out = c["expect"]["output"]["entry"]
        payload = {k: v for k, v in out.items() if k != "signature"}
        lit = literal_signature(c["input"]["revokerSeed"], payload, out["signature"])
        d45(cid, [{"result": "valid", "output": {"entry": dict(out, signature=lit)}}])
        stake(cid, "", granted="lenient-input", refused="valid-input-refused", wrongOutput="wrong-output")

# revocation.list: every entry the reference adds is digest-signed; the literal reading refuses
# each of them and so lists and revokes nothing.
for cid, c in CASES.items():
    if c["op"] != "revocation.list" or cid == "revocation-list-0020":
        continue
    outs = [o.get("output") for o in (c["expect"]["outcomes"] if c["expect"]["result"] == "acceptable" else [c["expect"]])]
    first = outs[0]
    if first is None or "ok" not in first.get("added", []):
        continue
    lit = {
        "added": ["invalid_signature" if a == "ok" else a for a in first["added"]],
        "listed": [],
        "revoked": [False for _ in first["revoked"]],
        "roundtrip": [],
    }
    d45(cid, [{"result": "valid", "output": lit}])
    stake(cid, "", granted="wrong-output", refused="wrong-output", wrongOutput="wrong-output")
# revocation-list-0020: the literal reading refuses mallory's entry too: the outcome D6 adds.

for cid in ["revocation-from-json-0001", "revocation-from-json-0003", "revocation-from-json-0004",
            "revocation-from-json-0005", "revocation-from-json-0006"]:
    d45(cid, [{"result": "invalid", "code": "invalid_signature", "stage": "4.1/signature"}],
        D45_AUDIT + " fromJSON re-verifies each entry (D6), so the literal reading refuses our "
        "digest-signed entries.")
    stake(cid, "", granted="lenient-input", refused="valid-input-refused")

for cid, c in CASES.items():
    if c["op"] not in ("revocation.verify_entry", "contract.verify_signature"):
        continue
    outs = c["expect"]["outcomes"] if c["expect"]["result"] == "acceptable" else [c["expect"]]
    if any(o.get("output") == {"valid": True} for o in outs) and not any(
        o.get("output") == {"valid": False} for o in outs
    ):
        d45(cid, [{"result": "valid", "output": {"valid": False}}])
        stake(cid, "", granted="lenient-input", refused="valid-input-refused")

# An MCP proxy's revocations are its configuration (spec/mcp-proxy.md): a list that refuses
# entries that do not verify, so one entry cannot carry both readings there.
for cid in ["mcp-filter_tools-0022", "mcp-call-0041", "mcp-call-0042"]:
    d45(cid, [{"result": "invalid", "code": "invalid_input", "stage": "input"}],
        D45_AUDIT + " The proxy's configured entries are digest-signed.")
    census[cid]["reason"] = ("The proxy's revocations are its configuration, whose entries the kit "
                             "signs per D45's reading (a); a proxy of the literal reading refuses that "
                             "configuration (invalid_input), but one that runs without the configured "
                             "revocations lets a revoked token through.")

# Signatures over the canonical bytes are the literal reading's: accepting them is D45's (b).
for cid in ["revocation-entry-0036"]:
    d45(cid, [{"result": "valid", "output": {"valid": True}}],
        D45_AUDIT + " The signature over the canonical text is the literal reading's.")
    stake(cid, "", granted="lenient-input")
d45("dct-revoked-0045", [{"result": "invalid", "code": "revoked", "stage": "10.1/2"}],
    D45_AUDIT + " The entry signed over the canonical text is the literal reading's, which revokes with it.")
stake("dct-revoked-0045", "", granted="lenient-input", refused="valid-input-refused")

# ---------------------------------------------------------------------------------------------
# 4. Text.

for n in range(80, 87):
    cid = f"dct-expired-{n:04d}"
    if cid in CASES:
        put(cid, "Issue 48: expect.decision named D7 and the ground D5.", level="decision", decision="D7",
            reason="`now` is the caller's input, not the token's: D7 settles a malformed `now` as "
            "malformed_token or invalid_input, and a parser outside D5's profile that reads the "
            "instant verifies the token (valid).")

# arch §8's `issuer: string; // signer pubkey` grounding contract tamper cases.
for cid, c in CASES.items():
    g = c["ground"]
    if c["op"] == "contract.verify_signature" and g.get("kind") == "text" and "signer pubkey" in g.get("quote", ""):
        put(cid, "Issue 48: the outcome comes from §5.1's signature over all fields, not from arch §8's "
            "comment on `issuer`.", level="normative", quote=Q_CONTRACT_SIG)

for cid, q in [("checks-output-verification-0032", Q_SHORT_CIRCUIT), ("checks-output-verification-0090", Q_RECURSE),
               ("checks-output-verification-0091", Q_RECURSE), ("checks-output-verification-0092", Q_RECURSE)]:
    put(cid, "Issue 48 census: the outcome is the text's (§6.4 short-circuit, §10.3 recursion); the "
        "case's reason was D30's truncated level reason.", level="normative", quote=q)

D30_REASONS = {
    "checks-output-verification-0035": "The text does not say what an erroring step does; failing the whole verification with its code (D30) keeps a check that cannot run from counting as passed or failed silently.",
    "checks-output-verification-0045": "§6.4 runs every step of `majority` but does not say what an erroring step does; failing the verification with its code (D30) keeps an unrunnable check from being counted as a vote.",
    "checks-output-verification-0068": "§6.4 runs every step of `weighted` but does not say what an erroring step does; failing the verification with its code (D30), even at zero weight, keeps a broken spec from passing.",
    "checks-output-verification-0086": "`steps` on `schema_match` is a member the method does not use; refusing it (D30) keeps a contract from meaning different things to verifiers that read it and ones that ignore it.",
    "checks-output-verification-0087": "`weights` in an `all_pass` composite is a member the mode does not use; refusing it (D30) keeps a contract from meaning different things to verifiers that read it and ones that ignore it.",
    "checks-output-verification-0088": "`checkName` on `schema_match` is a member the method does not use; refusing it (D30) keeps a contract from meaning different things to verifiers that read it and ones that ignore it.",
}
for cid, r in D30_REASONS.items():
    put(cid, "Issue 48: the reason ended mid-sentence.", level="hardening", reason=r)

D27_REASONS = {
    "contract-signature-0080": "§5.1 gives `requiredCapabilities` as \"namespace:action\" strings without saying how to split a namespace that contains `:`, so `acme:crm:read` is well-formed (D11, D27); the signature verifies under our digest reading and not under the literal one (D45).",
    "contract-signature-0081": "`task.inputs` is a free `Record<string, unknown>` (§5.1), so keys such as `__proto__` are ordinary members; the signature verifies under our digest reading and not under the literal one (D45).",
    "contract-signature-0083": "2^53−1 is the largest protocol integer (D9), so the constraints are well-formed; the signature verifies under our digest reading and not under the literal one (D45).",
}
for cid, r in D27_REASONS.items():
    put(cid, "Issue 48: the reason ended mid-sentence.", reason=r)


def d9_reason(c):
    d = c["description"].rstrip(".")
    d = d[0].lower() + d[1:] if d[:2] != "2^" else d
    op = c["op"]
    exp = c["expect"]["result"]
    if exp == "valid":
        return (f"The case pins D9's profile from the accepting side ({d}): the value is inside it, "
                "and the text, which sets no such profile, accepts it as well.")
    return (f"D9's strict decoding refuses this input ({d}); the text's TypeScript interfaces and "
            "\"base64url of canonical JSON\" do not say what a decoder must refuse, and one accepted "
            "encoding per value keeps tokens and entries from being malleable.")


for cid, c in CASES.items():
    g = c["ground"]
    r = g.get("reason") or ""
    if g.get("kind") == "hardening" and (r.startswith("D9 (") or r == "D9 strict base64url.") \
            and "level" not in census.get(cid, {}):
        put(cid, "Issue 48: the reason ended mid-sentence (D9's truncated level reason).",
            level="hardening", reason=d9_reason(c))
    if g.get("kind") == "hardening" and r.startswith("D23 (") and "level" not in census.get(cid, {}):
        d = c["description"].rstrip(".")
        if c["op"] == "dct.create":
            reason = (f"§3.3 builds the token from its parameters without validating them; refusing to "
                      f"create one with this parameter ({d}) keeps create from minting a token verify "
                      "refuses (D23).")
        else:
            reason = (f"The value is a JSON number, which the interface's `number` admits ({d}); refusing "
                      "it is D9's integer profile (non-negative integers up to 2^53 − 1), and the case "
                      "shows what accepting it must not do.")
        put(cid, "Issue 48: D23's reason about `attenuate` widenings said nothing about this case.",
            level="hardening", reason=reason)

# ---------------------------------------------------------------------------------------------
# 5. What the class lint found (vectors/tests/census.rs: same op, code, stage, flags and
# requirements, different level or stake).

put("attestation-verify-0111", "Issue 48 census (class lint): the case quoted §7.3 step 1 (verify "
    "the signature first) while pinning output_hash_mismatch, a check §7.3 does not list (D25); a "
    "verifier doing only §7.3's checks answers invalid_signature.", level="decision", decision="D25",
    reason="The `outputHash` check is ours (D25) and runs before the signature; a verifier following "
    "§7.3 alone checks the signature first and refuses mallory's attestation with invalid_signature.",
    also=[{"result": "invalid", "code": "invalid_signature", "stage": "7.3/1"}])
put("attestation-verify-0112", "Issue 48 census (class lint): hardening while 0111 was normative: "
    "the contract-id comparison and the hash check are both ours (D25), so their order is too.")
put("chain-invariants-0112", "Issue 48 census (class lint): the quote (§8.2 invariant 2) does not "
    "order checks across delegations; D7's level reason makes the order of D26 checks a decision "
    "with both codes.", level="decision", decision="D26",
    reason="§8.2 lists invariants, not an order across delegations: reporting the child's dct_mismatch "
    "first (ours, delegation by delegation) or the next delegation's from_mismatch are both "
    "reasonable.",
    also=[{"result": "invalid", "code": "from_mismatch", "stage": "8.2/2"}])
put("chain-invariants-0113", "Issue 48 census (class lint): hardening because the next "
    "delegation's fault is a shape rule of D26 that the text does not state.")
for cid in ["checks-output-verification-0063", "checks-output-verification-0096"]:
    put(cid, "Issue 48 census (class lint): hardening beside normative sum and length faults of the "
        "same class: negative weights summing to 1 break no rule §6.4 states.")
for cid in ["jsonrpc-messages-0031", "jsonrpc-messages-0032", "jsonrpc-messages-0036"]:
    put(cid, "Issue 48 census (class lint): hardening beside the decision-level id rules: JSON-RPC 2.0 "
        "only discourages a null or fractional id (SHOULD NOT), so refusing it is ours.")
stake("revocation-entry-0030", "Issue 48 census (class lint): unlike 0031–0033, the signature was made "
      "for another block's revocation id, so accepting it revokes a block its revoker never named: "
      "unauthorized revocation.", granted="unauthorized-revocation")

# ---------------------------------------------------------------------------------------------
# 6. What the other lints found.

# Reasons that were no sentence (lint 4).
for cid, c in CASES.items():
    g = c["ground"]
    if g.get("kind") == "hardening" and (g.get("reason") or "").startswith("neighbours (flag Advisory)") \
            and "level" not in census.get(cid, {}):
        d = c["description"].rstrip(".")
        put(cid, "Issue 48 (lint 4): the reason was no sentence.", level="hardening",
            reason=f"The advisory lint flags this input ({d}) for a neighbouring design's invariant "
            "that the DelegateOS text does not state, so the case counts only in the strict profile.")
for cid in ["attestation-create-0003", "contract-create-0004"]:
    put(cid, "Issue 48 (lint 4): the reason was no sentence.", level="hardening",
        reason="The input names a `principal` or `issuer` that is not the seed's; spec/operations.md §1 "
        "refuses that as a rule of the operation's input, since `createCompletionAttestation` and "
        "`createContract` take no such parameter and sign with the seed's key.")

# Lint 1: signatures[1] a string is a block without a signature.
stake("dct-malformed-0206", "Issue 48 (lint 1): the attenuation's signature entry is a string, so "
      "accepting the token accepts an attenuation whose signature was never checked: forgery.",
      granted="forgery")

# Lint 6: `granted` on a `valid` expectation names the case's topic where no output member of
# the operation can grant it.
for cid, c in CASES.items():
    outs = c["expect"]["outcomes"] if c["expect"]["result"] == "acceptable" else [c["expect"]]
    if not all(o["result"] == "valid" for o in outs):
        continue
    g = census.get(cid, {}).get("stake", {}).get("granted", c["stake"]["granted"])
    op = c["op"]
    if op == "dct.verify" and g not in ("scope-widening", "budget-bypass", "depth-bypass",
                                        "lenient-input", "wrong-output", "diagnostics"):
        stake(cid, "Issue 48 (lint 6): granting more of an AuthorizedScope widens it (its "
              f"capabilities; a larger budget or depth is graded by its member, severity.md §6), not {g}.",
              granted="scope-widening")
    elif op in ("timestamp.compare", "dct.inspect", "dct.revocation_ids", "dct.attenuate", "dct.create",
                "hash.blake2b256", "ed25519.sign") and g not in ("lenient-input", "wrong-output", "diagnostics"):
        stake(cid, f"Issue 48 (lint 6): no member of {op}'s output grants anything, so the granted cell "
              f"cannot be {g}; a wrong output keeps its stated effect.", granted="lenient-input")

# ---------------------------------------------------------------------------------------------
# 7. The census sample (seed 4848): D9's "accepting side" cases whose outcome the text requires.

for cid, q, why in [
    ("attestation-verify-0120", quote("spec", "§7.3 step 4", "Check costMicrocents ≤ contract.constraints.maxBudgetMicrocents"),
     "a cost equal to the budget passes step 4's ≤"),
    ("attestation-verify-0121", quote("spec", "§7.1", "costMicrocents: number; durationMs: number;"),
     "2^53 − 1 is an exact JavaScript number, the interface's type"),
    ("dct-create-0006", quote("spec", "§3.1", "resource: string; // glob pattern (supports * and **)"),
     "the empty string is a string, and §3.3 builds the authority from its parameters"),
    ("dct-create-0011", Q_AUTH_NUMBERS,
     "2^53 − 1 is an exact JavaScript number, and §3.3 builds the authority from its parameters"),
    ("dct-valid-0027", quote("spec", "§10.2", "Exact string matches exactly"),
     "the empty pattern is an exact string and matches the empty resource"),
]:
    put(cid, f"Issue 48 census: the text requires the outcome ({why}); the reason claimed as much "
        "while the case stayed hardening.", level="normative", quote=q)
put("jsonrpc-messages-0017", "Issue 48 census: the reason claimed the text accepts it; §9 gives "
    "examples only, so the case is D31's.", level="hardening",
    reason="§9.2 shows the estimates as numbers without a range; classifying an accept whose "
    "estimates are 0 as an accept keeps D31's integer rule (non-negative integers) from refusing a "
    "value it admits.")

# An entry that restates a case's level replaces its ground, `also` included: keep the outcomes
# the earlier statement added (other readings stay readings).
PREVIOUS = {}
for name in ["baseline.json", "relevel-R1.json", "relevel-R2.json", "relevel-R3.json", "relevel-lead.json"]:
    data = json.load(open(f"vectors/src/areas/data/grounds/{name}"))
    for cid, e in data.get("cases", data).items():
        if "level" in e:
            PREVIOUS[cid] = e
for cid, e in census.items():
    prev = PREVIOUS.get(cid, {}).get("also", [])
    if "level" not in e or not prev:
        continue
    if e["level"] != "decision":
        sys.exit(f"{cid}: the census restates a case with other readings ({prev}) as {e['level']}")
    merged = list(prev)
    for o in e.get("also", []):
        if o not in merged:
            merged.append(o)
    e["also"] = merged

# Drop helper keys that are None.
for e in census.values():
    for k in [k for k, v in e.items() if v is None]:
        del e[k]

json.dump(dict(sorted(census.items())), open(OUT, "w"), indent=1, ensure_ascii=False, sort_keys=True)
open(OUT, "a").write("\n")
print(len(census), "entries")
