// wgmma (sm_90a): warpgroup matrix multiply-accumulate with both operands in shared memory
// ("SS" form), m64nNk16 for fp16 inputs, fp32 or fp16 accumulators, plus the fence / commit /
// wait that order it and the 64-bit shared-memory matrix descriptor it reads its operands through.
//
// Every one of the 128 threads of a warpgroup (4 consecutive warps, the first one's index a
// multiple of 4) must execute these together. Accumulator fragment of one m64nN atom, thread t of
// the warpgroup, warp w = t / 32, lane l = t % 32, 8-column group j in [0, N/8):
//   fp32: d[4j + 0], d[4j + 1] = C(16w + l/4,     8j + 2(l%4) + {0,1})
//         d[4j + 2], d[4j + 3] = C(16w + l/4 + 8, 8j + 2(l%4) + {0,1})
//   fp16: d[2j + 0] = half2 of row 16w + l/4, d[2j + 1] = half2 of row 16w + l/4 + 8, same columns.
// The RS form (A from registers) is not wrapped: with one m64nN atom per k-step, A comes through
// smem once per atom either way, and the SS form keeps the consumer's registers for accumulators.
#pragma once

#include <cstdint>

namespace hgemm::ptx {

// ---- shared-memory matrix descriptor --------------------------------------------------------

// Swizzle mode of a descriptor (bits 62-63), from the swizzle span in bytes (0 = none).
__host__ __device__ constexpr uint64_t smem_desc_swizzle_mode(int swizzle_bytes) {
  return swizzle_bytes == 128 ? 1 : swizzle_bytes == 64 ? 2 : swizzle_bytes == 32 ? 3 : 0;
}

// The address-independent bits of a descriptor. Byte offsets are in bytes here and stored >> 4.
//   K-major, swizzled:  sbo = bytes between consecutive 8-row groups (8 * row bytes); lbo unused
//                       (conventionally 16).
//   MN-major, swizzled: lbo = bytes between consecutive swizzle-span-wide column chunks along M/N;
//                       sbo = bytes between consecutive groups of 8 k-rows.
// The base-offset field (bits 49-51) stays 0: every operand tile starts on a swizzle-atom
// boundary, so the hardware's address-based swizzle matches the one TMA wrote.
__host__ __device__ constexpr uint64_t make_smem_desc_base(uint32_t lbo_bytes, uint32_t sbo_bytes,
                                                           int swizzle_bytes) {
  return (uint64_t((lbo_bytes >> 4) & 0x3FFF) << 16) | (uint64_t((sbo_bytes >> 4) & 0x3FFF) << 32) |
         (smem_desc_swizzle_mode(swizzle_bytes) << 62);
}

// A full descriptor: base bits plus the start address (a shared::cta byte address, 16-B aligned).
// Shared addresses stay below 256 KiB, so the 14-bit field never carries into the next one.
__host__ __device__ constexpr uint64_t make_smem_desc(uint64_t base, uint32_t smem_addr) {
  return base | uint64_t((smem_addr >> 4) & 0x3FFF);
}

// ---- ordering --------------------------------------------------------------------------------

// Orders this warpgroup's earlier register writes (accumulators) before the wgmma that follows.
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

// Closes the group of all wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// Waits until at most kPending committed groups are still running. Accumulators (and the smem
// operands) of the groups waited for may be touched only after this.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  static_assert(kPending >= 0 && kPending <= 7, "wgmma.wait_group takes 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}

// NOTE: the compiler sees a wgmma asm statement as writing its accumulators at issue time, not
// at the wait. Passing each accumulator through an empty volatile asm after wgmma_wait (and before
// the first wgmma) pins every read and write of them to the right side of the wait.
template <int kRegs>
__device__ __forceinline__ void fence_registers(float (&d)[kRegs]) {
#pragma unroll
  for (int i = 0; i < kRegs; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
template <int kRegs>
__device__ __forceinline__ void fence_registers(uint32_t (&d)[kRegs]) {
#pragma unroll
  for (int i = 0; i < kRegs; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

// ---- wgmma.mma_async SS ----------------------------------------------------------------------

// Accumulator register lists, "%0, ..., %(R-1)", and the matching operand lists, 4 at a time.
// Inline asm needs literal operand numbers, so the lists are spelled out (generated once).
#define HGEMM_WG_D2 "%0, %1"
#define HGEMM_WG_D4 HGEMM_WG_D2 ", %2, %3"
#define HGEMM_WG_D8 HGEMM_WG_D4 ", %4, %5, %6, %7"
#define HGEMM_WG_D12 HGEMM_WG_D8 ", %8, %9, %10, %11"
#define HGEMM_WG_D16 HGEMM_WG_D12 ", %12, %13, %14, %15"
#define HGEMM_WG_D20 HGEMM_WG_D16 ", %16, %17, %18, %19"
#define HGEMM_WG_D24 HGEMM_WG_D20 ", %20, %21, %22, %23"
#define HGEMM_WG_D28 HGEMM_WG_D24 ", %24, %25, %26, %27"
#define HGEMM_WG_D32 HGEMM_WG_D28 ", %28, %29, %30, %31"
#define HGEMM_WG_D36 HGEMM_WG_D32 ", %32, %33, %34, %35"
#define HGEMM_WG_D40 HGEMM_WG_D36 ", %36, %37, %38, %39"
#define HGEMM_WG_D44 HGEMM_WG_D40 ", %40, %41, %42, %43"
#define HGEMM_WG_D48 HGEMM_WG_D44 ", %44, %45, %46, %47"
#define HGEMM_WG_D52 HGEMM_WG_D48 ", %48, %49, %50, %51"
#define HGEMM_WG_D56 HGEMM_WG_D52 ", %52, %53, %54, %55"
#define HGEMM_WG_D60 HGEMM_WG_D56 ", %56, %57, %58, %59"
#define HGEMM_WG_D64 HGEMM_WG_D60 ", %60, %61, %62, %63"
#define HGEMM_WG_D68 HGEMM_WG_D64 ", %64, %65, %66, %67"
#define HGEMM_WG_D72 HGEMM_WG_D68 ", %68, %69, %70, %71"
#define HGEMM_WG_D76 HGEMM_WG_D72 ", %72, %73, %74, %75"
#define HGEMM_WG_D80 HGEMM_WG_D76 ", %76, %77, %78, %79"
#define HGEMM_WG_D84 HGEMM_WG_D80 ", %80, %81, %82, %83"
#define HGEMM_WG_D88 HGEMM_WG_D84 ", %84, %85, %86, %87"
#define HGEMM_WG_D92 HGEMM_WG_D88 ", %88, %89, %90, %91"
#define HGEMM_WG_D96 HGEMM_WG_D92 ", %92, %93, %94, %95"
#define HGEMM_WG_D100 HGEMM_WG_D96 ", %96, %97, %98, %99"
#define HGEMM_WG_D104 HGEMM_WG_D100 ", %100, %101, %102, %103"
#define HGEMM_WG_D108 HGEMM_WG_D104 ", %104, %105, %106, %107"
#define HGEMM_WG_D112 HGEMM_WG_D108 ", %108, %109, %110, %111"
#define HGEMM_WG_D116 HGEMM_WG_D112 ", %112, %113, %114, %115"
#define HGEMM_WG_D120 HGEMM_WG_D116 ", %116, %117, %118, %119"
#define HGEMM_WG_D124 HGEMM_WG_D120 ", %120, %121, %122, %123"
#define HGEMM_WG_D128 HGEMM_WG_D124 ", %124, %125, %126, %127"
#define HGEMM_WG_OPS2(C, d) C(d[0]), C(d[1])
#define HGEMM_WG_OPS4(C, d) HGEMM_WG_OPS2(C, d), C(d[2]), C(d[3])
#define HGEMM_WG_OPS8(C, d) HGEMM_WG_OPS4(C, d), C(d[4]), C(d[5]), C(d[6]), C(d[7])
#define HGEMM_WG_OPS12(C, d) HGEMM_WG_OPS8(C, d), C(d[8]), C(d[9]), C(d[10]), C(d[11])
#define HGEMM_WG_OPS16(C, d) HGEMM_WG_OPS12(C, d), C(d[12]), C(d[13]), C(d[14]), C(d[15])
#define HGEMM_WG_OPS20(C, d) HGEMM_WG_OPS16(C, d), C(d[16]), C(d[17]), C(d[18]), C(d[19])
#define HGEMM_WG_OPS24(C, d) HGEMM_WG_OPS20(C, d), C(d[20]), C(d[21]), C(d[22]), C(d[23])
#define HGEMM_WG_OPS28(C, d) HGEMM_WG_OPS24(C, d), C(d[24]), C(d[25]), C(d[26]), C(d[27])
#define HGEMM_WG_OPS32(C, d) HGEMM_WG_OPS28(C, d), C(d[28]), C(d[29]), C(d[30]), C(d[31])
#define HGEMM_WG_OPS36(C, d) HGEMM_WG_OPS32(C, d), C(d[32]), C(d[33]), C(d[34]), C(d[35])
#define HGEMM_WG_OPS40(C, d) HGEMM_WG_OPS36(C, d), C(d[36]), C(d[37]), C(d[38]), C(d[39])
#define HGEMM_WG_OPS44(C, d) HGEMM_WG_OPS40(C, d), C(d[40]), C(d[41]), C(d[42]), C(d[43])
#define HGEMM_WG_OPS48(C, d) HGEMM_WG_OPS44(C, d), C(d[44]), C(d[45]), C(d[46]), C(d[47])
#define HGEMM_WG_OPS52(C, d) HGEMM_WG_OPS48(C, d), C(d[48]), C(d[49]), C(d[50]), C(d[51])
#define HGEMM_WG_OPS56(C, d) HGEMM_WG_OPS52(C, d), C(d[52]), C(d[53]), C(d[54]), C(d[55])
#define HGEMM_WG_OPS60(C, d) HGEMM_WG_OPS56(C, d), C(d[56]), C(d[57]), C(d[58]), C(d[59])
#define HGEMM_WG_OPS64(C, d) HGEMM_WG_OPS60(C, d), C(d[60]), C(d[61]), C(d[62]), C(d[63])
#define HGEMM_WG_OPS68(C, d) HGEMM_WG_OPS64(C, d), C(d[64]), C(d[65]), C(d[66]), C(d[67])
#define HGEMM_WG_OPS72(C, d) HGEMM_WG_OPS68(C, d), C(d[68]), C(d[69]), C(d[70]), C(d[71])
#define HGEMM_WG_OPS76(C, d) HGEMM_WG_OPS72(C, d), C(d[72]), C(d[73]), C(d[74]), C(d[75])
#define HGEMM_WG_OPS80(C, d) HGEMM_WG_OPS76(C, d), C(d[76]), C(d[77]), C(d[78]), C(d[79])
#define HGEMM_WG_OPS84(C, d) HGEMM_WG_OPS80(C, d), C(d[80]), C(d[81]), C(d[82]), C(d[83])
#define HGEMM_WG_OPS88(C, d) HGEMM_WG_OPS84(C, d), C(d[84]), C(d[85]), C(d[86]), C(d[87])
#define HGEMM_WG_OPS92(C, d) HGEMM_WG_OPS88(C, d), C(d[88]), C(d[89]), C(d[90]), C(d[91])
#define HGEMM_WG_OPS96(C, d) HGEMM_WG_OPS92(C, d), C(d[92]), C(d[93]), C(d[94]), C(d[95])
#define HGEMM_WG_OPS100(C, d) HGEMM_WG_OPS96(C, d), C(d[96]), C(d[97]), C(d[98]), C(d[99])
#define HGEMM_WG_OPS104(C, d) HGEMM_WG_OPS100(C, d), C(d[100]), C(d[101]), C(d[102]), C(d[103])
#define HGEMM_WG_OPS108(C, d) HGEMM_WG_OPS104(C, d), C(d[104]), C(d[105]), C(d[106]), C(d[107])
#define HGEMM_WG_OPS112(C, d) HGEMM_WG_OPS108(C, d), C(d[108]), C(d[109]), C(d[110]), C(d[111])
#define HGEMM_WG_OPS116(C, d) HGEMM_WG_OPS112(C, d), C(d[112]), C(d[113]), C(d[114]), C(d[115])
#define HGEMM_WG_OPS120(C, d) HGEMM_WG_OPS116(C, d), C(d[116]), C(d[117]), C(d[118]), C(d[119])
#define HGEMM_WG_OPS124(C, d) HGEMM_WG_OPS120(C, d), C(d[120]), C(d[121]), C(d[122]), C(d[123])
#define HGEMM_WG_OPS128(C, d) HGEMM_WG_OPS124(C, d), C(d[124]), C(d[125]), C(d[126]), C(d[127])
// fp16 accumulators of an N of 8 mod 16 take 2 mod 4 registers: the lists above plus two.
#define HGEMM_WG_D6 HGEMM_WG_D4 ", %4, %5"
#define HGEMM_WG_D10 HGEMM_WG_D8 ", %8, %9"
#define HGEMM_WG_D14 HGEMM_WG_D12 ", %12, %13"
#define HGEMM_WG_D18 HGEMM_WG_D16 ", %16, %17"
#define HGEMM_WG_D22 HGEMM_WG_D20 ", %20, %21"
#define HGEMM_WG_D26 HGEMM_WG_D24 ", %24, %25"
#define HGEMM_WG_D30 HGEMM_WG_D28 ", %28, %29"
#define HGEMM_WG_D34 HGEMM_WG_D32 ", %32, %33"
#define HGEMM_WG_D38 HGEMM_WG_D36 ", %36, %37"
#define HGEMM_WG_D42 HGEMM_WG_D40 ", %40, %41"
#define HGEMM_WG_D46 HGEMM_WG_D44 ", %44, %45"
#define HGEMM_WG_D50 HGEMM_WG_D48 ", %48, %49"
#define HGEMM_WG_D54 HGEMM_WG_D52 ", %52, %53"
#define HGEMM_WG_D58 HGEMM_WG_D56 ", %56, %57"
#define HGEMM_WG_D62 HGEMM_WG_D60 ", %60, %61"
#define HGEMM_WG_OPS6(C, d) HGEMM_WG_OPS4(C, d), C(d[4]), C(d[5])
#define HGEMM_WG_OPS10(C, d) HGEMM_WG_OPS8(C, d), C(d[8]), C(d[9])
#define HGEMM_WG_OPS14(C, d) HGEMM_WG_OPS12(C, d), C(d[12]), C(d[13])
#define HGEMM_WG_OPS18(C, d) HGEMM_WG_OPS16(C, d), C(d[16]), C(d[17])
#define HGEMM_WG_OPS22(C, d) HGEMM_WG_OPS20(C, d), C(d[20]), C(d[21])
#define HGEMM_WG_OPS26(C, d) HGEMM_WG_OPS24(C, d), C(d[24]), C(d[25])
#define HGEMM_WG_OPS30(C, d) HGEMM_WG_OPS28(C, d), C(d[28]), C(d[29])
#define HGEMM_WG_OPS34(C, d) HGEMM_WG_OPS32(C, d), C(d[32]), C(d[33])
#define HGEMM_WG_OPS38(C, d) HGEMM_WG_OPS36(C, d), C(d[36]), C(d[37])
#define HGEMM_WG_OPS42(C, d) HGEMM_WG_OPS40(C, d), C(d[40]), C(d[41])
#define HGEMM_WG_OPS46(C, d) HGEMM_WG_OPS44(C, d), C(d[44]), C(d[45])
#define HGEMM_WG_OPS50(C, d) HGEMM_WG_OPS48(C, d), C(d[48]), C(d[49])
#define HGEMM_WG_OPS54(C, d) HGEMM_WG_OPS52(C, d), C(d[52]), C(d[53])
#define HGEMM_WG_OPS58(C, d) HGEMM_WG_OPS56(C, d), C(d[56]), C(d[57])
#define HGEMM_WG_OPS62(C, d) HGEMM_WG_OPS60(C, d), C(d[60]), C(d[61])

// One m64nNk16 atom: d (+)= A(desc_a, 64x16; K-major when kTransA is 0, M-major when 1) *
// B(desc_b, 16xN; K-major when kTransB is 0, N-major when 1). scale_d == 0 ignores the old d (the first k-step of a tile), 1 accumulates.
template <int kN, bool kAccF32>
struct WgmmaSS;

#define HGEMM_WGMMA_SS_F32(N, R, DA, DB, SD, TB, TA)                                              \
  template <>                                                                                 \
  struct WgmmaSS<N, true> {                                                                   \
    static constexpr int kRegs = R;                                                           \
    using Reg = float;                                                                        \
    template <int kTransA, int kTransB, bool kBF16>                                           \
    __device__ __forceinline__ static void mma(float (&d)[R], uint64_t desc_a, uint64_t desc_b, \
                                               uint32_t scale_d) {                            \
      if constexpr (kBF16)                                                                    \
        asm volatile(                                                                         \
            "{\n.reg .pred p;\nsetp.ne.b32 p, %" SD ", 0;\n"                                  \
            "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 {" HGEMM_WG_D##R       \
            "}, %" DA ", %" DB ", p, 1, 1, %" TA ", %" TB ";\n}\n"                                  \
            : HGEMM_WG_OPS##R("+f", d)                                                     \
            : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransB), "n"(kTransA));                          \
      else                                                                                    \
        asm volatile(                                                                         \
            "{\n.reg .pred p;\nsetp.ne.b32 p, %" SD ", 0;\n"                                  \
            "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.f16.f16 {" HGEMM_WG_D##R         \
            "}, %" DA ", %" DB ", p, 1, 1, %" TA ", %" TB ";\n}\n"                                  \
            : HGEMM_WG_OPS##R("+f", d)                                                     \
            : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransB), "n"(kTransA));                          \
    }                                                                                         \
  };

#define HGEMM_WGMMA_SS_F16(N, R, DA, DB, SD, TB, TA)                                              \
  template <>                                                                                 \
  struct WgmmaSS<N, false> {                                                                  \
    static constexpr int kRegs = R;                                                           \
    using Reg = uint32_t;                                                                     \
    template <int kTransA, int kTransB, bool kBF16>                                           \
    __device__ __forceinline__ static void mma(uint32_t (&d)[R], uint64_t desc_a,             \
                                               uint64_t desc_b, uint32_t scale_d) {           \
      asm volatile(                                                                           \
          "{\n.reg .pred p;\nsetp.ne.b32 p, %" SD ", 0;\n"                                    \
          "wgmma.mma_async.sync.aligned.m64n" #N "k16.f16.f16.f16 {" HGEMM_WG_D##R "}, %" DA \
          ", %" DB ", p, 1, 1, %" TA ", %" TB ";\n}\n"                                              \
          : HGEMM_WG_OPS##R("+r", d)                                                       \
          : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(kTransB), "n"(kTransA));                            \
      static_assert(!kBF16, "bf16 accumulates in fp32 only");                                 \
    }                                                                                         \
  };

// Every N that is a multiple of 8 up to 256 (the kernel family's block_n steps), both accumulator
// types.
HGEMM_WGMMA_SS_F32(8, 4, "4", "5", "6", "7", "8")
HGEMM_WGMMA_SS_F32(16, 8, "8", "9", "10", "11", "12")
HGEMM_WGMMA_SS_F32(24, 12, "12", "13", "14", "15", "16")
HGEMM_WGMMA_SS_F32(32, 16, "16", "17", "18", "19", "20")
HGEMM_WGMMA_SS_F32(40, 20, "20", "21", "22", "23", "24")
HGEMM_WGMMA_SS_F32(48, 24, "24", "25", "26", "27", "28")
HGEMM_WGMMA_SS_F32(56, 28, "28", "29", "30", "31", "32")
HGEMM_WGMMA_SS_F32(64, 32, "32", "33", "34", "35", "36")
HGEMM_WGMMA_SS_F32(72, 36, "36", "37", "38", "39", "40")
HGEMM_WGMMA_SS_F32(80, 40, "40", "41", "42", "43", "44")
HGEMM_WGMMA_SS_F32(88, 44, "44", "45", "46", "47", "48")
HGEMM_WGMMA_SS_F32(96, 48, "48", "49", "50", "51", "52")
HGEMM_WGMMA_SS_F32(104, 52, "52", "53", "54", "55", "56")
HGEMM_WGMMA_SS_F32(112, 56, "56", "57", "58", "59", "60")
HGEMM_WGMMA_SS_F32(120, 60, "60", "61", "62", "63", "64")
HGEMM_WGMMA_SS_F32(128, 64, "64", "65", "66", "67", "68")
HGEMM_WGMMA_SS_F32(136, 68, "68", "69", "70", "71", "72")
HGEMM_WGMMA_SS_F32(144, 72, "72", "73", "74", "75", "76")
HGEMM_WGMMA_SS_F32(152, 76, "76", "77", "78", "79", "80")
HGEMM_WGMMA_SS_F32(160, 80, "80", "81", "82", "83", "84")
HGEMM_WGMMA_SS_F32(168, 84, "84", "85", "86", "87", "88")
HGEMM_WGMMA_SS_F32(176, 88, "88", "89", "90", "91", "92")
HGEMM_WGMMA_SS_F32(184, 92, "92", "93", "94", "95", "96")
HGEMM_WGMMA_SS_F32(192, 96, "96", "97", "98", "99", "100")
HGEMM_WGMMA_SS_F32(200, 100, "100", "101", "102", "103", "104")
HGEMM_WGMMA_SS_F32(208, 104, "104", "105", "106", "107", "108")
HGEMM_WGMMA_SS_F32(216, 108, "108", "109", "110", "111", "112")
HGEMM_WGMMA_SS_F32(224, 112, "112", "113", "114", "115", "116")
HGEMM_WGMMA_SS_F32(232, 116, "116", "117", "118", "119", "120")
HGEMM_WGMMA_SS_F32(240, 120, "120", "121", "122", "123", "124")
HGEMM_WGMMA_SS_F32(248, 124, "124", "125", "126", "127", "128")
HGEMM_WGMMA_SS_F32(256, 128, "128", "129", "130", "131", "132")
HGEMM_WGMMA_SS_F16(8, 2, "2", "3", "4", "5", "6")
HGEMM_WGMMA_SS_F16(16, 4, "4", "5", "6", "7", "8")
HGEMM_WGMMA_SS_F16(24, 6, "6", "7", "8", "9", "10")
HGEMM_WGMMA_SS_F16(32, 8, "8", "9", "10", "11", "12")
HGEMM_WGMMA_SS_F16(40, 10, "10", "11", "12", "13", "14")
HGEMM_WGMMA_SS_F16(48, 12, "12", "13", "14", "15", "16")
HGEMM_WGMMA_SS_F16(56, 14, "14", "15", "16", "17", "18")
HGEMM_WGMMA_SS_F16(64, 16, "16", "17", "18", "19", "20")
HGEMM_WGMMA_SS_F16(72, 18, "18", "19", "20", "21", "22")
HGEMM_WGMMA_SS_F16(80, 20, "20", "21", "22", "23", "24")
HGEMM_WGMMA_SS_F16(88, 22, "22", "23", "24", "25", "26")
HGEMM_WGMMA_SS_F16(96, 24, "24", "25", "26", "27", "28")
HGEMM_WGMMA_SS_F16(104, 26, "26", "27", "28", "29", "30")
HGEMM_WGMMA_SS_F16(112, 28, "28", "29", "30", "31", "32")
HGEMM_WGMMA_SS_F16(120, 30, "30", "31", "32", "33", "34")
HGEMM_WGMMA_SS_F16(128, 32, "32", "33", "34", "35", "36")
HGEMM_WGMMA_SS_F16(136, 34, "34", "35", "36", "37", "38")
HGEMM_WGMMA_SS_F16(144, 36, "36", "37", "38", "39", "40")
HGEMM_WGMMA_SS_F16(152, 38, "38", "39", "40", "41", "42")
HGEMM_WGMMA_SS_F16(160, 40, "40", "41", "42", "43", "44")
HGEMM_WGMMA_SS_F16(168, 42, "42", "43", "44", "45", "46")
HGEMM_WGMMA_SS_F16(176, 44, "44", "45", "46", "47", "48")
HGEMM_WGMMA_SS_F16(184, 46, "46", "47", "48", "49", "50")
HGEMM_WGMMA_SS_F16(192, 48, "48", "49", "50", "51", "52")
HGEMM_WGMMA_SS_F16(200, 50, "50", "51", "52", "53", "54")
HGEMM_WGMMA_SS_F16(208, 52, "52", "53", "54", "55", "56")
HGEMM_WGMMA_SS_F16(216, 54, "54", "55", "56", "57", "58")
HGEMM_WGMMA_SS_F16(224, 56, "56", "57", "58", "59", "60")
HGEMM_WGMMA_SS_F16(232, 58, "58", "59", "60", "61", "62")
HGEMM_WGMMA_SS_F16(240, 60, "60", "61", "62", "63", "64")
HGEMM_WGMMA_SS_F16(248, 62, "62", "63", "64", "65", "66")
HGEMM_WGMMA_SS_F16(256, 64, "64", "65", "66", "67", "68")

#undef HGEMM_WGMMA_SS_F32
#undef HGEMM_WGMMA_SS_F16

// d (+)= A * B for one m64nNk16 atom; see WgmmaSS. kBF16: A and B are bf16 (fp32 d only).
template <int kN, bool kAccF32, int kTransB, bool kBF16 = false, int kTransA = 0>
__device__ __forceinline__ void wgmma_ss(
    typename WgmmaSS<kN, kAccF32>::Reg (&d)[WgmmaSS<kN, kAccF32>::kRegs], uint64_t desc_a,
    uint64_t desc_b, uint32_t scale_d) {
  WgmmaSS<kN, kAccF32>::template mma<kTransA, kTransB, kBF16>(d, desc_a, desc_b, scale_d);
}

}  // namespace hgemm::ptx
