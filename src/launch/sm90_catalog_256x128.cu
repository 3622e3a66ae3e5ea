// Catalog: 256x128 tiles, two consumer warpgroups each owning 128 rows (two m64n128 atoms per
// k-step), cluster 2x1, direct 16-byte stores. Tall tiles for large M with moderate N.
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_256x128(std::vector<KernelInstance>& out) {
  sm90::add_variants<256, 128, 64, 4, 2, 2, 1, Epilogue::kDirect>(out);
}

}  // namespace hgemm
