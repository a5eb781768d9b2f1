'use strict';
// A small DelegateOS verifier in plain node (no npm deps), written the way a hurried
// third-party implementer would. It is the shared code base of the red-team adapters
// `js-hasty` and `js-chain` (implementations/redteam/README.md): each adapter switches on its
// own list of SEEDED BUGS, so the conformance suite can be shown to catch every one of them.
//
// Every bug is guarded by `bug('name')`. With REDTEAM_BUGS="" the code takes the careful path
// (close to the spec + spec/decisions.md) so that a case failing with exactly one bug enabled
// and passing with none is evidence that the corpus catches that bug. The careful path is not
// a conformant implementation (e.g. Ed25519 is node/OpenSSL's, not the strict profile of D10).
//
// Bug names (the adapter entry files list which ones they enable and why they are realistic):
//   budget-falsy            `if (att.maxBudgetMicrocents)`: a 0 budget restriction is ignored
//   depth-falsy             `if (att.maxChainDepth)`: a 0 depth restriction is ignored
//   caps-empty-inherit      `if (att.allowedCapabilities?.length)`: [] treated as unset
//   glob-regex-unescaped    glob → RegExp without escaping `.` `+` `?` `(` `[` `$` `|` `^` `{` `\`
//   glob-replace-first      `pattern.replace('**', …)`: only the first `**` is a wildcard
//   glob-star-empty         `*` → `[^/]*` (matches an empty segment and partial segments)
//   glob-doublestar-dotstar `**` → `.*` inside a regex (needs a `/` on both sides)
//   date-parse              timestamps parsed with Date.parse (Feb 30 rolls over, no offset =
//                           local time, lowercase/space accepted, leap second → NaN)
//   expiry-inclusive        expired when now >= expiry
//   budget-gt               budget exceeded only when spent > budget
//   revocation-last-block   only the presented (last) block is checked against revocations
//   revid-blake2b512        revocation ids = first 32 bytes of createHash('blake2b512')
//   revocation-unsigned     an entry revokes if revokedBy is the block signer; its signature
//                           is never verified
//   b64-lenient             Buffer.from(s, 'base64url') for the token, ids and signatures
//   json-lenient            JSON.parse of the token (duplicate keys: last wins; no canonical
//                           form check; no depth limit; nulls treated as absent)
//   request-as-pattern      step 7: granted if the request matches the grant OR the grant
//                           matches the request ("requests may be globs too")
//   expiry-authority-only   step 5 checks authority.expiresAt only
//   subset-startswith       subset: child resource startsWith(parent text before first `*`)
//   subset-via-match        subset: parent pattern glob-matched against the child pattern text
//   attenuator-first-only   4a only for attenuations[0]; later ones "are covered by signatures"
//   attenuator-vs-authority 4a compares every attenuator with authority.delegatee OR previous
//   last-signature-only     only signatures[0] and the last signature are verified (the last
//                           one "covers the whole chain")
//   covers-ignored          `covers` and `signer` of signatures[] are never looked at, count
//                           is only checked to be ≥ 1 + attenuations
//   depth-ignores-chaindepth remaining depth = authority.maxChainDepth (chainDepth ignored)
//   case-insensitive        namespace/action compared with toLowerCase()
//   unsafe-integers         integers only checked with `typeof x === 'number'`
//   root-key-bytes          issuer compared with rootPublicKey after lenient base64 decoding
//                           (not enabled by any adapter: the root key is the verifier's own
//                           configuration and a non-canonical issuer is refused at step 1)
//   depth-no-count          no chain_depth_exceeded: only 4e's value comparison (§10.1 literal)
//   caps-union              effective caps = union of the authority's and every allowed list
//                           that passed 4b (a "merge" instead of a replace)
//   narrow-vs-authority     4b/4c/4d compare each attenuation with the AUTHORITY's values,
//                           not the previous effective ones (a later block may re-widen)
//   cap-cross-product       step 7: some cap has the namespace+action and some (other) cap
//                           matches the resource
//   subset-cross-product    4b: some parent has the namespace+action and some (other) parent
//                           covers the resource
//   offset-sign             offsets added instead of subtracted
//   depth-le                4e: violation only when maxChainDepth > remaining (equal allowed)
//   issuedat-notbefore      expired when now < issuedAt (a not-before check the spec lacks)
//   format-unchecked        the decoded token's `format` member is never looked at
//   resource-normalize      path.posix.normalize() on pattern and resource before matching
//   resource-nfc            String.prototype.normalize('NFC') on pattern and resource
//   revocation-ids-raw      no canonical-form check at step 1 (signatures are checked over the
//                           re-canonicalised blocks, so they still verify), but revocation ids
//                           are hashed over each block's raw bytes as received (a RawValue-style
//                           span): a non-canonical token escapes its published revocation
//   revocation-ids-typed    unknown members of a block are ignored (typed decoding); the
//                           signatures are checked over the block as received, unknown member
//                           included, but revocation ids over the typed block re-serialized
//                           without it: a re-signed block with an extra member escapes revocation
//   root-signer-key         signatures[0] is verified under signatures[0].signer, which is not
//                           required to be authority.issuer ("each signature names its key"): the
//                           issuer (= rootPublicKey) never signs, anyone can mint root tokens
//   key-padding-lenient     contract.verify_signature_with_key / attestation.verify_signature
//                           decode the key with Buffer.from(key, 'base64url') (`=` padding,
//                           `+`/`/`, trailing bits accepted) instead of requiring a principal id

