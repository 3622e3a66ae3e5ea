// Proxy and barrier-initialisation fences (sm_90). Shared memory is seen through two proxies:
// ordinary loads/stores (generic proxy) and TMA/wgmma (async proxy). Writes through one become
// visible to the other only across a proxy fence.
#pragma once

namespace hgemm::ptx {

// Makes this thread's generic-proxy smem writes (st.shared, stmatrix) visible to later async-proxy
// reads (TMA store, wgmma) once a barrier has also ordered the threads.
__device__ __forceinline__ void fence_proxy_async_shared_cta() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Makes mbarrier.init visible to the async proxy and to the other CTAs of the cluster; follow with
// a cluster (or CTA) barrier before any peer or TMA touches the barriers.
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

}  // namespace hgemm::ptx
