"""The README table's fp32 figures from this folder: python3 compare.py.

Per shape, cublaslt-best's time over hgemm's, each in its faster layout (tn or nn), then geomeans
over each suite and its token groups, and each layout on its own.
"""
import csv
import gzip
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS = [("M <= 16", 1, 16), ("17-128", 17, 128), ("129-400", 129, 400),
          ("401-1023", 401, 1023), (">= 1024", 1024, 1 << 40)]


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def summarize(name):
    with gzip.open(os.path.join(HERE, f"{name}-f32.csv.gz"), "rt") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    failed = [r for r in rows if r["disposition"] != "passed"]
    t = {(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"]): float(r["ms"])
         for r in rows if r["disposition"] == "passed"}
    shapes = sorted({key[:3] for key in t})
    best = {s: min(t[s + (l, "cublaslt-best")] for l in ("tn", "nn")) /
               min(t[s + (l, "hgemm")] for l in ("tn", "nn")) for s in shapes}
    print(f"llm-{name}: {len(shapes)} shapes, {len(failed)} rows not passed; faster layout "
          f"{geomean(best.values()):.3f}; " + ", ".join(
              f"{l} {geomean([t[s + (l, 'cublaslt-best')] / t[s + (l, 'hgemm')] for s in shapes]):.3f}"
              for l in ("tn", "nn")))
    for label, lo, hi in GROUPS:
        xs = [x for s, x in best.items() if lo <= s[0] <= hi]
        print(f"  {label} ({len(xs)}): {geomean(xs):.3f}")
    worst = sorted(best.items(), key=lambda kv: kv[1])[:6]
    print("  worst: " + ", ".join(f"{'x'.join(map(str, s))} {x:.3f}" for s, x in worst))


if __name__ == "__main__":
    for suite in ("heldout", "fresh"):
        summarize(suite)
