// Host side of the sm90 warp-specialized family: the launcher every instantiation shares (catalog
// or compiled at run time), the compiled catalog, can_implement with its reasons, and the
// grid-size knob. The kernels themselves are instantiated in the catalog shards that CMake
// generates from launch/sm90_catalog.hpp, so that a parallel build compiles them side by side.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "core/error.hpp"
#include "kernels/sm90/sm90_ws.cuh"
#include "launch/launch.hpp"
#include "launch/sm90_catalog.hpp"
#include "launch/sm90_launch.hpp"
#include "launch/sm90_tensor_map.hpp"
#include "launch/epilogue_params.cuh"
#include "launch/splitk.hpp"
#include "launch/workspace.hpp"

namespace hgemm {
namespace {

std::atomic<int> g_max_ctas{0};

// Over the llm-tune shapes on the H200 the early signal gained 10-25% on kernels of at most this
// many k-blocks per CTA; thresholds of 16-48 did as well (docs/notes/2026-11-28-pdl-trigger.md).
constexpr int64_t kEarlyDependentsKBlocks = 32;

bool aligned16(void const* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

Status refuse(KernelConfig const& config, hgemmStatus_t code, std::string const& why) {
  return Status::failure(code, config.name() + ": " + why);
}

// Per device, once: raise the kernel's dynamic smem limit and count how many clusters fit at a
// time. Racing threads both do the (idempotent) work; the result is published with release order.
int max_active_clusters(Sm90Kernel const& kernel, int device, int sm_count) {
  Sm90Geometry const& g = kernel.geometry;
  const bool cached = device >= 0 && device < Sm90Kernel::kMaxDevices;
  if (cached)
    if (int v = kernel.max_clusters[device].load(std::memory_order_acquire); v > 0) return v;
  HGEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel.entry, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        g.smem_bytes));
  int clusters = sm_count / g.cluster_size;
  if (g.cluster_size > 1) {
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(clusters * g.cluster_size));
    config.blockDim = dim3(unsigned(g.num_threads));
    config.dynamicSmemBytes = size_t(g.smem_bytes);
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = unsigned(g.cluster_size);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
    int fit = 0;
    if (cudaOccupancyMaxActiveClusters(&fit, kernel.entry, &config) == cudaSuccess && fit > 0)
      clusters = std::min(clusters, fit);
    else
      cudaGetLastError();  // the query is advisory; keep the error state clean
  }
  clusters = std::max(clusters, 1);
  if (cached) kernel.max_clusters[device].store(clusters, std::memory_order_release);
  return clusters;
}

// Whether the call's column-major A runs from StagedA's copy (sm90_stages_a).
bool runs_from_staged_a(GemmArgs const& call) {
  return call.a_col_major && sm90_stages_a(call.row_stride_a(), call.a, call.batch_count);
}

// A column-major A that TMA cannot stride (sm90_stages_a: a leading dimension that is not a
// multiple of 8, or a base not 16-byte aligned) copied, on the call's stream before the GEMM, to
// one whose leading dimension is M rounded up to 8, in the caller's workspace or the pool
// (sm90_check_args saw that it fits); args() is the call with A replaced by the copy. Every other
// call passes through.
class StagedA {
 public:
  explicit StagedA(GemmArgs const& call) : args_(call) {
    if (!runs_from_staged_a(call)) return;
    void* copy = scratch_
                     .emplace(sm90_staged_a_bytes(call.m, call.k), call.workspace, call.stream,
                              "a copy of column-major A")
                     .get();
    const int64_t ld = sm90_staged_a_ld(call.m);
    // K columns of M elements each, from rows of lda to rows of ld.
    HGEMM_CUDA_CHECK(cudaMemcpy2DAsync(copy, size_t(ld) * 2, call.a,
                                       size_t(call.row_stride_a()) * 2, size_t(call.m) * 2,
                                       size_t(call.k), cudaMemcpyDeviceToDevice, call.stream));
    args_.a = copy;
    args_.lda = ld;
  }

  GemmArgs const& args() const { return args_; }

