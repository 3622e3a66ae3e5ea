#!/usr/bin/env bash
set -u
W=/tmp/e6; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 --target hgemm_cli > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
H=build-gpu/hgemm
for pad in 0 1 0 1; do
  if [ $pad = 1 ]; then export HGEMM_EXP_PAD_A=1; else unset HGEMM_EXP_PAD_A; fi
  $H bench --shape 96x5120x13824,100x5120x13824,128x5120x13824,480x3584x3584,512x3584x3584 --impl config:sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn,config:sm90_ws_128x128x64_s6_c1x1_w2_m4_st_sk1_f32_tn --modes graph --layout tn --acc f32 --loops 7 --out $W/p$pad-$RANDOM.csv < /dev/null 2>&1 | grep "graph ms" | sed "s/^/pad=$pad /"
done
