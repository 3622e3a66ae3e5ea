"""Issue 20's epilogue bar: hgemm's fused call over its plain call (hgemm over hgemm-plain, timed
interleaved in one run) on the twelve shapes of bench/results/2026-11-28-h200-api-bars/
epilogue-shapes.txt, main c2fe8ed (ref) against the working tree (new), builds alternated round by
round in each device call; cublaslt-best with the same epilogue over hgemm's fused call; and in
gelu-and-bias-prefetch/ the held-out fifth, plain and with bias + GELU. `python3 compare.py`."""
import csv, gzip, math, pathlib
from collections import defaultdict

here = pathlib.Path(__file__).parent


def load(path):
    with gzip.open(path, "rt") as f:
        out = defaultdict(dict)
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["mode"] == "graph":
                assert r["disposition"] == "passed", (path, r)
                shape = (int(r["m"]), int(r["n"]), int(r["k"]))
                out[shape][r["impl"]] = min(float(r["ms"]), out[shape].get(r["impl"], 1e9))
        return out


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def twelve(folder, kinds):
    print(f"== {folder}: fused / plain (each round), cublaslt-best / fused")
    for kind in kinds:
        per_shape = defaultdict(lambda: defaultdict(list))
        for side in ("ref", "new"):
            fused, lt = [], []
            for f in sorted((here / folder).glob(f"epi-{side}-*-{kind}.csv.gz")):
                t = load(f)
                fused.append(geomean([d["hgemm"] / d["hgemm-plain"] for d in t.values()]))
                lt.append(geomean([d["cublaslt-best"] / d["hgemm"] for d in t.values()]))
                for s, d in t.items():
                    per_shape[s][side].append(d["hgemm"] / d["hgemm-plain"])
            print(f"  {kind:15s} {side}: " + " ".join(f"{x:.3f}" for x in fused) +
                  " | " + " ".join(f"{x:.3f}" for x in lt))
        if kind in ("f16", "f16-bias_gelu"):
            for s, d in per_shape.items():
                print(f"    {'x'.join(map(str, s)):16s} " + "  ".join(
                    f"{side} " + " ".join(f"{x:.3f}" for x in v) for side, v in d.items()))


twelve("gelu", ["f16", "bf16"])
twelve("gelu-and-bias-prefetch", ["f16-bias_gelu", "f16-bias", "f16-gelu", "bf16-bias_gelu"])
print("== gelu-and-bias-prefetch: llm-heldout, each side's faster layout")
for kind in ("f16-none", "f16-bias_gelu"):
    for side in ("ref", "new"):
        for f in sorted((here / "gelu-and-bias-prefetch").glob(f"heldout-{side}-*-{kind}.csv.gz")):
            t = load(f)
            line = f"  {f.name}: cublaslt-best / hgemm {geomean([d['cublaslt-best'] / d['hgemm'] for d in t.values()]):.3f}"
            if "hgemm-plain" in next(iter(t.values())):
                line += f", fused / plain {geomean([d['hgemm'] / d['hgemm-plain'] for d in t.values()]):.3f}"
            print(line + f" ({len(t)} shapes)")
