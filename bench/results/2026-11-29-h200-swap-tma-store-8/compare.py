"""Figures of this folder's README: python3 compare.py [twins|probe [FOLDER]|groups]

twins: each swap-AB tile of a width 8 mod 16 with direct stores (st) against its TMA-store twin
and cublaslt-best, in one `hgemm bench` per call (twins/round1.tgz: the twin at the st tile's
ring; twins/round2.tgz: three rounds, 104x128 also at one stage less).
probe: wide swap-AB tiles through the JIT beside dispatch and cublaslt-best on sixteen llm-fresh
TN fp32 shapes, two rounds (probe/probe.tgz); `probe probe-cublas-tiles`: cuBLASLt's own tile for
ten of llm-fresh's worst calls, both layouts, two rounds.
groups: llm-fresh and llm-heldout by token count, each side's faster layout against its own
interleaved cublaslt-best: suites/ (ref 5ee03d4, new with every wide-tile pick) and final/
(24d3ab7, the committed rule).
The A/B summaries: scripts/ab-compare changed|wide|suites [--acc f16] --impl hgemm --baseline cublaslt-best
"""
import collections
import csv
import glob
import gzip
import io
import math
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def rows(text):
    out = list(csv.DictReader(l for l in io.StringIO(text) if not l.startswith("#")))
    assert all(r["disposition"] == "passed" for r in out)
    return out


def members(path):
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if m.isfile() and m.name.endswith(".csv") and ("bench-" in m.name or "probe-" in m.name):
                yield m.name, tar.extractfile(m).read().decode()


def short(impl):
    return impl.split("sm90_ws_")[1].split("_c1x1")[0] if "sm90_ws_" in impl else impl


def twins():
    by_tile = collections.defaultdict(list)
    for part in ("round1", "round2"):
        print(f"{part}: st over each twin, cublaslt-best over st (median of the rounds)")
        calls = collections.defaultdict(lambda: collections.defaultdict(list))
        for name, text in members(os.path.join(HERE, "twins", part + ".tgz")):
            index = int(os.path.basename(name).split("-")[1].split(".")[0])
            for r in rows(text):
                calls[(index, f"{r['m']}x{r['n']}x{r['k']} {r['layout']} {r['acc']}")][r["impl"]].append(
                    float(r["ms"]))
        for (_, label), times in sorted(calls.items()):
            med = {i: sorted(v)[len(v) // 2] for i, v in times.items()}
            st = next(v for i, v in med.items() if "_st_" in i)
            line = f"  {label:26s} cublaslt-best/st {med['cublaslt-best'] / st:.3f}"
            for impl, t in sorted(med.items()):
                if "_tma_" in impl:
                    line += f"  st/{short(impl)} {st / t:.3f}"
                    by_tile[(part, short(impl))].append(st / t)
            print(line)
    for (part, tile), xs in sorted(by_tile.items()):
        print(f"{part} {tile:22s} {len(xs):2d} calls, st over twin geomean {geomean(xs):.3f}")


def probe(folder="probe"):
    shapes = collections.defaultdict(lambda: collections.defaultdict(list))
    picks = {}
    for _, text in members(os.path.join(HERE, folder, "probe.tgz")):
        for r in rows(text):
            key = (int(r["m"]), int(r["n"]), int(r["k"]), r["layout"])
            shapes[key][r["impl"]].append(float(r["ms"]))
            if r["impl"] == "hgemm":
                picks[key] = short(r["detail"].split(",")[0])
    per_tile = collections.defaultdict(list)
    print("cublaslt-best over each (mean of two rounds); dispatch's pick last")
    for key in sorted(shapes):
        mean = {i: sum(v) / len(v) for i, v in shapes[key].items()}
        cb = mean["cublaslt-best"]
        line = f"{key[0]}x{key[1]}x{key[2]:<6d} {key[3]} dispatch {cb / mean['hgemm']:.3f}"
        for impl in sorted(i for i in mean if i.startswith("config:")):
            tile = short(impl) + ("_tma" if "_tma_" in impl else "_st")
            line += f"  {tile} {cb / mean[impl]:.3f}"
            per_tile[tile].append(cb / mean[impl])
        print(line + "  (" + picks[key] + ")")
    for tile, xs in per_tile.items():
        print(f"{tile:26s} geomean {geomean(xs):.3f}")


def groups():
    for path in sorted(glob.glob(os.path.join(HERE, "suites", "*.csv.gz")) +
                       glob.glob(os.path.join(HERE, "final", "*.csv.gz"))):
        t = {}
        for r in rows(gzip.open(path, "rt").read()):
            if r["mode"] == "graph":
                t[(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"])] = float(r["ms"])
        ratio = {}
        for s in sorted({k[:3] for k in t}):
            ratio[s] = (min(t[s + (l, "cublaslt-best")] for l in ("tn", "nn")) /
                        min(t[s + (l, "hgemm")] for l in ("tn", "nn")))
        bins = collections.defaultdict(list)
        for s, x in ratio.items():
            m = s[0]
            bins["<=16" if m <= 16 else "17-128" if m <= 128 else "129-400" if m <= 400
                 else "401-1023" if m < 1024 else ">=1024"].append(x)
        order = ["<=16", "17-128", "129-400", "401-1023", ">=1024"]
        print(f"{os.path.relpath(path, HERE):44s} {len(ratio)} shapes {geomean(list(ratio.values())):.3f}  " +
              "  ".join(f"{b} {geomean(bins[b]):.3f}" for b in order if bins[b]) +
              f"  below 0.95: {sum(x < 0.95 for x in ratio.values())}")


if __name__ == "__main__":
    {"twins": twins, "probe": probe, "groups": groups}[sys.argv[1] if len(sys.argv) > 1 else "groups"](
        *sys.argv[2:])
