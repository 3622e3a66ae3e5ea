#!/bin/bash
# Call 1: main's GPU suite on GPU 0; the split-K branch's split tests then its GPU suite on GPU 1.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw --format=csv > $o/env.txt
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
rm -rf /tmp/br && mkdir /tmp/br && tar cf - --exclude=./build --exclude=./build-main --exclude=./scratch . | tar xf - -C /tmp/br
git -C /tmp/br apply $PWD/scratch/branch.patch > $o/apply.log 2>&1 || { echo APPLY FAILED; cat $o/apply.log; }
echo "copied+patched $(( $(date +%s)-t0 )) s"
( CUDA_VISIBLE_DEVICES=0 HGEMM_GIT_HASH=a0be76e BUILD_DIR=build-main TESTS_CPU=0 scripts/gpu-check $o/main tests > $o/main.out 2>&1
  echo "main rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress ) &
m=$!
( cd /tmp/br
  cmake -S . -B build-br -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=aab1044 > $o/br-build.log 2>&1 &&
    cmake --build build-br -j $(nproc) >> $o/br-build.log 2>&1 || { echo "br BUILD FAILED" >> $o/progress; tail -40 $o/br-build.log >> $o/progress; exit 1; }
  echo "br built $(( $(date +%s)-t0 )) s" >> $o/progress
  export CUDA_VISIBLE_DEVICES=1
  ctest --test-dir build-br -V --timeout 200 -R 'test_sm90_family|memcheck_sm90_split_k|memcheck_split_k' > $o/br-split-tests.log 2>&1
  echo "br split tests rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  timeout $(( 560 - ($(date +%s)-t0) )) ctest --test-dir build-br -V --timeout 300 -L gpu -E 'test_sm90_family|memcheck_sm90_split_k|memcheck_split_k' > $o/br-gpu-rest.log 2>&1
  echo "br rest rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress ) &
b=$!
wait $m $b
kill $arch; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; grep -h -E "tests passed|tests failed|\*\*\*Failed|Timeout" $o/main/tests-gpu.log $o/br-split-tests.log $o/br-gpu-rest.log 2>/dev/null
