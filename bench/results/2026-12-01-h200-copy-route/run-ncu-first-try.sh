#!/bin/bash
# Kernel durations (ncu, clocks free) of the column-major A copy and the GEMM after it against the
# row-major call's GEMM, five shapes of llm-heldout whose copy costs the most; then
# test_gemm_general (with test_rows_copy_in_turn).
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 15; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=3b8503c > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
while read m n k; do
  printf "%s %s %s\n" $m $n $k > /tmp/one.txt
  for lay in tn nn; do
    for impl in hgemm hgemm-acol; do
      timeout 60 ncu --clock-control none --metrics gpu__time_duration.sum -k 'regex:transpose|sm90_ws|decode' -c 16 \
        b/hgemm bench --suite /tmp/one.txt --impl $impl --modes eager --layout $lay --acc f32 --out /tmp/x.csv \
        > $o/ncu-$m-$n-$k-$lay-$impl.txt 2>&1
      echo "ncu $m $n $k $lay $impl rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done < scratch/ab/ncu-shapes.txt
timeout 150 b/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.log; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; grep -E "FAIL|passed" $o/test_gemm_general.log 2>/dev/null | tail -3; zcat $o/test_gemm_general.log.gz | grep -E "FAIL|passed, " | tail -5
