// GPU test of source rewrites through the JIT's header override (src/launch/sm90_jit), the path
// every `hgemm variants try` and every promoted variant takes: the family header itself given as
// a rewrite builds a kernel whose output is bitwise the catalog's, and every promoted variant
// (src/kernels/sm90/variants/promoted.list, each file embedded in the library) builds, passes the
// verifier on the smoke and edge suites wherever its config can run them, and passes the recheck
// on fresh buffers with repeated calls. Then each promoted row as a catalog entry: compiled ahead
// of time, named by a user table, chosen by dispatch (explain says so) and run through hgemm::run
// under the verifier; a config of a rewrite that the catalog lacks, built by the JIT from the
// rewrite and verified; and a table naming a rewrite this build lacks, refused with its name.
// Besides the real list's rows, the tests' fixture catalog (promoted/promoted_fixture.hpp: the
// family header under another name, so its output must be bitwise the catalog's) runs these
// checks, so they run before any rewrite is promoted. Uses a fresh cache directory. A plain
// executable: one line per check, non-zero exit on any failure, and a failure (not a skip)
// without an sm_90 device.
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "core/device.hpp"
#include "core/file_io.hpp"
#include "core/suite.hpp"
#include "dispatch/table.hpp"
#include "hgemm/hgemm.hpp"
#include "launch/sm90_jit.hpp"
#include "launch/sm90_launch.hpp"
#include "registry/registry.hpp"
#include "tuner/variants/candidate.hpp"
#include "verify/verifier.hpp"
#include "gpu_checks.cuh"
#include "promoted_fixture.hpp"

namespace {

namespace fs = std::filesystem;
using gpu_checks::check;
using gpu_checks::fill_kernel;

constexpr const char* kStockConfig = "sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn";

struct Row {
  std::string name;
  hgemm::KernelConfig config;
  std::string text;
  std::string source;  // its SourceName: the list's NAME, or the fixture's
};

// The file's text, or "" where there is none (no promoted.list before the first promotion).
std::string slurp(const fs::path& path) { return hgemm::read_file(path.string()).value_or(""); }

std::vector<Row> rows() {
  std::vector<Row> out;
  const hgemm::jit::EmbeddedFile* stock = hgemm::jit::find_embedded(hgemm::variants::kFamilyHeader);
  check(stock != nullptr, "the family header is embedded");
  if (stock) out.push_back({"the family header", *hgemm::KernelConfig::parse(kStockConfig),
                            std::string(stock->text)});
  const fs::path dir = fs::path(HGEMM_SOURCE_DIR) / "src/kernels/sm90/variants";
  std::istringstream list(slurp(dir / "promoted.list"));
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, config, hash;
    words >> name >> config >> hash;
    const auto parsed = hgemm::KernelConfig::parse(config);
    const hgemm::jit::EmbeddedFile* f =
        hgemm::jit::find_embedded("kernels/sm90/variants/" + name + ".cuh");
    check(parsed.has_value() && f != nullptr,
          name + ": a valid config and an embedded source (rebuild after promoting)");
    if (!parsed || !f) continue;
    check(std::string(f->text) == slurp(dir / (name + ".cuh")),
          name + ": the embedded source is the file in the tree");
    out.push_back({name, *parsed, std::string(f->text), name});
  }
  std::printf("%zu promoted variant(s)\n", out.size() - 1);
  const auto fixture = hgemm::find_promoted_source(hgemm::fixture::kSource);
  check(fixture.has_value(), "the tests' fixture catalog is registered");
  if (fixture)
    out.push_back({std::string(hgemm::fixture::kSource) + " (test fixture)",
                   *hgemm::KernelConfig::parse(fixture->config), std::string(fixture->text),
                   hgemm::fixture::kSource});
  return out;
}

