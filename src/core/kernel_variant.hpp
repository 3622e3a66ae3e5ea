// A kernel variant: the fields of a KernelConfig that change generated code, as a C++20
// structural type. The kernels take it as their one template parameter, and every quantity
// derived from it (threads, shared memory, TMA boxes and swizzles, ...) comes from one constexpr
// function per family, which the kernel, its launcher and the JIT share; nothing else repeats
// the numbers. Raster order, group size and split-K are launch arguments and stay out.
// Included by the JIT's generated sources, so it is embedded in the library (CMakeLists.txt).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "core/smem_budget.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm {

// A SourceName as a variant holds it: eight characters to a 64-bit word. nvcc's host stubs spell
// a kernel's template argument out as C++ and cannot spell an array member (`char [65]{...}`),
// so a variant holds scalars only. All zero is the family header, whose kernels keep their
// mangled names (trailing zero members are left out of a mangled template argument).
struct Sm90Source {
  uint64_t w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0;

  constexpr bool operator==(Sm90Source const&) const = default;
};
static_assert(SourceName::kMaxLength == 8 * 8, "Sm90Source holds eight words of eight characters");

constexpr Sm90Source pack_source(SourceName const& name) {
  uint64_t w[8] = {};
  const std::string_view text = name.view();
  for (std::size_t i = 0; i < text.size(); ++i)
    w[i / 8] |= uint64_t(static_cast<unsigned char>(text[i])) << (8 * (i % 8));
  return {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]};
}

constexpr SourceName unpack_source(Sm90Source const& s) {
  const uint64_t w[8] = {s.w0, s.w1, s.w2, s.w3, s.w4, s.w5, s.w6, s.w7};
  SourceName name;
  for (int i = 0; i < SourceName::kMaxLength; ++i)
    name.text[i] = char((w[i / 8] >> (8 * (i % 8))) & 0xff);
  return name;
}

// sm90 (TMA + WGMMA, warp-specialized). The field order is the one of the kernel's former
// positional template, so that a demangled kernel name still lists the numbers in that order.
// The variant is in the kernel's own terms: with swap_ab the kernel computes C^T = B^T A^T, so its
// block_m (rows, wgmma's M) tiles the problem's N and its block_n tiles M, and its cluster is
// swapped likewise. A KernelConfig names the problem's M and N; sm90_variant and to_config swap.
struct Sm90Variant {
  int block_m = 128;
  int block_n = 128;
  int block_k = 64;
  int num_stages = 4;
  int num_consumer_wgs = 2;
  int cluster_m = 1;
  int cluster_n = 1;
  Epilogue epilogue = Epilogue::kDirect;
  Accum accum = Accum::kF32;
  Layout layout = Layout::kTN;
  Schedule schedule = Schedule::kCooperative;
  bool swap_ab = false;
  DType dtype = DType::kF16;
  // Not a config axis but the kernel's flavour: the general one also runs strided batches and
  // beta * C, the plain one (false) has none of that code, so that the one-matrix kernel the
  // tables time costs what it did before batches (docs/notes/2026-11-24-batches-and-beta.md).
  // The launcher picks the flavour per call (launch/sm90_launch.cu).
  bool general = false;
  // A flavour: the problem's A read M-major (column-major A, or with column-major C the
  // transposed B). In the general flavour it is the kernel's A, which TMA loads in 64-row chunks
  // and wgmma transposes (its tnspA bit). In the plain flavour of a swap-AB variant it is the
  // kernel's B, N-major as NN's B is (chunks of its columns, tnspB). A swap-AB variant in NN
  // reads its A (the problem's K x N B) M-major without this flag: that is its layout, not a
  // flavour (sm90_geometry).
  bool a_mn_major = false;
  // The source the kernel is compiled from (KernelConfig::source): a promoted rewrite's kernel
  // is another type than the family header's of the same tile, so the two instantiations have
  // different mangled names; with one type, two translation units would each define the same
  // host stub and the linker would keep one of them silently.
  Sm90Source source{};
  // A flavour of the plain one: splits the last round (a config's split_k 0, sm90_ws.cuh), for
  // the catalog rows that ask for it (sm90::has_tail_split_flavour). The fix-up's code compiled
  // into every kernel, though never run, slowed the unsplit calls of the direct-store and small
  // tiles by up to a quarter (docs/notes/2026-11-30-split-in-launch-and-stream-k.md).
  bool tail_split = false;

