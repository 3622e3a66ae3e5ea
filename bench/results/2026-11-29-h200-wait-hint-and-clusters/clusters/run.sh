#!/bin/bash
# Probe: swap-AB tiles with clusters (multicast of the weight tile across token tiles, of the
# token tile across weight tiles) against dispatch and cublaslt-best on M<=300 shapes; ncu of the
# clustered tile and nvjet at 150x10240x8192; ncu of the decode kernel and cuBLAS at M=16.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
export HGEMM_JIT=1 HGEMM_JIT_CACHE=scratch/jit
cfgs="80x192x64_s6_c1x1_w3 80x192x64_s6_c2x1_w3 80x192x64_s6_c1x2_w3 80x192x64_s6_c2x2_w3
80x128x64_s8_c1x1_w2 80x128x64_s8_c2x1_w2 80x128x64_s8_c1x2_w2 80x128x64_s8_c2x2_w2
160x128x64_s6_c1x1_w2 160x128x64_s6_c1x2_w2 160x128x64_s6_c2x2_w2"
impls="hgemm,cublaslt-best"
for c in $cfgs; do impls="$impls,config:sm90_ws_${c}_m8_st_sk1_f32_tn_swap"; done
shapes=150x10240x8192,300x2560x4096,96x5120x3072,150x9216x3072,150x5120x32768,96x24576x4096,\
300x6144x2560,150x3072x8192,150x5120x4096,150x59136x8192,150x6144x5120,300x8192x4608
b/hgemm bench --shape "$shapes" --impl "$impls" --modes graph --layout tn --acc f32 --loops 7 \
  --out $o/cluster-f32.csv > $o/cluster.log 2>&1
echo "cluster rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section InstructionStats --section WarpStateStats --section LaunchStats"
prof() { # name, regex, bench args...
  local name=$1 re=$2; shift 2
  timeout 100 ncu --clock-control none $S --kernel-name "regex:$re" --launch-skip 3 --launch-count 1 \
    b/hgemm bench --modes offline --acc f32 --layout tn --loops 5 --out $o/$name.csv "$@" > $o/ncu-$name.txt 2>&1
  echo "$name rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
}
prof ours-80x192-c2x2 sm90_ws --shape 150x10240x8192 --impl config:sm90_ws_80x192x64_s6_c2x2_w3_m8_st_sk1_f32_tn_swap
prof ours-80x192-c1x1 sm90_ws --shape 150x10240x8192 --impl config:sm90_ws_80x192x64_s6_c1x1_w3_m8_st_sk1_f32_tn_swap
prof nvjet-150 nvjet --shape 150x10240x8192 --impl cublaslt-heuristic
prof ours-decode-16 decode --shape 16x16384x8192 --impl config:decode_n32_k32_s4_w8_f32_tn
prof cublas-decode-16 '^(?!fill|poison|init|compare|locate|guard|nonfinite|epilogue|sm80|sm90|decode)' --shape 16x16384x8192 --impl cublaslt-heuristic
prof ours-decode-8 decode --shape 8x16384x8192 --impl config:decode_n32_k32_s4_w8_f32_tn
prof cublas-decode-8 '^(?!fill|poison|init|compare|locate|guard|nonfinite|epilogue|sm80|sm90|decode)' --shape 8x16384x8192 --impl cublaslt-heuristic
kill $arch; gzip -9 $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; grep -h "ms:" $o/cluster.log | tail -3
