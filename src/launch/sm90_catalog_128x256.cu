// Catalog: 128x256 tiles, two consumer warpgroups of m64n256, cluster 2x1 multicasting B: the
// large-shape workhorse. 3 stages: KernelConfig::smem_bytes() counts a whole-tile C staging
// (64 KiB) for TMA-store configs, which rules out a fourth (the kernel stages 32 KiB; a fourth
// stage measured within noise, docs/perf-notes.md step 2).
#include "launch/sm90_instance.cuh"

namespace hgemm {

void sm90_add_catalog_128x256(std::vector<KernelInstance>& out) {
  sm90::add_variants<128, 256, 64, 3, 2, 2, 1, Epilogue::kTmaStore>(out);
}

}  // namespace hgemm
