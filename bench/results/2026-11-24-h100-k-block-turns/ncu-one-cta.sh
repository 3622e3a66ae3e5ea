#!/usr/bin/env bash
set -u
if [ ! -x build-gpu/hgemm ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_BUILD_PYTHON=OFF > $OUT/cmake.log 2>&1
  cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { tail -50 $OUT/build.log; exit 1; }
fi
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc HGEMM_USER_TABLE=/tmp/absent
H=build-gpu/hgemm
C="sm90_ws_64x96x64_s4_c1x1_w1_m8_st_sk1_f32_tn sm90_ws_64x96x64_s6_c1x1_w1_m8_st_sk1_f32_tn sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn sm90_ws_64x96x64_s10_c1x1_w2_m8_st_sk1_f32_tn sm90_ws_64x96x64_s4_c1x1_w2_m8_st_sk1_f32_tn sm90_ws_128x128x64_s6_c1x1_w2_m8_st_sk1_f32_tn sm90_ws_64x96x64_s10_c2x2_w1_m8_st_sk1_f32_tn"
$H jit build $C --jobs 16 > $OUT/jit.log 2>&1
M="sm__cycles_active.max,gpc__cycles_elapsed.max,sm__pipe_tensor_op_hmma_cycles_active.max,lts__t_sectors_srcunit_tex_op_read.sum"
for s in 64x96x7168 128x192x7168 1024x576x7168; do
  for c in $C; do
    case "$c" in *128x128*) [ $s = 64x96x7168 ] && continue;; *c2x2*) [ $s = 64x96x7168 ] && continue;; esac
    echo "== $s $c $(timeout 100 ncu --clock-control none -k regex:sm90_ws_gemm --launch-skip 3 --launch-count 1 --metrics $M \
    $H bench --shape $s --impl config:$c --modes offline --layout tn --acc f32 --loops 5 --out /tmp/x.csv < /dev/null 2>&1 | grep -E "^\s+(sm__|gpc__|lts)" | awk '{printf "%s=%s  ", $1, $NF}')"
  done
done
