// A deliberately small DelegateOS "implementation" for the examples and packages/ci.sh: strict
// base64url (protocol §1.2) and a naive json.canonicalize (JSON.parse + sorted-key
// JSON.stringify: not RFC 8785 on duplicate keys, lone surrogates, nesting or I-JSON limits,
// so some cases fail). Every other op is missing, so its cases are skipped.
// example/adapter.mjs wraps the same object for `delegateos-conform run --impl`.

import { error, ok } from 'delegateos-vectors';

const B64 = /^[A-Za-z0-9_-]*$/;

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}

export function makeTinyImpl() {
  return {
    'base64url.encode'({ hex }) {
      return ok({ text: Buffer.from(hex, 'hex').toString('base64url') });
    },
    'base64url.decode'({ text }) {
      if (typeof text !== 'string' || !B64.test(text) || text.length % 4 === 1) {
        return error('invalid_encoding', 'not unpadded base64url');
      }
      const bytes = Buffer.from(text, 'base64url');
      if (bytes.toString('base64url') !== text) return error('invalid_encoding', 'non-zero trailing bits');
      return ok({ hex: bytes.toString('hex') });
    },
    'json.canonicalize'({ text }) {
      let value;
      try {
        value = JSON.parse(text);
      } catch {
        return error('invalid_json', 'unparseable');
      }
      return ok({ canonical: JSON.stringify(sortKeys(value)) });
    },
  };
}
