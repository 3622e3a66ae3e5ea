#include "launch/sm90_jit.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <cuda_runtime_api.h>

#include "core/error.hpp"
#include "core/config_hash.hpp"
#include "core/env.hpp"
#include "core/file_io.hpp"
#include "core/promoted.hpp"
#include "launch/sm90_launch.hpp"

extern char** environ;

#ifndef HGEMM_NVCC_DEFAULT
#define HGEMM_NVCC_DEFAULT "nvcc"
#endif

namespace hgemm::jit {
namespace fs = std::filesystem;
namespace {

std::atomic<int> g_enabled{-1};  // -1: not decided yet, read HGEMM_JIT on first use

uint64_t fnv1a(std::string_view text, uint64_t h = 0xcbf29ce484222325ull) {
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string read_or_empty(const fs::path& path) { return read_file(path.string()).value_or(""); }

// Runs argv[0] (looked up on PATH when it has no slash) with stdout and stderr to `log`. Returns
// the exit status, or -1 with *why set when it could not start, was killed, or outlived `seconds`
// (> 0), after which its whole process group (nvcc's cicc and ptxas too) is killed. Only a timed
// run gets a group of its own: an untimed one stays in the caller's, so that a Ctrl-C of
// `hgemm jit build` or `hgemm tune --jit` reaches the compiler too rather than orphaning it.
// `memory_mib` > 0 runs it under that address-space limit, set by a shell that then execs it,
// since posix_spawn cannot set resource limits.
int run_process(std::vector<std::string> argv, const fs::path& log, std::string* why,
                double seconds = 0, int64_t memory_mib = 0) {
  const std::string program = argv[0];
  if (memory_mib > 0)
    argv.insert(argv.begin(), {"/bin/sh", "-c", "ulimit -v \"$0\" && exec \"$@\"",
                               std::to_string(memory_mib * 1024)});
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log_path = log.string();
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (seconds > 0) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    *why = "cannot run " + program + ": " + std::strerror(rc) +
           " (set HGEMM_NVCC to the nvcc to use)";
    return -1;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  bool killed = false;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, seconds > 0 && !killed ? WNOHANG : 0);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      *why = "waitpid failed for " + program;
      return -1;
    }
    if (done == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        ::kill(-pid, SIGKILL);
        killed = true;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
  if (killed) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", seconds);
    *why = program + " was killed at the compile time limit of " + limit + " s";
    return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  *why = program + " was killed by signal " + std::to_string(WTERMSIG(status)) +
         (memory_mib > 0 ? " (memory limit " + std::to_string(memory_mib) + " MiB)" : "");
  return -1;
}

std::string tail(const std::string& text, size_t n) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

const char* enum_name(Epilogue e) { return e == Epilogue::kTmaStore ? "kTmaStore" : "kDirect"; }
const char* enum_name(Accum a) { return a == Accum::kF16 ? "kF16" : "kF32"; }
const char* enum_name(Layout l) { return l == Layout::kNN ? "kNN" : "kTN"; }
const char* enum_name(Schedule s) {
  return s == Schedule::kPingPong ? "kPingPong" : "kCooperative";
}

fs::path cache_root(const Options& options) { return fs::path(options.cache_dir); }

// The compiler's identity: its `--version` output, once per compiler path and process.
Status compiler_fingerprint(const Options& options, std::string* out) {
  static std::mutex mu;
  static std::map<std::string, std::string> known;
  std::lock_guard lock(mu);
  if (auto it = known.find(options.nvcc); it != known.end()) {
    *out = it->second;
    return Status::success();
  }
  std::error_code ec;
  fs::create_directories(cache_root(options) / "tmp", ec);
  if (ec)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, "cannot create the JIT cache directory " +
                                                          options.cache_dir + ": " + ec.message());
  const fs::path log = cache_root(options) / "tmp" / ("version-" + unique_suffix());
  std::string why;
  const int rc = run_process({options.nvcc, "--version"}, log, &why);
  std::string text = read_or_empty(log);
  fs::remove(log, ec);
  if (rc != 0)
    return Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                           why.empty() ? options.nvcc + " --version failed: " + tail(text, 400)
                                       : why);
  known[options.nvcc] = text;
  *out = text;
  return Status::success();
}

