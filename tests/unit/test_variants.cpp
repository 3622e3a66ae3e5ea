// Source rewrites on the CPU: the source rules (each rule refuses what it names, at the right
// line, and the family's own header passes), the line diff of the size term, the rewrite reward,
// the JIT's header override (its cache key, a real build, the time and memory limits), the
// top-level JSON reader, and `hgemm variants` up to the build, plus list and promote on a
// temporary tree. The GPU half: tests/gpu/test_promoted_variants.cu and
// tests/python/gpu/test_variants_gpu.py.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "launch/sm90_jit.hpp"
#include "temp_dir.hpp"
#include "tuner/db/json.hpp"
#include "tuner/measure/measurer.hpp"
#include "tuner/variants/candidate.hpp"
#include "tuner/variants/source_rules.hpp"

namespace hgemm {
namespace {

namespace fs = std::filesystem;

constexpr const char* kConfig = "sm90_ws_128x128x64_s4_c1x1_w2_m8_tma_sk1_f32_tn";

std::string stock() {
  const jit::EmbeddedFile* f = jit::find_embedded(variants::kFamilyHeader);
  EXPECT_NE(f, nullptr);
  return f ? std::string(f->text) : std::string();
}

// The stock header with `insert` placed after the first occurrence of `anchor`.
std::string with(const std::string& anchor, const std::string& insert) {
  std::string text = stock();
  const size_t at = text.find(anchor);
  EXPECT_NE(at, std::string::npos) << "anchor not in the family header: " << anchor;
  if (at != std::string::npos) text.insert(at + anchor.size(), insert);
  return text;
}

const std::string kNamespace = "namespace hgemm::sm90 {\n";
const std::string kKernelBody = "  if (wg_idx == 0) {\n";  // the split into roles

variants::RulesReport rules(const std::string& source) {
  return variants::check_source(source, variants::kFamilyHeader, stock());
}

int line_of(const std::string& text, const std::string& needle) {
  const size_t at = text.find(needle);
  return at == std::string::npos ? -1 : 1 + int(std::count(text.begin(), text.begin() + at, '\n'));
}

// The source is refused by `rule` at the line where `marker` sits (0: the whole file).
void expect_refused(const std::string& source, const std::string& rule, const std::string& marker) {
  const variants::RulesReport r = rules(source);
  const int line = marker.empty() ? 0 : line_of(source, marker);
  bool found = false;
  for (const variants::Violation& v : r.violations)
    found = found || (v.rule == rule && v.line == line);
  EXPECT_TRUE(found) << "expected " << rule << " at line " << line << "; got: " << r.summary();
}

TEST(SourceRules, TheFamilyHeaderPasses) {
  const variants::RulesReport r = rules(stock());
  EXPECT_TRUE(r.passed()) << r.summary();
  EXPECT_EQ(r.summary(), "passed");
}

TEST(SourceRules, EachRuleRefusesWhatItNames) {
  expect_refused(with(kKernelBody, "  asm volatile(\"trap;\");\n"), "asm", "asm volatile");
  expect_refused(with(kKernelBody, "  __asm__(\"exit;\");\n"), "asm", "__asm__");
  expect_refused(with("#include <cuda_fp16.h>\n", "#include <cublas_v2.h>\n"), "include",
                 "#include <cublas_v2.h>");
  expect_refused(with("#include <cuda_fp16.h>\n", "#include \"launch/sm90_launch.hpp\"\n"),
                 "include", "launch/sm90_launch.hpp");
  expect_refused(with("#include <cuda_fp16.h>\n", "#include \"kernels/sm90/sm90_ws.cuh\"\n"),
                 "include", "#include \"kernels/sm90/sm90_ws.cuh\"");
  expect_refused(with("#include <cuda_fp16.h>\n", "#include HEADER\n"), "include",
                 "#include HEADER");
  expect_refused(
      with(kKernelBody, "  if (threadIdx.x == 0) sm90_ws_gemm_kernel<Traits><<<1, 1>>>(params);\n"),
      "streams", "<<<1, 1>>>");
  expect_refused(with(kKernelBody, "  cudaStream_t s; cudaStreamCreate(&s);\n"), "streams",
                 "cudaStreamCreate");
  expect_refused(with(kKernelBody, "  void* p; cudaMalloc(&p, 16);\n"), "host-api", "cudaMalloc");
  expect_refused(with(kKernelBody, "  cuCtxSynchronize();\n"), "host-api", "cuCtxSynchronize");
  expect_refused(with(kKernelBody, "  std::thread t;\n"), "threads", "std::thread");
  expect_refused(with(kKernelBody, "  pthread_create(0, 0, 0, 0);\n"), "threads", "pthread_create");
  expect_refused(with(kKernelBody, "  cublasHgemm(0);\n"), "libraries", "cublasHgemm");
  expect_refused(with(kKernelBody, "  dlopen(\"libcublas.so\", 0);\n"), "libraries", "dlopen");
  expect_refused(with(kKernelBody, "  FILE* f = fopen(\"/tmp/x\", \"w\");\n"), "files", "FILE*");
  expect_refused(with(kKernelBody, "  std::ofstream out;\n"), "files", "std::ofstream");
  expect_refused(with(kKernelBody, "  getenv(\"HOME\");\n"), "files", "getenv");
  expect_refused(with(kKernelBody, "  int* p = new int[4];\n"), "heap", "new int");
  expect_refused(with(kKernelBody, "  void* q = malloc(64); free(q);\n"), "heap", "malloc");
  expect_refused(with(kKernelBody, "  atomicAdd(params.partial, 1.0f);\n"), "atomics", "atomicAdd");
  expect_refused(with(kNamespace, "__device__ const void* g_last_a;\n"), "global-state",
                 "__device__ const void* g_last_a");
  expect_refused(with(kNamespace, "int g_calls = 0;\n"), "global-state", "int g_calls");
  expect_refused(with(kNamespace, "__managed__ int g_m;\n"), "global-state", "__managed__");
  expect_refused(with(kNamespace, "__constant__ float g_c[4];\n"), "global-state", "__constant__");
  expect_refused(with(kNamespace, "extern int g_elsewhere;\n"), "global-state", "extern int");
  expect_refused(with(kNamespace, "template <class T> __device__ T g_templated;\n"),
                 "global-state", "template <class T> __device__ T g_templated");
  expect_refused(with(kNamespace, "struct Cache { int n; } g_cache;\n"), "global-state",
                 "struct Cache");
  expect_refused(with(kKernelBody, "  static int calls = 0;\n  ++calls;\n"), "static-state",
                 "static int calls");
  expect_refused(with(kNamespace, "int host_helper() { return 1; }\n"), "host-code",
                 "int host_helper");
  expect_refused(with(kNamespace, "__host__ __device__ int both() { return 1; }\n"),
                 "host-code", "__host__ __device__ int both");
  expect_refused(with(kNamespace, "void declared_on_the_host();\n"), "host-code",
                 "void declared_on_the_host");
  expect_refused(with(kNamespace, "#define NAME(a, b) a##b\n"), "preprocessor", "#define NAME");
  expect_refused(with(kNamespace, "#pragma GCC optimize(\"O0\")\n"), "preprocessor",
                 "#pragma GCC");
  expect_refused(with(kNamespace, "#line 1 \"elsewhere.cu\"\n"), "preprocessor", "#line 1");
  // A macro in force when the library's headers are included would rewrite them.
  expect_refused(with("#include <cuda_fp16.h>\n", "#define volatile\n"), "preprocessor",
                 "#define volatile");
  expect_refused(with("#include <cuda_fp16.h>\n", "#undef __CUDA_ARCH__\n"), "preprocessor",
                 "#undef __CUDA_ARCH__");
  expect_refused(with(kKernelBody, "  _Pragma(\"unroll\")\n"), "preprocessor", "_Pragma");
  expect_refused(with(kKernelBody, "  \\u0061sm(\"trap;\");\n"), "encoding", "\\u0061sm");
  expect_refused(with(kKernelBody, "  int caf\xc3\xa9 = 0;\n"), "encoding", "caf\xc3\xa9");
  expect_refused(with(kKernelBody, "  const char* r = R\"(asm)\";\n"), "encoding", "R\"(asm)\"");
}

TEST(SourceRules, InterfaceIsTheFamilys) {
  std::string params = stock();
  params.replace(params.find("  int num_splits;"), 17, "  long num_splits;");
  expect_refused(params, "interface", "  long num_splits;");
  std::string renamed = stock();
  for (size_t at; (at = renamed.find("sm90_ws_gemm_kernel")) != std::string::npos;)
    renamed.replace(at, 19, "another_kernel");
  expect_refused(renamed, "interface", "");
  std::string moved = stock();
  moved.replace(moved.find(kNamespace), kNamespace.size(), "namespace hgemm::other {\n");
  expect_refused(moved, "interface", "");
}

TEST(SourceRules, WhatIsNotCodeIsNotJudged) {
  // Comments and literals may say anything; constants, deleted functions, extern __shared__,
  // `static constexpr`, device helpers and a macro after the includes are code the family itself
  // writes or could.
  const std::string source = with(
      kNamespace,
      "// asm cudaMalloc fopen std::thread cublasCreate atomicAdd __device__ int g;\n"
      "/* static int calls; <<< >>> */\n"
      "constexpr int kAllowedConstant = 3;\n"
      "#define HGEMM_TEST_TWICE(x) (2 * (x))\n"
      "struct NoCopy { NoCopy(const NoCopy&) = delete; };\n"
      "__device__ __forceinline__ int helper(int x) {\n"
      "  static constexpr int kScale = 2;\n"
      "  printf(\"fopen asm %d\\n\", x);\n"
      "  return x * kScale;\n"
      "}\n");
  const variants::RulesReport r = rules(source);
  EXPECT_TRUE(r.passed()) << r.summary();
}

TEST(SourceRules, SplicedLinesAndSizes) {
  // A backslash-newline joins lines before anything else, as in the compiler.
  const std::string spliced = with(kKernelBody, "  as\\\nm volatile(\"trap;\");\n");
  const variants::RulesReport r = rules(spliced);
  ASSERT_FALSE(r.passed());
  EXPECT_EQ(r.violations.front().rule, "asm") << r.summary();
  EXPECT_EQ(r.violations.front().line, line_of(spliced, "  as\\"));
  const std::string huge(variants::kMaxBytes + 1, ' ');
  expect_refused(huge, "size", "");
  expect_refused(std::string(variants::kMaxLines + 1, '\n'), "size", "");
  expect_refused(with(kKernelBody, "  /* never closed\n"), "encoding", "/* never closed");
  EXPECT_FALSE(rules("").passed());
}

TEST(SourceRules, OnlyTheSm90HeaderCanBeReplaced) {
  const variants::RulesReport r =
      variants::check_source(stock(), "kernels/sm80/sm80_mma.cuh", stock());
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].rule, "interface");
}

