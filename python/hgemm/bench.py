"""python -m hgemm.bench: times hgemm.matmul / hgemm.linear against torch.matmul / F.linear on the
same tensors, interleaved round by round, and writes the results CSV of `hgemm bench` so that
`hgemm report` merges them.

    python -m hgemm.bench --suite grid|llm|FILE --out results.csv [--impl hgemm,torch]
        [--modes graph,latency] [--layout nn,tn] [--acc f32,f16] [--resume] [--loop-ms 1.5]
        [--loops 5] [--latency-calls 20] [--server-calls 10] [--qps 100] [--seed 24301]

Rows: impl `hgemm-python` is hgemm.matmul (layout nn: b is K x N) and hgemm.linear (tn: the
weight is N x K), called from Python through the PyTorch op, so its times include the Python and
dispatcher overhead a PyTorch user pays; impl `torch` is torch.matmul (nn) and F.linear (tn).

Modes (docs/benchmarking.md):
  offline  back-to-back calls on one stream, CUDA events around each loop
  graph    the same rotated calls captured with torch.cuda.CUDAGraph and replayed
  latency  host wall clock around one call plus a stream synchronize
  server   an exponential idle gap (mean 1/qps) before each call, each call timed with events
Every round times each implementation once, in turn, on the same rotated buffer sets (more than
twice the L2 between two uses of a set, uniform random data); a row's time is the median over
rounds.

torch has no fp16-accumulation switch: with --acc f16 the torch rows time torch's default path
(fp32 accumulation, reduced-precision reduction allowed) and say so in the detail column.
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
IMPLS = ["hgemm", "torch"]
IMPL_COLUMN = {"hgemm": "hgemm-python", "torch": "torch"}
U32 = 2.0 ** -24  # fp32 unit roundoff


def _repo_root():
    """The source tree, when this module runs from it or from its build tree (for named suites)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for root in (os.path.dirname(os.path.dirname(here)), os.getcwd()):
        if os.path.isdir(os.path.join(root, "bench", "suites")):
            return root
    return None


def load_shapes(suite):
    path = suite
    if not os.path.isfile(path):
        root = os.environ.get("HGEMM_SOURCE_DIR") or _repo_root()
        path = os.path.join(root, "bench", "suites", suite + ".txt") if root else ""
    if not os.path.isfile(path):
        raise SystemExit(f"hgemm.bench: no suite file or named suite '{suite}' (named suites are "
                         f"bench/suites/NAME.txt of the source tree; HGEMM_SOURCE_DIR names it)")
    shapes = []
    with open(path) as f:
        for line_no, line in enumerate(f, 1):
            line = line.split("#", 1)[0].replace(",", " ").strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
                raise SystemExit(f"hgemm.bench: {path}:{line_no}: expected 'M N K'")
            shapes.append(tuple(int(p) for p in parts))
    return shapes


def parse_shapes(text):
    shapes = []
    for item in text.split(","):
        dims = item.split("x")
        if len(dims) != 3 or not all(d.isdigit() and int(d) > 0 for d in dims):
            raise SystemExit(f"hgemm.bench: --shape expects MxNxK, got '{item}'")
        shapes.append(tuple(int(d) for d in dims))
    return shapes


def verifier_tolerance(k, m, n, acc, max_abs_ref):
    """The verifier's (src/verify/verifier.cu) relative Frobenius and max-abs tolerances for an
    M x N x K product against an exact-enough reference."""
    kk = max(k, 1)
    mn = max(1.0, float(m) * n)
    if acc == "f16":
        base = max(1e-3, 2.5e-3 * math.sqrt(kk / 1024.0))
    else:
        base = 5e-4 + 4.0 * U32 * math.sqrt(kk)
    rel = base * (1.0 + 3.0 / math.sqrt(mn))
    x = min(abs(max_abs_ref), 65504.0)
    ulp = 2.0 ** -24 if x < 2.0 ** -14 else 2.0 ** (math.frexp(x)[1] - 11)
    max_abs = 4.0 * ulp + 1e-3 * kk if acc == "f16" else 2.0 * ulp + 32.0 * U32 * kk
    return rel, max_abs


