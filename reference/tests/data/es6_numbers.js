// Generates the ES6-number known-answer digest used by reference/tests/dct_primitives.rs.
//
// Both sides generate the same f64 sequence from a xorshift64 generator:
//   i % 4 == 0, 1: the 64 state bits reinterpreted as an IEEE double (NaN/±Infinity skipped)
//   i % 4 == 2:    Number(state mod 2^53)          (integers, exact)
//   i % 4 == 3:    Number(state mod 10^9) / 1000   (decimals)
// Each value is printed as JSON.stringify(x) (the ECMAScript Number::toString that RFC 8785
// uses), one per line with "\n" after each, and the BLAKE2b-512 digest of the text is printed.
//
// Regenerate: node reference/tests/data/es6_numbers.js [count]   (default 100000)
'use strict';
const crypto = require('crypto');

const count = Number(process.argv[2] || 100000);
const MASK = (1n << 64n) - 1n;
let x = 0x9E3779B97F4A7C15n;
const view = new DataView(new ArrayBuffer(8));
const hash = crypto.createHash('blake2b512');
let produced = 0;
let i = 0;
while (produced < count) {
  x ^= (x << 13n) & MASK;
  x ^= x >> 7n;
  x ^= (x << 17n) & MASK;
  let v;
  switch (i % 4) {
    case 2: v = Number(x % (1n << 53n)); break;
    case 3: v = Number(x % 1000000000n) / 1000; break;
    default: view.setBigUint64(0, x); v = view.getFloat64(0);
  }
  i++;
  if (!Number.isFinite(v)) continue;
  hash.update(JSON.stringify(v) + '\n');
  produced++;
}
console.log(hash.digest('hex'));
