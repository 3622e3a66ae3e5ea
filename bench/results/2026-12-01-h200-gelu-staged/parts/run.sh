#!/bin/bash
# The tanh GELU of a deferred tile applied part by part just before each part's store (outside
# the staging pass's waits and barriers; undeferred tiles as main) against main c3ee222 (ref).
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do sleep 15; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xzf scratch/ab/ref.tar.gz -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=c3ee222 > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 6 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
refpid=$!
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=c3ee222+gelu-parts > $o/build.log 2>&1 &&
  cmake --build b -j 10 --target hgemm_cli test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait $refpid
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
go() { [ $(( $(date +%s)-t0 )) -lt ${1:-250} ] && [ -x b/hgemm ] && [ -x /tmp/ref/b/hgemm ]; }
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
ab() {  # round dtype epilogue
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    go && $bin bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
      --dtype $2 --epilogue $3 --out $o/epi-$side-$1-$2-$3.csv > $o/epi-$side-$1-$2-$3.log 2>&1
    echo "$side $1 $2 $3 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
}
ab 1 f16 gelu
ab 1 f16 bias_gelu
ab 2 f16 gelu
ab 2 f16 bias_gelu
for dt in f16 bf16; do
  go && timeout 30 b/hgemm verify --suite llm-heldout --acc f32 --dtype $dt --epilogue bias_gelu --out $o/verify-heldout-$dt.csv > $o/verify-heldout-$dt.log 2>&1
  echo "verify heldout $dt rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  go && timeout 30 b/hgemm verify --suite $S --acc f32 --dtype $dt --epilogue bias_gelu --out $o/verify-$dt.csv > $o/verify-$dt.log 2>&1
  echo "verify $dt rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
left=$(( 285 - ($(date +%s)-t0) ))
if [ $left -gt 95 ]; then timeout $left b/tests/test_gemm_general > $o/test_gemm_general.log 2>&1; else timeout $left b/tests/test_gemm_general --quick > $o/test_gemm_general.log 2>&1; fi
echo "test_gemm_general (left $left s) rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.log $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zcat $o/test_gemm_general.log.gz 2>/dev/null | tail -1
