#!/usr/bin/env node
// Stages the committed corpus into data/ (run by `npm run build` and by `prepack`, so
// `npm pack` always ships the corpus of the checkout it runs in). Nothing under data/ is
// committed. Also fails when index/vector.d.ts is stale (scripts/gen-types.mjs --check) or
// package.json's version is not the kit's version (the corpus version).
//
// The file set is vectors/build.rs's: every *.json below each top-level directory of vectors/
// except src/ and target/, in component-wise path order; the digest is
// vectors/src/corpus.rs::digest over it.

import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blake2b256Hex } from '../lib/blake2b.js';
import { comparePaths, digestChunks } from '../lib/paths.js';
import { checkTypes } from './gen-types.mjs';

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
const root = process.env.DELEGATEOS_KIT_ROOT ?? join(pkg, '..', '..');
const vectors = join(root, 'vectors');
const data = join(pkg, 'data');

function collect(dir, rel, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const r = rel ? `${rel}/${name}` : name;
    if (statSync(p).isDirectory()) collect(p, r, out);
    else if (name.endsWith('.json')) out.push(r);
  }
}

const files = [];
for (const area of readdirSync(vectors)) {
  if (area === 'src' || area === 'target' || !statSync(join(vectors, area)).isDirectory()) continue;
  collect(join(vectors, area), area, files);
}
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
const chunks = [];
const entries = [];
const byArea = {};
const byLevel = {};
let total = 0;
for (const rel of files) {
  const bytes = readFileSync(join(vectors, rel));
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
cpSync(join(root, 'spec', 'error-codes.md'), join(data, 'spec', 'error-codes.md'));
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
writeFileSync(join(data, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.error(`delegateos-vectors: staged ${files.length} files, ${total} cases, blake2b-256 ${manifest.digest}`);