bool runs(const hgemm::Problem& p, const hgemm::KernelConfig& config) {
  hgemm::GemmArgs args{reinterpret_cast<void*>(256), reinterpret_cast<void*>(256),
                       reinterpret_cast<void*>(256), p.m, p.n, p.k};
  return hgemm::sm90_can_implement(p, config, args, hgemm::current_device()).ok();
}

// The family header as a rewrite: the same kernel as the catalog's, bit for bit.
void test_stock_matches_catalog(const Row& row, const hgemm::Sm90Kernel* kernel) {
  const hgemm::KernelInstance* aot = hgemm::registry::find(row.config);
  check(aot != nullptr, row.config.name() + " is in the catalog");
  if (!aot) return;
  const int64_t m = 1000, n = 1000, k = 1000;
  __half *a, *b, *c1, *c2;
  CUDA_OK(cudaMalloc(&a, m * k * 2));
  CUDA_OK(cudaMalloc(&b, k * n * 2));
  CUDA_OK(cudaMalloc(&c1, m * n * 2));
  CUDA_OK(cudaMalloc(&c2, m * n * 2));
  fill_kernel<<<256, 256>>>(a, m * k, 5u);
  fill_kernel<<<256, 256>>>(b, k * n, 7u);
  CUDA_OK(cudaMemset(c1, 0x11, m * n * 2));
  CUDA_OK(cudaMemset(c2, 0x22, m * n * 2));
  const hgemm::Problem p{m, n, k, row.config.layout, row.config.accum, row.config.dtype};
  aot->launch(row.config, hgemm::GemmArgs{a, b, c1, m, n, k, nullptr});
  hgemm::variants::rewrite_gemm(row.config, kernel)(p, a, b, c2, nullptr);
  CUDA_OK(cudaDeviceSynchronize());
  check(gpu_checks::same_bits(c1, c2, m, n),
        "the family header built through the override is bitwise the catalog kernel");
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c1),
                  static_cast<void*>(c2)})
    CUDA_OK(cudaFree(p));
}

void test_row(const Row& row, const std::string& cache) {
  hgemm::jit::Options options = hgemm::jit::Options::from_env();
  options.cache_dir = cache;
  options.header_override =
      hgemm::jit::HeaderOverride{std::string(hgemm::variants::kFamilyHeader), row.text};
  options.compile_seconds = 600;
  const hgemm::jit::Artifact artifact = hgemm::jit::build({row.config}, options).front();
  check(artifact.status.ok(), row.name + ": builds (" + artifact.status.message + ")");
  std::string why;
  const hgemm::Sm90Kernel* kernel = hgemm::jit::load(artifact, &why);
  check(kernel != nullptr, row.name + ": loads" + (kernel ? "" : ": " + why));
  if (!kernel) return;
  if (row.name == "the family header") test_stock_matches_catalog(row, kernel);

  const hgemm::verify::GemmFn fn = hgemm::variants::rewrite_gemm(row.config, kernel);
  hgemm::verify::Verifier verifier;
  int verified = 0;
  for (const char* suite : {"smoke", "edge"})
    for (const hgemm::Shape& s : hgemm::load_suite(suite)) {
      const hgemm::Problem p{s.m, s.n, s.k, row.config.layout, row.config.accum,
                             row.config.dtype};
      if (!runs(p, row.config)) continue;
      const hgemm::verify::Report r = verifier.check(p, fn);
      check(r.passed(), row.name + " " + p.name() + ": " + r.summary());
      ++verified;
    }
  check(verified >= 10, row.name + ": verified on " + std::to_string(verified) + " shapes");

  hgemm::verify::Options fresh;
  fresh.seed = 0xfee1;
  for (const hgemm::Problem& p :
       {hgemm::Problem{2048, 2048, 2048, row.config.layout, row.config.accum, row.config.dtype},
        hgemm::Problem{1000, 1000, 1000, row.config.layout, row.config.accum,
                       row.config.dtype}}) {
    std::string mismatch;
    const hgemm::verify::Report r =
        verifier.check(p, hgemm::variants::fresh_buffer_calls(fn, &mismatch), fresh);
    check(r.passed() && mismatch.empty(),
          row.name + " " + p.name() + ": the recheck (fresh buffers, each call twice): " +
              r.summary() + (mismatch.empty() ? "" : "; " + mismatch));
  }
}

