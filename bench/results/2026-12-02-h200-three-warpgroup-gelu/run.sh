#!/bin/bash
# The tanh GELU on the fp32 sums of the three-warpgroup tiles (new, working tree) against main
# (ref): build both, test_gemm_general (its new test runs each three-warpgroup instance with a
# bias and the GELU) and memcheck of its --quick run, the ptxas spill report; then over
# three-wg.txt the plain call and bias + GELU, hgemm and cublaslt-best interleaved in
# each process, ref and new alternated, two rounds, graph mode.
set -u
o=/tmp/o4; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 20; tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf ref.tar.gz (git archive of main 9a2d544) -C /tmp/ref && ln -s $PWD/data /tmp/ref/data
( cmake -S /tmp/ref -B build-ref -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=9a2d544 > $o/build-ref.log 2>&1 &&
  cmake --build build-ref -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B build-ab -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_PTXAS_VERBOSE=ON -DHGEMM_GIT_HASH=9a2d544+gelu3 > $o/build.log 2>&1 &&
  cmake --build build-ab -j 10 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
echo "built new $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 200 build-ab/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
wait $refpid
echo "built ref $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 1 build-ab/tests/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do
  for side in ref new; do
    bin=build-ab/hgemm; [ $side = ref ] && bin=build-ref/hgemm
    for epi in none bias_gelu; do
      n=$epi-$side-$r
      [ $(( $(date +%s)-t0 )) -lt 540 ] && [ -x $bin ] && $bin bench --suite three-wg.txt --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
        --epilogue $epi --out $o/$n.csv > $o/$n.log 2>&1
      echo "$n rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
grep -B1 -E "[1-9][0-9]* bytes spill stores" $o/build.log | c++filt > $o/spills.txt
kill $arch; gzip -9 -n $o/*.log $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zcat $o/test_gemm_general.log.gz 2>/dev/null | grep -E "^FAIL|passed, |three-warpgroup" | head -20
