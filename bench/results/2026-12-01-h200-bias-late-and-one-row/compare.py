"""Prints this folder's figures: bias and bias + GELU over the plain call (main = ref, the
bias-words-late patch = new, two rounds each), and row-major over column-major A speed on
acol-shapes.txt in both builds (new: one column-major row read as that row)."""
import csv, glob, gzip, math, os

os.chdir(os.path.dirname(os.path.abspath(__file__)))


def load(path):
    rows = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            rows[(r["m"], r["n"], r["k"], r["impl"])] = float(r["ms"])
    return rows


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


for path in sorted(glob.glob("epi-*.csv.gz")):
    d = load(path)
    shapes = sorted({key[:3] for key in d})
    fused = [d[s + ("hgemm",)] / d[s + ("hgemm-plain",)] for s in shapes]
    lt = [d[s + ("cublaslt-best",)] / d[s + ("hgemm",)] for s in shapes]
    print(f"{path:30s} fused/plain {geomean(fused):.4f} (max {max(fused):.3f})"
          f"  cublaslt-best/hgemm {geomean(lt):.4f}")
for layout in ("tn", "nn"):
    for side in ("ref", "new"):
        d = load(f"acol-{side}-{layout}.csv.gz")
        for s in sorted({key[:3] for key in d}, key=lambda s: int(s[0])):
            row, col = d[s + ("hgemm",)], d[s + ("hgemm-acol",)]
            print(f"{layout} {side} {'x'.join(s):14s} row {row * 1e3:6.1f} us"
                  f"  column-major {col * 1e3:6.1f} us  {row / col:.3f}")
