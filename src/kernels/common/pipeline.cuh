// Position in a ring of kNumStages shared-memory slots: the slot index and the parity of the
// mbarrier phase that the slot's current round completes. Producer and consumers each keep one
// and advance it once per k-block; it is never reset between tiles, so the ring runs on across
// the tiles of a persistent CTA.
#pragma once

#include <cstdint>

namespace hgemm::kernels {

template <int kNumStages>
struct PipelineState {
  uint32_t index = 0;
  uint32_t phase = 0;

  __device__ __forceinline__ void advance() {
    if (++index == kNumStages) {
      index = 0;
      phase ^= 1;
    }
  }

  // n slots at once (a ping-pong warpgroup skipping the other's k-blocks).
  __device__ __forceinline__ void advance(uint32_t n) {
    index += n;
    const uint32_t wraps = index / kNumStages;
    index -= wraps * kNumStages;
    phase ^= wraps & 1u;
  }
};

}  // namespace hgemm::kernels
