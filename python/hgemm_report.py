#!/usr/bin/env python3
"""The HTML benchmark report: index.html plus PNG figures drawn with matplotlib, in one folder.

    python3 python/hgemm_report.py --html DIR results.csv[.gz]... [--db TUNED.jsonl.gz]
        [--ablation ablation.csv] [--candidate hgemm]

`hgemm report --html DIR FILES...` runs this script. The tables use the definitions of the
Markdown report (src/bench/report.cpp, docs/benchmarking.md): speedup = baseline ms / candidate
ms for one shape, mode and accumulation; only passed rows with a positive time count; the last
row read for a (shape, layout, acc, impl, mode) wins; `-max` gives each side its faster layout;
FLOP buckets on 2*M*N*K (times the batch count of batched rows) with lower edges inclusive; a
row's acc names its element type, epilogue and batch count as the Markdown report's does
("f32_bf16_bias_gelu_b64"), so rows of different ones are never compared.
tests/python/test_hgemm_report.py checks that both agree on tests/data/report-small.csv.

Pages show: the headline (device time and call latency against cublaslt-best and torch), Table 1
and 2 and the geometric mean per FLOP bucket for each mode, speedup against log2(M*N*K) per
baseline, heat maps over (M, N) for a few K, the fraction of the roofline per shape, what the
tuner chose (with --db), the ablation curves (with --ablation) and the environment of each file.
"""

import argparse
import collections
import csv
import gzip
import html
import io
import json
import math
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import colors as mcolors
    from matplotlib import ticker
    import numpy as np
except ImportError as e:  # the caller (hgemm report --html) relays this message
    sys.exit(f"hgemm_report.py: {e.name} is missing: install matplotlib and numpy for Python 3 "
             "(apt-get install python3-matplotlib python3-numpy, or pip install matplotlib)")

MODE_ORDER = ["offline", "graph", "latency", "server"]
REFERENCE = "cublaslt-best"
# Older files have no cublaslt-best rows: the first of these that has rows stands in.
FALLBACK_REFERENCES = ["cublaslt-autotune", "cublaslt-heuristic", "cublas"]
LIBRARY_BASELINES = ["cublas", "cublaslt-heuristic", "cublaslt-autotune"]
# Listed after the reference when their rows exist, as in the Markdown report: torch,
# hgemm-unfused (epilogue runs) and hgemm-loop (one call per batch, in batched runs).
OPTIONAL_BASELINES = ["torch", "hgemm-unfused", "hgemm-loop"]
BUCKET_LABELS = ["<1e9", "1e9-1e10", "1e10-1e11", "1e11-1e12", ">=1e12"]
HEADLINE = [("device time", "graph"), ("call latency", "latency"), ("offline", "offline"),
            ("server", "server")]
MODE_SENTENCE = {
    "graph": "CUDA graphs of back-to-back calls, replayed: the GPU's time per call without the "
             "host's launch cost.",
    "latency": "host wall clock around one call and its stream synchronize: what a caller that "
               "waits for each result sees, launch overhead included.",
    "offline": "eager back-to-back calls on one stream: below about 1e10 FLOP this is the host's "
               "enqueue rate rather than kernel speed, which is what an eager caller gets.",
    "server": "one call after an idle gap (exponential, mean 1/qps), timed with events: an "
              "isolated call on an idle GPU.",
}
# H100 SXM5 datasheet: dense fp16 tensor-core peak and HBM3 bandwidth.
DATASHEET = {"name": "H100 SXM datasheet", "tflops": 989.0, "tbps": 3.35}
ENV_KEYS = ["gpu", "sm_count", "cc", "max_sm_clock_mhz", "driver", "cuda", "cublas", "cublaslt",
            "torch", "git", "date", "pdl", "timing", "command"]
DPI = 100


# ---- reading ---------------------------------------------------------------------------------

def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def report_acc(acc, dtype, epilogue, batch):
    """The acc the reports group by: src/bench/report.cpp's report_acc."""
    out = acc if dtype in ("", "f16") else f"{acc}_{dtype}"
    if epilogue not in ("", "none"):
        out += f"_{epilogue}"
    return out + (f"_b{batch}" if batch != 1 else "")


