"""The rows whose dispatch pick the 64x224 row changed, main (ref, 426b7f6) against the branch
tile-64x224 (new, a02c899), one round each, hgemm and cublaslt-best interleaved in each file:
hgemm's speed over cublaslt-best before and after, and the configs."""
import csv, gzip, math, pathlib

here = pathlib.Path(__file__).parent


def load(name):
    with gzip.open(here / name, "rt") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"]):
                (float(r["ms"]), r["detail"].split(",")[0])
                for r in rows if r["mode"] == "graph" and r["disposition"] == "passed"}


for acc in ["f32", "f16"]:
    ref, new = load(f"ref-1-{acc}.csv.gz"), load(f"new-1-{acc}.csv.gz")
    gains = []
    for key in sorted(k for k in ref if k[4] == "hgemm" and ref[k][1] != new[k][1]):
        base = key[:4] + ("cublaslt-best",)
        before, after = ref[base][0] / ref[key][0], new[base][0] / new[key][0]
        gains.append(after / before)
        print(f"{acc} {key[0]}x{key[1]}x{key[2]} {key[3]}: {before:.3f} -> {after:.3f}  "
              f"{ref[key][1]} -> {new[key][1]}")
    print(f"{acc}: {len(gains)} changed rows, geomean after / before "
          f"{math.exp(sum(map(math.log, gains)) / len(gains)):.3f}")
