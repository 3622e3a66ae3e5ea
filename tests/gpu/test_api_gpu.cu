// GPU tests of the public API: error paths that need a device, unaligned pointers through the
// safety net, CUDA graph capture and replay, thread safety, and no allocation after the first
// call. A plain executable: prints one line per check, exits non-zero on any failure.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hgemm/hgemm.h"
#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"
#include "gpu_checks.cuh"

namespace {

using gpu_checks::check;
using gpu_checks::fill_kernel;

void fill(__half* p, int64_t n, uint32_t seed) {
  fill_kernel<<<256, 256>>>(p, n, seed);
  CUDA_OK(cudaGetLastError());
}

// Bitwise comparison of two device buffers of halves.
bool same_bits(const __half* x, const __half* y, int64_t n) {
  std::vector<uint16_t> a(n), b(n);
  CUDA_OK(cudaMemcpy(a.data(), x, n * 2, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(b.data(), y, n * 2, cudaMemcpyDeviceToHost));
  return a == b;
}

void test_device_error_paths() {
  std::vector<__half> host(64 * 64);
  __half* dev = nullptr;
  CUDA_OK(cudaMalloc(&dev, 3 * 64 * 64 * sizeof(__half)));
  hgemmStatus_t s = hgemmRun(host.data(), dev, dev + 64 * 64, 64, 64, 64, HGEMM_LAYOUT_NN,
                             HGEMM_ACC_F32, nullptr);
  check(s == HGEMM_ERROR_INVALID_POINTER &&
            std::string(hgemmLastErrorMessage()).find("A points to host memory") != std::string::npos,
        std::string("host pointer for A is rejected: ") + hgemmStatusString(s) + " / " +
            hgemmLastErrorMessage());
  s = hgemmRun(dev, dev + 64 * 64, dev + 64 * 64, 64, 64, 64, HGEMM_LAYOUT_TN, HGEMM_ACC_F32,
               nullptr);
  check(s == HGEMM_ERROR_ALIASING, std::string("C == B is rejected: ") + hgemmLastErrorMessage());
  try {
    hgemm::KernelConfig bogus;
    bogus.block_m = 32;
    bogus.block_n = 32;
    bogus.warps_m = 1;
    bogus.warps_n = 1;
    hgemm::run(hgemm::Problem{64, 64, 64}, bogus, dev, dev + 4096, dev + 8192, nullptr);
    check(false, "an uncompiled config throws");
  } catch (const hgemm::Error& e) {
    check(e.status() == HGEMM_ERROR_NOT_SUPPORTED &&
              std::string(e.what()).find("not in this build's catalog") != std::string::npos,
          std::string("an uncompiled config throws NOT_SUPPORTED: ") + e.what());
  }
  // The device is still usable after all the refusals.
  s = hgemmRun(dev, dev + 4096, dev + 8192, 64, 64, 64, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, nullptr);
  check(s == HGEMM_SUCCESS && cudaDeviceSynchronize() == cudaSuccess,
        "a valid call succeeds after refused ones");
  CUDA_OK(cudaFree(dev));
}

// No CUDA device: run ourselves with no visible device and read the status it prints.
void test_no_device(const char* self) {
  std::string cmd = "CUDA_VISIBLE_DEVICES= " + std::string(self) + " --no-device-child";
  FILE* pipe = popen(cmd.c_str(), "r");
  char buf[512] = {0};
  std::string out;
  while (pipe && fgets(buf, sizeof buf, pipe)) out += buf;
  int status = pipe ? pclose(pipe) : -1;
  check(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
            out.find("HGEMM_ERROR_NO_DEVICE") != std::string::npos,
        "no visible device gives HGEMM_ERROR_NO_DEVICE: " + out);
}

int no_device_child() {
  // The pointers are never dereferenced: the device check fails first.
  const void* fake = reinterpret_cast<const void*>(uintptr_t(0x100000));
  hgemmStatus_t s = hgemmRun(fake, reinterpret_cast<const void*>(uintptr_t(0x200000)),
                             reinterpret_cast<void*>(uintptr_t(0x300000)), 8, 8, 8,
                             HGEMM_LAYOUT_NN, HGEMM_ACC_F32, nullptr);
  std::printf("%s | %s\n", hgemmStatusString(s), hgemmLastErrorMessage());
  return s == HGEMM_ERROR_NO_DEVICE ? 0 : 1;
}

// hgemmExplain names the config that hgemmRun's dispatch picks for cudaMalloc'd pointers.
void test_explain() {
  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, std::tuple{8, 4096, 4096},
                         std::tuple{1000, 1000, 1000}, std::tuple{17, 33, 65}}) {
    for (hgemmLayout_t layout : {HGEMM_LAYOUT_NN, HGEMM_LAYOUT_TN}) {
      void *a = nullptr, *b = nullptr, *c = nullptr;
      CUDA_OK(cudaMalloc(&a, size_t(m) * k * 2));
      CUDA_OK(cudaMalloc(&b, size_t(k) * n * 2));
      CUDA_OK(cudaMalloc(&c, size_t(m) * n * 2));
      const hgemm::Problem p{m, n, k, static_cast<hgemm::Layout>(layout), hgemm::Accum::kF32};
      hgemmExplanation_t e{};
      const hgemmStatus_t s = hgemmExplain(m, n, k, layout, HGEMM_ACC_F32, &e);
      const std::string chosen = hgemm::select_config(p, a, b, c).name();
      check(s == HGEMM_SUCCESS && chosen == e.config && e.rule[0] && e.reason[0],
            "hgemmExplain " + p.name() + ": " + e.config + " (" + e.rule + ") vs dispatch's " +
                chosen);
      CUDA_OK(cudaFree(a));
      CUDA_OK(cudaFree(b));
      CUDA_OK(cudaFree(c));
    }
  }
}

