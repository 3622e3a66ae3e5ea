#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/e11; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 --target hgemm_cli > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
I=""
for c in 64x96x64_s10_c1x1_w1 64x128x64_s6_c1x1_w1 64x160x64_s8_c1x1_w1 128x96x64_s6_c1x1_w2 128x128x64_s6_c1x1_w2 128x64x64_s8_c1x1_w2; do
  I="$I,config:sm90_ws_${c}_m8_st_sk1_f32_nn,config:sm90_ws_${c}_m8_st_sk1_f32_tn"
done
$H bench --shape 128x5184x13824,768x2048x4096,512x7680x4096 --impl ${I#,} --modes graph --layout nn,tn --acc f32 --loops 7 --out $W/a.csv < /dev/null > $W/a.log 2>&1
grep -h "graph ms" $W/*.log
cd $W && tar czf $OUT/e11.tgz .
