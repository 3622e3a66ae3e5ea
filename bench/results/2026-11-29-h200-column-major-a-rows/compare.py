#!/usr/bin/env python3
"""The column-major-A call over the row-major one (speed ratio), before (e97be6a's dispatch, from
../2026-11-29-h200-epilogue-cost-and-acol/run/*-new*) and with the copy into rows (cfde1a3, the tree of 34b3378, here),
each ratio from one run that timed both calls interleaved.

  python3 compare.py          per layout and group, before and after
  python3 compare.py shapes   the held-out shapes, after, slowest first
"""
import csv, gzip, math, sys
from pathlib import Path

here = Path(__file__).parent
before = here.parent / "2026-11-29-h200-epilogue-cost-and-acol" / "run"


def load(path):
    rows = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] != "passed":
                sys.exit(f"{path}: {r['m']}x{r['n']}x{r['k']} {r['impl']} {r['disposition']}")
            rows[(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"].split("/")[0])] = (
                float(r["ms"]), r["detail"])
    return rows


def ratios(d, lay):
    return {k[:3]: d[k][0] / d[k[:4] + ("hgemm-acol",)][0] for k in d if k[4] == "hgemm" and k[3] == lay}


def gm(v):
    v = list(v)
    return math.exp(sum(map(math.log, v)) / len(v))


GROUPS = [("M <= 16", lambda m: m <= 16), ("16 < M <= 256", lambda m: 16 < m <= 256),
          ("256 < M < 1024", lambda m: 256 < m < 1024), ("M >= 1024", lambda m: m >= 1024),
          ("M % 8 != 0", lambda m: m % 8 != 0), ("M % 8 == 0", lambda m: m % 8 == 0)]

if sys.argv[1:] == []:
    for label, old, new in (("held-out fifth", before / "heldout-acol-new.csv.gz", here / "heldout-acol.csv.gz"),
                            ("issue 20's twelve shapes", before / "acol-new-1.csv.gz", here / "acol.csv.gz")):
        print(label)
        for lay, b in (("tn", "N x K"), ("nn", "K x N")):
            for name, path in (("before", old), ("after", new)):
                r = ratios(load(path), lay)
                groups = ", ".join(f"{g} {gm(v for s, v in r.items() if f(s[0])):.3f}"
                                   for g, f in GROUPS if any(f(s[0]) for s in r))
                print(f"  B {b} {name:6} {gm(r.values()):.3f} (min {min(r.values()):.3f}, "
                      f"below 0.97: {sum(v < 0.97 for v in r.values())}/{len(r)}); {groups}")
elif sys.argv[1:] == ["shapes"]:
    d = load(here / "heldout-acol.csv.gz")
    rows = sorted((d[k][0] / d[k[:4] + ("hgemm-acol",)][0], k) for k in d if k[4] == "hgemm")
    for v, k in rows:
        print(f"  {v:.3f} {k[0]}x{k[1]}x{k[2]} {k[3]}  row {d[k][0] * 1e3:.1f} us, column-major "
              f"{d[k[:4] + ('hgemm-acol',)][0] * 1e3:.1f} us  {d[k[:4] + ('hgemm-acol',)][1]}")
else:
    sys.exit(__doc__)
