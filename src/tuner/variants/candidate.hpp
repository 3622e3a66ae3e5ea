// One source rewrite of a kernel family's header through the pipeline every candidate passes
// (`hgemm variants try`):
//   1. the source rules (tuner/variants/source_rules.hpp), unless a test turns them off to show
//      the run-time defences alone;
//   2. a JIT build with the rewrite in place of the family's header (jit::HeaderOverride), under
//      a time and a memory limit;
//   3. per shape, the tuner's GpuMeasurer: can_implement, the full verifier (random normal against
//      the fp32 reference, small integers exactly, the fp32-accumulation probe, guard bands,
//      NaN/Inf), then the rewrite and cublaslt-best timed together, interleaved, by the harness's
//      timer on its rotated buffers;
//   4. per shape, after timing, the recheck: the full verifier again with a fresh seed, the rewrite
//      called through fresh buffers allocated now (addresses it has never seen) and called twice
//      on the same inputs with C poisoned in between, the second call's output judged and both
//      required bit-identical. A kernel that remembers pointers or inputs across calls (a cache,
//      or work skipped on repeated inputs, however many calls it waits before it starts) leaves
//      the poison in C or returns a stale product here.
// Crashes and hangs are the caller's to contain: the Python sandbox runs this in a worker process
// (python/hgemm/llm/sandbox.py). A sticky CUDA error ends the run with the verdict recorded.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/suite.hpp"
#include "launch/sm90_jit.hpp"
#include "tuner/measure/measurer.hpp"
#include "tuner/variants/source_rules.hpp"
#include "verify/verifier.hpp"

namespace hgemm::variants {

inline constexpr std::string_view kFamilyHeader = jit::kSm90FamilyHeader;

enum class Stop { kAfterCompile, kAfterVerify, kNever };

struct TryOptions {
  std::string source;  // the whole replacement text of family_path
  std::string family_path = std::string(kFamilyHeader);
  KernelConfig config;  // an sm90 config: the rewrite is instantiated with its geometry
  std::vector<Shape> shapes;
  bool source_rules = true;  // false only in tests of the run-time defences
  Stop stop = Stop::kNever;
  jit::Options jit;  // the cache and compiler; the override and the limits are set from here
  double compile_seconds = 300;
  int64_t compile_memory_mib = 16384;
  uint64_t recheck_seed = 0;  // 0: drawn at random below 2^63 (recorded either way)
  std::function<void(const std::string&)> progress;  // "stage: ..." lines, for a watcher
};

enum class Verdict {
  kAccepted,         // verified, measured and rechecked on every shape
  kCompiled,         // Stop::kAfterCompile reached
  kVerified,         // Stop::kAfterVerify reached
  kRejectedByRules,
  kCompileFailed,
  kVerifyFailed,     // not supported, incorrect or a launch failure before or while timing
  kRecheckFailed,    // passed and timed, then failed the recheck
  kError,            // the pipeline could not run (no GPU, reference failed, bad input)
};
std::string_view to_string(Verdict v);
// `hgemm variants try`'s exit code: 0 accepted (or stopped where asked), 3 rejected by the rules,
// 4 compile failure, 5 verification or recheck failure, 1 the pipeline could not run.
int exit_code(Verdict v);

struct ShapeResult {
  Shape shape;
  Problem problem;
  tuner::Measurement measurement;
  verify::Report verifier;
  bool rechecked = false;
  verify::Report recheck;
  std::string repeat_mismatch;  // the recheck's two calls on the same inputs differed: where
};

struct TryRecord {
  Verdict verdict = Verdict::kError;
  std::vector<std::string> reasons;
  std::string config;
  std::string family_path;
  std::string source_hash;  // 128-bit FNV-1a of the source text (hex)
  int lines_changed = 0;
  bool rules_checked = true;
  RulesReport rules;
  bool compiled = false;
  double compile_seconds = 0;
  bool compile_cached = false;
  std::string jit_key;
  std::vector<ShapeResult> shapes;
  uint64_t recheck_seed = 0;
  double mean_speedup = 0;  // over the shapes, when accepted
  double error_term = 0;
  double reward = 0;
  tuner::SourceRewardWeights weights;
  std::string device;
  std::string git_hash;

  // The record as one JSON document (`hgemm variants try --out DIR` writes it to record.json).
  std::string to_json() const;
};

TryRecord try_candidate(const TryOptions& options);

// A loaded rewrite (jit::load) as a GEMM under test: the family's launcher with the rewrite's
// kernel entry, after can_implement for `config` (throws hgemm::Error when it refuses).
verify::GemmFn rewrite_gemm(const KernelConfig& config, const Sm90Kernel* kernel);

// A GEMM under test that runs `candidate` through buffers of its own, allocated per call and kept
// until the GemmFn is destroyed, and twice per call with C poisoned in between (the recheck's
// call; exposed for tests). The second call's C is copied back to the caller's; *mismatch gets
// the first element where the two calls' outputs differ.
verify::GemmFn fresh_buffer_calls(verify::GemmFn candidate, std::string* mismatch);

}  // namespace hgemm::variants
