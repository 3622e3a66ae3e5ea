"""Figures of this folder's README: python3 compare.py

Per probed call (probe/, llm-tune's narrow layers at 520-1050 tokens, fp32), dispatch and
the best probed 64-row swap-AB tile against the interleaved cublaslt-best, and their geomeans.
The probe ran with HGEMM_JIT=1 (for its JIT widths), under which dispatch also weighs configs
that only the JIT builds: its hgemm column differs from the shipped dispatch at 10 of 90 calls
(ab/ has the shipped dispatch's picks).
The groups by token count (llm-fresh and llm-heldout, the previous run beside final/):
scripts/suite-groups ../2026-11-30-h200-small-m-rounds/final/*.csv.gz final/*.csv.gz
The A/B summary: scripts/ab-compare ab --impl hgemm --baseline cublaslt-best --picks
"""
import collections
import csv
import gzip
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


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


if __name__ == "__main__":
    probe()
