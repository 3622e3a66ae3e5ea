import csv, gzip, sys, math, collections
def load(f):
    rows=[r for r in csv.DictReader(l for l in gzip.open(f,'rt') if not l.startswith('#'))]
    d={}
    for r in rows:
        if r['disposition']!='passed': continue
        d[(r['m'],r['n'],r['k'],r['layout'],r['mode'],r['impl'])]=float(r['ms'])
    return d
tag=sys.argv[1]  # sk-shapes or llm-heldout
runs={sk:[load(f'{tag}-sk{sk}-{i}.csv.gz') for i in (1,2)] for sk in (0,1)}
for mode in ('graph','latency'):
    ratios=[]; vs={0:[],1:[]}; per=[]
    keys=[k for k in runs[0][0] if k[4]==mode and k[5]=='hgemm']
    for k in keys:
        kc=k[:5]+('cublaslt-best',)
        h={sk:[r[k] for r in runs[sk] if k in r] for sk in (0,1)}
        c={sk:[r[kc] for r in runs[sk] if kc in r] for sk in (0,1)}
        if not all(h.values()) or not all(c.values()): continue
        hm={sk:sorted(h[sk])[len(h[sk])//2] if len(h[sk])%2 else sum(h[sk])/len(h[sk]) for sk in (0,1)}
        cm={sk:sum(c[sk])/len(c[sk]) for sk in (0,1)}
        ratios.append(hm[1]/hm[0]); per.append((hm[1]/hm[0],k,cm[0]/hm[0],cm[1]/hm[1]))
        for sk in (0,1): vs[sk].append(cm[sk]/hm[sk])
    g=lambda x: math.exp(sum(map(math.log,x))/len(x))
    print(f"{tag} {mode}: n={len(ratios)} sk1/sk0 time {g(ratios):.3f}  vs cublaslt: sk0 {g(vs[0]):.3f} sk1 {g(vs[1]):.3f}")
    per.sort()
    for p in per[:6]+per[-4:]: print(f"   {p[0]:.3f} {'x'.join(p[1][:3])} {p[1][3]} lt/h sk0 {p[2]:.3f} sk1 {p[3]:.3f}")