 private:
  GemmArgs args_;
  std::optional<OperandCopyScratch> scratch_;
};

}  // namespace

void sm90_launch(KernelConfig const& config, Sm90Kernel const& kernel, GemmArgs const& call) {
  const KernelConfig instance = config.instance();
  if (Status s = sm90_check_args(instance, call); !s.ok()) HGEMM_THROW(s.code, s.message);
  const StagedA staged(call);
  GemmArgs const& args = staged.args();
  if ((sm90_needs_general(args) && !kernel.general) || args.a_col_major != kernel.a_mn_major)
    HGEMM_THROW(HGEMM_ERROR_INTERNAL,
                config.name() + ": launched with the wrong flavour for " +
                    (args.a_col_major ? "a column-major A" : "this call") +
                    " (launch/sm90_instance.cuh picks it)");
  Sm90Geometry const& g = kernel.geometry;
  DeviceInfo const& device = current_device();
  // The kernel's own terms (Sm90Variant): swap-AB runs C^T = B^T A^T, B as the kernel's A.
  const Sm90Variant v = sm90_variant(instance);
  const bool swap = v.swap_ab;
  const void* const op_a = swap ? args.b : args.a;
  const void* const op_b = swap ? args.a : args.b;
  const int m = int(swap ? args.n : args.m), n = int(swap ? args.m : args.n), k = int(args.k);
  // Row strides: swap-AB's A is the problem's B (N x K in TN) and its B the problem's A.
  const int64_t ld_a = swap ? args.row_stride_b(v.layout) : args.row_stride_a();
  const int64_t ld_b = swap ? args.row_stride_a() : args.row_stride_b(v.layout);
  const int64_t ld_c = args.row_stride_c();
  // Batch strides likewise; a stride of 0 (one matrix for every batch) is a map of one batch.
  const int batches = int(args.batch_count);
  const int64_t stride_a = batches > 1 ? (swap ? args.stride_b : args.stride_a) : 0;
  const int64_t stride_b = batches > 1 ? (swap ? args.stride_a : args.stride_b) : 0;
  const int64_t stride_c = batches > 1 ? args.stride_c : 0;
  auto depth = [&](int64_t stride) { return uint64_t(stride != 0 ? batches : 1); };

  sm90::Params params{};
  // A is M x K, or column-major K x M (g.a_k_major false).
  params.tma_a = sm90::tensor_map({.base = op_a,
                                   .rows = uint64_t(g.a_k_major ? m : k),
                                   .cols = uint64_t(g.a_k_major ? k : m),
                                   .row_stride = uint64_t(ld_a),
                                   .batches = depth(stride_a),
                                   .batch_stride = uint64_t(stride_a),
                                   .box_rows = uint32_t(g.a_box_outer),
                                   .box_cols = uint32_t(g.a_box_inner),
                                   .swizzle_bytes = uint32_t(g.a_swizzle),
                                   .dtype = v.dtype});
  // B is N x K row-major in TN and K x N in NN.
  const uint64_t b_rows = g.b_k_major ? n : k, b_cols = g.b_k_major ? k : n;
  const sm90::TensorMapKey b_key{.base = op_b,
                                 .rows = b_rows,
                                 .cols = b_cols,
                                 .row_stride = uint64_t(ld_b),
                                 .batches = depth(stride_b),
                                 .batch_stride = uint64_t(stride_b),
                                 .box_rows = uint32_t(g.b_box_outer),
                                 .box_cols = uint32_t(g.b_box_inner),
                                 .swizzle_bytes = uint32_t(g.b_swizzle),
                                 .dtype = v.dtype};
  params.tma_b = sm90::tensor_map(b_key);
  // NN's 32-column tail chunk: the same tensor through its own box and swizzle.
  if (g.b_tail > 0) {
    sm90::TensorMapKey tail = b_key;
    tail.box_cols = uint32_t(g.b_tail);
    tail.swizzle_bytes = uint32_t(g.b_tail_swizzle);
    params.tma_b_tail = sm90::tensor_map(tail);
  }
  // C as stored, M x N: with swap-AB the kernel's n rows and m columns.
  if (g.tma_store)
    params.tma_c = sm90::tensor_map({.base = args.c,
                                     .rows = uint64_t(swap ? n : m),
                                     .cols = uint64_t(swap ? m : n),
                                     .row_stride = uint64_t(ld_c),
                                     .batches = uint64_t(batches),
                                     .batch_stride = uint64_t(stride_c),
                                     .box_rows = uint32_t(g.c_box_outer),
                                     .box_cols = uint32_t(g.c_box_inner),
                                     .swizzle_bytes = uint32_t(g.c_swizzle),
                                     .dtype = v.dtype});
  params.c = static_cast<uint16_t*>(args.c);
  params.ldc = ld_c;
  params.batches = batches;
  params.batch_stride_c = stride_c;
  params.batched_a = stride_a != 0;
  params.batched_b = stride_b != 0;
  params.m = m;
  params.n = n;
  params.k = k;
  params.num_k_blocks = (k + v.block_k - 1) / v.block_k;
  const int num_m_blocks = (m + v.block_m - 1) / v.block_m;
  const int num_n_blocks = (n + v.block_n - 1) / v.block_n;
  // The raster names the problem's M; the kernel's M is its N under swap-AB.
  const bool along_kernel_m = (config.raster == Raster::kAlongM) != swap;
  params.scheduler = kernels::TileScheduler::make(num_m_blocks, num_n_blocks, v.cluster_m,
                                                  v.cluster_n, config.group_size, along_kernel_m);

  // Persistent grid: no more clusters than fit at once or than the CTA limit allows.
  int clusters = max_active_clusters(kernel, device.ordinal, device.sm_count);
  if (int limit = sm90_max_ctas(); limit > 0)
    clusters = std::min(clusters, std::max(1, limit / g.cluster_size));

  // Batches fill the grid with tiles; the partial sums and their reduction are for one matrix.
  // The general calls' workspace is 0 (hgemmGemmWorkspaceSize), so a column-major A does not
  // split either, nor does the general flavour take the last round's split.
  const int tiles = params.scheduler.num_cluster_tiles();
  const bool one_matrix = batches == 1 && !args.a_col_major;
  const SplitPlan plan =
      plan_split(one_matrix && config.split_k > 1 ? config.split_k : 1, args, instance.block_k);
  const SplitScratch scratch(plan, args);
  params.num_splits = scratch.splits();
  params.units_per_batch = kernels::FastDivisor::make(tiles * params.num_splits);
  params.k_blocks_per_split = params.num_splits > 1 ? plan.k_blocks_per_split : params.num_k_blocks;
  params.partial = scratch.partial();
  params.partial_ld = plan.partial_ld;
  params.queue.units = tiles * params.num_splits * batches;
  const Sm90TailSplit tail =
      one_matrix && config.split_k == 0 && g.tail_split
          ? sm90_plan_tail_split(g, v, tiles, params.num_k_blocks, clusters)
          : Sm90TailSplit{};
  const SplitScratch tail_scratch(tail.scratch, args);
  // The scratch holds the counters, then the partial tiles.
  char* const tail_bytes = reinterpret_cast<char*>(tail_scratch.partial());
  if (tail_bytes) {
    params.queue.units = tiles - tail.split.tiles;
    params.queue.tail = tail.split;
    params.tail_scratch = reinterpret_cast<int*>(tail_bytes);
  }
  params.spread_epilogue = 1;
  params.epilogue = epilogue_params(args.epilogue);

  // No more clusters than work units, but every cluster may take a piece of the last round.
  const bool split_tail = tail_bytes != nullptr;
  if (!split_tail) clusters = std::min(clusters, params.queue.units);

  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(unsigned(clusters * g.cluster_size));
  launch.blockDim = dim3(unsigned(g.num_threads));
  launch.dynamicSmemBytes = size_t(g.smem_bytes);
  launch.stream = args.stream;
  cudaLaunchAttribute attrs[2]{};
  launch.attrs = attrs;
  if (g.cluster_size > 1) {
    cudaLaunchAttribute& attr = attrs[launch.numAttrs++];
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = unsigned(g.cluster_size);
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
  }
  // Units and their CTAs counted in clusters: a cluster's CTAs run its units together; a split
  // last round adds a piece to a cluster's whole tiles.
  params.early_dependents =
      split_tail ? sm90_early_dependents(
                       int64_t(params.queue.units + clusters - 1) / clusters * params.num_k_blocks +
                           params.num_k_blocks / tail.split.pieces.divisor,
                       clusters, clusters)
                 : sm90_early_dependents(params.k_blocks_per_split, params.queue.units, clusters);
  const bool programmatic = programmatic_launch(device);
  if (programmatic) attrs[launch.numAttrs++] = programmatic_launch_attribute();
  // The arrival counters start at zero in every launch (stream-ordered: after the workspace's
  // last user, and in every replay of a captured graph).
  if (split_tail)
    launch_clear_counters(params.tail_scratch, int(tail.counter_bytes / sizeof(int)), args.stream,
                          programmatic);
  void* kernel_args[] = {&params};
  HGEMM_CUDA_CHECK(cudaLaunchKernelExC(&launch, kernel.entry, kernel_args));
  HGEMM_LAUNCH_CHECK();
  if (params.num_splits > 1)
    launch_splitk_reduce(params.partial, params.partial_ld, params.num_splits, args.c, ld_c,
                         int(args.m), int(args.n), v.dtype, args.epilogue, args.stream,
                         programmatic);
}