// Unaligned (2-byte aligned) pointers go through the safety net and verify.
void test_unaligned() {
  hgemm::verify::Verifier verifier;
  hgemm::verify::Options options;
  options.misalign_elements = 1;
  for (auto layout : {hgemm::Layout::kNN, hgemm::Layout::kTN}) {
    for (auto accum : {hgemm::Accum::kF32, hgemm::Accum::kF16}) {
      for (auto [m, n, k] : {std::tuple{256, 256, 256}, std::tuple{17, 33, 65},
                             std::tuple{1000, 1000, 1000}}) {
        hgemm::Problem p{m, n, k, layout, accum};
        auto report = verifier.check(
            p, [](const hgemm::Problem& q, const void* a, const void* b, void* c,
                  cudaStream_t st) {
              hgemmStatus_t s = hgemmRun(a, b, c, q.m, q.n, q.k, hgemmLayout_t(q.layout),
                                         hgemmAccum_t(q.accum), st);
              if (s != HGEMM_SUCCESS) throw hgemm::Error(s, hgemmLastErrorMessage());
            },
            options);
        check(report.passed(), "unaligned pointers " + p.name() + ": " + report.summary());
      }
    }
  }
}

// Capture hgemmRun into a graph, replay it, and compare bitwise with an eager call. The long-K
// shape goes through split-K, whose scratch comes from a stream-ordered pool inside the capture.
void test_graph_capture(int64_t m, int64_t n, int64_t k) {
  __half *a, *b, *c_eager, *c_graph;
  CUDA_OK(cudaMalloc(&a, m * k * 2));
  CUDA_OK(cudaMalloc(&b, k * n * 2));
  CUDA_OK(cudaMalloc(&c_eager, m * n * 2));
  CUDA_OK(cudaMalloc(&c_graph, m * n * 2));
  fill(a, m * k, 1);
  fill(b, k * n, 2);
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (auto layout : {HGEMM_LAYOUT_NN, HGEMM_LAYOUT_TN}) {
    for (auto acc : {HGEMM_ACC_F32, HGEMM_ACC_F16}) {
      CUDA_OK(cudaMemset(c_eager, 0xff, m * n * 2));
      CUDA_OK(cudaMemset(c_graph, 0xff, m * n * 2));
      CUDA_OK(cudaDeviceSynchronize());
      bool ok = hgemmRun(a, b, c_eager, m, n, k, layout, acc, stream) == HGEMM_SUCCESS;
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CUDA_OK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
      hgemmStatus_t s = hgemmRun(a, b, c_graph, m, n, k, layout, acc, stream);
      CUDA_OK(cudaStreamEndCapture(stream, &graph));
      ok = ok && s == HGEMM_SUCCESS;
      CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
      for (int i = 0; i < 3; ++i) CUDA_OK(cudaGraphLaunch(exec, stream));
      CUDA_OK(cudaStreamSynchronize(stream));
      ok = ok && same_bits(c_eager, c_graph, m * n);
      check(ok, "graph capture and replay of " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                    std::to_string(k) + ", bitwise equal to eager, layout " +
                    (layout == HGEMM_LAYOUT_NN ? "nn" : "tn") + (acc == HGEMM_ACC_F32 ? " f32" : " f16") +
                    (ok ? "" : std::string(" status ") + hgemmStatusString(s)));
      CUDA_OK(cudaGraphExecDestroy(exec));
      CUDA_OK(cudaGraphDestroy(graph));
    }
  }
  CUDA_OK(cudaStreamDestroy(stream));
  for (void* p : {(void*)a, (void*)b, (void*)c_eager, (void*)c_graph}) CUDA_OK(cudaFree(p));
}