TEST(LinesChanged, CountsInsertionsAndDeletions) {
  EXPECT_EQ(variants::lines_changed("a\nb\nc\n", "a\nb\nc\n"), 0);
  EXPECT_EQ(variants::lines_changed("a\nb\nc\n", "a\nx\nc\n"), 2);
  EXPECT_EQ(variants::lines_changed("a\nb\nc\n", "a\nb\nnew\nc\n"), 1);
  EXPECT_EQ(variants::lines_changed("a\nb\nc\n", "a\nc\n"), 1);
  EXPECT_EQ(variants::lines_changed("", "a\nb\n"), 2);
  EXPECT_EQ(variants::lines_changed(stock(), stock()), 0);
  EXPECT_EQ(variants::lines_changed(stock(), with(kNamespace, "// one more line\n")), 1);
}

TEST(SourceReward, PaperFormWithTheSizeTerm) {
  const tuner::SourceRewardWeights w;
  EXPECT_DOUBLE_EQ(tuner::source_reward(1.2, 0.5, 100, w), 1.2 - w.alpha * 0.5 - w.beta * 0.1);
  // The size term is capped at 1000 lines, the error term at 1; a NaN error counts as the worst.
  EXPECT_DOUBLE_EQ(tuner::source_reward(1.0, 0.0, 5000, w), 1.0 - w.beta);
  EXPECT_DOUBLE_EQ(tuner::source_reward(1.0, 7.0, 0, w), 1.0 - w.alpha);
  EXPECT_DOUBLE_EQ(tuner::source_reward(1.0, std::nan(""), 0, w), 1.0 - w.alpha);
  EXPECT_LT(tuner::source_reward(1.1, 0.1, 900, w), tuner::source_reward(1.1, 0.1, 10, w));
  EXPECT_DOUBLE_EQ(tuner::paper_reward(2.0, 0.5, 0.25, 0.1, 0.2), 2.0 - 0.05 - 0.05);
}

