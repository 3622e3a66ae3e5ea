#!/usr/bin/env python3
"""Prints every figure of README.md from the files beside it.

python3 compare.py probes|ab|tiebreak

probes: per tile of the rule's class, its rate per tile slot (rounds x area x K x 2 over the
        time, median over the shapes) and its geomean against cublaslt-best; dispatch and the best
        tile per shape. ab, tiebreak: main (ref) against the widened rule (new), alternated three
        times: cublaslt-best over hgemm in the same file, and hgemm's and cublaslt-best's speed
        new over ref in the same round (cublaslt-best's calls are the same in both trees: the
        control for the clock state). Every row must have passed the verifier.
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


def ab(folder, stem):
    runs = {(side, i): load(os.path.join(HERE, f"{folder}/ab-run-{stem}-{side}-{i}-f32.csv.gz"))
            for side in ("ref", "new") for i in (1, 2, 3)}
    keys = sorted(runs[("ref", 1)][0])
    changed = [k for k in keys if runs[("ref", 1)][1][k] != runs[("new", 1)][1][k]]
    ratio = lambda side, i, k: runs[(side, i)][0][k]["cublaslt-best"] / runs[(side, i)][0][k]["hgemm"]
    speed = lambda impl, i, k: runs[("ref", i)][0][k][impl] / runs[("new", i)][0][k][impl]
    groups = [("all", keys), ("TN", [k for k in keys if k[3] == "tn"]),
              ("NN", [k for k in keys if k[3] == "nn"]), ("changed", changed),
              ("unchanged", [k for k in keys if k not in changed])]
    for name, group in groups:
        if not group:
            continue
        cols = [" ".join(f"{geomean([f(i, k) for k in group]):.3f}" for i in (1, 2, 3))
                for f in (lambda i, k: ratio("ref", i, k), lambda i, k: ratio("new", i, k),
                          lambda i, k: speed("hgemm", i, k),
                          lambda i, k: speed("cublaslt-best", i, k))]
        print(f"{name} ({len(group)}): vs cublaslt-best ref {cols[0]} -> new {cols[1]}; "
              f"new/ref speed hgemm {cols[2]}, cublaslt-best {cols[3]}")
    shapes = sorted({k[:3] for k in keys})
    for side in ("ref", "new"):
        per_round = []
        for i in (1, 2, 3):
            t = runs[(side, i)][0]
            per_round.append(geomean([min(t[s + (l,)]["cublaslt-best"] for l in ("tn", "nn")) /
                                      min(t[s + (l,)]["hgemm"] for l in ("tn", "nn"))
                                      for s in shapes]))
        print(f"faster layout, {side}: " + " ".join(f"{x:.3f}" for x in per_round))
    print("changed, three rounds: ratio ref -> new; hgemm new/ref speed (cublaslt-best's)")
    for k in changed:
        r = geomean([ratio("ref", i, k) for i in (1, 2, 3)])
        n = geomean([ratio("new", i, k) for i in (1, 2, 3)])
        h = geomean([speed("hgemm", i, k) for i in (1, 2, 3)])
        c = geomean([speed("cublaslt-best", i, k) for i in (1, 2, 3)])
        print(f"    {k[0]}x{k[1]}x{k[2]} {k[3]}: {r:.3f} -> {n:.3f}; {h:.3f} ({c:.3f})  "
              f"{runs[('ref', 1)][1][k]} -> {runs[('new', 1)][1][k]}")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "ab"
    if what == "probes":
        probes()
    elif what == "ab":
        ab("ab", "wide-val")
    else:
        ab("ab-tiebreak", "changed")
