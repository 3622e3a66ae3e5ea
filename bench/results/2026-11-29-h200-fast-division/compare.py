#!/usr/bin/env python3
"""Main (95219c1) against branch fast-division rebased on it (d4f0eb4), alternated twice in one call.

  python3 compare.py ab       per round: the column-major-A call's time over the row-major one's
                              on the same shape and B layout (issue 20's NT/TT bar: >= 0.97), the
                              held-out fifth and the epilogue shapes against cublaslt-best
  python3 compare.py shapes   the column-major-A ratio per shape, both rounds, main then branch
  python3 compare.py f16      the branch alone, fp16 accumulation (suite/acol-f16.csv.gz)
"""
import csv, gzip, math, sys
from pathlib import Path

here = Path(__file__).parent


def load(path):
    rows = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] != "passed":
                sys.exit(f"{path}: {r['m']}x{r['n']}x{r['k']} {r['impl']} {r['disposition']}")
            rows[(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"].split("/")[0])] = float(r["ms"])
    return rows


def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def ratios(d, other, inverse):
    """Per layout: hgemm's time over `other`'s (inverse: other's over hgemm's)."""
    out = {}
    for lay in sorted({k[3] for k in d}):
        keys = [k for k in d if k[3] == lay and k[4] == "hgemm" and k[:4] + (other,) in d]
        out[lay] = {k[:3]: (d[k[:4] + (other,)] / d[k] if inverse else d[k] / d[k[:4] + (other,)])
                    for k in keys}
    return out


def acol(path):
    return ratios(load(path), "hgemm-acol", False)


if sys.argv[1:] == ["ab"]:
    print("row-major A time / column-major A time (B layout as named), then cublaslt-best / hgemm")
    for r in (1, 2):
        for side in ("main", "branch"):
            a = acol(here / "ab" / f"acol-{side}-{r}.csv.gz")
            h = ratios(load(here / "ab" / f"heldout-{side}-{r}.csv.gz"), "cublaslt-best", True)
            e = [ratios(load(here / "ab" / f"epi-{side}-{x}-{r}.csv.gz"), "cublaslt-best", True)["tn"]
                 for x in ("none", "bias_gelu")]
            print(f"  round {r} {side:6}  acol tn {gm(a['tn'].values()):.3f} nn {gm(a['nn'].values()):.3f}"
                  f" (worst {min(min(a['tn'].values()), min(a['nn'].values())):.3f})"
                  f"  held-out tn {gm(h['tn'].values()):.3f} nn {gm(h['nn'].values()):.3f}"
                  f"  epilogue shapes plain {gm(e[0].values()):.3f} bias+gelu {gm(e[1].values()):.3f}")
elif sys.argv[1:] == ["shapes"]:
    runs = {(s, r): acol(here / "ab" / f"acol-{s}-{r}.csv.gz") for s in ("main", "branch") for r in (1, 2)}
    print("shape, B layout: row-major A / column-major A time; main r1 r2, branch r1 r2")
    for lay in ("tn", "nn"):
        for s in sorted(runs["main", 1][lay], key=lambda s: s[0] * s[1] * s[2]):
            v = [runs[x][lay][s] for x in (("main", 1), ("main", 2), ("branch", 1), ("branch", 2))]
            print(f"  {s[0]}x{s[1]}x{s[2]:<6} {lay}  " + "  ".join(f"{x:.3f}" for x in v))
elif sys.argv[1:] == ["f16"]:
    a = acol(here / "suite" / "acol-f16.csv.gz")
    for lay in ("tn", "nn"):
        print(f"fp16 accumulation, {lay}: {gm(a[lay].values()):.3f}; " +
              ", ".join(f"{s[0]}x{s[1]}x{s[2]} {v:.3f}" for s, v in sorted(a[lay].items())))
else:
    sys.exit(__doc__)
