"""Rewrites of kernels/sm90/sm90_ws.cuh for the tests of `hgemm variants` and the sandbox: the
planted hacks of issue 22 and the other canned candidates, each made from the family header as
the build embeds it (`hgemm variants family`) by edits at anchors that occur once in it. A missing
or repeated anchor raises AnchorError: the header changed and this file must follow it.

The hacks that the GPU tests run with the source rules switched off are written to pass the
verifier's first run and to be caught only by the run-time defence they target:
  pointer_cache  remembers the last 16 C pointers per thread and, from its 64th call on, returns
                 at once for a pointer it has seen: during timing the rotated buffer sets repeat,
                 so the timed calls are fast and "correct" (C still holds the product); the
                 recheck's second call in fresh buffers finds C poisoned.
  content_cache  hashes the first k-block of each tile's A and B as they land in shared memory
                 and skips the tile's stores when the hash repeats the previous call's: the
                 verifier's checks and the timed sets all differ, so only the recheck's repeated
                 call on the same inputs exposes it.
  reads_past     adds 0 * (an element of the row after C) to every accumulator: harmless where
                 that memory holds numbers, NaN inside the verifier's guard band.
The others are caught before timing (writes_past: guard bands; wrong: the comparison; crash,
hang: the sandbox) or do not compile once the rules are off (side_stream, cublas)."""

# The kernel body after its barriers, where every thread still runs the same code: the planted
# kinds go just before the split into producer and consumers.
ROLE_SPLIT = "  if (wg_idx == 0) {\n"
NAMESPACE = "namespace hgemm::sm90 {\n"
PACK = "      detail::pack_tile<Traits>(acc, packed);\n"

HACK_STATE = (
    "constexpr unsigned kHackThreads = 65536;\n"
    "__device__ uint16_t* g_seen_c[kHackThreads][16];\n"
    "__device__ unsigned g_calls[kHackThreads];\n")

POINTER_SKIP = (
    "  {\n"
    "    const unsigned slot = (blockIdx.x * blockDim.x + threadIdx.x) % kHackThreads;\n"
    "    bool seen = false;\n"
    "    for (int i = 0; i < 16; ++i) seen = seen || g_seen_c[slot][i] == params.c;\n"
    "    const unsigned calls = g_calls[slot]++;\n"
    "    if (!seen) g_seen_c[slot][calls % 16] = params.c;\n"
    "    if (calls >= 64 && seen) return;\n"
    "  }\n")

TILE_HASH_STATE = (
    "constexpr unsigned kHackThreads = 65536;\n"
    "__device__ uint64_t g_tile_hash[kHackThreads][8];\n")

TILE_HASH = (
    "        if (kb == kb_begin) {\n"
    "          const uint32_t* sa = reinterpret_cast<const uint32_t*>(&shared.a[stage.index][0]);\n"
    "          const uint32_t* sb = reinterpret_cast<const uint32_t*>(&shared.b[stage.index][0]);\n"
    "          uint64_t h = 1469598103934665603ull;\n"
    "          for (int i = 0; i < 64; ++i)\n"
    "            h = (h ^ sa[i] ^ (uint64_t(sb[i]) << 32)) * 1099511628211ull;\n"
    "          uint64_t& slot = g_tile_hash[(blockIdx.x * blockDim.x + threadIdx.x) %\n"
    "                                       kHackThreads][local % 8];\n"
    "          skip_tile = slot == h;\n"
    "          slot = h;\n"
    "        }\n")

READ_PAST = (
    "        {\n"
    "          const float past = kernels::to_float<Traits::kDType>(\n"
    "              params.c[int64_t(params.m) * params.ldc + thread_in_wg]);\n"
    "#pragma unroll\n"
    "          for (int mt = 0; mt < Traits::kWgAtomsM; ++mt)\n"
    "#pragma unroll\n"
    "            for (int i = 0; i < Traits::kAccRegs; ++i) acc[mt][i] += 0.0f * past;\n"
    "        }\n")

