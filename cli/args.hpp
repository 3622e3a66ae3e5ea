// A small argument parser shared by the subcommands: "--key value", "--key=value" and bare
// "--flag". Unknown options are errors, so a typo never silently changes what runs.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/epilogue.hpp"
#include "core/suite.hpp"
#include "hgemm/hgemm.hpp"

namespace hgemm::cli {

class ArgError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ParsedArgs {
 public:
  // `valued`: options that take a value; `flags`: options that take none.
  ParsedArgs(const std::vector<std::string>& args, const std::set<std::string>& valued,
             const std::set<std::string>& flags);

  std::optional<std::string> get(const std::string& key) const;
  std::string get_or(const std::string& key, const std::string& fallback) const;
  bool flag(const std::string& key) const { return flags_.count(key) > 0; }
  // Comma-separated list value ("nn,tn").
  std::vector<std::string> list_or(const std::string& key, const std::string& fallback) const;
  long long int_or(const std::string& key, long long fallback) const;
  double double_or(const std::string& key, double fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positional_;
};

std::vector<std::string> split(const std::string& text, char sep);

// The first argument of a command with subcommands: nullopt when it names one, else the exit
// code after printing `help` (no argument: on stderr, 2; --help or -h: on stdout, 0).
std::optional<int> subcommand_usage(const std::vector<std::string>& argv, const char* help);

// Throws ArgError when `path` could not be written (a missing or read-only directory, a read-only
// file), without creating or touching it, so a command refuses an unusable output before it
// starts its work.
void require_writable(const std::string& path, const std::string& option);

// "--shape" lists: "4096x4096x4096,128x16384x1024", positive integers only.
std::vector<Shape> parse_shapes(const std::string& list);

// --dtype f16|bf16, the element type of A, B and C (default f16).
DType dtype_option(const ParsedArgs& args);
// --acc f32,f16 for `dtype`, each once, in the order given. The default is both for fp16 and f32
// for bf16, which accumulates in fp32 only: --acc f16 with --dtype bf16 is an error.
std::vector<Accum> accum_option(const ParsedArgs& args, DType dtype);
// --epilogue none|bias|bias_relu|bias_gelu|relu|gelu (default none).
bench::EpilogueOp epilogue_option(const ParsedArgs& args);
// --batch B, the strided batches per call: an integer in [1, 2^31-1] (hgemm.h's limit on
// batch_count; default 1, a single GEMM).
int64_t batch_option(const ParsedArgs& args);

}  // namespace hgemm::cli
