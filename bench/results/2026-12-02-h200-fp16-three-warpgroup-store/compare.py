#!/usr/bin/env python3
"""Prints README.md's figures from f16-{ref,new}-{1,2}.csv.gz: per call, new speed over ref
normalized by cublaslt-best in each process (hgemm / cublaslt-best of ref over that of new), then
geomeans over the calls whose pick is a three-warpgroup tile (_w3_) and over the rest."""
import csv, gzip, math


def load(f):
    d = {}
    for r in csv.DictReader(l for l in gzip.open(f, 'rt') if l[0] != '#'):
        d[(int(r['m']), int(r['n']), int(r['k']), r['layout'], r['impl'])] = (float(r['ms']),
                                                                              r['detail'])
    return d


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


per = {}
for rnd in (1, 2):
    ref, new = load(f'f16-ref-{rnd}.csv.gz'), load(f'f16-new-{rnd}.csv.gz')
    for k in ref:
        if k[4] != 'hgemm':
            continue
        c = k[:4] + ('cublaslt-best',)
        assert ref[k][1] == new[k][1], f'pick changed at {k}'
        per.setdefault(k[:4], (ref[k][1], []))[1].append(
            (ref[k][0] / ref[c][0]) / (new[k][0] / new[c][0]))
groups = {'three warpgroups': [], 'others': []}
for k, (pick, xs) in sorted(per.items()):
    print(*k, ' '.join(f'{x:.3f}' for x in xs), pick.split(',')[0])
    groups['three warpgroups' if '_w3_' in pick else 'others'].append(gm(xs))
for name, xs in groups.items():
    print(f'{name}: {len(xs)} calls, new over ref {gm(xs):.3f}')