TEST(TopLevelJson, SkipsNestedValuesAcrossLines) {
  const auto o = tuner::json::parse_top_level(
      "{\n \"verdict\": \"accepted\",\n \"shapes\": [{\"a\": \"]}\"}, [1, 2]],\n"
      " \"rules\": {\"passed\": true},\n \"reward\": 1.25,\n \"model\": null\n}\n");
  EXPECT_EQ(o.string("verdict").value_or(""), "accepted");
  EXPECT_DOUBLE_EQ(o.number("reward").value_or(0), 1.25);
  EXPECT_EQ(o.find("shapes"), nullptr);
  EXPECT_EQ(o.find("rules"), nullptr);
  EXPECT_THROW(tuner::json::parse_top_level("{\"a\": [1, 2}"), tuner::json::ParseError);
  EXPECT_THROW(tuner::json::parse_top_level("{\"a\": [1, 2"), tuner::json::ParseError);
  // The one-line reader keeps refusing what it never accepted.
  EXPECT_THROW(tuner::json::parse("{\"a\": [1]}"), tuner::json::ParseError);
}

TEST(JitOverride, KeyBuildAndLimits) {
  TempDir dir("hgemm-variants");
  const KernelConfig config = KernelConfig::parse(kConfig).value();
  jit::Options stock_options = jit::Options::from_env();
  stock_options.cache_dir = dir.path();
  jit::Options rewrite = stock_options;
  rewrite.header_override = jit::HeaderOverride{std::string(variants::kFamilyHeader),
                                                with(kNamespace, "// a rewrite\n")};
  const jit::CacheKey stock_key = jit::cache_key(config, stock_options);
  const jit::CacheKey rewrite_key = jit::cache_key(config, rewrite);
  EXPECT_NE(stock_key.hex, rewrite_key.hex);
  EXPECT_NE(rewrite_key.material.find("// a rewrite"), std::string::npos);
  EXPECT_EQ(rewrite_key.hex, jit::cache_key(config, rewrite).hex);

  const jit::Artifact built = jit::build({config}, rewrite).front();
  ASSERT_TRUE(built.status.ok()) << built.status.message;
  EXPECT_FALSE(built.cached);
  EXPECT_EQ(built.key, rewrite_key.hex);
  EXPECT_EQ(slurp(built.cubin_path).substr(0, 4), "\x7f" "ELF");
  EXPECT_TRUE(jit::build({config}, rewrite).front().cached);
  // The rewrite's cubin is never the stock one's.
  EXPECT_FALSE(fs::exists(dir.file(stock_key.hex + ".cubin")));

  jit::Options nowhere = rewrite;
  nowhere.header_override->path = "kernels/sm90/not_there.cuh";
  const jit::Artifact missing = jit::build({config}, nowhere).front();
  EXPECT_FALSE(missing.status.ok());
  EXPECT_NE(missing.status.message.find("not an embedded header"), std::string::npos)
      << missing.status.message;

  jit::Options tight = rewrite;
  tight.header_override->text += "// another text: not in the cache\n";
  tight.compile_memory_mib = 40;
  const jit::Artifact starved = jit::build({config}, tight).front();
  EXPECT_FALSE(starved.status.ok());
  EXPECT_NE(starved.status.message.find("JIT compilation failed"), std::string::npos)
      << starved.status.message;
  tight.compile_memory_mib = 0;
  tight.compile_seconds = 0.2;
  const jit::Artifact slow = jit::build({config}, tight).front();
  EXPECT_FALSE(slow.status.ok());
  EXPECT_NE(slow.status.message.find("killed at the compile time limit of 0.2 s"),
            std::string::npos)
      << slow.status.message;
  EXPECT_LT(slow.seconds, 5.0);
}

