#!/usr/bin/env python3
"""python3 compare.py (from this folder): the probe (probe/: the decode rule's swap-AB tile from one
token in TN, every split, against main's decode kernels below 12 tokens) by token count and by the
tile's split; then the validation (validate/: the rule as landed, the tile only where unsplit)
on llm-fresh and llm-heldout at 16 tokens or fewer, in fp32, and the same in fp16 accumulation
(validate-f16/). Each build's calls alternate with main's in
one device call; cublaslt-best runs in both and is the control. Every row passed the verifier."""
import collections
import csv
import gzip
import math
import sys


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


def split_of(name):
    return next(int(f[2:]) for f in name.split('_') if f.startswith('sk'))


print('probe: new (tile from 1 token) over main, hgemm calls whose pick changed, two rounds')
for suite in ['tn-decode-probe', 'fresh-small']:
    by = collections.defaultdict(list)
    for rnd in '12':
        ref = load(f'probe/ab-run-{suite}-ref-{rnd}-f32.csv.gz')
        new = load(f'probe/ab-run-{suite}-new-{rnd}-f32.csv.gz')
        calls = sorted({k[:4] for k in ref})
        ctrl = gm([ref[c + ('cublaslt-best',)][0] / new[c + ('cublaslt-best',)][0] for c in calls])
        for c in calls:
            a, b = ref[c + ('hgemm',)], new[c + ('hgemm',)]
            if a[1] == b[1]:
                continue
            sp = a[0] / b[0]
            by[(rnd, 'M', c[0])].append(sp)
            by[(rnd, 'split', split_of(b[1]) > 1)].append(sp)
            by[(rnd, 'all', '')].append(sp)
        print(f"  {suite} round {rnd}: control {ctrl:.3f}; changed {len(by[(rnd, 'all', '')])} "
              f"{gm(by[(rnd, 'all', '')]):.3f}; unsplit tile {gm(by[(rnd, 'split', False)]):.3f} "
              f"({len(by[(rnd, 'split', False)])}), split tile {gm(by[(rnd, 'split', True)]):.3f} "
              f"({len(by[(rnd, 'split', True)])}, {min(by[(rnd, 'split', True)]):.2f}-"
              f"{max(by[(rnd, 'split', True)]):.2f})")
        print('    by M: ' + ' '.join(f"{k[2]}: {gm(v):.3f}" for k, v in sorted(by.items())
                                     if k[0] == rnd and k[1] == 'M'))

print('validate: the rule as landed over main; cublaslt-best over hgemm (TN; each side in its '
      'faster layout); hgemm-acol over hgemm (TN)')
for folder, acc, suite in [(f, a, s) for f, a in [('validate', ''), ('validate-f16', '-f16')]
                           for s in ['fresh-small', 'heldout-small']]:
    for rnd in '12':
        ref = load(f'{folder}/{suite}{acc}-ref-{rnd}.csv.gz')
        new = load(f'{folder}/{suite}{acc}-new-{rnd}.csv.gz')
        calls = sorted({k[:4] for k in ref})
        shapes = sorted({k[:3] for k in ref})
        parts = []
        for impl in ['cublaslt-best', 'hgemm', 'hgemm-acol']:
            ch = [ref[c + (impl,)][0] / new[c + (impl,)][0] for c in calls
                  if ref[c + (impl,)][1] != new[c + (impl,)][1]]
            # cuBLASLt's detail column names its compute type first, not its pick.
            changed = "" if impl == 'cublaslt-best' else (
                f" (changed {len(ch)}: {gm(ch):.3f})" if ch else " (no pick changed)")
            parts.append(f"{impl} {gm([ref[c + (impl,)][0] / new[c + (impl,)][0] for c in calls]):.3f}"
                         f"{changed}")
        print(f"  {folder}: {suite} round {rnd}, new/ref: " + ', '.join(parts))
        for side, d in [('main', ref), ('new', new)]:
            best = lambda s, impl: min(d[s + (l, impl)][0] for l in ['tn', 'nn'])
            tn = gm([d[s + ('tn', 'cublaslt-best')][0] / d[s + ('tn', 'hgemm')][0] for s in shapes])
            fast = gm([best(s, 'cublaslt-best') / best(s, 'hgemm') for s in shapes])
            acol = gm([d[s + ('tn', 'hgemm')][0] / d[s + ('tn', 'hgemm-acol')][0] for s in shapes])
            print(f"    {side:4s}: cublaslt-best / hgemm TN {tn:.3f}, faster layouts {fast:.3f}; "
                  f"hgemm-acol / hgemm TN {acol:.3f}")