def read_results(path):
    """(environment as a list of (key, value), rows as dicts) of one results file. Files without
    a dtype, epilogue or batch column hold f16, plain and single-GEMM rows."""
    env, lines = [], []
    have_header = False
    for line in read_text(path).splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if not have_header and "=" in stripped:
                key, value = stripped[1:].split("=", 1)
                env.append((key.strip(), value.strip()))
            continue
        have_header = True
        lines.append(stripped)
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    missing = [c for c in ["m", "n", "k", "layout", "acc", "impl", "mode", "disposition", "ms"]
               if c not in (reader.fieldnames or [])]
    if missing:
        sys.exit(f"hgemm_report.py: {path}: header lacks the required column '{missing[0]}'")
    rows = []
    for r in reader:
        ms = r["ms"].strip()
        batch = int((r.get("batch") or "").strip() or 1)
        acc = report_acc(r["acc"].strip(), (r.get("dtype") or "").strip(),
                         (r.get("epilogue") or "").strip(), batch)
        rows.append({
            "m": int(r["m"]), "n": int(r["n"]), "k": int(r["k"]), "layout": r["layout"].strip(),
            "acc": acc, "batch": batch, "impl": r["impl"].strip(), "mode": r["mode"].strip(),
            "disposition": r["disposition"].strip(), "ms": float(ms) if ms else float("nan"),
            "detail": (r.get("detail") or "").strip(),
        })
    return env, rows


def timed(row):
    return row["disposition"] == "passed" and math.isfinite(row["ms"]) and row["ms"] > 0


def flops(m, n, k, batch=1):
    return 2.0 * m * n * k * batch


# ---- the arithmetic of src/bench/report.cpp ---------------------------------------------------

class Results:
    def __init__(self, rows):
        self.rows = rows
        last = {}
        for r in rows:
            last[(r["m"], r["n"], r["k"], r["layout"], r["acc"], r["impl"], r["mode"])] = r
        # (impl, mode, acc) -> shape -> layout -> ms; the last row of a key wins even if it failed.
        self.by = collections.defaultdict(lambda: collections.defaultdict(dict))
        for (m, n, k, layout, acc, impl, mode), r in last.items():
            if timed(r):
                self.by[(impl, mode, acc)][(m, n, k)][layout] = r["ms"]
        self.impls = {r["impl"] for r in rows}
        seen = {r["mode"] for r in rows}
        self.modes = [m for m in MODE_ORDER if m in seen] + sorted(seen - set(MODE_ORDER))
        self.accs = sorted({r["acc"] for r in rows})
        # One acc holds one batch count (its name ends in it), so its shapes share it.
        self.batch = {r["acc"]: r["batch"] for r in rows}

    def compare(self, candidate, baseline, layout, mode, acc):
        """(list of (m, n, k, cand_ms, base_ms, speedup) sorted by shape, candidate_missing)."""
        base = self.by.get((baseline, mode, acc), {})
        cand = self.by.get((candidate, mode, acc), {})
        out, missing = [], 0
        for shape in sorted(base):
            b_layouts, c_layouts = base[shape], cand.get(shape, {})
            if layout == "max":
                b_ms = min(b_layouts.values())
                if not c_layouts:
                    missing += 1
                    continue
                c_ms = min(c_layouts.values())
            else:
                if layout not in b_layouts:
                    continue
                b_ms = b_layouts[layout]
                if layout not in c_layouts:
                    missing += 1
                    continue
                c_ms = c_layouts[layout]
            out.append((*shape, c_ms, b_ms, b_ms / c_ms))
        return out, missing

    def reference(self):
        if REFERENCE in self.impls:
            return REFERENCE
        for impl in FALLBACK_REFERENCES:
            if impl in self.impls:
                return impl
        return REFERENCE

    def baselines(self):
        impls = [self.reference()] + [b for b in OPTIONAL_BASELINES if b in self.impls]
        impls += [b for b in [REFERENCE] + LIBRARY_BASELINES if b not in impls]
        return [(impl, layout) for impl in impls for layout in ("nn", "tn", "max")]


def speedup_stats(speedups, clip):
    n = len(speedups)
    if n == 0:
        return {"n": 0, "mean": 0.0, "median": 0.0, "std": 0.0, "wins": 0}
    gains = [(max(x, 1.0) if clip else x) - 1.0 for x in speedups]
    mean = sum(gains) / n
    s = sorted(gains)
    median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    std = math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1)) if n > 1 else 0.0
    return {"n": n, "mean": mean, "median": median, "std": std,
            "wins": sum(1 for x in speedups if x > 1.0)}