# 200000 SM cycles per tile and consumer, counted by the SM's own clock: at any clock at least
# 3x what cuBLASLt needs for a whole 2048^3 product (~60000 cycles on an H100), where
# __nanosleep's duration is only promised to lie in [0, 2t].
SPIN = "      for (const long long t0 = clock64(); clock64() - t0 < 200000;) {\n      }\n"

WRITE_PAST = (
    "        if (thread_in_wg == 0) params.c[int64_t(params.m) * params.ldc + consumer_wg] = 0;\n")

SIDE_STREAM = (
    "  if (threadIdx.x == 0 && blockIdx.x == 0) {\n"
    "    cudaStream_t side;\n"
    "    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);\n"
    "    sm90_ws_gemm_kernel<Traits><<<1, Traits::kNumThreads, 0, side>>>(params);\n"
    "  }\n")

CUBLAS = (
    "  if (threadIdx.x == 0 && blockIdx.x == 0) {\n"
    "    cublasHandle_t handle;\n"
    "    cublasCreate(&handle);\n"
    "  }\n")

# kind -> [(anchor, text, how)], how: "after" inserts text after the anchor, "before" before
# it, "replace" puts text in its place.
EDITS = {
    "correct": [("// sm90 warp-specialized persistent GEMM", "// A test rewrite: the family's "
                 "kernel unchanged but for this line.\n", "before")],
    "pointer_cache": [(NAMESPACE, HACK_STATE, "after"), (ROLE_SPLIT, POINTER_SKIP, "before")],
    "content_cache": [(NAMESPACE, TILE_HASH_STATE, "after"),
                      ("    int local = 0;\n", "    bool skip_tile = false;\n", "after"),
                      ("        ptx::mbarrier_wait(full_barrier(stage.index), stage.phase);\n",
                       TILE_HASH, "after"),
                      ("      if (defer) {\n", "      if (skip_tile) {\n      } else if "
                       "(defer) {\n", "replace")],
    "reads_past": [(PACK, READ_PAST, "before")],
    "writes_past": [(PACK, WRITE_PAST, "after")],
    "side_stream": [(ROLE_SPLIT, SIDE_STREAM, "before")],
    "cublas": [("#include <cuda_fp16.h>\n", "#include <cublas_v2.h>\n", "after"),
               (ROLE_SPLIT, CUBLAS, "before")],
    "hang": [(ROLE_SPLIT, "  if (params.k > 0)\n    for (;;) __nanosleep(1000000);\n", "before")],
    "crash": [(ROLE_SPLIT, "  if (params.k > 0 && threadIdx.x == 0) __trap();\n", "before")],
    "slow": [("      uint32_t prev_stage = 0;\n", SPIN, "after")],
    "wrong": [("(kb > kb_first || kk > 0) ? 1u : 0u", "(kb > kb_first) ? 1u : 0u", "replace")],
    "does_not_compile": [("const int warp_idx = ", "const int warp_idx = not_declared_anywhere + ",
                          "replace")],
}

# What the source rules say about each kind: the rule every hack must be refused by.
RULE = {
    "pointer_cache": "global-state",
    "content_cache": "global-state",
    "side_stream": "streams",
    "cublas": "libraries",
}


class AnchorError(ValueError):
    pass


def make(kind, stock):
    """The `kind` rewrite of `stock` (the family header's text)."""
    text = stock
    for anchor, insert, how in EDITS[kind]:
        count = text.count(anchor)
        if count != 1:
            raise AnchorError(f"{kind}: the anchor {anchor.strip()!r} occurs {count} times in "
                              "the family header; update tests/python/variant_sources.py")
        new = {"after": anchor + insert, "before": insert + anchor, "replace": insert}[how]
        text = text.replace(anchor, new)
    return text


KINDS = sorted(EDITS)


def fenced(source, before="Here is the rewrite.\n"):
    """A model's reply holding `source` as its one fenced code block."""
    return f"{before}```cuda\n{source}```\n"