  constexpr bool operator==(Sm90Variant const&) const = default;
};

constexpr Sm90Variant sm90_variant(KernelConfig const& c) {
  Sm90Variant v{c.block_m,   c.block_n,  c.block_k, c.num_stages, c.num_consumer_wgs, c.cluster_m,
                c.cluster_n, c.epilogue, c.accum,   c.layout,     c.schedule,         c.swap_ab,
                c.dtype};
  v.source = pack_source(c.source);
  if (v.swap_ab) {
    std::swap(v.block_m, v.block_n);
    std::swap(v.cluster_m, v.cluster_n);
  }
  return v;
}

// The config of the compiled instance (launch arguments at their defaults; KernelConfig::instance).
constexpr KernelConfig to_config(Sm90Variant const& v) {
  KernelConfig c;
  c.family = Family::kSm90Ws;
  c.block_m = v.block_m;
  c.block_n = v.block_n;
  c.block_k = v.block_k;
  c.num_stages = v.num_stages;
  c.num_consumer_wgs = v.num_consumer_wgs;
  c.cluster_m = v.cluster_m;
  c.cluster_n = v.cluster_n;
  c.epilogue = v.epilogue;
  c.accum = v.accum;
  c.layout = v.layout;
  c.schedule = v.schedule;
  c.swap_ab = v.swap_ab;
  c.dtype = v.dtype;
  c.source = unpack_source(v.source);
  if (v.swap_ab) {
    std::swap(c.block_m, c.block_n);
    std::swap(c.cluster_m, c.cluster_n);
  }
  return c;
}

// Clusters: each side 1, 2 or 4 CTAs, at most 8 in all (the portable cluster size). The CTAs
// along one side each load a part of the operand tile they share (a slice of its rows, or of
// NN's k-rows) and multicast it; a part must be whole 8-row swizzle atoms, so that it starts
// on an atom boundary in every CTA's buffer (sm90_cluster_parts_ok).
inline constexpr int kSm90MaxClusterSize = 8;

constexpr bool sm90_cluster_dim_ok(int d) { return d == 1 || d == 2 || d == 4; }

// In the kernel's terms (Sm90Variant): A's BM rows (K-major) or BK k-rows (M-major) are cut
// among the cluster_n CTAs that share them, B's BN rows (TN) or BK k-rows (NN) among the
// cluster_m CTAs.
constexpr bool sm90_cluster_parts_ok(int block_m, int block_n, int block_k, int cluster_m,
                                     int cluster_n, bool a_k_major, bool b_k_major) {
  const int a_side = a_k_major ? block_m : block_k;
  const int b_side = b_k_major ? block_n : block_k;
  const int a_rows = a_side / cluster_n;
  const int b_rows = b_side / cluster_m;
  return a_rows * cluster_n == a_side && a_rows % 8 == 0 && b_rows * cluster_m == b_side &&
         b_rows % 8 == 0;
}

// Registers per thread of the producer and of the consumers. The 64K registers of an SM are
// divided evenly at entry (168 each for 384 threads, 128 for 512); setmaxnreg moves them from the
// producer (40: it only issues TMA loads) to the consumers, in steps of 8, and a warpgroup can
// only take what another gave back: 128 * 40 + 256 * 232 and 128 * 40 + 384 * 152 both fit in 64K.
struct Sm90RegisterSplit {
  int producer = 0;
  int consumer = 0;
};

inline constexpr int kSm90Registers = 65536;  // an SM's register file, in 32-bit registers

constexpr Sm90RegisterSplit sm90_register_split(int num_consumer_wgs) {
  constexpr int kProducer = 40;
  if (num_consumer_wgs <= 1) return {255, 255};
  const int consumer = (kSm90Registers - 128 * kProducer) / (128 * num_consumer_wgs) / 8 * 8;
  return {kProducer, consumer < 255 ? consumer : 255};
}

