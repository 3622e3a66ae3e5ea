// Run-time compilation of sm90 instantiations that the catalog does not hold: a config from the
// search space's declared product (other stage counts, tiles, clusters) is written out as a
// one-kernel translation unit over the library's own kernel headers (embedded in the library at
// build time, so an installed copy needs no source tree), compiled with nvcc to an sm_90a cubin,
// cached on disk, loaded as a CUDA library and launched through the same sm90_launch as the
// catalog. Compiling takes seconds per config, so the tuner builds its candidates up front in
// parallel (build()) and dispatch only loads what the cache holds unless the JIT is enabled.
//
// Cache: one cubin per key, where the key hashes the generated source, every embedded header,
// the flags and the compiler's `--version`; a sidecar file holds the exact key material and is
// compared on every hit, so a hash collision or a stale file is a miss, never a wrong kernel.
// Files appear under their final names by rename only, so a killed build leaves no torn entry.
//
// Source rewrites (`hgemm variants try`): Options::header_override replaces one embedded header
// by another text, so that a candidate written by a language model compiles against the library's
// other headers exactly as the family's own file does, and launches through the same launcher.
// The replacement's text is key material, so a rewrite never hits a stock cubin nor the reverse.
// A config whose source is a promoted rewrite (KernelConfig::source) builds with that rewrite as
// its override, and the generated source names the source in its variant, so that the kernel
// the JIT instantiates is the same type as the catalog's for that config.
// Such builds run under limits (compile_seconds, compile_memory_mib): nvcc gets its own process
// group, killed whole at the time limit, and an address-space limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hgemm/hgemm.hpp"
#include "launch/launch.hpp"
#include "launch/sm90_launch.hpp"

namespace hgemm::jit {

// The family header a source rewrite replaces (and a promoted source's config builds without).
inline constexpr std::string_view kSm90FamilyHeader = "kernels/sm90/sm90_ws.cuh";

// One embedded header's text replaced by another.
struct HeaderOverride {
  std::string path;  // an embedded include path, e.g. "kernels/sm90/sm90_ws.cuh"
  std::string text;
};

struct Options {
  std::string nvcc;       // HGEMM_NVCC, else the nvcc this library was built with
  std::string cache_dir;  // HGEMM_JIT_CACHE, else $XDG_CACHE_HOME/hgemm/jit, else ~/.cache/hgemm/jit
  int jobs = 0;           // parallel compilations; 0: one per hardware thread
  std::optional<HeaderOverride> header_override;
  // Per nvcc run; 0 is no limit. At the time limit the compiler's whole process group is killed;
  // the memory limit is its address space (RLIMIT_AS, set by a shell before nvcc starts).
  double compile_seconds = 0;
  int64_t compile_memory_mib = 0;

  static Options from_env();
};

// Whether registry::find compiles (or loads from the cache) sm90 configs missing from the
// catalog. Off unless HGEMM_JIT=1 in the environment or set_enabled(true): a dispatch miss must
// not stall a caller for a compilation it did not ask for.
void set_enabled(bool enabled);
bool enabled();

// One header the generated source includes, as it was when the library was built.
struct EmbeddedFile {
  std::string_view path;  // include path, e.g. "kernels/sm90/sm90_ws.cuh"
  std::string_view text;
};
const std::vector<EmbeddedFile>& embedded_headers();
// The embedded header at `path`, or nullptr.
const EmbeddedFile* find_embedded(std::string_view path);

// A 128-bit FNV-1a of `text` as 32 hex digits: the cache's names, and a rewrite's identity.
std::string text_hash(std::string_view text);

// The translation unit that instantiates `config`'s kernel. Throws hgemm::Error
// (HGEMM_ERROR_NOT_SUPPORTED) for a config that is not a valid sm90 instance.
std::string sm90_source(const KernelConfig& config);
// nvcc's arguments besides the input and output files: the same code generation as the catalog.
std::vector<std::string> compile_flags();

// The cache key of `config` under `options` (hex), and the material it hashes.
struct CacheKey {
  std::string hex;
  std::string material;
};
CacheKey cache_key(const KernelConfig& config, const Options& options);

struct Artifact {
  KernelConfig config;  // config.instance()
  std::string key;
  std::string cubin_path;
  Status status;        // failure: why (compiler output tail, missing nvcc, invalid config)
  bool cached = false;  // found in the cache, not compiled now
  double seconds = 0;
};

// Builds every config's instance into the cache, `options.jobs` compilations at a time; configs
// sharing an instance are built once. Needs no GPU. Never throws for a single config's failure:
// it is that artifact's status.
std::vector<Artifact> build(const std::vector<KernelConfig>& configs, const Options& options);

// The kernel of a built artifact, loaded as a CUDA library (needs the GPU), or nullptr with the
// reason in *why. Each call loads anew and the kernel stays loaded for the process: this is the
// path of rewrites, which dispatch never sees.
const Sm90Kernel* load(const Artifact& artifact, std::string* why);

// The loaded instance for `config` (built first when the cache lacks it), or nullptr with the
// reason in *why. Loading needs the GPU. A failure is remembered for the process, so a tuner that
// asks again does not recompile a config that cannot build.
const KernelInstance* instance(const KernelConfig& config, std::string* why = nullptr);

}  // namespace hgemm::jit
