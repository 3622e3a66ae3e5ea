// GPU test of the sm90 warp-specialized family: every compiled instance through the verifier on
// aligned residue shapes, both layouts and both accumulations; other rasters, group sizes and a
// small persistent grid (many tiles per CTA); split-K and the split last round, also across graph
// replays; bitwise repeatability; back-to-back dependent calls under programmatic dependent
// launch; and the refusals that send unsupported calls to the safety net. A few instantiations outside the catalog cover the
// template paths the catalog does not use (BK = 32 with its 64-byte swizzle, 16- and 32-column
// swizzle chunks, an odd number of C chunks, multicast of A with 64-row tiles, two m64 atoms per
// warpgroup without register reallocation). A plain executable: one line per check, non-zero exit
// on any failure, and a failure (not a skip) when no sm_90 device is present.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "launch/sm90_instance.cuh"
#include "launch/sm90_launch.hpp"
#include "verify/verifier.hpp"
#include "gpu_checks.cuh"

namespace {

using gpu_checks::check;
using gpu_checks::gemm_with;
using gpu_checks::fill_kernel;

// Verifies `config` on `p` with the persistent grid capped at `max_ctas` CTAs (0: no cap); the
// caller puts the cap back to 0 when done.
void check_on_grid(hgemm::verify::Verifier& verifier, hgemm::KernelConfig const& config,
                   int max_ctas, hgemm::Problem const& p, hgemm::verify::Options const& options) {
  hgemm::sm90_set_max_ctas(max_ctas);
  auto report = verifier.check(p, gemm_with(config), options);
  check(report.passed(), config.name() + " max_ctas=" + std::to_string(max_ctas) + " " +
                             p.name() + ": " + report.summary());
}

// The shapes every instance must pass: aligned residues (K % 8 == 0, N % 8 == 0) around the
// tile sizes, a K below one k-block, a K that wraps the stage ring several times, M = 1.
std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes_for(hgemm::KernelConfig const& c) {
  return {{1000, 1000, 1000},
          {64, 64, 64},
          {136, 264, 72},
          {c.block_m + 8, c.block_n + 8, 8},                       // K < BK, one extra row/col
          {200, 200, int64_t(c.block_k) * (c.num_stages + 1) + 8},  // ring wrap-around
          {1, 64, 64},
          {8, 8, 8},
          {77, 264, 136},    // odd M, as swap-AB's transposed stores meet it
          {333, 1000, 520},  // odd M over several tiles of either orientation
          {4096, 4096, 4096}};
}

void test_instances(hgemm::verify::Verifier& verifier) {
  for (hgemm::KernelInstance const& inst : hgemm::sm90_instances()) {
    for (auto [m, n, k] : shapes_for(inst.config)) {
      hgemm::Problem p{m, n, k, inst.config.layout, inst.config.accum, inst.config.dtype};
      hgemm::verify::Options options;
      // The 4096^3 run checks the big-tile path at scale; one check there is enough.
      if (m == 4096) options.small_integer = options.precision_probe = options.nonfinite = false;
      auto report = verifier.check(p, gemm_with(inst.config), options);
      check(report.passed(), inst.config.name() + " " + p.name() + ": " + report.summary());
    }
  }
}

template <hgemm::Sm90Variant kVariant>
hgemm::KernelInstance extra() {
  return hgemm::sm90::Instance<kVariant>::instance();
}

std::vector<hgemm::KernelInstance> extra_instances() {
  using hgemm::Sm90Variant;
  constexpr auto kTma = hgemm::Epilogue::kTmaStore;
  constexpr auto kSt = hgemm::Epilogue::kDirect;
  constexpr auto kF16 = hgemm::Accum::kF16;
  constexpr auto kNN = hgemm::Layout::kNN;
  constexpr auto kPP = hgemm::Schedule::kPingPong;
  // Unnamed fields are Sm90Variant's defaults: fp32 accumulation, TN, cooperative.
  return {
      extra<Sm90Variant{.block_m = 128, .block_n = 80, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1, .epilogue = kTma}>(),
      extra<Sm90Variant{.block_m = 128, .block_n = 80, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1, .epilogue = kTma,
                        .accum = kF16, .layout = kNN}>(),
      extra<Sm90Variant{.block_m = 128, .block_n = 80, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 2, .cluster_m = 2, .cluster_n = 1, .epilogue = kSt,
                        .layout = kNN}>(),
      extra<Sm90Variant{.block_m = 128, .block_n = 80, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 2, .cluster_m = 2, .cluster_n = 1, .epilogue = kSt,
                        .accum = kF16}>(),
      extra<Sm90Variant{.block_m = 64, .block_n = 96, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 2, .epilogue = kSt,
                        .layout = kNN}>(),
      extra<Sm90Variant{.block_m = 64, .block_n = 96, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 2, .epilogue = kTma}>(),
      extra<Sm90Variant{.block_m = 128, .block_n = 128, .block_k = 64, .num_stages = 3,
                        .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 1, .epilogue = kTma,
                        .layout = kNN}>(),
      extra<Sm90Variant{.block_m = 128, .block_n = 128, .block_k = 64, .num_stages = 3,
                        .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 1, .epilogue = kSt}>(),
      // Ping-pong with direct stores, 32-wide k-blocks, N-major B and a cluster along N.
      extra<Sm90Variant{.block_m = 64, .block_n = 96, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 2, .epilogue = kSt,
                        .layout = kNN, .schedule = kPP}>(),
      extra<Sm90Variant{.block_m = 128, .block_n = 80, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 2, .cluster_m = 1, .cluster_n = 1, .epilogue = kTma,
                        .accum = kF16, .schedule = kPP}>(),
      // Swap-AB (kernel terms: block_m tiles N) with clusters either way, two m64 atoms per
      // warpgroup, 32-wide k-blocks, the narrowest M tile and fp16 accumulation.
      extra<Sm90Variant{.block_m = 128, .block_n = 48, .block_k = 32, .num_stages = 4,
                        .num_consumer_wgs = 1, .cluster_m = 2, .cluster_n = 1, .epilogue = kSt,
                        .accum = kF16, .swap_ab = true}>(),
      extra<Sm90Variant{.block_m = 64, .block_n = 16, .block_k = 64, .num_stages = 4,
                        .num_consumer_wgs = 1, .cluster_m = 1, .cluster_n = 2, .epilogue = kSt,
                        .swap_ab = true}>(),
  };
}

// Outside the catalog hgemm::run cannot reach them: call the launcher directly (it runs the same
// argument checks as can_implement). A small grid makes every CTA run many tiles.
void test_extra_instances(hgemm::verify::Verifier& verifier) {
  for (hgemm::KernelInstance const& inst : extra_instances()) {
    for (auto [m, n, k, max_ctas] : {std::tuple{1000, 1000, 1000, 0}, std::tuple{136, 264, 72, 0},
                                     std::tuple{1, 88, 8, 0}, std::tuple{520, 488, 264, 3}}) {
      hgemm::Problem p{m, n, k, inst.config.layout, inst.config.accum, inst.config.dtype};
      hgemm::sm90_set_max_ctas(max_ctas);
      auto report = verifier.check(
          p, [inst](hgemm::Problem const& q, void const* a, void const* b, void* c,
                    cudaStream_t s) { inst.launch(inst.config, {a, b, c, q.m, q.n, q.k, s}); });
      check(report.passed(), "extra " + inst.config.name() + " max_ctas=" +
                                 std::to_string(max_ctas) + " " + p.name() + ": " +
                                 report.summary());
    }
  }
  hgemm::sm90_set_max_ctas(0);
}

// Raster direction and group size are run-time parameters of one instantiation; a grid of a few
// CTAs makes each CTA run many tiles, so the ring's phases carry across tile boundaries.
void test_schedules(hgemm::verify::Verifier& verifier) {
  std::vector<hgemm::KernelInstance> const instances = hgemm::sm90_instances();
  for (hgemm::KernelInstance const& inst : instances) {
    struct Variant {
      hgemm::Raster raster;
      int group;
      int max_ctas;
    };
    constexpr auto kM = hgemm::Raster::kAlongM;
    constexpr auto kN = hgemm::Raster::kAlongN;
    for (Variant v :
         {Variant{kN, 1, 0}, Variant{kM, 16, 0}, Variant{kN, 4, 2}, Variant{kM, 2, 5}}) {
      hgemm::KernelConfig config = inst.config;
      config.raster = v.raster;
      config.group_size = v.group;
      hgemm::verify::Options options;
      options.precision_probe = options.nonfinite = false;
      check_on_grid(verifier, config, v.max_ctas, {1000, 776, 392, config.layout, config.accum, config.dtype},
                    options);
    }
    // Two k-blocks per tile, fewer than a deferred epilogue has chunks to spread (4 for 128x256,
    // 7 for 128x224): each tile must store what is left of the previous one before its own
    // results replace it.
    hgemm::verify::Options options;
    options.precision_probe = options.nonfinite = false;
    check_on_grid(verifier, inst.config, 4,
                  {1000, 776, 2 * int64_t(inst.config.block_k), inst.config.layout,
                   inst.config.accum, inst.config.dtype},
                  options);
  }
  hgemm::sm90_set_max_ctas(0);
}

// Two runs on the same inputs give the same bits (no atomics, no order that depends on timing).
void test_repeatable() {
  const int64_t m = 2048, n = 1536, k = 1032;
  __half *a, *b, *c0, *c1;
  CUDA_OK(cudaMalloc(&a, m * k * 2));
  CUDA_OK(cudaMalloc(&b, k * n * 2));
  CUDA_OK(cudaMalloc(&c0, m * n * 2));
  CUDA_OK(cudaMalloc(&c1, m * n * 2));
  fill_kernel<<<256, 256>>>(a, m * k, 11);
  fill_kernel<<<256, 256>>>(b, k * n, 12);
  CUDA_OK(cudaGetLastError());
  for (hgemm::KernelInstance const& inst : hgemm::sm90_instances()) {
    const hgemm::Problem p{m, n, k, inst.config.layout, inst.config.accum, inst.config.dtype};
    check(gpu_checks::repeatable(gemm_with(inst.config), p, a, b, c0, c1),
          "bitwise repeatable " + inst.config.name() + " " + p.name());
  }
  for (void* p : {(void*)a, (void*)b, (void*)c0, (void*)c1}) CUDA_OK(cudaFree(p));
}

// Programmatic dependent launch: a GEMM may start while the kernel ahead of it finishes, so it
// must wait before reading what that kernel wrote. A chain C1 = A*B, C2 = C1*B, C3 = C2*B enqueued
// back to back (each reads the previous output) must equal the same chain with a device sync
// between calls and launched without the attribute. Small values keep the chain finite. Unsplit,
// split-K (a reduction kernel between the GEMMs) and split last rounds (a kernel clearing their
// counters before each GEMM).
void test_programmatic_chain() {
  const int64_t n = 1024;
  __half *a, *b;
  void *c[3], *d[3];
  CUDA_OK(cudaMalloc(&a, n * n * 2));
  CUDA_OK(cudaMalloc(&b, n * n * 2));
  for (int i = 0; i < 3; ++i) {
    CUDA_OK(cudaMalloc(&c[i], n * n * 2));
    CUDA_OK(cudaMalloc(&d[i], n * n * 2));
  }
  fill_kernel<<<256, 256>>>(a, n * n, 31);
  fill_kernel<<<256, 256>>>(b, n * n, 32);
  CUDA_OK(cudaGetLastError());
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (hgemm::KernelInstance const& inst : hgemm::sm90_instances()) {
    if (inst.config.layout != hgemm::Layout::kTN) continue;
    for (int splits : {1, 4, 0}) {
      hgemm::KernelConfig config = inst.config;
      config.split_k = splits;
      const hgemm::Problem p{n, n, n, config.layout, config.accum, config.dtype};
      check(gpu_checks::programmatic_chain_matches(gemm_with(config), p, a, b, c, d, stream),
            "programmatic launch chain of 3 equals the synchronized one " + config.name());
    }
  }
  CUDA_OK(cudaStreamDestroy(stream));
  for (void* p : {(void*)a, (void*)b}) CUDA_OK(cudaFree(p));
  for (int i = 0; i < 3; ++i) {
    CUDA_OK(cudaFree(c[i]));
    CUDA_OK(cudaFree(d[i]));
  }
}

// Split-K and the last round's split (split_k 0) for every instance: odd split counts, with a full
// grid and with a grid of 3 or 4 CTAs (units run in many rounds, pieces of one tile on different
// CTAs at different times). On the full grid the last round is every tile, cut in four; on 4 CTAs
// the tiles past the whole rounds, cut in two. split_k 0 splits on the instances that compile its
// flavour (sm90::has_tail_split_flavour) and runs whole tiles on the others.
void test_split_k(hgemm::verify::Verifier& verifier) {
  for (hgemm::KernelInstance const& inst : hgemm::sm90_instances()) {
    for (auto [splits, max_ctas] : {std::pair{2, 0}, std::pair{3, 3}, std::pair{7, 0},
                                    std::pair{0, 0}, std::pair{0, 4}}) {
      hgemm::KernelConfig config = inst.config;
      config.split_k = splits;
      hgemm::verify::Options options;
      options.nonfinite = false;
      check_on_grid(verifier, config, max_ctas, {200, 264, 1800, config.layout, config.accum, config.dtype},
                    options);
    }
  }
  hgemm::sm90_set_max_ctas(0);
}

// Split-K calls and split last rounds captured in a CUDA graph (the scratch from the graph's own
// allocation, its counters cleared in every replay) replay with new A each time and must equal
// direct calls bitwise.
void test_split_k_graph_replay() {
  const int64_t m = 128, n = 1024, k = 4096;
  __half *a, *b, *c, *d;
  CUDA_OK(cudaMalloc(&a, m * k * 2));
  CUDA_OK(cudaMalloc(&b, k * n * 2));
  CUDA_OK(cudaMalloc(&c, m * n * 2));
  CUDA_OK(cudaMalloc(&d, m * n * 2));
  fill_kernel<<<256, 256>>>(b, k * n, 41);
  CUDA_OK(cudaGetLastError());
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (hgemm::KernelInstance const& inst : hgemm::sm90_instances()) {
    if (inst.config.layout != hgemm::Layout::kTN) continue;
    for (int splits : {4, 0}) {
      hgemm::KernelConfig config = inst.config;
      config.split_k = splits;
      const hgemm::Problem p{m, n, k, config.layout, config.accum, config.dtype};
      check(gpu_checks::graph_replay_matches(gemm_with(config), p, a, b, c, d, stream, 100),
            "split graph replays equal direct calls " + config.name());
    }
  }
  CUDA_OK(cudaStreamDestroy(stream));
  for (void* ptr : {(void*)a, (void*)b, (void*)c, (void*)d}) CUDA_OK(cudaFree(ptr));
}

// Calls TMA cannot take are refused with a reason (dispatch then picks the safety net), and an
// explicit sm90 config for them throws instead of launching.
void test_refusals() {
  hgemm::DeviceInfo const& device = hgemm::current_device();
  hgemm::KernelConfig const config = hgemm::sm90_instances().front().config;
  __half* buf = nullptr;
  CUDA_OK(cudaMalloc(&buf, 4 * 256 * 256 * 2));
  struct Case {
    int64_t m, n, k;
    int offset;  // elements added to A
    char const* why;
  };
  for (Case c : {Case{256, 256, 100, 0, "multiple of 8"}, Case{256, 100, 256, 0, "multiple of 8"},
                 Case{256, 256, 256, 1, "16-byte aligned"}}) {
    hgemm::Problem p{c.m, c.n, c.k, config.layout, config.accum, config.dtype};
    hgemm::GemmArgs args{buf + c.offset, buf + 65536 + 64, buf + 2 * 65536 + 64, c.m, c.n, c.k,
                         nullptr};
    hgemm::Status s = hgemm::sm90_can_implement(p, config, args, device);
    check(!s.ok() && s.code == HGEMM_ERROR_NOT_SUPPORTED &&
              s.message.find(c.why) != std::string::npos,
          "refuses " + p.name() + " (A offset " + std::to_string(c.offset) + "): " + s.message);
    bool threw = false;
    try {
      hgemm::run(p, config, args.a, args.b, args.c, nullptr);
    } catch (hgemm::Error const& e) {
      threw = e.status() == HGEMM_ERROR_NOT_SUPPORTED;
    }
    check(threw, "run() with the sm90 config throws NOT_SUPPORTED for " + p.name());
  }
  CUDA_OK(cudaFree(buf));
}

}  // namespace

int main() {
  if (!gpu_checks::device_present("the sm90 family test needs an sm_90 GPU") ||
      !gpu_checks::device_is_sm90("the sm90 family needs 9.0"))
    return 1;
  check(!hgemm::sm90_instances().empty(), "the catalog has sm90 instances");
  hgemm::verify::Verifier verifier;
  test_instances(verifier);
  test_schedules(verifier);
  test_extra_instances(verifier);
  test_split_k(verifier);
  test_repeatable();
  test_programmatic_chain();
  test_split_k_graph_replay();
  test_refusals();
  return gpu_checks::summary();
}