const crypto = require('node:crypto');
const path = require('node:path');
const { blake2b256 } = require('./blake2b.js');

const BUGS = new Set(
  (process.env.REDTEAM_BUGS === undefined ? (global.DEFAULT_BUGS || []).join(',') : process.env.REDTEAM_BUGS)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const bug = (name) => BUGS.has(name);

class Denial extends Error {
  constructor(code, detail) {
    super(detail || code);
    this.code = code;
  }
}
const deny = (code, detail) => {
  throw new Denial(code, detail);
};

const FORMAT = 'delegateos-sjt-v1';
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

// --- encodings -----------------------------------------------------------------------------

function b64uEncode(buf) {
  return Buffer.from(buf).toString('base64url');
}

function b64uDecode(s) {
  if (typeof s !== 'string') throw new Error('not a string');
  if (bug('b64-lenient')) return Buffer.from(s, 'base64url');
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new Error('bad base64url');
  const buf = Buffer.from(s, 'base64url');
  if (b64uEncode(buf) !== s) throw new Error('non-zero trailing bits');
  return buf;
}

function canonicalize(v) {
  if (v === null || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error('number');
    return JSON.stringify(v);
  }
  if (typeof v === 'string') {
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(v)) throw new Error('lone surrogate');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return '[' + v.map(canonicalize).join(',') + ']';
  const keys = Object.keys(v).sort();
  return '{' + keys.map((k) => canonicalize(k) + ':' + canonicalize(v[k])).join(',') + '}';
}

function depthOf(v) {
  if (v === null || typeof v !== 'object') return 0;
  let d = 0;
  for (const x of Object.values(v)) d = Math.max(d, depthOf(x));
  return d + 1;
}

// --- timestamps ------------------------------------------------------------------------------

const TS_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** Instant in nanoseconds since the epoch (BigInt), or throws. */
function parseTime(s) {
  if (typeof s !== 'string') throw new Error('timestamp not a string');
  if (bug('date-parse')) {
    const ms = Date.parse(s);
    // NaN is "not a date" but the hurried code does not check it: comparisons with NaN are false.
    return ms; // a Number (milliseconds), possibly NaN
  }
  const m = TS_RE.exec(s);
  if (!m) throw new Error('bad timestamp');
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const dim = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo < 1 || mo > 12 || d < 1 || d > dim[mo - 1] || h > 23 || mi > 59 || se > 59) throw new Error('bad date');
  let off = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[8].slice(1, 3));
    const om = Number(m[8].slice(4, 6));
    if (oh > 23 || om > 59) throw new Error('bad offset');
    off = (oh * 60 + om) * (m[8][0] === '-' ? -1 : 1);
    if (bug('offset-sign')) off = -off;
  }
  const frac = BigInt((m[7] || '').padEnd(9, '0') || '0');
  const secs = BigInt(Date.UTC(y, mo - 1, d, h, mi, se) / 1000) - BigInt(off * 60);
  return secs * 1000000000n + frac;
}

