// What a benchmark run records about the machine: the header of every results file, and the SM
// clock read around each measurement.
#pragma once

#include <string>

#include "bench/results_csv.hpp"

namespace hgemm::bench {

// GPU name, SM count, L2, driver, CUDA runtime, cuBLAS and cuBLASLt versions, max SM clock, git
// hash of this build, the UTC date and whether programmatic dependent launch is on, as
// `# key=value` pairs. Touches the current device.
Environment collect_environment();

// "2026-11-22T10:31:07Z"
std::string utc_now();

// The git hash this library was built from ("unknown" when the build could not tell).
const char* git_hash();

// The current SM clock through NVML, loaded with dlopen so that a machine without NVML still
// benchmarks: sm_clock_mhz() then returns -1. NVML is found by the device's PCI bus id, which
// stays right whatever CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER say.
class ClockReader {
 public:
  ClockReader();  // binds to the current CUDA device
  ~ClockReader();
  ClockReader(const ClockReader&) = delete;
  ClockReader& operator=(const ClockReader&) = delete;

  bool available() const { return device_ != nullptr; }
  int sm_clock_mhz() const;

 private:
  void* library_ = nullptr;
  void* device_ = nullptr;
  void* get_clock_ = nullptr;
};

}  // namespace hgemm::bench
