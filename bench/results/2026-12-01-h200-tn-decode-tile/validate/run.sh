#!/bin/bash
# The TN decode rule as landed (the tile below 12 tokens where unsplit on 64+ CTAs; a column-major
# A there read by the decode kernels as stored) against main b74e639 (ref): llm-fresh and
# llm-heldout at 16 tokens or fewer, TN and NN, alternated over two rounds, cublaslt-best the
# control, hgemm-acol beside; then test_gemm_general and memcheck of its --quick run.
set -u
o=/tmp/o3; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 20; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=b74e639 > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=b74e639+tn-decode-tile > $o/build.log 2>&1 &&
  cmake --build build-ab -j 10 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait $refpid
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do
  for side in ref new; do
    bin=build-ab/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    for s in fresh-small heldout-small; do
      [ $(( $(date +%s)-t0 )) -lt 400 ] && [ -x $bin ] && $bin bench --suite scratch/$s.txt --impl hgemm,hgemm-acol,cublaslt-best --modes graph --layout tn,nn --acc f32 \
        --out $o/$s-$side-$r.csv > $o/$s-$side-$r.log 2>&1
      echo "$s $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
[ $(( $(date +%s)-t0 )) -lt 420 ] && timeout 120 build-ab/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
[ $(( $(date +%s)-t0 )) -lt 530 ] && timeout 40 compute-sanitizer --tool memcheck --error-exitcode 1 build-ab/tests/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zcat $o/test_gemm_general.log.gz 2>/dev/null | grep -E "FAIL|passed, " | tail -5
