#!/usr/bin/env python3
"""Bias + GELU against the plain call, and against cublaslt-best with the same epilogue.

  python3 compare.py ab      the A/B run: 9fb1434 (old) and 7f82e8f's predecessor e384ba3 (new),
                             alternated twice in one device call
  python3 compare.py final   7f82e8f alone, fp16 and bf16 (and bias alone in fp16)
Ratios of hgemm's own times come from two bench invocations (plain, then with the epilogue),
each timed against cublaslt-best interleaved; the cuBLASLt columns are the same ratio of its own.
"""
import csv, gzip, math, sys
from pathlib import Path

here = Path(__file__).parent


def load(path):
    rows = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] != "passed":
                sys.exit(f"{path}: {r['m']}x{r['n']}x{r['k']} {r['impl']} {r['disposition']}")
            rows[(int(r["m"]), int(r["n"]), int(r["k"]), r["impl"].split("/")[0])] = float(r["ms"])
    return rows


def gm(v):
    return math.exp(sum(map(math.log, v)) / len(v))


def table(plain, fused, label):
    shapes = sorted({k[:3] for k in plain}, key=lambda s: s[0] * s[1] * s[2])
    own, lt, vs = [], [], []
    print(f"{label}: shape, GFLOP, hgemm fused/plain, cuBLASLt fused/plain, cuBLASLt/hgemm fused")
    for s in shapes:
        h = fused[s + ("hgemm",)] / plain[s + ("hgemm",)]
        c = fused[s + ("cublaslt-best",)] / plain[s + ("cublaslt-best",)]
        v = fused[s + ("cublaslt-best",)] / fused[s + ("hgemm",)]
        own.append(h), lt.append(c), vs.append(v)
        print(f"  {s[0]}x{s[1]}x{s[2]:<6} {2 * s[0] * s[1] * s[2] / 1e9:6.0f}  {h:.3f}  {c:.3f}  {v:.3f}")
    print(f"  geomean                {gm(own):.3f}  {gm(lt):.3f}  {gm(vs):.3f}")


if sys.argv[1:] == ["ab"]:
    for side in ("old", "new"):
        for r in (1, 2):
            d = here / "ab"
            table(load(d / f"epi-{side}-none-{r}.csv.gz"), load(d / f"epi-{side}-bias_gelu-{r}.csv.gz"),
                  f"{side} round {r}, bias + GELU")
elif sys.argv[1:] == ["final"]:
    d = here / "final"
    table(load(d / "epi-none.csv.gz"), load(d / "epi-bias_gelu.csv.gz"), "fp16, bias + GELU")
    table(load(d / "epi-none.csv.gz"), load(d / "epi-bias.csv.gz"), "fp16, bias")
    table(load(d / "epi-bf16-none.csv.gz"), load(d / "epi-bf16-bias_gelu.csv.gz"), "bf16, bias + GELU")
else:
    sys.exit(__doc__)