function cmpTime(a, b) {
  // works for both BigInt (careful path) and Number (date-parse); NaN compares as "equal"
  return a < b ? -1 : a > b ? 1 : 0;
}

// --- glob ----------------------------------------------------------------------------------------

function globMatchRegex(pattern, resource) {
  if (pattern === '*' || pattern === '**') return true;
  let src = pattern;
  if (!bug('glob-regex-unescaped')) src = src.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  const DS = '\u0000';
  src = bug('glob-replace-first') ? src.replace('**', DS) : src.split('**').join(DS);
  src = src.replace(/\*/g, bug('glob-star-empty') ? '[^/]*' : '[^/]+');
  src = src.split(DS).join('.*');
  return new RegExp('^' + src + '$').test(resource);
}

/** Segment-wise DP (D1, D2). */
function globMatchSegments(pattern, resource) {
  if (pattern === '*' || pattern === '**') return true;
  const p = pattern.split('/');
  const r = resource.split('/');
  // reach[j] = pattern prefix i can consume resource prefix j
  let reach = new Array(r.length + 1).fill(false);
  reach[0] = true;
  for (const seg of p) {
    const next = new Array(r.length + 1).fill(false);
    for (let j = 0; j <= r.length; j++) {
      if (!reach[j]) continue;
      if (seg === '**') {
        for (let k = j; k <= r.length; k++) next[k] = true;
        break;
      }
      if (j < r.length && (seg === '*' ? r[j] !== '' : seg === r[j])) next[j + 1] = true;
    }
    reach = next;
  }
  return reach[r.length];
}

function globMatch(pattern, resource) {
  if (bug('resource-normalize')) {
    if (pattern !== '*' && pattern !== '**') pattern = path.posix.normalize(pattern);
    resource = path.posix.normalize(resource);
  }
  if (bug('resource-nfc')) {
    pattern = pattern.normalize('NFC');
    resource = resource.normalize('NFC');
  }
  const regexStyle = bug('glob-regex-unescaped') || bug('glob-replace-first') || bug('glob-star-empty') || bug('glob-doublestar-dotstar');
  if (!regexStyle) return globMatchSegments(pattern, resource);
  // the regex translation: `/a/**` → `^/a/.*$` (so `/a` is not matched and `/a/**/b` needs two
  // slashes), `*` → `[^/]+` (or `[^/]*`)
  return globMatchRegex(pattern, resource);
}

/** covers(parent, child), D3. */
function covers(p, c) {
  if (p === '*' || p === '**' || p === c) return true;
  if (c === '*') return false;
  const ps = p.split('/');
  const cs = c.split('/');
  let reach = new Array(cs.length + 1).fill(false);
  reach[0] = true;
  for (const seg of ps) {
    const next = new Array(cs.length + 1).fill(false);
    for (let j = 0; j <= cs.length; j++) {
      if (!reach[j]) continue;
      if (seg === '**') {
        for (let k = j; k <= cs.length; k++) next[k] = true;
        break;
      }
      if (j < cs.length) {
        const x = cs[j];
        if (seg === '*' ? x !== '' && x !== '**' : x === seg) next[j + 1] = true;
      }
    }
    reach = next;
  }
  return reach[cs.length];
}

const eqName = (a, b) => (bug('case-insensitive') ? a.toLowerCase() === b.toLowerCase() : a === b);

