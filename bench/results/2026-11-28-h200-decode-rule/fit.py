"""The decode rule's stream model against measured rows: how close its pick comes to the fastest
row, and the width rule it replaced, on the H200 sweep and on the H100's tuned decode records
(which the fit never saw). Mirrors dispatch/decode_rule.cpp; on the sweep's 123 shapes that no
table lists, its picks equal `hgemm explain --suite sweep.txt --gpu h200`'s.
    python3 fit.py [--grid]      (from this folder; --grid searches the four constants)"""
import csv, gzip, json, math, sys
from collections import defaultdict

ROWS = {  # name: (block_n, CTAs per SM on sm_90, B in flight in KB, warps), catalog order
    "n8_k128_s6_w4": (8, 1, 48, 4), "n16_k64_s4_w4": (16, 3, 32, 4),
    "n32_k64_s4_w4": (32, 2, 64, 4), "n64_k32_s4_w8": (64, 1, 128, 8),
    "n128_k32_s4_w4": (128, 1, 128, 4), "n16_k32_s4_w8": (16, 3, 32, 8),
    "n32_k32_s4_w8": (32, 2, 64, 8)}
ORDER = list(ROWS)


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def estimate(shape, row, dram, latency=1.2e-6, sm_rate=70e9, warp_rate=7e9, sms=132):
    m, n, k = shape
    bn, per_sm, in_flight, warps = ROWS[row]
    ctas, slots = -(-n // bn), per_sm * sms
    a_per_b = (8 if m <= 8 else 16) / bn

    def wave(active):
        on_sm = -(-active // sms)
        rate = min(in_flight * 1024 / latency, dram / active,
                   sm_rate / (on_sm * (1 + a_per_b)), warps * warp_rate)
        return latency + bn * k * 2 / rate
    full, tail = divmod(ctas, slots)
    return full * (wave(slots) if full else 0) + (wave(tail) if tail else 0)


def model_pick(shape, rows, dram, **kw):
    best = None
    for r in ORDER:
        if r in rows:
            t = estimate(shape, r, dram, **kw)
            if best is None or t < best[0] * (1 - 1e-3):
                best = (t, r)
    return best[1]


def width_rule_pick(shape, rows, sms=132):
    """The rule before dc55554: the widest width with 2 CTAs per SM, widened for A."""
    m, n, _ = shape
    first = {}
    for r in ORDER:
        first.setdefault(ROWS[r][0], r)
    widths = sorted(w for w in first if first[w] in rows)
    ctas = lambda w: -(-n // w)
    pick = 0
    for i in range(len(widths) - 1, -1, -1):
        if ctas(widths[i]) >= 2 * sms:
            pick = i
            break
    while 4 * m > widths[pick] and pick + 1 < len(widths) and ctas(widths[pick + 1]) >= sms:
        pick += 1
    return first[widths[pick]]


def sweep(path):
    t = defaultdict(dict)
    with gzip.open(path, "rt") as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["disposition"] == "passed" and r["impl"].startswith("config:decode_"):
                name = r["impl"][len("config:decode_"):].replace("_f32_tn", "")
                t[(int(r["m"]), int(r["n"]), int(r["k"]))][name] = float(r["ms"])
    return t


def h100_records(path):
    t = defaultdict(dict)
    with gzip.open(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if (r.get("type") == "measurement" and r.get("disposition") == "passed" and
                    r["layout"] == "tn" and r["config"].startswith("decode_")):
                name = r["config"][len("decode_"):].replace("_f32_tn", "")
                s = (r["m"], r["n"], r["k"])
                t[s][name] = min(r["median_us"], t[s].get(name, 1e9))
    return {s: v for s, v in t.items() if len(v) >= 6}


def score(times, pick):
    return geomean([min(v.values()) / v[pick(s, v)] for s, v in times.items()])


if __name__ == "__main__":
    h200 = sweep("sweep-f32.csv.gz")
    h100 = h100_records("../../../data/tuned/nvidia-h100-80gb-hbm3-f32.jsonl.gz")
    for name, times, dram in (("H200 sweep", h200, 4.81e12), ("H100 records", h100, 3.35e12)):
        print(f"{name} ({len(times)} shapes): stream model "
              f"{score(times, lambda s, v: model_pick(s, v, 0.8 * dram)):.3f}, width rule "
              f"{score(times, width_rule_pick):.3f} of the fastest row")
    if "--grid" in sys.argv:
        fits = []
        for frac in (0.7, 0.8, 0.9):
            for lat in (1.0e-6, 1.2e-6, 1.5e-6):
                for sm in (60e9, 70e9, 80e9, 1e15):
                    for warp in (6e9, 7e9, 8e9, 1e15):
                        kw = dict(latency=lat, sm_rate=sm, warp_rate=warp)
                        a = score(h200, lambda s, v: model_pick(s, v, frac * 4.81e12, **kw))
                        b = score(h100, lambda s, v: model_pick(s, v, frac * 3.35e12, **kw))
                        fits.append((min(a, b), a, b, frac, lat, sm, warp))
        for f in sorted(fits, reverse=True)[:10]:
            print("min %.3f  H200 %.3f  H100 %.3f  dram x%.1f  latency %.1e  SM %.0e  warp %.0e" % f)
