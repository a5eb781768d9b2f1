#!/usr/bin/env python3
# Cases per level and per severity (the highest severity of a case's flags; unflagged cases are
# graded when they fail), and per pattern of issue 27: the level of every case by the decision
# its cited requirements rest on (the lowest-level `(decision Dn)` among them, unless a
# requirement names its clause as `(spec §…)` / `(architecture §…)`, or the case does).
# Run from the repository root: python3 .ci/count-levels.py [--patterns]
import json,glob,collections,sys,re
order=['low','medium','high','critical']
lv=collections.Counter(); sev=collections.Counter(); both=collections.Counter()
req={}
for line in open('spec/requirements.md'):
    m=re.match(r"- \*\*`([A-Z0-9-]+)`\*\* (?:MUST|SHOULD|MAY)\b(.*)",line)
    if m:
        t=m.group(2); d=re.findall(r"\(decision (D\d+)\)",t)
        req[m.group(1)]=(d[0] if d else None, bool(re.search(r"\((spec|architecture) §",t)))
dlv={}; cur=None
for line in open('spec/decisions.md'):
    m=re.match(r"## D(\d+)(?:–D(\d+))? ",line)
    if m:
        a=int(m.group(1)); b=int(m.group(2) or a); cur=[f"D{i}" for i in range(a,b+1)]; continue
    m=re.match(r"Level: (\w+)",line)
    if m and cur:
        for d in cur: dlv[d]=m.group(1)
        cur=None
rank={'hardening':0,'decision':1,'normative':2}
pattern=collections.Counter(); expect=collections.Counter()
for f in sorted(glob.glob('vectors/*/*.json')):
    d=json.load(open(f))
    for k in d['cases']:
        area='advisory' if d['area']=='advisory' else 'main'
        s=[d['notes'][x]['severity'] for x in k['flags']]
        m=max(s,key=order.index) if s else 'unflagged'
        lv[(area,k['level'])]+=1; sev[(area,m)]+=1; both[(k['level'],m)]+=1
        if area=='advisory': continue
        basis='clause'
        if not re.search(r"\((spec|architecture) §",k['description']):
            low=None
            for r in k['requirements']:
                dec,cl=req.get(r,(None,False))
                if dec and not cl and (low is None or rank[dlv[dec]]<rank[dlv[low]]): low=dec
            if low and rank[dlv[low]]<2: basis=f"{low} ({dlv[low]})"
        pattern[(basis,k['level'])]+=1
        if k['expect']['result']=='acceptable':
            for o in k['expect']['outcomes'][1:]:
                if o.get('code')=='invalid_input': expect[('caller error: invalid_input accepted',k['level'])]+=1
print('per level:',dict(sorted(lv.items()))); print('per severity (max flag severity):',dict(sorted(sev.items()))); print('level x severity:',dict(sorted(both.items())))
if '--patterns' in sys.argv:
    print('per pattern (what the cited requirements rest on) x level:')
    for (b,l),n in sorted(pattern.items()): print(f'  {b:22} {l:10} {n}')
    for (b,l),n in sorted(expect.items()): print(f'  {b:22} {l:10} {n}')