function subset(child, parent) {
  if (!eqName(child.namespace, parent.namespace) || !eqName(child.action, parent.action)) return false;
  if (bug('subset-startswith')) {
    const prefix = parent.resource.split('*')[0];
    return child.resource === parent.resource || child.resource.startsWith(prefix);
  }
  if (bug('subset-via-match')) return globMatch(parent.resource, child.resource);
  return covers(parent.resource, child.resource);
}

// --- token decoding (step 1) -------------------------------------------------------------------

const isInt = (x) => (bug('unsafe-integers') ? typeof x === 'number' : Number.isSafeInteger(x) && x >= 0);
const isStr = (x) => typeof x === 'string';
const PRINCIPAL = (x) => {
  if (!isStr(x)) return false;
  if (bug('b64-lenient')) return b64uDecode(x).length === 32;
  return x.length === 43 && safeDecodeLen(x) === 32;
};
function safeDecodeLen(x) {
  try {
    return b64uDecode(x).length;
  } catch (_) {
    return -1;
  }
}
const CT = (x) => isStr(x) && /^ct_[0-9a-f]{12}$/.test(x);
const DEL = (x) => isStr(x) && /^del_[0-9a-f]{12}$/.test(x);
const TS = (x) => {
  try {
    const t = parseTime(x);
    return bug('date-parse') ? isStr(x) : t !== undefined;
  } catch (_) {
    return false;
  }
};

function exactKeys(o, required, optional = []) {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return false;
  for (const k of required) if (!(k in o)) return false;
  for (const k of Object.keys(o)) if (!required.includes(k) && !optional.includes(k)) return false;
  return true;
}

function capsOk(list) {
  return (
    Array.isArray(list) &&
    list.every((c) => exactKeys(c, ['namespace', 'action', 'resource']) && isStr(c.namespace) && c.namespace !== '' && isStr(c.action) && c.action !== '' && isStr(c.resource))
  );
}

function decodeToken(ser) {
  if (!exactKeys(ser, ['token', 'format']) || !isStr(ser.token) || ser.format !== FORMAT) deny('malformed_token', 'serialized');
  if (ser.token.length > 1 << 20) deny('malformed_token', 'too long');
  let bytes;
  try {
    bytes = b64uDecode(ser.token);
  } catch (e) {
    deny('malformed_token', e.message);
  }
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch (_) {
    deny('malformed_token', 'utf-8');
  }
  if (text.charCodeAt(0) === 0xfeff) deny('malformed_token', 'BOM');
  let tok;
  try {
    tok = JSON.parse(text);
  } catch (_) {
    deny('malformed_token', 'json');
  }
  if (!bug('json-lenient')) {
    let canon;
    try {
      canon = canonicalize(tok);
    } catch (_) {
      deny('malformed_token', 'canonical');
    }
    // revocation-ids-raw: "the signatures are checked over the canonical form anyway"
    if (canon !== text && !bug('revocation-ids-raw')) deny('malformed_token', 'not canonical');
    if (depthOf(tok) > 32) deny('malformed_token', 'depth');
  } else if (bug('json-lenient')) {
    // "null means not set"
    for (const a of (tok && tok.attenuations) || []) {
      if (a && typeof a === 'object') for (const k of Object.keys(a)) if (a[k] === null) delete a[k];
    }
  }
  const A = tok && tok.authority;
  const ok =
    exactKeys(tok, ['format', 'authority', 'attenuations', 'signatures']) &&
    (bug('format-unchecked') || tok.format === FORMAT) &&
    blockKeys(A, AUTH_KEYS) &&
    PRINCIPAL(A.issuer) &&
    PRINCIPAL(A.delegatee) &&
    capsOk(A.capabilities) &&
    CT(A.contractId) &&
    DEL(A.delegationId) &&
    DEL(A.parentDelegationId) &&
    isInt(A.chainDepth) &&
    isInt(A.maxChainDepth) &&
    isInt(A.maxBudgetMicrocents) &&
    TS(A.expiresAt) &&
    TS(A.issuedAt) &&
    Array.isArray(tok.attenuations) &&
    tok.attenuations.every(
      (a) =>
        blockKeys(a, ATT_KEYS, ATT_OPTIONAL) &&
        PRINCIPAL(a.attenuator) &&
        PRINCIPAL(a.delegatee) &&
        DEL(a.delegationId) &&
        CT(a.contractId) &&
        (!('allowedCapabilities' in a) || capsOk(a.allowedCapabilities)) &&
        (!('maxBudgetMicrocents' in a) || isInt(a.maxBudgetMicrocents)) &&
        (!('maxChainDepth' in a) || isInt(a.maxChainDepth)) &&
        (!('expiresAt' in a) || TS(a.expiresAt)),
    ) &&
    Array.isArray(tok.signatures) &&
    tok.signatures.every(
      (s) =>
        exactKeys(s, ['signer', 'signature', 'covers']) &&
        PRINCIPAL(s.signer) &&
        isStr(s.signature) &&
        (bug('b64-lenient') || s.signature.length === 86) &&
        safeDecodeLen(s.signature) === 64 &&
        (s.covers === 'authority' || isInt(s.covers)),
    );
  if (!ok) deny('malformed_token', 'structure');
  // The decoded text, for revocation-ids-raw's "hash the bytes as received" (not enumerable:
  // canonicalize never sees it).
  Object.defineProperty(tok, 'rawText', { value: text, enumerable: false });
  return tok;
}

