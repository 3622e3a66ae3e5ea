"""Geomean of cublaslt-best / hgemm per CSV, mode and layout (tn, nn, and each side's faster
layout), by M group, and the count of shapes below 0.95.
python3 summary.py FILE.csv..."""
import csv, math, sys
from collections import defaultdict


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


for path in sys.argv[1:]:
    t = {}
    with open(path) as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row["disposition"] == "passed":
                key = (row["mode"], int(row["m"]), int(row["n"]), int(row["k"]))
                t[key + (row["layout"], row["impl"])] = float(row["ms"])
    by_mode = defaultdict(dict)
    for key in {k[:4] for k in t}:
        mode, shape = key[0], key[1:]
        for lay in ("tn", "nn", "best"):
            lays = ("tn", "nn") if lay == "best" else (lay,)
            h = [t[key + (l, "hgemm")] for l in lays if key + (l, "hgemm") in t]
            c = [t[key + (l, "cublaslt-best")] for l in lays if key + (l, "cublaslt-best") in t]
            if len(h) == len(c) == len(lays):
                by_mode[(mode, lay)][shape] = min(c) / min(h)
    for (mode, lay), r in sorted(by_mode.items()):
        groups = {"M<=16": [v for s, v in r.items() if s[0] <= 16],
                  "16<M<1024": [v for s, v in r.items() if 16 < s[0] < 1024],
                  "M>=1024": [v for s, v in r.items() if s[0] >= 1024]}
        print(f"{path.split('/')[-1]} {mode} {lay}: {len(r)} shapes, geomean "
              f"{geomean(list(r.values())):.3f}; " +
              ", ".join(f"{k} {geomean(v):.3f}" for k, v in groups.items()) +
              f"; below 0.95: {sum(v < 0.95 for v in r.values())}")
