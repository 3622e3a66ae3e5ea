#!/usr/bin/env python3
"""Prints every figure of README.md from the files beside it.

python3 compare.py clusters|tiles16|power|settings|ab|ab2

Each ratio is cublaslt-best's time over hgemm's (or the named config's) in the same file: the
two were timed interleaved in one process. "faster layout" takes each side's faster of TN and NN.
"""
import csv
import glob
import gzip
import math
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def load(path):
    """(m, n, k, layout, impl) -> ms; every row must have passed the verifier."""
    t, detail = {}, {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] != "passed":
                sys.exit(f"{path}: {r['m']}x{r['n']}x{r['k']} {r['impl']} {r['disposition']}")
            key = (int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"])
            t[key] = float(r["ms"])
            detail[key] = r["detail"]
    return t, detail


def best_ref(t, s):
    return min(t[s + (l, "cublaslt-best")] for l in ("tn", "nn") if s + (l, "cublaslt-best") in t)


def short(impl, layout):
    if not impl.startswith("config:"):
        return impl
    return impl[len("config:sm90_ws_"):].replace(f"_f32_{layout}_swap", "").replace("_m8_st", "")


def config_table(path, groups):
    """Per layout and shape group, every impl's geomean against the faster cublaslt-best."""
    t, _ = load(path)
    for layout in ("tn", "nn"):
        for name, pred in groups:
            shapes = sorted({k[:3] for k in t if pred(k)})
            impls = sorted({k[4] for k in t if k[3] == layout})
            rows = []
            for impl in impls:
                xs = [best_ref(t, s) / t[s + (layout, impl)] for s in shapes
                      if s + (layout, impl) in t]
                if xs:
                    rows.append((geomean(xs), short(impl, layout)))
            print(f"{layout} {name} ({len(shapes)} shapes)")
            for g, impl in sorted(rows, reverse=True):
                print(f"    {g:.3f} {impl}")


def clusters():
    config_table(os.path.join(HERE, "clusters/compare-clusters-f32.csv.gz"), [
        ("M 12, 14, N >= 27648", lambda k: k[0] in (12, 14) and k[1] >= 27648),
        ("M 12, 14, N <= 8192", lambda k: k[0] in (12, 14) and k[1] < 27648),
        ("M 8, N >= 27648", lambda k: k[0] == 8),
    ])


def tiles16():
    config_table(os.path.join(HERE, "tiles16/compare-tiles16-f32.csv.gz"),
                 [(f"M {m}", lambda k, m=m: k[0] == m) for m in (10, 13, 16)])


def power():
    for smi in sorted(glob.glob(os.path.join(HERE, "power/*.smi.csv.gz"))):
        name = os.path.basename(smi)[: -len(".smi.csv.gz")]
        samples = []
        with gzip.open(smi, "rt") as f:
            for line in f:
                p = [x.strip() for x in line.split(",")]
                if len(p) >= 3 and p[2].endswith("W"):
                    samples.append((float(p[1].split()[0]), float(p[2].split()[0])))
        # The samples under load: the bench's verification and cuBLASLt's autotuning draw less.
        busy = [s for s in samples if s[1] > 300]
        t, detail = load(os.path.join(HERE, f"power/{name}.bench.csv.gz"))
        (key, ms), = t.items()
        print(f"{name:34s} {len(busy):3d} samples: SM clock {statistics.median(s[0] for s in busy):5.0f}"
              f" MHz, {statistics.median(s[1] for s in busy):4.0f} W; {ms * 1000:7.1f} us"
              f"  {detail[key][:52]}")


def settings():
    groups = [("M <= 16, N >= 27648", lambda k: k[0] <= 16 and k[1] >= 27648),
              ("M <= 16, N < 27648", lambda k: k[0] <= 16 and k[1] < 27648),
              ("M 96-300", lambda k: 96 <= k[0] <= 300),
              ("M >= 1024", lambda k: k[0] >= 1024)]
    names = {"h0p256": "as main (256 B)", "h0p128": "promotion 128 B", "h0p0": "no promotion",
             "h1p256": "weights evict-first", "h2p256": "activations evict-last",
             "h3p256": "both hints"}
    ratios = {}
    for path in glob.glob(os.path.join(HERE, "l2-settings/*.csv.gz")):
        t, _ = load(path)
        ratios[os.path.basename(path)[:-7]] = {
            k[:4]: t[k[:4] + ("cublaslt-best",)] / t[k] for k in t if k[4] == "hgemm"}
    for setting, label in names.items():
        cells = []
        for gname, pred in groups:
            rounds = [geomean([v for k, v in ratios[f"{setting}-{r}"].items() if pred(k)])
                      for r in (1, 2)]
            cells.append(f"{gname}: {rounds[0]:.3f} {rounds[1]:.3f}")
        print(f"{label:24s} " + " | ".join(cells))


def ab_table(folder, suite, acc, groups):
    for side in ("ref", "new"):
        for rnd in (1, 2):
            t, _ = load(os.path.join(HERE, folder, f"ab-run-{suite}-{side}-{rnd}-{acc}.csv.gz"))
            shapes = sorted({k[:3] for k in t})
            cells = []
            for name, lo, hi in groups:
                ss = [s for s in shapes if lo <= s[0] <= hi]
                if not ss:
                    continue
                tn = geomean([t[s + ("tn", "cublaslt-best")] / t[s + ("tn", "hgemm")] for s in ss])
                nn = geomean([t[s + ("nn", "cublaslt-best")] / t[s + ("nn", "hgemm")] for s in ss])
                fl = geomean([best_ref(t, s) / min(t[s + (l, "hgemm")] for l in ("tn", "nn"))
                              for s in ss])
                cells.append(f"{name} ({len(ss)}): TN {tn:.3f} NN {nn:.3f} faster {fl:.3f}")
            print(f"{suite} {acc} {side} {rnd}: " + " | ".join(cells))


GROUPS = [("M <= 16", 1, 16), ("17-128", 17, 128), ("129-400", 129, 400),
          ("401-1023", 401, 1023), (">= 1024", 1024, 10**9), ("all", 1, 10**9)]


def ab():
    for suite in ("llm-fresh", "llm-heldout"):
        ab_table("ab", suite, "f32", GROUPS)


def ab2():
    for acc in ("f32", "f16"):
        ab_table("ab2", "large-ab", acc, [("all", 1, 10**9)])
    for acc in ("f32", "f16"):
        ab_table("ab2", "llm-heldout", acc, GROUPS)


if __name__ == "__main__":
    steps = {"clusters": clusters, "tiles16": tiles16, "power": power, "settings": settings,
             "ab": ab, "ab2": ab2}
    if len(sys.argv) != 2 or sys.argv[1] not in steps:
        sys.exit("usage: compare.py " + "|".join(steps))
    steps[sys.argv[1]]()
