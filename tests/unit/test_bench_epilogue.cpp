// `hgemm bench --epilogue` without a device: the option's values and what each asks hgemm and
// cuBLASLt for (the two must compute one function, so "gelu" is the tanh form on both sides), the
// verifier's fp64 reference activations and the checks an epilogue leaves applicable, and the
// argument errors, which exit 2 before any device call.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "baselines/baselines.hpp"
#include "bench/epilogue.hpp"
#include "bench/results_csv.hpp"
#include "cli_runner.hpp"
#include "hgemm/hgemm.hpp"
#include "verify/verifier.hpp"
#include "verify/verify_kernels.hpp"

namespace {

using hgemm::Activation;
using hgemm::bench::EpilogueOp;
using hgemm::verify::detail::reference_activation;

// A stand-in for a device pointer: the mapping looks only at whether there is a bias.
void* const kSomeBias = reinterpret_cast<void*>(uintptr_t(0x1000));

hgemm::verify::Epilogue epilogue_of(EpilogueOp op) {
  hgemm::verify::Epilogue e;
  e.bias = hgemm::bench::has_bias(op) ? kSomeBias : nullptr;
  e.activation = hgemm::bench::activation_of(op);
  return e;
}

void expect_usage_error(const std::string& args, const std::string& needle) {
  const CliResult r = run_cli(args, kNoDevice);
  EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(needle), std::string::npos) << args << "\n" << r.output;
}

}  // namespace

TEST(BenchEpilogue, NamesRoundTrip) {
  const std::vector<std::string> names = {"none", "bias", "bias_relu", "bias_gelu", "relu", "gelu"};
  ASSERT_EQ(std::size(hgemm::bench::kAllEpilogueOps), names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const EpilogueOp op = hgemm::bench::kAllEpilogueOps[i];
    EXPECT_EQ(hgemm::bench::to_string(op), names[i]);
    ASSERT_TRUE(hgemm::bench::parse_epilogue(names[i]).has_value()) << names[i];
    EXPECT_EQ(*hgemm::bench::parse_epilogue(names[i]), op);
    EXPECT_NE(std::string(hgemm::bench::kEpilogueNames).find(names[i]), std::string::npos);
  }
  for (const char* bad : {"", "GELU", "gelu_tanh", "gelu_erf", "bias-gelu", "bias,gelu", " bias"})
    EXPECT_FALSE(hgemm::bench::parse_epilogue(bad).has_value()) << "'" << bad << "'";
}

TEST(BenchEpilogue, WhatEachAsksHgemmFor) {
  const struct {
    EpilogueOp op;
    bool bias;
    Activation activation;
    const char* formula;
  } expected[] = {
      {EpilogueOp::kNone, false, Activation::kNone, "A*B"},
      {EpilogueOp::kBias, true, Activation::kNone, "A*B + bias"},
      {EpilogueOp::kBiasRelu, true, Activation::kRelu, "relu(A*B + bias)"},
      {EpilogueOp::kBiasGelu, true, Activation::kGeluTanh, "gelu_tanh(A*B + bias)"},
      {EpilogueOp::kRelu, false, Activation::kRelu, "relu(A*B)"},
      {EpilogueOp::kGelu, false, Activation::kGeluTanh, "gelu_tanh(A*B)"},
  };
  for (const auto& e : expected) {
    EXPECT_EQ(hgemm::bench::has_bias(e.op), e.bias) << hgemm::bench::to_string(e.op);
    EXPECT_EQ(hgemm::bench::activation_of(e.op), e.activation) << hgemm::bench::to_string(e.op);
    EXPECT_EQ(hgemm::bench::formula(e.op), e.formula);
  }
}

// cuBLASLt's GELU epilogues are the tanh form, so every "gelu" epilogue lands on one of them and
// hgemm's erf GELU, which cuBLASLt cannot compute, is refused rather than timed as something else.
TEST(BenchEpilogue, CublasLtEpilogueOfEachOption) {
  using hgemm::baselines::lt_epilogue;
  const struct {
    EpilogueOp op;
    cublasLtEpilogue_t lt;
    const char* name;
  } expected[] = {
      {EpilogueOp::kNone, CUBLASLT_EPILOGUE_DEFAULT, "DEFAULT"},
      {EpilogueOp::kBias, CUBLASLT_EPILOGUE_BIAS, "BIAS"},
      {EpilogueOp::kBiasRelu, CUBLASLT_EPILOGUE_RELU_BIAS, "RELU_BIAS"},
      {EpilogueOp::kBiasGelu, CUBLASLT_EPILOGUE_GELU_BIAS, "GELU_BIAS"},
      {EpilogueOp::kRelu, CUBLASLT_EPILOGUE_RELU, "RELU"},
      {EpilogueOp::kGelu, CUBLASLT_EPILOGUE_GELU, "GELU"},
  };
  for (const auto& e : expected) {
    EXPECT_EQ(lt_epilogue(epilogue_of(e.op)), e.lt) << hgemm::bench::to_string(e.op);
    EXPECT_EQ(hgemm::baselines::lt_epilogue_name(e.lt), e.name);
  }
  for (void* bias : {static_cast<void*>(nullptr), kSomeBias}) {
    hgemm::verify::Epilogue erf;
    erf.bias = bias;
    erf.activation = Activation::kGelu;
    try {
      lt_epilogue(erf);
      ADD_FAILURE() << "the erf GELU mapped to a cuBLASLt epilogue";
    } catch (const hgemm::Error& error) {
      EXPECT_EQ(error.status(), HGEMM_ERROR_NOT_SUPPORTED);
      EXPECT_NE(error.message().find("tanh approximation"), std::string::npos) << error.what();
    }
  }
}

