#!/bin/bash
# B loaded before the wait behind the copy of a column-major A (settled operands) against main
# 3b8503c (ref): llm-heldout and llm-fresh, row-major vs column-major A, both builds alternated;
# test_gemm_general (with test_rows_copy_in_turn), memcheck and racecheck of its --quick run.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 15; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=3b8503c > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=3b8503c+settled > $o/build.log 2>&1 &&
  cmake --build b -j 10 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait $refpid
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
go() { [ $(( $(date +%s)-t0 )) -lt ${1:-430} ] && [ -x b/hgemm ] && [ -x /tmp/ref/b/hgemm ]; }
for r in 1 2 3; do
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    for suite in llm-heldout llm-fresh; do
      go && $bin bench --suite $suite --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
        --out $o/$suite-acol-$side-$r.csv > $o/$suite-acol-$side-$r.log 2>&1
      echo "$suite $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
[ -x b/tests/test_gemm_general ] && timeout 150 b/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
[ $(( $(date +%s)-t0 )) -lt 520 ] && timeout 40 compute-sanitizer --tool memcheck --error-exitcode 1 b/tests/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
[ $(( $(date +%s)-t0 )) -lt 530 ] && timeout 50 compute-sanitizer --tool racecheck --error-exitcode 1 b/tests/test_gemm_general --quick > $o/racecheck_gemm_general.log 2>&1; echo "racecheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zcat $o/test_gemm_general.log.gz 2>/dev/null | grep -E "FAIL|passed|failed" | head