// The registers a thread has at entry, before setmaxnreg: what ptxas checks every instruction
// against (168 with two consumer warpgroups, 128 with three, 255 with one).
constexpr int sm90_entry_regs(int num_consumer_wgs) {
  const int regs = kSm90Registers / (128 * (num_consumer_wgs + 1)) / 8 * 8;
  return regs < 255 ? regs : 255;
}

// Accumulator registers a consumer thread may hold: 128 (two m64n256 fp32 atoms' worth) where the
// consumers have 232 or more, and 48 under their cap otherwise (three warpgroups: 104, one
// m64n208 fp32 atom), which leaves the mainloop its descriptors, barriers and indices.
constexpr int sm90_max_acc_regs(int num_consumer_wgs) {
  const int room = sm90_register_split(num_consumer_wgs).consumer - 48;
  return room < 128 ? room : 128;
}

// Everything derived from an sm90 variant. The launcher reads the block size, shared memory,
// cluster and the tensor maps' boxes and swizzles from it; the kernel reads the same fields,
// so a tensor map always matches the boxes the kernel loads and stores.
struct Sm90Geometry {
  int num_threads = 0;
  int smem_bytes = 0;  // dynamic shared memory the launch requests
  int cluster_size = 1;
  bool ping_pong = false;
  bool a_k_major = true;  // A is M x K (the plain kernels); else K x M, loaded in 64-row chunks
  bool b_k_major = true;  // TN: B is N x K
  bool tma_store = false;
  int wg_rows = 0;              // rows of a tile each consumer warpgroup owns
  // Two consumer warpgroups on a 64-row tile take its k-blocks in turn (sm90_splits_k_blocks).
  bool split_k_blocks = false;
  int slot_consumer_warps = 0;  // consumer warps of one CTA that release each ring slot
  // setmaxnreg: with two or three consumer warpgroups the producer gives registers back and the
  // consumers take them (sm90_register_split); with one the entry cap of 255 covers both.
  bool realloc_regs = false;
  int producer_regs = 0;
  int consumer_regs = 0;  // what a consumer thread may use
  int a_chunk = 0;  // A's elements per swizzle span: BK when K-major, else 64 rows of M
  int a_box_outer = 0, a_box_inner = 0, a_swizzle = 0;
  int b_chunk = 0;  // B's columns per swizzle span: BK when K-major, else a chunk of BN
  int b_box_outer = 0, b_box_inner = 0, b_swizzle = 0;
  // N-major B whose block_n is 64 q + 32: the last 32 columns are a chunk of their own, with
  // the 64-byte swizzle and a box (and tensor map) of their own, the rest chunks of 64 (0: none).
  int b_tail = 0;
  int b_tail_swizzle = 0;
  int c_chunk = 0;  // C's columns per staged chunk and TMA-store box
  int c_box_outer = 0, c_box_inner = 0, c_swizzle = 0;
  Sm90SmemPlan smem;
  // The kernel splits its last round where the call lets it (Sm90Variant::tail_split).
  bool tail_split = false;

  constexpr bool operator==(Sm90Geometry const&) const = default;
};

// Two cooperative consumer warpgroups on a 64-row tile (one m64 atom, no rows to share) take its
// k-blocks in turn, each into its own accumulators, and the second adds its sum into the first's
// through shared memory before the epilogue. A lone warpgroup waiting on a full barrier before
// each k-block leaves the tensor pipe idle meanwhile (a 64x96 k-block: 192 cycles of wgmma at
// the SM's peak, 275-330 with the wait); two warpgroups on alternate slots wait while the other's
// wgmma run (docs/notes/2026-11-24-k-block-turns.md).
constexpr bool sm90_splits_k_blocks(Sm90Variant const& v) {
  return v.schedule == Schedule::kCooperative && v.block_m == 64 && v.num_consumer_wgs == 2;
}

// The shared memory the second warpgroup's accumulators pass through: 128 threads' registers.
constexpr int sm90_reduce_bytes(Sm90Variant const& v) {
  return sm90_splits_k_blocks(v) ? 64 * v.block_n * (v.accum == Accum::kF32 ? 4 : 2) : 0;
}

