// The persistent tile scheduler of the sm90 family: which output tile a cluster computes in its
// n-th round. Tiles are handed out in units of cluster tiles (cluster_m x cluster_n CTA tiles that
// share an operand through multicast); cluster c takes cluster tiles c, c + G, c + 2G, ... of a
// grouped rasterization (G = clusters in the grid). Pure integer math, usable on the host.
//
// Grouped rasterization along M with group g: the cluster-tile grid is cut into bands of g rows
// (M-blocks); inside a band the M index runs fastest, then N, so consecutive tiles reuse a few A
// row-panels and sweep B once per band. Along N is the same with the roles swapped. The last band
// may be narrower. The mapping is a bijection on [0, num_m * num_n).
#pragma once

#include <cstdint>

#include "kernels/common/host_device.hpp"

namespace hgemm::kernels {

struct TileCoord {
  int m_block;
  int n_block;
};

// Division of 0 <= n < 2^31 by a divisor fixed for a launch, 1 <= d < 2^31, as a multiply-high
// and a shift (Granlund and Montgomery, "Division by invariant integers using multiplication",
// 1994): with l = ceil(log2 d) and m = ceil(2^(31 + l) / d), which fits 32 bits,
// n / d = (n * m) >> (31 + l). The error of m is below d / 2^(31 + l), so n m / 2^(31 + l) exceeds
// n / d by less than n / 2^(31 + l) < 2^-l <= 1 / d, which cannot reach the next integer. A
// runtime `/` costs the kernels some twenty instructions (IABS, I2F, MUFU.RCP, fix-ups) where this
// costs two.
struct FastDivisor {
  int divisor = 1;
  uint32_t multiplier = 0;  // 0: the divisor is 1
  uint32_t shift = 0;       // l - 1

  HGEMM_HOST_DEVICE static FastDivisor make(int d) {
    FastDivisor f;
    f.divisor = d;
    if (d > 1) {
      uint32_t l = 0;
      while ((uint32_t(1) << l) < uint32_t(d)) ++l;
      f.multiplier = uint32_t(((uint64_t(1) << (31 + l)) + uint64_t(d) - 1) / uint64_t(d));
      f.shift = l - 1;
    }
    return f;
  }

  HGEMM_HOST_DEVICE int div(int n) const {
    if (multiplier == 0) return n;
#if defined(__CUDA_ARCH__)
    const uint32_t high = __umulhi(uint32_t(n), multiplier);
#else
    const uint32_t high = uint32_t((uint64_t(uint32_t(n)) * multiplier) >> 32);
#endif
    return int(high >> shift);
  }

  HGEMM_HOST_DEVICE int mod(int n) const { return n - div(n) * divisor; }
};

struct GroupedRaster {
  int num_m = 1;  // tiles along M and N
  int num_n = 1;
  int group = 1;  // band width, >= 1
  bool along_m = true;
  // The divisions of tile(), fixed per launch: a band's tiles (group x the outer extent), a
  // band's width, and the last band's (narrower where the group does not divide the inner
  // extent); `last_first` is the last band's first inner index.
  FastDivisor per_band, width, last_width;
  int last_first = 0;

  HGEMM_HOST_DEVICE static GroupedRaster make(int num_m, int num_n, int group, bool along_m) {
    GroupedRaster r;
    r.num_m = num_m;
    r.num_n = num_n;
    r.group = group < 1 ? 1 : group;
    r.along_m = along_m;
    const int inner_extent = along_m ? num_m : num_n;
    const int outer_extent = along_m ? num_n : num_m;
    r.per_band = FastDivisor::make(r.group * outer_extent);
    r.width = FastDivisor::make(r.group);
    r.last_first = (inner_extent - 1) / r.group * r.group;
    r.last_width = FastDivisor::make(inner_extent - r.last_first);
    return r;
  }

  HGEMM_HOST_DEVICE int num_tiles() const { return num_m * num_n; }

  HGEMM_HOST_DEVICE TileCoord tile(int linear) const {
    // `inner` is the dimension that varies first inside a band, `outer` the one swept per band.
    const int band = per_band.div(linear);
    const int in_band = linear - band * per_band.divisor;
    const int first = band * group;
    const FastDivisor& w = first == last_first ? last_width : width;
    const int outer = w.div(in_band);
    const int inner = first + in_band - outer * w.divisor;
    return along_m ? TileCoord{inner, outer} : TileCoord{outer, inner};
  }
};

// The scheduler as the kernel sees it: cluster tiles rasterized, then expanded to this CTA's tile.
struct TileScheduler {
  GroupedRaster raster;  // over cluster tiles
  int cluster_m = 1;
  int cluster_n = 1;

