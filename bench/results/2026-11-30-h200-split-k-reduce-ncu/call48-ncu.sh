#!/bin/bash
# ncu kernel durations of split-K calls: the main kernel and splitk_reduce_kernel apart (what an
# in-kernel fix-up would save), and the unsplit alternatives.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s); unset HGEMM_JIT
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=b699064 > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
run() { # shape layout config
  timeout 60 ncu --metrics gpu__time_duration.sum --kernel-name regex:"sm90|splitk" --launch-skip 40 --launch-count 12 --csv \
    /tmp/b/hgemm bench --shape $1 --layout $2 --acc f32 --impl config:$3 --modes offline --loops 5 --out /tmp/x.csv > $o/ncu-$1-$3.csv 2>&1 || echo "rc=$? $1 $3"
}
run 300x2560x9728 nn sm90_ws_104x128x64_s7_c1x1_w2_m8_st_sk2_f32_nn_swap
run 300x2560x9728 nn sm90_ws_104x128x64_s7_c1x1_w2_m8_st_sk1_f32_nn_swap
run 300x2560x9728 nn sm90_ws_104x64x64_s10_c1x1_w1_m4_tma_sk1_f32_nn_swap
run 20x4096x12288 nn sm90_ws_32x64x64_s12_c1x1_w2_m8_st_sk2_f32_nn_swap
run 20x4096x12288 nn sm90_ws_16x64x64_s12_c1x1_w2_m4_st_sk1_f32_nn_swap
run 96x5120x27648 tn sm90_ws_96x128x64_s8_c1x1_w2_m8_st_sk2_f32_tn_swap
run 12x3072x8192 nn sm90_ws_16x64x64_s12_c1x1_w2_m8_st_sk2_f32_nn_swap
echo "done $(( $(date +%s) - t0 )) s"
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
