// Microbenchmark: column-major A (K x M, lda = M) to rows (M x ld), variants of tile/threads.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>

// Old kernel: 32x32, 256 threads, 2-byte stores.
__global__ void __launch_bounds__(256) old_k(const uint16_t* a, int64_t lda, uint16_t* out, int64_t ld, int m, int k) {
  __shared__ uint16_t block[32][33];
  const int k0 = blockIdx.x * 32, m0 = blockIdx.y * 32;
  const int lane = threadIdx.x % 32, pass = threadIdx.x / 32;
  for (int j = pass; j < 32; j += 8) { int kk = k0 + j, mm = m0 + lane; if (kk < k && mm < m) block[j][lane] = a[int64_t(kk) * lda + mm]; }
  __syncthreads();
  for (int j = pass; j < 32; j += 8) { int mm = m0 + j, kk = k0 + lane; if (mm < m && kk < k) out[int64_t(mm) * ld + kk] = block[lane][j]; }
}

// Tile TM (m) x TK (k), T threads: TM consecutive m per k row read (TM <= T), 16-byte stores.
template <int TM, int TK, int T>
__global__ void __launch_bounds__(T) new_k(const uint16_t* a, int64_t lda, uint16_t* out, int64_t ld, int m, int k) {
  constexpr int kRowsPerPass = T / TM, kPasses = TK / kRowsPerPass, kChunks = TK / 8;
  __shared__ uint16_t block[TK][TM + 1];
  const int k0 = blockIdx.x * TK, m0 = blockIdx.y * TM;
  const int col = threadIdx.x % TM, row = threadIdx.x / TM, mm = m0 + col;
  uint16_t v[kPasses];
#pragma unroll
  for (int p = 0; p < kPasses; ++p) { int kk = k0 + row + p * kRowsPerPass; v[p] = kk < k && mm < m ? a[int64_t(kk) * lda + mm] : uint16_t(0); }
#pragma unroll
  for (int p = 0; p < kPasses; ++p) block[row + p * kRowsPerPass][col] = v[p];
  __syncthreads();
  const int chunk = threadIdx.x % kChunks, kk = k0 + chunk * 8;
#pragma unroll
  for (int r = threadIdx.x / kChunks; r < TM; r += T / kChunks) {
    int om = m0 + r;
    if (om >= m || kk >= k) continue;
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) w[i] = uint32_t(block[chunk * 8 + 2 * i][r]) | uint32_t(block[chunk * 8 + 2 * i + 1][r]) << 16;
    *reinterpret_cast<uint4*>(out + int64_t(om) * ld + kk) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

template <class F>
float timeit(F f, int reps) {
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int i = 0; i < 3; ++i) f();
  cudaEventRecord(e0);
  for (int i = 0; i < reps; ++i) f();
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  return ms * 1000.f / reps;
}

int main() {
  struct S { int m, k; };
  std::vector<S> shapes = {{37,4096},{64,3584},{94,7168},{129,3584},{200,14336},{256,16384},{333,2048},{333,5120},{500,2816},{1025,7168},{1025,5120},{2048,8192},{2500,8192}};
  size_t maxe = 0; for (auto s : shapes) maxe = std::max(maxe, size_t(s.m) * s.k);
  // Rotate over 8 buffers so the copy reads from HBM, not L2.
  const int nbuf = 8;
  std::vector<uint16_t*> in(nbuf), outb(nbuf);
  for (int i = 0; i < nbuf; ++i) { cudaMalloc(&in[i], maxe * 2 + 64); cudaMalloc(&outb[i], maxe * 2 + 256); cudaMemset(in[i], 1, maxe * 2); }
  printf("shape MB old 64x64x256 32x32x128 32x64x128 64x32x256 64x64x512 (us)\n");
  for (auto s : shapes) {
    int m = s.m, k = s.k; int64_t ld = (k + 7) / 8 * 8;
    int it = 0;
    auto run_old = [&] { int i = it++ % nbuf; old_k<<<dim3((k+31)/32,(m+31)/32),256>>>(in[i], m, outb[i], ld, m, k); };
    auto v1 = [&] { int i = it++ % nbuf; new_k<64,64,256><<<dim3((k+63)/64,(m+63)/64),256>>>(in[i], m, outb[i], ld, m, k); };
    auto v2 = [&] { int i = it++ % nbuf; new_k<32,32,128><<<dim3((k+31)/32,(m+31)/32),128>>>(in[i], m, outb[i], ld, m, k); };
    auto v3 = [&] { int i = it++ % nbuf; new_k<32,64,128><<<dim3((k+63)/64,(m+31)/32),128>>>(in[i], m, outb[i], ld, m, k); };
    auto v4 = [&] { int i = it++ % nbuf; new_k<64,32,256><<<dim3((k+31)/32,(m+63)/64),256>>>(in[i], m, outb[i], ld, m, k); };
    auto v5 = [&] { int i = it++ % nbuf; new_k<64,64,512><<<dim3((k+63)/64,(m+63)/64),512>>>(in[i], m, outb[i], ld, m, k); };
    const int reps = 200;
    float t[6];
    for (int round = 0; round < 3; ++round) {  // interleave; keep the last
      t[0] = timeit(run_old, reps); t[1] = timeit(v1, reps); t[2] = timeit(v2, reps);
      t[3] = timeit(v3, reps); t[4] = timeit(v4, reps); t[5] = timeit(v5, reps);
    }
    printf("%dx%d %.1f", m, k, m * double(k) * 2 / 1e6);
    for (float x : t) printf(" %.2f", x);
    printf("\n");
  }
  printf("err %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
