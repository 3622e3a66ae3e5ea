#!/bin/bash
# Call 4 (main 9357049): the epilogue's cost against the plain call in one run (hgemm-plain
# interleaved), fp16 and bf16; llm-fresh call latency (TN).
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
for e in bias_gelu bias gelu; do
  b/hgemm bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
    --epilogue $e --out $o/epi-f16-$e.csv > $o/epi-f16-$e.log 2>&1
  echo "epi f16 $e rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
b/hgemm bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
  --dtype bf16 --epilogue bias_gelu --out $o/epi-bf16-bias_gelu.csv > $o/epi-bf16-bias_gelu.log 2>&1
echo "epi bf16 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 150 b/hgemm bench --suite llm-fresh --impl hgemm,cublaslt-best --modes latency --layout tn --acc f32 \
  --out $o/fresh-latency-f32.csv > $o/fresh-latency.log 2>&1
echo "latency rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
gzip -9 -n $o/*.csv $o/build.log; tar czf $OUT/all.tgz -C $o .
cat $o/progress
