"""The column-major A call's speed over the row-major call's, per run of rows-vector/: geomeans by
layout (tn: B N x K, nn: B K x N) and for M <= 16 and M <= 256. ref-* ran main (461c67f), new-*
the branch a-rows-vector (371279e), alternated ref, new, ref, new in one device call."""
import csv, gzip, math, pathlib


def load(path):
    with gzip.open(path, "rt") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"]): float(r["ms"])
                for r in rows if r["mode"] == "graph" and r["disposition"] == "passed"}


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


here = pathlib.Path(__file__).parent
for run in ["ref-1", "new-1", "ref-2", "new-2"]:
    times = load(here / "rows-vector" / f"{run}.csv.gz")
    for layout in ["tn", "nn"]:
        ratio = [(key[0], times[key[:4] + ("hgemm",)] / t) for key, t in times.items()
                 if key[3] == layout and key[4] == "hgemm-acol"]
        by = lambda bound: geomean([r for m, r in ratio if m <= bound])
        print(f"{run} {layout}: all {by(1 << 30):.3f} ({len(ratio)}), "
              f"M <= 16 {by(16):.3f}, M <= 256 {by(256):.3f}")
