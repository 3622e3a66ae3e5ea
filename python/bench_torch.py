#!/usr/bin/env python3
"""Times torch.matmul (layout nn: B is K x N) and F.linear (layout tn: the weight is N x K) with
the same modes, buffer rotation and CSV schema as `hgemm bench`, so `hgemm report` can merge the
rows (impl name `torch`).

    python/bench_torch.py --suite grid --out torch.csv [--modes offline,graph,latency,server]
        [--layout nn,tn] [--acc f32,f16] [--resume] [--loop-ms 1.5] [--loops 5]
        [--latency-calls 20] [--server-calls 10] [--qps 100] [--seed 24301]

Modes (docs/benchmarking.md):
  offline  back-to-back calls on one stream, CUDA events around loops, median of loops
  graph    the same rotated calls captured with torch.cuda.CUDAGraph and replayed
  latency  host wall clock around one call plus a stream synchronize, median of calls
  server   an exponential idle gap (mean 1/qps) before each call, each call timed with events

torch has no fp16-accumulation switch: with --acc f16 the rows time torch's default path (fp32
accumulation, reduced-precision reduction allowed) and say so in the detail column, so that f16
hgemm rows can still be compared with what a torch user gets.
"""

import argparse
import csv
import datetime
import math
import os
import random
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