def compare(got, ref, k, acc):
    """(ok, text): got (fp16) against ref (fp32 or fp64) within the verifier's tolerances."""
    got = got.double()
    ref = ref.double()
    if not torch.isfinite(got).all():
        return False, "non-finite output"
    max_ref = ref.abs().max().item() if ref.numel() else 0.0
    tol_rel, tol_abs = verifier_tolerance(k, got.shape[0], got.shape[-1], acc, max_ref)
    norm = torch.linalg.vector_norm(ref).item()
    rel = torch.linalg.vector_norm(got - ref).item() / norm if norm else 0.0
    max_abs = (got - ref).abs().max().item() if got.numel() else 0.0
    text = f"rel_fro {rel:.2e}/{tol_rel:.1e} max_abs {max_abs:.2e}/{tol_abs:.1e}"
    return rel <= tol_rel and max_abs <= tol_abs, text


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
    """SM clock through torch.cuda.clock_rate (NVML); -1 when NVML is not available."""

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


def gemm_fn(impl, layout, acc):
    import hgemm
    if impl == "hgemm":
        if layout == "nn":
            return lambda a, b: hgemm.matmul(a, b, acc=acc)
        return lambda a, w: hgemm.linear(a, w, acc=acc)
    if layout == "nn":
        return torch.matmul
    return F.linear


def verify(impl, m, n, k, layout, acc, seed):
    """Random-normal inputs against an fp32 reference (TF32 off), within the verifier's
    tolerance for the accumulation."""
    gen = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((m, k), device="cuda", dtype=torch.float16, generator=gen)
    b = torch.randn((k, n) if layout == "nn" else (n, k), device="cuda", dtype=torch.float16,
                    generator=gen)
    got = gemm_fn(impl, layout, acc)(a, b)
    bf = b.float() if layout == "nn" else b.float().t()
    prev_tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False
    try:
        ref = a.float() @ bf
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev_tf32
    # torch accumulates in fp32 whatever --acc says, so its rows meet the f32 tolerance.
    ok, text = compare(got, ref, k, acc if impl == "hgemm" else "f32")
    return ("passed" if ok else "incorrect"), text


class Timer:
    """One sample per call of a mode's method: each implementation gets one per round."""

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

    def offline(self, fn, bufs, calls, state):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn(*bufs.next())
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / calls

    def graph(self, fn, bufs, calls, state):
        if "graph" not in state:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(calls):
                    fn(*bufs.next())
            g.replay()
            state["graph"] = g
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        state["graph"].replay()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / calls

    def latency(self, fn, bufs, calls, state):
        stream = torch.cuda.current_stream()
        stream.synchronize()
        t0 = time.perf_counter()
        fn(*bufs.next())
        stream.synchronize()
        return (time.perf_counter() - t0) * 1e3

    def server(self, fn, bufs, calls, state):
        if "rng" not in state:
            state["rng"] = random.Random(self.args.seed * 1000003 + self.server_draws)
            self.server_draws += 1
        torch.cuda.current_stream().synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        time.sleep(state["rng"].expovariate(self.args.qps))
        start.record()
        fn(*bufs.next())
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    def rounds(self, mode):
        return self.args.loops if mode in ("offline", "graph") else (
            self.args.latency_calls if mode == "latency" else self.args.server_calls)


def time_interleaved(timer, mode, fns, bufs):
    """{impl: (samples, calls per sample)}: round by round, each implementation once, after one
    warm-up round. They share one rotation of buffer sets, each going on where the previous left
    it, so that no call finds its operands in L2 from the call before."""
    calls = {}
    for impl, fn in fns.items():
        calls[impl] = timer.calls_per_loop(fn, bufs) if mode in ("offline", "graph") else 1
        if mode == "graph":
            # A replayed graph reads the same sets every time: it must cycle through all of them.
            calls[impl] = max(calls[impl], bufs.sets)
    state = {impl: {} for impl in fns}
    samples = {impl: [] for impl in fns}
    for round_no in range(timer.rounds(mode) + 1):
        for impl, fn in fns.items():
            t = getattr(timer, mode)(fn, bufs, calls[impl], state[impl])
            if round_no:
                samples[impl].append(t)
    return {impl: (samples[impl], calls[impl]) for impl in fns}