// The reference's activations against values computed independently (erf and tanh GELU at 1 and
// -1 to 16 digits), and the properties the verifier's tolerances rest on.
TEST(BenchEpilogue, ReferenceActivations) {
  EXPECT_EQ(reference_activation(-2.5, Activation::kRelu), 0.0);
  EXPECT_EQ(reference_activation(3.25, Activation::kRelu), 3.25);
  EXPECT_EQ(reference_activation(-7.0, Activation::kNone), -7.0);
  EXPECT_NEAR(reference_activation(1.0, Activation::kGelu), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(reference_activation(-1.0, Activation::kGelu), -0.15865525393145707, 1e-15);
  EXPECT_NEAR(reference_activation(1.0, Activation::kGeluTanh), 0.8411919906082768, 1e-15);
  EXPECT_NEAR(reference_activation(-1.0, Activation::kGeluTanh), -0.15880800939172324, 1e-15);
  // Far out both forms are the identity or zero, as a wide product mostly lands there.
  for (Activation a : {Activation::kGelu, Activation::kGeluTanh}) {
    EXPECT_EQ(reference_activation(64.0, a), 64.0);
    EXPECT_NEAR(reference_activation(-64.0, a), 0.0, 1e-300);
  }
  // The two GELUs differ by less than fp16's half ulp at 1 (2^-11), so only the function each side
  // claims to compute tells them apart, not the verifier: the benchmark must ask for the same one.
  double largest_gap = 0, steepest = 0;
  for (double x = -8.0; x <= 8.0; x += 1.0 / 1024) {
    largest_gap = std::max(largest_gap, std::fabs(reference_activation(x, Activation::kGelu) -
                                                  reference_activation(x, Activation::kGeluTanh)));
    for (Activation a : {Activation::kRelu, Activation::kGelu, Activation::kGeluTanh}) {
      const double h = 1.0 / 1024;
      steepest = std::max(steepest, std::fabs(reference_activation(x + h, a) -
                                              reference_activation(x, a)) / h);
    }
  }
  EXPECT_GT(largest_gap, 1e-4);
  EXPECT_LT(largest_gap, std::ldexp(1.0, -11));
  // verifier.hpp keeps the product's tolerances because no activation is steeper than 1.13.
  EXPECT_GT(steepest, 1.12);
  EXPECT_LE(steepest, 1.13);
}

TEST(BenchEpilogue, ChecksAnEpilogueLeavesApplicable) {
  for (EpilogueOp op : hgemm::bench::kAllEpilogueOps) {
    const hgemm::verify::Epilogue e = epilogue_of(op);
    const std::string name(hgemm::bench::to_string(op));
    EXPECT_EQ(e.empty(), op == EpilogueOp::kNone) << name;
    // Exact comparisons survive no bias and at most ReLU.
    EXPECT_EQ(e.exact(), op == EpilogueOp::kNone || op == EpilogueOp::kRelu) << name;
    // NaN and +Inf survive a bias, not an activation.
    EXPECT_EQ(e.keeps_nonfinite(), op == EpilogueOp::kNone || op == EpilogueOp::kBias) << name;
  }
  hgemm::verify::Epilogue scaled;
  scaled.alpha = 0.5f;
  EXPECT_FALSE(scaled.empty());
  EXPECT_FALSE(scaled.exact());
  EXPECT_TRUE(scaled.keeps_nonfinite());
  scaled.alpha = -1.0f;
  EXPECT_FALSE(scaled.keeps_nonfinite()) << "a negative alpha turns +Inf into -Inf";
}

// Every accepted line goes on to look for the device (which kNoDevice hides) and writes nothing.
TEST(BenchEpilogue, OptionAccepted) {
  const std::string out = testing::TempDir() + "hgemm_cli_epilogue.csv";
  std::remove(out.c_str());
  const std::string bench = "bench --shape 64x64x64 --modes offline --out " + out;
  for (const std::string& args :
       {bench + " --impl hgemm --epilogue bias_gelu", bench + " --impl hgemm --epilogue=none",
        bench + " --epilogue relu", bench + " --epilogue bias --impl hgemm-unfused,cublaslt-best",
        bench + " --epilogue bias_gelu --impl hgemm,hgemm-plain",
        bench + " --epilogue gelu --impl all,hgemm-nopdl --dtype bf16",
        bench + " --epilogue bias_relu --impl cublaslt-heuristic,cublaslt-autotune"}) {
    const CliResult r = run_cli(args, kNoDevice);
    EXPECT_NE(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << args << "\n" << r.output;
  }
  std::FILE* f = std::fopen(out.c_str(), "r");
  EXPECT_EQ(f, nullptr) << "a run without a device wrote " << out;
  if (f) std::fclose(f);
}

TEST(BenchEpilogue, OptionErrors) {
  const std::string bench = "bench --shape 64x64x64 --modes offline --out " + testing::TempDir() +
                            "hgemm_cli_epilogue_error.csv";
  expect_usage_error(bench + " --epilogue gelu_erf",
                     "unknown epilogue 'gelu_erf' (none, bias, bias_relu, bias_gelu, relu, gelu)");
  expect_usage_error(bench + " --epilogue GELU", "unknown epilogue 'GELU'");
  expect_usage_error(bench + " --epilogue", "needs a value");
  // cublas has no epilogue API: named, it is refused; `all` leaves it out (accepted above).
  for (const char* epilogue : {"bias", "bias_gelu", "relu"})
    expect_usage_error(bench + " --impl hgemm,cublas --epilogue " + epilogue,
                       "cublas (cublasGemmEx) has no epilogue, so it cannot run --epilogue " +
                           std::string(epilogue));
  expect_usage_error(bench + " --impl hgemm-unfused", "hgemm-unfused");
  expect_usage_error(bench + " --impl hgemm-unfused --epilogue none", "it needs --epilogue");
  expect_usage_error(bench + " --impl hgemm,hgemm-plain",
                     "hgemm-plain is the call without its bias and activation");
  expect_usage_error(bench + " --impl hgemm-plain --epilogue none", "it needs --epilogue");
  expect_usage_error(bench + " --epilogue bias --impl config:" +
                         "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn",
                     "has no epilogue, so it cannot run --epilogue bias");
}

TEST(BenchEpilogue, HelpNamesTheGelu) {
  const CliResult r = run_cli("bench --help");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("--epilogue E"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tanh approximation"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("hgemm-unfused"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("hgemm-plain"), std::string::npos) << r.output;
}

// A results file holds rows with or without an epilogue column (its header says which): --resume
// with the other kind is refused before any device work.
TEST(BenchEpilogue, ResumeRefusesTheOtherColumns) {
  const std::string path = testing::TempDir() + "hgemm_cli_resume_epilogue.csv";
  const std::string resume =
      "bench --shape 64x64x64 --impl hgemm --modes offline --resume --out " + path;
  write(path, "# gpu=x\n" + hgemm::bench::header_line() + "\n");
  expect_usage_error(resume + " --epilogue bias_gelu",
                     "it holds rows without an epilogue column and this run is --epilogue "
                     "bias_gelu");
  write(path, "# gpu=x\n" + hgemm::bench::header_line(false, true) + "\n");
  expect_usage_error(resume, "it holds rows with an epilogue column and this run is --epilogue "
                             "none");
  expect_usage_error(resume + " --dtype bf16 --epilogue bias",
                     "it holds f16 rows and this run is --dtype bf16");
  write(path, "# gpu=x\n" + hgemm::bench::header_line(true, false) + "\n");
  expect_usage_error(resume + " --epilogue relu",
                     "it holds bf16 rows and this run is --dtype f16; it holds rows without an "
                     "epilogue column and this run is --epilogue relu");
  // The matching header is accepted and the run goes on to look for the device.
  write(path, "# gpu=x\n" + hgemm::bench::header_line(false, true) + "\n");
  const CliResult r = run_cli(resume + " --epilogue relu", kNoDevice);
  EXPECT_NE(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
  std::remove(path.c_str());
}

// hgemm verify takes the same option for hgemm's general call; one kernel through hgemm::run has
// no epilogue to verify.
TEST(BenchEpilogue, VerifyOption) {
  for (const char* args : {"verify --suite smoke --epilogue bias_gelu",
                           "verify --suite smoke --epilogue relu --dtype bf16 --quick"}) {
    const CliResult r = run_cli(args, kNoDevice);
    EXPECT_NE(r.code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << args << "\n" << r.output;
  }
  expect_usage_error("verify --suite smoke --epilogue bias --impl family:sm90",
                     "--epilogue needs --impl dispatch");
  expect_usage_error("verify --suite smoke --epilogue silu", "unknown epilogue 'silu'");
}

// Fixed by cuBLASLt's ABI (cublasLt.h's cublasLtMatmulTile_t and cublasLtMatmulStages_t), read
// from the header at configure time (cmake/cublaslt_names.cmake).
TEST(BenchBaselines, CublasLtTileAndStageNamesComeFromItsHeader) {
  EXPECT_EQ(hgemm::baselines::cublaslt_tile_name(33), "128x96");
  EXPECT_EQ(hgemm::baselines::cublaslt_tile_name(165), "112x128");
  EXPECT_EQ(hgemm::baselines::cublaslt_tile_name(496), "256x104");
  EXPECT_EQ(hgemm::baselines::cublaslt_stage_name(35), "64xAUTO");
  EXPECT_EQ(hgemm::baselines::cublaslt_tile_name(0), "UNDEFINED");
  EXPECT_EQ(hgemm::baselines::cublaslt_tile_name(0xffffffffu), "");
}
