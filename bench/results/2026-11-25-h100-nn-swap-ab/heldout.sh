#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/w4; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_BUILD_PYTHON=OFF > $W/cmake.log 2>&1
cmake --build build-gpu -j16 > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
git rev-parse HEAD > $W/env.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $W/env.txt
export HGEMM_USER_TABLE=/tmp/absent
for acc in f32 f16; do
  timeout 200 $H bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn --acc $acc --out $W/heldout-$acc.csv < /dev/null > $W/heldout-$acc.log 2>&1
  echo "$acc rc $? $(( $(date +%s) - T0 )) s"
done
S=$(cat scratch/nn-decode-shapes.txt)
imp=hgemm,cublaslt-best
for sk in 1 2 4 8; do imp=$imp,config:sm90_ws_32x64x64_s12_c1x1_w2_m8_st_sk${sk}_f32_nn_swap,config:sm90_ws_48x64x64_s12_c1x1_w1_m8_st_sk${sk}_f32_nn_swap; done
timeout 200 $H bench --shape $S --impl $imp --modes graph --layout nn --acc f32 --out $W/nn-small.csv < /dev/null > $W/nn-small.log 2>&1
echo "small rc $? $(( $(date +%s) - T0 )) s"
cd $W && tar czf $OUT/w4.tgz *.csv *.log env.txt
