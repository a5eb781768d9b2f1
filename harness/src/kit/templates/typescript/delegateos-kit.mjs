// @ts-check
// DelegateOS adapter kit for Node 18+ (no dependencies; type-checked JavaScript, so a
// TypeScript project can `tsc --allowJs --checkJs --noEmit` it).
//
// Written by `delegateos-conform new-adapter --lang typescript`; you should not need to edit it.
// It speaks adapter protocol v1 (spec/adapter-protocol.md) on stdin/stdout: one JSON object per
// line, `seq` echoed, `hello` declaring exactly the operations whose stub in adapter.mjs was
// filled in, `bye`. A stub is "not filled in" while its body is the single statement
// `throw TODO;`; such operations are not declared, so the harness reports their cases `skipped`.
//
// In an operation function (sync or async):
// - return an object (the operation's `ok` output);
// - throw new SpecError(code, detail) for a spec error code (spec/error-codes.md);
// - throw new InvalidInput(text) when the input lacks the catalogue's shape (`invalid_input`);
// - throw new Skip(reason) for an input your library cannot represent (`skipped`);
// - throw TODO to leave an input unimplemented for now (`skipped`, "not implemented yet").
// Anything else thrown is reported `threw` with its stack (the implementation threw on this input,
// graded as a crash on it: spec/adapter-protocol.md §2.2), and the adapter keeps running; map
// your library's own errors onto codes in adapter.mjs's `libraryError`.

import { createInterface } from "node:readline";

export const PROTOCOL = 1;

/** Thrown by a stub that is not filled in yet. */
export const TODO = Object.freeze(new Error("TODO: operation not implemented yet"));

export class Skip extends Error {}

export class InvalidInput extends Error {}

export class SpecError extends Error {
  /** @param {string} code @param {string} [detail] */
  constructor(code, detail = "") {
    super(detail ? `${code}: ${detail}` : code);
    this.code = code;
    this.detail = detail;
  }
}

// --- which stubs are filled in -------------------------------------------------------------------

/** True while the function's body is only `throw TODO;` (comments ignored). @param {Function} fn */
export function isStub(fn) {
  const source = Function.prototype.toString
    .call(fn)
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/[^\n]*/g, "");
  return /\{\s*throw\s+(?:[A-Za-z_$][\w$]*\.)?TODO\s*;?\s*\}\s*$/.test(source);
}

/**
 * The operations whose stub is filled in: what `hello` declares.
 * @param {Record<string, Function>} stubs
 */
export function declared(stubs) {
  /** @type {Record<string, Function>} */
  const out = {};
  for (const [name, fn] of Object.entries(stubs)) if (!isStub(fn)) out[name] = fn;
  return out;
}

// --- input helpers -------------------------------------------------------------------------------
// (Hashing: Node's `crypto` has Ed25519 but no BLAKE2b-256 — `blake2b512` is another function, not
// a prefix of it. Unless your library brings one, use `@noble/hashes`: `blake2b(bytes, { dkLen: 32 })`
// from "@noble/hashes/blake2b" (1.x) or "@noble/hashes/blake2.js" (2.x); or `blakejs`:
// `blake2b(bytes, undefined, 32)`.)

/**
 * `value` as an object with exactly the `required` keys plus any of `optional`.
 * @param {unknown} value @param {string[]} required @param {string[]} [optional]
 * @returns {Record<string, any>}
 */
export function fields(value, required, optional = []) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidInput("input must be an object");
  }
  const keys = Object.keys(value);
  const missing = required.filter((k) => !keys.includes(k));
  const unknown = keys.filter((k) => !required.includes(k) && !optional.includes(k));
  if (missing.length || unknown.length) {
    throw new InvalidInput(`missing [${missing}], unknown [${unknown}]`);
  }
  return /** @type {Record<string, any>} */ (value);
}

/** @param {unknown} value @param {string} name @returns {string} */
export function string(value, name) {
  if (typeof value !== "string") throw new InvalidInput(`${name} must be a string`);
  return value;
}

/** @param {unknown} value @param {string} name @returns {number} */
export function integer(value, name) {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    throw new InvalidInput(`${name} must be an integer`);
  }
  return value;
}

/** Lowercase, even-length hex (spec/operations.md §1). @param {unknown} value @param {string} name */
export function hexBytes(value, name) {
  if (typeof value !== "string" || !/^(?:[0-9a-f]{2})*$/.test(value)) {
    throw new InvalidInput(`${name} must be lowercase hex`);
  }
  return Buffer.from(value, "hex");
}

/** A 32-byte Ed25519 seed given as 64 lowercase hex characters. @param {unknown} value @param {string} name */
export function seed(value, name) {
  const bytes = hexBytes(value, name);
  if (bytes.length !== 32) throw new InvalidInput(`${name} must be 32 bytes`);
  return bytes;
}

/** @param {Uint8Array} bytes */
export function toHex(bytes) {
  return Buffer.from(bytes).toString("hex");
}

/** @param {Uint8Array} bytes */
export function b64urlEncode(bytes) {
  return Buffer.from(bytes).toString("base64url");
}

/** Strict base64url (no padding, URL alphabet, zero trailing bits): `invalid_encoding`. @param {unknown} text */
export function b64urlDecode(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) {
    throw new SpecError("invalid_encoding", "not unpadded base64url");
  }
  const bytes = Buffer.from(text, "base64url");
  if (bytes.toString("base64url") !== text) {
    throw new SpecError("invalid_encoding", "non-zero trailing bits");
  }
  return bytes;
}