const AUTH_KEYS = ['issuer', 'delegatee', 'capabilities', 'contractId', 'delegationId', 'parentDelegationId', 'chainDepth', 'maxChainDepth', 'maxBudgetMicrocents', 'expiresAt', 'issuedAt'];
const ATT_KEYS = ['attenuator', 'delegatee', 'delegationId', 'contractId'];
const ATT_OPTIONAL = ['allowedCapabilities', 'maxBudgetMicrocents', 'expiresAt', 'maxChainDepth'];

/** A block's members: exact, or (revocation-ids-typed) the known ones with unknown ones ignored. */
function blockKeys(o, required, optional = []) {
  if (!bug('revocation-ids-typed')) return exactKeys(o, required, optional);
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return false;
  return required.every((k) => k in o);
}

/** revocation-ids-typed: the block as its typed struct re-serializes (known members only). */
function typedBlock(block, i) {
  const known = i === 0 ? AUTH_KEYS : [...ATT_KEYS, ...ATT_OPTIONAL];
  const out = {};
  for (const k of known) if (k in block) out[k] = block[k];
  return out;
}

/**
 * revocation-ids-raw: the raw text of each block as received — the span of `authority`'s value
 * and of each element of `attenuations` in the decoded JSON text (what a RawValue / RawMessage
 * member holds), whitespace inside included.
 */
function rawBlockSpans(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const str = () => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const value = () => {
    ws();
    const start = i;
    if (text[i] === '"') str();
    else if (text[i] === '{') {
      i++;
      ws();
      if (text[i] === '}') i++;
      else
        for (;;) {
          ws();
          str();
          ws();
          i++; // ':'
          value();
          ws();
          if (text[i++] === '}') break;
        }
    } else if (text[i] === '[') {
      i++;
      ws();
      if (text[i] === ']') i++;
      else
        for (;;) {
          value();
          ws();
          if (text[i++] === ']') break;
        }
    } else while (i < text.length && !',}] \t\n\r'.includes(text[i])) i++;
    return [start, i];
  };
  let authority = null;
  const attenuations = [];
  ws();
  i++; // '{'
  for (;;) {
    ws();
    if (text[i] === '}') break;
    const key = str();
    ws();
    i++; // ':'
    ws();
    if (key === 'attenuations' && text[i] === '[') {
      i++;
      ws();
      if (text[i] === ']') i++;
      else
        for (;;) {
          attenuations.push(value());
          ws();
          if (text[i++] === ']') break;
        }
    } else {
      const span = value();
      if (key === 'authority') authority = span;
    }
    ws();
    if (text[i++] === '}') break;
  }
  return [authority, ...attenuations].map((sp) => text.slice(sp[0], sp[1]));
}

