#!/usr/bin/env python3
"""hgemm's time on a split-K branch version over main's, per shape, from runs that timed both
against cublaslt-best: geomean [range] by how the decision splits (sm90 configs with sk > 1,
else unsplit; decode kernels count as unsplit). Best of the rounds per shape.
usage: compare.py VERSION [ROUNDS]   e.g. compare.py 3 1, compare.py 2 1,2"""
import csv, gzip, math, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
version = sys.argv[1]
rounds = (sys.argv[2] if len(sys.argv) > 2 else "1,2").split(",")


def load(name):
    rows = {}
    with gzip.open(os.path.join(here, name), "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["impl"] == "hgemm":
                rows[(r["m"], r["n"], r["k"], r["layout"], r["mode"])] = (
                    float(r["ms"]), r["detail"].split(",")[0])
    return rows


def kind(config):
    m = re.search(r"_sk(\d+)_", config)
    return "sk" + m.group(1) if config.startswith("sm90") and m and int(m.group(1)) > 1 else "unsplit"


for suite in ("heldout", "split"):
    for acc in ("f32", "f16"):
        try:
            main = [load(f"{suite}-main{version}-{r}-{acc}.csv.gz") for r in rounds]
            branch = [load(f"{suite}-v{version}-{r}-{acc}.csv.gz") for r in rounds]
        except FileNotFoundError:
            continue
        for mode in ("graph", "latency"):
            groups = {}
            for key in main[0]:
                if key[4] != mode:
                    continue
                ratio = min(b[key][0] for b in branch) / min(m[key][0] for m in main)
                groups.setdefault(kind(main[0][key][1]), []).append(ratio)
            print(suite, acc, mode, " ".join(
                "%s n=%d %.3f [%.2f-%.2f]" % (k, len(v), math.exp(sum(map(math.log, v)) / len(v)),
                                              min(v), max(v)) for k, v in sorted(groups.items())))