// nvcc gets a process group of its own only when it is timed (so that the whole group can be
// killed at the limit); an untimed build stays in the caller's group, where a Ctrl-C of the
// caller reaches it. A wrapper records the group each compiler run starts in.
TEST(JitOverride, OnlyATimedCompilerGetsAGroupOfItsOwn) {
  TempDir dir("hgemm-variants");
  const KernelConfig config = KernelConfig::parse(kConfig).value();
  jit::Options options = jit::Options::from_env();
  const std::string groups = dir.file("groups");
  const std::string wrapper = dir.file("nvcc");
  write(wrapper, "#!/bin/sh\ncut -d' ' -f5 /proc/$$/stat >> '" + groups + "'\nexec '" +
                     options.nvcc + "' \"$@\"\n");
  fs::permissions(wrapper, fs::perms::owner_exec, fs::perm_options::add);
  options.nvcc = wrapper;
  options.cache_dir = dir.file("cache");
  options.header_override = jit::HeaderOverride{std::string(variants::kFamilyHeader),
                                                with(kNamespace, "// untimed\n")};
  const std::string own = std::to_string(getpgrp());
  ASSERT_TRUE(jit::build({config}, options).front().status.ok());
  std::istringstream untimed(slurp(groups));
  int runs = 0;
  for (std::string line; std::getline(untimed, line); ++runs) EXPECT_EQ(line, own);
  EXPECT_GE(runs, 1);

  write(groups, "");
  options.header_override->text = with(kNamespace, "// timed\n");
  options.compile_seconds = 600;
  ASSERT_TRUE(jit::build({config}, options).front().status.ok());
  std::istringstream timed(slurp(groups));
  std::string last;
  for (std::string line; std::getline(timed, line);) last = line;
  ASSERT_FALSE(last.empty());
  EXPECT_NE(last, own) << "the timed compiler ran in the caller's process group";
}

