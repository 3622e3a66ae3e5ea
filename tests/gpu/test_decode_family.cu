// GPU test of the decode family (M <= 16, kernels/sm80/sm80_decode.cuh): every compiled instance
// through the verifier at every M from 1 to 16 that changes the code's path (1, 2, 3, 7, 8, the
// first second-mma row 9, 15, 16) on N and K residues (N below, at and past a CTA's columns, N
// of 1; K below one k32 chunk, below one round of the warps, past the stage ring), both layouts
// and both accumulations; bitwise repeatability; dispatch choosing the family for untabled
// M <= 16 shapes and the safety net for what it refuses; a chain of dependent calls under
// programmatic dependent launch; graph capture. A plain executable: one line per check,
// non-zero exit on any failure, and a failure (not a skip) without an sm_80+ device.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "core/decode_variant.hpp"
#include "core/device.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "verify/verifier.hpp"
#include "gpu_checks.cuh"

namespace {

using gpu_checks::check;
using gpu_checks::gemm_with;
using gpu_checks::fill_kernel;
using hgemm::KernelConfig;
using hgemm::Problem;

hgemm::verify::GemmFn gemm_dispatched() {
  return [](Problem const& p, void const* a, void const* b, void* c, cudaStream_t s) {
    hgemm::run(p, a, b, c, s);
  };
}

// (N, K) pairs every instance must pass. K % 8 == 0 always (the family's limit); NN also keeps
// N % 8 == 0. `round` is the K one round of all warps covers, `ring` the K the stage ring holds.
std::vector<std::pair<int64_t, int64_t>> shapes_for(KernelConfig const& c) {
  const int64_t bn = c.block_n;
  const int64_t round = int64_t(c.warps_n) * c.block_k;
  const int64_t ring = round * c.num_stages;
  const bool nn = c.layout == hgemm::Layout::kNN;
  std::vector<std::pair<int64_t, int64_t>> out = {
      {nn ? 8 : 1, 8},                 // one column (TN), one piece of K: 31 of 32 lanes idle
      {nn ? bn - 8 : bn - 1, 40},      // a partial CTA; K past one chunk, into the next
      {3 * bn + 8, ring + round + 8},  // wraps the ring; the tail round holds one piece
      {nn ? 264 : 259, round - 8},     // every warp but the last has K; the last a partial chunk
      {1000, 1032},
  };
  if (!nn) out.push_back({bn + 3, 2 * round});  // N residue of 3 columns, K whole rounds
  return out;
}

void test_instances(hgemm::verify::Verifier& verifier) {
  for (hgemm::KernelInstance const& inst : hgemm::decode_instances()) {
    KernelConfig const& c = inst.config;
    for (int64_t m : {1, 2, 3, 7, 8, 9, 15, 16}) {
      for (auto [n, k] : shapes_for(c)) {
        Problem p{m, n, k, c.layout, c.accum, c.dtype};
        auto report = verifier.check(p, gemm_with(c));
        check(report.passed(), c.name() + " " + p.name() + ": " + report.summary());
      }
    }
    // One decode-sized shape per instance at the two ends of M: many CTAs, long K.
    for (int64_t m : {1, 16}) {
      Problem p{m, 4104, 4096, c.layout, c.accum, c.dtype};
      hgemm::verify::Options options;
      options.small_integer = options.precision_probe = options.nonfinite = false;
      auto report = verifier.check(p, gemm_with(c), options);
      check(report.passed(), c.name() + " " + p.name() + ": " + report.summary());
    }
  }
}

// Two runs on the same inputs give the same bits (a fixed order of the warps' sums, no atomics),
// into buffers that held different bytes before.
void test_repeatable() {
  const int64_t n = 3000 + 8, k = 4104;
  __half *a, *b, *c0, *c1;
  CUDA_OK(cudaMalloc(&a, 16 * k * 2));
  CUDA_OK(cudaMalloc(&b, k * n * 2));
  CUDA_OK(cudaMalloc(&c0, 16 * n * 2));
  CUDA_OK(cudaMalloc(&c1, 16 * n * 2));
  fill_kernel<<<256, 256>>>(a, 16 * k, 21);
  fill_kernel<<<256, 256>>>(b, k * n, 22);
  CUDA_OK(cudaGetLastError());
  for (hgemm::KernelInstance const& inst : hgemm::decode_instances()) {
    for (int64_t m : {5, 16}) {
      const Problem p{m, n, k, inst.config.layout, inst.config.accum, inst.config.dtype};
      check(gpu_checks::repeatable(gemm_with(inst.config), p, a, b, c0, c1),
            "bitwise repeatable " + inst.config.name() + " " + p.name());
    }
  }
  for (void* p : {(void*)a, (void*)b, (void*)c0, (void*)c1}) CUDA_OK(cudaFree(p));
}

// Dispatch on this device: untabled M <= 16 shapes run the decode family in TN below 12 tokens
// where the swap-AB tile would split K or run under 64 CTAs (1 x 2048: 32 CTAs), the tile there
// where it runs unsplit on 64 or more (1 x 4608: 72), the tile in NN and in TN from 12
// (dispatch.cpp: there the decode kernels are the slower), K split where the stream model asks,
// and pass the verifier; what the family refuses (M = 17, K % 8 != 0, unaligned pointers) runs
// elsewhere and passes too.
void test_dispatch(hgemm::verify::Verifier& verifier) {
  __half* buf = nullptr;
  CUDA_OK(cudaMalloc(&buf, 3 * 4608 * 3584 * 2));
  for (hgemm::Layout layout : {hgemm::Layout::kTN, hgemm::Layout::kNN})
    for (hgemm::Accum accum : {hgemm::Accum::kF32, hgemm::Accum::kF16})
      for (const int64_t n : {4608, 2048}) {
        const Problem p{1, n, 3584, layout, accum};
        const KernelConfig picked =
            hgemm::select_config(p, buf, buf + 4608 * 3584, buf + 2 * 4608 * 3584);
        if (layout == hgemm::Layout::kTN && n == 2048)
          check(picked.family == hgemm::Family::kDecode,
                "dispatch runs the decode family for " + p.name() + ": " + picked.name());
        else
          check(picked.family == hgemm::Family::kSm90Ws && picked.swap_ab &&
                    (layout == hgemm::Layout::kNN || picked.split_k == 1),
                "dispatch runs a swap-AB tile for " + p.name() + ": " + picked.name());
        auto report = verifier.check(p, gemm_dispatched());
        check(report.passed(), "dispatch " + p.name() + ": " + report.summary());
      }
  for (hgemm::Accum accum : {hgemm::Accum::kF32, hgemm::Accum::kF16})
    for (const Problem& p : {Problem{12, 4608, 3584, hgemm::Layout::kTN, accum},
                             Problem{13, 2048, 7168, hgemm::Layout::kTN, accum}}) {
      const KernelConfig picked =
          hgemm::select_config(p, buf, buf + 4608 * 3584, buf + 2 * 4608 * 3584);
      check(picked.family == hgemm::Family::kSm90Ws && picked.swap_ab,
            "dispatch runs a swap-AB tile for " + p.name() + ": " + picked.name());
      if (p.n == 2048)
        check(picked.split_k > 1, "dispatch splits K for " + p.name() + ": " + picked.name());
      auto report = verifier.check(p, gemm_dispatched());
      check(report.passed(), "dispatch " + p.name() + ": " + report.summary());
    }
  {
    const Problem p{17, 1000, 1000, hgemm::Layout::kTN, hgemm::Accum::kF32};
    const KernelConfig picked = hgemm::select_config(p, buf, buf + 1000 * 1000, buf + 2000 * 1000);
    check(picked.family != hgemm::Family::kDecode, "M = 17 is not decode's: " + picked.name());
  }
  for (auto [p, misalign] :
       {std::pair{Problem{8, 1000, 1004, hgemm::Layout::kTN, hgemm::Accum::kF32}, 0},
        std::pair{Problem{8, 1000, 1000, hgemm::Layout::kTN, hgemm::Accum::kF16}, 1},
        std::pair{Problem{16, 1004, 1000, hgemm::Layout::kNN, hgemm::Accum::kF32}, 0}}) {
    hgemm::verify::Options options;
    options.misalign_elements = misalign;
    auto report = verifier.check(p, gemm_dispatched(), options);
    check(report.passed(), "dispatch outside decode's limits " + p.name() + " misalign " +
                               std::to_string(misalign) + ": " + report.summary());
  }
  CUDA_OK(cudaFree(buf));
}

// Calls the family cannot take are refused with the reason, and an explicit config throws
// instead of launching.
void test_refusals() {
  hgemm::DeviceInfo const& device = hgemm::current_device();
  __half* buf = nullptr;
  CUDA_OK(cudaMalloc(&buf, 4 * 256 * 256 * 2));
  struct Case {
    int64_t m, n, k;
    hgemm::Layout layout;
    int offset;  // elements added to A
    char const* why;
  };
  for (Case c : {Case{17, 256, 256, hgemm::Layout::kTN, 0, "at most 16 rows"},
                 Case{8, 256, 100, hgemm::Layout::kTN, 0, "K % 8 == 0"},
                 Case{8, 100, 256, hgemm::Layout::kNN, 0, "N % 8 == 0"},
                 Case{8, 256, 256, hgemm::Layout::kTN, 1, "16-byte aligned"}}) {
    KernelConfig config;
    for (hgemm::KernelInstance const& inst : hgemm::decode_instances())
      if (inst.config.layout == c.layout) {
        config = inst.config;
        break;
      }
    const Problem p{c.m, c.n, c.k, config.layout, config.accum, config.dtype};
    const hgemm::GemmArgs args{buf + c.offset, buf + 65536 + 64, buf + 2 * 65536 + 64,
                               c.m, c.n, c.k, nullptr};
    const hgemm::Status s = hgemm::decode_can_implement(p, config, args, device);
    check(!s.ok() && s.code == HGEMM_ERROR_NOT_SUPPORTED &&
              s.message.find(c.why) != std::string::npos,
          "refuses " + p.name() + " (A offset " + std::to_string(c.offset) + "): " + s.message);
    bool threw = false;
    try {
      hgemm::run(p, config, args.a, args.b, args.c, nullptr);
    } catch (hgemm::Error const& e) {
      threw = e.status() == HGEMM_ERROR_NOT_SUPPORTED;
    }
    check(threw, "run() with " + config.name() + " throws NOT_SUPPORTED for " + p.name());
  }
  CUDA_OK(cudaFree(buf));
}

// Programmatic dependent launch (sm_90): each call may start while the one ahead finishes, so it
// must wait before reading that call's output. C1 = A*B, C2 = C1*B, C3 = C2*B (B square, TN)
// back to back must equal the same chain synchronized and launched without the attribute.
void test_programmatic_chain() {
  const int64_t m = 8, n = 1024;
  __half *a, *b;
  void *c[3], *d[3];
  CUDA_OK(cudaMalloc(&a, m * n * 2));
  CUDA_OK(cudaMalloc(&b, n * n * 2));
  for (int i = 0; i < 3; ++i) {
    CUDA_OK(cudaMalloc(&c[i], m * n * 2));
    CUDA_OK(cudaMalloc(&d[i], m * n * 2));
  }
  fill_kernel<<<256, 256>>>(a, m * n, 51);
  fill_kernel<<<256, 256>>>(b, n * n, 52);
  CUDA_OK(cudaGetLastError());
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (hgemm::KernelInstance const& inst : hgemm::decode_instances()) {
    KernelConfig const& config = inst.config;
    if (config.layout != hgemm::Layout::kTN) continue;
    const Problem p{m, n, n, config.layout, config.accum, config.dtype};
    check(gpu_checks::programmatic_chain_matches(gemm_with(config), p, a, b, c, d, stream),
          "programmatic launch chain of 3 equals the synchronized one " + config.name());
  }
  CUDA_OK(cudaStreamDestroy(stream));
  for (void* p : {(void*)a, (void*)b}) CUDA_OK(cudaFree(p));
  for (int i = 0; i < 3; ++i) {
    CUDA_OK(cudaFree(c[i]));
    CUDA_OK(cudaFree(d[i]));
  }
}

// A dispatched decode call captured in a CUDA graph replays with new A each time and equals
// direct calls bitwise.
void test_graph_replay() {
  const int64_t m = 4, n = 4608, k = 3584;
  __half *a, *b, *c, *d;
  CUDA_OK(cudaMalloc(&a, m * k * 2));
  CUDA_OK(cudaMalloc(&b, k * n * 2));
  CUDA_OK(cudaMalloc(&c, m * n * 2));
  CUDA_OK(cudaMalloc(&d, m * n * 2));
  fill_kernel<<<256, 256>>>(b, k * n, 61);
  CUDA_OK(cudaGetLastError());
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const Problem p{m, n, k, hgemm::Layout::kTN, hgemm::Accum::kF32};
  check(gpu_checks::graph_replay_matches(gemm_dispatched(), p, a, b, c, d, stream, 200),
        "decode graph replays equal direct calls " + p.name());
  CUDA_OK(cudaStreamDestroy(stream));
  for (void* ptr : {(void*)a, (void*)b, (void*)c, (void*)d}) CUDA_OK(cudaFree(ptr));
}

}  // namespace

int main() {
  if (!gpu_checks::device_present("the decode family test needs an sm_80 or newer GPU")) return 1;
  hgemm::DeviceInfo const& device = hgemm::current_device();
  if (device.cc() < 80) {
    std::printf("FAIL %s is compute capability %d.%d; the decode family needs 8.0\n",
                device.name.c_str(), device.cc_major, device.cc_minor);
    return 1;
  }
  check(!hgemm::decode_instances().empty(), "the catalog has decode instances");
  hgemm::verify::Verifier verifier;
  test_instances(verifier);
  test_repeatable();
  test_dispatch(verifier);
  test_refusals();
  test_programmatic_chain();
  test_graph_replay();
  return gpu_checks::summary();
}