def flop_bucket(f):
    for i, edge in enumerate([1e9, 1e10, 1e11, 1e12]):
        if f < edge:
            return i
    return 4


def bucket_stats(shapes, batch=1):
    """Entries 0..4 the FLOP buckets (of the whole call: `batch` products), 5 all shapes: dicts
    of n, geomean, slower."""
    log_sum = [0.0] * 6
    out = [{"n": 0, "geomean": 0.0, "slower": 0} for _ in range(6)]
    for m, n, k, _, _, s in shapes:
        for b in (flop_bucket(flops(m, n, k, batch)), 5):
            out[b]["n"] += 1
            log_sum[b] += math.log(s)
            out[b]["slower"] += s < 1.0
    for b in range(6):
        if out[b]["n"]:
            out[b]["geomean"] = math.exp(log_sum[b] / out[b]["n"])
    return out


def headline(res, candidate):
    baselines = [res.reference()] + [b for b in OPTIONAL_BASELINES
                                     if b != candidate and b in res.impls]
    candidates = [candidate]
    if candidate == "hgemm" and "hgemm-nopdl" in res.impls:
        candidates.append("hgemm-nopdl")
    out = []
    for metric, mode in HEADLINE:
        for acc in res.accs:
            for cand in candidates:
                cells = []
                for base in baselines:
                    shapes, missing = res.compare(cand, base, "max", mode, acc)
                    b = bucket_stats(shapes)[5]
                    cells.append({"baseline": base, "n": b["n"], "geomean": b["geomean"],
                                  "faster": sum(1 for s in shapes if s[5] > 1.0),
                                  "missing": missing})
                if any(c["n"] for c in cells):
                    out.append({"metric": metric, "mode": mode, "acc": acc, "candidate": cand,
                                "cells": cells})
    return out


# ---- HTML helpers -----------------------------------------------------------------------------

def esc(x):
    return html.escape(str(x))


def pct(x):
    return f"{100.0 * x:+.1f}%"


def table(header, rows, numeric_from=1):
    o = ["<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>"]
    for r in rows:
        o.append("<tr>" + "".join(
            f"<td class=\"{'num' if i >= numeric_from else ''}\">{esc(c)}</td>"
            for i, c in enumerate(r)) + "</tr>")
    o.append("</table>")
    return "\n".join(o)


def save(fig, out_dir, name, figures):
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    figures.append(name)
    return f'<img src="{esc(name)}" alt="{esc(name)}">'


def log2_flop_axis(ax):
    ax.set_xlabel("log2(M·N·K)")
    ax.xaxis.set_major_locator(ticker.MultipleLocator(4))


def speedup_log_axis(ax, label):
    ax.set_yscale("log", base=2)
    ax.yaxis.set_major_locator(ticker.FixedLocator([0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 8]))
    ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_locator(ticker.NullLocator())
    ax.set_ylabel(label + " (log scale)")
    ax.axhline(1.0, color="0.3", lw=1, ls="--")


def rolling_median(x, y, window):
    order = np.argsort(x)
    xs, ys = np.asarray(x)[order], np.asarray(y)[order]
    half = window // 2
    med = np.array([np.median(ys[max(0, i - half):i + half + 1]) for i in range(len(ys))])
    return xs, med


# ---- sections ---------------------------------------------------------------------------------

