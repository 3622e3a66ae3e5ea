#!/bin/bash
# Call 5 (main 361fab8): the catalog's small-M tiles beside dispatch and cublaslt-best on the TN
# shapes of 17-128 tokens (and three of 129-400) that run below 0.95 of cublaslt-best; one run.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
impls=hgemm,cublaslt-best
for c in 32x64x64_s12_c1x1_w1_m8_st_sk1_f32_tn_swap 32x64x64_s12_c1x1_w2_m8_st_sk1_f32_tn_swap \
         32x64x64_s12_c1x1_w2_m8_st_sk2_f32_tn_swap 40x64x64_s12_c1x1_w1_m8_st_sk1_f32_tn_swap \
         48x64x64_s12_c1x1_w1_m8_st_sk1_f32_tn_swap 48x64x64_s12_c1x1_w2_m8_st_sk1_f32_tn_swap \
         48x64x64_s12_c1x1_w2_m8_st_sk2_f32_tn_swap 80x64x64_s10_c1x1_w1_m8_st_sk1_f32_tn_swap \
         80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_swap 80x128x64_s8_c2x1_w2_m8_st_sk1_f32_tn_swap \
         104x128x64_s7_c1x1_w2_m8_st_sk1_f32_tn_swap 104x128x64_s7_c1x1_w2_m8_st_sk2_f32_tn_swap \
         160x128x64_s6_c1x1_w2_m8_st_sk1_f32_tn_swap 64x96x64_s10_c1x1_w1_m8_st_sk1_f32_tn \
         64x128x64_s6_c1x1_w1_m8_st_sk1_f32_tn 64x160x64_s8_c1x1_w1_m8_st_sk1_f32_tn \
         64x256x64_s4_c1x1_w1_m8_tma_sk1_f32_tn; do
  impls="$impls,config:sm90_ws_$c"
done
shapes=20x4096x12288,77x19456x2560,94x4096x7168,96x5120x3072,96x7168x5120,96x24576x4096,96x55296x5120,300x2560x4096,300x6144x2560,150x3072x8192
b/hgemm bench --shape $shapes --impl $impls --modes graph --layout tn --acc f32 --loops 7 \
  --out $o/small-m-tiles-f32.csv > $o/small-m-tiles.log 2>&1
echo "bench rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
gzip -9 -n $o/*.csv $o/build.log; tar czf $OUT/all.tgz -C $o .
cat $o/progress
