// Compiled by packages/ci.sh with `tsc --strict --noEmit` against the installed package: the
// published types (types/index.d.ts, generated types/vector.d.ts) must type-check real use.
import { cases, judge, ok, fails, runCorpus, type Verdict, type CorpusCase, type VectorFile } from 'delegateos-vectors';
const c: CorpusCase = cases({ op: 'glob.match', level: 'normative' })[0];
const v: Verdict = judge(c, ok({ matches: true }));
const f: boolean = fails(c, v, { failOnHardening: true });
const r = runCorpus({ 'glob.match': () => ok({ matches: false }) }, { area: 'glob' });
const s: string = r[0].status;
let x: VectorFile['cases'][number]['expect'] = c.expect;
if (x.result === 'acceptable') console.log(x.outcomes[0].result);
console.log(f, s);