// The options a config builds with: a promoted source's config compiles its rewrite in place of
// the family header (the rewrite's text is then key material, like any override's).
Options for_config(const KernelConfig& config, const Options& options) {
  if (config.source.empty()) return options;
  const auto row = find_promoted_source(config.source.view());
  if (!row) {
    const Status s = config.validate();
    HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                s.ok() ? config.name() + ": no promoted source" : s.message);
  }
  if (options.header_override)
    HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
                config.name() + " is built from its promoted source, which another header "
                "override (" + options.header_override->path + ") cannot replace");
  Options o = options;
  o.header_override = HeaderOverride{std::string(kSm90FamilyHeader), std::string(row->text)};
  return o;
}

// cache_key with the options for_config has already resolved for `config`.
CacheKey key_with(const KernelConfig& config, const Options& options);

// The headers a build compiles against: the embedded set, with the override's file replaced.
std::vector<EmbeddedFile> headers_for(const Options& options) {
  std::vector<EmbeddedFile> files = embedded_headers();
  if (!options.header_override) return files;
  const HeaderOverride& o = *options.header_override;
  for (EmbeddedFile& f : files)
    if (f.path == o.path) {
      f.text = o.text;
      return files;
    }
  HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED,
              "the header override names '" + o.path + "', which is not an embedded header");
}

uint64_t hash_headers(const std::vector<EmbeddedFile>& files) {
  uint64_t v = fnv1a("hgemm-jit-headers");
  for (const EmbeddedFile& f : files) v = fnv1a(f.text, fnv1a(f.path, v));
  return v;
}

uint64_t headers_hash(const Options& options) {
  if (options.header_override) return hash_headers(headers_for(options));
  static const uint64_t stock = hash_headers(embedded_headers());
  return stock;
}

// The headers, written once per header set under the cache (by rename of a whole directory, so
// a half-written tree is never used).
Status include_dir(const Options& options, fs::path* out) {
  const fs::path dir = cache_root(options) / ("include-" + hex64(headers_hash(options)));
  *out = dir;
  std::error_code ec;
  if (fs::exists(dir / ".complete", ec)) return Status::success();
  const fs::path tmp = dir.string() + ".tmp-" + unique_suffix();
  fs::remove_all(tmp, ec);
  for (const EmbeddedFile& f : headers_for(options)) {
    const fs::path p = tmp / fs::path(std::string(f.path));
    fs::create_directories(p.parent_path(), ec);
    std::ofstream o(p, std::ios::binary);
    o.write(f.text.data(), std::streamsize(f.text.size()));
    if (!o.flush())
      return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, "cannot write " + p.string());
  }
  std::ofstream(tmp / ".complete") << "ok\n";
  fs::rename(tmp, dir, ec);
  if (ec) {  // another builder got there first
    fs::remove_all(tmp, ec);
    if (!fs::exists(dir / ".complete", ec))
      return Status::failure(HGEMM_ERROR_NOT_SUPPORTED, "cannot create " + dir.string());
  }
  return Status::success();
}