/**
 * Decodes a principal id (base64url of a 32-byte Ed25519 public key, 43 characters) to the key
 * bytes; throws a TypeError for anything else.
 * @param {unknown} principal
 */
export function principalKey(principal) {
  if (typeof principal !== "string" || principal.length !== 43) {
    throw new TypeError("a principal id is 43 base64url characters");
  }
  try {
    return b64urlDecode(principal);
  } catch (e) {
    throw new TypeError(`not a principal id: ${e instanceof Error ? e.message : e}`);
  }
}

/**
 * Runs `fn` with `Date.now()` and `new Date()` frozen at the instant `iso` (e.g. a case's
 * `issuedAt` or `now`), for a library whose create operations read the clock. Restores the real
 * clock afterwards, also when `fn` throws or its promise rejects.
 * @template T @param {string} iso @param {() => T} fn @returns {T}
 */
export function withFixedClock(iso, fn) {
  const instant = Date.parse(iso);
  if (Number.isNaN(instant)) throw new InvalidInput(`not a timestamp: ${iso}`);
  const RealDate = globalThis.Date;
  class FixedDate extends RealDate {
    /** @param {any[]} args */
    constructor(...args) {
      if (args.length === 0) super(instant);
      // @ts-ignore - forwarding the real constructor's overloads
      else super(...args);
    }
    static now() {
      return instant;
    }
  }
  globalThis.Date = /** @type {DateConstructor} */ (/** @type {unknown} */ (FixedDate));
  /** @type {any} */
  let result;
  try {
    result = fn();
  } catch (e) {
    globalThis.Date = RealDate;
    throw e;
  }
  if (result && typeof result.then === "function") {
    return /** @type {T} */ (result.finally(() => (globalThis.Date = RealDate)));
  }
  globalThis.Date = RealDate;
  return result;
}

/** The published test keys of the corpus (vectors/src/keys.rs): name -> seed (hex), principal id. */
export const TEST_KEYS = Object.freeze({
@@TEST_KEYS@@
});

// --- the protocol loop ---------------------------------------------------------------------------

/** @param {unknown} e */
function describe(e) {
  if (e instanceof Error) return e.stack || `${e.name}: ${e.message}`;
  return String(e);
}

/**
 * One `run` frame's case -> the reply's outcome fields.
 * @param {any} case_ @param {Record<string, Function>} operations
 * @param {(e: unknown) => [string, string] | undefined} [libraryError]
 */
export async function runCase(case_, operations, libraryError) {
  const op = case_ && typeof case_ === "object" ? case_.op : undefined;
  const fn = Object.prototype.hasOwnProperty.call(operations, op) ? operations[op] : undefined;
  if (typeof fn !== "function") {
    return { outcome: "skipped", reason: `operation ${JSON.stringify(op)} not declared` };
  }
  let output;
  try {
    output = await fn(case_.input);
  } catch (e) {
    if (e === TODO) return { outcome: "skipped", reason: "not implemented yet (the stub threw TODO)" };
    if (e instanceof Skip) return { outcome: "skipped", reason: e.message };
    if (e instanceof SpecError) return { outcome: "error", code: e.code, detail: e.detail };
    if (e instanceof InvalidInput) return { outcome: "error", code: "invalid_input", detail: e.message };
    let mapped;
    try {
      mapped = libraryError ? libraryError(e) : undefined;
    } catch {
      mapped = undefined;
    }
    if (mapped) return { outcome: "error", code: String(mapped[0]), detail: String(mapped[1] ?? "") };
    return { outcome: "threw", message: describe(e) };
  }
  if (typeof output !== "object" || output === null || Array.isArray(output)) {
    return { outcome: "errored", message: `${op} returned ${output === null ? "null" : typeof output}, not an object` };
  }
  return { outcome: "ok", output };
}

/** @param {unknown} reply */
function write(reply) {
  // Pipes are written synchronously by Node on Linux: every reply leaves before the next read.
  process.stdout.write(JSON.stringify(reply) + "\n");
}

/**
 * Answers frames on stdin until `bye` or end of input.
 * @param {Record<string, unknown>} implementation
 * @param {Record<string, Function>} operations
 * @param {(e: unknown) => [string, string] | undefined} [libraryError]
 * @param {string[]} [options] the options the implementation declares (spec/adapter-protocol.md §2.1)
 */
export async function serve(implementation, operations, libraryError, options = []) {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    let frame;
    try {
      frame = JSON.parse(line);
    } catch (e) {
      write({ seq: null, outcome: "errored", message: `frame is not JSON: ${describe(e)}` });
      continue;
    }
    if (typeof frame !== "object" || frame === null || Array.isArray(frame)) {
      write({ seq: null, outcome: "errored", message: "frame is not an object" });
      continue;
    }
    const seq = frame.seq;
    if (frame.cmd === "hello") {
      const names = Object.keys(operations).sort();
      process.stderr.write(`adapter: declaring ${names.length} operation(s): ${names.join(", ") || "none"}\n`);
      write({ seq, protocol: PROTOCOL, implementation, operations: names, options: [...options] });
    } else if (frame.cmd === "run") {
      let reply;
      try {
        reply = await runCase(frame.case, operations, libraryError);
      } catch (e) {
        reply = { outcome: "errored", message: describe(e) };
      }
      write({ seq, ...reply });
    } else if (frame.cmd === "bye") {
      write({ seq, outcome: "ok" });
      lines.close();
      return;
    } else {
      write({ seq, outcome: "errored", message: `unknown cmd ${JSON.stringify(frame.cmd)}` });
    }
  }
}
