#!/usr/bin/env python3
"""Per shape: dispatch and the four fastest catalog tiles, each over cublaslt-best: python3 compare.py"""
import collections, csv, gzip
from pathlib import Path

d = collections.defaultdict(dict)
with gzip.open(Path(__file__).parent / "small-m-tiles-f32.csv.gz", "rt") as f:
    for r in csv.DictReader(l for l in f if not l.startswith("#")):
        assert r["disposition"] == "passed", r
        name = r["impl"].replace("config:sm90_ws_", "").replace("_m8", "").replace("_f32_tn", "")
        d["x".join((r["m"], r["n"], r["k"]))][name] = (float(r["ms"]), r["detail"].split(",")[0])
for shape, v in d.items():
    ref = v["cublaslt-best"][0]
    tiles = sorted(((ref / t, k) for k, (t, _) in v.items() if k not in ("hgemm", "cublaslt-best")),
                   reverse=True)[:4]
    print(f"{shape}: dispatch {ref / v['hgemm'][0]:.3f} ({v['hgemm'][1]}); best " +
          ", ".join(f"{k} {x:.3f}" for x, k in tiles))
