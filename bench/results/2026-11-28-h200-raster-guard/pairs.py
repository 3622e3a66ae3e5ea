"""The raster guard's fit on the H100's histories: for each tuned problem whose winner is an sm90
config with a raster other than the default (along M, group 8), and each of its 8 nearest tuned
problems (squared log2 distance, same layout and accumulation) where both that raster and the
default of the same tile were measured, the inherited raster's speedup over the default's there;
then the same over the pairs where raster_rereads (src/dispatch/cost.cpp) holds.
python3 pairs.py data/tuned/nvidia-h100-80gb-hbm3-f32.jsonl.gz data/tuned/...-f16.jsonl.gz"""
import collections, gzip, json, math, re, sys

NAME = re.compile(r"(sm90_(?:ws|pp)_(\d+)x(\d+)x\d+_s\d+_c(\d)x(\d)_w\d)_([mn])(\d+)_(.*)")
best = {}                                # problem -> (speedup, config)
times = collections.defaultdict(dict)    # (problem, tile) -> raster -> best speedup
l2 = sms = None
for path in sys.argv[1:]:
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        if r.get("type") == "header":
            l2, sms = int(r["l2_bytes"]), int(r["sm_count"])
        if r.get("type") != "measurement" or r["disposition"] != "passed":
            continue
        p = (r["m"], r["n"], r["k"], r["layout"], r["acc"])
        if r["speedup"] > best.get(p, (0, None))[0]:
            best[p] = (r["speedup"], r["config"])
        m = NAME.match(r["config"])
        if m:
            tile, ras = m.group(1) + "_" + m.group(8), m.group(6) + m.group(7)
            times[p, tile][ras] = max(times[p, tile].get(ras, 0), r["speedup"])


def operand_bytes(M, N, K, bm, bn, cm, cn, along, g):
    rows = math.ceil(math.ceil(M / bm) / cm)
    cols = math.ceil(math.ceil(N / bn) / cn)
    a, b = 2 * M * K, 2 * N * K
    if along == "m":
        return a + (b if b <= l2 / 2 else b * math.ceil(rows / min(g, rows)))
    return b + (a if a <= l2 / 2 else a * math.ceil(cols / min(g, cols)))


def rereads(M, N, K, geo, along, g):
    mine, plain = operand_bytes(M, N, K, *geo, along, g), operand_bytes(M, N, K, *geo, "m", 8)
    return mine > 1.05 * plain and mine * 1.25 > 0.8 * M * N * K / sms


def dist(p, q):
    return sum((math.log2(x) - math.log2(y)) ** 2 for x, y in zip(p[:3], q[:3]))


by_kind = collections.defaultdict(list)
for p in best:
    by_kind[p[3:]].append(p)
pairs = []
for p, (_, config) in best.items():
    m = NAME.match(config)
    if not m or m.group(6) + m.group(7) == "m8":
        continue
    tile, ras = m.group(1) + "_" + m.group(8), m.group(6) + m.group(7)
    geo = tuple(int(m.group(i)) for i in (2, 3, 4, 5))
    for q in sorted(by_kind[p[3:]], key=lambda q: dist(p, q))[1:9]:
        v = times.get((q, tile))
        if v and ras in v and "m8" in v:
            pairs.append((v[ras] / v["m8"], rereads(*q[:3], geo, ras[0], int(ras[1:])), ras))


def summary(label, xs):
    g = math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
    print(f"{label}: {len(xs)} pairs, inherited / default {g:.4f}, below 0.9 {sum(x < 0.9 for x in xs)}, "
          f"above 1.05 {sum(x > 1.05 for x in xs)}, above 1.1 {sum(x > 1.1 for x in xs)}")


summary("all", [x for x, _, _ in pairs])
for ras in sorted({r for _, _, r in pairs}):
    summary(f"  inherited {ras}", [x for x, _, r in pairs if r == ras])
summary("raster_rereads holds", [x for x, f, _ in pairs if f])
summary("the guard's outcome (default where it holds)", [1.0 if f else x for x, f, _ in pairs])
