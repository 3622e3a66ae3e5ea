#!/bin/bash
# Split swap-AB picks: direct stores against the TMA-store twin at the same split, one bench a shape.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
P=sm90_ws_
# shape layout acc st-tile tma-tile split
while read -r shape lay acc st tma sk; do
  i=$((${i:-0}+1))
  b/hgemm bench --shape $shape --impl config:${P}${st}_st_sk${sk}_${acc}_${lay}_swap,config:${P}${tma}_tma_sk${sk}_${acc}_${lay}_swap,cublaslt-best \
    --modes graph --layout $lay --acc $acc --loops 9 --out $o/split-$i.csv >> $o/bench.log 2>&1 || echo "bench fail $shape $lay $acc"
done <<'LIST'
100x1536x7168 nn f32 112x64x64_s8_c1x1_w1_m8 112x64x64_s8_c1x1_w1_m8 4
129x2048x4096 tn f32 80x64x64_s10_c1x1_w1_m8 80x64x64_s10_c1x1_w1_m8 2
150x3072x8192 tn f32 80x192x64_s6_c1x1_w3_m8 80x192x64_s6_c1x1_w3_m8 4
150x5120x32768 tn f32 80x192x64_s6_c1x1_w3_m8 80x192x64_s6_c1x1_w3_m8 2
150x8192x29568 tn f32 160x128x64_s6_c1x1_w2_m8 160x128x64_s5_c1x1_w2_m8 2
300x2048x8192 nn f32 80x128x64_s8_c1x1_w2_m8 80x128x64_s8_c1x1_w2_m8 2
300x2880x4096 nn f32 80x192x64_s6_c1x1_w3_m8 80x192x64_s6_c1x1_w3_m8 2
512x576x7168 nn f32 80x64x64_s10_c1x1_w1_m8 80x64x64_s10_c1x1_w1_m8 2
77x2048x8192 tn f32 80x64x64_s10_c1x1_w1_m8 80x64x64_s10_c1x1_w1_m8 4
77x2560x9728 tn f32 80x128x64_s8_c1x1_w2_m8 80x128x64_s8_c1x1_w2_m8 4
77x4608x36864 tn f32 80x192x64_s6_c1x1_w3_m8 80x192x64_s6_c1x1_w3_m8 4
77x4608x36864 nn f32 80x128x64_s8_c1x1_w2_m8 80x128x64_s8_c1x1_w2_m8 2
40x8192x29568 tn f16 80x128x64_s8_c1x1_w2_m8 80x128x64_s8_c1x1_w2_m8 8
150x5120x32768 tn f16 80x192x64_s6_c1x1_w3_m8 80x192x64_s6_c1x1_w3_m8 4
77x2048x8192 tn f16 80x64x64_s10_c1x1_w1_m8 80x64x64_s10_c1x1_w1_m8 4
129x3584x18944 tn f16 144x64x64_s8_c1x1_w1_m8 144x64x64_s8_c1x1_w1_m8 2
LIST
echo "done $(( $(date +%s) - t0 )) s"
tar czf $OUT/all.tgz -C $o .
