"""Figures of this folder's README: python3 compare.py [probe|groups]

probe: per probed call (probe/, llm-tune's narrow layers at 520-1050 tokens, fp32), dispatch and
the best probed 64-row swap-AB tile against the interleaved cublaslt-best, and their geomeans.
The probe ran with HGEMM_JIT=1 (for its JIT widths), under which dispatch also weighs configs
that only the JIT builds: its hgemm column differs from the shipped dispatch at 10 of 90 calls
(ab/ has the shipped dispatch's picks).
groups: llm-fresh and llm-heldout by token count, each side's faster layout against its own
interleaved cublaslt-best: the previous results (2026-11-30-h200-small-m-rounds/final, 3a1cb2d)
and final/ (ff76c0f).
The A/B summary: scripts/ab-compare ab --impl hgemm --baseline cublaslt-best --picks
"""
import collections
import csv
import glob
import gzip
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PREVIOUS = os.path.join(HERE, "..", "2026-11-30-h200-small-m-rounds", "final")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def rows(path):
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            assert r["disposition"] == "passed", r
            if r["mode"] == "graph":
                yield r


def probe():
    for layout in ("tn", "nn"):
        t = collections.defaultdict(dict)
        for r in rows(os.path.join(HERE, "probe", f"probe64-{layout}.csv.gz")):
            t[(int(r["m"]), int(r["n"]), int(r["k"]))][r["impl"]] = float(r["ms"])
        disp, best = [], []
        for shape, v in sorted(t.items()):
            ref = v["cublaslt-best"]
            tiles = {i.split("_")[2]: ms for i, ms in v.items() if i.startswith("config:")}
            top = min(tiles, key=tiles.get)
            disp.append(ref / v["hgemm"])
            best.append(ref / min(v["hgemm"], tiles[top]))
            print(f"{layout} {'x'.join(map(str, shape)):16s} dispatch {disp[-1]:.3f}  "
                  f"best tile {top} {ref / tiles[top]:.3f}")
        print(f"{layout}: {len(disp)} calls, dispatch {geomean(disp):.3f}, "
              f"best of dispatch and the tiles {geomean(best):.3f}")


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
    {"probe": probe, "groups": groups}[sys.argv[1] if len(sys.argv) > 1 else "groups"]()
