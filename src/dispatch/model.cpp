#include "dispatch/model.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/file_io.hpp"
#include "dispatch/cost.hpp"
#include "dispatch/text_lines.hpp"

namespace hgemm::dispatch {

const std::vector<std::string>& model_feature_names() {
  static const std::vector<std::string> names{
      "log2_m",     "log2_n",       "log2_k",         "log2_mnk",
      "block_m",    "block_n",      "consumer_wgs",   "stages",
      "cluster_size", "cluster_m",  "cluster_n",      "swap_ab",
      "tma_store",  "ping_pong",    "log2_splits",    "log2_ctas",
      "waves",      "wave_fill",    "m_fill",         "n_fill",
      "log2_k_blocks_per_split",    "log_cost_over_work",
      "log2_l2_bytes_per_mac",      "log2_dram_bytes_per_mac",
      "log2_ctas_per_sm", "rows_per_warpgroup", "log_cost"};
  return names;
}

// NOTE: the fitting script computes each of these the same way (its `features`), operation for
// operation, so that both sides get the same doubles: a feature that differs in its last bit can
// send a row the other way at a threshold. The grid and the cost are the cost model's own
// (tile_waves, estimate_cost), so a change there changes the model's inputs: parse_model's check
// lines then refuse the model until it is fitted again. block_m and block_n name the problem's M
// and N (KernelConfig's convention).
std::vector<double> model_features(const Problem& p, const KernelConfig& c,
                                   const DeviceInfo& device) {
  const TileWaves w = tile_waves(p, c, device);
  const double cost = estimate_cost(p, c, device);
  const double m = double(p.m), n = double(p.n), k = double(p.k);
  const double macs = m * n * k;
  const double sm_count = double(device.sm_count);
  const double l2_bytes = w.tiles_m * w.tiles_n * double(c.block_m + c.block_n) * k * 2.0;
  const double dram_bytes = 2.0 * (m * k + n * k + m * n);
  const double rows = double(c.swap_ab ? c.block_n : c.block_m);
  const double wgs = double(c.num_consumer_wgs);
  return {std::log2(m),
          std::log2(n),
          std::log2(k),
          std::log2(macs),
          double(c.block_m),
          double(c.block_n),
          wgs,
          double(c.num_stages),
          double(std::max(1, c.cluster_m) * std::max(1, c.cluster_n)),
          double(std::max(1, c.cluster_m)),
          double(std::max(1, c.cluster_n)),
          c.swap_ab ? 1.0 : 0.0,
          c.epilogue == Epilogue::kTmaStore ? 1.0 : 0.0,
          c.schedule == Schedule::kPingPong ? 1.0 : 0.0,
          std::log2(w.splits),
          std::log2(w.ctas),
          w.waves,
          w.ctas / (w.waves * w.slots),
          m / (w.tiles_m * c.block_m),
          n / (w.tiles_n * c.block_n),
          std::log2(w.per_split),
          std::log(cost * sm_count / macs),
          std::log2(l2_bytes / macs),
          std::log2(dram_bytes / macs),
          std::log2(std::max(1.0, w.ctas / sm_count)),
          rows / wgs,
          std::log(cost)};
}

std::optional<double> DispatchModel::predict(const Problem& problem, const KernelConfig& config,
                                             const DeviceInfo& device) const {
  const Forest& f = forest(problem.layout);
  if (!f.present || config.family != Family::kSm90Ws) return std::nullopt;
  const std::vector<double> x = model_features(problem, config, device);
  const size_t inner = (size_t(1) << f.depth) - 1;
  double out = f.base;
  for (const Tree& t : f.trees) {
    size_t i = 0;
    for (int d = 0; d < f.depth; ++d) {
      const int feature = t.feature[i];
      const bool right = feature >= 0 && x[size_t(feature)] >= t.threshold[i];
      i = 2 * i + (right ? 2 : 1);
    }
    out += t.leaf[i - inner];
  }
  return out;
}

namespace {

using text::keyed;
using text::Lines;
using text::split;

constexpr std::string_view kMagic = "hgemm-dispatch-model";

template <typename T>
T number(const Lines& r, std::string_view word, std::string_view what) {
  const std::optional<T> value = text::parse_number<T>(word);
  if (!value) r.fail("'" + std::string(word) + "' is not a number (" + std::string(what) + ")");
  return *value;
}

}  // namespace

DispatchModel parse_model(std::string_view text, const std::string& where) {
  Lines r(text, where);
  DispatchModel model;
  {
    const auto w = split(r.next("the format line"));
    if (w.size() != 2 || w[0] != kMagic) r.fail("not a dispatch model");
    if (number<int>(r, w[1], "format") != kModelFormat)
      r.fail("format " + std::string(w[1]) + ", this build reads " +
             std::to_string(kModelFormat));
  }
  model.gpu = std::string(keyed(r, "gpu"));
  const std::string acc(keyed(r, "acc"));
  const std::optional<Accum> accum = parse_accum(acc);
  if (!accum) r.fail("unknown accumulation '" + acc + "'");
  model.accum = *accum;
  model.sm_count = number<int>(r, keyed(r, "sm_count"), "sm_count");
  if (model.sm_count < 1 || model.sm_count > 1024)
    r.fail("sm_count " + std::to_string(model.sm_count) + " is not 1..1024");
  // The device the fit and its checks assumed (its SM count is all the features read of it).
  DeviceInfo fitted_on;
  fitted_on.sm_count = model.sm_count;
  model.source = std::string(keyed(r, "source"));
  model.source_bytes = number<int64_t>(r, keyed(r, "source_bytes"), "source_bytes");
  {
    const auto w = split(r.next("features"));
    const std::vector<std::string>& names = model_feature_names();
    if (w.empty() || w[0] != "features" || w.size() < 2 ||
        number<size_t>(r, w[1], "feature count") != names.size() || w.size() != names.size() + 2)
      r.fail("expected the " + std::to_string(names.size()) + " features this build computes");
    for (size_t i = 0; i < names.size(); ++i)
      if (w[i + 2] != names[i])
        r.fail("feature " + std::to_string(i) + " is '" + std::string(w[i + 2]) +
               "', this build computes '" + names[i] + "' there");
  }
  std::vector<std::string_view> w, tw;
  while (!r.at_end()) {
    split(r.next("a line"), w);
    if (w[0] == "layout") {
      if (w.size() != 8 || w[2] != "trees" || w[4] != "depth" || w[6] != "base")
        r.fail("expected 'layout L trees T depth D base B'");
      DispatchModel::Forest* f = w[1] == "tn" ? &model.tn : w[1] == "nn" ? &model.nn : nullptr;
      if (!f) r.fail("unknown layout '" + std::string(w[1]) + "'");
      if (f->present) r.fail("a second forest for " + std::string(w[1]));
      const int trees = number<int>(r, w[3], "trees");
      f->depth = number<int>(r, w[5], "depth");
      f->base = number<double>(r, w[7], "base");
      if (trees < 1 || trees > 10000 || f->depth < 1 || f->depth > 12)
        r.fail("trees 1..10000 and depth 1..12, got " + std::to_string(trees) + " and " +
               std::to_string(f->depth));
      const size_t inner = (size_t(1) << f->depth) - 1;
      const int features = int(model_feature_names().size());
      for (int t = 0; t < trees; ++t) {
        split(r.next("a tree"), tw);
        if (tw.size() != inner * 2 + inner + 1 + 2 || tw[inner] != "|" || tw[2 * inner + 1] != "|")
          r.fail("a tree of depth " + std::to_string(f->depth) + " has " +
                 std::to_string(inner) + " features | thresholds | " +
                 std::to_string(inner + 1) + " leaves");
        DispatchModel::Tree tree;
        for (size_t i = 0; i < inner; ++i) {
          const int feature = number<int>(r, tw[i], "feature");
          if (feature < -1 || feature >= features) r.fail("feature index out of range");
          tree.feature.push_back(feature);
          tree.threshold.push_back(number<double>(r, tw[inner + 1 + i], "threshold"));
        }
        for (size_t i = 0; i <= inner; ++i)
          tree.leaf.push_back(number<double>(r, tw[2 * inner + 2 + i], "leaf"));
        f->trees.push_back(std::move(tree));
      }
      f->present = true;
    } else if (w[0] == "check") {
      if (w.size() != 6) r.fail("expected 'check M N K CONFIG VALUE'");
      const std::optional<KernelConfig> config = KernelConfig::parse(w[4]);
      if (!config || config->family != Family::kSm90Ws)
        r.fail("'" + std::string(w[4]) + "' is not an sm90 config name");
      DispatchModel::Check check;
      check.problem = Problem{number<int64_t>(r, w[1], "M"), number<int64_t>(r, w[2], "N"),
                              number<int64_t>(r, w[3], "K"), config->layout, config->accum};
      check.config = *config;
      check.value = number<double>(r, w[5], "value");
      const std::optional<double> got = model.predict(check.problem, check.config, fitted_on);
      if (!got)
        r.fail("a check before the forest of its layout");
      if (!(std::fabs(*got - check.value) <= 1e-9))
        r.fail("this build predicts " + std::to_string(*got) + " where the fit computed " +
               std::string(w[5]) + ": its features or tree walk differ from " +
               "scripts/fit-dispatch-model's");
      model.checks.push_back(check);
    } else {
      r.fail("unknown line '" + std::string(w[0]) + " ...'");
    }
  }
  return model;
}

DispatchModel load_model(const std::string& path) {
  const std::optional<std::string> text = read_file(path);
  if (!text) throw_io_error("cannot read the dispatch model", path);
  return parse_model(*text, path);
}

std::string model_path_for_table(const std::string& table_path) {
  constexpr std::string_view kTable = ".table";
  if (table_path.size() >= kTable.size() &&
      table_path.compare(table_path.size() - kTable.size(), kTable.size(), kTable) == 0)
    return table_path.substr(0, table_path.size() - kTable.size()) + ".model";
  return table_path + ".model";
}

}  // namespace hgemm::dispatch