COLUMNS = [
    "m", "n", "k", "layout", "acc", "impl", "mode", "disposition", "ms", "tflops", "p20_ms",
    "p80_ms", "min_ms", "max_ms", "samples", "calls_per_sample", "sets", "sm_clock_before_mhz",
    "sm_clock_after_mhz", "detail",
]
MODES = ["offline", "graph", "latency", "server"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_shapes(suite):
    path = suite if os.path.isfile(suite) else os.path.join(REPO, "bench", "suites", suite + ".txt")
    if not os.path.isfile(path):
        raise SystemExit(f"bench_torch.py: no suite file or named suite '{suite}'")
    shapes = []
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            line = line.split("#", 1)[0].replace(",", " ").strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
                raise SystemExit(f"bench_torch.py: {path}:{line_no}: expected 'M N K'")
            shapes.append(tuple(int(p) for p in parts))
    return shapes


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        dims = item.split("x")
        if len(dims) != 3 or not all(d.isdigit() and int(d) > 0 for d in dims):
            raise SystemExit(f"bench_torch.py: --shape expects MxNxK, got '{item}'")
        shapes.append(tuple(int(d) for d in dims))
    return shapes


def rotation_sets(bytes_per_set, l2_bytes, max_sets=16384):
    needed = -(-2 * l2_bytes // bytes_per_set) + 1
    return max(2, min(max_sets, needed))


def percentile(samples, q):
    s = sorted(samples)
    pos = q * (len(s) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (pos - lo) * (s[hi] - s[lo])


class Clocks:
    """SM clock through torch.cuda.clock_rate (NVML, mapped to the CUDA device by torch);
    -1 when NVML is not available."""

    def __init__(self, device):
        self.device = device
        self.available = self._read() >= 0

    def _read(self):
        try:
            return int(torch.cuda.clock_rate(self.device))
        except Exception:  # noqa: BLE001 - no pynvml, no NVML, or an old torch
            return -1

    def sm_mhz(self):
        return self._read() if self.available else -1


class Buffers:
    """Rotated A, B sets (uniform [-1, 1]) so that between two uses of a set more than twice the
    L2 has been read; the same rule as src/bench/timing.hpp."""

    def __init__(self, m, n, k, layout, l2_bytes, seed):
        bytes_per_set = 2 * (m * k + k * n + m * n)
        self.sets = rotation_sets(bytes_per_set, l2_bytes)
        free, _ = torch.cuda.mem_get_info()
        if self.sets * bytes_per_set > free // 2:
            self.sets = max(2, (free // 2) // bytes_per_set)
        gen = torch.Generator(device="cuda").manual_seed(seed)
        b_shape = (k, n) if layout == "nn" else (n, k)
        self.a = [torch.rand((m, k), device="cuda", dtype=torch.float16, generator=gen) * 2 - 1
                  for _ in range(self.sets)]
        self.b = [torch.rand(b_shape, device="cuda", dtype=torch.float16, generator=gen) * 2 - 1
                  for _ in range(self.sets)]
        self.cursor = 0

    def next(self):
        i = self.cursor % self.sets
        self.cursor += 1
        return self.a[i], self.b[i]


def gemm_fn(layout):
    if layout == "nn":
        return lambda a, b: torch.matmul(a, b)
    return lambda a, w: F.linear(a, w)


def verify(m, n, k, layout, acc, seed):
    """Random-normal inputs against an fp32 reference; tolerance as for a kernel of this
    accumulation type (fp16 output rounding for f32; cuBLAS COMPUTE_16F's level for f16)."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((m, k), device="cuda", dtype=torch.float16, generator=gen)
    b = torch.randn((k, n) if layout == "nn" else (n, k), device="cuda", dtype=torch.float16,
                    generator=gen)
    got = gemm_fn(layout)(a, b).float()
    bf = b.float() if layout == "nn" else b.float().t()
    prev_tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    ref = a.float() @ bf
    torch.backends.cuda.matmul.allow_tf32 = prev_tf32
    if not torch.isfinite(got).all():
        return "incorrect", "non-finite output"
    rel = (torch.linalg.vector_norm(got - ref) / torch.linalg.vector_norm(ref)).item()
    tol = 1e-3 if acc == "f32" else 4e-3
    if rel > tol:
        return "incorrect", f"rel_fro {rel:.2e} > tol {tol:.1e}"
    return "passed", f"rel_fro {rel:.2e}"


class Timer:
    def __init__(self, args):
        self.args = args
        self.server_draws = 0

    def calls_per_loop(self, fn, bufs):
        fn(*bufs.next())
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*bufs.next())
        stop.record()
        stop.synchronize()
        per_call = max(start.elapsed_time(stop), 1e-4)
        if per_call < 0.05:
            burst = int(min(64, math.ceil(0.2 / per_call)))
            start.record()
            for _ in range(burst):
                fn(*bufs.next())
            stop.record()
            stop.synchronize()
            per_call = max(start.elapsed_time(stop) / burst, 1e-4)
        return int(min(max(math.ceil(self.args.loop_ms / per_call), 1), 10000))

    def offline(self, fn, bufs):
        calls = self.calls_per_loop(fn, bufs)
        for _ in range(calls):
            fn(*bufs.next())
        events = [torch.cuda.Event(enable_timing=True) for _ in range(self.args.loops + 1)]
        events[0].record()
        for loop in range(self.args.loops):
            for _ in range(calls):
                fn(*bufs.next())
            events[loop + 1].record()
        events[-1].synchronize()
        return [events[i].elapsed_time(events[i + 1]) / calls
                for i in range(self.args.loops)], calls

    def graph(self, fn, bufs):
        calls = self.calls_per_loop(fn, bufs)
        graphs = []
        # One graph per loop plus a warm-up graph, each over the next `calls` sets, as offline.
        for _ in range(self.args.loops + 1):
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(calls):
                    fn(*bufs.next())
            graphs.append(g)
        graphs[0].replay()
        events = [torch.cuda.Event(enable_timing=True) for _ in range(self.args.loops + 1)]
        events[0].record()
        for loop in range(self.args.loops):
            graphs[loop + 1].replay()
            events[loop + 1].record()
        events[-1].synchronize()
        return [events[i].elapsed_time(events[i + 1]) / calls
                for i in range(self.args.loops)], calls

    def latency(self, fn, bufs):
        stream = torch.cuda.current_stream()
        for _ in range(2):
            fn(*bufs.next())
        stream.synchronize()
        samples = []
        for _ in range(self.args.latency_calls):
            t0 = time.perf_counter()
            fn(*bufs.next())
            stream.synchronize()
            samples.append((time.perf_counter() - t0) * 1e3)
        return samples, 1

    def server(self, fn, bufs):
        rng = random.Random(self.args.seed * 1000003 + self.server_draws)
        self.server_draws += 1
        torch.cuda.current_stream().synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for _ in range(self.args.server_calls):
            time.sleep(rng.expovariate(self.args.qps))
            start.record()
            fn(*bufs.next())
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop))
        return samples, 1


def fmt(v):
    return "" if v is None or not math.isfinite(v) else f"{v:.6g}"


def environment(device, args):
    props = torch.cuda.get_device_properties(device)
    # HGEMM_GIT_HASH wins, as in the C++ build: a copied tree may carry a stale .git.
    git = os.environ.get("HGEMM_GIT_HASH", "")
    if not git:
        try:
            git = subprocess.run(["git", "-C", REPO, "rev-parse", "--short=12", "HEAD"],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
        except Exception:
            git = ""
    driver = ""
    try:
        import pynvml
        pynvml.nvmlInit()
        driver = pynvml.nvmlSystemGetDriverVersion()
        driver = driver.decode() if isinstance(driver, bytes) else driver
    except Exception:
        pass
    return [
        ("gpu", props.name),
        ("sm_count", str(props.multi_processor_count)),
        ("l2_bytes", str(getattr(props, "L2_cache_size", 0))),
        ("driver", driver or "unknown"),
        ("cuda", str(torch.version.cuda)),
        ("cublas", "bundled with torch"),
        ("torch", torch.__version__),
        ("git", git or "unknown"),
        ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")),
        ("command", "python/bench_torch.py " + " ".join(sys.argv[1:])),
        ("timing", f"loop_ms={args.loop_ms} loops={args.loops} latency_calls={args.latency_calls} "
                   f"server_calls={args.server_calls} qps={args.qps}"),
    ]


def existing_keys(path):
    keys = set()
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    for row in csv.DictReader(lines):
        keys.add((int(row["m"]), int(row["n"]), int(row["k"]), row["layout"], row["acc"],
                  row["impl"], row["mode"]))
    return keys


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--suite")
    p.add_argument("--shape")
    p.add_argument("--out", required=True)
    p.add_argument("--modes", default="offline,graph,latency,server")
    p.add_argument("--layout", default="nn,tn")
    p.add_argument("--acc", default="f32,f16")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--loop-ms", type=float, default=1.5)
    p.add_argument("--loops", type=int, default=5)
    p.add_argument("--latency-calls", type=int, default=20)
    p.add_argument("--server-calls", type=int, default=10)
    p.add_argument("--qps", type=float, default=100.0)
    p.add_argument("--seed", type=int, default=24301)
    args = p.parse_args()
    if bool(args.suite) == bool(args.shape):
        p.error("exactly one of --suite and --shape is required")
    modes = args.modes.split(",")
    layouts = args.layout.split(",")
    accs = args.acc.split(",")
    for m in modes:
        if m not in MODES:
            p.error(f"unknown mode '{m}' (offline, graph, latency, server)")
    for lay in layouts:
        if lay not in ("nn", "tn"):
            p.error(f"unknown layout '{lay}' (nn or tn)")
    for a in accs:
        if a not in ("f32", "f16"):
            p.error(f"unknown accumulation '{a}' (f32 or f16)")
    if args.loops < 5 or args.loop_ms <= 0 or args.latency_calls < 1 or args.server_calls < 1 \
            or args.qps <= 0:
        p.error("--loops >= 5, --loop-ms > 0, --latency-calls >= 1, --server-calls >= 1, --qps > 0")
    shapes = load_shapes(args.suite) if args.suite else parse_shapes(args.shape)
    if not torch.cuda.is_available():
        raise SystemExit("bench_torch.py: no CUDA device")

    device = torch.cuda.current_device()
    l2_bytes = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 50 << 20)
    appending = args.resume and os.path.exists(args.out)
    done = existing_keys(args.out) if appending else set()
    out = open(args.out, "a" if appending else "w", newline="")
    writer = csv.writer(out, lineterminator="\n")
    if not appending:
        for key, value in environment(device, args):
            out.write(f"# {key}={value}\n")
        writer.writerow(COLUMNS)
        out.flush()

    clocks = Clocks(device)
    timer = Timer(args)
    stream = torch.cuda.Stream()
    tty = sys.stderr.isatty()
    total = len(shapes) * len(accs)
    started = time.time()
    progress = 0
    failures = 0
    with torch.cuda.stream(stream):
        for (m, n, k) in shapes:
            for acc in accs:
                progress += 1
                todo = [(lay, mode) for lay in layouts for mode in modes
                        if (m, n, k, lay, acc, "torch", mode) not in done]
                if not todo:
                    continue
                rows = []
                for lay in layouts:
                    lay_modes = [mode for (todo_layout, mode) in todo if todo_layout == lay]
                    if not lay_modes:
                        continue
                    fn = gemm_fn(lay)
                    name = "torch.matmul" if lay == "nn" else "F.linear"
                    try:
                        disposition, detail = verify(m, n, k, lay, acc, args.seed)
                    except Exception as e:  # noqa: BLE001 - a failure is recorded, not fatal
                        disposition, detail = "launch_failed", str(e)
                    detail = f"{name}: {detail}"
                    if acc == "f16":
                        detail += " (torch accumulates in fp32)"
                    bufs = Buffers(m, n, k, lay, l2_bytes, (m * 73856093) ^ (n * 19349663) ^ k)
                    for mode in lay_modes:
                        row = {"m": m, "n": n, "k": k, "layout": lay, "acc": acc,
                               "impl": "torch", "mode": mode, "disposition": disposition,
                               "detail": detail, "samples": 0, "calls_per_sample": 0,
                               "sets": bufs.sets, "sm_clock_before_mhz": -1,
                               "sm_clock_after_mhz": -1}
                        ms = None
                        if disposition == "passed":
                            row["sm_clock_before_mhz"] = clocks.sm_mhz()
                            try:
                                samples, calls = getattr(timer, mode)(fn, bufs)
                                ms = percentile(samples, 0.5)
                                row.update(p20_ms=percentile(samples, 0.2),
                                           p80_ms=percentile(samples, 0.8),
                                           min_ms=min(samples), max_ms=max(samples),
                                           samples=len(samples), calls_per_sample=calls)
                            except Exception as e:  # noqa: BLE001
                                row["disposition"] = "launch_failed"
                                row["detail"] = f"{name}: {e}"
                            row["sm_clock_after_mhz"] = clocks.sm_mhz()
                        if row["disposition"] != "passed":
                            failures += 1
                            print(f"FAIL {m}x{n}x{k}_{lay}_{acc} torch {mode}: {row['detail']}")
                        row["ms"] = ms
                        row["tflops"] = 2.0 * m * n * k / (ms * 1e-3) / 1e12 if ms else None
                        rows.append(row)
                    del bufs
                for row in rows:
                    writer.writerow([fmt(row.get(c)) if c in ("ms", "tflops", "p20_ms", "p80_ms",
                                                                "min_ms", "max_ms")
                                     else row.get(c, "") for c in COLUMNS])
                out.flush()
                if tty:
                    elapsed = time.time() - started
                    eta = elapsed / progress * (total - progress)
                    sys.stderr.write(f"\r\033[Ktorch {progress}/{total}  failures {failures}  "
                                     f"elapsed {elapsed:.0f}s  eta {eta:.0f}s  {m}x{n}x{k} {acc}")
                    sys.stderr.flush()
    if tty:
        sys.stderr.write("\r\033[K")
    out.close()
    print(f"bench_torch: {total} shape x acc groups, {failures} failed rows, "
          f"{time.time() - started:.1f} s, results in {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
