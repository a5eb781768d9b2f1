'use strict';
// Protocol loop shared by the red-team JS adapters (spec/adapter-protocol.md). The entry file
// sets global.DEFAULT_BUGS and global.IMPLEMENTATION, then requires this file.
const readline = require('node:readline');
const dos = require('./dos.js');

const OPS = {
  'dct.verify': (i) => ({ scope: dos.verifyDct(i.token, i.context) }),
  'dct.revocation_ids': (i) => ({ revocationIds: dos.blockRevocationIds(dos.decodeToken(i.token)) }),
  'glob.match': (i) => ({ matches: dos.globMatch(i.pattern, i.resource) }),
  'capability.subset': (i) => {
    for (const c of [i.child, i.parent]) {
      if (!c || typeof c.namespace !== 'string' || typeof c.action !== 'string' || typeof c.resource !== 'string') throw new dos.Denial('invalid_input', 'capability');
    }
    return { subset: dos.subset(i.child, i.parent) };
  },
  'timestamp.compare': (i) => {
    let a, b;
    try {
      a = dos.parseTime(i.a);
      b = dos.parseTime(i.b);
    } catch (_) {
      throw new dos.Denial('invalid_timestamp');
    }
    return { order: dos.cmpTime(a, b) };
  },
  'base64url.decode': (i) => {
    try {
      return { hex: dos.b64uDecode(i.text).toString('hex') };
    } catch (_) {
      throw new dos.Denial('invalid_encoding');
    }
  },
  'hash.blake2b256': (i) => ({ hex: dos.blake2b256(Buffer.from(i.hex, 'hex')).toString('hex') }),
  'contract.verify_signature_with_key': (i) => dos.verifyWithKey(i.contract, i.publicKey, 'malformed_contract'),
  'attestation.verify_signature': (i) => dos.verifyWithKey(i.attestation, i.publicKey, 'malformed_attestation'),
};

function run(c) {
  const f = OPS[c.op];
  if (!f) return { outcome: 'skipped', reason: 'unsupported op' };
  try {
    return { outcome: 'ok', output: f(c.input) };
  } catch (e) {
    if (e instanceof dos.Denial) return { outcome: 'error', code: e.code, detail: e.message };
    // Any other exception is the verifier's own (a regular expression that does not compile, a
    // TypeError on a member of the wrong type): the implementation threw on this input
    // (spec/adapter-protocol.md §9); `errored` is kept for the adapter's own failures.
    return { outcome: 'threw', message: String((e && e.stack) || e) };
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const frame = JSON.parse(line);
  let reply;
  if (frame.cmd === 'hello') {
    reply = { seq: frame.seq, protocol: 1, implementation: global.IMPLEMENTATION, operations: Object.keys(OPS) };
  } else if (frame.cmd === 'run') {
    reply = { seq: frame.seq, ...run(frame.case) };
  } else {
    process.stdout.write(JSON.stringify({ seq: frame.seq, outcome: 'ok' }) + '\n');
    process.exit(0);
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
});
