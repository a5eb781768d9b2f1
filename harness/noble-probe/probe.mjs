// The `ed25519.verify` cases of vectors/primitives/ed25519.json through @noble/ed25519 2.x, the
// library the protocol spec names (§1.2: "Ed25519 (RFC 8032) via @noble/ed25519").
//
//   (cd harness/noble-probe && npm ci && node probe.mjs)
//
// Runs every case twice: with `{ zip215: false }` (RFC 8032 decoding) and with noble's default
// `{ zip215: true }` (ZIP 215). Prints each case on which noble's answer is not among the
// case's allowed outcomes. A thrown error counts as `valid: false` (the spec's verify returns a
// boolean; D10's "no exception" is a hardening rule). Exits 1 if the RFC 8032 mode disagrees
// with any normative case: then either noble or the vector is wrong, and a person must look.
import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha512';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

ed.etc.sha512Sync = (...m) => sha512(ed.etc.concatBytes(...m));
const here = path.dirname(fileURLToPath(import.meta.url));
const file = path.join(here, '..', '..', 'vectors', 'primitives', 'ed25519.json');
const corpus = JSON.parse(fs.readFileSync(file, 'utf8'));
const bytes = (hex) => Uint8Array.from(Buffer.from(hex, 'hex'));

// The answers a case allows: `valid: true/false` from a plain or an `acceptable` expectation.
function allowed(expect) {
  const outs = expect.result === 'acceptable' ? expect.outcomes : [expect];
  return outs.filter((o) => o.output && 'valid' in o.output).map((o) => o.output.valid);
}

let normativeDisagreements = 0;
const counts = { cases: 0, rfc8032: 0, zip215: 0 };
for (const c of corpus.cases) {
  if (c.op !== 'ed25519.verify') continue;
  counts.cases += 1;
  const ok = allowed(c.expect);
  for (const zip215 of [false, true]) {
    let got;
    try {
      got = ed.verify(bytes(c.input.signature), bytes(c.input.message), bytes(c.input.publicKey), { zip215 });
    } catch {
      got = false;
    }
    if (ok.includes(got)) continue;
    const mode = zip215 ? 'zip215' : 'rfc8032';
    counts[mode] += 1;
    if (!zip215 && c.level === 'normative') normativeDisagreements += 1;
    console.log(`${c.id} [${c.level}; ${(c.flags || []).join(', ')}] noble ${mode}: valid ${got}, the case allows ${JSON.stringify(ok)}`);
  }
}
console.log(`${counts.cases} ed25519.verify cases: noble {zip215: false} disagrees on ${counts.rfc8032}, noble's default {zip215: true} on ${counts.zip215}`);
process.exit(normativeDisagreements ? 1 : 0);