// Eight threads call concurrently on their own streams and outputs; all must match one result.
// With warm_streams, each stream has had one call before memory is measured: split-K's pooled
// scratch grows with the number of streams in flight at once, then never again.
void test_threads_and_no_allocation(int64_t m, int64_t n, int64_t k, bool warm_streams) {
  const int kThreads = 8;
  __half *a, *b, *c;
  CUDA_OK(cudaMalloc(&a, m * k * 2));
  CUDA_OK(cudaMalloc(&b, k * n * 2));
  CUDA_OK(cudaMalloc(&c, (kThreads + 1) * m * n * 2));
  fill(a, m * k, 3);
  fill(b, k * n, 4);
  CUDA_OK(cudaDeviceSynchronize());
  check(hgemmRun(a, b, c, m, n, k, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, nullptr) == HGEMM_SUCCESS,
        "first call");
  CUDA_OK(cudaDeviceSynchronize());
  // Streams are created up front: creating one allocates device memory, and that is the test's
  // allocation, not the library's.
  std::vector<cudaStream_t> streams(kThreads);
  for (auto& st : streams) CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  if (warm_streams) {
    std::vector<std::thread> warm;
    for (int t = 0; t < kThreads; ++t)
      warm.emplace_back([&, t] {
        hgemmRun(a, b, c + (t + 1) * m * n, m, n, k, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, streams[t]);
      });
    for (auto& th : warm) th.join();
    CUDA_OK(cudaDeviceSynchronize());
  }
  size_t free_before = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_before, &total));
  std::atomic<int> bad{0};
  std::string first_error;  // written only by the thread that saw the first failure
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      cudaStream_t s = streams[t];
      for (int i = 0; i < 50; ++i) {
        hgemmStatus_t st =
            hgemmRun(a, b, c + (t + 1) * m * n, m, n, k, HGEMM_LAYOUT_TN, HGEMM_ACC_F32, s);
        if (st != HGEMM_SUCCESS && bad++ == 0) first_error = hgemmLastErrorMessage();
      }
      if (cudaStreamSynchronize(s) != cudaSuccess) ++bad;
    });
  }
  for (auto& th : threads) th.join();
  size_t free_after = 0;
  CUDA_OK(cudaMemGetInfo(&free_after, &total));
  bool same = true;
  std::string mismatched;
  for (int t = 0; t < kThreads; ++t) {
    if (!same_bits(c, c + (t + 1) * m * n, m * n)) {
      same = false;
      mismatched += " " + std::to_string(t);
    }
  }
  for (auto& st : streams) CUDA_OK(cudaStreamDestroy(st));
  const std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  check(bad == 0 && same, "8 threads x 50 concurrent calls of " + shape +
                              " succeed and agree bitwise (failed calls: " +
                              std::to_string(bad.load()) + ", threads differing:" +
                              (mismatched.empty() ? " none" : mismatched) + ", first error: " +
                              first_error + ")");
  check(free_after == free_before, "no device allocation after the first call" +
                                       std::string(warm_streams ? " on each stream" : "") + " of " +
                                       shape + " (free " +
                                       std::to_string(free_before) + " -> " +
                                       std::to_string(free_after) + ")");
  for (void* p : {(void*)a, (void*)b, (void*)c}) CUDA_OK(cudaFree(p));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--no-device-child") == 0) return no_device_child();
  if (!gpu_checks::device_present("GPU tests never skip")) return 1;
  test_device_error_paths();
  test_no_device(argv[0]);
  test_explain();
  test_unaligned();
  test_graph_capture(1024, 512, 768);
  test_graph_capture(256, 128, 16384);  // split-K on an H100 (tests/unit/test_dispatch.cpp)
  test_threads_and_no_allocation(512, 384, 1024, false);
  test_threads_and_no_allocation(256, 128, 16384, true);
  const int failures = gpu_checks::g_failures;
  std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