Sm90TailSplit sm90_plan_tail_split(Sm90Geometry const& g, Sm90Variant const& v, int tiles,
                                   int k_blocks, int clusters) {
  // The tiles past the last whole round (all of them when they are fewer than the grid), each
  // cut into as many pieces as the clusters that would idle through that round allow
  // (kernels::TailSplit says why evenly).
  Sm90TailSplit tail;
  const int rest = tiles % clusters;
  if (rest == 0) return tail;
  const int pieces =
      std::min({clusters / rest, kSm90MaxTailPieces, k_blocks / kSm90MinTailPieceKBlocks});
  if (pieces < 2) return tail;
  // A partial tile: the CTA tiles of a cluster tile, each BM x BN sums in 32-bit words (fp16
  // accumulators two to a word), after the counters.
  const size_t slot_bytes = size_t(g.cluster_size) * v.block_m * v.block_n *
                            (v.accum == Accum::kF32 ? 4 : 2);
  const size_t counter_bytes =
      size_t(sm90_tail_counter_bytes(g.cluster_size, g.slot_consumer_warps / 4, rest));
  // A slot per piece (kernels::WorkQueue::piece).
  const size_t bytes = counter_bytes + size_t(rest) * pieces * slot_bytes;
  if (bytes > kMaxWorkspaceBytes) return tail;
  tail.split = kernels::TailSplit::make(rest, pieces);
  tail.counter_bytes = counter_bytes;
  tail.scratch.splits = pieces;  // above 1: SplitScratch takes the workspace
  tail.scratch.workspace_bytes = bytes;
  return tail;
}

