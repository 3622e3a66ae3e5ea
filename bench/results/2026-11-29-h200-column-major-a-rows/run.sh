#!/bin/bash
# Device call: branch a-rows-first. Column-major A copied into rows where M <= 256 or its rows are
# not 16-byte strides: the held-out fifth and issue 20's shapes, row-major against column-major A
# (each call verified before it is timed), then test_gemm_general with what time is left.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 10; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
b/hgemm bench --suite llm-heldout --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
  --out $o/heldout-acol.csv > $o/heldout-acol.log 2>&1
echo "heldout rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
b/hgemm bench --suite bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt --impl hgemm,hgemm-acol \
  --modes graph --layout tn,nn --acc f32 --out $o/acol.csv > $o/acol.log 2>&1
echo "acol rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
left=$(( 225 - ($(date +%s)-t0) ))
( cd b && timeout $left tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress )
kill $arch; gzip -9 -n $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; tail -n 5 $o/test_gemm_general.log; grep -c FAIL $o/test_gemm_general.log
