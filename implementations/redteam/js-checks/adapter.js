'use strict';
// RED TEAM — DELIBERATELY DEFECTIVE: output checks the way many services write them — a JSON
// Schema check on ajv 8 (strict mode, as §6.2 says) and a regex check on RegExp. Only
// `check.run` json_schema / regex_match (no `field`) and `output.verify` schema_match /
// deterministic_check regex_match are implemented; every other case is skipped.
//
// Seeded bugs (REDTEAM_BUGS=a,b overrides the default of all; REDTEAM_BUGS= is the careful
// path, a new Ajv instance per check):
//   shared-instance  one Ajv instance for the whole process: compiling a second schema with an
//                    `$id` ajv has seen throws "schema with key or id … already exists"
//                    (answered invalid_schema), even when the schema is identical;
//   cache-by-id      validators looked up by `$id` before compiling
//                    (`ajv.getSchema(schema.$id) ?? ajv.compile(schema)`): a second schema
//                    under the same `$id` is judged by the first;
//   regex-by-name    compiled regexes cached by check name ("regex_match"): the first
//                    pattern and flags seen answer for every later one.
// Caught by the stateful groups vectors/stateful/schema-id.json and registry.json
// (harness/tests/redteam_checks.rs).
// ajv comes from harness/mcp-smoke (npm ci --prefix harness/mcp-smoke).
const path = require('node:path');
const readline = require('node:readline');

const Ajv = require(path.join(__dirname, '..', '..', '..', 'harness', 'mcp-smoke', 'node_modules', 'ajv'));

const ALL_BUGS = ['shared-instance', 'cache-by-id', 'regex-by-name'];
const env = process.env.REDTEAM_BUGS;
const BUGS = new Set(env === undefined ? ALL_BUGS : env.split(',').map((s) => s.trim()).filter(Boolean));
const bug = (name) => BUGS.has(name);

let shared = null;
function instance() {
  if (bug('shared-instance') || bug('cache-by-id')) {
    shared = shared || new Ajv({ strict: true });
    return shared;
  }
  return new Ajv({ strict: true });
}

class Refusal extends Error {
  constructor(code, detail) {
    super(detail);
    this.code = code;
  }
}

function validate(schema, output) {
  const ajv = instance();
  let v;
  try {
    const id = schema && typeof schema === 'object' ? schema.$id : undefined;
    v = (bug('cache-by-id') && id !== undefined && ajv.getSchema(id)) || ajv.compile(schema);
  } catch (e) {
    throw new Refusal('invalid_schema', String(e && e.message));
  }
  return v(output) ? { passed: true, score: 1 } : { passed: false, score: 0 };
}

const regexes = new Map();
function regexMatch(params, output) {
  if (!params || typeof params.pattern !== 'string' || params.field !== undefined) return null;
  if (typeof output !== 'string') return null;
  let re = bug('regex-by-name') ? regexes.get('regex_match') : undefined;
  if (!re) {
    try {
      re = new RegExp(params.pattern, params.flags || '');
    } catch (e) {
      throw new Refusal('unsupported_pattern', String(e && e.message));
    }
    if (bug('regex-by-name')) regexes.set('regex_match', re);
  }
  re.lastIndex = 0;
  return re.test(output) ? { passed: true, score: 1 } : { passed: false, score: 0 };
}

const OPS = {
  'check.run': (i) => {
    if (i.name === 'json_schema') return validate(i.params && i.params.schema, i.output);
    if (i.name === 'regex_match') return regexMatch(i.params, i.output);
    return null;
  },
  'output.verify': (i) => {
    const v = i.verification || {};
    if (v.method === 'schema_match') return validate(v.schema, i.output);
    if (v.method === 'deterministic_check' && v.checkName === 'regex_match') return regexMatch(v.checkParams, i.output);
    return null;
  },
};

function run(c) {
  const f = OPS[c.op];
  try {
    const out = f ? f(c.input) : null;
    if (out === null) return { outcome: 'skipped', reason: 'only json_schema and regex_match' };
    return { outcome: 'ok', output: out };
  } catch (e) {
    if (e instanceof Refusal) return { outcome: 'error', code: e.code, detail: e.message };
    return { outcome: 'threw', message: String((e && e.stack) || e) };
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  if (!line.trim()) return;
  const frame = JSON.parse(line);
  if (frame.cmd === 'hello') {
    process.stdout.write(JSON.stringify({
      seq: frame.seq,
      protocol: 1,
      implementation: { name: 'js-checks (RED TEAM, deliberately defective)', version: '0.1.0', language: 'javascript' },
      operations: Object.keys(OPS),
    }) + '\n');
  } else if (frame.cmd === 'run') {
    process.stdout.write(JSON.stringify({ seq: frame.seq, ...run(frame.case) }) + '\n');
  } else {
    process.stdout.write(JSON.stringify({ seq: frame.seq, outcome: 'ok' }) + '\n');
    process.exit(0);
  }
});
