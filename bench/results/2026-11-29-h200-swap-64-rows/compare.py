#!/usr/bin/env python3
"""The 64-row swap tiles for small M (bench/results/2026-11-29-h200-swap-64-rows), every figure
the README quotes: geomeans of cublaslt-best / X.
  python3 compare.py probe   the tiles and splits on llm-tune's 42 (N, K) pairs (probe/)
  python3 compare.py ab      main (ref) against the 64-row rule (new), round by round (ab/)
  python3 compare.py final   main (ref) against the landed rule, 64 or 128 rows (final/)
  python3 compare.py tests   M 9-11 in TN: the decode kernels against the 16x64 tile (tests/)
"""
import collections, csv, glob, gzip, math, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132


def stream_split(m, n, k, rows=64, splits=(1, 2)):
    """The 64-row rule's stream model (97bd691, the ab/ and tests/ runs) over splits 1 and 2."""
    best = None
    for sp in splits:
        if sp != 1 and k // sp < 2048:
            continue
        ctas = math.ceil(n / rows) * sp
        waves = math.ceil(ctas / SMS)
        per = math.ceil(math.ceil(k / 64) / sp)
        t = max(n * k / 64, waves * rows * per * 64) * (1.03 if sp > 1 else 1)
        if best is None or t < best[0] * (1 - 1e-9):
            best = (t, sp)
    return best[1]

def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')

def load(fn):
    t = collections.defaultdict(dict)
    for r in csv.DictReader(l for l in gzip.open(fn, 'rt') if not l.startswith('#')):
        if r['disposition'] != 'passed':
            continue
        t[(int(r['m']), int(r['n']), int(r['k']), r['mode'])][(r['impl'], r['layout'])] = float(r['ms'])
    return t

def ratios(t, lay, pick):
    out = collections.defaultdict(list)
    for (m, n, k, mode), d in t.items():
        g = pick(m)
        if g is None:
            continue
        if lay == 'faster':
            h = [v for (i, l), v in d.items() if i == 'hgemm']
            c = [v for (i, l), v in d.items() if i == 'cublaslt-best']
            if len(h) == 2 and len(c) == 2:
                out[(g, mode)].append(min(c) / min(h))
        elif ('hgemm', lay) in d and ('cublaslt-best', lay) in d:
            out[(g, mode)].append(d[('cublaslt-best', lay)] / d[('hgemm', lay)])
    return out

def table(d, prefix, lays, pick, accs=('f32', 'f16')):
    for acc in accs:
        for lay in lays:
            rows = collections.defaultdict(dict)
            for side in ('ref', 'new'):
                for fn in sorted(glob.glob(os.path.join(d, f'{prefix}-{side}-*-{acc}.csv.gz'))):
                    rnd = fn.split('-')[-2]
                    for key, v in ratios(load(fn), lay, pick).items():
                        rows[key][(side, rnd)] = (gm(v), len(v))
            for key in sorted(rows):
                r = rows[key]
                cells = ' '.join(f'{s}{n} {r[(s, n)][0]:.3f}' for (s, n) in sorted(r, key=lambda x: (x[0] != 'ref', x[1])))
                n = next(iter(r.values()))[1]
                print(f'{prefix:12s} {acc} {lay:6s} {key[0]:10s} {key[1]:8s} n={n:3d}  {cells}')

def ab(sub="ab"):
    d = os.path.join(HERE, sub)
    table(d, 'val16', ('tn', 'nn'), lambda m: 'M 9-11' if m <= 11 else 'M 13-16')
    table(d, 'val8', ('nn',), lambda m: 'M 1-8')
    group = lambda m: 'M<=8' if m <= 8 else 'M 9-16' if m <= 16 else 'M>16'
    for s in ('ab-llm-fresh', 'ab-llm-heldout'):
        table(d, s, ('tn', 'nn', 'faster'), group, accs=('f32',))
        table(d, s, ('tn', 'nn', 'faster'), lambda m: 'all', accs=('f32',))
    for s in ('ab-llm-fresh', 'ab-llm-heldout'):
        table(d, s, ('tn', 'nn', 'faster'), lambda m: 'M<=16' if m <= 16 else None, accs=('f32',))
    # The oracle: the 16x64 tile split 1 and 2 against dispatch on val16 TN (M 9-11 stay on decode).
    fn = os.path.join(d, 'oracle-f32.csv.gz')
    if not os.path.exists(fn):
        return
    rows = collections.defaultdict(list)
    for (m, n, k, mode), dd in load(fn).items():
        c = dd[('cublaslt-best', 'tn')]
        tiles = {i: v for (i, l), v in dd.items() if i.startswith('config:')}
        model = tiles[f'config:sm90_ws_16x64x64_s12_c1x1_w2_m8_st_sk{stream_split(m, n, k)}_f32_tn_swap']
        g = f'M {m}' if m <= 11 else 'M 13-16'
        rows[g].append((c / dd[('hgemm', 'tn')], c / min(tiles.values()), c / model))
    for g, v in sorted(rows.items()):
        print(f'oracle f32 tn {g}: dispatch {gm([a for a, b, x in v]):.3f}, 16x64 best of split 1-2 '
              f'{gm([b for a, b, x in v]):.3f}, by the stream model {gm([x for a, b, x in v]):.3f} (n={len(v)})')


