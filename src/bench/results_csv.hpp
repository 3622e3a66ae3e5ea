// The benchmark results file: `# key=value` environment lines, a header row, then one row per
// shape x implementation x layout x mode (docs/benchmarking.md documents every column).
// The element type: a file of bf16 rows carries a `dtype` column after `acc`; a file of fp16 rows
// has none, so fp16 files (and --resume of older ones) are exactly what they were, and a reader
// takes a file without the column for fp16.
// The epilogue likewise: a file of rows with an epilogue (`hgemm bench --epilogue`) carries an
// `epilogue` column after acc (and dtype); a file without it holds plain GEMM rows ("none").
// Strided batches likewise (`hgemm bench --batch B`, B > 1): a `batch` column after acc (dtype and
// epilogue), each row one call of B packed M x N x K products, its FLOP/s counting all of them; a
// file without the column holds single GEMMs (batch 1).
// Written by `hgemm bench` and python -m hgemm.bench (python/hgemm/bench.py), read by `hgemm report` and by --resume.
// Pure text handling: nothing here touches a device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hgemm::bench {

// Disposition strings written to the `disposition` column.
inline constexpr std::string_view kPassed = "passed";
inline constexpr std::string_view kIncorrect = "incorrect";
inline constexpr std::string_view kLaunchFailed = "launch_failed";
inline constexpr std::string_view kNotSupported = "not_supported";

struct ResultRow {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  std::string layout;       // "nn" | "tn"
  std::string acc;          // "f32" | "f16"
  std::string dtype = "f16";  // "f16" | "bf16": A, B and C
  std::string epilogue = "none";  // bench::EpilogueOp's name: "none", "bias", "bias_gelu", ...
  int64_t batch = 1;  // products per call (strided, packed); tflops and flops() count them all
  std::string impl;         // "hgemm", "cublas", "cublaslt-heuristic", "cublaslt-autotune",
                            // "torch", "config:<name>"
  std::string mode;         // "offline" | "graph" | "latency" | "server"
  std::string disposition;  // kPassed, kIncorrect, kLaunchFailed, kNotSupported
  // Times in milliseconds per call; NaN (an empty field) when the row was not timed.
  double ms = 0;      // the median
  double tflops = 0;  // 2*M*N*K*batch / ms
  double p20_ms = 0;
  double p80_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;               // loops (offline, graph) or single calls (latency, server)
  int64_t calls_per_sample = 0;  // calls inside one sample
  int sets = 0;                  // rotated input buffer sets
  int sm_clock_before_mhz = -1;  // -1: NVML not available
  int sm_clock_after_mhz = -1;
  std::string detail;  // chosen kernel or algorithm, or why the row failed

  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
  bool timed() const;  // passed with a finite, positive time
};

using Environment = std::vector<std::pair<std::string, std::string>>;

struct ResultsFile {
  Environment environment;  // the `# key=value` lines, in file order
  std::vector<ResultRow> rows;
};

// The column names, in the order this version writes them: with_dtype for a file of bf16 rows,
// with_epilogue for a file of rows with an epilogue, with_batch for a file of batched rows.
const std::vector<std::string>& columns(bool with_dtype = false, bool with_epilogue = false,
                                        bool with_batch = false);
// columns joined by ',' (no newline)
std::string header_line(bool with_dtype = false, bool with_epilogue = false,
                        bool with_batch = false);
// One line, no newline, for a file whose header is header_line(with_dtype, with_epilogue,
// with_batch). Throws std::invalid_argument for a row that is not fp16 without the dtype column,
// has an epilogue without the epilogue column, or a batch other than 1 without the batch column,
// which would lose it.
std::string format_row(const ResultRow& row, bool with_dtype = false, bool with_epilogue = false,
                       bool with_batch = false);
std::string format_environment(const Environment& env);  // "# key=value\n" lines

// Parses a whole file. Columns are found by name, so files may order them differently or carry
// extra columns; a missing required column, a malformed number, a dtype other than f16 or bf16, an
// unknown epilogue, a batch below 1 or a row with the wrong field count throws std::runtime_error
// naming `origin` and the line. An empty dtype, epilogue or batch field reads as the default (f16,
// none, 1).
ResultsFile parse_results(std::string_view text, std::string_view origin = "<text>");
// Reads plain or gzip-compressed (`.csv.gz`, recognised by its magic number, not its name) files.
ResultsFile read_results(const std::string& path);

// The identity of a row for --resume and for merging: shape, layout, acc, dtype, epilogue, batch,
// impl and mode. "4096x1024x8192|tn|f32|cublas|graph"; a dtype other than f16 follows acc
// ("...|f32|bf16|..."), then an epilogue other than none ("...|f32|bias_gelu|..."), then a batch
// other than 1 ("...|f32|b64|...").
std::string row_key(const ResultRow& row);
std::string row_key(int64_t m, int64_t n, int64_t k, std::string_view layout,
                    std::string_view acc, std::string_view impl, std::string_view mode,
                    std::string_view dtype = "f16", std::string_view epilogue = "none",
                    int64_t batch = 1);

// CSV field quoting: fields with ',', '"' or a newline are quoted, quotes doubled.
std::string csv_quote(std::string_view field);
std::vector<std::string> csv_split(std::string_view line);

}  // namespace hgemm::bench