def section_headline(res, cand):
    lines = headline(res, cand)
    if not lines:
        return f"<p>No shape has both a passed <code>{esc(cand)}</code> time and a passed " \
               "baseline time.</p>"
    o = ["<h2>Headline</h2>",
         f"<p>Geometric-mean speedup of {esc(cand)} (baseline time / {esc(cand)} time) over "
         "every shape both sides timed, each side in its faster layout (<code>-max</code>); in "
         f"brackets: shapes where {esc(cand)} is faster / shapes.</p>"]
    if res.reference() != REFERENCE:
        o.append(f"<p class=\"warn\">These files have no <code>{REFERENCE}</code> rows (written "
                 f"before it existed): <code>{esc(res.reference())}</code> stands in as the "
                 "reference.</p>")
    header = ["metric", "mode", "acc", "candidate"] + \
             [f"vs {c['baseline']}-max" for c in lines[0]["cells"]]
    rows = []
    for line in lines:
        rows.append([line["metric"], line["mode"], line["acc"], line["candidate"]] +
                    ["-" if c["n"] == 0 else f"{c['geomean']:.3f} ({c['faster']}/{c['n']})"
                     for c in line["cells"]])
    o.append(table(header, rows, numeric_from=4))
    o.append("<ul>")
    modes = {line["mode"] for line in lines}
    for _, mode in HEADLINE:
        if mode in modes:
            o.append(f"<li><b>{mode}</b>: {esc(MODE_SENTENCE[mode])}</li>")
    o.append("</ul>")
    pdl = sum(1 for r in res.rows if r["impl"] == cand and ", PDL" in r["detail"]
              and ", no PDL" not in r["detail"])
    no_pdl = sum(1 for r in res.rows if r["impl"] == cand and ", no PDL" in r["detail"])
    said = (f"launched with it in {pdl} of {pdl + no_pdl} rows that say" if pdl + no_pdl
            else "do not say whether they used it (older files; see the pdl line of the "
                 "environment)")
    o.append(f"<p>Programmatic dependent launch (PDL): <code>{esc(cand)}</code> rows {said}. "
             "hgemm uses it on sm_90, where each kernel may start its setup while the previous "
             "one in the stream finishes: in graph and offline mode that is the previous call; "
             "latency and server mode time single calls and gain nothing from it. cuBLASLt's "
             "API offers no such launch, and torch calls cuBLAS(Lt). <code>hgemm-nopdl</code> "
             "rows are hgemm without it.</p>")
    return "\n".join(o)


def section_tables(res, cand):
    o = ["<h2>Tables per mode</h2>",
         "<p>Table 1: speedup − 1 over each baseline (mean, median, sample std). Table 2: the "
         "same of max(speedup, 1) − 1. Then the geometric-mean speedup per FLOP bucket of "
         f"2·M·N·K: geomean (shapes where {esc(cand)} is slower / shapes). NN/TN baselines are "
         f"compared with {esc(cand)} in the same layout; “missing” counts shapes the baseline "
         f"timed but {esc(cand)} did not.</p>"]
    for mode in res.modes:
        for acc in res.accs:
            cells = []
            for impl, layout in res.baselines():
                shapes, missing = res.compare(cand, impl, layout, mode, acc)
                if shapes or missing:
                    cells.append((f"{impl}-{layout}", shapes, missing))
            if not cells:
                continue
            o.append(f"<h3>{esc(mode)}, {esc(acc)} accumulation</h3>")
            o.append(f"<p class=\"note\">{esc(MODE_SENTENCE.get(mode, ''))}</p>")
            for title, clip in (("Table 1: speedup − 1", False),
                                ("Table 2: max(speedup, 1) − 1", True)):
                rows = []
                for label, shapes, missing in cells:
                    s = speedup_stats([x[5] for x in shapes], clip)
                    rows.append([label, s["n"], pct(s["mean"]), pct(s["median"]),
                                 f"{100.0 * s['std']:.1f}%", f"{s['wins']}/{s['n']}", missing])
                o.append(f"<h4>{title}</h4>")
                o.append(table(["baseline", "N", "mean", "median", "std", f"{cand} faster",
                                f"{cand} missing"], rows))
            rows = []
            for label, shapes, _ in cells:
                rows.append([label] + ["-" if b["n"] == 0 else
                                       f"{b['geomean']:.3f} ({b['slower']}/{b['n']})"
                                       for b in bucket_stats(shapes, res.batch.get(acc, 1))])
            o.append("<h4>Geometric mean per FLOP bucket</h4>")
            o.append(table(["baseline"] + BUCKET_LABELS + ["all"], rows))
    return "\n".join(o)


