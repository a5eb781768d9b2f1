// delegateos-vectors: the DelegateOS conformance corpus and its judge, for JavaScript.
//
// The corpus files are the committed `vectors/` of the conformance kit, copied into `data/` when
// the package is built (scripts/build.mjs); `digest` is the same BLAKE2b-256 as
// `delegateos_vectors::corpus::embedded_digest()` and the report header of
// `delegateos-conform run`.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { blake2b256Hex } from './blake2b.js';
import { familiesFromData } from './families.js';
import { parseJson } from './json.js';
import { comparePaths, digestChunks } from './paths.js';
import { judgeCase } from './judge.js';

export { jsonEqual, judgeExpectation, judgeReference, isSuccess, fails, outcomesOf, FLOAT_TOLERANCE } from './judge.js';
export { parseJson } from './json.js';

const DATA = fileURLToPath(new URL('../data/', import.meta.url));

function readData(rel) {
  try {
    return readFileSync(DATA + rel);
  } catch (e) {
    throw new Error(
      `delegateos-vectors: ${rel} is missing from ${DATA}; a checkout must run \`npm run build\` (scripts/build.mjs) first`,
      { cause: e },
    );
  }
}

/** The build manifest: corpus version, digest, files and counts. */
export const manifest = JSON.parse(readData('manifest.json').toString('utf8'));
/** The corpus version (the kit's version, as `delegateos-conform --version`). */
export const corpusVersion = manifest.corpusVersion;
/** BLAKE2b-256 (hex) of the corpus, as `delegateos_vectors::corpus::embedded_digest()`. */
export const digest = manifest.digest;

let families = null;
let files = null;
let byId = null;

/** The code families of spec/error-codes.md §11 (spec/data/error-codes.json) shipped with the corpus. */
export function codeFamilies() {
  families ??= familiesFromData(JSON.parse(readData('spec/data/error-codes.json').toString('utf8')));
  return families;
}

/** Every vector file (parsed), in the corpus's path order. */
export function vectorFiles() {
  if (files === null) {
    files = manifest.files.map(({ path }) => ({ path, file: parseJson(readData(`vectors/${path}`).toString('utf8')) }));
  }
  return files;
}

function allCases() {
  if (byId === null) {
    byId = new Map();
    for (const { path, file } of vectorFiles()) {
      for (const c of file.cases) {
        const advisory = file.area === 'advisory' || c.flags.some((f) => f.toLowerCase() === 'advisory');
        byId.set(c.id, { ...c, area: file.area, group: file.group, file: path, stateful: file.stateful === true, advisory });
      }
    }
  }
  return byId;
}

const asSet = (x) => (x === undefined || x === null ? null : new Set(Array.isArray(x) ? x : [x]));

/**
 * The cases, in `delegateos-conform run`'s order, filtered by area, op and level (each a value
 * or a list). Advisory cases (neighbour profiles) are left out unless `advisory: true`, as
 * `run` leaves them out unless `--profile strict`.
 */
export function cases(filter = {}) {
  const area = asSet(filter.area);
  const op = asSet(filter.op);
  const level = asSet(filter.level);
  const out = [];
  for (const c of allCases().values()) {
    if (c.advisory && !filter.advisory) continue;
    if (area && !area.has(c.area)) continue;
    if (op && !op.has(c.op)) continue;
    if (level && !level.has(c.level)) continue;
    out.push(c);
  }
  return out;
}

/** One case by id (advisory included), or undefined. */
export function caseById(id) {
  return allCases().get(id);
}

/** Judges `actual` for `c` exactly as `delegateos-conform run` does (the Rust judge_case). */
export function judge(c, actual) {
  return judgeCase(codeFamilies(), c, actual);
}

/** `{outcome: "ok", output}`. */
export const ok = (output) => ({ outcome: 'ok', output });
/** `{outcome: "error", code, detail?}`. */
export const error = (code, detail) => (detail === undefined ? { outcome: 'error', code } : { outcome: 'error', code, detail });

/** Recomputes the digest over the shipped files; true if it equals `digest`. */
export function verifyDigest() {
  const paths = manifest.files.map((f) => f.path).sort(comparePaths);
  const chunks = paths.flatMap((p) => digestChunks(p, readData(`vectors/${p}`)));
  return blake2b256Hex(Buffer.concat(chunks)) === digest;
}

import { runCases as runWith } from './run.js';
export { answer, statusOf, DEFAULT_TIMEOUT_MS, OPTIONS } from './run.js';

/**
 * Runs the cases of `filter` (see `cases`) against implementations from `makeImpl()` (an object
 * whose keys are op names, e.g. `{'glob.match'(input) {…}}`), stateful groups included, and
 * returns `[{case, actual, verdict, status, replay}]`; `status` is `run`'s status name.
 *
 * `options.options` — the options the implementation has (spec/adapter-protocol.md §2.1, the
 * names of `hello.options`, `OPTIONS` lists them): a case that needs another is `skipped` with
 * "needs option X", never a finding; an unknown name throws.
 *
 * `options.timeoutMs` — the budget of each call (default 10 000, or DELEGATEOS_TIMEOUT_MS;
 * 0 = none): a call still running then is terminated and the case is `errored` with
 * `actual.kind === 'timeout'` and a message naming the case (`fails(c, result)` counts it
 * whatever the level, as `run` counts a hang). Long runs print a progress line to stderr every
 * 5 s unless `options.quiet` (or DELEGATEOS_QUIET=1); `options.progress(line)` takes them instead.
 */
export function runCorpus(makeImpl, filter = {}, options = {}) {
  const list = Array.isArray(filter) ? filter : cases(filter);
  return runWith(judge, typeof makeImpl === 'function' ? makeImpl : () => makeImpl, list, options);
}