/** The revocation ids of a decoded token's blocks, authority first (§10.1 step 2, §4). */
function blockRevocationIds(tok) {
  const blocks = [tok.authority, ...tok.attenuations];
  if (bug('revocation-ids-raw') && tok.rawText !== undefined) {
    return rawBlockSpans(tok.rawText).map((raw) => revocationIdOfBytes(Buffer.from(raw, 'utf8')));
  }
  if (bug('revocation-ids-typed')) return blocks.map((b, i) => revocationId(typedBlock(b, i)));
  return blocks.map(revocationId);
}

// --- crypto --------------------------------------------------------------------------------------

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function edVerify(pubRaw, msg, sig) {
  if (pubRaw.length !== 32 || sig.length !== 64) return false;
  try {
    const key = crypto.createPublicKey({ key: Buffer.concat([SPKI_PREFIX, pubRaw]), format: 'der', type: 'spki' });
    return crypto.verify(null, msg, key, sig);
  } catch (_) {
    return false;
  }
}

function edSign(seed, msg) {
  const PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
  const key = crypto.createPrivateKey({ key: Buffer.concat([PKCS8, seed]), format: 'der', type: 'pkcs8' });
  const pub = crypto.createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(12);
  return { publicKey: pub, signature: crypto.sign(null, msg, key) };
}

const digest = (value) => blake2b256(Buffer.from(canonicalize(value), 'utf8'));

function revocationId(block) {
  return revocationIdOfBytes(Buffer.from(canonicalize(block), 'utf8'));
}

function revocationIdOfBytes(bytes) {
  if (bug('revid-blake2b512')) {
    return b64uEncode(crypto.createHash('blake2b512').update(bytes).digest().subarray(0, 32));
  }
  return b64uEncode(blake2b256(bytes));
}

function verifySig(principal, value, sigText) {
  let pub, sig;
  try {
    pub = b64uDecode(principal);
    sig = b64uDecode(sigText);
  } catch (_) {
    return false;
  }
  return edVerify(pub, digest(value), sig);
}

function entryValid(e) {
  if (!exactKeys(e, ['revocationId', 'revokedBy', 'revokedAt', 'scope', 'signature'])) return false;
  if (!isStr(e.revocationId) || !PRINCIPAL(e.revokedBy) || !TS(e.revokedAt) || !isStr(e.signature)) return false;
  if (e.scope !== 'block' && e.scope !== 'chain') return false;
  if (bug('revocation-unsigned')) return true;
  const { revocationId: rid, revokedBy, revokedAt, scope } = e;
  return verifySig(revokedBy, { revocationId: rid, revokedBy, revokedAt, scope }, e.signature);
}

// --- verify ----------------------------------------------------------------------------------