bool sm90_early_dependents(int64_t k_blocks_per_unit, int64_t units, int64_t ctas) {
  // A CTA's whole mainloop in k-blocks: its share of the work units times their length.
  const int64_t slots = std::max<int64_t>(ctas, 1);
  const int64_t per_cta = (units + slots - 1) / slots;
  return k_blocks_per_unit * per_cta <= kEarlyDependentsKBlocks;
}

void sm90_set_max_ctas(int max_ctas) { g_max_ctas.store(max_ctas < 0 ? 0 : max_ctas); }
int sm90_max_ctas() { return g_max_ctas.load(std::memory_order_relaxed); }

Status sm90_check_args(KernelConfig const& config, GemmArgs const& args) {
  if (args.m < 1 || args.n < 1 || args.k < 1)
    return refuse(config, HGEMM_ERROR_INVALID_SIZE,
                  "M, N and K must be positive, got M=" + std::to_string(args.m) +
                      " N=" + std::to_string(args.n) + " K=" + std::to_string(args.k));
  if (args.m > INT_MAX || args.n > INT_MAX || args.k > INT_MAX)
    return refuse(config, HGEMM_ERROR_SIZE_OVERFLOW, "TMA coordinates are 32-bit");
  // TMA global strides are multiples of 16 bytes: A's row is K halves, C's is N, B's is K (TN)
  // or N (NN), so K % 8 == 0 and N % 8 == 0 cover all three. A padded C of the library's
  // (GemmArgs::c_rows_padded) has its own stride, whose rows the stores may write up to the next
  // multiple of 8 columns: then N may be any in TN, whose B rows are K.
  if (args.k % 8 != 0)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "TMA needs 16-byte row strides; K=" + std::to_string(args.k) +
                      " is not a multiple of 8");
  const bool ragged_n_ok = args.c_rows_padded && config.layout == Layout::kTN &&
                           args.row_stride_c() >= padded_c_ld(args.n);
  if (args.n % 8 != 0 && !ragged_n_ok)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "TMA needs 16-byte row strides; N=" + std::to_string(args.n) +
                      " is not a multiple of 8");
  if (!args.epilogue.plain() && config.accum != Accum::kF32)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "fuses alpha, beta, a bias and an activation with fp32 accumulation only");
  if (args.a_col_major && config.split_k > 1)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "a column-major A does not split K (its general calls take no workspace)");
  // Every row or batch stride TMA steps: a multiple of 16 bytes, below 2^40 bytes.
  auto tma_stride = [&](int64_t stride, const char* name, const char* what) {
    if (stride % 8 != 0)
      return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                    std::string("TMA needs 16-byte ") + what + "; " + name + "=" +
                        std::to_string(stride) + " is not a multiple of 8");
    if (stride >= (int64_t(1) << 39))
      return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                    std::string("TMA strides stay below 2^40 bytes; ") + name + "=" +
                        std::to_string(stride));
    return Status::success();
  };
  // A column-major A that TMA cannot stride runs from a copy that it can (StagedA), where the
  // copy has room; its own stride and base are then the copy's business.
  const bool staged_a = runs_from_staged_a(args);
  if (staged_a) {
    const size_t bytes = sm90_staged_a_bytes(args.m, args.k);
    const std::string why = "a column-major A with row stride " +
                            std::to_string(args.row_stride_a()) +
                            (aligned16(args.a) ? "" : " or a base not 16-byte aligned") +
                            " runs from a copy of " + std::to_string(bytes) + " B";
    if (bytes > kMaxWorkspaceBytes)
      return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                    why + ", more than the " + std::to_string(kMaxWorkspaceBytes) +
                        " B of scratch a call takes");
    if (args.workspace && args.workspace_bytes < bytes)
      return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                    why + "; the caller's workspace has " + std::to_string(args.workspace_bytes));
  }
  // Leading dimensions (0: packed, whose row-major rows K and N were checked above; a
  // column-major A's packed rows are M).
  if (!staged_a)
    if (Status s = tma_stride(args.a_col_major ? args.row_stride_a() : args.lda, "lda",
                              "row strides");
        !s.ok())
      return s;
  for (auto [ld, name] : {std::pair{args.ldb, "ldb"}, std::pair{args.ldc, "ldc"}})
    if (Status s = tma_stride(ld, name, "row strides"); !s.ok()) return s;
  const bool a_ok = staged_a || aligned16(args.a);
  if (!a_ok || !aligned16(args.b) || !aligned16(args.c))
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  std::string("TMA needs 16-byte aligned base pointers; not aligned:") +
                      (a_ok ? "" : " A") + (aligned16(args.b) ? "" : " B") +
                      (aligned16(args.c) ? "" : " C"));
  // Batches: TMA's batch strides are multiples of 16 bytes below 2^40 bytes too; 0 shares one A
  // or B among the batches, while C's batches must each have their own place.
  if (args.batch_count < 1 || args.batch_count > INT_MAX)
    return refuse(config, HGEMM_ERROR_INVALID_BATCH_COUNT,
                  "batch_count must be in [1, 2^31-1], got " + std::to_string(args.batch_count));
  if (args.batch_count > 1) {
    for (auto [stride, name] : {std::pair{args.stride_a, "stride_a"},
                                std::pair{args.stride_b, "stride_b"},
                                std::pair{args.stride_c, "stride_c"}}) {
      if (stride < 0)
        return refuse(config, HGEMM_ERROR_INVALID_STRIDE,
                      std::string(name) + "=" + std::to_string(stride) + " is negative");
      if (Status s = tma_stride(stride, name, "batch strides"); !s.ok()) return s;
    }
    if (args.stride_c == 0)
      return refuse(config, HGEMM_ERROR_BATCH_OVERLAP,
                    "stride_c = 0 writes every batch into one C");
  }
  const int64_t tiles_m = (args.m + config.block_m * config.cluster_m - 1) /
                          (int64_t(config.block_m) * config.cluster_m);
  const int64_t tiles_n = (args.n + config.block_n * config.cluster_n - 1) /
                          (int64_t(config.block_n) * config.cluster_n);
  if (tiles_m * tiles_n * args.batch_count > INT_MAX)
    return refuse(config, HGEMM_ERROR_SIZE_OVERFLOW,
                  "more than 2^31-1 output tiles over all batches");
  // Last, so that what is wrong with the call itself is named before what this kernel lacks.
  const Sm90Variant v = sm90_variant(config);
  if (sm90_needs_general(args) && !sm90::has_general_flavour(v))
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  std::string("has no general flavour compiled, which ") +
                      (args.batch_count > 1 ? "batches" : "beta != 0") +
                      (args.a_col_major ? " with a column-major A" : "") +
                      " needs (launch/sm90_catalog.hpp, CatalogRow::with_general_flavour)");
  if (args.a_col_major && !sm90::has_column_major_flavour(v))
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "has no flavour compiled that reads a column-major A (launch/sm90_catalog.hpp, "
                  "CatalogRow::with_general_flavour and with_column_major_a)");
  // A swap-AB tile loads a column-major A's columns as the rows of its TMA boxes: where they
  // start 16 bytes into a 32-byte sector (a leading dimension of 8 mod 16 elements) it ran
  // 0.66-0.98 as fast as the copy into rows (docs/notes/2026-12-01-swap-ab-column-major-a.md),
  // and a column-major A that the launcher would copy first gains nothing from it.
  if (args.a_col_major && v.swap_ab && (staged_a || args.row_stride_a() % 16 != 0))
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "reads a column-major A through a swap-AB tile only in place from 32-byte "
                  "aligned columns; lda=" + std::to_string(args.row_stride_a()) +
                      " is not a multiple of 16 or the base not 16-byte aligned");
  return Status::success();
}

