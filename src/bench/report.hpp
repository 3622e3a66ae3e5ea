// `hgemm report`: the paper's summary tables from results rows. Pure functions over parsed rows,
// so the arithmetic is tested on hand-made CSVs (tests/unit/test_report.cpp).
//
// Definitions (docs/benchmarking.md):
//   speedup      baseline_ms / candidate_ms for one shape, mode and accumulation.
//   NN / TN      the candidate's time in the same layout as the baseline's.
//   max          best-of-layouts candidate against best-of-layouts baseline: each side takes
//                its faster passed layout for the shape.
//   rows used    only passed rows with a positive time; when several rows share a key (merged
//                or resumed files), the last one read wins.
//   acc          the rows' accumulation, with the element type after it for bf16 rows
//                ("f32_bf16", as in problem names) and the epilogue after that for rows with
//                one ("f32_bias_gelu", "f32_bf16_bias_gelu"), then "_b" and the batch count for
//                batched rows ("f32_b64"): rows of different element types, epilogues or batch
//                counts are never compared with each other, and files of plain fp16 rows report
//                exactly as before.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/results_csv.hpp"

namespace hgemm::bench {

enum class BaselineLayout { kNN, kTN, kMax };

struct BaselineSpec {
  std::string impl;  // "cublas", "cublaslt-heuristic", "cublaslt-autotune", "torch", ...
  BaselineLayout layout = BaselineLayout::kNN;
  std::string label() const;  // "cublas-nn", "cublaslt-autotune-max", ...
};

// The baselines the report covers, in table order; torch, hgemm-unfused and hgemm-loop (one call
// per batch, what a batched call must beat) only when `rows` hold their rows.
std::vector<BaselineSpec> report_baselines(const std::vector<ResultRow>& rows);

struct ShapeSpeedup {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  std::string candidate_layout;  // the layout whose time was used
  std::string baseline_layout;
  double candidate_ms = 0;
  double baseline_ms = 0;
  double speedup = 0;  // baseline_ms / candidate_ms
  int64_t batch = 1;   // products per call, as the rows' acc says
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
};

struct Comparison {
  std::vector<ShapeSpeedup> shapes;  // sorted by (m, n, k)
  // Shapes the baseline timed but the candidate did not (missing or failed verification):
  // reported next to N so that dropping them cannot flatter the candidate.
  int candidate_missing = 0;
};

// `acc` as the report names it (see the top of this file): "f32", "f16", "f32_bf16",
// "f32_bias_gelu", "f32_b64".
Comparison compare(const std::vector<ResultRow>& rows, const std::string& candidate,
                   const BaselineSpec& baseline, const std::string& mode, const std::string& acc);
// A row's acc as the report names it.
std::string report_acc(const ResultRow& row);

struct SpeedupStats {
  int n = 0;
  double mean = 0;    // of speedup - 1 (clipped: max(speedup, 1) - 1)
  double median = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 when n < 2
  int wins = 0;       // shapes with speedup > 1
};

SpeedupStats speedup_stats(const std::vector<double>& speedups, bool clip_at_one);

// FLOP buckets on 2*M*N*K (times the batch count for batched rows: the work of one call): <1e9,
// [1e9, 1e10), [1e10, 1e11), [1e11, 1e12), >=1e12.
inline constexpr int kNumBuckets = 5;
int flop_bucket(double flops);
const std::array<const char*, kNumBuckets>& bucket_labels();

struct BucketStat {
  int n = 0;
  double geomean = 0;  // geometric mean speedup; 0 when n == 0
  int slower = 0;      // shapes with speedup < 1
};
// Entries 0..4 are the buckets, entry 5 is all shapes.
std::array<BucketStat, kNumBuckets + 1> bucket_stats(const std::vector<ShapeSpeedup>& shapes);

// The `count` lowest speedups, lowest first (ties broken by shape).
std::vector<ShapeSpeedup> worst_shapes(const std::vector<ShapeSpeedup>& shapes, size_t count);

// The headline (docs/benchmarking.md, "Headline"): per accumulation, the candidate against the
// reference, torch and hgemm-unfused (those present), each side in its faster layout (-max), as a
// geometric-mean speedup.
// Device time (graph) and call latency (latency) lead; offline and server follow. The reference is
// cublaslt-best; files written before it existed fall back to the first of cublaslt-autotune,
// cublaslt-heuristic, cublas that has rows, and the report says so.
struct HeadlineCell {
  std::string baseline;  // impl, compared as -max
  int n = 0;
  double geomean = 0;    // 0 when n == 0
  int faster = 0;        // shapes with speedup > 1
  int candidate_missing = 0;
};
struct HeadlineRow {
  std::string metric;     // "device time", "call latency", "offline", "server"
  std::string mode;
  std::string acc;
  std::string candidate;  // the candidate, or "hgemm-nopdl" on its own rows
  std::vector<HeadlineCell> cells;  // reference first, then torch when torch rows exist
};
std::string headline_reference(const std::vector<ResultRow>& rows);
std::vector<HeadlineRow> headline(const std::vector<ResultRow>& rows, const std::string& candidate);

struct ReportOptions {
  std::string candidate = "hgemm";
  size_t worst_count = 10;
  std::string worst_mode = "offline";  // falls back to the first mode present
};

struct NamedResults {
  std::string origin;  // file name, for the report's header
  ResultsFile file;
};

// The rows of all inputs, in input order (later rows win where keys repeat).
std::vector<ResultRow> merged_rows(const std::vector<NamedResults>& inputs);

// The whole Markdown report.
std::string render_report(const std::vector<NamedResults>& inputs, const ReportOptions& options);

}  // namespace hgemm::bench
