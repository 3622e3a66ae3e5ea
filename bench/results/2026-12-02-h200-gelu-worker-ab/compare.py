"""Fused (bias + GELU) over plain, and fused over cublaslt-best, per shape: ref and new, two rounds each."""
import csv, gzip, math, pathlib

here = pathlib.Path(__file__).parent


def load(name):
    rows = (l for l in gzip.open(here / name, "rt") if not l.startswith("#"))
    return {(int(r["m"]), int(r["n"]), int(r["k"]), r["impl"]): r for r in csv.DictReader(rows)}


runs = {(side, r): load(f"bg-{side}-{r}.csv.gz") for side in ("ref", "new") for r in (1, 2)}
shapes = sorted({key[:3] for key in runs["ref", 1]})
ratios = {}
print("shape            fused/plain: ref1  ref2  new1  new2 | fused/cublaslt-best: ref1  ref2  new1  new2  tile")
for s in shapes:
    fp, fc = [], []
    for (side, r), d in runs.items():
        ms = {impl: float(d[s + (impl,)]["ms"]) for impl in ("hgemm", "hgemm-plain", "cublaslt-best")}
        fp.append(ms["hgemm"] / ms["hgemm-plain"])
        fc.append(ms["hgemm"] / ms["cublaslt-best"])
        ratios.setdefault(("plain", side), []).append(fp[-1])
        ratios.setdefault(("cublaslt-best", side), []).append(fc[-1])
    tile = runs["new", 1][s + ("hgemm",)]["detail"].split(" ")[0]
    print(f"{'x'.join(map(str, s)):16s} {'  '.join(f'{x:.3f}' for x in fp)} | {'  '.join(f'{x:.3f}' for x in fc)}  {tile}")
for (over, side), v in ratios.items():
    print(f"fused / {over}, {side}: geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f}")
