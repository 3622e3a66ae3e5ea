#!/usr/bin/env python3
"""The figures of README.md from this folder's CSVs.

  python3 compare.py groups   each side and round of ab/: the faster layout's geomean over each
                              suite and its token groups, the calls below 0.95, the worst shapes
  python3 compare.py f16      f16/: each call's ratio to cublaslt-best, ref and new, and hgemm's
                              own speed new over ref (same round)
  python3 compare.py tiles    tiles/: each shape's dispatch and the new tiles, over cublaslt-best
`scripts/ab-compare ab --impl hgemm --baseline cublaslt-best --picks` prints the A/B summary.
"""
import collections, csv, gzip, math, sys
from pathlib import Path

HERE = Path(__file__).parent
GROUPS = [("M <= 16", 1, 16), ("17-128", 17, 128), ("129-400", 129, 400),
          ("401-1023", 401, 1023), (">= 1024", 1024, 1 << 40)]


def rows(path):
    with gzip.open(path, "rt") as f:
        return [r for r in csv.DictReader(l for l in f if not l.startswith("#"))]


def times(path):
    return {(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"]): float(r["ms"])
            for r in rows(path) if r["disposition"] == "passed"}


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def groups():
    for suite in ("llm-fresh", "llm-heldout"):
        for side in ("ref", "new"):
            for rnd in (1, 2):
                t = times(HERE / "ab" / f"ab-share-{suite}-{side}-{rnd}-f32.csv.gz")
                shapes = sorted({k[:3] for k in t})
                best = {s: min(t[s + (l, "cublaslt-best")] for l in ("tn", "nn")) /
                           min(t[s + (l, "hgemm")] for l in ("tn", "nn")) for s in shapes}
                by = [gm([x for s, x in best.items() if lo <= s[0] <= hi]) for _, lo, hi in GROUPS]
                below = sum(t[s + (l, "cublaslt-best")] / t[s + (l, "hgemm")] < 0.95
                            for s in shapes for l in ("tn", "nn"))
                worst = sorted(best.items(), key=lambda kv: kv[1])[:4]
                print(f"{suite} {side} {rnd}: {gm(best.values()):.3f}; " +
                      " ".join(f"{g[0]} {x:.3f}" for g, x in zip(GROUPS, by)) +
                      f"; calls below 0.95: {below}; worst: " +
                      ", ".join("x".join(map(str, s)) + f" {x:.2f}" for s, x in worst))


def f16():
    for rnd in (1, 2):
        ref = times(HERE / "f16" / f"ab-share-f16-ref-{rnd}-f16.csv.gz")
        new = times(HERE / "f16" / f"ab-share-f16-new-{rnd}-f16.csv.gz")
        for key in sorted(k for k in ref if k[4] == "hgemm"):
            c = key[:4] + ("cublaslt-best",)
            print(f"round {rnd} {key[0]}x{key[1]}x{key[2]} {key[3]}: ref {ref[c] / ref[key]:.3f} "
                  f"new {new[c] / new[key]:.3f}, hgemm new/ref speed {ref[key] / new[key]:.3f}")


def tiles():
    d = collections.defaultdict(dict)
    for r in rows(HERE / "tiles" / "compare-new-tiles-f32.csv.gz"):
        if r["disposition"] != "passed":
            continue
        name = r["impl"].replace("config:sm90_ws_", "").replace("_m8_st", "").replace("_f32_tn_swap", "")
        d[(r["m"], r["n"], r["k"])][name] = (float(r["ms"]), r["detail"].split(",")[0])
    for s, v in d.items():
        ref = v["cublaslt-best"][0]
        print("x".join(s), f"dispatch {ref / v['hgemm'][0]:.3f} ({v['hgemm'][1]})")
        print("   " + "  ".join(f"{k} {ref / x[0]:.3f}" for k, x in sorted(v.items())
                                if k not in ("hgemm", "cublaslt-best")))


if __name__ == "__main__":
    {"groups": groups, "f16": f16, "tiles": tiles}[sys.argv[1] if len(sys.argv) > 1 else "groups"]()
