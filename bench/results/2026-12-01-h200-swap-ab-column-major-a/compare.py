#!/usr/bin/env python3
"""Prints the figures of README.md from the CSVs: run in sixteen-column-chunks/ or landed/.
Per suite and round, the row-major call's speed over the column-major one (hgemm / hgemm-acol,
graph mode, same binary and run) for main (ref) and the change (new), by token group; then, over
the calls whose column-major pick changed (explain-ref.txt against explain-new.txt), the change's
speed over main's per config, normalized by the row-major control of the same runs."""
import collections, csv, gzip, math, re, sys

SUITES = ['llm-heldout', 'llm-fresh', 'acol-dw', 'acol-changed-llm']


def load(f):
    d = {}
    for line in gzip.open(f, 'rt'):
        if line[0] == '#' or line.startswith('m,'):
            continue
        r = next(csv.reader([line]))
        d[(int(r[0]), int(r[1]), int(r[2]), r[3], r[5])] = float(r[8])
    return d


def explained(f):
    e = {}
    for line in open(f):
        p = line.split()
        if len(p) >= 7 and p[0].isdigit():
            e[(int(p[0]), int(p[1]), int(p[2]), p[3])] = (p[5], ' '.join(p[6:]))
    return e


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


def group(m):
    return '<=16' if m <= 16 else '17-256' if m <= 256 else '257-1023' if m < 1024 else '>=1024'


new_pick, ref_pick = explained('explain-new.txt'), explained('explain-ref.txt')
by_config = collections.defaultdict(list)
for suite in SUITES:
    D = {(s, r): load(f'{suite}-{s}-{r}.csv.gz') for s in ('ref', 'new') for r in (1, 2)}
    keys = sorted(k for k in D[('ref', 1)] if k[4] == 'hgemm-acol')
    print(f'== {suite}: {len(keys)} column-major calls')
    for r in (1, 2):
        row = lambda side, k: D[(side, r)][k[:4] + ('hgemm',)]
        control = gm([row('ref', k) / row('new', k) for k in keys])
        g = collections.defaultdict(lambda: ([], []))
        for k in keys:
            for name in (group(k[0]), 'all'):
                g[name][0].append(row('ref', k) / D[('ref', r)][k])
                g[name][1].append(row('new', k) / D[('new', r)][k])
        print(f'  round {r}: row-major ref/new {control:.3f}; row-major over column-major, '
              'ref -> new: ' + ', '.join(f'{n} ({len(v[0])}) {gm(v[0]):.3f} -> {gm(v[1]):.3f}'
                                         for n, v in sorted(g.items())))
    for k in keys:
        if new_pick.get(k[:4]) == ref_pick.get(k[:4]):
            continue
        gain = math.sqrt(math.prod(
            D[('ref', r)][k] / D[('new', r)][k] /
            (D[('ref', r)][k[:4] + ('hgemm',)] / D[('new', r)][k[:4] + ('hgemm',)])
            for r in (1, 2)))
        m = re.search(r'sm90_ws_(\d+x\d+)x64_s\d+_c\dx\d_w(\d)_\w+?_(st|tma)_', new_pick[k[:4]][0])
        config = f'{m.group(1)} w{m.group(2)} {m.group(3)}' if m else new_pick[k[:4]][0]
        by_config[(config, 'M <= 256' if k[0] <= 256 else 'M > 256')].append(gain)
print('== calls whose column-major pick changed: new over ref speed, by new pick')
for (config, where), v in sorted(by_config.items(), key=lambda x: gm(x[1])):
    print(f'  {config:<20} {where:<9} {len(v):3d} calls  {gm(v):.3f} ({min(v):.2f}-{max(v):.2f})')
allv = [x for v in by_config.values() for x in v]
print(f'  all {len(allv)} changed calls: {gm(allv):.3f}')
