#!/bin/bash
# Probe at 600, 850 and 1150 tokens over 12 of llm-tune's layers (shapes in no suite): dispatch, cublaslt-best and
# fourteen compiled tiles (nine swap-AB with TMA stores, five without swap), both layouts, fp32, one bench a layout.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
for lay in tn nn; do
  impls=hgemm,cublaslt-best
  for t in 152x128x64_s5_c1x1_w2_m8_tma 160x128x64_s5_c1x1_w2_m8_tma 232x128x64_s3_c1x1_w2_m8_tma 224x128x64_s4_c1x1_w2_m8_tma \
           176x128x64_s5_c1x1_w2_m8_tma 144x128x64_s6_c1x1_w2_m8_tma 208x192x64_s4_c1x1_w3_m8_tma 96x192x64_s5_c1x1_w3_m8_tma 232x64x64_s5_c1x1_w1_m8_tma; do
    impls=$impls,config:sm90_ws_${t}_sk1_f32_${lay}_swap
  done
  for t in 128x256x64_s4_c2x1_w2_m8_tma 128x192x64_s4_c2x1_w2_m8_tma 192x192x64_s4_c1x1_w3_m8_st 128x128x64_s7_c1x1_w2_m8_st 128x160x64_s6_c1x1_w2_m8_st; do
    impls=$impls,config:sm90_ws_${t}_sk1_f32_${lay}
  done
  timeout 200 b/hgemm bench --suite scratch/ab/probe-mid.txt --impl $impls --modes graph --layout $lay --acc f32 \
    --out $o/probe-mid-$lay.csv > $o/probe-mid-$lay.log 2>&1 || echo "bench rc=$? $lay"
  echo "$lay $(( $(date +%s) - t0 )) s"
  tar czf $OUT/all.tgz -C $o .
done