Artifact build_one(const KernelConfig& config, const Options& caller_options) {
  Artifact a;
  a.config = config.instance();
  const auto t0 = std::chrono::steady_clock::now();
  CacheKey key;
  Options options;
  try {
    options = for_config(a.config, caller_options);
    key = key_with(a.config, options);
  } catch (const Error& e) {
    a.status = Status::failure(e.status(), e.message());
    return a;
  }
  a.key = key.hex;
  const fs::path root = cache_root(options);
  const fs::path cubin = root / (key.hex + ".cubin");
  const fs::path sidecar = root / (key.hex + ".key");
  a.cubin_path = cubin.string();
  std::error_code ec;
  if (fs::exists(cubin, ec) && read_or_empty(sidecar) == key.material) {
    a.cached = true;
    a.status = Status::success();
    return a;
  }
  fs::path includes;
  if (Status s = include_dir(options, &includes); !s.ok()) {
    a.status = s;
    return a;
  }
  const std::string stem = key.hex + "-" + unique_suffix();
  const fs::path src = root / "tmp" / (stem + ".cu");
  const fs::path out = root / "tmp" / (stem + ".cubin");
  const fs::path log = root / (key.hex + ".log");
  // The compiler's identity is known once per process, so its probe may have made another
  // cache's tmp/ and not this one's.
  fs::create_directories(root / "tmp", ec);
  {
    std::ofstream s(src, std::ios::binary | std::ios::trunc);
    s << sm90_source(a.config);
    if (!s.flush()) {
      a.status = Status::failure(HGEMM_ERROR_NOT_SUPPORTED, "cannot write " + src.string());
      return a;
    }
  }
  std::vector<std::string> argv{options.nvcc};
  for (const auto& f : compile_flags()) argv.push_back(f);
  argv.insert(argv.end(), {"-I" + includes.string(), "-cubin", "-o", out.string(), src.string()});
  std::string why;
  const int rc =
      run_process(argv, log, &why, options.compile_seconds, options.compile_memory_mib);
  fs::remove(src, ec);
  a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (rc != 0) {
    fs::remove(out, ec);
    a.status = Status::failure(
        HGEMM_ERROR_NOT_SUPPORTED,
        a.config.name() + ": JIT compilation failed" +
            (why.empty() ? " (exit " + std::to_string(rc) + ", log " + log.string() +
                               "): " + tail(read_or_empty(log), 1500)
                         : ": " + why + "; output: " + tail(read_or_empty(log), 600)));
    return a;
  }
  // The sidecar lands first: a cubin under its final name always has its key material.
  try {
    write_file_atomically(sidecar.string(), key.material);
  } catch (const Error& e) {
    fs::remove(out, ec);
    a.status = Status::failure(HGEMM_ERROR_NOT_SUPPORTED, e.message());
    return a;
  }
  fs::rename(out, cubin, ec);
  if (ec) {
    a.status = Status::failure(HGEMM_ERROR_NOT_SUPPORTED,
                               "cannot move the cubin into " + cubin.string() + ": " + ec.message());
    return a;
  }
  fs::remove(log, ec);
  a.status = Status::success();
  return a;
}

// Loaded kernels live for the process: dispatch caches pointers to their KernelInstance.
struct Loaded {
  KernelInstance instance;
  Sm90Kernel kernel;
  cudaLibrary_t library = nullptr;
};

// By config.instance().
struct LoadedTable {
  std::shared_mutex mu;
  std::unordered_map<KernelConfig, std::unique_ptr<Loaded>, KernelConfigHash> loaded;
  std::unordered_map<KernelConfig, std::string, KernelConfigHash> failed;

  // Callers hold mu.
  const Loaded* find(const KernelConfig& inst) const {
    auto it = loaded.find(inst);
    return it == loaded.end() ? nullptr : it->second.get();
  }
  const std::string* failure(const KernelConfig& inst) const {
    auto it = failed.find(inst);
    return it == failed.end() ? nullptr : &it->second;
  }
};

LoadedTable& table() {
  static LoadedTable* t = new LoadedTable;  // never destroyed: kernels may launch during exit
  return *t;
}

void launch_loaded(const KernelConfig& config, const GemmArgs& args) {
  const KernelConfig inst = config.instance();
  const Loaded* loaded = nullptr;
  {
    std::shared_lock lock(table().mu);
    loaded = table().find(inst);
  }
  if (!loaded)
    HGEMM_THROW(HGEMM_ERROR_INTERNAL, config.name() + " was never loaded by the JIT");
  sm90_launch(config, loaded->kernel, args);
}

