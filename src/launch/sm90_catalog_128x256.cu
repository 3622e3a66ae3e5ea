// Catalog: 128x256 tiles, two consumer warpgroups of m64n256, cluster 2x1 multicasting B: the
// large-shape workhorse. With 3 stages the whole C tile is staged for the TMA store and stored at
// the tile's end; with 4 stages only two C chunks fit (core/smem_budget.hpp), and the epilogue is
// deferred into the next tile's first k-block. Which wins depends on the shape
// (docs/notes/perf-notes.md, steps 6 and 7).
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_128x256(std::vector<KernelInstance>& out) {
  sm90::add_variants<128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore>(out);
  sm90::add_variants<128, 256, 64, 4, 2, 2, 1, Epilogue::kTmaStore>(out);
}

}  // namespace hgemm
