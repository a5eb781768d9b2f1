// Code families of spec/error-codes.md §11, read from their data file spec/data/error-codes.json
// (shipped in data/spec/data/), the same file the Rust judge (vectors/src/families.rs) and the
// Python package read: no table is parsed from the Markdown.

/** The families of an error-codes.json document (already parsed). */
export function familiesFromData(doc) {
  if (doc === null || typeof doc !== 'object' || !Array.isArray(doc.families)) {
    throw new Error('error-codes.json: no "families" list');
  }
  return doc.families.map((f) => ({
    name: f.name,
    codes: [...f.codes],
    ops: [...f.ops],
    stages: [...f.stages],
    onlyFlag: f.onlyFlag ?? null,
  }));
}

function stageMatches(pattern, stage) {
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -2);
    return stage === prefix || stage.startsWith(`${prefix}/`);
  }
  return stage === pattern;
}

/** True if family `f` makes `actual` a substitute for `expected` (Family::covers). */
export function covers(f, op, stage, flags, expected, actual) {
  const has = (c) => f.codes.includes(c);
  const stageOk =
    f.stages.length === 0 ||
    (stage !== undefined && stage !== null && f.stages.some((p) => stageMatches(p, stage)));
  const flagOk = f.onlyFlag === null || flags.includes(f.onlyFlag);
  return expected !== actual && has(expected) && has(actual) && f.ops.includes(op) && stageOk && flagOk;
}

/** The first family under which `actual` substitutes for `expected`, or null. */
export function familyFor(families, op, stage, flags, expected, actual) {
  return families.find((f) => covers(f, op, stage, flags, expected, actual)) ?? null;
}
