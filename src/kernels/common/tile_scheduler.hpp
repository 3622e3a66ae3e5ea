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

struct GroupedRaster {
  int num_m = 1;  // tiles along M and N
  int num_n = 1;
  int group = 1;  // band width, >= 1
  bool along_m = true;

  HGEMM_HOST_DEVICE int num_tiles() const { return num_m * num_n; }

  HGEMM_HOST_DEVICE TileCoord tile(int linear) const {
    // `inner` is the dimension that varies first inside a band, `outer` the one swept per band.
    const int inner_extent = along_m ? num_m : num_n;
    const int outer_extent = along_m ? num_n : num_m;
    const int per_band = group * outer_extent;
    const int band = linear / per_band;
    const int in_band = linear - band * per_band;
    const int first = band * group;
    const int width = inner_extent - first < group ? inner_extent - first : group;
    const int inner = first + in_band % width;
    const int outer = in_band / width;
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
    s.raster.num_m = (num_m_blocks + cluster_m - 1) / cluster_m;
    s.raster.num_n = (num_n_blocks + cluster_n - 1) / cluster_n;
    s.raster.group = group < 1 ? 1 : group;
    s.raster.along_m = along_m;
    s.cluster_m = cluster_m;
    s.cluster_n = cluster_n;
    return s;
  }

  HGEMM_HOST_DEVICE int num_cluster_tiles() const { return raster.num_tiles(); }

  // CTA tile of the CTA with cluster rank `cta_rank` (M-fastest inside the cluster) in cluster
  // tile `linear`.
  HGEMM_HOST_DEVICE TileCoord cta_tile(int linear, int cta_rank) const {
    const TileCoord c = raster.tile(linear);
    return TileCoord{c.m_block * cluster_m + cta_rank % cluster_m,
                     c.n_block * cluster_n + cta_rank / cluster_m};
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
