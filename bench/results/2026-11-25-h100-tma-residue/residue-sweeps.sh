#!/usr/bin/env bash
set -u
W=/tmp/e5; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 --target hgemm_cli > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
H=build-gpu/hgemm
$H bench --shape 96x5120x13824,100x5120x13824,104x5120x13824,112x5120x13824,116x5120x13824,120x5120x13824,100x5120x13824 --impl config:sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn --modes graph --layout tn --acc f32 --loops 9 --out $W/a.csv < /dev/null > $W/a.log 2>&1
$H bench --shape 480x3584x3584,500x3584x3584,512x3584x3584 --impl config:sm90_ws_128x128x64_s6_c1x1_w2_m4_st_sk1_f32_tn,cublaslt-best --modes graph --layout tn --acc f32 --loops 9 --out $W/b.csv < /dev/null > $W/b.log 2>&1
$H bench --shape 320x3072x2048,333x3072x2048,384x3072x2048 --impl config:sm90_ws_64x160x64_s8_c1x1_w1_m8_st_sk1_f32_tn,cublaslt-best --modes graph --layout tn --acc f32 --loops 9 --out $W/c.csv < /dev/null > $W/c.log 2>&1
$H bench --shape 960x2048x2048,1000x2048x2048,1024x2048x2048 --impl config:sm90_ws_128x128x64_s6_c1x1_w2_m16_st_sk1_f32_tn,cublaslt-best --modes graph --layout tn --acc f32 --loops 9 --out $W/d.csv < /dev/null > $W/d.log 2>&1
$H bench --shape 64x5120x13824,100x5120x13824,128x5120x13824 --impl config:sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn --modes graph --layout nn --acc f32 --loops 9 --out $W/e.csv < /dev/null > $W/e.log 2>&1
grep -h "graph ms" $W/*.log
cd $W && tar czf $OUT/e5.tgz .