// Swap-AB's B is the problem's A: K-major when row-major, in either layout; N-major in the
// flavour for a column-major A (K x M, the kernel's N = the problem's M contiguous). Its A is the
// problem's B, K-major in TN and M-major in NN (K x N, the kernel's M = the problem's N
// contiguous).
constexpr bool sm90_b_k_major(Sm90Variant const& v) {
  return v.swap_ab ? !v.a_mn_major : v.layout == Layout::kTN;
}

// A is M-major in the general kernel's column-major flavour and in NN's swap-AB (the problem's
// K x N B), K-major otherwise.
constexpr bool sm90_a_k_major(Sm90Variant const& v) {
  return v.swap_ab ? v.layout == Layout::kTN : !v.a_mn_major;
}

// Whether a variant can compile the last round's split (split_k 0): the plain flavour with at most
// two consumer warpgroups, ping-pong, fp16 accumulators or at most 104 fp32 accumulators a
// thread. ptxas -v: the fix-up spilled 12-104 B on 128x224, 128x256 and 256x128 with two
// warpgroups, 128x128 with one, and every three-warpgroup tile tried (192x128, 192x192); none on
// 128x208, 128x192, the swap-AB tiles, 64x128 and 64x256 with one warpgroup, ping-pong 64x256
// or 128x256 with fp16 accumulators.
constexpr bool sm90_tail_split_ok(Sm90Variant const& v) {
  const bool ping_pong = v.schedule == Schedule::kPingPong;
  const int wg_rows =
      ping_pong || sm90_splits_k_blocks(v) ? v.block_m : v.block_m / v.num_consumer_wgs;
  const int fp32_words = wg_rows * v.block_n / 128;
  return !v.general && v.num_consumer_wgs <= 2 &&
         (ping_pong || v.accum == Accum::kF16 || fp32_words <= 104);
}

// The last round's split keeps an arrival counter per split tile, CTA of its cluster and band (a
// cooperative consumer's rows, or the whole tile: Sm90Geometry::slot_consumer_warps / 4) ahead of
// its partial tiles in the workspace: their bytes, rounded up to 256.
constexpr int64_t sm90_tail_counter_bytes(int cluster_size, int bands, int64_t tiles) {
  return (tiles * cluster_size * bands * 4 + 255) / 256 * 256;
}

constexpr Sm90Geometry sm90_geometry(Sm90Variant const& v) {
  Sm90Geometry g;
  g.ping_pong = v.schedule == Schedule::kPingPong;
  g.split_k_blocks = sm90_splits_k_blocks(v);
  g.num_threads = 128 * (v.num_consumer_wgs + 1);
  g.tma_store = v.epilogue == Epilogue::kTmaStore;
  g.smem = sm90_smem_plan(v.block_m, v.block_n, v.block_k, v.num_stages, g.tma_store, g.ping_pong,
                          sm90_reduce_bytes(v), v.swap_ab);
  g.smem_bytes = g.smem.dynamic_bytes;
  g.cluster_size = v.cluster_m * v.cluster_n;
  g.b_k_major = sm90_b_k_major(v);
  // Ping-pong: each warpgroup computes whole tiles; cooperative: a band of each tile's rows, or
  // on a 64-row tile its k-blocks in turn. One warpgroup reads a slot in both of those.
  g.wg_rows = g.ping_pong || g.split_k_blocks ? v.block_m : v.block_m / v.num_consumer_wgs;
  g.slot_consumer_warps = (g.ping_pong || g.split_k_blocks ? 1 : v.num_consumer_wgs) * 4;
  const Sm90RegisterSplit regs = sm90_register_split(v.num_consumer_wgs);
  g.realloc_regs = v.num_consumer_wgs > 1;
  g.tail_split = v.tail_split;
  g.producer_regs = regs.producer;
  g.consumer_regs = regs.consumer;
  // A (and B in TN) rows are BK halves: one swizzle line of BK * 2 bytes. With a cluster of 2
  // each CTA loads half of the operand it shares and multicasts it: A is shared along N, B along
  // M. K-major halves split rows; the M-major A and N-major B split their k-rows, keeping whole
  // chunks. M-major A is BM / 64 chunks of 64 rows, each BK k-rows of 128 bytes, like NN's B.
  g.a_k_major = sm90_a_k_major(v);
  g.a_chunk = g.a_k_major ? v.block_k : 64;
  g.a_swizzle = g.a_chunk * 2;
  g.a_box_inner = g.a_chunk;
  g.a_box_outer = (g.a_k_major ? v.block_m : v.block_k) / v.cluster_n;
  // N-major B in 32-column chunks (64-byte swizzle) ran 1.12-1.68x slower than its TN twin,
  // in 64-column chunks level with it (docs/notes/2026-11-25-tma-residue.md): a block_n of
  // 64 q + 32 takes q chunks of 64 and one tail chunk of 32. Only up to 160: at 224 the tail
  // made every measured shape 7-10% slower, at 96 and 160 most of them 3-20% faster.
  g.b_tail = !g.b_k_major && v.block_n > 64 && v.block_n < 224 && v.block_n % 64 == 32 ? 32 : 0;
  g.b_tail_swizzle = g.b_tail * 2;
  g.b_chunk = g.b_k_major ? v.block_k : swizzle_chunk_elems(v.block_n - g.b_tail);
  g.b_swizzle = g.b_chunk * 2;
  g.b_box_inner = g.b_chunk;
  g.b_box_outer = g.b_k_major ? v.block_n / v.cluster_m : v.block_k / v.cluster_m;
  // The TMA store stages each warpgroup's rows one chunk of the tile's columns at a time. With
  // swap-AB the tile is C^T: a chunk is c_chunk rows of C, each of the warpgroup's wg_rows
  // columns, stored transposed (stmatrix .trans) as one box of 64 columns per m64 atom, each row
  // of it one 128-byte swizzle line; a width of 8 mod 16 goes 8 rows of C at a time.
  g.c_chunk = sm90_c_chunk_elems(v.block_n, v.swap_ab);
  g.c_swizzle = v.swap_ab ? 128 : g.c_chunk * 2;
  g.c_box_inner = v.swap_ab ? 64 : g.c_chunk;
  g.c_box_outer = v.swap_ab ? g.c_chunk : g.wg_rows;
  return g;
}