  // Cluster tiles needed to cover num_m_blocks x num_n_blocks CTA tiles. A cluster tile at the
  // edge may hold CTA tiles past the problem: they run on zero-filled operands and store nothing.
  HGEMM_HOST_DEVICE static TileScheduler make(int num_m_blocks, int num_n_blocks, int cluster_m,
                                              int cluster_n, int group, bool along_m) {
    TileScheduler s;
    s.raster = GroupedRaster::make((num_m_blocks + cluster_m - 1) / cluster_m,
                                   (num_n_blocks + cluster_n - 1) / cluster_n, group, along_m);
    s.cluster_m = cluster_m;
    s.cluster_n = cluster_n;
    s.tiles = FastDivisor::make(s.raster.num_tiles());
    s.ranks_m = FastDivisor::make(cluster_m);
    return s;
  }

  // Divides work units by the cluster tiles (a unit's tile is u mod tiles), and cluster ranks by
  // cluster_m.
  FastDivisor tiles, ranks_m;

  HGEMM_HOST_DEVICE int num_cluster_tiles() const { return raster.num_tiles(); }

  // CTA tile of the CTA with cluster rank `cta_rank` (M-fastest inside the cluster) in cluster
  // tile `linear`.
  HGEMM_HOST_DEVICE TileCoord cta_tile(int linear, int cta_rank) const {
    const TileCoord c = raster.tile(linear);
    const int rank_n = ranks_m.div(cta_rank);
    return TileCoord{c.m_block * cluster_m + cta_rank - rank_n * cluster_m,
                     c.n_block * cluster_n + rank_n};
  }
};

// The last round's split: the last `tiles` cluster tiles of a launch (those past the last whole
// round of the grid), each cut into `pieces` k-aligned pieces, piece i of a tile's K k-blocks
// [i * K / pieces, (i + 1) * K / pieces). Piece i of the split's tile t goes to cluster
// t * pieces + i, so every piece of every such tile covers the same k-blocks at the same
// time, as whole tiles do, and tiles sharing an operand panel still read it together from L2:
// uneven shares of the k-blocks (stream-K) took them off step and lost 20-45%
// (docs/notes/2026-11-30-split-in-launch-and-stream-k.md).
struct TailSplit {
  int tiles = 0;  // 0: no split
  FastDivisor pieces;

  HGEMM_HOST_DEVICE static TailSplit make(int tiles, int pieces) {
    TailSplit t;
    t.tiles = tiles;
    t.pieces = FastDivisor::make(pieces);
    return t;
  }
  // The clusters that take a piece: the first tiles x pieces of the grid.
  HGEMM_HOST_DEVICE int clusters() const { return tiles * pieces.divisor; }
};

// A piece of a split tile: its cluster tile and k-blocks, its index among the tile's pieces (k
// order), its partial-tile slot (the tile's pieces in consecutive slots, index 0 first) and its
// arrival counter.
struct Piece {
  int tile;
  int kb_begin;
  int kb_end;
  int index;
  int slot;
  int counter;
};

// The work items of a persistent cluster, as codes: [0, units) are the units of a launch (cluster
// tiles x splits x batches, or the whole tiles before a split last round, in rounds of the grid's
// clusters, the split's tiles following them); units + c is the piece of the split last round
// that cluster c takes. -1 ends the queue. kTail false walks the units alone: the kernels without
// the split have none of its code.
struct WorkQueue {
  int units = 0;
  TailSplit tail;

  template <bool kTail>
  HGEMM_HOST_DEVICE int first(int cluster) const {
    if (cluster < units) return cluster;
    return kTail ? piece_code(cluster) : -1;
  }
  template <bool kTail>
  HGEMM_HOST_DEVICE int next(int code, int cluster, int clusters) const {
    if (kTail && code >= units) return -1;
    code += clusters;
    if (code < units) return code;
    return kTail ? piece_code(cluster) : -1;
  }
  // The piece of code (>= units), of a tile of k_blocks k-blocks.
  HGEMM_HOST_DEVICE Piece piece(int code, int k_blocks) const {
    const int c = code - units;
    const int t = tail.pieces.div(c);
    const int i = c - t * tail.pieces.divisor;
    Piece p;
    p.tile = units + t;
    p.kb_begin = tail.pieces.div(i * k_blocks);
    p.kb_end = tail.pieces.div((i + 1) * k_blocks);
    p.index = i;
    p.slot = c;
    p.counter = t;
    return p;
  }

 private:
  HGEMM_HOST_DEVICE int piece_code(int cluster) const {
    return cluster < tail.clusters() ? units + cluster : -1;
  }
};

// Rows by which the tile of `block` rows at row `origin` of an operand `extent` rows long loads
// its TMA box early: the part of the box past the extent, in whole 8-row swizzle groups, so that
// fewer than 8 of the box's rows lie past the extent, for a tile that is neither the first nor
// wholly past the extent (a tile of a cluster can be, and is never stored). Boxes past the
// extent are zero-filled by TMA, and slowly (docs/notes/2026-11-25-tma-residue.md).
HGEMM_HOST_DEVICE constexpr int box_row_shift(int origin, int extent, int block) {
  const int over = origin + block - extent;
  return origin > 0 && over > 0 && over < block ? over & ~7 : 0;
}

}  // namespace hgemm::kernels
