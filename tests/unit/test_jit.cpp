// The JIT's CPU side: the generated source, the embedded headers, the cache key, a real nvcc
// build into a fresh cache (hit, miss on a changed key, a missing or failing compiler), the
// declared instances it adds to the search space, and the `hgemm jit` / `hgemm tune --jit`
// commands. Needs nvcc (CI has it), no GPU.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "launch/sm90_jit.hpp"
#include "temp_dir.hpp"
#include "tuner/space/space.hpp"

namespace hgemm {
namespace {

namespace fs = std::filesystem;

KernelConfig parse(const char* name) {
  auto c = KernelConfig::parse(name);
  EXPECT_TRUE(c.has_value()) << name;
  return c.value_or(KernelConfig{});
}

// Not in the catalog: 64x64 tiles with ten stages, and a ping-pong 128x96 kernel with TMA
// stores, N-major B and fp16 accumulation.
constexpr const char* kTen = "sm90_ws_64x64x64_s10_c1x1_w1_m8_st_sk1_f32_tn";
constexpr const char* kPingPong = "sm90_pp_128x96x64_s5_c1x1_w2_m8_tma_sk1_f16_nn";

TEST(Jit, SourceInstantiatesExactlyTheConfig) {
  const std::string src = jit::sm90_source(parse(kTen));
  EXPECT_NE(src.find("#include \"kernels/sm90/sm90_ws.cuh\""), std::string::npos);
  // Rendered from named fields, each of them present.
  for (const char* field :
       {".block_m = 64,", ".block_n = 64,", ".block_k = 64,", ".num_stages = 10,",
        ".num_consumer_wgs = 1,", ".cluster_m = 1,", ".cluster_n = 1,",
        ".epilogue = Epilogue::kDirect,", ".accum = Accum::kF32,", ".layout = Layout::kTN,",
        ".schedule = Schedule::kCooperative,", "sm90_ws_gemm_kernel<Traits<kJitVariant>>"})
    EXPECT_NE(src.find(field), std::string::npos) << field << "\n" << src;
  const std::string pp = jit::sm90_source(parse(kPingPong));
  for (const char* field :
       {".block_m = 128,", ".block_n = 96,", ".num_stages = 5,", ".num_consumer_wgs = 2,",
        ".epilogue = Epilogue::kTmaStore,", ".accum = Accum::kF16,", ".layout = Layout::kNN,",
        ".schedule = Schedule::kPingPong,"})
    EXPECT_NE(pp.find(field), std::string::npos) << field << "\n" << pp;
  // Raster, group size and split-K are launch arguments: one kernel for all of them.
  KernelConfig split = parse(kTen);
  split.split_k = 4;
  split.raster = Raster::kAlongN;
  EXPECT_EQ(jit::sm90_source(split), jit::sm90_source(parse(kTen)));
}

TEST(Jit, RefusesWhatItCannotBuild) {
  KernelConfig sm80;  // the default config is the sm80 family
  try {
    jit::sm90_source(sm80);
    ADD_FAILURE() << "an sm80 config was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), HGEMM_ERROR_NOT_SUPPORTED);
    EXPECT_NE(e.message().find("sm90 configs only"), std::string::npos) << e.message();
  }
  KernelConfig bad = parse(kTen);
  bad.block_n = 20;  // not a multiple of 8
  EXPECT_THROW(jit::sm90_source(bad), Error);
}

TEST(Jit, EmbeddedHeadersAreTheSourceTree) {
  bool kernel = false;
  for (const jit::EmbeddedFile& f : jit::embedded_headers()) {
    const std::string path(f.path);
    // hgemm/version.h is written by the build from cmake/version.h.in.
    const fs::path root = path == "hgemm/version.h" ? fs::path(HGEMM_GENERATED_INCLUDE_DIR)
                          : fs::path(HGEMM_SOURCE_DIR) /
                                (path.rfind("hgemm/", 0) == 0 ? "include" : "src");
    EXPECT_EQ(std::string(f.text), slurp((root / std::string(f.path)).string())) << f.path;
    kernel = kernel || f.path == "kernels/sm90/sm90_ws.cuh";
  }
  EXPECT_TRUE(kernel) << "the sm90 kernel header is not embedded";
}

TEST(Jit, BuildsIntoTheCacheAndHitsIt) {
  TempDir dir("hgemm-jit");
  jit::Options options = jit::Options::from_env();
  options.cache_dir = dir.path();
  options.jobs = 2;
  KernelConfig ten_split = parse(kTen);
  ten_split.split_k = 2;  // same instance as kTen: built once
  const auto first = jit::build({parse(kTen), ten_split, parse(kPingPong)}, options);
  ASSERT_EQ(first.size(), 2u);
  for (const jit::Artifact& a : first) {
    ASSERT_TRUE(a.status.ok()) << a.status.message;
    EXPECT_FALSE(a.cached);
    const std::string cubin = slurp(a.cubin_path);
    ASSERT_GT(cubin.size(), 4u);
    EXPECT_EQ(cubin.substr(0, 4), "\x7f" "ELF") << a.cubin_path;
  }
  EXPECT_NE(first[0].key, first[1].key);
  EXPECT_EQ(first[0].key, jit::cache_key(parse(kTen), options).hex);

  const auto second = jit::build({parse(kTen), parse(kPingPong)}, options);
  ASSERT_EQ(second.size(), 2u);
  for (const jit::Artifact& a : second) {
    EXPECT_TRUE(a.status.ok()) << a.status.message;
    EXPECT_TRUE(a.cached) << a.config.name();
  }

  // A sidecar that no longer matches the key material (a stale file, or a hash collision) is a
  // miss: the kernel is rebuilt, never taken on the hash alone.
  { std::ofstream(dir.file(first[0].key + ".key")) << "something else"; }
  const auto third = jit::build({parse(kTen)}, options);
  ASSERT_TRUE(third.at(0).status.ok()) << third.at(0).status.message;
  EXPECT_FALSE(third.at(0).cached);
  EXPECT_EQ(slurp(dir.file(first[0].key + ".key")), jit::cache_key(parse(kTen), options).material);
}

TEST(Jit, CompilerFailuresAreStatusesThatSayWhy) {
  TempDir dir("hgemm-jit");
  jit::Options options = jit::Options::from_env();
  options.cache_dir = dir.path();
  options.nvcc = dir.file("no-such-nvcc");
  auto missing = jit::build({parse(kTen)}, options);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_FALSE(missing[0].status.ok());
  EXPECT_NE(missing[0].status.message.find("HGEMM_NVCC"), std::string::npos)
      << missing[0].status.message;

  // A compiler that knows its version but fails to compile: its output comes back.
  const std::string fake = dir.file("fake-nvcc");
  {
    std::ofstream s(fake);
    s << "#!/bin/sh\n"
         "if [ \"$1\" = --version ]; then echo fake nvcc 0.0; exit 0; fi\n"
         "echo 'error: planted compiler failure' >&2\nexit 1\n";
  }
  ::chmod(fake.c_str(), 0755);
  options.nvcc = fake;
  auto failed = jit::build({parse(kTen)}, options);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_FALSE(failed[0].status.ok());
  EXPECT_NE(failed[0].status.message.find("planted compiler failure"), std::string::npos)
      << failed[0].status.message;
  EXPECT_FALSE(fs::exists(failed[0].cubin_path));
  // The key names the compiler: another nvcc never reuses this one's cubins.
  jit::Options real = options;
  real.nvcc = jit::Options::from_env().nvcc;
  EXPECT_NE(jit::cache_key(parse(kTen), options).hex, jit::cache_key(parse(kTen), real).hex);
}

TEST(Jit, DeclaredInstancesExtendTheSpace) {
  const DeviceInfo device = tuner::nominal_device();
  std::vector<KernelConfig> added;
  const tuner::SearchSpace space = tuner::SearchSpace::with_declared(device, {"64x64x64_s1"}, &added);
  const tuner::SearchSpace catalog = tuner::SearchSpace::from_catalog(device);
  ASSERT_FALSE(added.empty());
  for (const KernelConfig& c : added) {
    EXPECT_NE(c.name().find("64x64x64_s1"), std::string::npos) << c.name();
    EXPECT_EQ(c.family, Family::kSm90Ws);
    EXPECT_FALSE(catalog.compiled(c)) << c.name();
    EXPECT_TRUE(space.compiled(c)) << c.name();
    EXPECT_TRUE(space.check(c).empty()) << c.name();
  }
  EXPECT_GT(space.configs().size(), catalog.configs().size());
  const Problem p{128, 3072, 3072, Layout::kTN, Accum::kF32};
  EXPECT_GT(space.enumerate(p).size(), catalog.enumerate(p).size());
}

TEST(JitCli, SourceKeyAndArgumentErrors) {
  auto src = run_cli(std::string("jit source ") + kTen);
  EXPECT_EQ(src.code, 0) << src.output;
  EXPECT_NE(src.output.find(".num_stages = 10,"), std::string::npos) << src.output;
  EXPECT_EQ(run_cli("jit").code, 2);
  EXPECT_EQ(run_cli("jit frobnicate").code, 2);
  auto bad = run_cli("jit build not_a_config");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("not a config name"), std::string::npos) << bad.output;
  auto declared = run_cli("jit declared --layout nn --acc f16");
  EXPECT_EQ(declared.code, 0) << declared.output;
  EXPECT_NE(declared.output.find("_f16_nn\n"), std::string::npos);
  EXPECT_EQ(declared.output.find("_f32_"), std::string::npos);
}

// A tune run over a JIT-extended space, on the synthetic landscape (nothing is compiled there):
// --include puts a declared instance on the measured list and it lands in the database.
TEST(JitCli, TuneMeasuresDeclaredInstances) {
  TempDir dir("hgemm-jit");
  const std::string db = dir.file("tuned.jsonl");
  auto r = run_cli("tune --shape 128x3072x3072 --layout tn --acc f32 --budget 2 --measurer "
                   "synthetic --db " + db + " --jit 64x64x64_s10 --include 64x64x64_s10");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(slurp(db).find("sm90_ws_64x64x64_s10_"), std::string::npos) << slurp(db);
  auto empty = run_cli("tune --shape 128x128x128 --measurer synthetic --db " + db + " --jit ,");
  EXPECT_EQ(empty.code, 2) << empty.output;
}

}  // namespace
}  // namespace hgemm
