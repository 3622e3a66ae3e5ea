#!/usr/bin/env python3
"""python3 compare.py (from this folder): per round, each impl's speed in the new build over main's
(the same call, graph mode), overall, under 20 us and by token group; cublaslt-best runs the same
calls in both builds, so its ratio is the control (clock state between the two processes); then
cublaslt-best over hgemm, each side in its faster layout. Every row must have passed the
verifier."""
import csv, gzip, math, sys

GROUPS = [('<=16', 1, 16), ('17-128', 17, 128), ('129-400', 129, 400), ('401-1023', 401, 1023),
          ('>=1024', 1024, 10**9)]


def load(f):
    d = {}
    for r in csv.DictReader(l for l in gzip.open(f, 'rt') if not l.startswith('#')):
        if r['mode'] != 'graph':
            continue
        if r['disposition'] != 'passed':
            sys.exit(f"{f}: {r['m']}x{r['n']}x{r['k']} {r['impl']}: {r['disposition']}")
        d[(int(r['m']), int(r['n']), int(r['k']), r['layout'], r['impl'])] = (
            float(r['ms']), r['detail'].split(',')[0].split(' ')[0])
    return d


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


for r in '12':
    a, b = load(f'llm-fresh-ref-{r}.csv.gz'), load(f'llm-fresh-new-{r}.csv.gz')
    calls = sorted({k[:4] for k in a})
    for impl in ['hgemm', 'cublaslt-best']:
        speed = {k: a[k + (impl,)][0] / b[k + (impl,)][0] for k in calls}
        short = [v for k, v in speed.items() if a[k + (impl,)][0] < 0.02]
        groups = ' '.join(f"{n} {gm([v for k, v in speed.items() if lo <= k[0] <= hi]):.3f}"
                          for n, lo, hi in GROUPS)
        print(f"round {r} {impl:13s} new/ref {gm(list(speed.values())):.3f}  "
              f"under 20 us {gm(short):.3f} ({len(short)})  {groups}")
    for side, d in [('ref', a), ('new', b)]:
        shapes = sorted({k[:3] for k in d})
        best = lambda s, impl: min(d[s + (l, impl)][0] for l in ['tn', 'nn'])
        print(f"   {side}: cublaslt-best / hgemm, faster layouts, "
              f"{gm([best(s, 'cublaslt-best') / best(s, 'hgemm') for s in shapes]):.3f}")
    print('   hgemm picks that differ between the builds:',
          sum(a[k + ('hgemm',)][1] != b[k + ('hgemm',)][1] for k in calls))