def fig_speedup_scatter(res, cand, out_dir, figures):
    o = ["<h2>Speedup against problem size</h2>",
         "<p>One point per shape: each side in its faster layout. The line is a rolling median "
         "over neighbouring shapes (window: a twentieth of the shapes, at least 5). Dashed: "
         "parity.</p>"]
    impls = [i for i in [res.reference(), "torch"] + LIBRARY_BASELINES if i in res.impls]
    impls = list(dict.fromkeys(impls))
    for mode in [m for m in ["graph", "latency", "offline", "server"] if m in res.modes]:
        for acc in res.accs:
            panels = [(impl, res.compare(cand, impl, "max", mode, acc)[0]) for impl in impls]
            panels = [(impl, shapes) for impl, shapes in panels if shapes]
            if not panels:
                continue
            cols = min(3, len(panels))
            rows = math.ceil(len(panels) / cols)
            fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False,
                                     sharey=True, constrained_layout=True)
            for ax in axes.flat[len(panels):]:
                ax.set_visible(False)
            for ax, (impl, shapes) in zip(axes.flat, panels):
                x = [math.log2(m * n * k) for m, n, k, *_ in shapes]
                y = [s[5] for s in shapes]
                # Small files get larger, opaque points, or a handful of shapes is invisible.
                few = len(x) < 200
                ax.scatter(x, y, s=24 if few else 6, alpha=0.8 if few else 0.45,
                           color="tab:blue", linewidths=0, label="shape")
                xs, med = rolling_median(x, y, max(5, len(x) // 20))
                ax.plot(xs, med, color="tab:red", lw=1.6, label="rolling median")
                geo = bucket_stats(shapes)[5]["geomean"]
                ax.set_title(f"vs {impl}-max  (geomean {geo:.3f}, {len(shapes)} shapes)",
                             fontsize=9)
                log2_flop_axis(ax)
                speedup_log_axis(ax, "speedup")
                ax.grid(True, alpha=0.3)
                ax.legend(loc="upper right", fontsize=8)
            fig.suptitle(f"{cand} speedup, {mode} mode, {acc} accumulation", fontsize=11)
            o.append(save(fig, out_dir, f"speedup-{mode}-{acc}.png", figures))
    return "\n".join(o)


def fig_heatmaps(res, cand, out_dir, figures):
    ref = res.reference()
    mode = "graph" if "graph" in res.modes else (res.modes[0] if res.modes else None)
    o = []
    for acc in res.accs:
        shapes = res.compare(cand, ref, "max", mode, acc)[0] if mode else []
        if not shapes:
            continue
        by_k = collections.defaultdict(dict)
        for m, n, k, _, _, s in shapes:
            by_k[k][(m, n)] = s
        # Among the K values with at least half the shapes of the fullest one: the smallest, the
        # middle and the largest, so the panels span the range of K.
        full = max(len(v) for v in by_k.values())
        dense = sorted(k for k, v in by_k.items() if 2 * len(v) >= full)
        ks = sorted({dense[0], dense[len(dense) // 2], dense[-1]})
        if not o:
            o = ["<h2>Speedup over (M, N)</h2>",
                 f"<p>{esc(cand)} against {esc(ref)}-max in {esc(mode)} mode for the smallest, "
                 "a middle and the largest K among the well-covered ones. Colour: speedup on a log scale, red where "
                 f"{esc(cand)} is faster, blue where it is slower; blank: not timed.</p>"]
        fig, axes = plt.subplots(1, len(ks), figsize=(5.0 * len(ks), 4.6), squeeze=False,
                                 constrained_layout=True)
        vals = [v for k in ks for v in by_k[k].values()]
        span = max(1.25, max(max(vals), 1 / min(vals)))
        norm = mcolors.LogNorm(vmin=1 / span, vmax=span)
        for ax, k in zip(axes.flat, ks):
            ms = sorted({m for m, _ in by_k[k]})
            ns = sorted({n for _, n in by_k[k]})
            grid = np.full((len(ms), len(ns)), np.nan)
            for (m, n), s in by_k[k].items():
                grid[ms.index(m), ns.index(n)] = s
            im = ax.imshow(grid, origin="lower", cmap="RdBu_r", norm=norm, aspect="auto")
            ax.set_xticks(range(len(ns)))
            ax.set_xticklabels([str(n) for n in ns], rotation=90, fontsize=7)
            ax.set_yticks(range(len(ms)))
            ax.set_yticklabels([str(m) for m in ms], fontsize=7)
            ax.set_xlabel("N")
            ax.set_ylabel("M")
            ax.set_title(f"K = {k}  ({len(by_k[k])} shapes)", fontsize=10)
            if len(ms) * len(ns) <= 64:
                for i in range(len(ms)):
                    for j in range(len(ns)):
                        if not np.isnan(grid[i, j]):
                            dark = abs(math.log(grid[i, j])) > 0.6 * math.log(span)
                            ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center",
                                    fontsize=8, color="white" if dark else "black")
        cb = fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.9)
        cb.set_label(f"speedup over {ref}-max (log scale)")
        cb.set_ticks([t for t in [0.5, 0.67, 0.8, 1, 1.25, 1.5, 2] if 1 / span <= t <= span])
        cb.ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        cb.ax.yaxis.set_minor_formatter(ticker.NullFormatter())
        fig.suptitle(f"{cand} vs {ref}-max, {mode} mode, {acc} accumulation", fontsize=11)
        o.append(save(fig, out_dir, f"heatmap-{mode}-{acc}.png", figures))
    return "\n".join(o)


def env_number(envs, key):
    for env in envs:
        for k, v in env:
            if k == key:
                try:
                    return float(v.split()[0])
                except ValueError:
                    pass
    return None


def fig_roofline(res, envs, cand, out_dir, figures):
    mode = "graph" if "graph" in res.modes else None
    if not mode:
        return ""
    measured_tf = env_number(envs, "peak_tflops")
    measured_bw = env_number(envs, "dram_tbps")
    o = ["<h2>Fraction of the roofline</h2>",
         "<p>Per shape, achieved TFLOP/s in graph mode (each side's faster layout) over the "
         "roofline min(peak, bandwidth × arithmetic intensity), where intensity = 2·M·N·K / "
         "(2·(M·K + K·N + M·N)) FLOP per byte of fp16 A, B and C, each moved once.</p>"]
    rows = [["dense fp16 peak (TFLOP/s)", f"{measured_tf:g}" if measured_tf else
             "not measured", f"{DATASHEET['tflops']:g}"],
            ["DRAM bandwidth (TB/s)", f"{measured_bw:g}" if measured_bw else "not measured",
             f"{DATASHEET['tbps']:g}"]]
    o.append(table(["", "measured on the device (environment lines peak_tflops, dram_tbps)",
                    DATASHEET["name"]], rows))
    if not (measured_tf and measured_bw):
        o.append("<p class=\"warn\">The results files carry no measured peak or bandwidth "
                 "(<code>hgemm bench</code> does not measure them yet): the fractions below use "
                 "the datasheet values.</p>")
    peak = (measured_tf or DATASHEET["tflops"]) * 1e12
    bw = (measured_bw or DATASHEET["tbps"]) * 1e12
    impls = [i for i in [cand, res.reference(), "torch"] if i in res.impls]
    for acc in res.accs:
        series = []
        for impl in impls:
            pts = []
            for shape, layouts in sorted(res.by.get((impl, mode, acc), {}).items()):
                m, n, k = shape
                ms = min(layouts.values())
                # A batched call moves and computes `batch` times one product's: same intensity.
                batch = res.batch.get(acc, 1)
                f = flops(m, n, k, batch)
                roof = min(peak, bw * f / (2.0 * (m * k + k * n + m * n) * batch))
                pts.append((math.log2(m * n * k), f / (ms * 1e-3) / roof))
            if pts:
                series.append((impl, pts))
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(9, 4.2), constrained_layout=True)
        markers = {cand: "o", "torch": "^"}
        for impl, pts in series:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=7, alpha=0.5,
                       marker=markers.get(impl, "s"), label=impl, linewidths=0)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel("fraction of the roofline (linear)")
        log2_flop_axis(ax)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize=8, markerscale=2)
        src = "measured" if measured_tf and measured_bw else "datasheet"
        ax.set_title(f"{mode} mode, {acc} accumulation; roofline: {src} "
                     f"{peak / 1e12:g} TFLOP/s, {bw / 1e12:g} TB/s", fontsize=10)
        o.append(save(fig, out_dir, f"roofline-{acc}.png", figures))
    return "\n".join(o)