def fmt(v):
    return "" if v is None or not math.isfinite(v) else f"{v:.6g}"


def environment(device, args):
    import hgemm
    props = torch.cuda.get_device_properties(device)
    # HGEMM_GIT_HASH wins, as in the C++ build: a copied tree may carry a stale .git.
    git = os.environ.get("HGEMM_GIT_HASH", "")
    root = _repo_root()
    if not git and root:
        try:
            git = subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"],
                                 capture_output=True, text=True, timeout=10).stdout.strip()
        except Exception:  # noqa: BLE001 - no git
            git = ""
    driver = ""
    try:
        import pynvml
        pynvml.nvmlInit()
        driver = pynvml.nvmlSystemGetDriverVersion()
        driver = driver.decode() if isinstance(driver, bytes) else driver
    except Exception:  # noqa: BLE001 - no pynvml
        pass
    return [
        ("gpu", props.name),
        ("sm_count", str(props.multi_processor_count)),
        ("l2_bytes", str(getattr(props, "L2_cache_size", 0))),
        ("driver", driver or "unknown"),
        ("cuda", str(torch.version.cuda)),
        ("cublas", "bundled with torch"),
        ("torch", torch.__version__),
        ("hgemm", hgemm.__version__),
        ("git", git or "unknown"),
        ("date", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")),
        ("command", "python -m hgemm.bench " + " ".join(sys.argv[1:])),
        ("timing", f"loop_ms={args.loop_ms} loops={args.loops} latency_calls={args.latency_calls} "
                   f"server_calls={args.server_calls} qps={args.qps} interleaved"),
    ]


def existing_keys(path):
    keys = set()
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip() and not line.startswith("#")]
    for row in csv.DictReader(lines):
        keys.add((int(row["m"]), int(row["n"]), int(row["k"]), row["layout"], row["acc"],
                  row["impl"], row["mode"]))
    return keys


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m hgemm.bench", description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--suite")
    p.add_argument("--shape")
    p.add_argument("--out", required=True)
    p.add_argument("--impl", default="hgemm,torch")
    p.add_argument("--modes", default="offline,graph,latency")
    p.add_argument("--layout", default="nn,tn")
    p.add_argument("--acc", default="f32,f16")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--loop-ms", type=float, default=1.5)
    p.add_argument("--loops", type=int, default=5)
    p.add_argument("--latency-calls", type=int, default=20)
    p.add_argument("--server-calls", type=int, default=10)
    p.add_argument("--qps", type=float, default=100.0)
    p.add_argument("--seed", type=int, default=24301)
    args = p.parse_args(argv)
    if bool(args.suite) == bool(args.shape):
        p.error("exactly one of --suite and --shape is required")
    args.impls = args.impl.split(",")
    args.modes = args.modes.split(",")
    args.layouts = args.layout.split(",")
    args.accs = args.acc.split(",")
    for i in args.impls:
        if i not in IMPLS:
            p.error(f"unknown impl '{i}' (hgemm, torch)")
    for m in args.modes:
        if m not in MODES:
            p.error(f"unknown mode '{m}' (offline, graph, latency, server)")
    for lay in args.layouts:
        if lay not in ("nn", "tn"):
            p.error(f"unknown layout '{lay}' (nn or tn)")
    for a in args.accs:
        if a not in ("f32", "f16"):
            p.error(f"unknown accumulation '{a}' (f32 or f16)")
    if args.loops < 5 or args.loop_ms <= 0 or args.latency_calls < 1 or args.server_calls < 1 \
            or args.qps <= 0:
        p.error("--loops >= 5, --loop-ms > 0, --latency-calls >= 1, --server-calls >= 1, --qps > 0")
    return args


