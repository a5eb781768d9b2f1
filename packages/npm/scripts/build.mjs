#!/usr/bin/env node
// Stages the committed corpus into data/ (run by `npm run build` and by `prepack`, so
// `npm pack` always ships the corpus of the checkout it runs in). Nothing under data/ is
// committed. Also fails when index/vector.d.ts is stale (scripts/gen-types.mjs --check) or
// package.json's version is not the kit's version (the corpus version).
//
// The file set is the one vectors/manifest.json lists, in component-wise path order; the
// digest is vectors/src/corpus.rs::digest over it and must equal the manifest's.

import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake2b256Hex } from '../lib/blake2b.js';
import { comparePaths, digestChunks } from '../lib/paths.js';
import { checkTypes } from './gen-types.mjs';

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const root = process.env.DELEGATEOS_KIT_ROOT ?? join(pkg, '..', '..');
const vectors = join(root, 'vectors');
const data = join(pkg, 'data');

// The file set is the committed manifest's (vectors/manifest.json, written by `vectors
// generate`, the same file `delegateos-conform vectors export` writes); every file and the
// digest are checked against it below.
const committed = JSON.parse(readFileSync(join(vectors, 'manifest.json'), 'utf8'));
const ownHash = new Map(committed.file_list.map((f) => [f.path, f['blake2b-256']]));
const files = committed.file_list.map((f) => f.path);
files.sort(comparePaths);
if (files.length === 0) throw new Error(`no vector files under ${vectors}`);

const version = /\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(readFileSync(join(root, 'Cargo.toml'), 'utf8'))?.[1];
if (!version) throw new Error('no [workspace.package] version in Cargo.toml');
const pkgJson = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
if (pkgJson.version !== version) {
  throw new Error(`package.json version ${pkgJson.version} is not the kit's (corpus) version ${version}`);
}
const stale = checkTypes(root);
if (stale) throw new Error(stale);

rmSync(data, { recursive: true, force: true });
mkdirSync(join(data, 'spec', 'schemas'), { recursive: true });
mkdirSync(join(data, 'spec', 'data'), { recursive: true });
const chunks = [];
const entries = [];
const byArea = {};
const byLevel = {};
let total = 0;
for (const rel of files) {
  const bytes = readFileSync(join(vectors, rel));
  if (blake2b256Hex(bytes) !== ownHash.get(rel)) {
    throw new Error(`vectors/${rel} differs from vectors/manifest.json: run vectors generate`);
  }
  chunks.push(...digestChunks(rel, bytes));
  mkdirSync(dirname(join(data, 'vectors', rel)), { recursive: true });
  writeFileSync(join(data, 'vectors', rel), bytes);
  const file = JSON.parse(bytes.toString('utf8'));
  entries.push({ path: rel, cases: file.cases.length });
  total += file.cases.length;
  const area = (byArea[file.area] ??= {});
  for (const c of file.cases) {
    area[c.level] = (area[c.level] ?? 0) + 1;
    byLevel[c.level] = (byLevel[c.level] ?? 0) + 1;
  }
}
// The spec's tables the judge reads, and the number rule's cases its tests read, as data
// (spec/data/README.md).
for (const name of ['error-codes.json', 'number-equality.json', 'exit-rule.json']) {
  cpSync(join(root, 'spec', 'data', name), join(data, 'spec', 'data', name));
}
cpSync(join(root, 'spec', 'schemas', 'vector.schema.json'), join(data, 'spec', 'schemas', 'vector.schema.json'));
const manifest = {
  corpusVersion: version,
  digestAlgorithm: 'blake2b-256',
  digest: blake2b256Hex(Buffer.concat(chunks)),
  cases: total,
  casesByArea: byArea,
  casesByLevel: byLevel,
  files: entries,
};
if (manifest.digest !== committed.digest.hex || version !== committed.version) {
  throw new Error('the staged corpus is not the one vectors/manifest.json describes');
}
writeFileSync(join(data, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
// The committed manifest and the published test keys, as `vectors export` writes them.
for (const name of ['manifest.json', 'keys.json']) cpSync(join(vectors, name), join(data, 'vectors', name));
console.error(`delegateos-vectors: staged ${files.length} files, ${total} cases, blake2b-256 ${manifest.digest}`);
