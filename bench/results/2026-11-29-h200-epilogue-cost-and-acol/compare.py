#!/usr/bin/env python3
"""What the epilogue costs over the plain call (hgemm-plain, timed in the same run), and the
column-major-A call against the row-major one, old dispatch (4397c0f) and new (the general
flavour's twin of a tuned tile), on issue 20's twelve shapes and on the held-out fifth.

  python3 compare.py epilogue   fused / plain time per run, and cublaslt-best / hgemm fused
  python3 compare.py acol       row-major / column-major A time (speed ratio), per run and group
"""
import csv, gzip, math, sys
from pathlib import Path

run = Path(__file__).parent / "run"


def load(name):
    rows = {}
    with gzip.open(run / f"{name}.csv.gz", "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] != "passed":
                sys.exit(f"{name}: {r['m']}x{r['n']}x{r['k']} {r['impl']} {r['disposition']}")
            rows[(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"].split("/")[0])] = float(r["ms"])
    return rows


def gm(v):
    v = list(v)
    return math.exp(sum(map(math.log, v)) / len(v))


if sys.argv[1:] == ["epilogue"]:
    for name in ("epi-bias_gelu-1", "epi-bias_gelu-2", "epi-bias", "epi-bf16-bias_gelu"):
        d = load(name)
        keys = [k for k in d if k[4] == "hgemm"]
        cost = {k[:3]: d[k] / d[k[:4] + ("hgemm-plain",)] for k in keys}
        vs = [d[k[:4] + ("cublaslt-best",)] / d[k] for k in keys]
        print(f"{name:20} fused / plain {gm(cost.values()):.3f} (max {max(cost.values()):.3f}),"
              f" cublaslt-best / hgemm {gm(vs):.3f}")
        print("   " + ", ".join(f"{s[0]}x{s[1]}x{s[2]} {v:.3f}"
                                for s, v in sorted(cost.items(), key=lambda x: x[0][0] * x[0][1] * x[0][2])))
elif sys.argv[1:] == ["acol"]:
    groups = [("M <= 16", lambda m: m <= 16), ("16 < M <= 256", lambda m: 16 < m <= 256),
              ("256 < M < 1024", lambda m: 256 < m < 1024), ("M >= 1024", lambda m: m >= 1024),
              ("M % 8 != 0 (A copied first)", lambda m: m % 8 != 0), ("M % 8 == 0", lambda m: m % 8 == 0)]
    for name in ("acol-old-1", "acol-new-1", "acol-old-2", "acol-new-2", "heldout-acol-old", "heldout-acol-new"):
        d = load(name)
        print(name)
        for lay in ("tn", "nn"):
            r = {k[:3]: d[k] / d[k[:4] + ("hgemm-acol",)] for k in d if k[4] == "hgemm" and k[3] == lay}
            line = f"   B {'N x K' if lay == 'tn' else 'K x N'}: {gm(r.values()):.3f} over {len(r)}, below 0.97: {sum(v < 0.97 for v in r.values())}"
            if name.startswith("heldout"):
                line += "; " + ", ".join(f"{g} {gm(v for s, v in r.items() if f(s[0])):.3f}"
                                         for g, f in groups if any(f(s[0]) for s in r))
            print(line)
else:
    sys.exit(__doc__)
