#!/usr/bin/env python3
# Cases per level and per severity (the highest severity of a case's flags; unflagged cases are
# graded when they fail). Run from the repository root: python3 .ci/count-levels.py
import json,glob,collections,sys
order=['low','medium','high','critical']
lv=collections.Counter(); sev=collections.Counter(); both=collections.Counter()
for f in sorted(glob.glob('vectors/*/*.json')):
    d=json.load(open(f))
    for k in d['cases']:
        area='advisory' if d['area']=='advisory' else 'main'
        s=[d['notes'][x]['severity'] for x in k['flags']]
        m=max(s,key=order.index) if s else 'unflagged'
        lv[(area,k['level'])]+=1; sev[(area,m)]+=1; both[(k['level'],m)]+=1
print('per level:',dict(sorted(lv.items()))); print('per severity (max flag severity):',dict(sorted(sev.items()))); print('level x severity:',dict(sorted(both.items())))
