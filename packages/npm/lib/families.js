// Code families of spec/error-codes.md §11, parsed from the text exactly as the Rust judge
// parses it (vectors/src/families.rs): the tables there are the single source.

function backticked(cell) {
  return cell.split('`').filter((_, i) => i % 2 === 1);
}

function cells(line) {
  return trimMatches(line.trim(), '|').split('|').map((s) => s.trim());
}

function trimMatches(s, ch) {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === ch) a++;
  while (b > a && s[b - 1] === ch) b--;
  return s.slice(a, b);
}

const isStage = (token) => token.length > 0 && token[0] >= '0' && token[0] <= '9';

/** Parses the two tables of §11 of an error-codes.md text. */
export function parseFamilies(text) {
  let inSection = false;
  const families = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('## ')) {
      inSection = line.startsWith('## 11.');
      continue;
    }
    if (!inSection || !line.startsWith('|')) continue;
    const c = cells(line);
    const name = c[0];
    const second = c[1];
    if (name === undefined || second === undefined) continue;
    if (name === 'family' || name.startsWith('---')) continue;
    const f = families.find((x) => x.name === name);
    if (f) {
      f.ops = second
        .split(',')
        .map((s) => s.trim().split(/\s+/)[0] || '')
        .map((s) => trimMatches(s, '`'))
        .filter((s) => s.includes('.'));
      const stages = c[2] ?? '';
      f.stages = stages
        .split(/[, ]/)
        .map((s) => trimMatches(s.trim(), '`'))
        .filter(isStage);
      const rest = stages.split('only on')[1];
      f.onlyFlag = rest === undefined ? null : (backticked(rest)[0] ?? null);
    } else {
      families.push({
        name,
        codes: second.split(',').map((s) => s.trim()).filter((s) => s !== ''),
        ops: [],
        stages: [],
        onlyFlag: null,
      });
    }
  }
  return families;
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
