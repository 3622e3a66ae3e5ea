// Catalog: 64-row tiles with one consumer warpgroup, for skinny M and for shapes with too few
// large tiles to fill the GPU: 64x256 (m64n256, TMA store) and 64x128 (six stages, direct stores;
// the fastest of the family from 512^3 to 1024^3 and on M = 64), and 64x64 (eight or thirteen
// stages, direct stores): cuBLASLt's tile for decode shapes (M = 128, N near 3000-3500), one
// unsplit CTA per SM without a split-K reduction kernel; cuBLASLt runs it with 13 stages, which
// gains 3-6% at K <= 4096 and loses at some longer K. Eight stages of 64x128 and clusters of two
// along M (multicasting B) measured no better on the decode shapes (docs/notes/perf-notes.md, step 12)
// with eight stages; with twelve, 64x64 in a 2x1 cluster was the fastest at K >= 8192 in the
// JIT's search (step 13), beside 64x96 (ten stages) and 64x160 (eight).
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_64xn(std::vector<KernelInstance>& out) {
  sm90::add_variants<64, 256, 64, 4, 1, 1, 1, Epilogue::kTmaStore>(out);
  sm90::add_variants<64, 128, 64, 6, 1, 1, 1, Epilogue::kDirect>(out);
  sm90::add_variants<64, 64, 64, 8, 1, 1, 1, Epilogue::kDirect>(out);
  sm90::add_variants<64, 64, 64, 13, 1, 1, 1, Epilogue::kDirect>(out);
  sm90::add_variants<64, 64, 64, 12, 1, 2, 1, Epilogue::kDirect>(out);
  sm90::add_variants<64, 96, 64, 10, 1, 1, 1, Epilogue::kDirect>(out);
  sm90::add_variants<64, 160, 64, 8, 1, 1, 1, Epilogue::kDirect>(out);
}

}  // namespace hgemm
