#!/usr/bin/env python3
"""Prints the figures of README.md: per call, the change (new) over main (ref) in speed, raw and
normalized by cublaslt-best timed in the same process, both rounds; plain calls and bias + GELU."""
import gzip,csv,math,sys
def load(f):
    d={}; h=None
    for line in gzip.open(f,'rt'):
        if line[0]=='#': continue
        r=next(csv.reader([line]))
        if r[0]=='m': h=r; continue
        R=dict(zip(h,r))
        d[(int(R['m']),int(R['n']),int(R['k']),R['layout'],R['impl'])]=(float(R['ms']),R['detail'])
    return d
gm=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
for epi in ['none','bias_gelu']:
    print('==',epi)
    R=[load(f'{epi}-ref-{r}.csv.gz') for r in (1,2)]; N=[load(f'{epi}-new-{r}.csv.gz') for r in (1,2)]
    keys=sorted(k for k in R[0] if k[4]=='hgemm')
    three=[];ctrl=[]
    for k in keys:
        cb=k[:4]+('cublaslt-best',)
        raw=[R[i][k][0]/N[i][k][0] for i in (0,1)]
        norm=[(R[i][cb][0]/R[i][k][0])/(N[i][cb][0]/N[i][k][0]) for i in (0,1)]
        # norm: ref's speed vs cublas over new's: <1 means new faster
        g=1/math.sqrt(norm[0]*norm[1])
        vs=[N[i][cb][0]/N[i][k][0] for i in (0,1)]
        pick=N[0][k][1].split(',')[0]
        is3='_w3_' in pick and ('192x192' in pick or '208x192' in pick)
        (three if is3 else ctrl).append(g)
        print(f"{str(k[:4]):32s} new/ref raw {raw[0]:.3f} {raw[1]:.3f} normalized {g:.3f}  new vs cublas {vs[0]:.3f} {vs[1]:.3f}  {pick[:45]}")
    print(f"  three-wg calls {len(three)}: {gm(three):.3f} ({min(three):.3f}-{max(three):.3f}); controls {len(ctrl)}: {gm(ctrl):.3f}")
