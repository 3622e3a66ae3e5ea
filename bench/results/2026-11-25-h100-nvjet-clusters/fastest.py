import csv,sys,collections,statistics
rows=list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
h=rows[0]; ki=h.index('Kernel Name'); mi=h.index('Metric Name'); vi=h.index('Metric Value'); ii=h.index('ID')
t=collections.defaultdict(list)
for r in rows[1:]:
    if r[mi]=='gpu__time_duration.sum': t[r[ki]].append(float(r[vi].replace(',','')))
best=min(t, key=lambda k: statistics.median(t[k]))
for k,v in sorted(t.items(), key=lambda kv: statistics.median(kv[1])):
    print(f'{statistics.median(v):10.0f} {len(v):4d} {k}', file=sys.stderr)
print(best)