CONFIG_RE = re.compile(r"^(sm\d+_[a-z]+)_(\d+)x(\d+)x(\d+)_s(\d+)(?:_c(\d+)x(\d+))?.*_sk(\d+)_")


def parse_config(name):
    m = CONFIG_RE.match(name)
    if not m:
        return None
    cm, cn = int(m.group(6) or 1), int(m.group(7) or 1)
    return {"family": m.group(1), "block_m": int(m.group(2)), "block_n": int(m.group(3)),
            "stages": int(m.group(5)), "split_k": int(m.group(8)), "cluster": cm * cn}


def db_winners(path):
    """Per (m, n, k, layout, acc): the config with the highest mean reward over its passed
    measurements, as dispatch's TunedTable picks (without its blocklist and catalog checks);
    the lowest mean median_us where records carry no reward."""
    sums = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for line in read_text(path).splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("type", "measurement") != "measurement" or rec.get("disposition") != "passed":
            continue
        key = (rec["m"], rec["n"], rec["k"], rec.get("layout"), rec.get("acc"))
        s = sums[(key, rec["config"])]
        reward = rec.get("reward")
        s[0] += reward if isinstance(reward, (int, float)) else -rec.get("median_us", math.inf)
        s[1] += rec.get("median_us", math.nan)
        s[2] += 1
    best = {}
    for (key, config), (score, us, count) in sums.items():
        if key not in best or score / count > best[key][1]:
            best[key] = (config, score / count)
    return {key: config for key, (config, _) in best.items()}


