// Catalog: the M = 128 decode tiles (one tile covers all of M, direct stores, six stages) in the
// widths between 128's neighbours, for the siblings rule (tuner/db/tuned_table.hpp): 128x96 runs
// N / 96 CTAs where 128x128 leaves SMs idle (128x9216x3072: 0.91 -> 0.97 of cuBLASLt through the
// JIT), 128x160 where 128x128 needs a second wave (128x37888x3584). docs/notes/perf-notes.md, step 14.
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_wavefill_decode(std::vector<KernelInstance>& out) {
  sm90::add_variants<128, 96, 64, 6, 2, 1, 1, Epilogue::kDirect>(out);
  sm90::add_variants<128, 160, 64, 6, 2, 1, 1, Epilogue::kDirect>(out);
}

}  // namespace hgemm