// sm80 (cp.async + mma.sync). Field order as in the kernel's former positional template.
struct Sm80Variant {
  int block_m = 128;
  int block_n = 128;
  int block_k = 32;
  int num_stages = 3;
  int warps_m = 2;
  int warps_n = 2;
  Layout layout = Layout::kTN;
  Accum accum = Accum::kF32;

  constexpr bool operator==(Sm80Variant const&) const = default;
};

constexpr Sm80Variant sm80_variant(KernelConfig const& c) {
  return {c.block_m, c.block_n, c.block_k, c.num_stages, c.warps_m, c.warps_n, c.layout, c.accum};
}

constexpr KernelConfig to_config(Sm80Variant const& v) {
  KernelConfig c;
  c.family = Family::kSm80Mma;
  c.block_m = v.block_m;
  c.block_n = v.block_n;
  c.block_k = v.block_k;
  c.num_stages = v.num_stages;
  c.warps_m = v.warps_m;
  c.warps_n = v.warps_n;
  c.layout = v.layout;
  c.accum = v.accum;
  return c;
}

struct Sm80Geometry {
  int num_threads = 0;
  int smem_bytes = 0;
  int warp_m = 0;  // rows of C per warp
  int warp_n = 0;  // columns of C per warp
  int atoms_m = 0;  // m16n8k16 atoms per warp along M
  int atoms_n = 0;  // ... along N
  int acc_regs = 0;  // accumulator registers per thread
  bool nn = false;

  constexpr bool operator==(Sm80Geometry const&) const = default;
};

constexpr Sm80Geometry sm80_geometry(Sm80Variant const& v) {
  Sm80Geometry g;
  g.num_threads = 32 * v.warps_m * v.warps_n;
  g.smem_bytes = v.num_stages * (v.block_m + v.block_n) * v.block_k * 2;
  g.warp_m = v.block_m / v.warps_m;
  g.warp_n = v.block_n / v.warps_n;
  g.atoms_m = g.warp_m / 16;
  g.atoms_n = g.warp_n / 8;
  g.acc_regs = g.atoms_m * g.atoms_n * (v.accum == Accum::kF32 ? 4 : 2);
  g.nn = v.layout == Layout::kNN;
  return g;
}

}  // namespace hgemm