def fig_tuner(db_path, out_dir, figures):
    winners = db_winners(db_path)
    parsed = [(key, parse_config(c)) for key, c in winners.items()]
    parsed = [(key, p) for key, p in parsed if p]
    o = ["<h2>What the tuner chose</h2>",
         f"<p>The winner of each tuned problem in <code>{esc(db_path)}</code> ({len(parsed)} "
         "problems; highest mean reward over its passed measurements, as dispatch picks): its "
         "block (CTA tile) M and N, pipeline stages, split-K and cluster size (CTAs), against "
         "M, N and K grouped by powers of two. Boxes: quartiles; whiskers: 1.5 IQR.</p>"]
    if not parsed:
        o.append("<p class=\"warn\">No passed measurement with a parsable config.</p>")
        return "\n".join(o)
    families = collections.Counter(p["family"] for _, p in parsed)
    o.append("<p>Families: " + ", ".join(f"{esc(f)} {c}" for f, c in families.most_common()) +
             "</p>")
    params = [("block_m", "block M"), ("block_n", "block N"), ("stages", "stages"),
              ("split_k", "split-K"), ("cluster", "cluster (CTAs)")]
    dims = [(0, "M"), (1, "N"), (2, "K")]
    fig, axes = plt.subplots(len(params), len(dims), figsize=(13, 2.5 * len(params)),
                             constrained_layout=True)
    for r, (param, plabel) in enumerate(params):
        for c, (dim, dlabel) in enumerate(dims):
            groups = collections.defaultdict(list)
            for key, p in parsed:
                groups[int(math.floor(math.log2(key[dim])))].append(p[param])
            xs = sorted(groups)
            ax = axes[r][c]
            ax.boxplot([groups[x] for x in xs], positions=range(len(xs)), widths=0.6,
                       flierprops={"markersize": 2})
            ax.set_xticks(range(len(xs)))
            ax.set_xticklabels([f"2^{x}" for x in xs], fontsize=7, rotation=45)
            if param in ("block_m", "block_n", "split_k", "cluster"):
                ax.set_yscale("log", base=2)
                ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
                plabel_axis = plabel + " (log2)"
            else:
                plabel_axis = plabel
            ax.set_ylabel(plabel_axis, fontsize=8)
            ax.set_xlabel(f"{dlabel} (power-of-two group)", fontsize=8)
            ax.grid(True, axis="y", alpha=0.3)
    o.append(save(fig, out_dir, "tuner-choices.png", figures))
    return "\n".join(o)


