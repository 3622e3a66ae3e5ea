"""The fused epilogue's time over the plain call's (hgemm over hgemm-plain, interleaved in one run),
main (ref, e6eba06) against three versions of a late tanh GELU (new), builds alternated round by
round in each device call; and cublaslt-best over the fused call. `python3 compare.py`."""
import csv, gzip, math, pathlib
from collections import defaultdict

here = pathlib.Path(__file__).parent
VERSIONS = {"per-pair": "09f471e: one test per pair", "per-part": "dc0a39d: one test per part",
            "before-wait": "865c089: per part, before the previous k-block's wait"}


def load(path):
    with gzip.open(path, "rt") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        out = defaultdict(dict)
        for r in rows:
            if r["mode"] == "graph" and r["disposition"] == "passed":
                out[(int(r["m"]), int(r["n"]), int(r["k"]))][r["impl"]] = float(r["ms"])
        return out


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


for folder, what in VERSIONS.items():
    print(f"== {folder} ({what})")
    for kind in ("f16-bias_gelu", "f16-gelu", "bf16-bias_gelu"):
        per_shape = defaultdict(lambda: defaultdict(list))
        for side in ("ref", "new"):
            files = sorted((here / folder).glob(f"epi-{side}-*-{kind}.csv.gz"))
            if not files:
                continue
            fused, lt = [], []
            for f in files:
                t = load(f)
                fused.append(geomean([d["hgemm"] / d["hgemm-plain"] for d in t.values()]))
                lt.append(geomean([d["cublaslt-best"] / d["hgemm"] for d in t.values()]))
                for s, d in t.items():
                    per_shape[s][side].append(d["hgemm"] / d["hgemm-plain"])
            print(f"  {kind:15s} {side}: fused / plain " + " ".join(f"{x:.3f}" for x in fused) +
                  "; cublaslt-best / fused " + " ".join(f"{x:.3f}" for x in lt))
        if kind == "f16-bias_gelu":
            for s, d in per_shape.items():
                print(f"    {'x'.join(map(str, s)):16s} " + " ".join(
                    f"{side} {sum(v) / len(v):.3f}" for side, v in d.items()))