std::string write_source(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.file(name);
  write(path, text);
  return path;
}

TEST(VariantsCli, CheckAndTryUpToTheBuild) {
  TempDir dir("hgemm-variants");
  const std::string cache = " --cache " + dir.file("cache");
  const std::string good = write_source(dir, "good.cuh", with(kNamespace, "// a rewrite\n"));
  const std::string hack =
      write_source(dir, "hack.cuh", with(kNamespace, "__device__ const void* g_last_c;\n"));
  const std::string broken = write_source(
      dir, "broken.cuh", with(kKernelBody, "  int x = not_declared_anywhere;\n"));

  auto pass = run_cli("variants check --source " + good);
  EXPECT_EQ(pass.code, 0) << pass.output;
  EXPECT_NE(pass.output.find("\"passed\":true,\"lines_changed\":1"), std::string::npos)
      << pass.output;
  auto refused = run_cli("variants check --source " + hack);
  EXPECT_EQ(refused.code, 3) << refused.output;
  EXPECT_NE(refused.output.find("\"rule\":\"global-state\""), std::string::npos)
      << refused.output;

  const std::string tail = std::string(" --config ") + kConfig + cache + " --compile-only --out ";
  auto compiled = run_cli("variants try --source " + good + tail + dir.file("good"));
  EXPECT_EQ(compiled.code, 0) << compiled.output;
  EXPECT_NE(slurp(dir.file("good/record.json")).find("\"verdict\":\"compiled\""),
            std::string::npos);
  auto rejected = run_cli("variants try --source " + hack + tail + dir.file("hack"));
  EXPECT_EQ(rejected.code, 3) << rejected.output;
  const std::string rejected_record = slurp(dir.file("hack/record.json"));
  EXPECT_NE(rejected_record.find("\"verdict\":\"rejected_by_rules\""), std::string::npos);
  EXPECT_NE(rejected_record.find("\"compile\":{\"ok\":false"), std::string::npos)
      << "a rejected source must not be compiled: " << rejected_record;
  // The test-only switch lets it through to the compiler, which builds it: the rules were the
  // only thing that stopped it.
  auto bypassed = run_cli("variants try --no-source-rules --source " + hack + tail +
                          dir.file("bypassed"));
  EXPECT_EQ(bypassed.code, 0) << bypassed.output;
  auto failed = run_cli("variants try --source " + broken + tail + dir.file("broken"));
  EXPECT_EQ(failed.code, 4) << failed.output;
  EXPECT_NE(failed.output.find("not_declared_anywhere"), std::string::npos) << failed.output;
  EXPECT_NE(slurp(dir.file("broken/record.json")).find("\"verdict\":\"compile_failed\""),
            std::string::npos);

  // Past the build without a device: the pipeline cannot run, and says so.
  auto no_device = run_cli("variants try --source " + good + " --config " + kConfig + cache +
                               " --shape 256x256x256 --out " + dir.file("nodev"),
                           kNoDevice);
  EXPECT_EQ(no_device.code, 1) << no_device.output;
  EXPECT_NE(slurp(dir.file("nodev/record.json")).find("\"verdict\":\"error\""), std::string::npos);
  // A drawn recheck seed is recorded as one that --recheck-seed takes back (half of all 64-bit
  // draws would not be: the option is signed). Eight draws; each record replays its own seed.
  for (int draw = 0; draw < 8; ++draw) {
    const std::string out = dir.file("seed" + std::to_string(draw));
    run_cli("variants try --source " + good + " --config " + kConfig + cache +
                " --shape 256x256x256 --out " + out,
            kNoDevice);
    const auto record = tuner::json::parse_top_level(slurp(out + "/record.json"));
    const std::string seed = record.string("recheck_seed").value_or("");
    ASSERT_FALSE(seed.empty());
    auto replay = run_cli("variants try --source " + good + " --config " + kConfig + cache +
                              " --shape 256x256x256 --recheck-seed " + seed + " --out " + out,
                          kNoDevice);
    EXPECT_EQ(replay.code, 1) << seed << ": " << replay.output;
    EXPECT_EQ(tuner::json::parse_top_level(slurp(out + "/record.json")).string("recheck_seed"),
              seed);
  }

  EXPECT_EQ(run_cli("variants").code, 2);
  EXPECT_EQ(run_cli("variants frobnicate").code, 2);
  EXPECT_EQ(run_cli("variants try --source " + good + " --config " + kConfig).code, 2);
  EXPECT_EQ(run_cli("variants try --source " + good + " --config nope --compile-only --out " +
                    dir.file("x")).code, 2);
  EXPECT_EQ(run_cli("variants try --source " + good + " --config " + kConfig + " --out " +
                    dir.file("x")).code, 2);  // no shapes
  EXPECT_EQ(run_cli("variants check --source " + dir.file("missing.cuh")).code, 2);
  auto family = run_cli("variants family");
  EXPECT_EQ(family.code, 0);
  EXPECT_EQ(family.output, stock());
}