hgemm::KernelConfig with_source(hgemm::KernelConfig config, const std::string& source) {
  config.source = *hgemm::SourceName::from(source);
  return config;
}

// A user table naming `config` at each of `problems`, on this device.
void use_table(const hgemm::KernelConfig& config, const std::vector<hgemm::Problem>& problems,
               const std::string& path) {
  hgemm::write_file_atomically(
      path, hgemm::dispatch::format_table(
                hgemm::fixture::table_naming(config, problems, hgemm::current_device())));
  hgemm::set_user_table(path);
}

const hgemm::verify::GemmFn kDispatched = [](const hgemm::Problem& p, const void* a,
                                             const void* b, void* c, cudaStream_t stream) {
  hgemm::run(p, a, b, c, stream);
};

// Output of the dispatched call against the family header's kernel of the same tile.
bool same_as_family_header(const hgemm::Problem& p, const hgemm::KernelConfig& stock) {
  __half *a, *b, *c1, *c2;
  CUDA_OK(cudaMalloc(&a, p.m * p.k * 2));
  CUDA_OK(cudaMalloc(&b, p.k * p.n * 2));
  CUDA_OK(cudaMalloc(&c1, p.m * p.n * 2));
  CUDA_OK(cudaMalloc(&c2, p.m * p.n * 2));
  fill_kernel<<<256, 256>>>(a, p.m * p.k, 11u);
  fill_kernel<<<256, 256>>>(b, p.k * p.n, 13u);
  CUDA_OK(cudaMemset(c1, 0x11, p.m * p.n * 2));
  CUDA_OK(cudaMemset(c2, 0x22, p.m * p.n * 2));
  hgemm::run(p, stock, a, b, c1, nullptr);
  hgemm::run(p, a, b, c2, nullptr);
  CUDA_OK(cudaDeviceSynchronize());
  const bool same = gpu_checks::same_bits(c1, c2, p.m, p.n);
  for (void* q : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c1),
                  static_cast<void*>(c2)})
    CUDA_OK(cudaFree(q));
  return same;
}

// The row as a catalog entry: compiled ahead of time, chosen by dispatch from a user table and
// verified through hgemm::run.
void test_dispatch(const Row& row, const std::string& dir) {
  const hgemm::KernelConfig config = with_source(row.config, row.source);
  check(hgemm::registry::compiled_ahead(config), config.name() + " is in the catalog");
  std::vector<hgemm::Problem> problems;
  for (const char* suite : {"smoke", "edge"})
    for (const hgemm::Shape& s : hgemm::load_suite(suite)) {
      const hgemm::Problem p{s.m, s.n, s.k, config.layout, config.accum, config.dtype};
      if (runs(p, config)) problems.push_back(p);
    }
  problems.push_back({2048, 2048, 2048, config.layout, config.accum, config.dtype});
  use_table(config, problems, dir + "/promoted.table");
  hgemm::verify::Verifier verifier;
  int verified = 0;
  for (const hgemm::Problem& p : problems) {
    const hgemm::Explanation e = hgemm::explain(p);
    check(e.config == config && e.rule == "user table",
          row.name + " " + p.name() + ": dispatch picks " + e.config.name() + " (" + e.rule +
              ": " + e.reason + ")");
    if (e.config != config) continue;
    const hgemm::verify::Report r = verifier.check(p, kDispatched);
    check(r.passed(), row.name + " " + p.name() + " through dispatch: " + r.summary());
    ++verified;
  }
  check(verified >= 10, row.name + ": verified through dispatch on " + std::to_string(verified) +
                            " shapes");
  if (row.source == hgemm::fixture::kSource)
    check(same_as_family_header(problems.back(), row.config),
          row.name + ": the family header's copy is bitwise the family header's kernel");
  hgemm::set_user_table("");
}

