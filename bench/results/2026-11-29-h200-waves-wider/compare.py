#!/usr/bin/env python3
"""Prints every figure of README.md from the files beside it.

python3 compare.py

The probes: per tile of the rule's class, its rate per tile slot (rounds x area x K x 2 over the
time, median over the shapes) and its geomean against cublaslt-best; dispatch and the best tile
per shape. Every row must have passed the verifier. The A/Bs in ab/ and ab-tiebreak/:
scripts/ab-compare FOLDER [--picks].
"""
import csv
import gzip
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load(path):
    t, pick = {}, {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] != "passed":
                sys.exit(f"{path}: {r['m']}x{r['n']}x{r['k']} {r['impl']} {r['disposition']}")
            key = (int(r["m"]), int(r["n"]), int(r["k"]), r["layout"])
            t.setdefault(key, {})[r["impl"]] = float(r["ms"])
            if r["impl"] == "hgemm":
                pick[key] = r["detail"].split(",")[0].replace("sm90_ws_", "")
    return t, pick


def rounds(impl, key):
    bm, bn, cm, cn = map(int, re.search(r"_(\d+)x(\d+)x64_s\d+_c(\d)x(\d)", impl).groups())
    tm = -(-(-(-key[0] // bm)) // cm) * cm
    tn = -(-(-(-key[1] // bn)) // cn) * cn
    return -(-tm * tn // SMS), bm * bn


def probes():
    for name in ("mid-tn-f32", "prefill-nn-f32"):
        t, _ = load(os.path.join(HERE, f"probes/{name}.csv.gz"))
        keys = sorted(t)
        ref = lambda k, i: t[k]["cublaslt-best"] / t[k][i]
        print(f"{name}: {len(keys)} shapes; dispatch {geomean([ref(k, 'hgemm') for k in keys]):.3f}, "
              f"best tile per shape "
              f"{geomean([max(ref(k, i) for i in t[k] if i != 'cublaslt-best') for k in keys]):.3f}")
        impls = sorted(i for i in t[keys[0]] if i.startswith("config:"))
        rate = {i: statistics.median(rounds(i, k)[0] * rounds(i, k)[1] * k[2] * 2 / t[k][i] / 1e9
                                     for k in keys) for i in impls}
        for i in sorted(impls, key=lambda i: -rate[i]):
            print(f"    rate {rate[i]:.2f}  vs cublaslt-best {geomean([ref(k, i) for k in keys]):.3f}  "
                  f"{i.replace('config:sm90_ws_', '')}")


if __name__ == "__main__":
    probes()
