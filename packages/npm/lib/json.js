// JSON text → JS values, without losing integers: an integer literal outside
// Number.MAX_SAFE_INTEGER but inside the 64-bit range the Rust judge compares exactly
// ([-2^63, 2^64 - 1]) becomes a BigInt; everything else is what JSON.parse gives.
// The corpus has such integers (vectors/mcp/call.json: 9007199254740993), and the Rust judge
// (serde_json) tells 2^53 + 1 from 2^53, so this judge must too.

const I64_MIN = -(2n ** 63n);
const U64_MAX = 2n ** 64n - 1n;
const BIG_LITERAL = /-?\d{16,}(?![.\deE])/;

/** Parses JSON text; integers JSON.parse would round (and that fit in 64 bits) are BigInt. */
export function parseJson(text) {
  // Fast path: no literal of 16+ digits anywhere (not even inside strings) → JSON.parse is exact.
  if (!BIG_LITERAL.test(text)) return JSON.parse(text);
  const p = new Parser(text);
  p.ws();
  const v = p.value();
  p.ws();
  if (p.i !== text.length) p.fail('trailing characters');
  return v;
}

class Parser {
  constructor(s) {
    this.s = s;
    this.i = 0;
  }
  fail(what) {
    throw new SyntaxError(`JSON: ${what} at offset ${this.i}`);
  }
  ws() {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }
  value() {
    const c = this.s[this.i];
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail('unexpected character');
  }
  object() {
    const out = {};
    this.i++;
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('expected a key');
      const k = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail('expected :');
      this.i++;
      this.ws();
      Object.defineProperty(out, k, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return out;
      if (c !== ',') this.fail('expected , or }');
    }
  }
  array() {
    const out = [];
    this.i++;
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail('expected , or ]');
    }
  }
  string() {
    const re = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
    re.lastIndex = this.i;
    const m = re.exec(this.s);
    if (!m) this.fail('bad string');
    this.i = re.lastIndex;
    return JSON.parse(m[0]);
  }
  number() {
    const re = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    re.lastIndex = this.i;
    const m = re.exec(this.s);
    if (!m) this.fail('bad number');
    this.i = re.lastIndex;
    const text = m[0];
    if (m[1] === undefined && m[2] === undefined) {
      const n = Number(text);
      if (Number.isSafeInteger(n)) return n;
      const b = BigInt(text);
      return b >= I64_MIN && b <= U64_MAX ? b : n;
    }
    return Number(text);
  }
}
