#!/usr/bin/env python3
"""Prints every figure of README.md from the files beside it.

python3 compare.py [val|dev]

Main (ref, 5147abb) and the prefill rule (new, 900a8e2), alternated three times, TN fp32 graph
mode. For each round: cublaslt-best's time over hgemm's in the same file (the usual ratio), and
hgemm's speed in the new tree over the ref tree's in the same round, beside cublaslt-best's, whose
calls did not change, as the control for the clock state between the two processes. Every row
must have passed the verifier.
"""
import csv
import gzip
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load(path):
    t, pick = {}, {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] != "passed":
                sys.exit(f"{path}: {r['m']}x{r['n']}x{r['k']} {r['impl']} {r['disposition']}")
            s = (int(r["m"]), int(r["n"]), int(r["k"]))
            t.setdefault(s, {})[r["impl"]] = float(r["ms"])
            if r["impl"] == "hgemm":
                pick[s] = r["detail"].split(",")[0].replace("sm90_ws_", "")
    return t, pick


def main(which):
    suite = {"val": "prefill-val", "dev": "prefill-dev"}[which]
    runs = {(side, i): load(os.path.join(HERE, f"ab-run-{suite}-{side}-{i}-f32.csv.gz"))
            for side in ("ref", "new") for i in (1, 2, 3)}
    shapes = sorted(runs[("ref", 1)][0])
    changed = [s for s in shapes if runs[("ref", 1)][1][s] != runs[("new", 1)][1][s]]
    same = [s for s in shapes if s not in changed]
    ratio = lambda side, i, s: runs[(side, i)][0][s]["cublaslt-best"] / runs[(side, i)][0][s]["hgemm"]
    speed = lambda impl, i, s: runs[("ref", i)][0][s][impl] / runs[("new", i)][0][s][impl]
    print(f"{suite}: {len(shapes)} shapes, {len(changed)} picks changed")
    for name, group in (("all", shapes), ("changed", changed), ("unchanged", same)):
        ref = " ".join(f"{geomean([ratio('ref', i, s) for s in group]):.3f}" for i in (1, 2, 3))
        new = " ".join(f"{geomean([ratio('new', i, s) for s in group]):.3f}" for i in (1, 2, 3))
        h = " ".join(f"{geomean([speed('hgemm', i, s) for s in group]):.3f}" for i in (1, 2, 3))
        c = " ".join(f"{geomean([speed('cublaslt-best', i, s) for s in group]):.3f}"
                     for i in (1, 2, 3))
        print(f"  {name} ({len(group)}): vs cublaslt-best ref {ref} -> new {new}; "
              f"new/ref speed hgemm {h}, cublaslt-best {c}")
    print("  changed shapes, three rounds: ratio ref -> new; hgemm new/ref speed (cublaslt-best's)")
    for s in changed:
        r = geomean([ratio("ref", i, s) for i in (1, 2, 3)])
        n = geomean([ratio("new", i, s) for i in (1, 2, 3)])
        h = geomean([speed("hgemm", i, s) for i in (1, 2, 3)])
        c = geomean([speed("cublaslt-best", i, s) for i in (1, 2, 3)])
        print(f"    {s[0]}x{s[1]}x{s[2]}: {r:.3f} -> {n:.3f}; {h:.3f} ({c:.3f})  "
              f"{runs[('ref', 1)][1][s]} -> {runs[('new', 1)][1][s]}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "val")
