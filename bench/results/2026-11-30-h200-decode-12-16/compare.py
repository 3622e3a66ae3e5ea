#!/usr/bin/env python3
"""Prints this folder's figures from its CSVs: `compare.py probe|validate|split`."""
import collections
import csv
import glob
import gzip
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(path):
    with gzip.open(path, "rt") as f:
        return list(csv.DictReader(l for l in f if not l.startswith("#")))


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def probe():
    # The decode rule's kernel at 12-15 tokens is its pick at 9 (its stream model counts 16 rows
    # of A from 9 tokens on): decode-rule-picks.txt is `hgemm explain` at M = 9.
    pick = {}
    for line in open(os.path.join(HERE, "probe", "decode-rule-picks.txt")):
        f = line.split()
        pick[(int(f[1]), int(f[2]), f[4])] = "config:" + f[5]
    for acc in ("f32", "f16"):
        d = collections.defaultdict(dict)
        for r in rows(os.path.join(HERE, "probe", f"decode-{acc}.csv.gz")):
            d[(int(r["m"]), int(r["n"]), int(r["k"]))][r["impl"]] = (float(r["ms"]), r["detail"])
        gains, changed = [], []
        for (m, n, k), v in sorted(d.items()):
            tile, detail = v["hgemm"]
            split = int(re.search(r"_sk(\d+)_", detail).group(1))
            rows_n = int(re.search(r"sm90_ws_\d+x(\d+)x", detail).group(1))
            ctas = math.ceil(n / rows_n) * split
            dec = v[pick[(n, k, acc)]][0]
            g = tile / dec if ctas < 64 else 1.0
            gains.append(g)
            if ctas < 64:
                changed.append(g)
        print(f"{acc}: {len(gains)} calls, {len(changed)} under 64 CTAs: the decode rule's kernel "
              f"{geo(changed):.3f}x the tile's speed there (min {min(changed):.3f}, max "
              f"{max(changed):.3f}); over all calls {geo(gains):.4f}")


def validate():
    d = collections.defaultdict(lambda: collections.defaultdict(list))
    for p in glob.glob(os.path.join(HERE, "validate", "v-*.csv.gz")):
        _, rnd, m, n, k, lay, acc = os.path.basename(p)[:-7].split("-")
        for r in rows(p):
            d[(int(m), int(n), int(k), acc, r["mode"])][r["impl"].split(":")[0]].append(float(r["ms"]))
    for mode in ("graph", "latency"):
        for key in sorted(k for k in d if k[4] == mode):
            v = d[key]
            s = [o / h for h, o in zip(v["hgemm"], v["config"])]
            print(mode, "%dx%dx%d %s" % key[:4], "decode over tile, per round:",
                  " ".join(f"{x:.3f}" for x in s))


def split():
    out = []
    for p in sorted(glob.glob(os.path.join(HERE, "split-probe", "s-*.csv.gz"))):
        t = {r["impl"]: (float(r["ms"]), r["detail"].split(",")[0]) for r in rows(p)
             if r["disposition"] == "passed"}
        alts = {i: v[0] for i, v in t.items() if i.startswith("config:")}
        if not alts:
            continue
        best = min(alts, key=alts.get)
        out.append((alts[best] / t["hgemm"][0], os.path.basename(p)[2:-7], t["hgemm"][1], best[7:]))
    out.sort()
    print(f"{len(out)} split picks: the best unsplit 64-row tile of about as many CTAs ran "
          f"{geo([o[0] for o in out]):.3f} of the pick's time; >= 3% faster in "
          f"{sum(o[0] < 0.97 for o in out)}, >= 3% slower in {sum(o[0] > 1.03 for o in out)}")
    for o in out:
        print(f"{o[0]:.3f} {o[1]} {o[2]} -> {o[3]}")


{"probe": probe, "validate": validate, "split": split}[sys.argv[1]]()
