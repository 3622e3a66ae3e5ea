// Catalog: 128x256 tiles, two consumer warpgroups of m64n256, cluster 2x1 multicasting B. The
// large-shape workhorse (fast.cu's final shape); 3 stages leave room for the 64 KiB C staging.
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_128x256(std::vector<KernelInstance>& out) {
  sm90::add_variants<128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore>(out);
}

}  // namespace hgemm
