// BLAKE2b (RFC 7693), unkeyed, any digest length 1..64, on 32-bit halves (fast enough for the
// 12 MB corpus). node's crypto has only blake2b512, and BLAKE2b-256 is not a truncation of it:
// the digest length is part of the parameter block.

const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
].map((row) => row.map((x) => x * 2));

const v = new Uint32Array(32);
const m = new Uint32Array(32);

// v[a] += v[b] (64-bit, indices are of 32-bit halves: low at a, high at a + 1).
function add64(a, b) {
  const lo = v[a] + v[b];
  let hi = v[a + 1] + v[b + 1];
  if (lo >= 0x100000000) hi++;
  v[a] = lo;
  v[a + 1] = hi;
}

function add64m(a, lo0, hi0) {
  const lo = v[a] + lo0;
  let hi = v[a + 1] + hi0;
  if (lo >= 0x100000000) hi++;
  v[a] = lo;
  v[a + 1] = hi;
}

function G(a, b, c, d, ix, iy) {
  add64(a, b);
  add64m(a, m[ix], m[ix + 1]);
  // d = rotr64(d ^ a, 32)
  let xl = v[d] ^ v[a];
  let xh = v[d + 1] ^ v[a + 1];
  v[d] = xh;
  v[d + 1] = xl;
  add64(c, d);
  // b = rotr64(b ^ c, 24)
  xl = v[b] ^ v[c];
  xh = v[b + 1] ^ v[c + 1];
  v[b] = (xl >>> 24) ^ (xh << 8);
  v[b + 1] = (xh >>> 24) ^ (xl << 8);
  add64(a, b);
  add64m(a, m[iy], m[iy + 1]);
  // d = rotr64(d ^ a, 16)
  xl = v[d] ^ v[a];
  xh = v[d + 1] ^ v[a + 1];
  v[d] = (xl >>> 16) ^ (xh << 16);
  v[d + 1] = (xh >>> 16) ^ (xl << 16);
  add64(c, d);
  // b = rotr64(b ^ c, 63) = rotl64(b ^ c, 1)
  xl = v[b] ^ v[c];
  xh = v[b + 1] ^ v[c + 1];
  v[b] = (xh >>> 31) ^ (xl << 1);
  v[b + 1] = (xl >>> 31) ^ (xh << 1);
}

function compress(h, block, t, last) {
  for (let i = 0; i < 16; i++) {
    v[i] = h[i];
    v[i + 16] = IV[i];
  }
  // t < 2^53: low and high 32 bits of the byte counter.
  v[24] ^= t >>> 0;
  v[25] ^= Math.floor(t / 0x100000000) >>> 0;
  if (last) {
    v[28] = ~v[28];
    v[29] = ~v[29];
  }
  for (let i = 0; i < 32; i++) {
    m[i] = block[i * 4] ^ (block[i * 4 + 1] << 8) ^ (block[i * 4 + 2] << 16) ^ (block[i * 4 + 3] << 24);
  }
  for (let r = 0; r < 12; r++) {
    const s = SIGMA[r];
    G(0, 8, 16, 24, s[0], s[1]);
    G(2, 10, 18, 26, s[2], s[3]);
    G(4, 12, 20, 28, s[4], s[5]);
    G(6, 14, 22, 30, s[6], s[7]);
    G(0, 10, 20, 30, s[8], s[9]);
    G(2, 12, 22, 24, s[10], s[11]);
    G(4, 14, 16, 26, s[12], s[13]);
    G(6, 8, 18, 28, s[14], s[15]);
  }
  for (let i = 0; i < 16; i++) h[i] = h[i] ^ v[i] ^ v[i + 16];
}

/** BLAKE2b of `data` (Uint8Array) with an `outLen`-byte digest (unkeyed). */
export function blake2b(data, outLen = 64) {
  const h = new Uint32Array(IV);
  h[0] ^= 0x01010000 ^ outLen;
  const block = new Uint8Array(128);
  let t = 0;
  let off = 0;
  // Every full block except the last one is compressed with last = false.
  while (data.length - off > 128) {
    t += 128;
    compress(h, data.subarray(off, off + 128), t, false);
    off += 128;
  }
  block.fill(0);
  block.set(data.subarray(off));
  t += data.length - off;
  compress(h, block, t, true);
  const out = new Uint8Array(outLen);
  for (let i = 0; i < outLen; i++) out[i] = (h[i >> 2] >>> (8 * (i & 3))) & 0xff;
  return out;
}

/** BLAKE2b-256 as lowercase hex. */
export function blake2b256Hex(data) {
  return Buffer.from(blake2b(data, 32)).toString('hex');
}
