// Path order of the Rust corpus (vectors/build.rs sorts PathBufs: component by component,
// bytewise), which is the order of the digest and of `delegateos-conform run`.

export function comparePaths(a, b) {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = Buffer.compare(Buffer.from(x[i]), Buffer.from(y[i]));
    if (c !== 0) return c;
  }
  return x.length - y.length;
}

/** Digest input of one file: `path NUL length(u64 LE) bytes` (vectors/src/corpus.rs::digest). */
export function digestChunks(path, bytes) {
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(bytes.length));
  return [Buffer.from(path, 'utf8'), Buffer.from([0]), len, bytes];
}