// Loads a built cubin that must hold exactly one kernel; the reason on failure, else empty.
std::string load_library(const Artifact& a, cudaLibrary_t* library, cudaKernel_t* kernel) {
  const std::string image = read_or_empty(a.cubin_path);
  unsigned count = 0;
  cudaError_t e =
      cudaLibraryLoadData(library, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e == cudaSuccess) e = cudaLibraryGetKernelCount(&count, *library);
  if (e == cudaSuccess && count == 1) e = cudaLibraryEnumerateKernels(kernel, 1, *library);
  std::string error;
  if (e != cudaSuccess) {
    cudaGetLastError();
    error = a.config.name() + ": cannot load the JIT cubin " + a.cubin_path + ": " +
            cudaGetErrorString(e);
  } else if (count != 1) {
    error = a.config.name() + ": the JIT cubin holds " + std::to_string(count) +
            " kernels, not 1";
  }
  if (!error.empty() && *library) {
    cudaLibraryUnload(*library);
    *library = nullptr;
  }
  return error;
}

}  // namespace

Options Options::from_env() {
  Options o;
  o.nvcc = env::nvcc(HGEMM_NVCC_DEFAULT);
  o.cache_dir = env::jit_cache();
  if (o.cache_dir.empty()) o.cache_dir = (fs::temp_directory_path() / "hgemm-jit").string();
  return o;
}

void set_enabled(bool enabled) { g_enabled.store(enabled ? 1 : 0); }

bool enabled() {
  int v = g_enabled.load(std::memory_order_relaxed);
  if (v < 0) {
    v = env::jit() ? 1 : 0;
    int expected = -1;
    g_enabled.compare_exchange_strong(expected, v);
    v = g_enabled.load();
  }
  return v == 1;
}

const EmbeddedFile* find_embedded(std::string_view path) {
  for (const EmbeddedFile& f : embedded_headers())
    if (f.path == path) return &f;
  return nullptr;
}

const Sm90Kernel* load(const Artifact& artifact, std::string* why) {
  auto fail = [why](std::string reason) -> const Sm90Kernel* {
    if (why) *why = std::move(reason);
    return nullptr;
  };
  if (!artifact.status.ok()) return fail(artifact.status.message);
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  if (std::string error = load_library(artifact, &library, &kernel); !error.empty())
    return fail(error);
  // Never unloaded: a kernel may still run when its caller's process exits.
  static std::mutex mu;
  static auto* kept = new std::vector<std::unique_ptr<Sm90Kernel>>;
  auto k = std::make_unique<Sm90Kernel>();
  k->entry = reinterpret_cast<const void*>(kernel);
  k->geometry = sm90_geometry(artifact.config);
  std::lock_guard lock(mu);
  kept->push_back(std::move(k));
  return kept->back().get();
}

std::string sm90_source(const KernelConfig& config) {
  const KernelConfig c = config.instance();
  if (c.family != Family::kSm90Ws)
    HGEMM_THROW(HGEMM_ERROR_NOT_SUPPORTED, c.name() + ": the JIT builds sm90 configs only");
  if (Status s = c.validate(); !s.ok()) HGEMM_THROW(s.code, s.message);
  const Sm90Variant v = sm90_variant(c);
  std::ostringstream s;
  s << "// " << c.name() << ": generated by hgemm's JIT (src/launch/sm90_jit.cpp)\n"
    << "#include \"kernels/sm90/sm90_ws.cuh\"\n\n"
    << "namespace hgemm::sm90 {\n"
    << "inline constexpr Sm90Variant kJitVariant{\n"
    << "    .block_m = " << v.block_m << ",\n"
    << "    .block_n = " << v.block_n << ",\n"
    << "    .block_k = " << v.block_k << ",\n"
    << "    .num_stages = " << v.num_stages << ",\n"
    << "    .num_consumer_wgs = " << v.num_consumer_wgs << ",\n"
    << "    .cluster_m = " << v.cluster_m << ",\n"
    << "    .cluster_n = " << v.cluster_n << ",\n"
    << "    .epilogue = Epilogue::" << enum_name(v.epilogue) << ",\n"
    << "    .accum = Accum::" << enum_name(v.accum) << ",\n"
    << "    .layout = Layout::" << enum_name(v.layout) << ",\n"
    << "    .schedule = Schedule::" << enum_name(v.schedule) << ",\n"
    << "    .swap_ab = " << (v.swap_ab ? "true" : "false") << ",\n"
    << "    .dtype = DType::" << (v.dtype == DType::kBF16 ? "kBF16" : "kF16") << ",\n";
  // The family header's sources stay as they were, so their cache keys do too.
  if (!c.source.empty())
    s << "    .source = pack_source(*SourceName::from(\"" << c.source.view() << "\")),\n";
  s << "};\n"
    << "template __global__ void sm90_ws_gemm_kernel<Traits<kJitVariant>>(__grid_constant__ "
       "Params const);\n"
    << "}  // namespace hgemm::sm90\n";
  return s.str();
}

