#include "bench/report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "baselines/baselines.hpp"

namespace hgemm::bench {
namespace {

using ShapeKey = std::tuple<int64_t, int64_t, int64_t>;

const char* const kModeOrder[] = {"offline", "graph", "latency", "server"};
// cublaslt-best, the reference of every bar, leads; torch, hgemm-unfused (the plain GEMM and a
// separate bias/activation kernel, in epilogue runs), hgemm-plain (the same call without its
// epilogue: a speedup of at least 0.98 over it is issue 20's bar) and hgemm-loop (one plain call
// per batch, in batched runs) follow it when present.
const char* const kReference = "cublaslt-best";
const char* const kOptionalBaselines[] = {"torch", "hgemm-unfused", "hgemm-plain", "hgemm-loop"};

bool has_impl(const std::vector<ResultRow>& rows, const std::string& impl) {
  return std::any_of(rows.begin(), rows.end(), [&](const ResultRow& r) { return r.impl == impl; });
}
const char* const kLibraryBaselines[] = {"cublas", "cublaslt-heuristic", "cublaslt-autotune"};

using RowKey = std::tuple<int64_t, int64_t, int64_t, std::string>;  // m, n, k, layout

// The row of one impl for each shape and layout, for one mode and acc. The last row read for a
// key wins, whatever its disposition, so a later failed re-run hides an earlier pass.
std::map<RowKey, const ResultRow*> last_rows(const std::vector<ResultRow>& rows,
                                             const std::string& impl, const std::string& mode,
                                             const std::string& acc) {
  std::map<RowKey, const ResultRow*> last;
  for (const ResultRow& r : rows)
    if (r.impl == impl && r.mode == mode && report_acc(r) == acc)
      last[{r.m, r.n, r.k, r.layout}] = &r;
  return last;
}

// Per shape, the timed ms of one impl in each layout, for one mode and acc (last_rows').
std::map<ShapeKey, std::map<std::string, double>> timed_by_shape(
    const std::vector<ResultRow>& rows, const std::string& impl, const std::string& mode,
    const std::string& acc) {
  std::map<ShapeKey, std::map<std::string, double>> out;
  for (const auto& [key, row] : last_rows(rows, impl, mode, acc))
    if (row->timed()) out[{row->m, row->n, row->k}][row->layout] = row->ms;
  return out;
}

// What ran for the row of `last` (last_rows) at one shape and layout, from its detail column,
// short enough for a table cell: a cuBLASLt algorithm's "id .. tile .. stages .. splitk .."
// (baselines::Selection::describe), else the detail's first field (hgemm's config name), at most
// 64 characters; "" without a timed row.
std::string kernel_of(const std::map<RowKey, const ResultRow*>& last, int64_t m, int64_t n,
                      int64_t k, const std::string& layout) {
  const auto it = last.find({m, n, k, layout});
  if (it == last.end() || !it->second->timed()) return "";
  const std::string& d = it->second->detail;
  std::string what;
  if (const size_t id = d.find("(id "); id != std::string::npos) {
    const size_t end = d.find(')', id);
    what = d.substr(id + 1, end == std::string::npos ? std::string::npos : end - id - 1);
  } else {
    what = d.substr(0, d.find(','));
  }
  // Older files give cuBLASLt's tile and stages as enum values: spell them as its header does.
  for (const auto& [word, name_of] :
       {std::pair{std::string_view("tile "), &baselines::cublaslt_tile_name},
        std::pair{std::string_view("stages "), &baselines::cublaslt_stage_name}}) {
    const size_t at = what.find(word);
    if (at == std::string::npos) continue;
    const size_t begin = at + word.size();
    size_t end = begin;
    while (end < what.size() && std::isdigit(static_cast<unsigned char>(what[end]))) ++end;
    if (end == begin || end - begin > 9 || (end < what.size() && what[end] != ' ')) continue;
    const std::string_view name = name_of(uint32_t(std::stoul(what.substr(begin, end - begin))));
    if (!name.empty()) what.replace(begin, end - begin, name);
  }
  // A table cell: no pipes, one line.
  std::replace(what.begin(), what.end(), '|', '/');
  std::replace(what.begin(), what.end(), '\n', ' ');
  return what.size() > 64 ? what.substr(0, 61) + "..." : what;
}

// The fastest layout of one shape; false when none is timed.
bool best_layout(const std::map<std::string, double>& by_layout, std::string* layout, double* ms) {
  bool found = false;
  for (const auto& [l, t] : by_layout) {
    if (!found || t < *ms) {
      *layout = l;
      *ms = t;
      found = true;
    }
  }
  return found;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string percent(double fraction) { return fmt("%+.1f%%", 100.0 * fraction); }

std::string shape_name(int64_t m, int64_t n, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

// Modes and accumulations in the rows, in a stable order: known modes first.
std::vector<std::string> modes_in(const std::vector<ResultRow>& rows) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& r : rows) seen.insert(r.mode);
  for (const char* m : kModeOrder)
    if (seen.erase(m)) out.push_back(m);
  out.insert(out.end(), seen.begin(), seen.end());
  return out;
}

std::vector<std::string> accs_in(const std::vector<ResultRow>& rows) {
  std::set<std::string> seen;
  for (const auto& r : rows) seen.insert(report_acc(r));
  return {seen.begin(), seen.end()};
}

struct Cell {
  BaselineSpec baseline;
  std::string mode;
  std::string acc;
  Comparison comparison;
  std::vector<double> speedups() const {
    std::vector<double> s;
    for (const auto& x : comparison.shapes) s.push_back(x.speedup);
    return s;
  }
};

void render_stats_table(std::ostringstream& o, const std::vector<Cell>& cells,
                        const std::string& candidate, bool clip) {
  o << "| baseline | mode | acc | N | mean | median | std | " << candidate << " faster | "
    << candidate << " missing |\n";
  o << "|---|---|---|---:|---:|---:|---:|---:|---:|\n";
  for (const Cell& c : cells) {
    const SpeedupStats s = speedup_stats(c.speedups(), clip);
    o << "| " << c.baseline.label() << " | " << c.mode << " | " << c.acc << " | " << s.n << " | "
      << percent(s.mean) << " | " << percent(s.median) << " | " << fmt("%.1f%%", 100.0 * s.stddev)
      << " | " << s.wins << "/" << s.n << " | " << c.comparison.candidate_missing << " |\n";
  }
}

// One sentence per timing mode, so a reader of the headline knows what each number measures.
const char* mode_sentence(const std::string& mode) {
  if (mode == "graph")
    return "CUDA graphs of back-to-back calls, replayed: the GPU's time per call without the "
           "host's launch cost.";
  if (mode == "latency")
    return "host wall clock around one call and its stream synchronize: what a caller that "
           "waits for each result sees, launch overhead included.";
  if (mode == "offline")
    return "eager back-to-back calls on one stream: below about 1e10 FLOP this is the host's "
           "enqueue rate rather than kernel speed, which is what an eager caller gets.";
  if (mode == "server")
    return "one call after an idle gap (exponential, mean 1/qps), timed with events: an isolated "
           "call on an idle GPU.";
  return "";
}

void render_headline(std::ostringstream& o, const std::vector<ResultRow>& rows,
                     const std::string& cand) {
  const std::vector<HeadlineRow> lines = headline(rows, cand);
  if (lines.empty()) return;
  const std::string reference = headline_reference(rows);
  o << "## Headline\n\n"
    << "Geometric-mean speedup of " << cand << " (baseline time / " << cand
    << " time) over every shape both sides timed, each side in its faster layout (`-max`); "
    << "in brackets: shapes where " << cand << " is faster / shapes.\n\n";
  if (reference != kReference)
    o << "These files have no `" << kReference << "` rows (written before it existed): `"
      << reference << "` stands in as the reference.\n\n";
  o << "| metric | mode | acc | candidate |";
  for (const auto& cell : lines.front().cells) o << " vs " << cell.baseline << "-max |";
  o << "\n|---|---|---|---|";
  for (size_t i = 0; i < lines.front().cells.size(); ++i) o << "---:|";
  o << "\n";
  for (const HeadlineRow& line : lines) {
    o << "| " << line.metric << " | " << line.mode << " | " << line.acc << " | " << line.candidate
      << " |";
    for (const HeadlineCell& cell : line.cells) {
      if (cell.n == 0)
        o << " - |";
      else
        o << ' ' << fmt("%.3f", cell.geomean) << " (" << cell.faster << "/" << cell.n << ") |";
    }
    o << "\n";
  }
  o << "\n";
  std::set<std::string> modes;
  for (const auto& line : lines) modes.insert(line.mode);
  for (const char* mode : {"graph", "latency", "offline", "server"})
    if (modes.count(mode)) o << "- **" << mode << "**: " << mode_sentence(mode) << "\n";
  // Which rows launch with programmatic dependent launch, read from the rows' detail column.
  int pdl = 0, no_pdl = 0;
  for (const ResultRow& r : rows) {
    if (r.impl != cand) continue;
    if (r.detail.find(", no PDL") != std::string::npos)
      ++no_pdl;
    else if (r.detail.find(", PDL") != std::string::npos)
      ++pdl;
  }
  o << "\nProgrammatic dependent launch (PDL): `" << cand << "` rows ";
  if (pdl + no_pdl > 0)
    o << "launched with it in " << pdl << " of " << pdl + no_pdl
      << " rows that say (their detail column ends in \", PDL\" or \", no PDL\")";
  else
    o << "do not say whether they used it (older files; the `pdl` environment line, if any, "
         "is listed above)";
  o << ". hgemm uses it on sm_90, where each kernel may start its setup while the previous one "
       "in the stream finishes: in graph and offline mode that is the previous call; latency and "
       "server mode time single calls and gain nothing from it. cuBLASLt's API offers no such "
       "launch, and torch calls cuBLAS(Lt). `hgemm-nopdl` rows are hgemm without it.\n\n";
}

}  // namespace

std::string report_acc(const ResultRow& row) {
  std::string acc = row.dtype == "f16" ? row.acc : row.acc + "_" + row.dtype;
  if (row.epilogue != "none") acc += "_" + row.epilogue;
  if (row.batch != 1) acc += "_b" + std::to_string(row.batch);
  return acc;
}

std::string BaselineSpec::label() const {
  switch (layout) {
    case BaselineLayout::kNN: return impl + "-nn";
    case BaselineLayout::kTN: return impl + "-tn";
    case BaselineLayout::kMax: return impl + "-max";
  }
  return impl;
}

std::vector<BaselineSpec> report_baselines(const std::vector<ResultRow>& rows) {
  std::vector<std::string> impls{kReference};
  for (const char* impl : kOptionalBaselines)
    if (has_impl(rows, impl)) impls.push_back(impl);
  impls.insert(impls.end(), std::begin(kLibraryBaselines), std::end(kLibraryBaselines));
  std::vector<BaselineSpec> out;
  for (const auto& impl : impls)
    for (BaselineLayout l : {BaselineLayout::kNN, BaselineLayout::kTN, BaselineLayout::kMax})
      out.push_back({impl, l});
  return out;
}

Comparison compare(const std::vector<ResultRow>& rows, const std::string& candidate,
                   const BaselineSpec& baseline, const std::string& mode, const std::string& acc) {
  const auto base = timed_by_shape(rows, baseline.impl, mode, acc);
  const auto cand = timed_by_shape(rows, candidate, mode, acc);
  // One acc holds one batch count (report_acc names it), so every shape of it shares it.
  int64_t batch = 1;
  for (const ResultRow& r : rows)
    if (report_acc(r) == acc) {
      batch = r.batch;
      break;
    }
  Comparison out;
  for (const auto& [shape, base_layouts] : base) {
    ShapeSpeedup s;
    std::tie(s.m, s.n, s.k) = shape;
    s.batch = batch;
    const auto cand_it = cand.find(shape);
    if (baseline.layout == BaselineLayout::kMax) {
      if (!best_layout(base_layouts, &s.baseline_layout, &s.baseline_ms)) continue;
      if (cand_it == cand.end() ||
          !best_layout(cand_it->second, &s.candidate_layout, &s.candidate_ms)) {
        ++out.candidate_missing;
        continue;
      }
    } else {
      const std::string layout = baseline.layout == BaselineLayout::kNN ? "nn" : "tn";
      const auto b = base_layouts.find(layout);
      if (b == base_layouts.end()) continue;
      s.baseline_layout = layout;
      s.baseline_ms = b->second;
      if (cand_it == cand.end() || !cand_it->second.count(layout)) {
        ++out.candidate_missing;
        continue;
      }
      s.candidate_layout = layout;
      s.candidate_ms = cand_it->second.at(layout);
    }
    s.speedup = s.baseline_ms / s.candidate_ms;
    out.shapes.push_back(s);
  }
  return out;
}

SpeedupStats speedup_stats(const std::vector<double>& speedups, bool clip_at_one) {
  SpeedupStats s;
  s.n = int(speedups.size());
  if (s.n == 0) return s;
  std::vector<double> gains;
  for (double x : speedups) {
    gains.push_back((clip_at_one ? std::max(x, 1.0) : x) - 1.0);
    if (x > 1.0) ++s.wins;
  }
  double sum = 0;
  for (double g : gains) sum += g;
  s.mean = sum / s.n;
  s.median = median_of(gains);
  if (s.n > 1) {
    double ss = 0;
    for (double g : gains) ss += (g - s.mean) * (g - s.mean);
    s.stddev = std::sqrt(ss / (s.n - 1));
  }
  return s;
}

int flop_bucket(double flops) {
  if (flops < 1e9) return 0;
  if (flops < 1e10) return 1;
  if (flops < 1e11) return 2;
  if (flops < 1e12) return 3;
  return 4;
}

const std::array<const char*, kNumBuckets>& bucket_labels() {
  static const std::array<const char*, kNumBuckets> labels = {"<1e9", "1e9-1e10", "1e10-1e11",
                                                              "1e11-1e12", ">=1e12"};
  return labels;
}

std::array<BucketStat, kNumBuckets + 1> bucket_stats(const std::vector<ShapeSpeedup>& shapes) {
  std::array<double, kNumBuckets + 1> log_sum{};
  std::array<BucketStat, kNumBuckets + 1> out{};
  for (const auto& s : shapes) {
    for (int b : {flop_bucket(s.flops()), kNumBuckets}) {
      ++out[b].n;
      log_sum[b] += std::log(s.speedup);
      if (s.speedup < 1.0) ++out[b].slower;
    }
  }
  for (int b = 0; b <= kNumBuckets; ++b)
    if (out[b].n > 0) out[b].geomean = std::exp(log_sum[b] / out[b].n);
  return out;
}

std::vector<ShapeSpeedup> worst_shapes(const std::vector<ShapeSpeedup>& shapes, size_t count) {
  std::vector<ShapeSpeedup> out = shapes;
  std::sort(out.begin(), out.end(), [](const ShapeSpeedup& a, const ShapeSpeedup& b) {
    return std::tie(a.speedup, a.m, a.n, a.k) < std::tie(b.speedup, b.m, b.n, b.k);
  });
  if (out.size() > count) out.resize(count);
  return out;
}

std::string headline_reference(const std::vector<ResultRow>& rows) {
  auto has = [&](const std::string& impl) {
    return std::any_of(rows.begin(), rows.end(), [&](const ResultRow& r) { return r.impl == impl; });
  };
  if (has(kReference)) return kReference;
  for (const char* impl : {"cublaslt-autotune", "cublaslt-heuristic", "cublas"})
    if (has(impl)) return impl;
  return kReference;
}

std::vector<HeadlineRow> headline(const std::vector<ResultRow>& rows,
                                  const std::string& candidate) {
  std::vector<std::string> baselines{headline_reference(rows)};
  for (const char* impl : kOptionalBaselines)
    if (impl != candidate && has_impl(rows, impl)) baselines.push_back(impl);
  std::vector<std::string> candidates{candidate};
  // hgemm without programmatic dependent launch, against the same baselines, shows what PDL adds.
  if (candidate == "hgemm" &&
      std::any_of(rows.begin(), rows.end(), [](const ResultRow& r) { return r.impl == "hgemm-nopdl"; }))
    candidates.push_back("hgemm-nopdl");
  const std::pair<const char*, const char*> metrics[] = {
      {"device time", "graph"}, {"call latency", "latency"}, {"offline", "offline"},
      {"server", "server"}};
  std::vector<HeadlineRow> out;
  for (const auto& [metric, mode] : metrics)
    for (const auto& acc : accs_in(rows))
      for (const auto& cand : candidates) {
        HeadlineRow row{metric, mode, acc, cand, {}};
        bool any = false;
        for (const auto& base : baselines) {
          const Comparison c = compare(rows, cand, {base, BaselineLayout::kMax}, mode, acc);
          const BucketStat all = bucket_stats(c.shapes)[kNumBuckets];
          HeadlineCell cell{base, all.n, all.geomean, 0, c.candidate_missing};
          for (const auto& s : c.shapes) cell.faster += s.speedup > 1.0;
          any = any || cell.n > 0;
          row.cells.push_back(cell);
        }
        if (any) out.push_back(std::move(row));
      }
  return out;
}

std::vector<ResultRow> merged_rows(const std::vector<NamedResults>& inputs) {
  std::vector<ResultRow> rows;
  for (const auto& in : inputs) rows.insert(rows.end(), in.file.rows.begin(), in.file.rows.end());
  return rows;
}

std::string render_report(const std::vector<NamedResults>& inputs, const ReportOptions& options) {
  const std::vector<ResultRow> rows = merged_rows(inputs);
  const std::string& cand = options.candidate;

  std::ostringstream o;
  o << "# hgemm benchmark report\n\n";
  o << "Candidate: `" << cand << "`. Speedup = baseline time / " << cand
    << " time for the same shape, mode and accumulation (its `acc` names the element type when "
       "it is not f16, the epilogue when there is one and the batch count (`_b64`) of batched "
       "rows: rows of different ones are never compared). NN/TN baselines are compared with "
    << cand << " in the same layout; `-max` compares the faster layout of each side. Only rows "
    << "that passed verification count; \"" << cand << " missing\" counts shapes the baseline "
    << "timed but " << cand << " did not (absent or failed).\n\n";
  o << "Inputs:\n\n";
  for (const auto& in : inputs) {
    o << "- `" << in.origin << "`: " << in.file.rows.size() << " rows";
    for (const char* key : {"gpu", "driver", "cuda", "cublas", "torch", "git", "date", "pdl"}) {
      for (const auto& [k, v] : in.file.environment)
        if (k == key) o << ", " << k << " " << v;
    }
    o << "\n";
  }
  o << "\n";
  render_headline(o, rows, cand);

  std::vector<Cell> cells;
  const auto modes = modes_in(rows);
  const auto accs = accs_in(rows);
  for (const BaselineSpec& b : report_baselines(rows))
    for (const auto& mode : modes)
      for (const auto& acc : accs) {
        Comparison c = compare(rows, cand, b, mode, acc);
        if (!c.shapes.empty() || c.candidate_missing > 0) cells.push_back({b, mode, acc, c});
      }
  if (cells.empty()) {
    o << "No shape has both a passed `" << cand << "` time and a passed baseline time.\n";
    return o.str();
  }

  o << "## Table 1: speedup - 1 of " << cand << " over each baseline\n\n";
  render_stats_table(o, cells, cand, false);
  o << "\n## Table 2: max(" << cand << ", baseline) over the baseline (speedup clipped at 1)\n\n";
  render_stats_table(o, cells, cand, true);

  o << "\n## Geometric-mean speedup by FLOP bucket (2*M*N*K, times the batch count of batched "
       "rows)\n\n"
    << "Each cell: geomean (shapes where " << cand << " is slower / shapes).\n\n";
  o << "| baseline | mode | acc |";
  for (const char* label : bucket_labels()) o << ' ' << label << " |";
  o << " all |\n|---|---|---|";
  for (int b = 0; b <= kNumBuckets; ++b) o << "---:|";
  o << "\n";
  for (const Cell& c : cells) {
    o << "| " << c.baseline.label() << " | " << c.mode << " | " << c.acc << " |";
    for (const BucketStat& s : bucket_stats(c.comparison.shapes)) {
      if (s.n == 0)
        o << " - |";
      else
        o << ' ' << fmt("%.3f", s.geomean) << " (" << s.slower << "/" << s.n << ") |";
    }
    o << "\n";
  }

  std::string worst_mode = options.worst_mode;
  if (std::find(modes.begin(), modes.end(), worst_mode) == modes.end()) worst_mode = modes.front();
  o << "\n## Worst " << options.worst_count << " shapes per baseline (" << worst_mode
    << " mode)\n\nThe kernels are what each side ran: " << cand
    << "'s config, cuBLASLt's algorithm (a tile is its rows x columns of the column-major N x M "
       "product, so N x M here).\n";
  for (const Cell& c : cells) {
    if (c.mode != worst_mode || c.comparison.shapes.empty()) continue;
    const auto cand_rows = last_rows(rows, cand, worst_mode, c.acc);
    const auto base_rows = last_rows(rows, c.baseline.impl, worst_mode, c.acc);
    o << "\n### " << c.baseline.label() << ", " << c.acc << "\n\n";
    o << "| shape (MxNxK) | " << cand << " layout | " << cand
      << " ms | baseline layout | baseline ms | speedup | " << cand << " kernel | baseline kernel |\n";
    o << "|---|---|---:|---|---:|---:|---|---|\n";
    for (const auto& s : worst_shapes(c.comparison.shapes, options.worst_count))
      o << "| " << shape_name(s.m, s.n, s.k) << " | " << s.candidate_layout << " | "
        << fmt("%.5f", s.candidate_ms) << " | " << s.baseline_layout << " | "
        << fmt("%.5f", s.baseline_ms) << " | " << fmt("%.3f", s.speedup) << " | "
        << kernel_of(cand_rows, s.m, s.n, s.k, s.candidate_layout) << " | "
        << kernel_of(base_rows, s.m, s.n, s.k, s.baseline_layout) << " |\n";
  }
  return o.str();
}

}  // namespace hgemm::bench
