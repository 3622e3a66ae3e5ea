#!/usr/bin/env python3
"""Prints every figure of README.md from the files beside it.

python3 compare.py prefill|fresh16

prefill: dispatch and each probed config against cublaslt-best. fresh16: llm-fresh with fp16
accumulation against cublaslt-best. Every row must have passed the verifier. The A/B in ab/:
scripts/ab-compare ab --impl hgemm-acol --baseline hgemm --picks.
"""
import csv
import gzip
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load(path):
    t, detail = {}, {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] != "passed":
                sys.exit(f"{path}: {r['m']}x{r['n']}x{r['k']} {r['impl']} {r['disposition']}")
            key = (int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"])
            t[key] = float(r["ms"])
            detail[key] = r["detail"].split(",")[0].split(" (")[0]
    return t, detail


def prefill():
    t, detail = load(os.path.join(HERE, "prefill-probe/prefill-f32.csv.gz"))
    shapes = sorted({k[:3] for k in t})
    impls = sorted({k[4] for k in t} - {"cublaslt-best"})
    ratio = lambda s, i: t[s + ("tn", "cublaslt-best")] / t[s + ("tn", i)]
    print(f"TN f32, {len(shapes)} shapes, against cublaslt-best")
    print(f"    dispatch {geomean([ratio(s, 'hgemm') for s in shapes]):.3f}, the best probed config "
          f"per shape {geomean([max(ratio(s, i) for i in impls) for s in shapes]):.3f}")
    wins = {}
    for s in shapes:
        best = max(impls, key=lambda i: ratio(s, i))
        wins[best] = wins.get(best, 0) + 1
        print(f"    {s[0]}x{s[1]}x{s[2]}: dispatch {ratio(s, 'hgemm'):.3f} "
              f"({detail[s + ('tn', 'hgemm')].replace('sm90_ws_', '')}), best {ratio(s, best):.3f} "
              f"({best.replace('config:sm90_ws_', '')})")
    print("    wins per config:", ", ".join(f"{k.replace('config:sm90_ws_', '')} {v}"
                                           for k, v in sorted(wins.items(), key=lambda x: -x[1])))


def fresh16():
    t, _ = load(os.path.join(HERE, "fresh-f16/fresh-f16.csv.gz"))
    shapes = sorted({k[:3] for k in t})
    def ratio(s, layout=None):
        layouts = (layout,) if layout else ("tn", "nn")
        return (min(t[s + (l, "cublaslt-best")] for l in layouts) /
                min(t[s + (l, "hgemm")] for l in layouts))
    groups = [("all", lambda m: True), ("M <= 16", lambda m: m <= 16),
              ("17-128", lambda m: 16 < m <= 128), ("129-400", lambda m: 128 < m <= 400),
              ("401-1023", lambda m: 400 < m < 1024), (">= 1024", lambda m: m >= 1024)]
    for name, pred in groups:
        ss = [s for s in shapes if pred(s[0])]
        print(f"    {name} ({len(ss)}): faster layout {geomean([ratio(s) for s in ss]):.3f}, "
              f"TN {geomean([ratio(s, 'tn') for s in ss]):.3f}, "
              f"NN {geomean([ratio(s, 'nn') for s in ss]):.3f}")


if __name__ == "__main__":
    {"prefill": prefill, "fresh16": fresh16}[sys.argv[1] if len(sys.argv) > 1 else "prefill"]()
