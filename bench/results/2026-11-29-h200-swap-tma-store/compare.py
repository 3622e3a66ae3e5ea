"""Figures of this folder's README: python3 compare.py [twins|ab]

twins: each swap-AB tile with direct stores (st) against its TMA-store twin and cublaslt-best,
interleaved in one `hgemm bench` per shape (twins/bench.tgz).
ab: dispatch before (ref) and after (new) the TMA-store rule, alternated (ab/, scripts/ab-compare).
"""
import csv
import io
import math
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def twins():
    with tarfile.open(os.path.join(HERE, "twins", "bench.tgz")) as tar:
        for acc in ("f32", "f16"):
            ratios = []
            for i in range(1, 13):
                text = tar.extractfile(f"bench-{acc}-{i}.csv").read().decode()
                rows = list(csv.DictReader(l for l in io.StringIO(text) if not l.startswith("#")))
                assert all(r["disposition"] == "passed" for r in rows)
                t = {}
                for r in rows:
                    kind = ("cb" if r["impl"] == "cublaslt-best"
                            else "tma" if "_tma_" in r["impl"] else "st")
                    t[kind] = (float(r["ms"]) * 1e3, r["impl"])
                shape = f"{rows[0]['m']}x{rows[0]['n']}x{rows[0]['k']}"
                st, tma, cb = t["st"][0], t["tma"][0], t["cb"][0]
                ratios.append(st / tma)
                tile = t["st"][1].split("sm90_ws_")[1].split("_c1x1")[0]
                print(f"{acc} {shape:15s} {tile:16s} st {st:6.1f} tma {tma:6.1f} cublaslt-best {cb:6.1f} us"
                      f"  st/tma {st / tma:.3f}  cublaslt-best/st {cb / st:.3f}  /tma {cb / tma:.3f}")
            print(f"{acc}: st/tma geomean {geomean(ratios):.3f}, min {min(ratios):.3f}\n")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "twins"
    if what == "twins":
        twins()
    else:
        os.execvp(os.path.join(HERE, "..", "..", "..", "scripts", "ab-compare"),
                  ["ab-compare", os.path.join(HERE, "ab"), "--impl", "hgemm", "--baseline",
                   "cublaslt-best", "--picks"])
