// libFuzzer target: hgemmGemm's descriptor from arbitrary bytes. validate() and
// validate_pointers() must answer with a status that names the problem, never crash or hit
// undefined behaviour, whatever the sizes, leading dimensions, strides, batch count, enums and
// pointers; a descriptor they accept must route (dispatch::route, route_args), size its
// workspace and name itself without either. Built and run by scripts/fuzz (clang, ASan, UBSan);
// not part of the CMake build.
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "dispatch/gemm_route.hpp"
#include "hgemm/hgemm.hpp"

namespace {

// The fuzzer's bytes as the descriptor's fields, zeros once they run out.
struct Bytes {
  const uint8_t* data;
  size_t size;
  template <class T>
  T take() {
    T v{};
    const size_t n = size < sizeof(T) ? size : sizeof(T);
    std::memcpy(&v, data, n);
    data += n;
    size -= n;
    return v;
  }
  // A size, leading dimension or stride: mostly from the values where arithmetic breaks
  // (powers of two and their neighbours, the 32- and 64-bit limits, negatives), else any.
  int64_t extent() {
    static constexpr int64_t kEdges[] = {0,         1,          2,          7,
                                         8,         15,         16,         17,
                                         63,        64,         65,         255,
                                         256,       4095,       4096,       65535,
                                         65536,     INT_MAX,    int64_t(INT_MAX) + 1,
                                         int64_t(1) << 32,      int64_t(1) << 40,
                                         int64_t(1) << 61,      int64_t(1) << 62,
                                         INT64_MAX, -1,         INT64_MIN};
    const uint8_t pick = take<uint8_t>();
    if (pick < 2 * std::size(kEdges)) return kEdges[pick % std::size(kEdges)];
    return take<int64_t>();
  }
  // A pointer at an arbitrary small offset from one of a few far-apart bases, or null.
  const void* pointer() {
    const uint8_t pick = take<uint8_t>();
    if (pick % 8 == 0) return nullptr;
    const uintptr_t base = uintptr_t(pick % 4 + 1) << 40;
    return reinterpret_cast<const void*>(base + take<uint16_t>());
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in{data, size};
  hgemm::GemmDesc d;
  d.m = in.extent();
  d.n = in.extent();
  d.k = in.extent();
  // Enums past their values too: the checks must refuse them by name.
  d.order_a = hgemm::Order(in.take<uint8_t>() % 3);
  d.order_b = hgemm::Order(in.take<uint8_t>() % 3);
  d.order_c = hgemm::Order(in.take<uint8_t>() % 3);
  d.lda = in.extent();
  d.ldb = in.extent();
  d.ldc = in.extent();
  d.dtype = hgemm::DType(in.take<uint8_t>() % 3);
  d.accum = hgemm::Accum(in.take<uint8_t>() % 3);
  d.alpha = in.take<float>();
  d.beta = in.take<float>();
  d.batch_count = in.extent();
  d.stride_a = in.extent();
  d.stride_b = in.extent();
  d.stride_c = in.extent();
  d.activation = hgemm::Activation(in.take<uint8_t>() % 5);
  d.bias = in.pointer();
  d.workspace = const_cast<void*>(in.pointer());
  d.workspace_bytes = in.take<uint64_t>();
  const void* a = in.pointer();
  const void* b = in.pointer();
  void* c = const_cast<void*>(in.pointer());

  const hgemm::Status valid = d.validate();
  if (!valid.ok() && valid.message.empty()) std::abort();
  // The pointer checks run the descriptor's first: the same refusal where it has one.
  const hgemm::Status placed = d.validate_pointers(a, b, c);
  if (!placed.ok() && placed.message.empty()) std::abort();
  if (!valid.ok() && placed.code != valid.code) std::abort();
  if (!valid.ok()) return 0;
  (void)d.name();
  const hgemm::dispatch::GemmRoute route = hgemm::dispatch::route(d);
  if (route.reason.empty()) std::abort();
  if (hgemm::workspace_size(d) != hgemm::dispatch::workspace_bytes(route)) std::abort();
  if (!route.dispatch) return 0;
  // The problem dispatch sees is the call's, transposed where C is run as C^T = B^T A^T.
  const hgemm::Problem& p = route.problem;
  if (p.m != (route.transposed ? d.n : d.m) || p.n != (route.transposed ? d.m : d.n) ||
      p.k != d.k || p.dtype != d.dtype || p.accum != d.accum)
    std::abort();
  const hgemm::GemmArgs args = hgemm::dispatch::route_args(d, route, a, b, c, nullptr);
  if (args.m != p.m || args.n != p.n || args.k != p.k || args.c != c) std::abort();
  return 0;
}
