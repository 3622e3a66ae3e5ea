#!/bin/bash
# Large-N decode-sized TN: (a) the 16x64 two-warpgroup tile with 12 and 16 stages against
# cublaslt-best; (b) ncu of ours and cuBLASLt's 64x16 at 12x59136x8192: bytes from DRAM, L2 hits.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table HGEMM_JIT=1 HGEMM_JIT_CACHE=$PWD/scratch/jit33
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 10; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build build-gpu -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
b=build-gpu/hgemm
S=12x59136x8192,12x65536x5120,12x32064x3072,16x28672x4096,16x57344x8192,12x128256x4096,15x24576x4096,13x73728x4608,16x152064x3584,14x37888x3584
I=hgemm,cublaslt-best,config:sm90_ws_16x64x64_s12_c1x1_w2_m8_st_sk1_f32_tn_swap,config:sm90_ws_16x64x64_s16_c1x1_w2_m8_st_sk1_f32_tn_swap
timeout 40 $b bench --shape $S --impl $I --modes graph --layout tn --acc f32 --loops 7 --out $o/stages.csv > $o/stages.log 2>&1
echo "stages rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
M="--section SpeedOfLight --section MemoryWorkloadAnalysis"
timeout 35 ncu --clock-control none $M --kernel-name regex:sm90_ws_gemm --launch-skip 3 --launch-count 1 -o $o/ours \
  $b bench --shape 12x59136x8192 --impl hgemm --modes offline --layout tn --acc f32 --out $o/ours.csv > $o/ours.log 2>&1
echo "ncu ours rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 45 ncu --clock-control none $M --kernel-name regex:'nvjet.*64x16' --launch-skip 2 --launch-count 1 -o $o/nvjet \
  $b bench --shape 12x59136x8192 --impl cublaslt-best --modes offline --layout tn --acc f32 --out $o/nvjet.csv > $o/nvjet.log 2>&1
echo "ncu nvjet rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
for n in ours nvjet; do ncu --import $o/$n.ncu-rep --page details --csv > $o/$n-details.csv 2>/dev/null; ncu --import $o/$n.ncu-rep --page raw --csv 2>/dev/null | gzip -9 > $o/$n-raw.csv.gz; done
rm -f $o/*.ncu-rep
kill $arch; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
