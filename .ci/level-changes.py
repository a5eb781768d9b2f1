#!/usr/bin/env python3
# Every case whose level differs between an earlier corpus and this one, grouped by the reason
# (issue 27's audit table, spec/audit-v0.3.md). Run from the repository root:
#   git archive <rev> vectors spec | tar -x -C /tmp/old && python3 .ci/level-changes.py /tmp/old
# The reason is derived as the generator derives levels (vectors/src/levels.rs, audit.rs): an
# other reading added to the expectation (the acceptable outcome and its flag), else the decision
# the cited requirements rest on (the lowest-level `(decision Dn)` of a requirement that names
# no clause), else a clause the case or its requirements name now.
import json, glob, re, sys, collections, os

def load(root):
    out = {}
    for f in sorted(glob.glob(os.path.join(root, 'vectors/*/*.json'))):
        d = json.load(open(f))
        for k in d['cases']:
            out[k['id']] = k
    return out

def requirements(root):
    req = {}
    for line in open(os.path.join(root, 'spec/requirements.md')):
        m = re.match(r"- \*\*`([A-Z0-9-]+)`\*\* (?:MUST|SHOULD|MAY)\b(.*)", line)
        if m:
            t = m.group(2); d = re.findall(r"\(decision (D\d+)\)", t)
            req[m.group(1)] = (d[0] if d else None, bool(re.search(r"\((spec|architecture) §", t)))
    return req

def decision_levels(root):
    lv, cur = {}, None
    for line in open(os.path.join(root, 'spec/decisions.md')):
        m = re.match(r"## D(\d+)(?:–D(\d+))? ", line)
        if m:
            a = int(m.group(1)); b = int(m.group(2) or a); cur = [f"D{i}" for i in range(a, b + 1)]; continue
        m = re.match(r"Level: (\w+)", line)
        if m and cur:
            for d in cur: lv[d] = m.group(1)
            cur = None
    return lv

RANK = {'hardening': 0, 'decision': 1, 'normative': 2}

def outcomes(k):
    e = k['expect']
    return e['outcomes'] if e['result'] == 'acceptable' else [e]

def show(o):
    return o.get('code') or ('valid ' + json.dumps(o.get('output'), sort_keys=True)[:40])

def main():
    old = load(sys.argv[1]); new = load('.')
    req = requirements('.'); lv = decision_levels('.')
    groups = collections.defaultdict(list)
    for cid, k in new.items():
        o = old.get(cid)
        if o is None or o['level'] == k['level']:
            continue
        added = [x for x in outcomes(k) if x not in outcomes(o)]
        newflags = [f for f in k['flags'] if f not in o['flags']]
        if added:
            reason = 'other reading accepted: ' + ', '.join(show(x) for x in added) + (f" (flag {', '.join(newflags)})" if newflags else '')
        else:
            low = None
            for r in k['requirements']:
                dec, cl = req.get(r, (None, False))
                if dec and not cl and (low is None or RANK[lv[dec]] < RANK[lv[low[1]]]):
                    low = (r, dec)
            clause = re.search(r"\(((spec|architecture) §[^)]*)\)", k['description'])
            if clause and RANK[k['level']] > RANK[o['level']]:
                reason = 'the case names ' + clause.group(1)
            elif low and RANK[lv[low[1]]] < 2 and k['level'] == lv[low[1]]:
                reason = f"{low[0]} rests on {low[1]} (Level: {lv[low[1]]})"
            else:
                reason = 'audit override or flag level (vectors/src/audit.rs)'
        groups[(o['level'], k['level'], reason)].append(cid)
    total = 0
    for (a, b, reason), ids in sorted(groups.items(), key=lambda x: (x[0][0], x[0][1], -len(x[1]), x[0][2])):
        total += len(ids)
        print(f"| {a} → {b} | {len(ids)} | {reason} | {', '.join(sorted(ids))} |")
    print(f"\n{total} cases changed level.", file=sys.stderr)

main()
