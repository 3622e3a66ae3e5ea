#!/usr/bin/env python3
"""Run in this folder: the plain flavour for a column-major A against the general one (main),
same tiles, over acol-large.txt; prints each round's geomeans, then every call."""
import csv,gzip,math,sys,collections
def load(f):
    d={}
    for line in gzip.open(f,'rt'):
        if line[0]=='#' or line.startswith('m,'): continue
        r=next(csv.reader([line]))
        d[(int(r[0]),int(r[1]),int(r[2]),r[3],r[5])]=(float(r[8]),r[-1])
    return d
D={(s,r):load(f'acol-{s}-{r}.csv.gz') for s in ('ref','new') for r in (1,2)}
keys=sorted(k for k in D[('ref',1)] if k[4]=='hgemm-acol')
gm=lambda xs: math.exp(sum(map(math.log,xs))/len(xs))
for r in (1,2):
  ctl=[D[('ref',r)][k[:4]+('hgemm',)][0]/D[('new',r)][k[:4]+('hgemm',)][0] for k in keys]
  gain=[D[('ref',r)][k][0]/D[('new',r)][k][0] for k in keys]
  rel_ref=[D[('ref',r)][k[:4]+('hgemm',)][0]/D[('ref',r)][k][0] for k in keys]
  rel_new=[D[('new',r)][k[:4]+('hgemm',)][0]/D[('new',r)][k][0] for k in keys]
  print(f'round {r}: control (row-major ref/new) {gm(ctl):.3f}; acol ref/new {gm(gain):.3f}; row-major/acol speed ref {gm(rel_ref):.3f} new {gm(rel_new):.3f}')
print()
for k in keys:
  g=[D[('ref',r)][k][0]/D[('new',r)][k][0] for r in (1,2)]
  rn=[D[('new',r)][k[:4]+('hgemm',)][0]/D[('new',r)][k][0] for r in (1,2)]
  rr=[D[('ref',r)][k[:4]+('hgemm',)][0]/D[('ref',r)][k][0] for r in (1,2)]
  print('%5d %6d %6d %s gain %.3f %.3f  rel ref %.3f new %.3f  %s | %s'%(k[0],k[1],k[2],k[3],g[0],g[1],sum(rr)/2,sum(rn)/2,D[('new',1)][k][1][:48],D[('new',1)][k[:4]+('hgemm',)][1][:48]))
