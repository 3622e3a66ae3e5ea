#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/e10; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 --target hgemm_cli > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
$H bench --shape 128x5120x13824,128x5184x13824,100x5120x13824 --impl config:sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_nn,config:sm90_ws_64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn,cublaslt-best --modes graph --layout nn,tn --acc f32 --loops 7 --out $W/a.csv < /dev/null > $W/a.log 2>&1
$H bench --shape 333x27648x5120,333x27680x5120 --impl config:sm90_ws_128x160x64_s6_c1x1_w2_m8_st_sk1_f32_nn,config:sm90_ws_128x160x64_s6_c1x1_w2_m8_st_sk1_f32_tn,cublaslt-best --modes graph --layout nn,tn --acc f32 --loops 7 --out $W/b.csv < /dev/null > $W/b.log 2>&1
grep -h "graph ms" $W/*.log
cd $W && tar czf $OUT/e10.tgz .
