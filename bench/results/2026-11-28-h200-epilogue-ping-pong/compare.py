import csv,gzip,sys,math
D=sys.argv[1]  # run-1 or run-2
def load(t,e,r):
    d={}
    for x in csv.DictReader(l for l in gzip.open(f'{D}/epi-{t}-{e}-{r}.csv.gz','rt') if not l.startswith('#')):
        if x['disposition']=='passed': d[(x['m'],x['n'],x['k'],x['impl'])]=(float(x['ms']),x['detail'].split(' ')[0])
    return d
R={(t,e,r):load(t,e,r) for t in ('dispatch','pp') for e in ('none','bias_gelu') for r in (1,2)}
m=lambda t,e,k: sum(R[(t,e,r)][k][0] for r in (1,2))/2
shapes=sorted({k[:3] for k in R[('dispatch','none',1)]}, key=lambda s:(int(s[2]),int(s[0])*int(s[1])))
G={}
print(f"{'shape':18s} {'disp bg/plain':>13s} {'pp bg/plain':>12s} {'pp bg/disp plain':>16s} {'pp/disp bg':>10s} {'pp/disp plain':>13s} {'lt bg/plain':>11s} {'hg/lt bg disp':>13s} {'hg/lt bg pp':>11s}  dispatch tile")
for s in shapes:
    h=s+('hgemm',); c=s+('cublaslt-best',)
    v=dict(d=m('dispatch','bias_gelu',h)/m('dispatch','none',h), p=m('pp','bias_gelu',h)/m('pp','none',h),
           pd=m('pp','bias_gelu',h)/m('dispatch','none',h), pb=m('pp','bias_gelu',h)/m('dispatch','bias_gelu',h),
           pn=m('pp','none',h)/m('dispatch','none',h), l=(m('dispatch','bias_gelu',c)+m('pp','bias_gelu',c))/(m('dispatch','none',c)+m('pp','none',c)),
           hd=m('dispatch','bias_gelu',c)/m('dispatch','bias_gelu',h), hp=m('pp','bias_gelu',c)/m('pp','bias_gelu',h))
    for k,x in v.items(): G.setdefault(k,[]).append(x)
    print(f"{'x'.join(s):18s} {v['d']:13.3f} {v['p']:12.3f} {v['pd']:16.3f} {v['pb']:10.3f} {v['pn']:13.3f} {v['l']:11.3f} {v['hd']:13.3f} {v['hp']:11.3f}  {R[('dispatch','none',1)][h][1]}")
g=lambda x: math.exp(sum(map(math.log,x))/len(x))
print('geomean', {k: round(g(x),3) for k,x in G.items()})
