#!/usr/bin/env python3
"""The figures of README.md: python3 compare.py

Per epilogue file: each shape's fused time over the plain call's (hgemm-plain, timed interleaved
in the same process), and cublaslt-best with the same epilogue over hgemm fused; then the
llm-fresh call latency against cublaslt-best by token group.
"""
import csv, gzip, math
from pathlib import Path

HERE = Path(__file__).parent


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def load(name):
    with gzip.open(HERE / name, "rt") as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#"))]
    assert all(r["disposition"] == "passed" for r in rows), name
    return {(int(r["m"]), int(r["n"]), int(r["k"]), r["impl"].split("/")[0]): float(r["ms"])
            for r in rows}


for name in ("epi-f16-bias_gelu", "epi-f16-bias", "epi-f16-gelu", "epi-bf16-bias_gelu"):
    t = load(name + ".csv.gz")
    shapes = sorted({k[:3] for k in t}, key=lambda s: s[0] * s[1] * s[2])
    own = [t[s + ("hgemm",)] / t[s + ("hgemm-plain",)] for s in shapes]
    vs = [t[s + ("cublaslt-best",)] / t[s + ("hgemm",)] for s in shapes]
    print(f"{name}: fused / plain {gm(own):.3f} (max {max(own):.3f}); "
          f"cublaslt-best / hgemm, both fused {gm(vs):.3f}")
    for s, o, v in zip(shapes, own, vs):
        print(f"  {s[0]}x{s[1]}x{s[2]}: {o:.3f} {v:.3f}")

t = load("fresh-latency-f32.csv.gz")
shapes = sorted({k[:3] for k in t})
ratio = {s: t[s + ("cublaslt-best",)] / t[s + ("hgemm",)] for s in shapes}
print(f"llm-fresh TN f32 call latency, cublaslt-best / hgemm: {gm(ratio.values()):.3f}")
for label, lo, hi in (("M <= 16", 1, 16), ("17-128", 17, 128), ("129-400", 129, 400),
                      ("401-1023", 401, 1023), (">= 1024", 1024, 1 << 40)):
    print(f"  {label}: {gm([x for s, x in ratio.items() if lo <= s[0] <= hi]):.3f}")
