"""Figures of this folder's README: python3 compare.py [twins|groups|split|plain]

twins: each swap-AB tile with direct stores (st) against its TMA-store twin and cublaslt-best,
interleaved in one `hgemm bench` per shape (twins/bench.tgz).
plain: the wave rule's 128x160 and 192x192 direct-store tiles against TMA-store twins (plain/).
split: split-K swap-AB picks, st against the twin at the same split (split/).
groups: llm-fresh and llm-heldout by token count, each side's faster layout against its own
interleaved cublaslt-best, ref (5bca1ef) and new (c89ad58) per round (suites/).
The A/B summaries: scripts/ab-compare changed|suites [--acc f16] --impl hgemm --baseline cublaslt-best
"""
import csv
import gzip
import io
import math
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def pair(text):
    """One bench's st config, its TMA twin and cublaslt-best: (label, st/tma), printed."""
    rows = list(csv.DictReader(l for l in io.StringIO(text) if not l.startswith("#")))
    assert all(r["disposition"] == "passed" for r in rows)
    t = {}
    for r in rows:
        kind = "cb" if r["impl"] == "cublaslt-best" else "tma" if "_tma_" in r["impl"] else "st"
        t[kind] = (float(r["ms"]) * 1e3, r["impl"])
    r0 = rows[0]
    shape = f"{r0['m']}x{r0['n']}x{r0['k']} {r0['layout']} {r0['acc']}"
    st, tma, cb = t["st"][0], t["tma"][0], t["cb"][0]
    tile = t["st"][1].split("sm90_ws_")[1].split("_c1x1")[0] + "_" + t["st"][1].split("_")[-4]
    print(f"{shape:24s} {tile:20s} st {st:6.1f} tma {tma:6.1f} cublaslt-best {cb:6.1f} us"
          f"  st/tma {st / tma:.3f}  cublaslt-best/st {cb / st:.3f}  /tma {cb / tma:.3f}")
    return st / tma


def twins():
    with tarfile.open(os.path.join(HERE, "twins", "bench.tgz")) as tar:
        for acc in ("f32", "f16"):
            ratios = [pair(tar.extractfile(f"bench-{acc}-{i}.csv").read().decode())
                      for i in range(1, 13)]
            print(f"{acc}: st/tma geomean {geomean(ratios):.3f}, min {min(ratios):.3f}\n")


def plain():
    """The wave rule's direct-store tiles against their TMA-store twins (plain/)."""
    ratios = {}
    for i in range(1, 14):
        with gzip.open(os.path.join(HERE, "plain", f"plain-{i}.csv.gz"), "rt") as f:
            rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
        assert all(r["disposition"] == "passed" for r in rows)
        t = {}
        for r in rows:
            n = r["impl"]
            kind = ("cb" if n == "cublaslt-best" else "st" if "_st_" in n
                    else "tma-c2x1" if "_c2x1_" in n else "tma")
            t[kind] = float(r["ms"]) * 1e3
        tile = "192x192" if "192x192" in rows[0]["impl"] + rows[1]["impl"] else "128x160"
        r0 = rows[0]
        cells = [f"{k} {t['st'] / t[k]:.3f}" for k in ("tma", "tma-c2x1") if k in t]
        for k in ("tma", "tma-c2x1"):
            if k in t:
                ratios.setdefault((tile, k), []).append(t["st"] / t[k])
        print(f"{r0['m']}x{r0['n']}x{r0['k']} {r0['layout']} {tile}: st {t['st']:.1f} us, st over "
              + ", ".join(cells) + f"; cublaslt-best/st {t['cb'] / t['st']:.3f}")
    for (tile, k), v in ratios.items():
        print(f"{tile} {k}: st over twin geomean {geomean(v):.3f}")


def split():
    ratios = []
    for i in range(1, 17):
        with gzip.open(os.path.join(HERE, "split", f"split-{i}.csv.gz"), "rt") as f:
            ratios.append(pair(f.read()))
    print(f"split picks: st/tma geomean {geomean(ratios):.3f}, min {min(ratios):.3f}")


GROUPS = [("M <= 16", 1, 16), ("17-128", 17, 128), ("129-400", 129, 400),
          ("401-1023", 401, 1023), (">= 1024", 1024, 1 << 40)]


def faster_layout(path):
    with gzip.open(path, "rt") as f:
        rows = [r for r in csv.DictReader(l for l in f if not l.startswith("#"))
                if r["disposition"] == "passed"]
    t = {(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"]): float(r["ms"])
         for r in rows}
    shapes = sorted({key[:3] for key in t})
    return {s: min(t[s + (l, "cublaslt-best")] for l in ("tn", "nn")) /
               min(t[s + (l, "hgemm")] for l in ("tn", "nn")) for s in shapes}


def groups():
    for suite, acc, rounds in (("llm-fresh", "f32", 2), ("llm-heldout", "f32", 2),
                               ("llm-fresh", "f16", 1), ("llm-heldout", "f16", 1)):
        print(f"{suite} {acc}, faster layout, ref -> new per round")
        runs = {(side, r): faster_layout(os.path.join(HERE, "suites",
                                                      f"ab-run-{suite}-{side}-{r}-{acc}.csv.gz"))
                for side in ("ref", "new") for r in range(1, rounds + 1)}
        for label, lo, hi in [("all", 1, 1 << 40)] + GROUPS:
            cells = []
            for r in range(1, rounds + 1):
                ref = [x for s, x in runs[("ref", r)].items() if lo <= s[0] <= hi]
                new = [x for s, x in runs[("new", r)].items() if lo <= s[0] <= hi]
                cells.append(f"{geomean(ref):.3f} -> {geomean(new):.3f}")
            print(f"  {label:9s} ({len(ref):3d}): " + ", ".join(cells))
        print()


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "twins"
    {"twins": twins, "groups": groups, "split": split, "plain": plain}[what]()