function verifyDct(ser, ctx) {
  // 1
  const tok = decodeToken(ser);
  const A = tok.authority;
  const atts = tok.attenuations;
  const now = parseTimeCtx(ctx.now);
  // 2
  const entries = ctx.revocations.filter(entryValid);
  const ids = blockRevocationIds(tok);
  const blocks = [{ rid: ids[0], signer: A.issuer }, ...atts.map((a, i) => ({ rid: ids[i + 1], signer: a.attenuator }))];
  const checked = bug('no-revocation') ? [] : bug('revocation-last-block') ? blocks.slice(-1) : blocks;
  for (const { rid, signer } of checked) {
    if (entries.some((e) => e.revocationId === rid && e.revokedBy === signer)) deny('revoked');
  }
  // 3
  const sigs = tok.signatures;
  if (bug('covers-ignored')) {
    if (sigs.length < 1 + atts.length) deny('invalid_signature', 'count');
  } else {
    if (sigs.length !== 1 + atts.length) deny('invalid_signature', 'count');
    if (sigs[0].covers !== 'authority' || (!bug('root-signer-key') && sigs[0].signer !== A.issuer)) deny('invalid_signature', 'structure');
    atts.forEach((a, i) => {
      if (sigs[i + 1].covers !== i || sigs[i + 1].signer !== a.attenuator) deny('invalid_signature', 'structure');
    });
  }
  if (bug('root-key-bytes')) {
    let same = false;
    try {
      same = Buffer.from(A.issuer, 'base64url').equals(Buffer.from(ctx.rootPublicKey, 'base64url'));
    } catch (_) {}
    if (!same) deny('invalid_signature', 'root');
  } else if (A.issuer !== ctx.rootPublicKey) deny('invalid_signature', 'root');
  const anySignature = bug('any-signature');
  if (!anySignature && !verifySig(bug('root-signer-key') ? sigs[0].signer : A.issuer, { authority: A }, sigs[0].signature)) deny('invalid_signature', 'authority');
  for (let i = 0; i < atts.length; i++) {
    if (anySignature || (bug('last-signature-only') && i !== atts.length - 1)) continue;
    if (!verifySig(atts[i].attenuator, { authority: A, attenuations: atts.slice(0, i + 1) }, sigs[i + 1].signature)) deny('invalid_signature', `attenuation ${i}`);
  }
  // 4
  let caps = A.capabilities;
  let budget = A.maxBudgetMicrocents;
  let expiry = parseTime(A.expiresAt);
  let remaining = bug('depth-ignores-chaindepth') ? A.maxChainDepth : A.maxChainDepth - A.chainDepth;
  // §10.1 step 8 reports effectiveMaxDepth: the last maxChainDepth set, else the authority's.
  let effectiveMaxDepth = A.maxChainDepth;
  if (remaining < 0 && !bug('depth-no-count')) deny('chain_depth_exceeded');
  let current = A.delegatee;
  for (let i = 0; i < atts.length; i++) {
    const a = atts[i];
    if (bug('attenuator-first-only')) {
      if (i === 0 && a.attenuator !== current) deny('attenuation_violation', 'attenuator');
    } else if (bug('attenuator-vs-authority')) {
      if (a.attenuator !== current && a.attenuator !== A.delegatee) deny('attenuation_violation', 'attenuator');
    } else if (a.attenuator !== current && !bug('no-attenuator-check')) deny('attenuation_violation', 'attenuator');
    const hasCaps = bug('caps-empty-inherit') ? a.allowedCapabilities?.length : a.allowedCapabilities !== undefined;
    if (hasCaps) {
      const parents = bug('narrow-vs-authority') ? A.capabilities : caps;
      for (const c of a.allowedCapabilities) {
        const ok = bug('subset-cross-product')
          ? parents.some((p) => eqName(c.namespace, p.namespace) && eqName(c.action, p.action)) &&
            parents.some((p) => subset({ ...c, namespace: p.namespace, action: p.action }, p))
          : parents.some((p) => subset(c, p));
        if (!ok) deny('attenuation_violation', 'capability expansion');
      }
      caps = bug('caps-union') ? [...caps, ...a.allowedCapabilities] : a.allowedCapabilities;
    }
    const hasBudget = bug('budget-falsy') ? a.maxBudgetMicrocents : a.maxBudgetMicrocents !== undefined;
    if (hasBudget) {
      if (a.maxBudgetMicrocents > (bug('narrow-vs-authority') ? A.maxBudgetMicrocents : budget)) deny('attenuation_violation', 'budget');
      budget = a.maxBudgetMicrocents;
    }
    if (a.expiresAt !== undefined) {
      const t = parseTime(a.expiresAt);
      if (!bug('skip-4d') && cmpTime(t, bug('narrow-vs-authority') ? parseTime(A.expiresAt) : expiry) > 0) deny('attenuation_violation', 'expiry');
      if (!bug('expiry-authority-only')) expiry = t;
    }
    const hasDepth = bug('depth-falsy') ? a.maxChainDepth : a.maxChainDepth !== undefined;
    if (bug('depth-no-count')) {
      if (hasDepth) {
        if (bug('depth-le') ? a.maxChainDepth > remaining : a.maxChainDepth >= remaining) deny('attenuation_violation', 'depth');
        remaining = a.maxChainDepth;
        effectiveMaxDepth = a.maxChainDepth;
      }
    } else {
      if (remaining <= 0) deny('chain_depth_exceeded');
      if (hasDepth) {
        if (bug('depth-le') ? a.maxChainDepth > remaining : a.maxChainDepth >= remaining) deny('attenuation_violation', 'depth');
        remaining = a.maxChainDepth;
        effectiveMaxDepth = a.maxChainDepth;
      } else remaining -= 1;
    }
    current = a.delegatee;
  }
  // 5
  const c = cmpTime(now, expiry);
  if (bug('expiry-inclusive') ? c >= 0 : c > 0) deny('expired');
  if (bug('issuedat-notbefore') && cmpTime(now, parseTime(A.issuedAt)) < 0) deny('expired', 'not yet valid');
  // 6
  const spent = ctx.spentMicrocents;
  if (bug('budget-gt') ? spent > budget : spent >= budget) deny('budget_exceeded');
  // 7
  const granted = bug('cap-cross-product')
    ? caps.some((p) => eqName(p.namespace, ctx.namespace) && eqName(p.action, ctx.action)) && caps.some((p) => globMatch(p.resource, ctx.resource))
    : caps.some(
    (p) =>
      eqName(p.namespace, ctx.namespace) &&
      (bug('any-action') || eqName(p.action, ctx.action)) &&
      (globMatch(p.resource, ctx.resource) || (bug('request-as-pattern') && globMatch(ctx.resource, p.resource))),
  );
  if (!granted) deny('capability_not_granted');
  const last = atts.length ? atts[atts.length - 1] : A;
  return {
    capabilities: caps,
    remainingBudgetMicrocents: budget - spent,
    chainDepth: A.chainDepth + atts.length,
    maxChainDepth: effectiveMaxDepth,
    contractId: last.contractId,
    delegationId: last.delegationId,
  };
}