// A config of the fixture's rewrite that the catalog lacks: the JIT builds it from the rewrite's
// text (the cache is `cache`), dispatch runs it from a table, and it passes the verifier.
void test_jit_outside_catalog(const std::string& cache) {
  const hgemm::KernelConfig config = *hgemm::KernelConfig::parse(hgemm::fixture::kOutsideCatalog);
  check(!hgemm::registry::compiled_ahead(config), config.name() + " is not in the catalog");
  setenv("HGEMM_JIT_CACHE", cache.c_str(), 1);
  hgemm::jit::set_enabled(true);
  std::string why;
  const hgemm::KernelInstance* inst = hgemm::jit::instance(config, &why);
  check(inst != nullptr, config.name() + ": the JIT builds and loads it" +
                             (inst ? "" : ": " + why));
  if (inst) {
    check(inst->config == config.instance(), "the JIT's instance is " + config.name());
    const hgemm::Problem p{1000, 1000, 1000, config.layout, config.accum, config.dtype};
    use_table(config, {p}, cache + "/jit.table");
    const hgemm::Explanation e = hgemm::explain(p);
    check(e.config == config, "dispatch picks the JIT's " + config.name() + ": " + e.reason);
    hgemm::verify::Verifier verifier;
    const hgemm::verify::Report r = verifier.check(p, kDispatched);
    check(r.passed(), config.name() + " through the JIT and dispatch: " + r.summary());
    check(same_as_family_header(p, with_source(config, "").instance()),
          config.name() + ": bitwise the family header's kernel of its tile");
    hgemm::set_user_table("");
  }
  hgemm::jit::set_enabled(false);
}

// A table from a build that has a rewrite this one lacks, named by $HGEMM_DB: dispatch goes on
// without it and says so.
void test_foreign_rewrite(const std::string& dir) {
  const hgemm::KernelConfig foreign =
      with_source(*hgemm::KernelConfig::parse(hgemm::fixture::kConfig), "not_in_this_build");
  const hgemm::Problem p{2048, 2048, 2048};
  use_table(foreign, {p}, dir + "/foreign.table");
  hgemm::set_user_table(dir + "/none.table");
  setenv("HGEMM_DB", (dir + "/foreign.table").c_str(), 1);
  hgemm::reload_tables();
  const hgemm::Explanation e = hgemm::explain(p);
  check(e.config.source.empty() && e.reason.find("no promoted source 'not_in_this_build'") !=
                                       std::string::npos,
        "a table's unknown rewrite falls back with its name: " + e.config.name() + " (" + e.rule +
            ": " + e.reason + ")");
  const hgemm::verify::Report r = hgemm::verify::Verifier().check(p, kDispatched);
  check(r.passed(), "the fallback runs: " + r.summary());
  unsetenv("HGEMM_DB");
  hgemm::set_user_table("");
}

}  // namespace

int main() {
  hgemm::fixture::register_catalog();
  if (!gpu_checks::device_present("source rewrites run on the GPU")) return 1;
  if (!gpu_checks::device_is_sm90("the rewritten header is the sm90 family's")) return 1;
  char pattern[] = "/tmp/hgemm-variants-gpu-XXXXXX";
  const char* cache = mkdtemp(pattern);
  if (!cache) {
    std::printf("FAIL cannot create a cache directory\n");
    return 1;
  }
  for (const Row& row : rows()) {
    test_row(row, cache);
    if (row.name != "the family header") test_dispatch(row, cache);
  }
  test_jit_outside_catalog(cache);
  test_foreign_rewrite(cache);
  std::error_code ec;
  fs::remove_all(cache, ec);
  return gpu_checks::summary();
}
