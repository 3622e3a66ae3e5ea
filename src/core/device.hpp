// Facts about a CUDA device, read once per device and cached. Nothing else in the library asks the
// runtime for SM counts, L2 size or shared-memory limits.
#pragma once

#include <string>

#include "hgemm/hgemm.hpp"

namespace hgemm {

struct DeviceInfo {
  int ordinal = -1;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int l2_bytes = 0;
  int max_smem_per_block_optin = 0;
  // Nominal peak DRAM bandwidth (memory clock x bus width, double data rate); 0 when unknown.
  double dram_bytes_per_s = 0;
  int driver_version = 0;   // as cudaDriverGetVersion reports it
  int runtime_version = 0;

  int cc() const { return cc_major * 10 + cc_minor; }
  bool is_sm90() const { return cc_major == 9 && cc_minor == 0; }
};

// The current device's facts. Throws Error(HGEMM_ERROR_NO_DEVICE) when no device is visible.
const DeviceInfo& current_device();

// Like current_device(), but returns a status instead of throwing (the C API's lean path).
Status query_current_device(const DeviceInfo** out);

}  // namespace hgemm
