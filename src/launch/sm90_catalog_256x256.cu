// Catalog: 256x256 tiles for fp16 accumulation only. Half-width accumulators let each consumer
// warpgroup own 128x256 (two m64n256 atoms, 128 registers), halving the operand traffic per FLOP
// of 128x256: under the H100's power cap that bought 4-8% at 8192^3 (docs/notes/perf-notes.md).
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_256x256(std::vector<KernelInstance>& out) {
  sm90::add_variants_f16<256, 256, 64, 3, 2, 2, 1, Epilogue::kDirect>(out);
}

}  // namespace hgemm
