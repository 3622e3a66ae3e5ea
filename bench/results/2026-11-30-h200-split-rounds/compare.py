#!/usr/bin/env python3
"""Prints this folder's figures from v/*.csv.gz: per call, the new pick's speedup over the old one
in each round (graph mode), both against cublaslt-best, and the geomeans."""
import collections
import csv
import glob
import gzip
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
# The split probe's shapes, which the rule was written from (the rest are out of sample).
PROBED = {(20, 4096, 7168), (20, 7168, 16384), (40, 8192, 28672), (20, 3584, 14336),
          (40, 5120, 13824), (40, 5120, 14336)}


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


d = collections.defaultdict(lambda: collections.defaultdict(list))
for p in glob.glob(os.path.join(HERE, "v", "v-*.csv.gz")):
    _, rnd, m, n, k, lay, acc = os.path.basename(p)[:-7].split("-")
    with gzip.open(p, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            assert r["disposition"] == "passed", r
            d[(int(m), int(n), int(k), lay, acc, r["mode"])][r["impl"].split(":")[0]].append(
                float(r["ms"]))
for mode in ("graph", "latency"):
    every, outside = [], []
    for key in sorted(k for k in d if k[5] == mode):
        v = d[key]
        s = geo([o / h for h, o in zip(v["hgemm"], v["config"])])
        every.append(s)
        if key[:3] not in PROBED:
            outside.append(s)
        if mode == "graph":
            old = geo([lt / o for o, lt in zip(v["config"], v["cublaslt-best"])])
            new = geo([lt / h for h, lt in zip(v["hgemm"], v["cublaslt-best"])])
            print("%dx%dx%d %s %s" % key[:5], f"new over old {s:.3f}; vs cublaslt-best "
                  f"{old:.3f} -> {new:.3f}", "(probed)" if key[:3] in PROBED else "")
    print(f"{mode}: {len(every)} calls, geomean {geo(every):.3f} (min {min(every):.3f}); "
          f"outside the probe {len(outside)}, {geo(outside):.3f}")