def wave_pick(m, n, k, small, wide, wide_splits):
    """The landed rule (small_m_swap_tile at 9d5c2e1): waves in turn, each max(c / 64, 1) x rows
    x K per split; 3% for a split, the 128-row tile 5% more; ties to fewer splits, then 64 rows."""
    best = None
    for rows, name, splits in ((64, small, (1, 2)), (128, wide, wide_splits)):
        for sp in splits:
            if sp != 1 and k // sp < 2048:
                continue
            ctas = math.ceil(n / rows) * sp
            waves = math.ceil(ctas / SMS)
            ks = math.ceil(math.ceil(k / 64) / sp) * 64
            last = ctas - (waves - 1) * SMS
            t = ((waves - 1) * max(SMS / 64, 1) + max(last / 64, 1)) * rows * ks
            t *= (1.03 if sp > 1 else 1) * (1.05 if rows == 128 else 1)
            key = (sp, rows)
            if best is None or t < best[0] * (1 - 1e-9) or (t <= best[0] * (1 + 1e-9) and key < best[2]):
                best = (t, f'{name}_sk{sp}', key)
    return best[1]


def short(impl):
    s = impl.replace('config:sm90_ws_', '')
    for cut in ('_c1x1', '_m8_st', '_f32', '_swap', '_tn', '_nn'):
        s = s.replace(cut, '')
    return re.sub(r'x64_s1[02]', '', s)


def probe():
    for fn in sorted(glob.glob(os.path.join(HERE, 'probe', '*.csv.gz'))):
        t = collections.defaultdict(dict)
        for r in csv.DictReader(l for l in gzip.open(fn, 'rt') if not l.startswith('#')):
            if r['disposition'] == 'passed':
                t[(int(r['m']), int(r['n']), int(r['k']))][short(r['impl'])] = float(r['ms'])
        tiles = sorted({i.rsplit('_sk', 1)[0] for d in t.values() for i in d if '_sk' in i})
        rule = '8x64_w2' if 'm8-' in fn else '16x64_w2'
        for m in sorted({s[0] for s in t}):
            sh = [s for s in t if s[0] == m]
            c = lambda s: t[s]['cublaslt-best']
            cells = [f"dispatch {gm([c(s) / t[s]['hgemm'] for s in sh]):.3f}"]
            for tl in tiles:
                best = gm([c(s) / min(v for i, v in t[s].items() if i.startswith(tl + '_sk')) for s in sh])
                cells.append(f'{tl} {best:.3f}')
            model = gm([c(s) / t[s][f'{rule}_sk{stream_split(*s)}'] for s in sh])
            cells.append(f'{rule} by the stream model {model:.3f}')
            wide = (1, 2) if m > 8 else (1,)
            landed = gm([c(s) / t[s][wave_pick(*s, rule, '16x128_w1', wide)] for s in sh])
            cells.append(f'landed rule {landed:.3f}')
            print(f'{os.path.basename(fn):14s} M={m:2d} n={len(sh)}: ' + ', '.join(cells))


def tests():
    t = collections.defaultdict(dict)
    fn = os.path.join(HERE, 'tests', 'compare-m9-11-f32.csv.gz')
    for r in csv.DictReader(l for l in gzip.open(fn, 'rt') if not l.startswith('#')):
        t[(int(r['m']), int(r['n']), int(r['k']))][r['impl']] = float(r['ms'])
    for m in sorted({s[0] for s in t}):
        sh = [s for s in t if s[0] == m]
        dec = gm([t[s]['cublaslt-best'] / t[s]['hgemm'] for s in sh])
        tile = gm([t[s]['cublaslt-best'] /
                   t[s][f'config:sm90_ws_16x64x64_s12_c1x1_w2_m8_st_sk{stream_split(*s)}_f32_tn_swap']
                   for s in sh])
        print(f'TN M={m} n={len(sh)}: decode kernels {dec:.3f}, 16x64 tile by the 64-row rule\'s split {tile:.3f}')


{'probe': probe, 'ab': ab, 'final': lambda: ab('final'), 'tests': tests}[sys.argv[1] if len(sys.argv) > 1 else 'ab']()
