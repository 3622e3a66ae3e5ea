// Catalog: 64-row tiles with one consumer warpgroup, for skinny M and for shapes with too few
// large tiles to fill the GPU: 64x256 (m64n256, TMA store) and 64x128 (six stages, direct stores;
// the fastest of the family from 512^3 to 1024^3 and on M = 64).
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_64xn(std::vector<KernelInstance>& out) {
  sm90::add_variants<64, 256, 64, 4, 1, 1, 1, Epilogue::kTmaStore>(out);
  sm90::add_variants<64, 128, 64, 6, 1, 1, 1, Epilogue::kDirect>(out);
}

}  // namespace hgemm
