#!/usr/bin/env python3
# Cases per level (read from each case's ground, issue 36), per ground kind, per decision, and
# the severity each failing direction's stated stake carries (spec/severity.md §2).
# Run from the repository root: python3 .ci/count-levels.py [--decisions]
import json, glob, collections, sys, re

sev = {}
inside = False
for line in open('spec/severity.md', encoding='utf-8'):
    if line.startswith('## '):
        inside = line.startswith('## 2.')
        continue
    m = re.match(r'\| ([a-z-]+) \| (low|medium|high|critical) \|', line)
    if inside and m:
        sev[m.group(1)] = m.group(2)
lv = collections.Counter(); kinds = collections.Counter(); single = collections.Counter()
by_decision = collections.Counter(); stake = collections.Counter()
for f in sorted(glob.glob('vectors/*/*.json')):
    if f.endswith(('manifest.json', 'keys.json')):
        continue
    d = json.load(open(f, encoding='utf-8'))
    area = 'advisory' if d['area'] == 'advisory' else 'main'
    for k in d['cases']:
        g = k['ground']
        lv[(area, k['level'])] += 1
        kinds[(area, g['kind'])] += 1
        if g['kind'] == 'decision':
            by_decision[g['decision']] += 1
            if k['expect']['result'] != 'acceptable':
                single[g['decision']] += 1
        for direction in ('granted', 'refused', 'wrongOutput', 'crashOrHang'):
            stake[(k['level'], direction, sev.get(k['stake'][direction], '?'))] += 1
print('per level:', dict(sorted(lv.items())))
print('per ground kind:', dict(sorted(kinds.items())))
print('decision cases with one outcome (each states a reason):', sum(single.values()), dict(sorted(single.items())))
print('stated stake: (level, direction, severity) -> cases')
for key, n in sorted(stake.items()):
    print(f'  {key[0]:10} {key[1]:12} {key[2]:9} {n}')
if '--decisions' in sys.argv:
    print('decision cases per decision:', dict(sorted(by_decision.items(), key=lambda x: int(x[0][1:]))))
