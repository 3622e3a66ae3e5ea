"""Per-shape figures of this folder: python3 compare.py blocked|safety-net|copy.

blocked: hgemm-acol over the row-major call (hgemm), same file. safety-net and copy: per A/B round,
that ratio for each side, and the microseconds the column-major call adds to the row-major one.
The summaries over all calls come from scripts/ab-compare FOLDER --impl hgemm-acol --baseline hgemm.
"""
import collections
import csv
import glob
import gzip
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def times(path):
    with gzip.open(path, "rt") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(r["m"], r["n"], r["k"], r["layout"], r["impl"]): float(r["ms"])
                for r in rows if r["disposition"] == "passed"}


def per_call(t):
    for (m, n, k, layout, impl), ms in t.items():
        if impl == "hgemm-acol":
            row = t[(m, n, k, layout, "hgemm")]
            yield (int(m), int(n), int(k), layout), row / ms, 1000 * (ms - row)


def ab(folder):
    calls = collections.defaultdict(lambda: {"ref": [], "new": []})
    for path in sorted(glob.glob(os.path.join(HERE, folder, "ab-*.csv.gz"))):
        side = "new" if "-new-" in path else "ref"
        for key, ratio, extra in per_call(times(path)):
            calls[key][side].append((ratio, extra))
    logs = {"ref": [], "new": []}
    print("shape layout: ratio and extra us per round, ref | new")
    for key in sorted(calls):
        cells = []
        for side in ("ref", "new"):
            runs = calls[key][side]
            logs[side].append(sum(math.log(r) for r, _ in runs) / len(runs))
            cells.append(" ".join("%.3f/%.1f" % run for run in runs))
        print("%dx%dx%d %s: %s | %s" % (*key, *cells))
    for side, xs in logs.items():
        print("%s geomean over %d calls: %.3f" % (side, len(xs), math.exp(sum(xs) / len(xs))))


def blocked():
    t = times(os.path.join(HERE, "blocked", "compare-blocked-f32.csv.gz"))
    for key, ratio, extra in sorted(per_call(t)):
        print("%dx%dx%d %s: %.3f (+%.1f us)" % (*key, ratio, extra))


if __name__ == "__main__":
    part = sys.argv[1] if len(sys.argv) > 1 else "blocked"
    {"blocked": blocked, "safety-net": lambda: ab("ab-safety-net"),
     "copy": lambda: ab("ab-copy")}[part]()
