#!/usr/bin/env python3
"""python3 compare.py settled | fixed | ncu  (from this folder)

settled: column-major A's speed over the row-major call's, per build and round, by token group,
         and each impl's speed in the new build over main's (same round).
fixed:   the pool (off) against four fixed scratch buffers (on), one build: hgemm against
         cublaslt-best, column-major A against row-major, each impl's on/off speed, and the
         calls whose pick splits K.
ncu:     kernel durations (us) per file.
Every row read must have passed the verifier."""
import csv, glob, gzip, math, re, sys


def load(f, with_layout=True):
    d = {}
    for r in csv.DictReader(l for l in gzip.open(f, 'rt') if not l.startswith('#')):
        if r['mode'] != 'graph':
            continue
        if r['disposition'] != 'passed':
            sys.exit(f"{f}: {r['m']}x{r['n']}x{r['k']} {r['impl']}: {r['disposition']}")
        key = (int(r['m']), int(r['n']), int(r['k'])) + ((r['layout'],) if with_layout else ())
        d[key + (r['impl'],)] = (float(r['ms']), r['detail'].split(',')[0].split(' ')[0])
    return d


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')


GROUPS = [('M<=16', 1, 16), ('17-256', 17, 256), ('>256', 257, 10**9)]


def settled():
    for suite in ['llm-heldout', 'llm-fresh']:
        for r in '123':
            dd = {s: load(f'settled/{suite}-acol-{s}-{r}.csv.gz') for s in ['ref', 'new']}
            for side, d in dd.items():
                out = []
                for lay in ['tn', 'nn']:
                    ks = sorted({k[:3] for k in d if k[3] == lay})
                    rat = {k: d[k + (lay, 'hgemm')][0] / d[k + (lay, 'hgemm-acol')][0] for k in ks}
                    g = ' '.join(f"{n} {gm([v for k, v in rat.items() if lo <= k[0] <= hi]):.3f}"
                                 for n, lo, hi in GROUPS)
                    out.append(f"{lay}: all {gm(list(rat.values())):.3f} [{g}]")
                print(suite, side, r, ' | '.join(out))
            a, b = dd['ref'], dd['new']
            print('   new/ref speed: ' + '  '.join(
                f"{impl} {gm([a[k][0] / b[k][0] for k in a if k[4] == impl]):.3f}"
                for impl in ['hgemm', 'hgemm-acol']))


def fixed():
    splits = re.compile(r'_sk(0|[2-9])_')
    for suite in ['llm-fresh', 'llm-heldout']:
        for r in '12':
            dd = {s: load(f'fixed-scratch/{suite}-{s}-{r}.csv.gz', False) for s in ['off', 'on']}
            for s, d in dd.items():
                ks = sorted({k[:3] for k in d})
                lt = gm([d[k + ('cublaslt-best',)][0] / d[k + ('hgemm',)][0] for k in ks])
                ac = [d[k + ('hgemm',)][0] / d[k + ('hgemm-acol',)][0] for k in ks if 2 <= k[0] <= 256]
                print(suite, r, s, f'cublaslt-best/hgemm {lt:.3f}  acol/row-major 2-256 {gm(ac):.3f} ({len(ac)})')
            a, b = dd['off'], dd['on']
            ks = sorted({k[:3] for k in a})
            sp = [k for k in ks if splits.search(a[k + ('hgemm',)][1])]
            for impl in ['hgemm', 'hgemm-acol', 'cublaslt-best']:
                print(f"   {impl} on/off speed {gm([a[k + (impl,)][0] / b[k + (impl,)][0] for k in ks]):.3f}"
                      f"  split picks {gm([a[k + (impl,)][0] / b[k + (impl,)][0] for k in sp]):.3f} ({len(sp)})")


def ncu():
    for f in sorted(glob.glob('ncu/ncu-*.txt.gz')):
        times = {}
        name = None
        for line in gzip.open(f, 'rt'):
            m = re.match(r'\s+(\S.*?(transpose_rows_kernel|transpose_kernel|sm90_ws_gemm_kernel))', line)
            if m:
                name = m.group(2)
            m = re.search(r'gpu__time_duration.sum\s+\S+\s+([\d.]+)', line)
            if m and name:
                times.setdefault(name, []).append(float(m.group(1)))
        print(f[8:-7], '  '.join(f"{n} {sorted(v)[len(v) // 2]:.2f}" for n, v in times.items()))


{'settled': settled, 'fixed': fixed, 'ncu': ncu}[sys.argv[1] if len(sys.argv) > 1 else 'settled']()
