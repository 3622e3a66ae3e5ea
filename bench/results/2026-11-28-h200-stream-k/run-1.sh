#!/bin/bash
# Device call: branch stream-k on one H200: build, HGEMM_STREAM_K 0/1 alternated against
# cublaslt-best on sk-shapes and llm-heldout, then the sm90 tests and a stream-K memcheck.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do for sk in 0 1; do
  for suite in scratch/sk-shapes.txt llm-heldout; do
    tag=$(basename $suite .txt)
    HGEMM_STREAM_K=$sk b/hgemm bench --suite $suite --impl hgemm,cublaslt-best --modes graph,latency \
      --layout tn,nn --acc f32 --out $o/$tag-sk$sk-$r.csv > $o/$tag-sk$sk-$r.log 2>&1
    echo "$tag sk$sk $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done; done
HGEMM_STREAM_K=1 timeout 90 compute-sanitizer --tool memcheck --error-exitcode 1 b/hgemm verify \
  --suite bench/suites/memcheck.txt --impl family:sm90 --quick > $o/memcheck-sk.log 2>&1
echo "memcheck sk rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
left=$(( 560 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir b -V --timeout 300 -R "test_sm90_family|test_splitk|memcheck_sm90" > $o/gpu-tests.log 2>&1
echo "gpu rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.csv $o/gpu-tests.log; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; tail -3 $o/memcheck-sk.log; zgrep -h -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout| passed, " $o/gpu-tests.log.gz
