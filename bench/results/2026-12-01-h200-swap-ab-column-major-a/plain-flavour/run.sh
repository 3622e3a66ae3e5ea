#!/bin/bash
# Column-major A on the plain flavour's twin (one matrix, beta 0) against main c715da4 (ref), where
# both run the general flavour's twin: scratch/acol-large.txt (held-out M > 256 with 16-byte
# columns, weight-gradient shapes), TN and NN, hgemm (row-major A, the control) and hgemm-acol,
# alternated over two rounds; then test_gemm_general (its general-flavour test runs every new
# instance) and memcheck of its --quick run, and the ptxas report of the new build.
set -u
o=/tmp/o1; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 20; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=c715da4 > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_PTXAS_VERBOSE=ON -DHGEMM_GIT_HASH=c715da4+plain-acol > $o/build.log 2>&1 &&
  cmake --build build-ab -j 10 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait $refpid
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do
  for side in ref new; do
    bin=build-ab/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    [ $(( $(date +%s)-t0 )) -lt 380 ] && [ -x $bin ] && $bin bench --suite scratch/acol-large.txt --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
      --out $o/acol-$side-$r.csv > $o/acol-$side-$r.log 2>&1
    echo "acol $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
[ $(( $(date +%s)-t0 )) -lt 450 ] && timeout 130 build-ab/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
[ $(( $(date +%s)-t0 )) -lt 560 ] && timeout 30 compute-sanitizer --tool memcheck --error-exitcode 1 build-ab/tests/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
grep -B1 -E "[1-9][0-9]* bytes spill stores" $o/build.log | c++filt > $o/spills.txt
kill $arch; gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zcat $o/test_gemm_general.log.gz 2>/dev/null | grep -E "FAIL|passed, " | tail -5