// A variant stored as python/hgemm/llm/rewrites.py stores one: source.cuh and a record.json
// whose top level holds the fields list and promote read.
void store(const TempDir& dir, const std::string& name, const std::string& source,
           const std::string& verdict, const std::string& hash) {
  fs::create_directories(dir.file("variants/" + name));
  write(dir.file("variants/" + name + "/source.cuh"), source);
  write(dir.file("variants/" + name + "/record.json"),
        "{\n \"verdict\": \"" + verdict + "\",\n \"config\": \"" + kConfig +
            "\",\n \"source_hash\": \"" + hash +
            "\",\n \"shapes\": [{\"shape\": \"256x256x256\", \"speedup\": 1.1}],\n"
            " \"mean_speedup\": 1.1,\n \"reward\": 1.09,\n \"model\": \"test-model\"\n}\n");
}

TEST(VariantsCli, ListAndPromote) {
  TempDir dir("hgemm-variants");
  const std::string source = with(kNamespace, "// a rewrite\n");
  store(dir, "rw_good", source, "accepted", jit::text_hash(source));
  store(dir, "rw_slow", source, "verify_failed", jit::text_hash(source));
  store(dir, "rw_edited", source, "accepted", "0123");
  const std::string hack = with(kNamespace, "__device__ int g_state;\n");
  store(dir, "rw_hack", hack, "accepted", jit::text_hash(hack));
  fs::create_directories(dir.file("root/src/kernels/sm90"));
  write(dir.file("root/src/kernels/sm90/sm90_ws.cuh"), stock());
  const std::string where = " --dir " + dir.file("variants") + " --source-root " + dir.file("root");

  auto listed = run_cli("variants list --dir " + dir.file("variants"));
  EXPECT_EQ(listed.code, 0) << listed.output;
  for (const char* s : {"rw_good", "rw_slow", "accepted", "verify_failed", "test-model", "1.1000"})
    EXPECT_NE(listed.output.find(s), std::string::npos) << s << "\n" << listed.output;
  auto as_json = run_cli("variants list --json --dir " + dir.file("variants"));
  EXPECT_NE(as_json.output.find("{\"verdict\":\"accepted\",\"config\":"), std::string::npos)
      << as_json.output;

  auto promoted = run_cli("variants promote rw_good" + where);
  EXPECT_EQ(promoted.code, 0) << promoted.output;
  EXPECT_EQ(slurp(dir.file("root/src/kernels/sm90/variants/rw_good.cuh")), source);
  const std::string list = slurp(dir.file("root/src/kernels/sm90/variants/promoted.list"));
  EXPECT_NE(list.find(std::string("\nrw_good ") + kConfig + " " + jit::text_hash(source) + "\n"),
            std::string::npos)
      << list;
  auto again = run_cli("variants promote rw_good" + where);
  EXPECT_EQ(again.code, 2) << again.output;
  EXPECT_EQ(run_cli("variants promote rw_slow" + where).code, 2);
  auto edited = run_cli("variants promote rw_edited" + where);
  EXPECT_EQ(edited.code, 2);
  EXPECT_NE(edited.output.find("is not the source its record measured"), std::string::npos)
      << edited.output;
  auto hacked = run_cli("variants promote rw_hack" + where);
  EXPECT_EQ(hacked.code, 3) << hacked.output;
  EXPECT_FALSE(fs::exists(dir.file("root/src/kernels/sm90/variants/rw_hack.cuh")));
  EXPECT_EQ(run_cli("variants promote ../escape" + where).code, 2);
  EXPECT_EQ(run_cli("variants promote rw_good --dir " + dir.file("variants") +
                    " --source-root " + dir.file("nowhere")).code, 2);
}

