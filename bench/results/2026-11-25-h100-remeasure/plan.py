import sys,json,gzip,collections,re
acc=sys.argv[1]; topk=int(sys.argv[2])
recs=collections.defaultdict(lambda: collections.defaultdict(list))
ts=collections.defaultdict(str)
for l in gzip.open(f'data/tuned/nvidia-h100-80gb-hbm3-{acc}.jsonl.gz','rt'):
  r=json.loads(l)
  if r.get('type')!='measurement' or r['disposition']!='passed': continue
  recs[(r['m'],r['n'],r['k'],r['layout'])][r['config']].append(r['median_us'])
def tile(c):
  m=re.match(r'sm90_(?:ws|pp)_(\d+)x(\d+)x',c)
  return (int(m.group(1)),int(m.group(2))) if m else None
plan={}
for s,cs in recs.items():
  M,N,K,lay=s
  best=sorted(cs,key=lambda c:min(cs[c]))[:topk]
  aff=[]
  for c in best:
    t=tile(c)
    if not t: continue
    bm,bn=t
    resid = M%bm!=0 or N%bn!=0
    tail = lay=='nn' and '_swap' not in c and bn in (96,160)
    if resid or tail: aff.append(c)
  if aff:
    # a shape whose remeasured candidates include any of the top: remeasure the whole top-k so they compare
    plan[s]=[c for c in best if tile(c)]
print(len(recs), len(plan), sum(len(v) for v in plan.values()), file=sys.stderr)
for s,cs in sorted(plan.items()):
  print(f"{s[0]}x{s[1]}x{s[2]} {s[3]} {','.join(cs)}")
