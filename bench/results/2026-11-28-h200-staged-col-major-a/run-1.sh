#!/bin/bash
# Device call: branch staged-col-major-a on one H200: build, odd-M NT bench, GPU suite, 2nd bench.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B build-br -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build build-br -j 16 >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
bench() {
  build-br/hgemm bench --suite scratch/odd-m.txt --impl hgemm,hgemm-acol,cublaslt-best --modes graph,latency \
    --layout tn,nn --acc f32 --out $o/oddm-$1.csv > $o/oddm-$1.log 2>&1
  echo "oddm $1 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
}
bench 1
left=$(( 575 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir build-br -V --timeout 300 -L gpu > $o/gpu-tests.log 2>&1
echo "gpu rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
[ $(( $(date +%s)-t0 )) -lt 540 ] && bench 2
kill $arch; gzip -9 -n $o/*.csv $o/gpu-tests.log; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zgrep -h -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout" $o/gpu-tests.log.gz