// The promoted variants of this tree: every row of promoted.list names a file beside it whose
// hash is the row's (the file is the source that was measured), which the library embeds and
// which passes the source rules; and no file there lacks a row.
TEST(PromotedVariants, ListFilesAndEmbeddingAgree) {
  const fs::path dir = fs::path(HGEMM_SOURCE_DIR) / "src/kernels/sm90/variants";
  std::set<std::string> rows;
  const std::string list = slurp((dir / "promoted.list").string());
  size_t start = 0;
  while (start < list.size()) {
    size_t end = list.find('\n', start);
    if (end == std::string::npos) end = list.size();
    const std::string row = list.substr(start, end - start);
    start = end + 1;
    if (row.empty() || row[0] == '#') continue;
    std::istringstream words(row);
    std::string name, config, hash;
    words >> name >> config >> hash;
    ASSERT_TRUE(KernelConfig::parse(config).has_value()) << row;
    const std::string text = slurp((dir / (name + ".cuh")).string());
    EXPECT_EQ(jit::text_hash(text), hash) << name << ": edited after promotion";
    const jit::EmbeddedFile* embedded =
        jit::find_embedded("kernels/sm90/variants/" + name + ".cuh");
    ASSERT_NE(embedded, nullptr) << name << " is not embedded: rebuild";
    EXPECT_EQ(std::string(embedded->text), text);
    EXPECT_TRUE(rules(text).passed()) << name << ": " << rules(text).summary();
    rows.insert(name);
  }
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".cuh")
        EXPECT_TRUE(rows.count(e.path().stem().string())) << e.path() << " has no row";
}

}  // namespace
}  // namespace hgemm
