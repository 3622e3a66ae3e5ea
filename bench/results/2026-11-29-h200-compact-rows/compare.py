#!/usr/bin/env python3
"""Every figure of README.md from the logs here: cublaslt-best over hgemm (graph mode, TN) per
file, geomean and minimum, and hgemm's new/ref speed per shape."""
import gzip, math, re, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LINE = re.compile(r"^(\S+) (f32|f16) graph ms: cublaslt-best/tn ([\d.]+) hgemm/tn ([\d.]+)")


def times(path):
    out = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                out[m.group(1)] = (float(m.group(3)), float(m.group(4)))
    return out


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


for folder, accs in (("ab", ("f32", "f16")), ("columns", ("f32",))):
    print(f"{folder}/")
    for acc in accs:
        runs = {}
        for side in ("ref", "new"):
            for rnd in (1, 2):
                t = times(HERE / folder / f"ab-run-ragged-ab-{side}-{rnd}-{acc}.log.gz")
                runs[side, rnd] = t
                ratios = [c / h for c, h in t.values()]
                print(f"  {acc} {side} round {rnd}: {len(t)} shapes, cublaslt-best/hgemm "
                      f"geomean {geomean(ratios):.3f}, min {min(ratios):.2f}")
        for rnd in (1, 2):
            ref, new = runs["ref", rnd], runs["new", rnd]
            speed = {s: ref[s][1] / new[s][1] for s in ref}
            print(f"  {acc} round {rnd}: hgemm new/ref speed geomean {geomean(speed.values()):.3f}; "
                  + ", ".join(f"{s} {v:.2f}" for s, v in speed.items()))
t = times(HERE / "ragged-vs-aligned.log.gz")
print("ragged-vs-aligned (730fce8, old compact kernel): hgemm ms, cublaslt-best ms")
for s, (c, h) in t.items():
    print(f"  {s}: {h:.4f} {c:.4f}")
sys.exit(0)