// --- signatures under a caller-given key (D42: contract.verify_signature_with_key,
// attestation.verify_signature) ------------------------------------------------------------------

/** `{valid}` for `obj`'s signature under `key`; `code` refuses an object without a signature. */
function verifyWithKey(obj, key, code) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || !isStr(obj.signature)) deny(code, 'no signature');
  let pub;
  if (bug('key-padding-lenient')) {
    pub = isStr(key) ? Buffer.from(key, 'base64url') : Buffer.alloc(0);
  } else {
    // a principal id: 43 characters of canonical unpadded base64url
    if (!isStr(key) || key.length !== 43 || !/^[A-Za-z0-9_-]*$/.test(key)) return { valid: false };
    pub = Buffer.from(key, 'base64url');
    if (b64uEncode(pub) !== key) return { valid: false };
  }
  let sig;
  try {
    sig = b64uDecode(obj.signature);
  } catch (_) {
    return { valid: false };
  }
  const { signature: _s, ...payload } = obj;
  let msg;
  try {
    msg = digest(payload);
  } catch (_) {
    deny(code, 'not canonicalizable');
  }
  return { valid: edVerify(pub, msg, sig) };
}

function parseTimeCtx(s) {
  try {
    return parseTime(s);
  } catch (_) {
    throw new Denial('malformed_token', 'now');
  }
}

module.exports = {
  BUGS,
  bug,
  Denial,
  FORMAT,
  b64uEncode,
  b64uDecode,
  canonicalize,
  parseTime,
  cmpTime,
  globMatch,
  covers,
  subset,
  verifyDct,
  revocationId,
  edSign,
  edVerify,
  blake2b256,
  decodeToken,
  blockRevocationIds,
  verifyWithKey,
};
