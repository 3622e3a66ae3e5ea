import csv,gzip,math,sys
def load(f):
    d={}
    for r in csv.DictReader(l for l in gzip.open(f,'rt') if not l.startswith('#')):
        if r['disposition']!='passed': print('NOT PASSED',f,r['m'],r['n'],r['k'],r['impl'],r['disposition'])
        d[(int(r['m']),int(r['n']),int(r['k']),r['layout'],r['impl'])]=(float(r['ms']),r['detail'])
    return d
gm=lambda xs: math.exp(sum(map(math.log,xs))/len(xs)) if xs else float('nan')
for r in '12':
  for side in ['ref','new']:
    d=load(f'heldout-acol-{side}-{r}.csv.gz')
    out=[]
    for lay in ['tn','nn']:
        ks=sorted({k[:3] for k in d if k[3]==lay})
        rat={k:d[k+(lay,'hgemm')][0]/d[k+(lay,'hgemm-acol')][0] for k in ks}
        small=[v for k,v in rat.items() if k[0]<=16]
        out.append(f"{lay}: all {gm(list(rat.values())):.3f} M<=16 {gm(small):.3f} ({len(small)})")
    print(side,r,' | '.join(out))
for r in '12':
    a=load(f'decode-ref-{r}.csv.gz'); b=load(f'decode-new-{r}.csv.gz')
    ks=sorted({k[:4] for k in a})
    ra=[a[k+('cublaslt-best',)][0]/a[k+('hgemm',)][0] for k in ks]
    rb=[b[k+('cublaslt-best',)][0]/b[k+('hgemm',)][0] for k in ks]
    rt=[a[k+('hgemm',)][0]/b[k+('hgemm',)][0] for k in ks]
    print('decode',r,f"ref vs lt {gm(ra):.3f}  new vs lt {gm(rb):.3f}  ref time/new time {gm(rt):.3f} min {min(rt):.3f} max {max(rt):.3f}")
