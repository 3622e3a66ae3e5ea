// A measurer that measures nothing: it answers from a table of earlier measurements (a tuning
// database filled by `hgemm tune --policy exhaustive`), so search policies can be compared
// offline on real GPU numbers (`hgemm ablate`, src/tuner/ablation.hpp). Only the order in which
// a policy asks is simulated; every answer is a measurement that happened.
//
// A (problem, config) pair the table lacks is answered not_supported ("not in the replay
// table"). A pair with several records (the table's runs were repeated or merged) is answered
// with the timed record of median median_us (the lower middle one for an even count), or with
// the first record when none of them is timed: one fixed answer per pair, so every policy sees
// the same landscape.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "tuner/db/database.hpp"
#include "tuner/measure/measurer.hpp"

namespace hgemm::tuner {

class ReplayMeasurer : public Measurer {
 public:
  explicit ReplayMeasurer(const std::vector<Record>& table);

  Measurement measure(const Problem& problem, const KernelConfig& config) override;

  // The answer measure() gives for the pair, without counting a call; nullptr when the table
  // lacks it.
  const Measurement* find(const Problem& problem, const std::string& config) const;
  size_t pairs() const { return table_.size(); }
  long calls() const { return calls_; }
  long misses() const { return misses_; }  // calls answered "not in the replay table"

 private:
  std::unordered_map<std::string, Measurement> table_;  // by problem name + ' ' + config name
  long calls_ = 0;
  long misses_ = 0;
};

}  // namespace hgemm::tuner
