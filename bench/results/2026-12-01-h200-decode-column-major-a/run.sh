#!/bin/bash
# Column-major A read by the decode kernels (+ one row read as a row) against main f2a3b9e (ref):
# held-out fifth row-major vs column-major A in both builds; decode suite row-major (the decode
# kernels' own speed) in both; test_gemm_general, test_decode_family, memcheck and racecheck.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 15; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=f2a3b9e > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=f2a3b9e+decode-acol > $o/build.log 2>&1 &&
  cmake --build b -j 10 --target hgemm_cli test_gemm_general test_decode_family test_api_gpu >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait $refpid
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
go() { [ $(( $(date +%s)-t0 )) -lt ${1:-480} ] && [ -x b/hgemm ] && [ -x /tmp/ref/b/hgemm ]; }
for r in 1 2; do
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    go && $bin bench --suite llm-heldout --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
      --out $o/heldout-acol-$side-$r.csv > $o/heldout-acol-$side-$r.log 2>&1
    echo "heldout $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    go && $bin bench --suite decode --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 \
      --out $o/decode-$side-$r.csv > $o/decode-$side-$r.log 2>&1
    echo "decode $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
go 400 && timeout 150 b/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go 480 && timeout 60 b/tests/test_decode_family > $o/test_decode_family.log 2>&1; echo "test_decode_family rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go 500 && timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 b/tests/test_gemm_general --quick > $o/memcheck_gemm_general.log 2>&1; echo "memcheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
go 520 && timeout 50 compute-sanitizer --tool racecheck --error-exitcode 1 b/tests/test_gemm_general --quick > $o/racecheck_gemm_general.log 2>&1; echo "racecheck_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; grep -h "FAIL" $o/test_gemm_general.log 2>/dev/null | head; zcat $o/test_gemm_general.log.gz 2>/dev/null | grep FAIL | head
