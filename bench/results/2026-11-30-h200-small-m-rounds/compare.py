"""Figures of this folder's README: python3 compare.py [rules|groups]

rules: each fp32 call whose pick the branch (c808530) changed, by the rule that changed it
(ab/rules.txt, from `hgemm explain` at both builds), with hgemm's speed against its interleaved
cublaslt-best at ref (main ccde466) and at new (geomean of two rounds), their ratio, and the
geomean per rule; the calls
that 3a1cb2d sends back to main's pick are marked and left out of the "kept" geomeans.
groups: llm-fresh and llm-heldout by token count, each side's faster layout against its own
interleaved cublaslt-best: the previous head (24d3ab7) and final/ (3a1cb2d).
The A/B summaries: scripts/ab-compare ab [--acc f16] --impl hgemm --baseline cublaslt-best --picks
"""
import collections
import csv
import glob
import gzip
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PREVIOUS = os.path.join(HERE, "..", "2026-11-29-h200-swap-tma-store-8", "final")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def graph_times(path):
    t = {}
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            assert r["disposition"] == "passed", r
            if r["mode"] == "graph":
                t[(f"{r['m']}x{r['n']}x{r['k']}", r["layout"], r["impl"])] = float(r["ms"])
    return t


def rules():
    # Speed against cublaslt-best per side, geomean over the two fp32 rounds of the changed calls.
    ratio = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in glob.glob(os.path.join(HERE, "ab", "ab-run-small-*-f32.csv.gz")):
        side = "new" if "-new-" in path else "ref"
        t = graph_times(path)
        for (shape, layout, impl), ms in t.items():
            if impl == "hgemm":
                ratio[(shape, layout)][side].append(t[(shape, layout, "cublaslt-best")] / ms)
    by_rule = collections.defaultdict(lambda: collections.defaultdict(list))
    print(f"{'call':22s} {'rule':9s} ref    new    new/ref")
    for line in open(os.path.join(HERE, "ab", "rules.txt")):
        if line.startswith("#"):
            continue
        shape, layout, rule, head = line.split()
        med = {s: geomean(v) for s, v in ratio[(shape, layout)].items()}
        gain = med["new"] / med["ref"]
        by_rule[rule]["all"].append(gain)
        if head == "branch":
            by_rule[rule]["kept"].append(gain)
        mark = "" if head == "branch" else "  (3a1cb2d: main's pick)"
        print(f"{shape + ' ' + layout:22s} {rule:9s} {med['ref']:.3f}  {med['new']:.3f}  {gain:.3f}{mark}")
    for rule, g in sorted(by_rule.items()):
        print(f"{rule}: {len(g['all'])} calls, geomean new/ref {geomean(g['all']):.3f}; "
              f"kept {len(g['kept'])}, {geomean(g['kept']):.3f}")


def groups():
    for path in [os.path.join(PREVIOUS, f"suite-{s}.csv.gz") for s in
                 ("llm-fresh-f32", "llm-heldout-f32", "llm-fresh-f16", "llm-heldout-f16")] + \
            sorted(glob.glob(os.path.join(HERE, "final", "*.csv.gz"))):
        t = graph_times(path)
        ratio = {}
        for s in sorted({k[0] for k in t}):
            ratio[s] = (min(t[(s, l, "cublaslt-best")] for l in ("tn", "nn")) /
                        min(t[(s, l, "hgemm")] for l in ("tn", "nn")))
        bins = collections.defaultdict(list)
        for s, x in ratio.items():
            m = int(s.split("x")[0])
            bins["<=16" if m <= 16 else "17-128" if m <= 128 else "129-400" if m <= 400
                 else "401-1023" if m < 1024 else ">=1024"].append(x)
        order = ["<=16", "17-128", "129-400", "401-1023", ">=1024"]
        name = os.path.relpath(path, HERE)
        print(f"{name:68s} {len(ratio)} shapes {geomean(list(ratio.values())):.3f}  " +
              "  ".join(f"{b} {geomean(bins[b]):.3f}" for b in order if bins[b]) +
              f"  below 0.95: {sum(x < 0.95 for x in ratio.values())}")


if __name__ == "__main__":
    {"rules": rules, "groups": groups}[sys.argv[1] if len(sys.argv) > 1 else "groups"]()
