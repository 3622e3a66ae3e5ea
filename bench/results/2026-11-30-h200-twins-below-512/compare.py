"""Figures of this folder's README: python3 compare.py

llm-fresh and llm-heldout by token count, each side's faster layout against its own interleaved
cublaslt-best: the previous results (2026-11-30-h200-narrow-swap/final, ff76c0f) and final/
(the branch twins-below-512 on main 8b5dda6: waves-from-384, model-twin-credit and this branch).
The A/B summary: scripts/ab-compare ab --impl hgemm --baseline cublaslt-best --picks
"""
import collections
import csv
import glob
import gzip
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PREVIOUS = os.path.join(HERE, "..", "2026-11-30-h200-narrow-swap", "final")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def rows(path):
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            assert r["disposition"] == "passed", r
            if r["mode"] == "graph":
                yield r


def groups():
    for path in sorted(glob.glob(os.path.join(PREVIOUS, "*.csv.gz"))) + \
            sorted(glob.glob(os.path.join(HERE, "final", "*.csv.gz"))):
        t = {}
        for r in rows(path):
            t[(f"{r['m']}x{r['n']}x{r['k']}", r["layout"], r["impl"])] = float(r["ms"])
        ratio = {}
        for s in sorted({k[0] for k in t}):
            ratio[s] = (min(t[(s, l, "cublaslt-best")] for l in ("tn", "nn")) /
                        min(t[(s, l, "hgemm")] for l in ("tn", "nn")))
        bins = collections.defaultdict(list)
        for s, x in ratio.items():
            m = int(s.split("x")[0])
            bins["<=16" if m <= 16 else "17-128" if m <= 128 else "129-400" if m <= 400
                 else "401-1023" if m < 1024 else ">=1024"].append(x)
        order = ["<=16", "17-128", "129-400", "401-1023", ">=1024"]
        name = os.path.relpath(path, HERE)
        print(f"{name:68s} {len(ratio)} shapes {geomean(list(ratio.values())):.3f}  " +
              "  ".join(f"{b} {geomean(bins[b]):.3f}" for b in order if bins[b]) +
              f"  below 0.95: {sum(x < 0.95 for x in ratio.values())}")



if __name__ == "__main__":
    groups()
