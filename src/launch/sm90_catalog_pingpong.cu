// Catalog: ping-pong instances. Each consumer warpgroup computes whole tiles of its own and the
// two take turns on the tensor cores, so one's epilogue (fp32 -> fp16, stmatrix, TMA store) runs
// during the other's mainloop. That matters where K is short and the epilogue is a large share of
// a tile's time (K <= 1024 with large M and N). 128x128 multicasts A over a 1x2 cluster;
// 128x256 (fp16 accumulators only: 128 registers) multicasts B over a 2x1 cluster. A 64x256
// ping-pong tile measured 10-20% behind both, and 128x192 (192 fp32 accumulators) behind
// 128x128 (docs/notes/perf-notes.md, step 7).
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_pingpong(std::vector<KernelInstance>& out) {
  sm90::add_variants<128, 128, 64, 5, 2, 1, 2, Epilogue::kTmaStore, Schedule::kPingPong>(out);
  sm90::add_variants_f16<128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore, Schedule::kPingPong>(out);
}

}  // namespace hgemm