std::vector<std::string> compile_flags() {
  return {"-std=c++20",       "-O3", "-DNDEBUG", "--expt-relaxed-constexpr", "-lineinfo",
          "-gencode=arch=compute_90a,code=sm_90a"};
}

CacheKey cache_key(const KernelConfig& config, const Options& options) {
  return key_with(config, for_config(config, options));
}

namespace {

CacheKey key_with(const KernelConfig& config, const Options& options) {
  std::string fingerprint;
  if (Status s = compiler_fingerprint(options, &fingerprint); !s.ok())
    HGEMM_THROW(s.code, s.message);
  std::string material = "hgemm-jit 1\ncompiler: " + options.nvcc + "\n" + fingerprint + "flags:";
  for (const auto& f : compile_flags()) material += " " + f;
  material += "\nheaders: " + hex64(headers_hash(options)) + "\n";
  // The whole text, not its hash: the sidecar comparison then rules out a collision here too.
  if (const auto& o = options.header_override)
    material += "override: " + o->path + " " + std::to_string(o->text.size()) + " bytes\n" +
                o->text + "\nend of override\n";
  material += "source:\n" + sm90_source(config);
  // A 128-bit name; the sidecar comparison catches the rest.
  return {text_hash(material), material};
}

}  // namespace

std::string text_hash(std::string_view text) {
  // Two independent 64-bit hashes.
  return hex64(fnv1a(text)) + hex64(fnv1a(text, 0x84222325cbf29ce4ull));
}

std::vector<Artifact> build(const std::vector<KernelConfig>& configs, const Options& options) {
  std::vector<KernelConfig> unique;
  for (const auto& c : configs)
    if (std::find(unique.begin(), unique.end(), c.instance()) == unique.end())
      unique.push_back(c.instance());
  std::vector<Artifact> out(unique.size());
  int jobs = options.jobs > 0 ? options.jobs : int(std::thread::hardware_concurrency());
  jobs = std::clamp(jobs, 1, std::max(1, int(unique.size())));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < unique.size();) out[i] = build_one(unique[i], options);
  };
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return out;
}

const KernelInstance* instance(const KernelConfig& config, std::string* why) {
  const KernelConfig inst = config.instance();
  LoadedTable& t = table();
  {
    std::shared_lock lock(t.mu);
    if (const Loaded* l = t.find(inst)) return &l->instance;
    if (const std::string* w = t.failure(inst)) {
      if (why) *why = *w;
      return nullptr;
    }
  }
  // Built outside the lock: other configs keep loading and launching meanwhile.
  const Artifact a = build({inst}, Options::from_env()).front();
  std::string error;
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  if (!a.status.ok())
    error = a.status.message;
  else
    error = load_library(a, &library, &kernel);
  std::unique_lock lock(t.mu);
  if (const Loaded* l = t.find(inst)) {
    if (library) cudaLibraryUnload(library);  // another thread loaded it meanwhile
    return &l->instance;
  }
  if (!error.empty()) {
    t.failed.emplace(inst, error);
    if (why) *why = error;
    return nullptr;
  }
  auto loaded = std::make_unique<Loaded>();
  loaded->instance = {inst, &launch_loaded};
  loaded->kernel.entry = reinterpret_cast<const void*>(kernel);
  loaded->kernel.geometry = sm90_geometry(inst);
  loaded->library = library;
  const KernelInstance* result = &loaded->instance;
  t.loaded.emplace(inst, std::move(loaded));
  return result;
}

}  // namespace hgemm::jit
