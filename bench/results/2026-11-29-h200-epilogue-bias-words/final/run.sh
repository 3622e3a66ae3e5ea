#!/bin/bash
# The general-flavour gate (HEAD): build, the general and sm90 tests with their memchecks, and the
# epilogue shapes (plain, bias, bias + GELU; f16 and bf16) against cublaslt-best.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_PTXAS_VERBOSE=ON -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
for e in none bias bias_gelu; do
  b/hgemm bench --suite $S --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 --epilogue $e \
    --out $o/epi-$e.csv > $o/epi-$e.log 2>&1
  echo "epi $e rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
for e in none bias_gelu; do
  b/hgemm bench --suite $S --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 --dtype bf16 --epilogue $e \
    --out $o/epi-bf16-$e.csv > $o/epi-bf16-$e.log 2>&1
  echo "epi bf16 $e rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
left=$(( 250 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir b -V --timeout 200 -R "test_gemm_general|memcheck_gemm_general|test_sm90_family|memcheck_sm90$|test_api_gpu" > $o/gpu-tests.log 2>&1
echo "gpu rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.csv $o/gpu-tests.log $o/build.log; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zgrep -h -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout" $o/gpu-tests.log.gz
