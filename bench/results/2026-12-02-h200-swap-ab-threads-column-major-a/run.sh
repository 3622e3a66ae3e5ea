#!/bin/bash
# Swap-AB tiles whose producer threads read a column-major A (new, working tree) against main
# a513ac8 (ref): build both, unit tests and test_gemm_general of new, memcheck of its --quick run,
# the ptxas spill report; explain both over the suites; then hgemm and hgemm-acol alternated,
# two rounds, graph mode.
set -u
o=/tmp/o3; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 20; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf ref.tar.gz (git archive a513ac8) -C /tmp/ref && ln -s $PWD/data /tmp/ref/data
( cmake -S /tmp/ref -B build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=a513ac8 > $o/build-ref.log 2>&1 &&
  cmake --build build-ref -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_PTXAS_VERBOSE=ON -DHGEMM_GIT_HASH=a513ac8+acol-threads > $o/build.log 2>&1 &&
  cmake --build build-ab -j 10 --target hgemm_cli test_gemm_general hgemm_unit_tests >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
echo "built new $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 60 build-ab/tests/hgemm_unit_tests --gtest_brief=1 > $o/unit.log 2>&1; echo "unit rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 200 build-ab/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
wait $refpid
echo "built ref $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 1 build-ab/tests/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
for side in new ref; do
  bin=build-ab/hgemm; [ $side = ref ] && bin=build-ref/hgemm
  for s in llm llm-heldout llm-fresh scratch/acol-dw.txt; do
    $bin explain --suite $s --layout tn,nn --acc f32 --a-col >> $o/explain-$side.txt 2>&1
  done
done
for r in 1 2; do
  for side in ref new; do
    bin=build-ab/hgemm; [ $side = ref ] && bin=build-ref/hgemm
    for s in llm-heldout llm-fresh scratch/acol-dw.txt scratch/acol-changed-llm.txt; do
      n=$(basename $s .txt)
      [ $(( $(date +%s)-t0 )) -lt 540 ] && [ -x $bin ] && $bin bench --suite $s --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
        --out $o/$n-$side-$r.csv > $o/$n-$side-$r.log 2>&1
      echo "$n $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
grep -B1 -E "[1-9][0-9]* bytes spill stores" $o/build.log | c++filt > $o/spills.txt
kill $arch; gzip -9 -n $o/*.log $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zcat $o/test_gemm_general.log.gz 2>/dev/null | grep -E "^FAIL|passed, " | head -20; zcat $o/unit.log.gz | tail -3
