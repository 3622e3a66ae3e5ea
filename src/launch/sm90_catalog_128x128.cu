// Catalog: 128x128 tiles, two consumer warpgroups of m64n128, cluster 1x2 multicasting A. Twice
// the tiles of 128x256 for mid-size shapes where 128x256 leaves SMs idle.
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_128x128(std::vector<KernelInstance>& out) {
  sm90::add_variants<128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore>(out);
}

}  // namespace hgemm
