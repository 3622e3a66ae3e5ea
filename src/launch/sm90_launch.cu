// Host side of the sm90 warp-specialized family: the compiled catalog, can_implement with its
// reasons, and the grid-size knob. The kernels themselves are instantiated in sm90_catalog_*.cu
// (one tile shape family per translation unit, so a parallel build compiles them side by side).
#include <atomic>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "launch/launch.hpp"
#include "launch/sm90_launch.hpp"

namespace hgemm {
namespace {

std::atomic<int> g_max_ctas{0};

bool aligned16(void const* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

Status refuse(KernelConfig const& config, hgemmStatus_t code, std::string const& why) {
  return Status::failure(code, config.name() + ": " + why);
}

}  // namespace

void sm90_set_max_ctas(int max_ctas) { g_max_ctas.store(max_ctas < 0 ? 0 : max_ctas); }
int sm90_max_ctas() { return g_max_ctas.load(std::memory_order_relaxed); }

Status sm90_check_args(KernelConfig const& config, GemmArgs const& args) {
  if (args.m < 1 || args.n < 1 || args.k < 1)
    return refuse(config, HGEMM_ERROR_INVALID_SIZE,
                  "M, N and K must be positive, got M=" + std::to_string(args.m) +
                      " N=" + std::to_string(args.n) + " K=" + std::to_string(args.k));
  if (args.m > INT_MAX || args.n > INT_MAX || args.k > INT_MAX)
    return refuse(config, HGEMM_ERROR_SIZE_OVERFLOW, "TMA coordinates are 32-bit");
  // TMA global strides are multiples of 16 bytes: A's row is K halves, C's is N, B's is K (TN)
  // or N (NN), so K % 8 == 0 and N % 8 == 0 cover all three.
  if (args.k % 8 != 0)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "TMA needs 16-byte row strides; K=" + std::to_string(args.k) +
                      " is not a multiple of 8");
  if (args.n % 8 != 0)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "TMA needs 16-byte row strides; N=" + std::to_string(args.n) +
                      " is not a multiple of 8");
  if (!aligned16(args.a) || !aligned16(args.b) || !aligned16(args.c))
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  std::string("TMA needs 16-byte aligned base pointers; not aligned:") +
                      (aligned16(args.a) ? "" : " A") + (aligned16(args.b) ? "" : " B") +
                      (aligned16(args.c) ? "" : " C"));
  const int64_t tiles_m = (args.m + config.block_m * config.cluster_m - 1) /
                          (int64_t(config.block_m) * config.cluster_m);
  const int64_t tiles_n = (args.n + config.block_n * config.cluster_n - 1) /
                          (int64_t(config.block_n) * config.cluster_n);
  if (tiles_m * tiles_n > INT_MAX)
    return refuse(config, HGEMM_ERROR_SIZE_OVERFLOW, "more than 2^31-1 output tiles");
  return Status::success();
}

std::vector<KernelInstance> sm90_instances() {
  std::vector<KernelInstance> out;
  sm90_add_catalog_128x256(out);
  sm90_add_catalog_128x128(out);
  sm90_add_catalog_256x128(out);
  sm90_add_catalog_64xn(out);
  sm90_add_catalog_256x256(out);
  sm90_add_catalog_pingpong(out);
  return out;
}

Status sm90_can_implement(Problem const& problem, KernelConfig const& config,
                          GemmArgs const& args, DeviceInfo const& device) {
  if (config.family != Family::kSm90Ws)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED, "not an sm90 config");
  if (config.layout != problem.layout || config.accum != problem.accum)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "built for " + std::string(to_string(config.layout)) + "/" +
                      std::string(to_string(config.accum)) + ", the problem is " + problem.name());
  if (!device.is_sm90())
    return refuse(config, HGEMM_ERROR_ARCH_UNSUPPORTED,
                  "needs an sm_90 device (H100/H200); " + device.name + " is " +
                      std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor));
  if (Status s = config.validate(); !s.ok()) return s;
  if (Status s = sm90_check_args(config, args); !s.ok()) return s;
  if (sm90_dynamic_smem_bytes(config) > device.max_smem_per_block_optin)
    return refuse(config, HGEMM_ERROR_NOT_SUPPORTED,
                  "needs " + std::to_string(sm90_dynamic_smem_bytes(config)) +
                      " B of shared memory, " + device.name + " allows " +
                      std::to_string(device.max_smem_per_block_optin));
  return Status::success();
}

}  // namespace hgemm
