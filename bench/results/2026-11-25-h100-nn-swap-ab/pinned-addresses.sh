#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/w6; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=OFF > $W/cmake.log 2>&1
cmake --build build-gpu --target hgemm_cli -j16 > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
export HGEMM_JIT_CACHE=/tmp/jitc
run() { # config shapes
  for src in stock hoist; do
    timeout 120 $H variants try --no-source-rules --source scratch/$src.cuh --config $1 --shape $2 --out $W/$src-$1 > $W/$src-$1.log 2>&1
    echo "$src $1 rc $? $(( $(date +%s) - T0 )) s: $(tail -1 $W/$src-$1.log | cut -c1-200)"
  done
}
run sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn 1024x576x7168,1000x576x2048,168x2048x1408
run sm90_ws_32x64x64_s12_c1x1_w2_m8_st_sk1_f32_tn_swap 94x4096x7168,18x2048x768
run sm90_ws_128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_tn 4096x4096x4096,2048x8192x1024
cd $W && tar czf $OUT/w6.tgz */record.json *.log
