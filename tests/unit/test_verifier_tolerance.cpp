// The verifier's static tolerances (no device): monotone in K, looser for fp16 accumulation, and
// placed where the measured H100 errors say they must be. Measured references: fp32 accumulation
// with fp16 output gives rel_fro 2.1e-4 at any K; cuBLAS COMPUTE_16F gives 6.0e-4 (K=256),
// 1.2e-3 (1024), 2.4e-3 (4096 and 16384). bf16 output (8 significant bits, fp16 has 11) rounds
// 2^3 = 8x as coarsely, so its floor is 8 x 2.1e-4 and a bf16 accumulator would err 8x as much as
// an fp16 one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"

namespace {

using hgemm::Accum;
using hgemm::DType;
using hgemm::Layout;
using hgemm::Problem;
using hgemm::verify::Verifier;

Problem make(int64_t m, int64_t n, int64_t k, Accum accum) {
  return Problem{m, n, k, Layout::kTN, accum};
}

Problem make_bf16(int64_t m, int64_t n, int64_t k) {
  return Problem{m, n, k, Layout::kTN, Accum::kF32, DType::kBF16};
}

const std::vector<int64_t> kKs = {1,   2,    3,    15,   16,    17,    64,    65,      255,
                                  256, 1000, 1024, 4096, 12288, 16384, 65536, 1 << 20, 1 << 24};
const std::vector<int64_t> kSides = {1, 3, 17, 256, 4096, 16384};
const std::vector<double> kMaxRefs = {0.0, 1e-6, 1e-3, 0.5, 1.0, 100.0, 700.0, 65504.0};

TEST(VerifierTolerance, MonotoneInK) {
  for (Accum accum : {Accum::kF32, Accum::kF16}) {
    for (int64_t side : kSides) {
      for (size_t i = 1; i < kKs.size(); ++i) {
        const Problem lo = make(side, side, kKs[i - 1], accum);
        const Problem hi = make(side, side, kKs[i], accum);
        EXPECT_LE(Verifier::tol_rel_fro(lo), Verifier::tol_rel_fro(hi))
            << hi.name() << " vs " << lo.name();
        for (double x : kMaxRefs)
          EXPECT_LE(Verifier::tol_max_abs(lo, x), Verifier::tol_max_abs(hi, x))
              << hi.name() << " vs " << lo.name() << " max|ref| " << x;
      }
    }
  }
}

TEST(VerifierTolerance, Fp16LooserThanFp32) {
  for (int64_t side : kSides) {
    for (int64_t k : kKs) {
      const Problem f32 = make(side, side, k, Accum::kF32);
      const Problem f16 = make(side, side, k, Accum::kF16);
      EXPECT_GT(Verifier::tol_rel_fro(f16), Verifier::tol_rel_fro(f32)) << f16.name();
      for (double x : kMaxRefs)
        EXPECT_GT(Verifier::tol_max_abs(f16, x), Verifier::tol_max_abs(f32, x))
            << f16.name() << " max|ref| " << x;
    }
  }
}

TEST(VerifierTolerance, MaxAbsGrowsWithMagnitude) {
  for (Accum accum : {Accum::kF32, Accum::kF16}) {
    const Problem p = make(256, 256, 4096, accum);
    for (size_t i = 1; i < kMaxRefs.size(); ++i)
      EXPECT_LE(Verifier::tol_max_abs(p, kMaxRefs[i - 1]), Verifier::tol_max_abs(p, kMaxRefs[i]));
  }
}

TEST(VerifierTolerance, AllFinitePositive) {
  for (Accum accum : {Accum::kF32, Accum::kF16}) {
    for (int64_t side : kSides) {
      for (int64_t k : kKs) {
        const Problem p = make(side, side, k, accum);
        const double rel = Verifier::tol_rel_fro(p);
        EXPECT_TRUE(std::isfinite(rel) && rel > 0) << p.name();
        for (double x : kMaxRefs) {
          const double abs = Verifier::tol_max_abs(p, x);
          EXPECT_TRUE(std::isfinite(abs) && abs > 0) << p.name() << " max|ref| " << x;
        }
      }
    }
  }
}

// Large outputs, where the Frobenius ratio is statistically sharp.
TEST(VerifierTolerance, Fp32SeparatesAccumulationTypes) {
  for (int64_t k : {int64_t(1), int64_t(256), int64_t(1024), int64_t(4096), int64_t(16384)}) {
    const double tol = Verifier::tol_rel_fro(make(1024, 1024, k, Accum::kF32));
    EXPECT_GE(tol, 2.0 * 2.1e-4) << "fp32 tolerance must leave 2x over output rounding, K=" << k;
  }
  // Below every measured fp16-accumulation error from K = 256 up.
  EXPECT_LT(Verifier::tol_rel_fro(make(1024, 1024, 256, Accum::kF32)), 6.0e-4);
  EXPECT_LT(Verifier::tol_rel_fro(make(1024, 1024, 1024, Accum::kF32)), 1.2e-3);
  EXPECT_LT(Verifier::tol_rel_fro(make(1024, 1024, 16384, Accum::kF32)), 2.4e-3);
}

TEST(VerifierTolerance, Fp16AboveCublasCompute16F) {
  const struct {
    int64_t k;
    double cublas;
  } measured[] = {{256, 6.0e-4}, {1024, 1.2e-3}, {4096, 2.4e-3}, {16384, 2.4e-3}};
  for (const auto& m : measured) {
    const double tol = Verifier::tol_rel_fro(make(1024, 1024, m.k, Accum::kF16));
    EXPECT_GE(tol, 1.5 * m.cublas) << "K=" << m.k;
    // Not so loose that fp16 accumulation's own growth is ignored (the sqrt(K) model x 4).
    EXPECT_LE(tol, 4.0 * 1.2e-3 * std::sqrt(double(m.k) / 1024.0) + 1e-3) << "K=" << m.k;
  }
}

TEST(VerifierTolerance, TinyProblemsCoverOneRounding) {
  // One element, K = 1: the only error is one round-to-nearest to fp16, 2^-11 relative at most.
  for (Accum accum : {Accum::kF32, Accum::kF16}) {
    const Problem p = make(1, 1, 1, accum);
    EXPECT_GE(Verifier::tol_rel_fro(p), std::ldexp(1.0, -11));
    // A subnormal result is off by at most half the subnormal spacing (2^-25).
    EXPECT_GE(Verifier::tol_max_abs(p, 0.0), std::ldexp(1.0, -25));
    // |ref| = 1: half an ulp is 2^-11.
    EXPECT_GE(Verifier::tol_max_abs(p, 1.0), std::ldexp(1.0, -11));
  }
}

TEST(VerifierTolerance, MaxAbsMagnitudes) {
  // K = 16384 with N(0,1) inputs: |ref| reaches ~700, whose fp16 ulp is 0.5. A correct fp32 kernel
  // is off by at most half an ulp plus a tiny fp32 term; an element off by a typical |ref|
  // (~sqrt(K) = 128) must fail.
  const Problem f32 = make(2048, 2048, 16384, Accum::kF32);
  EXPECT_GE(Verifier::tol_max_abs(f32, 700.0), 0.5);
  EXPECT_LE(Verifier::tol_max_abs(f32, 700.0), 2.0);
  const Problem f32_small_k = make(256, 256, 64, Accum::kF32);
  EXPECT_LE(Verifier::tol_max_abs(f32_small_k, 40.0), 0.1);  // ulp(40) = 1/32
  // fp16 accumulation at K = 4096: per-element sigma ~0.15, typical |ref| 64.
  const Problem f16 = make(1024, 1024, 4096, Accum::kF16);
  EXPECT_GE(Verifier::tol_max_abs(f16, 320.0), 1.0);
  EXPECT_LE(Verifier::tol_max_abs(f16, 320.0), 16.0);
}

TEST(VerifierTolerance, DispositionNames) {
  EXPECT_STREQ(hgemm::verify::to_string(hgemm::verify::Disposition::kPassed), "passed");
  EXPECT_STREQ(hgemm::verify::to_string(hgemm::verify::Disposition::kIncorrect), "incorrect");
  EXPECT_STREQ(hgemm::verify::to_string(hgemm::verify::Disposition::kLaunchFailed),
               "launch_failed");
}

TEST(VerifierTolerance, SummaryNamesFailingChecks) {
  using hgemm::verify::CheckResult;
  using hgemm::verify::Disposition;
  hgemm::verify::Report report;
  CheckResult ok;
  ok.check = "random_normal";
  ok.rel_fro_error = 2.1e-4;
  ok.tol_rel_fro = 5e-4;
  CheckResult na;
  na.check = "precision_probe";
  na.reason = "not applicable: K=65";
  report.checks = {ok, na};
  EXPECT_EQ(report.summary().rfind("PASSED (random_normal rel 2.1e-04/5.0e-04", 0), 0u)
      << report.summary();
  EXPECT_NE(report.summary().find("precision_probe n/a"), std::string::npos) << report.summary();

  CheckResult bad;
  bad.check = "precision_probe";
  bad.disposition = Disposition::kIncorrect;
  bad.reason = "got 1024 want 1050 at (3,7)\nsecond line";
  report.checks = {ok, bad};
  report.disposition = Disposition::kIncorrect;
  const std::string s = report.summary();
  EXPECT_EQ(s, "INCORRECT precision_probe: got 1024 want 1050 at (3,7) second line");
}

// ---- bf16 elements (fp32 accumulation only) -----------------------------------------------------

// The fp16 tolerances did not move when bf16 arrived: the formulas, evaluated here by hand.
TEST(VerifierTolerance, Fp16ValuesUnchangedByBf16) {
  const double u32 = std::ldexp(1.0, -24);
  const Problem f32 = make(1024, 1024, 4096, Accum::kF32);
  EXPECT_DOUBLE_EQ(Verifier::tol_rel_fro(f32), (5e-4 + 4.0 * u32 * 64.0) * (1.0 + 3.0 / 1024.0));
  // ulp(700) in fp16 is 0.5.
  EXPECT_DOUBLE_EQ(Verifier::tol_max_abs(f32, 700.0), 2.0 * 0.5 + 32.0 * u32 * 4096.0);
  const Problem f16 = make(1024, 1024, 4096, Accum::kF16);
  EXPECT_DOUBLE_EQ(Verifier::tol_rel_fro(f16), 2.5e-3 * 2.0 * (1.0 + 3.0 / 1024.0));
  EXPECT_DOUBLE_EQ(Verifier::tol_max_abs(f16, 700.0), 4.0 * 0.5 + 1e-3 * 4096.0);
  EXPECT_EQ(Problem{}.dtype, DType::kF16);
}

TEST(VerifierTolerance, Bf16MonotoneFinitePositive) {
  for (int64_t side : kSides) {
    for (size_t i = 0; i < kKs.size(); ++i) {
      const Problem p = make_bf16(side, side, kKs[i]);
      const double rel = Verifier::tol_rel_fro(p);
      EXPECT_TRUE(std::isfinite(rel) && rel > 0) << p.name();
      for (double x : {0.0, 1e-30, 1e-6, 1.0, 700.0, 65504.0, 1e30, 3.3e38}) {
        const double abs = Verifier::tol_max_abs(p, x);
        EXPECT_TRUE(std::isfinite(abs) && abs > 0) << p.name() << " max|ref| " << x;
      }
      if (i == 0) continue;
      const Problem lo = make_bf16(side, side, kKs[i - 1]);
      EXPECT_LE(Verifier::tol_rel_fro(lo), rel) << p.name();
      for (double x : kMaxRefs)
        EXPECT_LE(Verifier::tol_max_abs(lo, x), Verifier::tol_max_abs(p, x))
            << p.name() << " max|ref| " << x;
    }
  }
  const Problem p = make_bf16(256, 256, 4096);
  for (size_t i = 1; i < kMaxRefs.size(); ++i)
    EXPECT_LE(Verifier::tol_max_abs(p, kMaxRefs[i - 1]), Verifier::tol_max_abs(p, kMaxRefs[i]));
}

// The rule: every term that comes from C's rounding is 2^(11-8) = 8x fp16's, the fp32 summation
// term is shared. So the rounding part of the tolerance is exactly 8x fp16's at every K.
TEST(VerifierTolerance, Bf16IsFp16ScaledByTheOutputRounding) {
  const double u32 = std::ldexp(1.0, -24);
  for (int64_t side : kSides) {
    for (int64_t k : kKs) {
      const Problem f16 = make(side, side, k, Accum::kF32);
      const Problem bf16 = make_bf16(side, side, k);
      const double widen = 1.0 + 3.0 / double(side);
      const double order = 4.0 * u32 * std::sqrt(double(k));
      EXPECT_NEAR(Verifier::tol_rel_fro(bf16) / widen - order,
                  8.0 * (Verifier::tol_rel_fro(f16) / widen - order), 1e-15)
          << bf16.name();
      EXPECT_GT(Verifier::tol_rel_fro(bf16), Verifier::tol_rel_fro(f16)) << bf16.name();
      // Max-abs: two ulps of max|ref| in C's type; bf16's ulp is 8x fp16's wherever both are
      // normal and below fp16's largest value.
      for (double x : {1e-3, 0.5, 1.0, 100.0, 700.0, 60000.0}) {
        const double accumulation = 32.0 * u32 * double(k);
        EXPECT_NEAR(Verifier::tol_max_abs(bf16, x) - accumulation,
                    8.0 * (Verifier::tol_max_abs(f16, x) - accumulation), 1e-12)
            << bf16.name() << " max|ref| " << x;
      }
    }
  }
}

// Large outputs, where the Frobenius ratio is statistically sharp.
TEST(VerifierTolerance, Bf16LeavesRoomForOutputRounding) {
  const double floor = 8.0 * 2.1e-4;  // fp16's measured floor, 8x coarser
  for (int64_t k : {int64_t(1), int64_t(256), int64_t(1024), int64_t(4096), int64_t(16384)}) {
    const double tol = Verifier::tol_rel_fro(make_bf16(1024, 1024, k));
    EXPECT_GE(tol, 2.0 * floor) << "K=" << k;
    // Not looser than fp16's own margin over its floor (2.4x) needs.
    EXPECT_LE(tol, 2.5 * floor) << "K=" << k;
  }
  // Below a bf16 accumulator's error (8x fp16 accumulation's measured 6.0e-4 at K = 256).
  EXPECT_LT(Verifier::tol_rel_fro(make_bf16(1024, 1024, 256)), 8.0 * 6.0e-4);
}

TEST(VerifierTolerance, Bf16TinyProblemsCoverOneRounding) {
  // One element, K = 1: one round-to-nearest to bf16, 2^-8 relative at most.
  const Problem p = make_bf16(1, 1, 1);
  EXPECT_GE(Verifier::tol_rel_fro(p), std::ldexp(1.0, -8));
  // |ref| = 1: half a bf16 ulp is 2^-8.
  EXPECT_GE(Verifier::tol_max_abs(p, 1.0), std::ldexp(1.0, -8));
  // bf16 keeps fp32's exponent range: a tiny result is rounded on a tiny grid, not fp16's 2^-24.
  EXPECT_LT(Verifier::tol_max_abs(p, 1e-20) - 32.0 * std::ldexp(1.0, -24),
            std::ldexp(1.0, -60));
}

TEST(VerifierTolerance, Bf16MaxAbsMagnitudes) {
  // K = 16384 with N(0,1) inputs: |ref| reaches ~700, whose bf16 ulp is 4. A correct kernel is off
  // by at most half an ulp (2); an element off by a typical |ref| (~sqrt(K) = 128) must fail.
  const Problem big = make_bf16(2048, 2048, 16384);
  EXPECT_GE(Verifier::tol_max_abs(big, 700.0), 2.0);
  EXPECT_LE(Verifier::tol_max_abs(big, 700.0), 16.0);
  const Problem small_k = make_bf16(256, 256, 64);
  EXPECT_LE(Verifier::tol_max_abs(small_k, 40.0), 1.0);  // ulp(40) = 1/4
  EXPECT_GE(Verifier::tol_max_abs(small_k, 40.0), 0.125);
}

}  // namespace

// An epilogue's alpha scales the product, so the accumulation term of the max-abs tolerance
// scales with |alpha| while the output-rounding term follows max|ref| alone (which already holds
// the scaled values); alpha 1 is the tolerance without an epilogue.
TEST(VerifierTolerance, MaxAbsAccumulationTermScalesWithAlpha) {
  for (const Problem& p : {make(1024, 1024, 4096, Accum::kF32), make(1024, 1024, 4096, Accum::kF16),
                           make_bf16(1024, 1024, 4096)}) {
    for (double max_ref : {0.0, 1.0, 700.0}) {
      const double rounding = Verifier::tol_max_abs(p, max_ref, 0.0);
      const double unit = Verifier::tol_max_abs(p, max_ref, 1.0) - rounding;
      EXPECT_GT(unit, 0.0) << p.name();
      EXPECT_EQ(Verifier::tol_max_abs(p, max_ref), Verifier::tol_max_abs(p, max_ref, 1.0));
      for (double alpha : {0.25, 2.0, -2.0})
        EXPECT_NEAR(Verifier::tol_max_abs(p, max_ref, alpha) - rounding, std::fabs(alpha) * unit,
                    1e-12 * unit)
            << p.name() << " alpha " << alpha;
    }
  }
}
