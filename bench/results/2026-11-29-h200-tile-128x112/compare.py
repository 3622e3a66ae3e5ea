"""hgemm against cublaslt-best on the held-out fifth (graph mode), per run of heldout/: ref-* ran
main (b14febc), new-* the branch with 128x112 on the siblings axis in both layouts (90933f3,
folded into dae4f70 with the rule that keeps NN off it),
alternated ref, new, ref, new in one device call. Prints each run's geomeans by layout and the
rows of the shapes whose pick changed."""
import csv, gzip, math, pathlib

CHANGED = [(256, 7168, 16384), (500, 3584, 3584)]


def load(path):
    with gzip.open(path, "rt") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(int(r["m"]), int(r["n"]), int(r["k"]), r["layout"], r["impl"]): float(r["ms"])
                for r in rows if r["mode"] == "graph" and r["disposition"] == "passed"}


def geomean(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


here = pathlib.Path(__file__).parent / "heldout"
for acc in ["f32", "f16"]:
    for run in ["ref-1", "new-1", "ref-2", "new-2"]:
        t = load(here / f"{run}-{acc}.csv.gz")
        shapes = sorted({key[:3] for key in t})
        speed = {(s, lay): t[s + (lay, "cublaslt-best")] / t[s + (lay, "hgemm")]
                 for s in shapes for lay in ["tn", "nn"]}
        by_layout = {lay: geomean([speed[s, lay] for s in shapes]) for lay in ["tn", "nn"]}
        changed = ", ".join(f"{s[0]}x{s[1]}x{s[2]} tn {speed[s, 'tn']:.3f} nn {speed[s, 'nn']:.3f}"
                            for s in CHANGED)
        print(f"{acc} {run}: tn {by_layout['tn']:.4f} nn {by_layout['nn']:.4f} ({len(shapes)}"
              f" shapes); {changed}")
