"""Figures of this folder's README: python3 compare.py [calls|groups|formula]

calls: per call, dispatch's pick and its speed against cublaslt-best, and the fastest of the
probed tiles (or dispatch's pick, where faster).
groups: the same per token count, geomean: dispatch, and the best of dispatch and the probe.
formula: a rule tried offline: from MIN tokens, the swap-AB tile with a TMA store and two or
more warpgroups that a copy of dispatch's unfitted cost formula (dispatch/cost.cpp) finds
cheapest among the probed ones replaces dispatch's pick where the formula finds it MARGIN
cheaper; scored by the probe's own times (the twelve best settings of the grid tried).
"""
import collections
import csv
import glob
import gzip
import itertools
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = re.compile(r"sm90_ws_(\d+)x(\d+)x64_s(\d+)_c(\d)x(\d)_w(\d)_[mn]\d+_(st|tma)_sk(\d+)_f32_(tn|nn)(_swap)?")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def load():
    times, pick = collections.defaultdict(dict), {}
    for path in sorted(glob.glob(os.path.join(HERE, "probe-mid*.csv.gz"))):
        with gzip.open(path, "rt") as f:
            for r in csv.DictReader(l for l in f if not l.startswith("#")):
                assert r["disposition"] == "passed", r
                if r["mode"] != "graph":
                    continue
                call = (int(r["m"]), int(r["n"]), int(r["k"]), r["layout"])
                times[call][r["impl"].removeprefix("config:")] = float(r["ms"])
                if r["impl"] == "hgemm":
                    pick[call] = r["detail"].split(",")[0]
    return times, pick


def tile(name):
    m = NAME.fullmatch(name)
    return dict(bm=int(m[1]), bn=int(m[2]), stages=int(m[3]), cm=int(m[4]), cn=int(m[5]),
                wgs=int(m[6]), tma=m[7] == "tma", split=int(m[8]), swap=bool(m[10]))


def short(name):
    t = tile(name)
    return (f"{t['bm']}x{t['bn']}{' swap' if t['swap'] else ''} {'tma' if t['tma'] else 'st'}"
            f"{' c%dx%d' % (t['cm'], t['cn']) if t['cm'] * t['cn'] > 1 else ''}"
            f"{' sk%d' % t['split'] if t['split'] > 1 else ''}")


def formula(call, t, efficiency_power):
    # estimate_cost's terms for an sm90 tile on 132 SMs (tile_waves, formula_tile_efficiency).
    m, n, k, _ = call
    k_blocks = math.ceil(k / 64)
    per_split = math.ceil(k_blocks / t["split"])
    splits = math.ceil(k_blocks / per_split)
    rows = math.ceil(math.ceil(m / t["bm"]) / t["cm"]) * t["cm"]
    cols = math.ceil(math.ceil(n / t["bn"]) / t["cn"]) * t["cn"]
    cluster = t["cm"] * t["cn"]
    rounds = math.ceil(rows * cols * splits / (132 // cluster * cluster))
    reuse = t["bm"] * t["bn"] / (t["bm"] + t["bn"])
    efficiency = min(1.0, reuse / (128 * 256 / 384)) ** efficiency_power
    cost = rounds * t["bm"] * t["bn"] * (per_split + t["stages"]) * 64 / efficiency
    if splits > 1:
        cost += (2 * splits * m * n * 4 + m * n * 2) * 1.25 + 1.1e7
    return cost


def calls():
    times, pick = load()
    for call, t in sorted(times.items()):
        probed = {i: v for i, v in t.items() if i.startswith("sm90_ws_")}
        best = min(probed, key=probed.get)
        c = t["cublaslt-best"]
        print(f"{call[0]}x{call[1]}x{call[2]} {call[3]}  dispatch {c / t['hgemm']:.3f} "
              f"{short(pick[call]):22s} best probed {c / probed[best]:.3f} {short(best)}")


def groups():
    times, _ = load()
    by_m = collections.defaultdict(lambda: ([], []))
    for call, t in times.items():
        c = t["cublaslt-best"]
        best = min(v for i, v in t.items() if i != "cublaslt-best")
        by_m[call[0]][0].append(c / t["hgemm"])
        by_m[call[0]][1].append(c / best)
    for m, (d, o) in sorted(by_m.items()):
        print(f"{m} tokens, {len(d)} calls: dispatch {geomean(d):.3f}, best of dispatch and the probe {geomean(o):.3f}")
    d = [x for v in by_m.values() for x in v[0]]
    o = [x for v in by_m.values() for x in v[1]]
    print(f"all {len(d)} calls: dispatch {geomean(d):.3f} ({sum(x < 0.95 for x in d)} below 0.95), "
          f"best {geomean(o):.3f} ({sum(x < 0.95 for x in o)})")


def formula_rule():
    times, pick = load()
    swaps = lambda t: [i for i in t if i.startswith("sm90_ws_") and tile(i)["swap"] and
                       tile(i)["tma"] and tile(i)["wgs"] >= 2]
    print(f"dispatch {geomean([t['cublaslt-best'] / t['hgemm'] for t in times.values()]):.4f}")
    print("geomean  margin  efficiency^  from M  changed  lost>3%  below 0.95")
    results = []
    for margin, power, min_m in itertools.product((0, 0.05, 0.1, 0.2), (0.25, 0.5), (512, 800)):
        speed, changed, lost = [], 0, 0
        for call, t in times.items():
            ms = t["hgemm"]
            if call[0] >= min_m:
                best = min(swaps(t), key=lambda i: formula(call, tile(i), power))
                if (best != pick[call] and formula(call, tile(best), power) <
                        (1 - margin) * formula(call, tile(pick[call]), power)):
                    changed += 1
                    lost += t[best] > 1.03 * t["hgemm"]
                    ms = t[best]
            speed.append(t["cublaslt-best"] / ms)
        results.append((geomean(speed), margin, power, min_m, changed, lost,
                        sum(x < 0.95 for x in speed)))
    for r in sorted(results, reverse=True)[:12]:
        print(f"{r[0]:.4f}   {r[1]:.2f}    {r[2]:.2f}         {r[3]:4d}    {r[4]:3d}      {r[5]:3d}      {r[6]:3d}")


if __name__ == "__main__":
    {"calls": calls, "groups": groups, "formula": formula_rule}[
        sys.argv[1] if len(sys.argv) > 1 else "groups"]()
