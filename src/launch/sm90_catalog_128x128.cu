// Catalog: 128x128 tiles, two consumer warpgroups of m64n128, cluster 1x2 multicasting A. Twice
// the tiles of 128x256 for mid-size shapes where 128x256 leaves SMs idle. Without a cluster (six
// stages, direct stores), 128x128 and 128x64 cover all of M = 128 in one tile, so each B byte
// crosses L2 once: the decode shapes with N >= 12288 (128x128) or N <= 4096 (128x64, split-K).
// Seven stages of 128x128 and one consumer warpgroup of 128x64 (two m64 atoms each, eight
// stages) were found through the JIT on the decode shapes (docs/notes/perf-notes.md, step 13).
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_128x128(std::vector<KernelInstance>& out) {
  sm90::add_variants<128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore>(out);
  sm90::add_variants<128, 128, 64, 6, 2, 1, 1, Epilogue::kDirect>(out);
  sm90::add_variants<128, 64, 64, 8, 2, 1, 1, Epilogue::kDirect>(out);
  sm90::add_variants<128, 96, 64, 7, 2, 1, 2, Epilogue::kDirect>(out);
  sm90::add_variants<128, 128, 64, 7, 2, 1, 1, Epilogue::kDirect>(out);
  sm90::add_variants<128, 64, 64, 8, 1, 1, 1, Epilogue::kDirect>(out);
}

}  // namespace hgemm
