// Shared memory of a kernel variant as a pure function of its KernelConfig fields: the one formula
// behind KernelConfig::smem_bytes(), the sm90 kernel's SharedStorage (each instantiation
// static_asserts that they agree) and the launchers' dynamic shared-memory request.
#pragma once

namespace hgemm {

// The per-block opt-in limit of H100 and A100; launchers re-check the device's own.
inline constexpr int kMaxSmemPerBlock = 232448;

// Widest swizzle-span chunk (in fp16 elements) that tiles `extent` exactly: an MN-major operand
// or a C tile of that extent is stored as extent / chunk column chunks of chunk * 2 bytes per row.
constexpr int swizzle_chunk_elems(int extent) {
  return extent % 64 == 0 ? 64 : extent % 32 == 0 ? 32 : 16;
}

// The TMA-store epilogue's chunk of a tile's block_n columns. A swap-AB tile's columns are rows
// of C, staged transposed (stmatrix .trans) into 128-byte lines of C's columns, so a width of
// 8 mod 16 goes 8 at a time (stmatrix .x2), every other width in its swizzle chunk.
constexpr int sm90_c_chunk_elems(int block_n, bool swap_ab) {
  return swap_ab && block_n % 16 != 0 ? 8 : swizzle_chunk_elems(block_n);
}

// The sm90 family's layout: an operand ring, the TMA-store epilogue's C staging, the buffer
// through which a second warpgroup's accumulators reach the first (reduce_bytes, where two
// warpgroups take a 64-row tile's k-blocks in turn), 1 KiB of barriers (the storage is padded to
// the 1 KiB swizzle period), and 1 KiB of slack to align the dynamic base.
//
// The staging holds the whole C tile when that fits beside the ring: the epilogue then writes
// every chunk without waiting, and the tile's TMA stores drain while the next tile's mainloop
// runs (they only have to be done reading before the next epilogue). Otherwise it double-buffers
// two column chunks, and a chunk waits for the store two chunks back. The two measured level on
// short K (docs/notes/perf-notes.md, step 6); the double buffer leaves room for a fourth stage.
// Not so for swap-AB tiles, whose chunks are rows of C: those of 80-208 tokens in 16-row chunks
// ran 5-8% faster staged whole at one stage less, and the catalog gives them that depth
// (bench/results/2026-11-30-h200-whole-16-twins). A ping-pong kernel stages two tiles, one per
// consumer warpgroup.
struct Sm90SmemPlan {
  int operand_bytes = 0;
  int staging_chunk_elems = 0;  // columns per staged chunk
  int staging_buffers = 0;      // chunk buffers per consumer warpgroup (0: direct stores)
  int staging_bytes = 0;
  int reduce_bytes = 0;
  int storage_bytes = 0;  // the kernel's SharedStorage
  int dynamic_bytes = 0;  // what the launch requests
};

constexpr Sm90SmemPlan sm90_smem_plan(int block_m, int block_n, int block_k, int num_stages,
                                      bool tma_store, bool ping_pong, int reduce_bytes = 0,
                                      bool swap_ab = false) {
  constexpr int kBarrierBytes = 1024;
  constexpr int kAlignSlack = 1024;
  Sm90SmemPlan p;
  p.operand_bytes = num_stages * (block_m + block_n) * block_k * 2;
  p.reduce_bytes = reduce_bytes;
  if (tma_store) {
    p.staging_chunk_elems = sm90_c_chunk_elems(block_n, swap_ab);
    const int chunks = block_n / p.staging_chunk_elems;
    const int tiles = ping_pong ? 2 : 1;
    const int whole_tile = tiles * block_m * block_n * 2;
    const bool whole_fits =
        p.operand_bytes + reduce_bytes + whole_tile + kBarrierBytes + kAlignSlack <=
        kMaxSmemPerBlock;
    // Chunks of 8 rows of C (a swap-AB width of 8 mod 16) are staged whole or not at all: double
    // buffered, 104x128 waited on 13 stores a tile and ran 0.93 of its direct stores where the
    // whole tile at one stage less ran 1.05 (bench/results/2026-11-29-h200-swap-tma-store-8).
    const bool whole = whole_fits || p.staging_chunk_elems == 8;
    p.staging_buffers = whole ? chunks : chunks >= 2 ? 2 : 1;
    // Cooperative warpgroups own block_m / wgs rows of each buffer, so the total is per tile.
    p.staging_bytes = tiles * p.staging_buffers * block_m * p.staging_chunk_elems * 2;
  }
  p.storage_bytes = p.operand_bytes + p.staging_bytes + reduce_bytes + kBarrierBytes;
  p.dynamic_bytes = p.storage_bytes + kAlignSlack;
  return p;
}

}  // namespace hgemm