def bench_group(args, timer, clocks, l2_bytes, m, n, k, layout, acc, todo):
    """The rows of one shape, layout and accumulation: todo is {impl: [modes]}."""
    names = {("hgemm", "nn"): "hgemm.matmul", ("hgemm", "tn"): "hgemm.linear",
             ("torch", "nn"): "torch.matmul", ("torch", "tn"): "F.linear"}
    status = {}
    for impl in todo:
        name = names[(impl, layout)]
        try:
            disposition, detail = verify(impl, m, n, k, layout, acc, args.seed)
        except Exception as e:  # noqa: BLE001 - a failure is recorded, not fatal
            disposition, detail = "launch_failed", str(e)
        if impl == "hgemm" and disposition == "passed":
            import hgemm
            detail = f"{hgemm.explain(m, n, k, layout, acc)['config']}, {detail}"
        if impl == "torch" and acc == "f16":
            detail += " (torch accumulates in fp32)"
        status[impl] = (disposition, f"{name}: {detail}")
    bufs = Buffers(m, n, k, layout, l2_bytes, (m * 73856093) ^ (n * 19349663) ^ k)
    rows = []
    modes = [mode for mode in args.modes if any(mode in ms for ms in todo.values())]
    for mode in modes:
        impls = [i for i in todo if mode in todo[i]]
        fns = {i: gemm_fn(i, layout, acc) for i in impls if status[i][0] == "passed"}
        before = clocks.sm_mhz()
        results, error = {}, None
        if fns:
            try:
                results = time_interleaved(timer, mode, fns, bufs)
            except Exception as e:  # noqa: BLE001
                error = str(e)
        after = clocks.sm_mhz()
        for impl in impls:
            disposition, detail = status[impl]
            row = {"m": m, "n": n, "k": k, "layout": layout, "acc": acc,
                   "impl": IMPL_COLUMN[impl], "mode": mode, "disposition": disposition,
                   "detail": detail, "samples": 0, "calls_per_sample": 0, "sets": bufs.sets,
                   "sm_clock_before_mhz": -1, "sm_clock_after_mhz": -1, "ms": None}
            if disposition == "passed" and error:
                row.update(disposition="launch_failed", detail=f"{detail}; timing: {error}")
            elif disposition == "passed":
                samples, calls = results[impl]
                ms = percentile(samples, 0.5)
                row.update(ms=ms, p20_ms=percentile(samples, 0.2), p80_ms=percentile(samples, 0.8),
                           min_ms=min(samples), max_ms=max(samples), samples=len(samples),
                           calls_per_sample=calls, sm_clock_before_mhz=before,
                           sm_clock_after_mhz=after)
            row["tflops"] = 2.0 * m * n * k / (row["ms"] * 1e-3) / 1e12 if row["ms"] else None
            rows.append(row)
    del bufs
    return rows


def main(argv=None):
    args = parse_args(argv)
    shapes = load_shapes(args.suite) if args.suite else parse_shapes(args.shape)
    if not torch.cuda.is_available():
        raise SystemExit("hgemm.bench: no CUDA device")
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
    total = len(shapes) * len(args.accs)
    started = time.time()
    progress = 0
    failures = 0
    with torch.cuda.stream(stream):
        for (m, n, k) in shapes:
            for acc in args.accs:
                progress += 1
                for layout in args.layouts:
                    todo = {}
                    for impl in args.impls:
                        modes = [mode for mode in args.modes
                                 if (m, n, k, layout, acc, IMPL_COLUMN[impl], mode) not in done]
                        if modes:
                            todo[impl] = modes
                    if not todo:
                        continue
                    rows = bench_group(args, timer, clocks, l2_bytes, m, n, k, layout, acc, todo)
                    for row in rows:
                        if row["disposition"] != "passed":
                            failures += 1
                            print(f"FAIL {m}x{n}x{k}_{layout}_{acc} {row['impl']} {row['mode']}: "
                                  f"{row['detail']}")
                        writer.writerow([fmt(row.get(c)) if c in ("ms", "tflops", "p20_ms",
                                                                    "p80_ms", "min_ms", "max_ms")
                                         else row.get(c, "") for c in COLUMNS])
                    out.flush()
                if tty:
                    elapsed = time.time() - started
                    eta = elapsed / progress * (total - progress)
                    sys.stderr.write(f"\r\033[Khgemm.bench {progress}/{total}  failures "
                                     f"{failures}  elapsed {elapsed:.0f}s  eta {eta:.0f}s  "
                                     f"{m}x{n}x{k} {acc}")
                    sys.stderr.flush()
    if tty:
        sys.stderr.write("\r\033[K")
    out.close()
    print(f"hgemm.bench: {total} shape x acc groups, {failures} failed rows, "
          f"{time.time() - started:.1f} s, results in {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
