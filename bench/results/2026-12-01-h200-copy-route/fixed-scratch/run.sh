#!/bin/bash
# EXPERIMENT: the pool's allocation nodes in captured calls. One build; llm-fresh and llm-heldout
# (TN) with hgemm, hgemm-acol and cublaslt-best in graph mode, alternating the pool (off) and
# four fixed scratch buffers (on: HGEMM_EXPERIMENT_FIXED_SCRATCH=1), two rounds.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 15; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
(cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=3b8503c+fixed-scratch > $o/build.log 2>&1 &&
  cmake --build build-ab -j 16 --target hgemm_cli >> $o/build.log 2>&1) || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do
  for side in off on; do
    for suite in llm-fresh llm-heldout; do
      [ $(( $(date +%s)-t0 )) -lt 520 ] || continue
      if [ $side = on ]; then export HGEMM_EXPERIMENT_FIXED_SCRATCH=1; else unset HGEMM_EXPERIMENT_FIXED_SCRATCH; fi
      build-ab/hgemm bench --suite $suite --impl hgemm,hgemm-acol,cublaslt-best --modes graph --layout tn --acc f32 \
        --out $o/$suite-$side-$r.csv > $o/$suite-$side-$r.log 2>&1
      echo "$suite $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
kill $arch; gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
