// The rules a source rewrite of a kernel family header must pass before it is compiled
// (`hgemm variants check` and `hgemm variants try`; the Python sandbox runs those commands, so
// this is the one implementation). A rewrite replaces one embedded header (jit::HeaderOverride)
// and is launched by the family's own launcher, so it may hold device code only: the kernel, its
// device helpers and compile-time constants. Whatever could let a kernel look faster than it is
// or reach outside its call is refused by name:
//   size          at most kMaxBytes and kMaxLines;
//   encoding      no backslash or non-ASCII byte outside comments and literals (a universal
//                 character name could spell a forbidden name), no raw string literals;
//   include       only the library's own embedded headers (kernels/, ptx/, core/, hgemm/) and a
//                 short list of standard and CUDA device headers, never the family file itself;
//   preprocessor  no token pasting (it builds names the other rules cannot see), no _Pragma,
//                 #line or #pragma beyond once and unroll, no #define or #undef before an
//                 #include (a macro would rewrite the library's own headers);
//   asm           no inline assembly: PTX lives in src/ptx, which the rewrite includes;
//   streams       no streams, events, graphs or launches (<<< >>>, cudaLaunch*): the harness owns
//                 the stream the kernel runs on and the timer;
//   host-api      no CUDA runtime or driver call (cuda*, cu* functions);
//   threads       no threads or processes (std::thread, pthread_*, fork, ...);
//   libraries     no other library (cuBLAS, cuBLASLt, cuDNN, CUTLASS, Thrust, CUB, dlopen, ...);
//   files         no files, environment or shell (fopen, FILE, streams of <fstream>, getenv,
//                 system, ...);
//   heap          no malloc, free, new or delete: device-heap memory outlives the call;
//   global-state  no variable at namespace scope unless constexpr, no __device__, __managed__ or
//                 __constant__ declaration there, no extern but `extern __shared__`: nothing the
//                 kernel could remember between calls (a pointer or content cache);
//   static-state  no static variable unless constexpr, for the same reason;
//   atomics       no atomic operations: the family needs none, and a global counter is what a
//                 cache keyed across calls is made of;
//   host-code     every function __device__, __global__ or constexpr; no __host__, no main;
//   interface     namespace hgemm::sm90, struct Params token for token as in the family file (the
//                 launcher fills that layout), Traits and sm90_ws_gemm_kernel present.
// The checks read tokens, not a parsed program: they are conservative, so a correct but unusual
// rewrite may be refused; every refusal names the rule and the line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hgemm::variants {

inline constexpr size_t kMaxBytes = 256 * 1024;
inline constexpr int kMaxLines = 5000;

struct Violation {
  std::string rule;  // one of the names above
  int line = 0;      // 1-based line of the source, 0 for the whole file
  std::string message;
  // "rule (line N): message", without the line for the whole file.
  std::string text() const;
};

struct RulesReport {
  std::vector<Violation> violations;  // in line order
  bool passed() const { return violations.empty(); }
  // "rule (line N): message; ..." or "passed".
  std::string summary() const;
  // [{"rule":...,"line":N,"message":...}, ...]: `hgemm variants check` and a try's record.
  std::string violations_json() const;
};

// Checks `source`, a rewrite of the embedded header `family_path` whose stock text is
// `family_text`.
RulesReport check_source(std::string_view source, std::string_view family_path,
                         std::string_view family_text);

// Lines inserted plus lines deleted between `before` and `after` (a longest common subsequence
// of lines): the size term of a rewrite's reward.
int lines_changed(std::string_view before, std::string_view after);

}  // namespace hgemm::variants