def fig_ablation(path, out_dir, figures):
    curves = collections.defaultdict(list)
    with io.StringIO(read_text(path)) as f:
        for r in csv.DictReader(f):
            curves[r["policy"]].append((int(r["n"]), float(r["geomean_ratio"]),
                                        float(r["geomean_speedup"])))
    o = ["<h2>Search-policy ablation</h2>",
         f"<p>From <code>{esc(path)}</code> (<code>hgemm ablate</code>, a replay of an "
         "exhaustive tuning run): the best found so far after n evaluations per problem, "
         "geometric mean over problems.</p>"]
    if not curves:
        o.append("<p class=\"warn\">The file has no rows.</p>")
        return "\n".join(o)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), constrained_layout=True)
    for policy, pts in curves.items():
        pts.sort()
        axes[0].plot([p[0] for p in pts], [p[1] for p in pts], label=policy)
        axes[1].plot([p[0] for p in pts], [p[2] for p in pts], label=policy)
    axes[0].axhline(0.98, color="0.3", ls="--", lw=1, label="2% of optimum")
    axes[0].set_ylabel("geomean ratio to the optimum")
    axes[1].set_ylabel("geomean best speedup over cuBLASLt")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        ax.set_xlabel("evaluations per problem (log2 scale)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    o.append(save(fig, out_dir, "ablation.png", figures))
    return "\n".join(o)


def section_environment(inputs):
    o = ["<h2>Environment</h2>"]
    header = ["key"] + [os.path.basename(path) for path, _, _ in inputs]
    rows = []
    for key in ENV_KEYS:
        vals = [dict(env).get(key, "") for _, env, _ in inputs]
        if any(vals):
            rows.append([key] + vals)
    o.append(table(header, rows, numeric_from=99))
    clocks = [r for _, _, rows_ in inputs for r in rows_]
    o.append(f"<p>{len(clocks)} rows in all. SM clocks per measurement are in the CSVs' "
             "<code>sm_clock_before_mhz</code> / <code>sm_clock_after_mhz</code> columns.</p>")
    return "\n".join(o)


STYLE = """
body { font-family: sans-serif; max-width: 1340px; margin: 1em auto; padding: 0 1em;
       color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 2px 8px; }
th { background: #f0f0f0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
img { max-width: 100%; display: block; margin: 0.5em 0 1.5em; }
.warn { color: #a40; }
.note { color: #555; font-style: italic; }
h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
code { background: #f4f4f4; padding: 0 3px; }
"""


def write_report(out_dir, paths, candidate="hgemm", db=None, ablation=None):
    """Writes out_dir/index.html and its PNGs; returns the figure file names."""
    os.makedirs(out_dir, exist_ok=True)
    inputs = [(p, *read_results(p)) for p in paths]
    res = Results([r for _, _, rows in inputs for r in rows])
    envs = [env for _, env, _ in inputs]
    figures = []
    body = [f"<h1>hgemm benchmark report</h1>",
            "<p>Inputs: " + ", ".join(f"<code>{esc(p)}</code> ({len(rows)} rows)"
                                      for p, _, rows in inputs) +
            f". Candidate: <code>{esc(candidate)}</code>. Definitions: docs/benchmarking.md; "
            "<code>hgemm report</code> prints the same tables as Markdown.</p>",
            section_headline(res, candidate),
            fig_speedup_scatter(res, candidate, out_dir, figures),
            fig_heatmaps(res, candidate, out_dir, figures),
            fig_roofline(res, envs, candidate, out_dir, figures)]
    if db:
        body.append(fig_tuner(db, out_dir, figures))
    if ablation:
        body.append(fig_ablation(ablation, out_dir, figures))
    body.append(section_tables(res, candidate))
    body.append(section_environment(inputs))
    page = ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>hgemm benchmark report"
            f"</title><style>{STYLE}</style></head><body>\n" + "\n".join(body) +
            "\n</body></html>\n")
    with open(os.path.join(out_dir, "index.html"), "w", encoding="utf-8") as f:
        f.write(page)
    return figures


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--html", required=True, metavar="DIR", help="output folder")
    p.add_argument("--db", help="tuning database (JSON Lines, may be gzip-compressed)")
    p.add_argument("--ablation", help="hgemm ablate's ablation.csv")
    p.add_argument("--candidate", default="hgemm")
    p.add_argument("files", nargs="+", help="results CSVs (.csv or .csv.gz)")
    a = p.parse_args(argv)
    for path in a.files + [x for x in (a.db, a.ablation) if x]:
        if not os.path.isfile(path):
            sys.exit(f"hgemm_report.py: cannot read {path}")
    figures = write_report(a.html, a.files, a.candidate, a.db, a.ablation)
    print(f"HTML report: {os.path.join(a.html, 'index.html')} ({len(figures)} figures)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
