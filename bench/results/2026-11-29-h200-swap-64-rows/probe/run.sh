#!/bin/bash
# Probe: TN/NN M 12,16 over llm-tune's 42 (N, K) pairs: dispatch, cublaslt-best and the swap tiles
# 16x64 (w1, w2), 16x128, 32x64 split 1-4; M 1, 8: dispatch against the 8-token tiles (JIT).
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table HGEMM_JIT=1 HGEMM_JIT_CACHE=$PWD/scratch/jit31
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build build-gpu -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
b=build-gpu/hgemm
cfg() { local s="" ; for c in "$@"; do s="$s,config:sm90_ws_${c}_f32_LAY_swap"; done; echo "$s"; }
i16="hgemm,cublaslt-best$(cfg 16x64x64_s12_c1x1_w1_m8_st_sk1 16x64x64_s12_c1x1_w1_m8_st_sk2 16x64x64_s12_c1x1_w1_m8_st_sk4 \
  16x64x64_s12_c1x1_w2_m8_st_sk1 16x64x64_s12_c1x1_w2_m8_st_sk2 16x128x64_s10_c1x1_w1_m8_st_sk1 16x128x64_s10_c1x1_w1_m8_st_sk2 \
  32x64x64_s12_c1x1_w2_m8_st_sk1 32x64x64_s12_c1x1_w2_m8_st_sk2)"
i8="hgemm,cublaslt-best$(cfg 8x64x64_s12_c1x1_w1_m8_st_sk1 8x64x64_s12_c1x1_w1_m8_st_sk2 8x64x64_s12_c1x1_w2_m8_st_sk1 \
  8x64x64_s12_c1x1_w2_m8_st_sk2 8x128x64_s10_c1x1_w1_m8_st_sk1 8x128x64_s10_c1x1_w1_m8_st_sk2 16x64x64_s12_c1x1_w1_m8_st_sk1 \
  16x128x64_s10_c1x1_w1_m8_st_sk1)"
for job in m16:tn:170 m16:nn:120 m8:tn:100 m8:nn:100; do
    IFS=: read set lay lim <<< "$job"
    impls=$i16; [ $set = m8 ] && impls=$i8
    timeout $lim $b bench --shape "$(cat scratch/p31/$set.txt)" --impl "${impls//LAY/$lay}" --modes graph --layout $lay --acc f32 --loops 5 \
      --out $o/$set-$lay.csv > $o/$set-$lay.log 2>&1
    echo "$set $lay rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
kill $arch; gzip -9 $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; tail -3 $o/m16-tn.log
