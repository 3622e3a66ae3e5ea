#!/usr/bin/env python3
"""Prints this folder's figures: per call (graph mode, geomean of three rounds) the new pick's
speed over the old one and both against cublaslt-best, then geomeans.

    compare.py unbounded   every call the unbounded rule changed (narrowall.txt), and the subsets
                           the bound keeps and drops
    compare.py bounded     the calls the bounded rule changes on shapes measured first here
    compare.py gap         the bound's gap, K = 20480 and 24576 with 80- and 104-wide tiles: the
                           unsplit tile's speed over the split pick's, one round
"""
import collections
import csv
import glob
import gzip
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The rule's bound (dispatch.cpp, narrow_unsplit_tile): tiles over 48 tokens wide keep the
# split where K > 16384.
WIDE, LONG_K = 48, 16384


def geo(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def load(folder, listing):
    times = collections.defaultdict(lambda: collections.defaultdict(list))
    for p in glob.glob(os.path.join(HERE, folder, "v", "v-*.csv.gz")):
        _, _, m, n, k, lay, acc = os.path.basename(p)[:-7].split("-")
        with gzip.open(p, "rt") as f:
            for r in csv.DictReader(l for l in f if not l.startswith("#")):
                assert r["disposition"] == "passed", r
                times[(int(m), int(n), int(k), lay, acc, r["mode"])][
                    r["impl"].split(":")[0]].append(float(r["ms"]))
    calls = []
    with open(os.path.join(HERE, folder, listing)) as f:
        for line in f:
            m, n, k, lay, acc, new, _ = line.split()
            key = (int(m), int(n), int(k), lay, acc)
            g, lat = times[key + ("graph",)], times[key + ("latency",)]
            assert len(g["hgemm"]) == 3, key
            calls.append(dict(
                key=key, width=int(new.split("_")[2].split("x")[0]),
                speedup=geo([o / h for h, o in zip(g["hgemm"], g["config"])]),
                latency=geo([o / h for h, o in zip(lat["hgemm"], lat["config"])]),
                old=geo([lt / o for o, lt in zip(g["config"], g["cublaslt-best"])]),
                new=geo([lt / h for h, lt in zip(g["hgemm"], g["cublaslt-best"])])))
    return calls


def summary(name, calls):
    if not calls:
        return
    s = [c["speedup"] for c in calls]
    print(f"{name}: {len(calls)} calls, new over old {geo(s):.3f} (min {min(s):.3f}, "
          f"{sum(x < 0.98 for x in s)} below 0.98), latency {geo([c['latency'] for c in calls]):.3f}")


def gap():
    speed = collections.defaultdict(list)
    with open(os.path.join(HERE, "gap", "gap-changed.txt")) as f:
        for line in f:
            m, n, k, lay, acc, new, old = line.split()
            with gzip.open(os.path.join(HERE, "gap", "v", f"g-{m}-{n}-{k}-{lay}-{acc}.csv.gz"),
                           "rt") as g:
                t = {r["impl"]: float(r["ms"]) for r in csv.DictReader(
                    l for l in g if not l.startswith("#")) if r["disposition"] == "passed"}
            s = t["config:" + old] / t["config:" + new]
            width = int(new.split("_")[2].split("x")[0])
            print(f"{m}x{n}x{k} {lay} {acc} width {width}: unsplit over split {s:.3f}")
            speed[(int(k), width)].append(s)
    every = [x for v in speed.values() for x in v]
    for (k, width), v in sorted(speed.items()):
        print(f"K {k}, width {width}: {len(v)} calls, {geo(v):.3f} (min {min(v):.3f})")
    print(f"all: {len(every)} calls, {geo(every):.3f}")


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "bounded"
    if which == "gap":
        return gap()
    calls = load(which, "narrowall.txt" if which == "unbounded" else "val-changed.txt")
    for c in sorted(calls, key=lambda c: (c["key"][2], c["key"][0], c["key"][1])):
        print("%dx%dx%d %s %s" % c["key"], f"width {c['width']}: new over old {c['speedup']:.3f}; "
              f"vs cublaslt-best {c['old']:.3f} -> {c['new']:.3f}")
    summary("all", calls)
    if which == "unbounded":
        with open(os.path.join(HERE, which, "oos-changed.txt")) as f:
            fresh = {tuple(l.split()[:5]) for l in f}
        kept = [c for c in calls if c["width"] <= WIDE or c["key"][2] <= LONG_K]
        summary("kept by the bound", kept)
        summary("dropped by the bound", [c for c in calls if c not in kept])
        summary("K <= 16384", [c for c in calls if c["key"][2] <= LONG_K])
        summary("K > 16384, width <= 48", [c for c in calls if c["key"][2] > LONG_K and c["width"] <= WIDE])
        summary("44-88 tokens (on no list)", [c for c in calls if tuple(map(str, c["key"])) in fresh])


main()
