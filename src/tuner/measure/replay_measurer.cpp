#include "tuner/measure/replay_measurer.hpp"

#include <algorithm>

namespace hgemm::tuner {
namespace {

std::string key_of(const Problem& problem, const std::string& config) {
  return problem.name() + ' ' + config;
}

}  // namespace

ReplayMeasurer::ReplayMeasurer(const std::vector<Record>& table) {
  std::unordered_map<std::string, std::vector<const Record*>> by_pair;
  std::vector<std::string> order;
  for (const Record& r : table) {
    auto [it, fresh] = by_pair.try_emplace(key_of(r.problem, r.config));
    if (fresh) order.push_back(it->first);
    it->second.push_back(&r);
  }
  for (const std::string& key : order) {
    const std::vector<const Record*>& records = by_pair.at(key);
    std::vector<const Record*> timed;
    for (const Record* r : records)
      if (r->measurement.timed()) timed.push_back(r);
    if (timed.empty()) {
      table_.emplace(key, records.front()->measurement);
      continue;
    }
    // stable_sort: equal times keep file order, so the answer does not depend on the library.
    std::stable_sort(timed.begin(), timed.end(), [](const Record* a, const Record* b) {
      return a->measurement.median_us < b->measurement.median_us;
    });
    table_.emplace(key, timed[(timed.size() - 1) / 2]->measurement);
  }
}

const Measurement* ReplayMeasurer::find(const Problem& problem, const std::string& config) const {
  const auto it = table_.find(key_of(problem, config));
  return it == table_.end() ? nullptr : &it->second;
}

Measurement ReplayMeasurer::measure(const Problem& problem, const KernelConfig& config) {
  ++calls_;
  if (const Measurement* m = find(problem, config.name())) return *m;
  ++misses_;
  Measurement m;
  m.disposition = Disposition::kNotSupported;
  m.detail = "not in the replay table";
  return m;
}

}  // namespace hgemm::tuner
