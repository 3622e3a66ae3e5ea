#!/bin/bash
# TN M = 9..16: the decode kernels (dispatch) against the sm90 swap-AB tiles 16x128 and 32x64
# with K split 1, 2, 4 ways and cublaslt-best, one graph-mode run, f32.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
impls=hgemm,cublaslt-best
for c in 16x128x64_s10_c1x1_w1_m8_st_sk1 16x128x64_s10_c1x1_w1_m8_st_sk2 16x128x64_s10_c1x1_w1_m8_st_sk4 \
         32x64x64_s12_c1x1_w2_m8_st_sk1 32x64x64_s12_c1x1_w2_m8_st_sk2; do
  impls="$impls,config:sm90_ws_${c}_f32_tn_swap"
done
shapes=$(cat scratch/probe2/shapes.txt)
for acc in f32 f16; do
  b/hgemm bench --shape "$shapes" --impl "${impls//f32_tn/${acc}_tn}" --modes graph --layout tn --acc $acc --loops 7 \
    --out $o/m16-$acc.csv > $o/m16-$acc.log 2>&1
  echo "m16 $acc rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
gzip -9 $o/*.csv; tar czf $OUT/all.tgz -C $o .
cat $o/progress; tail -3 $o/m16-f32.log
