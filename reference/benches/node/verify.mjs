// A DelegateOS token verifier in Node on @noble/ed25519 2.3.0, used by
// reference/benches/verify.rs for the side-by-side with the reference on the same tokens.
//
// Usage: node verify.mjs FIXTURE.json  (FIXTURE: {root, tokens: [{n, token}]}, written by the bench)
// Prints {results: [{n, strictUs, cachedKeysUs}]}: microseconds per token verification.
//
// What it checks: strict base64url; JSON with the exact RFC 8785 form (sorted keys,
// JSON.stringify scalars; enough for tokens, which hold only strings and integers); issuer is
// the root; each signature's covers/signer; every Ed25519 signature under the strict profile of
// D10 (research §3: fromBytes with zip215=false, re-encoding equal to the input, not small
// order, torsion-free, for A and R; then verify with {zip215: false}); attenuator = previous
// delegatee; budget and expiry narrowing. It does not match capability globs, so it does a
// little less than the reference: the ratios it gives are conservative.
//
// Two modes:
//   strict      — A checked on every signature (as the measurement of issue 17 did);
//   cachedKeys  — A's checks cached per key across tokens (what KeyCache does in Rust);
//                 R's checks stay per signature: noble's verify uses the cofactored equation,
//                 so without them it would accept mixed-order R.
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha512';
import { blake2b } from '@noble/hashes/blake2b';
import { readFileSync } from 'node:fs';

ed.etc.sha512Sync = (...m) => sha512(ed.etc.concatBytes(...m));

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const enc = new TextEncoder();

function b64u(text, len) {
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.toString('base64url') !== text || (len !== undefined && bytes.length !== len)) {
    throw new Error('bad base64url');
  }
  return new Uint8Array(bytes);
}

function canon(v) {
  if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
  if (v !== null && typeof v === 'object') {
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

function eqBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function checkPoint(bytes) {
  const p = ed.Point.fromBytes(bytes, false);
  if (!eqBytes(p.toBytes(), bytes)) throw new Error('non-canonical point');
  if (p.isSmallOrder()) throw new Error('small-order point');
  if (!p.isTorsionFree()) throw new Error('mixed-order point');
}

function verifyStrict(pk, msg, sig, keyCache) {
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]);
  if (s >= L) return false;
  try {
    const id = keyCache ? Buffer.from(pk).toString('hex') : null;
    if (!keyCache || !keyCache.has(id)) {
      checkPoint(pk);
      if (keyCache) keyCache.set(id, true);
    }
    checkPoint(sig.subarray(0, 32));
  } catch {
    return false;
  }
  return ed.verify(sig, msg, pk, { zip215: false });
}

function verifyToken(tokenText, root, keyCache) {
  const bytes = b64u(tokenText);
  const text = Buffer.from(bytes).toString('utf8');
  const t = JSON.parse(text);
  if (canon(t) !== text) throw new Error('not canonical');
  if (t.format !== 'delegateos-sjt-v1') throw new Error('format');
  const a = t.authority;
  if (a.issuer !== root) throw new Error('issuer is not the root');
  const cA = canon(a);
  const sigs = t.signatures;
  if (sigs.length !== t.attenuations.length + 1) throw new Error('signature count');
  const check = (entry, signer, covers, payload) => {
    if (entry.covers !== covers || entry.signer !== signer) throw new Error('signature structure');
    const digest = blake2b(enc.encode(payload), { dkLen: 32 });
    if (!verifyStrict(b64u(signer, 32), digest, b64u(entry.signature, 64), keyCache)) {
      throw new Error('invalid signature');
    }
  };
  check(sigs[0], a.issuer, 'authority', `{"authority":${cA}}`);
  const prefix = [];
  let delegatee = a.delegatee;
  let budget = a.maxBudgetMicrocents;
  let expiry = Date.parse(a.expiresAt);
  t.attenuations.forEach((att, i) => {
    prefix.push(canon(att));
    check(sigs[i + 1], att.attenuator, i, `{"attenuations":[${prefix.join(',')}],"authority":${cA}}`);
  });
  for (const att of t.attenuations) {
    if (att.attenuator !== delegatee) throw new Error('attenuator mismatch');
    if (att.maxBudgetMicrocents !== undefined) {
      if (att.maxBudgetMicrocents > budget) throw new Error('budget expansion');
      budget = att.maxBudgetMicrocents;
    }
    if (att.expiresAt !== undefined) {
      const e = Date.parse(att.expiresAt);
      if (e > expiry) throw new Error('expiry extension');
      expiry = e;
    }
    delegatee = att.delegatee;
  }
  return true;
}

const fixture = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const cache = new Map();
const results = [];
for (const { n, token } of fixture.tokens) {
  verifyToken(token, fixture.root, null); // warm-up, and a check that it verifies
  verifyToken(token, fixture.root, cache);
  const reps = Math.max(3, Math.floor(24 / (n + 1)));
  let t0 = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) verifyToken(token, fixture.root, null);
  const strictUs = Number(process.hrtime.bigint() - t0) / 1e3 / reps;
  t0 = process.hrtime.bigint();
  for (let i = 0; i < reps; i++) verifyToken(token, fixture.root, cache);
  const cachedKeysUs = Number(process.hrtime.bigint() - t0) / 1e3 / reps;
  results.push({ n, strictUs, cachedKeysUs });
}
process.stdout.write(JSON.stringify({ results }) + '\n');
