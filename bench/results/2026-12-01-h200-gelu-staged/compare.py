"""Prints this folder's figures: fused over plain per run (main = ref, the staged GELU = new),
per shape for the GELU alone, and plain llm-heldout against cublaslt-best in both builds.
`python3 compare.py parts` prints the second attempt's (the GELU applied part by part ahead of
each deferred store)."""
import csv, glob, gzip, math, os, sys

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), *sys.argv[1:2]))


def load(path):
    rows = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            rows[(r["m"], r["n"], r["k"], r["impl"])] = (float(r["ms"]), r["detail"])
    return rows


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def ratio(d, s, a, b):
    return d[s + (a,)][0] / d[s + (b,)][0]


for path in sorted(glob.glob("epi-*.csv.gz"), key=lambda p: (p.split("-", 2)[2], p)):
    d = load(path)
    shapes = sorted({key[:3] for key in d})
    fused = [ratio(d, s, "hgemm", "hgemm-plain") for s in shapes]
    lt = [ratio(d, s, "cublaslt-best", "hgemm") for s in shapes]
    print(f"{path:34s} fused/plain {geomean(fused):.4f} (max {max(fused):.3f})"
          f"  cublaslt-best/hgemm {geomean(lt):.4f}")
runs = {side: [load(f"epi-{side}-{i}-f16-gelu.csv.gz") for i in (1, 2)] for side in ("ref", "new")}
for s in sorted({key[:3] for key in runs["ref"][0]}, key=lambda s: int(s[0]) * int(s[1]) * int(s[2])):
    cols = {side: " ".join(f"{ratio(d, s, 'hgemm', 'hgemm-plain'):.3f}" for d in ds)
            for side, ds in runs.items()}
    print(f"gelu {'x'.join(s):16s} {cols['ref']} -> {cols['new']}  {runs['new'][0][s + ('hgemm',)][1][:48]}")
for side in ("ref", "new") if os.path.exists("heldout-ref.csv.gz") else ():
    d = load(f"heldout-{side}.csv.gz")
    shapes = sorted({key[:3] for key in d})
    print(f"llm-heldout {side}: cublaslt-best/hgemm "
          f"{geomean([ratio(d, s, 'cublaslt-best', 'hgemm') for s in shapes]):.4f}")
