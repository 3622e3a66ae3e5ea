#include "launch/sm90_instance.cuh"
namespace hgemm {
using E = Epilogue;
constexpr Sm90Variant kV[] = {
    {128, 256, 64, 4, 2, 2, 1, E::kTmaStore, Accum::kF32, Layout::kTN, Schedule::kCooperative, false},
    {128, 176, 64, 4, 2, 1, 1, E::kTmaStore, Accum::kF32, Layout::kTN, Schedule::kCooperative, true},
    {256, 96, 64, 4, 2, 1, 1, E::kTmaStore, Accum::kF32, Layout::kNN, Schedule::kCooperative, true},
    {128, 224, 64, 4, 2, 2, 1, E::kTmaStore, Accum::kF32, Layout::kTN, Schedule::kCooperative, false},
    {128, 128, 64, 5, 2, 1, 2, E::kTmaStore, Accum::kF32, Layout::kTN, Schedule::kPingPong, false},
    {192, 80, 64, 5, 3, 1, 1, E::kTmaStore, Accum::kF32, Layout::kNN, Schedule::kCooperative, true},
};
KernelInstance probe0() { return sm90::Instance<kV[0]>::instance(); }
KernelInstance probe1() { return sm90::Instance<kV[1]>::instance(); }
KernelInstance probe2() { return sm90::Instance<kV[2]>::instance(); }
KernelInstance probe3() { return sm90::Instance<kV[3]>::instance(); }
KernelInstance probe4() { return sm90::Instance<kV[4]>::instance(); }
KernelInstance probe5() { return sm90::Instance<kV[5]>::instance(); }
}
