// HGEMM_HOST_DEVICE: marks the small pure functions (swizzle math, tile scheduling) that kernels
// call and that CPU unit tests, compiled without nvcc, check directly.
#pragma once

#if defined(__CUDACC__)
#define HGEMM_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define HGEMM_HOST_DEVICE inline
#endif