std::vector<KernelInstance> sm90_instances() {
  std::vector<KernelInstance> out(sm90::kCatalog.size());
  [&]<int... kShard>(std::integer_sequence<int, kShard...>) {
    (sm90_add_catalog_shard<kShard>(out), ...);
  }(std::make_integer_sequence<int, HGEMM_SM90_CATALOG_SHARDS>{});
  return out;
}

Status sm90_can_implement(Problem const& problem, KernelConfig const& config,
                          GemmArgs const& args, DeviceInfo const& device) {
  if (config.family != Family::kSm90Ws)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED, "not an sm90 config");
  if (std::string why = layout_accum_mismatch(problem, config); !why.empty())
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, why);
  if (!device.is_sm90())
    return refuse(config, HGEMM_ERROR_ARCH_UNSUPPORTED,
                  "needs an sm_90 device (H100/H200); " + device.name + " is " +
                      std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor));
  if (Status s = config.validate(); !s.ok()) return s;
  if (Status s = sm90_check_args(config, args); !s.ok()) return s;
  if (const int smem = sm90_geometry(config).smem_bytes; smem > device.max_smem_per_block_optin)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "needs " + std::to_string(smem) +
                      " B of shared memory, " + device.name + " allows " +
                      std::to_string(device.max_smem_per_block_optin));
  return Status::success();
}

}  // namespace hgemm
