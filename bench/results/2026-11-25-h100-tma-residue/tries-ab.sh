#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/e8; rm -rf $W; mkdir -p $W
pack() { (cd $W && tar czf $OUT/e8.tgz --exclude='*/cubin*' . ); }
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
export HGEMM_JIT_CACHE=/tmp/jitc
(cd build-gpu && timeout 260 ctest -L gpu -R "^(test_sm90_family|memcheck_sm90|test_gemm_general|memcheck_gemm_general|test_jit|memcheck_jit|test_api_gpu|test_promoted_variants|memcheck_sm90_split_k)$" --output-on-failure > $W/tests.log 2>&1); echo "tests rc $? $(( $(date +%s) - T0 )) s"
grep -E "tests passed|Failed|Passed" $W/tests.log
pack
run() { # config shapes
  for round in 1 2; do
    for src in stock shiftab; do
      [ $(( $(date +%s) - T0 )) -gt 500 ] && { pack; exit 0; }
      timeout 60 $H variants try --source scratch/$src.cuh --config $1 --shape $2 --out $W/$src-$round-$1 > $W/$src-$round-$1.log 2>&1
      echo "$src $round $1 rc $?"
    done
  done
  pack
}
run sm90_ws_80x64x64_s10_c1x1_w1_m8_st_sk1_f32_tn_swap 1000x576x2048,1024x576x7168,960x576x2048
run sm90_ws_104x128x64_s7_c1x1_w2_m8_st_sk1_f32_tn_swap 1025x1536x7168,333x1536x7168
run sm90_ws_32x64x64_s12_c1x1_w2_m8_st_sk1_f32_tn_swap 37x4096x4096,20x4096x4096
run sm90_ws_128x128x64_s6_c1x1_w2_m4_st_sk1_f32_tn 1024x1000x4096,1024x1100x4096,480x3584x3584
run sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn 100x5120x13824,1000x576x2048
HGEMM_USER_TABLE=/tmp/absent timeout 30 $H bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 --out $W/heldout-f32.csv < /dev/null > $W/heldout-f32.log 2>&1
pack
