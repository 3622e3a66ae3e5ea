"""hgemm's speed over cublaslt-best (each ratio from one interleaved run) on shapes whose N or K is
no multiple of 8: main (ref, e6eba06) against the padded C (new, d17ba42). `python3 compare.py`."""
import csv, gzip, math, pathlib
from collections import defaultdict

here = pathlib.Path(__file__).parent


def load(path):
    with gzip.open(path, "rt") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        out = defaultdict(dict)
        for r in rows:
            if r["mode"] == "graph" and r["disposition"] == "passed":
                out[(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"])][r["impl"]] = (
                    float(r["ms"]), r["detail"].split(",")[0].split(" (")[0])
        return out


def ratio(d):
    return d["cublaslt-best"][0] / d["hgemm"][0]


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


runs = {"before (e6eba06, first run)": "before/ragged-f32.csv.gz",
        "ref f32 (e6eba06)": "ab/ab-ref-3-f32.csv.gz", "new f32 round 1": "ab/ab-new-1-f32.csv.gz",
        "new f32 round 2": "ab/ab-new-2-f32.csv.gz", "ref f16 acc": "ab/ab-ref-1-f16.csv.gz",
        "new f16 acc": "ab/ab-new-1-f16.csv.gz"}
tables = {name: load(here / path) for name, path in runs.items()}
for name, t in tables.items():
    for layout in ("tn", "nn"):
        rs = [ratio(d) for key, d in t.items() if key[3] == layout and "hgemm" in d]
        if rs:
            print(f"{name:28s} {layout}: {len(rs):2d} shapes, hgemm / cublaslt-best {geomean(rs):.3f}"
                  f" (min {min(rs):.2f})")
print("\nTN, per shape: ref -> new (round 1), hgemm's time and kernel")
ref, new = tables["ref f32 (e6eba06)"], tables["new f32 round 1"]
for key in sorted(k for k in new if k[3] == "tn"):
    m, n, k, _ = key
    tf = 2 * m * n * k / new[key]["hgemm"][0] / 1e9
    print(f"  {m}x{n}x{k}: {ratio(ref[key]):.2f} -> {ratio(new[key]):.2f}, "
          f"{ref[key]['hgemm'][0]:.4f} -> {new[key]['hgemm'][0]:.4f} ms ({tf:.0f} TFLOP/s), "
          f"{new[key]['hgemm'][1]}")
