// A call's epilogue (launch/launch.hpp, EpilogueArgs) as the kernels read it
// (kernels/common/epilogue.cuh), for the launchers of the families that fuse it.
#pragma once

#include <cstdint>

#include "kernels/common/epilogue.cuh"
#include "launch/launch.hpp"

namespace hgemm {

inline kernels::EpilogueParams epilogue_params(EpilogueArgs const& epilogue) {
  kernels::EpilogueParams e;
  e.alpha = epilogue.alpha;
  e.beta = epilogue.beta;
  e.bias = static_cast<uint16_t const*>(epilogue.bias);
  e.activation = epilogue.activation;
  e.ops = epilogue.plain() ? 0 : 1;
  return e;
}

}  // namespace hgemm
