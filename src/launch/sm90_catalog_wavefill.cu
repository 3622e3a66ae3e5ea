// Catalog: tile widths between the powers of two, so that an N that is no multiple of 256 still
// fills the last wave. The grid's shapes never let them win, so they reach dispatch through the
// siblings rule (tuner/db/tuned_table.hpp): the cost model swaps a tuned neighbour's block_n for
// one of these where that fills the SMs better. Measured through the JIT on the LLM shapes
// (docs/notes/perf-notes.md, step 14): 128x224 at N = 3584 makes 512 tiles in 3.88 waves where 128x256
// makes 448 in 3.39 (4096x3584x3584: 0.85 -> 0.95 of cuBLASLt); 128x192 at N = 4608; 128x224 at
// 128x28672 runs 128 CTAs where 128x256 runs 112.
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_wavefill(std::vector<KernelInstance>& out) {
  sm90::add_variants<128, 224, 64, 3, 2, 2, 1, Epilogue::kTmaStore>(out);
  sm90::add_variants<128, 224, 64, 4, 2, 2, 1, Epilogue::kTmaStore>(out);
  sm90::add_variants<128, 192, 64, 3, 2, 2, 1, Epilogue::kTmaStore>(out);
  sm90::add_variants<128, 192, 64, 4, 2, 2, 1, Epilogue::kTmaStore>(out);
}

}  // namespace hgemm
