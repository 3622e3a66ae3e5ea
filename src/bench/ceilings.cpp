#include "bench/ceilings.hpp"

#include <algorithm>
#include <vector>

#include "bench/timing.hpp"
#include "core/error.hpp"

namespace hgemm::bench {
namespace {

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t bytes) { HGEMM_CUDA_CHECK(cudaMalloc(&ptr, bytes)); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    HGEMM_CUDA_CHECK(cudaEventCreate(&start));
    HGEMM_CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

// Median ms of `reps` timed runs of `work`, after two untimed ones.
template <class Work>
double median_ms(cudaStream_t stream, int reps, Work&& work) {
  Events ev;
  for (int i = 0; i < 2; ++i) work();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    HGEMM_CUDA_CHECK(cudaEventRecord(ev.start, stream));
    work();
    HGEMM_CUDA_CHECK(cudaEventRecord(ev.stop, stream));
    HGEMM_CUDA_CHECK(cudaEventSynchronize(ev.stop));
    float t = 0;
    HGEMM_CUDA_CHECK(cudaEventElapsedTime(&t, ev.start, ev.stop));
    ms.push_back(double(t));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

Ceilings measure_ceilings(cudaStream_t stream, const verify::GemmFn& gemm, Accum accum,
                          DType dtype, const std::string& gemm_name) {
  Ceilings c;
  {
    DeviceBuffer src{size_t(kCopyBytes)}, dst{size_t(kCopyBytes)};
    fill_uniform(src.ptr, kCopyBytes / 2, 7, stream);
    const double ms = median_ms(stream, 5, [&] {
      HGEMM_CUDA_CHECK(
          cudaMemcpyAsync(dst.ptr, src.ptr, size_t(kCopyBytes), cudaMemcpyDeviceToDevice, stream));
    });
    c.dram_tbps = 2.0 * double(kCopyBytes) / (ms * 1e-3) / 1e12;
  }
  {
    const int64_t n = kPeakShape;
    const size_t bytes = size_t(n * n) * 2;
    DeviceBuffer a{bytes}, b{bytes}, out{bytes};
    fill_uniform(a.ptr, n * n, 11, stream, dtype);
    fill_uniform(b.ptr, n * n, 13, stream, dtype);
    const Problem p{n, n, n, Layout::kTN, accum, dtype};
    const double ms = median_ms(stream, 5, [&] { gemm(p, a.ptr, b.ptr, out.ptr, stream); });
    c.peak_tflops = p.flops() / (ms * 1e-3) / 1e12;
  }
  c.method = "dram: median of 5 device-to-device copies of 1 GiB, bytes read + written; peak: " +
             gemm_name + " on 8192^3 TN " + std::string(to_string(accum));
  // fp16 runs keep the text they always had.
  if (dtype != DType::kF16) c.method.append(" ").append(to_string(dtype));
  c.method += ", median of 5 calls, random data";
  return c;
}

}  // namespace hgemm::bench
